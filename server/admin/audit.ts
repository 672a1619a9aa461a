/**
 * The admin audit log: one entry per admin request that passed the credential check, whatever
 * the outcome, kept in the store so every process of a node writes to (and reads) one log.
 *
 * Layout: `node:admin:audit:<id>` holds the entry; the index `node:admin:audit` orders ids,
 * which start with the zero-padded wall-clock milliseconds and a per-store counter, so the
 * log reads newest first with a reverse range and survives clock ties across processes.
 * Entries never hold the JWT or any secret: only the admin's public key, the route, the
 * outcome and the request's non-credential field names.
 * @module
 */
import type { Store } from '../store/types.js';

export const AUDIT_INDEX = 'node:admin:audit';
const AUDIT_SEQ = 'node:admin:audit:seq';
const entryKey = (id: string): string => `node:admin:audit:${id}`;

export interface AdminAuditEntry {
  /** Sortable id: `<ms, 15 digits>-<sequence, 12 digits>`. */
  id: string;
  /** Wall-clock milliseconds when the action finished. */
  atMs: number;
  /** The admin's public key (Base58Check, this node's network). */
  admin: string;
  /** Route path without the /api/v0 prefix, e.g. `/admin/pin-post`. */
  route: string;
  /** HTTP status the action answered. */
  status: number;
  /** The error message when the action failed (4xx/5xx), else null. */
  error: string | null;
  /** Request field names besides the credentials (values are not logged: they may be personal data). */
  fields: string[];
}

export type NewAuditEntry = Omit<AdminAuditEntry, 'id'>;

/** Appends one entry; returns its id. */
export async function recordAdminAction(store: Store, entry: NewAuditEntry): Promise<string> {
  const seq = await store.incr(AUDIT_SEQ);
  const id = `${String(entry.atMs).padStart(15, '0')}-${String(seq).padStart(12, '0')}`;
  await store.commit([
    { op: 'set', key: entryKey(id), value: { id, ...entry } },
    { op: 'indexAdd', key: AUDIT_INDEX, members: [id] },
  ]);
  return id;
}

/** The newest entries first, optionally only those of one route or one admin. */
export async function listAdminActions(store: Store, opts: { limit?: number; route?: string; admin?: string } = {}): Promise<AdminAuditEntry[]> {
  const limit = opts.limit ?? 100;
  const out: AdminAuditEntry[] = [];
  let before: string | undefined;
  // Page through the index so a filter still finds `limit` matches.
  while (out.length < limit) {
    const ids = await store.indexRange(AUDIT_INDEX, { reverse: true, limit: 200, ...(before === undefined ? {} : { lt: before }) });
    if (ids.length === 0) break;
    const entries = await store.getMany<AdminAuditEntry>(ids.map(entryKey));
    for (const e of entries) {
      if (e === undefined) continue;
      if (opts.route !== undefined && e.route !== opts.route) continue;
      if (opts.admin !== undefined && e.admin !== opts.admin) continue;
      out.push(e);
      if (out.length === limit) break;
    }
    before = ids[ids.length - 1];
  }
  return out;
}

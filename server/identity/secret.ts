/**
 * The identity node secret: the 32-byte key that seals `encryptedSeedHex` handles
 * (sealedSeed.ts). Every process and machine serving one node must hold the same one, or a
 * handle issued by one process will not open on another.
 *
 * Where it comes from, first match wins:
 * 1. `--identity-secret` (64 hex characters);
 * 2. `--identity-secret-file` (a file holding 64 hex characters; surrounding whitespace ignored);
 * 3. the durable store: on Redis, the first process to start creates a random secret with a
 *    set-if-absent commit and every other process reads that one (so `--processes N` and
 *    several machines on one Redis agree without configuration); on LMDB, the secret is made
 *    once and kept in the data directory, so sessions outlive a restart as the chain does;
 * 4. on the memory store, a random secret for this process's lifetime.
 * Cases 3 and 4 are logged as warnings: in production the secret belongs in a file readable
 * only by the node, not in the store or in nobody's hands.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import { NODE_SECRET_BYTES } from './sealedSeed.js';

/** Store key of the secret created in a shared store (case 3). */
export const STORE_SECRET_KEY = 'identity:node-secret';

const SECRET_HEX = /^[0-9a-fA-F]{64}$/;

export class IdentitySecretError extends Error {
  override readonly name = 'IdentitySecretError';
}

export type IdentitySecretSource = 'config' | 'file' | 'store' | 'ephemeral';

export interface IdentitySecret {
  secret: Uint8Array;
  source: IdentitySecretSource;
}

export async function resolveIdentitySecret(
  /** config.ts `--identity-secret`, `--identity-secret-file`. */
  config: { identitySecret: string | undefined; identitySecretFile: string | undefined },
  store: Store,
  log: Logger,
): Promise<IdentitySecret> {
  if (config.identitySecret !== undefined) {
    return { secret: fromHex(config.identitySecret, '--identity-secret (IDENTITY_SECRET)'), source: 'config' };
  }
  if (config.identitySecretFile !== undefined) {
    let text: string;
    try {
      text = await readFile(config.identitySecretFile, 'utf8');
    } catch (err) {
      throw new IdentitySecretError(
        `--identity-secret-file (IDENTITY_SECRET_FILE): cannot read ${config.identitySecretFile}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    return { secret: fromHex(text.trim(), `--identity-secret-file ${config.identitySecretFile}`), source: 'file' };
  }
  if (store.kind !== 'memory') {
    const fresh = randomBytes(NODE_SECRET_BYTES);
    // Set-if-absent: of several processes starting together exactly one secret wins.
    await store.commit([{ op: 'set', key: STORE_SECRET_KEY, value: new Uint8Array(fresh) }], [{ key: STORE_SECRET_KEY, equals: undefined }]);
    fresh.fill(0);
    const stored = await store.get<unknown>(STORE_SECRET_KEY);
    if (!(stored instanceof Uint8Array) || stored.length !== NODE_SECRET_BYTES) {
      throw new IdentitySecretError(`the identity secret in the store (${STORE_SECRET_KEY}) is not ${NODE_SECRET_BYTES} bytes; delete it or set --identity-secret-file`);
    }
    log.warn(
      store.kind === 'redis'
        ? 'identity node secret is kept in Redis (shared by every process on it); set --identity-secret-file in production'
        : 'identity node secret is kept in the LMDB data directory; set --identity-secret-file in production',
    );
    return { secret: stored, source: 'store' };
  }
  log.warn('identity node secret is random for this run: identity sessions end when the node restarts; set --identity-secret-file to keep them');
  return { secret: new Uint8Array(randomBytes(NODE_SECRET_BYTES)), source: 'ephemeral' };
}

function fromHex(text: string, where: string): Uint8Array {
  // The value is a secret: the message says what is wrong, never what it was.
  if (!SECRET_HEX.test(text)) throw new IdentitySecretError(`${where} must hold 64 hex characters (32 bytes), e.g. from \`openssl rand -hex 32\``);
  return new Uint8Array(Buffer.from(text, 'hex'));
}

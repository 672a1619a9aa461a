/**
 * The write half of the load bench, run inside the load process (bench/load/loadProcess.ts)
 * beside the read generator: a paced stream of signed transactions, RATE per second, spread
 * over the writers made by bench/load/setup.ts. Each writer has at most one transaction in
 * flight (construct over HTTP → sign with the SDK, as a wallet would → submit-transaction), so
 * its nonces never race; a tick that finds every writer busy is counted as `behind` (the node
 * cannot take the rate), not queued. Each writer cycles through a native-coin transfer to its
 * partner, a DM in their thread and an update of its profile description.
 *
 * Remembers what it wrote, so `verify()` can check that every accepted write is what the node
 * serves afterwards.
 * @module
 */
import { signTx } from 'deso-protocol';
import { dmBody, profileBody } from '../../test/helpers/chainNode.js';
import { FAR_FUTURE, type Writer } from './setup.js';
import { percentile } from '../http/loadgen.js';

export type WriteKind = 'send-deso' | 'send-dm-message' | 'update-profile';
const KINDS: readonly WriteKind[] = ['send-deso', 'send-dm-message', 'update-profile'];
const FEE = { MinFeeRateNanosPerKB: 1000 };
/** Error messages kept for the report. */
const MAX_ERROR_SAMPLES = 5;

export interface WriteStats {
  /** Transactions started in the measured window. */
  attempted: number;
  /** Accepted by submit-transaction (200), of those started in the window. */
  accepted: number;
  /** Any non-200 answer or failed request, whole run (warm-up included). */
  errors: number;
  /** Ticks that found every writer busy, in the window. */
  behind: number;
  acceptedPerSec: number;
  /** construct + sign + submit, of the window's accepted writes. */
  p50ms: number;
  p99ms: number;
  byKind: Record<WriteKind, number>;
  errorSamples: string[];
}

type Json = Record<string, any>;

async function post(base: string, path: string, body: unknown): Promise<{ status: number; json: Json }> {
  const r = await fetch(`${base}/api/v0/${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  let json: Json;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = { error: `not JSON: ${text.slice(0, 200)}` };
  }
  return { status: r.status, json };
}

export class WriteStream {
  private readonly base: string;
  private readonly busy: boolean[];
  private readonly ops: number[];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private measuring = false;
  private t0 = 0;
  private elapsedMs = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stats = { attempted: 0, accepted: 0, errors: 0, behind: 0, latencies: [] as number[], byKind: { 'send-deso': 0, 'send-dm-message': 0, 'update-profile': 0 } as Record<WriteKind, number>, errorSamples: [] as string[] };
  /** Per writer, the description of its last accepted profile update. */
  private readonly lastDescription = new Map<number, string>();
  /** Per thread (lower writer index), every DM text accepted, in no particular order. */
  private readonly threadTexts = new Map<number, string[]>();
  private seq = 0;

  constructor(
    port: number,
    private readonly writers: readonly Writer[],
    private readonly ratePerSec: number,
  ) {
    this.base = `http://127.0.0.1:${port}`;
    this.busy = writers.map(() => false);
    this.ops = writers.map((_, i) => i % KINDS.length);
  }

  start(): void {
    if (this.ratePerSec <= 0) return;
    const period = 1000 / this.ratePerSec;
    const started = performance.now();
    let ticks = 0;
    const tick = (): void => {
      if (this.stopped) return;
      this.launch();
      ticks++;
      // Paced against the start time, so timer lateness does not lower the rate.
      this.timer = setTimeout(tick, Math.max(0, started + (ticks + 1) * period - performance.now()));
    };
    tick();
  }

  measureStart(): void {
    this.measuring = true;
    this.t0 = performance.now();
  }

  measureEnd(): void {
    this.measuring = false;
    this.elapsedMs = performance.now() - this.t0;
  }

  /** Stops starting transactions and waits for those in flight. */
  async stop(): Promise<WriteStats> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    const s = this.stats;
    const sorted = [...s.latencies].sort((a, b) => a - b);
    return {
      attempted: s.attempted,
      accepted: s.accepted,
      errors: s.errors,
      behind: s.behind,
      acceptedPerSec: this.elapsedMs > 0 ? (s.accepted / this.elapsedMs) * 1000 : NaN,
      p50ms: percentile(sorted, 0.5),
      p99ms: percentile(sorted, 0.99),
      byKind: s.byKind,
      errorSamples: s.errorSamples,
    };
  }

  private launch(): void {
    const n = this.writers.length;
    for (let k = 0; k < n; k++) {
      const i = (this.next + k) % n;
      if (this.busy[i]) continue;
      this.next = (i + 1) % n;
      this.busy[i] = true;
      const kind = KINDS[this.ops[i]! % KINDS.length]!;
      this.ops[i]!++;
      const counted = this.measuring;
      if (counted) this.stats.attempted++;
      const p = this.write(i, kind, counted).finally(() => {
        this.busy[i] = false;
        this.inFlight.delete(p);
      });
      this.inFlight.add(p);
      return;
    }
    if (this.measuring) this.stats.behind++;
  }

  private fail(what: string): void {
    this.stats.errors++;
    if (this.stats.errorSamples.length < MAX_ERROR_SAMPLES) this.stats.errorSamples.push(what.slice(0, 300));
  }

  private async write(i: number, kind: WriteKind, counted: boolean): Promise<void> {
    const w = this.writers[i]!;
    const partner = this.writers[w.partner]!;
    const text = `load bench ${w.username} #${++this.seq} at ${Date.now()}`;
    const body =
      kind === 'send-deso'
        ? { SenderPublicKeyBase58Check: w.pk, RecipientPublicKeyOrUsername: partner.pk, AmountNanos: 1000 }
        : kind === 'send-dm-message'
          ? dmBody(w.pk, partner.pk, text)
          : profileBody(w.pk, w.username, text);
    const t = performance.now();
    try {
      const c = await post(this.base, kind, { ...FEE, ...body });
      if (c.status !== 200) return this.fail(`${kind} construct: ${c.status} ${JSON.stringify(c.json)}`);
      const signed = await signTx(c.json['TransactionHex'] as string, w.seedHex);
      const s = await post(this.base, 'submit-transaction', { TransactionHex: signed });
      if (s.status !== 200) return this.fail(`${kind} submit: ${s.status} ${JSON.stringify(s.json)}`);
    } catch (err) {
      return this.fail(`${kind}: ${(err as Error).message}`);
    }
    if (kind === 'update-profile') this.lastDescription.set(i, text);
    if (kind === 'send-dm-message') {
      const thread = Math.min(i, w.partner);
      const texts = this.threadTexts.get(thread) ?? [];
      texts.push(text);
      this.threadTexts.set(thread, texts);
    }
    if (counted) {
      this.stats.accepted++;
      this.stats.byKind[kind]++;
      this.stats.latencies.push(performance.now() - t);
    }
  }

  /**
   * After `stop()`: every accepted profile update is the writer's description now, and every
   * accepted DM is in its thread (walked newest first over as many pages as it takes). Returns
   * the problems found, empty when all is well.
   */
  async verify(): Promise<string[]> {
    const problems: string[] = [];
    for (const [i, description] of this.lastDescription) {
      const w = this.writers[i]!;
      const r = await post(this.base, 'get-single-profile', { PublicKeyBase58Check: w.pk });
      const got = (r.json['Profile'] as Json | undefined)?.['Description'];
      if (r.status !== 200 || got !== description) problems.push(`profile of ${w.username}: expected description ${JSON.stringify(description)}, got ${r.status} ${JSON.stringify(got)}`);
    }
    for (const [i, texts] of this.threadTexts) {
      const a = this.writers[i]!;
      const b = this.writers[a.partner]!;
      const want = new Set(texts.map((t) => Buffer.from(t, 'utf8').toString('hex')));
      let start = FAR_FUTURE;
      // The run's messages are the newest; stop once every one was seen (or the thread ends).
      for (let page = 0; want.size > 0 && page < 1000; page++) {
        const r = await post(this.base, 'get-paginated-messages-for-dm-thread', {
          UserGroupOwnerPublicKeyBase58Check: a.pk,
          UserGroupKeyName: '',
          PartyGroupOwnerPublicKeyBase58Check: b.pk,
          PartyGroupKeyName: '',
          StartTimestampString: start,
          MaxMessagesToFetch: 100,
        });
        if (r.status !== 200) {
          problems.push(`thread ${a.username}/${b.username}: ${r.status} ${JSON.stringify(r.json)}`);
          break;
        }
        const msgs = r.json['ThreadMessages'] as Json[];
        for (const m of msgs) want.delete((m['MessageInfo'] as Json)['EncryptedText'] as string);
        if (msgs.length < 100) break;
        start = (msgs[msgs.length - 1]!['MessageInfo'] as Json)['TimestampNanosString'] as string;
      }
      if (want.size > 0) problems.push(`thread ${a.username}/${b.username}: ${want.size} of ${texts.length} accepted messages missing`);
    }
    return problems;
  }
}

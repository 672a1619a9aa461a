/**
 * The load bench's writers, made once on the populated store (bench/http/populate.ts fills the
 * rest): WRITERS funded keys, each with a profile, paired into DM threads that already hold one
 * message. During the measured rounds each writer keeps sending native coin, DMs in its thread
 * and profile updates (bench/load/writer.ts), and the read mix includes the writers' profiles
 * and thread pages, so some reads see data that changes under them.
 *
 * Runs a node in this process on that Redis (its built-in miner on, as populate does) and closes
 * it before the measured nodes start.
 * @module
 */
import { dmBody, keyPair, profileBody, startChainNode, type J } from '../../test/helpers/chainNode.js';

/** A key the load process signs with. */
export interface Writer {
  seedHex: string;
  pk: string;
  username: string;
  /** The writer it shares a DM thread with. */
  partner: number;
}

export interface WriterSetup {
  writers: Writer[];
  /** get-single-profile bodies of the writers (by key and by username). */
  profileBodies: J[];
  /** The first page of each writer thread. */
  threadBodies: J[];
}

const FEE = { MinFeeRateNanosPerKB: 1000 };
/** Per writer: pays ~300-nano fees for far more transactions than a run sends. */
const FUND_NANOS = 50_000_000;
/** A start point after every message (year 2033): the first page of a thread. */
export const FAR_FUTURE = '2000000000000000000';
export const PAGE_SIZE = 25;

/** The first page of the thread of writer `a` with writer `b`, as `a` reads it. */
export function threadPageBody(a: Writer, b: Writer): J {
  return {
    UserGroupOwnerPublicKeyBase58Check: a.pk,
    UserGroupKeyName: '',
    PartyGroupOwnerPublicKeyBase58Check: b.pk,
    PartyGroupKeyName: '',
    StartTimestampString: FAR_FUTURE,
    MaxMessagesToFetch: PAGE_SIZE,
  };
}

export async function setupWriters(redisUrl: string, count: number, log: (line: string) => void = () => undefined): Promise<WriterSetup> {
  if (count < 2 || count % 2 !== 0) throw new RangeError(`"count" expected an even number ≥ 2, got ${count}`);
  const n = await startChainNode({ store: 'redis', redisUrl });
  try {
    const tag = Date.now().toString(36).slice(-5);
    const writers: Writer[] = Array.from({ length: count }, (_, i) => {
      const k = keyPair();
      return { seedHex: k.seedHex, pk: k.pk, username: `lw${tag}w${i}`, partner: i ^ 1 };
    });
    const submitOnly = async (path: string, body: J, w: { seedHex: string; pk: string }): Promise<string> => {
      const c = await n.ok(path, { ...FEE, ...body });
      const signer = { seedHex: w.seedHex, pk: w.pk, pk33: new Uint8Array(0) };
      const s = await n.ok('submit-transaction', { TransactionHex: await n.sign(c['TransactionHex'] as string, signer, 'sdk') });
      return s['TxnHashHex'] as string;
    };
    // Block rewards pay for the funding.
    for (let i = 0; i < 3; i++) await n.mineBlock();
    let last = '';
    for (const w of writers) {
      last = await submitOnly('send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: w.pk, AmountNanos: FUND_NANOS }, n.miner);
    }
    await n.waitMined(last);
    for (const w of writers) last = await submitOnly('update-profile', profileBody(w.pk, w.username, `load bench writer ${w.username}`), w);
    await n.waitMined(last);
    for (let i = 0; i < count; i += 2) last = await submitOnly('send-dm-message', dmBody(writers[i]!.pk, writers[i + 1]!.pk, 'first message of a load bench thread'), writers[i]!);
    await n.waitMined(last);
    log(`${count} writers funded, with profiles and ${count / 2} DM threads`);
    return {
      writers,
      profileBodies: writers.flatMap((w) => [{ PublicKeyBase58Check: w.pk }, { Username: w.username }]),
      threadBodies: writers.map((w) => threadPageBody(w, writers[w.partner]!)),
    };
  } finally {
    await n.close();
  }
}

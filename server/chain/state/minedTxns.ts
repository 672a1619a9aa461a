/**
 * Mined transactions by hash: where each one is (TxnLocation), in buckets. A bucket is an index
 * (`chainKeys.txnBucket`, named by the hash's first TXN_BUCKET_HASH_BYTES) whose members are the
 * hash's next TXN_MEMBER_HASH_BYTES followed by the location. Why buckets: a key of its own per
 * transaction cost 88 B in Redis (key, value and entry overheads), a member of a small ordered
 * set about 32 (Redis keeps sets of up to `zset-max-listpack-entries`, 128 by default, as one
 * packed list: 2^16 buckets hold 8M transactions so; README "Redis sizing" says what to set for
 * more).
 *
 * 14 hash bytes name a location: a different transaction matches them only by a 2^112
 * second-preimage search, and a pair of one's own that match costs 2^56 hashes and then only
 * has one's own second transaction refused as mined. A reader that serves the transaction from
 * its block checks the whole hash (`minedTxnLocation`).
 * @module
 */
import { sha256d } from '../../../wasm/hash.js';
import { fromHex, toHex } from '../../hex.js';
import type { WriteOp } from '../../store/types.js';
import { readBlock } from './blockTxns.js';
import { chainKeys, type TxnLocation } from './keys.js';
import { bytesText, joinBytes, orderedUint, readOrderedUint, textBytes } from './keyText.js';
import type { StateIndexReader, StateReader } from './reader.js';

/** Hash bytes naming a bucket: 2^16 buckets. */
export const TXN_BUCKET_HASH_BYTES = 2;
/** Hash bytes at the start of a member (a multiple of 3: its text ends on a whole character). */
export const TXN_MEMBER_HASH_BYTES = 12;
/** Members sharing their hash bytes read at most (more than one is a collision of one's own). */
const MAX_CANDIDATES = 4;

/** The hash bytes a member starts with (after the bucket's). */
const memberHashBytes = (hashHex: string): Uint8Array => fromHex(hashHex.slice(2 * TXN_BUCKET_HASH_BYTES, 2 * (TXN_BUCKET_HASH_BYTES + TXN_MEMBER_HASH_BYTES)));

/** The bucket member locating the transaction with this hash at (height, index). */
export function txnLocationMember(hashHex: string, height: bigint, index: number): string {
  return bytesText(joinBytes(memberHashBytes(hashHex), orderedUint(height), orderedUint(BigInt(index))));
}

function memberLocation(member: string): TxnLocation {
  const bytes = textBytes(member);
  const height = readOrderedUint(bytes, TXN_MEMBER_HASH_BYTES);
  return [Number(height.value), Number(readOrderedUint(bytes, height.end).value)];
}

/** The writes that locate a block's transactions (`hashHexes` in block order, reward first). */
export function minedTxnOps(height: bigint, hashHexes: readonly string[]): WriteOp[] {
  const byBucket = new Map<string, string[]>();
  for (const [index, h] of hashHexes.entries()) {
    const key = chainKeys.txnBucket(h);
    let members = byBucket.get(key);
    if (members === undefined) byBucket.set(key, (members = []));
    members.push(txnLocationMember(h, height, index));
  }
  return [...byBucket].map(([key, members]) => ({ op: 'indexAdd' as const, key, members }));
}

/** Locations of mined transactions whose hash starts with this one's located bytes (usually none or one). */
async function candidates(state: StateIndexReader, hashHex: string): Promise<TxnLocation[]> {
  // A whole number of characters (TXN_MEMBER_HASH_BYTES is a multiple of 3): a prefix of every member's text.
  const prefix = bytesText(memberHashBytes(hashHex));
  // '~' sorts after every character of the text alphabet.
  const members = await state.indexRange(chainKeys.txnBucket(hashHex), { gte: prefix, lt: `${prefix}~`, limit: MAX_CANDIDATES });
  return members.map(memberLocation);
}

/**
 * Whether a mined transaction has this hash's located bytes: one read. True for one's own
 * colliding pair too (see the module comment): admission refuses the second as mined.
 */
export async function isMinedTxn(state: StateIndexReader, hashHex: string): Promise<boolean> {
  return (await candidates(state, hashHex)).length > 0;
}

/**
 * Where the transaction with this hash (64 lower-case hex characters) is in the main chain, or
 * undefined when no main-chain block holds it: the bucket, then the block hash at that height
 * and the block, whatever the chain's length.
 */
export async function minedTxnLocation(state: StateIndexReader & StateReader, hashHex: string): Promise<TxnLocation | undefined> {
  for (const location of await candidates(state, hashHex)) {
    const [height, index] = location;
    const blockHash = await state.get<string>(chainKeys.hashAtHeight(BigInt(height)));
    const bytes = blockHash === undefined ? undefined : (await readBlock(state, blockHash))?.txns[index];
    if (bytes !== undefined && toHex(sha256d(bytes)) === hashHex) return location;
  }
  return undefined;
}

/**
 * Store keys of chain state. The chain's own keys are here; each state module names its own
 * (profiles.ts, messages.ts, …) from the same parts. Layout 4 (`LAYOUT_VERSION`), per key:
 *
 * | key                                    | holds                                              |
 * |----------------------------------------|----------------------------------------------------|
 * | `meta:layout`                          | the layout version (a number)                      |
 * | `chain:tip`                            | TipRecord                                          |
 * | `b:<hash>`                             | BlockRecord (transactions compressed: body.ts)     |
 * | `h:<height>`                           | main-chain block hash (hex) at a height            |
 * | index `t:<txn hash, first 2 bytes>`    | mined transactions' locations (minedTxns.ts)       |
 * | `n:<nonce>`, index `n-exp`             | a used nonce, until it expires (nonces.ts)         |
 * | `$:<pk>`                               | native balance, nanos                              |
 * | `p:`, `u:`, indexes `p-names`, `p-locked` | profiles (profiles.ts)                          |
 * | `d:`, `g:`, indexes `d-ts:`, `d-rows:`, `g-ts:` | DMs and group chats (messages.ts)          |
 * | `ag:`, `agm:`, indexes `ag-owned:`, `agm-m:`, `agm-of:` | access groups (accessGroups.ts)    |
 * | `mg:`, indexes `mg-owned:`, `mg-of:`  | legacy messaging groups (messagingGroups.ts)       |
 * | `o:`, indexes `o-book:`, `o-by:`       | DAO coin limit orders (daoCoinLimitOrders.ts)      |
 * | indexes `F:`, `Fby:`                   | follows, by follower and by followed (follows.ts)  |
 * | indexes `L:`, `Lby:`                   | likes, by post and by liker (likes.ts)             |
 * | `D:`, `Dsum:`, indexes `Dpost:`, `Drecv:`, `Dgave:`, `Dpair:` | diamonds (diamonds.ts)  |
 * | indexes `Pa:`, `Pam:`, `Pf`, `Pfm`, `Pc:`, `Pr:`, `Pq:` | post read indexes (postIndexes.ts) |
 * | indexes `Nf:`, `Nl:`, `Np:`, `Nd:`, `Nt:`, `Nc:` | notifications by key and category (notifications.ts) |
 * | index `K:`                           | every transaction touching a key (keyTxns.ts)      |
 * | `chain:blockwrites:<height>`           | keys the last 33 blocks wrote (BlockWritesRecord)  |
 * | `chain:…`                              | posts, coins, derived keys, global params (hex)    |
 *
 * Bytes (public keys, hashes, group names) appear as `bytesText` (keyText.ts: order-preserving
 * base64, 4 characters per 3 bytes where hex took 6), numbers as `uintText`; index members that
 * sort by several fields are one byte string of order-preserving fields in that text. Values
 * are tuples without what their key already says, amounts below 2^53 as plain numbers
 * (compactValues.ts). Layout 1 (hex keys, object values, nonces kept forever), layout 2
 * (without the social-graph indexes F, L, D, P, C, N that connects keep since), layout 3
 * (block bodies not compressed, a location key per transaction, no per-key transaction index
 * K) and layout 4 (without K) are refused at startup (layout.ts).
 * @module
 */
import { fromHex } from '../../hex.js';
import { bytesText, fieldsText, uintText } from './keyText.js';

/** The layout of chain state this code reads and writes (`chainKeys.layout`). */
export const LAYOUT_VERSION = 5;

/** The text that names a used nonce: expiration first, so the nonce index sorts by it. */
export function nonceText(pk33: Uint8Array, expiration: bigint, partialId: bigint): string {
  return fieldsText(expiration, pk33, partialId);
}

const hashText = (hashHex: string): string => bytesText(fromHex(hashHex));

export const chainKeys = {
  /**
   * The store's layout version (a number), written with the genesis block; a store with a
   * chain and an older (or no) version was written by an older node (node.ts refuses it).
   */
  layout: 'meta:layout',
  /** bigint nanos of the native coin held by a public key. */
  balance: (pk33: Uint8Array): string => `$:${bytesText(pk33)}`,
  /** A used (public key, nonce): replay protection of the balance model (nonces.ts). */
  nonce: (pk33: Uint8Array, expiration: bigint, partialId: bigint): string => `n:${nonceText(pk33, expiration, partialId)}`,
  /** The nonce key of a `noncesByExpiration` member. */
  nonceOfText: (text: string): string => `n:${text}`,
  /** Index of used nonces, members `nonceText`: ascending by expiration height. */
  noncesByExpiration: 'n-exp',
  /** The main chain's tip (TipRecord). */
  tip: 'chain:tip',
  /** A stored block (BlockRecord) by its hash. */
  block: (hashHex: string): string => `b:${hashText(hashHex)}`,
  /** Main-chain block hash at a height. */
  hashAtHeight: (height: bigint): string => `h:${uintText(height)}`,
  /**
   * The bucket of mined transactions' locations holding this hash's (state/minedTxns.ts), by
   * its first 2 bytes.
   */
  txnBucket: (hashHex: string): string => `t:${bytesText(fromHex(hashHex.slice(0, 4)))}`,
  /**
   * Every key the main-chain block at a height wrote (BlockWritesRecord; only the last few
   * blocks' are kept): how processes that did not connect a block learn what it changed
   * (Chain.pendingChanges).
   */
  blockWrites: (height: bigint): string => `chain:blockwrites:${height}`,
};

export interface TipRecord {
  hashHex: string;
  height: bigint;
  tstampSecs: bigint;
  /** The tip block's own difficulty target, 32 bytes big-endian, hex. */
  targetHex: string;
}

export interface BlockRecord {
  /** 100-byte v1 header. */
  header: Uint8Array;
  /**
   * Signed transaction bytes, block reward first, compressed together (block/body.ts: read them
   * with `unpackBlockBody`).
   */
  body: Uint8Array;
  height: bigint;
  targetHex: string;
  /** Whether the block is on the main chain. */
  mainChain: boolean;
}

export interface BlockWritesRecord {
  /** The block that wrote them (a list of another branch's block at that height is no use). */
  hashHex: string;
  /** The keys, or null when the block wrote too many to list (anything may have changed). */
  keys: string[] | null;
}

/**
 * Where a mined transaction is: the main-chain block at `height` (its hash is `hashAtHeight`),
 * at `index` in it.
 */
export type TxnLocation = [height: number, index: number];

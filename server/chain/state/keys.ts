/**
 * Store keys of chain state, in one place. Public keys and hashes appear as lower-case hex.
 * @module
 */
import { toHex as hex } from '../../hex.js';

export const chainKeys = {
  /** bigint nanos of the native coin held by a public key. */
  balance: (pk33: Uint8Array): string => `chain:bal:${hex(pk33)}`,
  /** A used (public key, nonce): replay protection of the balance model. */
  nonce: (pk33: Uint8Array, expiration: bigint, partialId: bigint): string => `chain:nonce:${hex(pk33)}:${expiration}:${partialId}`,
  /** The main chain's tip (TipRecord). */
  tip: 'chain:tip',
  /** A stored block (BlockRecord) by its hash. */
  block: (hashHex: string): string => `chain:block:${hashHex}`,
  /** Main-chain block hash at a height. */
  hashAtHeight: (height: bigint): string => `chain:height:${height.toString().padStart(12, '0')}`,
  /** Where a mined transaction is (TxnLocation). */
  txn: (hashHex: string): string => `chain:txn:${hashHex}`,
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
  /** Signed transaction bytes, block reward first. */
  txns: Uint8Array[];
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

export interface TxnLocation {
  blockHashHex: string;
  height: bigint;
  index: number;
}

/**
 * What the parts of the chain (mempool admission, the pending state, templates, blocks) share:
 * the store, the crypto pool, the chain's parameters and where the chain is now. Chain builds
 * one and hands it to each part.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import type { Announcement, Guard, Store, WriteOp } from '../store/types.js';
import type { ChainParams } from './block/params.js';
import type { ConnectContext } from './rules/connect.js';
import type { TipRecord } from './state/keys.js';

/** Pub/sub channels: a new tip, a changed mempool. */
export const CHANNEL_TIP = 'chain:tip';
export const CHANNEL_MEMPOOL = 'chain:mempool';
/** The block producer's newest template: `{ BlockId }` (the record is in the store). */
export const CHANNEL_TEMPLATE = 'chain:template';

export interface ChainPosition {
  tip: TipRecord;
  /** The mempool admission counter; undefined before the first admission. */
  mempoolVersion: number | undefined;
}

export interface ChainContext {
  readonly store: Store;
  readonly crypto: CryptoService;
  readonly params: ChainParams;
  readonly log: Logger;
  readonly now: () => number;
  /** Rules and crypto for connecting a transaction into the block at `height`. */
  connectContext(height: bigint): ConnectContext;
  /** The tip and the mempool version now (Chain.position). */
  position(): Promise<ChainPosition>;
  /**
   * `store.commit(ops, guards, announce)` for a commit whose guards and writes leave the chain at
   * `position` when it succeeds: the next `position()` then needs no read (WatchedRead.commitLeaving).
   */
  commitMovingTo(ops: readonly WriteOp[], guards: readonly Guard[], position: ChainPosition, announce?: Announcement): Promise<boolean>;
}

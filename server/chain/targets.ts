/**
 * The difficulty target of the block after a tip (reference §5.7), from the timestamps of the
 * main-chain blocks the retarget rule looks back at. A block's timestamp never changes, so
 * they are remembered by block hash: a template or block costs a few height lookups, not a
 * read of whole block records (each holds all its transactions).
 * @module
 */
import { nextTarget } from './block/difficulty.js';
import { decodeHeader } from './block/header.js';
import type { ChainParams } from './block/params.js';
import { chainKeys, type BlockRecord, type TipRecord } from './state/keys.js';
import type { Store } from '../store/types.js';
import { fromHex } from '../hex.js';
import { LruMap } from '../lru.js';

/** Block timestamps remembered: well above what one retarget window looks back at. */
const MAX_REMEMBERED = 256;

export class Targets {
  private readonly tstamps = new LruMap<string, bigint>(MAX_REMEMBERED);

  constructor(
    private readonly store: Store,
    private readonly params: ChainParams,
  ) {}

  /** Target of the block after `tip`, 32 bytes big-endian. */
  after(tip: TipRecord): Promise<Uint8Array> {
    return nextTarget(this.params, { height: tip.height, target: fromHex(tip.targetHex), tstampSecs: tip.tstampSecs }, async (height) => {
      const hashHex = await this.store.get<string>(chainKeys.hashAtHeight(height));
      if (hashHex === undefined) throw new Error(`no main-chain block at height ${height}`);
      return this.tstampOf(hashHex, height);
    });
  }

  private async tstampOf(hashHex: string, height: bigint): Promise<bigint> {
    const known = this.tstamps.get(hashHex);
    if (known !== undefined) return known;
    const block = await this.store.get<BlockRecord>(chainKeys.block(hashHex));
    if (!block) throw new Error(`no main-chain block at height ${height}`);
    const tstamp = decodeHeader(block.header).tstampSecs;
    this.tstamps.set(hashHex, tstamp);
    return tstamp;
  }
}

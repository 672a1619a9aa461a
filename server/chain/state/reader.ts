/**
 * What state accessors read through: the store itself (mined state, for read routes) or a
 * StateView (inside connect, or the mempool's pending view). Both have these methods.
 * @module
 */
import type { IndexRange } from '../../store/types.js';

export interface StateReader {
  get<T>(key: string): Promise<T | undefined>;
}

/** A reader of ordered indexes too (threads, members, order books). */
export interface StateIndexReader extends StateReader {
  indexRange(key: string, range?: IndexRange): Promise<string[]>;
  /** How many members the index holds (a count, not a read of the members). */
  indexSize(key: string): Promise<number>;
}

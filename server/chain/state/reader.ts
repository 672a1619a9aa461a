/**
 * What state accessors read through: the store itself (mined state, for read routes) or a
 * StateView (inside connect, or the mempool's pending view). Both have this `get`.
 * @module
 */
export interface StateReader {
  get<T>(key: string): Promise<T | undefined>;
}

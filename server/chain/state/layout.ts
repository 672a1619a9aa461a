/**
 * The layout check at startup: chain state written in another key layout than this code's
 * (keys.ts `LAYOUT_VERSION`) would read as missing or undecodable, so a node refuses such a
 * store instead of serving or extending a chain it cannot read. Layout 1 (hex keys, object
 * values, nonces kept forever) had no version key; the version is written with the genesis
 * block, so a store with a tip and no version is layout 1.
 * @module
 */
import { chainKeys, LAYOUT_VERSION } from './keys.js';

export interface LayoutReader {
  getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]>;
}

/**
 * Why this store's chain cannot be used by this code (a message for the operator), or null
 * when it can: no chain yet (genesis will write this layout), or a chain in this layout.
 * `emptyStore` tells the operator how to get an empty store of the kind in use.
 */
export async function layoutProblem(store: LayoutReader, emptyStore = 'another --redis database, or a new --redis-key-prefix'): Promise<string | null> {
  const [tip, layout] = await store.getMany<unknown>([chainKeys.tip, chainKeys.layout]);
  if (tip === undefined || layout === LAYOUT_VERSION) return null;
  const found = typeof layout === 'number' ? layout : 1;
  const by = found < LAYOUT_VERSION ? 'an older' : 'a newer';
  return (
    `the store holds a chain in state layout ${found}, written by ${by} version of this node; this version reads layout ${LAYOUT_VERSION} only ` +
    `and does not convert it. Start on an empty store (${emptyStore}) and re-sync or re-mine the chain there, ` +
    `or run the node version that wrote it`
  );
}

/**
 * Whether an ordered index holds a member: one bounded range read of at most one member,
 * whatever the index's size. Works on the store and on a state view alike.
 * @module
 */
import type { IndexRange } from './types.js';

export async function indexHas(reader: { indexRange(key: string, range?: IndexRange): Promise<string[]> }, key: string, member: string): Promise<boolean> {
  return (await reader.indexRange(key, { gte: member, lte: member, limit: 1 })).length > 0;
}

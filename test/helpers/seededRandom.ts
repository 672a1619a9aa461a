/**
 * mulberry32: a small seeded generator, so a randomized test draws the same cases on every run
 * and a failure can be replayed from its seed.
 */

/** Unsigned 32-bit integers from `seed`. */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    let t = (s = (s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** Numbers in [0, 1) from `seed` (mulberry32 ÷ 2^32). */
export function seededRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

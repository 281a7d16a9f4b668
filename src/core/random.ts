/**
 * A deterministic pseudo-random source for traces, simulations and fuzz inputs: the same seed always gives the
 * same sequence, so a failing run can be replayed. Not for anything secret.
 */

/** A pseudo-random source in [0, 1) seeded by a 32-bit integer (mulberry32). */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

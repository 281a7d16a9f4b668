/**
 * The ring of `(stamp, count)` entries shared by sliding_log (stamp = admission time in ms, scale 1) and
 * bucketed_window (stamp = bucket id, scale = bucket width). Private to `src/algorithms`.
 *
 * Layout at `o`: `s[o] = head` (index of the oldest entry), `s[o+1] = size`, `s[o+2] = total` (sum of counts),
 * then `cap` entries of two floats from `o + 3`. An entry stops counting once `stamp·scale + P ≤ now`.
 *
 * The capacity follows the spec (the limit, or P / w), so a changed spec changes the width; the stores hand the
 * state over with {@link ringResize} (through `Algorithm.resize`) rather than the plain common-prefix copy other
 * states get: a ring that has wrapped keeps its newest entries at the front of the array, where the old cells read
 * under another capacity would take an old or empty cell for the newest entry.
 */
import { ceilMs, TIME_TOLERANCE_MS } from "../core/time-math.js";

/** Index of the head field. */
export const HEAD = 0;
/** Index of the size field. */
export const SIZE = 1;
/** Index of the total field. */
export const TOTAL = 2;
/** Index of the first entry. */
export const RING = 3;

/**
 * When a denied `cost` could pass: walking oldest first, the time at which enough entries have dropped out
 * that `total − freed + cost ≤ limit`; `fallbackMs` if the walk never gets there (a state that lost entries).
 */
export function ringRetryMs(
  s: Float64Array,
  o: number,
  cap: number,
  head: number,
  size: number,
  total: number,
  cost: number,
  limit: number,
  scale: number,
  periodMs: number,
  nowMs: number,
  fallbackMs: number,
): number {
  const r = o + RING;
  let freed = 0;
  let i = head;
  for (let k = 0; k < size; k++) {
    const at = r + 2 * i;
    freed += s[at + 1];
    if (total - freed + cost <= limit) return ceilMs(s[at] * scale + periodMs - nowMs);
    i = i + 1 === cap ? 0 : i + 1;
  }
  return fallbackMs;
}

/**
 * The floats from `o` a step may touch in a ring of capacity `cap` (see {@link Algorithm.extent}): the header and
 * entries `head … head + size` (the live ones, read from the head, and the one an admission appends), all `cap`
 * when they wrap round its end. `head` and `size` are clamped as the kernels clamp them. It covers what
 * {@link ringResize} reads of the ring too (the header and the live entries); a ring held to at least it is
 * re-laid by ringResize into a block no longer than the one held (or the new width).
 */
export function ringExtent(s: Float64Array, o: number, cap: number): number {
  let head = s[o + HEAD];
  let size = s[o + SIZE];
  if (!(head >= 0 && head < cap)) head = 0;
  if (!(size > 0)) size = 0;
  else if (size > cap) size = cap;
  const end = head + size + 1;
  return RING + 2 * (end > cap ? cap : end);
}

/**
 * Lays the ring state `from`, laid out for capacity `was` (`RING + 2·was` floats), out for `cap` entries at
 * `to[o …]`, keeping the live entries in order from the head. `from` may be just a prefix of its block (a store
 * holding the state by {@link ringExtent}): a float past its end reads as zero, as at full width. When the entries
 * sit unwrapped within both capacities (`head + size ≤ min(was, cap)`), the common prefix is copied as it is (stale
 * cells too), as a prefix copy always did. Otherwise (the ring wrapped at its old end, or a lowered capacity cuts
 * into the live entries) they are unwrapped from the head into cells 0, 1, … with head 0 and the other cells zero.
 * Either way the newest `min(size, cap)` entries are kept; the costs of older ones that do not fit and have not
 * left by the newest entry's time (`stamp·scale + periodMs − newest·scale > TIME_TOLERANCE_MS`) fold into the
 * oldest kept entry, so the total (kept as the sum of the kept costs) never drops below what is still in the
 * window: those costs leave with that entry, a little late, never early, also under a limit raised again.
 *
 * Reads: the header and the live entries, all within `ringExtent(from, 0, was)` floats. Writes: nothing but zeros
 * past `o + min(RING + 2·cap, from.length)` when `from` holds at least that extent (a wrapped ring's extent is its
 * whole block), so a store holding prefixes needs a `to` of that length only. The Lua twin (apply.lua's `load`)
 * makes the same choices with the same result.
 */
export function ringResize(
  from: Float64Array,
  was: number,
  to: Float64Array,
  o: number,
  cap: number,
  scale: number,
  periodMs: number,
): void {
  const held = from.length;
  /** Float `i` of the old block: zero past the prefix held. */
  const at = (i: number): number => (i < held ? from[i] : 0);
  const width = RING + 2 * cap;
  let head = at(HEAD);
  let size = at(SIZE);
  if (!(head >= 0 && head < was)) head = 0;
  if (!(size > 0)) size = 0;
  else if (size > was) size = was;
  to.fill(0, o, o + width);
  if (head + size <= (cap < was ? cap : was)) {
    to.set(from.subarray(0, Math.min(width, held)), o);
    return;
  }
  const keep = size < cap ? size : cap;
  const newest = at(RING + 2 * ((head + size - 1) % was));
  let folded = 0;
  for (let k = 0; k < size - keep; k++) {
    const i = RING + 2 * ((head + k) % was);
    if ((at(i) - newest) * scale + periodMs > TIME_TOLERANCE_MS) folded += at(i + 1);
  }
  let total = folded;
  for (let j = 0; j < keep; j++) {
    const i = RING + 2 * ((head + size - keep + j) % was);
    to[o + RING + 2 * j] = at(i);
    to[o + RING + 2 * j + 1] = at(i + 1);
    total += at(i + 1);
  }
  to[o + RING + 1] += folded;
  to[o + SIZE] = keep;
  to[o + TOTAL] = total;
}

/** Gives back up to `amount` units, taking them from the newest entries first; never below empty. */
export function ringRefund(s: Float64Array, o: number, cap: number, amount: number): void {
  if (!(amount > 0)) return;
  const r = o + RING;
  let head = s[o + HEAD];
  let size = s[o + SIZE];
  let total = s[o + TOTAL];
  if (!(head >= 0 && head < cap)) head = 0;
  if (!(size > 0)) size = 0;
  else if (size > cap) size = cap;
  let left = amount;
  while (left > 0 && size > 0) {
    const at = r + 2 * ((head + size - 1) % cap);
    const c = s[at + 1];
    if (c <= left) {
      left -= c;
      total -= c;
      s[at] = 0;
      s[at + 1] = 0;
      size--;
    } else {
      s[at + 1] = c - left;
      total -= left;
      left = 0;
    }
  }
  if (size === 0) head = 0;
  s[o + HEAD] = head;
  s[o + SIZE] = size;
  s[o + TOTAL] = size === 0 || total < 0 ? 0 : total;
}

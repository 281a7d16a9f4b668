/**
 * Shared arithmetic for algorithms, mirrored by their Lua twins. Timestamps are epoch milliseconds near 1.7e12,
 * where a double's resolution is about 2.4e-4 ms, so exact comparisons of derived times would flip on rounding
 * noise. The rules:
 * - an allow check tolerates an excess of up to {@link TIME_TOLERANCE_MS} (1 µs worth of quota), and for the rate
 *   algorithms never more than {@link UNIT_TOLERANCE} of one unit ({@link rateToleranceMs}): with an emission
 *   interval below 1 ms, 1 µs of quota would be a whole unit or more (at 1e6/s, one extra unit per burst);
 * - a reported duration is rounded up to whole milliseconds after discarding {@link CEIL_SLACK_MS} of noise,
 *   which is smaller than the tolerance, so retrying at `now + retryAfterMs` always passes when nothing else
 *   happened;
 * - a reported count is rounded down after adding a tolerance, so 4.9999999 reads as 5.
 */

/** Largest excess, in milliseconds of quota, an allow check forgives. */
export const TIME_TOLERANCE_MS = 1e-3;

/** Largest excess, in units, an allow check of a rate algorithm (gcra, token_bucket, leaky_bucket) forgives. */
export const UNIT_TOLERANCE = 1e-3;

/**
 * The excess, in ms of quota, that an allow check of a rate algorithm with emission interval `emissionMs` forgives:
 * {@link TIME_TOLERANCE_MS}, capped at {@link UNIT_TOLERANCE} of one interval — `min(1e-3, 1e-3 · T)`. The kernels
 * and their Lua twins compute it inline with this exact expression, so every store agrees bit for bit.
 */
export function rateToleranceMs(emissionMs: number): number {
  return emissionMs < 1 ? UNIT_TOLERANCE * emissionMs : TIME_TOLERANCE_MS;
}

/**
 * The latest `nowMs` the Limiter and the Engine decide at, epoch ms: 2100-01-01T00:00:00Z (the earliest is 0,
 * 1970-01-01). Within it every algorithm stays exact: an epoch time resolves 2⁻¹¹ ms or finer (the grid gcra
 * rounds its emission interval to), concurrency lease ids (from ⌊now⌋·1000 up, below 4.2e15) stay whole and
 * distinct, far below 2⁵³, and so does `nowMs + MAX_STATE_HORIZON_MS`. Before 0 the all-zero fresh state would
 * not read as fresh (a gcra TAT of 0 lies ahead of a negative now: a never-seen key was denied).
 */
export const MAX_NOW_MS = 4_102_444_800_000;

/** Noise discarded before rounding a duration up. Must stay below {@link TIME_TOLERANCE_MS}. */
export const CEIL_SLACK_MS = 1e-4;

/** Rounds a duration up to whole milliseconds, ignoring noise below {@link CEIL_SLACK_MS}; never negative. */
export function ceilMs(ms: number): number {
  if (ms <= CEIL_SLACK_MS) return 0;
  return Math.ceil(ms - CEIL_SLACK_MS);
}

/** Rounds a count down, forgiving `tolerance` (default 1e-9) of noise; never negative. */
export function floorCount(x: number, tolerance = 1e-9): number {
  if (x <= 0) return 0;
  return Math.floor(x + tolerance);
}

/**
 * Leaky bucket — a meter of capacity `burst` that leaks at `limit / periodMs` (policing form, DESIGN §3).
 *
 * Model: every admitted unit pours water into a bucket of capacity B that leaks L/P units per ms. At `now`:
 * Δ = max(0, now − last), level' = max(0, level − Δ·L/P) (clamped for a lowered burst, see `drain.ts`); a request
 * of cost c passes when level' + c ≤ B, with the excess (level' + c − B)·P/L tolerated up to TIME_TOLERANCE_MS,
 * and then level = level' + c, last = max(last, now). Overflow is denied, never queued here.
 *
 * Shaping: the level is the admitted work not yet drained, so with the engine's `delay` behaviour the bucket
 * becomes a queue with a constant output rate: a request admitted now starts draining after
 * `resetAfterMs − c·P/L` ms (once everything admitted before it has drained) and finishes at `resetAfterMs`.
 * At most B units wait at once.
 *
 * State (2 fields): `s[o] = level` (units), `s[o + 1] = lastMs` (epoch ms of the last write).
 *
 * Reported: remaining = ⌊B − level⌋ after the step; resetAfterMs = level·P/L (until the bucket is empty, i.e.
 * when this request's last unit drains); retryAfterMs (denied) = the time until level' + c ≤ B.
 * Seed 002's pseudocode admits while level < B and then adds one, which overflows B at fractional levels; here
 * level + c ≤ B, and its retry of one leak interval is exact when the bucket is exactly full.
 *
 * Edges: a clock going backwards is no time passing (Δ = 0, last is never moved back) and reported durations
 * include the lag behind `last`. cost > burst never passes (retryAfterMs = Infinity). A burst lowered since the
 * key was last seen clamps the level to the new burst. cost 0 is a peek and writes nothing. Refund lowers the
 * level, never below empty.
 *
 * Pro: O(1), two floats per key; with `delay` it smooths bursts into a steady stream. Con: as a policer it
 * admits exactly what token_bucket admits (same arithmetic, `drain.ts`); shaping costs the caller latency.
 */
import type { Algorithm } from "./algorithm.js";
import { drainApply, drainIdleAfterMs, drainRefund } from "./drain.js";

/** Leaky bucket (policing meter) over two floats (level, last leak time) per key. */
export const leakyBucket: Algorithm = {
  id: "leaky_bucket",
  width: () => 2,
  apply: drainApply,
  refund: drainRefund,
  idleAfterMs: drainIdleAfterMs,
};

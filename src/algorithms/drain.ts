/**
 * The drain kernel shared by token_bucket and leaky_bucket (private to `src/algorithms`).
 *
 * Both algorithms keep one level that drains continuously at `L / P` units per ms and must stay at or below the
 * burst `B` after adding a request's cost: the token bucket's "tokens used" (tokens = B − used) and the leaky
 * bucket's water level are the same number, so one kernel serves both and their Lua twins share one formula.
 *
 * State (2 fields): `s[o] = level` (units), `s[o + 1] = lastMs` (epoch ms of the last write; never moved back).
 *
 * At `now`: Δ = max(0, now − last); level' = max(0, level − Δ·L/P). A cost c passes when the excess
 * (level' + c − B)·P/L is within the tolerance (`rateToleranceMs`: at most 1 µs of quota and at most 1/1000 of a
 * unit, so no rate admits a whole unit beyond the burst); committing writes level = level' + c and last = max(last, now).
 *
 * A burst lowered since the key was last seen keeps the level: a key above the new burst is denied (remaining
 * 0) until it has drained below it, and `retryAfterMs` says exactly when. Clamping the level instead would
 * either be undone by the next denial (which writes nothing) and so report a retry time that is too early, or
 * hand out capacity that was already used.
 *
 * Reported durations are measured on the caller's clock: when `now < last` (a clock behind the one that last
 * wrote), the lag `last − now` is added, so retrying at `now + retryAfterMs` passes.
 */
import type { LimitSpec } from "../core/limit-spec.js";
import type { StepOut } from "./algorithm.js";

// Math's functions as module constants (see gcra.ts): shorter bytecode than `Math.x(…)` in the kernel.
const { ceil, floor } = Math;

/** The level drained to `nowMs`, not yet clamped (never negative). */
function drainedLevel(s: Float64Array, o: number, nowMs: number, spec: LimitSpec): number {
  const last = s[o + 1];
  const elapsed = nowMs > last ? nowMs - last : 0;
  const level = s[o] - elapsed / spec.emissionMs;
  return level > 0 ? level : 0;
}

/** The `apply` of a drain algorithm: see the module comment. */
export function drainApply(
  s: Float64Array,
  o: number,
  nowMs: number,
  spec: LimitSpec,
  cost: number,
  commit: boolean,
  out: StepOut,
): void {
  const t = spec.emissionMs;
  const burst = spec.burst;
  const last = s[o + 1];
  const drained = s[o] - (nowMs > last ? nowMs - last : 0) / t; // as drainedLevel, reading `last` once
  const level = drained > 0 ? drained : 0;
  const lag = last > nowMs ? last - nowMs : 0;
  const after = level + cost;
  const excess = (after - burst) * t;
  const tol = t < 1 ? 1e-3 * t : 1e-3; // rateToleranceMs(t), literals as in gcra.ts
  const allowed = cost <= burst && excess <= tol;
  if (allowed && commit && cost > 0) {
    s[o] = after;
    if (nowMs > last) s[o + 1] = nowMs;
  }
  // The level after the step: remaining = ⌊B − level⌋ forgiving the tolerance's worth of refill, i.e.
  // floorCount(B − level, tol / T), written out. tol / T is at most 1/1000 of a unit, so that is 0 without
  // dividing when B − level < 0.5: exact, and the case of most denials. resetAfterMs = the time until the level has
  // drained.
  const kept = allowed ? after : level;
  const free = burst - kept;
  out.allowed = allowed;
  out.remaining = free < 0.5 ? 0 : floor(free + tol / t);
  // Durations round as `ceilMs` does, written out (a call here can cost the JIT its room to inline the whole
  // consume; 1e-4 is CEIL_SLACK_MS, see gcra.ts): ⌈d − slack⌉ of a d ≥ 0 is −0 or more, and `+ 0` makes −0 a 0.
  // A denial within the burst waits lag + excess > tolerance, which is below CEIL_SLACK_MS when T < 0.1 ms: the wait
  // is then under 0.1 µs, ⌈·⌉ gives ±0, and `|| 1` the next whole millisecond, which passes.
  out.resetAfterMs = kept > 0 ? ceil(lag + kept * t - 1e-4) + 0 : 0;
  out.retryAfterMs = allowed ? 0 : cost > burst ? Infinity : ceil(lag + excess - 1e-4) || 1;
  out.leaseId = 0;
}

/** The `refund` of a drain algorithm: level = max(0, level' − amount), last = max(last, now). */
export function drainRefund(
  s: Float64Array,
  o: number,
  nowMs: number,
  spec: LimitSpec,
  amount: number,
): void {
  const level = drainedLevel(s, o, nowMs, spec) - amount;
  s[o] = level > 0 ? level : 0;
  if (nowMs > s[o + 1]) s[o + 1] = nowMs;
}

/** The `idleAfterMs` of a drain algorithm: the time until the stored level has fully drained. */
export function drainIdleAfterMs(s: Float64Array, o: number, nowMs: number, spec: LimitSpec): number {
  const level = s[o];
  if (level <= 0) return 0;
  const ahead = level * spec.emissionMs - (nowMs - s[o + 1]);
  return ahead > 0 ? ahead : 0;
}

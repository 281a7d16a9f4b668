/**
 * GCRA — the generic cell rate algorithm (virtual scheduling form).
 *
 * Model: units are emitted every `T = periodMs / limit` ms; a key may run ahead of schedule by at most
 * `burst · T` (the burst tolerance τ). The only state is the theoretical arrival time (TAT) of the next unit.
 * A request of cost c at time now computes how far ahead the key is, `ahead = max(TAT − now, 0)`, and after the
 * cost, `ahead' = ahead + c·T`; it passes when `ahead' − τ` is within the tolerance (`rateToleranceMs`: at most
 * 1 µs and at most 1/1000 of T), and then TAT becomes `now + ahead'`. Equivalent to a token bucket of size `burst` refilled at
 * `limit / periodMs`, in one number per key.
 *
 * State (1 field): `s[o] = tatMs` — epoch ms; 0 (or any time ≤ now) means full.
 *
 * Reported: remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step; resetAfterMs = TAT − now (time until full);
 * retryAfterMs (denied) = ahead' − τ.
 *
 * Precision: decisions are computed from `ahead` (small numbers), so they are exact to a double's precision at any
 * rate. The stored TAT is an epoch time, whose resolution is one ulp (2⁻¹² ms ≈ 0.24 µs for 2004–2039): a write
 * rounds to nearest, losing at most half an ulp of debt: ≤ 1.2e-4 of a unit when T ≥ 1 ms (up to 1,000 units/s
 * per key). With T < 1 ms a write that cannot hold `now + ahead'` exactly rounds up instead, never down, so
 * rounding never admits beyond the burst; it may count up to one ulp of extra debt per write, which is conservative
 * (at 1e6/s, up to ~20% fewer admissions in a burst at one instant) — for such per-key rates use token_bucket,
 * which counts units, not time.
 *
 * A changed limit keeps the debt as time: the fraction of the burst in use is preserved, so raising the limit
 * refills faster but does not hand out the difference at once.
 *
 * Edges: a clock going backwards (now < an earlier now) is no time passing, because base = max(TAT, now)
 * never moves TAT back. cost > burst never passes (retryAfterMs = Infinity). A burst lowered since the key was
 * last seen keeps the debt: the key is denied (remaining 0) until `TAT − now` is back within the new τ, and
 * retryAfterMs says exactly when; the same formula covers a clock that went backwards. cost 0 is a peek.
 *
 * Pro: O(1) time, one float per key, smooth admission with exact bursts. Con: no notion of a calendar window,
 * so "1000 per day" refills continuously rather than at midnight (use fixed_window for that).
 */
import type { Algorithm } from "./algorithm.js";

// The constants of src/core/time-math.ts are written as literals in `apply` (a module constant costs a hole check
// in bytecode, and the kernel must stay small enough to be inlined with the store's consumer): 1e-3 is both
// TIME_TOLERANCE_MS and UNIT_TOLERANCE (rateToleranceMs(T) = min(1e-3, 1e-3 · T)), 1e-4 is CEIL_SLACK_MS, and
// 1.2e-16 is between half an ulp and one ulp of any positive double x relative to x (2⁻⁵² · x is one to two ulps),
// so x + x · 1.2e-16 is the next double above x. The tests of time-math.ts hold the literals to the constants.

// Math's functions as module constants: a call through one is a few bytes of bytecode shorter than `Math.x(…)`,
// which keeps the kernel within V8's inlining budget; the JIT still sees the builtin through the call's feedback.
const { ceil, floor } = Math;

/**
 * `now + ahead` as a double not below the exact sum: rounded to nearest, then up one ulp when that lost some of
 * `ahead` (the difference of two doubles within a factor of 2 is exact). Out of `apply`'s body, which it would
 * make too large to inline; it runs only for T < 1 ms.
 */
function tatRoundedUp(nowMs: number, ahead: number): number {
  const next = nowMs + ahead;
  return next - nowMs < ahead ? next + next * 1.2e-16 : next;
}

/** GCRA over one float (the theoretical arrival time) per key. */
export const gcra: Algorithm = {
  id: "gcra",

  width: () => 1,

  apply(s, o, nowMs, spec, cost, commit, out): void {
    // Kept small in bytecode (the memory store's consumer inlines it into callers of `limitSync`, within V8's
    // inlining budget): each input is read once.
    const t = spec.emissionMs;
    const burst = spec.burst;
    const tau = burst * t;
    const tol = t < 1 ? 1e-3 * t : 1e-3; // rateToleranceMs(t)
    const tat = s[o];
    // How far ahead of schedule the key is, before and after this cost: small numbers, free of the rounding of
    // epoch times (TAT − now is exact: both are within a factor of 2).
    const was = tat > nowMs ? tat - nowMs : 0;
    const then = was + cost * t;
    const excess = then - tau;
    const allowed = cost <= burst && excess <= tol;
    if (allowed && commit) {
      // The new TAT. Below T = 1 ms it is rounded up when the epoch time cannot hold `then` exactly: rounding to
      // nearest could drop up to half an ulp of debt on every write — all of it when T is below half an ulp,
      // admitting without bound. From 1 ms on, half an ulp is at most 1.2e-4 of a unit, below the tolerance, and
      // rounding to nearest keeps whole-ms durations exact.
      s[o] = t < 1 ? tatRoundedUp(nowMs, then) : nowMs + then;
    }
    // remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step. The division is skipped when `free < T`, which
    // is exact: for positive doubles a < b the correctly rounded a / b is at most 1 − 2⁻⁵³, whose floor is 0.
    // A denial of cost ≤ 1 has free < T (up to rounding), so it does not divide.
    const ahead = allowed ? then : was;
    const free = tau - ahead + tol;
    out.allowed = allowed;
    out.remaining = free >= t ? floor(free / t) : 0;
    // Durations round as `ceilMs` does, written out (a call here can cost the JIT its room to inline the whole
    // consume): ahead ≥ 0, so ⌈ahead − slack⌉ is −0 or more, and `+ 0` makes −0 a 0. A denial within the burst has
    // excess > tolerance, which is below CEIL_SLACK_MS when T < 0.1 ms: its wait is then under 0.1 µs, ⌈·⌉ gives
    // ±0, and `|| 1` the next whole millisecond, which passes.
    out.resetAfterMs = ceil(ahead - 1e-4) + 0;
    out.retryAfterMs = allowed ? 0 : cost > burst ? Infinity : ceil(excess - 1e-4) || 1;
    out.leaseId = 0;
  },

  refund(s, o, nowMs, spec, amount): void {
    const tat = s[o];
    if (tat <= nowMs) return;
    const back = tat - amount * spec.emissionMs;
    s[o] = back > nowMs ? back : 0;
  },

  idleAfterMs(s, o, nowMs): number {
    const ahead = s[o] - nowMs;
    return ahead > 0 ? ahead : 0;
  },
};

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
import { CEIL_SLACK_MS, TIME_TOLERANCE_MS, UNIT_TOLERANCE } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";

// Module-local copies of the shared constants: V8 folds these into the kernel's optimised code as constants, while
// an imported binding is read from its cell and checked on every use.
const TOLERANCE_MS = TIME_TOLERANCE_MS;
const SLACK_MS = CEIL_SLACK_MS;
const UNIT_TOL = UNIT_TOLERANCE;
/**
 * Times `x` this is between half an ulp and one ulp of `x` (2⁻⁵² · x is one ulp or up to two below): `x + x · ULP_UP`
 * is the next double above `x`, for every positive normal `x`.
 */
const ULP_UP = 1.2e-16;

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
    const tol = t < 1 ? UNIT_TOL * t : TOLERANCE_MS; // rateToleranceMs(t), written out
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
      const next = nowMs + then;
      s[o] = t < 1 && next - nowMs < then ? next + next * ULP_UP : next;
    }
    // remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step. The division is skipped when `free < T`, which
    // is exact: for positive doubles a < b the correctly rounded a / b is at most 1 − 2⁻⁵³, whose floor is 0.
    // A denial of cost ≤ 1 has free < T (up to rounding), so it does not divide.
    const ahead = allowed ? then : was;
    const free = tau - ahead + tol;
    out.allowed = allowed;
    out.remaining = free >= t ? Math.floor(free / t) : 0;
    // Durations round as `ceilMs` does, written out (a call here can cost the JIT its room to inline the whole
    // consume). A denial within the burst has excess > tolerance, which is below CEIL_SLACK_MS when T < 0.1 ms:
    // its wait is then under 0.1 µs, and the next whole millisecond passes.
    out.resetAfterMs = ahead <= SLACK_MS ? 0 : Math.ceil(ahead - SLACK_MS);
    out.retryAfterMs = allowed
      ? 0
      : cost > burst
        ? Infinity
        : excess <= SLACK_MS
          ? 1
          : Math.ceil(excess - SLACK_MS);
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

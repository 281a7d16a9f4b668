/**
 * GCRA — the generic cell rate algorithm (virtual scheduling form).
 *
 * Model: units are emitted every `T = periodMs / limit` ms; a key may run ahead of schedule by at most
 * `burst · T` (the burst tolerance τ). The only state is the theoretical arrival time (TAT) of the next unit.
 * A request of cost c at time now computes `base = max(TAT, now)` and `next = base + c·T`; it passes when
 * `next − now ≤ τ`, and then TAT becomes `next`. Equivalent to a token bucket of size `burst` refilled at
 * `limit / periodMs`, in one number per key.
 *
 * State (1 field): `s[o] = tatMs` — epoch ms; 0 (or any time ≤ now) means full.
 *
 * Reported: remaining = ⌊(τ − (base − now)) / T⌋ after the step; resetAfterMs = TAT − now (time until full);
 * retryAfterMs (denied) = next − now − τ.
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
import { CEIL_SLACK_MS, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";

// Module-local copies of the shared constants: V8 folds these into the kernel's optimised code as constants, while
// an imported binding is read from its cell and checked on every use.
const TOLERANCE_MS = TIME_TOLERANCE_MS;
const SLACK_MS = CEIL_SLACK_MS;

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
    const tat = s[o];
    const base = tat > nowMs ? tat : nowMs; // max(TAT, now): TAT is never NaN
    const next = base + cost * t;
    const excess = next - nowMs - tau;
    const allowed = cost <= burst && excess <= TOLERANCE_MS;
    if (allowed && commit) s[o] = next;
    // remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step. The division is skipped when `free < T`, which
    // is exact: for positive doubles a < b the correctly rounded a / b is at most 1 − 2⁻⁵³, whose floor is 0.
    // A denial of cost ≤ 1 has free < T (up to rounding), so it does not divide.
    const ahead = (allowed ? next : base) - nowMs;
    const free = tau - ahead + TOLERANCE_MS;
    out.allowed = allowed;
    out.remaining = free >= t ? Math.floor(free / t) : 0;
    // Durations round as `ceilMs` does, written out (a call here can cost the JIT its room to inline the whole
    // consume). A denial within the burst has excess > TIME_TOLERANCE_MS > CEIL_SLACK_MS, so it needs no test.
    out.resetAfterMs = ahead <= SLACK_MS ? 0 : Math.ceil(ahead - SLACK_MS);
    out.retryAfterMs = allowed ? 0 : cost > burst ? Infinity : Math.ceil(excess - SLACK_MS);
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

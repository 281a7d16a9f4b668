/**
 * GCRA — the generic cell rate algorithm (virtual scheduling form).
 *
 * Model: units are emitted every `T = periodMs / limit` ms; a key may run ahead of schedule by at most
 * `burst · T` (the burst tolerance τ). The only state is the theoretical arrival time (TAT) of the next unit.
 * A request of cost c at time now computes how far ahead the key is, `ahead = max(TAT − now, 0)`, and after the
 * cost, `ahead' = ahead + c·T`; it passes when `ahead' − τ` is within the tolerance (`rateToleranceMs`: at most
 * 1 µs and at most 1/1000 of T), and then TAT becomes `now + ahead'`. Equivalent to a token bucket of size `burst`
 * refilled at `limit / periodMs`, in one number per key. T is taken rounded up to the epoch's grid (Precision).
 *
 * State (1 field): `s[o] = tatMs` — epoch ms; 0 (or any time ≤ now) means full.
 *
 * Reported: remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step; resetAfterMs = TAT − now (time until full);
 * retryAfterMs (denied) = ahead' − τ. Durations are whole ms rounded up after forgiving 0.9 of the tolerance: a
 * debt within the tolerance admits as no debt does.
 *
 * Precision: the TAT is an epoch time, whose resolution u is one ulp of now (2⁻¹² ms ≈ 0.24 µs for 2004–2039,
 * twice that until 2109). Written as `now + ahead'`, a debt is rounded on every write, and the roundings add up:
 * rounded to nearest they lose debt (849/s with a burst of 200,000 admitted 200,020 at one instant), rounded up
 * they gain it (3/ms with a burst of 6 admitted 5, after a remaining of 3 that promised more). So T itself is
 * rounded up to the grid at now: T' is the least multiple of u not below T (T itself when it lies on the grid, as
 * whole and half ms do), and τ = burst · T'. Whole units of debt are then multiples of u, and every sum of them and
 * every TAT is exact: no rounding accumulates. At one instant exactly ⌊burst⌋ units of cost 1 pass (up to the
 * tolerance), never more nor fewer, and remaining says how many more will. The price is the rate, 1/T' instead of
 * 1/T: never more, and less by the fraction (T' − T) / T' < u / T' (at most 2.4e-4 from T = 1 ms until 2039; 18%
 * at T = 1 µs, 10⁶/s per key: for such per-key rates use token_bucket, which counts units, not time). So it never
 * admits more than burst + limit·t/period in any span t. A fractional cost whose share c·T' is off the grid has its
 * TAT rounded up (less than u of extra debt, never less than its share), as has a TAT past a power of 2 beyond now
 * (where u doubles: within a burst's span before 2039-09-07T15:47:35.552Z, say).
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
// TIME_TOLERANCE_MS and UNIT_TOLERANCE (rateToleranceMs(T) = min(1e-3, 1e-3 · T)), and
// 1.2e-16 is between half an ulp and one ulp of any positive double x relative to x (2⁻⁵² · x is one to two ulps),
// so x + x · 1.2e-16 is the next double above x. The tests of time-math.ts hold the literals to the constants.

// Math's functions as module constants: a call through one is a few bytes of bytecode shorter than `Math.x(…)`,
// which keeps the kernel within V8's inlining budget; the JIT still sees the builtin through the call's feedback.
const { ceil, floor } = Math;

/**
 * `now + ahead` as a double not below the exact sum: rounded to nearest, then up one ulp when that lost some of
 * `ahead` (the difference of two doubles within a factor of 2 is exact). `tatRoundedUp(now, T) − now` is T rounded
 * up to the epoch's grid at now. Out of `apply`'s body, which it would make too large to inline.
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
    // T on the epoch grid at now, rounded up (see Precision): every sum of whole units below is then exact.
    const t = tatRoundedUp(nowMs, spec.emissionMs) - nowMs;
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
    // The debt the key is reported with: after the cost when allowed, as the new TAT holds it (rounded up, never
    // down, when the epoch time cannot hold `now + then`: only for a fractional cost, or across a power of 2).
    let ahead = was;
    if (allowed) {
      const next = tatRoundedUp(nowMs, then);
      if (commit) s[o] = next;
      ahead = next - nowMs;
    }
    // remaining = ⌊(τ − ahead + tolerance) / T⌋ after the step. The division is skipped when `free < T`, which
    // is exact: for positive doubles a < b the correctly rounded a / b is at most 1 − 2⁻⁵³, whose floor is 0.
    // A denial of cost ≤ 1 has free < T (up to rounding), so it does not divide.
    const free = tau - ahead + tol;
    out.allowed = allowed;
    out.remaining = free >= t ? floor(free / t) : 0;
    // Durations are whole ms rounded up, as `ceilMs` does, written out (a call here can cost the JIT its room to
    // inline the whole consume), but what is forgiven is 0.9 of the tolerance rather than CEIL_SLACK_MS: a debt
    // within the tolerance admits as none does, so the key is as good as full, and a retry passes, from that whole
    // ms on (the tenth kept back absorbs rounding noise). So the rounding up of T (Precision) does not add a ms to
    // a duration that is whole at the nominal rate unless the debt it adds exceeds that (it is 2 ulps for a burst
    // of 3 at 3 per second, 8 at 9 per second). ahead ≥ 0, so ⌈ahead − slack⌉ is −0 or more, and `+ 0` makes −0 a
    // 0. A denial within the burst has excess > tolerance > slack, so its wait is at least 1 ms.
    const slack = 0.9 * tol;
    out.resetAfterMs = ceil(ahead - slack) + 0;
    out.retryAfterMs = allowed ? 0 : cost > burst ? Infinity : ceil(excess - slack);
    out.leaseId = 0;
  },

  refund(s, o, nowMs, spec, amount): void {
    const tat = s[o];
    if (tat <= nowMs) return;
    const back = tat - amount * (tatRoundedUp(nowMs, spec.emissionMs) - nowMs); // whole units of T', as `apply`
    s[o] = back > nowMs ? back : 0;
  },

  idleAfterMs(s, o, nowMs): number {
    const ahead = s[o] - nowMs;
    return ahead > 0 ? ahead : 0;
  },
};

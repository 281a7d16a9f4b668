/**
 * Sliding window — the weighted two-window counter (seed 002's "sliding window counter").
 *
 * Model: counts are kept per epoch-aligned window of `periodMs`, for the current window and the one before.
 * The number admitted in the last P ms is estimated as e = prev·(1 − f) + curr, where f ∈ [0, 1) is how far
 * `now` is into the current window, assuming the previous window's requests were spread evenly over it.
 * A request of cost c passes when e + c ≤ L, and then adds c to the current window.
 *
 * State (3 fields): `s[o] = prevCount`, `s[o + 1] = currCount`, `s[o + 2] = windowId` (the window of currCount).
 *
 * Rolling at `now`, with w = ⌊now / P⌋: w = windowId keeps (prev, curr); w = windowId + 1 gives (curr, 0);
 * w > windowId + 1 gives (0, 0). w = windowId − 1 (a clock going backwards across one window edge) stays in the
 * stored window with f = 0, as if `now` were that window's start: no time passed, and the previous window
 * weighs fully. w < windowId − 1 gives (0, 0) at w, a fresh state: a window id is counted in units of P, so one
 * more than a window ahead cannot come from a clock going back within this period's scale; it was written under
 * another, shorter period (a limit whose period was lengthened under the same name and namespace: a per-second
 * id read as minutes lies millennia ahead) and would otherwise hold its counts, denied and never idle, until that
 * window came round. The price: a clock behind by two window edges or more counts in a window of its own. Counts
 * above a lowered limit are clamped to it. As in fixed_window, a time within TIME_TOLERANCE_MS of the next window
 * already belongs to it (w = ⌊(now + TIME_TOLERANCE_MS) / P⌋).
 *
 * Tolerance: e + c − L may exceed 0 by what 1 µs of sliding would remove, min(prev·TIME_TOLERANCE_MS / P,
 * prev·(1 − f)), plus 1e-9; never more than the previous window's remaining weight, so the current window's
 * count alone never exceeds L.
 *
 * Reported: remaining = ⌊L − e⌋ after the step. resetAfterMs = until both counts have left the window pair:
 * (w + 2)·P − now when curr > 0, else (w + 1)·P − now when prev > 0, else 0. retryAfterMs (denied) = the exact
 * earliest time the inequality holds: within this window (when curr + c ≤ L) once prev·(1 − f) ≤ L − curr − c,
 * otherwise in the next window once curr·(1 − f) ≤ L − c (curr then being the previous window).
 * Seed 002's pseudocode allows when e < L (so e may end above L at fractional e) and retries at the window's
 * end (often too early, sometimes too late); here e + c ≤ L and the retry time is exact.
 *
 * Edges: cost > limit never passes (retryAfterMs = Infinity). cost 0 is a peek and writes nothing. Refund takes
 * units back from the current window's count only. Costs are whole numbers (validated upstream). A shortened
 * period reads the stored id as a window long past: both counts are dropped, as after a long gap. idleAfterMs
 * rolls as `apply` does, so a state read as fresh is idle (0).
 *
 * Pro: O(1), three floats per key, no boundary burst of 2L at one instant, smooth recovery. Con: an estimate:
 * it assumes the previous window was uniform, so it may admit up to 2L in a span shorter than P (never more
 * than L within one calendar window) or deny below L; sliding_log is exact at O(L) memory.
 */
import { ceilMs, floorCount, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";

/** Scratch for the rolled state, reused to avoid allocation (the kernel is synchronous). */
const rolled = { prev: 0, curr: 0, win: 0, f: 0 };

/** Sliding window counter over three floats (previous count, current count, window id) per key. */
export const slidingWindow: Algorithm = {
  id: "sliding_window",

  width: () => 3,

  apply(s, o, nowMs, spec, cost, commit, out): void {
    const limit = spec.limit;
    const p = spec.periodMs;
    roll(s, o, nowMs, p, limit);
    const { prev, win, f } = rolled;
    let curr = rolled.curr;
    const weighted = prev * (1 - f);
    let estimate = weighted + curr;
    out.leaseId = 0;
    if (cost > limit) {
      out.allowed = false;
      out.retryAfterMs = Number.POSITIVE_INFINITY;
    } else {
      const slide = (prev * TIME_TOLERANCE_MS) / p;
      const slack = (slide < weighted ? slide : weighted) + 1e-9;
      if (estimate + cost - limit <= slack) {
        out.allowed = true;
        out.retryAfterMs = 0;
        estimate += cost;
        curr += cost;
        if (commit && cost > 0) {
          s[o] = prev;
          s[o + 1] = curr;
          s[o + 2] = win;
        }
      } else {
        out.allowed = false;
        const room = limit - curr - cost;
        // Within this window once prev·(1 − f') ≤ room; otherwise next window, once curr·(1 − f') ≤ L − c.
        const at =
          room >= 0 ? (win + 1) * p - (room * p) / prev : (win + 2) * p - ((limit - cost) * p) / curr;
        out.retryAfterMs = ceilMs(at - nowMs);
      }
    }
    out.remaining = floorCount(limit - estimate);
    out.resetAfterMs = ceilMs(untilFresh(prev, curr, win, nowMs, p));
  },

  refund(s, o, nowMs, spec, amount): void {
    roll(s, o, nowMs, spec.periodMs, spec.limit);
    const curr = rolled.curr - amount;
    s[o] = rolled.prev;
    s[o + 1] = curr > 0 ? curr : 0;
    s[o + 2] = rolled.win;
  },

  idleAfterMs(s, o, nowMs, spec): number {
    roll(s, o, nowMs, spec.periodMs, spec.limit);
    return untilFresh(rolled.prev, rolled.curr, rolled.win, nowMs, spec.periodMs);
  },
};

/** Rolls the stored counts to the window of `nowMs` into {@link rolled}, clamping them to `limit`. */
function roll(s: Float64Array, o: number, nowMs: number, p: number, limit: number): void {
  const stored = s[o + 2];
  const w = Math.floor((nowMs + TIME_TOLERANCE_MS) / p);
  let prev = 0;
  let curr = 0;
  let f = 0;
  let win = w;
  if (w <= stored && stored <= w + 1) {
    prev = s[o];
    curr = s[o + 1];
    win = stored;
    if (w === stored) f = (nowMs - w * p) / p; // else: clock went backwards, stay at the stored window's start
  } else {
    if (w === stored + 1) prev = s[o + 1]; // else: a long gap, or an id of another period (> w + 1): fresh
    f = (nowMs - w * p) / p;
  }
  rolled.prev = prev > limit ? limit : prev; // limit lowered since last touch: clamp, never reset
  rolled.curr = curr > limit ? limit : curr;
  rolled.win = win;
  rolled.f = f > 0 ? f : 0; // a time just before the window (within the tolerance) sits at its start
}

/** Milliseconds until the counts (already rolled to window `win`) no longer affect any estimate. */
function untilFresh(prev: number, curr: number, win: number, nowMs: number, p: number): number {
  if (curr > 0) return (win + 2) * p - nowMs;
  if (prev > 0) return (win + 1) * p - nowMs;
  return 0;
}

/**
 * Fixed window — a counter per calendar window of `periodMs`, aligned to the epoch.
 *
 * Model: time is cut into windows [w·P, (w+1)·P) with w = ⌊now / P⌋; a request of cost c passes when the
 * window's count plus c is at most L, and then adds c. The counter starts again from zero in each window.
 *
 * State (2 fields): `s[o] = count`, `s[o + 1] = windowId` (w of the window the count belongs to).
 *
 * At `now`: if w > windowId the count is 0 and the effective window is w; if windowId = w + 1 (a clock going
 * backwards across one window edge) the stored window stays in effect, as if no time had passed. If
 * windowId > w + 1 the state is fresh (count 0, window w): a window id is counted in units of P, so one more
 * than a window ahead cannot come from a clock going back within this period's scale; it was written under
 * another, shorter period (a limit whose period was lengthened under the same name and namespace: a per-second
 * id read as minutes lies millennia ahead) and would otherwise hold its count, denied and never idle, until
 * that window came round. The price: a clock behind by two window edges or more counts in a window of its own.
 * A count above a lowered limit is clamped to it. A time within TIME_TOLERANCE_MS before a window's end already
 * belongs to the next window (w = ⌊(now + TIME_TOLERANCE_MS) / P⌋), so the reported wait is never rounded into
 * the old window; for whole-millisecond times and periods this equals ⌊now / P⌋.
 *
 * Reported: remaining = L − count after the step; resetAfterMs = time until the window ends (0 when the count
 * is 0); retryAfterMs (denied) = time until the window ends. Seed 002's pseudocode (INCR, allow when count ≤
 * limit, retry at the next window) gives the same decisions, except that a denial here counts nothing.
 *
 * Edges: cost > limit never passes (retryAfterMs = Infinity). cost 0 is a peek and writes nothing. Refund takes
 * units back from the current window's count only. Costs are whole numbers (validated upstream). A shortened
 * period reads the stored id as a window long past: the count is dropped, as after a long gap. idleAfterMs is 0
 * for every state `apply` reads as fresh (count 0, window past, or window more than one ahead).
 *
 * Pro: O(1), two floats per key, resets at predictable times ("1000 per day, from midnight UTC"). Con: the
 * boundary burst: up to 2L pass across a window edge in a span much shorter than P.
 */
import { ceilMs, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";

/** Fixed window over two floats (count, window id) per key. */
export const fixedWindow: Algorithm = {
  id: "fixed_window",

  width: () => 2,

  apply(s, o, nowMs, spec, cost, commit, out): void {
    const limit = spec.limit;
    const stored = s[o + 1];
    const w = windowOf(nowMs, spec.periodMs);
    let count = 0;
    let win = w;
    if (w <= stored && stored <= w + 1) {
      win = stored;
      count = s[o] > limit ? limit : s[o]; // limit lowered since last touch: clamp, never reset
    }
    const untilEnd = (win + 1) * spec.periodMs - nowMs;
    out.leaseId = 0;
    if (cost > limit) {
      out.allowed = false;
      out.retryAfterMs = Number.POSITIVE_INFINITY;
    } else if (count + cost <= limit) {
      out.allowed = true;
      out.retryAfterMs = 0;
      count += cost;
      if (commit && cost > 0) {
        s[o] = count;
        s[o + 1] = win;
      }
    } else {
      out.allowed = false;
      out.retryAfterMs = ceilMs(untilEnd);
    }
    out.remaining = limit - count;
    out.resetAfterMs = count > 0 ? ceilMs(untilEnd) : 0;
  },

  refund(s, o, nowMs, spec, amount): void {
    const stored = s[o + 1];
    const w = windowOf(nowMs, spec.periodMs);
    if (w > stored || stored > w + 1) {
      s[o] = 0;
      s[o + 1] = w;
      return;
    }
    const count = (s[o] > spec.limit ? spec.limit : s[o]) - amount;
    s[o] = count > 0 ? count : 0;
  },

  idleAfterMs(s, o, nowMs, spec): number {
    const stored = s[o + 1];
    const w = windowOf(nowMs, spec.periodMs);
    if (s[o] <= 0 || w > stored || stored > w + 1) return 0;
    return (stored + 1) * spec.periodMs - nowMs;
  },
};

/** The window `nowMs` falls in; a time within TIME_TOLERANCE_MS of the next window counts as in it. */
function windowOf(nowMs: number, periodMs: number): number {
  return Math.floor((nowMs + TIME_TOLERANCE_MS) / periodMs);
}

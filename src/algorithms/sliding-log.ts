/**
 * Sliding log — the exact sliding window: every admitted request is remembered until it leaves the window.
 *
 * Model: a request of cost c at time now passes when the costs admitted in the half-open window `(now − P, now]`
 * plus c do not exceed the limit L. Admissions are kept oldest-first in a ring of L (timestamp, cost) entries;
 * before deciding, entries with `ts ≤ now − P` leave from the head. Each admission with c > 0 appends one
 * entry, and every entry holds a cost ≥ 1, so L entries always suffice.
 *
 * State (3 + 2·L fields): `s[o] = head` (ring index of the oldest entry), `s[o+1] = size` (live entries),
 * `s[o+2] = total` (sum of their costs), then entry i at `s[o+3+2i] = tsMs`, `s[o+4+2i] = cost`. All zeros is
 * an empty log. Dropping entries only moves `head`, so leaving the window costs O(entries dropped).
 *
 * Reported: remaining = L − total after the step; resetAfterMs = newest ts + P − now (0 when empty);
 * retryAfterMs (denied) = the time until enough of the oldest entries have left for c to fit: entry k leaves at
 * `ts_k + P`. idleAfterMs = newest ts + P − now.
 *
 * Edges: a clock going backwards is no time passing — the effective now is max(now, newest ts), so nothing
 * leaves early and the ring stays in time order. cost > L never passes (retryAfterMs = Infinity). cost 0 is a
 * peek and writes nothing. An entry counts as gone once `ts + P − now ≤ TIME_TOLERANCE_MS`, so fractional
 * clocks retrying at `now + retryAfterMs` pass. refund takes cost back from the newest entries. A changed limit
 * changes the ring's capacity with the width; the store hands the state over with `resize` (ring.ts's
 * `ringResize`), which keeps the entries in order from the head: all of them under a raised limit, the newest L
 * under a lowered one, the costs of older entries still in the window folding into the oldest kept entry (L
 * entries of cost ≥ 1 fill the new limit until that one leaves, and the older ones would have left before it; a
 * limit raised again later still counts them, until it leaves). Total is the sum of the kept costs. A lowered
 * limit thus leaves remaining at 0 until enough of the kept entries leave. Head and size are still clamped into
 * the ring on touch, and total is cleared whenever the ring empties.
 *
 * Pro: exact — never more than L in any window of length P, no boundary effects. Con: O(L) memory per key
 * (limit ≤ SLIDING_LOG_MAX_LIMIT); use sliding_window or bucketed_window for large limits.
 */
import { ceilMs, floorCount, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";
import { HEAD, RING, ringExtent, ringRefund, ringResize, ringRetryMs, SIZE, TOTAL } from "./ring.js";

/** The exact sliding window log over a ring of (timestamp, cost) entries per key. */
export const slidingLog: Algorithm = {
  id: "sliding_log",

  width: (spec) => RING + 2 * spec.limit,

  apply(s, o, nowMs, spec, cost, commit, out): void {
    const limit = spec.limit;
    const cap = limit;
    const p = spec.periodMs;
    const r = o + RING;
    let head = s[o + HEAD];
    let size = s[o + SIZE];
    let total = s[o + TOTAL];
    if (!(head >= 0 && head < cap)) head = 0; // not a head of this ring (resize hands over one that is)
    if (!(size > 0)) size = 0;
    else if (size > cap) size = cap;
    const newest = size > 0 ? s[r + 2 * ((head + size - 1) % cap)] : 0;
    const now = size > 0 && newest > nowMs ? newest : nowMs; // clock backwards: no time passed

    while (size > 0) {
      const at = r + 2 * head;
      if (s[at] + p - now > TIME_TOLERANCE_MS) break;
      total -= s[at + 1];
      head = head + 1 === cap ? 0 : head + 1;
      size--;
    }
    if (size === 0 || total < 0) total = 0;

    out.leaseId = 0;
    if (cost > limit) {
      out.allowed = false;
      out.retryAfterMs = Number.POSITIVE_INFINITY;
      out.remaining = floorCount(limit - total);
      out.resetAfterMs = size > 0 ? ceilMs(newest + p - nowMs) : 0;
      return;
    }
    if (total + cost <= limit && (cost === 0 || size < cap)) {
      out.allowed = true;
      out.retryAfterMs = 0;
      if (cost === 0) {
        out.remaining = floorCount(limit - total);
        out.resetAfterMs = size > 0 ? ceilMs(newest + p - nowMs) : 0;
        return;
      }
      out.remaining = floorCount(limit - total - cost);
      out.resetAfterMs = ceilMs(now + p - nowMs);
      if (commit) {
        const tail = r + 2 * ((head + size) % cap);
        s[tail] = now;
        s[tail + 1] = cost;
        s[o + HEAD] = head;
        s[o + SIZE] = size + 1;
        s[o + TOTAL] = total + cost;
      }
      return;
    }

    out.allowed = false;
    out.remaining = floorCount(limit - total);
    out.resetAfterMs = ceilMs(newest + p - nowMs);
    // every entry gone is the fallback (reached only if the state lost entries)
    out.retryAfterMs = ringRetryMs(
      s,
      o,
      cap,
      head,
      size,
      total,
      cost,
      limit,
      1,
      p,
      nowMs,
      ceilMs(newest + p - nowMs),
    );
  },

  refund(s, o, _nowMs, spec, amount): void {
    ringRefund(s, o, spec.limit, amount);
  },

  resize(from, fromWidth, to, o, spec): void {
    ringResize(from, (fromWidth - RING) / 2, to, o, spec.limit, 1, spec.periodMs);
  },

  idleAfterMs(s, o, nowMs, spec): number {
    const cap = spec.limit;
    let head = s[o + HEAD];
    let size = s[o + SIZE];
    if (!(size > 0)) return 0;
    if (!(head >= 0 && head < cap)) head = 0;
    if (size > cap) size = cap;
    const ahead = s[o + RING + 2 * ((head + size - 1) % cap)] + spec.periodMs - nowMs;
    return ahead > 0 ? ahead : 0;
  },

  extent(s, o, spec): number {
    return ringExtent(s, o, spec.limit);
  },
};

/**
 * Bucketed window — a sliding window approximated by a queue of fixed-width time buckets (seed 001).
 *
 * Model: time is cut into buckets of width w (`spec.bucketMs`), numbered `floor(now / w)`; the period P holds
 * N = P / w of them. Each key keeps the buckets that saw admissions, oldest first, with their counts and a
 * running total. Before deciding, buckets with `id ≤ floor((now − P) / w)` (that is, `id ≤ current − N`) leave
 * from the head. A request of cost c passes when `total + c ≤ L`; it is then added to the tail bucket if that
 * is the current one, else a new (current id, c) bucket is pushed. At most N buckets are live at once.
 *
 * State (3 + 2·N fields): `s[o] = head` (ring index of the oldest bucket), `s[o+1] = size` (live buckets),
 * `s[o+2] = total` (sum of their counts), then bucket i at `s[o+3+2i] = bucketId`, `s[o+4+2i] = count`. All
 * zeros is an empty queue.
 *
 * Reported: remaining = L − total after the step; resetAfterMs = newestId·w + P − now (0 when empty);
 * retryAfterMs (denied) = the time until enough of the oldest buckets have left for c to fit: bucket k leaves
 * at `id_k·w + P`. idleAfterMs = newestId·w + P − now (0 when empty or read as fresh, below).
 *
 * Edges: a clock going backwards is no time passing — the current bucket is max(floor(now / w), newest id), so
 * nothing leaves early — as long as the newest id is at most a period (N buckets) ahead of floor(now / w).
 * Beyond that the queue is read as empty (idle, 0): a bucket id is counted in units of w, so one more than a
 * period ahead cannot come from a clock going back within this period's scale; it was written under another,
 * narrower bucket width (a limit whose period or bucket was lengthened under the same name and namespace: an id
 * of 100 ms buckets read as 6 s buckets lies millennia ahead) and would otherwise hold its buckets, denied and
 * never idle, until that bucket came round. The price: a clock behind by more than a period counts in a queue of
 * its own. A narrowed width reads the ids as buckets long past: they leave, as after a long gap.
 * cost > L never passes (retryAfterMs = Infinity). cost 0 is a peek and writes nothing.
 * The current bucket is `floor((now + TIME_TOLERANCE_MS) / w)`, identical to `floor(now / w)` for whole-ms
 * clocks, so fractional clocks retrying at `now + retryAfterMs` land in the bucket the retry was computed for.
 * refund takes counts back from the newest buckets. A changed limit keeps the layout (the width depends on P
 * and w only): a lowered limit leaves remaining at 0 until enough buckets leave. A changed N (P / w) changes the
 * ring's capacity with the width; the store hands the state over with `resize` (ring.ts's `ringResize`), which
 * keeps the buckets in order from the head: all of them for a larger N, the newest N for a smaller one (under an
 * unchanged w, the older ones would leave at the next touch anyway), with total their sum.
 *
 * Pro: O(N) memory and O(buckets dropped) time per key, independent of L; never stricter than an exact log.
 * Con: admits as an exact window of P − w would: a bucket is dropped whole once its start is a period old,
 * so up to one bucket's worth of older admissions is forgotten early (seed 001's false positives).
 */
import { ceilMs, floorCount, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";
import { HEAD, RING, ringExtent, ringRefund, ringResize, ringRetryMs, SIZE, TOTAL } from "./ring.js";

/** The bucketed sliding window of seed 001: a ring of (bucket id, count) per key. */
export const bucketedWindow: Algorithm = {
  id: "bucketed_window",

  width: (spec) => RING + 2 * (spec.periodMs / spec.bucketMs),

  apply(s, o, nowMs, spec, cost, commit, out): void {
    const limit = spec.limit;
    const w = spec.bucketMs;
    const p = spec.periodMs;
    const cap = p / w;
    const r = o + RING;
    let head = s[o + HEAD];
    let size = s[o + SIZE];
    let total = s[o + TOTAL];
    if (!(head >= 0 && head < cap)) head = 0; // not a head of this ring (resize hands over one that is)
    if (!(size > 0)) size = 0;
    else if (size > cap) size = cap;
    const tail = r + 2 * ((head + size - 1) % cap);
    const newestId = size > 0 ? s[tail] : 0;
    let cur = Math.floor((nowMs + TIME_TOLERANCE_MS) / w);
    if (size > 0 && newestId > cur) {
      if (newestId > cur + cap) {
        size = 0; // ids of another bucket width: an empty queue
      } else {
        cur = newestId; // clock backwards: no time passed
      }
    }
    const cutoff = cur - cap;

    while (size > 0) {
      const at = r + 2 * head;
      if (s[at] > cutoff) break;
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
      out.resetAfterMs = size > 0 ? ceilMs(newestId * w + p - nowMs) : 0;
      return;
    }
    const sameBucket = size > 0 && newestId === cur;
    if (total + cost <= limit && (cost === 0 || sameBucket || size < cap)) {
      out.allowed = true;
      out.retryAfterMs = 0;
      if (cost === 0) {
        out.remaining = floorCount(limit - total);
        out.resetAfterMs = size > 0 ? ceilMs(newestId * w + p - nowMs) : 0;
        return;
      }
      out.remaining = floorCount(limit - total - cost);
      out.resetAfterMs = ceilMs(cur * w + p - nowMs);
      if (commit) {
        if (sameBucket) {
          s[tail + 1] += cost;
        } else {
          const at = r + 2 * ((head + size) % cap);
          s[at] = cur;
          s[at + 1] = cost;
          size++;
        }
        s[o + HEAD] = head;
        s[o + SIZE] = size;
        s[o + TOTAL] = total + cost;
      }
      return;
    }

    out.allowed = false;
    out.remaining = floorCount(limit - total);
    out.resetAfterMs = ceilMs(newestId * w + p - nowMs);
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
      w,
      p,
      nowMs,
      ceilMs(newestId * w + p - nowMs),
    );
  },

  refund(s, o, _nowMs, spec, amount): void {
    ringRefund(s, o, spec.periodMs / spec.bucketMs, amount);
  },

  resize(from, fromWidth, to, o, spec): void {
    ringResize(
      from,
      (fromWidth - RING) / 2,
      to,
      o,
      spec.periodMs / spec.bucketMs,
      spec.bucketMs,
      spec.periodMs,
    );
  },

  idleAfterMs(s, o, nowMs, spec): number {
    const cap = spec.periodMs / spec.bucketMs;
    let head = s[o + HEAD];
    let size = s[o + SIZE];
    if (!(size > 0)) return 0;
    if (!(head >= 0 && head < cap)) head = 0;
    if (size > cap) size = cap;
    const newestId = s[o + RING + 2 * ((head + size - 1) % cap)];
    if (newestId > Math.floor((nowMs + TIME_TOLERANCE_MS) / spec.bucketMs) + cap) return 0; // as in apply
    const ahead = newestId * spec.bucketMs + spec.periodMs - nowMs;
    return ahead > 0 ? ahead : 0;
  },

  extent(s, o, spec): number {
    return ringExtent(s, o, spec.periodMs / spec.bucketMs);
  },
};

/**
 * Concurrency — a cap on work in flight: each admission takes a lease that is given back with `release`, or
 * expires on its own P ms after it was taken (so a crashed holder cannot leak capacity forever).
 *
 * Model: a request of cost c passes when the costs of the unexpired leases plus c do not exceed the limit L;
 * it then takes a lease `(id, expiry = now + P, c)` with `id = max(nextLeaseId + 1, ⌊now⌋·1000)`, reported in
 * `out.leaseId`. Seeding ids from the clock keeps them increasing even after an idle key was dropped and
 * started fresh, so a late release of a long-expired lease can never free a newer holder's lease (ids stay
 * whole and distinct below 2^53 until the year 2255, which is why the Limiter and the Engine refuse a nowMs past
 * MAX_NOW_MS, 2100; at most 1000 leases per millisecond per key keep them strictly increasing). A
 * reset drops every lease but keeps nextLeaseId (`resetKeep`): a key reset and acquired again within the same
 * millisecond would otherwise hand out ⌊now⌋·1000 a second time, and the late release of the dropped lease of that
 * id would free the new holder's. Leases are kept unordered in L slots; a removed lease is replaced by the last one,
 * so the live leases always fill slots `0 … size − 1`. Every lease holds a cost ≥ 1, so L slots always suffice.
 *
 * State (3 + 3·L fields): `s[o] = inflight` (sum of the stored leases' costs), `s[o+1] = nextLeaseId` (the last
 * id handed out), `s[o+2] = size` (stored leases), then lease i at `s[o+3+3i] = leaseId`,
 * `s[o+4+3i] = expiryMs`, `s[o+5+3i] = cost`. All zeros is "nothing in flight". Expired leases are skipped by
 * every read and compacted away when a lease is taken; `apply` sums the live costs itself while scanning, so
 * it does not depend on `inflight`, which is kept for readers of the state.
 *
 * Reported: remaining = L − live cost after the step; resetAfterMs = latest expiry − now (0 when nothing is in
 * flight); retryAfterMs (denied) = the time until, by expiry alone, enough leases have expired for c to fit — an
 * upper bound, since holders usually release earlier. idleAfterMs = latest live expiry − now.
 *
 * Edges: a lease counts as expired once `expiry − now ≤ TIME_TOLERANCE_MS`; a clock going backwards expires
 * nothing early (expiry is compared with the caller's now), and a lease taken then lives P ms of the caller's
 * clock. cost > L never passes (retryAfterMs = Infinity). cost 0 is a peek, takes no lease and writes nothing.
 * refund is a no-op: capacity comes back through `release`, which returns false for an unknown or expired
 * lease. Under a
 * lowered limit the slots beyond the new L are cut off with the width and those leases are forgotten.
 *
 * Pro: bounds in-flight work directly, whatever its duration; crash-safe through expiry. Con: O(L) memory and
 * an O(leases) scan per call; a denial sorts the live leases to compute retryAfterMs.
 */
import { ceilMs, floorCount, TIME_TOLERANCE_MS } from "../core/time-math.js";
import type { Algorithm } from "./algorithm.js";

const INFLIGHT = 0;
const NEXT_ID = 1;
const SIZE = 2;
const LEASES = 3;
const STRIDE = 3;

/** Scratch list of live slot indices, reused by denials (kernels are synchronous, so one suffices). */
let order = new Uint32Array(64);

/** Concurrency leases with expiry: L slots of (lease id, expiry, cost) per key. */
export const concurrency: Algorithm = {
  id: "concurrency",

  width: (spec) => LEASES + STRIDE * spec.limit,

  apply(s, o, nowMs, spec, cost, commit, out): void {
    const limit = spec.limit;
    const base = o + LEASES;
    const size = storedSize(s, o, limit);
    let live = 0;
    let liveCount = 0;
    let latest = nowMs;
    for (let i = 0; i < size; i++) {
      const at = base + STRIDE * i;
      const expiry = s[at + 1];
      if (expiry - nowMs > TIME_TOLERANCE_MS) {
        live += s[at + 2];
        liveCount++;
        if (expiry > latest) latest = expiry;
      }
    }

    out.leaseId = 0;
    if (cost > limit) {
      out.allowed = false;
      out.retryAfterMs = Number.POSITIVE_INFINITY;
      out.remaining = floorCount(limit - live);
      out.resetAfterMs = ceilMs(latest - nowMs);
      return;
    }
    if (live + cost <= limit && (cost === 0 || liveCount < limit)) {
      out.allowed = true;
      out.retryAfterMs = 0;
      if (cost === 0) {
        out.remaining = floorCount(limit - live);
        out.resetAfterMs = ceilMs(latest - nowMs);
        return;
      }
      const expiry = nowMs + spec.periodMs;
      out.remaining = floorCount(limit - live - cost);
      out.resetAfterMs = ceilMs((expiry > latest ? expiry : latest) - nowMs);
      if (commit) {
        let n = size;
        let i = 0;
        while (i < n) {
          const at = base + STRIDE * i;
          if (s[at + 1] - nowMs > TIME_TOLERANCE_MS) {
            i++;
          } else {
            n--;
            moveLast(s, base, i, n);
          }
        }
        const seeded = Math.floor(nowMs) * 1000;
        const next = s[o + NEXT_ID] + 1;
        const id = next > seeded ? next : seeded;
        const at = base + STRIDE * n;
        s[at] = id;
        s[at + 1] = expiry;
        s[at + 2] = cost;
        s[o + INFLIGHT] = live + cost;
        s[o + NEXT_ID] = id;
        s[o + SIZE] = n + 1;
        out.leaseId = id;
      }
      return;
    }

    out.allowed = false;
    out.remaining = floorCount(limit - live);
    out.resetAfterMs = ceilMs(latest - nowMs);
    out.retryAfterMs = ceilMs(latest - nowMs); // all expired (reached only if the state is inconsistent)
    if (order.length < liveCount) order = new Uint32Array(Math.max(liveCount, order.length * 2));
    let n = 0;
    for (let i = 0; i < size; i++) {
      if (s[base + STRIDE * i + 1] - nowMs > TIME_TOLERANCE_MS) order[n++] = i;
    }
    const byExpiry = order.subarray(0, n);
    byExpiry.sort((a, b) => s[base + STRIDE * a + 1] - s[base + STRIDE * b + 1]);
    let freed = 0;
    for (let k = 0; k < n; k++) {
      const at = base + STRIDE * byExpiry[k];
      freed += s[at + 2];
      if (live - freed + cost <= limit) {
        out.retryAfterMs = ceilMs(s[at + 1] - nowMs);
        break;
      }
    }
  },

  refund(): void {
    // Leases are given back with release(); a refund by amount cannot say which lease it frees.
  },

  idleAfterMs(s, o, nowMs, spec): number {
    const size = storedSize(s, o, spec.limit);
    let latest = nowMs;
    for (let i = 0; i < size; i++) {
      const expiry = s[o + LEASES + STRIDE * i + 1];
      if (expiry > latest) latest = expiry;
    }
    return latest - nowMs;
  },

  extent(s, o, spec): number {
    // Leases fill slots 0 … size − 1; a new one goes in slot size at most (after expired ones are compacted away).
    const size = storedSize(s, o, spec.limit);
    return LEASES + STRIDE * (size < spec.limit ? size + 1 : spec.limit);
  },

  resetKeep(s, o, spec): boolean {
    const next = s[o + NEXT_ID];
    s.fill(0, o, o + LEASES + STRIDE * spec.limit);
    s[o + NEXT_ID] = next;
    return next > 0;
  },

  release(s, o, nowMs, spec, leaseId): boolean {
    if (!(leaseId > 0)) return false;
    const base = o + LEASES;
    const size = storedSize(s, o, spec.limit);
    for (let i = 0; i < size; i++) {
      const at = base + STRIDE * i;
      if (s[at] !== leaseId) continue;
      const held = s[at + 1] - nowMs > TIME_TOLERANCE_MS;
      const inflight = s[o + INFLIGHT] - s[at + 2];
      const n = size - 1;
      moveLast(s, base, i, n);
      s[o + SIZE] = n;
      s[o + INFLIGHT] = n === 0 || inflight < 0 ? 0 : inflight;
      return held;
    }
    return false;
  },
};

/** Stored lease count, clamped to the slots the current limit provides. */
function storedSize(s: Float64Array, o: number, limit: number): number {
  const size = s[o + SIZE];
  if (!(size > 0)) return 0;
  return size > limit ? limit : size;
}

/** Moves lease `last` into slot `hole` and clears slot `last`. */
function moveLast(s: Float64Array, base: number, hole: number, last: number): void {
  const from = base + STRIDE * last;
  if (hole !== last) {
    const to = base + STRIDE * hole;
    s[to] = s[from];
    s[to + 1] = s[from + 1];
    s[to + 2] = s[from + 2];
  }
  s[from] = 0;
  s[from + 1] = 0;
  s[from + 2] = 0;
}

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, resizeState, step } from "./algorithm.js";
import { bucketedWindow } from "./bucketed-window.js";

const T0 = 1_700_000_000_000;
const INF = Number.POSITIVE_INFINITY;

function spec(limit: number, periodMs: number, bucketMs: number): LimitSpec {
  return parseLimitSpec({ algorithm: "bucketed_window", limit, periodMs, bucketMs });
}

type Expect = Partial<ReturnType<typeof step>["decision"]> & { buckets?: [number, number][]; total?: number };

/** Replays `(atMs, cost) → expected` steps, starting fresh unless a state is given; returns the last state. */
function replay(
  sp: LimitSpec,
  steps: { at: number; cost?: number; expect: Expect }[],
  start?: Float64Array,
): Float64Array {
  let state = start ?? new Float64Array(bucketedWindow.width(sp));
  for (const [i, s] of steps.entries()) {
    const { buckets: wantBuckets, total, ...want } = s.expect;
    const r = step(bucketedWindow, state, s.at, sp, s.cost ?? 1);
    const label = `step ${i} at ${s.at}`;
    expect(r.decision, label).toMatchObject(want);
    if (wantBuckets !== undefined) expect(buckets(sp, r.state), label).toEqual(wantBuckets);
    if (total !== undefined) expect(r.state[2], label).toBe(total);
    if (!r.decision.allowed) expect(r.state, `${label}: a denial writes nothing`).toEqual(state);
    state = r.state;
  }
  return state;
}

/** The live buckets, oldest first, as [bucketId, count] pairs. */
function buckets(sp: LimitSpec, s: Float64Array): [number, number][] {
  const n = sp.periodMs / sp.bucketMs;
  const out: [number, number][] = [];
  for (let k = 0; k < s[1]; k++) {
    const i = (s[0] + k) % n;
    out.push([s[3 + 2 * i], s[4 + 2 * i]]);
  }
  return out;
}

describe("bucketed_window", () => {
  it("has width 3 + 2·(period / bucket)", () => {
    expect(bucketedWindow.width(spec(5, 1000, 100))).toBe(23);
    expect(
      bucketedWindow.width(parseLimitSpec({ algorithm: "bucketed_window", limit: 5, period: "1m" })),
    ).toBe(23);
    expect(bucketedWindow.width(spec(5, 10_000, 1))).toBe(20_003);
  });

  it("reproduces seed 001's worked trace (5 per second, 100 ms buckets)", () => {
    const sp = spec(5, 1000, 100);
    replay(sp, [
      {
        at: 1592171101900,
        expect: { allowed: true, remaining: 4, total: 1, resetAfterMs: 1000, buckets: [[15921711019, 1]] },
      },
      {
        at: 1592171101950,
        expect: { allowed: true, remaining: 3, total: 2, resetAfterMs: 950, buckets: [[15921711019, 2]] },
      },
      {
        at: 1592171102013,
        expect: {
          allowed: true,
          remaining: 2,
          total: 3,
          resetAfterMs: 987,
          buckets: [
            [15921711019, 2],
            [15921711020, 1],
          ],
        },
      },
      {
        at: 1592171102810,
        expect: {
          allowed: true,
          remaining: 1,
          total: 4,
          buckets: [
            [15921711019, 2],
            [15921711020, 1],
            [15921711028, 1],
          ],
        },
      },
      {
        at: 1592171102850,
        expect: {
          allowed: true,
          remaining: 0,
          total: 5,
          buckets: [
            [15921711019, 2],
            [15921711020, 1],
            [15921711028, 2],
          ],
        },
      },
      {
        // nothing outdated yet; total = 5 = limit, so denied and the queue is unchanged
        at: 1592171102890,
        expect: {
          allowed: false,
          remaining: 0,
          total: 5,
          retryAfterMs: 10, // bucket 15921711019 leaves at 1592171102900
          resetAfterMs: 910,
          buckets: [
            [15921711019, 2],
            [15921711020, 1],
            [15921711028, 2],
          ],
        },
      },
      // a peek shows bucket 15921711019 outdated (total 3) without writing
      { at: 1592171102980, cost: 0, expect: { allowed: true, remaining: 2, total: 5 } },
      {
        at: 1592171102980,
        expect: {
          allowed: true,
          remaining: 1,
          total: 4,
          resetAfterMs: 920,
          buckets: [
            [15921711020, 1],
            [15921711028, 2],
            [15921711029, 1],
          ],
        },
      },
    ]);
  });

  it("drops whole buckets once their start is a period old, and reports when", () => {
    const sp = spec(3, 1000, 250);
    replay(sp, [
      { at: T0 + 10, expect: { allowed: true, remaining: 2, resetAfterMs: 990, retryAfterMs: 0 } },
      { at: T0 + 300, cost: 2, expect: { allowed: true, remaining: 0, resetAfterMs: 950 } },
      { at: T0 + 400, expect: { allowed: false, remaining: 0, retryAfterMs: 600, resetAfterMs: 850 } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1 } },
      // bucket [T0, T0+250) leaves at T0+1000, though its request at T0+10 is younger than a period
      { at: T0 + 1000, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
      { at: T0 + 1000, cost: 2, expect: { allowed: false, retryAfterMs: 250, resetAfterMs: 1000 } },
      { at: T0 + 1250, cost: 2, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
  });

  it("denies a cost above the limit forever, and says so", () => {
    const sp = spec(3, 1000, 100);
    replay(sp, [
      { at: T0, cost: 4, expect: { allowed: false, retryAfterMs: INF, remaining: 3, resetAfterMs: 0 } },
      { at: T0 + 50, expect: { allowed: true, remaining: 2 } },
      {
        at: T0 + 60,
        cost: 4,
        expect: { allowed: false, retryAfterMs: INF, remaining: 2, resetAfterMs: 940 },
      },
    ]);
  });

  it("admits a whole burst at zero elapsed time into one bucket", () => {
    const sp = spec(3, 1000, 100);
    replay(sp, [
      { at: T0, expect: { allowed: true, remaining: 2 } },
      { at: T0, expect: { allowed: true, remaining: 1 } },
      { at: T0, expect: { allowed: true, remaining: 0, buckets: [[T0 / 100, 3]] } },
      { at: T0, expect: { allowed: false, retryAfterMs: 1000, resetAfterMs: 1000 } },
    ]);
  });

  it("treats a clock going backwards as no time passing", () => {
    const sp = spec(2, 1000, 100);
    replay(sp, [
      { at: T0 + 550, expect: { allowed: true, remaining: 1 } },
      // counted in the newest bucket, not in one a second back (the newest is N = 10 buckets ahead, the most
      // kept); durations measured from the caller's now
      {
        at: T0 - 500,
        expect: { allowed: true, remaining: 0, resetAfterMs: 2000, buckets: [[T0 / 100 + 5, 2]] },
      },
      { at: T0 - 500, expect: { allowed: false, retryAfterMs: 2000, resetAfterMs: 2000 } },
      { at: T0 + 1499, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1500, cost: 2, expect: { allowed: true, remaining: 0 } },
    ]);
  });

  it("reads bucket ids of a narrower width (the period lengthened, same state) as an empty queue", () => {
    const perSecond = spec(2, 1000, 100);
    const perMinute = spec(5, 60_000, 6000); // N = 10 either way: the same layout, ids in other units
    const cur = Math.floor((T0 + 200) / 6000); // T0 is 20 s into a minute: this bucket started 2.2 s ago
    const used = replay(perSecond, [
      { at: T0 + 100, cost: 2, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 200, expect: { allowed: false, retryAfterMs: 900 } },
    ]);
    // A 100 ms bucket id read as 6 s buckets lies ~1.6e9 buckets ahead: not a clock gone back, so empty and idle.
    expect(bucketedWindow.idleAfterMs(used, 0, T0 + 200, perMinute)).toBe(0);
    const r = step(bucketedWindow, used, T0 + 200, perMinute, 1);
    expect(r.decision).toEqual({
      allowed: true,
      remaining: 4,
      retryAfterMs: 0,
      resetAfterMs: 57_800,
      leaseId: 0,
    });
    expect(buckets(perMinute, r.state)).toEqual([[cur, 1]]);
    expect(r.state[2]).toBe(1);
    expect(bucketedWindow.idleAfterMs(r.state, 0, T0 + 200, perMinute)).toBe(57_800);
    // Only the bucket width changed (100 ms to 500 ms, N = 2): the same.
    expect(step(bucketedWindow, used, T0 + 200, spec(2, 1000, 500), 2).decision).toMatchObject({
      allowed: true,
      remaining: 0,
      resetAfterMs: 800, // its bucket started at T0
    });
    // Shortened back to a second: the 6 s bucket id read as 100 ms buckets is long past, and leaves.
    expect(step(bucketedWindow, r.state, T0 + 300, perSecond, 1).decision).toMatchObject({
      allowed: true,
      remaining: 1,
      resetAfterMs: 1000,
    });
  });

  it("keeps the queue for a clock up to a period (N buckets) behind, not further", () => {
    const sp = spec(2, 1000, 100);
    const used = replay(sp, [{ at: T0 + 550, cost: 2, expect: { allowed: true, remaining: 0 } }]); // bucket +5
    // At T0 − 500 the current bucket is −5: the newest is N = 10 ahead, a clock gone back; nothing leaves.
    expect(step(bucketedWindow, used, T0 - 500, sp, 1).decision).toMatchObject({
      allowed: false,
      retryAfterMs: 2000,
    });
    expect(bucketedWindow.idleAfterMs(used, 0, T0 - 500, sp)).toBe(2000);
    // At T0 − 501 (bucket −6) it is 11 ahead, more than a period: read as empty.
    expect(step(bucketedWindow, used, T0 - 501, sp, 1).decision).toMatchObject({
      allowed: true,
      remaining: 1,
      resetAfterMs: 901,
    });
    expect(bucketedWindow.idleAfterMs(used, 0, T0 - 501, sp)).toBe(0);
  });

  it("forgets everything after a very long gap", () => {
    const sp = spec(3, 1000, 100);
    const state = replay(sp, [
      { at: T0, cost: 3, expect: { allowed: true } },
      { at: T0 + 1e12, cost: 3, expect: { allowed: true, remaining: 0, buckets: [[(T0 + 1e12) / 100, 3]] } },
    ]);
    expect(bucketedWindow.idleAfterMs(state, 0, T0 + 2e12, sp)).toBe(0);
  });

  it("peeks with cost 0 without writing, even when committing", () => {
    const sp = spec(3, 1000, 100);
    const state = replay(sp, [{ at: T0, cost: 2, expect: { allowed: true } }]);
    const before = Float64Array.from(state);
    const out = createStepOut();
    bucketedWindow.apply(state, 0, T0 + 1500, sp, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 0, retryAfterMs: 0 });
    bucketedWindow.apply(state, 0, T0 + 500, sp, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 500 });
    bucketedWindow.apply(state, 0, T0 + 500, sp, 1, false, out);
    expect(out).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000, leaseId: 0 });
    expect(state).toEqual(before);
  });

  it("wraps its ring around many times", () => {
    const sp = spec(4, 100, 10);
    const state = new Float64Array(bucketedWindow.width(sp));
    const out = createStepOut();
    let failures = 0;
    for (let k = 0; k < 2_500; k++) {
      const now = T0 + 25 * k;
      bucketedWindow.apply(state, 0, now, sp, 1, true, out);
      if (!out.allowed || out.remaining !== Math.max(0, 3 - k)) failures++;
      if (k >= 3) {
        const before = Float64Array.from(state);
        bucketedWindow.apply(state, 0, now, sp, 1, true, out);
        const oldestStart = Math.floor((now - 75) / 10) * 10;
        if (out.allowed || out.retryAfterMs !== oldestStart + 100 - now) failures++;
        if (state.some((v, i) => v !== before[i])) failures++;
      }
    }
    expect(failures).toBe(0);
    const last = T0 + 25 * 2_499;
    expect(buckets(sp, state)).toEqual([
      [(last - 75) / 10, 1],
      [(last - 50 - 5) / 10, 1],
      [(last - 25) / 10, 1],
      [(last - 5) / 10, 1],
    ]);
  });

  it("refunds from the newest buckets", () => {
    const sp = spec(5, 1000, 100);
    let state = replay(sp, [
      { at: T0, cost: 2, expect: { allowed: true } },
      { at: T0 + 100, cost: 1, expect: { allowed: true } },
      { at: T0 + 150, cost: 1, expect: { allowed: true, remaining: 1 } },
    ]);
    bucketedWindow.refund(state, 0, T0 + 200, sp, 3);
    expect(buckets(sp, state)).toEqual([[T0 / 100, 1]]);
    expect(state[2]).toBe(1);
    state = replay(sp, [{ at: T0 + 200, cost: 0, expect: { remaining: 4, resetAfterMs: 800 } }], state);
    bucketedWindow.refund(state, 0, T0 + 200, sp, 100);
    expect(Array.from(state)).toEqual(new Array(23).fill(0));
  });

  it("reports idle time until the newest bucket leaves", () => {
    const sp = spec(5, 1000, 100);
    const state = replay(sp, [{ at: T0 + 150, expect: { allowed: true } }]);
    expect(bucketedWindow.idleAfterMs(state, 0, T0 + 150, sp)).toBe(950);
    expect(bucketedWindow.idleAfterMs(state, 0, T0 + 1100, sp)).toBe(0);
    expect(bucketedWindow.idleAfterMs(new Float64Array(23), 0, T0, sp)).toBe(0);
  });

  it("keeps counting under a changed limit instead of resetting", () => {
    const state = replay(spec(5, 1000, 100), [{ at: T0, cost: 5, expect: { allowed: true } }]);
    replay(
      spec(3, 1000, 100),
      [
        { at: T0 + 10, expect: { allowed: false, remaining: 0, retryAfterMs: 990 } },
        { at: T0 + 1000, cost: 3, expect: { allowed: true, remaining: 0 } },
      ],
      state,
    );
    replay(spec(8, 1000, 100), [{ at: T0 + 10, cost: 3, expect: { allowed: true, remaining: 0 } }], state);
  });

  it("keeps a wrapped ring in order when the period (the number of buckets) changes", () => {
    // N = 3: buckets of 0, 100, 200, then 300 (0 has left) goes into the first cell: head 1
    const three = spec(100, 300, 100);
    const state = replay(
      three,
      [0, 100, 200, 300].map((t) => ({ at: T0 + t, cost: 10, expect: { allowed: true } })),
    );
    const ten = spec(100, 1000, 100);
    const longer = step(bucketedWindow, state, T0 + 350, ten, 0);
    expect(longer.decision).toMatchObject({ allowed: true, remaining: 70, resetAfterMs: 950 });
    expect(buckets(ten, longer.state).map(([id, n]) => [id * 100 - T0, n])).toEqual([
      [100, 10],
      [200, 10],
      [300, 10],
    ]);
    expect(bucketedWindow.idleAfterMs(longer.state, 0, T0 + 350, ten)).toBe(950);
    // N = 2 from a wrapped ring of 3: the newest two buckets
    const two = spec(100, 200, 100);
    const shorter = new Float64Array(bucketedWindow.width(two));
    resizeState(bucketedWindow, state, state.length, shorter, 0, two);
    expect(buckets(two, shorter).map(([id, n]) => [id * 100 - T0, n])).toEqual([
      [200, 10],
      [300, 10],
    ]);
    expect(shorter[2]).toBe(20);
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 12 }),
      buckets: fc.integer({ min: 1, max: 12 }),
      bucketMs: fc.integer({ min: 1, max: 100 }),
    });

    it("agrees with a naive bucket queue step by step across changes of limit and period (a wrapped ring is re-laid in order)", () => {
      fc.assert(
        fc.property(
          arbSpec,
          fc.array(
            fc.record({
              gapMs: fc.oneof(fc.integer({ min: -100, max: 200 }), fc.constant(0)),
              cost: fc.integer({ min: 0, max: 6 }),
              change: fc.oneof(
                { weight: 6, arbitrary: fc.constant(null) },
                {
                  weight: 1,
                  arbitrary: fc.record({
                    limit: fc.integer({ min: 1, max: 12 }),
                    buckets: fc.integer({ min: 1, max: 12 }),
                  }),
                },
              ),
            }),
            { minLength: 1, maxLength: 200, size: "large" }, // long enough for rings to wrap between changes
          ),
          (p, trace) => {
            const w = p.bucketMs;
            let { limit, buckets: n } = p;
            let sp = spec(limit, n * w, w);
            let s = new Float64Array(bucketedWindow.width(sp));
            const out = createStepOut();
            let queue: { id: number; count: number }[] = []; // as of its last write, as the kernel's
            let now = T0;
            for (const r of trace) {
              now += r.gapMs;
              if (r.change !== null) {
                ({ limit, buckets: n } = r.change);
                sp = spec(limit, n * w, w);
                if (bucketedWindow.width(sp) !== s.length) {
                  const to = new Float64Array(bucketedWindow.width(sp));
                  resizeState(bucketedWindow, s, s.length, to, 0, sp);
                  s = to;
                }
                queue = queue.slice(-n); // the newest N (the older ones have left by the newest one's bucket)
              }
              let view = queue;
              let newest = view.length > 0 ? view[view.length - 1].id : -INF;
              if (newest > Math.floor(now / w) + n) {
                view = [];
                newest = -INF;
              }
              const cur = Math.max(Math.floor(now / w), newest);
              const live = view.filter((b) => b.id > cur - n);
              const used = live.reduce((a, b) => a + b.count, 0);
              const ok = used + r.cost <= limit;
              bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
              expect(out.allowed).toBe(ok);
              expect(out.remaining).toBe(Math.max(0, limit - used - (ok ? r.cost : 0)));
              const last = live[live.length - 1];
              const reset = ok && r.cost > 0 ? cur : last?.id;
              expect(out.resetAfterMs).toBe(reset === undefined ? 0 : Math.max(0, reset * w + n * w - now));
              if (ok && r.cost > 0) {
                if (last !== undefined && last.id === cur) last.count += r.cost;
                else live.push({ id: cur, count: r.cost });
                queue = live.map((b) => ({ ...b }));
                expect(buckets(sp, s)).toEqual(queue.map((b) => [b.id, b.count]));
                expect(s[2]).toBe(used + r.cost);
              }
            }
          },
        ),
      );
    });
    const arbTrace = (minGap: number) =>
      fc.array(
        fc.record({
          gapMs: fc.oneof(fc.integer({ min: minGap, max: 200 }), fc.constant(0)),
          cost: fc.integer({ min: 0, max: 6 }),
        }),
        { minLength: 1, maxLength: 200 },
      );
    const toSpec = (p: { limit: number; buckets: number; bucketMs: number }) =>
      spec(p.limit, p.buckets * p.bucketMs, p.bucketMs);

    it("never admits more than limit within any N aligned buckets, nor within any window of P − w", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const sp = toSpec(p);
          const s = new Float64Array(bucketedWindow.width(sp));
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          const w = p.bucketMs;
          for (const end of admitted) {
            const last = Math.floor(end.at / w);
            let aligned = 0;
            let narrow = 0;
            for (const a of admitted) {
              const id = Math.floor(a.at / w);
              if (id > last - p.buckets && id <= last) aligned += a.cost;
              if (a.at > end.at - (sp.periodMs - w) && a.at <= end.at) narrow += a.cost;
            }
            expect(aligned).toBeLessThanOrEqual(p.limit);
            expect(narrow).toBeLessThanOrEqual(p.limit);
          }
        }),
      );
    });

    it("is never stricter than an exact log over the same admissions", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const sp = toSpec(p);
          const s = new Float64Array(bucketedWindow.width(sp));
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
            if (out.allowed) {
              if (r.cost > 0) admitted.push({ at: now, cost: r.cost });
            } else {
              let exact = 0;
              for (const a of admitted) if (a.at > now - sp.periodMs) exact += a.cost;
              expect(exact + r.cost).toBeGreaterThan(p.limit);
            }
          }
        }),
      );
    });

    it("agrees with a naive bucket queue step by step, including a clock that goes backwards", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-300), (p, trace) => {
          const sp = toSpec(p);
          const s = new Float64Array(bucketedWindow.width(sp));
          const out = createStepOut();
          let queue: { id: number; count: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            let view = queue;
            let newest = view.length > 0 ? view[view.length - 1].id : -INF;
            if (newest > Math.floor(now / p.bucketMs) + p.buckets) {
              view = []; // more than a period ahead: ids of another width, read as an empty queue
              newest = -INF;
            }
            const cur = Math.max(Math.floor(now / p.bucketMs), newest);
            const live = view.filter((b) => b.id > cur - p.buckets);
            const used = live.reduce((a, b) => a + b.count, 0);
            const ok = used + r.cost <= p.limit;
            bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
            expect(out.allowed).toBe(ok);
            expect(out.remaining).toBe(p.limit - used - (ok ? r.cost : 0));
            if (ok && r.cost > 0) {
              const tail = live[live.length - 1];
              if (tail !== undefined && tail.id === cur) tail.count += r.cost;
              else live.push({ id: cur, count: r.cost });
              queue = live.map((b) => ({ ...b }));
              expect(buckets(sp, s)).toEqual(queue.map((b) => [b.id, b.count]));
              expect(s[2]).toBe(used + r.cost);
            }
          }
        }),
      );
    });

    it("a denial or a non-committing call leaves the state byte-identical; retrying after retryAfterMs passes", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-100), (p, trace) => {
          const sp = toSpec(p);
          const s = new Float64Array(bucketedWindow.width(sp));
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Float64Array.from(s);
            bucketedWindow.apply(s, 0, now, sp, r.cost, false, out);
            expect(s).toEqual(before);
            const peeked = { ...out };
            bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
            expect(out).toEqual(peeked);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.resetAfterMs).toBeGreaterThanOrEqual(0);
            if (!out.allowed) {
              expect(s).toEqual(before);
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (r.cost > p.limit) expect(out.retryAfterMs).toBe(INF);
              else {
                const retry = out.retryAfterMs;
                expect(Number.isFinite(retry)).toBe(true);
                const probe = Float64Array.from(s);
                bucketedWindow.apply(probe, 0, now + retry, sp, r.cost, false, out);
                expect(out.allowed).toBe(true);
                bucketedWindow.apply(probe, 0, now + retry - 1, sp, r.cost, false, out);
                expect(out.allowed, "retryAfterMs is the earliest whole ms").toBe(false);
              }
            } else if (r.cost === 0) {
              expect(s).toEqual(before);
            }
          }
        }),
      );
    });

    it("retries pass with fractional clocks too", () => {
      fc.assert(
        fc.property(
          arbSpec,
          fc.array(
            fc.record({
              gapMs: fc.double({ min: 0, max: 200, noNaN: true }),
              cost: fc.integer({ min: 1, max: 4 }),
            }),
            { minLength: 1, maxLength: 100 },
          ),
          fc.constantFrom(1000.123456, T0 + 0.75),
          (p, trace, start) => {
            const sp = toSpec(p);
            const s = new Float64Array(bucketedWindow.width(sp));
            const out = createStepOut();
            let now = start;
            for (const r of trace) {
              now += r.gapMs;
              bucketedWindow.apply(s, 0, now, sp, r.cost, true, out);
              if (!out.allowed && Number.isFinite(out.retryAfterMs)) {
                const retry = out.retryAfterMs;
                bucketedWindow.apply(Float64Array.from(s), 0, now + retry, sp, r.cost, false, out);
                expect(out.allowed).toBe(true);
              }
            }
          },
        ),
      );
    });
  });
});

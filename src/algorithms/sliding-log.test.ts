import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, resizeState, step } from "./algorithm.js";
import { slidingLog } from "./sliding-log.js";

const T0 = 1_700_000_000_000;
const INF = Number.POSITIVE_INFINITY;

function spec(limit: number, periodMs: number): LimitSpec {
  return parseLimitSpec({ algorithm: "sliding_log", limit, periodMs });
}

/** Replays `(atMs, cost) → expected` steps, starting fresh unless a state is given; returns the last state. */
function replay(
  sp: LimitSpec,
  steps: { at: number; cost?: number; expect: Partial<ReturnType<typeof step>["decision"]> }[],
  start?: Float64Array,
): Float64Array {
  let state = start ?? new Float64Array(slidingLog.width(sp));
  for (const [i, s] of steps.entries()) {
    const r = step(slidingLog, state, s.at, sp, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
  return state;
}

/** The live entries, oldest first, as [tsMs, cost] pairs. */
function entries(sp: LimitSpec, s: Float64Array): [number, number][] {
  const out: [number, number][] = [];
  for (let k = 0; k < s[1]; k++) {
    const i = (s[0] + k) % sp.limit;
    out.push([s[3 + 2 * i], s[4 + 2 * i]]);
  }
  return out;
}

describe("sliding_log", () => {
  const sp = spec(3, 1000);

  it("has width 3 + 2·limit", () => {
    expect(slidingLog.width(sp)).toBe(9);
    expect(slidingLog.width(spec(100_000, 1000))).toBe(200_003);
  });

  it("admits exactly limit per window and reports when the oldest entry leaves", () => {
    replay(sp, [
      { at: T0, expect: { allowed: true, remaining: 2, resetAfterMs: 1000, retryAfterMs: 0 } },
      { at: T0 + 100, expect: { allowed: true, remaining: 1, resetAfterMs: 1000 } },
      { at: T0 + 200, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
      { at: T0 + 300, expect: { allowed: false, remaining: 0, retryAfterMs: 700, resetAfterMs: 900 } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1, resetAfterMs: 201 } },
      { at: T0 + 1000, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
      // cost 2 needs the two oldest (+100, +200) gone: the second leaves at +1200
      { at: T0 + 1000, cost: 2, expect: { allowed: false, remaining: 0, retryAfterMs: 200 } },
      { at: T0 + 1199, cost: 2, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1200, cost: 2, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
  });

  it("uses the half-open window (now − P, now]", () => {
    const one = spec(1, 1000);
    replay(one, [
      { at: T0, expect: { allowed: true } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1000, expect: { allowed: true } },
    ]);
  });

  it("denies a cost above the limit forever, and says so", () => {
    replay(sp, [
      { at: T0, cost: 4, expect: { allowed: false, retryAfterMs: INF, remaining: 3, resetAfterMs: 0 } },
      { at: T0, expect: { allowed: true, remaining: 2 } },
      {
        at: T0 + 10,
        cost: 4,
        expect: { allowed: false, retryAfterMs: INF, remaining: 2, resetAfterMs: 990 },
      },
    ]);
  });

  it("admits a whole burst at zero elapsed time", () => {
    replay(sp, [
      { at: T0, expect: { allowed: true, remaining: 2 } },
      { at: T0, expect: { allowed: true, remaining: 1 } },
      { at: T0, expect: { allowed: true, remaining: 0 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 1000, resetAfterMs: 1000 } },
    ]);
  });

  it("treats a clock going backwards as no time passing", () => {
    const state = replay(sp, [
      { at: T0, expect: { allowed: true } },
      // recorded at T0 (the newest entry), not at T0 − 500; durations are measured from the caller's now
      { at: T0 - 500, expect: { allowed: true, remaining: 1, resetAfterMs: 1500 } },
      { at: T0 - 5000, expect: { allowed: true, remaining: 0 } },
      { at: T0 - 5000, expect: { allowed: false, retryAfterMs: 6000, resetAfterMs: 6000 } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1 } },
    ]);
    expect(entries(sp, state)).toEqual([
      [T0, 1],
      [T0, 1],
      [T0, 1],
    ]);
    replay(sp, [{ at: T0 + 1000, cost: 3, expect: { allowed: true } }], state);
  });

  it("forgets everything after a very long gap", () => {
    const state = replay(sp, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 1e12, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
    expect(entries(sp, state)).toEqual([[T0 + 1e12, 3]]);
    expect(slidingLog.idleAfterMs(state, 0, T0 + 2e12, sp)).toBe(0);
  });

  it("peeks with cost 0 without writing, even when committing", () => {
    const state = replay(sp, [{ at: T0, cost: 2, expect: { allowed: true } }]);
    const before = Float64Array.from(state);
    const out = createStepOut();
    slidingLog.apply(state, 0, T0 + 1500, sp, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 0, retryAfterMs: 0 });
    slidingLog.apply(state, 0, T0 + 500, sp, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 500 });
    expect(state).toEqual(before);
  });

  it("decides without writing when commit is false", () => {
    const state = new Float64Array(slidingLog.width(sp));
    const out = createStepOut();
    slidingLog.apply(state, 0, T0, sp, 2, false, out);
    expect(out).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 1000, leaseId: 0 });
    expect(state.every((v) => v === 0)).toBe(true);
  });

  it("works at an offset inside a larger array without touching its neighbours", () => {
    const w = slidingLog.width(sp);
    const arr = new Float64Array(3 * w).fill(7);
    arr.fill(0, w, 2 * w);
    const out = createStepOut();
    for (let k = 0; k < 20; k++) slidingLog.apply(arr, w, T0 + k * 400, sp, 1, true, out);
    expect(arr.subarray(0, w).every((v) => v === 7)).toBe(true);
    expect(arr.subarray(2 * w).every((v) => v === 7)).toBe(true);
  });

  it("wraps its ring around many times", () => {
    const four = spec(4, 100);
    const state = new Float64Array(slidingLog.width(four));
    const out = createStepOut();
    for (let k = 0; k < 2_500; k++) {
      const now = T0 + 25 * k;
      slidingLog.apply(state, 0, now, four, 1, true, out);
      expect(out.allowed).toBe(true);
      expect(out.remaining).toBe(k < 3 ? 3 - k : 0);
      if (k >= 3) {
        const before = Float64Array.from(state);
        slidingLog.apply(state, 0, now, four, 1, true, out);
        expect(out).toMatchObject({ allowed: false, retryAfterMs: 25, resetAfterMs: 100 });
        expect(state).toEqual(before);
      }
    }
    expect(entries(four, state).map(([ts]) => ts - T0)).toEqual([62_400, 62_425, 62_450, 62_475]);
  });

  it("refunds from the newest entries", () => {
    let state = replay(sp, [
      { at: T0, cost: 2, expect: { allowed: true } },
      { at: T0 + 10, expect: { allowed: true, remaining: 0 } },
    ]);
    slidingLog.refund(state, 0, T0 + 20, sp, 2);
    expect(entries(sp, state)).toEqual([[T0, 1]]);
    expect(state[2]).toBe(1);
    state = replay(sp, [{ at: T0 + 20, cost: 0, expect: { remaining: 2, resetAfterMs: 980 } }], state);
    slidingLog.refund(state, 0, T0 + 20, sp, 100);
    expect(Array.from(state)).toEqual(new Array(9).fill(0));
    slidingLog.refund(state, 0, T0 + 20, sp, 1);
    expect(Array.from(state)).toEqual(new Array(9).fill(0));
  });

  it("reports idle time until the newest entry leaves", () => {
    const state = replay(sp, [
      { at: T0, expect: { allowed: true } },
      { at: T0 + 300, expect: { allowed: true } },
    ]);
    expect(slidingLog.idleAfterMs(state, 0, T0 + 300, sp)).toBe(1000);
    expect(slidingLog.idleAfterMs(state, 0, T0 + 1299.5, sp)).toBe(0.5);
    expect(slidingLog.idleAfterMs(state, 0, T0 + 1300, sp)).toBe(0);
    expect(slidingLog.idleAfterMs(new Float64Array(9), 0, T0, sp)).toBe(0);
  });

  it("keeps counting under a changed limit instead of resetting", () => {
    const five = spec(5, 1000);
    const state = replay(five, [{ at: T0, cost: 5, expect: { allowed: true } }]);
    // lowered: the store hands over the block cut to the new width; the count is kept
    replay(
      sp,
      [
        { at: T0 + 10, expect: { allowed: false, remaining: 0, retryAfterMs: 990 } },
        { at: T0 + 1000, cost: 3, expect: { allowed: true, remaining: 0 } },
      ],
      state,
    );
    // raised: the block grows with zeros; the count is kept and the new room is usable
    const ten = spec(10, 1000);
    replay(
      ten,
      [
        { at: T0 + 10, cost: 5, expect: { allowed: true, remaining: 0 } },
        { at: T0 + 10, expect: { allowed: false, retryAfterMs: 990 } },
        { at: T0 + 1000, cost: 5, expect: { allowed: true, remaining: 0 } },
      ],
      state,
    );
  });

  it("keeps a wrapped ring in order under a raised limit: the newest entry still counts", () => {
    // limit 3: 0, 100, 200, then 1000 (0 has left) goes into the first cell: head 1, the newest entry in cell 0
    const state = replay(
      sp,
      [0, 100, 200, 1000].map((t) => ({ at: T0 + t, expect: { allowed: true } })),
    );
    const ten = spec(10, 1000);
    const raised = step(slidingLog, state, T0 + 1050, ten, 0);
    expect(raised.decision).toMatchObject({ allowed: true, remaining: 7, resetAfterMs: 950 });
    expect(entries(ten, raised.state).map(([ts]) => ts - T0)).toEqual([100, 200, 1000]);
    expect(slidingLog.idleAfterMs(raised.state, 0, T0 + 1050, ten)).toBe(950);
    // 100 and 200 have left at 1250; 1000 still counts: 9 more, not 10
    replay(
      ten,
      [
        { at: T0 + 1250, cost: 9, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
        { at: T0 + 1250, expect: { allowed: false, retryAfterMs: 750 } },
      ],
      raised.state,
    );
  });

  it("keeps the newest entries of a wrapped ring under a lowered limit, the older ones folded into the oldest kept", () => {
    const five = spec(5, 1000);
    // 0 … 400, then 1000 and 1100 (0 and 100 have left): the ring holds 200, 300, 400, 1000, 1100, head 2
    const state = replay(
      five,
      [0, 100, 200, 300, 400, 1000, 1100].map((t) => ({ at: T0 + t, expect: { allowed: true } })),
    );
    const three = spec(3, 1000);
    const lowered = new Float64Array(slidingLog.width(three));
    resizeState(slidingLog, state, state.length, lowered, 0, three);
    expect(entries(three, lowered).map(([ts, c]) => [ts - T0, c])).toEqual([
      [400, 3],
      [1000, 1],
      [1100, 1],
    ]);
    expect(lowered[2]).toBe(5);
    // three must leave for one more: the third oldest, 400, at 1400
    replay(
      three,
      [
        { at: T0 + 1150, expect: { allowed: false, remaining: 0, retryAfterMs: 250, resetAfterMs: 950 } },
        { at: T0 + 1400, expect: { allowed: true, remaining: 0 } },
      ],
      lowered,
    );
    // raised again at once, the folded entries still count: five in the window
    expect(step(slidingLog, lowered, T0 + 1160, five, 0).decision).toMatchObject({ remaining: 0 });
    // an entry already gone by the newest one's time under the new spec is not folded in: here 500, with the
    // period shortened to 500 ms along with the limit (the ring holds 500, 1200 and 1300; 0 left at 1200)
    const one = spec(1, 500);
    const cut = new Float64Array(slidingLog.width(one));
    resizeState(
      slidingLog,
      replay(
        five,
        [0, 500, 1200, 1300].map((t) => ({ at: T0 + t, expect: { allowed: true } })),
      ),
      slidingLog.width(five),
      cut,
      0,
      one,
    );
    expect(entries(one, cut).map(([ts, c]) => [ts - T0, c])).toEqual([[1300, 2]]); // 1200 and 1300
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 12 }),
      periodMs: fc.integer({ min: 1, max: 2000 }),
    });
    /** Steps that may reconfigure the limit first (same period): a ring of another capacity, handed over as a store does. */
    const arbChanging = (minGap: number, limit: fc.Arbitrary<number>, maxCost: number) =>
      fc.array(
        fc.record({
          gapMs: fc.oneof(fc.integer({ min: minGap, max: 300 }), fc.constant(0)),
          cost: fc.integer({ min: 0, max: maxCost }),
          limit: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: limit }),
        }),
        { minLength: 1, maxLength: 200, size: "large" }, // long enough for rings to wrap between changes
      );
    /** `s` laid out for `next` as a store hands it over when the limit changed. */
    const handOver = (s: Float64Array<ArrayBuffer>, next: LimitSpec): Float64Array<ArrayBuffer> => {
      if (slidingLog.width(next) === s.length) return s;
      const to = new Float64Array(slidingLog.width(next));
      resizeState(slidingLog, s, s.length, to, 0, next);
      return to;
    };

    it("re-lays a ring held as a prefix (at least its extent) as the whole block, within the prefix's length", () => {
      // A store holding large states by `extent` (the memory store) hands resize a prefix of the old block and a new
      // block only as long as that prefix (or the new width): the result must be the whole block's, zeros past it.
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 1, max: 2000 }),
          fc.array(
            fc.record({ gapMs: fc.integer({ min: 0, max: 300 }), cost: fc.integer({ min: 0, max: 3 }) }),
            {
              maxLength: 120,
            },
          ),
          fc.double({ min: 0, max: 1, noNaN: true }),
          (limit, nextLimit, periodMs, trace, cut) => {
            const was = spec(limit, periodMs);
            const next = spec(nextLimit, periodMs);
            const s = new Float64Array(slidingLog.width(was));
            const out = createStepOut();
            let now = T0;
            for (const r of trace) {
              now += r.gapMs;
              slidingLog.apply(s, 0, now, was, r.cost, true, out);
            }
            const extent = slidingLog.extent?.(s, 0, was) ?? s.length;
            for (let i = extent; i < s.length; i++) s[i] = 0; // as a store holding the prefix sees the state
            const held = s.slice(0, extent + Math.floor(cut * (s.length - extent)));
            const whole = new Float64Array(slidingLog.width(next));
            resizeState(slidingLog, s, s.length, whole, 0, next);
            const to = new Float64Array(Math.min(whole.length, held.length)).fill(Number.NaN);
            resizeState(slidingLog, held, s.length, to, 0, next);
            const padded = new Float64Array(whole.length);
            padded.set(to);
            expect(padded).toEqual(whole);
          },
        ),
      );
    });

    it("never admits more than the current limit within one window, after any sequence of limit changes", () => {
      fc.assert(
        fc.property(arbSpec, arbChanging(-300, fc.integer({ min: 1, max: 12 }), 6), (p, trace) => {
          let sp = spec(p.limit, p.periodMs);
          let s = new Float64Array(slidingLog.width(sp));
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          let latest = -INF; // the kernel records an admission at max(now, the newest entry): never earlier
          for (const r of trace) {
            now += r.gapMs;
            if (r.limit !== null) {
              sp = spec(r.limit, p.periodMs);
              s = handOver(s, sp);
            }
            slidingLog.apply(s, 0, now, sp, r.cost, true, out);
            if (out.allowed && r.cost > 0) {
              latest = Math.max(latest, now);
              admitted.push({ at: latest, cost: r.cost });
              let inWindow = 0;
              for (const a of admitted) if (a.at > latest - p.periodMs) inWindow += a.cost;
              expect(inWindow).toBeLessThanOrEqual(sp.limit);
            }
          }
        }),
      );
    });

    it("under raised limits, agrees with a naive log step by step (a wrapped ring is re-laid in order)", () => {
      fc.assert(
        // Small limits, costs and raises, so that rings fill and wrap between raises.
        fc.property(arbSpec, arbChanging(-100, fc.integer({ min: 1, max: 3 }), 3), (p, trace) => {
          let limit = Math.ceil(p.limit / 2);
          let sp = spec(limit, p.periodMs);
          let s = new Float64Array(slidingLog.width(sp));
          const out = createStepOut();
          let log: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            if (r.limit !== null) {
              limit = Math.min(limit + r.limit, 40);
              sp = spec(limit, p.periodMs);
              s = handOver(s, sp);
            }
            const eff = log.length > 0 ? Math.max(now, log[log.length - 1].at) : now;
            const live = log.filter((e) => e.at > eff - p.periodMs);
            const used = live.reduce((a, e) => a + e.cost, 0);
            const ok = used + r.cost <= limit;
            slidingLog.apply(s, 0, now, sp, r.cost, true, out);
            expect(out.allowed).toBe(ok);
            expect(out.remaining).toBe(limit - used - (ok ? r.cost : 0));
            const newest = ok && r.cost > 0 ? eff : live[live.length - 1]?.at;
            expect(out.resetAfterMs).toBe(newest === undefined ? 0 : newest + p.periodMs - now);
            if (!ok && r.cost <= limit) {
              let freed = 0;
              const leaves = live.find((e) => {
                freed += e.cost;
                return used - freed + r.cost <= limit;
              });
              expect(out.retryAfterMs).toBe((leaves as { at: number }).at + p.periodMs - now);
            }
            if (ok && r.cost > 0) log = [...live, { at: eff, cost: r.cost }];
            expect(slidingLog.idleAfterMs(s, 0, now, sp)).toBe(
              log.length > 0 ? Math.max(0, log[log.length - 1].at + p.periodMs - now) : 0,
            );
          }
        }),
      );
    });

    const arbTrace = (minGap: number) =>
      fc.array(
        fc.record({
          gapMs: fc.oneof(fc.integer({ min: minGap, max: 300 }), fc.constant(0)),
          cost: fc.integer({ min: 0, max: 6 }),
        }),
        { minLength: 1, maxLength: 200 },
      );

    it("never admits more than limit within any half-open window (t − P, t]", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const sp = spec(p.limit, p.periodMs);
          const s = new Float64Array(slidingLog.width(sp));
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            slidingLog.apply(s, 0, now, sp, r.cost, true, out);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          for (const end of admitted) {
            let sum = 0;
            for (const a of admitted) if (a.at > end.at - p.periodMs && a.at <= end.at) sum += a.cost;
            expect(sum).toBeLessThanOrEqual(p.limit);
          }
        }),
      );
    });

    it("agrees with a naive log step by step, including a clock that goes backwards", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-400), (p, trace) => {
          const sp = spec(p.limit, p.periodMs);
          const s = new Float64Array(slidingLog.width(sp));
          const out = createStepOut();
          let log: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const eff = log.length > 0 ? Math.max(now, log[log.length - 1].at) : now;
            // the model, like the kernel, only forgets entries when it writes
            const live = log.filter((e) => e.at > eff - p.periodMs);
            const used = live.reduce((a, e) => a + e.cost, 0);
            const ok = used + r.cost <= p.limit;
            slidingLog.apply(s, 0, now, sp, r.cost, true, out);
            expect(out.allowed).toBe(ok);
            expect(out.remaining).toBe(p.limit - used - (ok ? r.cost : 0));
            if (ok && r.cost > 0) log = [...live, { at: eff, cost: r.cost }];
            if (out.allowed && r.cost > 0) expect(s[2]).toBe(log.reduce((a, e) => a + e.cost, 0));
          }
        }),
      );
    });

    it("a denial or a non-committing call leaves the state byte-identical; retrying after retryAfterMs passes", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-100), (p, trace) => {
          const sp = spec(p.limit, p.periodMs);
          const s = new Float64Array(slidingLog.width(sp));
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Float64Array.from(s);
            slidingLog.apply(s, 0, now, sp, r.cost, false, out);
            expect(s).toEqual(before);
            const peeked = { ...out };
            slidingLog.apply(s, 0, now, sp, r.cost, true, out);
            expect(out).toEqual(peeked);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.resetAfterMs).toBeGreaterThanOrEqual(0);
            if (!out.allowed) {
              expect(s).toEqual(before);
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (r.cost > p.limit) expect(out.retryAfterMs).toBe(INF);
              else {
                expect(Number.isFinite(out.retryAfterMs)).toBe(true);
                const probe = Float64Array.from(s);
                const retry = out.retryAfterMs;
                slidingLog.apply(probe, 0, now + retry, sp, r.cost, false, out);
                expect(out.allowed).toBe(true);
                slidingLog.apply(probe, 0, now + retry - 1, sp, r.cost, false, out);
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
              gapMs: fc.double({ min: 0, max: 300, noNaN: true }),
              cost: fc.integer({ min: 1, max: 4 }),
            }),
            {
              minLength: 1,
              maxLength: 100,
            },
          ),
          (p, trace) => {
            const sp = spec(p.limit, p.periodMs);
            const s = new Float64Array(slidingLog.width(sp));
            const out = createStepOut();
            let now = 1000.123456;
            for (const r of trace) {
              now += r.gapMs;
              slidingLog.apply(s, 0, now, sp, r.cost, true, out);
              if (!out.allowed && Number.isFinite(out.retryAfterMs)) {
                const retry = out.retryAfterMs;
                slidingLog.apply(Float64Array.from(s), 0, now + retry, sp, r.cost, false, out);
                expect(out.allowed).toBe(true);
              }
            }
          },
        ),
      );
    });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, type StepResult, step } from "./algorithm.js";
import { slidingWindow } from "./sliding-window.js";

const T0 = 1_700_000_000_000; // a multiple of every period used here: a window starts at T0
const W0 = T0 / 1000;

/** Replays `(atMs, cost) → expected` steps from `initial` (fresh by default); returns the final state. */
function replay(
  spec: LimitSpec,
  steps: { at: number; cost?: number; expect: Partial<StepResult["decision"]> }[],
  initial?: ArrayLike<number>,
): Float64Array | undefined {
  let state: Float64Array | undefined = initial === undefined ? undefined : Float64Array.from(initial);
  for (const [i, s] of steps.entries()) {
    const r = step(slidingWindow, state, s.at, spec, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
  return state;
}

const windowSpec = (limit: number, periodMs: number): LimitSpec =>
  parseLimitSpec({ algorithm: "sliding_window", limit, periodMs });

describe("sliding_window", () => {
  const spec = windowSpec(10, 1000);

  it("is three floats wide and fresh when all zeros", () => {
    expect(slidingWindow.id).toBe("sliding_window");
    expect(slidingWindow.width(spec)).toBe(3);
    expect(step(slidingWindow, [0, 0, 0], T0 + 300, spec, 0).decision).toMatchObject({
      allowed: true,
      remaining: 10,
      resetAfterMs: 0,
    });
  });

  it("weighs the previous window by its overlap and retries at the exact time", () => {
    const state = replay(spec, [
      { at: T0 + 500, cost: 4, expect: { allowed: true, remaining: 6, resetAfterMs: 1500 } },
      { at: T0 + 900, cost: 6, expect: { allowed: true, remaining: 0, resetAfterMs: 1100 } },
      // curr = 10: only the next window helps, once 10·(1 − f) + 1 ≤ 10, i.e. f ≥ 0.1 (seed 002 says 50 ms).
      { at: T0 + 950, expect: { allowed: false, remaining: 0, retryAfterMs: 150, resetAfterMs: 1050 } },
      { at: T0 + 1000, expect: { allowed: false, retryAfterMs: 100, resetAfterMs: 1000 } },
      { at: T0 + 1100, expect: { allowed: true, remaining: 0, resetAfterMs: 1900 } },
      { at: T0 + 1200, expect: { allowed: true, remaining: 0 } }, // 10·0.8 + 1 + 1
      // 10·0.75 + 2 = 9.5: seed 002 admits (9.5 < 10) and ends at 10.5; here 9.5 + 1 > 10, wait until f = 0.3.
      { at: T0 + 1250, expect: { allowed: false, remaining: 0, retryAfterMs: 50 } },
      { at: T0 + 1300, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 1e12, expect: { allowed: true, remaining: 9, resetAfterMs: 2000 } },
    ]);
    expect(Array.from(state ?? [])).toEqual([0, 1, W0 + 1e9]);
  });

  it("follows seed 002's weighted count: prev·(1 − position) + curr", () => {
    const minute = windowSpec(10, 60_000);
    const m0 = Math.ceil(T0 / 60_000);
    const start = m0 * 60_000;
    // 8 in the previous minute, 3 so far; 15 s in: 8·0.75 + 3 = 9, so one more fits (seed: remaining 10 − 9 − 1).
    replay(
      minute,
      [
        { at: start + 15_000, expect: { allowed: true, remaining: 0, resetAfterMs: 105_000 } },
        { at: start + 15_000, expect: { allowed: false, retryAfterMs: 7500 } }, // until 8·(1 − f) ≤ 10 − 4 − 1
        { at: start + 22_500, expect: { allowed: true, remaining: 0 } },
        { at: start + 22_500, cost: 0, expect: { allowed: true, remaining: 0, resetAfterMs: 97_500 } },
      ],
      [8, 3, m0],
    );
  });

  it("reports a reset through the previous window when the current one is empty", () => {
    const r = step(slidingWindow, [7, 0, W0 + 1], T0 + 1400, spec, 0); // 7·0.6 = 4.2
    expect(r.decision).toMatchObject({ allowed: true, remaining: 5, resetAfterMs: 600 });
    expect(step(slidingWindow, [7, 0, W0 + 1], T0 + 2000, spec, 0).decision).toMatchObject({
      allowed: true,
      remaining: 10,
      resetAfterMs: 0,
    });
  });

  it("denies a cost above the limit forever, and writes nothing", () => {
    const before = Float64Array.from([4, 2, W0]);
    const r = step(slidingWindow, before, T0 + 500, spec, 11);
    expect(r.decision).toMatchObject({
      allowed: false,
      retryAfterMs: Number.POSITIVE_INFINITY,
      remaining: 6,
      resetAfterMs: 1500,
    });
    expect(Array.from(r.state)).toEqual(Array.from(before));
  });

  it("treats a clock going backwards as the stored window's start", () => {
    const state = replay(spec, [
      { at: T0 + 100, cost: 10, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 1500, cost: 5, expect: { allowed: true, remaining: 0, resetAfterMs: 1500 } },
      // Back in the previous window: the stored window stays, weighted as at its start (10 + 5).
      { at: T0 + 900, expect: { allowed: false, remaining: 0, retryAfterMs: 700, resetAfterMs: 2100 } },
      { at: T0 + 1599, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1600, expect: { allowed: true, remaining: 0 } },
      // A peek from behind sees 10 + 6 > 10: over the limit until T0 + 1600.
      {
        at: T0 + 800,
        cost: 0,
        expect: { allowed: false, remaining: 0, retryAfterMs: 800, resetAfterMs: 2200 },
      },
    ]);
    expect(Array.from(state ?? [])).toEqual([10, 6, W0 + 1]);
  });

  it("reads a window id of a shorter period (the period lengthened, same state) as fresh", () => {
    const perSecond = windowSpec(2, 1000);
    const perMinute = windowSpec(5, 60_000); // T0 is 20 s into a minute: its window ends at T0 + 40 s
    const m = Math.floor(T0 / 60_000);
    const used =
      replay(perSecond, [
        { at: T0 + 100, cost: 2, expect: { allowed: true, remaining: 0 } },
        { at: T0 + 200, expect: { allowed: false, retryAfterMs: 1300 } }, // 2·(1 − f) + 1 ≤ 2 at f = 0.5
      ]) ?? new Float64Array(3);
    // The per-second id read as minutes lies ~1.6e9 minutes ahead: not a clock gone back, so no counts and idle.
    expect(slidingWindow.idleAfterMs(used, 0, T0 + 200, perMinute)).toBe(0);
    const r = step(slidingWindow, used, T0 + 200, perMinute, 1);
    expect(r.decision).toEqual({
      allowed: true,
      remaining: 4,
      retryAfterMs: 0,
      resetAfterMs: 99_800,
      leaseId: 0,
    });
    expect(Array.from(r.state)).toEqual([0, 1, m]);
    // A refund on such a state leaves it fresh at the current window.
    const refunded = Float64Array.from(used);
    slidingWindow.refund(refunded, 0, T0 + 200, perMinute, 1);
    expect(Array.from(refunded)).toEqual([0, 0, m]);
    // Shortened back to a second: the per-minute id read as seconds is long past, both counts dropped.
    expect(step(slidingWindow, r.state, T0 + 300, perSecond, 1).decision).toMatchObject({
      allowed: true,
      remaining: 1,
      resetAfterMs: 1700,
    });
  });

  it("keeps the stored window for a clock one window edge behind, not two", () => {
    const used =
      replay(spec, [{ at: T0 + 2500, cost: 10, expect: { allowed: true, remaining: 0 } }]) ??
      new Float64Array(3);
    // In window W0 + 1: the stored window (one ahead) stays, as at its start: 10 in it, 1 more passes once
    // 10·(1 − f) ≤ 9 in the window after, at T0 + 3100.
    expect(step(slidingWindow, used, T0 + 1001, spec, 1).decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 2099,
      resetAfterMs: 2999,
    });
    expect(slidingWindow.idleAfterMs(used, 0, T0 + 1001, spec)).toBe(2999);
    // In window W0: two ahead is more than a clock gone back within this period's scale: fresh.
    expect(step(slidingWindow, used, T0 + 999, spec, 1).decision).toMatchObject({
      allowed: true,
      remaining: 9,
      resetAfterMs: 1001,
    });
    expect(slidingWindow.idleAfterMs(used, 0, T0 + 999, spec)).toBe(0);
  });

  it("handles fractional rates, zero elapsed time and very long gaps", () => {
    const slow = windowSpec(3, 10_000);
    replay(slow, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 20_000 } },
      // Next window once 3·(1 − f) + 1 ≤ 3: f ≥ 1/3, at T0 + 13 333.33.
      { at: T0 + 1, expect: { allowed: false, retryAfterMs: 13_333 } },
      { at: T0 + 13_333, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 13_334, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 1e12 + 5000, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 15_000 } },
    ]);
  });

  it("works with very large limits", () => {
    const huge = windowSpec(Number.MAX_SAFE_INTEGER, 1000);
    const r = step(slidingWindow, undefined, T0, huge, 2 ** 52);
    expect(r.decision).toMatchObject({ allowed: true, remaining: Number.MAX_SAFE_INTEGER - 2 ** 52 });
    const next = step(slidingWindow, r.state, T0 + 1500, huge, 2 ** 52);
    expect(next.decision).toMatchObject({ allowed: true });
  });

  it("clamps counts to a lowered limit instead of resetting", () => {
    const used = step(slidingWindow, undefined, T0 + 100, spec, 10).state;
    const narrow = windowSpec(4, 1000);
    // 10 clamps to 4: next window once 4·(1 − f) + 1 ≤ 4, f ≥ 0.25.
    replay(
      narrow,
      [
        { at: T0 + 200, expect: { allowed: false, remaining: 0, retryAfterMs: 1050 } },
        { at: T0 + 1250, expect: { allowed: true, remaining: 0 } },
      ],
      used,
    );
  });

  it("decides without writing when commit is false, and peeks with cost 0", () => {
    const s = Float64Array.from([4, 2, W0]);
    const out = createStepOut();
    slidingWindow.apply(s, 0, T0 + 1500, spec, 3, false, out); // rolled: 2·0.5 + 0 + 3
    expect(out).toMatchObject({ allowed: true, remaining: 6, resetAfterMs: 1500 });
    slidingWindow.apply(s, 0, T0 + 1500, spec, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 9, resetAfterMs: 500 });
    expect(Array.from(s)).toEqual([4, 2, W0]);
    slidingWindow.apply(s, 0, T0 + 1500, spec, 3, true, out);
    expect(Array.from(s)).toEqual([2, 3, W0 + 1]);
  });

  it("refunds from the current window only, never below zero", () => {
    const s = Float64Array.from([4, 2, W0]);
    slidingWindow.refund(s, 0, T0 + 500, spec, 1);
    expect(Array.from(s)).toEqual([4, 1, W0]);
    slidingWindow.refund(s, 0, T0 + 500, spec, 5);
    expect(Array.from(s)).toEqual([4, 0, W0]);
    const t = Float64Array.from([4, 2, W0]);
    slidingWindow.refund(t, 0, T0 + 1500, spec, 5); // rolled: 2 moved to the previous window
    expect(Array.from(t)).toEqual([2, 0, W0 + 1]);
  });

  it("reports when the state is back to fresh", () => {
    const s = Float64Array.from([4, 2, W0]);
    expect(slidingWindow.idleAfterMs(s, 0, T0 + 250, spec)).toBe(1750);
    expect(slidingWindow.idleAfterMs(s, 0, T0 + 1250, spec)).toBe(750);
    expect(slidingWindow.idleAfterMs(s, 0, T0 - 250, spec)).toBe(2250);
    expect(slidingWindow.idleAfterMs(s, 0, T0 + 2000, spec)).toBe(0);
    expect(slidingWindow.idleAfterMs(Float64Array.from([4, 0, W0]), 0, T0 + 250, spec)).toBe(750);
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 20 }),
      periodMs: fc.integer({ min: 1, max: 5_000 }),
    });
    const arbTrace = (minGap: number) =>
      fc.array(
        fc.record({ gapMs: fc.integer({ min: minGap, max: 1000 }), cost: fc.integer({ min: 0, max: 6 }) }),
        { minLength: 1, maxLength: 200 },
      );

    it("admits at most limit within a calendar window and 2·limit within any span shorter than the period", () => {
      fc.assert(
        fc.property(arbSpec, fc.integer({ min: 0, max: 10_000 }), arbTrace(0), (p, start, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = new Float64Array(3);
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0 + start;
          for (const r of trace) {
            now += r.gapMs;
            slidingWindow.apply(s, 0, now, spec, r.cost, true, out);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          const perWindow = new Map<number, number>();
          for (const a of admitted) {
            const w = Math.floor(a.at / spec.periodMs);
            perWindow.set(w, (perWindow.get(w) ?? 0) + a.cost);
          }
          for (const n of perWindow.values()) expect(n).toBeLessThanOrEqual(spec.limit);
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length && admitted[j].at - admitted[i].at < spec.periodMs; j++) {
              sum += admitted[j].cost;
            }
            expect(sum).toBeLessThanOrEqual(2 * spec.limit);
          }
        }),
      );
    });

    it("never lets the weighted estimate exceed the limit after an admission", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = new Float64Array(3);
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            slidingWindow.apply(s, 0, now, spec, r.cost, true, out);
            const f = (now - s[2] * spec.periodMs) / spec.periodMs;
            if (out.allowed) expect(s[0] * (1 - f) + s[1]).toBeLessThanOrEqual(spec.limit + 1e-6);
          }
        }),
      );
    });

    it("a denial, a peek or commit=false leaves the state byte-identical; remaining ≥ 0; retryAfterMs suffices", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-1500), (p, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = Float64Array.from([0.5, 0, 0, 0, 0.25]);
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Array.from(s);
            slidingWindow.apply(s, 1, now, spec, r.cost, false, out);
            expect(Array.from(s)).toEqual(before);
            slidingWindow.apply(s, 1, now, spec, r.cost, true, out);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.remaining).toBeLessThanOrEqual(spec.limit);
            if (!out.allowed || r.cost === 0) expect(Array.from(s)).toEqual(before);
            if (!out.allowed) {
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (Number.isFinite(out.retryAfterMs)) {
                const probe = Float64Array.from(s);
                slidingWindow.apply(probe, 1, now + out.retryAfterMs, spec, r.cost, false, out);
                expect(out.allowed).toBe(true);
              } else {
                expect(r.cost).toBeGreaterThan(spec.limit);
              }
            }
          }
          expect([s[0], s[4]]).toEqual([0.5, 0.25]);
        }),
      );
    });

    it("retryAfterMs is the earliest whole millisecond that passes", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = new Float64Array(3);
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            slidingWindow.apply(s, 0, now, spec, r.cost, true, out);
            if (!out.allowed && Number.isFinite(out.retryAfterMs) && out.retryAfterMs > 1) {
              slidingWindow.apply(
                Float64Array.from(s),
                0,
                now + out.retryAfterMs - 1,
                spec,
                r.cost,
                false,
                out,
              );
              expect(out.allowed).toBe(false);
            }
          }
        }),
      );
    });

    it("retryAfterMs suffices for periods and times that are not whole milliseconds", () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 5 }),
          fc.double({ min: 0.5, max: 5000, noNaN: true }),
          fc.array(fc.double({ min: 0, max: 700, noNaN: true }), { minLength: 1, maxLength: 100 }),
          (limit, periodMs, gaps) => {
            const spec = windowSpec(limit, periodMs);
            const s = new Float64Array(3);
            const out = createStepOut();
            let now = T0;
            for (const gap of gaps) {
              now += gap;
              slidingWindow.apply(s, 0, now, spec, 1, true, out);
              if (!out.allowed) {
                expect(out.retryAfterMs).toBeGreaterThan(0);
                slidingWindow.apply(Float64Array.from(s), 0, now + out.retryAfterMs, spec, 1, false, out);
                expect(out.allowed).toBe(true);
              }
            }
          },
        ),
      );
    });
  });
});

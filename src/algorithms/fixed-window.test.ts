import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, type StepResult, step } from "./algorithm.js";
import { fixedWindow } from "./fixed-window.js";

const T0 = 1_700_000_000_000; // a multiple of every period used here: a window starts at T0

/** Replays `(atMs, cost) → expected` steps from `initial` (fresh by default); returns the final state. */
function replay(
  spec: LimitSpec,
  steps: { at: number; cost?: number; expect: Partial<StepResult["decision"]> }[],
  initial?: Float64Array,
): Float64Array | undefined {
  let state = initial;
  for (const [i, s] of steps.entries()) {
    const r = step(fixedWindow, state, s.at, spec, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
  return state;
}

const windowSpec = (limit: number, periodMs: number): LimitSpec =>
  parseLimitSpec({ algorithm: "fixed_window", limit, periodMs });

describe("fixed_window", () => {
  const spec = windowSpec(3, 1000);

  it("is two floats wide and fresh when all zeros", () => {
    expect(fixedWindow.id).toBe("fixed_window");
    expect(fixedWindow.width(spec)).toBe(2);
    expect(step(fixedWindow, [0, 0], T0 + 400, spec, 0).decision).toMatchObject({
      allowed: true,
      remaining: 3,
      resetAfterMs: 0,
    });
  });

  it("follows seed 002: counts per window, retries when the window ends", () => {
    const state = replay(spec, [
      { at: T0 + 100, expect: { allowed: true, remaining: 2, resetAfterMs: 900, retryAfterMs: 0 } },
      { at: T0 + 200, expect: { allowed: true, remaining: 1, resetAfterMs: 800 } },
      { at: T0 + 300, expect: { allowed: true, remaining: 0, resetAfterMs: 700 } },
      { at: T0 + 400, expect: { allowed: false, remaining: 0, retryAfterMs: 600, resetAfterMs: 600 } },
      { at: T0 + 400, cost: 0, expect: { allowed: true, remaining: 0, resetAfterMs: 600 } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1, resetAfterMs: 1 } },
      { at: T0 + 1000, expect: { allowed: true, remaining: 2, resetAfterMs: 1000 } },
      { at: T0 + 1500, cost: 2, expect: { allowed: true, remaining: 0, resetAfterMs: 500 } },
    ]);
    expect(Array.from(state ?? [])).toEqual([3, T0 / 1000 + 1]);
  });

  it("admits 2·limit across a window boundary (the seed's boundary burst)", () => {
    replay(spec, [
      { at: T0 + 999, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 1 } },
      { at: T0 + 999, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1000, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
  });

  it("denies a cost above the limit forever, and writes nothing", () => {
    const before = step(fixedWindow, undefined, T0, spec, 1).state;
    const r = step(fixedWindow, before, T0 + 10, spec, 4);
    expect(r.decision).toMatchObject({
      allowed: false,
      retryAfterMs: Number.POSITIVE_INFINITY,
      remaining: 2,
      resetAfterMs: 990,
    });
    expect(Array.from(r.state)).toEqual(Array.from(before));
  });

  it("treats a clock going backwards as staying in the stored window", () => {
    const state = replay(spec, [
      { at: T0 + 1500, cost: 2, expect: { allowed: true, remaining: 1 } },
      { at: T0 + 500, expect: { allowed: true, remaining: 0, resetAfterMs: 1500 } },
      { at: T0 + 500, expect: { allowed: false, retryAfterMs: 1500 } },
      { at: T0 + 2000, expect: { allowed: true, remaining: 2 } },
    ]);
    expect(state?.[1]).toBe(T0 / 1000 + 2);
  });

  it("reads a window id of a shorter period (the period lengthened, same state) as fresh", () => {
    const perSecond = windowSpec(2, 1000);
    const perMinute = windowSpec(5, 60_000); // T0 is 20 s into a minute: its window ends at T0 + 40 s
    const used =
      replay(perSecond, [
        { at: T0 + 100, cost: 2, expect: { allowed: true, remaining: 0 } },
        { at: T0 + 200, expect: { allowed: false, retryAfterMs: 800 } },
      ]) ?? new Float64Array(2);
    // The per-second id read as minutes lies ~1.6e9 minutes ahead: not a clock gone back, so no count and idle.
    expect(fixedWindow.idleAfterMs(used, 0, T0 + 200, perMinute)).toBe(0);
    const r = step(fixedWindow, used, T0 + 200, perMinute, 1);
    expect(r.decision).toEqual({
      allowed: true,
      remaining: 4,
      retryAfterMs: 0,
      resetAfterMs: 39_800,
      leaseId: 0,
    });
    expect(Array.from(r.state)).toEqual([1, Math.floor((T0 + 200) / 60_000)]);
    expect(fixedWindow.idleAfterMs(r.state, 0, T0 + 200, perMinute)).toBe(39_800);
    // A refund on such a state leaves it fresh at the current window.
    const refunded = Float64Array.from(used);
    fixedWindow.refund(refunded, 0, T0 + 200, perMinute, 1);
    expect(Array.from(refunded)).toEqual([0, Math.floor((T0 + 200) / 60_000)]);
    // Shortened back to a second: the per-minute id read as seconds is long past, the count dropped.
    expect(step(fixedWindow, r.state, T0 + 300, perSecond, 1).decision).toMatchObject({
      allowed: true,
      remaining: 1,
      resetAfterMs: 700,
    });
  });

  it("keeps the stored window for a clock one window edge behind, not two", () => {
    // Counted in window 2 (of T0 / 1000 + 0, 1, 2 ...).
    const used =
      replay(spec, [{ at: T0 + 2500, cost: 3, expect: { allowed: true, remaining: 0 } }]) ??
      new Float64Array(2);
    // In window 1: the stored window (one ahead) stays in effect, until its end at T0 + 3000.
    expect(step(fixedWindow, used, T0 + 1001, spec, 1).decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 1999,
      resetAfterMs: 1999,
    });
    expect(fixedWindow.idleAfterMs(used, 0, T0 + 1001, spec)).toBe(1999);
    // In window 0: two ahead is more than a clock gone back within this period's scale: fresh.
    expect(step(fixedWindow, used, T0 + 999, spec, 1).decision).toMatchObject({
      allowed: true,
      remaining: 2,
      resetAfterMs: 1,
    });
    expect(fixedWindow.idleAfterMs(used, 0, T0 + 999, spec)).toBe(0);
  });

  it("handles fractional rates, zero elapsed time and very long gaps", () => {
    const slow = windowSpec(3, 10_000);
    replay(slow, [
      { at: T0 + 2500, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 7500 } },
      { at: T0 + 2500, expect: { allowed: false, retryAfterMs: 7500 } },
      { at: T0 + 10_000, expect: { allowed: true, remaining: 2 } },
      { at: T0 + 1e12 + 1, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 9999 } },
    ]);
    // A period that is not a whole number of ms: windows of 1000/3 ms.
    const third = windowSpec(1, 1000 / 3);
    replay(third, [
      { at: T0, expect: { allowed: true, resetAfterMs: 334 } },
      { at: T0 + 333, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 334, expect: { allowed: true, resetAfterMs: 333 } },
    ]);
  });

  it("works with very large limits", () => {
    const huge = windowSpec(Number.MAX_SAFE_INTEGER, 1000);
    const r = step(fixedWindow, undefined, T0, huge, Number.MAX_SAFE_INTEGER - 1);
    expect(r.decision).toMatchObject({ allowed: true, remaining: 1 });
    expect(step(fixedWindow, r.state, T0, huge, 2).decision).toMatchObject({
      allowed: false,
      retryAfterMs: 1000,
    });
  });

  it("clamps to a lowered limit instead of resetting", () => {
    const wide = windowSpec(5, 1000);
    const used = step(fixedWindow, undefined, T0, wide, 5).state;
    expect(step(fixedWindow, used, T0 + 10, spec, 1).decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 990,
    });
    fixedWindow.refund(used, 0, T0 + 10, spec, 1); // 5 clamped to 3, minus 1
    expect(step(fixedWindow, used, T0 + 10, spec, 1).decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(step(fixedWindow, used, T0 + 1000, spec, 1).decision).toMatchObject({
      allowed: true,
      remaining: 2,
    });
  });

  it("decides without writing when commit is false", () => {
    const s = Float64Array.from([1, T0 / 1000]);
    const out = createStepOut();
    fixedWindow.apply(s, 0, T0 + 100, spec, 2, false, out);
    expect(out).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 900 });
    expect(Array.from(s)).toEqual([1, T0 / 1000]);
    fixedWindow.apply(s, 0, T0 + 1100, spec, 0, true, out); // a peek in the next window
    expect(out).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 0 });
    expect(Array.from(s)).toEqual([1, T0 / 1000]);
  });

  it("refunds within the current window only, never below zero", () => {
    const s = step(fixedWindow, undefined, T0, spec, 3).state;
    fixedWindow.refund(s, 0, T0 + 10, spec, 2);
    expect(Array.from(s)).toEqual([1, T0 / 1000]);
    fixedWindow.refund(s, 0, T0 + 10, spec, 5);
    expect(Array.from(s)).toEqual([0, T0 / 1000]);
    const t = step(fixedWindow, undefined, T0, spec, 3).state;
    fixedWindow.refund(t, 0, T0 + 1000, spec, 2); // the window is over: nothing left to give back
    expect(Array.from(t)).toEqual([0, T0 / 1000 + 1]);
  });

  it("reports when the state is back to fresh", () => {
    const s = step(fixedWindow, undefined, T0 + 250, spec, 1).state;
    expect(fixedWindow.idleAfterMs(s, 0, T0 + 250, spec)).toBe(750);
    expect(fixedWindow.idleAfterMs(s, 0, T0 - 250, spec)).toBe(1250);
    expect(fixedWindow.idleAfterMs(s, 0, T0 + 1000, spec)).toBe(0);
    expect(fixedWindow.idleAfterMs(new Float64Array(2), 0, T0, spec)).toBe(0);
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

    it("admits at most limit within a window and 2·limit within any span shorter than the period", () => {
      fc.assert(
        fc.property(arbSpec, fc.integer({ min: 0, max: 10_000 }), arbTrace(0), (p, start, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = new Float64Array(2);
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0 + start;
          for (const r of trace) {
            now += r.gapMs;
            fixedWindow.apply(s, 0, now, spec, r.cost, true, out);
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

    it("a denial, a peek or commit=false leaves the state byte-identical; remaining ≥ 0; retryAfterMs suffices", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-1500), (p, trace) => {
          const spec = windowSpec(p.limit, p.periodMs);
          const s = Float64Array.from([9, 0, 0, 9]);
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Array.from(s);
            fixedWindow.apply(s, 1, now, spec, r.cost, false, out);
            expect(Array.from(s)).toEqual(before);
            fixedWindow.apply(s, 1, now, spec, r.cost, true, out);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.remaining).toBeLessThanOrEqual(spec.limit);
            if (!out.allowed || r.cost === 0) expect(Array.from(s)).toEqual(before);
            if (!out.allowed) {
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (Number.isFinite(out.retryAfterMs)) {
                const probe = Float64Array.from(s);
                fixedWindow.apply(probe, 1, now + out.retryAfterMs, spec, r.cost, false, out);
                expect(out.allowed).toBe(true);
              } else {
                expect(r.cost).toBeGreaterThan(spec.limit);
              }
            }
          }
          expect([s[0], s[3]]).toEqual([9, 9]);
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
            const s = new Float64Array(2);
            const out = createStepOut();
            let now = T0;
            for (const gap of gaps) {
              now += gap;
              fixedWindow.apply(s, 0, now, spec, 1, true, out);
              if (!out.allowed) {
                expect(out.retryAfterMs).toBeGreaterThan(0);
                fixedWindow.apply(Float64Array.from(s), 0, now + out.retryAfterMs, spec, 1, false, out);
                expect(out.allowed).toBe(true);
              }
            }
          },
        ),
      );
    });
  });
});

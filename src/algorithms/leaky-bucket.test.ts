import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { TIME_TOLERANCE_MS } from "../core/time-math.js";
import { createStepOut, type StepResult, step } from "./algorithm.js";
import { leakyBucket } from "./leaky-bucket.js";

const T0 = 1_700_000_000_000;

/** Replays `(atMs, cost) → expected` steps from a fresh state; returns the final state. */
function replay(
  spec: LimitSpec,
  steps: { at: number; cost?: number; expect: Partial<StepResult["decision"]> }[],
): Float64Array | undefined {
  let state: Float64Array | undefined;
  for (const [i, s] of steps.entries()) {
    const r = step(leakyBucket, state, s.at, spec, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
  return state;
}

const bucket = (limit: number, periodMs: number, burst?: number): LimitSpec =>
  parseLimitSpec({ algorithm: "leaky_bucket", limit, periodMs, ...(burst === undefined ? {} : { burst }) });

describe("leaky_bucket", () => {
  const spec = bucket(2, 1000, 3); // leaks one unit per 500 ms, holds 3

  it("is two floats wide and empty when all zeros", () => {
    expect(leakyBucket.id).toBe("leaky_bucket");
    expect(leakyBucket.width(spec)).toBe(2);
    expect(step(leakyBucket, [0, 0], T0, spec, 0).decision).toMatchObject({
      allowed: true,
      remaining: 3,
      resetAfterMs: 0,
    });
  });

  it("follows seed 002: fills to capacity, overflow waits one leak interval", () => {
    replay(spec, [
      { at: T0, expect: { allowed: true, remaining: 2, resetAfterMs: 500 } },
      { at: T0, expect: { allowed: true, remaining: 1, resetAfterMs: 1000 } },
      { at: T0, expect: { allowed: true, remaining: 0, resetAfterMs: 1500 } },
      { at: T0, expect: { allowed: false, remaining: 0, retryAfterMs: 500, resetAfterMs: 1500 } },
      // Level 2.5: seed 002 would admit (2.5 < 3) and overflow to 3.5; DESIGN §3 demands level + c ≤ B.
      { at: T0 + 250, expect: { allowed: false, remaining: 0, retryAfterMs: 250, resetAfterMs: 1250 } },
      { at: T0 + 500, expect: { allowed: true, remaining: 0, resetAfterMs: 1500 } },
      { at: T0 + 2000, expect: { allowed: true, remaining: 2, resetAfterMs: 500 } },
    ]);
  });

  it("shapes with the delay behaviour: each request starts when the work before it has drained", () => {
    const t = spec.emissionMs;
    const delays: number[] = [];
    let state: Float64Array | undefined;
    for (const [at, cost] of [
      [T0, 1],
      [T0, 1],
      [T0, 1],
    ] as const) {
      const r = step(leakyBucket, state, at, spec, cost);
      delays.push(r.decision.resetAfterMs - cost * t);
      state = r.state;
    }
    expect(delays).toEqual([0, 500, 1000]);
    const one = step(leakyBucket, undefined, T0, spec, 1).state;
    const two = step(leakyBucket, one, T0 + 100, spec, 2); // 0.8 still queued: starts at T0 + 500
    expect(two.decision.resetAfterMs - 2 * t).toBe(400);
  });

  it("denies a cost above the burst forever, and writes nothing", () => {
    const before = step(leakyBucket, undefined, T0, spec, 1).state;
    const r = step(leakyBucket, before, T0, spec, 4);
    expect(r.decision).toMatchObject({
      allowed: false,
      retryAfterMs: Number.POSITIVE_INFINITY,
      remaining: 2,
    });
    expect(Array.from(r.state)).toEqual(Array.from(before));
  });

  it("treats a clock going backwards as no time passing", () => {
    const state = replay(spec, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0 } },
      { at: T0 - 1000, expect: { allowed: false, retryAfterMs: 1500, resetAfterMs: 2500 } },
      { at: T0 + 499, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 500, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 400, expect: { allowed: false, retryAfterMs: 600 } },
    ]);
    expect(state?.[1]).toBe(T0 + 500);
  });

  it("handles fractional rates, zero elapsed time and very long gaps", () => {
    const slow = bucket(3, 10_000); // leaks one unit per 3333.33 ms
    replay(slow, [
      { at: T0, cost: 2, expect: { allowed: true, remaining: 1, resetAfterMs: 6667 } },
      { at: T0, cost: 2, expect: { allowed: false, retryAfterMs: 3334 } },
      { at: T0 + 3334, cost: 2, expect: { allowed: true, remaining: 0, resetAfterMs: 10_000 } },
      { at: T0 + 1e12, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 10_000 } },
    ]);
  });

  it("works with Number.MAX_SAFE_INTEGER limits", () => {
    const max = Number.MAX_SAFE_INTEGER;
    const huge = bucket(max, 1000);
    const full = step(leakyBucket, undefined, T0, huge, max);
    expect(full.decision).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
    expect(step(leakyBucket, full.state, T0 + 500, huge, 4e15).decision.allowed).toBe(true);
    expect(step(leakyBucket, full.state, T0 + 400, huge, 4e15).decision).toMatchObject({
      allowed: false,
      retryAfterMs: 45,
    });
  });

  it("keeps the level under a lowered burst and says truthfully when the key passes again", () => {
    const deep = bucket(2, 1000, 10);
    const full = step(leakyBucket, undefined, T0, deep, 10).state;
    expect(step(leakyBucket, full, T0, spec, 1).decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 4000,
      resetAfterMs: 5000,
    });
    expect(step(leakyBucket, full, T0 + 4000, spec, 1).decision.allowed).toBe(true);
  });

  it("peeks with cost 0, and decides without writing when commit is false", () => {
    const s = Float64Array.from([2, T0 - 250]); // level 1.5 at T0
    const out = createStepOut();
    leakyBucket.apply(s, 0, T0, spec, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 750 });
    leakyBucket.apply(s, 0, T0, spec, 1, false, out);
    expect(out).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1250 });
    expect(Array.from(s)).toEqual([2, T0 - 250]);
    leakyBucket.apply(s, 0, T0, spec, 1, true, out);
    expect(Array.from(s)).toEqual([2.5, T0]);
  });

  it("refunds down to empty, and reports when it is empty again", () => {
    const s = step(leakyBucket, undefined, T0, spec, 3).state;
    expect(leakyBucket.idleAfterMs(s, 0, T0, spec)).toBe(1500);
    leakyBucket.refund(s, 0, T0 + 500, spec, 1);
    expect(Array.from(s)).toEqual([1, T0 + 500]);
    expect(leakyBucket.idleAfterMs(s, 0, T0 + 500, spec)).toBe(500);
    expect(leakyBucket.idleAfterMs(s, 0, T0 + 400, spec)).toBe(600);
    leakyBucket.refund(s, 0, T0 + 500, spec, 7);
    expect(Array.from(s)).toEqual([0, T0 + 500]);
    expect(leakyBucket.idleAfterMs(s, 0, T0, spec)).toBe(0);
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 50 }),
      periodMs: fc.integer({ min: 1, max: 10_000 }),
      burstExtra: fc.integer({ min: 0, max: 20 }),
    });
    const arbTrace = (minGap: number) =>
      fc.array(
        fc.record({ gapMs: fc.integer({ min: minGap, max: 500 }), cost: fc.integer({ min: 0, max: 5 }) }),
        { minLength: 1, maxLength: 200 },
      );
    const specOf = (p: { limit: number; periodMs: number; burstExtra: number }) =>
      bucket(p.limit, p.periodMs, p.limit + p.burstExtra);

    it("never admits more than burst + limit·t/period in any span t", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const spec = specOf(p);
          const s = new Float64Array(2);
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            leakyBucket.apply(s, 0, now, spec, r.cost, true, out);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          const slack = TIME_TOLERANCE_MS / spec.emissionMs + 1e-6;
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              sum += admitted[j].cost;
              const span = admitted[j].at - admitted[i].at;
              expect(sum).toBeLessThanOrEqual(spec.burst + (spec.limit * span) / spec.periodMs + slack);
            }
          }
        }),
      );
    });

    it("a denial, a peek or commit=false leaves the state byte-identical; remaining ≥ 0; retryAfterMs suffices", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(-300), (p, trace) => {
          const spec = specOf(p);
          const s = Float64Array.from([5, 0, 0, -1]); // state at offset 1, guarded on both sides
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Array.from(s);
            leakyBucket.apply(s, 1, now, spec, r.cost, false, out);
            expect(Array.from(s)).toEqual(before);
            leakyBucket.apply(s, 1, now, spec, r.cost, true, out);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            if (!out.allowed || r.cost === 0) expect(Array.from(s)).toEqual(before);
            if (!out.allowed) {
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (Number.isFinite(out.retryAfterMs)) {
                const probe = Float64Array.from(s);
                leakyBucket.apply(probe, 1, now + out.retryAfterMs, spec, r.cost, false, out);
                expect(out.allowed).toBe(true);
              } else {
                expect(r.cost).toBeGreaterThan(spec.burst);
              }
            }
          }
          expect([s[0], s[3]]).toEqual([5, -1]);
        }),
      );
    });

    it("shaped, admitted work drains one unit at a time: starts never overlap and waits stay within B·P/L", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace(0), (p, trace) => {
          const spec = specOf(p);
          const t = spec.emissionMs;
          const s = new Float64Array(2);
          const out = createStepOut();
          let prevEnd = Number.NEGATIVE_INFINITY;
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            leakyBucket.apply(s, 0, now, spec, r.cost, true, out);
            if (!out.allowed || r.cost === 0) continue;
            const delay = out.resetAfterMs - r.cost * t;
            expect(delay).toBeGreaterThanOrEqual(-TIME_TOLERANCE_MS);
            expect(delay).toBeLessThanOrEqual((spec.burst - r.cost) * t + 1);
            const start = now + delay;
            expect(start).toBeGreaterThanOrEqual(prevEnd - 1 - TIME_TOLERANCE_MS);
            prevEnd = start + r.cost * t;
          }
        }),
      );
    });
  });
});

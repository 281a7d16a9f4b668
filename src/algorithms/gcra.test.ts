import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, step } from "./algorithm.js";
import { gcra } from "./gcra.js";

const T0 = 1_700_000_000_000;

/** Replays `(atMs, cost) → expected` steps from a fresh state. */
function replay(
  spec: ReturnType<typeof parseLimitSpec>,
  steps: { at: number; cost?: number; expect: Partial<ReturnType<typeof step>["decision"]> }[],
): void {
  let state: Float64Array | undefined;
  for (const [i, s] of steps.entries()) {
    const r = step(gcra, state, s.at, spec, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
}

describe("gcra", () => {
  const spec = parseLimitSpec({ algorithm: "gcra", limit: 10, periodMs: 1000, burst: 2 });

  it("admits the burst at once, then one unit per emission interval", () => {
    replay(spec, [
      { at: T0, expect: { allowed: true, remaining: 1, resetAfterMs: 100 } },
      { at: T0, expect: { allowed: true, remaining: 0, resetAfterMs: 200 } },
      { at: T0, expect: { allowed: false, remaining: 0, retryAfterMs: 100, resetAfterMs: 200 } },
      { at: T0 + 99, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 100, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 10_000, expect: { allowed: true, remaining: 1 } },
    ]);
  });

  it("denies a cost above the burst forever, and says so", () => {
    replay(spec, [
      { at: T0, cost: 3, expect: { allowed: false, retryAfterMs: Number.POSITIVE_INFINITY, remaining: 2 } },
    ]);
  });

  it("treats a clock going backwards as no time passing", () => {
    replay(spec, [
      { at: T0, cost: 2, expect: { allowed: true, remaining: 0 } },
      { at: T0 - 5_000, expect: { allowed: false } },
      { at: T0 + 100, expect: { allowed: true } },
    ]);
  });

  it("handles fractional rates and very long gaps", () => {
    const slow = parseLimitSpec({ algorithm: "gcra", limit: 3, period: "10s" }); // T = 3333.33 ms
    replay(slow, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 10_000 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 3334 } },
      { at: T0 + 3334, expect: { allowed: true } },
      { at: T0 + 1e12, cost: 3, expect: { allowed: true } },
    ]);
  });

  it("never admits beyond the burst at one instant, whatever the rate (the TAT of a fast rate rounds up)", () => {
    for (const [limit, periodMs, burst, atLeast] of [
      [1e9, 60_000, 10, 1], // T = 6e-5 ms, below half an ulp of an epoch time: counted conservatively
      [1e6, 1000, 1, 1],
      [1e6, 1000, 10, 7], // T = 1 µs: each write may count up to one ulp (0.24 µs) of extra debt
      [4000, 1000, 10, 10], // T = 0.25 ms: exact
      [1000, 1000, 50, 50],
    ]) {
      const s = parseLimitSpec({ algorithm: "gcra", limit, periodMs, burst });
      let state: Float64Array | undefined;
      let admitted = 0;
      let maxRemaining = 0;
      for (let i = 0; i < 100; i++) {
        const r = step(gcra, state, T0 + 0.5, s, 1);
        state = r.state;
        if (r.decision.allowed) admitted++;
        maxRemaining = Math.max(maxRemaining, r.decision.remaining);
      }
      const what = `limit ${limit} per ${periodMs} ms, burst ${burst}`;
      expect(admitted, what).toBeLessThanOrEqual(burst);
      expect(admitted, what).toBeGreaterThanOrEqual(atLeast);
      expect(maxRemaining, what).toBeLessThan(burst);
    }
  });

  it("works with Number.MAX_SAFE_INTEGER limits", () => {
    const huge = parseLimitSpec({ algorithm: "gcra", limit: Number.MAX_SAFE_INTEGER, periodMs: 1000 });
    replay(huge, [{ at: T0, cost: 1e15, expect: { allowed: true } }]);
  });

  it("keeps the debt under a lowered burst and says truthfully when the key passes again", () => {
    const wide = parseLimitSpec({ algorithm: "gcra", limit: 10, periodMs: 1000, burst: 10 });
    const r = step(gcra, undefined, T0, wide, 10);
    const narrow = step(gcra, r.state, T0, spec, 1);
    expect(narrow.decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 900,
      resetAfterMs: 1000,
    });
    expect(step(gcra, r.state, T0 + 899, spec, 1).decision.allowed).toBe(false);
    expect(step(gcra, r.state, T0 + 900, spec, 1).decision.allowed).toBe(true);
  });

  it("peeks with cost 0 without consuming", () => {
    const r = step(gcra, undefined, T0, spec, 0);
    expect(r.decision).toMatchObject({ allowed: true, remaining: 2 });
    expect(r.state[0]).toBe(T0);
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 50 }),
      periodMs: fc.integer({ min: 1, max: 10_000 }),
      burstExtra: fc.integer({ min: 0, max: 20 }),
    });
    const arbTrace = fc.array(
      fc.record({ gapMs: fc.integer({ min: 0, max: 500 }), cost: fc.integer({ min: 0, max: 5 }) }),
      {
        minLength: 1,
        maxLength: 200,
      },
    );

    it("never admits more than burst + limit·t/period in any span t", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace, (p, trace) => {
          const spec = parseLimitSpec({
            algorithm: "gcra",
            limit: p.limit,
            periodMs: p.periodMs,
            burst: p.limit + p.burstExtra,
          });
          const s = new Float64Array(1);
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            gcra.apply(s, 0, now, spec, r.cost, true, out);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              sum += admitted[j].cost;
              const span = admitted[j].at - admitted[i].at;
              expect(sum).toBeLessThanOrEqual(spec.burst + (spec.limit * span) / spec.periodMs + 1e-6);
            }
          }
        }),
      );
    });

    it("a denial leaves the state unchanged, and retrying after retryAfterMs passes", () => {
      fc.assert(
        fc.property(arbSpec, arbTrace, (p, trace) => {
          const spec = parseLimitSpec({
            algorithm: "gcra",
            limit: p.limit,
            periodMs: p.periodMs,
            burst: p.limit + p.burstExtra,
          });
          const s = new Float64Array(1);
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = s[0];
            gcra.apply(s, 0, now, spec, r.cost, true, out);
            if (!out.allowed) {
              expect(s[0]).toBe(before);
              if (Number.isFinite(out.retryAfterMs)) {
                const probe = Float64Array.from(s);
                gcra.apply(probe, 0, now + out.retryAfterMs, spec, r.cost, false, out);
                expect(out.allowed).toBe(true);
              }
            }
          }
        }),
      );
    });
  });
});

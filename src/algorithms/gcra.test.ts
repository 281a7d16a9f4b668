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

  it("admits exactly the burst at one instant, whatever the rate and the epoch, remaining counting down by one", () => {
    const late2099 = Date.UTC(2099, 11, 31); // one ulp of an epoch time is 2⁻¹¹ ms here, 2⁻¹² ms in 2023
    for (const [limit, periodMs, burst, at] of [
      [1e9, 60_000, 10, T0 + 0.5], // T = 6e-5 ms, below half an ulp: T' is one ulp
      [1e6, 1000, 1, T0 + 0.5],
      [1e6, 1000, 10, T0 + 0.5], // T = 1 µs
      [4000, 1000, 10, T0 + 0.5], // T = 0.25 ms: on the grid
      [1000, 1000, 50, T0 + 0.5],
      [3, 1, 6, T0 + 0.3], // T = 1/3 ms: rounding each TAT up admitted 5, remaining going 3 → 1
      [2000, 1000, 10, T0 + 0.3],
      [5000, 1000, 20, T0 + 0.3], // admitted 19
      [849, 1000, 200_000, T0], // T just above a grid point plus half an ulp: rounding to nearest admitted 200,020
      [903, 1000, 1000, late2099], // admitted 1001 (and in the year 3000)
      [7, 1000, 3, T0],
    ]) {
      const spec = parseLimitSpec({ algorithm: "gcra", limit, periodMs, burst });
      const s = new Float64Array(1);
      const out = createStepOut();
      let admitted = 0;
      let broken = ""; // the first remaining that does not count down by one
      for (let i = 0; i < burst + 5; i++) {
        gcra.apply(s, 0, at, spec, 1, true, out);
        if (!out.allowed) break;
        admitted++;
        if (broken === "" && out.remaining !== burst - admitted)
          broken = `${out.remaining} after ${admitted}`;
      }
      const what = `limit ${limit} per ${periodMs} ms, burst ${burst}`;
      expect(admitted, what).toBe(burst);
      expect(broken, what).toBe("");
      expect(out).toMatchObject({ allowed: false, remaining: 0 });
      expect(out.retryAfterMs, what).toBeGreaterThanOrEqual(1);
    }
  });

  it("reports whole-ms durations at rates off the grid: 3 per second resets in 1000 ms, 3 per 10 s in 10,000", () => {
    replay(parseLimitSpec({ algorithm: "gcra", limit: 3, periodMs: 1000 }), [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 334 } },
      { at: T0 + 334, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
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

    // Any rate (emission intervals from ~1 µs to hours, on and off the epoch's grid), burst and epoch (1970 to
    // the end of 2099), with whole or fractional costs and clocks.
    const arbAnySpec = fc.record({
      limit: fc.oneof(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0.5, max: 10_000, noNaN: true }),
      ),
      periodMs: fc.oneof(fc.integer({ min: 1, max: 3_600_000 }), fc.constant(1000)),
      burst: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.double({ min: 1, max: 300, noNaN: true })),
    });
    const arbEpoch = fc.oneof(
      fc.integer({ min: 0, max: 4_102_444_800_000 }),
      fc.double({ min: 0, max: 4_102_444_800_000, noNaN: true }),
      fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }).map((t) => t + 0.3),
    );
    const arbSteps = fc.array(
      fc.record({
        gapMs: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.double({ min: 0, max: 500, noNaN: true })),
        cost: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 3, noNaN: true })),
      }),
      { maxLength: 30 },
    );
    const gcraSpec = (p: { limit: number; periodMs: number; burst: number }) =>
      parseLimitSpec({
        algorithm: "gcra",
        limit: p.limit,
        periodMs: p.periodMs,
        burst: Math.max(p.burst, 1),
      });

    it("never admits more than burst at one instant, for any rate and epoch; whole units pass as remaining says", () => {
      fc.assert(
        fc.property(arbAnySpec, arbEpoch, arbSteps, (p, epoch, steps) => {
          const spec = gcraSpec(p);
          const s = new Float64Array(1);
          const out = createStepOut();
          let now = epoch;
          for (const r of steps) {
            now += r.gapMs;
            gcra.apply(s, 0, now, spec, r.cost, true, out);
          }
          // From the state reached: remaining promises whole units at this instant, and exactly that many pass.
          gcra.apply(s, 0, now, spec, 0, false, out);
          const promised = out.remaining;
          let passed = 0;
          while (passed <= spec.burst + 1) {
            gcra.apply(s, 0, now, spec, 1, true, out);
            if (!out.allowed) break;
            passed++;
          }
          // (the tolerance forgives up to 1/1000 of a unit: a burst of 299.9995 takes 300)
          expect(passed).toBeLessThanOrEqual(spec.burst + 1e-3);
          // Exact unless the TAT lies past a power of 2 beyond now, where an epoch time's grid is twice as coarse
          // (around 2039-09-07, 2004-11-03, …): there a TAT may be rounded up, never down.
          const straddles =
            Math.floor(Math.log2(now)) !== Math.floor(Math.log2(now + 2 * spec.burst * spec.emissionMs));
          if (!straddles || now === 0) expect(passed).toBe(promised);
          // A fresh key at this instant: ⌊burst⌋ units of 1 at least, or about as much in fractions; never more.
          const fresh = new Float64Array(1);
          let sum = 0;
          const cost = Number.isInteger(p.burst) ? 1 : 0.37;
          for (let i = 0; i < spec.burst / cost + 2; i++) {
            gcra.apply(fresh, 0, now, spec, cost, true, out);
            if (out.allowed) sum += cost;
          }
          expect(sum).toBeLessThanOrEqual(spec.burst + 1e-3);
          if (cost === 1 && (!straddles || now === 0))
            expect(sum).toBeGreaterThanOrEqual(Math.floor(spec.burst));
        }),
      );
    });

    it("never admits more than burst + limit·t/period in any span t, for any rate and epoch", () => {
      fc.assert(
        fc.property(arbAnySpec, arbEpoch, arbSteps, (p, epoch, steps) => {
          const spec = gcraSpec(p);
          const s = new Float64Array(1);
          const out = createStepOut();
          const admitted: { at: number; cost: number }[] = [];
          let now = epoch;
          for (const r of steps) {
            now += r.gapMs;
            gcra.apply(s, 0, now, spec, r.cost, true, out);
            if (out.allowed && r.cost > 0) admitted.push({ at: now, cost: r.cost });
          }
          for (let i = 0; i < admitted.length; i++) {
            let sum = 0;
            for (let j = i; j < admitted.length; j++) {
              sum += admitted[j].cost;
              const span = admitted[j].at - admitted[i].at;
              // the tolerance lets a unit through up to 1/1000 of it early (1 µs of quota at most)
              expect(sum).toBeLessThanOrEqual(spec.burst + (spec.limit * span) / spec.periodMs + 1e-3 + 1e-9);
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

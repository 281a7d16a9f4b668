import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { TIME_TOLERANCE_MS } from "../core/time-math.js";
import { createStepOut, type StepResult, step } from "./algorithm.js";
import { gcra } from "./gcra.js";
import { tokenBucket } from "./token-bucket.js";

const T0 = 1_700_000_000_000;

/** Replays `(atMs, cost) → expected` steps from a fresh state; returns the final state. */
function replay(
  spec: LimitSpec,
  steps: { at: number; cost?: number; expect: Partial<StepResult["decision"]> }[],
  initial?: Float64Array,
): Float64Array | undefined {
  let state = initial;
  for (const [i, s] of steps.entries()) {
    const r = step(tokenBucket, state, s.at, spec, s.cost ?? 1);
    expect(r.decision, `step ${i} at +${s.at - T0} ms`).toMatchObject(s.expect);
    state = r.state;
  }
  return state;
}

const bucket = (limit: number, periodMs: number, burst?: number): LimitSpec =>
  parseLimitSpec({ algorithm: "token_bucket", limit, periodMs, ...(burst === undefined ? {} : { burst }) });

describe("token_bucket", () => {
  const spec = bucket(10, 1000, 2); // one token per 100 ms, two at most

  it("is two floats wide and fresh when all zeros", () => {
    expect(tokenBucket.id).toBe("token_bucket");
    expect(tokenBucket.width(spec)).toBe(2);
    const r = step(tokenBucket, [0, 0], T0, spec, 0);
    expect(r.decision).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 0, retryAfterMs: 0 });
  });

  it("admits the burst at once, then one token per refill interval", () => {
    replay(spec, [
      { at: T0, expect: { allowed: true, remaining: 1, resetAfterMs: 100, retryAfterMs: 0 } },
      { at: T0, expect: { allowed: true, remaining: 0, resetAfterMs: 200 } },
      { at: T0, expect: { allowed: false, remaining: 0, retryAfterMs: 100, resetAfterMs: 200 } },
      { at: T0 + 99, expect: { allowed: false, remaining: 0, retryAfterMs: 1, resetAfterMs: 101 } },
      { at: T0 + 100, expect: { allowed: true, remaining: 0, resetAfterMs: 200 } },
      { at: T0 + 150, expect: { allowed: false, remaining: 0, retryAfterMs: 50, resetAfterMs: 150 } },
      { at: T0 + 10_000, expect: { allowed: true, remaining: 1, resetAfterMs: 100 } },
    ]);
  });

  it("follows seed 002: passes when tokens ≥ cost, else waits (cost − tokens) / rate", () => {
    const seed = bucket(5, 1000); // rate 0.005 tokens/ms, 5 tokens
    const state = replay(seed, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 2, resetAfterMs: 600 } },
      // 100 ms later: 2.5 tokens; cost 3 waits (3 − 2.5) / 0.005 = 100 ms.
      {
        at: T0 + 100,
        cost: 3,
        expect: { allowed: false, remaining: 2, retryAfterMs: 100, resetAfterMs: 500 },
      },
      { at: T0 + 200, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
      { at: T0 + 1200, cost: 5, expect: { allowed: true, remaining: 0, resetAfterMs: 1000 } },
    ]);
    expect(Array.from(state ?? [])).toEqual([5, T0 + 1200]);
  });

  it("denies a cost above the burst forever, says so, and writes nothing", () => {
    const before = step(tokenBucket, undefined, T0, spec, 1).state;
    const r = step(tokenBucket, before, T0 + 50, spec, 3);
    expect(r.decision).toMatchObject({
      allowed: false,
      retryAfterMs: Number.POSITIVE_INFINITY,
      remaining: 1,
      resetAfterMs: 50,
    });
    expect(Array.from(r.state)).toEqual(Array.from(before));
  });

  it("treats zero elapsed time as no refill", () => {
    replay(spec, [
      { at: T0, cost: 2, expect: { allowed: true, remaining: 0 } },
      { at: T0, cost: 0, expect: { allowed: true, remaining: 0, resetAfterMs: 200 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 100 } },
    ]);
  });

  it("treats a clock going backwards as no time passing, and reports waits on the caller's clock", () => {
    const state = replay(spec, [
      { at: T0, cost: 1, expect: { allowed: true, remaining: 1 } },
      // 5 s behind: no refill, the state is seen as at T0; the write keeps last at T0.
      { at: T0 - 5000, cost: 1, expect: { allowed: true, remaining: 0, resetAfterMs: 5200 } },
      { at: T0 - 5000, expect: { allowed: false, retryAfterMs: 5100, resetAfterMs: 5200 } },
      { at: T0 + 99, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 100, expect: { allowed: true, remaining: 0 } },
    ]);
    expect(state?.[1]).toBe(T0 + 100);
    const kept = step(tokenBucket, [1, T0], T0 - 1000, spec, 1).state;
    expect(Array.from(kept)).toEqual([2, T0]);
  });

  it("handles fractional rates and very long gaps", () => {
    const slow = bucket(3, 10_000); // 3333.33 ms per token
    replay(slow, [
      { at: T0, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 10_000 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 3334 } },
      { at: T0 + 3333, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 3334, expect: { allowed: true, remaining: 0 } },
      { at: T0 + 1e12, cost: 3, expect: { allowed: true, remaining: 0, resetAfterMs: 10_000 } },
      { at: T0 + 1e12 + 5000, expect: { allowed: true, remaining: 0 } },
    ]);
  });

  it("works with Number.MAX_SAFE_INTEGER limits", () => {
    const max = Number.MAX_SAFE_INTEGER;
    const huge = bucket(max, 1000); // 9e12 tokens per ms
    const r = step(tokenBucket, undefined, T0, huge, 1e15);
    expect(r.decision).toMatchObject({ allowed: true, retryAfterMs: 0, resetAfterMs: 112 });
    expect(r.decision.remaining).toBeGreaterThanOrEqual(max - 1e15);
    const all = step(tokenBucket, undefined, T0, huge, max);
    expect(all.decision).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
    // 1e13 more tokens take 1.11 ms to refill.
    const next = step(tokenBucket, all.state, T0, huge, 1e13);
    expect(next.decision).toMatchObject({ allowed: false, retryAfterMs: 2 });
    expect(step(tokenBucket, all.state, T0 + 2, huge, 1e13).decision.allowed).toBe(true);
    expect(step(tokenBucket, all.state, T0, huge, max + 2).decision.retryAfterMs).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it("keeps the debt under a lowered burst and says truthfully when the key passes again", () => {
    const wide = bucket(10, 1000, 10);
    const drained = step(tokenBucket, undefined, T0, wide, 10).state;
    const narrow = step(tokenBucket, drained, T0, spec, 1);
    expect(narrow.decision).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterMs: 900,
      resetAfterMs: 1000,
    });
    expect(step(tokenBucket, drained, T0 + 899, spec, 1).decision.allowed).toBe(false);
    expect(step(tokenBucket, drained, T0 + 900, spec, 1).decision.allowed).toBe(true);
    // A raised burst keeps the deficit too.
    const raised = step(tokenBucket, drained, T0, bucket(10, 1000, 15), 5);
    expect(raised.decision).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("tolerates at most 1/1000 of a token at high rates: a used-up bucket admits nothing at the same instant", () => {
    const fast = bucket(10_000_000, 1000); // 1e4 tokens per ms: 1 µs of refill would be 10 tokens
    const full = step(tokenBucket, undefined, T0, fast, 10_000_000).state;
    expect(step(tokenBucket, full, T0, fast, 1).decision).toMatchObject({ allowed: false, retryAfterMs: 1 });
    // 10 µs later (a fractional clock; T0 + 0.01 is T0 + 0.010009… as a double), 100 tokens have dripped back:
    // 100 pass, one more does not.
    const later = step(tokenBucket, full, T0 + 0.01, fast, 100);
    expect(later.decision.allowed).toBe(true);
    expect(step(tokenBucket, later.state, T0 + 0.01, fast, 1).decision.allowed).toBe(false);
  });

  it("never admits beyond the burst at one instant, at any rate", () => {
    for (const [limit, periodMs, burst] of [
      [1e9, 60_000, 10],
      [1e6, 1000, 1],
      [1e6, 1000, 10],
      [1e12, 60_000, 5],
    ]) {
      const s = bucket(limit, periodMs, burst);
      let state: Float64Array | undefined;
      let admitted = 0;
      for (let i = 0; i < 50; i++) {
        const r = step(tokenBucket, state, T0 + 0.5, s, 1);
        state = r.state;
        if (r.decision.allowed) admitted++;
      }
      expect(admitted, `limit ${limit} per ${periodMs} ms, burst ${burst}`).toBe(burst);
    }
  });

  it("peeks with cost 0, and decides without writing when commit is false", () => {
    const s = Float64Array.from([1.5, T0 - 50]); // 1 token used by T0
    const out = createStepOut();
    tokenBucket.apply(s, 0, T0, spec, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 100, retryAfterMs: 0 });
    expect(Array.from(s)).toEqual([1.5, T0 - 50]);
    tokenBucket.apply(s, 0, T0, spec, 1, false, out);
    expect(out).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 200 });
    expect(Array.from(s)).toEqual([1.5, T0 - 50]);
    tokenBucket.apply(s, 0, T0, spec, 1, true, out);
    expect(Array.from(s)).toEqual([2, T0]);
  });

  it("refunds tokens up to a full bucket, never below fresh", () => {
    const s = step(tokenBucket, undefined, T0, spec, 2).state;
    tokenBucket.refund(s, 0, T0 + 50, spec, 1);
    expect(s[0]).toBeCloseTo(0.5, 12);
    expect(s[1]).toBe(T0 + 50);
    tokenBucket.refund(s, 0, T0 - 100, spec, 5); // a clock behind never moves last back
    expect(Array.from(s)).toEqual([0, T0 + 50]);
    expect(step(tokenBucket, s, T0 + 50, spec, 2).decision.allowed).toBe(true);
  });

  it("reports when the state is back to fresh", () => {
    const s = step(tokenBucket, undefined, T0, spec, 2).state;
    expect(tokenBucket.idleAfterMs(s, 0, T0, spec)).toBe(200);
    expect(tokenBucket.idleAfterMs(s, 0, T0 + 50, spec)).toBe(150);
    expect(tokenBucket.idleAfterMs(s, 0, T0 - 100, spec)).toBe(300);
    expect(tokenBucket.idleAfterMs(s, 0, T0 + 300, spec)).toBe(0);
    expect(tokenBucket.idleAfterMs(new Float64Array(2), 0, T0, spec)).toBe(0);
    // Under a lowered burst the stored deficit, not the clamped one, decides when the key may be forgotten.
    const deep = step(tokenBucket, undefined, T0, bucket(10, 1000, 10), 10).state;
    expect(tokenBucket.idleAfterMs(deep, 0, T0, spec)).toBe(1000);
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
            tokenBucket.apply(s, 0, now, spec, r.cost, true, out);
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
          const s = Float64Array.from([-7.25, 3, 0, 0, 11.5]); // state at offset 2, guarded on both sides
          const out = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            const before = Array.from(s);
            tokenBucket.apply(s, 2, now, spec, r.cost, false, out);
            expect(Array.from(s)).toEqual(before);
            tokenBucket.apply(s, 2, now, spec, r.cost, true, out);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.resetAfterMs).toBeGreaterThanOrEqual(0);
            if (!out.allowed || r.cost === 0) expect(Array.from(s)).toEqual(before);
            if (!out.allowed) {
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (Number.isFinite(out.retryAfterMs)) {
                const probe = Float64Array.from(s);
                tokenBucket.apply(probe, 2, now + out.retryAfterMs, spec, r.cost, false, out);
                expect(out.allowed).toBe(true);
              } else {
                expect(r.cost).toBeGreaterThan(spec.burst);
              }
            }
          }
          expect([s[0], s[1], s[4]]).toEqual([-7.25, 3, 11.5]);
        }),
      );
    });

    it("decides and reports exactly as gcra when the refill interval is a whole number of ms", () => {
      fc.assert(
        fc.property(arbSpec, fc.integer({ min: 1, max: 200 }), arbTrace(0), (p, t, trace) => {
          const spec = bucket(p.limit, p.limit * t, p.limit + p.burstExtra);
          const s = new Float64Array(2);
          const g = new Float64Array(1);
          const a = createStepOut();
          const b = createStepOut();
          let now = T0;
          for (const r of trace) {
            now += r.gapMs;
            tokenBucket.apply(s, 0, now, spec, r.cost, true, a);
            gcra.apply(g, 0, now, spec, r.cost, true, b); // the kernels read only the numbers
            expect(a).toEqual(b);
          }
        }),
      );
    });
  });
});

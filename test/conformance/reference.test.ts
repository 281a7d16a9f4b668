// The hand-written expectations of every trace, checked against the ReferenceStore alone: they guard the
// oracle itself, independently of any store compared with it.
import { describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import { parseLimitSpec } from "../../src/core/limit-spec.js";
import { ReferenceStore, randomTraces, replayTrace, traces, traceTestName } from "../../src/testing/index.js";

describe("reference store: hand-written expectations", () => {
  for (const trace of traces) {
    it(traceTestName(trace), async () => {
      const store = new ReferenceStore();
      const { mismatches } = await replayTrace(store, trace, { compare: false });
      await store.close();
      expect(mismatches).toEqual([]);
    });
  }

  it("every algorithm has hand-written traces with expectations", () => {
    const topics = new Set(traces.map((t) => traceTestName(t).split(":")[0]));
    for (const a of [
      "gcra",
      "token_bucket",
      "leaky_bucket",
      "fixed_window",
      "sliding_window",
      "sliding_log",
      "bucketed_window",
      "concurrency",
    ]) {
      expect(topics).toContain(a);
    }
    for (const t of traces) expect(t.steps.some((s) => s.expect !== undefined)).toBe(true);
  });

  it("random traces replay on the reference without errors", async () => {
    for (const trace of randomTraces) {
      const store = new ReferenceStore();
      const { mismatches } = await replayTrace(store, trace, { compare: false });
      expect(mismatches).toEqual([]);
      expect(trace.steps.length).toBeGreaterThanOrEqual(300);
    }
  });

  it("is all-or-nothing across items: one denial consumes from no item", async () => {
    const store = new ReferenceStore();
    const one = createLimitSet("a", [
      parseLimitSpec({ name: "s", algorithm: "fixed_window", limit: 2, periodMs: 1000 }),
    ]);
    const two = createLimitSet("b", [
      parseLimitSpec({ name: "x", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "y", algorithm: "fixed_window", limit: 5, periodMs: 1000 }),
    ]);
    const now = 1_700_000_000_000;
    const items = (cost: number) => [
      { limits: one, key: "u", cost },
      { limits: two, key: "u", cost: 1 },
    ];
    const denied = await store.apply(items(3), "consume", now);
    expect(denied.map((d) => d.allowed)).toEqual([false, false]);
    expect(denied[1].state).toBe("throttled");
    expect(denied[1].policies.map((p) => [p.allowed, p.remaining])).toEqual([
      [true, 5],
      [true, 5],
    ]);
    const allowed = await store.apply(items(2), "consume", now);
    expect(allowed.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 0],
      [true, 4],
    ]);
  });
});

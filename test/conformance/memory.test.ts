// The conformance suite on the memory store: the default store must pass every trace; a store of capacity 1
// must pass every trace that touches one key (with several keys it evicts, which may over-admit by design).
import { describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import { parseLimitSpec } from "../../src/core/limit-spec.js";
import { memoryStore } from "../../src/stores/memory/memory-store.js";
import {
  ReferenceStore,
  randomTraces,
  runStoreConformance,
  type Trace,
  traceKeys,
  traces,
  traceTestName,
} from "../../src/testing/index.js";

runStoreConformance({ name: "memory", createStore: () => memoryStore(), test: { describe, it } });

runStoreConformance({
  name: "memory (capacity 1)",
  createStore: () => memoryStore({ capacity: 1 }),
  skip: [
    {
      reason: "capacity 1 evicts between keys",
      tests: [...traces, ...randomTraces].filter((t) => traceKeys(t).length > 1).map(traceTestName),
    },
  ],
  test: { describe, it },
});

// A full store (capacity 2, both keys used up for the day): requests of new keys that their fresh state denies (a
// cost above the limit) must neither take a slot nor make room, so the used-up keys stay denied, as in the reference.
const DAY = 86_400_000;
const deniedFlood = (name: string, limits: Trace["limits"]): Trace => ({
  name,
  topic: "full store",
  limits,
  steps: [
    { at: 0, op: "consume", key: "a", cost: 1 },
    { at: 0, op: "consume", key: "b", cost: 1 },
    ...Array.from({ length: 10 }, (_, i) => ({
      at: 1 + i,
      op: "consume" as const,
      key: `new${i}`,
      cost: 2,
      expect: { allowed: false, retryAfterMs: Number.POSITIVE_INFINITY },
    })),
    { at: 20, op: "consume", key: "a", cost: 1, expect: { allowed: false } },
    { at: 20, op: "consume", key: "b", cost: 1, expect: { allowed: false } },
    { at: 20, op: "consume", key: "new3", cost: 1, expect: { allowed: true } }, // stored now, evicting one
  ],
});
runStoreConformance({
  name: "memory (capacity 2, full)",
  createStore: () => memoryStore({ capacity: 2 }),
  traces: [
    deniedFlood("denied requests of new keys take no slot", [
      { name: "day", algorithm: "fixed_window", limit: 1, periodMs: DAY },
    ]),
    deniedFlood("denied requests of new keys take no slot, several limits", [
      { name: "rate", algorithm: "gcra", limit: 1, periodMs: 1000 },
      { name: "day", algorithm: "sliding_log", limit: 1, periodMs: DAY },
    ]),
  ],
  test: { describe, it },
});

describe("conformance: memory (several items in one call)", () => {
  it("agrees with the reference on all-or-nothing across items", async () => {
    const one = createLimitSet("a", [
      parseLimitSpec({ name: "s", algorithm: "fixed_window", limit: 2, periodMs: 1000 }),
    ]);
    const two = createLimitSet("b", [
      parseLimitSpec({ name: "x", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "y", algorithm: "sliding_log", limit: 5, periodMs: 1000 }),
    ]);
    const items = (cost: number) => [
      { limits: one, key: "u", cost },
      { limits: two, key: "u", cost: 1 },
      { limits: one, key: "v", cost: 1 },
    ];
    const memory = memoryStore();
    const reference = new ReferenceStore();
    let now = 1_700_000_000_000;
    for (const cost of [3, 2, 1, 0, 2]) {
      const m = await memory.apply(items(cost), "consume", now);
      const r = await reference.apply(items(cost), "consume", now);
      expect(m.map(plain)).toEqual(r.map(plain));
      now += 300;
    }
  });
});

function plain(d: import("../../src/core/decision.js").Decision) {
  const { policy, allowed, remaining, resetAfterMs, retryAfterMs, state } = d;
  return {
    policy,
    allowed,
    remaining,
    resetAfterMs,
    retryAfterMs,
    state,
    leases: d.leases,
    policies: d.policies.map((p) => ({ ...p })),
  };
}

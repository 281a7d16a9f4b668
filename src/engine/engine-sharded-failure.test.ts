import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor, RuleFailurePolicy } from "../rules/rule.js";
import { any, makeConfig, makeRules } from "../rules/testing-rules.js";
import { type ShardedStore, shardedStore } from "../stores/sharded-store.js";
import { createEngine, type Engine } from "./engine.js";
import { createLimiter } from "./limiter.js";

// One dead shard of three (client-side sharding, `sluice serve --redis A,B,C`): only the keys the dead shard owns
// are answered by the failure policy; keys on the healthy shards keep being decided by their stores, whatever the
// policy, and the healthy shards' breakers stay closed. (The engine once put one breaker around the whole sharded
// store: the dead shard's failures opened it for every key, and a half-open probe landing on a healthy shard closed
// it again, so it flapped.)

const T0 = 1_700_000_000_000;
const POLICIES = ["fail_open", "fail_closed", "fallback"] as const;
const LIMIT = 1000;

const config = makeConfig({
  rules: makeRules(
    POLICIES.map((p) => ({
      id: p,
      domain: "api",
      match: [any(p)],
      failurePolicy: p,
      limits: [parseLimitSpec({ name: p, algorithm: "fixed_window", limit: LIMIT, periodMs: 3_600_000 })],
    })),
  ),
});

/** Three fake shard stores behind a sharded store; shard `c` fails every call, as a dead node does. */
function setup(): {
  stores: Record<string, AsyncMemoryStore>;
  sharded: ShardedStore;
  engine: Engine;
  clock: ManualClock;
} {
  const stores = { a: new AsyncMemoryStore(), b: new AsyncMemoryStore(), c: new AsyncMemoryStore() };
  stores.c.failing = true;
  const sharded = shardedStore({ shards: Object.entries(stores).map(([id, store]) => ({ id, store })) });
  const clock = new ManualClock(T0);
  const engine = createEngine({
    config,
    store: sharded,
    clock,
    scheduler: clock,
    failure: { timeoutMs: 50, breaker: { failures: 2, openMs: 1000 } },
  });
  return { stores, sharded, engine, clock };
}

const descriptor = (policy: RuleFailurePolicy, value: string): Descriptor => [{ key: policy, value }];

describe.each(POLICIES)("engine over a sharded store with one dead shard, rule policy %s", (policy) => {
  it("decides the healthy shards' keys by their stores and only the dead shard's by the policy", async () => {
    const { stores, sharded, engine, clock } = setup();
    const tally = new Map<string, number>();
    const keysOn = new Map<string, string[]>();
    // Rounds a breaker's openMs apart, so the half-open probes of every round are exercised too.
    for (let round = 0; round < 4; round++) {
      const results = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          engine.check({ domain: "api", descriptors: [descriptor(policy, `u${i}`)] }),
        ),
      );
      for (const r of results) {
        const d = r.descriptors[0];
        const key = d.match?.counterKey as string;
        const shard = sharded.shardFor(key);
        if (round === 0) keysOn.set(shard, [...(keysOn.get(shard) ?? []), key]);
        const k = `${shard}:${d.decision?.reason}:${r.allowed}`;
        tally.set(k, (tally.get(k) ?? 0) + 1);
      }
      clock.advance(1000);
    }
    for (const id of ["a", "b", "c"]) expect(keysOn.get(id)?.length ?? 0).toBeGreaterThan(10);
    const on = (id: string) => 4 * (keysOn.get(id)?.length ?? 0);
    const policyAllows = policy !== "fail_closed";
    expect(Object.fromEntries(tally)).toEqual({
      "a:store:true": on("a"),
      "b:store:true": on("b"),
      [`c:${policy}:${policyAllows}`]: on("c"),
    });
    // The healthy shards' stores counted their keys (four checks each).
    for (const id of ["a", "b"] as const) {
      const key = (keysOn.get(id) as string[])[0];
      const seen = stores[id].calls.filter((c) => c.op === "consume" && c.items.some((it) => it.key === key));
      expect(seen).toHaveLength(4);
    }
    // One breaker per shard: the healthy ones never opened; the dead one is open.
    const wrapper = engine.failureStores.get(policy);
    expect(wrapper).toBeDefined();
    const shards = (
      wrapper as unknown as {
        shards: {
          id: string;
          store: { state: string; stats: { failures: number; breakerOpened: number } };
        }[];
      }
    ).shards;
    expect(shards.map((s) => s.id)).toEqual(["a", "b", "c"]);
    for (const s of shards.slice(0, 2)) {
      expect(s.store.state).toBe("closed");
      expect(s.store.stats.failures).toBe(0);
      expect(s.store.stats.breakerOpened).toBe(0);
    }
    expect(shards[2].store.state).toBe("open");
    expect(shards[2].store.stats.breakerOpened).toBeGreaterThanOrEqual(1);
  });

  it("a request spanning a healthy and the dead shard gets the store's answer for one, the policy's for the other", async () => {
    const { stores, sharded, engine } = setup();
    // Open the dead shard's breaker first, as in a running service.
    for (let i = 0; i < 40; i++)
      await engine.check({ domain: "api", descriptors: [descriptor(policy, `w${i}`)] });
    const probe = async (value: string) =>
      (await engine.check({ domain: "api", descriptors: [descriptor(policy, value)], cost: 0 }))
        .descriptors[0];
    let healthy: string | undefined;
    let dead: string | undefined;
    for (let i = 0; healthy === undefined || dead === undefined; i++) {
      const d = await probe(`x${i}`);
      const shard = sharded.shardFor(d.match?.counterKey as string);
      if (shard === "a") healthy ??= `x${i}`;
      if (shard === "c") dead ??= `x${i}`;
    }
    const r = await engine.check({
      domain: "api",
      descriptors: [descriptor(policy, healthy), descriptor(policy, dead)],
    });
    expect(r.descriptors.map((d) => d.decision?.reason)).toEqual(["store", policy]);
    const healthyKey = r.descriptors[0].match?.counterKey as string;
    const item = stores.a.calls.flatMap((c) => c.items).find((it) => it.key === healthyKey);
    expect(item).toBeDefined();
    const [peek] = stores.a.memory.applySync(
      [{ limits: item?.limits as never, key: healthyKey, cost: 0 }],
      "peek",
      T0,
    );
    if (policy === "fail_closed") {
      // All-or-nothing across shards: the dead shard's part denied, the healthy shard's unit was given back.
      expect(r.allowed).toBe(false);
      expect(peek.remaining).toBe(LIMIT);
    } else {
      expect(r.allowed).toBe(true);
      expect(peek.remaining).toBe(LIMIT - 1);
    }
    const wrapper = engine.failureStores.get(policy) as unknown as { shards: { store: { state: string } }[] };
    expect(wrapper.shards.map((s) => s.store.state)).toEqual(["closed", "closed", "open"]);
  });
});

describe("createLimiter({ failure }) over a sharded store with one dead shard", () => {
  it("decides keys on the healthy shards by their stores, the dead shard's by the policy", async () => {
    const stores = { a: new AsyncMemoryStore(), b: new AsyncMemoryStore(), c: new AsyncMemoryStore() };
    stores.c.failing = true;
    const sharded = shardedStore({ shards: Object.entries(stores).map(([id, store]) => ({ id, store })) });
    const clock = new ManualClock(T0);
    const limiter = createLimiter({
      store: sharded,
      clock,
      limits: { name: "m", algorithm: "fixed_window", limit: 10, periodMs: 60_000 },
      failure: { onError: "fail_closed", scheduler: clock, breaker: { failures: 2, openMs: 1000 } },
    });
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    for (let round = 0; round < 3; round++) {
      for (const key of keys) {
        const d = await limiter.limit(key);
        // The limiter's keys are stored under its namespace; the item key is the caller's key.
        if (sharded.shardFor(key) === "c") expect(d).toMatchObject({ allowed: false, reason: "fail_closed" });
        else expect(d).toMatchObject({ allowed: true, reason: "store", remaining: 9 - round });
      }
      clock.advance(1000);
    }
  });
});

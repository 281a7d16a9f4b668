// A failure wrapper per shard (resilient-sharded-store.ts) over fake shard stores, one of them dead: the healthy
// shards' keys are decided by their stores under every policy, the dead shard's by the policy; breakers, stats,
// membership and idempotent consumes are per shard.
import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";
import { StoreUnavailableError } from "../core/errors.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { type ResilientShardedStore, resilientShardedStore } from "./resilient-sharded-store.js";
import type { BreakerStateChange, FailurePolicy, ResilientOptions } from "./resilient-store.js";
import { type ShardedStore, shardedStore } from "./sharded-store.js";
import type { IdempotencyClaim, OnceClaimState, OnceLedger, OnceResult, StoreItem } from "./store.js";

const T0 = 1_700_000_000_000;
const LIMIT = 100;
const limits = createLimitSet("n", [
  parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: LIMIT, periodMs: 3_600_000 }),
]);
const item = (key: string, cost = 1): StoreItem => ({ limits, key, cost });

/**
 * A shard store with idempotency records as a Redis node keeps them: in the decision's own call (`applyOnce`), or
 * apart (`onceLedger`, claims never expiring here). While `failing`, every call fails as a dead node's does.
 */
class NodeStore extends AsyncMemoryStore {
  override readonly name = "node";
  readonly slots = new Map<string, { claimedBy?: string; decisions?: Decision[]; atMs?: number }>();
  readonly ledgerCalls: string[] = [];

  applyOnce(items: readonly StoreItem[], nowMs: number, once: IdempotencyClaim): Promise<OnceResult> {
    if (this.failing) return Promise.reject(new StoreUnavailableError(this.name, "down"));
    const slot = this.slots.get(`${items[0].key}|${once.key}`);
    if (slot?.decisions !== undefined) {
      return Promise.resolve({ decisions: slot.decisions, replayed: true, decidedAtMs: slot.atMs });
    }
    const decisions = this.memory.applySync(items, "consume", nowMs);
    this.slots.set(`${items[0].key}|${once.key}`, { decisions, atMs: nowMs });
    return Promise.resolve({ decisions, replayed: false, decidedAtMs: nowMs });
  }

  onceLedger(items: readonly StoreItem[], once: IdempotencyClaim): OnceLedger {
    const name = `${items[0].key}|${once.key}`;
    const call = <T>(what: string, run: () => T): Promise<T> => {
      this.ledgerCalls.push(what);
      if (this.failing) return Promise.reject(new StoreUnavailableError(this.name, "down"));
      return Promise.resolve(run());
    };
    return {
      claim: (token) =>
        call("claim", (): OnceClaimState => {
          const slot = this.slots.get(name);
          if (slot?.decisions !== undefined) {
            return { state: "recorded", decisions: slot.decisions, decidedAtMs: slot.atMs };
          }
          if (slot?.claimedBy !== undefined) return { state: "pending" };
          this.slots.set(name, { claimedBy: token });
          return { state: "claimed" };
        }),
      record: (token, decisions, decidedAtMs) =>
        call("record", () => {
          if (this.slots.get(name)?.claimedBy === token) {
            this.slots.set(name, { decisions: [...decisions], atMs: decidedAtMs });
          }
        }),
      abandon: (token) =>
        call("abandon", () => {
          if (this.slots.get(name)?.claimedBy === token) this.slots.delete(name);
        }),
    };
  }

  override release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    if (this.failing) return Promise.reject(new StoreUnavailableError(this.name, "down"));
    return super.release(limits, key, leases, nowMs);
  }

  remaining(key: string): number {
    return this.memory.applySync([item(key, 0)], "peek", T0)[0].remaining;
  }
}

interface Setup {
  readonly nodes: Record<"a" | "b" | "c", NodeStore>;
  readonly sharded: ShardedStore;
  readonly store: ResilientShardedStore;
  readonly clock: ManualClock;
  readonly changes: BreakerStateChange[];
}

/** Three shards a, b, c; c dead. */
function setup(onError: FailurePolicy, options: ResilientOptions = {}): Setup {
  const nodes = { a: new NodeStore(), b: new NodeStore(), c: new NodeStore() };
  nodes.c.failing = true;
  const clock = new ManualClock(T0);
  const sharded = shardedStore({
    shards: Object.entries(nodes).map(([id, store]) => ({ id, store })),
    scheduler: clock,
  });
  const changes: BreakerStateChange[] = [];
  const store = resilientShardedStore(sharded, {
    onError,
    clock,
    scheduler: clock,
    timeoutMs: 50,
    breaker: { failures: 2, openMs: 1000 },
    onStateChange: (c) => changes.push(c),
    ...options,
  });
  return { nodes, sharded, store, clock, changes };
}

/** The first key (`k0`, `k1`, …) the sharded store routes to shard `id`, skipping `skip` such keys. */
function keyOn(sharded: ShardedStore, id: string, skip = 0): string {
  for (let i = 0; ; i++) if (sharded.shardFor(`k${i}`) === id && skip-- === 0) return `k${i}`;
}

const POLICY_ANSWER: Record<FailurePolicy, { allowed: boolean; reason: string }> = {
  fail_open: { allowed: true, reason: "fail_open" },
  fail_closed: { allowed: false, reason: "fail_closed" },
  fallback: { allowed: true, reason: "fallback" },
};

describe.each(["fail_open", "fail_closed", "fallback"] as const)(
  "resilientShardedStore, %s, shard c dead",
  (policy) => {
    it("decides the healthy shards' keys by their stores and the dead shard's by the policy; healthy breakers stay closed", async () => {
      const { nodes, sharded, store, clock } = setup(policy);
      const keys = Array.from({ length: 60 }, (_, i) => `u${i}`);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(keys.map((k) => store.apply([item(k)], "consume", T0)));
        answers.forEach(([d], i) => {
          const shard = sharded.shardFor(keys[i]);
          if (shard === "c") expect(d).toMatchObject(POLICY_ANSWER[policy]);
          else expect(d).toMatchObject({ allowed: true, reason: "store", remaining: LIMIT - 1 - round });
        });
        clock.advance(1000); // every round, the dead shard's breaker lets a probe through
      }
      for (const k of keys.filter((k) => sharded.shardFor(k) !== "c")) {
        expect(nodes[sharded.shardFor(k) as "a" | "b"].remaining(k)).toBe(LIMIT - 3);
      }
      expect(store.shards.map((s) => [s.id, s.store.state])).toEqual([
        ["a", "closed"],
        ["b", "closed"],
        ["c", "open"],
      ]);
      for (const s of store.shards.slice(0, 2)) {
        expect(s.store.stats).toMatchObject({ failures: 0, breakerOpened: 0, shortCircuited: 0 });
      }
      expect(store.state).toBe("open"); // the worst shard's
    });

    it("a call spanning shards: the healthy part by its store, the dead part by the policy, all-or-nothing", async () => {
      const { nodes, sharded, store } = setup(policy);
      const healthy = keyOn(sharded, "a");
      const dead = keyOn(sharded, "c");
      const [h, d] = await store.apply([item(healthy), item(dead)], "consume", T0);
      expect(h.reason).toBe("store");
      expect(d).toMatchObject({ reason: policy });
      if (policy === "fail_closed") {
        // The dead part denied: the healthy shard gave its unit back, and both items are denied.
        expect([h.allowed, d.allowed]).toEqual([false, false]);
        expect(nodes.a.remaining(healthy)).toBe(LIMIT);
      } else {
        expect([h.allowed, d.allowed]).toEqual([true, true]);
        expect(nodes.a.remaining(healthy)).toBe(LIMIT - 1);
      }
      // Peeks and refunds take the same paths.
      const peeks = await store.apply([item(healthy, 0), item(dead, 0)], "peek", T0);
      expect(peeks.map((p) => p.reason)).toEqual(["store", policy]);
    });
  },
);

describe("resilientShardedStore", () => {
  it("reports breaker changes with the shard's id and sums the shards' stats", async () => {
    const { sharded, store, changes } = setup("fail_open");
    const dead = keyOn(sharded, "c");
    const healthy = keyOn(sharded, "b");
    for (let i = 0; i < 3; i++) await store.apply([item(dead)], "consume", T0);
    await store.apply([item(healthy)], "consume", T0);
    expect(changes.map((c) => [c.shard, c.from, c.to])).toEqual([["c", "closed", "open"]]);
    expect(store.stats).toMatchObject({
      state: "open",
      storeCalls: 3, // two failed calls to c, one to b; the third call to c was short-circuited
      failures: 2,
      shortCircuited: 1,
      failOpen: 3,
      breakerOpened: 1,
    });
  });

  it("follows the sharded store's membership: a key's shard and breaker are the ones that own it", async () => {
    const { sharded, store } = setup("fail_closed");
    const d = new NodeStore();
    sharded.addShard({ id: "d", store: d });
    expect(store.shards.map((s) => s.id)).toEqual(["a", "b", "c", "d"]);
    const onD = keyOn(sharded, "d");
    expect(store.shardFor(onD)).toBe("d");
    expect((await store.apply([item(onD)], "consume", T0))[0]).toMatchObject({ reason: "store" });
    expect(d.remaining(onD)).toBe(LIMIT - 1);
    // The dead shard leaves: its keys move to healthy shards, and are decided by their stores.
    const onC = keyOn(sharded, "c");
    sharded.removeShard("c");
    expect(store.shards.map((s) => s.id)).toEqual(["a", "b", "d"]);
    expect((await store.apply([item(onC)], "consume", T0))[0]).toMatchObject({
      allowed: true,
      reason: "store",
    });
    expect(() => store.inner.wrapShards((s) => s.store).addShard({ id: "e", store: d })).toThrow(/view/);
  });

  it("releases through the owning shard's wrapper; close closes every shard", async () => {
    const { nodes, sharded, store } = setup("fallback");
    const dead = keyOn(sharded, "c");
    await expect(store.release(limits, dead, { m: 7 }, T0)).resolves.toBeUndefined(); // dropped, not thrown
    await store.release(limits, keyOn(sharded, "a"), { m: 7 }, T0);
    expect(store.shards.map((s) => s.store.stats.releasesDropped)).toEqual([0, 0, 1]);
    await store.close();
    for (const n of Object.values(nodes))
      await expect(n.memory.apply([item("x")], "consume", T0)).rejects.toThrow();
  });
});

describe("resilientShardedStore: idempotent consumes", () => {
  const once = { key: "r", ttlMs: 60_000 };

  it("on one shard: that shard's wrapper (its record, or its policy)", async () => {
    const { sharded, store } = setup("fail_closed");
    const healthy = keyOn(sharded, "a");
    const dead = keyOn(sharded, "c");
    expect(await store.applyOnce([item(healthy)], T0, once)).toMatchObject({ replayed: false });
    expect(await store.applyOnce([item(healthy)], T0, once)).toMatchObject({ replayed: true });
    expect(await store.applyOnce([item(dead)], T0, once)).toMatchObject({
      replayed: false,
      decisions: [{ allowed: false, reason: "fail_closed" }],
    });
  });

  it("spread over healthy shards: recorded on the first item's shard, then replayed", async () => {
    const { nodes, sharded, store } = setup("fallback");
    const items = [item(keyOn(sharded, "a")), item(keyOn(sharded, "b"))];
    const first = await store.applyOnce(items, T0, once);
    expect(first).toMatchObject({ replayed: false, decidedAtMs: T0 });
    expect(await store.applyOnce(items, T0 + 1, once)).toMatchObject({ replayed: true, decidedAtMs: T0 });
    expect(nodes.a.ledgerCalls).toEqual(["claim", "record", "claim"]);
  });

  it("spread, the record's shard dead: consumed without a record, healthy items by their store", async () => {
    const { nodes, sharded, store } = setup("fallback");
    const healthy = keyOn(sharded, "a");
    const items = [item(keyOn(sharded, "c")), item(healthy)];
    const r = await store.applyOnce(items, T0, once);
    expect(r).toMatchObject({ replayed: false });
    expect(r.decidedAtMs).toBeUndefined();
    expect(r.decisions.map((d) => [d.allowed, d.reason])).toEqual([
      [true, "fallback"],
      [true, "store"],
    ]);
    expect(nodes.a.remaining(healthy)).toBe(LIMIT - 1);
  });

  it("spread, another shard dead: answered in part by the policy, so not recorded; a retry once it is back counts", async () => {
    const { nodes, sharded, store, clock } = setup("fail_open");
    const healthy = keyOn(sharded, "a");
    const items = [item(healthy), item(keyOn(sharded, "c"))];
    const r = await store.applyOnce(items, T0, once);
    expect(r.decisions.map((d) => d.reason)).toEqual(["store", "fail_open"]);
    expect(nodes.a.ledgerCalls).toEqual(["claim", "abandon"]);
    expect(nodes.a.slots.size).toBe(0);
    nodes.c.failing = false;
    clock.advance(1000);
    const retry = await store.applyOnce(items, T0 + 1000, once);
    expect(retry).toMatchObject({ replayed: false, decidedAtMs: T0 + 1000 });
    expect(retry.decisions.map((d) => d.reason)).toEqual(["store", "store"]);
  });

  it("spread, another caller's claim outlasting the timeout: answered by the policy, nothing counted", async () => {
    const { nodes, sharded, store, clock } = setup("fail_closed");
    nodes.c.failing = false;
    const items = [item(keyOn(sharded, "a")), item(keyOn(sharded, "b"))];
    await nodes.a.onceLedger(items, once).claim("another", 60_000);
    const answer = store.applyOnce(items, T0, once);
    for (let i = 0; i < 20 && clock.pendingSleeps === 0; i++) await Promise.resolve();
    for (let waited = 0; waited < 60; waited += 2) {
      clock.advance(2);
      for (let i = 0; i < 20; i++) await Promise.resolve();
    }
    const r = await answer;
    expect(r).toMatchObject({
      replayed: false,
      decisions: [{ reason: "fail_closed" }, { reason: "fail_closed" }],
    });
    expect(nodes.a.remaining(items[0].key)).toBe(LIMIT);
    expect(nodes.b.remaining(items[1].key)).toBe(LIMIT);
    expect(store.shards.map((s) => s.store.state)).toEqual(["closed", "closed", "closed"]);
  });
});

describe("resilientShardedStore options", () => {
  it("refuses an unknown or bad option, naming resilientShardedStore and the field", () => {
    const inner = shardedStore({ shards: [{ id: "a", store: new AsyncMemoryStore() }] });
    expect(() => resilientShardedStore(inner, { timeoutMss: 5 } as never)).toThrow(
      expect.objectContaining({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
        message: 'resilientShardedStore: unknown option "timeoutMss"; did you mean "timeoutMs"?',
      }),
    );
    expect(() => resilientShardedStore(inner, { onError: "explode" as never })).toThrow(
      expect.objectContaining({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
        message:
          'resilientShardedStore: onError must be one of fail_open, fail_closed, fallback, got "explode"',
      }),
    );
  });
});

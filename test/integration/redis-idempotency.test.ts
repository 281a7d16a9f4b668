// Idempotent checks on Redis (issue 6 §4): the record is checked and written in the same script call as the
// decision, so concurrent retries with one key count once even from two processes (two engines, each with its own
// ioredis connection and store), batched or not; a retry after the record expired, or with another key, counts.
// Also a Redis Cluster: atomic when the items share a master, refused (and deduplicated in process only, counted)
// when they span masters.
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import type { Decision } from "../../src/core/decision.js";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import { type CheckRequest, type CheckResult, createEngine, type Engine } from "../../src/engine/engine.js";
import type { Descriptor, SluiceConfig } from "../../src/rules/rule.js";
import { any, makeConfig, makeRules } from "../../src/rules/testing-rules.js";
import { keySlot } from "../../src/stores/redis/cluster-router.js";
import { type RedisStore, type RedisStoreOptions, redisStore } from "../../src/stores/redis/index.js";
import type { StoreItem } from "../../src/stores/store.js";
import { getSharedCluster, getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";

const T0 = 1_700_000_000_000;
const user = (id: string): Descriptor => [{ key: "user", value: id }];
const ip = (v: string): Descriptor => [{ key: "ip", value: v }];

let url: string;
const clients: (Redis | Cluster)[] = [];
beforeAll(async () => {
  url = (await getSharedRedis()).url;
});
afterAll(() => {
  for (const c of clients) c.disconnect();
});

/** A new connection to the shared server: each "process" of a test gets its own. */
function connect(): Redis {
  const c = new Redis(url);
  clients.push(c);
  return c;
}

function set(namespace: string, ...limits: LimitSpecInput[]) {
  return createLimitSet(
    namespace,
    limits.map((l, i) => parseLimitSpec({ name: `l${i}`, ...l })),
  );
}

/** The fields a caller sees, as plain data. */
function plain(d: Decision) {
  return {
    allowed: d.allowed,
    remaining: d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: d.retryAfterMs,
    state: d.state,
    policies: d.policies.map((p) => ({ ...p })),
  };
}

const FIXED = { algorithm: "fixed_window", limit: 1000, periodMs: 60_000 } as const;

describe("redis store: applyOnce", () => {
  const stores = (label: string, options: Partial<RedisStoreOptions> = {}): RedisStore =>
    redisStore({
      client: connect(),
      prefix: uniqueKeyPrefix(label).slice(0, -1),
      clock: "client",
      ...options,
    });

  for (const batch of [true, false]) {
    it(`counts concurrent calls with one record once and replays the first answer to the others (batch: ${batch})`, async () => {
      const prefix = uniqueKeyPrefix(`once-${batch}`).slice(0, -1);
      // Two "processes": separate connections and stores over the same keys.
      const a = redisStore({ client: connect(), prefix, clock: "client", batch });
      const b = redisStore({ client: connect(), prefix, clock: "client", batch });
      const limits = set("api", FIXED);
      const items: StoreItem[] = [{ limits, key: "user:1", cost: 1 }];
      const once = { key: "api:k1", ttlMs: 60_000 };
      const calls = [];
      for (let i = 0; i < 40; i++) calls.push((i % 2 === 0 ? a : b).applyOnce(items, T0, once));
      // Plain calls of other identities in the same ticks: they share batches with the records' calls.
      const plainCalls = [];
      for (let i = 0; i < 10; i++)
        plainCalls.push(a.apply([{ limits, key: `other:${i}`, cost: 1 }], "consume", T0));
      const answers = await Promise.all(calls);
      expect(answers.filter((r) => !r.replayed)).toHaveLength(1);
      const first = plain(answers.find((r) => !r.replayed)?.decisions[0] as Decision);
      expect(first).toMatchObject({ allowed: true, remaining: 999 });
      for (const r of answers) expect(plain(r.decisions[0])).toEqual(first);
      for (const [d] of await Promise.all(plainCalls))
        expect(d).toMatchObject({ allowed: true, remaining: 999 });
      // Counted once.
      const [peek] = await a.apply([{ ...items[0], cost: 0 }], "peek", T0);
      expect(peek.remaining).toBe(999);
      // Another record counts.
      const other = await b.applyOnce(items, T0, { key: "api:k2", ttlMs: 60_000 });
      expect(other).toMatchObject({ replayed: false, decisions: [{ allowed: true, remaining: 998 }] });
    });
  }

  it("records denials too, all-or-nothing across items, and keeps the record in the first item's slot", async () => {
    const s = stores("once-deny");
    const limits = set("api", { algorithm: "fixed_window", limit: 1, periodMs: 60_000 });
    const redis = connect();
    await s.apply([{ limits, key: "u2", cost: 1 }], "consume", T0); // u2 is out of quota
    const items: StoreItem[] = [
      { limits, key: "u1", cost: 1 },
      { limits, key: "u2", cost: 1 },
    ];
    const first = await s.applyOnce(items, T0, { key: "api:k", ttlMs: 5000 });
    expect(first.replayed).toBe(false);
    expect(first.decisions.map((d) => d.allowed)).toEqual([false, false]);
    // u1 was not consumed (all-or-nothing); the retry replays the denial even though u1 could pass alone.
    const again = await s.applyOnce(items, T0, { key: "api:k", ttlMs: 5000 });
    expect(again.replayed).toBe(true);
    expect(again.decisions.map(plain)).toEqual(first.decisions.map(plain));
    const [u1] = await s.apply([{ limits, key: "u1", cost: 0 }], "peek", T0);
    expect(u1.remaining).toBe(1);
    const recordKey = `${(s as unknown as { keysOf: RedisStore["keysOf"] }).keysOf(limits, "u1")[0].split("}")[0]}}:idem:api:k`;
    const ttl = await redis.pttl(recordKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
    expect(keySlot(recordKey)).toBe(keySlot(s.keysOf(limits, "u1")[0]));
  });

  it("counts a retry again once the record has expired", async () => {
    const s = stores("once-ttl");
    const redis = connect();
    const limits = set("api", FIXED);
    const items: StoreItem[] = [{ limits, key: "u", cost: 1 }];
    const once = { key: "api:short", ttlMs: 30 };
    expect((await s.applyOnce(items, T0, once)).replayed).toBe(false);
    const recordKey = `${s.keysOf(limits, "u")[0].split("}")[0]}}:idem:api:short`;
    // Wait for Redis to expire the record (its PX), checking the key rather than the time.
    for (let i = 0; i < 500 && (await redis.exists(recordKey)) === 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await redis.exists(recordKey)).toBe(0);
    const retry = await s.applyOnce(items, T0, once);
    expect(retry).toMatchObject({ replayed: false, decisions: [{ remaining: 998 }] });
  });

  it("refuses a record that no longer fits the items, and validates its arguments", async () => {
    const s = stores("once-mismatch");
    const one = set("api", FIXED);
    const two = set("api", FIXED, { algorithm: "gcra", limit: 5, periodMs: 1000 });
    await s.applyOnce([{ limits: one, key: "u", cost: 1 }], T0, { key: "k", ttlMs: 5000 });
    const refused = s.applyOnce([{ limits: two, key: "u", cost: 1 }], T0, { key: "k", ttlMs: 5000 });
    await expect(refused).rejects.toMatchObject({ code: "ERR_SLUICE_UNSUPPORTED" });
    const items = [{ limits: one, key: "u", cost: 1 }];
    await expect(s.applyOnce(items, T0, { key: "", ttlMs: 5000 })).rejects.toThrow(/once.key must be/);
    await expect(s.applyOnce(items, T0, { key: "k", ttlMs: 0.5 })).rejects.toThrow(InvalidArgumentError);
    expect(await s.applyOnce([], T0, { key: "k", ttlMs: 1 })).toEqual({ decisions: [], replayed: false });
  });
});

describe("engine on Redis: idempotent checks", () => {
  const config: SluiceConfig = makeConfig({
    rules: makeRules([
      {
        id: "per-user",
        domain: "api",
        match: [any("user")],
        limits: [parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 1000, periodMs: 60_000 })],
        failurePolicy: "fallback",
      },
      {
        // Another failure policy: a second store call (group) of the same check.
        id: "per-ip",
        domain: "api",
        match: [any("ip")],
        limits: [parseLimitSpec({ name: "m", algorithm: "gcra", limit: 1000, periodMs: 60_000 })],
        failurePolicy: "fail_open",
      },
      {
        id: "shadow",
        domain: "api",
        match: [any("tenant")],
        limits: [parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 1000, periodMs: 60_000 })],
        behaviour: "shadow",
      },
    ]),
  });

  /** One "process": its own connection, store, engine and clock, over the keys of `prefix`. */
  function instance(prefix: string, options: Partial<RedisStoreOptions> = {}, ttlMs = 300_000) {
    const clock = new ManualClock(T0);
    const store = redisStore({ client: connect(), prefix, clock: "client", ...options });
    const engine = createEngine({
      config,
      store,
      clock,
      scheduler: clock,
      idempotency: { ttlMs },
      failure: { timeoutMs: Number.POSITIVE_INFINITY },
    });
    return { clock, store, engine };
  }

  const usage = async (engine: Engine, request: CheckRequest): Promise<CheckResult> =>
    engine.check({ ...request, idempotencyKey: undefined, costs: request.descriptors.map(() => 0) });

  for (const batch of [true, false]) {
    it(`counts concurrent retries from two engines once, each getting the first decision (batch: ${batch})`, async () => {
      const prefix = uniqueKeyPrefix(`engine-once-${batch}`).slice(0, -1);
      const a = instance(prefix, { batch });
      const b = instance(prefix, { batch });
      const keys = 12;
      const retries = 8;
      const request = (k: number): CheckRequest => ({
        domain: "api",
        descriptors: [user(`u${k % 3}`), ip(`10.0.0.${k % 4}`), [{ key: "tenant", value: "t" }]],
        idempotencyKey: `key-${k}`,
        nowMs: T0,
      });
      const calls: Promise<CheckResult>[] = [];
      for (let r = 0; r < retries; r++) {
        for (let k = 0; k < keys; k++) calls.push((r % 2 === 0 ? a : b).engine.check(request(k)));
      }
      const results = await Promise.all(calls);
      for (let k = 0; k < keys; k++) {
        const mine = results.filter((_, i) => i % keys === k);
        expect(mine.every((r) => r.allowed)).toBe(true);
        // One answer for every retry, whichever engine took it. Each engine decides once (its in-process record
        // answers its other retries); each store call (the user's group, the ip's group, the shadow tenant) has one
        // record, so when the two engines' calls interleave, each may win one record and replay the other: then
        // neither check is a whole replay, but every decision is the one recorded, counted once.
        const firsts = mine.filter((r) => !r.replayed);
        expect(firsts.length).toBeGreaterThanOrEqual(1);
        expect(firsts.length).toBeLessThanOrEqual(2);
        const shape = (r: CheckResult) =>
          r.descriptors.map((d) => (d.decision ? plain(d.decision) : undefined));
        for (const r of mine) expect(shape(r)).toEqual(shape(mine[0]));
        for (const r of mine.filter((x) => x.replayed)) expect(r.decision.reason).toBe("replay");
      }
      // Every key counted once per descriptor: 12 keys over 3 users, 4 ips, 1 tenant (shadow).
      const probe = await usage(a.engine, request(0));
      expect(probe.descriptors.map((d) => d.decision?.remaining)).toEqual([1000 - 4, 1000 - 3, 1000 - 12]);
      expect(a.engine.stats.unsharedIdempotent + b.engine.stats.unsharedIdempotent).toBe(0);
      // A second engine retrying what the first engine alone answered replays from Redis (no local record).
      const c = instance(prefix, { batch });
      const late = await c.engine.check(request(5));
      expect(late).toMatchObject({ replayed: true, allowed: true, decision: { reason: "replay" } });
      expect(c.engine.stats).toMatchObject({ checks: 1, replayed: 1 });
      // A different key counts.
      const fresh = await c.engine.check({ ...request(0), idempotencyKey: "another" });
      expect(fresh.replayed).toBe(false);
      expect(fresh.descriptors[0].decision?.remaining).toBe(1000 - 5);
    });
  }

  it("replays a denial, and counts a retry again once the record expired", async () => {
    const prefix = uniqueKeyPrefix("engine-once-ttl").slice(0, -1);
    const a = instance(prefix, {}, 40);
    const b = instance(prefix, {}, 40);
    const request: CheckRequest = { domain: "api", descriptors: [user("x")], idempotencyKey: "k", nowMs: T0 };
    const first = await a.engine.check(request);
    expect(first).toMatchObject({ replayed: false, decision: { remaining: 999 } });
    const replay = await b.engine.check(request);
    expect(replay).toMatchObject({ replayed: true, decision: { remaining: 999, reason: "replay" } });
    const redis = connect();
    const records = await redis.keys(`${prefix}:*:idem:*`);
    expect(records).toHaveLength(1);
    const recordKey = records[0];
    expect(recordKey.endsWith(":idem:api:k:0")).toBe(true);
    for (let i = 0; i < 500 && (await redis.exists(recordKey)) === 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Past the TTL on the engine's clock too (its in-process record), and in Redis (the record is gone).
    b.clock.advance(41);
    const again = await b.engine.check({ ...request, nowMs: T0 + 41 });
    expect(again).toMatchObject({ replayed: false, decision: { remaining: 998 } });
  });
});

describe("engine on a Redis Cluster: idempotent checks", () => {
  let startupNodes: { host: string; port: number }[];
  beforeAll(async () => {
    startupNodes = (await getSharedCluster()).startupNodes;
  });

  const config = makeConfig({
    rules: makeRules([
      {
        id: "per-user",
        domain: "api",
        match: [any("user")],
        limits: [parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 1000, periodMs: 60_000 })],
      },
    ]),
  });

  function instance(prefix: string) {
    const client = new Cluster(startupNodes);
    clients.push(client);
    const store = redisStore({ client, prefix, clock: "client" });
    return {
      client,
      store,
      engine: createEngine({ config, store, failure: { timeoutMs: Number.POSITIVE_INFINITY } }),
    };
  }

  it("counts concurrent retries once when the items share a master; spread over masters, in process only", async () => {
    const prefix = uniqueKeyPrefix("cluster-once").slice(0, -1);
    const a = instance(prefix);
    const b = instance(prefix);
    const one: CheckRequest = { domain: "api", descriptors: [user("c1")], idempotencyKey: "k", nowMs: T0 };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).engine.check(one)),
    );
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of results) expect(r.decision.remaining).toBe(999);
    const peek = await a.engine.check({ domain: "api", descriptors: [user("c1")], cost: 0, nowMs: T0 });
    expect(peek.decision.remaining).toBe(999);

    // Identities on different masters: no record can be atomic with both; the check still answers, counted.
    const limits = set("x", FIXED);
    const master = (id: string) => a.client.slots[keySlot(a.store.keysOf(limits, id)[0])]?.[0];
    const far = Array.from({ length: 64 }, (_, i) => `m${i}`).find((id) => master(id) !== master("c1"));
    expect(far).toBeDefined();
    const spread: CheckRequest = {
      domain: "api",
      descriptors: [user("c1"), user(far as string)],
      idempotencyKey: "spread",
      nowMs: T0,
    };
    expect(await a.engine.check(spread)).toMatchObject({ allowed: true, replayed: false });
    expect(a.engine.stats.unsharedIdempotent).toBe(1);
    expect(await a.engine.check(spread)).toMatchObject({ replayed: true }); // the in-process record
    const items = [
      { limits, key: "c1", cost: 1 },
      { limits, key: far as string, cost: 1 },
    ];
    await expect(b.store.applyOnce(items, T0, { key: "z", ttlMs: 1000 })).rejects.toMatchObject({
      code: "ERR_SLUICE_UNSUPPORTED",
    });
    // Nothing was applied by the refused call.
    const [c1] = await b.store.apply([{ ...items[0], cost: 0 }], "peek", T0);
    expect(c1.remaining).toBe(1000);
  });
});

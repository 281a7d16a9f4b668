// Idempotent checks on Redis (issue 6 §4): the record is checked and written in the same script call as the
// decision, so concurrent retries with one key count once even from two processes (two engines, each with its own
// ioredis connection and store), batched or not; a retry after the record expired, or with another key, counts.
// Replays keep the first decision's instant (byte-identical reset_at on the wire). Items spread over several nodes
// (Redis Cluster masters; a sharded store over private servers) are serialized by a claim on the record's node:
// 20 concurrent retries from two processes count once; a failed claimer leaves no claim; a waiting caller gets
// the record, or gives up typed after its bound; the script's and the ledger's records are one format; and the
// one documented bound (a claimer dying before its record) is shown.
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { parseLimitSpec } from "../../src/core/limit-spec.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import { type CheckRequest, type CheckResult, createEngine, type Engine } from "../../src/engine/engine.js";
import type { Descriptor, SluiceConfig } from "../../src/rules/rule.js";
import { any, makeConfig, makeRules } from "../../src/rules/testing-rules.js";
import { checkResponseOf } from "../../src/server/check-api.js";
import { keySlot } from "../../src/stores/redis/cluster-router.js";
import { type RedisStore, type RedisStoreOptions, redisStore } from "../../src/stores/redis/index.js";
import { shardedStore } from "../../src/stores/sharded-store.js";
import type { OnceResult, StoreItem } from "../../src/stores/store.js";
import { set } from "../support/limit-sets.js";
import { getSharedCluster, getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";

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
  return connectTo(url);
}

/** Disconnects every client of `servers` (before they stop, so none retries against a closed port). */
function disconnectFrom(servers: readonly RedisProcess[]): void {
  const ports = new Set(servers.map((s) => s.port));
  for (const c of clients) if (c instanceof Redis && ports.has(c.options.port as number)) c.disconnect();
}

/** A new connection to the server at `to`. */
function connectTo(to: string): Redis {
  const c = new Redis(to);
  clients.push(c);
  return c;
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
    expect(recordKey).toMatch(/:idem:api:k:[0-9a-f]{16}:0$/); // domain, key, request fingerprint, group
    for (let i = 0; i < 500 && (await redis.exists(recordKey)) === 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Past the TTL on the engine's clock too (its in-process record), and in Redis (the record is gone).
    b.clock.advance(41);
    const again = await b.engine.check({ ...request, nowMs: T0 + 41 });
    expect(again).toMatchObject({ replayed: false, decision: { remaining: 998 } });
  });
});

describe("engine on Redis: replays keep the first decision's instant", () => {
  it("answers byte-identical reset_at / reset_at_ms from another engine later, relative fields from that instant", async () => {
    const prefix = uniqueKeyPrefix("engine-instant").slice(0, -1);
    const engineAt = (startMs: number) => {
      const clock = new ManualClock(startMs);
      const store = redisStore({ client: connect(), prefix, clock: "client" });
      return { clock, engine: createEngine({ config: perUser, store, clock, scheduler: clock }) };
    };
    const a = engineAt(T0 + 0.25);
    const b = engineAt(T0 + 1234.5);
    const request: CheckRequest = { domain: "api", descriptors: [user("i")], idempotencyKey: "instant" };
    const first = await a.engine.check(request);
    expect(first).toMatchObject({ replayed: false, decidedAtMs: T0 + 0.25 });
    const replay = await b.engine.check(request); // no in-process record: Redis's, with the recorded instant
    expect(replay).toMatchObject({ replayed: true, decidedAtMs: T0 + 0.25 });
    a.clock.advance(700);
    const local = await a.engine.check(request); // the in-process record
    expect(local).toMatchObject({ replayed: true, decidedAtMs: T0 + 0.25 });
    const wire = [
      checkResponseOf(first, T0 + 0.25),
      checkResponseOf(replay, b.clock.nowMs()),
      checkResponseOf(local, a.clock.nowMs()),
    ];
    const absolute = wire.map((w) =>
      JSON.stringify([w.allowed, w.limit, w.remaining, w.reset_at, w.reset_at_ms]),
    );
    expect(new Set(absolute).size).toBe(1);
    expect(wire[0].reset_at_ms).toBe(Math.ceil(T0 + 0.25 + wire[0].policies[0].reset_after_ms));
    // Relative fields: what is left at the answer's own time, never negative.
    expect(wire[1].policies[0].reset_after_ms).toBe(wire[0].policies[0].reset_after_ms - 1234);
    expect(wire[2].policies[0].reset_after_ms).toBe(wire[0].policies[0].reset_after_ms - 700);
    expect(wire[1].descriptors[0].reset_after_ms).toBe(wire[1].policies[0].reset_after_ms);
    const long = checkResponseOf(replay, T0 + 3_600_000);
    expect(long).toMatchObject({ reset_at_ms: wire[0].reset_at_ms, retry_after_ms: 0 });
    expect(long.policies[0].reset_after_ms).toBe(0);
  });
});

/** Resolves once `client` is connected (its slot table loaded, for a Cluster). */
async function ready(client: Redis | Cluster): Promise<void> {
  if (client.status !== "ready") await new Promise((resolve) => client.once("ready", resolve));
}

/** Polls until `probe` holds, at most ~10 s (a wait for real servers; never an assertion on time). */
async function until(probe: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000 && !(await probe()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The check as the caller sees it: allowed, the descriptors' decisions, and the decision's instant. */
const answerOf = (r: CheckResult) => ({
  allowed: r.allowed,
  decidedAtMs: r.decidedAtMs,
  descriptors: r.descriptors.map((d) => (d.decision ? plain(d.decision) : undefined)),
});

const perUser = makeConfig({
  rules: makeRules([
    {
      id: "per-user",
      domain: "api",
      match: [any("user")],
      limits: [parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 1000, periodMs: 60_000 })],
    },
  ]),
});

describe("engine on a Redis Cluster: idempotent checks", () => {
  let startupNodes: { host: string; port: number }[];
  beforeAll(async () => {
    startupNodes = (await getSharedCluster()).startupNodes;
  });

  /** One "process": its own cluster client, store and engine. */
  async function instance(prefix: string, options: Partial<RedisStoreOptions> = {}) {
    const client = new Cluster(startupNodes, { retryDelayOnFailover: 0 });
    clients.push(client);
    await ready(client);
    const store = redisStore({ client, prefix, clock: "client", ...options });
    return {
      client,
      store,
      engine: createEngine({ config: perUser, store, failure: { timeoutMs: Number.POSITIVE_INFINITY } }),
    };
  }

  /** `n` identities whose keys live on `n` different masters. */
  function spreadIdentities(client: Cluster, store: RedisStore, n: number): string[] {
    const limits = set("x", FIXED);
    const masterOf = (id: string) => client.slots[keySlot(store.keysOf(limits, id)[0])]?.[0];
    const picked = new Map<string, string>();
    for (let i = 0; i < 256 && picked.size < n; i++) {
      const master = masterOf(`m${i}`);
      if (master !== undefined && !picked.has(master)) picked.set(master, `m${i}`);
    }
    expect(picked.size).toBe(n);
    return [...picked.values()];
  }

  it("counts concurrent retries once when the items share a master, in the decision's own script call", async () => {
    const prefix = uniqueKeyPrefix("cluster-once").slice(0, -1);
    const a = await instance(prefix);
    const b = await instance(prefix);
    const one: CheckRequest = { domain: "api", descriptors: [user("c1")], idempotencyKey: "k", nowMs: T0 };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).engine.check(one)),
    );
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of results) expect(r).toMatchObject({ decidedAtMs: T0, decision: { remaining: 999 } });
    const peek = await a.engine.check({ domain: "api", descriptors: [user("c1")], cost: 0, nowMs: T0 });
    expect(peek.decision.remaining).toBe(999);
    // No claim was taken: the record is the script's own, written once.
    const all: string[] = [];
    for (const node of a.client.nodes("master"))
      all.push(...(await (node as Redis).keys(`${prefix}:*:idem:*`)));
    const values = await Promise.all(all.map((k) => a.client.get(k)));
    expect(values).toHaveLength(1);
    expect(values[0]?.startsWith(`${T0};`)).toBe(true);
  });

  it("counts 20 concurrent retries from two engines once when the items span three masters", async () => {
    const prefix = uniqueKeyPrefix("cluster-spread").slice(0, -1);
    const a = await instance(prefix);
    const b = await instance(prefix);
    const ids = spreadIdentities(a.client, a.store, 3);
    const spread: CheckRequest = {
      domain: "api",
      descriptors: ids.map(user),
      idempotencyKey: "spread",
      nowMs: T0,
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).engine.check(spread)),
    );
    // One engine claimed, consumed on the three masters and recorded; the other waited for the record.
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const first = answerOf(results.find((r) => !r.replayed) as CheckResult);
    expect(first).toMatchObject({ allowed: true, decidedAtMs: T0 });
    for (const r of results) expect(answerOf(r)).toEqual(first);
    for (const id of ids) {
      const peek = await a.engine.check({ domain: "api", descriptors: [user(id)], cost: 0, nowMs: T0 });
      expect(peek.decision.remaining).toBe(999);
    }
    expect(a.engine.stats.unsharedIdempotent + b.engine.stats.unsharedIdempotent).toBe(0);
    // A third process, later: the record (not a claim) answers, with the first decision's instant.
    const c = await instance(prefix);
    const late = await c.engine.check({ ...spread, nowMs: T0 + 1234 });
    expect(late.replayed).toBe(true);
    expect(answerOf(late)).toEqual(first);
    const response = checkResponseOf(late, T0 + 1234);
    expect(response.reset_at_ms).toBe(checkResponseOf(results[0], T0).reset_at_ms);
  });

  it("counts 20 concurrent store calls from two stores once; a caller waiting on a claim gets the record", async () => {
    const prefix = uniqueKeyPrefix("cluster-store-spread").slice(0, -1);
    const a = await instance(prefix);
    const b = await instance(prefix);
    const limits = set("api", FIXED);
    const items: StoreItem[] = spreadIdentities(a.client, a.store, 3).map((key) => ({
      limits,
      key,
      cost: 1,
    }));
    const once = { key: "api:s", ttlMs: 60_000 };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).store.applyOnce(items, T0 + i, once)),
    );
    expect(answers.filter((r) => !r.replayed)).toHaveLength(1);
    const first = answers.find((r) => !r.replayed);
    for (const r of answers) {
      expect(r.decisions.map(plain)).toEqual(first?.decisions.map(plain));
      expect(r.decidedAtMs).toBe(first?.decidedAtMs);
    }
    const peeks = await a.store.apply(
      items.map((it) => ({ ...it, cost: 0 })),
      "peek",
      T0,
    );
    expect(peeks.map((d) => d.remaining)).toEqual([999, 999, 999]);
  });
});

describe("sharded store over independent Redis nodes: idempotent checks", () => {
  const servers: RedisProcess[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) servers.push(await startRedis());
  }, 60_000);
  afterAll(async () => {
    disconnectFrom(servers);
    await Promise.all(servers.map((s) => s.stop()));
  });

  /** One "process": its own client per node (failing fast while a node is down) and sharded store over them. */
  async function shardsOf(
    prefix: string,
    nodes: readonly RedisProcess[],
    options: { scheduler?: ManualClock; claimTtlMs?: number } = {},
  ) {
    const stores: RedisStore[] = [];
    for (const s of nodes) {
      const client = new Redis(s.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      client.on("error", () => {}); // a node down (the failure test): its calls fail, the client reconnects
      clients.push(client);
      await ready(client);
      stores.push(
        redisStore({ client, prefix, clock: "client", scheduler: options.scheduler, onWarning: () => {} }),
      );
    }
    const sharded = shardedStore({
      shards: stores.map((store, i) => ({ id: `r${i}`, store })),
      scheduler: options.scheduler,
      claimTtlMs: options.claimTtlMs,
    });
    return { stores, sharded };
  }

  /** Identities owned by the shards in `order` (one each), by the ring of `sharded`. */
  function onShards(sharded: ReturnType<typeof shardedStore>, order: readonly string[]): string[] {
    return order.map((id) => {
      const found = Array.from({ length: 512 }, (_, i) => `s${i}`).find((k) => sharded.shardFor(k) === id);
      expect(found).toBeDefined();
      return found as string;
    });
  }

  it("counts 20 concurrent retries from two engines once when the items span three nodes", async () => {
    const prefix = uniqueKeyPrefix("sharded-once").slice(0, -1);
    const processes = [await shardsOf(prefix, servers), await shardsOf(prefix, servers)];
    const engines = processes.map((p) =>
      createEngine({ config: perUser, store: p.sharded, failure: { timeoutMs: Number.POSITIVE_INFINITY } }),
    );
    const ids = onShards(processes[0].sharded, ["r0", "r1", "r2"]);
    const request: CheckRequest = {
      domain: "api",
      descriptors: ids.map(user),
      idempotencyKey: "k",
      nowMs: T0,
    };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => engines[i % 2].check(request)));
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const first = answerOf(results.find((r) => !r.replayed) as CheckResult);
    expect(first).toMatchObject({ allowed: true, decidedAtMs: T0 });
    for (const r of results) expect(answerOf(r)).toEqual(first);
    const probe = await engines[0].check({ domain: "api", descriptors: ids.map(user), cost: 0, nowMs: T0 });
    expect(probe.descriptors.map((d) => d.decision?.remaining)).toEqual([999, 999, 999]);
    expect(engines[0].stats.unsharedIdempotent + engines[1].stats.unsharedIdempotent).toBe(0);
    // Store calls from two processes, 20 at once, another record: counted once too.
    const limits = set("api", FIXED);
    const items = ids.map((key) => ({ limits, key, cost: 1 }));
    const once = { key: "store-level", ttlMs: 60_000 };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => processes[i % 2].sharded.applyOnce(items, T0 + i, once)),
    );
    expect(answers.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of answers) expect(r.decisions.map(plain)).toEqual(answers[0].decisions.map(plain));
    const peeks = await processes[1].sharded.apply(
      items.map((it) => ({ ...it, cost: 0 })),
      "peek",
      T0,
    );
    expect(peeks.map((d) => d.remaining)).toEqual([999, 999, 999]);
  });

  it("a claimer whose consume fails leaves no claim behind, and a retry then counts once", async () => {
    const prefix = uniqueKeyPrefix("sharded-fail").slice(0, -1);
    const doomed = await startRedis();
    try {
      const { stores, sharded } = await shardsOf(prefix, [servers[0], doomed]);
      const [onLive, onDoomed] = onShards(sharded, ["r0", "r1"]);
      const limits = set("api", FIXED);
      const items = [
        { limits, key: onLive, cost: 1 },
        { limits, key: onDoomed, cost: 1 },
      ];
      const once = { key: "api:fail", ttlMs: 60_000 };
      await doomed.kill("SIGKILL");
      await expect(sharded.applyOnce(items, T0, once)).rejects.toMatchObject({
        code: "ERR_SLUICE_STORE_UNAVAILABLE",
      });
      // No claim (nor record) left on the record's node, and the live node's unit was given back.
      const raw = new Redis(servers[0].url);
      clients.push(raw);
      expect(await raw.keys(`${prefix}:*:idem:*`)).toEqual([]);
      const [peek] = await stores[0].apply([{ limits, key: onLive, cost: 0 }], "peek", T0);
      expect(peek.remaining).toBe(1000);
      // The node is back (its client reconnected): the retry claims at once and counts once.
      await doomed.start();
      await until(async () => {
        try {
          await stores[1].apply([{ limits, key: onDoomed, cost: 0 }], "peek", T0);
          return true;
        } catch {
          return false;
        }
      });
      const retry = await sharded.applyOnce(items, T0 + 1, once);
      expect(retry).toMatchObject({ replayed: false, decidedAtMs: T0 + 1 });
      const again = await sharded.applyOnce(items, T0 + 2, once);
      expect(again).toMatchObject({ replayed: true, decidedAtMs: T0 + 1 });
      const peeks = await sharded.apply(
        items.map((it) => ({ ...it, cost: 0 })),
        "peek",
        T0,
      );
      expect(peeks.map((d) => d.remaining)).toEqual([999, 999]);
    } finally {
      disconnectFrom([doomed]);
      await doomed.stop();
    }
  }, 30_000);
});

describe("idempotency claims on Redis: waiting, bounds, one record format", () => {
  const servers: RedisProcess[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) servers.push(await startRedis());
  }, 60_000);
  afterAll(async () => {
    disconnectFrom(servers);
    await Promise.all(servers.map((s) => s.stop()));
  });

  async function storeOn(url: string, prefix: string, options: Partial<RedisStoreOptions> = {}) {
    const client = new Redis(url);
    clients.push(client);
    await ready(client);
    return redisStore({ client, prefix, clock: "client", onWarning: () => {}, ...options });
  }

  /** Advances `clock` by `stepMs` whenever `promise`'s caller sleeps on it, until `promise` settles. */
  async function drive<T>(clock: ManualClock, promise: Promise<T>, stepMs: number): Promise<T | unknown> {
    let done = false;
    const outcome = promise.then(
      (v) => v,
      (e: unknown) => e,
    );
    void outcome.finally(() => {
      done = true;
    });
    while (!done) {
      await until(() => done || clock.pendingSleeps > 0);
      clock.advance(stepMs);
    }
    return outcome;
  }

  it("a caller finding another caller's claim (items on two nodes) waits and replays its record", async () => {
    const prefix = uniqueKeyPrefix("claim-wait").slice(0, -1);
    const clock = new ManualClock(T0);
    const holderStores = [await storeOn(servers[0].url, prefix), await storeOn(servers[1].url, prefix)];
    const holder = shardedStore({ shards: holderStores.map((store, i) => ({ id: `r${i}`, store })) });
    const waiterStores = [
      await storeOn(servers[0].url, prefix, { scheduler: clock }),
      await storeOn(servers[1].url, prefix, { scheduler: clock }),
    ];
    const waiter = shardedStore({
      shards: waiterStores.map((store, i) => ({ id: `r${i}`, store })),
      scheduler: clock,
    });
    const key = (shard: string) =>
      Array.from({ length: 512 }, (_, i) => `w${i}`).find((k) => holder.shardFor(k) === shard) as string;
    const limits = set("api", FIXED);
    const items = [
      { limits, key: key("r1"), cost: 1 },
      { limits, key: key("r0"), cost: 1 },
    ];
    const once = { key: "api:wait", ttlMs: 60_000 };
    // The holder claims on the first item's node, as the sharded store would.
    const ledger = holderStores[1].onceLedger(items, once);
    expect(await ledger.claim("holder", 60_000)).toEqual({ state: "claimed" });
    const waiting = waiter.applyOnce(items, T0 + 50, once);
    await until(() => clock.pendingSleeps > 0);
    const decisions = await holder.apply(items, "consume", T0);
    await ledger.record("holder", decisions, T0);
    const got = (await drive(clock, waiting, 2)) as OnceResult;
    expect(got).toMatchObject({ replayed: true, decidedAtMs: T0 });
    expect(got.decisions.map(plain)).toEqual(decisions.map(plain));
    const peeks = await holder.apply(
      items.map((it) => ({ ...it, cost: 0 })),
      "peek",
      T0,
    );
    expect(peeks.map((d) => d.remaining)).toEqual([999, 999]);

    // A claim never recorded (its claimer stuck): a waiter gives up after its bound, typed, counting nothing.
    const bounded = shardedStore({
      shards: waiterStores.map((store, i) => ({ id: `r${i}`, store })),
      scheduler: clock,
      claimTtlMs: 100,
    });
    const stuck = { key: "api:stuck", ttlMs: 60_000 };
    await holderStores[1].onceLedger(items, stuck).claim("stuck", 60_000);
    const error = await drive(clock, bounded.applyOnce(items, T0, stuck), 50);
    expect(error).toMatchObject({ code: "ERR_SLUICE_IDEMPOTENCY_PENDING" });
    const after = await holder.apply(
      items.map((it) => ({ ...it, cost: 0 })),
      "peek",
      T0,
    );
    expect(after.map((d) => d.remaining)).toEqual([999, 999]);
  });

  it("on one node, a claim makes the decision's script call wait too, then replay the record", async () => {
    const prefix = uniqueKeyPrefix("claim-one-node").slice(0, -1);
    const clock = new ManualClock(T0);
    const s = await storeOn(servers[0].url, prefix, { scheduler: clock });
    const items = [{ limits: set("api", FIXED), key: "solo", cost: 1 }];
    const once = { key: "api:solo", ttlMs: 60_000 };
    const ledger = s.onceLedger(items, once);
    await ledger.claim("other", 60_000);
    const waiting = s.applyOnce(items, T0 + 9, once);
    await until(() => clock.pendingSleeps > 0);
    const decisions = await s.apply(items, "consume", T0);
    await ledger.record("other", decisions, T0);
    const got = (await drive(clock, waiting, 2)) as OnceResult;
    expect(got).toMatchObject({ replayed: true, decidedAtMs: T0, decisions: [{ remaining: 999 }] });
    const [peek] = await s.apply([{ ...items[0], cost: 0 }], "peek", T0);
    expect(peek.remaining).toBe(999);
  });

  it("reads the script's records through the ledger and the ledger's through the script (one format)", async () => {
    const prefix = uniqueKeyPrefix("claim-format").slice(0, -1);
    const s = await storeOn(servers[0].url, prefix);
    const multi = set(
      "api",
      FIXED,
      { algorithm: "concurrency", limit: 5, periodMs: 60_000 },
      { algorithm: "gcra", limit: 10, periodMs: 1000 },
    );
    const tight = set("api", { algorithm: "fixed_window", limit: 1, periodMs: 60_000 });
    const admitted: StoreItem[] = [
      { limits: multi, key: "f1", cost: 1 },
      { limits: tight, key: "f2", cost: 1 },
    ];
    const denied: StoreItem[] = [
      { limits: multi, key: "f3", cost: 1 },
      { limits: tight, key: "f2", cost: 1 }, // f2 is spent by the first record's consume
    ];
    // Written by the script (op 6), read by the ledger.
    const byScript = await s.applyOnce(admitted, T0 + 0.5, { key: "a", ttlMs: 60_000 });
    expect(byScript.decisions.map((d) => d.allowed)).toEqual([true, true]);
    expect(byScript.decisions[0].leases).toBeDefined();
    const read = await s.onceLedger(admitted, { key: "a", ttlMs: 60_000 }).claim("t", 1000);
    expect(read.state).toBe("recorded");
    if (read.state !== "recorded") return;
    expect(read.decidedAtMs).toBe(T0 + 0.5);
    expect(read.decisions.map(plain)).toEqual(byScript.decisions.map(plain));
    expect(read.decisions.map((d) => d.leases)).toEqual(byScript.decisions.map((d) => d.leases));
    // Written by the ledger, read by the script: an admitted answer with leases, and a denial.
    for (const [name, items] of [
      ["b", admitted],
      ["c", denied],
    ] as const) {
      const ledger = s.onceLedger(items, { key: name, ttlMs: 60_000 });
      expect(await ledger.claim("t", 1000)).toEqual({ state: "claimed" });
      const decisions = await s.apply(items, "consume", T0 + 1);
      await ledger.record("t", decisions, T0 + 1);
      const replay = await s.applyOnce(items, T0 + 2, { key: name, ttlMs: 60_000 });
      expect(replay).toMatchObject({ replayed: true, decidedAtMs: T0 + 1 });
      expect(replay.decisions.map(plain)).toEqual(decisions.map(plain));
      expect(replay.decisions.map((d) => d.leases)).toEqual(decisions.map((d) => d.leases));
    }
  });

  it("the documented bound: a claimer that dies before recording lets a retry after the claim's TTL count again", async () => {
    const prefix = uniqueKeyPrefix("claim-dead").slice(0, -1);
    const a = await storeOn(servers[0].url, prefix);
    const b = await storeOn(servers[1].url, prefix);
    const dead = shardedStore({
      shards: [
        { id: "r0", store: a },
        { id: "r1", store: b },
      ],
      claimTtlMs: 30,
    });
    const key = (shard: string) =>
      Array.from({ length: 512 }, (_, i) => `d${i}`).find((k) => dead.shardFor(k) === shard) as string;
    const limits = set("api", FIXED);
    const items = [
      { limits, key: key("r0"), cost: 1 },
      { limits, key: key("r1"), cost: 1 },
    ];
    const once = { key: "api:dead", ttlMs: 60_000 };
    // "Dies": claims and consumes, never records.
    await a.onceLedger(items, once).claim("dead", 30);
    await dead.apply(items, "consume", T0);
    const raw = connectTo(servers[0].url);
    await until(async () => (await raw.keys(`${prefix}:*:idem:*`)).length === 0); // Redis expired the claim
    const retry = await dead.applyOnce(items, T0, once);
    expect(retry.replayed).toBe(false);
    const peeks = await dead.apply(
      items.map((it) => ({ ...it, cost: 0 })),
      "peek",
      T0,
    );
    expect(peeks.map((d) => d.remaining)).toEqual([998, 998]); // counted twice: the bound, as documented
  });
});

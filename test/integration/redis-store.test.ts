// The Redis store against real redis-server processes: key layout and TTLs, NOSCRIPT recovery, the server
// clock, concurrency leases, all-or-nothing across limits and items, batching, and input validation.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import type { Decision } from "../../src/core/decision.js";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import { createLimiter } from "../../src/engine/limiter.js";
import { type RedisScriptClient, type RedisStoreOptions, redisStore } from "../../src/stores/redis/index.js";
import type { StoreItem, StoreOp } from "../../src/stores/store.js";
import { ReferenceStore } from "../../src/testing/index.js";
import { set } from "../support/limit-sets.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";
import { startRedis } from "../support/redis-server.js";

const T0 = 1_700_000_000_000; // a multiple of every period used here

let client: Redis;
beforeAll(async () => {
  client = new Redis((await getSharedRedis()).url);
});
afterAll(() => {
  client.disconnect();
});

/** A client wrapper recording how many EVALSHA / EVAL calls reach Redis. */
class CountingClient implements RedisScriptClient {
  evalshaCalls = 0;
  evalCalls = 0;
  constructor(readonly inner: RedisScriptClient) {}
  evalsha(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown> {
    this.evalshaCalls++;
    return this.inner.evalsha(sha, numKeys, ...args);
  }
  eval(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown> {
    this.evalCalls++;
    return this.inner.eval(script, numKeys, ...args);
  }
  get calls(): number {
    return this.evalshaCalls + this.evalCalls;
  }
}
/**
 * A client wrapper that holds back EVALSHA replies while closed (the commands reach Redis at once; only their
 * answers wait for `open()`), recording how many keys each EVALSHA named: one per item here.
 */
class GatedClient implements RedisScriptClient {
  readonly keyCounts: number[] = [];
  #held: (() => Promise<void>)[] = [];
  #closed = false;
  constructor(readonly inner: RedisScriptClient) {}
  evalsha(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown> {
    this.keyCounts.push(numKeys);
    const reply = this.inner.evalsha(sha, numKeys, ...args);
    if (!this.#closed) return reply;
    return new Promise((resolve, reject) => {
      this.#held.push(() => reply.then(resolve, reject));
    });
  }
  eval(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown> {
    return this.inner.eval(script, numKeys, ...args);
  }
  close(): void {
    this.#closed = true;
  }
  /** Lets the held replies through (in order) and every later one. */
  open(): void {
    this.#closed = false;
    for (const release of this.#held.splice(0)) release();
  }
  /** Lets the oldest held reply through once Redis has sent it; later ones stay held. */
  async answerOne(): Promise<void> {
    await this.#held.shift()?.();
  }
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function store(options: Partial<RedisStoreOptions> & { label: string }) {
  const { label, ...rest } = options;
  return redisStore({ client, prefix: uniqueKeyPrefix(label).slice(0, -1), ...rest });
}

/** The fields a caller sees, as plain data (leases included). */
function plain(d: Decision) {
  return {
    policy: d.policy,
    allowed: d.allowed,
    remaining: d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: d.retryAfterMs,
    state: d.state,
    leases: d.leases,
    policies: d.policies.map((p) => ({ ...p })),
  };
}

describe("redis store: keys", () => {
  it("names keys <prefix>:{<identity>}:<namespace>:<policy>, encoding what would break the layout", () => {
    const s = redisStore({ client });
    const limits = set(
      "api",
      { algorithm: "gcra", limit: 1, periodMs: 1000 },
      { algorithm: "fixed_window", limit: 1, periodMs: 1000 },
    );
    expect(s.keysOf(limits, "user:42")).toEqual(["rl:{user:42}:api:l0", "rl:{user:42}:api:l1"]);
    expect(s.keysOf(limits, "a}b%c{d")).toEqual(["rl:{a%7Db%25c{d}:api:l0", "rl:{a%7Db%25c{d}:api:l1"]);
    const odd = createLimitSet("a:b", [parseLimitSpec({ name: "c%:d", limit: 1, periodMs: 1000 })]);
    expect(s.keysOf(odd, "k")).toEqual(["rl:{k}:a%3Ab:c%25%3Ad"]);
    const custom = redisStore({ client, keyOf: (key, ns, policy) => `x:{${key}}:${ns}/${policy}` });
    expect(custom.keysOf(limits, "u")).toEqual(["x:{u}:api/l0", "x:{u}:api/l1"]);
  });

  it("gives every key a TTL equal to the time it holds information, plus the margin", async () => {
    const margin = 250;
    const s = store({ label: "ttl", clock: "client", ttlMarginMs: margin });
    const now = T0 + 300; // 300 ms into a 1 s window
    const cases: [LimitSpecInput, number, number][] = [
      // [limit, cost, idle ms after the consume]
      [{ algorithm: "gcra", limit: 5, periodMs: 1000 }, 3, 600],
      [{ algorithm: "token_bucket", limit: 10, periodMs: 1000 }, 4, 400],
      [{ algorithm: "leaky_bucket", limit: 10, periodMs: 2000 }, 1, 200],
      [{ algorithm: "fixed_window", limit: 5, periodMs: 1000 }, 1, 700],
      [{ algorithm: "sliding_window", limit: 5, periodMs: 1000 }, 1, 1700],
      [{ algorithm: "sliding_log", limit: 5, periodMs: 1000 }, 2, 1000],
      [{ algorithm: "bucketed_window", limit: 5, periodMs: 1000, bucketMs: 100 }, 1, 1000],
      [{ algorithm: "concurrency", limit: 5, periodMs: 5000 }, 1, 5000],
    ];
    for (const [limit, cost, idle] of cases) {
      const limits = set(`ttl-${limit.algorithm}`, limit);
      const [d] = await s.apply([{ limits, key: "u", cost }], "consume", now);
      expect(d.allowed).toBe(true);
      const pttl = await client.pttl(s.keysOf(limits, "u")[0]);
      expect(pttl, limit.algorithm).toBeLessThanOrEqual(idle + margin);
      expect(pttl, limit.algorithm).toBeGreaterThan(idle + margin - 200);
    }
    // A refund back to fresh leaves only the margin; a reset deletes the key.
    const limits = set("ttl-gcra", { algorithm: "gcra", limit: 5, periodMs: 1000 });
    const key = s.keysOf(limits, "u")[0];
    await s.apply([{ limits, key: "u", cost: 3 }], "refund", now);
    const pttl = await client.pttl(key);
    expect(pttl).toBeLessThanOrEqual(margin);
    expect(pttl).toBeGreaterThan(margin - 200);
    await s.apply([{ limits, key: "u", cost: 0 }], "reset", now);
    expect(await client.exists(key)).toBe(0);
    // A denial writes nothing, so it leaves the TTL alone; a key never consumed is never created.
    const fixed = set("ttl-deny", { algorithm: "fixed_window", limit: 1, periodMs: 60_000 });
    await s.apply([{ limits: fixed, key: "u", cost: 5 }], "consume", now);
    await s.apply([{ limits: fixed, key: "u", cost: 1 }], "peek", now);
    expect(await client.exists(s.keysOf(fixed, "u")[0])).toBe(0);
    await s.close();
  });

  it("writes nothing for a refund of a key with nothing in use: never stored, or idle", async () => {
    const s = store({ label: "idle-refund", clock: "client" });
    const bucket = set("idle-refund", { algorithm: "token_bucket", limit: 10, periodMs: 1000, burst: 4 });
    const key = s.keysOf(bucket, "u")[0];
    expect((await s.apply([{ limits: bucket, key: "u", cost: 9 }], "consume", T0))[0].allowed).toBe(false);
    await s.apply([{ limits: bucket, key: "u", cost: 1 }], "refund", T0 + 100);
    expect(await client.exists(key)).toBe(0);
    await s.apply([{ limits: bucket, key: "u", cost: 1 }], "consume", T0); // stored; idle from +100
    const stored = await client.getBuffer(key);
    await s.apply([{ limits: bucket, key: "u", cost: 1 }], "refund", T0 + 1000);
    expect(await client.getBuffer(key)).toEqual(stored); // its last time stays: a lagging clock sees no refund
    await s.close();
  });

  it("treats a key written by another algorithm as fresh", async () => {
    const s = store({ label: "algo-change", clock: "client" });
    const a = createLimitSet("n", [
      parseLimitSpec({ name: "p", algorithm: "gcra", limit: 2, periodMs: 60_000 }),
    ]);
    const b = createLimitSet("n", [
      parseLimitSpec({ name: "p", algorithm: "fixed_window", limit: 2, periodMs: 60_000 }),
    ]);
    await s.apply([{ limits: a, key: "u", cost: 2 }], "consume", T0);
    expect((await s.apply([{ limits: a, key: "u", cost: 1 }], "peek", T0))[0].allowed).toBe(false);
    const [d] = await s.apply([{ limits: b, key: "u", cost: 2 }], "consume", T0);
    expect(d.allowed).toBe(true);
    expect(d.remaining).toBe(0);
    await s.close();
  });
});

describe("redis store: scripts", () => {
  it("recovers from NOSCRIPT (SCRIPT FLUSH) by sending the script again", async () => {
    const server = await startRedis();
    const raw = new Redis(server.url);
    try {
      const counted = new CountingClient(raw);
      const s = redisStore({ client: counted, clock: "client" });
      const limits = set("noscript", { algorithm: "gcra", limit: 10, periodMs: 1000 });
      const first = await s.apply([{ limits, key: "u", cost: 1 }], "consume", T0);
      expect(first[0].remaining).toBe(9);
      expect(counted.evalCalls).toBe(1); // a fresh server: EVALSHA failed with NOSCRIPT, EVAL loaded it
      await raw.script("FLUSH");
      const before = counted.evalCalls;
      const again = await s.apply([{ limits, key: "u", cost: 1 }], "consume", T0);
      expect(again[0].remaining).toBe(8);
      expect(counted.evalCalls).toBe(before + 1);
      await s.apply([{ limits, key: "u", cost: 1 }], "consume", T0);
      expect(counted.evalCalls).toBe(before + 1); // cached again: EVALSHA only
      await s.close();
    } finally {
      raw.disconnect();
      await server.stop();
    }
  });

  it("reports a dead server as ERR_SLUICE_STORE_UNAVAILABLE", async () => {
    const server = await startRedis();
    const raw = new Redis(server.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    raw.on("error", () => {}); // reconnect attempts after the kill
    try {
      await new Promise((resolve) => raw.once("ready", resolve));
      const s = redisStore({ client: raw, clock: "client" });
      const limits = set("dead", { algorithm: "gcra", limit: 10, periodMs: 1000 });
      await s.apply([{ limits, key: "u", cost: 1 }], "consume", T0);
      await server.kill("SIGKILL");
      await expect(s.apply([{ limits, key: "u", cost: 1 }], "consume", T0)).rejects.toMatchObject({
        code: "ERR_SLUICE_STORE_UNAVAILABLE",
      });
    } finally {
      raw.disconnect();
      await server.stop();
    }
  });
});

describe("redis store: the server clock", () => {
  it("lets processes with clocks skewed by ±5 s agree (TIME inside the script)", async () => {
    const prefix = uniqueKeyPrefix("time").slice(0, -1);
    const limits: LimitSpecInput = { algorithm: "gcra", limit: 4, periodMs: 60_000 };
    const ahead = new ManualClock(T0 + 5_000);
    const behind = new ManualClock(T0 - 5_000);
    const a = createLimiter({ store: redisStore({ client, prefix }), limits, clock: ahead, name: "skew" });
    const b = createLimiter({ store: redisStore({ client, prefix }), limits, clock: behind, name: "skew" });
    const got: number[] = [];
    for (let i = 0; i < 3; i++) {
      got.push((await a.limit("u")).remaining);
      got.push((await b.limit("u")).remaining);
    }
    expect(got).toEqual([3, 2, 1, 0, 0, 0]); // one shared schedule; 15 s per unit, so nothing refills meanwhile
    const denied = await b.limit("u");
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(14_000);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(15_000);

    // The same calls trusting each client's clock disagree: the late clock sees the early one's debt as larger.
    const prefix2 = uniqueKeyPrefix("time-client").slice(0, -1);
    const c = createLimiter({
      store: redisStore({ client, prefix: prefix2, clock: "client" }),
      limits,
      clock: ahead,
      name: "skew",
    });
    const d = createLimiter({
      store: redisStore({ client, prefix: prefix2, clock: "client" }),
      limits,
      clock: behind,
      name: "skew",
    });
    const skewed = [(await c.limit("u")).remaining, (await d.limit("u")).remaining];
    expect(skewed).toEqual([3, 1]);
  });

  it("ignores the caller's nowMs with the server clock", async () => {
    const s = store({ label: "time-ignore" });
    const limits = set("n", { algorithm: "fixed_window", limit: 2, periodMs: 3_600_000 });
    const [d] = await s.apply([{ limits, key: "u", cost: 1 }], "consume", 0);
    expect(d.allowed).toBe(true);
    expect(d.resetAfterMs).toBeGreaterThan(0);
    expect(d.resetAfterMs).toBeLessThanOrEqual(3_600_000);
    await s.close();
  });
});

describe("redis store: concurrency leases", () => {
  it("acquires, denies at the limit, releases and acquires again", async () => {
    const clock = new ManualClock(T0);
    const limiter = createLimiter({
      store: store({ label: "lease", clock: "client" }),
      limits: { name: "in-flight", algorithm: "concurrency", limit: 2, periodMs: 10_000 },
      clock,
    });
    const a = await limiter.acquire("u");
    const b = await limiter.acquire("u");
    expect([a.allowed, b.allowed]).toEqual([true, true]);
    const idA = a.decision.leases?.["in-flight"];
    const idB = b.decision.leases?.["in-flight"];
    expect(idA).toBeGreaterThan(0);
    expect(idB).toBeGreaterThan(idA!);
    clock.advance(1_000);
    const c = await limiter.acquire("u");
    expect(c.allowed).toBe(false);
    expect(c.decision.retryAfterMs).toBe(9_000);
    expect(c.decision.leases).toBeUndefined();
    await a.release();
    await a.release(); // twice is harmless
    const d = await limiter.acquire("u");
    expect(d.allowed).toBe(true);
    expect(d.decision.remaining).toBe(0);
    await b.release();
    await d.release();
    expect((await limiter.peek("u")).remaining).toBe(2);
    // A lease never released expires after the period.
    const e = await limiter.acquire("u", { cost: 2 });
    expect(e.allowed).toBe(true);
    clock.advance(10_000);
    expect((await limiter.acquire("u")).allowed).toBe(true);
  });
});

describe("redis store: all-or-nothing", () => {
  it("checks and consumes several limits of one identity in one call, consuming none on a denial", async () => {
    const clock = new ManualClock(T0);
    const counted = new CountingClient(client);
    const limiter = createLimiter({
      store: redisStore({ client: counted, clock: "client", prefix: uniqueKeyPrefix("multi").slice(0, -1) }),
      limits: [
        { name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 },
        { name: "per-minute", algorithm: "fixed_window", limit: 3, periodMs: 60_000 },
        { name: "log", algorithm: "sliding_log", limit: 5, periodMs: 60_000 },
      ],
      clock,
    });
    for (let i = 0; i < 3; i++) expect((await limiter.limit("u")).allowed).toBe(true);
    expect(counted.calls).toBe(3); // one script call per decision, every limit in it
    const denied = await limiter.limit("u");
    expect(denied.allowed).toBe(false);
    expect(denied.policy).toBe("per-minute");
    const after = await limiter.peek("u");
    expect(after.policies.map((p) => p.remaining)).toEqual([7, 0, 2]); // the denial consumed nothing
  });

  it("denies the second of two items on one key when the first takes what is left, as the reference store", async () => {
    const one = set("dup", { algorithm: "fixed_window", limit: 1, periodMs: 1000 });
    const items: StoreItem[] = [
      { limits: one, key: "u", cost: 1 },
      { limits: one, key: "u", cost: 1 }, // Envoy's same descriptor sent twice
    ];
    for (const batch of [true, false]) {
      const s = store({ label: `dup-${batch}`, clock: "client", batch });
      const got = await s.apply(items, "consume", T0);
      const want = await new ReferenceStore().apply(items, "consume", T0);
      expect(got.map(plain)).toEqual(want.map(plain));
      expect(got.map((d) => [d.policies[0].allowed, d.remaining])).toEqual([
        [true, 1],
        [false, 0],
      ]);
      expect((await s.apply([items[0]], "consume", T0))[0].allowed).toBe(true); // nothing was written
      await s.close();
    }
  });

  it("leaves a denied call's ring states as they were, in Redis and for the calls batched after it", async () => {
    const rings = set(
      "rings",
      { algorithm: "sliding_log", limit: 5, periodMs: 1000 },
      { algorithm: "bucketed_window", limit: 5, periodMs: 1000, bucketMs: 100 },
      { algorithm: "concurrency", limit: 5, periodMs: 1000 },
    );
    const quota = set("quota", { algorithm: "fixed_window", limit: 3, periodMs: 60_000 });
    const denied: StoreItem[] = [
      { limits: rings, key: "u", cost: 1 },
      { limits: quota, key: "u", cost: 9 }, // above the limit: denies the call
    ];
    const s = store({ label: "ring-snapshot", clock: "client" });
    const keys = s.keysOf(rings, "u");
    // Every limit used up, so in warning; idle from +1000, when the denied call clears the warning and so writes
    // each key back: its fields must be the stored ones, only the flags byte's warning bit goes.
    await s.apply([{ limits: rings, key: "u", cost: 5 }], "consume", T0);
    const before = await Promise.all(keys.map((k) => client.getBuffer(k)));
    expect((await s.apply(denied, "consume", T0 + 2000)).map((d) => d.allowed)).toEqual([false, false]);
    const after = await Promise.all(keys.map((k) => client.getBuffer(k)));
    keys.forEach((k, i) => {
      expect(after[i]?.subarray(1), k).toEqual(before[i]?.subarray(1));
      expect(after[i]?.[0], k).toBe((before[i]?.[0] ?? 0) - 1);
    });
    // One batch: the call after the denied one counts from the states as they were.
    const [, [d]] = await Promise.all([
      s.apply(denied, "consume", T0 + 3000),
      s.apply([{ limits: rings, key: "u", cost: 1 }], "consume", T0 + 3000),
    ]);
    expect(d.policies.map((p) => p.remaining)).toEqual([4, 4, 4]);
    await s.close();
  });

  it("applies the items of one call all-or-nothing, exactly as the reference store", async () => {
    const one = set("a", { algorithm: "fixed_window", limit: 2, periodMs: 1000 });
    const two = createLimitSet("b", [
      parseLimitSpec({ name: "x", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "y", algorithm: "sliding_log", limit: 5, periodMs: 1000 }),
    ]);
    const lease = set("c", { algorithm: "concurrency", limit: 3, periodMs: 1000 });
    const items = (cost: number): StoreItem[] => [
      { limits: one, key: "u", cost },
      { limits: two, key: "u", cost: 1 },
      { limits: one, key: "v", cost: 1 },
      { limits: lease, key: "u", cost: 1 },
      { limits: one, key: "u", cost: 1 }, // the same key twice: the second sees the first
    ];
    for (const batch of [true, false]) {
      const s = store({ label: `items-${batch}`, clock: "client", batch });
      const reference = new ReferenceStore();
      let now = T0;
      for (const [op, cost] of [
        ["consume", 3],
        ["consume", 1],
        ["consume", 1],
        ["peek", 1],
        ["consume", 0],
        ["refund", 1],
        ["consume", 1],
        ["reset", 0],
        ["consume", 1],
      ] as [StoreOp, number][]) {
        const got = await s.apply(items(cost), op, now);
        const want = await reference.apply(items(cost), op, now);
        expect(got.map(plain), `${op} ${cost} at +${now - T0}`).toEqual(want.map(plain));
        now += 300;
      }
      await s.close();
    }
  });
});

describe("redis store: a changed capacity", () => {
  it("re-lays a ring that wrapped, also when one call names the key under both capacities, as the reference store", async () => {
    // Admissions at `times` wrap a ring of 3 (its newest entry goes into the first cell); at `at`, three entries
    // still count under the capacity of 10: 7 remain, and the newest leaves in 950 ms.
    for (const { label, small, large, times, at } of [
      {
        label: "sliding_log",
        small: set("r", { algorithm: "sliding_log", limit: 3, periodMs: 1000 }),
        large: set("r", { algorithm: "sliding_log", limit: 10, periodMs: 1000 }),
        times: [0, 100, 200, 1000],
        at: 1050,
      },
      {
        label: "bucketed_window",
        small: set("r", { algorithm: "bucketed_window", limit: 10, periodMs: 300, bucketMs: 100 }),
        large: set("r", { algorithm: "bucketed_window", limit: 10, periodMs: 1000, bucketMs: 100 }),
        times: [0, 100, 200, 300],
        at: 350,
      },
    ]) {
      for (const batch of [true, false]) {
        const s = store({ label: `relay-${label}-${batch}`, clock: "client", batch });
        const reference = new ReferenceStore();
        const both = async (items: StoreItem[], op: StoreOp, t: number) => {
          const got = await s.apply(items, op, T0 + t);
          expect(got.map(plain), `${label} ${op} at +${t}`).toEqual(
            (await reference.apply(items, op, T0 + t)).map(plain),
          );
          return got;
        };
        for (const t of times) await both([{ limits: small, key: "k", cost: 1 }], "consume", t);
        // one call: read as 3, then as 10 (re-laid from the state as it stands), then as 3 again
        const [, raised] = await both(
          [
            { limits: small, key: "k", cost: 0 },
            { limits: large, key: "k", cost: 0 },
            { limits: small, key: "k", cost: 0 },
          ],
          "peek",
          at,
        );
        expect([raised.remaining, raised.resetAfterMs], label).toEqual([7, 950]);
        // a later call under 10 alone reads the stored state: the same
        const [later] = await both([{ limits: large, key: "k", cost: 0 }], "peek", at);
        expect([later.remaining, later.resetAfterMs], label).toEqual([7, 950]);
        await both([{ limits: large, key: "k", cost: 7 }], "consume", at);
        await both([{ limits: large, key: "k", cost: 1 }], "consume", at);
        await s.close();
      }
    }
  });
});

describe("redis store: batching", () => {
  it("answers 200 concurrent calls in few script calls, as sequential unbatched calls would", async () => {
    const batchedClient = new CountingClient(client);
    const batched = redisStore({
      client: batchedClient,
      clock: "client",
      prefix: uniqueKeyPrefix("b1").slice(0, -1),
    });
    const single = redisStore({
      client,
      clock: "client",
      batch: false,
      prefix: uniqueKeyPrefix("b2").slice(0, -1),
    });
    const limits: LimitSpecInput[] = [
      { name: "rate", algorithm: "token_bucket", limit: 20, periodMs: 1000, burst: 6 },
      { name: "window", algorithm: "sliding_window", limit: 9, periodMs: 1000 },
    ];
    const make = (s: typeof batched) =>
      createLimiter({ store: s, limits, name: "twin", clock: new ManualClock(T0) });
    const a = make(batched);
    const b = make(single);
    const call = (i: number) => ({
      key: `u${i % 7}`,
      options: { cost: (i % 3) + (i % 11 === 0 ? 7 : 0), nowMs: T0 + 7 * i },
    });
    const concurrent = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const { key, options } = call(i);
        return i % 13 === 5 ? a.peek(key, options) : a.limit(key, options);
      }),
    );
    const sequential: Decision[] = [];
    for (let i = 0; i < 200; i++) {
      const { key, options } = call(i);
      sequential.push(await (i % 13 === 5 ? b.peek(key, options) : b.limit(key, options)));
    }
    expect(concurrent.map(plain)).toEqual(sequential.map(plain));
    expect(concurrent.some((d) => d.allowed)).toBe(true);
    expect(concurrent.some((d) => !d.allowed)).toBe(true);
    expect(batchedClient.calls).toBeLessThanOrEqual(Math.ceil(200 / 64) + 1); // maxBatch 64
    await batched.close();
    await single.close();
  });

  it("holds calls while maxInFlight script calls await their answer, then sends them together in order", async () => {
    const limits: LimitSpecInput[] = [{ name: "w", algorithm: "sliding_window", limit: 5, periodMs: 1000 }];
    const call = (i: number) => ({ key: `u${i % 2}`, options: { cost: 1 + (i % 2), nowMs: T0 + i } });
    for (const maxInFlight of [1, 2]) {
      const gate = new GatedClient(client);
      const s = redisStore({
        client: gate,
        clock: "client",
        maxInFlight,
        prefix: uniqueKeyPrefix(`inflight${maxInFlight}`).slice(0, -1),
      });
      const a = createLimiter({ store: s, limits, name: "f", clock: new ManualClock(T0) });
      await a.peek("warm-up"); // the script is cached: from here on every call is one EVALSHA
      gate.keyCounts.length = 0;
      gate.close();
      // Eight calls, each in its own tick: the first maxInFlight leave alone, the others wait for an answer.
      const pending: Promise<Decision>[] = [];
      for (let i = 0; i < 8; i++) {
        pending.push(a.limit(call(i).key, call(i).options));
        await nextTick();
      }
      expect(gate.keyCounts).toEqual(Array.from({ length: maxInFlight }, () => 1));
      await gate.answerOne(); // one answer: everything queued meanwhile leaves as one script call
      await nextTick();
      expect(gate.keyCounts).toEqual([...Array.from({ length: maxInFlight }, () => 1), 8 - maxInFlight]);
      gate.open();
      const batched = await Promise.all(pending);

      const single = redisStore({
        client,
        clock: "client",
        batch: false,
        prefix: uniqueKeyPrefix(`inflight-seq${maxInFlight}`).slice(0, -1),
      });
      const b = createLimiter({ store: single, limits, name: "f", clock: new ManualClock(T0) });
      const sequential: Decision[] = [];
      for (let i = 0; i < 8; i++) sequential.push(await b.limit(call(i).key, call(i).options));
      expect(batched.map(plain)).toEqual(sequential.map(plain));
      expect(batched.some((d) => !d.allowed)).toBe(true);
      await s.close();
      await single.close();
    }
  });

  it("rejects a maxInFlight that is not a whole number from 1", () => {
    for (const maxInFlight of [0, 1.5, -1, Number.NaN]) {
      expect(() => redisStore({ client, maxInFlight })).toThrow(/maxInFlight must be a whole number/);
    }
  });

  it("keeps each call its own all-or-nothing group within a batch", async () => {
    const s = store({ label: "groups", clock: "client" });
    const limits = set("g", { algorithm: "fixed_window", limit: 3, periodMs: 60_000 });
    const [x, y, z] = await Promise.all([
      s.apply([{ limits, key: "u", cost: 2 }], "consume", T0),
      s.apply([{ limits, key: "u", cost: 2 }], "consume", T0), // denied alone: only 1 left
      s.apply([{ limits, key: "u", cost: 1 }], "consume", T0),
    ]);
    expect([x[0].allowed, y[0].allowed, z[0].allowed]).toEqual([true, false, true]);
    expect(z[0].remaining).toBe(0);
    await s.close();
  });

  it("stores a lease taken under a raised limit after a lowered one cut the ring, in one batch, as separate calls", async () => {
    // A limiter reconfigured while its calls are in flight: 5 leases, then 2 (the ring keeps the first 2), then 5.
    const five = set("cut", { algorithm: "concurrency", limit: 5, periodMs: 60_000 });
    const two = set("cut", { algorithm: "concurrency", limit: 2, periodMs: 60_000 });
    const stores = [true, false].map((batch) =>
      store({ label: `cut-grow-${batch}`, clock: "client", batch }),
    );
    for (const s of stores) {
      for (let i = 0; i < 4; i++) await s.apply([{ limits: five, key: "u", cost: 1 }], "consume", T0 + i);
      await Promise.all([
        s.apply([{ limits: five, key: "u", cost: 0 }], "peek", T0 + 10),
        s.apply([{ limits: two, key: "u", cost: 0 }], "peek", T0 + 10),
        s.apply([{ limits: five, key: "u", cost: 1 }], "consume", T0 + 10),
      ]);
    }
    const [batched, unbatched] = await Promise.all(
      stores.map((s) => client.getBuffer(s.keysOf(five, "u")[0])),
    );
    expect(batched).toEqual(unbatched);
    const [d] = await stores[0].apply([{ limits: five, key: "u", cost: 0 }], "peek", T0 + 20);
    expect(d.remaining).toBe(2); // the 2 leases the cut kept and the new one
    for (const s of stores) await s.close();
  });
});

describe("redis store: a call that cannot be encoded", () => {
  it("fails alone: the calls batched with it are sent and answered", async () => {
    const counting = new CountingClient(client);
    const s = redisStore({
      client: counting,
      prefix: uniqueKeyPrefix("keyof-throws").slice(0, -1),
      keyOf: (key, namespace, policy) => {
        if (key === "bad") throw new InvalidArgumentError(`keyOf: no key for ${key}`);
        return `kt:{${key}}:${namespace}:${policy}`;
      },
    });
    const limits = set("kt", { algorithm: "gcra", limit: 10, periodMs: 1000 });
    const calls = ["a", "b", "bad", "c"].map((key) => s.apply([{ limits, key, cost: 1 }], "consume", T0));
    const out = await Promise.allSettled(calls);
    expect(out.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((out[2] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidArgumentError);
    expect(out.filter((o) => o.status === "fulfilled").map((o) => o.value[0].allowed)).toEqual([
      true,
      true,
      true,
    ]);
    expect(counting.calls).toBe(1); // the three others, still one batch
    await s.close();
  });
});

describe("redis store: a call that fails in Redis", () => {
  it("fails alone: the calls batched with it are answered as separate calls would be", async () => {
    const counting = new CountingClient(client);
    const s = redisStore({
      client: counting,
      clock: "client",
      prefix: uniqueKeyPrefix("poison").slice(0, -1),
    });
    const limits = set("p", { algorithm: "fixed_window", limit: 5, periodMs: 60_000 });
    const [badKey] = s.keysOf(limits, "bad-user");
    await client.hset(badKey, "x", "1"); // someone else's hash at that key: GET fails the script (WRONGTYPE)
    const out = await Promise.allSettled(
      ["alice", "bad-user", "bob"].map((key) => s.apply([{ limits, key, cost: 1 }], "consume", T0)),
    );
    expect(out.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((out[1] as PromiseRejectedResult).reason).toMatchObject({ code: "ERR_SLUICE_STORE_UNAVAILABLE" });
    expect(
      out.flatMap((o) => (o.status === "fulfilled" ? [[o.value[0].allowed, o.value[0].remaining]] : [])),
    ).toEqual([
      [true, 4],
      [true, 4],
    ]);
    expect(counting.evalshaCalls).toBe(4); // the batch, then each call alone
    await s.close();
  });
});

describe("redis store: bad input", () => {
  it("rejects bad input with a clear error, without touching Redis", async () => {
    const counted = new CountingClient(client);
    const s = redisStore({ client: counted, clock: "client" });
    const limits = set("bad", { algorithm: "fixed_window", limit: 5, periodMs: 1000 });
    const bad: [StoreItem[], StoreOp, number, RegExp][] = [
      [
        [{ limits, key: "x".repeat(1025), cost: 1 }],
        "consume",
        T0,
        /key must be a non-empty string of at most 1024/,
      ],
      [[{ limits, key: "", cost: 1 }], "consume", T0, /key must be a non-empty string/],
      [[{ limits, key: 42 as never, cost: 1 }], "consume", T0, /key must be/],
      [[{ limits, key: "u", cost: -1 }], "consume", T0, /cost must be a number from 0/],
      [[{ limits, key: "u", cost: Number.NaN }], "consume", T0, /cost must be a number/],
      [[{ limits, key: "u", cost: 1.5 }], "consume", T0, /cost must be a whole number for fixed_window/],
      [[{ limits: {} as never, key: "u", cost: 1 }], "consume", T0, /limits must be a LimitSet/],
      [[{ limits, key: "u", cost: 1 }], "drain" as never, T0, /op must be consume, peek, refund or reset/],
      [[{ limits, key: "u", cost: 1 }], "consume", Number.NaN, /nowMs must be a finite number/],
      [[{ limits, key: "u", cost: 1 }, null as never], "consume", T0, /items\[1\] must be an object/],
    ];
    for (const [items, op, now, message] of bad) {
      const attempt = s.apply(items, op, now);
      await expect(attempt).rejects.toThrow(message);
      await expect(attempt).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    await expect(s.release(limits, "u", { l0: -1 }, T0)).rejects.toThrow(/leases.l0 must be a whole number/);
    expect(await s.apply([], "consume", T0)).toEqual([]);
    expect(counted.calls).toBe(0);
    await s.close();
    await expect(s.apply([{ limits, key: "u", cost: 1 }], "consume", T0)).rejects.toMatchObject({
      code: "ERR_SLUICE_STORE_CLOSED",
    });
    expect(counted.calls).toBe(0);

    expect(() => redisStore({ client: {} as never })).toThrow(/client must be an ioredis client/);
    expect(() => redisStore({ client, prefix: "a{b" })).toThrow(
      /prefix must be a string of 1 to 128 characters without braces/,
    );
    expect(() => redisStore({ client, clock: "wall" as never })).toThrow(/clock must be "redis" or "client"/);
    expect(() => redisStore({ client, maxBatch: 0 })).toThrow(/maxBatch must be a whole number/);
    expect(() => redisStore({ client, ttlMarginMs: -1 })).toThrow(/ttlMarginMs must be a whole number/);
  });

  it("is what a Limiter rejects before the store (through the Limiter, too)", async () => {
    const counted = new CountingClient(client);
    const limiter = createLimiter({
      store: redisStore({ client: counted }),
      limits: { algorithm: "gcra", limit: 1, periodMs: 1000 },
    });
    await expect(limiter.limit("x".repeat(2000))).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(limiter.limit("u", { cost: -2 })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(counted.calls).toBe(0);
  });
});

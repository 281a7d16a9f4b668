// The Redis store on a real Redis Cluster: slots and key layout, one script call per master per flush, calls
// spanning masters (all-or-nothing by refund), a slot moved under a stale slot table, and a master killed under
// load behind the failure policies (fail_closed and fallback) until its replica takes over.
import { Cluster, type Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import type { Decision } from "../../src/core/decision.js";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import { createLimiter } from "../../src/engine/limiter.js";
import { keySlot, loadClusterScript } from "../../src/stores/redis/cluster-router.js";
import { type RedisScriptClient, type RedisStoreOptions, redisStore } from "../../src/stores/redis/index.js";
import { resilientStore } from "../../src/stores/resilient-store.js";
import type { StoreItem, StoreOp } from "../../src/stores/store.js";
import { ReferenceStore } from "../../src/testing/index.js";
import { set } from "../support/limit-sets.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";
import { getSharedCluster, uniqueKeyPrefix } from "../support/redis-env.js";
import { sleep } from "../support/redis-server.js";
import { respCall, respText } from "../support/resp.js";

const T0 = 1_700_000_000_000;

let client: Cluster;
beforeAll(async () => {
  client = new Cluster((await getSharedCluster()).startupNodes, { retryDelayOnFailover: 0 });
  await client.ping(); // slot table loaded
});
afterAll(() => {
  client.disconnect();
});

function store(options: Partial<RedisStoreOptions> & { label: string }) {
  const { label, ...rest } = options;
  return redisStore({ client, clock: "client", prefix: uniqueKeyPrefix(label).slice(0, -1), ...rest });
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
    reason: d.reason,
    leases: d.leases,
    policies: d.policies.map((p) => ({
      policy: p.policy,
      allowed: p.allowed,
      limit: p.limit,
      remaining: p.remaining,
      resetAfterMs: p.resetAfterMs,
      retryAfterMs: p.retryAfterMs,
      state: p.state,
      periodMs: p.periodMs,
    })),
  };
}

/** The `host:port` of the master serving `key`, from the client's slot table. */
function masterOf(cluster: Cluster, key: string): string {
  return cluster.slots[keySlot(key)][0];
}

/** Counts the EVALSHA / EVAL commands each master connection of `cluster` sends, and the errors they get. */
function countScriptCalls(cluster: Cluster) {
  const calls = new Map<string, number>();
  const errors: string[] = [];
  const restore: (() => void)[] = [];
  for (const node of cluster.nodes("master") as Redis[]) {
    const name = `${node.options.host}:${node.options.port}`;
    const original = node.sendCommand;
    node.sendCommand = function (this: Redis, ...args: Parameters<Redis["sendCommand"]>) {
      const [command] = args;
      if (command.name === "evalsha" || command.name === "eval") {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        command.promise.catch((error: Error) => errors.push(`${name}: ${error.message}`));
      }
      return original.apply(this, args);
    } as Redis["sendCommand"];
    restore.push(() => {
      node.sendCommand = original;
    });
  }
  return {
    calls,
    errors,
    total: () => [...calls.values()].reduce((a, b) => a + b, 0),
    restore: () => {
      for (const r of restore) r();
    },
  };
}

describe("redis cluster store: slots", () => {
  it("computes slots as CLUSTER KEYSLOT does, hash tags and UTF-8 included", async () => {
    const keys = [
      "plain",
      "rl:{user:42}:api:l0",
      "{}",
      "{}{a}",
      "a{b}c{d}",
      "{",
      "}{a}",
      "x{y",
      "rl:{ünïcødé}:n:p",
      "rl:{😀 emoji}:n:p",
      "rl:{a%7Db{c}:n:p",
      `lone ${String.fromCharCode(0xd800)} surrogate`,
      "é",
    ];
    for (const key of keys) expect(keySlot(key), key).toBe(await client.cluster("KEYSLOT", key));
  });

  it("runs a script flagged allow-cross-slot-keys: keys of several slots of one node, in ARGV", async () => {
    expect(loadClusterScript().source.startsWith("#!lua flags=allow-cross-slot-keys\n")).toBe(true);
    // apply.lua's batch read (one MGET of every key) would span slots: the cluster variant reads key by key.
    expect(loadClusterScript().source).toContain("local MULTI_READ = false -- @multi-read");
    expect(loadClusterScript().source).not.toContain("local MULTI_READ = true");
    // Two keys of different slots on one master: declared together they are refused (CROSSSLOT), even flagged;
    // the first declared and the second passed in ARGV, the flagged script reaches both — one command per slot
    // (a single command inside the script still may not span slots), as apply.lua does (one GET / SET per key).
    const a = "{xslot-a}";
    let b = "";
    for (let i = 0; b === ""; i++) {
      const k = `{xslot-${i}}`;
      if (keySlot(k) !== keySlot(a) && masterOf(client, k) === masterOf(client, a)) b = k;
    }
    const flag = "#!lua flags=allow-cross-slot-keys\n";
    await expect(
      client.eval(`${flag}return redis.call('EXISTS', KEYS[1], KEYS[2])`, 2, a, b),
    ).rejects.toThrow(/CROSSSLOT/);
    const both = `${flag}redis.call('SET', KEYS[1], 1, 'PX', 10000) redis.call('SET', ARGV[1], 2, 'PX', 10000)
      return { redis.call('GET', KEYS[1]), redis.call('GET', ARGV[1]) }`;
    expect(await client.eval(both, 1, a, b)).toEqual(["1", "2"]);
    await expect(
      client.eval(`${flag}return redis.call('EXISTS', KEYS[1], ARGV[1])`, 1, a, b),
    ).rejects.toThrow(/non local key/);
    // A key served by another master is refused.
    let c = "";
    for (let i = 0; c === ""; i++)
      if (masterOf(client, `{xslot-${i}}`) !== masterOf(client, a)) c = `{xslot-${i}}`;
    await expect(client.eval(`${flag}return redis.call('GET', ARGV[1])`, 1, a, c)).rejects.toThrow(
      /non local key/,
    );
  });

  it("keeps every key of one identity in one slot, on the master the client routes it to", async () => {
    const s = store({ label: "slots" });
    const limits = set(
      "api",
      { algorithm: "gcra", limit: 10, periodMs: 1000 },
      { algorithm: "fixed_window", limit: 10, periodMs: 1000 },
      { algorithm: "concurrency", limit: 10, periodMs: 1000 },
    );
    for (const identity of ["user:42", "a}b{c", "ünïcødé", "😀", "x".repeat(1024)]) {
      const keys = s.keysOf(limits, identity);
      const slots = await Promise.all(keys.map((k) => client.cluster("KEYSLOT", k)));
      expect(new Set(slots).size, identity).toBe(1);
      const [d] = await s.apply([{ limits, key: identity, cost: 1 }], "consume", T0);
      expect(d.allowed).toBe(true);
      for (const k of keys) expect(await client.exists(k), k).toBe(1); // follows MOVED if it were elsewhere
    }
    await s.close();
  });

  it("refuses a custom keyOf that spreads one identity over several slots, without touching Redis", async () => {
    const s = store({ label: "bad-keyof", keyOf: (key, ns, policy) => `${key}:${ns}:${policy}` });
    const limits = set(
      "n",
      { algorithm: "gcra", limit: 1, periodMs: 1000 },
      { algorithm: "gcra", limit: 2, periodMs: 1000 },
    );
    const attempt = s.apply([{ limits, key: "u", cost: 1 }], "consume", T0);
    await expect(attempt).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(attempt).rejects.toThrow(
      /keyOf must keep every key of one identity in one Redis Cluster slot/,
    );
    await s.close();
  });
});

describe("redis cluster store: batching per master", () => {
  const limits: LimitSpecInput[] = [
    { name: "rate", algorithm: "token_bucket", limit: 20, periodMs: 1000, burst: 2 },
    { name: "window", algorithm: "sliding_window", limit: 3, periodMs: 1000 },
  ];
  const call = (i: number) => ({
    key: `u${i % 100}`,
    options: { cost: (i % 3) + (i % 17 === 0 ? 2 : 0), nowMs: T0 + 3 * i },
  });

  it("sends 300 concurrent decisions over 100 identities as one script call per master", async () => {
    const identities = Array.from({ length: 100 }, (_, i) => `u${i}`);
    const probe = store({ label: "spread" });
    const masters = new Set(
      identities.map((id) => masterOf(client, probe.keysOf(set("n", limits[0]), id)[0])),
    );
    expect(masters.size).toBe(3); // the identities are spread over every master

    const counter = countScriptCalls(client);
    const batched = store({ label: "per-master-a", maxBatch: 1000 });
    const single = store({ label: "per-master-b", batch: false });
    const make = (s: typeof batched) =>
      createLimiter({ store: s, limits, name: "twin", clock: new ManualClock(T0) });
    const a = make(batched);
    const b = make(single);
    // Warm-up: each master caches the script (a first EVALSHA answers NOSCRIPT, then EVAL).
    await Promise.all(identities.map((id) => a.peek(id, { nowMs: T0 })));
    counter.calls.clear();
    const concurrent = await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        const { key, options } = call(i);
        return i % 13 === 5 ? a.peek(key, options) : a.limit(key, options);
      }),
    );
    const perMaster = new Map(counter.calls);
    counter.restore();
    expect([...perMaster.keys()].sort()).toEqual([...masters].sort());
    expect([...perMaster.values()]).toEqual([1, 1, 1]);

    await Promise.all(identities.map((id) => b.peek(id, { nowMs: T0 })));
    const sequential: Decision[] = [];
    for (let i = 0; i < 300; i++) {
      const { key, options } = call(i);
      sequential.push(await (i % 13 === 5 ? b.peek(key, options) : b.limit(key, options)));
    }
    expect(concurrent.map(plain)).toEqual(sequential.map(plain));
    expect(concurrent.some((d) => d.allowed)).toBe(true);
    expect(concurrent.some((d) => !d.allowed)).toBe(true);
    await batched.close();
    await single.close();
    await probe.close();
  });

  it("splits a master's share into calls of at most maxBatch items", async () => {
    const counter = countScriptCalls(client);
    const s = store({ label: "max-batch", maxBatch: 16 });
    const limiter = createLimiter({ store: s, limits, name: "m", clock: new ManualClock(T0) });
    const perMasterItems = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const node = masterOf(client, s.keysOf(set("m", limits[0]), call(i).key)[0]);
      perMasterItems.set(node, (perMasterItems.get(node) ?? 0) + 1);
    }
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => limiter.limit(call(i).key, call(i).options)),
    );
    counter.restore();
    expect(decisions).toHaveLength(300);
    // Flushes come every 16 × 3 queued items: no master ever gets more calls than its items need plus one per flush.
    const flushes = Math.ceil(300 / 48);
    for (const [node, items] of perMasterItems) {
      expect(counter.calls.get(node), node).toBeGreaterThanOrEqual(Math.ceil(items / 16));
      expect(counter.calls.get(node), node).toBeLessThanOrEqual(Math.ceil(items / 16) + flushes);
    }
    await s.close();
  });

  it("fails a call that fails in Redis alone: the calls batched with it on its master are answered", async () => {
    const s = store({ label: "poison" });
    const fw = set("p", { algorithm: "fixed_window", limit: 5, periodMs: 60_000 });
    const [badKey] = s.keysOf(fw, "bad-user");
    const master = masterOf(client, badKey);
    const ids: string[] = [];
    for (let i = 0; ids.length < 2; i++) {
      if (masterOf(client, s.keysOf(fw, `user:${i}`)[0]) === master) ids.push(`user:${i}`);
    }
    await client.hset(badKey, "x", "1"); // someone else's hash at that key: GET fails the script (WRONGTYPE)
    const out = await Promise.allSettled(
      [ids[0], "bad-user", ids[1]].map((key) => s.apply([{ limits: fw, key, cost: 1 }], "consume", T0)),
    );
    expect(out.map((o) => (o.status === "fulfilled" ? o.value[0].remaining : o.reason.code))).toEqual([
      4,
      "ERR_SLUICE_STORE_UNAVAILABLE",
      4,
    ]);
    await client.del(badKey);
    await s.close();
  });
});

describe("redis cluster store: calls in flight per master", () => {
  it("holds a master's calls behind its own unanswered call only, and sends them together on its answer", async () => {
    const limits: LimitSpecInput[] = [{ name: "c", algorithm: "fixed_window", limit: 100, periodMs: 60_000 }];
    const probe = store({ label: "gate-probe" });
    const byMaster = new Map<string, string[]>();
    for (let i = 0; i < 300; i++) {
      const node = masterOf(client, probe.keysOf(set("n", limits[0]), `g${i}`)[0]);
      byMaster.set(node, [...(byMaster.get(node) ?? []), `g${i}`]);
    }
    const [[held, heldIds], [free, freeIds]] = [...byMaster];
    // The store's client: the shared Cluster, but EVALSHA answers of the `held` master wait while the gate is
    // closed (the commands reach Redis at once). The cluster script declares one key, and the count of the others.
    // The store sends with `evalshaBuffer` (binary replies) when the client has it, so both are gated.
    const sent = new Map<string, number[]>();
    const waiting: (() => Promise<void>)[] = [];
    let closed = false;
    const gate =
      (method: "evalsha" | "evalshaBuffer") =>
      (sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown> => {
        const node = masterOf(client, String(args[0]));
        sent.set(node, [...(sent.get(node) ?? []), 1 + Number(args[1])]);
        // ioredis has `evalshaBuffer` at run time (every command has its Buffer form) but not in its types.
        const send = (client as unknown as Record<typeof method, RedisScriptClient["evalsha"]>)[method];
        const reply = send.call(client, sha, numKeys, ...args);
        if (!closed || node !== held) return reply;
        return new Promise((resolve, reject) => {
          waiting.push(() => reply.then(resolve, reject));
        });
      };
    const gates = { evalsha: gate("evalsha"), evalshaBuffer: gate("evalshaBuffer") };
    const gated = new Proxy(client, {
      get(target, property) {
        if (property === "evalsha" || property === "evalshaBuffer") return gates[property];
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const s = redisStore({
      client: gated,
      clock: "client",
      maxInFlight: 1,
      prefix: uniqueKeyPrefix("gate").slice(0, -1),
    });
    const limiter = createLimiter({ store: s, limits, name: "g", clock: new ManualClock(T0) });
    await Promise.all([...byMaster.values()].map((ids) => limiter.peek(ids[0]))); // every master has the script
    sent.clear();
    closed = true;
    const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const onHeld: Promise<Decision>[] = [];
    for (let i = 0; i < 4; i++) {
      onHeld.push(limiter.limit(heldIds[i]));
      await tick();
    }
    expect(sent.get(held)).toEqual([1]); // one call in flight there, three queued behind it
    const onFree: Decision[] = [];
    for (let i = 0; i < 4; i++) onFree.push(await limiter.limit(freeIds[i])); // another master is not held up
    expect(onFree.map((d) => [d.allowed, d.remaining])).toEqual(Array.from({ length: 4 }, () => [true, 99]));
    expect(sent.get(free)).toEqual([1, 1, 1, 1]);
    expect(sent.get(held)).toEqual([1]);
    await waiting.shift()?.();
    await tick(); // the answer reaches the store through the router's promises: its turn ends a tick later
    await tick();
    expect(sent.get(held)).toEqual([1, 3]); // the answer let the three queued calls leave as one script call
    closed = false;
    for (const release of waiting.splice(0)) await release();
    const decisions = await Promise.all(onHeld);
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual(
      Array.from({ length: 4 }, () => [true, 99]),
    );
    await s.close();
    await probe.close();
  });
});

describe("redis cluster store: calls spanning masters", () => {
  /** Identities served by `count` distinct masters (one each), from `probe`'s key layout. */
  function identitiesOnDistinctMasters(keysOf: (id: string) => string, count: number): string[] {
    const seen = new Map<string, string>();
    for (let i = 0; seen.size < count; i++) {
      const id = `id${i}`;
      const node = masterOf(client, keysOf(id));
      if (!seen.has(node)) seen.set(node, id);
    }
    return [...seen.values()];
  }

  it("applies the items of one call all-or-nothing across masters, as the reference store does", async () => {
    const one = set("a", { algorithm: "fixed_window", limit: 2, periodMs: 1000 });
    const two = createLimitSet("b", [
      parseLimitSpec({ name: "x", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "y", algorithm: "sliding_log", limit: 5, periodMs: 1000 }),
    ]);
    const lease = set("c", { algorithm: "concurrency", limit: 3, periodMs: 1000 });
    for (const batch of [true, false]) {
      const s = store({ label: `span-${batch}`, batch });
      const [u, v, w] = identitiesOnDistinctMasters((id) => s.keysOf(one, id)[0], 3);
      const items = (cost: number): StoreItem[] => [
        { limits: one, key: u, cost },
        { limits: two, key: v, cost: 1 },
        { limits: one, key: w, cost: 1 },
        { limits: lease, key: v, cost: 1 },
        { limits: one, key: u, cost: 1 }, // the same key twice: the second sees the first
      ];
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
        // After every step, each master holds exactly what the reference holds.
        for (const [limits, key] of [
          [one, u],
          [two, v],
          [one, w],
          [lease, v],
        ] as const) {
          const [mine] = await s.apply([{ limits, key, cost: 0 }], "peek", now);
          const [theirs] = await reference.apply([{ limits, key, cost: 0 }], "peek", now);
          expect(plain(mine), `${key} after ${op} ${cost}`).toEqual(plain(theirs));
        }
        now += 300;
      }
      await s.close();
    }
  });

  it("gives back concurrency leases taken on the masters that admitted a call another master denied", async () => {
    const s = store({ label: "span-lease" });
    const lease = set("lease", { algorithm: "concurrency", limit: 1, periodMs: 60_000 });
    const [u, v] = identitiesOnDistinctMasters((id) => s.keysOf(lease, id)[0], 2);
    const [held] = await s.apply([{ limits: lease, key: v, cost: 1 }], "consume", T0);
    expect(held.allowed).toBe(true);
    const both = await s.apply(
      [
        { limits: lease, key: u, cost: 1 },
        { limits: lease, key: v, cost: 1 },
      ],
      "consume",
      T0 + 10,
    );
    expect(both.map((d) => d.allowed)).toEqual([false, false]);
    expect(both.map((d) => d.leases)).toEqual([undefined, undefined]);
    const [free] = await s.apply([{ limits: lease, key: u, cost: 0 }], "peek", T0 + 20);
    expect(free.remaining).toBe(1); // u's lease was released
    await s.close();
  });
});

describe("redis cluster store: resharding and failover (private cluster)", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("follows a slot moved to another master under a stale slot table, keeping its state", async () => {
    const c = new Cluster(cluster.startupNodes, { retryDelayOnFailover: 0 });
    try {
      await c.ping();
      const s = redisStore({ client: c, clock: "client", prefix: "reshard" });
      const limits = set("n", { algorithm: "fixed_window", limit: 5, periodMs: 3_600_000 });
      const keyOf = (id: string) => s.keysOf(limits, id)[0];
      // x and y: two slots of one master; x's slot moves to another master.
      const x = "mover";
      const source = masterOf(c, keyOf(x));
      let y = "";
      for (let i = 0; y === ""; i++) {
        const id = `stay${i}`;
        if (masterOf(c, keyOf(id)) === source && keySlot(keyOf(id)) !== keySlot(keyOf(x))) y = id;
      }
      const ids = await Promise.all(
        (await cluster.masters()).map(async (m) => ({
          port: m.port,
          id: String(await respCall(m.port, ["CLUSTER", "MYID"])),
        })),
      );
      const from = ids.find((m) => `127.0.0.1:${m.port}` === source)!;
      const to = ids.find((m) => m.port !== from.port)!;
      for (const id of [x, y]) {
        expect((await s.apply([{ limits, key: id, cost: 2 }], "consume", T0))[0].remaining).toBe(3);
      }

      const slot = String(keySlot(keyOf(x)));
      await respCall(to.port, ["CLUSTER", "SETSLOT", slot, "IMPORTING", from.id]);
      await respCall(from.port, ["CLUSTER", "SETSLOT", slot, "MIGRATING", to.id]);
      const keys = (await respCall(from.port, ["CLUSTER", "GETKEYSINSLOT", slot, "100"])) as string[];
      expect(keys).toEqual([keyOf(x)]);
      await respText(from.port, ["MIGRATE", "127.0.0.1", String(to.port), "", "0", "5000", "KEYS", ...keys]);
      for (const m of [to, from, ...ids.filter((m) => m !== to && m !== from)]) {
        await respCall(m.port, ["CLUSTER", "SETSLOT", slot, "NODE", to.id]);
      }
      await cluster.waitUntilHealthy();
      expect(masterOf(c, keyOf(x))).toBe(source); // the client's table is stale

      const counter = countScriptCalls(c);
      // y first: the batch goes to the old master, which no longer serves x.
      const [dy, dx] = await Promise.all([
        s.apply([{ limits, key: y, cost: 1 }], "consume", T0 + 1),
        s.apply([{ limits, key: x, cost: 1 }], "consume", T0 + 1),
      ]);
      counter.restore();
      expect([dy[0].remaining, dx[0].remaining]).toEqual([2, 2]); // x's state moved with its key
      expect(counter.errors.some((e) => /non local key|MOVED/.test(e))).toBe(true);
      expect(masterOf(c, keyOf(x))).toBe(`127.0.0.1:${to.port}`); // refreshed
      expect(await respCall(to.port, ["EXISTS", keyOf(x)])).toBe(1);
      await s.close();
    } finally {
      c.disconnect();
    }
  });

  it("answers by the failure policy while a master is down, and from the store once its replica took over", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const c = new Cluster(cluster.startupNodes, { retryDelayOnFailover: 0 });
    c.on("error", () => {}); // node connection errors while the master is down
    try {
      await c.ping();
      const hot = "hot-identity";
      const limits: LimitSpecInput = { algorithm: "gcra", limit: 1_000_000, periodMs: 1000 };
      const policies = ["fail_closed", "fallback"] as const;
      const limiters = policies.map((onError) =>
        createLimiter({
          store: resilientStore(redisStore({ client: c, prefix: `failover-${onError}` }), { onError }),
          limits,
          name: "hot",
        }),
      );
      const hotKey = redisStore({ client: c, prefix: "failover-fail_closed" }).keysOf(
        createLimitSet("hot", [parseLimitSpec(limits)]),
        hot,
      )[0];

      type Phase = "before" | "gap" | "after";
      let phase: Phase = "before";
      let running = true;
      const seen = policies.map(() => [] as { phase: Phase; reason: string; allowed: boolean }[]);
      const loads = limiters.map(async (limiter, k) => {
        while (running) {
          const at = phase;
          const d = await limiter.limit(hot);
          seen[k].push({ phase: at, reason: d.reason, allowed: d.allowed });
          await sleep(5);
        }
      });
      const waitFor = async (what: string, done: () => boolean, timeoutMs: number) => {
        for (let waited = 0; !done(); waited += 20) {
          if (waited > timeoutMs) throw new Error(`timed out waiting for ${what}`);
          await sleep(20);
        }
      };
      // Warm (connections, script cached on every master): a streak of store decisions before the kill. A call
      // may time out now and then on a busy machine (resilient timeout 50 ms) and be answered by the policy.
      const streak = (k: number, phase: Phase) => {
        const entries = seen[k].filter((e) => e.phase === phase);
        return entries.length >= 20 && entries.slice(-20).every((e) => e.reason === "store");
      };
      await waitFor(
        "store decisions before the kill",
        () => policies.every((_, k) => streak(k, "before")),
        20_000,
      );

      const owner = await cluster.masterForKey(hotKey);
      phase = "gap";
      await owner.kill("SIGKILL");
      await cluster.waitForFailover(owner, { timeoutMs: 30_000 });
      phase = "after";
      // Back to the store within a few seconds (breaker probe, slot table refresh): 20 store decisions in a row.
      await waitFor(
        "store decisions after the failover",
        () => policies.every((_, k) => streak(k, "after")),
        20_000,
      );
      running = false;
      await Promise.all(loads);

      policies.forEach((policy, k) => {
        const gap = seen[k].filter((e) => e.phase === "gap");
        const count = (test: (e: (typeof gap)[number]) => boolean) => seen[k].filter(test).length;
        expect(
          {
            // While the master is down, the policy answers (a call that started just before the kill, or that
            // reached the promoted replica before waitForFailover saw it, may still come from the store).
            gapByPolicy: gap.some((e) => e.reason === policy),
            gapByOther: gap.filter((e) => e.reason !== "store" && e.reason !== policy).length,
            // fail_closed denies; the local fallback holds the same generous limit, so it admits.
            wrongPolicyVerdicts: count((e) => e.reason === policy && e.allowed !== (policy === "fallback")),
            storeDenials: count((e) => e.reason === "store" && !e.allowed),
            otherReasons: count((e) => e.reason !== "store" && e.reason !== policy),
          },
          policy,
        ).toEqual({
          gapByPolicy: true,
          gapByOther: 0,
          wrongPolicyVerdicts: 0,
          storeDenials: 0,
          otherReasons: 0,
        });
      });
      expect(unhandled).toEqual([]);
      for (const limiter of limiters) await limiter.store.close();
    } finally {
      process.off("unhandledRejection", onUnhandled);
      c.disconnect();
    }
  }, 90_000);
});

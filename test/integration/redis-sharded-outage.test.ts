// One dead node of three under client-side sharding, as `sluice serve --redis A,B,C` builds it: the service's store
// (createServiceStore: a shardedStore over one redisStore per PRIVATE redis-server) behind an engine configured as
// the service configures it, one rule per failure policy. One server is SIGKILLed:
//
// - every decision for a key a healthy node owns is still the store's (reason `store`), under every policy, in
//   every round, including the rounds that straddle the dead node's breaker probes (openMs apart): the engine keeps
//   a breaker per shard, so the dead node's failures never send the healthy nodes' keys to the policy, and the
//   breaker cannot flap between the two;
// - every decision for a key the dead node owns is the policy's (fail_open allows, fail_closed denies, fallback
//   limits locally);
// - a request whose descriptors span a healthy and the dead node gets the store's answer for one and the policy's
//   for the other (fail_closed: denied whole, the healthy node's unit given back), idempotent requests too;
// - the healthy nodes' breakers stay closed; the log's "redis unreachable" and the readiness probe name the dead
//   node only;
// - once the node is back, its keys are decided by the store again within the breaker's openMs (plus reconnecting).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monotonicClock, systemClock } from "../../src/core/clock.js";
import { type CheckResult, createEngine, type Engine } from "../../src/engine/engine.js";
import { parseConfig } from "../../src/rules/load-config.js";
import { createServiceLogger } from "../../src/server/service-logger.js";
import { parseServiceSettings } from "../../src/server/service-settings.js";
import { createServiceStore, type ServiceStore, shardIdOf } from "../../src/server/service-store.js";
import type { ShardedStore } from "../../src/stores/sharded-store.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";

const POLICIES = ["fail_open", "fail_closed", "fallback"] as const;
type Policy = (typeof POLICIES)[number];
const CONFIG = parseConfig(`
version: 1
rules:
${POLICIES.map(
  (p) => `  - id: ${p}
    domain: api
    match: [{ key: ${p} }]
    failurePolicy: ${p}
    limits: [{ name: ${p}, algorithm: fixed_window, limit: 1000000, period: 1h }]`,
).join("\n")}
`);
/** Users checked per policy and round (a third or so on each node). */
const USERS = Array.from({ length: 150 }, (_, i) => `u${i}`);
/** The engine's breaker opens for this long (the default), then lets one probe through. */
const OPEN_MS = 1000;

const servers: RedisProcess[] = [];
const lines: string[] = [];
let storage: ServiceStore;
let engine: Engine;
let sharded: ShardedStore;
let deadId: string;

beforeAll(async () => {
  for (let i = 0; i < 3; i++) servers.push(await startRedis());
  // A store timeout far above the default 50 ms: the healthy nodes must answer every call in time, and on a loaded
  // CI machine (2 cores, other test files' servers) a round of 450 concurrent checks once went past 50 ms, so the
  // healthy nodes' breakers opened, as they should for a slow node. The dead node's calls fail at once (refused
  // connection, no offline queue), so nothing here waits for the timeout.
  const settings = parseServiceSettings(
    { config: "x.yaml", redis: servers.map((s) => s.url).join(","), storeTimeout: "2s" },
    {},
  );
  const log = createServiceLogger({ level: "info", destination: { write: (l: string) => lines.push(l) } });
  storage = await createServiceStore(settings, log, systemClock);
  expect(await storage.connected(5000)).toBe(true);
  sharded = storage.store as ShardedStore;
  // As `sluice serve` creates it (service.ts).
  engine = createEngine({
    config: CONFIG,
    store: storage.store,
    failure: { timeoutMs: settings.storeTimeoutMs, fallbackShare: settings.fallbackShare },
  });
  deadId = shardIdOf(servers[2].url);
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await storage?.close(1000);
  await Promise.all(servers.map((s) => s.stop()));
});

const check = (policy: Policy, ...users: string[]): Promise<CheckResult> =>
  engine.check({ domain: "api", descriptors: users.map((u) => [{ key: policy, value: u }]) });

/** One round: every user of every policy at once; the tally of `node:reason:allowed` per policy. */
async function round(): Promise<Record<Policy, Record<string, number>>> {
  const out = {} as Record<Policy, Record<string, number>>;
  await Promise.all(
    POLICIES.map(async (policy) => {
      const tally: Record<string, number> = {};
      const results = await Promise.all(USERS.map((u) => check(policy, u)));
      for (const r of results) {
        const d = r.descriptors[0];
        const node = sharded.shardFor(d.match?.counterKey as string) === deadId ? "dead" : "healthy";
        const k = `${node}:${d.decision?.reason}:${r.allowed}`;
        tally[k] = (tally[k] ?? 0) + 1;
      }
      out[policy] = tally;
    }),
  );
  return out;
}

/** The users whose counter the dead node owns, and the others. */
function split(): { dead: string[]; healthy: string[] } {
  const onDead = (u: string) => sharded.shardFor(u) === deadId; // a one-entry rule's counter key is the value
  return { dead: USERS.filter(onDead), healthy: USERS.filter((u) => !onDead(u)) };
}

describe("client-side sharding over three redis-servers, one killed", () => {
  it("decides the healthy nodes' keys by Redis and only the dead node's by the failure policy", async () => {
    const { dead, healthy } = split();
    expect(dead.length).toBeGreaterThan(20);
    const up = await round();
    for (const p of POLICIES) {
      expect(up[p]).toEqual({ "healthy:store:true": healthy.length, "dead:store:true": dead.length });
    }

    await servers[2].kill("SIGKILL");
    const policyAnswer: Record<Policy, string> = {
      fail_open: "fail_open:true",
      fail_closed: "fail_closed:false",
      fallback: "fallback:true",
    };
    // Rounds over more than three breaker periods, so the dead node's probes (and their failures) fall among them.
    const started = monotonicClock.nowMs();
    let rounds = 0;
    while (monotonicClock.nowMs() - started < 3.5 * OPEN_MS) {
      const down = await round();
      for (const p of POLICIES) {
        expect(down[p], `round ${rounds}, ${p}`).toEqual({
          "healthy:store:true": healthy.length,
          [`dead:${policyAnswer[p]}`]: dead.length,
        });
      }
      rounds++;
      await sleep(150);
    }
    expect(rounds).toBeGreaterThanOrEqual(5);

    // One breaker per policy and node: the healthy nodes' never opened.
    for (const p of POLICIES) {
      const w = engine.failureStores.get(p);
      expect(w !== undefined && "shards" in w).toBe(true);
      if (w === undefined || !("shards" in w)) continue;
      for (const s of w.shards) {
        if (s.id === deadId) expect(s.store.stats.breakerOpened).toBeGreaterThanOrEqual(1);
        else expect(s.store.stats).toMatchObject({ state: "closed", failures: 0, breakerOpened: 0 });
      }
    }
    const unreachable = lines.filter((l) => l.includes("redis unreachable"));
    expect(unreachable.length).toBeGreaterThanOrEqual(1);
    for (const l of unreachable) expect(JSON.parse(l).redis).toBe(deadId);
    const probe = await storage.probe(500);
    expect(probe.ok).toBe(false);
    expect(probe.detail).toContain(deadId);
    for (const s of servers.slice(0, 2)) expect(probe.detail).not.toContain(shardIdOf(s.url));
  }, 60_000);

  it("a request spanning a healthy and the dead node: the store answers one, the policy the other", async () => {
    const { dead, healthy } = split();
    const remaining = async (u: string) =>
      (await engine.check({ domain: "api", descriptors: [[{ key: "fail_closed", value: u }]], cost: 0 }))
        .descriptors[0].decision?.remaining;
    const before = await remaining(healthy[0]);
    const closed = await check("fail_closed", healthy[0], dead[0]);
    expect(closed.descriptors.map((d) => d.decision?.reason)).toEqual(["store", "fail_closed"]);
    expect(closed.allowed).toBe(false);
    expect(await remaining(healthy[0])).toBe(before); // all-or-nothing: the healthy node's unit given back
    const open = await check("fail_open", healthy[1], dead[1]);
    expect(open.descriptors.map((d) => d.decision?.reason)).toEqual(["store", "fail_open"]);
    expect(open.allowed).toBe(true);
    const fallback = await check("fallback", dead[2], healthy[2]);
    expect(fallback.descriptors.map((d) => d.decision?.reason)).toEqual(["fallback", "store"]);
    expect(fallback.allowed).toBe(true);
    // Idempotent, the record on the dead node (its first item's) or on a healthy one: the same answers, unrecorded.
    for (const [i, users] of [
      [3, [dead[3], healthy[3]]],
      [4, [healthy[4], dead[4]]],
    ] as const) {
      const r = await engine.check({
        domain: "api",
        descriptors: users.map((u) => [{ key: "fail_open", value: u }]),
        idempotencyKey: `spread-${i}`,
      });
      expect(r.replayed).toBe(false);
      expect(r.descriptors.map((d) => d.decision?.reason)).toEqual(
        users.map((u) => (u === dead[i] ? "fail_open" : "store")),
      );
    }
  }, 30_000);

  it("once the node is back, its keys are decided by Redis again, under every policy", async () => {
    const { dead, healthy } = split();
    await servers[2].start();
    const started = monotonicClock.nowMs();
    const recovered = (r: Awaited<ReturnType<typeof round>>) =>
      POLICIES.every((p) => r[p]["dead:store:true"] === dead.length);
    let last = await round();
    while (!recovered(last) && monotonicClock.nowMs() - started < 10_000) {
      await sleep(50);
      last = await round();
    }
    // The breakers' next probe (openMs) after the client reconnected (every 100 ms at most), with room for a
    // loaded machine.
    expect(monotonicClock.nowMs() - started).toBeLessThan(OPEN_MS + 3000);
    for (const p of POLICIES) {
      expect(last[p]).toEqual({ "healthy:store:true": healthy.length, "dead:store:true": dead.length });
    }
  }, 30_000);
});

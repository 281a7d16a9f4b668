// The service's store over a Sentinel-managed master (`--redis-sentinel`), on PRIVATE processes this file starts and
// kills: a master, a replica (`replicaof`) and three Sentinels (quorum 1, down-after 2 s, failover-timeout 2 s),
// each Sentinel with its own writable conf file in a temp dir (Sentinel rewrites it).
//
// - The store finds the master through the Sentinels: decisions are counted there, the readiness probe is ok and
//   the description names the master and the Sentinels.
// - The master is SIGKILLed; once the Sentinels name the replica as master (polled, bounded), decisions resume
//   within a generous bound, on the promoted replica's copy of the counters (the test waits for replication before
//   the kill), and the probe is ok again.
// - A forced failover with both nodes alive (`SENTINEL FAILOVER`, after the old master came back as a replica):
//   the old master restarts with `--replicaof` the new master, as an operator's restart would be configured, rather
//   than waiting on Sentinel to convert it: Sentinel only converts a returning master at a replica INFO poll (every
//   10 s) once it has reported its role for 8 s, which a loaded CI machine once stretched past the 60 s bound.
//   the node the client holds is demoted, not dead, so only the client's Sentinel handling (+switch-master, or a
//   READONLY reply) moves it; decisions resume on the new master.
//
// Waits poll a condition (the Sentinels' answer, a decision) with generous bounds; nothing asserts a duration.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimitSet } from "../../src/algorithms/limit-set.js";
import { systemClock } from "../../src/core/clock.js";
import type { Decision } from "../../src/core/decision.js";
import { parseLimitSpec } from "../../src/core/limit-spec.js";
import { createServiceLogger } from "../../src/server/service-logger.js";
import { parseServiceSettings } from "../../src/server/service-settings.js";
import { createServiceStore, type ServiceStore } from "../../src/server/service-store.js";
import { makeTempDir, type RedisProcess, removeTempDir, sleep, startRedis } from "../support/redis-server.js";
import { parseInfo, respCall, respText } from "../support/resp.js";

const MASTER = "m";
const LIMIT = 1000;
// GCRA giving one unit back per hour: no window boundary can fall inside the test (a fixed window would start
// afresh at the hour), so the counts carried across failovers stay exact for the test's few minutes.
const SET = createLimitSet("sentinel-test", [
  parseLimitSpec({ name: "slow", algorithm: "gcra", limit: LIMIT, periodMs: LIMIT * 3_600_000 }),
]);
/**
 * How long a Sentinel waits on an unanswered PING before it takes a node for down. With quorum 1 one Sentinel's
 * opinion starts a failover, so this is kept above the stalls of a loaded CI machine (a 500 ms setting could fail a
 * healthy master over in the middle of a test); the killed master's failover waits for it once.
 */
const DOWN_AFTER_MS = 2000;
/** Bound of each wait for the Sentinels or the client (a loaded machine, an election that needs a second round). */
const WAIT_MS = 60_000;
/**
 * Bound of a wait on Sentinel converting a live master into a replica: it does so only at a replica INFO poll (every
 * 10 s) once the node has reported its role for 8 s, about 15 s on a quiet machine, so a loaded one needs more room.
 */
const CONVERT_WAIT_MS = 150_000;

let master: RedisProcess;
/** Extra arguments of the master's next start: empty at first, `--replicaof` the promoted node once it failed over. */
let masterArgs: readonly string[] = [];
let replica: RedisProcess;
const sentinels: RedisProcess[] = [];
const dirs: string[] = [];
let service: ServiceStore | undefined;
const lines: string[] = [];
const log = createServiceLogger({ level: "warn", destination: { write: (l: string) => lines.push(l) } });

/** Starts a Sentinel monitoring `masterPort`, with its own conf file in its own temp dir. */
async function startSentinel(masterPort: number): Promise<RedisProcess> {
  const dir = makeTempDir("sentinel");
  dirs.push(dir);
  const conf = join(dir, "sentinel.conf");
  writeFileSync(
    conf,
    [
      "sentinel resolve-hostnames no",
      `sentinel monitor ${MASTER} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${MASTER} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${MASTER} 2000`,
      "",
    ].join("\n"),
  );
  return startRedis({ dir, configFile: conf, args: ["--sentinel"] });
}

/**
 * Polls `check` every 100 ms until it returns true, at most `boundMs`; throws naming `what`, the last error and, on a
 * timeout, what `state()` reports then (the nodes' replication state and logs, so a CI failure shows its cause).
 */
async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  boundMs = WAIT_MS,
  state: () => Promise<string> = clusterState,
): Promise<number> {
  let last = "";
  for (let attempt = 1, waited = 0; waited < boundMs; attempt++, waited += 100) {
    try {
      if (await check()) return attempt;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  const seen = await state().catch((error: Error) => `(state unavailable: ${error.message})`);
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ""}\n${seen}`);
}

/** Each data node's replication state and log tail, and what the Sentinels name as master: a timeout's context. */
async function clusterState(): Promise<string> {
  const parts: string[] = [];
  for (const [name, node] of [
    ["old master", master],
    ["replica", replica],
  ] as const) {
    if (node === undefined) continue;
    const info = await respText(node.port, ["INFO", "replication"], { timeoutMs: 1000 }).catch(
      (error: Error) => `INFO failed: ${error.message}`,
    );
    parts.push(
      `--- ${name} (port ${node.port}, running ${node.running}):\n${info.trim()}\n${node.logTail(25)}`,
    );
  }
  for (const s of sentinels) parts.push(`--- sentinel ${s.port}:\n${s.logTail(15)}`);
  return parts.join("\n");
}

/** The port every Sentinel names for the master (undefined while they disagree or cannot answer). */
async function masterPortNamed(): Promise<number | undefined> {
  const ports = await Promise.all(
    sentinels.map(async (s) => {
      const reply = await respCall(s.port, ["SENTINEL", "get-master-addr-by-name", MASTER]);
      return Array.isArray(reply) ? Number(reply[1]) : undefined;
    }),
  );
  return ports.every((p) => p === ports[0]) ? ports[0] : undefined;
}

/** Whether the node on `port` reports `role` and, for a replica, a link to its master that is up. */
async function hasRole(port: number, role: "master" | "slave"): Promise<boolean> {
  const info = parseInfo(await respText(port, ["INFO", "replication"]));
  return info.get("role") === role && (role === "master" || info.get("master_link_status") === "up");
}

/**
 * The port of the master if the topology is settled: every Sentinel names it, it reports the master role, and the
 * other data node is its replica with the link up; undefined while it is not.
 */
async function settledMaster(): Promise<number | undefined> {
  const named = await masterPortNamed();
  if (named === undefined) return undefined;
  const other = named === master.port ? replica.port : master.port;
  const info = parseInfo(await respText(other, ["INFO", "replication"]));
  const follows = info.get("master_port") === String(named) && info.get("master_link_status") === "up";
  return follows && info.get("role") === "slave" && (await hasRole(named, "master")) ? named : undefined;
}

/** Waits (bounded, throwing with the nodes' state) for the topology to settle; the master's port. */
async function waitSettled(what: string, boundMs = WAIT_MS): Promise<number> {
  let port: number | undefined;
  await waitFor(
    what,
    async () => {
      port = await settledMaster();
      return port !== undefined;
    },
    boundMs,
  );
  return port as number;
}

/** One consume of `key` through the service's store. */
async function consume(key: string): Promise<Decision> {
  if (service === undefined) throw new Error("no store");
  const [decision] = await service.store.apply(
    [{ limits: SET, key, cost: 1 }],
    "consume",
    systemClock.nowMs(),
  );
  return decision;
}

/** Consumes `key` every 100 ms until a call succeeds (bounded); returns that decision and the attempts it took. */
async function consumeWhenBack(key: string): Promise<{ decision: Decision; attempts: number }> {
  let decision: Decision | undefined;
  const attempts = await waitFor(`decisions on ${key} to resume`, async () => {
    decision = await consume(key);
    return true;
  });
  return { decision: decision as Decision, attempts };
}

beforeAll(async () => {
  master = await startRedis({ args: () => masterArgs });
  replica = await startRedis({ args: ["--replicaof", "127.0.0.1", String(master.port)] });
  await waitFor("the replica's link to the master", () => hasRole(replica.port, "slave"));
  for (let i = 0; i < 3; i++) sentinels.push(await startSentinel(master.port));
  // An election needs the Sentinels to know each other (hello messages every 2 s) and the replica.
  await waitFor("the Sentinels to know each other and the replica", async () => {
    for (const s of sentinels) {
      const peers = await respCall(s.port, ["SENTINEL", "sentinels", MASTER]);
      const replicas = await respCall(s.port, ["SENTINEL", "replicas", MASTER]);
      if (!Array.isArray(peers) || peers.length !== 2 || !Array.isArray(replicas) || replicas.length !== 1)
        return false;
    }
    return true;
  });
}, 120_000);

afterAll(async () => {
  await service?.close(500);
  // Every process, whatever the tests did (stop() is idempotent and SIGKILLs); then the Sentinels' dirs.
  await Promise.all([master, replica, ...sentinels].filter(Boolean).map((p) => p.stop()));
  for (const dir of dirs) removeTempDir(dir);
});

describe("the service's store with --redis-sentinel", () => {
  it("finds the master through the Sentinels: decisions, probe and description", async () => {
    const urls = sentinels.map((s) => s.url);
    service = await createServiceStore(
      parseServiceSettings({ config: "x.yaml", redis: urls.join(","), redisSentinel: MASTER }, {}),
      log,
      systemClock,
    );
    const name = `redis sentinel master ${MASTER} via ${sentinels.map((s) => `127.0.0.1:${s.port}`).join(", ")}`;
    expect(service.description).toBe(`redis sentinel master ${MASTER} via ${urls.join(", ")}`);
    expect(await service.connected(10_000)).toBe(true);
    expect(await service.probe(2000)).toEqual({ ok: true, detail: name });
    for (let i = 1; i <= 3; i++)
      expect(await consume("k")).toMatchObject({ allowed: true, remaining: LIMIT - i });
    // Counted on the master itself.
    expect(await respCall(master.port, ["DBSIZE"])).toBeGreaterThan(0);
  });

  it("follows a failover: the master is killed, the replica promoted, decisions resume on its copy", async () => {
    // The counts reach the replica before the crash, so the promoted node holds them.
    expect(await respCall(master.port, ["WAIT", "1", "5000"])).toBe(1);
    await master.kill("SIGKILL");
    await waitFor(
      "the Sentinels to promote the replica",
      async () => (await masterPortNamed()) === replica.port,
    );
    const { decision, attempts } = await consumeWhenBack("k");
    expect(decision).toMatchObject({ allowed: true, remaining: LIMIT - 4 });
    expect(attempts).toBeLessThan(WAIT_MS / 100);
    await waitFor("the probe to pass", async () => (await service?.probe(2000))?.ok === true);
    expect(await hasRole(replica.port, "master")).toBe(true);
    expect(lines.join("")).toContain("redis unreachable");
  }, 180_000);

  it("follows a forced failover that demotes the node it is connected to", async () => {
    // The old master comes back empty, as a replica of the new master.
    masterArgs = ["--replicaof", "127.0.0.1", String(replica.port)];
    await master.start();
    // Whichever node the Sentinels name (a failover of their own on a stalled machine would have swapped them),
    // the topology is settled once the named master says so and the other node replicates from it, in sync.
    const before = await waitSettled("the old master to rejoin as a replica");
    const other = before === master.port ? replica.port : master.port;
    expect(await respCall(before, ["WAIT", "1", "5000"])).toBe(1);
    // Refused (NOGOODSLAVE) until a Sentinel has seen the replica in sync: retried.
    await waitFor("a Sentinel to accept SENTINEL FAILOVER", async () => {
      await respCall(sentinels[0].port, ["SENTINEL", "failover", MASTER]);
      return true;
    });
    await waitFor("the Sentinels to name the other node", async () => (await masterPortNamed()) === other);
    expect(await waitSettled("the demoted node to be a replica", CONVERT_WAIT_MS)).toBe(other);
    const { decision } = await consumeWhenBack("k");
    expect(decision).toMatchObject({ allowed: true, remaining: LIMIT - 5 });
    expect(await hasRole(other, "master")).toBe(true);
    await waitFor("the probe to pass", async () => (await service?.probe(2000))?.ok === true);
  }, 300_000);
});

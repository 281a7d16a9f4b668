// Redis outages under load: a Limiter over resilientStore(redisStore(...)) on a PRIVATE redis-server, 8 call loops
// on 4 keys; the server is SIGKILLed mid-load, stays down for a second while the loops keep calling, and is started
// again on the same port. For each failure policy (fail_open, fail_closed, fallback at share 0.5):
//
// - during the outage every decision carries the policy's reason, with its verdict (fail_open allows, fail_closed
//   denies, fallback limits locally at floor(limit * share) per key);
// - no call throws, no promise rejection goes unhandled, the breaker opens and short-circuits calls;
// - ioredis queues nothing while the server is down (offline queue stays empty, commands in flight <= loops);
// - after the restart, decisions are answered by the store again (reason "store") within
//   RECOVERY_BOUND_MS = 1000 + openMs of the moment the server answers PING. Why that bound: the breaker may have
//   re-opened on a failed probe just before the server came back, and then lets no call through for openMs (200
//   here); the 1000 ms cover ioredis noticing the server (reconnect delay capped at 100 ms by the options below),
//   its ready check, and the probe itself (EVALSHA, NOSCRIPT on the fresh server, EVAL) — with room for a loaded
//   machine, where the test runs next to CPU-heavy ones.
//
// The client options that make this work are RECOMMENDED_CLIENT_OPTIONS below. A last test shows why they matter:
// with ioredis defaults, commands issued during the outage wait in ioredis's offline queue (and the ones in flight
// at the crash in its resend queue), and are replayed once the server is back, consuming from keys for requests
// the failure policy has already answered; redisStore warns about both options when it is created (onWarning), and
// about nothing with the recommended ones.
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { Redis, type RedisOptions } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Decision, DecisionReason } from "../../src/core/decision.js";
import { createLimiter } from "../../src/engine/limiter.js";
import { type RedisClientWarning, redisStore } from "../../src/stores/redis/index.js";
import {
  type BreakerStateChange,
  type FailurePolicy,
  type ResilientOptions,
  type ResilientStats,
  resilientStore,
} from "../../src/stores/resilient-store.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";
import { respCall } from "../support/resp.js";

/**
 * The ioredis options a Sluice user should give the client behind a resilient Redis store:
 * - `enableOfflineQueue: false` — while disconnected, reject at once instead of queueing (a queued consume is
 *   replayed on reconnect, long after the policy answered the request; the queue also grows with the outage);
 * - `maxRetriesPerRequest: 0` — commands in flight when the connection drops are rejected at once, not kept
 *   for up to 20 reconnection attempts;
 * - `autoResendUnfulfilledCommands: false` — never resend those commands after reconnecting;
 * - `retryStrategy` — reconnect quickly and at a bounded interval (ioredis 6's default backs off exponentially
 *   to 5 s plus jitter, which alone delays recovery by seconds after a long outage);
 * - `connectTimeout` — a blackholed server fails a connection attempt in 1 s rather than 10 s.
 * With `enableOfflineQueue: false`, commands sent before the first "ready" event are rejected too: wait for it
 * before serving (or accept policy decisions for the first milliseconds).
 * The resilient store's `timeoutMs` bounds each call; ioredis `commandTimeout` is not needed.
 */
const RECOMMENDED_CLIENT_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (times) => Math.min(times * 20, 100),
  connectTimeout: 1000,
};

const LOOPS = 8;
const KEYS = ["k0", "k1", "k2", "k3"];
const LIMIT = 40;
const PERIOD_MS = 10_000;
const TIMEOUT_MS = 50;
const OPEN_MS = 200;
const FAILURES = 5;
const SHARE = 0.5;
const RECOVERY_BOUND_MS = 1000 + OPEN_MS;
const WARM_MS = 500;
const OUTAGE_MS = 1000;
const AFTER_MS = 1500;

/** Every promise rejection nobody handled while this file ran (asserted empty after each test). */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
});

/** Servers and clients started by the current test; afterEach stops whatever a failed test left behind. */
const servers = new Set<RedisProcess>();
const clients = new Set<Redis>();
afterEach(async () => {
  for (const c of clients) c.disconnect();
  clients.clear();
  await Promise.all([...servers].map((s) => s.stop()));
  servers.clear();
});

interface Call {
  key: string;
  startMs: number;
  endMs: number;
  reason: DecisionReason;
  allowed: boolean;
  retryAfterMs: number;
}

interface QueueSample {
  atMs: number;
  offline: number;
  inFlight: number;
}

/** ioredis internals: how many commands wait for a connection / for a reply. */
function queues(client: Redis): { offline: number; inFlight: number } {
  const c = client as unknown as { offlineQueue: { length: number }; commandQueue: { length: number } };
  return { offline: c.offlineQueue.length, inFlight: c.commandQueue.length };
}

/** Rejects after `ms` unless `promise` settles first. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A private server, a client with `options`, and the limiter over resilientStore(redisStore(client)). */
async function setUp(policy: FailurePolicy, options: RedisOptions) {
  const server = await startRedis();
  servers.add(server);
  const client = new Redis({ host: server.host, port: server.port, ...options });
  clients.add(client);
  let clientErrors = 0;
  client.on("error", () => {
    clientErrors++;
  });
  // With enableOfflineQueue: false a command sent before "ready" is rejected: wait for it (an application
  // would too, or accept policy decisions for its first milliseconds).
  if (client.status !== "ready") await within(once(client, "ready"), 5000, "the client's ready event");
  await within(client.ping(), 5000, "PING");
  const changes: BreakerStateChange[] = [];
  const failure: ResilientOptions = {
    onError: policy,
    fallbackShare: SHARE,
    timeoutMs: TIMEOUT_MS,
    breaker: { failures: FAILURES, openMs: OPEN_MS },
    onStateChange: (change) => changes.push(change),
  };
  const warnings: RedisClientWarning[] = [];
  const store = resilientStore(
    redisStore({ client, prefix: `faults-${policy}`, onWarning: (w) => warnings.push(w) }),
    failure,
  );
  const limiter = createLimiter({
    name: policy,
    limits: { name: "main", algorithm: "sliding_log", limit: LIMIT, periodMs: PERIOD_MS },
    store,
  });
  return { server, client, store, limiter, changes, warnings, clientErrors: () => clientErrors };
}

/** LOOPS loops calling limit() (1 ms apart) until stop(); each call is recorded, each throw kept. */
function startLoad(limit: (key: string) => Promise<Decision>, client: Redis) {
  const calls: Call[] = [];
  const thrown: unknown[] = [];
  const samples: QueueSample[] = [];
  let running = true;
  const loop = async (i: number): Promise<void> => {
    for (let n = 0; running; n++) {
      const key = KEYS[(i + n) % KEYS.length];
      const startMs = performance.now();
      try {
        const d = await limit(key);
        calls.push({
          key,
          startMs,
          endMs: performance.now(),
          reason: d.reason,
          allowed: d.allowed,
          retryAfterMs: d.retryAfterMs,
        });
      } catch (error) {
        thrown.push(error);
      }
      await sleep(1);
    }
  };
  const loops = Promise.all(Array.from({ length: LOOPS }, (_, i) => loop(i)));
  const sampler = setInterval(() => samples.push({ atMs: performance.now(), ...queues(client) }), 5);
  return {
    calls,
    thrown,
    samples,
    async stop(): Promise<void> {
      running = false;
      clearInterval(sampler);
      await within(loops, 5000, "the call loops");
    },
  };
}

const POLICY_REASON: Record<FailurePolicy, DecisionReason> = {
  fail_open: "fail_open",
  fail_closed: "fail_closed",
  fallback: "fallback",
};

describe("resilient Redis store: server SIGKILLed mid-load, then restarted", () => {
  for (const policy of ["fail_open", "fail_closed", "fallback"] as const) {
    it(`${policy}: policy decisions during the outage, store decisions within ${RECOVERY_BOUND_MS} ms of the restart`, {
      timeout: 30_000,
    }, async () => {
      const { server, client, store, limiter, changes, clientErrors } = await setUp(
        policy,
        RECOMMENDED_CLIENT_OPTIONS,
      );
      let killDone = 0;
      let restartBegin = 0;
      let restartDone = 0;
      /** The counters when the first store decision after the restart arrived. */
      let atRecovery: ResilientStats | undefined;
      const load = startLoad(async (key) => {
        const d = await limiter.limit(key);
        if (d.reason === "store" && restartBegin > 0 && atRecovery === undefined) atRecovery = store.stats;
        return d;
      }, client);
      try {
        await sleep(WARM_MS);
        await server.kill("SIGKILL");
        killDone = performance.now();
        await sleep(OUTAGE_MS);
        restartBegin = performance.now();
        await server.start();
        restartDone = performance.now();
        await sleep(AFTER_MS);
      } finally {
        await load.stop();
      }
      const stats = store.stats;
      await store.close();
      const { calls, thrown, samples } = load;

      const before = calls.filter((c) => c.endMs < killDone - 50);
      const outage = calls.filter((c) => c.startMs >= killDone && c.startMs < restartBegin);
      const after = calls.filter((c) => c.startMs >= restartBegin);
      const firstStore = after.find((c) => c.reason === "store");
      const recoveryMs = firstStore === undefined ? Number.POSITIVE_INFINITY : firstStore.endMs - restartDone;
      const settled = firstStore === undefined ? [] : after.filter((c) => c.startMs >= firstStore.endMs);
      const settledNonStore = settled.filter((c) => c.reason !== "store");
      const failuresAfter = stats.failures - (atRecovery?.failures ?? 0);
      const timeoutsAfter = stats.timeouts - (atRecovery?.timeouts ?? 0);
      const outageQueues = samples.filter((s) => s.atMs >= killDone && s.atMs < restartBegin);
      const maxOffline = Math.max(0, ...outageQueues.map((s) => s.offline));
      const maxInFlight = Math.max(0, ...outageQueues.map((s) => s.inFlight));
      const fallbackAdmitted = KEYS.map(
        (k) => calls.filter((c) => c.key === k && c.reason === "fallback" && c.allowed).length,
      );
      const outageByKey = KEYS.map((k) => outage.filter((c) => c.key === k).length);
      console.log(
        `[faults] ${policy}: ${before.length} calls before the kill (${before.filter((c) => c.reason === "store").length} store), ` +
          `${outage.length} during the ${((restartBegin - killDone) / 1000).toFixed(2)} s outage ` +
          `(reasons ${JSON.stringify(countBy(outage, (c) => c.reason))}, allowed ${outage.filter((c) => c.allowed).length}, ` +
          `per key ${outageByKey.join("/")}), ${after.length} after the restart; ` +
          `restart took ${(restartDone - restartBegin).toFixed(0)} ms; first store decision ${recoveryMs.toFixed(0)} ms ` +
          `after the server answered PING (bound ${RECOVERY_BOUND_MS} ms); ${settledNonStore.length}/${settled.length} ` +
          `later calls not from the store (${failuresAfter} failures after recovery, ${timeoutsAfter} of them timeouts); breaker transitions ${changes.map((c) => c.to).join(">")}; ` +
          `stats ${JSON.stringify(stats)}; ioredis during the outage: offline queue max ${maxOffline}, ` +
          `in flight max ${maxInFlight}, ${clientErrors()} error events` +
          (policy === "fallback" ? `; fallback admitted per key ${fallbackAdmitted.join("/")}` : ""),
      );

      // Nothing thrown, nothing unhandled.
      expect(thrown).toEqual([]);
      expect(unhandled).toEqual([]);
      // Before the kill the store answered.
      expect(before.filter((c) => c.reason === "store").length).toBeGreaterThan(0);
      // During the outage: only the policy, with its verdict.
      expect(outage.length).toBeGreaterThan(100);
      expect(countBy(outage, (c) => c.reason)).toEqual({ [POLICY_REASON[policy]]: outage.length });
      if (policy === "fail_open") expect(outage.every((c) => c.allowed)).toBe(true);
      if (policy === "fail_closed") {
        expect(outage.some((c) => c.allowed)).toBe(false);
        // Retry when the breaker lets the next probe through (or after the timeout while it is still closed).
        const retries = outage.map((c) => c.retryAfterMs);
        expect(Math.min(...retries)).toBeGreaterThanOrEqual(1);
        expect(Math.max(...retries)).toBeLessThanOrEqual(OPEN_MS);
      }
      if (policy === "fallback") {
        const local = Math.floor(LIMIT * SHARE);
        for (const n of outageByKey) expect(n).toBeGreaterThan(local * 2); // demand well above the local share
        expect(fallbackAdmitted).toEqual(KEYS.map(() => local));
      }
      // The breaker opened and cut calls off.
      expect(stats.breakerOpened).toBeGreaterThanOrEqual(1);
      expect(stats.shortCircuited).toBeGreaterThan(0);
      expect(changes.some((c) => c.to === "open")).toBe(true);
      // ioredis did not queue: nothing offline, never more in flight than there are loops.
      expect(maxOffline).toBe(0);
      expect(maxInFlight).toBeLessThanOrEqual(LOOPS);
      // Back to the store, in time, and it stays there.
      expect(firstStore, "no store decision after the restart").toBeDefined();
      expect(recoveryMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
      // After recovery Redis stays reachable: the only failures allowed are timeouts (a stall of this loaded
      // machine beyond timeoutMs = 50 ms, which may re-open the breaker for openMs), and without any, every later
      // call is answered by the store.
      expect(settled.length).toBeGreaterThan(100);
      expect(failuresAfter, "failures after recovery other than timeouts").toBe(timeoutsAfter);
      if (timeoutsAfter === 0) expect(settledNonStore).toEqual([]);
      expect(settled.slice(-50).every((c) => c.reason === "store")).toBe(true);
      expect(stats.state).toBe("closed");
    });
  }
});

describe("ioredis client options during an outage", () => {
  /** Loads, kills, waits out an outage with the loops stopped, restarts, and counts keys written afterwards. */
  async function replayAfterOutage(options: RedisOptions) {
    const { server, client, limiter, warnings } = await setUp("fallback", options);
    const load = startLoad((key) => limiter.limit(key), client);
    let stopped = false;
    try {
      await sleep(300);
      await server.kill("SIGKILL");
      const killDone = performance.now();
      await sleep(OUTAGE_MS);
      await load.stop();
      stopped = true;
      const outageQueues = load.samples.filter((s) => s.atMs >= killDone);
      const maxOffline = Math.max(0, ...outageQueues.map((s) => s.offline));
      const queuedAtRestart = queues(client);
      // The fresh server is empty and gets no new calls: any key on it was written by a replayed command.
      await server.start();
      const deadline = performance.now() + 10_000;
      while (client.status !== "ready" && performance.now() < deadline) await sleep(20);
      const reconnectMs = performance.now() - deadline + 10_000;
      await sleep(300);
      const keys = Number(await respCall(server.port, ["DBSIZE"]));
      return {
        maxOffline,
        queuedAtRestart,
        keys,
        ready: client.status === "ready",
        reconnectMs,
        load,
        warned: warnings.map((w) => w.code),
      };
    } finally {
      if (!stopped) await load.stop();
    }
  }

  it("recommended options: nothing queued while down, nothing replayed after", {
    timeout: 30_000,
  }, async () => {
    const r = await replayAfterOutage(RECOMMENDED_CLIENT_OPTIONS);
    console.log(
      `[faults] recommended ioredis options: offline queue max ${r.maxOffline}, queued at restart ` +
        `${JSON.stringify(r.queuedAtRestart)}, reconnected ${r.reconnectMs.toFixed(0)} ms after the restart, ` +
        `keys written by replays ${r.keys}`,
    );
    expect(r.load.thrown).toEqual([]);
    expect(r.ready).toBe(true);
    expect(r.maxOffline).toBe(0);
    expect(r.keys).toBe(0);
    expect(r.warned).toEqual([]); // the store found nothing to warn about
    expect(unhandled).toEqual([]);
  });

  it("ioredis defaults: commands queue while down and are replayed after (why the options matter)", {
    timeout: 30_000,
  }, async () => {
    const r = await replayAfterOutage({});
    console.log(
      `[faults] ioredis defaults: offline queue max ${r.maxOffline}, queued at restart ` +
        `${JSON.stringify(r.queuedAtRestart)}, reconnected ${r.reconnectMs.toFixed(0)} ms after the restart, ` +
        `keys written by replays ${r.keys}`,
    );
    expect(r.load.thrown).toEqual([]);
    expect(r.maxOffline).toBeGreaterThan(0);
    expect(r.ready).toBe(true);
    expect(r.keys).toBeGreaterThan(0);
    // The store warned, when it was created, about both options behind what was just seen.
    expect(r.warned).toEqual(["SLUICE_REDIS_OFFLINE_QUEUE", "SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    expect(unhandled).toEqual([]);
  });
});

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const k = keyOf(item);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

// A stalled Redis (the server SIGSTOPped: it accepts bytes and answers nothing) behind a Limiter over
// resilientStore(redisStore(...)), on a PRIVATE redis-server. 2,000 calls arrive at once during the stall; the
// resilient store's 30 ms timeout answers every one with the failure policy. What the Redis store does with them:
//
// - whole batches leave at once only while fewer than FULL_IN_FLIGHT (8) script calls are in flight: 8 × 64 = 512
//   calls are sent into the stalled connection, and Redis will apply them when it runs again (a call that has left
//   the process cannot be taken back: the documented double count of a timeout);
// - the other 1,488 stay in the store's queue, time out there, and are dropped when their turn comes (the stall
//   timer frees the slots after STALL_MS): never sent, so once Redis runs again it applies 512 calls, not 2,000,
//   and no request the policy answered is counted a second time by Redis.
//
// The count is read exactly: gcra with a limit of 10,000 per 30 days refills one unit per 259 s, so `remaining`
// is 10,000 minus the calls Redis applied.
//
// The second case is the client's own stall with Redis healthy: the calls that time out still queued in the process
// never reached Redis, so they are no failures of it (`queueTimeouts`); a run of them opens the breaker for
// min(openMs, timeoutMs) only, and Redis answers again right after, not a whole `openMs` later.
import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimiter } from "../../src/engine/limiter.js";
import { FULL_IN_FLIGHT, STALL_MS } from "../../src/stores/redis/batch-queue.js";
import { redisStore } from "../../src/stores/redis/index.js";
import { resilientStore } from "../../src/stores/resilient-store.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";

const LIMITS = { algorithm: "gcra", limit: 10_000, period: "30d" } as const;
const MAX_BATCH = 64;
const CALLS = 2000;

let redis: RedisProcess;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

/** A client of the private server with the options the README recommends, once ready. */
async function connect(): Promise<Redis> {
  const client = new Redis({
    host: redis.host,
    port: redis.port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    lazyConnect: false,
  });
  await once(client, "ready");
  return client;
}

describe("Redis store behind resilientStore: a stall's backlog is shed, not replayed", () => {
  it("calls that time out while queued are never sent; only the calls that had left are applied", {
    timeout: 30_000,
  }, async () => {
    const client = await connect();
    try {
      const store = redisStore({ client, maxBatch: MAX_BATCH });
      const guarded = createLimiter({
        store,
        name: "shed",
        limits: LIMITS,
        failure: { onError: "fail_open", timeoutMs: 30 },
      });
      // The same namespace and limits straight on the store (no timeout, no breaker): reads the count.
      const raw = createLimiter({ store, name: "shed", limits: LIMITS });
      expect((await guarded.limit("k")).reason).toBe("store"); // script loaded, 1 unit taken
      const pid = redis.pid as number;
      process.kill(pid, "SIGSTOP");
      try {
        const decisions = await Promise.all(Array.from({ length: CALLS }, () => guarded.limit("k")));
        expect(decisions.every((d) => d.allowed && d.reason === "fail_open")).toBe(true);
        // The stall timer frees the slots of the unanswered script calls: the queue's turn comes and every
        // call still in it, all timed out, is dropped.
        await sleep(STALL_MS + 100);
      } finally {
        process.kill(pid, "SIGCONT");
      }
      // Answered after every script call sent before it (one connection, in order).
      const after = await raw.peek("k");
      expect(after.reason).toBe("store");
      const sent = FULL_IN_FLIGHT * MAX_BATCH;
      expect(LIMITS.limit - after.remaining).toBe(1 + sent);
      expect(1 + sent).toBeLessThan(1 + CALLS); // what Redis would have counted had the backlog been replayed
    } finally {
      client.disconnect();
    }
  });

  it("the client's own stall: calls that time out still queued are no Redis failures; Redis answers again within the timeout", {
    timeout: 30_000,
  }, async () => {
    const client = await connect();
    try {
      const store = resilientStore(redisStore({ client, maxBatch: MAX_BATCH }), {
        onError: "fallback",
        timeoutMs: 200, // long beside Redis's answer (well under 1 ms), should the machine be loaded
        breaker: { failures: 5, openMs: 10_000 },
      });
      const limiter = createLimiter({ store, name: "stall", limits: LIMITS });
      expect((await limiter.limit("k")).reason).toBe("store"); // script loaded
      const calls = Array.from({ length: CALLS }, () => limiter.limit("k"));
      // This process stalls (a long task, a collection) past the timeout before it can send the queued calls.
      const until = performance.now() + 300;
      while (performance.now() < until);
      const decisions = await Promise.all(calls);
      const byReason = (r: string) => decisions.filter((d) => d.reason === r).length;
      // The whole batches that left before the stall were answered by Redis; the calls still queued timed out there.
      expect(byReason("store")).toBeGreaterThanOrEqual(FULL_IN_FLIGHT * MAX_BATCH);
      expect(byReason("store") + byReason("fallback")).toBe(CALLS);
      expect(store.stats.failures).toBe(0);
      expect(store.stats.timeouts).toBe(0);
      expect(store.stats.queueTimeouts).toBe(byReason("fallback"));
      // A run of them may open the breaker, for the timeout (200 ms) and not for openMs (10 s): Redis is asked again.
      await sleep(250);
      expect((await limiter.limit("k")).reason).toBe("store");
      expect(store.state).toBe("closed");
    } finally {
      client.disconnect();
    }
  });
});

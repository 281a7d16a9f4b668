// The client options the Redis store warns about, read from real ioredis clients that never connect
// (lazyConnect), and how the store reports them: once per store through onWarning, or once per client as a
// Node process warning.
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientOptionWarnings, type RedisClientWarning } from "./client-option-warnings.js";
import { redisStore } from "./redis-store.js";

const clients: (Redis | Cluster)[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
  vi.restoreAllMocks();
});

function redis(options: RedisOptions = {}): Redis {
  const c = new Redis({ lazyConnect: true, port: 1, ...options });
  clients.push(c);
  return c;
}

function cluster(options: ConstructorParameters<typeof Cluster>[1] = {}): Cluster {
  const c = new Cluster([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true, ...options });
  clients.push(c);
  return c;
}

const SAFE: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
};

const codes = (ws: readonly RedisClientWarning[]) => ws.map((w) => w.code);

describe("clientOptionWarnings", () => {
  it("finds nothing wrong with the recommended options", () => {
    expect(clientOptionWarnings(redis(SAFE))).toEqual([]);
    expect(clientOptionWarnings(redis({ ...SAFE, autoResendUnfulfilledCommands: true }))).toEqual([]);
    expect(clientOptionWarnings(cluster({ enableOfflineQueue: false, retryDelayOnFailover: 0 }))).toEqual([]);
  });

  it("flags the ioredis defaults: the offline queue and 20 retries per request", () => {
    const ws = clientOptionWarnings(redis());
    expect(codes(ws)).toEqual(["SLUICE_REDIS_OFFLINE_QUEUE", "SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    expect(ws[0].option).toBe("enableOfflineQueue");
    expect(ws[0].message).toMatch(/enableOfflineQueue: false/);
    expect(ws[1].message).toMatch(/maxRetriesPerRequest is 20: .*held for up to 21 reconnection attempts/);
    expect(ws[1].message).toMatch(/sent again after reconnecting/);
  });

  it("flags maxRetriesPerRequest null (held however long) and any bound above 0", () => {
    const unbounded = clientOptionWarnings(
      redis({ ...SAFE, maxRetriesPerRequest: null, autoResendUnfulfilledCommands: true }),
    );
    expect(codes(unbounded)).toEqual(["SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    expect(unbounded[0].message).toMatch(/is null: .*until the connection is back/);
    const one = clientOptionWarnings(
      redis({ ...SAFE, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: true }),
    );
    expect(one[0].message).toMatch(/is 1: .*2 reconnection attempts/);
  });

  it("explains that without resending, a call in flight at a reconnection never settles", () => {
    const ws = clientOptionWarnings(redis({ ...SAFE, maxRetriesPerRequest: 5 }));
    expect(codes(ws)).toEqual(["SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    expect(ws[0].message).toMatch(/autoResendUnfulfilledCommands false: .*never settles .*within 6 attempts/);
    const never = clientOptionWarnings(redis({ ...SAFE, maxRetriesPerRequest: null }));
    expect(never[0].message).toMatch(/never settles if ioredis reconnects at all/);
  });

  it("flags autopipelining", () => {
    expect(codes(clientOptionWarnings(redis({ ...SAFE, enableAutoPipelining: true })))).toEqual([
      "SLUICE_REDIS_AUTO_PIPELINING",
    ]);
  });

  it("on a Cluster, flags ioredis's own resend of calls in flight on a closed connection (retryDelayOnFailover)", () => {
    expect(codes(clientOptionWarnings(cluster({ enableOfflineQueue: false })))).toEqual([
      "SLUICE_REDIS_FAILOVER_RESEND",
    ]);
    const [w] = clientOptionWarnings(cluster({ enableOfflineQueue: false, retryDelayOnFailover: 250 }));
    expect(w.option).toBe("retryDelayOnFailover");
    expect(w.message).toMatch(/retryDelayOnFailover is 250/);
    expect(clientOptionWarnings(redis({ ...SAFE, retryDelayOnFailover: 100 } as RedisOptions))).toEqual([]);
  });

  it("on a Cluster, flags its offline queue, and node retries only when node connections reconnect", () => {
    const ws = clientOptionWarnings(cluster({ retryDelayOnFailover: 0 }));
    expect(codes(ws)).toEqual(["SLUICE_REDIS_OFFLINE_QUEUE"]);
    expect(ws[0].message).toMatch(/while the cluster is unreachable/);
    const reconnecting = clientOptionWarnings(
      cluster({ enableOfflineQueue: false, retryDelayOnFailover: 0, clusterNodeRetryStrategy: () => 100 }),
    );
    expect(codes(reconnecting)).toEqual(["SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    expect(reconnecting[0].option).toBe("redisOptions.maxRetriesPerRequest");
    expect(
      clientOptionWarnings(
        cluster({
          enableOfflineQueue: false,
          retryDelayOnFailover: 0,
          clusterNodeRetryStrategy: () => 100,
          redisOptions: { maxRetriesPerRequest: 0 },
        }),
      ),
    ).toEqual([]);
  });

  it("says nothing about a client whose options it cannot read", () => {
    expect(clientOptionWarnings({ evalsha: async () => 1, eval: async () => 1 })).toEqual([]);
    expect(clientOptionWarnings(null)).toEqual([]);
  });
});

describe("redisStore warnings", () => {
  it("reports each problem once per store through onWarning, when the store is created", () => {
    const client = redis();
    const seen: RedisClientWarning[] = [];
    const store = redisStore({ client, onWarning: (w) => seen.push(w) });
    expect(codes(seen)).toEqual(["SLUICE_REDIS_OFFLINE_QUEUE", "SLUICE_REDIS_RETRIES_PER_REQUEST"]);
    redisStore({ client, onWarning: (w) => seen.push(w) });
    expect(seen).toHaveLength(4);
    void store.close();
  });

  it("says nothing for a client with the recommended options", () => {
    const onWarning = vi.fn();
    redisStore({ client: redis(SAFE), onWarning });
    expect(onWarning).not.toHaveBeenCalled();
  });

  it("by default emits one Node process warning per client and problem, however many stores share the client", () => {
    const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const client = redis({ ...SAFE, enableOfflineQueue: true });
    redisStore({ client });
    redisStore({ client, prefix: "other" });
    expect(emit).toHaveBeenCalledTimes(1);
    expect(emit.mock.calls[0][0]).toMatch(/^redisStore: enableOfflineQueue is true/);
    expect(emit.mock.calls[0][1]).toEqual({ type: "SluiceWarning", code: "SLUICE_REDIS_OFFLINE_QUEUE" });
    redisStore({ client: redis({ ...SAFE, enableOfflineQueue: true }) });
    expect(emit).toHaveBeenCalledTimes(2); // another client warns again
  });

  it("rejects an onWarning that is not a function", () => {
    expect(() => redisStore({ client: redis(SAFE), onWarning: "log" as never })).toThrow(
      /onWarning must be a function/,
    );
  });
});

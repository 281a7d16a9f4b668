/**
 * The store of `sluice serve`, built from its settings, with the readiness probe and the shutdown it needs:
 * - `memory`: one bounded in-process {@link MemoryStore} (always reachable);
 * - `redis` with one URL: a {@link RedisStore} over one ioredis client;
 * - `redis` with several URLs: client-side sharding ({@link ShardedStore}) over one Redis store per node, each
 *   shard named `host:port/db` (never the credentials, so a password change moves no key); the engine puts a
 *   failure wrapper around each node (`resilient-sharded-store.ts`), so one node down sends only its own keys to
 *   the failure policy (readiness still fails while any node is down: the probe below);
 * - `redis` with `--redis-cluster`: one Redis store over an ioredis `Cluster` seeded with the URLs;
 * - `redis` with `--redis-sentinel <master>`: one Redis store over one ioredis client that finds the master through
 *   the Sentinels at the URLs and follows its failovers (`redis-clients.ts`).
 *
 * ioredis is an optional peer dependency, loaded only for the Redis store. Clients are built by `redis-clients.ts`
 * (shared with the admin API) with the fail-fast options the failure policies need (`enableOfflineQueue: false`, `maxRetriesPerRequest: 0`, no resending after a reconnect,
 * reconnection every ≤ 100 ms, a 1 s connect timeout, no auto-pipelining), so an outage turns into policy
 * answers at once and nothing queued is replayed later. Connection errors are logged once per outage, not once
 * per reconnection attempt.
 *
 * Readiness ({@link ServiceStore.probe}) is a real round trip: a `peek` (cost 0, writes nothing) of a private key
 * under a private one-limit set, on every node, each bounded by a timeout.
 */
import type { Logger } from "pino";
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import type { Clock } from "../core/clock.js";
import { InvalidArgumentError, StoreTimeoutError } from "../core/errors.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { memoryStore } from "../stores/memory/memory-store.js";
import { redisStore } from "../stores/redis/index.js";
import type { RedisScriptClient } from "../stores/redis/script.js";
import { shardedStore } from "../stores/sharded-store.js";
import type { Store } from "../stores/store.js";
import {
  createRedisClient,
  type IoredisModule,
  redisClientSpecs,
  SENTINEL_DEFAULT_PORT,
} from "./redis-clients.js";
import { maskUrlCredentials } from "./service-logger.js";
import type { ServiceSettings } from "./service-settings.js";

/** The outcome of one readiness check. */
export interface ProbeResult {
  /** Whether every node answered in time. */
  readonly ok: boolean;
  /** What was checked, or why it failed. */
  readonly detail: string;
}

/** The service's store and what the service needs around it. */
export interface ServiceStore {
  /** The store the engine uses. */
  readonly store: Store;
  /** What it is, for logs (`memory, capacity 1000000`; Redis URLs with passwords masked). */
  readonly description: string;
  /** One round trip to every node, each within `timeoutMs`. */
  probe(timeoutMs: number): Promise<ProbeResult>;
  /** Resolves true once every client is connected, false when `timeoutMs` passes first. */
  connected(timeoutMs: number): Promise<boolean>;
  /** Closes the store and its clients (pending replies get up to `timeoutMs`). */
  close(timeoutMs: number): Promise<void>;
}

/** The fail-fast ioredis options the failure policies rely on (defined with the clients, `redis-clients.ts`). */
export { REDIS_CLIENT_OPTIONS } from "./redis-clients.js";

/** The private key and limit set the readiness probe peeks. */
const PROBE_KEY = "__sluice_readiness__";
const PROBE_SET: LimitSet = createLimitSet("__sluice_readiness__", [
  parseLimitSpec({ name: "probe", algorithm: "fixed_window", limit: 1, periodMs: 1000 }),
]);

/** The minimal ioredis surface used here (the clients are created from the dynamically loaded module). */
interface RedisClient extends RedisScriptClient {
  readonly status: string;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** `host:port/db` of a Redis URL: a shard's stable name, free of credentials. */
export function shardIdOf(url: string): string {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, "") || "0";
  return `${u.hostname}:${u.port || "6379"}/${db}`;
}

/** `host:port` of a Sentinel URL (port 26379 when it names none), free of credentials. */
export function sentinelIdOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || SENTINEL_DEFAULT_PORT}`;
}

/**
 * Races `p` against `timeoutMs`: rejects with a {@link StoreTimeoutError} naming `what` when it passes first (`p`
 * goes on; its outcome is ignored). The timer never keeps the process alive.
 */
export function within<T>(p: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(what, timeoutMs)), timeoutMs);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** One round trip through `store`. */
async function probeOne(
  store: Store,
  clock: Clock,
  timeoutMs: number,
  name: string,
): Promise<string | undefined> {
  try {
    await within(
      store.apply([{ limits: PROBE_SET, key: PROBE_KEY, cost: 0 }], "peek", clock.nowMs()),
      timeoutMs,
      name,
    );
    return undefined;
  } catch (error) {
    return `${name}: ${maskUrlCredentials((error as Error).message ?? String(error))}`;
  }
}

/** Logs a client's connection state changes: the first error of an outage, and the recovery. */
function watchClient(client: RedisClient, name: string, log: Logger): void {
  let down = false;
  client.on("error", (error) => {
    if (down) return;
    down = true;
    log.warn(
      { redis: name, err: error },
      "redis unreachable; rules answer by their failure policy until it is back",
    );
  });
  client.on("ready", () => {
    if (down) log.info({ redis: name }, "redis reachable again");
    down = false;
  });
}

/** Resolves true when `client` is ready, false after `timeoutMs`. */
function readyWithin(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (client.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      client.off("ready", onReady);
      resolve(ok);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref();
    client.once("ready", onReady);
  });
}

async function closeClient(client: RedisClient, timeoutMs: number): Promise<void> {
  try {
    if (client.status === "ready") await within(client.quit(), timeoutMs, "redis quit");
  } catch {
    // not connected, or slow: drop the connection below
  }
  client.disconnect();
}

async function loadIoredis(): Promise<IoredisModule> {
  try {
    const { Redis, Cluster } = await import("ioredis");
    return { Redis, Cluster };
  } catch {
    throw new InvalidArgumentError(
      "--store redis needs the ioredis package (an optional peer dependency of sluice): npm install ioredis",
    );
  }
}

/** Builds the store `settings` ask for; see the module comment. */
export async function createServiceStore(
  settings: ServiceSettings,
  log: Logger,
  clock: Clock,
): Promise<ServiceStore> {
  if (settings.store === "memory") {
    const store = memoryStore({ capacity: settings.memoryCapacity, clock });
    return {
      store,
      description: `memory, capacity ${settings.memoryCapacity} keys`,
      probe: async () => ({ ok: true, detail: "memory (in process)" }),
      connected: async () => true,
      close: () => store.close(),
    };
  }

  const ioredis = await loadIoredis();
  const urls = settings.redisUrls;
  const onWarning = (w: { message: string; code: string }): void => {
    log.warn({ code: w.code }, w.message);
  };
  const specs = redisClientSpecs(settings, "store");
  const clients = specs.map((spec) => createRedisClient(ioredis, spec) as unknown as RedisClient);
  let store: Store;
  let description: string;
  let nodes: { store: Store; name: string }[];
  if (specs[0].kind === "cluster") {
    const cluster = clients[0];
    watchClient(cluster, "cluster", log);
    store = redisStore({ client: cluster, prefix: settings.redisPrefix, onWarning });
    nodes = [{ store, name: "redis cluster" }];
    description = `redis cluster, seeds ${urls.map(maskUrlCredentials).join(", ")}`;
  } else if (specs[0].kind === "sentinel") {
    const client = clients[0];
    // Named by the master and the Sentinels' host:port, never their credentials.
    const name = `redis sentinel master ${settings.redisSentinel} via ${urls.map(sentinelIdOf).join(", ")}`;
    watchClient(client, name, log);
    store = redisStore({ client, prefix: settings.redisPrefix, onWarning });
    nodes = [{ store, name }];
    description = `redis sentinel master ${settings.redisSentinel} via ${urls.map(maskUrlCredentials).join(", ")}`;
  } else {
    const names = urls.map(shardIdOf);
    for (const [i, c] of clients.entries()) watchClient(c, names[i], log);
    nodes = clients.map((client, i) => ({
      store: redisStore({ client, prefix: settings.redisPrefix, onWarning }),
      name: `redis ${names[i]}`,
    }));
    if (nodes.length === 1) {
      store = nodes[0].store;
      description = `redis ${maskUrlCredentials(urls[0])}`;
    } else {
      store = shardedStore({ shards: nodes.map((n, i) => ({ id: names[i], store: n.store })) });
      description = `redis, ${urls.length} client-side sharded nodes: ${urls.map(maskUrlCredentials).join(", ")}`;
    }
  }

  return {
    store,
    description,
    async probe(timeoutMs: number): Promise<ProbeResult> {
      const failures = (
        await Promise.all(nodes.map((n) => probeOne(n.store, clock, timeoutMs, n.name)))
      ).filter((f): f is string => f !== undefined);
      return failures.length === 0
        ? { ok: true, detail: nodes.length === 1 ? nodes[0].name : `${nodes.length} redis nodes` }
        : { ok: false, detail: failures.join("; ") };
    },
    async connected(timeoutMs: number): Promise<boolean> {
      const ready = await Promise.all(clients.map((c) => readyWithin(c, timeoutMs)));
      return ready.every(Boolean);
    },
    async close(timeoutMs: number): Promise<void> {
      try {
        await within(store.close(), timeoutMs, "store close");
      } catch (error) {
        log.warn({ err: error }, "the store did not close cleanly");
      }
      await Promise.all(clients.map((c) => closeClient(c, timeoutMs)));
    },
  };
}

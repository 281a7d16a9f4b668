/**
 * The ioredis clients of `sluice serve`, built from its settings in one place for both of their users:
 * - the store (`service-store.ts`), whose clients take {@link REDIS_CLIENT_OPTIONS}: fail-fast, so an outage turns
 *   into failure-policy answers at once and no consume is ever queued or resent (see that module's comment);
 * - the admin API (`admin/admin-service.ts`), whose one client takes {@link ADMIN_REDIS_CLIENT_OPTIONS}: its calls
 *   (the configuration's first load, versioned compare-and-set writes, audit appends) are rare, off the request
 *   path and count nothing, and the first load is issued before the connection is up, so they wait in ioredis's
 *   offline queue through a (re)connection and get one retry instead of failing at once.
 *
 * The shape follows the settings, the same for both users ({@link redisClientSpecs}):
 * - one URL per node (`node`; several URLs: one client each, the store shards over them, admin uses the first);
 * - `--redis-cluster`: one `Cluster` seeded with every URL (`cluster`), credentials and TLS from the first URL
 *   (a Cluster has database 0 only);
 * - `--redis-sentinel <master>`: one `Redis` that asks the Sentinels at the URLs where the master is (`sentinel`).
 *   The URLs' user:password authenticate to the master (and replicas), their `/db` selects the database and
 *   `rediss://` means TLS to the master and the Sentinels; the Sentinels' own password is a setting of its own.
 *   A Sentinel URL without a port means 26379. The client follows a failover two ways: a lost connection asks
 *   the Sentinels again (bounded by {@link sentinelRetryDelayMs} between rounds), and a `READONLY` reply (the
 *   old master, demoted to a replica, still holding our connection) reconnects at once. ioredis's
 *   `failoverDetector` stays off: its `+switch-master` handler disconnects the connector, and when the message
 *   comes while the client is already reconnecting (the master was killed), that ends the reconnection in
 *   progress with "Connection is closed." and the client for good (seen in a loaded test run). The call that got
 *   `READONLY` is failed, never resent (Redis ran nothing on a replica, but the store's rule is that a call is
 *   answered by the failure policy, not replayed later).
 */
import type { ClusterNode, ClusterOptions, RedisOptions } from "ioredis";
import type { ServiceSettings } from "./service-settings.js";

/** The fail-fast ioredis options the store's failure policies rely on (see the module comment). */
export const REDIS_CLIENT_OPTIONS = Object.freeze({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  enableAutoPipelining: false,
  connectTimeout: 1000,
  retryStrategy: (times: number): number => Math.min(times * 20, 100),
});

/** The admin API's client options: calls wait through a reconnection instead of failing (see the module comment). */
export const ADMIN_REDIS_CLIENT_OPTIONS = Object.freeze({
  enableOfflineQueue: true,
  maxRetriesPerRequest: 1,
  connectTimeout: 1000,
});

/** Who the client is for: the store (fail-fast) or the admin API. */
export type RedisClientPurpose = "store" | "admin";

/** The settings that shape the Redis clients. */
export type RedisConnectionSettings = Pick<
  ServiceSettings,
  "redisUrls" | "redisCluster" | "redisSentinel" | "redisSentinelPassword"
>;

/** How to build one ioredis client: `new Redis(url, options)`, `new Cluster(seeds, options)` or `new Redis(options)`. */
export type RedisClientSpec =
  | { readonly kind: "node"; readonly url: string; readonly options: RedisOptions }
  | { readonly kind: "cluster"; readonly seeds: ClusterNode[]; readonly options: ClusterOptions }
  | { readonly kind: "sentinel"; readonly options: RedisOptions };

/** The port of a Sentinel URL without one. */
export const SENTINEL_DEFAULT_PORT = 26379;

/** Delay before asking every Sentinel again after a round in which none answered, ms (bounded like reconnects). */
export function sentinelRetryDelayMs(times: number): number {
  return Math.min(times * 20, 100);
}

/** Reconnect (1), failing the call, when a reply says the node is a read-only replica: a demoted master. */
export function reconnectOnReadonly(error: Error): 1 | false {
  return /\bREADONLY\b/.test(error.message) ? 1 : false;
}

/** The user, password, TLS and (with `withDb`) database a URL asks for, as ioredis options (absent parts left out). */
/** The host of `u` as a socket connects to it: an IPv6 literal without the brackets the URL syntax puts around it. */
function hostOf(u: URL): string {
  const h = u.hostname;
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

function authOf(u: URL, withDb: boolean): RedisOptions {
  const db = Number(u.pathname.replace(/^\//, "") || "0");
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(withDb && db > 0 ? { db } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * The clients `settings` ask for, with the options of `purpose`: one spec per URL (`node`), or one `cluster` or
 * `sentinel` spec; see the module comment.
 */
export function redisClientSpecs(
  settings: RedisConnectionSettings,
  purpose: RedisClientPurpose,
): RedisClientSpec[] {
  const base: RedisOptions =
    purpose === "store" ? { ...REDIS_CLIENT_OPTIONS } : { ...ADMIN_REDIS_CLIENT_OPTIONS };
  const urls = settings.redisUrls.map((u) => new URL(u));
  if (settings.redisSentinel !== undefined) {
    // Parsing checked that every URL carries the same credentials, database and scheme: the first one's apply.
    const auth = authOf(urls[0], true);
    return [
      {
        kind: "sentinel",
        options: {
          ...base,
          ...auth,
          name: settings.redisSentinel,
          sentinels: urls.map((u) => ({ host: hostOf(u), port: Number(u.port || SENTINEL_DEFAULT_PORT) })),
          ...(settings.redisSentinelPassword === undefined
            ? {}
            : { sentinelPassword: settings.redisSentinelPassword }),
          ...(auth.tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: {} }),
          sentinelRetryStrategy: sentinelRetryDelayMs,
          // A Sentinel that accepts the connection but never answers must not stall the master's lookup.
          sentinelCommandTimeout: base.connectTimeout,
          failoverDetector: false, // see the module comment
          reconnectOnError: reconnectOnReadonly,
        },
      },
    ];
  }
  if (settings.redisCluster) {
    return [
      {
        kind: "cluster",
        seeds: urls.map((u) => ({ host: hostOf(u), port: Number(u.port || 6379) })),
        options:
          purpose === "store"
            ? {
                enableOfflineQueue: false,
                enableAutoPipelining: false,
                retryDelayOnFailover: 0, // a call whose connection closed may have run: never resent (cluster-router.ts)
                clusterRetryStrategy: REDIS_CLIENT_OPTIONS.retryStrategy,
                redisOptions: { ...base, ...authOf(urls[0], false) },
              }
            : { redisOptions: { ...base, ...authOf(urls[0], false) } },
      },
    ];
  }
  return settings.redisUrls.map((url) => ({ kind: "node", url, options: { ...base } }));
}

/** The ioredis constructors a spec needs (the module is loaded dynamically: it is an optional peer dependency). */
export interface IoredisModule {
  /** ioredis's `Redis`. */
  readonly Redis: typeof import("ioredis").Redis;
  /** ioredis's `Cluster`. */
  readonly Cluster: typeof import("ioredis").Cluster;
}

/** Creates the client of `spec`. */
export function createRedisClient(
  ioredis: IoredisModule,
  spec: RedisClientSpec,
): InstanceType<IoredisModule["Redis"]> | InstanceType<IoredisModule["Cluster"]> {
  switch (spec.kind) {
    case "node":
      return new ioredis.Redis(spec.url, spec.options);
    case "cluster":
      return new ioredis.Cluster(spec.seeds, spec.options);
    case "sentinel":
      return new ioredis.Redis(spec.options);
  }
}

// What test/support/global-redis.ts hands to test files through vitest's provide/inject.
// The `declare module "vitest"` block types `inject("sluiceRedis")` etc.

/** The shared single redis-server (started once per run by global-redis.ts). */
export interface SharedRedisInfo {
  host: string;
  port: number;
  /** redis://127.0.0.1:PORT */
  url: string;
}

/** The shared cluster: a descriptor only (no kill/restart: fault tests start their own cluster). */
export interface SharedClusterInfo {
  /** For `new Redis.Cluster(startupNodes)`. */
  startupNodes: { host: string; port: number }[];
  ports: number[];
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by global-redis.ts. */
    sluiceRedis: SharedRedisInfo;
    /** URL of global-redis.ts's loopback control endpoint; GET /cluster starts the shared cluster once. */
    sluiceRedisControl: string;
  }
}

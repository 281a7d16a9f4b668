// Test-side access to the shared servers started by test/support/global-redis.ts (vitest globalSetup).
//
//   const redis = await getSharedRedis();           // { host, port, url }
//   const client = new Redis(redis.url);
//   const cluster = await getSharedCluster();       // { startupNodes, ports }
//   const clusterClient = new Redis.Cluster(cluster.startupNodes);
//   const prefix = uniqueKeyPrefix("fixed-window"); // shared servers: namespace your keys, never FLUSHALL
//
// The shared servers are shared by every test file (files run in parallel forks): never kill, restart,
// reconfigure or flush them. Fault tests start private ones with startRedis / startRedisCluster.
//
// When the globalSetup is not configured (inject() gives nothing), each test process falls back to
// starting its own private server / cluster once, killed when the process exits.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { startRedisCluster } from "./redis-cluster.js";
import { startRedis } from "./redis-server.js";
import type { SharedClusterInfo, SharedRedisInfo } from "./shared-context.js";

let fallbackRedis: Promise<SharedRedisInfo> | undefined;
let fallbackCluster: Promise<SharedClusterInfo> | undefined;
let warned = false;

function warnFallback(): void {
  if (warned) return;
  warned = true;
  console.warn(
    "test/support/global-redis.ts is not configured as a vitest globalSetup: " +
      "starting private Redis servers for this test process instead of the shared ones.",
  );
}

/** The run's shared single redis-server. */
export async function getSharedRedis(): Promise<SharedRedisInfo> {
  const provided = inject("sluiceRedis") as SharedRedisInfo | undefined;
  if (provided) return provided;
  warnFallback();
  fallbackRedis ??= startRedis().then((server) => ({
    host: server.host,
    port: server.port,
    url: server.url,
  }));
  return fallbackRedis;
}

/** The run's shared 3-master/3-replica cluster (started on first request, then reused). */
export async function getSharedCluster(): Promise<SharedClusterInfo> {
  const control = inject("sluiceRedisControl") as string | undefined;
  if (control) {
    const response = await fetch(`${control}/cluster`);
    const body = await response.text();
    if (!response.ok) throw new Error(`the shared Redis cluster failed to start:\n${body}`);
    return JSON.parse(body) as SharedClusterInfo;
  }
  warnFallback();
  fallbackCluster ??= startRedisCluster({ masters: 3, replicasPerMaster: 1 }).then((cluster) => ({
    startupNodes: cluster.startupNodes,
    ports: cluster.nodes.map((node) => node.port),
  }));
  return fallbackCluster;
}

/**
 * A key prefix unique to this call, e.g. "sluice-test:fixed-window:1a2b3c4d:". Contains no braces, so
 * callers can still put a {hash tag} after it to keep related keys in one cluster slot.
 */
export function uniqueKeyPrefix(label: string): string {
  return `sluice-test:${label}:${randomBytes(4).toString("hex")}:`;
}

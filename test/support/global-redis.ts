// vitest globalSetup: one shared redis-server and (on demand) one shared 3-master/3-replica Redis Cluster
// for the whole run, torn down at the end. Test files reach them through test/support/redis-env.ts.
//
// - The single server starts right away (~tens of ms) and is provided as `sluiceRedis`.
// - The cluster (~2-3 s, most of it redis-cli's own waits) starts only when a test first asks for it:
//   getSharedCluster() calls GET /cluster on a loopback HTTP endpoint served from here, which starts the
//   cluster once and answers every caller with its ports. SLUICE_REDIS_CLUSTER=eager starts it right away,
//   in the background.
// Tests that kill or restart servers must start their own with startRedis / startRedisCluster.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { LOOPBACK } from "./free-port.js";
import { type RedisCluster, startRedisCluster } from "./redis-cluster.js";
import { startRedis } from "./redis-server.js";
import type { SharedClusterInfo } from "./shared-context.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();

  let cluster: Promise<RedisCluster> | undefined;
  const getCluster = () => {
    cluster ??= startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    return cluster;
  };
  if (process.env.SLUICE_REDIS_CLUSTER === "eager") getCluster().catch(() => {});

  const control = http.createServer((request, response) => {
    if (request.method !== "GET" || request.url !== "/cluster") {
      response.writeHead(404).end();
      return;
    }
    getCluster().then(
      (started) => {
        const info: SharedClusterInfo = {
          startupNodes: started.startupNodes,
          ports: started.nodes.map((node) => node.port),
        };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(info));
      },
      (error: Error) => {
        response.writeHead(500, { "content-type": "text/plain" }).end(error.stack ?? String(error));
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      control.once("error", reject);
      control.listen(0, LOOPBACK, () => resolve());
    });
  } catch (error) {
    await redis.stop();
    throw error;
  }
  control.unref();

  project.provide("sluiceRedis", { host: redis.host, port: redis.port, url: redis.url });
  project.provide("sluiceRedisControl", `http://${LOOPBACK}:${(control.address() as AddressInfo).port}`);

  return async () => {
    if (process.env.SLUICE_REDIS_DEBUG) console.error("[sluice-redis] global teardown");
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    const started = cluster ? await cluster.catch(() => undefined) : undefined;
    await Promise.all([started?.stop(), redis.stop()]);
    if (process.env.SLUICE_REDIS_DEBUG) console.error("[sluice-redis] global teardown done");
  };
}

// The conformance suite on the run's shared Redis Cluster (3 masters, 3 replicas), batched and unbatched, with
// the client's clock so the traces' explicit times apply. Every trace must match the reference store exactly.
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, it } from "vitest";
import { redisStore } from "../../src/stores/redis/index.js";
import { runStoreConformance } from "../../src/testing/index.js";
import { getSharedCluster, uniqueKeyPrefix } from "../support/redis-env.js";

let client: Cluster;

beforeAll(async () => {
  const shared = await getSharedCluster();
  client = new Cluster(shared.startupNodes, { retryDelayOnFailover: 0 });
  await client.ping(); // the slot table is loaded before the first trace
});

afterAll(() => {
  client.disconnect();
});

// Trace time is synthetic while TTLs run on the servers' real clocks: an hour of margin keeps every key alive
// for the whole trace, as the reference keeps every state.
const TTL_MARGIN_MS = 3_600_000;

for (const batch of [true, false]) {
  runStoreConformance({
    name: `redis cluster (${batch ? "batched" : "unbatched"})`,
    createStore: () =>
      redisStore({
        client,
        clock: "client",
        batch,
        prefix: uniqueKeyPrefix(batch ? "cluster-conf-batched" : "cluster-conf-unbatched").slice(0, -1),
        ttlMarginMs: TTL_MARGIN_MS,
      }),
    test: { describe, it },
  });
}

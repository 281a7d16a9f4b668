// The conformance suite on a single Redis server (the run's shared one), batched and unbatched, with the
// client's clock so the traces' explicit times apply. Every trace must match the reference store exactly.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, it } from "vitest";
import { redisStore } from "../../src/stores/redis/index.js";
import { runStoreConformance } from "../../src/testing/index.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";

let client: Redis;

beforeAll(async () => {
  const shared = await getSharedRedis();
  client = new Redis(shared.url);
});

afterAll(() => {
  client.disconnect();
});

// Trace time is synthetic (2023, jumping by up to days per step) while TTLs run on the server's real clock: a
// margin of an hour keeps every key alive for the whole trace, as the reference keeps every state.
const TTL_MARGIN_MS = 3_600_000;

for (const batch of [true, false]) {
  runStoreConformance({
    name: `redis single (${batch ? "batched" : "unbatched"})`,
    createStore: () =>
      redisStore({
        client,
        clock: "client",
        batch,
        prefix: uniqueKeyPrefix(batch ? "conf-batched" : "conf-unbatched").slice(0, -1),
        ttlMarginMs: TTL_MARGIN_MS,
      }),
    test: { describe, it },
  });
}

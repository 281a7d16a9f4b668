import { afterEach, describe, expect, it } from "vitest";
import { getFreePort } from "../../test/support/free-port.js";
import { getSharedCluster, getSharedRedis } from "../../test/support/redis-env.js";
import { systemClock } from "../core/clock.js";
import { ShardedStore } from "../stores/sharded-store.js";
import { createServiceLogger } from "./service-logger.js";
import { parseServiceSettings } from "./service-settings.js";
import { createServiceStore, REDIS_CLIENT_OPTIONS, type ServiceStore, shardIdOf } from "./service-store.js";

const lines: string[] = [];
const log = createServiceLogger({ level: "warn", destination: { write: (l: string) => lines.push(l) } });
const open: ServiceStore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close(500)));
  lines.length = 0;
});

async function build(flags: Record<string, string | boolean>): Promise<ServiceStore> {
  const s = await createServiceStore(
    parseServiceSettings({ config: "x.yaml", ...flags }, {}),
    log,
    systemClock,
  );
  open.push(s);
  return s;
}

describe("shardIdOf", () => {
  it("names a node host:port/db, never with its credentials", () => {
    expect(shardIdOf("redis://u:pw@10.0.0.1:6380/2")).toBe("10.0.0.1:6380/2");
    expect(shardIdOf("rediss://cache.example")).toBe("cache.example:6379/0");
  });
});

describe("createServiceStore", () => {
  it("uses the fail-fast client options the failure policies need", () => {
    expect(REDIS_CLIENT_OPTIONS).toMatchObject({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      enableAutoPipelining: false,
    });
    expect(REDIS_CLIENT_OPTIONS.retryStrategy(100)).toBe(100);
  });

  it("memory: always reachable", async () => {
    const s = await build({ memoryCapacity: "1000" });
    expect(s.description).toBe("memory, capacity 1000 keys");
    expect(await s.probe(100)).toEqual({ ok: true, detail: "memory (in process)" });
  });

  it("one Redis URL: connects, and the probe makes a round trip", async () => {
    const redis = await getSharedRedis();
    const s = await build({ redis: redis.url });
    expect(await s.connected(3000)).toBe(true);
    expect(await s.probe(2000)).toEqual({ ok: true, detail: `redis 127.0.0.1:${redis.port}/0` });
    expect(lines.join("")).toBe(""); // the options raise no warning
  });

  it("several URLs: client-side sharding, every node probed", async () => {
    const redis = await getSharedRedis();
    const s = await build({ redis: `${redis.url}/1,${redis.url}/2` });
    expect(s.store).toBeInstanceOf(ShardedStore);
    expect(s.description).toBe(`redis, 2 client-side sharded nodes: ${redis.url}/1, ${redis.url}/2`);
    expect(await s.connected(3000)).toBe(true);
    expect(await s.probe(2000)).toEqual({ ok: true, detail: "2 redis nodes" });
  });

  it("--redis-cluster: one store over a Cluster client seeded with the URLs", async () => {
    const cluster = await getSharedCluster();
    const seeds = cluster.startupNodes.map((n) => `redis://${n.host}:${n.port}`).join(",");
    const s = await build({ redis: seeds, redisCluster: true });
    expect(s.description).toBe(`redis cluster, seeds ${seeds.replaceAll(",", ", ")}`);
    expect(await s.connected(10_000)).toBe(true);
    expect(await s.probe(2000)).toEqual({ ok: true, detail: "redis cluster" });
  }, 60_000);

  it("an unreachable node: not connected, the probe fails naming it, the password never shows", async () => {
    const port = await getFreePort();
    const s = await build({ redis: `redis://app:pw-secret@127.0.0.1:${port}` });
    expect(s.description).toBe(`redis redis://app:***@127.0.0.1:${port}`);
    expect(await s.connected(300)).toBe(false);
    const probe = await s.probe(300);
    expect(probe.ok).toBe(false);
    expect(probe.detail).toContain(`redis 127.0.0.1:${port}/0: `);
    const logged = lines.join("");
    expect(logged).toContain("redis unreachable");
    expect(logged).not.toContain("pw-secret");
    expect(logged.match(/redis unreachable/g)).toHaveLength(1); // once per outage, not per reconnection
  });
});

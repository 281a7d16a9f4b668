// Proves the Redis test harness works against real redis-server processes.
import { Cluster, Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLUSTER_BUS_OFFSET, getFreePorts, isPortFree } from "./free-port.js";
import { type RedisCluster, startRedisCluster } from "./redis-cluster.js";
import { getSharedCluster, getSharedRedis, uniqueKeyPrefix } from "./redis-env.js";
import { type RedisProcess, sleep, startRedis } from "./redis-server.js";

/** Retries `attempt` every `intervalMs` until it resolves or `timeoutMs` has passed (then rethrows). */
async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await sleep(intervalMs);
    }
  }
}

const clients: { disconnect(): void }[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

function track<T extends { disconnect(): void }>(client: T): T {
  clients.push(client);
  return client;
}

describe("free ports", () => {
  it("hands out distinct free loopback ports with free cluster bus ports, never 6379", async () => {
    const ports = await getFreePorts(4, { clusterBus: true });
    expect(new Set(ports).size).toBe(4);
    for (const port of ports) {
      expect(port).not.toBe(6379);
      expect(port + CLUSTER_BUS_OFFSET).toBeLessThanOrEqual(65_535);
      expect(await isPortFree(port)).toBe(true);
      expect(await isPortFree(port + CLUSTER_BUS_OFFSET)).toBe(true);
    }
  });
});

describe("startRedis", () => {
  it("names the install command when redis-server is missing", async () => {
    await expect(startRedis({ serverBin: "sluice-no-such-redis-server" })).rejects.toThrow(
      "install it with apt-get install -y redis-server redis-tools",
    );
  });

  it("reports a server that dies on startup with the last lines of its log", async () => {
    const failure = startRedis({ args: ["--no-such-directive", "1"] });
    await expect(failure).rejects.toThrow(/exited with code 1 before answering PING[\s\S]*no-such-directive/);
  });
});

describe("shared single server", () => {
  it("answers PING and reads back a key set through ioredis", async () => {
    const shared = await getSharedRedis();
    expect(shared.port).not.toBe(6379);
    const client = track(new Redis(shared.url));
    expect(await client.ping()).toBe("PONG");
    const key = `${uniqueKeyPrefix("harness")}greeting`;
    await client.set(key, "hello", "PX", 60_000);
    expect(await client.get(key)).toBe("hello");
  });
});

describe("shared cluster", () => {
  it("serves keys spread across slots on every master through Redis.Cluster", async () => {
    const shared = await getSharedCluster();
    expect(shared.startupNodes).toHaveLength(6);
    const client = track(new Cluster(shared.startupNodes));
    const prefix = uniqueKeyPrefix("harness-cluster");
    const keys = Array.from({ length: 30 }, (_, index) => `${prefix}${index}`);
    await Promise.all(keys.map((key, index) => client.set(key, String(index), "PX", 60_000)));
    expect(await Promise.all(keys.map((key) => client.get(key)))).toEqual(
      keys.map((_, index) => String(index)),
    );

    const masters = client.nodes("master");
    expect(masters).toHaveLength(3);
    // The keys landed on more than one master: the cluster really shards.
    const slots = await Promise.all(keys.map((key) => client.cluster("KEYSLOT", key)));
    const ranges = await client.cluster("SLOTS");
    const owners = new Set(
      slots.map((slot) => {
        const range = ranges.find(([start, end]) => start <= slot && slot <= end);
        return range?.[2]?.[1];
      }),
    );
    expect(owners.size).toBe(3);
  });
});

describe("private single server faults", () => {
  let server: RedisProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("survives SIGKILL + restart on the same port, and ioredis reconnects", async () => {
    server = await startRedis();
    const { port } = server;
    const client = track(new Redis(server.url, { enableOfflineQueue: false, retryStrategy: () => 25 }));
    await eventually(async () => expect(await client.set("k", "before")).toBe("OK"));

    await server.kill("SIGKILL");
    expect(server.running).toBe(false);
    expect(await isPortFree(port)).toBe(true);
    await expect(client.get("k")).rejects.toThrow();

    await server.start();
    expect(server.port).toBe(port);
    // No persistence: the restarted server is empty; the same client works again.
    expect(await eventually(() => client.get("k"))).toBeNull();
    expect(await client.set("k", "after")).toBe("OK");

    await server.restart();
    expect(await eventually(() => client.ping())).toBe("PONG");
    expect(await client.get("k")).toBeNull();

    await server.kill(); // graceful (SIGTERM)
    expect(server.running).toBe(false);
    await server.stop();
    await server.stop(); // idempotent
  });
});

describe("private cluster failover", () => {
  let cluster: RedisCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it("promotes a replica when the master owning a key dies, and the key is writable again", async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    expect(await cluster.masters()).toHaveLength(3);
    expect(await cluster.replicas()).toHaveLength(3);

    const client = track(
      new Cluster(cluster.startupNodes, {
        clusterRetryStrategy: () => 100,
        retryDelayOnFailover: 100,
        retryDelayOnClusterDown: 100,
        redisOptions: { maxRetriesPerRequest: 1 },
      }),
    );
    const key = "{harness-failover}:counter";
    expect(await client.set(key, "1")).toBe("OK");

    const owner = await cluster.masterForKey(key);
    expect(owner.role).toBe("master");
    // Replication is asynchronous: without this the write may die with its master.
    await cluster.waitForReplication();
    await owner.kill("SIGKILL");
    const promoted = await cluster.waitForFailover(owner);
    expect(promoted.port).not.toBe(owner.port);
    expect(promoted.role).toBe("master");
    expect((await cluster.masterForKey(key)).port).toBe(promoted.port);

    // The replica had the data and the client finds the new master.
    expect(await eventually(() => client.get(key))).toBe("1");
    expect(await eventually(() => client.set(key, "2"))).toBe("OK");
    expect(await client.get(key)).toBe("2");

    // The old master comes back as a replica of the promoted one.
    await owner.restart();
    await cluster.waitUntilHealthy();
    expect(owner.role).toBe("replica");
    expect(await client.get(key)).toBe("2");
  });
});

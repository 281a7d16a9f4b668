// The Redis store on a private Redis Cluster while a slot is being migrated (CLUSTER SETSLOT MIGRATING /
// IMPORTING, as `redis-cli --cluster reshard` does it, the keys moved one by one with MIGRATE): what the source
// answers for a call whose keys it holds only partly, and how calls batched with a call on that slot fare.
import { Cluster, Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { keySlot } from "../../src/stores/redis/cluster-router.js";
import { type RedisStoreOptions, redisStore } from "../../src/stores/redis/index.js";
import { set } from "../support/limit-sets.js";
import { type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";
import { respCall } from "../support/resp.js";

const T0 = 1_700_000_000_000;

let cluster: RedisCluster;
let client: Cluster;
/** Node ids of the masters, by port. */
const ids = new Map<number, string>();
/** Undoes the migration in progress (keys written on the importing node removed, slot stable on both). */
let undo: (() => Promise<void>) | undefined;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  for (const m of await cluster.masters())
    ids.set(m.port, String(await respCall(m.port, ["CLUSTER", "MYID"])));
  // TRYAGAIN is retried by ioredis every 10 ms instead of 100, so that a call the source keeps answering with it
  // fails in well under a second.
  client = new Cluster(cluster.startupNodes, {
    enableOfflineQueue: false,
    retryDelayOnTryAgain: 10,
    redisOptions: { maxRetriesPerRequest: 0 },
  });
  await new Promise((resolve, reject) => {
    client.once("ready", resolve);
    client.once("error", reject);
  });
});
afterEach(async () => {
  await undo?.();
  undo = undefined;
});
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

function store(prefix: string, options: Partial<RedisStoreOptions> = {}) {
  return redisStore({ client, clock: "client", prefix, onWarning: () => {}, ...options });
}

/** The port of the master serving `key`, from the client's slot table. */
function portOf(key: string): number {
  return Number(client.slots[keySlot(key)][0].split(":")[1]);
}

/** Starts migrating `slot` from its master to another one; returns both ports. */
async function startMigration(slot: number): Promise<{ from: number; to: number }> {
  const from = Number(client.slots[slot][0].split(":")[1]);
  const to = [...ids.keys()].find((port) => port !== from) as number;
  await respCall(to, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", ids.get(from) as string]);
  await respCall(from, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", ids.get(to) as string]);
  undo = async () => {
    const script =
      "for _, k in ipairs(redis.call('CLUSTER', 'GETKEYSINSLOT', ARGV[1], 1000)) do redis.call('DEL', k) end";
    const target = new Redis({ port: to });
    try {
      await target.pipeline().asking().eval(script, 0, String(slot)).exec(); // keys written while importing
    } finally {
      target.disconnect();
    }
    for (const port of [from, to]) await respCall(port, ["CLUSTER", "SETSLOT", String(slot), "STABLE"]);
  };
  return { from, to };
}

/** Whether the importing node `port` holds `key` (read with ASKING, as while the slot migrates). */
async function importedHas(port: number, key: string): Promise<boolean> {
  const c = new Redis({ port });
  try {
    const [, exists] = (await c.pipeline().asking().exists(key).exec()) ?? [];
    return exists?.[1] === 1;
  } finally {
    c.disconnect();
  }
}

describe("redis cluster store: a slot being migrated", () => {
  it("never lets the importing node decide a call whose keys the source still holds in part (no over-admission, no BUSYKEY)", async () => {
    const s = store("mig-partial", { clusterRetries: 0 });
    // Two limits of one identity: l0's key gone from the source (expired, or already moved), l1's exhausted.
    const limits = set(
      "n",
      { algorithm: "fixed_window", limit: 100, periodMs: 300 },
      { algorithm: "fixed_window", limit: 3, periodMs: 3_600_000 },
    );
    const id = "partly-moved";
    const [k0, k1] = s.keysOf(limits, id);
    const consume = () => s.apply([{ limits, key: id, cost: 1 }], "consume", T0);
    for (let i = 0; i < 3; i++) expect((await consume())[0].allowed).toBe(true);
    expect((await consume())[0].allowed).toBe(false);
    const port = portOf(k0);
    expect(await respCall(port, ["DEL", k0])).toBe(1);

    const slot = keySlot(k0);
    const { from, to } = await startMigration(slot);
    // The source holds k1 but not k0: the call must not run on the importing node, where k1 reads as fresh.
    const during = await consume().then(
      (d) => ({ allowed: d[0].allowed, code: undefined as string | undefined }),
      (error: { code?: string }) => ({ allowed: false, code: error.code }),
    );
    expect(during.allowed).toBe(false);
    if (during.code !== undefined) expect(during.code).toBe("ERR_SLUICE_STORE_UNAVAILABLE");
    expect(await importedHas(to, k1)).toBe(false);
    // The migration finishes (no BUSYKEY), and the exhausted limit moved with its key.
    expect(
      String(await respCall(from, ["MIGRATE", "127.0.0.1", String(to), "", "0", "5000", "KEYS", k1])),
    ).toBe("OK");
    for (const port of ids.keys()) {
      await respCall(port, ["CLUSTER", "SETSLOT", String(slot), "NODE", ids.get(to) as string]);
    }
    undo = undefined;
    const after = await consume();
    expect(after[0].allowed).toBe(false);
    expect(after[0].policies.map((p) => [p.policy, p.allowed])).toEqual([
      ["l0", true],
      ["l1", false],
    ]);
    // Give the slot back to its first master, so that later tests find the cluster as it started.
    await respCall(from, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", ids.get(to) as string]);
    await respCall(to, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", ids.get(from) as string]);
    await respCall(to, ["MIGRATE", "127.0.0.1", String(from), "", "0", "5000", "KEYS", k1]);
    for (const port of ids.keys()) {
      await respCall(port, ["CLUSTER", "SETSLOT", String(slot), "NODE", ids.get(from) as string]);
    }
    await cluster.waitUntilHealthy();
    await s.close();
  });

  it("fails or follows a migrating slot's call alone: the calls batched with it on its master are answered", async () => {
    const s = store("mig-batch", { clusterRetries: 3 });
    const limits = set("n", { algorithm: "fixed_window", limit: 5, periodMs: 60_000 });
    // "newbie" (never seen) lives in the migrating slot; two identities of its master live in other slots.
    const newbie = "newbie";
    const slot = keySlot(s.keysOf(limits, newbie)[0]);
    const master = client.slots[slot][0];
    const others: string[] = [];
    for (let i = 0; others.length < 2; i++) {
      const [key] = s.keysOf(limits, `user:${i}`);
      if (client.slots[keySlot(key)][0] === master && keySlot(key) !== slot) others.push(`user:${i}`);
    }
    await startMigration(slot);
    // One batch on the source: its script reaches newbie's key, which the source does not hold ("non local key").
    const ids = [others[0], newbie, others[1]];
    const out = await Promise.allSettled(
      ids.map((key) => s.apply([{ limits, key, cost: 1 }], "consume", T0)),
    );
    expect(out.map((o) => (o.status === "fulfilled" ? o.value[0].remaining : String(o.reason)))).toEqual([
      4, 4, 4,
    ]);
    await s.close();
  });
});

// The Redis store on a Redis Cluster when a master's connection drops after Redis ran a script call but before its
// reply arrived: a TCP proxy (the client's natMap points one master at it) forwards the call, swallows its reply
// and cuts the link. The call may have been applied, so it must not be sent again — except an idempotent one,
// which a resend replays from its record.
import net from "node:net";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keySlot } from "../../src/stores/redis/cluster-router.js";
import { redisStore } from "../../src/stores/redis/index.js";
import { set } from "../support/limit-sets.js";
import { getSharedCluster, uniqueKeyPrefix } from "../support/redis-env.js";

const T0 = 1_700_000_000_000;
const limits = set("n", { algorithm: "fixed_window", limit: 10, periodMs: 3_600_000 });
const id = "lost-reply";

let proxy: net.Server;
let client: Cluster;
/** Set to swallow the reply of the next script call through the proxy and cut its link. */
let cutNext = false;
let cuts = 0;
let prefix: string;

beforeAll(async () => {
  const { startupNodes } = await getSharedCluster();
  prefix = uniqueKeyPrefix("lost-reply").slice(0, -1);
  const plain = new Cluster(startupNodes);
  await plain.ping();
  const [key] = redisStore({ client: plain, prefix, onWarning: () => {} }).keysOf(limits, id);
  const owner = plain.slots[keySlot(key)][0];
  plain.disconnect();
  const [host, port] = owner.split(":");
  proxy = net.createServer((down) => {
    const up = net.connect(Number(port), host);
    let armed = false;
    down.on("data", (chunk) => {
      if (cutNext && /evalsha/i.test(chunk.toString("latin1"))) {
        cutNext = false;
        armed = true; // this call reaches Redis; its reply will not reach the client
      }
      up.write(chunk);
    });
    up.on("data", (chunk) => {
      if (!armed) {
        down.write(chunk);
        return;
      }
      cuts++;
      down.destroy();
      up.destroy();
    });
    down.on("error", () => {});
    up.on("error", () => {});
    down.on("close", () => up.destroy());
    up.on("close", () => down.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address() as net.AddressInfo;
  client = new Cluster(startupNodes, {
    enableOfflineQueue: false,
    retryDelayOnFailover: 0, // else ioredis itself sends a call again when its connection closes
    redisOptions: { maxRetriesPerRequest: 0 },
    natMap: { [owner]: { host: "127.0.0.1", port: address.port } },
  });
  await new Promise((resolve, reject) => {
    client.once("ready", resolve);
    client.once("error", reject);
  });
});
afterAll(async () => {
  client?.disconnect();
  await new Promise((resolve) => proxy?.close(resolve));
});

describe("redis cluster store: a reply lost with its connection", () => {
  it("fails the consume whose reply was lost instead of sending it again (never counted twice)", async () => {
    const s = redisStore({ client, clock: "client", prefix: `${prefix}-c`, onWarning: () => {} });
    const consume = () => s.apply([{ limits, key: id, cost: 1 }], "consume", T0);
    await s.apply([{ limits, key: id, cost: 0 }], "peek", T0); // the script cached on the master
    expect((await consume())[0].remaining).toBe(9);
    cutNext = true;
    const lost = await consume().then(
      (d) => `remaining ${d[0].remaining}`,
      (error: { code?: string }) => error.code,
    );
    expect(cuts).toBe(1);
    expect(lost).toBe("ERR_SLUICE_STORE_UNAVAILABLE");
    // Redis applied it once (its reply was lost): 2 of 10 used.
    expect((await s.apply([{ limits, key: id, cost: 0 }], "peek", T0))[0].remaining).toBe(8);
    await s.close();
  });

  it("sends an idempotent consume again: it replays its record, counted once", async () => {
    const s = redisStore({ client, clock: "client", prefix: `${prefix}-o`, onWarning: () => {} });
    const once = { key: "req-1", ttlMs: 60_000 };
    await s.apply([{ limits, key: id, cost: 0 }], "peek", T0); // the script cached on the master
    cutNext = true;
    const cutsBefore = cuts;
    const result = await s.applyOnce([{ limits, key: id, cost: 1 }], T0, once);
    expect(cuts).toBe(cutsBefore + 1);
    expect({ allowed: result.decisions[0].allowed, replayed: result.replayed }).toEqual({
      allowed: true,
      replayed: true,
    });
    expect((await s.apply([{ limits, key: id, cost: 0 }], "peek", T0))[0].remaining).toBe(9);
    await s.close();
  });
});

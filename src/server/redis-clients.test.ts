import { describe, expect, it } from "vitest";
import {
  ADMIN_REDIS_CLIENT_OPTIONS,
  REDIS_CLIENT_OPTIONS,
  reconnectOnReadonly,
  redisClientSpecs,
  sentinelRetryDelayMs,
} from "./redis-clients.js";
import { parseServiceSettings } from "./service-settings.js";

const settings = (flags: Record<string, string | boolean>, env: Record<string, string> = {}) =>
  parseServiceSettings({ config: "x.yaml", ...flags }, env);

describe("redisClientSpecs", () => {
  it("one node per URL, with the store's fail-fast options or the admin's", () => {
    const s = settings({ redis: "redis://h1:6380,redis://h2:6381/1" });
    expect(redisClientSpecs(s, "store")).toEqual([
      { kind: "node", url: "redis://h1:6380", options: { ...REDIS_CLIENT_OPTIONS } },
      { kind: "node", url: "redis://h2:6381/1", options: { ...REDIS_CLIENT_OPTIONS } },
    ]);
    expect(redisClientSpecs(s, "admin")[0]).toEqual({
      kind: "node",
      url: "redis://h1:6380",
      options: { ...ADMIN_REDIS_CLIENT_OPTIONS },
    });
  });

  it("--redis-cluster: one Cluster seeded with every URL, credentials and TLS from the first", () => {
    const [spec] = redisClientSpecs(
      settings({ redis: "rediss://u:p%40w@h1:7000,rediss://u:p%40w@h2", redisCluster: true }),
      "store",
    );
    expect(spec).toMatchObject({
      kind: "cluster",
      seeds: [
        { host: "h1", port: 7000 },
        { host: "h2", port: 6379 },
      ],
      options: {
        enableOfflineQueue: false,
        retryDelayOnFailover: 0,
        redisOptions: { ...REDIS_CLIENT_OPTIONS, username: "u", password: "p@w", tls: {} },
      },
    });
  });

  it("an IPv6 literal seeds a Cluster or names a Sentinel without its URL brackets (ioredis connects to the name as is)", () => {
    const [cluster] = redisClientSpecs(
      settings({ redis: "redis://[::1]:7000,redis://[fd00::2]", redisCluster: true }),
      "store",
    );
    expect(cluster).toMatchObject({
      kind: "cluster",
      seeds: [
        { host: "::1", port: 7000 },
        { host: "fd00::2", port: 6379 },
      ],
    });
    const [sentinel] = redisClientSpecs(
      settings({ redis: "redis://[::1]:26380", redisSentinel: "m" }),
      "store",
    );
    expect(sentinel).toMatchObject({
      kind: "sentinel",
      options: { sentinels: [{ host: "::1", port: 26380 }] },
    });
  });

  it("--redis-sentinel: one client asking the Sentinels for the master, following its failovers", () => {
    const s = settings(
      { redis: "redis://app:pw@10.0.0.1:26380/3,redis://app:pw@10.0.0.2/3", redisSentinel: "mymaster" },
      { SLUICE_REDIS_SENTINEL_PASSWORD: "sentinel-pw" },
    );
    for (const purpose of ["store", "admin"] as const) {
      const specs = redisClientSpecs(s, purpose);
      expect(specs).toHaveLength(1);
      expect(specs[0]).toMatchObject({
        kind: "sentinel",
        options: {
          ...(purpose === "store" ? REDIS_CLIENT_OPTIONS : ADMIN_REDIS_CLIENT_OPTIONS),
          name: "mymaster",
          sentinels: [
            { host: "10.0.0.1", port: 26380 },
            { host: "10.0.0.2", port: 26379 },
          ],
          username: "app",
          password: "pw",
          db: 3,
          sentinelPassword: "sentinel-pw",
          sentinelRetryStrategy: sentinelRetryDelayMs,
          sentinelCommandTimeout: 1000,
          failoverDetector: false,
          reconnectOnError: reconnectOnReadonly,
        },
      });
      expect(specs[0].options).not.toHaveProperty("tls");
      expect(specs[0].options).not.toHaveProperty("enableTLSForSentinelMode");
    }
  });

  it("--redis-sentinel with rediss://: TLS to the master and to the Sentinels", () => {
    const [spec] = redisClientSpecs(settings({ redis: "rediss://h:26379", redisSentinel: "m" }), "store");
    expect(spec.options).toMatchObject({ tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} });
    expect(spec.options).not.toHaveProperty("db");
    expect(spec.options).not.toHaveProperty("sentinelPassword");
  });

  it("bounds the Sentinel retry delay like reconnections, and reconnects on READONLY only", () => {
    expect([1, 2, 5, 100].map(sentinelRetryDelayMs)).toEqual([20, 40, 100, 100]);
    expect(reconnectOnReadonly(new Error("READONLY You can't write against a read only replica."))).toBe(1);
    expect(
      reconnectOnReadonly(
        new Error("ERR Error running script: READONLY You can't write against a read only replica"),
      ),
    ).toBe(1);
    expect(reconnectOnReadonly(new Error("NOSCRIPT No matching script"))).toBe(false);
  });
});

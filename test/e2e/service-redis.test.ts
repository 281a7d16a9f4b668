// End to end: two `sluice serve` processes on one private redis-server (an ACL user with a password) share their limits
// exactly, whichever process and protocol each request goes through; the password never reaches their output;
// /readyz follows the store's reachability through an outage. One more process finds its master through a Sentinel
// that requires its own password (--redis-sentinel, SLUICE_REDIS_SENTINEL_PASSWORD).
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";
import { respCall } from "../support/resp.js";
import { type GrpcTestClient, sluiceClient, testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const PASSWORD = "e2e-s3cret-pw";
const LIMIT = 25;
const CONFIG = `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: ${LIMIT}, period: 1h }]
`;

const files = testDir("redis");
let redis: RedisProcess;
const services: ServiceProcess[] = [];
const grpc: GrpcTestClient[] = [];

beforeAll(async () => {
  await ensureDistBuilt();
  // An ACL user with a password (the default user stays open for the harness's own PING).
  redis = await startRedis({ args: ["--user", "sluice", "on", `>${PASSWORD}`, "~*", "&*", "+@all"] });
  const config = files.write("rules.yaml", CONFIG);
  const url = `redis://sluice:${PASSWORD}@127.0.0.1:${redis.port}`;
  // One gets the URL by flag, the other by environment variable. A generous store timeout: this test is about
  // sharing, and on a loaded machine a call beyond the default 50 ms would be answered by the fallback policy
  // (a local limiter per process), which admits more by design.
  services.push(await startServiceProcess(["--config", config, "--redis", url, "--store-timeout", "2s"]));
  services.push(
    await startServiceProcess(["--config", config], {
      env: { SLUICE_REDIS: url, SLUICE_STORE_TIMEOUT: "2s" },
    }),
  );
  for (const s of services) grpc.push(sluiceClient(s.grpcAddress));
}, 180_000);

afterAll(async () => {
  for (const c of grpc) c.close();
  await Promise.all(services.map((s) => s.stop()));
  await redis?.stop();
  files.remove();
});

async function httpCheck(svc: ServiceProcess, user: string): Promise<boolean> {
  const r = await request(`${svc.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ identifier: user, dimension: "user" }),
  });
  expect(r.statusCode).toBe(200);
  return ((await r.body.json()) as { allowed: boolean }).allowed;
}

/** The /readyz body. */
interface ReadyBody {
  status: string;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

async function readyz(svc: ServiceProcess): Promise<{ status: number; body: ReadyBody }> {
  const r = await request(`${svc.httpUrl}/readyz`);
  return { status: r.statusCode, body: (await r.body.json()) as ReadyBody };
}

describe("two sluice serve processes on one Redis", () => {
  it("use the Redis store and are ready: the probe made a round trip to Redis", async () => {
    for (const s of services) {
      expect(s.logs.find((l) => l.msg === "ready")?.store).toBe(
        `redis redis://sluice:***@127.0.0.1:${redis.port}`,
      );
      const r = await readyz(s);
      expect(r.status).toBe(200);
      expect(r.body.checks.store).toEqual({ ok: true, detail: `redis 127.0.0.1:${redis.port}/0` });
    }
  });

  it("share one limit exactly: of many concurrent checks through both processes and both protocols, exactly the limit pass", async () => {
    const user = "shared-user";
    const attempts = 4 * LIMIT;
    const calls = Array.from({ length: attempts }, (_, i) => {
      const svc = i % 2;
      return i % 4 < 2
        ? httpCheck(services[svc], user)
        : grpc[svc]
            .call<{ allowed: boolean }>("CheckRateLimit", { identifier: user, dimension: "user" })
            .then((r) => r.allowed);
    });
    const allowed = (await Promise.all(calls)).filter(Boolean).length;
    expect(allowed).toBe(LIMIT);
    // And the next one, through either process, is denied.
    expect(await httpCheck(services[0], user)).toBe(false);
    expect(await httpCheck(services[1], user)).toBe(false);
  });

  it("never write the Redis password to their output", () => {
    for (const s of services) {
      expect(s.output()).not.toContain(PASSWORD);
      expect(s.output()).toContain("redis://sluice:***@127.0.0.1");
    }
  });

  it("report the store unreachable in /readyz during an outage, keep answering (fallback policy), and recover", async () => {
    const svc = services[0];
    await redis.kill("SIGKILL");
    let r = await readyz(svc);
    for (let i = 0; i < 100 && r.status === 200; i++) {
      await sleep(100); // the store check is cached for about a second
      r = await readyz(svc);
    }
    expect(r.status).toBe(503);
    expect(r.body.status).toBe("not_ready");
    expect(r.body.checks.store.ok).toBe(false);
    expect(r.body.checks.config.ok).toBe(true);
    // Checks are still answered, by the rule's failure policy (fallback: a local limiter).
    expect(await httpCheck(svc, "outage-user")).toBe(true);
    // /metrics shows the store's failures, by the policy of the wrapper the engine put around it.
    const metrics = await (await request(`${svc.httpUrl}/metrics`)).body.text();
    const errors = /^sluice_store_errors_total\{policy="fallback"\} (\d+)$/m.exec(metrics);
    expect(Number(errors?.[1])).toBeGreaterThanOrEqual(1);

    await redis.start();
    for (let i = 0; i < 100 && r.status !== 200; i++) {
      await sleep(100);
      r = await readyz(svc);
    }
    expect(r.status).toBe(200);
    expect(r.body.checks.store.ok).toBe(true);
    expect(svc.output()).toContain("redis reachable again");
    expect(svc.output()).not.toContain(PASSWORD);
  });
});

// `sluice serve --redis-sentinel`: a master with the same ACL user, one Sentinel monitoring it whose default user
// then gets a password (so the service must AUTH to the Sentinel with SLUICE_REDIS_SENTINEL_PASSWORD); the
// service finds the master through the Sentinel, for its store and for the admin API's shared configuration.
describe("sluice serve with --redis-sentinel", () => {
  const SENTINEL_PASSWORD = "e2e-sentinel-pw";
  const sentinelFiles = testDir("redis-sentinel");
  let master: RedisProcess;
  let sentinel: RedisProcess;
  let svc: ServiceProcess;

  beforeAll(async () => {
    master = await startRedis({ args: ["--user", "sluice", "on", `>${PASSWORD}`, "~*", "&*", "+@all"] });
    const conf = sentinelFiles.write(
      "sentinel.conf",
      `sentinel resolve-hostnames no\nsentinel monitor m 127.0.0.1 ${master.port} 1\n`,
    );
    sentinel = await startRedis({ dir: sentinelFiles.dir, configFile: conf, args: ["--sentinel"] });
    // From here the Sentinel answers only clients that AUTH (the harness is done with its PING).
    await respCall(sentinel.port, ["ACL", "SETUSER", "default", "resetpass", `>${SENTINEL_PASSWORD}`]);
    // GCRA, one unit back per hour: no window boundary falls between the checks (a fixed window would restart).
    const config = sentinelFiles.write(
      "rules.yaml",
      CONFIG.replace("fixed_window", "gcra").replace("period: 1h", `period: ${LIMIT}h`),
    );
    svc = await startServiceProcess(
      [
        "--config",
        config,
        "--redis",
        `redis://sluice:${PASSWORD}@127.0.0.1:${sentinel.port}`,
        "--redis-sentinel",
        "m",
        "--store-timeout",
        "2s",
      ],
      { env: { SLUICE_REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD } },
    );
  }, 120_000);

  afterAll(async () => {
    await svc?.stop();
    await sentinel?.stop();
    await master?.stop();
    sentinelFiles.remove();
  });

  it("starts, is ready and answers /v1/check, counting on the master; no password reaches its output", async () => {
    const via = `redis sentinel master m via`;
    expect(svc.logs.find((l) => l.msg === "ready")?.store).toBe(
      `${via} redis://sluice:***@127.0.0.1:${sentinel.port}`,
    );
    expect(svc.logs.find((l) => l.endpoint === "admin")?.config).toBe("redis+sentinel://m/rl");
    const r = await readyz(svc);
    expect(r.status).toBe(200);
    expect(r.body.checks.store).toEqual({ ok: true, detail: `${via} 127.0.0.1:${sentinel.port}` });
    for (let i = 0; i < LIMIT; i++) expect(await httpCheck(svc, "sentinel-user")).toBe(true);
    expect(await httpCheck(svc, "sentinel-user")).toBe(false);
    expect(Number(await respCall(master.port, ["DBSIZE"]))).toBeGreaterThan(0);
    expect(svc.output()).not.toContain(PASSWORD);
    expect(svc.output()).not.toContain(SENTINEL_PASSWORD);
  });
});

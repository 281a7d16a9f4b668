// End to end: `sluice serve --store redis` with the admin API on (its default), started while its redis-server is
// down, serves anyway as the data plane does: it is ready, enforces the rules file, and its admin API listens and
// answers 503 for what needs the shared configuration; once Redis is back the admin API seeds it from the rules
// file and follows it. A SIGTERM while Redis is still down ends the process (no Redis client keeps it alive).
import { Redis } from "ioredis";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { adminRequest } from "../support/admin-request.js";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const CONFIG = `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 2, period: 1h }]
`;
const TOKEN = "redis-down-secret";
const PREFIX = "down";

const files = testDir("admin-redis-down");
let redis: RedisProcess;
let svc: ServiceProcess | undefined;
let config: string;

beforeAll(async () => {
  await ensureDistBuilt();
  config = files.write("rules.yaml", CONFIG);
  // Started, then stopped: a port where Redis will come back (no persistence: it comes back empty).
  redis = await startRedis();
  await redis.kill();
}, 120_000);

afterEach(async () => {
  await svc?.stop();
  svc = undefined;
  if (redis.running) await redis.kill();
});

afterAll(async () => {
  await redis?.stop();
  files.remove();
});

const start = (): Promise<ServiceProcess> =>
  startServiceProcess(
    ["--config", config, "--store", "redis", "--redis", redis.url, "--redis-prefix", PREFIX, "--no-watch"],
    { env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` } },
  );

/** A request to the admin API of `s` with the token. */
const admin = (s: ServiceProcess, method: "GET" | "POST", path: string, body?: unknown) =>
  adminRequest(s.adminPort, TOKEN, method, path, body);

/** Whether the data plane allows one request of domain `api` with the descriptor `key=value`. */
async function allowed(s: ServiceProcess, key: string, value: string): Promise<boolean> {
  const res = await request(`${s.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain: "api", descriptors: [{ entries: [{ key, value }] }] }),
  });
  return ((await res.body.json()) as { allowed: boolean }).allowed;
}

const NEW_RULE = {
  id: "per-team",
  domain: "api",
  match: [{ key: "team" }],
  limits: [{ name: "per-hour", algorithm: "fixed_window", limit: 1, period: "1h" }],
};

describe("sluice serve --store redis started while Redis is down, admin API on", () => {
  it("serves anyway: admin answers 503 until Redis is back, then seeds Redis from the file and follows it", async () => {
    const s = await start();
    svc = s;
    expect(s.logs.map((l) => l.msg)).toContain(
      "admin API: the configuration in Redis is not reachable yet: serving the rules file meanwhile; admin reads and writes answer 503 until Redis answers",
    );
    expect((await request(`${s.httpUrl}/healthz`)).statusCode).toBe(200);
    expect((await request(`http://127.0.0.1:${s.adminPort}/api/v1/status`)).statusCode).toBe(200);
    const read = await admin(s, "GET", "/rules");
    expect(read.status).toBe(503);
    expect(read.body.detail).toContain(
      `redis://127.0.0.1:${redis.port}/${PREFIX}: the configuration is not loaded yet, Redis does not answer`,
    );
    expect((await admin(s, "POST", "/rules", NEW_RULE)).status).toBe(503);

    await redis.start();
    await s.waitForLog(
      (l) => l.msg === "admin API: the configuration in Redis is reachable: following it",
      20_000,
    );
    const rules = await admin(s, "GET", "/rules");
    expect(rules.status).toBe(200);
    expect(JSON.stringify(rules.body)).toContain('"per-user"');
    const raw = new Redis(redis.url);
    try {
      expect(await raw.hget(`${PREFIX}:config`, "version")).toBe("1"); // seeded from the file
      expect((await admin(s, "POST", "/rules", NEW_RULE)).status).toBe(201);
      expect(await raw.hget(`${PREFIX}:config`, "version")).toBe("2");
    } finally {
      raw.disconnect();
    }
    // The data plane enforces the shared configuration: the rule written through the admin API counts.
    expect(await allowed(s, "team", "t1")).toBe(true);
    expect(await allowed(s, "team", "t1")).toBe(false);
    expect(await allowed(s, "user", "ann")).toBe(true);

    s.signal("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
  }, 90_000);

  it("exits on SIGTERM while Redis is still down: no Redis client keeps the process alive", async () => {
    const s = await start();
    svc = s;
    expect((await admin(s, "GET", "/rules")).status).toBe(503);
    s.signal("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

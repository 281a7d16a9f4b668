// End to end: `sluice serve --store redis` with the admin API on (its default) and an envoyproxy/ratelimit rules
// file, as an envoyproxy/ratelimit user moving to the Redis store runs it: two processes read one file on one host
// (no file lock stops the second) against one private redis-server. The file is the rules' source of truth: its
// rules are enforced from the first request (not Redis's configuration, empty here), counters are shared through
// Redis whichever process answers, an edit of the file is applied by both (hot reload) and a bad edit shows in
// /readyz while the previous rules stay in force, admin configuration writes are refused naming the file, and the
// audit log (a limits reset) is the Redis stream both admin APIs read.
import { renameSync, writeFileSync } from "node:fs";
import { Redis } from "ioredis";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest } from "../support/admin-request.js";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";
import { envoyClient, type GrpcTestClient, testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

/** A yearly window: no window boundary falls within a run (envoyproxy/ratelimit's windows are epoch-aligned). */
const ENVOY = `# envoyproxy/ratelimit, unchanged
domain: edge
descriptors:
  - key: user
    rate_limit: { unit: year, requests_per_unit: 3 }
`;
/** ENVOY edited: one more descriptor, limited to 1. */
const EDITED = `${ENVOY}  - key: team
    rate_limit: { unit: year, requests_per_unit: 1 }
`;
/** An edit that does not load: the unit is not one of envoyproxy/ratelimit's. */
const BROKEN = `${ENVOY}  - key: team
    rate_limit: { unit: fortnight, requests_per_unit: 1 }
`;
const TOKEN = "envoy-redis-secret";
const PREFIX = "envoyrl";

const files = testDir("admin-redis-envoy");
let redis: RedisProcess;
let raw: Redis;
let config: string;
const services: ServiceProcess[] = [];
const clients: GrpcTestClient[] = [];

/** Replaces the rules file atomically (write, then rename), as editors and Kubernetes do. */
function replaceConfig(text: string): void {
  const temp = `${config}.next`;
  writeFileSync(temp, text);
  renameSync(temp, config);
}

beforeAll(async () => {
  await ensureDistBuilt();
  redis = await startRedis();
  raw = new Redis(redis.url);
  config = files.write("ratelimit.yaml", ENVOY);
  // Both on the same file, prefix and Redis. A generous store timeout: this test is about sharing, and a call past
  // the default 50 ms on a loaded machine would be answered by the fallback policy (a local limiter per process).
  for (let i = 0; i < 2; i++) {
    const s = await startServiceProcess(
      [
        "--config",
        config,
        "--store",
        "redis",
        "--redis",
        redis.url,
        "--redis-prefix",
        PREFIX,
        "--store-timeout",
        "2s",
      ],
      { env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` } },
    );
    services.push(s);
    clients.push(envoyClient(s.grpcAddress));
  }
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(services.map((s) => s.stop()));
  raw?.disconnect();
  await redis?.stop();
  files.remove();
});

/** Envoy RLS v3 ShouldRateLimit of one descriptor `key=value` in domain `edge` through service `i`: 1 OK, 2 OVER_LIMIT. */
async function envoyCode(i: number, key: string, value: string): Promise<number> {
  const r = await clients[i].call<{ overall_code: number }>("ShouldRateLimit", {
    domain: "edge",
    descriptors: [{ entries: [{ key, value }] }],
  });
  return r.overall_code;
}

/** POST /v1/check of one descriptor `key=value` in domain `edge` through service `i`: allowed or not. */
async function httpAllowed(i: number, key: string, value: string): Promise<boolean> {
  const res = await request(`${services[i].httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain: "edge", descriptors: [{ entries: [{ key, value }] }] }),
  });
  expect(res.statusCode).toBe(200);
  return ((await res.body.json()) as { allowed: boolean }).allowed;
}

/** A request to service `i`'s admin API with the token. */
const admin = (i: number, method: "GET" | "POST" | "PUT", path: string, body?: unknown) =>
  adminRequest(services[i].adminPort, TOKEN, method, path, body);

/** Service `i`'s /readyz: its status and its `config` check. */
async function readyz(i: number): Promise<{ status: number; config: { ok: boolean; detail?: string } }> {
  const res = await request(`${services[i].httpUrl}/readyz`);
  const body = (await res.body.json()) as { checks: { config: { ok: boolean; detail?: string } } };
  return { status: res.statusCode, config: body.checks.config };
}

/** Polls `done` every 50 ms until it holds (or 20 s pass): a bound, not a timing assertion. */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("sluice serve --store redis, admin API on, with an envoyproxy/ratelimit file", () => {
  it("starts both processes on one file, the file's rules in force and watched, Redis holding no configuration", async () => {
    for (const s of services) {
      const ready = s.logs.find((l) => l.msg === "ready");
      expect(ready).toMatchObject({ rules: 1, domains: ["edge"], watch: true });
      expect(s.logs.find((l) => l.endpoint === "admin")?.config).toBe(`file:${config}`);
      expect(s.logs.map((l) => l.msg)).toContain(
        `admin API: the rules come from the envoyproxy/ratelimit file ${config}, reloaded on change, read-only ` +
          "through the admin API; Redis holds the counters and the audit log",
      );
      expect(s.logs.filter((l) => l.level >= 40)).toEqual([]);
      expect((await readyz(services.indexOf(s))).status).toBe(200);
    }
    expect(await raw.exists(`${PREFIX}:config`)).toBe(0);
  });

  it("enforces the file's rules, counters shared through Redis: the 4th request of a user is OVER_LIMIT", async () => {
    expect(await envoyCode(0, "user", "ann")).toBe(1);
    expect(await envoyCode(1, "user", "ann")).toBe(1);
    expect(await envoyCode(0, "user", "ann")).toBe(1);
    expect(await envoyCode(1, "user", "ann")).toBe(2);
    expect(await httpAllowed(0, "user", "ann")).toBe(false);
    expect(await envoyCode(0, "user", "bob")).toBe(1);
  });

  it("refuses admin configuration writes with 409 naming the file, and writes nothing", async () => {
    const rule = {
      id: "per-tenant",
      domain: "edge",
      match: [{ key: "tenant" }],
      limits: [{ limit: 1, period: "1h" }],
    };
    const refused = await admin(0, "POST", "/rules", rule);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(
      `${config}: the rules are read from this envoyproxy/ratelimit file`,
    );
    const tier = await admin(1, "PUT", "/users/user:ann/tier", { tier: "premium" });
    expect(tier.status).toBe(409);
    expect(tier.body.detail).toContain(config);
    expect(await raw.exists(`${PREFIX}:config`)).toBe(0);
    expect(await envoyCode(0, "tenant", "t1")).toBe(1);
    expect(await envoyCode(0, "tenant", "t1")).toBe(1); // no such rule: never limited
  });

  it("records a limits reset in the Redis audit stream, which the other instance's admin API reads", async () => {
    const reset = await admin(0, "POST", "/limits/reset", {
      domain: "edge",
      descriptors: [[{ key: "user", value: "ann" }]],
    });
    expect(reset.status).toBe(200);
    expect(await envoyCode(1, "user", "ann")).toBe(1); // the shared counter was forgotten
    const audit = await admin(1, "GET", "/audit");
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('"limits.reset"');
    expect(await raw.xlen(`${PREFIX}:audit`)).toBe(1);
  });

  it("applies an edit of the file in both processes; a bad edit shows in /readyz and keeps the rules", async () => {
    replaceConfig(EDITED);
    for (const s of services) {
      await s.waitForLog((l) => l.msg === "admin: configuration applied" && l.version === 2, 20_000);
    }
    expect(await envoyCode(0, "team", "red")).toBe(1);
    expect(await envoyCode(1, "team", "red")).toBe(2);

    replaceConfig(BROKEN);
    for (let i = 0; i < services.length; i++) {
      await until(async () => (await readyz(i)).status === 503, `service ${i} to report the bad edit`);
      const { config: check } = await readyz(i);
      expect(check.ok).toBe(false);
      expect(check.detail).toContain(config);
      expect(check.detail).toContain("fortnight");
    }
    // The edited rules stay in force.
    expect(await envoyCode(0, "team", "blue")).toBe(1);
    expect(await envoyCode(1, "team", "blue")).toBe(2);

    replaceConfig(ENVOY);
    for (let i = 0; i < services.length; i++) {
      await until(async () => (await readyz(i)).status === 200, `service ${i} to apply the fixed file`);
    }
    expect(await envoyCode(0, "team", "green")).toBe(1);
    expect(await envoyCode(1, "team", "green")).toBe(1); // the team rule is gone again
    expect(await raw.exists(`${PREFIX}:config`)).toBe(0);
  }, 90_000);
});

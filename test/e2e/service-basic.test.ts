// End to end: the real `sluice serve` process (built dist) on the memory store, driven by real clients: undici for
// HTTP, grpc-js for sluice.v1, Envoy RLS v3 and health. The protocols are tested in depth by the HTTP and gRPC
// adapters' own tests; here: it works over the real process, with its settings, logs and exit codes.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt, ROOT } from "../support/dist-build.js";
import {
  envoyClient,
  type GrpcTestClient,
  healthClient,
  sluiceClient,
  testDir,
} from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const CONFIG = `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: gcra, limit: 3, period: 1h }]
`;

const files = testDir("basic");
let svc: ServiceProcess;
let sluice: GrpcTestClient;
let envoy: GrpcTestClient;
let health: GrpcTestClient;

beforeAll(async () => {
  await ensureDistBuilt();
  const config = files.write("rules.yaml", CONFIG);
  svc = await startServiceProcess(["--config", config]);
  sluice = sluiceClient(svc.grpcAddress);
  envoy = envoyClient(svc.grpcAddress);
  health = healthClient(svc.grpcAddress);
}, 180_000);

afterAll(async () => {
  sluice?.close();
  envoy?.close();
  health?.close();
  await svc?.stop();
  files.remove();
});

/** The fields of a check answer these tests read. */
interface CheckBody {
  allowed: boolean;
  limit: number;
  remaining: number;
  retry_after: number;
  state: string;
}

async function check(
  user: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: CheckBody }> {
  const r = await request(`${svc.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ descriptors: [{ entries: [{ key: "user", value: user }] }] }),
  });
  return { status: r.statusCode, headers: r.headers, body: (await r.body.json()) as CheckBody };
}

describe("sluice serve (memory store, one process)", () => {
  it("logs one line per endpoint and where it listens", () => {
    const http = svc.logs.find((l) => l.endpoint === "http");
    const grpc = svc.logs.find((l) => l.endpoint === "grpc");
    expect(http?.url).toBe(svc.httpUrl);
    expect(grpc?.address).toBe(svc.grpcAddress);
    expect(grpc?.transport).toBe("node-http2");
    expect(svc.logs.find((l) => l.msg === "ready")).toMatchObject({ defaultDomain: "api", rules: 1 });
  });

  it("HTTP /v1/check: allowed with RateLimit headers, then denied (default domain: the only one)", async () => {
    for (let i = 1; i <= 3; i++) {
      const r = await check("alice");
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allowed: true, limit: 3, remaining: 3 - i });
      expect(r.headers["ratelimit-policy"]).toBe('"per-hour";q=3;w=3600');
      expect(String(r.headers.ratelimit)).toMatch(new RegExp(`^"per-hour";r=${3 - i};t=\\d+$`));
    }
    // The check API answers 200 either way: the caller decides what a denial means.
    const denied = await check("alice");
    expect(denied.status).toBe(200);
    expect(String(denied.headers.ratelimit)).toMatch(/^"per-hour";r=0;t=\d+$/);
    expect(denied.body).toMatchObject({ allowed: false, remaining: 0, state: "throttled" });
    expect(denied.body.retry_after).toBeGreaterThanOrEqual(1);
  });

  it("HTTP /v1/auth (forward-auth): 200 with RateLimit headers, then 429 with Retry-After", async () => {
    const auth = () => request(`${svc.httpUrl}/v1/auth`, { headers: { "x-user-id": "dave" } });
    for (let i = 1; i <= 3; i++) {
      const r = await auth();
      expect(r.statusCode).toBe(200);
      expect(String(r.headers.ratelimit)).toMatch(new RegExp(`^"per-hour";r=${3 - i};t=\\d+$`));
      await r.body.dump();
    }
    const denied = await auth();
    expect(denied.statusCode).toBe(429);
    expect(Number(denied.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(denied.headers["content-type"]).toContain("application/problem+json");
    await denied.body.dump();
  });

  it("gRPC sluice.v1 CheckRateLimit: allowed, then denied", async () => {
    const req = { identifier: "bob", dimension: "user" };
    for (let i = 1; i <= 3; i++) {
      const r = await sluice.call<{ allowed: boolean; remaining: number }>("CheckRateLimit", req);
      expect(r).toMatchObject({ allowed: true, remaining: 3 - i });
    }
    const denied = await sluice.call<{ allowed: boolean; retry_after: unknown }>("CheckRateLimit", req);
    expect(denied.allowed).toBe(false);
    expect(Number(denied.retry_after)).toBeGreaterThanOrEqual(1);
  });

  it("Envoy ShouldRateLimit: OK then OVER_LIMIT, with draft-10 headers to add", async () => {
    const req = {
      domain: "api",
      descriptors: [{ entries: [{ key: "user", value: "carol" }] }],
      hits_addend: 2,
    };
    const ok = await envoy.call<{ overall_code: number; statuses: { code: number }[] }>(
      "ShouldRateLimit",
      req,
    );
    expect(ok.overall_code).toBe(1); // OK
    expect(ok.statuses[0].code).toBe(1);
    const over = await envoy.call<{
      overall_code: number;
      response_headers_to_add: { key: string; value: string }[];
    }>("ShouldRateLimit", req);
    expect(over.overall_code).toBe(2); // OVER_LIMIT: 2 + 2 > 3
    const headers = Object.fromEntries(
      over.response_headers_to_add.map((h) => [h.key.toLowerCase(), h.value]),
    );
    expect(headers["ratelimit-policy"]).toBe('"per-hour";q=3;w=3600');
    expect(Number(headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("health: gRPC SERVING, /healthz 200, /readyz 200 with its checks", async () => {
    expect(await health.call<{ status: number }>("Check", { service: "" })).toMatchObject({ status: 1 });
    expect(
      await health.call<{ status: number }>("Check", {
        service: "envoy.service.ratelimit.v3.RateLimitService",
      }),
    ).toMatchObject({ status: 1 });
    const live = await request(`${svc.httpUrl}/healthz`);
    expect(live.statusCode).toBe(200);
    await live.body.dump();
    const ready = await request(`${svc.httpUrl}/readyz`);
    expect(ready.statusCode).toBe(200);
    const body = (await ready.body.json()) as { status: string; checks: Record<string, { ok: boolean }> };
    expect(body.status).toBe("ready");
    expect(body.checks.store.ok).toBe(true);
    expect(body.checks.config.ok).toBe(true);
  });

  it("/metrics counts the decisions of every API by rule and outcome", async () => {
    const r = await request(`${svc.httpUrl}/metrics`);
    expect(r.statusCode).toBe(200);
    const text = await r.body.text();
    const value = (outcome: string): number => {
      const line = text
        .split("\n")
        .find(
          (l) =>
            l.startsWith("sluice_decisions_total{") &&
            l.includes('rule="per-user"') &&
            l.includes(`outcome="${outcome}"`),
        );
      return Number(line?.split(" ").pop());
    };
    // Earlier tests (run in order): alice, bob and dave 3 allowed + 1 denied each, carol 1 + 1.
    expect(value("allowed")).toBe(10);
    expect(value("denied")).toBe(4);
    expect(text).toMatch(/sluice_requests_total\{[^}]*api="http_check"/);
    expect(text).toMatch(/sluice_requests_total\{[^}]*api="grpc_envoy"/);
  });

  it("prints a ready-to-paste curl command that works", () => {
    const note = svc.output();
    expect(note).toContain(`grpcurl -plaintext -import-path proto -proto sluice/v1/rate_limiter.proto`);
    const lines = note.split("\n");
    const start = lines.findIndex((l) => l.trim().startsWith("curl -s ") && l.includes("/v1/check"));
    expect(start).toBeGreaterThanOrEqual(0);
    const command = `${lines[start].trim().replace(/\\$/, "")} ${lines[start + 1].trim()}`;
    const r = spawnSync("sh", ["-c", command], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ allowed: expect.any(Boolean) });
  });
});

describe("sluice serve --grpc-transport grpc-js", () => {
  it("serves the same gRPC API on grpc-js's server", async () => {
    const other = await startServiceProcess([
      "--config",
      files.write("rules-grpc-js.yaml", CONFIG),
      "--grpc-transport",
      "grpc-js",
    ]);
    const client = envoyClient(other.grpcAddress);
    try {
      expect(other.logs.find((l) => l.endpoint === "grpc")?.transport).toBe("grpc-js");
      const req = { domain: "api", descriptors: [{ entries: [{ key: "user", value: "erin" }] }] };
      const r = await client.call<{ overall_code: number; statuses: { limit_remaining: number }[] }>(
        "ShouldRateLimit",
        req,
      );
      expect([r.overall_code, r.statuses[0].limit_remaining]).toEqual([1, 2]);
    } finally {
      client.close();
      await other.stop();
    }
  });
});

describe("sluice serve refuses to start with a clear message", () => {
  const run = promisify(execFile);
  async function serve(...args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
    try {
      const r = await run(process.execPath, ["bin/sluice.js", "serve", ...args], {
        cwd: ROOT,
        timeout: 20_000,
      });
      return { code: 0, stderr: r.stderr, stdout: r.stdout };
    } catch (error) {
      const e = error as { code: number; stderr: string; stdout: string };
      return { code: e.code, stderr: e.stderr, stdout: e.stdout };
    }
  }

  it("on bad settings: exit 2, one line per problem naming the flag", async () => {
    const r = await serve("--grpc-port", "99999", "--store", "redis");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--grpc-port: must be a whole number from 0 to 65535, got "99999"');
    expect(r.stderr).toContain("--store redis needs --redis (SLUICE_REDIS): the Redis URL(s)");
    expect(r.stderr).toContain("--config (SLUICE_CONFIG) is required");
  });

  it("on an invalid rules file: exit 2, naming the file, line and field", async () => {
    const bad = files.write(
      "bad.yaml",
      "version: 1\nrules:\n  - id: x\n    domain: api\n    match: [{ key: user }]\n    limits: [{ limit: -1, period: 1s }]\n",
    );
    const r = await serve("--config", bad, "--http-port", "0", "--grpc-port", "0");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ERR_SLUICE_INVALID_CONFIG: .*bad\.yaml:6: rules\[0\]\.limits\[0\]\.limit/);
  });
});

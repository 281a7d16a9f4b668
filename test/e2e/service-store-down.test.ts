// End to end: a `sluice serve` process whose redis-server has been killed answers through each rule's failure
// policy, and says so alike on every surface: gRPC `sluice.v1` carries `reason` (as /v1/check's JSON does), a
// fail_closed denial is `sluice_requests_total{code="fail_closed"}` on the gRPC APIs as on HTTP (not over_limit),
// and a fail_open allowance advertises no remaining quota nobody counted (no `limit_remaining` / `current_limit`
// for Envoy, remaining 0 in the check API, no RateLimit header fields).
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";
import { envoyClient, type GrpcTestClient, sluiceClient, testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const CONFIG = `version: 1
rules:
  - id: closed
    domain: api
    match: [{ key: ip }]
    failurePolicy: fail_closed
    limits: [{ name: ip-per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: open
    domain: api
    match: [{ key: user }]
    failurePolicy: fail_open
    limits: [{ name: user-per-hour, algorithm: fixed_window, limit: 50, period: 1h }]
`;

const files = testDir("store-down");
let redis: RedisProcess;
let svc: ServiceProcess;
let sluice: GrpcTestClient;
let envoy: GrpcTestClient;

beforeAll(async () => {
  await ensureDistBuilt();
  redis = await startRedis();
  const config = files.write("rules.yaml", CONFIG);
  svc = await startServiceProcess(["--config", config, "--redis", redis.url, "--no-admin"]);
  sluice = sluiceClient(svc.grpcAddress);
  envoy = envoyClient(svc.grpcAddress);
  await redis.kill("SIGKILL");
}, 180_000);

afterAll(async () => {
  sluice?.close();
  envoy?.close();
  await svc?.stop();
  await redis?.stop();
  files.remove();
});

/** The value of one series in the service's /metrics, or undefined when it has none. */
async function metric(series: string): Promise<number | undefined> {
  const body = await (await request(`${svc.httpUrl}/metrics`)).body.text();
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const ip = { domain: "api", descriptors: [{ entries: [{ key: "ip", value: "192.0.2.1" }] }] };
const user = { domain: "api", descriptors: [{ entries: [{ key: "user", value: "ann" }] }] };

describe("sluice serve with its Redis down", () => {
  it("tells a fail_closed denial by its reason over gRPC and counts it as fail_closed, as HTTP does", async () => {
    const r = await sluice.call<{ allowed: boolean; reason: string }>("CheckRateLimit", ip);
    expect(r).toMatchObject({ allowed: false, reason: "fail_closed" });
    const e = await envoy.call<{ overall_code: number }>("ShouldRateLimit", ip);
    expect(e.overall_code).toBe(2); // OVER_LIMIT
    const http = await request(`${svc.httpUrl}/v1/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ip),
    });
    expect(await http.body.json()).toMatchObject({ allowed: false, reason: "fail_closed" });
    for (const api of ["grpc_check", "grpc_envoy", "http_check"]) {
      expect(await metric(`sluice_requests_total{api="${api}",code="fail_closed"}`), api).toBe(1);
      expect(await metric(`sluice_requests_total{api="${api}",code="over_limit"}`), api).toBeUndefined();
    }
  });

  it("advertises no remaining quota for a fail_open allowance, on any surface", async () => {
    const r = await sluice.call<{ allowed: boolean; reason: string; limit: number; remaining: number }>(
      "CheckRateLimit",
      user,
    );
    expect(r).toMatchObject({ allowed: true, reason: "fail_open", limit: 50, remaining: 0 });
    const e = await envoy.call<{
      overall_code: number;
      statuses: { code: number; current_limit: unknown; limit_remaining: number }[];
      response_headers_to_add: unknown[];
    }>("ShouldRateLimit", user);
    expect(e.overall_code).toBe(1); // OK
    expect(e.statuses).toMatchObject([{ code: 1, current_limit: null, limit_remaining: 0 }]);
    expect(e.response_headers_to_add).toEqual([]);
    const http = await request(`${svc.httpUrl}/v1/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(user),
    });
    expect(await http.body.json()).toMatchObject({ allowed: true, reason: "fail_open", remaining: 0 });
    expect(http.headers.ratelimit).toBeUndefined();
    expect(http.headers["ratelimit-policy"]).toBeUndefined();
  });
});

// End to end: nginx `auth_request` in front of an upstream, asking the real `sluice serve` process (/v1/auth)
// whether each request may pass.
//
// nginx's auth_request passes on only 2xx (allow), 401 and 403 (deny); any other status of the subrequest, 429
// included, becomes a 500. So Sluice answers denials with 403 here (`--auth-deny-status 403`), and nginx turns a
// 403 from the subrequest into the caller's 429 with `error_page 403 = @ratelimited`. `auth_request_set` copies
// the subrequest's RateLimit-Policy / RateLimit / Retry-After headers into variables (they are set for denials
// too), and `add_header … always` puts them on the answer, the upstream's or the 429.
//
// nginx's auth_request passes every header of the client's request on to Sluice; `proxy_set_header` replaces a
// header of the same name. So the original URI and method must travel in headers nginx sets itself, the family
// Sluice reads (`--auth-headers`): the client's own X-Forwarded-Uri / X-Original-URI must change nothing (the second
// describe, with an nginx in each configuration).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { getFreePort } from "../support/free-port.js";
import { testDir } from "../support/service-clients.js";
import { type NginxProcess, startNginx } from "../support/service-nginx.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

// GCRA, an hour: no window boundary can fall between two requests of a test and give a counter back (a unit
// comes back every 20 minutes).
const CONFIG = `version: 1
rules:
  - id: per-user
    domain: web
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: gcra, limit: 3, period: 1h }]
`;

/** The nginx server block: a protected location, the auth subrequest, and the 429 answer. */
function serverBlock(port: number, sluicePort: number, upstreamPort: number): string {
  return `
  upstream app { server 127.0.0.1:${upstreamPort}; }
  server {
    listen 127.0.0.1:${port};

    location / {
      auth_request /_sluice;
      auth_request_set $rl_policy $upstream_http_ratelimit_policy;
      auth_request_set $rl $upstream_http_ratelimit;
      auth_request_set $rl_retry_after $upstream_http_retry_after;
      add_header RateLimit-Policy $rl_policy always;
      add_header RateLimit $rl always;
      error_page 403 = @ratelimited;
      proxy_pass http://app;
    }

    location = /_sluice {
      internal;
      proxy_pass http://127.0.0.1:${sluicePort}/v1/auth;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Forwarded-Uri $request_uri;
      proxy_set_header X-Forwarded-Method $request_method;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-User-Id $http_x_user_id;
    }

    location @ratelimited {
      default_type application/problem+json;
      add_header RateLimit-Policy $rl_policy always;
      add_header RateLimit $rl always;
      add_header Retry-After $rl_retry_after always;
      return 429 '{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too Many Requests","status":429}\\n';
    }
  }`;
}

const files = testDir("nginx");
let svc: ServiceProcess;
let nginx: NginxProcess;
let upstream: http.Server;
const upstreamSeen: { url: string; user: string | undefined }[] = [];

beforeAll(async () => {
  await ensureDistBuilt();
  upstream = http.createServer((req, res) => {
    upstreamSeen.push({ url: req.url ?? "", user: req.headers["x-user-id"] as string | undefined });
    res.writeHead(200, { "content-type": "text/plain" }).end(`hello from upstream ${req.url}\n`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  svc = await startServiceProcess([
    "--config",
    files.write("rules.yaml", CONFIG),
    "--auth-deny-status",
    "403",
    "--auth-descriptors",
    "user",
  ]);
  nginx = await startNginx((port) => serverBlock(port, svc.httpPort, upstreamPort));
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  await svc?.stop();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  files.remove();
});

async function get(path: string, user?: string) {
  const r = await request(`${nginx.url}${path}`, { headers: user ? { "x-user-id": user } : {} });
  return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
}

describe("nginx auth_request → sluice serve /v1/auth", () => {
  it("passes allowed requests through to the upstream, with the RateLimit headers", async () => {
    for (let i = 1; i <= 3; i++) {
      const r = await get(`/items/${i}?q=1`, "erin");
      expect(r.status, nginx.output()).toBe(200);
      expect(r.body).toBe(`hello from upstream /items/${i}?q=1\n`);
      expect(r.headers["ratelimit-policy"]).toBe('"per-hour";q=3;w=3600');
      expect(String(r.headers.ratelimit)).toMatch(new RegExp(`^"per-hour";r=${3 - i};t=\\d+$`));
      expect(r.headers["retry-after"]).toBeUndefined();
    }
    expect(upstreamSeen.filter((s) => s.user === "erin")).toHaveLength(3);
  });

  it("answers the caller 429 with RateLimit-Policy, RateLimit and Retry-After once over the limit, without reaching the upstream", async () => {
    const r = await get("/items/4", "erin");
    expect(r.status, nginx.output()).toBe(429);
    expect(r.headers["content-type"]).toBe("application/problem+json");
    expect(r.headers["ratelimit-policy"]).toBe('"per-hour";q=3;w=3600');
    expect(String(r.headers.ratelimit)).toMatch(/^"per-hour";r=0;t=\d+$/);
    const retryAfter = Number(r.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(upstreamSeen.filter((s) => s.user === "erin")).toHaveLength(3);
  });

  it("limits each user on their own, and lets requests no template applies to through unlimited", async () => {
    expect((await get("/x", "frank")).status).toBe(200);
    const anonymous = await get("/x");
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers["ratelimit-policy"]).toBeUndefined();
    expect((await get("/x", "erin")).status).toBe(429);
  });

  it("Sluice saw the subrequests: its forward-auth metrics count them", async () => {
    const r = await request(`${svc.httpUrl}/metrics`);
    const text = await r.body.text();
    const count = (code: string): number =>
      Number(
        text
          .split("\n")
          .find(
            (l) =>
              l.startsWith("sluice_requests_total{") &&
              l.includes('api="http_auth"') &&
              l.includes(`code="${code}"`),
          )
          ?.split(" ")
          .pop() ?? 0,
      );
    expect(count("ok")).toBe(5); // erin 3, frank 1, anonymous 1
    expect(count("over_limit")).toBe(2);
  });
});

// Per user: 2 requests an hour to /api/expensive, 1 DELETE an hour (GCRA: no window edge gives one back).
const SPOOF_CONFIG = `version: 1
rules:
  - id: expensive
    domain: web
    match: [{ key: user }, { key: endpoint, value: /api/expensive }]
    limits: [{ name: expensive, algorithm: gcra, limit: 2, period: 1h }]
  - id: deletes
    domain: web
    match: [{ key: user }, { key: method, value: DELETE }]
    limits: [{ name: deletes, algorithm: gcra, limit: 1, period: 1h }]
`;

/** A server block asking Sluice at `sluicePort`, the original URI and method in the `family` headers nginx sets. */
function spoofServer(
  port: number,
  sluicePort: number,
  upstreamPort: number,
  family: "Forwarded" | "Original",
) {
  const uri = family === "Forwarded" ? "X-Forwarded-Uri" : "X-Original-URI";
  return `
  server {
    listen 127.0.0.1:${port};
    location / {
      auth_request /_sluice;
      error_page 403 = @ratelimited;
      proxy_pass http://127.0.0.1:${upstreamPort};
    }
    location = /_sluice {
      internal;
      proxy_pass http://127.0.0.1:${sluicePort}/v1/auth;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header ${uri} $request_uri;
      proxy_set_header X-${family}-Method $request_method;
      proxy_set_header X-Real-IP $remote_addr;
      proxy_set_header X-User-Id $http_x_user_id;
    }
    location @ratelimited { return 429; }
  }`;
}

describe("nginx auth_request: a client's own X-Forwarded-* / X-Original-* headers choose nothing", () => {
  const spoofFiles = testDir("nginx-spoof");
  /** Sluice reading X-Forwarded-* (the default) behind the first server, X-Original-* behind the second. */
  let forwarded: ServiceProcess;
  let original: ServiceProcess;
  let proxy: NginxProcess;
  let originalPort: number;

  beforeAll(async () => {
    await ensureDistBuilt();
    const args = (file: string) => [
      "--config",
      spoofFiles.write(file, SPOOF_CONFIG),
      "--auth-deny-status",
      "403",
      "--auth-descriptors",
      "user,endpoint;user,method",
    ];
    [forwarded, original] = await Promise.all([
      startServiceProcess(args("forwarded.yaml")),
      // Chosen by its variable: the same test ran against a Sluice without the setting (which ignores it).
      startServiceProcess(args("original.yaml"), { env: { SLUICE_AUTH_HEADERS: "x-original" } }),
    ]);
    const upstreamPort = (upstream.address() as AddressInfo).port;
    originalPort = await getFreePort();
    proxy = await startNginx(
      (port) =>
        spoofServer(port, forwarded.httpPort, upstreamPort, "Forwarded") +
        spoofServer(originalPort, original.httpPort, upstreamPort, "Original"),
    );
  }, 180_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all([forwarded?.stop(), original?.stop()]);
    spoofFiles.remove();
  });

  /** The status nginx answers `method path` for `user`, with extra client headers. */
  async function status(port: number, method: string, path: string, user: string, extra = {}) {
    const r = await request(`http://127.0.0.1:${port}${path}`, {
      method: method as "GET",
      headers: { "x-user-id": user, ...extra },
    });
    await r.body.text();
    return r.statusCode;
  }

  for (const family of ["x-forwarded", "x-original"] as const) {
    const port = () => (family === "x-forwarded" ? Number(new URL(proxy.url).port) : originalPort);
    const spoofUri = { "X-Forwarded-Uri": "/elsewhere", "X-Original-URI": "/elsewhere" };
    const spoofMethod = { "X-Forwarded-Method": "GET", "X-Original-Method": "GET" };

    it(`counts the endpoint nginx saw (${family}), whatever URI header the client adds`, async () => {
      expect(await status(port(), "GET", "/api/expensive?a=1", "alice"), proxy.output()).toBe(200);
      expect(await status(port(), "GET", "/api/expensive", "alice", spoofUri)).toBe(200);
      // Third in the hour: over, with or without the client's headers.
      expect(await status(port(), "GET", "/api/expensive", "alice", spoofUri)).toBe(429);
      expect(await status(port(), "GET", "/api/expensive", "alice")).toBe(429);
      // Another endpoint is not limited: the headers were not what kept it apart.
      expect(await status(port(), "GET", "/elsewhere", "alice")).toBe(200);
    });

    it(`counts the method nginx saw (${family}), whatever method header the client adds`, async () => {
      expect(await status(port(), "DELETE", "/api/thing", "bob")).toBe(200);
      expect(await status(port(), "DELETE", "/api/thing", "bob", spoofMethod)).toBe(429);
      expect(await status(port(), "GET", "/api/thing", "bob", spoofMethod)).toBe(200);
    });
  }
});

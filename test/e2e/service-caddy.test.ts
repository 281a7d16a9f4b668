// End to end: Caddy's `forward_auth` in front of an upstream, asking the real `sluice serve` process (/v1/auth)
// whether each request may pass.
//
// Caddy sends the auth subrequest as a GET carrying the original request's headers plus `X-Forwarded-Method`,
// `X-Forwarded-Uri` and `X-Forwarded-For`. A 2xx answer lets the request on to the upstream, with the headers named
// in `copy_headers` copied from the answer onto the request; any other answer, Sluice's 429 with its problem body
// and RateLimit headers, goes back to the client as it is. Two settings matter:
// - Caddy passes the client's own `X-Real-IP` through to Sluice, which reads that header first: `header_up X-Real-IP
//   {remote_host}` overwrites it with the peer address (or run Sluice with `--auth-address-header ""`), else a client
//   picks its own address counter;
// - on an allowed request the RateLimit headers reach the upstream, not the client: `header_down` on the upstream's
//   reverse_proxy puts the copied request headers on its answer.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type CaddyProcess, startCaddy } from "../support/service-caddy.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

// GCRA, an hour: no window boundary can fall between two requests of a test and give a counter back (a unit
// comes back every 36 s at the most).
const CONFIG = `version: 1
rules:
  - id: per-user
    domain: web
    match: [{ key: user }]
    limits: [{ name: per-user, algorithm: gcra, limit: 3, period: 1h }]
  - id: per-address
    domain: web
    match: [{ key: remote_address }]
    limits: [{ name: per-address, algorithm: gcra, limit: 100, period: 1h }]
  - id: order-writes
    domain: web
    match: [{ key: method, value: POST }, { key: endpoint, path: "/orders/*" }]
    limits: [{ name: order-writes, algorithm: gcra, limit: 1, period: 1h }]
`;

/** The site's directives: the auth subrequest, then the upstream with the copied RateLimit headers on its answer. */
function site(sluicePort: number, upstreamPort: number): string {
  return `	forward_auth 127.0.0.1:${sluicePort} {
		uri /v1/auth
		header_up X-Real-IP {remote_host}
		copy_headers RateLimit RateLimit-Policy
	}
	reverse_proxy 127.0.0.1:${upstreamPort} {
		header_down RateLimit {http.request.header.RateLimit}
		header_down RateLimit-Policy {http.request.header.RateLimit-Policy}
	}`;
}

const files = testDir("caddy-rules");
let svc: ServiceProcess;
let caddy: CaddyProcess;
let upstream: http.Server;
const upstreamSeen: { method: string; url: string; user: string | undefined }[] = [];

beforeAll(async () => {
  await ensureDistBuilt();
  upstream = http.createServer((req, res) => {
    upstreamSeen.push({
      method: req.method ?? "",
      url: req.url ?? "",
      user: req.headers["x-user-id"] as string | undefined,
    });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`upstream ${req.url}\n`));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  svc = await startServiceProcess([
    "--config",
    files.write("rules.yaml", CONFIG),
    "--auth-domain",
    "web",
    "--auth-descriptors",
    "remote_address;user;method,endpoint",
  ]);
  caddy = await startCaddy(() => site(svc.httpPort, upstreamPort));
}, 180_000);

afterAll(async () => {
  await caddy?.stop();
  await svc?.stop();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
  files.remove();
});

async function send(
  path: string,
  opts: { user?: string; method?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.user !== undefined) headers["x-user-id"] = opts.user;
  const r = await request(`${caddy.url}${path}`, {
    method: (opts.method ?? "GET") as "GET",
    headers,
    body: opts.method === "POST" ? "{}" : undefined,
  });
  return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
}

/** The `r` of policy `name` in a RateLimit field. */
function remaining(field: unknown, name: string): number {
  const m = new RegExp(`"${name}";r=(\\d+);t=\\d+`).exec(String(field));
  if (m === null) throw new Error(`no ${name} in RateLimit ${String(field)}`);
  return Number(m[1]);
}

describe("Caddy forward_auth → sluice serve /v1/auth", () => {
  it("passes allowed requests on to the upstream, the client seeing the RateLimit headers", async () => {
    for (let i = 1; i <= 3; i++) {
      const r = await send(`/items/${i}?q=1`, { user: "erin" });
      expect(r.status, caddy.output()).toBe(200);
      expect(r.body).toBe(`upstream /items/${i}?q=1\n`);
      expect(r.headers["ratelimit-policy"]).toBe('"per-address";q=100;w=3600, "per-user";q=3;w=3600');
      expect(remaining(r.headers.ratelimit, "per-user")).toBe(3 - i);
      expect(remaining(r.headers.ratelimit, "per-address")).toBe(100 - i);
      expect(r.headers["retry-after"]).toBeUndefined();
    }
    expect(upstreamSeen.filter((s) => s.user === "erin")).toHaveLength(3);
  });

  it("answers the client Sluice's own 429 (problem body, RateLimit, Retry-After) once over the limit, without reaching the upstream", async () => {
    const r = await send("/items/4", { user: "erin" });
    expect(r.status, caddy.output()).toBe(429);
    expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(r.body) as Record<string, unknown>;
    expect(problem.type).toBe("https://iana.org/assignments/http-problem-types#quota-exceeded");
    expect(problem["violated-policies"]).toEqual(["per-user"]);
    expect(remaining(r.headers.ratelimit, "per-user")).toBe(0);
    const retryAfter = Number(r.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(upstreamSeen.filter((s) => s.user === "erin")).toHaveLength(3);
    // All or nothing: the denied request took nothing from the address's allowance.
    const next = await send("/x", { user: "frank" });
    expect(next.status).toBe(200);
    expect(remaining(next.headers.ratelimit, "per-address")).toBe(96);
  });

  it("counts the peer address, whatever X-Real-IP or X-Forwarded-For the client sends", async () => {
    const spoofed = await send("/x", {
      headers: { "x-real-ip": "203.0.113.9", "x-forwarded-for": "198.51.100.7" },
    });
    expect(spoofed.status).toBe(200);
    expect(remaining(spoofed.headers.ratelimit, "per-address")).toBe(95);
    expect(remaining((await send("/x")).headers.ratelimit, "per-address")).toBe(94);
  });

  it("reads the method and the path (without its query) from X-Forwarded-Method and X-Forwarded-Uri", async () => {
    const first = await send("/orders/17?draft=1", { method: "POST" });
    expect(first.status, caddy.output()).toBe(200);
    expect(first.headers["ratelimit-policy"]).toContain('"order-writes";q=1;w=3600');
    const second = await send("/orders/18", { method: "POST" });
    expect(second.status).toBe(429);
    expect(JSON.parse(second.body)["violated-policies"]).toEqual(["order-writes"]);
    const read = await send("/orders/18");
    expect(read.status).toBe(200);
    expect(read.headers["ratelimit-policy"]).not.toContain("order-writes");
    expect(upstreamSeen.filter((s) => s.url.startsWith("/orders/"))).toEqual([
      { method: "POST", url: "/orders/17?draft=1", user: undefined },
      { method: "GET", url: "/orders/18", user: undefined },
    ]);
  });
});

// Fuzzes the HTTP surface over real sockets: tens of thousands of random and mutated requests, many in flight,
// from a seeded generator (the seed is in the test name, so a failure is reproducible). Asserts the server stays
// up and answers a valid request right at the end, every reply is well formed (a known status; a parseable JSON or
// problem body where one is sent), and invalid requests counted nothing.

import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import type { FastifyInstance } from "fastify";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRandom } from "../../core/random.js";
import { createHttpServer } from "./http-server.js";
import { type TestServiceContext, testServiceContext } from "./testing-http.js";

const SEED = 0x5eed_2026;
const PER_SURFACE = 10_000;
const IN_FLIGHT = 96;
const STATUSES = new Set([200, 400, 403, 404, 405, 413, 415, 429, 503]);

const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 5, period: 1s }]
  - id: any-key
    domain: api
    match: [{ key: k }]
    limits: [{ name: per-second, limit: 3, period: 1s, burst: 3 }]
  - id: user-endpoint
    domain: api
    match: [{ key: user }, { key: endpoint, path: "/api/*" }]
    limits: [{ name: per-minute, algorithm: sliding_window, limit: 10, period: 1m }]
  - id: sentinel
    domain: api
    match: [{ key: sentinel-dimension-7f3a }]
    limits: [{ name: big, algorithm: fixed_window, limit: 1000000, period: 1h }]
  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 3, period: 1s }]
  - id: per-user-edge
    domain: edge
    match: [{ key: user }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 20, period: 1m }]
  - id: user-endpoint-edge
    domain: edge
    match: [{ key: user }, { key: endpoint, prefix: /a }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 5, period: 1h }]
`;

class Gen {
  readonly #r: () => number;
  constructor(seed: number) {
    this.#r = createRandom(seed);
  }
  float(): number {
    return this.#r();
  }
  int(n: number): number {
    return Math.floor(this.#r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.#r() < p;
  }
  /** A string of `n` characters drawn from `alphabet`. */
  chars(n: number, alphabet: string): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  /** Any UTF-16 string: ASCII, Latin-1, astral pairs, lone surrogates, controls. */
  wild(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) {
      const k = this.int(6);
      if (k === 0)
        s += String.fromCharCode(0xd800 + this.int(0x800)); // lone surrogate
      else if (k === 1) s += String.fromCodePoint(0x10000 + this.int(0xfffff));
      else if (k === 2) s += String.fromCharCode(this.int(0x20));
      else if (k === 3) s += String.fromCharCode(0x80 + this.int(0x780));
      else s += String.fromCharCode(0x20 + this.int(0x5f));
    }
    return s;
  }
  number(): number {
    return this.pick([
      0,
      -0,
      1,
      -1,
      0.5,
      3,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER,
      2 ** 64,
      1_700_000_000_000,
      this.float() * 1e6,
      -this.float() * 100,
      this.int(2000),
    ]);
  }
  /** A random JSON value of bounded depth. */
  json(depth = 3): unknown {
    const k = this.int(depth <= 0 ? 4 : 7);
    switch (k) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.number();
      case 3:
        return this.chance(0.5) ? this.wild(this.int(12)) : this.chars(this.int(8), "abcdefuser/:");
      case 4:
        return Array.from({ length: this.int(5) }, () => this.json(depth - 1));
      default: {
        const o: Record<string, unknown> = {};
        const keys = [
          "domain",
          "descriptors",
          "identifier",
          "dimension",
          "endpoint",
          "cost",
          "timestamp",
          "entries",
          "key",
          "value",
          "idempotency_key",
          "__proto__",
          "constructor",
          "x",
        ];
        for (let i = this.int(5); i > 0; i--) o[this.pick(keys)] = this.json(depth - 1);
        return o;
      }
    }
  }
}

/** A valid check request, a random one of the shapes the API takes. */
function validCheck(g: Gen): Record<string, unknown> {
  const k = g.int(4);
  if (k === 0) return { identifier: String(g.int(50)), dimension: "user", cost: g.int(3) };
  if (k === 1) return { identifier: String(g.int(50)), dimension: "user", endpoint: `/api/${g.int(5)}` };
  if (k === 2)
    return { descriptors: [{ entries: [{ key: "k", value: g.chars(3, "abc") }] }], cost: g.float() * 2 };
  return {
    domain: "api",
    descriptors: [{ entries: [{ key: "user", value: String(g.int(9)) }] }],
    idempotency_key: `id-${g.int(200)}`,
  };
}

interface Sent {
  readonly method: "POST" | "GET" | "PUT";
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer | string;
}

/** One /v1/check request: valid, mutated, random, truncated, invalid UTF-8, deeply nested, oversized, mistyped. */
function checkRequest(g: Gen): Sent {
  const json = { "content-type": "application/json" };
  const post = (body: Buffer | string, headers: Record<string, string> = json): Sent => ({
    method: "POST",
    path: "/v1/check",
    headers,
    body,
  });
  const mode = g.int(12);
  switch (mode) {
    case 0:
      return post(JSON.stringify(validCheck(g)));
    case 1:
    case 2: {
      const req = validCheck(g);
      const keys = [
        ...Object.keys(req),
        "domain",
        "cost",
        "timestamp",
        "endpoint",
        "descriptors",
        "idempotency_key",
        "bogus",
      ];
      req[g.pick(keys)] = g.json(3);
      return post(JSON.stringify(req));
    }
    case 3:
      return post(JSON.stringify(g.json(4)) ?? "null");
    case 4: {
      const text = JSON.stringify(validCheck(g));
      return post(text.slice(0, g.int(text.length)));
    }
    case 5: {
      const bytes = Buffer.from(JSON.stringify(validCheck(g)));
      for (let i = g.int(4) + 1; i > 0; i--) bytes[g.int(bytes.length)] = 0x80 + g.int(0x80);
      return post(bytes);
    }
    case 6: {
      const depth = 1 + g.int(7000);
      return post(
        g.chance(0.5)
          ? `${"[".repeat(depth)}${"]".repeat(depth)}`
          : `${'{"a":'.repeat(depth / 5)}1${"}".repeat(depth / 5)}`,
      );
    }
    case 7: {
      if (g.chance(0.3)) return post(`{"identifier":"${"x".repeat(17_000)}","dimension":"user"}`);
      const n = 1 + g.int(150);
      const entries = Array.from({ length: g.int(80) + 1 }, () => ({ key: "k", value: "v" }));
      return post(
        JSON.stringify({
          descriptors: Array.from({ length: n }, () => ({
            entries: entries.slice(0, 1 + g.int(entries.length)),
          })),
        }),
      );
    }
    case 8: {
      const n = g.pick([
        "1e999",
        "-1e999",
        "123456789012345678901234567890",
        "1.5e-400",
        "-0",
        "0x10",
        "NaN",
        "Infinity",
      ]);
      return post(`{"identifier":"1","dimension":"user","${g.pick(["cost", "timestamp"])}":${n}}`);
    }
    case 9: {
      const type = g.pick([
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonx",
        "",
        "multipart/form-data; boundary=x",
      ]);
      return post(JSON.stringify(validCheck(g)), type === "" ? {} : { "content-type": type });
    }
    case 10:
      return post(JSON.stringify(validCheck(g)), {
        ...json,
        "x-idempotency-key": g.chance(0.5) ? g.chars(g.int(400), "abc-") : `id-${g.int(200)}`,
      });
    default:
      return {
        method: g.pick(["GET", "PUT"] as const),
        path: g.pick(["/v1/check", "/v1/checks", "/", "/v1/check/x"]),
        headers: {},
      };
  }
}

/** Header values undici will send: tab, printable ASCII and Latin-1. */
const HEADER_CHARS = `\t${Array.from({ length: 0x5f }, (_, i) => String.fromCharCode(0x20 + i)).join("")}${Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(0x80 + i)).join("")}`;

function headerValue(g: Gen, max: number): string {
  return g.chars(1 + g.int(max), HEADER_CHARS).trim() || "x";
}

function address(g: Gen): string {
  return g.pick([
    () => `192.0.2.${g.int(20)}`,
    () => `2001:db8:${g.int(9)}::${g.int(99)}`,
    () => `[::ffff:10.0.0.${g.int(9)}]:${g.int(70000)}`,
    () => "unknown",
    () => "",
    () => headerValue(g, 40),
    () => `${g.int(999)}.${g.int(999)}.${g.int(999)}.${g.int(999)}`,
    () => "fe80::1%eth0",
  ])();
}

/** One /v1/auth request: random proxy headers, garbage X-Forwarded-For, overlong URIs, odd methods and bodies. */
function authRequest(g: Gen): Sent {
  const headers: Record<string, string> = {};
  if (g.chance(0.7))
    headers["x-forwarded-for"] = Array.from({ length: g.int(6) }, () => address(g)).join(
      g.pick([",", ", ", " ,"]),
    );
  if (g.chance(0.3)) headers["x-real-ip"] = address(g);
  if (g.chance(0.5))
    headers["x-user-id"] = g.chance(0.1)
      ? "u".repeat(1000 + g.int(1200))
      : g.chance(0.5)
        ? String(g.int(30))
        : headerValue(g, 50);
  if (g.chance(0.5)) {
    const uri = g.chance(0.1)
      ? `/${"a".repeat(900 + g.int(3000))}`
      : g.chance(0.5)
        ? `/a${g.int(9)}?q=${g.int(9)}#f`
        : headerValue(g, 200);
    headers[g.pick(["x-forwarded-uri", "x-original-uri"])] = uri;
  }
  if (g.chance(0.3))
    headers[g.pick(["x-forwarded-method", "x-original-method"])] = g.chance(0.5) ? "get" : headerValue(g, 30);
  const method = g.pick(["GET", "GET", "GET", "POST", "PUT"] as const);
  const sent: Sent = {
    method,
    path: g.chance(0.97) ? "/v1/auth" : g.pick(["/v1/auth/", "/v1/Auth", "/v1/auth?x=1"]),
    headers,
  };
  if (method !== "GET" && g.chance(0.5)) {
    headers["content-type"] = g.pick(["application/json", "text/plain", "application/octet-stream"]);
    return { ...sent, body: g.chance(0.05) ? Buffer.alloc(17_000, 1) : Buffer.from(g.wild(g.int(50))) };
  }
  return sent;
}

interface Tally {
  readonly byStatus: Map<number, number>;
  bad: string[];
}

/** Asserts one reply is well formed; records its status. */
function inspect(t: Tally, sent: Sent, status: number, type: string | undefined, body: string): void {
  t.byStatus.set(status, (t.byStatus.get(status) ?? 0) + 1);
  const where = `${sent.method} ${sent.path} → ${status}`;
  if (!STATUSES.has(status)) t.bad.push(`${where}: unexpected status`);
  if (body === "") {
    if (status !== 200) t.bad.push(`${where}: no body`);
    return;
  }
  if (type === undefined || !/^application\/(problem\+)?json/.test(type)) {
    t.bad.push(`${where}: body of type ${type}`);
    return;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    t.bad.push(`${where}: unparseable body ${body.slice(0, 80)}`);
    return;
  }
  if (type.startsWith("application/problem+json")) {
    if (parsed.status !== status || typeof parsed.title !== "string" || typeof parsed.type !== "string") {
      t.bad.push(`${where}: bad problem ${body.slice(0, 120)}`);
    }
  } else if (status === 200 && sent.path === "/v1/check" && typeof parsed.allowed !== "boolean") {
    t.bad.push(`${where}: bad check answer ${body.slice(0, 120)}`);
  }
}

/** Sends every request with at most `inFlight` at once. */
async function run(pool: Pool, requests: readonly Sent[], t: Tally): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const sent = requests[next++];
      const r = await pool.request({
        method: sent.method,
        path: sent.path,
        headers: sent.headers,
        body: sent.body,
      });
      const body = await r.body.text();
      const type = r.headers["content-type"];
      inspect(t, sent, r.statusCode, Array.isArray(type) ? type[0] : type, body);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Sends raw HTTP (control characters in header values undici refuses to send) and returns the status line. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.end(text));
    let out = "";
    s.setEncoding("latin1");
    s.on("data", (d: string) => {
      out += d;
    });
    s.on("close", () => resolve(out));
    s.on("error", reject);
  });
}

describe(`HTTP fuzz (seed ${SEED.toString(16)})`, () => {
  let t: TestServiceContext;
  let app: FastifyInstance;
  let pool: Pool;
  let port: number;
  const sentinel = {
    domain: "api",
    descriptors: [[{ key: "sentinel-dimension-7f3a", value: "s" }]],
    cost: 0,
  };

  beforeAll(async () => {
    t = testServiceContext(CONFIG, { maxInflight: 256 });
    app = createHttpServer(t.ctx, {
      defaultDomain: "api",
      readiness: async () => ({ ready: true, checks: {} }),
      forwardAuth: { domain: "edge" },
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
    pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32, pipelining: 1 });
    t.engine.checkSync({ ...sentinel, cost: 1 });
  });

  afterAll(async () => {
    await pool?.close();
    await app?.close();
  });

  it(`survives ${PER_SURFACE} random and mutated /v1/check requests; invalid ones count nothing`, async () => {
    const g = new Gen(SEED);
    const requests = Array.from({ length: PER_SURFACE }, () => checkRequest(g));
    const before = t.engine.checkSync(sentinel).decision.remaining;
    const checksBefore = t.engine.stats.checks;
    const tally: Tally = { byStatus: new Map(), bad: [] };
    await run(pool, requests, tally);
    expect(tally.bad.slice(0, 10)).toEqual([]);
    // Every 200 is one engine check; no 4xx reached the engine.
    expect(t.engine.stats.checks - checksBefore).toBe(tally.byStatus.get(200) ?? 0);
    expect(t.engine.checkSync(sentinel).decision.remaining).toBe(before);
    for (const s of [200, 400, 405, 413, 415])
      expect(tally.byStatus.get(s) ?? 0, `status ${s}`).toBeGreaterThan(0);
    expect(t.ctx.gate.inflight).toBe(0);
  }, 60_000);

  it(`survives ${PER_SURFACE} random /v1/auth requests and raw control characters`, async () => {
    const g = new Gen(SEED + 1);
    const requests = Array.from({ length: PER_SURFACE }, () => authRequest(g));
    const before = t.engine.checkSync(sentinel).decision.remaining;
    const checksBefore = t.engine.stats.checks;
    const deniedBefore = t.engine.stats.denied;
    const tally: Tally = { byStatus: new Map(), bad: [] };
    await run(pool, requests, tally);
    expect(tally.bad.slice(0, 10)).toEqual([]);
    const count = (s: number) => tally.byStatus.get(s) ?? 0;
    expect(t.engine.stats.denied - deniedBefore).toBe(count(429));
    expect(t.engine.stats.checks - checksBefore).toBeLessThanOrEqual(count(200) + count(429));
    for (const s of [200, 400, 429]) expect(count(s), `status ${s}`).toBeGreaterThan(0);

    // Control characters in header values: refused by the HTTP parser (400) or read as plain values.
    for (let i = 0; i < 200; i++) {
      const ctl = g.chars(1 + g.int(20), "\u0000\u0001\u0007\u000b\u000c\u001b\u007f a");
      const raw = await rawRequest(
        port,
        `GET /v1/auth HTTP/1.1\r\nHost: x\r\nX-Forwarded-Uri: /a${ctl}\r\nX-User-Id: ${ctl}\r\nConnection: close\r\n\r\n`,
      );
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1]);
      expect([200, 400, 429]).toContain(status);
      const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
      if (body !== "") expect(() => JSON.parse(body)).not.toThrow();
    }
    expect(t.engine.checkSync(sentinel).decision.remaining).toBe(before);
    expect(t.ctx.gate.inflight).toBe(0);
  }, 60_000);

  it("still answers a valid request right afterwards", async () => {
    const r = await pool.request({
      method: "POST",
      path: "/v1/check",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ identifier: "after-fuzz", dimension: "user" }),
    });
    expect(r.statusCode).toBe(200);
    expect(await r.body.json()).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
    const h = await pool.request({ method: "GET", path: "/healthz" });
    expect(h.statusCode).toBe(200);
    await h.body.dump();
  });
});

import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { failingStore } from "../../../test/support/failing-store.js";
import { monotonicClock } from "../../core/clock.js";
import { StoreUnavailableError } from "../../core/errors.js";
import type { Engine } from "../../engine/engine.js";
import { MemoryStore } from "../../stores/memory/memory-store.js";
import { isSyncStore, type Store } from "../../stores/store.js";
import { QUOTA_EXCEEDED_TYPE, REDUCED_CAPACITY_TYPE } from "../problem-details.js";
import {
  connectionsCheckingIntervalOf,
  createHttpServer,
  DEFAULT_FORWARD_AUTH_DOMAIN,
  forwardAuthDomainOf,
  type HttpServerOptions,
  type Readiness,
} from "./http-server.js";
import { TEST_T0_MS, testServiceContext } from "./testing-http.js";

const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 2, period: 1s }]
  - id: per-tenant
    domain: api
    match: [{ key: tenant }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 5, period: 1s }]
  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 2, period: 1s }]
  - id: user-everywhere
    domain: edge
    match: [{ key: user }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: user-orders
    domain: edge
    match: [{ key: user }, { key: endpoint, path: "/orders/*" }]
    limits: [{ name: orders, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: per-method
    domain: methods
    match: [{ key: method }, { key: x-api-key }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 1, period: 1m }]
`;

/** Rules beside a shadow one, and a rule failing closed on a store that is down (with {@link failingStore}). */
const EDGE_CASES = `
version: 1
rules:
  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    failurePolicy: fail_closed
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: trial
    domain: edge
    match: [{ key: user }]
    behaviour: shadow
    limits: [{ name: shadow-lim, algorithm: fixed_window, limit: 2, period: 1h }]
  - id: user-endpoint
    domain: edge
    match: [{ key: user }, { key: endpoint }]
    failurePolicy: fallback
    limits: [{ name: per-endpoint, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: closed
    domain: api
    match: [{ key: ip }]
    failurePolicy: fail_closed
    limits: [{ name: per-min, algorithm: fixed_window, limit: 100, period: 1m }]
`;

/** Rules failing open on a store that is down (with {@link failingStore}): let through, nothing counted. */
const FAIL_OPEN = `
version: 1
rules:
  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    failurePolicy: fail_open
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: per-user
    domain: api
    match: [{ key: user }]
    failurePolicy: fail_open
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 50, period: 1h }]
`;

/** The rate limit fields an answer may carry. */
const RATE_LIMIT_FIELDS = [
  "ratelimit-policy",
  "ratelimit",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "ratelimit-state",
  "retry-after",
];

const READY = async (): Promise<Readiness> => ({ ready: true, checks: { store: { ok: true } } });

const apps: FastifyInstance[] = [];
afterEach(async () => {
  while (apps.length > 0) await apps.pop()?.close();
});

function setup(
  options: Partial<HttpServerOptions> = {},
  ctxOptions: Parameters<typeof testServiceContext>[1] = {},
  yaml = CONFIG,
) {
  const t = testServiceContext(yaml, ctxOptions);
  const app = createHttpServer(t.ctx, {
    defaultDomain: "api",
    readiness: READY,
    forwardAuth: { domain: "edge" },
    ...options,
  });
  apps.push(app);
  const check = (payload: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: "POST", url: "/v1/check", payload: payload as object, headers });
  const auth = (headers: Record<string, string>, method: "GET" | "HEAD" | "POST" = "GET") =>
    app.inject({ method, url: "/v1/auth", headers });
  const metric = async (line: string) => {
    const body = (await app.inject({ url: "/metrics" })).body;
    const hit = body.split("\n").find((l) => l.startsWith(`${line} `));
    return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
  };
  return { ...t, app, check, auth, metric };
}

const user = (id: string) => ({ identifier: id, dimension: "user" });

describe("POST /v1/check", () => {
  it("answers 200 with the check response and the RateLimit headers, allowed or not", async () => {
    const { check, metric } = setup();
    const first = await check(user("1"));
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-type"]).toMatch(/^application\/json/);
    expect(first.json()).toMatchObject({
      allowed: true,
      limit: 2,
      remaining: 1,
      current_count: 1,
      state: "normal",
    });
    // Rule per-tenant of domain api has a per-second too: per-user's is named by its rule in every answer.
    expect(first.headers["ratelimit-policy"]).toBe('"per-user/per-second";q=2;w=1');
    expect(first.headers.ratelimit).toBe('"per-user/per-second";r=1;t=1');
    expect(first.headers["ratelimit-state"]).toBe("normal");
    await check(user("1"));
    const denied = await check(user("1"));
    expect(denied.statusCode).toBe(200);
    expect(denied.json()).toMatchObject({ allowed: false, remaining: 0, retry_after: 1, state: "throttled" });
    expect(denied.headers["ratelimit-state"]).toBe("throttled");
    expect(denied.headers["retry-after"]).toBeUndefined();
    expect(await metric('sluice_requests_total{api="http_check",code="ok"}')).toBe(2);
    expect(await metric('sluice_requests_total{api="http_check",code="over_limit"}')).toBe(1);
    expect(await metric('sluice_decisions_total{domain="api",rule="per-user",outcome="denied"}')).toBe(1);
    expect(await metric('sluice_request_duration_seconds_count{api="http_check"}')).toBe(3);
  });

  it("names a policy alike in every answer, whichever other policies the answer holds", async () => {
    const { check } = setup();
    const entries = (key: string, value: string) => ({ entries: [{ key, value }] });
    const alone = await check({ domain: "api", descriptors: [entries("user", "n")] });
    const both = await check({ domain: "api", descriptors: [entries("user", "n"), entries("tenant", "n")] });
    const tenant = await check({ domain: "api", descriptors: [entries("tenant", "n")] });
    // per-user and per-tenant both have a per-second: each is named by its rule, alone as beside the other.
    expect(alone.headers["ratelimit-policy"]).toBe('"per-user/per-second";q=2;w=1');
    expect(tenant.headers["ratelimit-policy"]).toBe('"per-tenant/per-second";q=5;w=1');
    expect(both.headers["ratelimit-policy"]).toBe(
      '"per-user/per-second";q=2;w=1, "per-tenant/per-second";q=5;w=1',
    );
    expect(both.json().policies.map((p: { name: string }) => p.name)).toEqual([
      "per-user/per-second",
      "per-tenant/per-second",
    ]);
  });

  it("answers the same through a store without a synchronous path (checked on the engine's promise)", async () => {
    // A memory store seen through its asynchronous interface only: the route takes engine.check's promise.
    const memory = new MemoryStore({ capacity: 1000 });
    const asyncOnly: Store = {
      name: "async-memory",
      shared: false,
      apply: (items, op, nowMs) => memory.apply(items, op, nowMs),
      release: (limits, key, leases, nowMs) => memory.release(limits, key, leases, nowMs),
      close: () => memory.close(),
    };
    const sync = setup();
    const viaPromise = setup({}, { store: asyncOnly });
    expect(isSyncStore(viaPromise.engine.store)).toBe(false);
    for (const t of [sync, viaPromise]) t.clock.set(TEST_T0_MS);
    const answers = async (t: typeof sync) => {
      const out: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await t.check(user("1"));
        out.push([r.statusCode, r.headers.ratelimit, r.headers["ratelimit-policy"], r.body]);
      }
      for (let i = 0; i < 3; i++) {
        const r = await t.auth({ "x-real-ip": "192.0.2.1", "x-user-id": "u" });
        out.push([r.statusCode, r.headers.ratelimit, r.headers["retry-after"], r.body]);
      }
      out.push(await t.metric('sluice_requests_total{api="http_check",code="over_limit"}'));
      out.push(await t.metric('sluice_requests_total{api="http_auth",code="over_limit"}'));
      return out;
    };
    const expected = await answers(sync);
    expect(expected.slice(-2)).toEqual([1, 1]); // a denial seen on both routes
    expect(await answers(viaPromise)).toEqual(expected);
  });

  it("sends the legacy trio when asked, and no headers when no limit applied", async () => {
    const { check } = setup({ legacyHeaders: true });
    const r = await check(user("1"));
    expect(r.headers["x-ratelimit-limit"]).toBe("2");
    expect(r.headers["x-ratelimit-remaining"]).toBe("1");
    expect(r.headers["x-ratelimit-reset"]).toBe("1");
    const none = await check({ identifier: "1", dimension: "nothing" });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toMatchObject({ allowed: true, limit: 0, policies: [] });
    expect(none.headers["ratelimit-policy"]).toBeUndefined();
    expect(none.headers["x-ratelimit-limit"]).toBeUndefined();
  });

  it("answers 400 problems naming the field, and counts nothing", async () => {
    const { check, engine, metric } = setup();
    const cases: [unknown, string][] = [
      [{ identifier: "1" }, "dimension"],
      [{ ...user("1"), cost: -1 }, "cost"],
      [{ ...user("1"), cost: "2" }, "cost"],
      [{ ...user("1"), timestamp: 5 }, "timestamp"],
      [{ ...user("1"), colour: "red" }, '"colour"'],
      [{ descriptors: [{ entries: [{ key: 7 }] }] }, "descriptors[0].entries[0].key"],
      [[1, 2], "request"],
      [{ domain: "", identifier: "1" }, "dimension"],
    ];
    for (const [payload, field] of cases) {
      const r = await check(payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
      const p = r.json();
      expect(p).toMatchObject({ type: "about:blank", title: "Bad Request", status: 400 });
      expect(p["invalid-params"][0].name).toBe(field);
      expect(p.detail.startsWith(field)).toBe(true);
    }
    expect(engine.stats.checks).toBe(0);
    expect(await metric('sluice_requests_total{api="http_check",code="invalid"}')).toBe(cases.length);
  });

  it("refuses a fractional cost for a counting algorithm with the engine's message", async () => {
    const { check } = setup();
    const r = await check({ ...user("1"), cost: 0.5 });
    expect(r.statusCode).toBe(400);
    expect(r.json().detail).toMatch(/^cost must be a whole number for rule "per-user"/);
  });

  it("needs a domain when there is no default one", async () => {
    const { check } = setup({ defaultDomain: undefined });
    const r = await check(user("1"));
    expect(r.statusCode).toBe(400);
    expect(r.json().detail).toMatch(/^domain is required/);
    expect((await check({ ...user("1"), domain: "api" })).statusCode).toBe(200);
  });

  it("turns bad bodies into 400, 413 and 415 problems", async () => {
    const { app, engine } = setup();
    const post = (payload: string | Buffer, type?: string) =>
      app.inject({
        method: "POST",
        url: "/v1/check",
        payload,
        headers: type === undefined ? {} : { "content-type": type },
      });
    const bad = [
      [await post("{not json", "application/json"), 400, /^body is not valid JSON/],
      [
        await post(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), "application/json"),
        400,
        /^body is not valid UTF-8/,
      ],
      [await post("", "application/json"), 400, /^body is empty/],
      [await post('{"a":1}', "text/plain"), 415, /Content-Type: application\/json/],
      [
        await post(`{"identifier":"${"x".repeat(20_000)}"}`, "application/json"),
        413,
        /larger than 16384 bytes/,
      ],
      [await app.inject({ method: "POST", url: "/v1/check" }), 400, /^body is required/],
    ] as const;
    for (const [r, status, detail] of bad) {
      expect(r.statusCode).toBe(status);
      expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(r.json().status).toBe(status);
      expect(r.json().detail).toMatch(detail);
    }
    const ok = await post(`\ufeff${JSON.stringify(user("1"))}`, "application/json; charset=utf-8");
    expect(ok.statusCode).toBe(200);
    expect(engine.stats.checks).toBe(1);
  });

  it("answers a content-coded body 415 naming Content-Encoding, with Accept-Encoding: identity", async () => {
    const { app, engine, metric } = setup();
    const json = JSON.stringify(user("1"));
    const post = (payload: string | Buffer, coding: string) =>
      app.inject({
        method: "POST",
        url: "/v1/check",
        payload,
        headers: { "content-type": "application/json", "content-encoding": coding },
      });
    for (const [payload, coding] of [
      [gzipSync(json), "gzip"],
      [gzipSync(json), "GZIP"],
      [json, "br"],
      [gzipSync(json), "identity, gzip"],
    ] as const) {
      const r = await post(payload, coding);
      expect(r.statusCode, coding).toBe(415);
      expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(r.headers["accept-encoding"]).toBe("identity");
      expect(r.json()).toMatchObject({ status: 415, title: "Unsupported Media Type" });
      expect(r.json().detail).toBe(
        `content-encoding header must be identity or absent (the body is read as sent, not decoded), got ${JSON.stringify(coding)}`,
      );
    }
    expect(engine.stats.checks).toBe(0);
    expect(await metric('sluice_requests_total{api="http_check",code="invalid"}')).toBe(4);
    // identity leaves the body as it is.
    for (const coding of ["identity", "Identity, ", ""]) {
      expect((await post(json, coding)).statusCode, coding).toBe(200);
    }
    expect(engine.stats.checks).toBe(3);
  });

  it("takes the idempotency key from the header or the body, and refuses two different ones", async () => {
    const { check, engine } = setup();
    const a = await check(user("1"), { "x-idempotency-key": "k1" });
    const b = await check(user("1"), { "x-idempotency-key": "k1" });
    expect(b.json()).toMatchObject({ replayed: true, remaining: a.json().remaining });
    const c = await check({ ...user("1"), idempotency_key: "k1" }, { "x-idempotency-key": "k1" });
    expect(c.json().replayed).toBe(true);
    const d = await check({ ...user("1"), idempotency_key: "k2" }, { "x-idempotency-key": "k1" });
    expect(d.statusCode).toBe(400);
    expect(d.json()["invalid-params"][0].name).toBe("idempotency_key");
    expect(engine.stats.replayed).toBe(2);
  });

  it("gives a replayed answer the headers of its body: t counts down from the first check as retry_after does", async () => {
    const { check, clock } = setup({ legacyHeaders: true }, {}, EDGE_CASES);
    await check(user("r"));
    clock.advance(10_000);
    const first = await check(user("r"), { "x-idempotency-key": "k" });
    expect(first.json()).toMatchObject({ allowed: false, retry_after: 30 });
    expect(first.headers.ratelimit).toBe('"per-minute";r=0;t=30');
    clock.advance(4_000);
    const replay = await check(user("r"), { "x-idempotency-key": "k" });
    const body = replay.json();
    expect(body).toMatchObject({ replayed: true, allowed: false, retry_after: 26 });
    expect(replay.headers.ratelimit).toBe(`"per-minute";r=0;t=${body.retry_after}`);
    expect(replay.headers["x-ratelimit-reset"]).toBe(String(body.retry_after));
  });

  it("answers a fail_closed denial 200 with its reason and no made-up quota, counted as fail_closed", async () => {
    const { check, metric } = setup({ legacyHeaders: true }, { store: failingStore() }, EDGE_CASES);
    const r = await check({ identifier: "192.0.2.1", dimension: "ip" });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ allowed: false, reason: "fail_closed", current_count: 0, remaining: 0 });
    expect(body.retry_after).toBeGreaterThanOrEqual(1);
    for (const h of [
      "ratelimit-policy",
      "ratelimit",
      "x-ratelimit-limit",
      "ratelimit-state",
      "retry-after",
    ]) {
      expect(r.headers[h]).toBeUndefined();
    }
    expect(await metric('sluice_requests_total{api="http_check",code="fail_closed"}')).toBe(1);
    expect(await metric('sluice_requests_total{api="http_check",code="over_limit"}')).toBeUndefined();
    expect(
      await metric('sluice_failure_policy_decisions_total{domain="api",rule="closed",policy="fail_closed"}'),
    ).toBe(1);
  });

  it("answers a fail_open allowance with its reason, no remaining nobody counted and no RateLimit fields", async () => {
    const { check, metric } = setup({ legacyHeaders: true }, { store: failingStore() }, FAIL_OPEN);
    const r = await check(user("ann"));
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({
      allowed: true,
      reason: "fail_open",
      limit: 50,
      remaining: 0,
      current_count: 0,
      reset_at: 0,
    });
    expect(body.policies).toMatchObject([{ name: "per-hour", allowed: true, limit: 50, remaining: 0 }]);
    expect(body.descriptors).toMatchObject([{ code: "OK", rule_id: "per-user", limit: 50, remaining: 0 }]);
    for (const h of RATE_LIMIT_FIELDS) expect(r.headers[h], h).toBeUndefined();
    expect(await metric('sluice_requests_total{api="http_check",code="ok"}')).toBe(1);
    expect(
      await metric('sluice_failure_policy_decisions_total{domain="api",rule="per-user",policy="fail_open"}'),
    ).toBe(1);
  });

  it("answers 503 at once when the gate is full, and releases its slot after each request", async () => {
    const { check, ctx, metric } = setup({}, { maxInflight: 1 });
    expect((await check(user("1"))).statusCode).toBe(200);
    expect(ctx.gate.inflight).toBe(0);
    ctx.gate.tryEnter();
    const r = await check(user("2"));
    expect(r.statusCode).toBe(503);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.json()).toMatchObject({ status: 503, title: "Service Unavailable" });
    expect(await metric('sluice_requests_total{api="http_check",code="overloaded"}')).toBe(1);
    ctx.gate.leave();
    expect((await check(user("2"))).statusCode).toBe(200);
  });

  it("refuses work during the drain with a 503 saying the service is going away, counted as unavailable", async () => {
    const { check, auth, ctx, metric } = setup();
    expect(await ctx.gate.drain(0)).toBe(true);
    for (const r of [await check(user("1")), await auth({ "x-user-id": "u" })]) {
      expect(r.statusCode).toBe(503);
      expect(r.headers["retry-after"]).toBe("1");
      expect(r.json()).toEqual({
        type: "about:blank",
        title: "Service Unavailable",
        status: 503,
        detail: "The service is shutting down; retry on another instance.",
      });
    }
    expect(await metric('sluice_requests_total{api="http_check",code="unavailable"}')).toBe(1);
    expect(await metric('sluice_requests_total{api="http_auth",code="unavailable"}')).toBe(1);
    expect(await metric('sluice_requests_total{api="http_check",code="overloaded"}')).toBeUndefined();
  });

  it("answers 503 when the store is unavailable and 500 (logged) for anything unexpected", async () => {
    let fail: Error = new StoreUnavailableError("redis", "connection refused");
    const { check, ctx, metric } = setup(
      {},
      {
        engine: (real: Engine) =>
          new Proxy(real, {
            get(target, key) {
              // The memory store's engine is called synchronously: both paths fail alike.
              if (key === "check") return () => Promise.reject(fail);
              if (key === "checkSync")
                return () => {
                  throw fail;
                };
              const v: unknown = Reflect.get(target, key, target);
              return typeof v === "function" ? v.bind(target) : v;
            },
          }),
      },
    );
    const lines: string[] = [];
    (ctx as { log: unknown }).log = pino({ level: "error" }, { write: (s: string) => void lines.push(s) });
    const unavailable = await check(user("1"));
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.json().detail).toMatch(/store is unavailable/);
    expect(await metric('sluice_requests_total{api="http_check",code="unavailable"}')).toBe(1);
    fail = new TypeError("secret internals");
    const boom = await check(user("1"));
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain("secret");
    expect(lines.join("")).toContain("secret internals");
    expect(await metric('sluice_requests_total{api="http_check",code="error"}')).toBe(1);
  });

  it("answers 405 with Allow for other methods", async () => {
    const { app } = setup();
    for (const method of ["GET", "PUT", "DELETE", "PATCH"] as const) {
      const r = await app.inject({ method, url: "/v1/check" });
      expect(r.statusCode).toBe(405);
      expect(r.headers.allow).toBe("POST");
      expect(r.json().status).toBe(405);
    }
  });
});

describe("/v1/auth (forward-auth)", () => {
  it("allows with 200, an empty body and the RateLimit headers; denies with 429, Retry-After and a problem", async () => {
    const { auth, metric } = setup();
    const h = { "x-forwarded-for": "6.6.6.6, 192.0.2.1" };
    const ok = await auth(h);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe("");
    expect(ok.headers["ratelimit-policy"]).toBe('"per-second";q=2;w=1');
    expect(ok.headers.ratelimit).toBe('"per-second";r=1;t=1');
    expect((await auth(h, "HEAD")).statusCode).toBe(200);
    const denied = await auth(h, "POST");
    expect(denied.statusCode).toBe(429);
    expect(denied.headers["retry-after"]).toBe("1");
    expect(denied.headers["ratelimit-state"]).toBe("throttled");
    expect(denied.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(denied.json()).toMatchObject({
      type: QUOTA_EXCEEDED_TYPE,
      status: 429,
      "violated-policies": ["per-second"],
      "retry-after": 1,
    });
    // Another client behind the same proxy has its own counter.
    expect((await auth({ "x-forwarded-for": "6.6.6.6, 192.0.2.2" })).statusCode).toBe(200);
    expect(await metric('sluice_requests_total{api="http_auth",code="over_limit"}')).toBe(1);
    expect(await metric('sluice_decisions_total{domain="edge",rule="per-ip",outcome="denied"}')).toBe(1);
  });

  it("never advertises a shadow rule, under its limit or over it", async () => {
    const { auth, metric } = setup({ legacyHeaders: true }, {}, EDGE_CASES);
    const h = { "x-real-ip": "192.0.2.7", "x-user-id": "bob" };
    for (let i = 0; i < 4; i++) {
      const r = await auth(h);
      expect(r.statusCode).toBe(200);
      expect(r.headers["ratelimit-policy"]).toBe('"per-minute";q=100;w=60');
      expect(r.headers.ratelimit).toMatch(new RegExp(`^"per-minute";r=${99 - i};t=\\d+$`));
      expect(r.headers["x-ratelimit-remaining"]).toBe(String(99 - i));
      expect(r.headers["ratelimit-state"]).toBe("normal");
    }
    // Operators still see it: the shadow rule's would-be denials are in the metrics.
    expect(await metric('sluice_decisions_total{domain="edge",rule="trial",outcome="allowed"}')).toBe(2);
    expect(await metric('sluice_decisions_total{domain="edge",rule="trial",outcome="shadow_denied"}')).toBe(
      2,
    );
  });

  it("answers a fail_closed denial 503 temporary-reduced-capacity with Retry-After, counted as fail_closed", async () => {
    for (const denyStatus of [429, 403] as const) {
      const { auth, metric } = setup(
        { legacyHeaders: true, forwardAuth: { domain: "edge", denyStatus } },
        { store: failingStore() },
        EDGE_CASES,
      );
      const r = await auth({ "x-real-ip": "192.0.2.8" });
      expect(r.statusCode).toBe(503);
      expect(r.headers["content-type"]).toMatch(/^application\/problem\+json/);
      const problem = r.json();
      expect(problem).toMatchObject({
        type: REDUCED_CAPACITY_TYPE,
        title: "Request cannot be satisfied due to temporary server capacity constraints",
        status: 503,
        "violated-policies": ["per-minute"],
      });
      expect(problem.detail).toMatch(
        /store is unavailable and policy per-minute fails closed; retry in \d+ s/,
      );
      expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(r.headers["retry-after"]).toBe(String(problem["retry-after"]));
      for (const h of [
        "ratelimit-policy",
        "ratelimit",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "ratelimit-state",
      ]) {
        expect(r.headers[h]).toBeUndefined();
      }
      expect(await metric('sluice_requests_total{api="http_auth",code="fail_closed"}')).toBe(1);
      expect(await metric('sluice_requests_total{api="http_auth",code="over_limit"}')).toBeUndefined();
    }
  });

  it("answers a fail_open allowance 200 without RateLimit fields: its remaining was never counted", async () => {
    const { auth, metric } = setup({ legacyHeaders: true }, { store: failingStore() }, FAIL_OPEN);
    const r = await auth({ "x-real-ip": "192.0.2.7" });
    expect(r.statusCode).toBe(200);
    for (const h of RATE_LIMIT_FIELDS) expect(r.headers[h], h).toBeUndefined();
    expect(await metric('sluice_requests_total{api="http_auth",code="ok"}')).toBe(1);
  });

  it("answers 429 quota-exceeded when a quota denies beside a fail_closed policy, naming the quota only", async () => {
    const { auth, metric } = setup({ legacyHeaders: true }, { store: failingStore() }, EDGE_CASES);
    const user = { "x-user-id": "ann", "x-forwarded-uri": "/orders" };
    // No client address: only the user's endpoint limit applies (the fallback's in-process counter takes it).
    expect((await auth(user)).statusCode).toBe(200);
    const r = await auth({ ...user, "x-real-ip": "192.0.2.9" });
    expect(r.statusCode).toBe(429);
    expect(r.json()).toMatchObject({ type: QUOTA_EXCEEDED_TYPE, "violated-policies": ["per-endpoint"] });
    expect(r.headers["ratelimit-policy"]).toBe('"per-endpoint";q=1;w=60');
    expect(r.headers["ratelimit-state"]).toBe("throttled");
    expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(
      Number(/t=(\d+)/.exec(r.headers.ratelimit as string)?.[1]),
    );
    expect(await metric('sluice_requests_total{api="http_auth",code="over_limit"}')).toBe(1);
    expect(await metric('sluice_requests_total{api="http_auth",code="fail_closed"}')).toBeUndefined();
  });

  it("denies with 403 when configured (nginx auth_request)", async () => {
    const { auth } = setup({ forwardAuth: { domain: "edge", denyStatus: 403 } });
    const h = { "x-real-ip": "192.0.2.9" };
    await auth(h);
    await auth(h);
    const r = await auth(h);
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ status: 403, type: QUOTA_EXCEEDED_TYPE });
  });

  it("honours trusted proxy hops and the address header", async () => {
    const { auth, engine } = setup({
      forwardAuth: { domain: "edge", trustedProxyHops: 1, addressHeader: "" },
    });
    // The client forges X-Real-IP and a left XFF entry; the entry one hop from the right is the real one.
    for (let i = 0; i < 2; i++) {
      expect(
        (await auth({ "x-real-ip": `10.0.0.${i}`, "x-forwarded-for": `9.9.9.${i}, 192.0.2.5, 10.1.1.1` }))
          .statusCode,
      ).toBe(200);
    }
    expect((await auth({ "x-forwarded-for": "192.0.2.5, 10.1.1.1" })).statusCode).toBe(429);
    expect(engine.stats.denied).toBe(1);
  });

  it("counts clients behind a CDN apart with trusted hops, though nginx sets X-Real-IP to the CDN", async () => {
    const { auth } = setup({ forwardAuth: { domain: "edge", trustedProxyHops: 1 } });
    // nginx behind a CDN: X-Real-IP $remote_addr is the CDN, $proxy_add_x_forwarded_for "<client>, <CDN>".
    const via = (client: string) => ({
      "x-real-ip": "198.51.100.7",
      "x-forwarded-for": `${client}, 198.51.100.7`,
    });
    for (let i = 1; i <= 5; i++) expect((await auth(via(`203.0.113.${i}`))).statusCode).toBe(200);
    await auth(via("203.0.113.1"));
    expect((await auth(via("203.0.113.1"))).statusCode).toBe(429);
  });

  it("builds user and user+endpoint descriptors, the query string dropped", async () => {
    const { auth } = setup({ forwardAuth: { domain: "edge", userHeader: "X-User-Id" } });
    const h = { "x-user-id": "42", "x-forwarded-uri": "/orders/7?page=2#top" };
    const ok = await auth(h);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["ratelimit-policy"]).toBe('"per-minute";q=100;w=60, "orders";q=1;w=60');
    const denied = await auth({ "x-user-id": "42", "x-forwarded-uri": "/orders/8?x" });
    expect(denied.statusCode).toBe(429);
    expect(denied.json()["violated-policies"]).toEqual(["orders"]);
    expect((await auth({ "x-user-id": "42", "x-forwarded-uri": "/profile" })).statusCode).toBe(200);
  });

  it("counts a percent-encoded non-ASCII path as its raw UTF-8 spelling: one endpoint counter", async () => {
    const yaml = `
version: 1
rules:
  - id: cafe
    domain: edge
    match: [{ key: user }, { key: endpoint, path: "/menu/café/*" }]
    limits: [{ name: cafe, algorithm: fixed_window, limit: 2, period: 1h }]
`;
    const { auth } = setup({ forwardAuth: { domain: "edge", descriptors: ["user,endpoint"] } }, {}, yaml);
    // Node reads the header's bytes as latin1: the raw spelling arrives as its UTF-8 bytes, one character each.
    const raw = Buffer.from("/menu/café/1", "utf8").toString("latin1");
    const statuses: number[] = [];
    for (const uri of [raw, "/menu/caf%C3%A9/1", "/menu/caf%c3%a9/1"]) {
      const r = await auth({ "x-user-id": "a", "x-forwarded-uri": uri });
      expect(r.headers["ratelimit-policy"], uri).toBe('"cafe";q=2;w=3600');
      statuses.push(r.statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    // An encoded slash is no slash, encoded or not beside UTF-8: no rule matches it.
    const slash = await auth({ "x-user-id": "b", "x-forwarded-uri": "/menu/caf%C3%A9%2F1" });
    expect(slash.statusCode).toBe(200);
    expect(slash.headers["ratelimit-policy"]).toBeUndefined();
  });

  it("supports method and header:<name> attributes in templates given as strings", async () => {
    const { auth } = setup({ forwardAuth: { domain: "methods", descriptors: ["method, header:X-Api-Key"] } });
    const h = { "x-forwarded-method": "post", "x-api-key": "k" };
    expect((await auth(h)).statusCode).toBe(200);
    expect((await auth({ "x-forwarded-method": "POST", "x-api-key": "k" })).statusCode).toBe(429);
    expect((await auth({ "x-forwarded-method": "GET", "x-api-key": "k" })).statusCode).toBe(200);
  });

  it("warns once when subrequests carry the other header family: a proxy set up for it", async () => {
    const { auth, ctx } = setup({ forwardAuth: { domain: "edge" } });
    const lines: string[] = [];
    (ctx as { log: unknown }).log = pino({ level: "warn" }, { write: (s: string) => void lines.push(s) });
    // Both families (a client adding the other one): nothing to say.
    await auth({ "x-user-id": "1", "x-forwarded-uri": "/a", "x-original-uri": "/b" });
    expect(lines).toEqual([]);
    const r = await auth({ "x-user-id": "1", "x-original-uri": "/orders/1" });
    expect(r.headers["ratelimit-policy"]).toBe('"per-minute";q=100;w=60'); // no endpoint: the user's limit only
    await auth({ "x-user-id": "1", "x-original-uri": "/orders/2" });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 40,
      read: "x-forwarded-uri",
      sent: "x-original-uri",
      msg: expect.stringMatching(
        /^forward-auth reads x-forwarded-uri \(--auth-headers x-forwarded\), but a subrequest came with x-original-uri instead/,
      ),
    });
  });

  it("reads the URI and method from the configured header family only: the other one, sent by a client, changes nothing", async () => {
    // nginx's auth_request passes every client header on: with X-Original-* set by nginx, a client's own
    // X-Forwarded-Uri / X-Forwarded-Method must not pick what it is counted under (nor the reverse).
    for (const [headers, set, spoof] of [
      ["x-original", "x-original", "x-forwarded"],
      ["x-forwarded", "x-forwarded", "x-original"],
    ] as const) {
      const { auth } = setup({ forwardAuth: { domain: "edge", headers } });
      const orders = { "x-user-id": "7", [`${set}-uri`]: "/orders/1" };
      expect((await auth(orders)).statusCode, headers).toBe(200);
      const r = await auth({ ...orders, [`${spoof}-uri`]: "/profile" });
      expect(r.statusCode, headers).toBe(429);
      expect(r.json()["violated-policies"]).toEqual(["orders"]);
      const m = setup({
        forwardAuth: { domain: "methods", headers, descriptors: ["method,header:x-api-key"] },
      });
      const del = { "x-api-key": "k", [`${set}-method`]: "DELETE" };
      expect((await m.auth(del)).statusCode, headers).toBe(200);
      expect((await m.auth({ ...del, [`${spoof}-method`]: "GET" })).statusCode, headers).toBe(429);
    }
    expect(() =>
      setup({ forwardAuth: { domain: "edge", headers: "x-both" as unknown as "x-original" } }),
    ).toThrow(/^forwardAuth\.headers must be x-forwarded or x-original, got "x-both"$/);
  });

  it("answers a request shaped by a delay rule after its delay", async () => {
    const yaml = `${CONFIG}
  - id: shaped
    domain: shaped
    match: [{ key: remote_address }]
    behaviour: delay
    maxDelay: 2s
    limits: [{ name: per-second, algorithm: gcra, limit: 1, period: 1s, burst: 1 }]
`;
    const t = testServiceContext(yaml);
    const app = createHttpServer(t.ctx, {
      defaultDomain: undefined,
      readiness: READY,
      forwardAuth: { domain: "shaped" },
    });
    apps.push(app);
    const h = { "x-real-ip": "192.0.2.1" };
    expect((await app.inject({ url: "/v1/auth", headers: h })).statusCode).toBe(200);
    let answered = false;
    const second = app.inject({ url: "/v1/auth", headers: h }).then((r) => {
      answered = true;
      return r;
    });
    while (t.clock.pendingSleeps === 0) await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    t.clock.advance(1000);
    expect((await second).statusCode).toBe(200);
    expect(t.ctx.gate.inflight).toBe(0);
    expect(t.ctx.gate.waiting).toBe(0);
  });

  /** A service whose forward-auth domain `shaped` delays each address to 1 request/s, waiting up to 10 s. */
  function shapedSetup(ctxOptions: Parameters<typeof testServiceContext>[1]) {
    const yaml = `${CONFIG}
  - id: shaped
    domain: shaped
    match: [{ key: remote_address }]
    behaviour: delay
    maxDelay: 10s
    limits: [{ name: per-second, algorithm: gcra, limit: 1, period: 1s, burst: 1 }]
`;
    const t = testServiceContext(yaml, ctxOptions);
    const app = createHttpServer(t.ctx, {
      defaultDomain: undefined,
      readiness: READY,
      forwardAuth: { domain: "shaped" },
    });
    apps.push(app);
    const from = (ip: string) => app.inject({ url: "/v1/auth", headers: { "x-real-ip": ip } });
    /** Lets pending requests run until `n` waits are scheduled on the clock. */
    const waits = async (n: number) => {
      while (t.clock.pendingSleeps < n) await new Promise((r) => setImmediate(r));
    };
    return { ...t, app, from, waits };
  }

  it("waits out a delay outside the in-flight cap: delayed keys cannot get other clients refused 503", async () => {
    const { ctx, clock, from, waits } = shapedSetup({ maxInflight: 2 });
    expect((await from("192.0.2.1")).statusCode).toBe(200);
    // Two more from the same address are over its rate: each waits (1 s, 2 s) for its slot.
    const delayed = [from("192.0.2.1"), from("192.0.2.1")];
    await waits(2);
    expect([ctx.gate.inflight, ctx.gate.waiting]).toEqual([0, 2]);
    // The cap of 2 in flight is free for work: another client is answered at once, not refused 503.
    const other = await from("192.0.2.2");
    expect(other.statusCode).toBe(200);
    clock.advance(2000);
    expect((await Promise.all(delayed)).map((r) => r.statusCode)).toEqual([200, 200]);
    expect([ctx.gate.inflight, ctx.gate.waiting]).toEqual([0, 0]);
  });

  it("denies a delayed request at once when the waiting pool is full (429, Retry-After its delay)", async () => {
    const { ctx, clock, app, from, waits } = shapedSetup({ maxWaiting: 1 });
    expect((await from("192.0.2.1")).statusCode).toBe(200);
    const waiting = from("192.0.2.1");
    await waits(1);
    expect(ctx.gate.waiting).toBe(1);
    // The next one would wait 2 s: no room to wait, so it is denied now, as over its rate.
    const refused = await from("192.0.2.1");
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("2");
    expect(refused.headers["ratelimit-state"]).toBe("throttled");
    expect(refused.headers["ratelimit-policy"]).toBe('"per-second";q=1;w=1');
    expect(refused.json()).toMatchObject({
      type: QUOTA_EXCEEDED_TYPE,
      status: 429,
      "violated-policies": ["per-second"],
      "retry-after": 2,
    });
    expect(refused.json().detail).toMatch(/most waiting requests \(1\)/);
    const body = (await app.inject({ url: "/metrics" })).body;
    expect(body).toContain('sluice_requests_total{api="http_auth",code="over_limit"} 1');
    expect(body).toContain("sluice_delayed_requests 1");
    // An address under its rate is not delayed, so it needs no room to wait.
    expect((await from("192.0.2.9")).statusCode).toBe(200);
    clock.advance(1000);
    expect((await waiting).statusCode).toBe(200);
    expect([ctx.gate.inflight, ctx.gate.waiting]).toEqual([0, 0]);
  });

  it("refunds a delayed request the full waiting pool refuses: it counts as denied, and its t and Retry-After agree", async () => {
    const { ctx, clock, app, from, waits } = shapedSetup({ maxWaiting: 1 });
    const metrics = async () => (await app.inject({ url: "/metrics" })).body;
    expect((await from("192.0.2.1")).statusCode).toBe(200);
    const waiting = from("192.0.2.1"); // waits 1 s, in the pool's one slot
    await waits(1);
    // Each refusal consumes nothing: every one would have waited 2 s, as the first (not 2, 3, 4 s).
    for (let i = 0; i < 3; i++) {
      const refused = await from("192.0.2.1");
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("2");
      expect(refused.headers.ratelimit).toBe('"per-second";r=0;t=2');
      expect(refused.json()["retry-after"]).toBe(2);
    }
    clock.advance(1000);
    expect((await waiting).statusCode).toBe(200);
    // The next one waits 1 s, as if the refused ones had never come (with them counted: 4 s).
    let answered = false;
    const next = from("192.0.2.1").then((r) => {
      answered = true;
      return r;
    });
    await waits(1);
    clock.advance(1000);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(true);
    expect((await next).statusCode).toBe(200);
    const body = await metrics();
    expect(body).toContain('sluice_decisions_total{domain="shaped",rule="shaped",outcome="allowed"} 3');
    expect(body).toContain('sluice_decisions_total{domain="shaped",rule="shaped",outcome="denied"} 3');
    expect(body).toContain('sluice_requests_total{api="http_auth",code="over_limit"} 3');
    // The engine's stats agree: the three refused were refunded, not allowed (nor delayed).
    expect(ctx.engine.stats).toMatchObject({ checks: 6, allowed: 3, denied: 0, delayed: 2, refunded: 3 });
    expect([ctx.gate.inflight, ctx.gate.waiting]).toEqual([0, 0]);
  });

  it("sends a delayed 200 with the RateLimit fields left after its wait", async () => {
    const { clock, from, waits } = shapedSetup({});
    expect((await from("192.0.2.1")).headers.ratelimit).toBe('"per-second";r=0;t=1');
    // Decided with 2 s to full (t=2); answered 1 s later, with 1 s left.
    const delayed = from("192.0.2.1");
    await waits(1);
    clock.advance(1000);
    const r = await delayed;
    expect(r.statusCode).toBe(200);
    expect(r.headers.ratelimit).toBe('"per-second";r=0;t=1');
    expect(r.headers["ratelimit-policy"]).toBe('"per-second";q=1;w=1');
  });

  it("gives a delayed request up when its client leaves: the waiting slot at once, its units refunded, recorded as cancelled", async () => {
    const { ctx, clock, app, from, waits } = shapedSetup({ maxWaiting: 1 });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const metric = async (line: string) =>
      (await app.inject({ url: "/metrics" })).body.split("\n").find((l) => l.startsWith(`${line} `));
    expect((await from("192.0.2.1")).statusCode).toBe(200);
    // The second waits 1 s (time stands still here); its client gives up meanwhile.
    const gone = new AbortController();
    const abandoned = request(`http://127.0.0.1:${port}/v1/auth`, {
      headers: { "x-real-ip": "192.0.2.1" },
      signal: gone.signal,
    }).catch((e: unknown) => e);
    await waits(1);
    expect(ctx.gate.waiting).toBe(1);
    gone.abort();
    expect(await abandoned).toMatchObject({ name: "AbortError" });
    for (let i = 0; i < 200 && ctx.gate.waiting > 0; i++) await new Promise((r) => setTimeout(r, 5));
    // The slot is free for another client before the delay has passed, and no timer is left behind.
    expect([ctx.gate.inflight, ctx.gate.waiting]).toEqual([0, 0]);
    expect(clock.pendingSleeps).toBe(0);
    // Its reservation was given back: the next request waits 1 s, not 2.
    let answered = false;
    const next = from("192.0.2.1").then((r) => {
      answered = true;
      return r;
    });
    await waits(1);
    clock.advance(1000);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(true);
    expect((await next).statusCode).toBe(200);
    expect(await metric('sluice_requests_total{api="http_auth",code="cancelled"}')).toMatch(/ 1$/);
    expect(await metric('sluice_requests_total{api="http_auth",code="ok"}')).toMatch(/ 2$/);
    // Only the answers sent count as decisions.
    expect(await metric('sluice_decisions_total{domain="shaped",rule="shaped",outcome="allowed"}')).toMatch(
      / 2$/,
    );
    // So do the engine's stats: the abandoned one was refunded, not allowed (nor delayed).
    expect(ctx.engine.stats).toMatchObject({ checks: 3, allowed: 2, denied: 0, delayed: 1, refunded: 1 });
  });

  it("allows without a check when no template has all its attributes", async () => {
    const { auth, engine } = setup();
    const r = await auth({ "x-forwarded-for": "not-an-address" });
    expect(r.statusCode).toBe(200);
    expect(r.headers["ratelimit-policy"]).toBeUndefined();
    expect(engine.stats.checks).toBe(0);
  });

  it("refuses an over-long attribute with 400 naming its header", async () => {
    const { auth, engine } = setup();
    const r = await auth({ "x-user-id": "u", "x-forwarded-uri": `/${"a".repeat(2000)}` });
    expect(r.statusCode).toBe(400);
    expect(r.json().detail).toMatch(/^x-forwarded-uri header must be at most 1024 characters/);
    expect(engine.stats.checks).toBe(0);
  });

  it("ignores request bodies of any type", async () => {
    const { app } = setup();
    const r = await app.inject({
      method: "POST",
      url: "/v1/auth",
      payload: "\u0000\u00ff garbage",
      headers: { "content-type": "application/json", "x-real-ip": "192.0.2.1" },
    });
    expect(r.statusCode).toBe(200);
  });

  it("uses the default domain, else the edge domain, and validates its options", () => {
    expect(DEFAULT_FORWARD_AUTH_DOMAIN).toBe("edge");
    expect(forwardAuthDomainOf({ defaultDomain: undefined })).toBe("edge");
    expect(forwardAuthDomainOf({ defaultDomain: "api" })).toBe("api");
    expect(forwardAuthDomainOf({ defaultDomain: "api", forwardAuth: { domain: "web" } })).toBe("web");
    expect(forwardAuthDomainOf({ defaultDomain: "api", forwardAuth: { domain: "" } })).toBe("edge");
    const t = testServiceContext(CONFIG);
    expect(() =>
      createHttpServer(t.ctx, {
        defaultDomain: undefined,
        readiness: READY,
        forwardAuth: { descriptors: ["user,bogus"] },
      }),
    ).toThrow(/^forwardAuth\.descriptors\[0\] names "bogus"/);
    expect(() =>
      createHttpServer(t.ctx, {
        defaultDomain: undefined,
        readiness: READY,
        forwardAuth: { trustedProxyHops: -1 },
      }),
    ).toThrow(/^forwardAuth\.trustedProxyHops must be/);
  });

  it("limits forward-auth traffic on examples/sluice.yaml out of the box", async () => {
    const yaml = readFileSync(new URL("../../../examples/sluice.yaml", import.meta.url), "utf8");
    const t = testServiceContext(yaml);
    const app = createHttpServer(t.ctx, { defaultDomain: undefined, readiness: READY });
    apps.push(app);
    const banned = await app.inject({ url: "/v1/auth", headers: { "x-real-ip": "203.0.113.9" } });
    expect(banned.statusCode).toBe(429);
    expect(banned.json()["violated-policies"]).toEqual(["edge-banned-address"]);
    const ok = await app.inject({ url: "/v1/auth", headers: { "x-real-ip": "198.51.100.1" } });
    expect(ok.statusCode).toBe(200);
    // edge-internal-network has a per-second too.
    expect(ok.headers["ratelimit-policy"]).toBe('"edge-per-ip/per-second";q=50;w=1');
  });
});

describe("operational routes", () => {
  it("answers /healthz, /readyz (200 or 503 with each check) and /metrics", async () => {
    let ready: Readiness = {
      ready: true,
      checks: { store: { ok: true }, config: { ok: true, detail: "version 1" } },
    };
    let fail = false;
    const { app } = setup({
      readiness: async () => {
        if (fail) throw new Error("probe crashed");
        return ready;
      },
    });
    const health = await app.inject({ url: "/healthz" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: "ok" });
    expect((await app.inject({ url: "/readyz" })).json()).toEqual({ status: "ready", checks: ready.checks });
    ready = { ready: false, checks: { store: { ok: false, detail: "ECONNREFUSED" }, config: { ok: true } } };
    const notReady = await app.inject({ url: "/readyz" });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ status: "not_ready", checks: ready.checks });
    fail = true;
    const crashed = await app.inject({ url: "/readyz" });
    expect(crashed.statusCode).toBe(503);
    expect(crashed.json().checks.readiness).toEqual({ ok: false, detail: "probe crashed" });
    const metrics = await app.inject({ url: "/metrics" });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers["content-type"]).toMatch(/^text\/plain/);
    expect(metrics.body).toContain("# TYPE sluice_decisions_total counter");
    expect((await app.inject({ method: "POST", url: "/healthz" })).statusCode).toBe(405);
  });

  it("stays up under overload (not gated) and answers 404 and bad URLs with problems", async () => {
    const { app, ctx } = setup({}, { maxInflight: 1 });
    ctx.gate.tryEnter();
    expect((await app.inject({ url: "/healthz" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/metrics" })).statusCode).toBe(200);
    const missing = await app.inject({ url: "/nope" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, title: "Not Found" });
    const badUrl = await app.inject({ url: "/v1/%zz" });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()["invalid-params"][0].name).toBe("url");
  });
});

describe("over a real socket (undici)", () => {
  it("serves checks, forward-auth and malformed HTTP", async () => {
    const { app, clock } = setup();
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}`;
    const r = await request(`${base}/v1/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...user("7"), timestamp: TEST_T0_MS }),
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers.ratelimit).toBe('"per-user/per-second";r=1;t=1');
    expect(await r.body.json()).toMatchObject({ allowed: true, reset_at_ms: TEST_T0_MS + 1000 });
    clock.advance(1000);
    const a = await request(`${base}/v1/auth`, { headers: { "x-real-ip": "192.0.2.1" } });
    expect(a.statusCode).toBe(200);
    await a.body.dump();
    // Malformed HTTP never reaches fastify: answered by the client error handler, then the connection closes.
    const { connect } = await import("node:net");
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(port, "127.0.0.1", () => s.write("GARBAGE / HTTP/9.9\r\n\r\n"));
      let out = "";
      s.on("data", (d) => {
        out += d.toString();
      });
      s.on("end", () => resolve(out));
      s.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ status: 400 });
    // Malformed bytes pipelined behind a request still being answered: no 400 in its place, the connection closes.
    const pipelined = await new Promise<string>((resolve) => {
      const s = connect(port, "127.0.0.1", () =>
        s.write(
          `POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${
            JSON.stringify(user("8")).length
          }\r\n\r\n${JSON.stringify(user("8"))}GARBAGE / HTTP/9.9\r\n\r\n`,
        ),
      );
      let out = "";
      s.on("data", (d) => {
        out += d.toString();
      });
      s.on("close", () => resolve(out));
      s.on("error", () => {});
    });
    expect(pipelined).not.toMatch(/^HTTP\/1\.1 400/);
  });

  it("counts a UTF-8 user of forward-auth as /v1/check counts it: one counter, not a latin1 reading apart", async () => {
    const { app } = setup();
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const checkEdge = async () => {
      const r = await request(`http://127.0.0.1:${port}/v1/check`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domain: "edge", descriptors: [{ entries: [{ key: "user", value: "bøb" }] }] }),
      });
      return ((await r.body.json()) as { remaining: number }).remaining;
    };
    expect(await checkEdge()).toBe(99);
    // The proxy passes the user header's UTF-8 bytes through as they are.
    const { connect } = await import("node:net");
    const head = await new Promise<string>((resolve, reject) => {
      const s = connect(port, "127.0.0.1", () =>
        s.write(
          Buffer.concat([
            Buffer.from("GET /v1/auth HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-User-Id: "),
            Buffer.from("bøb", "utf8"),
            Buffer.from("\r\n\r\n"),
          ]),
        ),
      );
      let out = "";
      s.on("data", (d) => {
        out += d.toString("latin1");
      });
      s.on("end", () => resolve(out));
      s.on("error", reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/\r\nratelimit: "per-minute";r=98;t=\d+\r\n/i);
    expect(await checkEdge()).toBe(97);
  });
  it("reads a UTF-8 X-Idempotency-Key as the same key as the body's idempotency_key", async () => {
    const { app, engine } = setup();
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    // The header's UTF-8 bytes go out as they are (undici refuses non-latin1 header text).
    const post = async (body: object, key?: string) => {
      const json = JSON.stringify(body);
      const head =
        "POST /v1/check HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(json)}\r\n${key === undefined ? "" : `X-Idempotency-Key: ${key}\r\n`}\r\n`;
      const { text } = await rawExchange(port, head + json);
      const raw = Buffer.from(text, "latin1").toString("utf8");
      return {
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1]),
        body: JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)),
      };
    };
    const both = await post({ ...user("idem"), idempotency_key: "clé-1" }, "clé-1");
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ allowed: true, current_count: 1 });
    // Header first, then the retry gives the key in the body: a replay, not a second count.
    const first = await post(user("idem2"), "clé-2");
    const retry = await post({ ...user("idem2"), idempotency_key: "clé-2" });
    expect(first.body).toMatchObject({ current_count: 1 });
    expect(retry.body).toMatchObject({ replayed: true, current_count: 1 });
    expect(engine.stats.replayed).toBe(1);
  });
});

/** What a raw connection got: everything the server sent, and when the server closed it (ms after connecting). */
interface RawExchange {
  readonly text: string;
  readonly closedAfterMs: number | undefined;
}

/**
 * Sends `first` on a new connection, then `drip` every `dripMs` (if given), until the server closes it or `waitMs`
 * passes (then `closedAfterMs` is undefined).
 */
async function rawExchange(
  port: number,
  first: string,
  options: { drip?: string; dripMs?: number; waitMs?: number } = {},
): Promise<RawExchange> {
  const { connect } = await import("node:net");
  const t0 = monotonicClock.nowMs();
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1", () => s.write(first));
    let text = "";
    s.on("data", (d) => {
      text += d.toString("latin1");
    });
    s.on("error", () => {});
    const drip =
      options.drip === undefined
        ? undefined
        : setInterval(() => {
            if (!s.destroyed) s.write(options.drip as string);
          }, options.dripMs ?? 50);
    const giveUp = setTimeout(() => {
      clearInterval(drip);
      s.destroy();
      resolve({ text, closedAfterMs: undefined });
    }, options.waitMs ?? 3000);
    s.on("close", () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ text, closedAfterMs: monotonicClock.nowMs() - t0 });
    });
  });
}

/** The status and the problem body of a raw answer. */
function rawProblem(text: string): { status: number; contentType: string | undefined; problem: unknown } {
  const head = text.slice(0, text.indexOf("\r\n\r\n"));
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]),
    contentType: /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1],
    problem: JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)),
  };
}

describe("request timeout and malformed HTTP (real sockets)", () => {
  const TIMEOUT_MS = 300;
  const listening = async () => {
    const t = setup({ requestTimeoutMs: TIMEOUT_MS });
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    return { ...t, port: (t.app.server.address() as AddressInfo).port };
  };
  const CHECK_HEAD =
    "POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{";

  it("sets the request timeout on headers too, swept at a tenth of it (at most 1 s)", async () => {
    const { app } = await listening();
    expect(app.server.requestTimeout).toBe(TIMEOUT_MS);
    expect(app.server.headersTimeout).toBe(TIMEOUT_MS);
    expect(connectionsCheckingIntervalOf(TIMEOUT_MS)).toBe(30);
    expect(connectionsCheckingIntervalOf(10_000)).toBe(1000);
    expect(connectionsCheckingIntervalOf(60_000)).toBe(1000);
    expect(connectionsCheckingIntervalOf(0)).toBe(30_000);
    const t = testServiceContext(CONFIG);
    expect(() =>
      createHttpServer(t.ctx, { defaultDomain: undefined, readiness: READY, requestTimeoutMs: -1 }),
    ).toThrow(/^requestTimeoutMs must be/);
  });

  it("answers 408 with a problem, within the timeout and a sweep, when headers or a body stall or drip", async () => {
    const { port, ctx, metric } = await listening();
    const cases = await Promise.all([
      rawExchange(port, "GET /v1/auth HTTP/1.1\r\nHost: x\r\n"),
      rawExchange(port, "GET /v1/auth HTTP/1.1\r\nHost: x\r\n", { drip: "X-A: b\r\n" }),
      rawExchange(port, CHECK_HEAD),
      rawExchange(port, CHECK_HEAD, { drip: " " }),
      rawExchange(port, "POST /v1/auth HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"),
    ]);
    for (const [i, c] of cases.entries()) {
      expect(c.closedAfterMs, `case ${i}`).toBeDefined();
      expect(c.closedAfterMs as number, `case ${i}`).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(c.closedAfterMs as number, `case ${i}`).toBeLessThan(TIMEOUT_MS + 1000);
      expect(rawProblem(c.text), `case ${i}`).toEqual({
        status: 408,
        contentType: "application/problem+json",
        problem: {
          type: "about:blank",
          title: "Request Timeout",
          status: 408,
          detail: `The request did not arrive in full within ${TIMEOUT_MS} ms.`,
        },
      });
    }
    // Nothing was checked, and no gate slot is held.
    expect(ctx.gate.inflight).toBe(0);
    expect(await metric('sluice_decisions_total{domain="api",rule="per-user",outcome="allowed"}')).toBe(
      undefined,
    );
  });

  it("answers an HTTP/1.1 request without Host with a 400 problem naming it, then closes", async () => {
    const { port } = await listening();
    const noHost = await rawExchange(port, "GET /healthz HTTP/1.1\r\n\r\n");
    expect(noHost.closedAfterMs).toBeDefined();
    expect(rawProblem(noHost.text)).toMatchObject({
      status: 400,
      contentType: "application/problem+json",
      problem: { status: 400, "invalid-params": [{ name: "host" }] },
    });
    // HTTP/1.0 needs no Host.
    const old = await rawExchange(port, "GET /healthz HTTP/1.0\r\n\r\n");
    expect(old.text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("answers a malformed chunk of a chunked body (its request already handed to fastify) with a 400 problem", async () => {
    const { port } = await listening();
    for (const chunk of ["zz\r\n", "3\r\nabcde\r\n", "3;\x01\r\nabc\r\n"]) {
      const bad = await rawExchange(
        port,
        `POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`,
      );
      expect(bad.closedAfterMs, JSON.stringify(chunk)).toBeDefined();
      expect(rawProblem(bad.text), JSON.stringify(chunk)).toMatchObject({
        status: 400,
        contentType: "application/problem+json",
        problem: { status: 400, detail: "The request is not valid HTTP/1.1." },
      });
    }
  });
});

import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { failingStore } from "../../../test/support/failing-store.js";
import {
  call,
  type GrpcHarness,
  HARNESS_START_MS,
  startGrpcHarness,
  unary,
} from "../../../test/support/grpc-harness.js";
import { heldChecks } from "../../../test/support/grpc-raw.js";
import { currentLimitOf, UINT32_MAX } from "./envoy-rls-service.js";
import type { envoy } from "./gen/protos.js";
import { envoyRls } from "./service-definitions.js";

type Response = envoy.service.ratelimit.v3.RateLimitResponse;
const { Code } = envoyRls.RateLimitResponse;
const { Unit } = envoyRls.RateLimitResponse.RateLimit;

const YAML = `
version: 1
rules:
  - id: per-user
    domain: edge
    match: [{ key: user }]
    limits: [{ name: user-per-hour, algorithm: fixed_window, limit: 3, period: 1h }]
  - id: per-path
    domain: edge
    match: [{ key: path }]
    limits: [{ name: path-per-minute, algorithm: fixed_window, limit: 2, period: 1m }]
  - id: shadow-ip
    domain: edge
    match: [{ key: ip }]
    behaviour: shadow
    limits: [{ name: ip-per-minute, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: vip
    domain: edge
    match: [{ key: vip }]
    unlimited: true
  - id: banned
    domain: edge
    match: [{ key: banned }]
    blocked: true
  - id: per-tenant
    domain: edge
    match: [{ key: tenant }]
    limits: [{ name: tenant-per-10s, algorithm: fixed_window, limit: 100, period: 10s }]
  - id: per-org
    domain: edge
    match: [{ key: org }]
    limits: [{ name: org-per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
`;

/** A protobufjs 64-bit value (Long) or number as a number. */
function num(v: unknown): number {
  return typeof v === "number" ? v : (v as { toNumber(): number }).toNumber();
}

function d(entries: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { entries: Object.entries(entries).map(([key, value]) => ({ key, value })), ...extra };
}

function headersOf(r: Response): Record<string, string> {
  return Object.fromEntries(r.response_headers_to_add.map((h) => [h.key, h.value]));
}

let h: GrpcHarness;
const rls = (req: unknown): Promise<Response> => call<Response>(h.envoy, "ShouldRateLimit", req);

beforeAll(async () => {
  h = await startGrpcHarness({ yaml: YAML });
});
afterAll(async () => {
  await h.close();
});

describe("ShouldRateLimit", () => {
  it("answers one status per descriptor, in request order, with limit, remaining and reset", async () => {
    const r = await rls({
      domain: "edge",
      descriptors: [d({ user: "a" }), d({ path: "/x" }), d({ other: "1" })],
    });
    expect(r.overall_code).toBe(Code.OK);
    expect(r.statuses).toHaveLength(3);
    const [user, path, other] = r.statuses;
    expect(user.code).toBe(Code.OK);
    expect(user.current_limit).toMatchObject({
      name: "user-per-hour",
      requests_per_unit: 3,
      unit: Unit.HOUR,
    });
    expect(user.limit_remaining).toBe(2);
    expect(num(user.duration_until_reset?.seconds)).toBe(3600);
    expect(user.duration_until_reset?.nanos).toBe(0);
    expect(path.current_limit).toMatchObject({
      name: "path-per-minute",
      requests_per_unit: 2,
      unit: Unit.MINUTE,
    });
    expect(path.limit_remaining).toBe(1);
    expect(num(path.duration_until_reset?.seconds)).toBe(60);
    // No rule matched: OK, no limit, 0 remaining (envoyproxy/ratelimit's answer).
    expect(other.code).toBe(Code.OK);
    expect(other.current_limit).toBeNull();
    expect(other.limit_remaining).toBe(0);
    expect(other.duration_until_reset).toBeNull();
    expect(h.metrics.decisions.at(-1)?.domain).toBe("edge");
  });

  it("is OVER_LIMIT overall when one descriptor is over, and counts none of them", async () => {
    const first = await rls({ domain: "edge", descriptors: [d({ user: "b" })], hits_addend: 3 });
    expect(first.statuses[0].limit_remaining).toBe(0);
    const r = await rls({ domain: "edge", descriptors: [d({ path: "/b" }), d({ user: "b" })] });
    expect(r.overall_code).toBe(Code.OVER_LIMIT);
    expect(r.statuses.map((s) => s.code)).toEqual([Code.OK, Code.OVER_LIMIT]);
    expect(r.statuses[1].limit_remaining).toBe(0);
    const headers = headersOf(r);
    expect(headers["Retry-After"]).toBe("3600");
    expect(headers.RateLimit).toContain('"user-per-hour";r=0;t=3600');
    // The denied request took nothing from /b's counter.
    const again = await rls({ domain: "edge", descriptors: [d({ path: "/b" })] });
    expect(again.statuses[0].limit_remaining).toBe(1);
    expect(h.metrics.requests.at(-2)).toMatchObject({ api: "grpc_envoy", outcome: "over_limit" });
  });

  it("answers one descriptor sent twice as separate calls would: the second is OVER_LIMIT when the first takes the last unit", async () => {
    await rls({ domain: "edge", descriptors: [d({ tenant: "twice" })], hits_addend: 99 });
    const r = await rls({ domain: "edge", descriptors: [d({ tenant: "twice" }), d({ tenant: "twice" })] });
    expect(r.overall_code).toBe(Code.OVER_LIMIT);
    expect(r.statuses.map((s) => [s.code, s.limit_remaining])).toEqual([
      [Code.OK, 1],
      [Code.OVER_LIMIT, 0],
    ]);
    // Nothing was counted: the last unit is still there.
    const next = await rls({ domain: "edge", descriptors: [d({ tenant: "twice" })] });
    expect([next.overall_code, next.statuses[0].limit_remaining]).toEqual([Code.OK, 0]);
  });

  it("reports 0 remaining on an OVER_LIMIT status, as envoyproxy/ratelimit, also when a larger cost than what is left was refused", async () => {
    const r = await rls({ domain: "edge", descriptors: [d({ org: "big" })], hits_addend: 101 });
    expect(r.overall_code).toBe(Code.OVER_LIMIT);
    expect(r.statuses[0].code).toBe(Code.OVER_LIMIT);
    expect(r.statuses[0].limit_remaining).toBe(0);
    // Nothing was counted: 100 are still left.
    const next = await rls({ domain: "edge", descriptors: [d({ org: "big" })] });
    expect(next.statuses[0].limit_remaining).toBe(99);
  });

  it("lets a descriptor's hits_addend override the request's, 0 checking without counting", async () => {
    const r = await rls({
      domain: "edge",
      hits_addend: 2,
      descriptors: [
        d({ user: "c" }, { hits_addend: { value: 0 } }),
        d({ org: "c" }),
        d({ path: "/c" }, { hits_addend: { value: 1 } }),
      ],
    });
    expect(r.overall_code).toBe(Code.OK);
    expect(r.statuses.map((s) => s.limit_remaining)).toEqual([3, 98, 1]);
    const after = await rls({ domain: "edge", descriptors: [d({ user: "c" })], hits_addend: 0 });
    expect(after.statuses[0].limit_remaining).toBe(2); // the 0 above counted nothing; hits 0 means 1
  });

  it("reads request hits_addend 0 (or unset) as 1", async () => {
    const zero = await rls({ domain: "edge", descriptors: [d({ org: "z" })], hits_addend: 0 });
    expect(zero.statuses[0].limit_remaining).toBe(99);
    const unset = await rls({ domain: "edge", descriptors: [d({ org: "z" })] });
    expect(unset.statuses[0].limit_remaining).toBe(98);
  });

  it("honours a descriptor's limit override", async () => {
    const limit = { requests_per_unit: 1, unit: 1 }; // envoy.type.v3.RateLimitUnit.SECOND
    const first = await rls({ domain: "edge", descriptors: [d({ user: "o" }, { limit })] });
    expect(first.overall_code).toBe(Code.OK);
    expect(first.statuses[0].current_limit).toMatchObject({ requests_per_unit: 1, unit: Unit.SECOND });
    expect(first.statuses[0].limit_remaining).toBe(0);
    const second = await rls({ domain: "edge", descriptors: [d({ user: "o" }, { limit })] });
    expect(second.overall_code).toBe(Code.OVER_LIMIT);
    const week = await rls({
      domain: "edge",
      descriptors: [d({ user: "w" }, { limit: { requests_per_unit: 5, unit: 7 } })],
    });
    expect(week.statuses[0].current_limit).toMatchObject({ requests_per_unit: 5, unit: Unit.WEEK });
    expect(week.statuses[0].limit_remaining).toBe(4);
  });

  it("answers shadow rules OK, even over their limit", async () => {
    await rls({ domain: "edge", descriptors: [d({ ip: "10.0.0.1" })] });
    const r = await rls({ domain: "edge", descriptors: [d({ ip: "10.0.0.1" })] });
    expect(r.overall_code).toBe(Code.OK);
    expect(r.statuses[0].code).toBe(Code.OK);
    expect(r.statuses[0].limit_remaining).toBe(0);
  });

  it("answers an unknown domain OK for every descriptor, without headers", async () => {
    const r = await rls({ domain: "no-such-domain", descriptors: [d({ user: "a" }), d({ path: "/x" })] });
    expect(r.overall_code).toBe(Code.OK);
    expect(r.statuses.map((s) => [s.code, s.current_limit, s.limit_remaining])).toEqual([
      [Code.OK, null, 0],
      [Code.OK, null, 0],
    ]);
    expect(r.response_headers_to_add).toEqual([]);
  });

  it("answers unlimited with MaxUint32 remaining and blocked rules OVER_LIMIT with 0 per unit", async () => {
    const vip = await rls({ domain: "edge", descriptors: [d({ vip: "1" })] });
    expect(vip.statuses[0]).toMatchObject({
      code: Code.OK,
      current_limit: null,
      limit_remaining: UINT32_MAX,
    });
    const banned = await rls({ domain: "edge", descriptors: [d({ banned: "1" }), d({ tenant: "banned" })] });
    expect(banned.overall_code).toBe(Code.OVER_LIMIT);
    expect(banned.statuses[0].code).toBe(Code.OVER_LIMIT);
    expect(banned.statuses[0].current_limit?.requests_per_unit).toBe(0);
    // The other descriptor was not evaluated: its limit is reported, nothing counted.
    expect(banned.statuses[1].code).toBe(Code.OK);
    expect(banned.statuses[1].current_limit?.name).toBe("tenant-per-10s");
    // 95 of its 100 still pass, leaving 5: the request above counted nothing.
    const tenant = await rls({ domain: "edge", descriptors: [d({ tenant: "banned" })], hits_addend: 95 });
    expect([tenant.overall_code, tenant.statuses[0].limit_remaining]).toEqual([Code.OK, 5]);
  });

  it("rescales a period that is not one unit (100 per 10 s → 10 per SECOND), remaining never above it", async () => {
    const r = await rls({ domain: "edge", descriptors: [d({ tenant: "scale" })] });
    expect(r.statuses[0].current_limit).toMatchObject({
      name: "tenant-per-10s",
      requests_per_unit: 10,
      unit: Unit.SECOND,
    });
    // 99 are left, but Envoy shows limit_remaining against current_limit: at most its 10 per SECOND.
    expect(r.statuses[0].limit_remaining).toBe(10);
    expect(headersOf(r).RateLimit).toBe('"tenant-per-10s";r=99;t=10');
    const more = await rls({ domain: "edge", descriptors: [d({ tenant: "scale" })], hits_addend: 95 });
    expect(more.statuses[0].limit_remaining).toBe(4);
  });

  it("adds the draft-10 RateLimit headers", async () => {
    const r = await rls({ domain: "edge", descriptors: [d({ user: "hdr" }), d({ path: "/hdr" })] });
    const headers = headersOf(r);
    expect(headers["RateLimit-Policy"]).toBe('"user-per-hour";q=3;w=3600, "path-per-minute";q=2;w=60');
    expect(headers.RateLimit).toBe('"user-per-hour";r=2;t=3600, "path-per-minute";r=1;t=60');
    expect(headers["Retry-After"]).toBeUndefined();
  });

  it("refuses bad input with INVALID_ARGUMENT naming the field, counting nothing", async () => {
    const checks = h.engine.stats.checks;
    const cases: [unknown, string][] = [
      [{ domain: "", descriptors: [d({ user: "a" })] }, "domain must not be empty"],
      [{ domain: "edge", descriptors: [] }, "descriptors must not be empty"],
      [
        { domain: "edge", descriptors: [{ entries: [] }] },
        "descriptors[0].entries must hold 1 to 64 entries",
      ],
      [{ domain: "edge", descriptors: [d({ "": "x" })] }, "descriptors[0].entries[0].key must not be empty"],
      [
        { domain: "edge", descriptors: [d({ ["k".repeat(257)]: "x" })] },
        "descriptors[0].entries[0].key must be at most 256",
      ],
      [
        { domain: "edge", descriptors: [d({ user: "v".repeat(1025) })] },
        "descriptors[0].entries[0].value must be at most 1024",
      ],
      [{ domain: "d".repeat(257), descriptors: [d({ user: "a" })] }, "domain must be at most 256"],
      [
        { domain: "edge", descriptors: Array.from({ length: 65 }, () => d({ user: "a" })) },
        "descriptors must hold at most 64",
      ],
      [
        { domain: "edge", descriptors: [d({ user: "a" })], hits_addend: 4_000_000_000 },
        "hits_addend must be at most 1000000",
      ],
      [
        {
          domain: "edge",
          descriptors: [d({ user: "a" }, { hits_addend: { value: "18446744073709551615" } })],
        },
        "descriptors[0].hits_addend must be at most 1000000",
      ],
      [
        { domain: "edge", descriptors: [d({ user: "a" }, { limit: { requests_per_unit: 1, unit: 0 } })] },
        "descriptors[0].limit.unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR, got UNKNOWN",
      ],
      [
        { domain: "edge", descriptors: [d({ user: "a" }, { limit: { requests_per_unit: 1, unit: 42 } })] },
        "descriptors[0].limit.unit must be one of",
      ],
    ];
    for (const [request, message] of cases) {
      const a = await unary(h.envoy, "ShouldRateLimit", request);
      expect(a.ok, message).toBe(false);
      if (a.ok) continue;
      expect(a.error.code, message).toBe(status.INVALID_ARGUMENT);
      expect(a.error.details.startsWith(message), `${a.error.details} / ${message}`).toBe(true);
    }
    expect(h.engine.stats.checks).toBe(checks);
    expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "invalid" });
  });

  it("answers RESOURCE_EXHAUSTED at once when the in-flight gate is full", async () => {
    let taken = 0;
    while (h.ctx.gate.tryEnter()) taken++;
    try {
      const a = await unary(h.envoy, "ShouldRateLimit", {
        domain: "edge",
        descriptors: [d({ user: "gate" })],
      });
      expect(a.ok).toBe(false);
      if (!a.ok) expect(a.error.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "overloaded" });
    } finally {
      for (let i = 0; i < taken; i++) h.ctx.gate.leave();
    }
    const r = await rls({ domain: "edge", descriptors: [d({ user: "gate" })] });
    expect(r.statuses[0].limit_remaining).toBe(2); // the refused call counted nothing
  });
});

describe("ShouldRateLimit without response headers, and past its deadline", () => {
  it("adds no headers when envoyHeaders is false", async () => {
    const g = await startGrpcHarness({ yaml: YAML, server: { envoyHeaders: false } });
    try {
      const r = await call<Response>(g.envoy, "ShouldRateLimit", {
        domain: "edge",
        descriptors: [d({ user: "a" })],
      });
      expect(r.statuses[0].limit_remaining).toBe(2);
      expect(r.response_headers_to_add).toEqual([]);
    } finally {
      await g.close();
    }
  });

  it("drops the late answer of a call past its deadline and gives its gate slot back", async () => {
    const held = heldChecks();
    const g = await startGrpcHarness({ yaml: YAML, wrapEngine: held.wrap });
    try {
      // grpc-js computes the deadline from the real wall clock.
      const deadline = new Date(Date.now() + 200); // clock-lint: allow (grpc-js deadline)
      const answer = unary(
        g.envoy,
        "ShouldRateLimit",
        { domain: "edge", descriptors: [d({ user: "late" })] },
        { deadline },
      );
      await held.started;
      const a = await answer;
      expect(a.ok).toBe(false);
      if (!a.ok) expect(a.error.code).toBe(status.DEADLINE_EXCEEDED);
      expect(g.ctx.gate.inflight).toBe(1);
      held.release();
      await vi.waitFor(() => expect(g.ctx.gate.inflight).toBe(0));
      expect(g.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "ok" });
      const r = await call<Response>(g.envoy, "ShouldRateLimit", {
        domain: "edge",
        descriptors: [d({ user: "late" })],
      });
      expect(r.statuses[0].limit_remaining).toBe(1); // the late call still counted (Envoy had already moved on)
    } finally {
      held.release();
      await g.close();
    }
  });
});

/** Rules on a store that is down, one per failure policy. */
const DOWN_YAML = `
version: 1
rules:
  - id: closed
    domain: edge
    match: [{ key: ip }]
    failurePolicy: fail_closed
    limits: [{ name: ip-per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: open
    domain: edge
    match: [{ key: user }]
    failurePolicy: fail_open
    limits: [{ name: user-per-hour, algorithm: fixed_window, limit: 50, period: 1h }]
  - id: local
    domain: edge
    match: [{ key: tenant }]
    failurePolicy: fallback
    limits: [{ name: tenant-per-minute, algorithm: fixed_window, limit: 10, period: 1m }]
`;

describe("ShouldRateLimit when the store is unreachable", () => {
  let down: GrpcHarness;
  const rlsDown = (req: unknown): Promise<Response> => call<Response>(down.envoy, "ShouldRateLimit", req);
  beforeAll(async () => {
    down = await startGrpcHarness({ yaml: DOWN_YAML, store: failingStore() });
  });
  afterAll(async () => {
    await down.close();
  });

  it("records a fail_closed OVER_LIMIT as fail_closed, as the HTTP API does, not over_limit", async () => {
    const r = await rlsDown({ domain: "edge", descriptors: [d({ ip: "192.0.2.1" })] });
    expect(r.overall_code).toBe(Code.OVER_LIMIT);
    expect(Number(headersOf(r)["Retry-After"])).toBeGreaterThanOrEqual(1);
    expect(down.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "fail_closed" });
  });

  it("records a quota denial beside a fail_closed one as over_limit", async () => {
    await rlsDown({ domain: "edge", descriptors: [d({ tenant: "t1" })], hits_addend: 10 });
    const r = await rlsDown({ domain: "edge", descriptors: [d({ ip: "192.0.2.2" }), d({ tenant: "t1" })] });
    expect(r.statuses.map((s) => s.code)).toEqual([Code.OVER_LIMIT, Code.OVER_LIMIT]);
    expect(down.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "over_limit" });
  });

  it("answers a fail_open descriptor OK without a limit or a remaining nobody counted, and no headers for it", async () => {
    const r = await rlsDown({ domain: "edge", descriptors: [d({ user: "u1" }), d({ tenant: "t2" })] });
    expect(r.overall_code).toBe(Code.OK);
    const [open, local] = r.statuses;
    expect(open.code).toBe(Code.OK);
    expect(open.current_limit).toBeNull();
    expect(open.limit_remaining).toBe(0);
    expect(open.duration_until_reset).toBeNull();
    // The fallback counted its descriptor: advertised as usual.
    expect(local.current_limit).toMatchObject({ name: "tenant-per-minute", requests_per_unit: 10 });
    expect(local.limit_remaining).toBe(9);
    const headers = headersOf(r);
    expect(headers["RateLimit-Policy"]).toBe('"tenant-per-minute";q=10;w=60');
    expect(headers.RateLimit).toBe('"tenant-per-minute";r=9;t=60');
    const alone = await rlsDown({ domain: "edge", descriptors: [d({ user: "u1" })] });
    expect(alone.statuses[0].limit_remaining).toBe(0);
    expect(alone.response_headers_to_add).toEqual([]);
    expect(down.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "ok" });
  });
});

describe("currentLimitOf", () => {
  it("keeps exact units and rescales others, rounding the rate down", () => {
    expect(currentLimitOf(3, 3_600_000)).toEqual({ requestsPerUnit: 3, unit: Unit.HOUR });
    expect(currentLimitOf(5, 604_800_000)).toEqual({ requestsPerUnit: 5, unit: Unit.WEEK });
    expect(currentLimitOf(7, 30 * 86_400_000)).toEqual({ requestsPerUnit: 7, unit: Unit.MONTH });
    expect(currentLimitOf(100, 10_000)).toEqual({ requestsPerUnit: 10, unit: Unit.SECOND });
    expect(currentLimitOf(1, 2_000)).toEqual({ requestsPerUnit: 30, unit: Unit.MINUTE });
    expect(currentLimitOf(5, 90_000)).toEqual({ requestsPerUnit: 3, unit: Unit.MINUTE });
    expect(currentLimitOf(50, 100)).toEqual({ requestsPerUnit: 500, unit: Unit.SECOND });
    expect(currentLimitOf(0, 0)).toEqual({ requestsPerUnit: 0, unit: Unit.SECOND });
    expect(currentLimitOf(1e12, 1_000)).toEqual({ requestsPerUnit: UINT32_MAX, unit: Unit.SECOND });
  });
});

it("starts the harness clock on a whole hour", () => {
  expect(HARNESS_START_MS % 3_600_000).toBe(0);
});

describe("ShouldRateLimit on an envoyproxy/ratelimit file", () => {
  let e: GrpcHarness;
  beforeAll(async () => {
    e = await startGrpcHarness({
      yaml: `domain: edge
descriptors:
  - key: remote_address
    rate_limit: { unit: minute, requests_per_unit: 10 }
  - key: remote_address
    value: 50.0.0.5
    rate_limit: { unit: minute, requests_per_unit: 0 }
`,
    });
  });
  afterAll(async () => {
    await e.close();
  });

  it("reports a blocked descriptor's limit as 0 per its unit, as envoyproxy/ratelimit does", async () => {
    const r = await call<Response>(e.envoy, "ShouldRateLimit", {
      domain: "edge",
      descriptors: [d({ remote_address: "50.0.0.5" })],
    });
    expect(r.overall_code).toBe(Code.OVER_LIMIT);
    expect(r.statuses[0]).toMatchObject({
      code: Code.OVER_LIMIT,
      current_limit: { requests_per_unit: 0, unit: Unit.MINUTE },
      limit_remaining: 0,
    });
  });
});

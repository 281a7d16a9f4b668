import { type Client, credentials, makeGenericClientConstructor, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failingStore } from "../../../test/support/failing-store.js";
import {
  call,
  type GrpcHarness,
  HARNESS_START_MS,
  startGrpcHarness,
  unary,
} from "../../../test/support/grpc-harness.js";
import type { sluice } from "./gen/protos.js";
import { RATE_LIMITER_SERVICE_NAME } from "./service-definitions.js";

type CheckResponse = sluice.v1.CheckResponse;
type BatchResponse = sluice.v1.CheckBatchResponse;
type QuotaResponse = sluice.v1.QuotaResponse;
type ResetResponse = sluice.v1.ResetResponse;

const YAML = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: user-per-hour, algorithm: fixed_window, limit: 3, period: 1h }]
  - id: orders-per-user
    domain: api
    match: [{ key: user }, { key: endpoint, value: /orders }]
    limits: [{ name: orders-per-minute, algorithm: fixed_window, limit: 2, period: 1m }]
  - id: per-ip
    domain: web
    match: [{ key: ip }]
    limits: [{ name: ip-per-minute, algorithm: fixed_window, limit: 1, period: 1m }]
`;

/** A protobufjs 64-bit value (Long) or number as a number. */
function num(v: unknown): number {
  return typeof v === "number" ? v : (v as { toNumber(): number }).toNumber();
}

let h: GrpcHarness;
const check = (req: unknown): Promise<CheckResponse> => call<CheckResponse>(h.sluice, "CheckRateLimit", req);

beforeAll(async () => {
  h = await startGrpcHarness({ yaml: YAML, server: { defaultDomain: "api" } });
});
afterAll(async () => {
  await h.close();
});

describe("CheckRateLimit", () => {
  it("answers seed 002's fields for identifier, dimension and endpoint, in the default domain", async () => {
    const r = await check({ identifier: "u1", dimension: "user", endpoint: "/orders" });
    expect(r.allowed).toBe(true);
    expect(r.limit).toBe(2);
    expect(r.remaining).toBe(1);
    expect(r.current_count).toBe(1);
    expect(num(r.reset_at)).toBe(HARNESS_START_MS / 1000 + 60);
    expect(num(r.reset_at_ms)).toBe(HARNESS_START_MS + 60_000);
    expect(num(r.retry_after)).toBe(0);
    expect(r.state).toBe("normal");
    expect(r.replayed).toBe(false);
    expect(r.reason).toBe("store");
    expect(r.policies.map((p) => [p.name, p.limit, p.remaining, num(p.window_ms)])).toEqual([
      ["user-per-hour", 3, 2, 3_600_000],
      ["orders-per-minute", 2, 1, 60_000],
    ]);
    expect(r.descriptors.map((d) => [d.code, d.rule_id, d.remaining])).toEqual([
      ["OK", "per-user", 2],
      ["OK", "orders-per-user", 1],
    ]);
    expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_check", outcome: "ok" });
    expect(h.metrics.decisions.at(-1)?.domain).toBe("api");
  });

  it("denies over the limit with retry_after, and counts nothing then", async () => {
    await check({ identifier: "u2", dimension: "user", endpoint: "/orders" });
    await check({ identifier: "u2", dimension: "user", endpoint: "/orders" });
    const r = await check({ identifier: "u2", dimension: "user", endpoint: "/orders" });
    expect(r.allowed).toBe(false);
    expect(r.state).toBe("throttled");
    expect(num(r.retry_after)).toBe(60);
    expect(num(r.retry_after_ms)).toBe(60_000);
    expect(r.descriptors.map((d) => d.code)).toEqual(["OK", "OVER_LIMIT"]);
    expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_check", outcome: "over_limit" });
    const user = await check({ identifier: "u2", dimension: "user" });
    expect(user.remaining).toBe(0); // 3 − 2 allowed − this one; the denied one took nothing
  });

  it("tells an unset cost (1) from cost 0 (check only) and honours explicit descriptors and domains", async () => {
    const zero = await check({ identifier: "u3", dimension: "user", cost: 0 });
    expect(zero.remaining).toBe(3);
    const one = await check({ identifier: "u3", dimension: "user" });
    expect(one.remaining).toBe(2);
    const two = await check({
      domain: "web",
      descriptors: [{ entries: [{ key: "ip", value: "10.0.0.1" }] }],
      cost: 1,
    });
    expect(two.policies.map((p) => p.name)).toEqual(["ip-per-minute"]);
    expect(two.remaining).toBe(0);
  });

  it("replays an idempotent retry without counting it, with the first answer's reset instant", async () => {
    const first = await check({ identifier: "u4", dimension: "user", idempotency_key: "req-1" });
    const startMs = h.clock.nowMs();
    h.clock.advance(1234); // the retry arrives later: the absolute instants stay, the relative fields shrink
    const again = await check({ identifier: "u4", dimension: "user", idempotency_key: "req-1" });
    h.clock.set(startMs);
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.remaining).toBe(first.remaining);
    expect(num(again.reset_at_ms)).toBe(num(first.reset_at_ms));
    expect(num(again.reset_at)).toBe(num(first.reset_at));
    expect(num(again.policies[0].reset_after_ms)).toBe(num(first.policies[0].reset_after_ms) - 1234);
    const next = await check({ identifier: "u4", dimension: "user" });
    expect(next.remaining).toBe(1);
  });

  it("reports no limit when nothing matched", async () => {
    const r = await check({ identifier: "x", dimension: "nothing" });
    expect(r.allowed).toBe(true);
    expect(r.limit).toBe(0);
    expect(r.policies).toEqual([]);
    expect(r.descriptors[0]).toMatchObject({ code: "OK", rule_id: "" });
  });

  it("accepts a client timestamp near the server clock and refuses a skewed one", async () => {
    const near = await unary(h.sluice, "CheckRateLimit", {
      identifier: "u5",
      dimension: "user",
      timestamp: HARNESS_START_MS + 5_000,
    });
    expect(near.ok).toBe(true);
    const far = await unary(h.sluice, "CheckRateLimit", {
      identifier: "u5",
      dimension: "user",
      timestamp: HARNESS_START_MS - 3_600_000,
    });
    expect(far.ok).toBe(false);
    if (!far.ok) {
      expect(far.error.code).toBe(status.INVALID_ARGUMENT);
      expect(far.error.details).toMatch(/^timestamp is 3600000 ms away from the server clock/);
    }
  });

  it("refuses bad input with INVALID_ARGUMENT naming the field, counting nothing", async () => {
    const checks = h.engine.stats.checks;
    const cases: [unknown, string][] = [
      [{ identifier: "a" }, "dimension is required with identifier"],
      [{ dimension: "user" }, "identifier is required with dimension"],
      [{}, "descriptors must hold at least one descriptor"],
      [{ identifier: "a", dimension: "user", cost: -1 }, "cost must be a number from 0 to 1000000, got -1"],
      [{ identifier: "a", dimension: "user", cost: 2e6 }, "cost must be a number from 0 to 1000000"],
      [{ descriptors: [{ entries: [] }] }, "descriptors[0].entries must hold 1 to 64 entries"],
      [
        { descriptors: [{ entries: [{ key: "", value: "x" }] }] },
        "descriptors[0].entries[0].key is required",
      ],
      [
        { identifier: "a", dimension: "user", domain: "d".repeat(300) },
        "domain must be at most 256 characters",
      ],
    ];
    for (const [request, message] of cases) {
      const a = await unary(h.sluice, "CheckRateLimit", request);
      expect(a.ok, message).toBe(false);
      if (a.ok) continue;
      expect(a.error.code, message).toBe(status.INVALID_ARGUMENT);
      expect(a.error.details.startsWith(message), `${a.error.details} / ${message}`).toBe(true);
    }
    expect(h.engine.stats.checks).toBe(checks);
    expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_check", outcome: "invalid" });
  });

  it("refuses bytes that are not a CheckRequest with INVALID_ARGUMENT", async () => {
    const raw = rawClient(h.address, "CheckRateLimit");
    try {
      const a = await unary(raw, "CheckRateLimit", Buffer.from([0x0a, 0x7f, 0x41])); // field 1, length 127, 1 byte
      expect(a.ok).toBe(false);
      if (!a.ok) {
        expect(a.error.code).toBe(status.INVALID_ARGUMENT);
        expect(a.error.details).toMatch(/^request: not a valid sluice\.v1\.CheckRequest message/);
      }
    } finally {
      raw.close();
    }
  });

  it("answers RESOURCE_EXHAUSTED when the gate is full", async () => {
    let taken = 0;
    while (h.ctx.gate.tryEnter()) taken++;
    try {
      const a = await unary(h.sluice, "CheckRateLimit", { identifier: "g", dimension: "user" });
      expect(!a.ok && a.error.code).toBe(status.RESOURCE_EXHAUSTED);
    } finally {
      for (let i = 0; i < taken; i++) h.ctx.gate.leave();
    }
  });
});

describe("CheckRateLimitBatch", () => {
  it("answers each item, an invalid one with an error that fails nothing else and counts nothing", async () => {
    const checks = h.engine.stats.checks;
    const r = await call<BatchResponse>(h.sluice, "CheckRateLimitBatch", {
      items: [
        { identifier: "b1", dimension: "user" },
        { identifier: "b2", dimension: "user", cost: -5 },
        { identifier: "b1", dimension: "user", cost: 2 },
        { identifier: "b4", dimension: "user", cost: 1.5 }, // refused by the engine (whole units for fixed_window)
      ],
    });
    expect(r.results).toHaveLength(4);
    expect(r.results[3].error?.message).toMatch(
      /^items\[3\]\.cost must be a whole number for rule "per-user"/,
    );
    expect(r.results[0].result).toBe("response");
    expect(r.results[0].response?.remaining).toBe(2);
    expect(r.results[1].result).toBe("error");
    expect(r.results[1].error?.code).toBe(status.INVALID_ARGUMENT);
    expect(r.results[1].error?.message).toMatch(/^items\[1\]\.cost must be a number from 0/);
    expect(r.results[2].response?.remaining).toBe(0);
    expect(h.engine.stats.checks).toBe(checks + 2);
    const b2 = await check({ identifier: "b2", dimension: "user" });
    expect(b2.remaining).toBe(2);
    expect(h.metrics.requests.at(-2)).toMatchObject({ api: "grpc_check_batch", outcome: "ok" });
  });

  it("refuses more items than the bound with INVALID_ARGUMENT naming items", async () => {
    const items = Array.from({ length: 11 }, (_, i) => ({ identifier: `m${i}`, dimension: "user" }));
    const a = await unary(h.sluice, "CheckRateLimitBatch", { items });
    expect(a.ok).toBe(false);
    if (!a.ok) {
      expect(a.error.code).toBe(status.INVALID_ARGUMENT);
      expect(a.error.details).toBe("items must hold at most 10 items, got 11");
    }
  });
});

describe("GetRemainingQuota and ResetLimit", () => {
  it("reads the quota without counting, and reset starts the identity fresh", async () => {
    const q0 = await call<QuotaResponse>(h.sluice, "GetRemainingQuota", {
      identifier: "q1",
      dimension: "user",
    });
    expect(q0.remaining).toBe(3);
    expect(q0.allowed).toBe(true);
    const q1 = await call<QuotaResponse>(h.sluice, "GetRemainingQuota", {
      identifier: "q1",
      dimension: "user",
    });
    expect(q1.remaining).toBe(3);
    await check({ identifier: "q1", dimension: "user", endpoint: "/orders" });
    const q2 = await call<QuotaResponse>(h.sluice, "GetRemainingQuota", {
      identifier: "q1",
      dimension: "user",
      endpoint: "/orders",
    });
    expect(q2.policies.map((p) => [p.name, p.remaining])).toEqual([
      ["user-per-hour", 2],
      ["orders-per-minute", 1],
    ]);
    const reset = await call<ResetResponse>(h.sluice, "ResetLimit", {
      identifier: "q1",
      dimension: "user",
      endpoint: "/orders",
    });
    expect(reset.counters).toBe(2);
    const q3 = await call<QuotaResponse>(h.sluice, "GetRemainingQuota", {
      identifier: "q1",
      dimension: "user",
      endpoint: "/orders",
    });
    expect(q3.policies.map((p) => p.remaining)).toEqual([3, 2]);
    const none = await call<ResetResponse>(h.sluice, "ResetLimit", {
      identifier: "q1",
      dimension: "nothing",
    });
    expect(none.counters).toBe(0);
    expect(h.metrics.requests.at(-1)).toMatchObject({ api: "grpc_reset", outcome: "ok" });
  });

  it("refuses a reset naming no identity", async () => {
    const a = await unary(h.sluice, "ResetLimit", { domain: "api" });
    expect(!a.ok && a.error.code).toBe(status.INVALID_ARGUMENT);
  });
});

/** Rules on a store that is down, one per failure policy. */
const DOWN_YAML = `
version: 1
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
    limits: [{ name: user-per-hour, algorithm: fixed_window, limit: 5, period: 1h }]
  - id: local
    domain: api
    match: [{ key: tenant }]
    failurePolicy: fallback
    limits: [{ name: tenant-per-minute, algorithm: fixed_window, limit: 10, period: 1m }]
`;

describe("when the store is unreachable", () => {
  let down: GrpcHarness;
  const checkDown = (req: unknown): Promise<CheckResponse> =>
    call<CheckResponse>(down.sluice, "CheckRateLimit", req);
  beforeAll(async () => {
    down = await startGrpcHarness({
      yaml: DOWN_YAML,
      server: { defaultDomain: "api" },
      store: failingStore(),
    });
  });
  afterAll(async () => {
    await down.close();
  });

  it("answers a fail_closed denial with reason fail_closed, recorded as fail_closed as HTTP does", async () => {
    const r = await checkDown({ identifier: "192.0.2.1", dimension: "ip" });
    expect(r.allowed).toBe(false);
    expect(r.reason).toBe("fail_closed");
    expect(r.current_count).toBe(0);
    expect(r.remaining).toBe(0);
    expect(num(r.retry_after)).toBeGreaterThanOrEqual(1);
    expect(down.metrics.requests.at(-1)).toMatchObject({ api: "grpc_check", outcome: "fail_closed" });
  });

  it("answers a fail_open allowance with reason fail_open and no remaining nobody counted", async () => {
    const r = await checkDown({ identifier: "u1", dimension: "user" });
    expect(r.allowed).toBe(true);
    expect(r.reason).toBe("fail_open");
    expect(r.limit).toBe(5);
    expect(r.remaining).toBe(0);
    expect(r.current_count).toBe(0);
    expect(num(r.reset_at)).toBe(0);
    expect(num(r.reset_at_ms)).toBe(0);
    expect(r.policies.map((p) => [p.name, p.allowed, p.limit, p.remaining])).toEqual([
      ["user-per-hour", true, 5, 0],
    ]);
    expect(r.descriptors.map((d) => [d.code, d.rule_id, d.limit, d.remaining])).toEqual([
      ["OK", "open", 5, 0],
    ]);
    expect(down.metrics.requests.at(-1)).toMatchObject({ api: "grpc_check", outcome: "ok" });
  });

  it("heads an answer with a counted limit over one fail_open let through, whatever their remaining", async () => {
    const r = await checkDown({
      descriptors: [
        { entries: [{ key: "user", value: "u2" }] },
        { entries: [{ key: "tenant", value: "t2" }] },
      ],
    });
    expect(r.allowed).toBe(true);
    expect(r.reason).toBe("fallback");
    expect(r.limit).toBe(10);
    expect(r.remaining).toBe(9);
    expect(r.current_count).toBe(1);
    expect(r.policies.map((p) => [p.name, p.remaining])).toEqual([
      ["user-per-hour", 0],
      ["tenant-per-minute", 9],
    ]);
  });

  it("tells a quota denial from a fail_closed one, in batch items and quota reads too", async () => {
    const tenant = { identifier: "t3", dimension: "tenant", cost: 10 };
    const batch = await call<BatchResponse>(down.sluice, "CheckRateLimitBatch", {
      items: [
        tenant,
        tenant,
        { identifier: "192.0.2.3", dimension: "ip" },
        { identifier: "u3", dimension: "user" },
      ],
    });
    expect(batch.results.map((x) => [x.response?.allowed, x.response?.reason])).toEqual([
      [true, "fallback"],
      [false, "fallback"],
      [false, "fail_closed"],
      [true, "fail_open"],
    ]);
    const quota = await call<QuotaResponse>(down.sluice, "GetRemainingQuota", {
      identifier: "u3",
      dimension: "user",
    });
    expect(quota.reason).toBe("fail_open");
    expect(quota.remaining).toBe(0);
  });
});

it("refuses a request without a domain when no default domain is configured", async () => {
  const g = await startGrpcHarness({ yaml: YAML });
  try {
    const a = await unary(g.sluice, "CheckRateLimit", { identifier: "a", dimension: "user" });
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.error.details).toMatch(/^domain is required/);
  } finally {
    await g.close();
  }
});

/** A client sending raw bytes to `method` of sluice.v1.RateLimiter and returning raw bytes. */
function rawClient(address: string, method: string): Client {
  const def = {
    [method]: {
      path: `/${RATE_LIMITER_SERVICE_NAME}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  };
  const Ctor = makeGenericClientConstructor(def, "Raw");
  return new Ctor(address, credentials.createInsecure());
}

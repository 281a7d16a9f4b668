import { describe, expect, it } from "vitest";
import { failingStore } from "../../test/support/failing-store.js";
import { InvalidArgumentError } from "../core/errors.js";
import { ManualClock } from "../core/manual-clock.js";
import { createEngine, MAX_DESCRIPTORS, MAX_ENTRY_KEY_LENGTH, MAX_VALUE_LENGTH } from "../engine/engine.js";
import { parseConfig } from "../rules/load-config.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { checkOutcome, checkResponseOf, parseCheckRequest, RETRY_NEVER } from "./check-api.js";
import type { RequestBounds } from "./service-context.js";

const T0 = 1_700_000_000_000;
const bounds: RequestBounds = {
  maxBodyBytes: 65536,
  maxBatchItems: 100,
  maxCost: 1000,
  maxClockSkewMs: 60_000,
};

const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - { name: per-second, algorithm: fixed_window, limit: 10, period: 1s }
      - { name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }
  - id: user-endpoint
    domain: api
    match: [{ key: user }, { key: endpoint }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 3, period: 1s }]
  - id: banned
    domain: api
    match: [{ key: ip, value: 203.0.113.9 }]
    blocked: true
  - id: free-health
    domain: api
    match: [{ key: endpoint, value: /healthz }]
    unlimited: true
  - id: rate
    domain: api
    match: [{ key: tenant }]
    limits: [{ name: per-second, algorithm: gcra, limit: 5, period: 1s }]
  - id: bursty
    domain: api
    match: [{ key: app }]
    limits: [{ name: per-minute, algorithm: gcra, limit: 10, period: 1m, burst: 20 }]
  - id: trial
    domain: api
    match: [{ key: user }, { key: plan }]
    behaviour: shadow
    limits: [{ name: trial, algorithm: fixed_window, limit: 1, period: 1m }]
`;

/**
 * Rules on a store that is down: one failing closed, one falling back to an in-process limit of 1, one failing
 * open.
 */
const DOWN_CONFIG = `
version: 1
rules:
  - id: closed
    domain: api
    match: [{ key: ip }]
    failurePolicy: fail_closed
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
  - id: local
    domain: api
    match: [{ key: user }]
    failurePolicy: fallback
    limits: [{ name: per-user, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: open
    domain: api
    match: [{ key: app }]
    failurePolicy: fail_open
    limits: [{ name: per-app, algorithm: gcra, limit: 5, period: 1s, burst: 8 }]
`;

function setup() {
  const clock = new ManualClock(T0);
  const engine = createEngine({
    config: parseConfig(CONFIG),
    store: new MemoryStore({ capacity: 1000 }),
    clock,
    scheduler: clock,
  });
  const ctx = { bounds, clock, engine };
  return { clock, engine, ctx };
}

function errorOf(f: () => unknown): InvalidArgumentError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return e as InvalidArgumentError;
  }
  throw new Error("expected an InvalidArgumentError");
}

describe("parseCheckRequest", () => {
  const { ctx } = setup();
  const parse = (v: unknown, dflt: string | undefined = "api", field?: string) =>
    parseCheckRequest(v, ctx, dflt, field);
  const msg = (v: unknown, dflt: string | undefined = "api", field?: string) =>
    errorOf(() => parse(v, dflt, field)).message;

  it("maps seed 002's identifier, dimension and endpoint to descriptors after the explicit ones", () => {
    const r = parse({
      domain: "api",
      descriptors: [{ entries: [{ key: "tenant", value: "acme" }] }],
      identifier: "42",
      dimension: "user",
      endpoint: "/orders",
      cost: 2,
      idempotency_key: "k1",
    });
    expect(r).toEqual({
      domain: "api",
      descriptors: [
        [{ key: "tenant", value: "acme" }],
        [{ key: "user", value: "42" }],
        [
          { key: "user", value: "42" },
          { key: "endpoint", value: "/orders" },
        ],
      ],
      cost: 2,
      idempotencyKey: "k1",
    });
  });

  it("treats empty strings, null and timestamp 0 as absent, and uses the default domain", () => {
    const r = parse({
      domain: "",
      identifier: "7",
      dimension: "user",
      endpoint: "",
      idempotency_key: "",
      cost: null,
      timestamp: 0,
    });
    expect(r).toEqual({ domain: "api", descriptors: [[{ key: "user", value: "7" }]] });
    expect(parse({ descriptors: [{ entries: [{ key: "k" }] }] }).descriptors).toEqual([
      [{ key: "k", value: "" }],
    ]);
  });

  it("keeps cost 0 (check only) and fractional costs (the engine decides per rule)", () => {
    expect(parse({ identifier: "1", dimension: "user", cost: 0 }).cost).toBe(0);
    expect(parse({ identifier: "1", dimension: "user", cost: 0.5 }).cost).toBe(0.5);
  });

  it("accepts bigint and Long-like numbers (64-bit proto fields)", () => {
    const long = { low: 5, high: 0, unsigned: true, toNumber: () => 5 };
    expect(parse({ identifier: "1", dimension: "user", cost: long }).cost).toBe(5);
    expect(parse({ identifier: "1", dimension: "user", cost: 3n }).cost).toBe(3);
  });

  it("names nested fields in full, under the prefix of a batch item too", () => {
    const d1 = (entries: unknown) => ({
      descriptors: [{ entries: [{ key: "a", value: "b" }] }, { entries }],
    });
    for (const [field, at] of [
      [undefined, "descriptors[1]"],
      ["items[3]", "items[3].descriptors[1]"],
    ] as const) {
      expect(msg(d1([{ key: "k" }, 7]), "api", field)).toBe(
        `${at}.entries[1] must be an object { key, value }, got 7`,
      );
      expect(msg(d1([{ key: "k", valu: "v" }]), "api", field)).toBe(
        `${at}.entries[0]."valu" is not a known field (known: key, value)`,
      );
      expect(msg(d1([{ key: "" }]), "api", field)).toBe(
        `${at}.entries[0].key is required (a non-empty string)`,
      );
      expect(msg(d1([{ key: "k", value: "\udc00" }]), "api", field)).toBe(
        `${at}.entries[0].value must be well-formed Unicode (it holds a lone surrogate)`,
      );
      expect(msg(d1([{ key: ["k"] }]), "api", field)).toBe(
        `${at}.entries[0].key must be a string, got an array`,
      );
      expect(
        msg({ descriptors: [{ entries: [{ key: "a" }] }, { entries: [], more: 1 }] }, "api", field),
      ).toBe(`${at}."more" is not a known field (known: entries)`);
      expect(msg({ descriptors: [{ entries: [{ key: "a" }] }, null] }, "api", field)).toBe(
        `${at} must be an object { entries: [...] }, got null`,
      );
      expect(msg(d1("x"), "api", field)).toBe(
        `${at}.entries must be an array of { key, value }, got a string of 1 characters`,
      );
    }
  });

  it("names the field of every invalid input", () => {
    expect(msg(null)).toMatch(/^request must be an object, got null/);
    expect(msg([1])).toMatch(/^request must be an object, got an array/);
    expect(msg("x", "api", "items[3]")).toMatch(/^items\[3\] must be an object/);
    expect(errorOf(() => parseCheckRequest({ identifier: "1" }, ctx, undefined)).message).toMatch(
      /^domain is required/,
    );
    expect(msg({ domain: 5, identifier: "1", dimension: "u" })).toMatch(/^domain must be a string, got 5/);
    expect(msg({ domain: "apj", identifier: "1", dimension: "u" })).toBe(
      'domain has no rules in the configuration, got "apj"',
    );
    expect(msg({ identifier: "1", dimension: "u" }, "gone")).toBe(
      'domain has no rules in the configuration, got "gone"',
    );
    expect(msg({ domain: "x".repeat(300), identifier: "1", dimension: "u" })).toMatch(
      /^domain must be at most 256/,
    );
    expect(msg({})).toMatch(/^descriptors must hold at least one descriptor/);
    expect(msg({ descriptors: {} })).toMatch(/^descriptors must be an array, got object/);
    expect(msg({ descriptors: [5] })).toMatch(/^descriptors\[0\] must be an object/);
    expect(msg({ descriptors: [{}] })).toMatch(/^descriptors\[0\]\.entries must be an array/);
    expect(msg({ descriptors: [{ entries: [] }] })).toMatch(/^descriptors\[0\]\.entries must hold 1 to 64/);
    expect(msg({ descriptors: [{ entries: [{ value: "v" }] }] })).toMatch(
      /^descriptors\[0\]\.entries\[0\]\.key is required/,
    );
    expect(msg({ descriptors: [{ entries: [{ key: "k", value: 1 }] }] })).toMatch(
      /^descriptors\[0\]\.entries\[0\]\.value must be a string, got 1/,
    );
    expect(msg({ descriptors: [{ entries: [{ key: "k".repeat(MAX_ENTRY_KEY_LENGTH + 1) }] }] })).toMatch(
      /^descriptors\[0\]\.entries\[0\]\.key must be at most/,
    );
    expect(msg({ identifier: "x".repeat(MAX_VALUE_LENGTH + 1), dimension: "user" })).toMatch(
      /^identifier must be at most 1024/,
    );
    expect(msg({ identifier: "1" })).toMatch(/^dimension is required with identifier/);
    expect(msg({ dimension: "user" })).toMatch(/^identifier is required with dimension/);
    expect(msg({ endpoint: "/x", descriptors: [{ entries: [{ key: "a" }] }] })).toMatch(
      /^endpoint needs identifier and dimension/,
    );
    expect(msg({ identifier: "\ud800", dimension: "user" })).toMatch(
      /^identifier must be well-formed Unicode/,
    );
    expect(msg({ identifier: "1", dimension: "user", cost: -1 })).toMatch(
      /^cost must be a number from 0 to 1000/,
    );
    expect(msg({ identifier: "1", dimension: "user", cost: 1001 })).toMatch(
      /^cost must be a number from 0 to 1000/,
    );
    expect(msg({ identifier: "1", dimension: "user", cost: "1" })).toMatch(
      /^cost must be a number, got a string/,
    );
    expect(msg({ identifier: "1", dimension: "user", cost: Number.NaN })).toMatch(
      /^cost must be a finite number/,
    );
    expect(msg({ identifier: "1", dimension: "user", cost: Number.POSITIVE_INFINITY })).toMatch(
      /^cost must be a finite/,
    );
    expect(msg({ identifier: "1", dimension: "user", timestamp: -5 })).toMatch(
      /^timestamp must be Unix milliseconds/,
    );
    expect(msg({ identifier: "1", dimension: "user", timestamp: 4_102_444_800_001 })).toMatch(
      /^timestamp must be Unix milliseconds from 0 to 4102444800000 \(2100-01-01T00:00:00Z\), got 4102444800001/,
    );
    expect(msg({ identifier: "1", dimension: "user", timestamp: T0 / 1000 })).toMatch(
      /^timestamp is \d+ ms away from the server clock; at most 60000 ms/,
    );
    expect(msg({ identifier: "1", dimension: "user", idempotency_key: "k".repeat(257) })).toMatch(
      /^idempotency_key must be at most 256/,
    );
    expect(msg({ identifier: "1", dimension: "user", cots: 2 })).toMatch(/^"cots" is not a known field/);
    expect(msg({ descriptors: [{ entries: [{ key: "a", valeu: "b" }] }] })).toMatch(
      /^descriptors\[0\]\.entries\[0\]\."valeu" is not a known field/,
    );
    expect(msg(JSON.parse('{"__proto__": {"x": 1}, "identifier": "1", "dimension": "u"}'))).toMatch(
      /^"__proto__" is not a known field/,
    );
    expect(msg({ cost: -1 }, "api", "items[3]")).toMatch(/^items\[3\]\.descriptors must hold/);
    expect(msg({ identifier: "1", dimension: "u", cost: -1 }, "api", "items[3]")).toMatch(
      /^items\[3\]\.cost /,
    );
  });

  it("bounds descriptors, identifier and endpoint included", () => {
    const many = Array.from({ length: MAX_DESCRIPTORS }, () => ({ entries: [{ key: "a", value: "b" }] }));
    expect(parse({ descriptors: many }).descriptors).toHaveLength(MAX_DESCRIPTORS);
    expect(msg({ descriptors: [...many, many[0]] })).toMatch(/^descriptors must hold at most 64/);
    expect(msg({ descriptors: many, identifier: "1", dimension: "user" })).toMatch(
      /^descriptors must hold at most 64 descriptors, identifier\/endpoint included/,
    );
  });

  it("accepts a timestamp within the skew and never passes it to the engine", () => {
    const r = parse({ identifier: "1", dimension: "user", timestamp: T0 - 59_000 });
    expect(r).not.toHaveProperty("nowMs");
  });
});

describe("checkResponseOf", () => {
  it("counts current_count against the burst when a limit has one (units in use, never below 0)", () => {
    const { engine, clock } = setup();
    const req = { domain: "api", descriptors: [[{ key: "app", value: "a" }]] };
    for (let i = 0; i < 2; i++) engine.checkSync(req);
    const res = checkResponseOf(engine.checkSync(req), clock.nowMs());
    expect([res.current_count, res.limit, res.remaining]).toEqual([3, 10, 17]);
  });

  it("reports the headline policy, every policy and every descriptor", () => {
    const { engine, clock } = setup();
    const req = { domain: "api", descriptors: [[{ key: "user", value: "1" }]] };
    engine.checkSync(req);
    clock.advance(250);
    const res = checkResponseOf(engine.checkSync(req), clock.nowMs());
    expect(res).toMatchObject({
      allowed: true,
      limit: 10,
      remaining: 8,
      current_count: 2,
      reset_at_ms: T0 + 1000,
      reset_at: (T0 + 1000) / 1000,
      retry_after: 0,
      retry_after_ms: 0,
      delay_ms: 0,
      state: "normal",
      replayed: false,
    });
    // Other rules of the domain have a per-second and a per-minute too: per-user's are named by its rule in every
    // answer.
    expect(res.policies.map((p) => [p.name, p.limit, p.remaining, p.window_ms])).toEqual([
      ["per-user/per-second", 10, 8, 1000],
      ["per-user/per-minute", 100, 98, 60_000],
    ]);
    expect(res.descriptors).toEqual([
      {
        code: "OK",
        rule_id: "per-user",
        limit: 10,
        remaining: 8,
        reset_after_ms: 750,
        shadowed: false,
        delay_ms: 0,
      },
    ]);
    expect(JSON.stringify(res)).not.toMatch(/null|Infinity/);
  });

  it("reports the worst state over every policy, not the headline policy's", () => {
    // per-second is the headline (5 left, 50% used: normal); per-minute has 15 of 100 left (85% used: warning).
    const { engine, clock } = setup();
    const req = { domain: "api", descriptors: [[{ key: "user", value: "w" }]] };
    for (let i = 0; i < 8; i++) {
      expect(engine.checkSync({ ...req, cost: 10 }).allowed).toBe(true);
      clock.advance(1000);
    }
    const res = checkResponseOf(engine.checkSync({ ...req, cost: 5 }), clock.nowMs());
    expect(res.policies.map((p) => [p.name, p.remaining, p.state])).toEqual([
      ["per-user/per-second", 5, "normal"],
      ["per-user/per-minute", 15, "warning"],
    ]);
    expect(res).toMatchObject({ allowed: true, limit: 10, remaining: 5, state: "warning" });
  });

  it("reports a denial with retry_after rounded up, and names colliding policies by rule", () => {
    const { engine, clock } = setup();
    const req = {
      domain: "api",
      descriptors: [
        [{ key: "user", value: "1" }],
        [
          { key: "user", value: "1" },
          { key: "endpoint", value: "/x" },
        ],
      ],
    };
    for (let i = 0; i < 3; i++) engine.checkSync(req);
    clock.advance(100);
    const res = checkResponseOf(engine.checkSync(req), clock.nowMs());
    expect(res.allowed).toBe(false);
    expect(res.state).toBe("throttled");
    expect(res.limit).toBe(3);
    expect(res.remaining).toBe(0);
    expect(res.retry_after_ms).toBe(900);
    expect(res.retry_after).toBe(1);
    expect(res.policies.map((p) => p.name)).toEqual([
      "per-user/per-second",
      "per-user/per-minute",
      "user-endpoint/per-second",
    ]);
    expect(res.descriptors.map((d) => d.code)).toEqual(["OK", "OVER_LIMIT"]);
  });

  it("encodes 'no limit applied' with zeros and no policies", () => {
    const { engine, clock } = setup();
    for (const d of [[{ key: "nothing", value: "x" }], [{ key: "endpoint", value: "/healthz" }]]) {
      const res = checkResponseOf(engine.checkSync({ domain: "api", descriptors: [d] }), clock.nowMs());
      expect(res).toMatchObject({
        allowed: true,
        limit: 0,
        remaining: 0,
        current_count: 0,
        reset_at: 0,
        reset_at_ms: 0,
        state: "normal",
        policies: [],
      });
      expect(JSON.stringify(res)).not.toMatch(/null|Infinity/);
    }
  });

  it("encodes 'never' (blocked, cost above the burst) as RETRY_NEVER", () => {
    const { engine, clock } = setup();
    const blocked = checkResponseOf(
      engine.checkSync({ domain: "api", descriptors: [[{ key: "ip", value: "203.0.113.9" }]] }),
      clock.nowMs(),
    );
    expect(blocked).toMatchObject({ allowed: false, limit: 0, retry_after: RETRY_NEVER, retry_after_ms: -1 });
    expect(blocked.policies).toHaveLength(1);
    const tooBig = checkResponseOf(
      engine.checkSync({ domain: "api", descriptors: [[{ key: "tenant", value: "t" }]], cost: 50 }),
      clock.nowMs(),
    );
    expect(tooBig).toMatchObject({ allowed: false, retry_after: RETRY_NEVER });
    expect(tooBig.policies[0].retry_after_ms).toBe(RETRY_NEVER);
    expect(JSON.stringify(tooBig)).not.toMatch(/null|Infinity/);
  });

  it("leaves shadow rules out of the policies and the headline, and reports them per descriptor", () => {
    const { engine, clock } = setup();
    const req = {
      domain: "api",
      descriptors: [
        [{ key: "user", value: "s" }],
        [
          { key: "user", value: "s" },
          { key: "plan", value: "free" },
        ],
      ],
    };
    // Under its limit (its only unit used: remaining 0) the shadow rule is not the headline either.
    const under = checkResponseOf(engine.checkSync(req), clock.nowMs());
    expect(under).toMatchObject({
      allowed: true,
      limit: 10,
      remaining: 9,
      current_count: 1,
      state: "normal",
    });
    expect(under.policies.map((p) => p.name)).toEqual(["per-user/per-second", "per-user/per-minute"]);
    expect(under.descriptors[1]).toMatchObject({ rule_id: "trial", limit: 1, remaining: 0, shadowed: false });
    const over = checkResponseOf(engine.checkSync(req), clock.nowMs());
    expect(over).toMatchObject({ allowed: true, remaining: 8, reason: "store" });
    expect(over.policies.map((p) => p.name)).toEqual(["per-user/per-second", "per-user/per-minute"]);
    expect(over.descriptors[1]).toMatchObject({ rule_id: "trial", shadowed: true });
  });

  it("answers a fail_closed denial with its reason, no count in use and the wait until the store is tried", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({
      config: parseConfig(DOWN_CONFIG),
      store: failingStore(),
      clock,
      scheduler: clock,
    });
    const ip = [{ key: "ip", value: "192.0.2.1" }];
    const user = [{ key: "user", value: "u" }];
    const closed = await engine.check({ domain: "api", descriptors: [ip] });
    const res = checkResponseOf(closed, clock.nowMs());
    expect(res).toMatchObject({
      allowed: false,
      reason: "fail_closed",
      limit: 100,
      remaining: 0,
      current_count: 0,
      state: "throttled",
    });
    expect(res.retry_after).toBeGreaterThanOrEqual(1);
    expect(checkOutcome(closed)).toBe("fail_closed");
    // Admitted by the fallback's in-process limit: its reason, its counts.
    const first = await engine.check({ domain: "api", descriptors: [user] });
    expect(checkResponseOf(first, clock.nowMs())).toMatchObject({ allowed: true, reason: "fallback" });
    expect(checkOutcome(first)).toBe("ok");
    // A quota denial (the fallback's limit) beside a fail_closed one: the quota is the headline and the outcome.
    const both = await engine.check({ domain: "api", descriptors: [ip, user] });
    expect(checkResponseOf(both, clock.nowMs())).toMatchObject({
      allowed: false,
      reason: "fallback",
      limit: 1,
      current_count: 1,
    });
    expect(checkOutcome(both)).toBe("over_limit");
  });

  it("answers a fail_open allowance with its reason and no remaining nobody counted", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({
      config: parseConfig(DOWN_CONFIG),
      store: failingStore(),
      clock,
      scheduler: clock,
    });
    const app = [{ key: "app", value: "a" }];
    const open = await engine.check({ domain: "api", descriptors: [app] });
    // The engine stands in with the full limit remaining; the wire reports it unknown (0), as it is.
    expect(open.decision.remaining).toBe(5);
    const res = checkResponseOf(open, clock.nowMs());
    expect(res).toMatchObject({
      allowed: true,
      reason: "fail_open",
      limit: 5,
      remaining: 0,
      current_count: 0,
      reset_at: 0,
      reset_at_ms: 0,
      state: "normal",
    });
    expect(res.policies).toEqual([
      {
        name: "per-app",
        allowed: true,
        limit: 5,
        remaining: 0,
        window_ms: 1000,
        reset_after_ms: 0,
        retry_after_ms: 0,
        state: "normal",
      },
    ]);
    expect(res.descriptors[0]).toMatchObject({ code: "OK", rule_id: "open", limit: 5, remaining: 0 });
    expect(checkOutcome(open)).toBe("ok");
  });
});

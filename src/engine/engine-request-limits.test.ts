// A request's own limits (Envoy's per-descriptor `RateLimitDescriptor.limit`), as envoyproxy/ratelimit's GetLimit
// applies them: only in a domain with rules; instead of any rule; never shadow; under the descriptor's full key.
import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { InvalidArgumentError } from "../core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor, RuleDefaults, SluiceConfig } from "../rules/rule.js";
import { any, DEFAULT_TEST_DEFAULTS, exact, makeConfig, makeRules } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import type { StoreOp } from "../stores/store.js";
import {
  type CheckRequest,
  createEngine,
  REQUEST_LIMIT_NAME,
  REQUEST_LIMIT_NAMESPACE,
  type RequestLimitOverride,
} from "./engine.js";

const T0 = 1_700_000_000_000;
const spec = (input: LimitSpecInput) => parseLimitSpec(input);
const user = (id: string): Descriptor => [{ key: "user", value: id }];
const desc = (...pairs: [string, string][]): Descriptor => pairs.map(([key, value]) => ({ key, value }));
const perSecond = (n: number): RequestLimitOverride => ({ requestsPerUnit: n, unitMs: 1000 });

/** Rules of domain `api`: one per user (1 a second, or shadow), a blocked user, and a replacing pair. */
const RULES = makeRules([
  {
    id: "per-user",
    domain: "api",
    match: [any("user")],
    limits: [spec({ name: "per-user", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
  },
  {
    id: "audit",
    domain: "api",
    match: [any("tenant")],
    behaviour: "shadow",
    limits: [spec({ name: "audit", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
  },
  { id: "banned", domain: "api", match: [exact("ip", "10.6.6.6")], blocked: true },
  {
    id: "global",
    domain: "api",
    match: [any("ip")],
    limits: [spec({ name: "global", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
  },
  {
    id: "partner",
    domain: "api",
    match: [exact("partner", "acme")],
    limits: [spec({ name: "partner", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
    replaces: ["global"],
  },
]);

function setup(defaults: Partial<RuleDefaults> = {}, rules = RULES) {
  const clock = new ManualClock(T0);
  const store = new MemoryStore({ capacity: 1000 });
  const config: SluiceConfig = makeConfig({ rules, defaults: { ...DEFAULT_TEST_DEFAULTS, ...defaults } });
  const engine = createEngine({ config, store, clock, scheduler: clock });
  const check = (req: Omit<CheckRequest, "domain"> & { domain?: string }) =>
    engine.checkSync({ domain: "api", ...req });
  return { clock, store, engine, check };
}

/** Every item `store` was given, as namespace, key and operation, in order. */
function seenOf(store: AsyncMemoryStore): { namespace: string; key: string; op: StoreOp }[] {
  return store.calls.flatMap((c) =>
    c.items.map((it) => ({ namespace: it.limits.namespace, key: it.key, op: c.op })),
  );
}

describe("engine — a request's own limits (limitOverrides)", () => {
  it("limits a descriptor no rule matches, reporting the limit and its source", () => {
    const { check, clock } = setup({ algorithm: "fixed_window" });
    const req = { descriptors: [desc(["path", "/a"])], limitOverrides: [perSecond(2)] };
    for (let i = 0; i < 2; i++) expect(check(req).allowed).toBe(true);
    const over = check(req);
    expect(over.allowed).toBe(false);
    const r = over.descriptors[0];
    expect(r).toMatchObject({ code: "OVER_LIMIT", source: "request", shadowed: false, delayMs: 0 });
    expect(r.match).toBeUndefined();
    expect(r.limits).toEqual([
      parseLimitSpec({ name: REQUEST_LIMIT_NAME, algorithm: "fixed_window", limit: 2, periodMs: 1000 }),
    ]);
    expect(r.decision).toMatchObject({ allowed: false, policy: REQUEST_LIMIT_NAME, limit: 2, remaining: 0 });
    clock.advance(1000);
    expect(check(req).allowed).toBe(true);
  });

  it("applies nothing in a domain without rules, as envoyproxy/ratelimit", () => {
    const { check, store } = setup();
    const r = check({ domain: "elsewhere", descriptors: [user("1")], limitOverrides: [perSecond(0)] });
    expect(r.allowed).toBe(true);
    expect(r.descriptors[0]).toEqual({ code: "OK", limits: undefined, shadowed: false, delayMs: 0 });
    expect(store.stats.size).toBe(0);
  });

  it("replaces the matched rule's limits, and never touches the rule's counter", () => {
    const { check } = setup();
    const req = { descriptors: [user("7")], limitOverrides: [perSecond(3)] };
    for (let i = 0; i < 3; i++) {
      const r = check(req);
      expect(r.allowed).toBe(true);
      expect(r.descriptors[0].source).toBe("request");
      expect(r.descriptors[0].decision?.remaining).toBe(2 - i);
    }
    expect(check(req).allowed).toBe(false);
    // The rule (1 a second) was not counted: without the override, user 7 still has its one request.
    const plain = check({ descriptors: [user("7")] });
    expect(plain.allowed).toBe(true);
    expect(plain.descriptors[0]).toMatchObject({ source: "rule", match: { counterKey: "7" } });
    expect(check({ descriptors: [user("7")] }).allowed).toBe(false);
  });

  it("is never shadow, and applies to an unlimited or blocked rule's descriptor", () => {
    const rules = makeRules([
      ...RULES,
      { id: "free", domain: "api", match: [exact("user", "vip")], unlimited: true },
    ]);
    const { check } = setup({}, rules);
    // `tenant` matches the shadow rule: the override still denies.
    const tenant = { descriptors: [desc(["tenant", "t1"])], limitOverrides: [perSecond(1)] };
    expect(check(tenant).allowed).toBe(true);
    const denied = check(tenant);
    expect(denied.allowed).toBe(false);
    expect(denied.descriptors[0]).toMatchObject({ code: "OVER_LIMIT", shadowed: false });
    // An unlimited rule's descriptor and a blocked rule's descriptor are limited by the override instead.
    const vip = { descriptors: [user("vip")], limitOverrides: [perSecond(1)] };
    expect(check(vip).allowed).toBe(true);
    expect(check(vip).allowed).toBe(false);
    const banned = { descriptors: [desc(["ip", "10.6.6.6"])], limitOverrides: [perSecond(1)] };
    expect(check(banned).allowed).toBe(true);
  });

  it("blocks with a limit of 0: denied, nothing counted, the other descriptors not evaluated", () => {
    const { check, store } = setup();
    const r = check({
      descriptors: [user("1"), desc(["path", "/a"])],
      limitOverrides: [undefined, perSecond(0)],
    });
    expect(r.allowed).toBe(false);
    expect(r.decision).toMatchObject({
      allowed: false,
      policy: REQUEST_LIMIT_NAME,
      retryAfterMs: Number.POSITIVE_INFINITY,
    });
    expect(r.descriptors[1]).toMatchObject({
      code: "OVER_LIMIT",
      source: "request",
      decision: { allowed: false },
    });
    expect(r.descriptors[1].limits).toMatchObject([{ name: REQUEST_LIMIT_NAME, limit: 0, periodMs: 1000 }]);
    expect(r.descriptors[0]).toMatchObject({ code: "OK", source: "rule" });
    expect(r.descriptors[0].decision).toBeUndefined();
    expect(store.stats.size).toBe(0);
  });

  it("is all-or-nothing with the rules' descriptors", () => {
    const { check } = setup();
    const req = { descriptors: [user("1"), desc(["path", "/a"])], limitOverrides: [undefined, perSecond(5)] };
    expect(check(req).descriptors[1].decision?.remaining).toBe(4);
    const denied = check(req); // the rule allows 1 a second
    expect(denied.allowed).toBe(false);
    expect(denied.descriptors[0].code).toBe("OVER_LIMIT");
    expect(denied.descriptors[1].code).toBe("OK");
    // The override's counter was not consumed by the denied request.
    const alone = check({ descriptors: [desc(["path", "/a"])], limitOverrides: [perSecond(5)] });
    expect(alone.descriptors[0].decision?.remaining).toBe(3);
  });

  it("takes no part in replaces, neither replaced nor replacing", () => {
    const { check } = setup();
    const ip = desc(["ip", "10.0.0.1"]);
    const partner = desc(["partner", "acme"]);
    // The partner rule replaces `global`, but the ip descriptor carries its own limit: it is counted.
    const r = check({ descriptors: [ip, partner], limitOverrides: [perSecond(5), undefined] });
    expect(r.descriptors[0]).toMatchObject({ source: "request", code: "OK" });
    expect(r.descriptors[0].replacedBy).toBeUndefined();
    expect(r.descriptors[0].decision?.remaining).toBe(4);
    // With its own limit, the partner descriptor does not replace `global` (which then counts its one request).
    const s = check({ descriptors: [ip, partner], limitOverrides: [undefined, perSecond(5)] });
    expect(s.descriptors[0]).toMatchObject({ source: "rule", code: "OK" });
    expect(s.descriptors[0].replacedBy).toBeUndefined();
    expect(s.descriptors[0].decision?.remaining).toBe(0);
  });

  it("counts under the descriptor's full key, in its own namespace, on the sync and the async path", async () => {
    const store = new AsyncMemoryStore();
    const clock = new ManualClock(T0);
    const engine = createEngine({ config: makeConfig({ rules: RULES }), store, clock, scheduler: clock });
    const descriptors = [desc(["user", "a|b"], ["path", "/x=1"])];
    const r = await engine.check({ domain: "api", descriptors, limitOverrides: [perSecond(2)] });
    expect(r.allowed).toBe(true);
    expect(seenOf(store)).toEqual([
      { namespace: REQUEST_LIMIT_NAMESPACE, key: "api|user=a%7Cb|path=/x%3D1", op: "consume" },
    ]);
    // The sync path (memory) keys it the same: other domains and other values are other counters.
    const { check } = setup();
    const one = { descriptors: [user("1")], limitOverrides: [perSecond(1)] };
    expect(check(one).allowed).toBe(true);
    expect(check(one).allowed).toBe(false);
    expect(check({ ...one, descriptors: [user("2")] }).allowed).toBe(true);
    expect(check({ ...one, descriptors: [desc(["user", "1"], ["x", "y"])] }).allowed).toBe(true);
  });

  it("keeps a descriptor's counter when the limit it carries changes (as envoyproxy/ratelimit)", () => {
    const { check } = setup({ algorithm: "fixed_window" });
    const d = [user("1")];
    expect(check({ descriptors: d, limitOverrides: [perSecond(3)] }).allowed).toBe(true);
    expect(check({ descriptors: d, limitOverrides: [perSecond(3)] }).allowed).toBe(true);
    expect(check({ descriptors: d, limitOverrides: [perSecond(2)] }).allowed).toBe(false);
    expect(check({ descriptors: d, limitOverrides: [perSecond(3)] }).allowed).toBe(true);
  });

  it("uses the configuration's default algorithm (fixed_window for concurrency)", () => {
    for (const [algorithm, used] of [
      ["gcra", "gcra"],
      ["token_bucket", "token_bucket"],
      ["concurrency", "fixed_window"],
    ] as const) {
      const { check } = setup({ algorithm });
      const r = check({ descriptors: [user("1")], limitOverrides: [perSecond(4)] });
      expect(r.descriptors[0].limits, algorithm).toMatchObject([
        { algorithm: used, limit: 4, periodMs: 1000 },
      ]);
    }
  });

  it("applies costs, and refuses a fractional one unless the algorithm is a rate", () => {
    const fixed = setup({ algorithm: "fixed_window" });
    const req = { descriptors: [user("1")], limitOverrides: [perSecond(10)] };
    expect(fixed.check({ ...req, costs: [4] }).descriptors[0].decision?.remaining).toBe(6);
    expect(() => fixed.check({ ...req, cost: 0.5 })).toThrow(
      /cost must be a whole number for the request's own limit \(fixed_window\), got 0\.5/,
    );
    const gcra = setup({ algorithm: "gcra" });
    expect(gcra.check({ ...req, cost: 0.5 }).allowed).toBe(true);
  });

  it("with a sliding_log default, counts request limits as sliding_window: no state sized by a limit that changes", () => {
    const { check, clock } = setup({ algorithm: "sliding_log" });
    const big = check({ descriptors: [user("1"), user("2")], limitOverrides: [undefined, perSecond(1e6)] });
    expect(big.descriptors[1].limits).toMatchObject([{ algorithm: "sliding_window", limit: 1e6 }]);
    // Requests of one descriptor sending limit 2, of another limit 1, in turn: each keeps its own count (before,
    // the memory store re-laid the shared namespace on each turn and cut the first descriptor's log).
    const route = (r: string, n: number) =>
      check({ descriptors: [desc(["route", r])], limitOverrides: [{ requestsPerUnit: n, unitMs: 10_000 }] })
        .allowed;
    const seen: boolean[] = [];
    seen.push(route("a", 2));
    clock.advance(7300);
    seen.push(route("a", 2));
    clock.advance(6200);
    seen.push(route("b", 1));
    clock.advance(3100);
    seen.push(route("a", 2));
    clock.advance(100);
    seen.push(route("a", 2));
    expect(seen).toEqual([true, true, true, true, false]);
  });

  it("validates limitOverrides, naming the entry", async () => {
    const { check, engine } = setup();
    const bad: [unknown, RegExp][] = [
      [
        [],
        /^checkSync: limitOverrides must be an array with one entry .* per descriptor \(1\), got 0 entries$/,
      ],
      ["x", /^checkSync: limitOverrides must be an array .*, got a string of 1 characters$/],
      [
        [null],
        /^checkSync: limitOverrides\[0\] must be undefined or \{ requestsPerUnit, unitMs \}, got null$/,
      ],
      [
        [{ requestsPerUnit: -1, unitMs: 1000 }],
        /^checkSync: limitOverrides\[0\]\.requestsPerUnit must be a whole number from 0 to 4294967295, got -1$/,
      ],
      [[{ requestsPerUnit: 1.5, unitMs: 1000 }], /limitOverrides\[0\]\.requestsPerUnit .* got 1\.5$/],
      [
        [{ requestsPerUnit: 2 ** 32, unitMs: 1000 }],
        /limitOverrides\[0\]\.requestsPerUnit .* got 4294967296$/,
      ],
      [[{ unitMs: 1000 }], /limitOverrides\[0\]\.requestsPerUnit .* got undefined$/],
      [
        [{ requestsPerUnit: 1, unitMs: 0 }],
        /^checkSync: limitOverrides\[0\]\.unitMs must be a finite number of milliseconds > 0, got 0$/,
      ],
      [
        [{ requestsPerUnit: 1, unitMs: Number.POSITIVE_INFINITY }],
        /limitOverrides\[0\]\.unitMs .* got Infinity$/,
      ],
      [[{ requestsPerUnit: 1, unitMs: Number.NaN }], /limitOverrides\[0\]\.unitMs .* got NaN$/],
      [
        [{ requestsPerUnit: 1, unitMs: "1s" }],
        /limitOverrides\[0\]\.unitMs .* got a string of 2 characters$/,
      ],
    ];
    for (const [limitOverrides, message] of bad) {
      const req = { descriptors: [user("1")], limitOverrides } as unknown as CheckRequest;
      expect(() => check(req), JSON.stringify(limitOverrides)).toThrow(InvalidArgumentError);
      expect(() => check(req), JSON.stringify(limitOverrides)).toThrow(message);
    }
    await expect(
      engine.check({
        domain: "api",
        descriptors: [user("1")],
        limitOverrides: [{ requestsPerUnit: -1, unitMs: 1 }],
      }),
    ).rejects.toThrow(/^check: limitOverrides\[0\]\.requestsPerUnit/);
    // check() names itself, though on the memory store it runs checkSync.
    await expect(engine.check({ domain: "api", descriptors: [user("1")], cost: -1 })).rejects.toThrow(
      /^check: cost /,
    );
    // The largest Envoy limit is accepted.
    expect(
      check({ descriptors: [user("1")], limitOverrides: [{ requestsPerUnit: 2 ** 32 - 1, unitMs: 1 }] })
        .allowed,
    ).toBe(true);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { effectiveLimits } from "../rules/effective-limits.js";
import { parseConfig } from "../rules/load-config.js";
import type { Descriptor, SluiceConfig } from "../rules/rule.js";
import { any, exact, makeConfig, makeOverride, makeRule, makeRules, path } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import type { Store } from "../stores/store.js";
import {
  type CheckRequest,
  createEngine,
  type Engine,
  type EngineEvents,
  NO_LIMIT_DECISION,
} from "./engine.js";

const T0 = 1_700_000_000_000;
const spec = (input: LimitSpecInput) => parseLimitSpec(input);
const user = (id: string): Descriptor => [{ key: "user", value: id }];
const endpoint = (p: string): Descriptor => [{ key: "endpoint", value: p }];

function setup(config: SluiceConfig, start = T0) {
  const clock = new ManualClock(start);
  const store = new MemoryStore({ capacity: 1000 });
  const engine = createEngine({ config, store, clock, scheduler: clock });
  const check = (req: Omit<CheckRequest, "domain"> & { domain?: string }) =>
    engine.checkSync({ domain: "api", ...req });
  return { clock, store, engine, check };
}

/** A store that delegates to memory until told to fail. */
class FlakyStore extends AsyncMemoryStore {
  override readonly name = "flaky";
}

describe("engine — matching and counting", () => {
  const config = makeConfig({
    rules: makeRules([
      {
        id: "per-user",
        domain: "api",
        match: [any("user")],
        limits: [spec({ name: "per-second", algorithm: "fixed_window", limit: 3, periodMs: 1000 })],
      },
      {
        id: "per-endpoint",
        domain: "api",
        match: [path("endpoint", "/orders/*")],
        limits: [spec({ name: "orders", algorithm: "fixed_window", limit: 2, periodMs: 1000 })],
      },
      { id: "health", domain: "api", match: [exact("endpoint", "/health")], unlimited: true },
    ]),
  });

  it("answers OK with the no-limit decision when nothing matches, and for no descriptors", () => {
    const { check, store } = setup(config);
    for (const r of [
      check({ domain: "other", descriptors: [user("1")] }),
      check({ descriptors: [[{ key: "tenant", value: "x" }]] }),
      check({ descriptors: [endpoint("/orders")] }), // `/orders/*` needs one more segment
    ]) {
      expect(r).toMatchObject({ allowed: true, delayMs: 0, replayed: false });
      expect(r.decision).toBe(NO_LIMIT_DECISION);
      expect(r.descriptors).toEqual([{ code: "OK", limits: undefined, shadowed: false, delayMs: 0 }]);
    }
    const empty = check({ descriptors: [] });
    expect(empty).toMatchObject({ allowed: true, descriptors: [], decision: NO_LIMIT_DECISION });
    expect(store.stats.size).toBe(0);
  });

  it("allows unlimited rules without touching the store", () => {
    const { check, store } = setup(config);
    for (let i = 0; i < 10; i++) {
      const r = check({ descriptors: [endpoint("/health")] });
      expect(r.allowed).toBe(true);
      expect(r.descriptors[0]).toMatchObject({ code: "OK", limits: "unlimited", source: "rule" });
      expect(r.descriptors[0].match?.rule.id).toBe("health");
      expect(r.descriptors[0].decision).toBeUndefined();
    }
    expect(store.stats.size).toBe(0);
  });

  it("counts one descriptor per counter key, with per-descriptor results in request order", () => {
    const { check } = setup(config);
    const r = check({ descriptors: [endpoint("/health"), user("42"), endpoint("/orders/7")] });
    expect(r.allowed).toBe(true);
    expect(r.descriptors.map((d) => d.match?.rule.id)).toEqual(["health", "per-user", "per-endpoint"]);
    expect(r.descriptors[1]).toMatchObject({ code: "OK", source: "rule", decision: { remaining: 2 } });
    // One variable entry: its value is the key (the rule's namespace keeps it apart from other rules').
    expect(r.descriptors[1].match?.counterKey).toBe("42");
    // The path pattern is shared: every order endpoint counts together.
    expect(r.descriptors[2].match?.counterKey).toBe("endpoint=/orders/*");
    expect(r.decision).toMatchObject({ allowed: true, policy: "orders", remaining: 1 });
    expect(r.decision.policies.map((p) => p.policy)).toEqual(["per-second", "orders"]);
  });

  it("is all-or-nothing across descriptors: a request denied by one is consumed from none", () => {
    const { check } = setup(config);
    const both = () => check({ descriptors: [user("1"), endpoint("/orders/1")] });
    expect(both().allowed).toBe(true);
    expect(both().allowed).toBe(true);
    const denied = both();
    expect(denied.allowed).toBe(false);
    expect(denied.descriptors.map((d) => d.code)).toEqual(["OK", "OVER_LIMIT"]);
    expect(denied.descriptors[0].decision?.allowed).toBe(false); // not consumed …
    expect(denied.decision).toMatchObject({ allowed: false, policy: "orders", state: "throttled" });
    expect(denied.delayMs).toBe(0);
    // … so user 1 still has exactly one unit left (3 − 2).
    expect(check({ descriptors: [user("1")] }).decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(check({ descriptors: [user("1")] }).allowed).toBe(false);
  });

  it("applies per-descriptor costs; 0 checks without counting", () => {
    const { check } = setup(config);
    const r = check({ descriptors: [user("1"), endpoint("/orders/1")], costs: [2, 0] });
    expect(r.descriptors[0].decision?.remaining).toBe(1);
    expect(r.descriptors[1].decision?.remaining).toBe(2);
    expect(check({ descriptors: [endpoint("/orders/1")], cost: 2 }).decision.remaining).toBe(0);
    // At the limit, a check-only descriptor is still OK (Envoy: over only when already over).
    expect(check({ descriptors: [endpoint("/orders/1")], cost: 0 }).allowed).toBe(true);
    const over = check({ descriptors: [user("1"), endpoint("/orders/1")], costs: [undefined, 1] });
    expect(over.allowed).toBe(false);
    expect(check({ descriptors: [user("1")], cost: 1 }).decision.remaining).toBe(0);
  });

  it("drops a descriptor whose rule another matched rule replaces", () => {
    const rules = makeRules([
      {
        id: "global",
        domain: "api",
        match: [any("ip")],
        limits: [spec({ algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
      },
      {
        id: "partner",
        domain: "api",
        match: [exact("partner", "acme")],
        limits: [spec({ algorithm: "fixed_window", limit: 5, periodMs: 1000 })],
        replaces: ["global"],
      },
    ]);
    const { check } = setup(makeConfig({ rules }));
    const req = { descriptors: [[{ key: "ip", value: "10.0.0.1" }], [{ key: "partner", value: "acme" }]] };
    for (let i = 0; i < 5; i++) {
      const r = check(req);
      expect(r.allowed).toBe(true);
      expect(r.descriptors[0]).toMatchObject({ code: "OK", replacedBy: "partner", limits: undefined });
      expect(r.descriptors[0].decision).toBeUndefined();
      expect(r.descriptors[1].decision?.remaining).toBe(4 - i);
    }
    expect(check(req).allowed).toBe(false);
    // Alone, the global rule applies and was never counted.
    expect(check({ descriptors: [[{ key: "ip", value: "10.0.0.1" }]] }).allowed).toBe(true);
    expect(check({ descriptors: [[{ key: "ip", value: "10.0.0.1" }]] }).allowed).toBe(false);
  });
});

/**
 * Rules of every kind a request of several descriptors can meet: counted (a window, a rate), shadow, blocked and
 * unlimited. Shared by the tests of the asynchronous path and of counting `each`.
 */
const MIXED_RULES = makeRules([
  {
    id: "per-user",
    domain: "api",
    match: [any("user")],
    limits: [spec({ name: "per-second", algorithm: "fixed_window", limit: 3, periodMs: 1000 })],
  },
  {
    id: "per-endpoint",
    domain: "api",
    match: [path("endpoint", "/orders/*")],
    limits: [spec({ name: "orders", algorithm: "gcra", limit: 2, periodMs: 1000 })],
  },
  {
    id: "trial",
    domain: "api",
    match: [any("trial")],
    behaviour: "shadow",
    limits: [spec({ name: "t", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
  },
  { id: "banned", domain: "api", match: [exact("user", "evil")], blocked: true },
  { id: "health", domain: "api", match: [exact("endpoint", "/health")], unlimited: true },
]);

describe("engine — counting each (envoyproxy/ratelimit's default)", () => {
  const config = makeConfig({ rules: MIXED_RULES });

  for (const kind of ["sync", "async"] as const) {
    const make = () => {
      const clock = new ManualClock(T0);
      const store = kind === "sync" ? new MemoryStore({ capacity: 100 }) : new AsyncMemoryStore();
      const engine = createEngine({ config, store, clock, scheduler: clock, counting: "each" });
      return (req: Omit<CheckRequest, "domain">) => engine.check({ domain: "api", ...req });
    };

    it(`${kind}: a denied request still counts every descriptor whose limits pass`, async () => {
      const check = make();
      const both = () => check({ descriptors: [user("1"), endpoint("/orders/1")] });
      expect((await both()).allowed).toBe(true);
      expect((await both()).allowed).toBe(true);
      const denied = await both(); // orders is used up (2 of 2); user 1's third unit is taken all the same
      expect(denied.allowed).toBe(false);
      expect(denied.descriptors.map((d) => d.code)).toEqual(["OK", "OVER_LIMIT"]);
      expect(denied.descriptors[0].decision).toMatchObject({ allowed: true, remaining: 0 });
      expect(denied.decision).toMatchObject({ allowed: false, state: "throttled" });
      // All or nothing would have left user 1 one unit; here it has none.
      expect((await check({ descriptors: [user("1")] })).allowed).toBe(false);
    });

    it(`${kind}: a blocked descriptor denies, and the others count; a shadow one counts too`, async () => {
      const check = make();
      const r = await check({
        descriptors: [user("evil"), endpoint("/orders/1"), [{ key: "trial", value: "x" }]],
      });
      expect(r.allowed).toBe(false);
      expect(r.descriptors.map((d) => d.code)).toEqual(["OVER_LIMIT", "OK", "OK"]);
      expect(r.descriptors[1].decision).toMatchObject({ allowed: true, remaining: 1 });
      expect(r.descriptors[2].decision).toMatchObject({ allowed: true, remaining: 0 });
      expect((await check({ descriptors: [endpoint("/orders/1")] })).decision.remaining).toBe(0);
    });
  }

  it("refuses an unknown counting mode", () => {
    expect(() => createEngine({ config, counting: "some" as never })).toThrow(/counting must be/);
  });
});

describe("engine — namespaces", () => {
  it("never share counters between rules whose domain or id holds '/' (or a dynamic rule's traffic counters)", () => {
    const fixed = (limit: number) => [
      spec({ name: "m", algorithm: "fixed_window", limit, periodMs: 60_000 }),
    ];
    const config = makeConfig({
      rules: makeRules([
        { id: "rate", domain: "a/b", match: [any("user")], limits: fixed(3) },
        {
          id: "b",
          domain: "a",
          match: [any("user")],
          limits: fixed(1000),
          dynamic: { windowMs: 1000, recentWeight: 0.5, multiplier: 2 },
        },
        { id: "b/rate", domain: "a", match: [any("ip")], limits: fixed(3) },
        { id: "x", domain: "a/b/rate", match: [any("ip")], limits: fixed(3) },
      ]),
    });
    const { check } = setup(config);
    for (let i = 0; i < 5; i++) check({ domain: "a", descriptors: [user("42")] });
    expect(check({ domain: "a/b", descriptors: [user("42")] }).decision.remaining).toBe(2);
    expect(check({ domain: "a", descriptors: [[{ key: "ip", value: "42" }]] }).decision.remaining).toBe(2);
    expect(
      check({ domain: "a/b/rate", descriptors: [[{ key: "ip", value: "42" }]] }).decision.remaining,
    ).toBe(2);
  });
});

describe("engine — the asynchronous path answers as the synchronous one", () => {
  const rules = MIXED_RULES;

  it("one store call for the counted descriptors, or the general path: the same results, the same errors", async () => {
    const config = makeConfig({ rules });
    const sync = setup(config);
    const flaky = new FlakyStore();
    const clock = new ManualClock(T0);
    const engine = createEngine({ config, store: flaky, clock, scheduler: clock });
    const requests: Omit<CheckRequest, "domain">[] = [
      { descriptors: [user("1")] },
      { descriptors: [user("1"), endpoint("/orders/7")] },
      { descriptors: [user("1"), endpoint("/orders/7"), [{ key: "nothing", value: "x" }]] },
      { descriptors: [user("1")], cost: 2 },
      { descriptors: [endpoint("/health")] },
      { descriptors: [[{ key: "nothing", value: "x" }]] },
      { descriptors: [[{ key: "trial", value: "a" }], user("2")] },
      { descriptors: [[{ key: "trial", value: "a" }], user("2")] },
      { descriptors: [user("evil"), endpoint("/orders/1")] },
      { descriptors: [user("3"), endpoint("/orders/1")], costs: [1, 3] },
    ];
    for (let round = 0; round < 2; round++) {
      for (const req of requests) {
        const want = sync.engine.checkSync({ domain: "api", ...req });
        expect(await engine.check({ domain: "api", ...req })).toEqual(want);
      }
      sync.clock.advance(400);
      clock.advance(400);
    }
    const bad = { domain: "api", descriptors: [user("1")], cost: 0.5 };
    expect(() => sync.engine.checkSync(bad)).toThrow(/cost/);
    await expect(engine.check(bad)).rejects.toThrow(/cost/);
    await expect(engine.check({ domain: "api", descriptors: "x" } as never)).rejects.toThrow(/descriptors/);
  });
});

describe("engine — blocked rules (requests_per_unit: 0)", () => {
  const rules = makeRules([
    { id: "banned", domain: "api", match: [exact("user", "evil")], blocked: true },
    { id: "audit", domain: "api", match: [exact("user", "watch")], blocked: true, behaviour: "shadow" },
    {
      id: "orders",
      domain: "api",
      match: [any("endpoint")],
      limits: [spec({ name: "orders", algorithm: "fixed_window", limit: 5, periodMs: 1000 })],
    },
  ]);

  it("denies without counting anything; a shadow one only reports", () => {
    const { check, store, engine } = setup(makeConfig({ rules }));
    const r = check({ descriptors: [user("evil"), endpoint("/a")] });
    expect(r.allowed).toBe(false);
    expect(r.decision).toMatchObject({
      allowed: false,
      policy: "banned",
      retryAfterMs: Number.POSITIVE_INFINITY,
    });
    expect(r.descriptors[0]).toMatchObject({ code: "OVER_LIMIT", limits: [], decision: { allowed: false } });
    expect(r.descriptors[1]).toMatchObject({ code: "OK", limits: rules[2].limits });
    expect(r.descriptors[1].decision).toBeUndefined(); // not evaluated
    expect(store.stats.size).toBe(0);
    expect(check({ descriptors: [user("evil")] }).allowed).toBe(false);
    const watched = check({ descriptors: [user("watch"), endpoint("/a")] });
    expect(watched.allowed).toBe(true);
    expect(watched.descriptors[0]).toMatchObject({ code: "OK", shadowed: true });
    expect(watched.descriptors[1].decision?.remaining).toBe(4);
    expect(engine.stats).toMatchObject({ checks: 3, denied: 2, shadowed: 1 });
  });
});

describe("engine — an envoyproxy/ratelimit configuration, unchanged", () => {
  const config = parseConfig(
    `domain: edge
descriptors:
  - key: remote_address
    rate_limit: { unit: second, requests_per_unit: 2 }
  - key: remote_address
    value: 10.0.0.9
    rate_limit:
      name: vip
      unit: second
      requests_per_unit: 5
      replaces: [{ name: global }]
  - key: path
    value: /admin
    rate_limit: { unit: second, requests_per_unit: 0 }
  - key: path
    value: /beta
    shadow_mode: true
    rate_limit: { unit: second, requests_per_unit: 1 }
  - key: tenant
    rate_limit: { name: global, unit: minute, requests_per_unit: 3 }
`,
    { source: "edge.yaml" },
  );
  const d = (key: string, value: string): Descriptor => [{ key, value }];

  it("answers per descriptor with replaces, shadow_mode and requests_per_unit 0", () => {
    const { engine, clock } = setup(config, 1_700_000_000_000); // a whole second: fixed windows start here
    const check = (...descriptors: Descriptor[]) => engine.checkSync({ domain: "edge", descriptors });
    // vip replaces global: the tenant descriptor is not counted while the vip one matches.
    for (let i = 0; i < 5; i++) {
      const r = check(d("remote_address", "10.0.0.9"), d("tenant", "acme"));
      expect(r.allowed).toBe(true);
      expect(r.descriptors[1]).toMatchObject({ code: "OK", replacedBy: "remote_address=10.0.0.9" });
    }
    expect(
      check(d("remote_address", "10.0.0.9"), d("tenant", "acme")).descriptors.map((x) => x.code),
    ).toEqual(["OVER_LIMIT", "OK"]);
    expect(check(d("tenant", "acme")).decision).toMatchObject({ limit: 3, remaining: 2 });
    // requests_per_unit: 0 denies, counting nothing.
    expect(check(d("path", "/admin"), d("remote_address", "1.1.1.1")).descriptors.map((x) => x.code)).toEqual(
      ["OVER_LIMIT", "OK"],
    );
    // shadow_mode: over the limit, still OK.
    check(d("path", "/beta"));
    expect(check(d("path", "/beta")).descriptors[0]).toMatchObject({ code: "OK", shadowed: true });
    // Per-descriptor hits_addend: 0 checks only.
    const r = engine.checkSync({
      domain: "edge",
      descriptors: [d("remote_address", "1.1.1.1"), d("tenant", "t")],
      costs: [0, 3],
    });
    expect(r.descriptors.map((x) => x.decision?.remaining)).toEqual([2, 0]);
    clock.advance(1000);
    expect(check(d("remote_address", "10.0.0.9")).allowed).toBe(true);
  });
});

describe("engine — an identity taken from a path entry", () => {
  it("is the normalised path, as its counter key: a tier or override of `endpoint:/users/7` applies to `/users/7?x`", async () => {
    const fixed = (name: string, limit: number) => [
      spec({ name, algorithm: "fixed_window", limit, periodMs: 60_000 }),
    ];
    const config = makeConfig({
      rules: [
        makeRule({
          id: "per-endpoint",
          domain: "api",
          match: [path("endpoint", "/users/:id", false)],
          identityKey: "endpoint",
          limits: fixed("rule", 100),
          tiers: { gold: fixed("gold", 2) },
        }),
      ],
      identities: { "endpoint:/users/9": "gold" },
      overrides: [makeOverride({ identity: "endpoint:/users/7", limits: fixed("override", 1) })],
    });
    const { check, engine } = setup(config);
    const at = (p: string) => check({ descriptors: [endpoint(p)] });
    expect(at("/users/7?x=1").descriptors[0]).toMatchObject({
      source: "override",
      match: { identity: "endpoint:/users/7" },
    });
    expect(at("//users/7/").allowed).toBe(false); // the same counter, under the override's limit of 1
    expect(at("/users/9?y").descriptors[0]).toMatchObject({ source: "tier", decision: { remaining: 1 } });
    expect(at("/users/9").decision.remaining).toBe(0);
    expect(at("/users/8?z").descriptors[0]).toMatchObject({ source: "rule", decision: { remaining: 99 } });
    // The asynchronous path answers alike.
    const r = await engine.check({ domain: "api", descriptors: [endpoint("/users/9/?q")] });
    expect([r.allowed, r.descriptors[0].source]).toEqual([false, "tier"]);
  });
});

describe("engine — tiers and overrides", () => {
  const rule = makeRule({
    id: "per-user",
    domain: "api",
    match: [any("user")],
    limits: [spec({ name: "rule", algorithm: "fixed_window", limit: 2, periodMs: 60_000 })],
    tiers: {
      premium: [spec({ name: "premium", algorithm: "fixed_window", limit: 5, periodMs: 60_000 })],
      internal: "unlimited",
    },
  });
  const config = makeConfig({
    rules: [rule],
    identities: { "user:p": "premium", "user:i": "internal", "user:o": "premium" },
    overrides: [
      makeOverride({
        identity: "user:o",
        limits: [spec({ name: "override", algorithm: "fixed_window", limit: 1, periodMs: 60_000 })],
        expiresAtMs: T0 + 1000,
      }),
    ],
  });

  it("uses the tier's limits, in the tier's own namespace; an unlimited tier is never counted", () => {
    const { check, store } = setup(config);
    const p = check({ descriptors: [user("p")] });
    expect(p.descriptors[0]).toMatchObject({ source: "tier", decision: { policy: "premium", remaining: 4 } });
    expect(p.descriptors[0].limits).toBe(rule.tiers.premium);
    const plain = check({ descriptors: [user("x")] });
    expect(plain.descriptors[0]).toMatchObject({
      source: "rule",
      decision: { policy: "rule", remaining: 1 },
    });
    const i = check({ descriptors: [user("i")] });
    expect(i.descriptors[0]).toMatchObject({ source: "tier", limits: "unlimited", code: "OK" });
    expect(store.stats.size).toBe(2);
  });

  it("applies an override until exactly its expiry instant, then the tier", () => {
    const { check, clock } = setup(config);
    const before = check({ descriptors: [user("o")] });
    expect(before.descriptors[0]).toMatchObject({
      source: "override",
      decision: { policy: "override", remaining: 0 },
    });
    clock.set(T0 + 999);
    expect(check({ descriptors: [user("o")] }).allowed).toBe(false);
    clock.set(T0 + 1000);
    const after = check({ descriptors: [user("o")] });
    expect(after.allowed).toBe(true);
    expect(after.descriptors[0]).toMatchObject({
      source: "tier",
      decision: { policy: "premium", remaining: 4 },
    });
  });
});

describe("engine — an identity's count carries over a change of tier or override", () => {
  const fw = (limit: number, name = "default") =>
    [spec({ name, algorithm: "fixed_window", limit, periodMs: 60_000 })] as const;
  const configOf = (identities: Record<string, string>, overrides: ReturnType<typeof makeOverride>[] = []) =>
    makeConfig({
      rules: [
        makeRule({
          id: "per-user",
          domain: "api",
          match: [any("user")],
          limits: [...fw(10)],
          tiers: { pro: [...fw(100)], odd: [...fw(100, "other-name")] },
        }),
      ],
      identities,
      overrides,
    });
  const use = (check: ReturnType<typeof setup>["check"], n: number) => {
    for (let i = 0; i < n; i++) expect(check({ descriptors: [user("42")] }).allowed).toBe(true);
  };

  it("keeps the count when the tier changes (same shape): 8 used of 10, then 92 left of 100", () => {
    const { check, engine } = setup(configOf({}));
    use(check, 8);
    engine.updateConfig(configOf({ "user:42": "pro" }));
    const d = check({ descriptors: [user("42")] }).descriptors[0];
    expect(d).toMatchObject({ source: "tier", decision: { limit: 100, remaining: 91 } });
    engine.updateConfig(configOf({})); // back to the rule: 9 used of 10
    expect(check({ descriptors: [user("42")] }).decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(check({ descriptors: [user("42")] }).allowed).toBe(false);
  });

  it("an override that lowers the limit denies at once, and the count stays when it expires", () => {
    const { check, engine, clock } = setup(configOf({}));
    use(check, 6);
    engine.updateConfig(
      configOf({}, [makeOverride({ identity: "user:42", limits: [...fw(5)], expiresAtMs: T0 + 1000 })]),
    );
    const denied = check({ descriptors: [user("42")] });
    expect(denied.allowed).toBe(false);
    expect(denied.descriptors[0]).toMatchObject({ source: "override", decision: { limit: 5, remaining: 0 } });
    clock.set(T0 + 1000); // expired: the rule's 10 again, 6 used
    expect(check({ descriptors: [user("42")] }).decision).toMatchObject({
      allowed: true,
      limit: 10,
      remaining: 3,
    });
  });

  it("a tier of another shape (other limit names) counts apart: its count starts afresh", () => {
    const { check, engine } = setup(configOf({}));
    use(check, 8);
    engine.updateConfig(configOf({ "user:42": "odd" }));
    expect(check({ descriptors: [user("42")] }).decision).toMatchObject({ limit: 100, remaining: 99 });
  });

  it("a window tier of another period counts apart (a window id means nothing under another period)", () => {
    const windows = (identities: Record<string, string>) =>
      makeConfig({
        rules: [
          makeRule({
            id: "per-user",
            domain: "api",
            match: [any("user")],
            limits: [spec({ name: "rate", algorithm: "fixed_window", limit: 2, periodMs: 1000 })],
            tiers: { slow: [spec({ name: "rate", algorithm: "fixed_window", limit: 5, periodMs: 60_000 })] },
          }),
        ],
        identities,
      });
    const { check, engine } = setup(windows({}));
    use(check, 2); // this second's window is full
    engine.updateConfig(windows({ "user:42": "slow" }));
    // Per-minute windows of its own: 5 now, then denied for less than a minute (not until the per-second window's
    // id, read as minutes, comes round, centuries ahead).
    use(check, 5);
    const denied = check({ descriptors: [user("42")] });
    expect(denied.allowed).toBe(false);
    expect(denied.decision.retryAfterMs).toBeLessThanOrEqual(60_000);
  });
});

describe("engine — a window rule reloaded with a longer period", () => {
  const rateConfig = (limit: number, periodMs: number) =>
    makeConfig({
      rules: [
        makeRule({
          id: "per-user",
          domain: "api",
          match: [any("user")],
          limits: [spec({ name: "rate", algorithm: "fixed_window", limit, periodMs })],
        }),
      ],
    });

  it("2 per second reloaded as 5 per minute keeps serving a user who had used 2 (the same state, read as fresh)", () => {
    const { check, engine, clock } = setup(rateConfig(2, 1000));
    const at = () => check({ descriptors: [user("42")] });
    expect(at().allowed).toBe(true);
    expect(at().allowed).toBe(true);
    expect(at().allowed).toBe(false); // this second's window is full
    engine.updateConfig(rateConfig(5, 60_000));
    // Same rule, name and namespace, so the same state: its per-second window id, read as minutes, lies
    // millennia ahead. It is no clock gone back: the user counts afresh in this minute (T0 is 20 s into it).
    for (let remaining = 4; remaining >= 0; remaining--) {
      expect(at().decision).toMatchObject({ allowed: true, limit: 5, remaining, resetAfterMs: 40_000 });
    }
    const denied = at().decision;
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: 40_000, resetAfterMs: 40_000 });
    clock.set(T0 + 40_000); // the next minute
    expect(at().decision).toMatchObject({ allowed: true, remaining: 4, resetAfterMs: 60_000 });
  });
});

describe("engine — a quota read (cost 0) of identities the store does not hold", () => {
  // GetRemainingQuota and the HTTP quota read are checks of cost 0: on a full memory store, reading the quota of new
  // identities must not take slots, evicting the used-up identities (whose next check would then be admitted).
  const hour = (name: string, limit: number) =>
    spec({ name, algorithm: "fixed_window", limit, periodMs: 3_600_000 });
  const config = makeConfig({
    rules: [
      // tiers of the rule's shape: the one-descriptor path steps them through the store's choice consumer
      makeRule({
        id: "per-user",
        domain: "api",
        match: [any("user")],
        limits: [hour("h", 3)],
        tiers: { pro: [hour("h", 5)] },
      }),
      makeRule({ id: "per-ip", domain: "api", match: [any("ip")], limits: [hour("h", 3)] }),
    ],
    identities: { "user:v1": "pro", "user:n1": "pro" },
  });
  const ip = (v: string): Descriptor => [{ key: "ip", value: v }];
  const victims = [user("v0"), user("v1"), ip("v2"), ip("v3")];
  const reads: Record<string, (i: number) => Descriptor[]> = {
    "a tiered rule (choice consumer)": (i) => [user(`n${i % 2}`)],
    "a rule without tiers (bound consumer)": (i) => [ip(`n${i}`)],
    "two descriptors (all-or-nothing call)": (i) => [user(`m${i}`), ip(`m${i}`)],
  };
  for (const [name, descriptors] of Object.entries(reads)) {
    it(`answers the fresh quota and evicts no used-up identity: ${name}`, () => {
      const clock = new ManualClock(T0);
      const store = new MemoryStore({ capacity: 4 });
      const engine = createEngine({ config, store, clock, scheduler: clock });
      const check = (req: Omit<CheckRequest, "domain">) => engine.checkSync({ domain: "api", ...req });
      for (const d of victims) while (check({ descriptors: [d] }).allowed);
      expect(store.stats).toMatchObject({ size: 4, evicted: 0 });
      for (let i = 0; i < 20; i++) {
        const q = check({ descriptors: descriptors(i), cost: 0 });
        expect(q.allowed).toBe(true);
        expect(q.descriptors.map((d) => d.decision?.remaining)).toEqual(
          q.descriptors.map((d) => d.decision?.limit),
        );
      }
      expect(store.stats).toEqual({ size: 4, capacity: 4, reclaimed: 0, evicted: 0, largeStateBytes: 0 });
      for (const d of victims) expect(check({ descriptors: [d] }).allowed).toBe(false);
    });
  }
});

describe("engine — limits resolved as effectiveLimits resolves them", () => {
  // Tiers and overrides are looked up without building the identity string (by identity key, then value); this
  // checks that every check still reports the source and limits effectiveLimits gives, on both the one-descriptor
  // path and the general one, with identity keys holding ":", tiers no rule defines, unlimited tiers and rules,
  // rule-specific and generic overrides, expired ones.
  const lim = (name: string, limit: number) =>
    spec({ name, algorithm: "fixed_window", limit, periodMs: 60_000 });
  const tierName = fc.constantFrom("gold", "silver", "bronze");
  const tierLimits = fc.oneof(
    fc.constant("unlimited" as const),
    fc.integer({ min: 1, max: 9 }).map((n) => [lim("t", n)]),
  );
  const keyName = fc.constantFrom("user", "a:b", "a");
  const valueText = fc.constantFrom("1", "2", "b:1", "x", "");
  const ruleArb = fc.record({
    key: keyName,
    second: fc.boolean(),
    tiers: fc.dictionary(tierName, tierLimits, { maxKeys: 3 }),
    unlimited: fc.boolean(),
    noIdentity: fc.boolean(),
  });
  const identityArb = fc.tuple(keyName, valueText, fc.constantFrom("gold", "silver", "bronze", "none"));
  const overrideArb = fc.record({
    key: keyName,
    value: valueText,
    rule: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    expired: fc.boolean(),
    unlimited: fc.boolean(),
  });

  it("reports the same source and limits for every identity", () => {
    fc.assert(
      fc.property(
        fc.array(ruleArb, { minLength: 1, maxLength: 4 }),
        fc.array(identityArb, { maxLength: 8 }),
        fc.array(overrideArb, { maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), valueText), { minLength: 1, maxLength: 6 }),
        (ruleInputs, ids, overrideInputs, queries) => {
          const rules = ruleInputs.map((r, i) =>
            makeRule({
              id: `r${i}`,
              domain: "api",
              // Distinct entry counts keep the rules apart: rule i matches descriptors of i + 1 entries.
              match: [
                any(r.key),
                ...Array.from({ length: i }, (_, j) => (r.second ? any(`k${j}`) : exact(`k${j}`, "v"))),
              ],
              ...(r.noIdentity ? { identityKey: undefined } : {}),
              unlimited: r.unlimited,
              limits: r.unlimited ? [] : [lim("rule", 5)],
              tiers: r.tiers,
            }),
          );
          const config = makeConfig({
            rules,
            identities: new Map(ids.map(([k, v, t]) => [`${k}:${v}`, t])),
            overrides: overrideInputs.map((o) =>
              makeOverride({
                identity: `${o.key}:${o.value}`,
                rule: o.rule === undefined ? undefined : `r${o.rule}`,
                limits: o.unlimited ? "unlimited" : [lim("override", 3)],
                expiresAtMs: o.expired ? T0 - 1 : undefined,
              }),
            ),
          });
          const { engine } = setup(config);
          const descriptorOf = (n: number, value: string): Descriptor => {
            const r = ruleInputs[n];
            return [
              { key: r.key, value },
              ...Array.from({ length: n }, (_, j) => ({ key: `k${j}`, value: "v" })),
            ];
          };
          const want = (n: number, value: string) => {
            const rule = rules[n];
            const identity = rule.identityKey === undefined ? undefined : `${rule.identityKey}:${value}`;
            const eff = effectiveLimits(config, rule, identity, T0);
            return { source: eff.source, limits: eff.limits };
          };
          for (const [pick, value] of queries) {
            const n = pick % rules.length;
            const one = engine.checkSync({ domain: "api", descriptors: [descriptorOf(n, value)], cost: 0 });
            const got = one.descriptors[0];
            expect({ source: got.source, limits: got.limits }).toEqual(want(n, value));
          }
          // The general path (several descriptors at once).
          const many = queries.map(([pick, value]) => descriptorOf(pick % rules.length, value));
          const all = engine.checkSync({ domain: "api", descriptors: many, cost: 0 });
          queries.forEach(([pick, value], i) => {
            const got = all.descriptors[i];
            expect({ source: got.source, limits: got.limits }).toEqual(want(pick % rules.length, value));
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("engine — behaviours", () => {
  it("shadow: never denies, reports and counts what would have been denied", () => {
    const rules = makeRules([
      {
        id: "shadow",
        domain: "api",
        match: [any("user")],
        behaviour: "shadow",
        limits: [spec({ algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
      },
      {
        id: "orders",
        domain: "api",
        match: [any("endpoint")],
        limits: [spec({ name: "orders", algorithm: "fixed_window", limit: 4, periodMs: 1000 })],
      },
    ]);
    const { check, engine } = setup(makeConfig({ rules }));
    const first = check({ descriptors: [user("1")] });
    expect(first.descriptors[0]).toMatchObject({ code: "OK", shadowed: false, decision: { remaining: 0 } });
    for (let i = 0; i < 2; i++) {
      const r = check({ descriptors: [user("1")] });
      expect(r.allowed).toBe(true);
      expect(r.descriptors[0]).toMatchObject({ code: "OK", shadowed: true, decision: { allowed: false } });
      expect(r.decision).toBe(NO_LIMIT_DECISION); // the shadowed denial is not the request's decision
    }
    expect(engine.stats.shadowed).toBe(2);
    // With an enforcing descriptor: the request's decision is the enforcing one's.
    const mixed = check({ descriptors: [user("2"), endpoint("/a")] });
    expect(mixed.decision.policies.map((p) => p.policy)).toEqual(["orders", "default"]);
    // A request the enforcing rule denies does not count in the shadow rule.
    const denied = check({ descriptors: [user("3"), endpoint("/a")], costs: [1, 4] });
    expect(denied.allowed).toBe(false);
    expect(denied.descriptors[0]).toMatchObject({ code: "OK", shadowed: false, decision: { remaining: 0 } });
    expect(check({ descriptors: [user("3")] }).descriptors[0].shadowed).toBe(false);
    expect(engine.stats).toMatchObject({ shadowed: 2, denied: 1 });
  });

  describe("delay", () => {
    // 10 per second (T = 100 ms), burst 10, waits of up to 500 ms.
    const rule = makeRule({
      id: "shape",
      domain: "api",
      match: [any("tenant")],
      behaviour: "delay",
      maxDelayMs: 500,
      limits: [spec({ name: "rate", algorithm: "gcra", limit: 10, periodMs: 1000 })],
    });
    const tenant = (t: string) => ({ descriptors: [[{ key: "tenant", value: t }]] });

    it("admits the burst at once, spaces the rest at the rate, rejects beyond maxDelayMs", () => {
      const { check, engine } = setup(makeConfig({ rules: [rule] }));
      const delays: number[] = [];
      for (let i = 0; i < 10; i++) delays.push(check(tenant("a")).delayMs);
      expect(delays).toEqual(Array(10).fill(0));
      for (let i = 1; i <= 5; i++) {
        const r = check(tenant("a"));
        expect(r).toMatchObject({ allowed: true, delayMs: 100 * i });
        expect(r.descriptors[0]).toMatchObject({ code: "OK", delayMs: 100 * i });
        expect(r.descriptors[0].limits).toBe(rule.limits); // reported as configured, not the shaping limit
      }
      const over = check(tenant("a"));
      expect(over).toMatchObject({ allowed: false, delayMs: 0 });
      expect(over.descriptors[0]).toMatchObject({ code: "OVER_LIMIT" });
      expect(over.decision.retryAfterMs).toBe(100);
      expect(engine.stats).toMatchObject({ delayed: 5, denied: 1 });
    });

    it("keeps admitted requests spaced at the rate when they keep coming", async () => {
      const { check, clock, engine } = setup(makeConfig({ rules: [rule] }));
      for (let i = 0; i < 15; i++) check(tenant("a")); // burst + 500 ms of reservations
      // Offered at 20/s for 2 s: admitted at most one per 100 ms beyond the reservations, never waiting > 500 ms.
      const starts: number[] = [];
      for (let i = 0; i < 40; i++) {
        clock.advance(50);
        const r = check(tenant("a"));
        expect(r.delayMs).toBeLessThanOrEqual(500);
        if (r.allowed) starts.push(clock.nowMs() + r.delayMs);
      }
      expect(starts.length).toBe(20);
      for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBe(100);
      // waitFor sleeps on the injected scheduler.
      const r = check({ ...tenant("b") });
      expect(r.delayMs).toBe(0);
      await engine.waitFor(r);
      for (let i = 0; i < 10; i++) check(tenant("b"));
      const waited = check(tenant("b"));
      let woke = false;
      const wait = engine.waitFor(waited).then(() => {
        woke = true;
      });
      expect(clock.pendingSleeps).toBe(1);
      clock.advance(waited.delayMs - 1);
      await Promise.resolve();
      expect(woke).toBe(false);
      clock.advance(1);
      await wait;
      expect(woke).toBe(true);
    });

    it("holds no queue: state stays one entry per key under any load", () => {
      const { check, store, clock } = setup(makeConfig({ rules: [rule] }));
      let admitted = 0;
      for (let i = 0; i < 10_000; i++) if (check(tenant("a")).allowed) admitted++;
      expect(admitted).toBe(15); // burst + maxDelayMs / T
      expect(store.stats.size).toBe(1);
      expect(clock.pendingSleeps).toBe(0);
      clock.advance(1500);
      expect(check(tenant("a"))).toMatchObject({ allowed: true, delayMs: 0 });
    });

    it("reports the largest delay of the descriptors", () => {
      const slow = makeRule({
        ...rule,
        id: "slow",
        match: [any("user")],
        identityKey: "user",
        maxDelayMs: 2000,
      });
      const { check } = setup(makeConfig({ rules: [rule, slow] }));
      for (let i = 0; i < 10; i++) check({ descriptors: [[{ key: "tenant", value: "a" }], user("1")] });
      for (let i = 0; i < 3; i++) check({ descriptors: [user("1")] });
      const r = check({ descriptors: [[{ key: "tenant", value: "a" }], user("1")] });
      expect(r.descriptors.map((d) => d.delayMs)).toEqual([100, 400]);
      expect(r.delayMs).toBe(400);
    });
  });
});

describe("engine — dynamic limits (seed 003, scaled: 10/s static, 10 s windows, w 0.75, m 1.5)", () => {
  const W = 10_000;
  const rule = makeRule({
    id: "dyn",
    domain: "api",
    match: [any("tenant")],
    limits: [spec({ name: "rate", algorithm: "gcra", limit: 10, periodMs: 1000 })],
    dynamic: { windowMs: W, recentWeight: 0.75, multiplier: 1.5 },
  });
  const config = makeConfig({ rules: [rule] });
  const start = Math.ceil(T0 / W) * W; // the first window starts here
  const req = (t: string, cost?: number) => ({
    domain: "api",
    descriptors: [[{ key: "tenant", value: t }]],
    ...(cost === undefined ? {} : { cost }),
  });

  /** Offers `perSecond` evenly over window `w` for each tenant; returns how many each got admitted. */
  async function window(
    engine: Engine,
    clock: ManualClock,
    w: number,
    load: Record<string, number>,
  ): Promise<Record<string, number>> {
    const events: [number, string][] = [];
    for (const [t, perSecond] of Object.entries(load)) {
      const n = (perSecond * W) / 1000;
      for (let i = 0; i < n; i++) events.push([start + w * W + ((i + 0.5) * W) / n, t]);
    }
    events.sort((a, b) => a[0] - b[0]);
    const admitted: Record<string, number> = Object.fromEntries(Object.keys(load).map((t) => [t, 0]));
    for (const [at, t] of events) {
      clock.set(at);
      if ((await engine.check(req(t))).allowed) admitted[t]++;
    }
    return admitted;
  }

  /** The limit in force at the end of window `w` (a check-only request). */
  async function limitAt(engine: Engine, clock: ManualClock, w: number, t: string): Promise<number> {
    clock.set(start + (w + 1) * W - 1);
    const r = await engine.check(req(t, 0));
    const limits = r.descriptors[0].limits as readonly { limit: number }[];
    expect(r.decision.limit).toBe(limits[0].limit);
    return limits[0].limit;
  }

  /** Quantised down to 1/64 octave: within 1.1% below the exact value, never above. */
  const near = (value: number, exact: number) => {
    expect(value).toBeLessThanOrEqual(exact + 1e-9);
    expect(value).toBeGreaterThanOrEqual(exact * 0.989);
  };

  async function scenarios(store: Store): Promise<void> {
    const clock = new ManualClock(start);
    const engine = createEngine({ config, store, clock, scheduler: clock });
    // Tenants: "ramp" follows scenario 2 then grows; "steady" is scenario 1; "spike" scenario 4.
    expect(await window(engine, clock, 0, { ramp: 9, steady: 4, spike: 10 })).toEqual({
      ramp: 90,
      steady: 40,
      spike: 100,
    });
    near(await limitAt(engine, clock, 0, "ramp"), 10); // previous 0 → static
    const w1 = await window(engine, clock, 1, { ramp: 12, steady: 5, spike: 30 });
    expect(w1.ramp).toBe(120);
    expect(w1.steady).toBe(50);
    expect(w1.spike).toBeGreaterThan(140); // limited at ≈ 15/s (+ burst): the spike is damped …
    expect(w1.spike).toBeLessThan(175);
    near(await limitAt(engine, clock, 1, "ramp"), 13.5); // scenario 2: 1350 → 13.5
    near(await limitAt(engine, clock, 1, "steady"), 10); // scenario 1: min(7.125, 6) → static
    near(await limitAt(engine, clock, 1, "spike"), 15); // scenario 4: … to previous·m
    // Sustained growth, capped at previous·m, then a reduction (scenario 5's shape).
    expect((await window(engine, clock, 2, { ramp: 16 })).ramp).toBe(160);
    near(await limitAt(engine, clock, 2, "ramp"), 18); // previous 12, current 16 → min(22.5, 18)
    expect((await window(engine, clock, 3, { ramp: 5 })).ramp).toBe(50);
    near(await limitAt(engine, clock, 3, "ramp"), 11.625); // previous 16, current 5 → ewma 7.75 · 1.5
    // No traffic in window 4: current 0 → max(static, previous·m = 7.5) = static (never below it).
    near(await limitAt(engine, clock, 4, "ramp"), 10);
  }

  it("follows traffic per key with the counters in the store (reference store)", async () => {
    const { ReferenceStore } = await import("../testing/reference-store.js");
    await scenarios(new ReferenceStore());
  });

  // Dynamic levels are several sets sharing one namespace: the memory store must use each set's own limits.
  it("follows traffic per key with the counters in the store (memory store)", async () => {
    await scenarios(new MemoryStore({ capacity: 1000 }));
  });

  it("never denies under the static limit: the first request of a dynamic window (current rate 0) is judged by it", () => {
    const rule = makeRule({
      id: "dyn",
      domain: "api",
      match: [any("tenant")],
      limits: [
        parseLimitSpec({ name: "per-minute", algorithm: "fixed_window", limit: 100, periodMs: 60_000 }),
      ],
      dynamic: { windowMs: 1000, recentWeight: 0.75, multiplier: 1.5 },
    });
    const minute = Math.ceil(start / 60_000) * 60_000;
    const clock = new ManualClock(minute);
    const engine = createEngine({
      config: makeConfig({ rules: [rule] }),
      store: new MemoryStore({ capacity: 100 }),
      clock,
    });
    const req = () => engine.checkSync({ domain: "api", descriptors: [[{ key: "tenant", value: "t" }]] });
    for (let i = 0; i < 90; i++) {
      clock.set(minute + i * 10);
      expect(req().allowed).toBe(true);
    }
    clock.set(minute + 1500);
    expect(req().allowed).toBe(true); // 91 of 100 this minute
    clock.set(minute + 2500); // previous second: 1 request → previous·m = 1.5/s; current 0
    expect(req().allowed).toBe(true); // the 92nd of a static 100: it used to be judged at 89 and denied
    for (let i = 93; i <= 100; i++) expect(req().allowed).toBe(true);
    expect(req().allowed).toBe(false); // the 101st
  });

  it("follows one key's traffic on the memory store", async () => {
    const clock = new ManualClock(start);
    const engine = createEngine({
      config,
      store: new MemoryStore({ capacity: 100 }),
      clock,
      scheduler: clock,
    });
    expect((await window(engine, clock, 0, { a: 10 })).a).toBe(100);
    expect((await window(engine, clock, 1, { a: 15 })).a).toBe(150);
    near(await limitAt(engine, clock, 1, "a"), 15);
    expect((await window(engine, clock, 2, { a: 20 })).a).toBe(200);
    near(await limitAt(engine, clock, 2, "a"), 22.5);
    expect((await window(engine, clock, 3, { a: 5 })).a).toBe(50);
    near(await limitAt(engine, clock, 3, "a"), 13.125); // scenario 5: previous 20, current 5
  });

  it("needs whole costs (its traffic counters are windows)", () => {
    const { check } = setup(config);
    expect(() => check({ ...req("a"), cost: 0.5 })).toThrow(/cost must be a whole number for rule "dyn"/);
  });

  describe("a static-only override", () => {
    // Equal limits (20/s, the rule's shape): the two overrides share one set and one namespace.
    const twenty = () => [spec({ name: "rate", algorithm: "gcra", limit: 20, periodMs: 1000 })];
    const overridden = makeConfig({
      rules: [rule],
      overrides: [
        makeOverride({ identity: "tenant:plain", rule: "dyn", limits: twenty() }),
        makeOverride({ identity: "tenant:pinned", limits: twenty(), staticOnly: true }),
      ],
    });
    const rateNamespace = (ns: string) => ns.endsWith("/rate") || ns.endsWith("/rate2");

    for (const [name, makeStore] of [
      ["memory store", () => new MemoryStore({ capacity: 1000 })],
      ["asynchronous store", () => new AsyncMemoryStore()],
    ] as const) {
      it(`stays at its limits as written while traffic raises a plain identity's (${name})`, async () => {
        const store = makeStore();
        const clock = new ManualClock(start);
        const engine = createEngine({ config: overridden, store, clock, scheduler: clock });
        expect(await window(engine, clock, 0, { plain: 20, pinned: 20, free: 10 })).toEqual({
          plain: 200,
          pinned: 200,
          free: 100,
        });
        const w1 = await window(engine, clock, 1, { plain: 30, pinned: 30, free: 15 });
        expect(w1.plain).toBe(300); // raised to previous·m = 30/s
        expect(w1.free).toBe(150); // the rule's own 10/s, raised to 15/s
        expect(w1.pinned).toBeGreaterThanOrEqual(200); // held at 20/s (+ its burst)
        expect(w1.pinned).toBeLessThanOrEqual(220);
        near(await limitAt(engine, clock, 1, "plain"), 30);
        near(await limitAt(engine, clock, 1, "free"), 15);
        expect(await limitAt(engine, clock, 1, "pinned")).toBe(20);
        const pinned = await engine.check(req("pinned"));
        expect(pinned.descriptors[0]).toMatchObject({ source: "override", decision: { limit: 20 } });
        if (store instanceof AsyncMemoryStore) {
          // Its checks peek and feed no traffic counter; the plain identity's do.
          const items = store.calls.flatMap((c) => c.items);
          const fed = (key: string) => items.some((i) => i.key === key && rateNamespace(i.limits.namespace));
          expect(fed("pinned")).toBe(false);
          expect(fed("plain")).toBe(true);
        }
      });
    }

    it("takes fractional costs when its limits do (no traffic counters to count whole units)", () => {
      const { check } = setup(overridden);
      expect(check({ ...req("pinned"), cost: 0.5 }).allowed).toBe(true);
      expect(() => check({ ...req("plain"), cost: 0.5 })).toThrow(
        /cost must be a whole number for rule "dyn"/,
      );
    });
  });
});

describe("engine — idempotency", () => {
  const rules = makeRules([
    {
      id: "r",
      domain: "api",
      match: [any("user")],
      limits: [spec({ algorithm: "fixed_window", limit: 2, periodMs: 60_000 })],
    },
  ]);

  it("replays a retried check within the TTL without counting it again", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({ config: makeConfig({ rules }), clock, idempotency: { ttlMs: 1000 } });
    const first = engine.checkSync({ domain: "api", descriptors: [user("1")], idempotencyKey: "k1" });
    expect(first).toMatchObject({ replayed: false, decision: { remaining: 1 } });
    clock.advance(999);
    const again = await engine.check({ domain: "api", descriptors: [user("1")], idempotencyKey: "k1" });
    expect(again).toMatchObject({
      replayed: true,
      allowed: true,
      decision: { remaining: 1, reason: "replay" },
    });
    expect(again.descriptors).toBe(first.descriptors);
    // Scoped by domain: the same key elsewhere is a new request.
    expect(engine.checkSync({ domain: "x", descriptors: [], idempotencyKey: "k1" }).replayed).toBe(false);
    clock.advance(1); // expired
    expect(engine.checkSync({ domain: "api", descriptors: [user("1")], idempotencyKey: "k1" })).toMatchObject(
      {
        replayed: false,
        decision: { remaining: 0 },
      },
    );
    expect(engine.stats).toMatchObject({ checks: 4, replayed: 1 });
  });

  it("keeps at most maxEntries answers, dropping the oldest", () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({ config: makeConfig({ rules }), clock, idempotency: { maxEntries: 2 } });
    const c = (k: string) => engine.checkSync({ domain: "api", descriptors: [user(k)], idempotencyKey: k });
    c("a");
    c("b");
    c("c"); // evicts a
    expect(c("c").replayed).toBe(true);
    expect(c("b").replayed).toBe(true);
    expect(c("a").replayed).toBe(false);
  });

  it("lets a retry arriving while the first is in flight wait for it (async stores)", async () => {
    const clock = new ManualClock(T0);
    const store = new FlakyStore();
    const engine = createEngine({ config: makeConfig({ rules }), store, clock, scheduler: clock });
    const r = { domain: "api", descriptors: [user("1")], idempotencyKey: "k" };
    const [a, b] = await Promise.all([engine.check(r), engine.check(r)]);
    expect([a.replayed, b.replayed]).toEqual([false, true]);
    expect(store.calls.length).toBe(1);
  });
});

describe("engine — hot reload", () => {
  const limitOf = (n: number) => [spec({ name: "n", algorithm: "fixed_window", limit: n, periodMs: 60_000 })];
  const configWith = (n: number, source = "a.yaml") =>
    makeConfig({
      rules: makeRules([{ id: "r", domain: "api", match: [any("user")], limits: limitOf(n) }]),
      source,
    });

  it("an unlimited rule's tiers keep their counts when the file lists them in another order", () => {
    const yaml = (proFirst: boolean) => {
      const pro = "      pro: [{ name: a, algorithm: fixed_window, limit: 100, period: 1d }]";
      const free = "      free: [{ name: b, algorithm: fixed_window, limit: 10, period: 1d }]";
      return `tiers: [free, pro]
identities: { "user:p": pro, "user:f": free }
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    unlimited: true
    tiers:
${proFirst ? `${pro}\n${free}` : `${free}\n${pro}`}
`;
    };
    const { engine } = setup(parseConfig(yaml(true)), Date.UTC(2026, 0, 1, 1));
    const check = (u: string, cost = 1) =>
      engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: u }]], cost });
    expect(check("p", 99).allowed).toBe(true);
    expect(check("f", 9).allowed).toBe(true);
    engine.updateConfig(parseConfig(yaml(false)));
    expect(check("p", 0).decision.remaining).toBe(1);
    expect(check("f", 0).decision.remaining).toBe(1);
  });

  it("swaps the configuration, keeps counters, counts the reload and emits config", () => {
    const { check, engine, clock } = setup(configWith(3));
    const events: EngineEvents["config"][] = [];
    engine.on("config", (e) => events.push(e));
    check({ descriptors: [user("1")] });
    check({ descriptors: [user("1")] });
    expect(engine.status).toMatchObject({ reloads: 0, configSource: "a.yaml", loadedAtMs: T0 });
    expect(engine.status.configVersion).toBeUndefined();
    clock.advance(10);
    engine.updateConfig(configWith(5, "b.yaml"));
    expect(engine.status).toMatchObject({ reloads: 1, configSource: "b.yaml", loadedAtMs: T0 + 10 });
    expect(engine.status.lastError).toBeUndefined();
    expect(events).toEqual([{ configVersion: undefined, reloads: 1, source: "b.yaml", atMs: T0 + 10 }]);
    // A configuration with a version of its own (the admin API's): reported as it is, not counted.
    engine.updateConfig(Object.freeze({ ...configWith(5, "c.yaml"), version: 7 }));
    expect(engine.status).toMatchObject({ configVersion: 7, reloads: 2 });
    expect(events[1]).toEqual({ configVersion: 7, reloads: 2, source: "c.yaml", atMs: T0 + 10 });
    // 2 used of the new 5.
    expect(check({ descriptors: [user("1")] }).decision).toMatchObject({ limit: 5, remaining: 2 });
    // Lowered below the usage: clamped, never reset.
    engine.updateConfig(configWith(2));
    expect(check({ descriptors: [user("1")] }).allowed).toBe(false);
  });

  it("refuses an invalid configuration whole: old one stays, status and event say why", () => {
    const { check, engine, clock } = setup(configWith(1));
    const errors: EngineEvents["configError"][] = [];
    engine.on("configError", (e) => errors.push(e));
    engine.on("configError", () => {
      throw new Error("a broken listener is ignored");
    });
    const dup = makeConfig({
      rules: [
        makeRule({ id: "r", domain: "api", match: [any("user")] }),
        makeRule({ id: "r", domain: "api", match: [any("ip")] }),
      ],
      source: "bad.yaml",
    });
    clock.advance(5);
    expect(() => engine.updateConfig(dup)).toThrow(/rules\[1\]\.id: "r" is used by an earlier rule/);
    const eight = makeConfig({
      rules: makeRules([
        {
          id: "r",
          domain: "api",
          match: [any("user")],
          limits: Array.from({ length: 8 }, (_, i) => spec({ name: `l${i}`, limit: 1, periodMs: 1000 })),
        },
      ]),
    });
    expect(() => engine.updateConfig(eight)).toThrow(/rules\[0\]\.limits: at most 7 limits/);
    expect(errors.map((e) => e.source)).toEqual(["bad.yaml", undefined]);
    expect(engine.status).toMatchObject({ reloads: 0, configSource: "a.yaml" });
    expect(engine.status.lastError).toEqual({ message: expect.stringMatching(/at most 7/), atMs: T0 + 5 });
    expect(check({ descriptors: [user("1")] }).allowed).toBe(true);
    expect(check({ descriptors: [user("1")] }).allowed).toBe(false); // still the old limit of 1
    engine.updateConfig(configWith(3));
    expect(engine.status.lastError).toBeUndefined();
    expect(engine.status.reloads).toBe(1);
  });

  it("refuses an invalid configuration at creation", () => {
    const bad = makeConfig({
      rules: [
        makeRule({ id: "d", match: [any("u")], dynamic: { windowMs: 0.5, recentWeight: 1, multiplier: 1 } }),
      ],
    });
    expect(() => createEngine({ config: bad })).toThrow(/rules\[0\]\.dynamic\.windowMs/);
  });
});

describe("engine — failure policy", () => {
  const rules = makeRules(
    (["fail_open", "fail_closed", "fallback"] as const).map((p) => ({
      id: p,
      domain: "api",
      match: [any(p)],
      failurePolicy: p,
      limits: [spec({ name: p, algorithm: "fixed_window", limit: 2, periodMs: 60_000 })],
    })),
  );
  const d = (k: string): Descriptor => [{ key: k, value: "x" }];

  it("answers by each rule's policy when the store fails, and recovers", async () => {
    const clock = new ManualClock(T0);
    const store = new FlakyStore();
    const engine = createEngine({ config: makeConfig({ rules }), store, clock, scheduler: clock });
    expect(() => engine.checkSync({ domain: "api", descriptors: [] })).toThrow(/no synchronous path/);
    store.failing = true;
    const open = await engine.check({ domain: "api", descriptors: [d("fail_open")] });
    expect(open).toMatchObject({ allowed: true, decision: { reason: "fail_open" } });
    const closed = await engine.check({ domain: "api", descriptors: [d("fail_closed")] });
    expect(closed).toMatchObject({ allowed: false, decision: { reason: "fail_closed" } });
    expect(closed.descriptors[0].code).toBe("OVER_LIMIT");
    const fb = async () => engine.check({ domain: "api", descriptors: [d("fallback")] });
    expect(await fb()).toMatchObject({ allowed: true, decision: { reason: "fallback", remaining: 1 } });
    expect((await fb()).allowed).toBe(true);
    expect((await fb()).allowed).toBe(false); // the local fallback still limits
    // Policy groups are separate calls; a denial in one refunds the others.
    const mixed = await engine.check({ domain: "api", descriptors: [d("fail_open"), d("fail_closed")] });
    expect(mixed.allowed).toBe(false);
    expect(mixed.descriptors.map((x) => x.code)).toEqual(["OK", "OVER_LIMIT"]);
    expect(mixed.descriptors[0].decision?.allowed).toBe(false);
    store.failing = false;
    clock.advance(1000); // the breakers' next probe
    const back = await engine.check({ domain: "api", descriptors: [d("fallback")] });
    expect(back).toMatchObject({ allowed: true, decision: { reason: "store", remaining: 1 } });
  });

  it("refunds the groups that admitted when another group denies", async () => {
    const clock = new ManualClock(T0);
    const store = new FlakyStore();
    const engine = createEngine({ config: makeConfig({ rules }), store, clock, scheduler: clock });
    const both = { domain: "api", descriptors: [d("fail_open"), d("fallback")] };
    await engine.check({ domain: "api", descriptors: [d("fallback")], cost: 2 });
    const r = await engine.check(both);
    expect(r.allowed).toBe(false);
    expect(r.descriptors.map((x) => x.code)).toEqual(["OK", "OVER_LIMIT"]);
    // fail_open's unit was refunded: it still has both.
    const open = await engine.check({ domain: "api", descriptors: [d("fail_open")], cost: 2 });
    expect(open.allowed).toBe(true);
  });
});

describe("engine — failure-policy groups report refunded descriptors as untouched", () => {
  // Rules of different failure policies go to separate store calls on a store without a synchronous path; when one
  // group denies, the others are refunded, and their descriptors must report what one all-or-nothing call reports
  // for them (the synchronous path): the state as it is, not the numbers after the consume that was given back.
  const config = makeConfig({
    rules: makeRules([
      {
        id: "a",
        domain: "api",
        match: [any("a")],
        failurePolicy: "fail_open",
        limits: [
          spec({ name: "hour", algorithm: "fixed_window", limit: 10, periodMs: 3_600_000 }),
          spec({ name: "rate", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 10 }),
        ],
      },
      {
        id: "b",
        domain: "api",
        match: [any("b")],
        failurePolicy: "fail_closed",
        limits: [spec({ name: "b", algorithm: "fixed_window", limit: 1, periodMs: 3_600_000 })],
      },
    ]),
  });
  const both: CheckRequest = {
    domain: "api",
    descriptors: [[{ key: "a", value: "1" }], [{ key: "b", value: "1" }]],
    costs: [2, 1],
  };
  const statuses = (r: { decision?: { policies: readonly object[] } }) =>
    r.decision?.policies.map((p) => {
      const { policy, allowed, limit, remaining, resetAfterMs, retryAfterMs, state, periodMs } = p as never;
      return { policy, allowed, limit, remaining, resetAfterMs, retryAfterMs, state, periodMs };
    });

  it("reports the same numbers on the synchronous and asynchronous paths", async () => {
    const answers = [];
    for (const store of [new MemoryStore({ capacity: 100 }), new AsyncMemoryStore()]) {
      const clock = new ManualClock(T0);
      const engine = createEngine({ config, store, clock, scheduler: clock });
      // Far from the warning level (a refunded consume may leave a limit's warning flag up: a store matter).
      expect((await engine.check(both)).allowed).toBe(true); // a: 8 of 10 left; b: none left
      clock.advance(50);
      const r = await engine.check(both); // denied by b: a not counted
      expect(r.allowed).toBe(false);
      expect(r.descriptors.map((x) => x.code)).toEqual(["OK", "OVER_LIMIT"]);
      const a = r.descriptors[0].decision;
      expect(a?.allowed).toBe(false);
      const after = await engine.check({ domain: "api", descriptors: [both.descriptors[0]], cost: 0 });
      answers.push({ a: statuses(r.descriptors[0]), b: statuses(r.descriptors[1]), after: statuses(after) });
    }
    const [sync, async] = answers;
    expect(sync.a?.map((p) => p.remaining)).toEqual([8, 8]);
    expect(async).toEqual(sync);
    // And what it reports is the state afterwards (a cost-0 check of it).
    expect(async.a?.map((p) => p.remaining)).toEqual(async.after?.map((p) => p.remaining));
  });
});

describe("engine — bad input", () => {
  const config = makeConfig({
    rules: makeRules([
      {
        id: "r",
        domain: "api",
        match: [any("user")],
        limits: [spec({ algorithm: "fixed_window", limit: 2, periodMs: 1000 })],
      },
      {
        id: "g",
        domain: "api",
        match: [any("g")],
        limits: [spec({ algorithm: "gcra", limit: 2, periodMs: 1000 })],
      },
    ]),
  });

  it("names the bad field and touches nothing", async () => {
    const { engine, store } = setup(config);
    const bad: [unknown, RegExp][] = [
      [null, /request must be an object/],
      [{ domain: "", descriptors: [] }, /domain must be a non-empty string/],
      [{ domain: "api" }, /descriptors must be an array/],
      [{ domain: "api", descriptors: [[]] }, /descriptors\[0\] must be an array of 1 to 64/],
      [{ domain: "api", descriptors: Array(65).fill(user("1")) }, /at most 64 descriptors, got 65/],
      [
        { domain: "api", descriptors: [Array(65).fill({ key: "k", value: "v" })] },
        /descriptors\[0\] must be an array of 1 to 64/,
      ],
      [
        { domain: "api", descriptors: [[{ key: 1, value: "v" }]] },
        /descriptors\[0\]\[0\]\.key must be a non-empty string/,
      ],
      [
        { domain: "api", descriptors: [[{ key: "k", value: 7 }]] },
        /descriptors\[0\]\[0\]\.value must be a string/,
      ],
      [
        { domain: "api", descriptors: [[{ key: "k", value: "v".repeat(1025) }]] },
        /value must be a string of at most 1024/,
      ],
      [{ domain: "api", descriptors: [user("1")], cost: -1 }, /cost must be a number from 0/],
      [{ domain: "api", descriptors: [user("1")], cost: Number.NaN }, /cost must be a number from 0/],
      [{ domain: "api", descriptors: [user("1")], costs: [1, 2] }, /costs must be an array with one entry/],
      [{ domain: "api", descriptors: [user("1")], costs: [-2] }, /costs\[0\] must be undefined or a number/],
      [{ domain: "api", descriptors: [user("1")], cost: 1.5 }, /cost must be a whole number for rule "r"/],
      [{ domain: "api", descriptors: [user("1")], costs: [0.5] }, /costs\[0\] must be a whole number/],
      [{ domain: "api", descriptors: [user("1")], idempotencyKey: "" }, /idempotencyKey must be a non-empty/],
      [
        { domain: "api", descriptors: [user("1")], nowMs: Number.POSITIVE_INFINITY },
        /nowMs must be epoch milliseconds from 0 to 4102444800000 \(2100-01-01T00:00:00Z\), got Infinity/,
      ],
      // before 1970 the fresh state is not fresh; after 2100 the algorithms are no longer exact (MAX_NOW_MS)
      [{ domain: "api", descriptors: [user("1")], nowMs: -5000 }, /nowMs must be epoch milliseconds from 0/],
      [
        { domain: "api", descriptors: [user("1")], nowMs: 4_102_444_800_001 },
        /nowMs must be epoch milliseconds/,
      ],
    ];
    for (const [req, message] of bad) {
      expect(() => engine.checkSync(req as CheckRequest), String(message)).toThrow(message);
      await expect(engine.check(req as CheckRequest)).rejects.toMatchObject({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
      });
    }
    expect(store.stats.size).toBe(0);
    expect(engine.stats.checks).toBe(0);
    // A fractional cost is fine where every limit is a rate algorithm.
    expect(
      engine.checkSync({ domain: "api", descriptors: [[{ key: "g", value: "1" }]], cost: 0.5 }).allowed,
    ).toBe(true);
  });
});

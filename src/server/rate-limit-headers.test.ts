import { describe, expect, it } from "vitest";
import { failingStore } from "../../test/support/failing-store.js";
import { ManualClock } from "../core/manual-clock.js";
import { type CheckRequest, createEngine } from "../engine/engine.js";
import { parseConfig } from "../rules/load-config.js";
import type { Descriptor } from "../rules/rule.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import {
  advertisedQuota,
  appliedPolicies,
  FIELD_NAMES,
  HTTP_FIELD_NAMES,
  isUncounted,
  mostRestrictive,
  printableName,
  rateLimitHeaders,
  retryAfterSeconds,
  SF_INTEGER_MAX,
  sfString,
} from "./rate-limit-headers.js";

const T0 = 1_700_000_000_000;

const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - { name: per-second, algorithm: fixed_window, limit: 10, period: 1s }
      - { name: per-day, algorithm: fixed_window, limit: 10000, period: 1d }
  - id: user-endpoint
    domain: api
    match: [{ key: user }, { key: endpoint }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 2, period: 1500ms }]
  - id: bytes
    domain: api
    match: [{ key: tenant }]
    strategy: bytes
    limits: [{ name: bytes, algorithm: token_bucket, limit: 1000, period: 1s }]
  - id: records
    domain: api
    match: [{ key: tenant }, { key: signal }]
    strategy: records
    limits: [{ name: records, algorithm: token_bucket, limit: 500, period: 1s }]
  - id: uploads
    domain: api
    match: [{ key: apikey }]
    limits: [{ name: in-flight, algorithm: concurrency, limit: 2, period: 30s }]
  - id: odd-names
    domain: api
    match: [{ key: odd }]
    limits: [{ name: 'say "hi" \\ né', algorithm: fixed_window, limit: 5, period: 1m }]
  - id: huge
    domain: api
    match: [{ key: huge }]
    limits: [{ name: huge, algorithm: gcra, limit: 9007199254740991, period: 1s }]
  - id: banned
    domain: api
    match: [{ key: ip, value: 203.0.113.9 }]
    blocked: true
  - id: free
    domain: api
    match: [{ key: endpoint, value: /healthz }]
    unlimited: true
  - id: trial
    domain: api
    match: [{ key: trial }]
    behaviour: shadow
    limits: [{ name: trial, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: trial-wide
    domain: api
    match: [{ key: trial }, { key: user }]
    behaviour: shadow
    limits: [{ name: trial-wide, algorithm: fixed_window, limit: 100, period: 1h }]
  - id: half-per-second
    domain: api
    match: [{ key: slow }]
    limits: [{ name: half, algorithm: gcra, limit: 0.5, period: 1s }]
  - id: half-per-quarter
    domain: api
    match: [{ key: quick }]
    limits: [{ name: half-quarter, algorithm: token_bucket, limit: 0.5, period: 250ms }]
  - id: third
    domain: api
    match: [{ key: third }]
    limits: [{ name: third, algorithm: leaky_bucket, limit: 0.3, period: 1s }]
  - id: bursty
    domain: api
    match: [{ key: bursty }]
    limits: [{ name: bursty, algorithm: gcra, limit: 10, period: 1s, burst: 20 }]
`;

function setup() {
  const clock = new ManualClock(T0);
  const engine = createEngine({
    config: parseConfig(CONFIG),
    store: new MemoryStore({ capacity: 1000 }),
    clock,
    scheduler: clock,
  });
  const check = (descriptors: Descriptor[], extra: Partial<CheckRequest> = {}) =>
    engine.checkSync({ domain: "api", descriptors, ...extra });
  return { clock, engine, check };
}

const user = (id: string): Descriptor => [{ key: "user", value: id }];

describe("rateLimitHeaders", () => {
  it("lists every policy in draft-10 syntax, with the state", () => {
    const { check, clock } = setup();
    check([user("1")]);
    clock.advance(400);
    const h = rateLimitHeaders(check([user("1")]));
    // Rule user-endpoint has a per-second too: per-user's is qualified by its rule id in every answer.
    expect(h).toEqual({
      "RateLimit-Policy": '"per-user/per-second";q=10;w=1, "per-day";q=10000;w=86400',
      // Fixed windows align with the epoch: the day ends 6400 s after T0 + 400 ms.
      RateLimit: '"per-user/per-second";r=8;t=1, "per-day";r=9998;t=6400',
      "RateLimit-State": "normal",
    });
  });

  it("never advertises more remaining than the quota: a burst above the limit is reported as q at most", () => {
    const { check } = setup();
    const h = rateLimitHeaders(check([[{ key: "bursty", value: "b" }]]), { legacy: true });
    expect(h["RateLimit-Policy"]).toBe('"bursty";q=10;w=1');
    expect(h.RateLimit).toBe('"bursty";r=10;t=1'); // 19 left in the bucket
    expect(h["X-RateLimit-Remaining"]).toBe("10");
  });

  it("spells the fields with the names given: HTTP's are the same names in lower case", () => {
    const { check, clock } = setup();
    const ds = [user("1"), [...user("1"), { key: "endpoint", value: "/x" }]];
    check(ds);
    check(ds);
    clock.advance(200);
    const r = check(ds);
    const canonical = rateLimitHeaders(r, { legacy: true });
    expect(rateLimitHeaders(r, { legacy: true }, appliedPolicies(r), FIELD_NAMES)).toEqual(canonical);
    const lower = rateLimitHeaders(r, { legacy: true }, appliedPolicies(r), HTTP_FIELD_NAMES);
    expect(lower).toEqual(
      Object.fromEntries(Object.entries(canonical).map(([k, v]) => [k.toLowerCase(), v])),
    );
    expect(Object.keys(lower)).toHaveLength(7);
    for (const [k, v] of Object.entries(FIELD_NAMES)) {
      expect(HTTP_FIELD_NAMES[k as keyof typeof FIELD_NAMES]).toBe(v.toLowerCase());
    }
  });

  it("builds each policy's item from its own policy when answers alternate between policies", () => {
    const { check } = setup();
    const a = rateLimitHeaders(check([user("1")]))["RateLimit-Policy"];
    const b = rateLimitHeaders(check([[{ key: "tenant", value: "t" }]]))["RateLimit-Policy"];
    expect(a).toBe('"per-user/per-second";q=10;w=1, "per-day";q=10000;w=86400');
    expect(b).toBe('"bytes";q=1000;qu="content-bytes";w=1');
    for (let i = 0; i < 3; i++) {
      expect(rateLimitHeaders(check([user("2")]))["RateLimit-Policy"]).toBe(a);
      expect(rateLimitHeaders(check([[{ key: "tenant", value: "t" }]]))["RateLimit-Policy"]).toBe(b);
    }
  });

  it("sends nothing when no limit applied (no match, unlimited, shadow over its limit)", () => {
    const { check } = setup();
    expect(rateLimitHeaders(check([[{ key: "nothing", value: "x" }]]))).toEqual({});
    expect(rateLimitHeaders(check([[{ key: "endpoint", value: "/healthz" }]]))).toEqual({});
    check([[{ key: "trial", value: "t" }]]);
    const over = check([[{ key: "trial", value: "t" }]]);
    expect(over.descriptors[0].shadowed).toBe(true);
    expect(rateLimitHeaders(over)).toEqual({});
  });

  it("sends Retry-After on denial: whole seconds rounded up, never earlier than any denied t", () => {
    const { check, clock } = setup();
    const ds = [user("1"), [...user("1"), { key: "endpoint", value: "/x" }]];
    check(ds);
    check(ds);
    clock.advance(200);
    const r = check(ds);
    expect(r.allowed).toBe(false);
    const h = rateLimitHeaders(r, { legacy: true });
    // per-user/per-second and user-endpoint/per-second share a name: prefixed with their rule ids (as in every answer).
    expect(h["RateLimit-Policy"]).toBe(
      '"per-user/per-second";q=10;w=1, "per-day";q=10000;w=86400, "user-endpoint/per-second";q=2;w=2',
    );
    // The 1.5 s window (w rounded up to 2) aligned with the epoch ends 800 ms after T0 + 200 ms.
    expect(h.RateLimit).toMatch(/"user-endpoint\/per-second";r=0;t=1$/);
    expect(h["Retry-After"]).toBe("1");
    expect(h["RateLimit-State"]).toBe("throttled");
    expect(h["X-RateLimit-Limit"]).toBe("2");
    expect(h["X-RateLimit-Remaining"]).toBe("0");
    expect(h["X-RateLimit-Reset"]).toBe("1");
    for (const item of h.RateLimit.split(", ")) {
      const t = Number(/;t=(\d+)/.exec(item)?.[1] ?? 0);
      if (item.includes("r=0")) expect(Number(h["Retry-After"])).toBeGreaterThanOrEqual(t);
    }
  });

  it("uses qu for bytes and concurrency (no w), and a vendor parameter for records", () => {
    const { check } = setup();
    expect(
      rateLimitHeaders(check([[{ key: "tenant", value: "a" }]], { cost: 100 }))["RateLimit-Policy"],
    ).toBe('"bytes";q=1000;qu="content-bytes";w=1');
    expect(
      rateLimitHeaders(
        check([
          [
            { key: "tenant", value: "a" },
            { key: "signal", value: "logs" },
          ],
        ]),
      )["RateLimit-Policy"],
    ).toBe('"records";q=500;sluice-qu="records";w=1');
    const conc = rateLimitHeaders(check([[{ key: "apikey", value: "k" }]]));
    expect(conc["RateLimit-Policy"]).toBe('"in-flight";q=2;qu="concurrent-requests"');
    expect(conc.RateLimit).toMatch(/^"in-flight";r=1/);
  });

  it("escapes quotes and backslashes and percent-encodes non-ASCII names", () => {
    const { check } = setup();
    const h = rateLimitHeaders(check([[{ key: "odd", value: "x" }]]));
    expect(h["RateLimit-Policy"]).toBe('"say \\"hi\\" \\\\ n%C3%A9";q=5;w=60');
    expect(sfString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(printableName("tab\there")).toBe("tab%09here");
    expect(printableName("\ud800")).toBe("%EF%BF%BD");
    expect(printableName("plain-name")).toBe("plain-name");
  });

  it("clamps integers to the sf-integer range", () => {
    const { check } = setup();
    const h = rateLimitHeaders(check([[{ key: "huge", value: "x" }]]));
    expect(h["RateLimit-Policy"]).toBe(`"huge";q=${SF_INTEGER_MAX};w=1`);
    expect(h.RateLimit).toMatch(new RegExp(`^"huge";r=${SF_INTEGER_MAX};t=\\d+$`));
  });

  it("omits Retry-After and t when the request can never pass (blocked, cost above the burst)", () => {
    const { check } = setup();
    const blocked = check([[{ key: "ip", value: "203.0.113.9" }]]);
    const h = rateLimitHeaders(blocked);
    expect(h["RateLimit-Policy"]).toBe('"banned";q=0');
    expect(h.RateLimit).toBe('"banned";r=0');
    expect(h["Retry-After"]).toBeUndefined();
    expect(retryAfterSeconds(blocked)).toBeUndefined();
    const tooBig = check([[{ key: "tenant", value: "b" }]], { cost: 5000 });
    expect(tooBig.allowed).toBe(false);
    expect(rateLimitHeaders(tooBig)["Retry-After"]).toBeUndefined();
  });

  it("can switch the draft fields and the state off, and reports warning", () => {
    const { check } = setup();
    for (let i = 0; i < 8; i++) check([user("w")]);
    const r = check([user("w")]);
    expect(rateLimitHeaders(r)["RateLimit-State"]).toBe("warning");
    expect(rateLimitHeaders(r, { standard: false, state: false })).toEqual({});
    expect(rateLimitHeaders(r, { standard: false, state: false, legacy: true })).toEqual({
      "X-RateLimit-Limit": "10",
      "X-RateLimit-Remaining": "1",
      "X-RateLimit-Reset": "1",
    });
  });

  it("names a policy alike in every answer: from the configuration, not from the answer's other policies", () => {
    const { check } = setup();
    const endpoint: Descriptor = [...user("n"), { key: "endpoint", value: "/x" }];
    const names = (ds: Descriptor[]) => appliedPolicies(check(ds)).map((p) => p.name);
    expect(names([user("n")])).toEqual(["per-user/per-second", "per-day"]);
    expect(names([endpoint])).toEqual(["user-endpoint/per-second"]);
    expect(names([user("n"), endpoint])).toEqual([
      "per-user/per-second",
      "per-day",
      "user-endpoint/per-second",
    ]);
    // A name no other rule of the domain has is left as is, alone or not.
    expect(names([[{ key: "tenant", value: "n" }], user("n")])).toEqual([
      "bytes",
      "per-user/per-second",
      "per-day",
    ]);
  });

  it("keeps names unique when one rule matches two descriptors: the first keeps the policy's name", () => {
    const { check } = setup();
    const names = appliedPolicies(check([user("1"), user("2")])).map((p) => p.name);
    expect(names).toEqual(["per-user/per-second", "per-day", "per-user/per-second#1", "per-day#1"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("never advertises a shadow rule, under its limit or over it", () => {
    const { check } = setup();
    const trial = (id: string): Descriptor => [{ key: "trial", value: id }];
    const wide = (id: string): Descriptor => [...trial(id), ...user(id)];
    const alone = rateLimitHeaders(check([user("s")]), { legacy: true });
    // The shadow rules are under their limits here (trial uses its only unit: remaining 0, state warning): no
    // field names them, nor takes its remaining or state from them.
    const under = check([trial("s"), user("s"), wide("s")]);
    expect(under.descriptors.map((d) => d.shadowed)).toEqual([false, false, false]);
    expect(appliedPolicies(under).map((p) => p.ruleId)).toEqual(["per-user", "per-user"]);
    const h = rateLimitHeaders(under, { legacy: true });
    expect(h["RateLimit-Policy"]).toBe(alone["RateLimit-Policy"]);
    expect(h.RateLimit).toBe('"per-user/per-second";r=8;t=1, "per-day";r=9998;t=6400');
    expect(h["X-RateLimit-Remaining"]).toBe("8");
    expect(h["RateLimit-State"]).toBe("normal");
    // Only shadow rules: nothing to advertise, under the limit as over it.
    expect(rateLimitHeaders(check([trial("t")]), { legacy: true })).toEqual({});
    expect(rateLimitHeaders(check([trial("t")]), { legacy: true })).toEqual({});
  });

  it("never advertises more than a limit below one unit admits: one unit per the time it takes to come back", () => {
    const { check, clock } = setup();
    const item = (key: string) => rateLimitHeaders(check([[{ key, value: "x" }]]))["RateLimit-Policy"];
    // 0.5 per second: one unit every 2 s (not q=1;w=1, twice the rate).
    expect(item("slow")).toBe('"half";q=1;w=2');
    // 0.5 per 250 ms: one unit every 500 ms, rounded up to a whole second.
    expect(item("quick")).toBe('"half-quarter";q=1;w=1');
    // 0.3 per second: one unit every 3.33 s.
    expect(item("third")).toBe('"third";q=1;w=4');
    // The limiter indeed admits one unit of "half" per 2 s, not per second.
    clock.advance(1000);
    expect(check([[{ key: "slow", value: "x" }]]).allowed).toBe(false);
    clock.advance(1000);
    expect(check([[{ key: "slow", value: "x" }]]).allowed).toBe(true);
    expect(
      rateLimitHeaders(check([[{ key: "slow", value: "y" }]]), { legacy: true })["X-RateLimit-Limit"],
    ).toBe("1");
    // Whatever the limit and period, q/w never exceeds the limit's rate, nor q the units it holds at once.
    for (const limit of [0.01, 0.3, 0.5, 0.999, 1, 1.5, 2.5, 7, 1e6]) {
      for (const periodMs of [1, 250, 999, 1000, 1001, 1500, 3000, 60_000]) {
        const { q, w } = advertisedQuota(limit, periodMs);
        expect(w).toBeGreaterThanOrEqual(1);
        expect(q).toBeGreaterThanOrEqual(1);
        expect(q).toBeLessThanOrEqual(Math.max(1, limit));
        expect(q / ((w as number) * 1000)).toBeLessThanOrEqual(limit / periodMs + 1e-12);
      }
    }
    expect(advertisedQuota(0, 0)).toEqual({ q: 0, w: undefined });
    expect(advertisedQuota(2, 30_000, true)).toEqual({ q: 2, w: undefined });
  });

  it("counts t and Retry-After of a replay down from the first check, as its body does", () => {
    const { check, clock } = setup();
    const ds = [[{ key: "odd", value: "r" }]];
    for (let i = 0; i < 5; i++) check(ds);
    clock.advance(10_000);
    const first = check(ds, { idempotencyKey: "k" });
    expect(first.allowed).toBe(false);
    // The 1-minute window aligned with the epoch ends 30 s after T0 + 10 s.
    expect(rateLimitHeaders(first, {}, appliedPolicies(first), FIELD_NAMES, clock.nowMs())).toMatchObject({
      RateLimit: '"say \\"hi\\" \\\\ n%C3%A9";r=0;t=30',
      "Retry-After": "30",
    });
    clock.advance(4_000);
    const replay = check(ds, { idempotencyKey: "k" });
    expect(replay.replayed).toBe(true);
    const h = rateLimitHeaders(replay, {}, appliedPolicies(replay), FIELD_NAMES, clock.nowMs());
    expect(h.RateLimit).toMatch(/;r=0;t=26$/);
    expect(h["Retry-After"]).toBe("26");
    // Without the instant: the durations as decided.
    expect(rateLimitHeaders(replay)["Retry-After"]).toBe("30");
  });
});

/** Rules on a store that is down: one failing open, one falling back to an in-process share (all of it). */
const DOWN_CONFIG = `
version: 1
rules:
  - id: open
    domain: api
    match: [{ key: user }]
    failurePolicy: fail_open
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 5, period: 1h }]
  - id: local
    domain: api
    match: [{ key: tenant }]
    failurePolicy: fallback
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 10, period: 1m }]
`;

describe("rateLimitHeaders when the store is unreachable", () => {
  const down = () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({
      config: parseConfig(DOWN_CONFIG),
      store: failingStore(),
      clock,
      scheduler: clock,
    });
    return (descriptors: Descriptor[]) => engine.check({ domain: "api", descriptors });
  };

  it("advertises no policy fail_open let through: its remaining is the full limit nobody counted", async () => {
    const check = down();
    const open = await check([user("u")]);
    expect(open.allowed).toBe(true);
    expect(open.decision).toMatchObject({ reason: "fail_open", remaining: 5 });
    expect(rateLimitHeaders(open, { legacy: true })).toEqual({});
    // Beside a counted policy (the fallback's), only the counted one is advertised.
    const both = await check([user("u"), [{ key: "tenant", value: "t" }]]);
    expect(rateLimitHeaders(both, { legacy: true })).toEqual({
      "RateLimit-Policy": '"per-minute";q=10;w=60',
      // The 1-minute window aligned with the epoch ends 40 s after T0.
      RateLimit: '"per-minute";r=9;t=40',
      "X-RateLimit-Limit": "10",
      "X-RateLimit-Remaining": "9",
      "X-RateLimit-Reset": "40",
      "RateLimit-State": "normal",
    });
  });

  it("ranks a counted allowed policy above one fail_open let through, whatever their remaining", async () => {
    const check = down();
    const policies = appliedPolicies(await check([user("u"), [{ key: "tenant", value: "t" }]]));
    expect(policies.map((p) => [p.name, p.status.remaining, isUncounted(p)])).toEqual([
      ["per-hour", 5, true],
      ["per-minute", 9, false],
    ]);
    expect(mostRestrictive(policies)?.name).toBe("per-minute");
    expect(mostRestrictive([...policies].reverse())?.name).toBe("per-minute");
  });
});

import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { configSchema, formatPath, parsePath, ruleSchema, validateConfig } from "./config-schema.js";
import { configFromValue, loadConfigFile, parseConfig } from "./load-config.js";

const FULL_YAML = `
version: 1
defaults: { algorithm: token_bucket, behaviour: reject, maxDelay: 500ms, failurePolicy: fail_closed, mode: local }
tiers: [free, premium, enterprise]
identities: { "user:42": premium, "apikey:ak_1": enterprise }
rules:
  - id: orders-per-user
    name: Orders per user
    domain: api
    match:
      - { key: user }
      - { key: endpoint, path: "/api/v1/orders/*" }
    identity: user
    limits:
      - { name: per-second, limit: 10, period: 1s, burst: 20 }
      - { name: per-day, algorithm: leaky_bucket, limit: 10000, period: 1d }
    tiers:
      premium: [{ name: per-second, limit: 100, period: 1s }]
      enterprise: unlimited
    behaviour: delay
    maxDelay: 2s
    strategy: bytes
    mode: local
    failurePolicy: fail_open
    dynamic: { window: 1m, recentWeight: 0.5, multiplier: 2 }
    priority: 5
    replaces: [search]
    detailedMetric: true
  - id: search
    domain: api
    match:
      - { key: user, value: "7" }
      - { key: endpoint, prefix: /api/v1/search, shared: true }
      - { key: region, glob: "eu-*" }
    limits: [{ limit: 5, period: 1m }]
  - id: internal
    domain: api
    match: [{ key: service, value: billing }]
    unlimited: true
  - id: banned
    domain: edge
    match: [{ key: remote_address, value: 50.0.0.5 }]
    blocked: true
overrides:
  - { identity: "user:42", rule: orders-per-user, limits: [{ limit: 50, period: 1s }], expiresAt: "2026-12-01T00:00:00Z", staticOnly: true }
  - { identity: "user:9", limits: unlimited }
`;

const FULL_JSON = JSON.stringify({
  version: 1,
  defaults: {
    algorithm: "token_bucket",
    behaviour: "reject",
    maxDelay: "500ms",
    failurePolicy: "fail_closed",
    mode: "local",
  },
  tiers: ["free", "premium", "enterprise"],
  identities: { "user:42": "premium", "apikey:ak_1": "enterprise" },
  rules: [
    {
      id: "orders-per-user",
      name: "Orders per user",
      domain: "api",
      match: [{ key: "user" }, { key: "endpoint", path: "/api/v1/orders/*" }],
      identity: "user",
      limits: [
        { name: "per-second", limit: 10, period: "1s", burst: 20 },
        { name: "per-day", algorithm: "leaky_bucket", limit: 10000, period: "1d" },
      ],
      tiers: { premium: [{ name: "per-second", limit: 100, period: "1s" }], enterprise: "unlimited" },
      behaviour: "delay",
      maxDelay: "2s",
      strategy: "bytes",
      mode: "local",
      failurePolicy: "fail_open",
      dynamic: { window: "1m", recentWeight: 0.5, multiplier: 2 },
      priority: 5,
      replaces: ["search"],
      detailedMetric: true,
    },
    {
      id: "search",
      domain: "api",
      match: [
        { key: "user", value: "7" },
        { key: "endpoint", prefix: "/api/v1/search", shared: true },
        { key: "region", glob: "eu-*" },
      ],
      limits: [{ limit: 5, period: "1m" }],
    },
    { id: "internal", domain: "api", match: [{ key: "service", value: "billing" }], unlimited: true },
    { id: "banned", domain: "edge", match: [{ key: "remote_address", value: "50.0.0.5" }], blocked: true },
  ],
  overrides: [
    {
      identity: "user:42",
      rule: "orders-per-user",
      limits: [{ limit: 50, period: "1s" }],
      expiresAt: "2026-12-01T00:00:00Z",
      staticOnly: true,
    },
    { identity: "user:9", limits: "unlimited" },
  ],
});

describe("parseConfig: a configuration using every field", () => {
  const config = parseConfig(FULL_YAML, { source: "sluice.yaml" });
  const [orders, search, internal, banned] = config.rules;

  it("compiles every field of a fully specified rule", () => {
    expect(orders).toEqual({
      id: "orders-per-user",
      name: "Orders per user",
      domain: "api",
      match: [
        { key: "user", value: { kind: "any" }, shared: false },
        { key: "endpoint", value: { kind: "path", pattern: "/api/v1/orders/*" }, shared: true },
      ],
      limits: [
        parseLimitSpec({ name: "per-second", algorithm: "token_bucket", limit: 10, period: "1s", burst: 20 }),
        parseLimitSpec({ name: "per-day", algorithm: "leaky_bucket", limit: 10000, period: "1d" }),
      ],
      tiers: {
        premium: [
          parseLimitSpec({ name: "per-second", algorithm: "token_bucket", limit: 100, period: "1s" }),
        ],
        enterprise: "unlimited",
      },
      identityKey: "user",
      unlimited: false,
      behaviour: "delay",
      maxDelayMs: 2000,
      strategy: "bytes",
      mode: "local",
      failurePolicy: "fail_open",
      dynamic: { windowMs: 60_000, recentWeight: 0.5, multiplier: 2 },
      priority: 5,
      replaces: ["search"],
      detailedMetric: true,
      order: 0,
    });
    expect(orders.blocked).toBeUndefined();
  });

  it("compiles each value kind; path patterns share a counter by default, others when asked", () => {
    expect(search.match).toEqual([
      { key: "user", value: { kind: "exact", value: "7" }, shared: false },
      { key: "endpoint", value: { kind: "prefix", prefix: "/api/v1/search" }, shared: true },
      { key: "region", value: { kind: "glob", pattern: "eu-*" }, shared: false },
    ]);
    // The identity defaults to the first entry not matched exactly.
    expect(search.identityKey).toBe("endpoint");
    expect(internal.identityKey).toBeUndefined();
  });

  it("applies the file's defaults to rules that leave fields out", () => {
    expect(config.defaults).toEqual({
      algorithm: "token_bucket",
      behaviour: "reject",
      maxDelayMs: 500,
      failurePolicy: "fail_closed",
      mode: "local",
    });
    expect(search).toMatchObject({
      name: "search",
      behaviour: "reject",
      maxDelayMs: 500,
      failurePolicy: "fail_closed",
      mode: "local",
      strategy: "requests",
      dynamic: undefined,
      priority: 0,
      replaces: [],
      detailedMetric: false,
      unlimited: false,
      order: 1,
    });
    expect(search.limits).toEqual([parseLimitSpec({ algorithm: "token_bucket", limit: 5, period: "1m" })]);
  });

  it("compiles unlimited and blocked rules without limits", () => {
    expect(internal).toMatchObject({ unlimited: true, limits: [], tiers: {} });
    expect(internal.blocked).toBeUndefined();
    expect(banned).toMatchObject({ blocked: true, unlimited: false, limits: [], domain: "edge" });
  });

  it("compiles identities, overrides (with the exact expiry) and the source", () => {
    expect([...config.identities]).toEqual([
      ["user:42", "premium"],
      ["apikey:ak_1", "enterprise"],
    ]);
    expect(config.overrides).toEqual([
      {
        identity: "user:42",
        rule: "orders-per-user",
        limits: [parseLimitSpec({ algorithm: "token_bucket", limit: 50, period: "1s" })],
        expiresAtMs: Date.UTC(2026, 11, 1),
        staticOnly: true,
      },
      { identity: "user:9", rule: undefined, limits: "unlimited", expiresAtMs: undefined, staticOnly: false },
    ]);
    expect(config.source).toBe("sluice.yaml");
  });

  it("is deeply frozen, its identities map read-only", () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rules)).toBe(true);
    expect(Object.isFrozen(orders)).toBe(true);
    expect(Object.isFrozen(orders.match)).toBe(true);
    expect(Object.isFrozen(orders.match[1].value)).toBe(true);
    expect(Object.isFrozen(orders.limits)).toBe(true);
    expect(Object.isFrozen(orders.tiers)).toBe(true);
    expect(Object.isFrozen(orders.tiers.premium)).toBe(true);
    expect(Object.isFrozen(orders.dynamic)).toBe(true);
    expect(Object.isFrozen(orders.replaces)).toBe(true);
    expect(Object.isFrozen(config.overrides[0])).toBe(true);
    expect(Object.isFrozen(config.defaults)).toBe(true);
    const identities = config.identities as Map<string, string>;
    expect(() => identities.set("user:1", "free")).toThrow(TypeError);
    expect(() => identities.delete("user:42")).toThrow(TypeError);
    expect(() => identities.clear()).toThrow(TypeError);
    expect(config.identities.get("user:42")).toBe("premium");
    expect(() => {
      (orders as { priority: number }).priority = 1;
    }).toThrow(TypeError);
  });

  it("keeps tier names that collide with Object's properties as plain keys", () => {
    const c = parseConfig(`
tiers: [constructor]
rules:
  - { id: r, domain: d, match: [{ key: user }], limits: [{ limit: 1, period: 1s }], tiers: { constructor: unlimited } }
`);
    expect(c.rules[0].tiers.constructor).toBe("unlimited");
    expect(c.rules[0].tiers.toString).toBeUndefined();
  });

  it("reads JSON and YAML into the same configuration", () => {
    const fromJson = parseConfig(FULL_JSON, { source: "sluice.json" });
    expect({ ...fromJson, source: "x" }).toEqual({ ...config, source: "x" });
    expect(parseConfig(FULL_JSON, { format: "json" }).rules).toEqual(config.rules);
    expect(configFromValue(JSON.parse(FULL_JSON)).rules).toEqual(config.rules);
  });
});

describe("parseConfig: documented defaults and formats", () => {
  it("applies the built-in defaults when the file has none", () => {
    const c = parseConfig(`
rules:
  - id: r
    domain: d
    match: [{ key: user }]
    behaviour: delay
    limits: [{ limit: 10, period: 1s }]
    dynamic: {}
`);
    expect(c.defaults).toEqual({
      algorithm: "gcra",
      behaviour: "reject",
      maxDelayMs: 1000,
      failurePolicy: "fallback",
      mode: "exact",
    });
    expect(c.rules[0]).toMatchObject({
      limits: [parseLimitSpec({ limit: 10, period: "1s" })],
      maxDelayMs: 1000,
      dynamic: { windowMs: 300_000, recentWeight: 0.75, multiplier: 1.5 },
    });
    expect(c.source).toBeUndefined();
    expect(parseConfig("rules: []\n").rules).toEqual([]);
  });

  it("takes a .json source as JSON (comments are then an error) and anything else as YAML", () => {
    const yaml = "# comment\nrules: []\n";
    expect(parseConfig(yaml, { source: "c.yaml" }).rules).toEqual([]);
    // Node 20 names no position for this error; later versions give its line.
    expect(() => parseConfig(yaml, { source: "c.json" })).toThrow(
      /^c\.json(:1)?: invalid JSON: Unexpected token '#'$/,
    );
    expect(() => parseConfig(yaml, { source: "c.yaml", format: "json" })).toThrow(/invalid JSON/);
    expect(parseConfig('{"rules": []}', { source: "c.txt", format: "auto" }).rules).toEqual([]);
  });

  it("names text without a source <config>, so lines still show", () => {
    expect(() => parseConfig("rules:\n  - id: 'a b'\n")).toThrow(
      /^<config>:2: rules\[0\]\.id: must contain only letters, digits, "_", "\." and "-", got "a b"$/m,
    );
  });

  it("accepts YAML anchors and merge keys for shared settings", () => {
    const c = parseConfig(`
rules:
  - &per-user { id: a, domain: api, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }
  - { <<: *per-user, id: b, domain: web }
`);
    expect(c.rules.map((r) => [r.id, r.domain, r.limits[0].limit])).toEqual([
      ["a", "api", 1],
      ["b", "web", 1],
    ]);
  });

  it("reports issues without lines for parsed values (admin API bodies)", () => {
    expect(() => configFromValue({ rules: [{ id: "a", domain: "d", match: [] }] })).toThrow(
      /^rules\[0\]\.match: must list at least 1 entry\nrules\[0\]\.limits: is required \(or set unlimited: true\)$/,
    );
  });
});

describe("parseConfig: checks across fields", () => {
  function messages(text: string): string[] {
    try {
      parseConfig(text, { source: "c.yaml" });
    } catch (error) {
      if (error instanceof ConfigError) return error.message.split("\n");
      throw error;
    }
    return [];
  }

  it("blocked rules take no limits, tiers, overrides or unlimited", () => {
    expect(
      messages(`tiers: [free]
rules:
  - id: b
    domain: d
    match: [{ key: ip, value: 1.2.3.4 }]
    blocked: true
    unlimited: true
    limits: [{ limit: 1, period: 1s }]
    tiers: { free: unlimited }
overrides:
  - { identity: "ip:1.2.3.4", rule: b, limits: unlimited }
`),
    ).toEqual([
      "c.yaml:6: rules[0].blocked: cannot be combined with unlimited: true",
      "c.yaml:8: rules[0].limits: must be left out when unlimited is true (the rule has no limits)",
      "c.yaml:9: rules[0].tiers: do not apply to a blocked rule (it denies everyone)",
      'c.yaml:11: overrides[0].rule: rule "b" is blocked (it denies everyone), so overrides do not apply to it',
    ]);
  });

  it("tiers need an identity; an override must use its rule's identity key", () => {
    expect(
      messages(`tiers: [free]
rules:
  - id: r
    domain: d
    match: [{ key: service, value: billing }]
    limits: [{ limit: 1, period: 1s }]
    tiers: { free: [{ limit: 2, period: 1s }] }
  - id: u
    domain: d
    match: [{ key: user }]
    limits: [{ limit: 1, period: 1s }]
overrides:
  - { identity: "tenant:acme", rule: u, limits: unlimited }
  - { identity: "service:billing", rule: r, limits: unlimited }
`),
    ).toEqual([
      "c.yaml:7: rules[0].tiers: need an identity to look callers up by: every match entry is exact, so set identity",
      'c.yaml:13: overrides[0].identity: rule "u" identifies callers by "user", so an override for "tenant:acme" never applies',
      'c.yaml:14: overrides[1].identity: rule "r" has no identity entry, so this override never applies',
    ]);
  });

  it("delay needs rate algorithms in tier and override limits too, and names the default algorithm", () => {
    expect(
      messages(`defaults: { algorithm: fixed_window }
tiers: [premium]
rules:
  - id: r
    domain: d
    match: [{ key: user }]
    behaviour: delay
    limits: [{ limit: 1, period: 1s, algorithm: gcra }]
    tiers: { premium: [{ limit: 5, period: 1s }] }
overrides:
  - { identity: "user:1", limits: [{ limit: 9, period: 1s, algorithm: sliding_window }] }
`),
    ).toEqual([
      "c.yaml:9: rules[0].tiers.premium[0]: behaviour delay spaces requests at the limit's rate, so it needs a rate algorithm (gcra, token_bucket or leaky_bucket); fixed_window (the default algorithm) has no rate to space them at",
      'c.yaml:11: overrides[0].limits[0].algorithm: behaviour delay (of rule "r") spaces requests at the limit\'s rate, so it needs a rate algorithm (gcra, token_bucket or leaky_bucket); sliding_window has no rate to space them at',
    ]);
  });

  it("takes any algorithm for a static-only override of a dynamic rule (its limits are never scaled)", () => {
    const yaml = (staticOnly: boolean) => `rules:
  - id: ingest
    domain: otlp
    match: [{ key: tenant }]
    limits: [{ name: per-second, limit: 100, period: 1s }]
    dynamic: { window: 5m }
overrides:
  - { identity: "tenant:acme", rule: ingest, limits: [{ limit: 5, period: 1s, algorithm: sliding_log }], staticOnly: ${staticOnly} }
  - { identity: "tenant:beta", limits: [{ limit: 5, period: 1s, algorithm: concurrency }], staticOnly: ${staticOnly} }
`;
    expect(parseConfig(yaml(true)).overrides.map((o) => o.staticOnly)).toEqual([true, true]);
    expect(messages(yaml(false))).toEqual([
      "c.yaml:8: overrides[0].limits[0].algorithm: dynamic scales the limit, and sliding_log keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket",
      'c.yaml:9: overrides[1].limits[0].algorithm: dynamic (of rule "ingest") scales the limit, and concurrency keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket',
    ]);
  });

  it("reports duplicate tiers and limit names, self-replacement, and dynamic limits without limits", () => {
    expect(
      messages(`tiers: [free, free]
rules:
  - id: r
    domain: d
    match: [{ key: user }]
    limits:
      - { limit: 1, period: 1s }
      - { limit: 100, period: 1d }
    replaces: [r]
  - id: u
    domain: d
    match: [{ key: user, path: "/a/*b" }]
    unlimited: true
    dynamic: {}
`),
    ).toEqual([
      'c.yaml:1: tiers[1]: duplicate tier "free"; first at tiers[0] (line 1)',
      'c.yaml:8: rules[0].limits[1]: duplicate limit name "default"; give each limit of the list its own name; first at rules[0].limits[0] (line 7)',
      "c.yaml:9: rules[0].replaces[0]: a rule cannot replace itself",
      'c.yaml:12: rules[1].match[0].path: "*" must be a whole segment (last, it matches the rest of the path; elsewhere, one segment); use glob for wildcards inside a segment, got "/a/*b"',
      "c.yaml:14: rules[1].dynamic: needs limits to adjust; the rule is unlimited",
    ]);
  });

  it("refuses a path pattern with a query string (it matches the URL path only), naming the rule and field", () => {
    expect(
      messages(`rules:
  - id: items
    domain: d
    match: [{ key: endpoint, path: "/api/items?page=*" }]
    limits: [{ limit: 1, period: 1s }]
  - { id: root, domain: d, match: [{ key: user }, { key: endpoint, path: "/?" }], limits: [{ limit: 1, period: 1s }] }
`),
    ).toEqual([
      'c.yaml:4: rules[0].match[0].path: must not contain "?": path patterns match the URL path only, query strings are not matched (the query is dropped before matching), got "/api/items?page=*"',
      'c.yaml:6: rules[1].match[1].path: must not contain "?": path patterns match the URL path only, query strings are not matched (the query is dropped before matching), got "/?"',
    ]);
    // The admin API validates bodies with the same schema.
    expect(() =>
      configFromValue({
        rules: [
          {
            id: "a",
            domain: "d",
            match: [{ key: "endpoint", path: "/a?b" }],
            limits: [{ limit: 1, period: "1s" }],
          },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: "ERR_SLUICE_INVALID_CONFIG" }));
  });

  it("reports a rule that can never apply: same domain and match as one that always wins", () => {
    expect(
      messages(`rules:
  - { id: a, domain: d, match: [{ key: user }, { key: path, prefix: /x }], limits: [{ limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: user }, { key: path, prefix: /x }], limits: [{ limit: 2, period: 1s }] }
  - { id: c, domain: e, match: [{ key: user }, { key: path, prefix: /x }], limits: [{ limit: 3, period: 1s }] }
  - id: d
    domain: e
    priority: 1
    match: [{ key: user, shared: true }, { key: path, prefix: /x }]
    limits: [{ limit: 4, period: 1s }]
`),
    ).toEqual([
      'c.yaml:3: rules[1].match: rule "a" has the same domain and match and wins (declared first, same priority), so this rule never applies; the winner is at rules[0].match (line 2)',
      'c.yaml:4: rules[2].match: rule "d" has the same domain and match and wins (higher priority), so this rule never applies; the winner is at rules[3].match (line 8)',
    ]);
  });

  it("reports a rule that can never apply by a path pattern the matcher reads alike", () => {
    const pair = (p1: string, p2: string) =>
      messages(`rules:
  - { id: a, domain: d, match: [{ key: e, path: "${p1}" }], limits: [{ limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: e, path: "${p2}" }], limits: [{ limit: 5, period: 1s }] }
`);
    for (const [p1, p2] of [
      ["/a/b", "/a/b/"],
      ["/a//b", "/a/b"],
      ["/a/:x", "/a/:y"],
      ["/a/*/c", "/a/:x/c"],
    ]) {
      expect(pair(p1, p2)).toEqual([
        'c.yaml:3: rules[1].match: rule "a" has the same domain and an equivalent match (path patterns that match the same paths) and wins (declared first, same priority), so this rule never applies; the winner is at rules[0].match (line 2)',
      ]);
    }
    // Not alike: a trailing "*" matches one or more segments, ":x" exactly one.
    expect(pair("/a/*", "/a/:x")).toEqual([]);
  });

  it("names the rule that really wins among several of one match", () => {
    // Of three, the one declared second loses to the one of higher priority, not to the first (which loses too).
    expect(
      messages(`rules:
  - { id: a, domain: d, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }
  - { id: c, domain: d, priority: 5, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }
`),
    ).toEqual([
      'c.yaml:2: rules[0].match: rule "c" has the same domain and match and wins (higher priority), so this rule never applies; the winner is at rules[2].match (line 4)',
      'c.yaml:3: rules[1].match: rule "c" has the same domain and match and wins (higher priority), so this rule never applies; the winner is at rules[2].match (line 4)',
    ]);
  });

  it("refuses a rule-less override whose identity key no rule identifies callers by (it never applies)", () => {
    expect(
      messages(`rules:
  - { id: u, domain: d, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }
  - { id: k, domain: d, match: [{ key: apikey }, { key: path, value: /x }], limits: [{ limit: 1, period: 1s }] }
  - { id: s, domain: d, match: [{ key: service, value: billing }], limits: [{ limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: ip }], blocked: true }
overrides:
  - { identity: "user:42", limits: unlimited }
  - { identity: "tenant:acme", limits: unlimited }
  - { identity: "service:billing", limits: [{ limit: 5, period: 1s }] }
  - { identity: "ip:1.2.3.4", limits: unlimited }
`),
    ).toEqual([
      'c.yaml:8: overrides[1].identity: no rule identifies callers by the key of "tenant:acme", so this override never applies (rules identify callers by "user", "apikey", "ip")',
      'c.yaml:9: overrides[2].identity: no rule identifies callers by the key of "service:billing", so this override never applies (rules identify callers by "user", "apikey", "ip")',
      'c.yaml:10: overrides[3].identity: every rule identifying callers by the key of "ip:1.2.3.4" is blocked (it denies everyone), so this override never applies',
    ]);
    expect(
      messages(`rules:
  - { id: s, domain: d, match: [{ key: service, value: billing }], limits: [{ limit: 1, period: 1s }] }
overrides:
  - { identity: "user:42", limits: unlimited }
`),
    ).toEqual([
      'c.yaml:4: overrides[0].identity: no rule identifies callers by the key of "user:42", so this override never applies (no rule has an identity entry)',
    ]);
    // A key holding ":" is matched as the engine forms identities (`ns:tenant:acme` is of key "ns:tenant").
    expect(
      messages(`rules:
  - { id: t, domain: d, match: [{ key: "ns:tenant" }], limits: [{ limit: 1, period: 1s }] }
overrides:
  - { identity: "ns:tenant:acme", limits: unlimited }
`),
    ).toEqual([]);
  });

  it("takes an override's identity key from the rules' keys, which may hold ':', not from its first ':'", () => {
    const rules = `rules:
  - { id: t, domain: d, match: [{ key: "ns:tenant" }], limits: [{ limit: 1, period: 1s }], dynamic: {} }
  - { id: n, domain: d, match: [{ key: ns }], limits: [{ limit: 1, period: 1s }] }
`;
    // Of key "ns:tenant" (value "acme"), and of key "ns" too (value "tenant:acme"): the engine applies it to both.
    expect(
      messages(`${rules}overrides:
  - { identity: "ns:tenant:acme", rule: t, limits: [{ limit: 5, period: 1s }] }
  - { identity: "ns:tenant:acme", rule: n, limits: [{ limit: 5, period: 1s }] }
  - { identity: "ns:other", rule: t, limits: [{ limit: 5, period: 1s }] }
`),
    ).toEqual([
      'c.yaml:7: overrides[2].identity: rule "t" identifies callers by "ns:tenant", so an override for "ns:other" never applies',
    ]);
    // A rule-less override is checked against every rule it can apply to: here the dynamic one of key "ns:tenant".
    expect(
      messages(`${rules}overrides:
  - { identity: "ns:tenant:acme", limits: [{ name: per-second, algorithm: sliding_log, limit: 5, period: 1s }] }
`),
    ).toEqual([
      'c.yaml:5: overrides[0].limits[0].algorithm: dynamic (of rule "t") scales the limit, and sliding_log keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket',
    ]);
  });

  it("allows tiers and overrides on an unlimited rule (the explicit per-identity statement wins)", () => {
    const c = parseConfig(`tiers: [free]
rules:
  - { id: u, domain: d, match: [{ key: user }], unlimited: true, tiers: { free: [{ limit: 1, period: 1s }] } }
overrides:
  - { identity: "user:1", rule: u, limits: [{ limit: 2, period: 1s }] }
`);
    expect(c.rules[0]).toMatchObject({ unlimited: true, limits: [] });
    expect(c.rules[0].tiers.free).toEqual([parseLimitSpec({ limit: 1, period: "1s" })]);
  });
});

describe("the examples", () => {
  it("examples/sluice.yaml and examples/envoy-ratelimit.yaml load", async () => {
    const native = await loadConfigFile(new URL("../../examples/sluice.yaml", import.meta.url).pathname);
    expect(new Set(native.rules.map((r) => r.domain))).toEqual(new Set(["api", "edge", "ingest"]));
    const kinds = new Set(native.rules.flatMap((r) => r.match.map((e) => e.value.kind)));
    expect(kinds).toEqual(new Set(["any", "exact", "prefix", "glob", "path"]));
    expect(new Set(native.rules.map((r) => r.behaviour))).toEqual(new Set(["reject", "delay", "shadow"]));
    expect(new Set(native.rules.map((r) => r.strategy))).toEqual(new Set(["requests", "bytes", "records"]));
    expect(native.rules.some((r) => r.dynamic)).toBe(true);
    expect(native.rules.some((r) => r.unlimited)).toBe(true);
    expect(native.rules.some((r) => r.blocked)).toBe(true);
    expect(native.rules.some((r) => r.replaces.length > 0)).toBe(true);
    expect(native.overrides.some((o) => o.expiresAtMs !== undefined)).toBe(true);
    expect(native.overrides.some((o) => o.rule === undefined)).toBe(true);
    const envoy = await loadConfigFile(
      new URL("../../examples/envoy-ratelimit.yaml", import.meta.url).pathname,
    );
    expect(envoy.rules.length).toBe(13);
  });
});

describe("config-schema", () => {
  it("validates a single rule body with the exported rule schema", () => {
    expect(
      ruleSchema.safeParse({ id: "r", domain: "d", match: [{ key: "k" }], limits: [{ limit: 1 }] }).success,
    ).toBe(true);
    expect(ruleSchema.safeParse({ id: "r", domain: "d", match: [{ key: "k" }], extra: 1 }).success).toBe(
      false,
    );
  });

  it("reports every cross-field problem even when the structure is also wrong", () => {
    const result = validateConfig({
      rules: [
        { id: 5, domain: "d", match: [{ key: "k" }], limits: [{ limit: 1, period: "1s" }], replaces: ["x"] },
      ],
      overrides: [{ identity: "k:1", rule: "nope", limits: "unlimited" }],
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues.map((i) => `${formatPath(i.path)}: ${i.message}`)).toEqual([
      "rules[0].id: must be a string, got 5",
      'rules[0].replaces[0]: unknown rule id "x"',
      'overrides[0].rule: unknown rule id "nope"',
    ]);
    expect(configSchema.safeParse({ rules: [] }).success).toBe(true);
  });

  it("lists every problem of every limit (rules, tiers, overrides), a field of the wrong type hiding none", () => {
    const text = [
      "tiers: [pro]",
      "rules:",
      "  - id: r",
      "    domain: d",
      "    match: [{ key: user }]",
      "    limits:",
      "      - { name: a, limit: -1, period: 1q, burst: -4 }",
      '      - { name: b, limit: "ten", period: 1q, burst: -4, extra: 1 }',
      "      - { name: c, algorithm: nope, limit: 5, period: 1q, bucket: 0 }",
      "    tiers:",
      "      pro: [{ algorithm: fixed_window, limit: -1, period: 1q, burst: 3 }]",
      "overrides:",
      "  - { identity: user:1, rule: r, limits: [{ limit: true, periodMs: -5, burst: 0 }] }",
    ].join("\n");
    const PERIOD = 'must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d")';
    expect(() => parseConfig(text, { source: "c.yaml" })).toThrow(
      expect.objectContaining({
        message: [
          "c.yaml:7: rules[0].limits[0].limit: must be a finite number > 0",
          `c.yaml:7: rules[0].limits[0].period: ${PERIOD}, got "1q"`,
          "c.yaml:7: rules[0].limits[0].burst: must be a finite number >= 1, got -4",
          'c.yaml:8: rules[0].limits[1].limit: must be a number, got "ten"',
          "c.yaml:8: rules[0].limits[1].extra: unknown field; expected one of name, algorithm, limit, period, periodMs, burst, bucket, bucketMs",
          `c.yaml:8: rules[0].limits[1].period: ${PERIOD}, got "1q"`,
          "c.yaml:8: rules[0].limits[1].burst: must be a finite number >= 1, got -4",
          'c.yaml:9: rules[0].limits[2].algorithm: must be one of token_bucket, leaky_bucket, fixed_window, sliding_log, sliding_window, gcra, bucketed_window, concurrency, got "nope"',
          `c.yaml:9: rules[0].limits[2].period: ${PERIOD}, got "1q"`,
          "c.yaml:9: rules[0].limits[2].bucket: must be a whole number of milliseconds >= 1, got 0",
          // The burst is not compared with the invalid limit (fixed_window's burst may only repeat it).
          "c.yaml:11: rules[0].tiers.pro[0].limit: must be a finite number > 0",
          `c.yaml:11: rules[0].tiers.pro[0].period: ${PERIOD}, got "1q"`,
          "c.yaml:13: overrides[0].limits[0].limit: must be a number, got true",
          `c.yaml:13: overrides[0].limits[0].periodMs: ${PERIOD}, got -5`,
          "c.yaml:13: overrides[0].limits[0].burst: must be a finite number >= 1, got 0",
        ].join("\n"),
      }),
    );
  });

  it("formats and parses paths", () => {
    const path = ["rules", 1, "limits", 0, "burst"];
    expect(formatPath(path)).toBe("rules[1].limits[0].burst");
    expect(parsePath("rules[1].limits[0].burst")).toEqual(path);
    expect(formatPath(["identities", "user:42"])).toBe('identities["user:42"]');
    expect(parsePath('identities["user:42"]')).toEqual(["identities", "user:42"]);
  });

  it("reports a rejected config as ConfigError with code ERR_SLUICE_INVALID_CONFIG and lines", () => {
    try {
      parseConfig("rules:\n  - id: a\n", { source: "c.yaml" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe("ERR_SLUICE_INVALID_CONFIG");
      expect((error as ConfigError).issues).toEqual([
        { path: "rules[0].domain", message: "is required", line: 2 },
        { path: "rules[0].match", message: "is required", line: 2 },
        { path: "rules[0].limits", message: "is required (or set unlimited: true)", line: 2 },
      ]);
    }
  });
});

describe("parseConfig: JSON", () => {
  /** A native configuration with `users` identities (every tenth premium) and one tiered rule. */
  function largeConfig(users: number): Record<string, unknown> {
    const identities: Record<string, string> = {};
    for (let u = 0; u < users; u++) identities[`user:${u}`] = u % 10 === 0 ? "premium" : "free";
    return {
      tiers: ["free", "premium"],
      identities,
      rules: [
        {
          id: "per-user",
          domain: "api",
          match: [{ key: "user" }, { key: "endpoint", path: "/api/v1/orders/*" }],
          limits: [{ limit: 10, period: "1s" }],
          tiers: { premium: [{ limit: 100, period: "1s" }] },
        },
      ],
    };
  }

  it("reads a document of 100,000 identities with JSON.parse (by its `{`, or a .json source)", () => {
    const text = JSON.stringify(largeConfig(100_000), null, 2);
    for (const c of [parseConfig(text), parseConfig(text, { source: "big.json" })]) {
      expect(c.identities.size).toBe(100_000);
      expect(c.identities.get("user:0")).toBe("premium");
      expect(c.identities.get("user:99999")).toBe("free");
      expect(c.identities.get("user:99990")).toBe("premium");
      expect(c.rules).toHaveLength(1);
      expect(c.rules[0]).toMatchObject({
        id: "per-user",
        identityKey: "user",
        limits: [parseLimitSpec({ limit: 10, period: "1s" })],
        tiers: { premium: [parseLimitSpec({ limit: 100, period: "1s" })] },
      });
      expect(Object.isFrozen(c.rules[0])).toBe(true);
    }
    expect(parseConfig(text).source).toBeUndefined();
    expect(parseConfig(text, { source: "big.json" }).source).toBe("big.json");
  });

  it("reports validation errors of JSON with their paths and lines, as for YAML", () => {
    const value = largeConfig(3) as { identities: Record<string, string>; rules: Record<string, unknown>[] };
    value.identities["user:1"] = "gold";
    value.rules[0].limits = [{ limit: -1, period: "1s" }];
    value.rules.push({
      id: "per-user",
      domain: "api",
      match: [{ key: "ip" }],
      limits: [{ limit: 1, period: "1s" }],
    });
    const text = JSON.stringify(value, null, 2);
    const line = (needle: string, from = 0): number =>
      text.slice(0, text.indexOf(needle, from)).split("\n").length;
    const second = text.indexOf('"id": "per-user"') + 1;
    let error: unknown;
    try {
      parseConfig(text, { source: "c.json" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message.split("\n")).toEqual([
      `c.json:${line('"user:1"')}: identities["user:1"]: unknown tier "gold"; declared: free, premium`,
      `c.json:${line('"limit": -1')}: rules[0].limits[0].limit: must be a finite number > 0`,
      `c.json:${line('"id": "per-user"', second)}: rules[1].id: duplicate rule id "per-user"; first at rules[0].id (line ${line('"id": "per-user"')})`,
    ]);
  });

  it("refuses a key repeated in one object, naming it and both lines", () => {
    const text = '{\n  "rules": [],\n  "tiers": ["a"],\n  "rules": []\n}\n';
    expect(() => parseConfig(text)).toThrow(
      /^<config>:4: rules: invalid JSON: the key is repeated in its object \(keys must be unique\); first at line 2$/,
    );
    expect(() => parseConfig('{"identities": {"user:1": "a", "user:1": "b"}}', { source: "c.json" })).toThrow(
      /^c\.json:1: identities\["user:1"\]: invalid JSON: the key is repeated/,
    );
  });

  it("gives the line of a syntax error, also where V8's message names no position", () => {
    // V8 names the position of some errors ("at position 21") and not of others ("Unexpected token").
    expect(() => parseConfig('{\n  "rules": [],\n  "x": tru\n}', { source: "c.json" })).toThrow(
      /^c\.json:3: invalid JSON: /,
    );
    expect(() => parseConfig('{\n  "rules": [],\n}', { source: "c.json" })).toThrow(
      /^c\.json:3: invalid JSON: /,
    );
  });

  it("still reads YAML flow mappings (which also open with `{`) as YAML", () => {
    const c = parseConfig(
      "{ rules: [{ id: r, domain: d, match: [{ key: user }], limits: [{ limit: 1, period: 1s }] }] }",
    );
    expect(c.rules[0].id).toBe("r");
    // A `.yaml` file holding JSON is read as JSON: the same configuration, JSON's rules (repeated keys refused).
    expect(parseConfig('{"rules": []}', { source: "c.yaml" }).rules).toEqual([]);
    expect(() => parseConfig('{"rules": [], "rules": []}', { source: "c.yaml" })).toThrow(
      /the key is repeated/,
    );
  });

  it("reads an envoyproxy/ratelimit configuration given as JSON, scalars by their source text", () => {
    const text = JSON.stringify({
      domain: "edge",
      descriptors: [{ key: "version", value: 1.1, rate_limit: { unit: "second", requests_per_unit: 5 } }],
    }).replace("1.1", "1.10");
    const c = parseConfig(text);
    expect(c.rules[0]).toMatchObject({
      domain: "edge",
      match: [{ key: "version", value: { kind: "exact", value: "1.10" } }],
    });
  });
});

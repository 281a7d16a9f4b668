import { describe, expect, it } from "vitest";
import { ConfigError } from "../core/errors.js";
import { ENVOY_UNIT_SECONDS, isEnvoyConfig, parseEnvoyConfig } from "./envoy-config.js";
import { parseConfig } from "./load-config.js";
import type { Rule } from "./rule.js";

function load(text: string, algorithm?: Parameters<typeof parseEnvoyConfig>[1]): readonly Rule[] {
  return parseEnvoyConfig(text, { source: "ratelimit.yaml", ...algorithm }).rules;
}

function errorOf(text: string): string {
  try {
    parseEnvoyConfig(text, { source: "ratelimit.yaml" });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("ERR_SLUICE_INVALID_CONFIG");
    return (error as ConfigError).message;
  }
  throw new Error("expected the config to be rejected");
}

/** A compact view of a rule: its id, match and limits. */
function brief(rule: Rule): string {
  const limits = rule.unlimited
    ? "unlimited"
    : rule.blocked
      ? "blocked"
      : rule.limits.map((l) => `${l.name} ${l.limit}/${l.periodMs}ms ${l.algorithm}`).join(", ");
  return `${rule.id} → ${limits}`;
}

describe("parseEnvoyConfig: the README examples", () => {
  it("loads the basic config: one rule per descriptor, fixed_window, 500 per second", () => {
    const config = parseEnvoyConfig(
      `domain: mongo_cps
descriptors:
  - key: database
    value: users
    rate_limit:
      unit: second
      requests_per_unit: 500

  - key: database
    value: default
    rate_limit:
      unit: second
      requests_per_unit: 500
`,
      { source: "mongo.yaml" },
    );
    expect(config.source).toBe("mongo.yaml");
    expect(config.rules.map(brief)).toEqual([
      "database=users → per_second 500/1000ms fixed_window",
      "database=default → per_second 500/1000ms fixed_window",
    ]);
    const [users] = config.rules;
    expect(users).toMatchObject({
      name: "database=users",
      domain: "mongo_cps",
      match: [{ key: "database", value: { kind: "exact", value: "users" }, shared: false }],
      identityKey: undefined,
      unlimited: false,
      behaviour: "reject",
      strategy: "requests",
      mode: "exact",
      priority: 0,
      replaces: [],
      detailedMetric: false,
      order: 0,
    });
    expect(users.limits[0]).toEqual({
      name: "per_second",
      algorithm: "fixed_window",
      limit: 500,
      periodMs: 1000,
      burst: 500,
      bucketMs: 0,
      emissionMs: 2,
    });
    expect(config.defaults.algorithm).toBe("fixed_window");
    expect(config.identities.size).toBe(0);
    expect(config.overrides).toEqual([]);
  });

  it("loads nested descriptors: a placeholder level, a per-value key beneath it and a top-level key", () => {
    const rules = load(`domain: messaging
descriptors:
  # Only allow 5 marketing messages a day
  - key: message_type
    value: marketing
    descriptors:
      - key: to_number
        rate_limit:
          unit: day
          requests_per_unit: 5

  # Only allow 100 messages a day to any unique phone number
  - key: to_number
    rate_limit:
      unit: day
      requests_per_unit: 100
`);
    expect(rules.map(brief)).toEqual([
      "message_type=marketing/to_number → per_day 5/86400000ms fixed_window",
      "to_number → per_day 100/86400000ms fixed_window",
    ]);
    expect(rules[0].match).toEqual([
      { key: "message_type", value: { kind: "exact", value: "marketing" }, shared: false },
      { key: "to_number", value: { kind: "any" }, shared: false },
    ]);
    // The caller is the first entry matched by any value.
    expect(rules[0].identityKey).toBe("to_number");
    expect(rules[1].identityKey).toBe("to_number");
  });

  it("loads a per-IP limit with a specific IP blocked (requests_per_unit: 0)", () => {
    const rules = load(`domain: edge_proxy_per_ip
descriptors:
  - key: remote_address
    rate_limit:
      unit: second
      requests_per_unit: 10

  # Black list IP
  - key: remote_address
    value: 50.0.0.5
    rate_limit:
      unit: second
      requests_per_unit: 0
`);
    expect(rules.map(brief)).toEqual([
      "remote_address → per_second 10/1000ms fixed_window",
      "remote_address=50.0.0.5 → blocked",
    ]);
    expect(rules[1]).toMatchObject({
      blocked: true,
      blockedPeriodMs: 1000, // its unit, reported with the 0
      unlimited: false,
      limits: [],
      behaviour: "reject",
    });
    expect(rules[0].blocked).toBeUndefined();
  });

  it("reads a rate_limit without requests_per_unit as 0, as envoyproxy/ratelimit does: blocked", () => {
    const rules = load("domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute }\n");
    expect(rules.map(brief)).toEqual(["k → blocked"]);
  });

  it("matches only at the configured depth: a limit under a nested key has a two-entry match", () => {
    const rules = load(`domain: example4
descriptors:
  - key: key
    value: value
    descriptors:
      - key: subkey
        rate_limit:
          requests_per_unit: 300
          unit: second
`);
    expect(rules.map((r) => r.match.length)).toEqual([2]);
    expect(rules.map(brief)).toEqual(["key=value/subkey → per_second 300/1000ms fixed_window"]);
  });

  it("loads unlimited descriptors", () => {
    const rules = load(`domain: internal
descriptors:
  - key: ldap
    rate_limit:
      unlimited: true

  - key: azure
    rate_limit:
      unit: minute
      requests_per_unit: 100
`);
    expect(rules.map(brief)).toEqual(["ldap → unlimited", "azure → per_minute 100/60000ms fixed_window"]);
    expect(rules[0]).toMatchObject({ unlimited: true, limits: [] });
  });

  it("maps shadow_mode to the shadow behaviour, on the descriptor that carries it only", () => {
    const rules = load(`domain: example6
descriptors:
  - key: service
    descriptors:
      - key: user
        value: user-a
        rate_limit:
          requests_per_unit: 10
          unit: second
        shadow_mode: true
      - key: user
        value: user-b
        rate_limit:
          requests_per_unit: 20
          unit: second
`);
    expect(rules.map((r) => [r.id, r.behaviour])).toEqual([
      ["service/user=user-a", "shadow"],
      ["service/user=user-b", "reject"],
    ]);
  });

  it("maps replaces, which names rate_limit names, to the ids of the rules carrying those names", () => {
    const rules = load(`domain: example7
descriptors:
  - key: key_1
    value: value_1
    descriptors:
      - key: user
        value: bkthomps
        rate_limit:
          name: specific_limit
          requests_per_unit: 5
          unit: second
  - key: key_2
    value: value_2
    descriptors:
      - key: user
        value: bkthomps
        rate_limit:
          replaces:
            - name: specific_limit
          requests_per_unit: 10
          unit: second
`);
    expect(rules.map((r) => [r.id, r.name, r.replaces])).toEqual([
      ["key_1=value_1/user=bkthomps", "specific_limit", []],
      ["key_2=value_2/user=bkthomps", "key_2=value_2/user=bkthomps", ["key_1=value_1/user=bkthomps"]],
    ]);
    // A named limit keeps its name as the policy name.
    expect(rules[0].limits[0].name).toBe("specific_limit");
  });

  it("ignores replaces naming a limit nothing carries, as envoyproxy/ratelimit does", () => {
    const rules = load(
      "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: second, requests_per_unit: 1, replaces: [{ name: ghost }] }\n",
    );
    expect(rules[0].replaces).toEqual([]);
  });

  it("maps detailed_metric", () => {
    const rules = load(`domain: example8
descriptors:
  - key: key1
    detailed_metric: true
    rate_limit:
      unit: minute
      requests_per_unit: 10
  - key: key1
    value: value1
    rate_limit:
      unit: minute
      requests_per_unit: 20
`);
    expect(rules.map((r) => [r.id, r.detailedMetric])).toEqual([
      ["key1", true],
      ["key1=value1", false],
    ]);
  });

  it("turns trailing and embedded * wildcards into globs; share_threshold shares one counter", () => {
    const rules = load(`domain: example9
descriptors:
  - key: key1
    value: value*
    rate_limit:
      unit: minute
      requests_per_unit: 20
  - key: midWild
    value: /api/*/action
    share_threshold: true
    rate_limit:
      unit: minute
      requests_per_unit: 20
  - key: route
    value: api/*
    share_threshold: true
    value_to_metric: true
    descriptors:
      - key: method
        rate_limit: { unit: minute, requests_per_unit: 60 }
`);
    expect(rules.map((r) => [r.id, r.match])).toEqual([
      ["key1=value*", [{ key: "key1", value: { kind: "glob", pattern: "value*" }, shared: false }]],
      [
        "midWild=/api/*/action",
        [{ key: "midWild", value: { kind: "glob", pattern: "/api/*/action" }, shared: true }],
      ],
      [
        "route=api/*/method",
        [
          { key: "route", value: { kind: "glob", pattern: "api/*" }, shared: true },
          { key: "method", value: { kind: "any" }, shared: false },
        ],
      ],
    ]);
    // A wildcard entry identifies the caller by default (it is not exact).
    expect(rules[0].identityKey).toBe("key1");
  });
});

describe("parseEnvoyConfig: units, values and options", () => {
  it("accepts every unit, case-insensitively, with envoyproxy/ratelimit's lengths (month 30 days, year 365)", () => {
    expect(ENVOY_UNIT_SECONDS).toEqual({
      second: 1,
      minute: 60,
      hour: 3600,
      day: 86400,
      week: 604800,
      month: 2592000,
      year: 31536000,
    });
    const units = ["SECOND", "Minute", "hour", "DAY", "week", "Month", "year"];
    const text = `domain: d\ndescriptors:\n${units.map((u, i) => `  - key: k${i}\n    rate_limit: { unit: ${u}, requests_per_unit: 7 }\n`).join("")}`;
    expect(load(text).map((r) => r.limits[0].periodMs / 1000)).toEqual(Object.values(ENVOY_UNIT_SECONDS));
  });

  it("multiplies the unit by unit_multiplier", () => {
    const rules = load(
      "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 20, unit_multiplier: 5 }\n",
    );
    expect(brief(rules[0])).toBe("k → per_5_minutes 20/300000ms fixed_window");
  });

  it("reads scalar keys and values by their source text (a number stays as written)", () => {
    const rules = load(`domain: d
descriptors:
  - key: version
    value: 1.10
    rate_limit: { unit: second, requests_per_unit: 1 }
  - key: 404
    value: yes
    rate_limit: { unit: second, requests_per_unit: 1 }
`);
    expect(rules.map((r) => r.id)).toEqual(["version=1.10", "404=yes"]);
  });

  it("reads YAML 1.1 booleans (yes/no) as envoyproxy/ratelimit's Go YAML library does", () => {
    const rules = load(
      "domain: d\ndescriptors:\n  - key: k\n    shadow_mode: yes\n    rate_limit: { unit: second, requests_per_unit: 1 }\n",
    );
    expect(rules[0].behaviour).toBe("shadow");
  });

  it("uses another algorithm when asked, with the limit and unit unchanged", () => {
    const rules = load(
      "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 60 }\n",
      {
        algorithm: "gcra",
      },
    );
    expect(rules[0].limits[0]).toMatchObject({ algorithm: "gcra", limit: 60, periodMs: 60_000, burst: 60 });
  });

  it("refuses an algorithm that is not a rate", () => {
    expect(() => parseEnvoyConfig("domain: d\n", { algorithm: "concurrency" })).toThrow(
      /algorithm: must be a rate algorithm .*, got "concurrency"/,
    );
  });

  it("reports limits the chosen algorithm cannot hold", () => {
    expect(() =>
      parseEnvoyConfig(
        "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: day, requests_per_unit: 1000000 }\n",
        { source: "r.yaml", algorithm: "sliding_log" },
      ),
    ).toThrow(
      "r.yaml:4: descriptors[0].rate_limit.requests_per_unit: sliding_log keeps every admitted request, so limit must be at most 100000; use sliding_window or bucketed_window for larger limits (with algorithm sliding_log)",
    );
  });

  it("accepts and ignores metadata and value_to_metric", () => {
    const rules = load(`domain: d
descriptors:
  - key: key2
    value_to_metric: true
    rate_limit: { unit: minute, requests_per_unit: 20 }
    metadata:
      service_with_quota:
        name: service_2
`);
    expect(rules.map(brief)).toEqual(["key2 → per_minute 20/60000ms fixed_window"]);
  });

  it("loads a domain without descriptors, and parsed values (JSON) without lines", () => {
    expect(load("domain: empty\n")).toEqual([]);
    const config = parseEnvoyConfig({
      domain: "api",
      descriptors: [{ key: "user", rate_limit: { unit: "second", requests_per_unit: 5 } }],
    });
    expect(config.rules.map(brief)).toEqual(["user → per_second 5/1000ms fixed_window"]);
    expect(config.source).toBeUndefined();
    expect(() => parseEnvoyConfig({ domain: "api", descriptors: [{ key: "" }] })).toThrow(
      /^descriptors\[0\]\.key: is required: every descriptor has a key$/,
    );
  });

  it("compiles to a deeply frozen configuration", () => {
    const config = parseEnvoyConfig(
      "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: second, requests_per_unit: 1 }\n",
    );
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rules)).toBe(true);
    expect(Object.isFrozen(config.rules[0])).toBe(true);
    expect(Object.isFrozen(config.rules[0].match[0].value)).toBe(true);
    expect(Object.isFrozen(config.rules[0].limits[0])).toBe(true);
    expect(() => (config.identities as Map<string, string>).set("a:b", "c")).toThrow(TypeError);
  });

  it("is detected and loaded by parseConfig", () => {
    const text =
      "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: hour, requests_per_unit: 3 }\n";
    expect(isEnvoyConfig({ domain: "d", descriptors: [] })).toBe(true);
    expect(isEnvoyConfig({ domain: "d" })).toBe(true);
    expect(isEnvoyConfig({ domain: "d", rules: [] })).toBe(false);
    expect(isEnvoyConfig({ rules: [] })).toBe(false);
    expect(parseConfig(text, { source: "r.yaml" }).rules.map(brief)).toEqual([
      "k → per_hour 3/3600000ms fixed_window",
    ]);
    expect(parseConfig(text, { envoyAlgorithm: "sliding_window" }).rules[0].limits[0].algorithm).toBe(
      "sliding_window",
    );
    expect(() => parseConfig("domain: d\ndescriptors:\n  - key: k\n    ratelimit: {}\n")).toThrow(
      "<config>:4: descriptors[0].ratelimit: unknown field; did you mean rate_limit?",
    );
  });
});

describe("parseEnvoyConfig: errors, with exact messages", () => {
  it("rejects an unknown key, as envoyproxy/ratelimit does", () => {
    expect(
      errorOf(`domain: test-domain
descriptors:
  - key: key1
    value: value1
    ratelimit:
      unit: second
`),
    ).toBe("ratelimit.yaml:5: descriptors[0].ratelimit: unknown field; did you mean rate_limit?");
    expect(
      errorOf(`domain: test-domain
descriptors:
  - key: key1
    rate_limit:
      unit: second
      requestsperunit: 5
`),
    ).toBe(
      "ratelimit.yaml:6: descriptors[0].rate_limit.requestsperunit: unknown field; did you mean requests_per_unit?",
    );
    expect(errorOf("domain: d\nlimits: []\n")).toBe(
      "ratelimit.yaml:2: limits: unknown field; expected one of domain, descriptors",
    );
  });

  it("accepts a key of another level and ignores it there, as envoyproxy/ratelimit's flat validKeys do", () => {
    const config = parseEnvoyConfig(
      `domain: d
descriptors:
  - key: user
    name: misplaced
    rate_limit: { unit: minute, requests_per_unit: 5, shadow_mode: true, key: x }
`,
      { source: "ratelimit.yaml" },
    );
    expect(config.rules.map(brief)).toEqual(["user → per_minute 5/60000ms fixed_window"]);
    expect(config.rules[0].behaviour).toBe("reject");
  });

  it("accepts unlimited beside an empty or unknown unit, which envoyproxy/ratelimit ignores", () => {
    const rules = load(`domain: d
descriptors:
  - key: a
    rate_limit: { unlimited: true, unit: "" }
  - key: b
    rate_limit: { unlimited: true, unit: fortnight }
`);
    expect(rules.map(brief)).toEqual(["a → unlimited", "b → unlimited"]);
  });

  it("gives rules whose plain ids would read alike ids with %, / and = percent-encoded", () => {
    const config = parseEnvoyConfig(
      `domain: d
descriptors:
  - key: a
    value: b/c
    rate_limit: { unit: minute, requests_per_unit: 1 }
  - key: a
    value: b
    descriptors:
      - key: c
        rate_limit: { unit: minute, requests_per_unit: 2 }
  - key: path
    value: /x
    rate_limit: { unit: minute, requests_per_unit: 3 }
`,
      { source: "ratelimit.yaml" },
    );
    expect(config.rules.map((r) => r.id)).toEqual(["a=b%2Fc", "a=b/c", "path=/x"]);
    expect(config.trees?.[0].nodes.map((n) => n.rule)).toEqual(["a=b%2Fc", undefined, "a=b/c", "path=/x"]);
  });

  it("rejects a duplicate key/value at one level (duplicate descriptor composite key)", () => {
    expect(
      errorOf(`domain: test-domain
descriptors:
  - key: key1
    value: value1
    rate_limit: { unit: second, requests_per_unit: 5 }
  - key: key1
    value: value1
    rate_limit: { unit: minute, requests_per_unit: 100 }
`),
    ).toBe(
      "ratelimit.yaml:6: descriptors[1]: duplicate descriptor composite key 'test-domain.key1_value1'; first at descriptors[0] (line 3)",
    );
    // Nested levels name the whole path.
    expect(
      errorOf(`domain: d
descriptors:
  - key: a
    descriptors:
      - key: b
        rate_limit: { unit: second, requests_per_unit: 5 }
      - key: b
        rate_limit: { unit: second, requests_per_unit: 6 }
`),
    ).toBe(
      "ratelimit.yaml:7: descriptors[0].descriptors[1]: duplicate descriptor composite key 'd.a.b'; first at descriptors[0].descriptors[0] (line 5)",
    );
  });

  it("rejects unlimited with a unit", () => {
    expect(
      errorOf(`domain: test-domain
descriptors:
  - key: foo
    rate_limit:
      unlimited: true
      unit: day
      requests_per_unit: 25
`),
    ).toBe(
      "ratelimit.yaml:6: descriptors[0].rate_limit.unit: should not specify rate limit unit when unlimited",
    );
  });

  it("rejects an invalid or missing unit", () => {
    expect(
      errorOf(
        "domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: fortnight, requests_per_unit: 5 }\n",
      ),
    ).toBe(
      "ratelimit.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit 'fortnight'; use second, minute, hour, day, week, month or year",
    );
    expect(errorOf("domain: d\ndescriptors:\n  - key: k\n    rate_limit: { requests_per_unit: 5 }\n")).toBe(
      "ratelimit.yaml:4: descriptors[0].rate_limit: invalid rate limit unit ''; use second, minute, hour, day, week, month or year",
    );
  });

  it("rejects an empty domain and an empty key", () => {
    expect(errorOf("descriptors: []\n")).toBe(
      "ratelimit.yaml:1: domain: is required: a config file cannot have an empty domain",
    );
    expect(errorOf("domain: d\ndescriptors:\n  - value: v\n")).toBe(
      "ratelimit.yaml:3: descriptors[0].key: is required: every descriptor has a key",
    );
  });

  it("refuses quota_mode: true, and accepts quota_mode: false", () => {
    expect(
      errorOf(
        "domain: d\ndescriptors:\n  - key: k\n    quota_mode: true\n    rate_limit: { unit: second, requests_per_unit: 5 }\n",
      ),
    ).toBe(
      "ratelimit.yaml:4: descriptors[0].quota_mode: is not supported: Sluice has no quota-mode descriptors (remove it, or use shadow_mode to count without denying)",
    );
    expect(
      load(
        "domain: d\ndescriptors:\n  - key: k\n    quota_mode: false\n    rate_limit: { unit: second, requests_per_unit: 5 }\n",
      ),
    ).toHaveLength(1);
  });

  it("rejects share_threshold on a value without a wildcard", () => {
    expect(
      errorOf(
        "domain: d\ndescriptors:\n  - key: k\n    value: v\n    share_threshold: true\n    rate_limit: { unit: second, requests_per_unit: 5 }\n",
      ),
    ).toBe(
      "ratelimit.yaml:5: descriptors[0].share_threshold: can only be used with a wildcard value (one containing '*')",
    );
  });

  it("rejects empty and self-naming replaces entries", () => {
    expect(
      errorOf(`domain: d
descriptors:
  - key: k
    rate_limit:
      name: mine
      unit: second
      requests_per_unit: 5
      replaces:
        - name: ""
        - name: mine
`),
    ).toBe(
      [
        "ratelimit.yaml:9: descriptors[0].rate_limit.replaces[0].name: should not be empty",
        "ratelimit.yaml:10: descriptors[0].rate_limit.replaces[1].name: cannot name this descriptor's own limit",
      ].join("\n"),
    );
  });

  it("rejects a negative or fractional requests_per_unit and a zero unit_multiplier", () => {
    expect(
      errorOf(`domain: d
descriptors:
  - key: a
    rate_limit: { unit: second, requests_per_unit: -1 }
  - key: b
    rate_limit: { unit: second, requests_per_unit: 2.5 }
  - key: c
    rate_limit:
      unit: second
      requests_per_unit: 5
      unit_multiplier: 0
`),
    ).toBe(
      [
        "ratelimit.yaml:4: descriptors[0].rate_limit.requests_per_unit: must be a whole number from 0 to 4294967295, got -1",
        "ratelimit.yaml:6: descriptors[1].rate_limit.requests_per_unit: must be a whole number from 0 to 4294967295, got 2.5",
        "ratelimit.yaml:11: descriptors[2].rate_limit.unit_multiplier: must be a whole number >= 1, got 0",
      ].join("\n"),
    );
  });

  it("rejects lists of things other than mappings, and wrong types", () => {
    expect(errorOf("domain: d\ndescriptors:\n  - a\n")).toBe(
      'ratelimit.yaml:3: descriptors[0]: must be a mapping (key, value, rate_limit, descriptors, …), got "a"',
    );
    expect(errorOf("domain: d\ndescriptors: nope\n")).toBe(
      'ratelimit.yaml:2: descriptors: must be a list of descriptors, got "nope"',
    );
    expect(
      errorOf(
        "domain: d\ndescriptors:\n  - key: k\n    shadow_mode: sometimes\n    rate_limit: { unit: second, requests_per_unit: 1 }\n",
      ),
    ).toBe('ratelimit.yaml:4: descriptors[0].shadow_mode: must be true or false, got "sometimes"');
  });

  it("reports every error of a file at once, in line order, and YAML syntax errors with their line", () => {
    const message = errorOf(`domain: d
descriptors:
  - key: a
    rate_limit: { unit: fortnight, requests_per_unit: 1 }
  - key: b
    colour: blue
    rate_limit: { unlimited: true, unit: second }
`);
    expect(message.split("\n")).toEqual([
      "ratelimit.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit 'fortnight'; use second, minute, hour, day, week, month or year",
      "ratelimit.yaml:6: descriptors[1].colour: unknown field; expected one of key, value, rate_limit, descriptors, shadow_mode, quota_mode, detailed_metric, value_to_metric, share_threshold, metadata",
      "ratelimit.yaml:7: descriptors[1].rate_limit.unit: should not specify rate limit unit when unlimited",
    ]);
    expect(errorOf("domain: d\ndescriptors:\n  - key: a\n   value: b\n")).toMatch(
      /^ratelimit\.yaml:4: invalid YAML: /,
    );
  });
});

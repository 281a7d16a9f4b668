import { describe, expect, it } from "vitest";
import { parseEnvoyConfig } from "./envoy-config.js";
import { parseConfig } from "./load-config.js";
import { compileRules } from "./matcher.js";
import type { Descriptor } from "./rule.js";

/** The id of the rule an envoyproxy/ratelimit file's domain gives `entries` (key=value pairs), or "none". */
function matcherOf(text: string): (...entries: [string, string][]) => string {
  const config = parseEnvoyConfig(text, { source: "ratelimit.yaml" });
  const rules = compileRules(config.rules, config.trees);
  const domain = config.rules[0]?.domain ?? "d";
  return (...entries) => {
    const d: Descriptor = entries.map(([key, value]) => ({ key, value }));
    const index = rules.find(domain, d);
    expect(rules.match(domain, d)?.rule.id ?? "none").toBe(index === -1 ? "none" : config.rules[index].id);
    return index === -1 ? "none" : config.rules[index].id;
  };
}

const LIMIT = "rate_limit: { unit: minute, requests_per_unit: 10 }";

describe("envoyproxy/ratelimit's greedy walk (the domains of its files)", () => {
  it("a key_value node without a rate_limit exempts its value from the bare key's limit", () => {
    const rule = matcherOf(`domain: d
descriptors:
  - key: client
    value: internal
  - key: client
    ${LIMIT}
`);
    expect(rule(["client", "internal"])).toBe("none");
    expect(rule(["client", "partner"])).toBe("client");
  });

  it("never comes back up: a dead end below a more specific branch is no limit, whatever a less specific one holds", () => {
    const rule = matcherOf(`domain: d
descriptors:
  - key: tenant
    value: acme
    descriptors:
      - key: plan
        ${LIMIT}
  - key: tenant
    descriptors:
      - key: user
        ${LIMIT}
`);
    expect(rule(["tenant", "acme"], ["user", "u1"])).toBe("none");
    expect(rule(["tenant", "acme"], ["plan", "gold"])).toBe("tenant=acme/plan");
    expect(rule(["tenant", "globex"], ["user", "u1"])).toBe("tenant/user");
    // A node reached at the descriptor's last entry without a rate_limit: no limit either.
    expect(rule(["tenant", "acme"])).toBe("none");
  });

  it("takes the first matching wildcard in the file's order, not the longest", () => {
    const rule = matcherOf(`domain: d
descriptors:
  - key: path
    value: /api*
    ${LIMIT}
  - key: path
    value: /api/admin*
    ${LIMIT}
  - key: path
    ${LIMIT}
`);
    expect(rule(["path", "/api/admin/x"])).toBe("path=/api*");
    expect(rule(["path", "/other"])).toBe("path");
  });

  it("at each level: the exact value, else a wildcard, else the bare key", () => {
    const rule = matcherOf(`domain: d
descriptors:
  - key: k
    ${LIMIT}
  - key: k
    value: a*
    ${LIMIT}
  - key: k
    value: ab
    ${LIMIT}
`);
    expect(rule(["k", "ab"])).toBe("k=ab");
    expect(rule(["k", "abc"])).toBe("k=a*");
    expect(rule(["k", "b"])).toBe("k");
    expect(rule(["other", "ab"])).toBe("none");
  });

  it("matches only at the descriptor's depth: deeper or shallower descriptors than the limited node get none", () => {
    const rule = matcherOf(`domain: d
descriptors:
  - key: a
    descriptors:
      - key: b
        ${LIMIT}
`);
    expect(rule(["a", "1"], ["b", "2"])).toBe("a/b");
    expect(rule(["a", "1"])).toBe("none");
    expect(rule(["a", "1"], ["b", "2"], ["c", "3"])).toBe("none");
    expect(rule(["b", "2"])).toBe("none");
    expect(rule()).toBe("none");
  });

  it("leaves native configurations to the most specific complete match (they backtrack)", () => {
    const config = parseConfig(
      `version: 1
rules:
  - { id: acme-plan, domain: d, match: [{ key: tenant, value: acme }, { key: plan }], limits: [{ limit: 1, period: 1m }] }
  - { id: any-user, domain: d, match: [{ key: tenant }, { key: user }], limits: [{ limit: 1, period: 1m }] }
`,
      { source: "sluice.yaml" },
    );
    expect(config.trees).toBeUndefined();
    const m = compileRules(config.rules, config.trees).match("d", [
      { key: "tenant", value: "acme" },
      { key: "user", value: "u1" },
    ]);
    expect(m?.rule.id).toBe("any-user");
  });
});

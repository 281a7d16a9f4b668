import { describe, expect, it } from "vitest";
import { parseConfig } from "./load-config.js";
import { advertisedPolicyName, printableName, registerPolicyNames } from "./policy-names.js";
import type { SluiceConfig } from "./rule.js";

/** Every rule's advertised policy names, after registering `config`: `id: name → advertised`. */
function namesOf(config: SluiceConfig, names: Readonly<Record<string, readonly string[]>>): string[] {
  registerPolicyNames(config);
  return config.rules.flatMap((rule) =>
    (names[rule.id] ?? []).map((n) => `${rule.id}: ${n} → ${advertisedPolicyName(rule, n)}`),
  );
}

describe("registerPolicyNames", () => {
  it("qualifies a name by the rule id where several rules of a domain have it, and only there", () => {
    const config = parseConfig(`tiers: [premium]
rules:
  - { id: a, domain: d, match: [{ key: user }], limits: [{ name: per-second, limit: 1, period: 1s }, { name: per-day, limit: 9, period: 1d }] }
  - { id: b, domain: d, match: [{ key: tenant }], limits: [{ name: per-minute, limit: 1, period: 1m }], tiers: { premium: [{ name: per-second, limit: 5, period: 1s }] } }
  - { id: c, domain: e, match: [{ key: user }], limits: [{ name: per-second, limit: 1, period: 1s }] }
  - { id: s, domain: d, match: [{ key: ip }], behaviour: shadow, limits: [{ name: per-day, limit: 1, period: 1d }] }
  - { id: x, domain: d, match: [{ key: ip, value: 1.2.3.4 }], blocked: true }
`);
    expect(
      namesOf(config, {
        a: ["per-second", "per-day"],
        b: ["per-minute", "per-second"],
        c: ["per-second"],
        x: ["x"],
      }),
    ).toEqual([
      // b's premium tier has a per-second, so a's is qualified too, in answers without b as in those with it.
      "a: per-second → a/per-second",
      // The shadow rule s is never advertised: its per-day takes no part.
      "a: per-day → per-day",
      "b: per-minute → per-minute",
      "b: per-second → b/per-second",
      // Domain e is checked apart: one check is of one domain.
      "c: per-second → per-second",
      // A blocked rule's policy is named after the rule.
      "x: x → x",
    ]);
  });

  it("counts the names of the overrides that can apply to a rule", () => {
    const config = parseConfig(`rules:
  - { id: a, domain: d, match: [{ key: user }], limits: [{ name: per-second, limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: tenant }], limits: [{ name: per-minute, limit: 1, period: 1m }] }
overrides:
  - { identity: "tenant:acme", limits: [{ name: per-second, limit: 9, period: 1s }] }
`);
    expect(namesOf(config, { a: ["per-second"], b: ["per-minute", "per-second"] })).toEqual([
      "a: per-second → a/per-second",
      "b: per-minute → per-minute",
      "b: per-second → b/per-second",
    ]);
  });

  it("numbers a qualified name that meets a literal one, and makes names printable", () => {
    const config = parseConfig(`rules:
  - { id: a, domain: d, match: [{ key: user }], limits: [{ name: n, limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: tenant }], limits: [{ name: n, limit: 1, period: 1s }, { name: a/n, limit: 2, period: 1s }] }
  - { id: c, domain: d, match: [{ key: ip }], limits: [{ name: "né", limit: 1, period: 1s }] }
`);
    expect(namesOf(config, { a: ["n"], b: ["n", "a/n"], c: ["né"] })).toEqual([
      "a: n → a/n",
      "b: n → b/n",
      "b: a/n → a/n~2",
      "c: né → n%C3%A9",
    ]);
    expect(printableName("né")).toBe("n%C3%A9");
  });

  it("takes the names of the configuration registered last, and leaves an unknown name as is", () => {
    const two = parseConfig(`rules:
  - { id: a, domain: d, match: [{ key: user }], limits: [{ name: n, limit: 1, period: 1s }] }
  - { id: b, domain: d, match: [{ key: tenant }], limits: [{ name: n, limit: 1, period: 1s }] }
`);
    registerPolicyNames(two);
    const [a] = two.rules;
    expect(advertisedPolicyName(a, "n")).toBe("a/n");
    expect(advertisedPolicyName(a, "other")).toBe("other");
    registerPolicyNames({ ...two, rules: [a] });
    expect(advertisedPolicyName(a, "n")).toBe("n");
  });
});

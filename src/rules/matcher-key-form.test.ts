import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRules, type KeyForm, type RuleMatch, valueKey } from "./matcher.js";
import type { Descriptor, Rule, ValuePattern } from "./rule.js";
import { any, entry, exact, makeRule, matchFields, path } from "./testing-rules.js";

/** The match a caller forms from the rule's key form, as the engine's hot path does; undefined when it cannot. */
function formed(rule: Rule, form: KeyForm, desc: Descriptor): RuleMatch | undefined {
  if (form.keyEntry < 0) return undefined;
  return {
    rule,
    counterKey: valueKey(desc[form.keyEntry].value),
    identity: form.identityIndex === -1 ? undefined : form.identityPrefix + desc[form.identityIndex].value,
  };
}

describe("keyFormAt: forming a match without the matcher", () => {
  it("valueKey escapes the empty value and a leading %, and keeps the very string otherwise", () => {
    const v = ["4", "2"].join("");
    expect(valueKey(v)).toBe(v);
    expect(valueKey("")).toBe("%");
    expect(valueKey("%x")).toBe("%%x");
    expect(valueKey("x%")).toBe("x%");
  });

  it("gives the key entry of `[user (any), endpoint (shared path)]` and the identity", () => {
    const rules = [makeRule({ id: "r", match: [any("user"), path("endpoint", "/orders/:id")] })];
    const c = compileRules(rules);
    expect(c.keyFormAt(0)).toEqual({ keyEntry: 0, identityIndex: 0, identityPrefix: "user:" });
  });

  it("has no key entry when the key is a normalised path, a join, or constant", () => {
    const c = compileRules([
      makeRule({ id: "path", match: [path("endpoint", "/a/:id", false)] }),
      makeRule({ id: "join", match: [any("user"), any("ip")] }),
      makeRule({ id: "const", match: [exact("user", "1")] }),
    ]);
    expect([0, 1, 2].map((i) => c.keyFormAt(i).keyEntry)).toEqual([-1, -1, -1]);
  });

  const value = fc.constantFrom("", "1", "%a", "a|b", "x=y", "/a/1", "/a/1/", "/a/1?q=2");
  const pattern: fc.Arbitrary<ValuePattern> = fc.oneof(
    value.map((v) => ({ kind: "exact", value: v }) as const),
    value.map((v) => ({ kind: "prefix", prefix: v.slice(0, 2) }) as const),
    fc.constantFrom("*", "/a/*", "%*").map((p) => ({ kind: "glob", pattern: p }) as const),
    fc.constantFrom("/a/:id", "/a/*", "/:x/1").map((p) => ({ kind: "path", pattern: p }) as const),
    fc.constant({ kind: "any" } as const),
  );
  const keyName = fc.constantFrom("user", "k", "ip");
  const ruleArb = fc.record({
    match: fc.array(fc.record({ key: keyName, value: pattern, shared: fc.boolean() }), {
      minLength: 1,
      maxLength: 3,
    }),
    identity: fc.option(keyName, { nil: undefined }),
  });

  it("forms the same match as matchAt whenever it names a key entry", () => {
    let formedCount = 0;
    fc.assert(
      fc.property(
        fc.array(ruleArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.array(value, { minLength: 3, maxLength: 3 })), { maxLength: 12 }),
        (inputs, queries) => {
          const rules = inputs.map((r, i) =>
            makeRule({
              id: `r${i}`,
              match: r.match.map((m) => entry(m.key, m.value, m.shared)),
              ...(r.identity === undefined ? {} : { identityKey: r.identity }),
            }),
          );
          const c = compileRules(rules);
          for (const [pick, values] of queries) {
            const rule = rules[pick % rules.length];
            const desc = rule.match.map((m, i) => ({ key: m.key, value: values[i] }));
            const at = c.find("default", desc);
            if (at === -1) continue;
            const got = formed(rules[at], c.keyFormAt(at), desc);
            if (got === undefined) continue;
            formedCount++;
            expect(got).toEqual(matchFields(c.matchAt(at, desc)));
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(formedCount).toBeGreaterThan(100);
  });
});

import { describe, expect, it } from "vitest";
import { parseLimitSpec } from "../core/limit-spec.js";
import { compileOverrides, effectiveLimits } from "./effective-limits.js";
import { any, makeConfig, makeOverride, makeRule } from "./testing-rules.js";

const T0 = 1_700_000_000_000;
const lim = (name: string, limit: number) => Object.freeze([parseLimitSpec({ name, limit, periodMs: 1000 })]);

const RULE_LIMITS = lim("rule", 10);
const PREMIUM = lim("premium", 100);
const GENERIC = lim("generic", 1000);
const SPECIFIC = lim("specific", 5000);

const rule = makeRule({
  id: "per-user",
  match: [any("user")],
  limits: RULE_LIMITS,
  tiers: { premium: PREMIUM, vip: "unlimited" },
});
const other = makeRule({ id: "other", match: [any("user")], limits: RULE_LIMITS });

describe("effectiveLimits precedence", () => {
  const config = makeConfig({
    rules: [rule, other],
    identities: { "user:p": "premium", "user:v": "vip", "user:g": "gold", "user:o": "premium" },
    overrides: [
      makeOverride({ identity: "user:o", limits: GENERIC }),
      makeOverride({ identity: "user:s", rule: "per-user", limits: SPECIFIC }),
      makeOverride({ identity: "user:s", limits: GENERIC }),
    ],
  });

  it("no identity: the rule's limits", () => {
    expect(effectiveLimits(config, rule, undefined, T0)).toEqual({
      source: "rule",
      limits: RULE_LIMITS,
      tier: undefined,
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });

  it("an identity with no tier nor override: the rule's limits", () => {
    expect(effectiveLimits(config, rule, "user:nobody", T0)).toEqual({
      source: "rule",
      limits: RULE_LIMITS,
      tier: undefined,
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });

  it("an identity in a tier the rule defines: the tier's limits", () => {
    expect(effectiveLimits(config, rule, "user:p", T0)).toEqual({
      source: "tier",
      limits: PREMIUM,
      tier: "premium",
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });

  it('a tier defined as "unlimited" exempts', () => {
    expect(effectiveLimits(config, rule, "user:v", T0)).toMatchObject({
      source: "tier",
      limits: "unlimited",
    });
  });

  it("an identity in a tier the rule does not define: the rule's limits, the tier still reported", () => {
    expect(effectiveLimits(config, rule, "user:g", T0)).toEqual({
      source: "rule",
      limits: RULE_LIMITS,
      tier: "gold",
      expiresAtMs: undefined,
      staticOnly: false,
    });
    expect(effectiveLimits(config, other, "user:p", T0)).toMatchObject({ source: "rule", tier: "premium" });
  });

  it("a tier named like an Object.prototype member is not mistaken for a defined tier", () => {
    const c = makeConfig({ identities: { "user:x": "constructor" } });
    expect(effectiveLimits(c, rule, "user:x", T0)).toMatchObject({ source: "rule", limits: RULE_LIMITS });
  });

  it("an override beats the identity's tier (the tier is still reported)", () => {
    expect(effectiveLimits(config, rule, "user:o", T0)).toEqual({
      source: "override",
      limits: GENERIC,
      tier: "premium",
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });

  it("a rule-specific override beats a generic one, even a later one; the generic one covers other rules", () => {
    expect(effectiveLimits(config, rule, "user:s", T0)).toMatchObject({
      source: "override",
      limits: SPECIFIC,
    });
    expect(effectiveLimits(config, other, "user:s", T0)).toMatchObject({
      source: "override",
      limits: GENERIC,
    });
  });

  it("an override for another rule does not apply", () => {
    const c = makeConfig({
      overrides: [makeOverride({ identity: "user:1", rule: "other", limits: SPECIFIC })],
    });
    expect(effectiveLimits(c, rule, "user:1", T0)).toMatchObject({ source: "rule", limits: RULE_LIMITS });
    expect(effectiveLimits(c, other, "user:1", T0)).toMatchObject({ source: "override", limits: SPECIFIC });
  });

  it("among equal overrides the later one wins", () => {
    const c = makeConfig({
      overrides: [
        makeOverride({ identity: "user:1", limits: GENERIC }),
        makeOverride({ identity: "user:1", limits: SPECIFIC }),
        makeOverride({ identity: "user:2", rule: "per-user", limits: SPECIFIC }),
        makeOverride({ identity: "user:2", rule: "per-user", limits: GENERIC }),
      ],
    });
    expect(effectiveLimits(c, rule, "user:1", T0).limits).toBe(SPECIFIC);
    expect(effectiveLimits(c, rule, "user:2", T0).limits).toBe(GENERIC);
  });

  it('an "unlimited" override exempts, even under a limited tier; an override limits even an unlimited rule', () => {
    const free = makeRule({ id: "free", match: [any("user")], unlimited: true });
    const c = makeConfig({
      identities: { "user:1": "premium" },
      overrides: [
        makeOverride({ identity: "user:1", rule: "per-user", limits: "unlimited" }),
        makeOverride({ identity: "user:1", rule: "free", limits: GENERIC }),
      ],
    });
    expect(effectiveLimits(c, rule, "user:1", T0)).toMatchObject({ source: "override", limits: "unlimited" });
    expect(effectiveLimits(c, free, "user:1", T0)).toMatchObject({ source: "override", limits: GENERIC });
    expect(effectiveLimits(c, free, "user:2", T0)).toMatchObject({ source: "rule", limits: "unlimited" });
  });
});

describe("effectiveLimits of a blocked rule", () => {
  it("no override nor tier applies", () => {
    const blocked = makeRule({ id: "blocked", match: [any("user")], blocked: true });
    expect(blocked.limits).toEqual([]);
    const c = makeConfig({
      identities: { "user:1": "premium" },
      overrides: [makeOverride({ identity: "user:1", limits: "unlimited" })],
    });
    expect(effectiveLimits(c, blocked, "user:1", T0)).toEqual({
      source: "rule",
      limits: [],
      tier: undefined,
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });
});

describe("effectiveLimits of a static-only override", () => {
  it("reports staticOnly for the override that applies, never for a tier or the rule", () => {
    const c = makeConfig({
      identities: { "user:1": "premium", "user:3": "premium" },
      overrides: [
        makeOverride({ identity: "user:1", rule: "per-user", limits: SPECIFIC, staticOnly: true }),
        makeOverride({ identity: "user:2", limits: GENERIC }),
      ],
    });
    expect(effectiveLimits(c, rule, "user:1", T0)).toEqual({
      source: "override",
      limits: SPECIFIC,
      tier: "premium",
      expiresAtMs: undefined,
      staticOnly: true,
    });
    expect(effectiveLimits(c, rule, "user:2", T0)).toMatchObject({ source: "override", staticOnly: false });
    expect(effectiveLimits(c, rule, "user:3", T0)).toMatchObject({ source: "tier", staticOnly: false });
    expect(effectiveLimits(c, other, "user:1", T0)).toMatchObject({ source: "rule", staticOnly: false });
  });
});

describe("effectiveLimits expiry", () => {
  const EXP = T0 + 60_000;
  const config = makeConfig({
    identities: { "user:1": "premium" },
    overrides: [
      makeOverride({ identity: "user:1", limits: GENERIC }),
      makeOverride({ identity: "user:1", rule: "per-user", limits: SPECIFIC, expiresAtMs: EXP }),
    ],
  });

  it("applies until just before expiresAtMs and reports it", () => {
    expect(effectiveLimits(config, rule, "user:1", T0)).toEqual({
      source: "override",
      limits: SPECIFIC,
      tier: "premium",
      expiresAtMs: EXP,
      staticOnly: false,
    });
    expect(effectiveLimits(config, rule, "user:1", EXP - 1)).toMatchObject({ limits: SPECIFIC });
    expect(effectiveLimits(config, rule, "user:1", EXP - 0.001)).toMatchObject({ limits: SPECIFIC });
  });

  it("stops at exactly expiresAtMs; the next applicable override (here the generic one) takes over", () => {
    expect(effectiveLimits(config, rule, "user:1", EXP)).toEqual({
      source: "override",
      limits: GENERIC,
      tier: "premium",
      expiresAtMs: undefined,
      staticOnly: false,
    });
  });

  it("an expired override falls back to the tier, then to the rule", () => {
    const c = makeConfig({
      identities: { "user:1": "premium" },
      overrides: [
        makeOverride({ identity: "user:1", limits: SPECIFIC, expiresAtMs: EXP }),
        makeOverride({ identity: "user:2", limits: SPECIFIC, expiresAtMs: EXP }),
      ],
    });
    expect(effectiveLimits(c, rule, "user:1", EXP - 1)).toMatchObject({ source: "override" });
    expect(effectiveLimits(c, rule, "user:1", EXP)).toMatchObject({ source: "tier", limits: PREMIUM });
    expect(effectiveLimits(c, rule, "user:2", EXP)).toMatchObject({ source: "rule", limits: RULE_LIMITS });
  });

  it("a later override that has expired does not hide an earlier permanent one", () => {
    const c = makeConfig({
      overrides: [
        makeOverride({ identity: "user:1", limits: GENERIC }),
        makeOverride({ identity: "user:1", limits: SPECIFIC, expiresAtMs: EXP }),
      ],
    });
    expect(effectiveLimits(c, rule, "user:1", EXP - 1).limits).toBe(SPECIFIC);
    expect(effectiveLimits(c, rule, "user:1", EXP).limits).toBe(GENERIC);
  });
});

describe("compileOverrides", () => {
  it("indexes by identity, rule-specific first, each group latest first", () => {
    const a = makeOverride({ identity: "user:1", limits: GENERIC });
    const b = makeOverride({ identity: "user:1", rule: "x", limits: SPECIFIC });
    const c = makeOverride({ identity: "user:1", limits: SPECIFIC });
    const d = makeOverride({ identity: "user:1", rule: "y", limits: GENERIC });
    const e = makeOverride({ identity: "tenant:acme", limits: GENERIC });
    const index = compileOverrides(makeConfig({ overrides: [a, b, c, d, e] }));
    expect(index.get("user:1")).toEqual([d, b, c, a]);
    expect(index.get("user:1")?.[0]).toBe(d);
    expect(index.get("tenant:acme")).toEqual([e]);
    expect(index.get("user:2")).toBeUndefined();
  });

  it("a prebuilt index gives the same answers as the implicit one", () => {
    const config = makeConfig({
      identities: { "user:1": "premium" },
      overrides: [
        makeOverride({ identity: "user:1", rule: "per-user", limits: SPECIFIC, expiresAtMs: T0 + 5 }),
      ],
    });
    const index = compileOverrides(config);
    for (const now of [T0, T0 + 4, T0 + 5, T0 + 6]) {
      expect(effectiveLimits(config, rule, "user:1", now, index)).toEqual(
        effectiveLimits(config, rule, "user:1", now),
      );
    }
  });

  it("seed 003's overrides keyed by a metadata value are identities", () => {
    const project = "project-id:e678ebd7-3a15-43dd-a95c-1cf0639a6292";
    const r = makeRule({ id: "otlp", match: [any("project-id")], limits: lim("rate", 1000) });
    const c = makeConfig({ overrides: [makeOverride({ identity: project, limits: lim("rate", 2000) })] });
    expect(r.identityKey).toBe("project-id");
    const e = effectiveLimits(c, r, project, T0);
    expect(e.source).toBe("override");
    expect(e.limits !== "unlimited" && e.limits[0].limit).toBe(2000);
  });
});

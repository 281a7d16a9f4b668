import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { createRandom } from "../core/random.js";
import { effectiveLimits } from "../rules/effective-limits.js";
import { valueKey } from "../rules/matcher.js";
import type { Descriptor } from "../rules/rule.js";
import { any, exact, makeConfig, makeOverride, makeRule, matchFields, path } from "../rules/testing-rules.js";
import { MemoryStore, memoryStore } from "../stores/memory/memory-store.js";
import { createEngine, type Engine } from "./engine.js";
import {
  compileConfig,
  HOT_BY_TIER,
  HOT_NONE,
  levelOf,
  scaleSpec,
  TierIndex,
  valueHash,
} from "./engine-compile.js";

describe("TierIndex", () => {
  it("finds every indexed value with its tier, and no other value, whatever the filter lets through", () => {
    const random = createRandom(7);
    const byValue = new Map<string, number>();
    for (let i = 0; i < 5000; i++) byValue.set(String(Math.floor(random() * 1e9)), i % 3);
    const index = new TierIndex(byValue);
    expect(index.size).toBe(byValue.size);
    for (const [v, t] of byValue) expect(index.get(v)).toBe(t);
    for (let i = 0; i < 20_000; i++) expect(index.get(`x${Math.floor(random() * 1e9)}`)).toBeUndefined();
  });

  it("tells apart values that share their last 64 characters (the hash reads only those)", () => {
    const tail = "t".repeat(64);
    const index = new TierIndex(new Map([[`a${tail}`, 1]]));
    expect(valueHash(`a${tail}`)).toBe(valueHash(`b${tail}`));
    expect(index.get(`a${tail}`)).toBe(1);
    expect(index.get(`b${tail}`)).toBeUndefined();
  });

  it("answers as the map it was built from, for any values", () => {
    const value = fc.string({ maxLength: 80 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.nat(4))), fc.array(value), (entries, queries) => {
        const byValue = new Map(entries);
        const index = new TierIndex(byValue);
        for (const q of [...queries, ...byValue.keys()]) expect(index.get(q)).toBe(byValue.get(q));
      }),
      { numRuns: 300 },
    );
  });

  it("an empty index holds nothing", () => {
    const index = new TierIndex(new Map());
    expect(index.size).toBe(0);
    expect(index.get("")).toBeUndefined();
    expect(index.get("42")).toBeUndefined();
  });
});

describe("RuleState: the hot path's match and entry", () => {
  const lim = (name: string, limit: number) =>
    parseLimitSpec({ name, algorithm: "gcra", limit, periodMs: 60_000 });
  const store = memoryStore();
  const rules = [
    makeRule({
      id: "tiered",
      match: [any("user"), path("endpoint", "/a/:id")],
      limits: [lim("rule", 10)],
      tiers: { gold: [lim("rule", 100)], silver: [lim("other", 50)], free: "unlimited" },
    }),
    makeRule({ id: "plain", match: [any("user"), exact("k", "v")], limits: [lim("rule", 5)] }),
    makeRule({ id: "joined", match: [any("user"), any("ip")], limits: [lim("rule", 5)] }),
    makeRule({ id: "overridden", match: [any("user"), any("x"), any("y")], limits: [lim("rule", 5)] }),
  ];
  const config = makeConfig({
    rules,
    identities: { "user:g": "gold", "user:s": "silver", "user:f": "free", "user:n": "none" },
    overrides: [makeOverride({ identity: "user:o", rule: "overridden", limits: [lim("rule", 1)] })],
  });
  const c = compileConfig(config, 1, 0, () => ({ store, sync: store }));
  const descs: Descriptor[] = [];
  for (const u of ["g", "s", "f", "n", "o", "", "%p"]) {
    descs.push([
      { key: "user", value: u },
      { key: "endpoint", value: "/a/1" },
    ]);
    descs.push([
      { key: "user", value: u },
      { key: "k", value: "v" },
    ]);
    descs.push([
      { key: "user", value: u },
      { key: "ip", value: "10.0.0.1" },
    ]);
    descs.push([
      { key: "user", value: u },
      { key: "x", value: "1" },
      { key: "y", value: "2" },
    ]);
  }

  it("matchOf forms the matcher's match, or defers to it", () => {
    let formed = 0;
    for (const desc of descs) {
      const i = c.rules.find("default", desc);
      expect(i).not.toBe(-1);
      const m = c.stateAt[i].matchOf(desc);
      if (m === undefined) continue;
      formed++;
      expect(m).toEqual(c.rules.matchAt(i, desc));
    }
    expect(formed).toBe(14); // "tiered" and "plain" key by the user value; the others join several entries
  });

  it("entryOf is resolve's entry and source, or defers to resolve (unlimited, overridable)", () => {
    const deferred: string[] = [];
    for (const desc of descs) {
      const rs = c.stateAt[c.rules.find("default", desc)];
      const e = rs.entryOf(desc);
      const r = rs.resolve(desc);
      if (e === undefined) {
        deferred.push(`${rs.rule.id}:${desc[0].value}`);
        continue;
      }
      expect(e).toBe(r?.entry);
      expect(e.source).toBe(r?.source);
    }
    // The unlimited tier, and every identity of the rule an override names.
    expect(deferred.sort()).toEqual(
      ["tiered:f", ...["g", "s", "f", "n", "o", "", "%p"].map((u) => `overridden:${u}`)].sort(),
    );
  });

  it("a hot record gives matchOf's match and entryOf's entry, or defers to the rule state", () => {
    let hot = 0;
    for (const desc of descs) {
      const i = c.rules.find("default", desc);
      const h = c.hotAt[i];
      const rs = c.stateAt[i];
      expect(h.state).toBe(rs);
      expect(h.rule).toBe(rs.rule);
      if (h.mode === HOT_NONE) continue;
      hot++;
      const e = rs.entryOf(desc);
      const tier = h.mode === HOT_BY_TIER ? h.tierOf?.get(desc[h.identityIndex].value) : undefined;
      const entry = tier === undefined ? h.entry : h.tierEntries[tier];
      expect(entry).toBe(e);
      if (tier === undefined) {
        expect([h.specs, h.source, h.delay]).toEqual([e?.specs, e?.source, e?.delay]);
      }
      const ii = h.identityIndex;
      expect({
        rule: h.rule,
        counterKey: valueKey(desc[h.keyEntry].value),
        identity: ii === -1 ? undefined : h.identityPrefix + desc[ii].value,
      }).toEqual(matchFields(rs.matchOf(desc)));
    }
    expect(hot).toBeGreaterThan(0);
  });

  it("a tier of the rule's shape counts in the rule's namespace, another shape apart", () => {
    const rs = c.stateAt[0];
    const at = (u: string) =>
      rs.entryOf([
        { key: "user", value: u },
        { key: "endpoint", value: "/a/1" },
      ]);
    expect(at("g")?.set.namespace).toBe(at("n")?.set.namespace);
    expect(at("s")?.set.namespace).not.toBe(at("n")?.set.namespace);
    expect([at("g")?.source, at("s")?.source, at("n")?.source]).toEqual(["tier", "tier", "rule"]);
  });
});

describe("compileConfig: which rules an override may apply to", () => {
  const lim = (name: string, limit: number) =>
    parseLimitSpec({ name, algorithm: "gcra", limit, periodMs: 60_000 });
  const store = memoryStore();
  const rules = [
    makeRule({
      id: "by-user",
      match: [any("user")],
      limits: [lim("rule", 10)],
      tiers: { gold: [lim("rule", 20)] },
    }),
    makeRule({
      id: "by-ip",
      match: [any("ip")],
      limits: [lim("rule", 10)],
      tiers: { gold: [lim("rule", 20)] },
    }),
    makeRule({ id: "by-region", match: [any("user:region")], limits: [lim("rule", 10)] }),
    makeRule({ id: "named", match: [any("tenant")], limits: [lim("rule", 10)] }),
  ];
  const compile = (overrides: ReturnType<typeof makeOverride>[]) =>
    compileConfig(makeConfig({ rules, identities: { "ip:1": "gold" }, overrides }), 1, 0, () => ({
      store,
      sync: store,
    }));
  const modes = (overrides: ReturnType<typeof makeOverride>[]) => {
    const c = compile(overrides);
    return Object.fromEntries(c.stateAt.map((rs, i) => [rs.rule.id, c.hotAt[i].mode !== HOT_NONE]));
  };

  it("keeps every rule on the hot path without overrides", () => {
    expect(modes([])).toEqual({ "by-user": true, "by-ip": true, "by-region": true, named: true });
  });

  it("takes off it only the rules of the identity key of an override naming no rule, or the rule named", () => {
    // "user:region:eu" may be identity key "user" (value "region:eu") or "user:region" (value "eu").
    expect(
      modes([
        makeOverride({ identity: "user:region:eu", limits: [lim("rule", 1)] }),
        makeOverride({ identity: "tenant:t", rule: "named", limits: [lim("rule", 1)] }),
      ]),
    ).toEqual({ "by-user": false, "by-ip": true, "by-region": false, named: false });
    expect(modes([makeOverride({ identity: "nokey", limits: [lim("rule", 1)] })])).toEqual({
      "by-user": true,
      "by-ip": true,
      "by-region": true,
      named: true,
    });
  });

  it("still applies a generic override to the rules of its key", () => {
    const c = compile([makeOverride({ identity: "user:o", limits: [lim("rule", 1)] })]);
    const desc = [{ key: "user", value: "o" }];
    const rs = c.stateAt[c.rules.find("default", desc)];
    expect(rs.resolve(desc)).toBeUndefined(); // left to effectiveLimits, which finds the override
    const ip = [{ key: "ip", value: "1" }];
    expect(c.stateAt[c.rules.find("default", ip)].resolve(ip)?.source).toBe("tier");
  });
});

describe("override namespaces: one per distinct shape, not per identity", () => {
  const perSecond = (limit: number) =>
    parseLimitSpec({ name: "per-second", algorithm: "fixed_window", limit, periodMs: 1000 });
  const perDay = parseLimitSpec({
    name: "per-day",
    algorithm: "fixed_window",
    limit: 10_000,
    periodMs: 86_400_000,
  });
  const perMinute = parseLimitSpec({ name: "per-minute", algorithm: "gcra", limit: 60, periodMs: 60_000 });
  const rule = makeRule({
    id: "per-user",
    domain: "api",
    match: [any("user")],
    limits: [perSecond(10), perDay],
  });
  const check = (engine: Engine, user: string) =>
    engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: user }]] }).decision;

  it("checks more overridden identities than the memory store has namespaces (65,535)", () => {
    // Overrides of another shape than the rule's ([per-second] against [per-second, per-day]), a few limits each.
    const n = 65_600;
    const overrides = Array.from({ length: n }, (_, i) =>
      makeOverride({ identity: `user:${i}`, limits: [perSecond(100 + (i % 3))] }),
    );
    const engine = createEngine({
      config: makeConfig({ rules: [rule], overrides }),
      store: new MemoryStore({ capacity: 256 }),
      clock: new ManualClock(1_700_000_000_000),
    });
    for (let i = 0; i < n; i++) expect(check(engine, String(i)).limit).toBe(100 + (i % 3));
  }, 60_000);

  it("shares a namespace between identities of one shape, never between shapes; counts stay per identity", () => {
    const overrides = [
      makeOverride({ identity: "user:a", limits: [perSecond(3)] }),
      makeOverride({ identity: "user:b", limits: [perSecond(5)] }),
      makeOverride({ identity: "user:c", limits: [perMinute] }),
      makeOverride({ identity: "user:d", limits: [perSecond(7), perDay] }), // the rule's shape
    ];
    const store = new MemoryStore({ capacity: 64 });
    const c = compileConfig(makeConfig({ rules: [rule], overrides }), 1, 0, () => ({ store, sync: store }));
    const rs = c.stateAt[0];
    const ns = (u: string) =>
      rs.entryFor(effectiveLimits(c.config, rule, `user:${u}`, 0, c.overrides), `user:${u}`).set.namespace;
    expect(ns("a")).toBe(ns("b"));
    expect(new Set([ns("a"), ns("c"), ns("d")]).size).toBe(3);
    expect(ns("d")).toBe(rs.ns);
    expect(ns("x")).toBe(rs.ns); // no override: the rule's own

    // Going round the identities, each keeps its own count: nothing re-lays or shares their states.
    const engine = createEngine({
      config: makeConfig({ rules: [rule], overrides }),
      store,
      clock: new ManualClock(1_700_000_000_000),
    });
    for (let round = 0; round < 2; round++) for (const u of ["a", "b", "c", "d", "x"]) check(engine, u);
    expect(["a", "b", "c", "d", "x"].map((u) => check(engine, u).remaining)).toEqual([0, 2, 57, 4, 7]);
  });
});

describe("dynamic levels of window algorithms", () => {
  const windowLimit = (limit: number, dyn: number) => {
    const s = parseLimitSpec({ name: "w", algorithm: "fixed_window", limit, periodMs: 1000 });
    return scaleSpec(s, levelOf(dyn, s)).limit;
  };

  it("keeps an exact value: static 10/s, previous window 10, multiplier 1.5 → 15 (it was 14)", () => {
    const config = makeConfig({
      rules: [
        makeRule({
          id: "d",
          domain: "api",
          match: [any("user")],
          limits: [parseLimitSpec({ name: "s", algorithm: "fixed_window", limit: 10, periodMs: 1000 })],
          dynamic: { windowMs: 1000, recentWeight: 0.75, multiplier: 1.5 },
        }),
      ],
    });
    const engine = createEngine({ config, clock: new ManualClock(0) });
    const admitted = (t0: number) => {
      let ok = 0;
      let limit: number | undefined;
      for (let i = 0; i < 30; i++) {
        const r = engine.checkSync({
          domain: "api",
          descriptors: [[{ key: "user", value: "a" }]],
          nowMs: t0 + i,
        });
        if (r.allowed) ok++;
        const limits = r.descriptors[0].limits;
        limit = Array.isArray(limits) ? limits[0].limit : undefined;
      }
      return [ok, limit];
    };
    expect(admitted(10_000)).toEqual([10, 10]);
    expect(admitted(11_000)).toEqual([15, 15]); // the seed: max(10, previous 10 × 1.5)
    expect(windowLimit(10, 15)).toBe(15);
    expect(windowLimit(10, 10)).toBe(10);
    expect(
      levelOf(10, parseLimitSpec({ name: "w", algorithm: "fixed_window", limit: 10, periodMs: 1000 })),
    ).toBe(0);
  });

  it("is never above the formula, its whole part wherever a level reaches it, else the level below", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 1, max: 64, noNaN: true }),
        (limit, x) => {
          const dyn = limit * x;
          const got = windowLimit(limit, dyn);
          expect(got).toBeLessThanOrEqual(Math.floor(dyn + 1e-9));
          // At least what quantising down then flooring gave, and within 1.1% (plus the unit floored away).
          const s = parseLimitSpec({ name: "w", algorithm: "fixed_window", limit, periodMs: 1000 });
          const before = Math.max(
            1,
            Math.floor(limit * 2 ** (Math.floor(Math.log2(x) * 64 + 1e-9) / 64) + 1e-9),
          );
          expect(got).toBeGreaterThanOrEqual(before);
          expect(got).toBeGreaterThan(dyn / 2 ** (1 / 64) - 1);
          if (dyn < 92) expect(got).toBe(Math.floor(dyn + 1e-9));
          expect(scaleSpec(s, levelOf(dyn, s)).limit).toBe(got);
        },
      ),
    );
  });
});

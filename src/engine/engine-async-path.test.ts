import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor } from "../rules/rule.js";
import { any, exact, makeConfig, makeOverride, makeRule, path } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { type CheckRequest, type CheckResult, createEngine } from "./engine.js";

// The asynchronous hot path (one matching descriptor on a store without a synchronous path, as Redis) must answer
// exactly what the general path answers. Engines see the same requests at the same instants, each on its own store:
// an asynchronous store asked with the request as is (the hot path); and, asked with one more descriptor that matches
// no rule (which changes neither the decision nor the other descriptor's result): the in-process store (synchronous
// hot path), an asynchronous store (the hot path with a NO_MATCH beside it), and an asynchronous store under the same
// configuration plus a rule of another domain with `replaces` (which sends every request of several descriptors down
// the general path).

const T0 = 1_700_000_000_000;
const spec = (input: LimitSpecInput) => parseLimitSpec(input);

const config = makeConfig({
  rules: [
    makeRule({
      id: "per-user",
      domain: "api",
      match: [any("user")],
      limits: [spec({ name: "rule", algorithm: "fixed_window", limit: 3, periodMs: 1000 })],
      tiers: {
        premium: [spec({ name: "rule", algorithm: "fixed_window", limit: 5, periodMs: 1000 })],
        internal: "unlimited",
      },
    }),
    makeRule({
      id: "orders",
      domain: "api",
      match: [any("user"), path("endpoint", "/orders/:id")],
      limits: [
        spec({ name: "rate", algorithm: "gcra", limit: 2, periodMs: 1000, burst: 2 }),
        spec({ name: "daily", algorithm: "token_bucket", limit: 4, periodMs: 86_400_000 }),
      ],
    }),
    makeRule({
      id: "shaped",
      domain: "api",
      match: [exact("kind", "upload"), any("tenant")],
      limits: [spec({ name: "shape", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 2 })],
      behaviour: "delay",
      maxDelayMs: 300,
    }),
    makeRule({
      id: "watch",
      domain: "api",
      match: [any("ip")],
      limits: [spec({ name: "watch", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
      behaviour: "shadow",
    }),
    makeRule({
      id: "free",
      domain: "api",
      match: [exact("plan", "free")],
      unlimited: true,
    }),
    // Tiers of the rule's shape, none unlimited, and no override of a `member:` identity: the memory store picks the
    // tier beside the counter (`SyncStore.bindChoiceSync`), for the empty value and values starting with "%" too.
    makeRule({
      id: "members",
      domain: "api",
      match: [any("member")],
      limits: [spec({ name: "m", algorithm: "gcra", limit: 3, periodMs: 1000 })],
      tiers: {
        premium: [spec({ name: "m", algorithm: "gcra", limit: 6, periodMs: 1000, burst: 4 })],
        internal: [spec({ name: "m", algorithm: "gcra", limit: 1, periodMs: 1000 })],
      },
    }),
  ],
  identities: {
    "user:p": "premium",
    "user:i": "internal",
    "user:o": "premium",
    "member:p": "premium",
    "member:": "premium",
    "member:%x": "internal",
  },
  overrides: [
    makeOverride({
      identity: "user:o",
      limits: [spec({ name: "override", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
      expiresAtMs: T0 + 1500,
    }),
  ],
});

const requests: Omit<CheckRequest, "domain" | "nowMs">[] = [
  { descriptors: [[{ key: "user", value: "a" }]] },
  { descriptors: [[{ key: "user", value: "p" }]] },
  { descriptors: [[{ key: "user", value: "i" }]] },
  { descriptors: [[{ key: "user", value: "o" }]] },
  { descriptors: [[{ key: "user", value: "" }]] },
  { descriptors: [[{ key: "user", value: "%x" }]], cost: 2 },
  {
    descriptors: [
      [
        { key: "user", value: "a" },
        { key: "endpoint", value: "/orders/7" },
      ],
    ],
  },
  {
    descriptors: [
      [
        { key: "user", value: "b" },
        { key: "endpoint", value: "/orders/8?x=1" },
      ],
    ],
    costs: [2],
  },
  {
    descriptors: [
      [
        { key: "kind", value: "upload" },
        { key: "tenant", value: "t1" },
      ],
    ],
  },
  { descriptors: [[{ key: "ip", value: "10.0.0.1" }]] },
  { descriptors: [[{ key: "plan", value: "free" }]] },
  { descriptors: [[{ key: "nothing", value: "matches" }]] },
  { descriptors: [[{ key: "user", value: "a" }]], cost: 0 },
  { descriptors: [[{ key: "member", value: "a" }]] },
  { descriptors: [[{ key: "member", value: "p" }]] },
  { descriptors: [[{ key: "member", value: "" }]] },
  { descriptors: [[{ key: "member", value: "%x" }]], cost: 2 },
  { descriptors: [[{ key: "member", value: "%p" }]] },
];

/** A descriptor no rule matches, added to a request (the result's descriptor at its place is NO_MATCH). */
const NO_RULE: Descriptor = [{ key: "unmatched", value: "x" }];

/** `config` plus a rule of another domain with `replaces`: requests of several descriptors take the general path. */
const generalConfig = makeConfig({
  ...config,
  rules: [
    ...config.rules,
    makeRule({
      id: "elsewhere",
      domain: "other",
      match: [any("user")],
      limits: [spec({ name: "other", algorithm: "fixed_window", limit: 1, periodMs: 1000 })],
      replaces: ["rule"],
    }),
  ],
});

function engines() {
  const clock = new ManualClock(T0);
  const opts = { clock, scheduler: clock };
  const sync = createEngine({ config, store: new MemoryStore({ capacity: 1000 }), ...opts });
  const hotStore = new AsyncMemoryStore();
  const hot = createEngine({ config, store: hotStore, ...opts });
  const hotWide = createEngine({ config, store: new AsyncMemoryStore(), ...opts });
  const general = createEngine({ config: generalConfig, store: new AsyncMemoryStore(), ...opts });
  return { clock, sync, hot, hotStore, hotWide, general };
}

/** `request` with NO_RULE added first or last, its `costs` (if any) moved along. */
function widened(request: CheckRequest, first: boolean): CheckRequest {
  const { descriptors, costs } = request;
  return {
    ...request,
    descriptors: first ? [NO_RULE, ...descriptors] : [...descriptors, NO_RULE],
    ...(costs !== undefined ? { costs: first ? [undefined, ...costs] : [...costs, undefined] } : {}),
  };
}

/** The result without the NO_MATCH of the added descriptor. */
function narrowed(r: CheckResult, first: boolean): CheckResult {
  return { ...r, descriptors: first ? r.descriptors.slice(1) : r.descriptors.slice(0, -1) };
}

describe("engine — the asynchronous hot path", () => {
  it("answers as the general path and the synchronous path do, request by request, over time", async () => {
    const { clock, sync, hot, hotWide, general } = engines();
    // Rounds 300 ms apart: windows roll over, the override expires at T0 + 1500 ms, GCRA and the buckets refill.
    // The unmatched descriptor goes last in even rounds, first in odd ones.
    for (let round = 0; round < 8; round++) {
      const first = round % 2 === 1;
      for (const req of requests) {
        const request: CheckRequest = { domain: "api", ...req };
        const wide = widened(request, first);
        const viaHot = await hot.check(request);
        const viaHotWide = await hotWide.check(wide);
        const viaGeneral = await general.check(wide);
        const viaSync = sync.checkSync(wide);
        expect(viaGeneral.descriptors[first ? 0 : wide.descriptors.length - 1]).toEqual({
          code: "OK",
          limits: undefined,
          shadowed: false,
          delayMs: 0,
        });
        expect(viaHotWide).toEqual(viaGeneral);
        expect(viaSync).toEqual(viaGeneral);
        expect(viaHot).toEqual(narrowed(viaGeneral, first));
      }
      clock.advance(300);
    }
    expect(hot.stats).toEqual(sync.stats);
    expect(hotWide.stats).toEqual(general.stats);
  });

  it("has the memory store pick a member's tier beside its counter, and picks again after a reload moves it", async () => {
    const clock = new ManualClock(T0);
    const opts = { clock, scheduler: clock };
    const store = new MemoryStore({ capacity: 1000 });
    const bind = store.bindChoiceSync.bind(store);
    const bound: boolean[] = [];
    store.bindChoiceSync = (sets, choose) => {
      const c = bind(sets, choose);
      bound.push(c !== undefined);
      return c;
    };
    const sync = createEngine({ config, store, ...opts });
    const general = createEngine({ config: generalConfig, store: new AsyncMemoryStore(), ...opts });
    const members = ["a", "p", "", "%x", "%p"];
    /** One check of `value` on both engines, which must answer alike; the synchronous engine's result. */
    const both = async (value: string) => {
      const request: CheckRequest = { domain: "api", descriptors: [[{ key: "member", value }], NO_RULE] };
      const got = sync.checkSync({ ...request, descriptors: [request.descriptors[0]] });
      expect(got, `member "${value}"`).toEqual(narrowed(await general.check(request), false));
      return got;
    };
    const rounds = async () => {
      for (let i = 0; i < 4; i++) {
        for (const value of members) await both(value);
        clock.advance(150);
      }
    };
    await rounds();
    expect(bound).toEqual([true]);
    expect(await both("p")).toMatchObject({ descriptors: [{ source: "tier", limits: [{ limit: 6 }] }] });
    // "p" leaves premium, "a" joins internal: the reloaded rule's consumer chooses again for every key.
    const moved = (c: typeof config) =>
      makeConfig({
        ...c,
        identities: { ...c.identities, "member:p": "free", "member:a": "internal" },
      });
    sync.updateConfig(moved(config));
    general.updateConfig(moved(generalConfig));
    await rounds();
    expect(bound).toEqual([true, true]);
    expect(await both("p")).toMatchObject({ descriptors: [{ source: "rule", limits: [{ limit: 3 }] }] });
    expect(await both("a")).toMatchObject({ descriptors: [{ source: "tier", limits: [{ limit: 1 }] }] });
  });

  it("makes one store call of one item per counted check, and none for unlimited or unmatched ones", async () => {
    const { hot, hotStore } = engines();
    await hot.check({ domain: "api", descriptors: [[{ key: "user", value: "a" }]] });
    await hot.check({ domain: "api", descriptors: [[{ key: "user", value: "i" }]] }); // unlimited tier
    await hot.check({ domain: "api", descriptors: [[{ key: "plan", value: "free" }]] }); // unlimited rule
    await hot.check({ domain: "api", descriptors: [[{ key: "nothing", value: "x" }]] });
    await hot.check({ domain: "api", descriptors: [NO_RULE, [{ key: "user", value: "b" }], NO_RULE] });
    expect(hotStore.calls.map((c) => c.items.length)).toEqual([1, 1]);
  });

  it("leaves requests with several matching descriptors to the general path, which counts them together", async () => {
    const { hot, hotStore, sync } = engines();
    const request: CheckRequest = {
      domain: "api",
      descriptors: [
        [{ key: "user", value: "a" }],
        NO_RULE,
        [
          { key: "kind", value: "upload" },
          { key: "tenant", value: "t" },
        ],
      ],
    };
    const viaHot = await hot.check(request);
    expect(hotStore.calls.map((c) => c.items.length)).toEqual([2]);
    expect(viaHot).toEqual(sync.checkSync(request));
  });

  it("rejects a fractional cost on whole-unit limits, naming the field, and counts nothing", async () => {
    const { hot, hotStore } = engines();
    await expect(
      hot.check({ domain: "api", descriptors: [[{ key: "user", value: "a" }]], cost: 1.5 }),
    ).rejects.toThrow(/cost/);
    await expect(
      hot.check({ domain: "api", descriptors: [[{ key: "user", value: "a" }]], costs: [0.5] }),
    ).rejects.toThrow(/costs\[0\]/);
    await expect(
      hot.check({ domain: "api", descriptors: [NO_RULE, [{ key: "user", value: "a" }]], costs: [1, 0.5] }),
    ).rejects.toThrow(/costs\[1\]/);
    expect(hotStore.calls).toEqual([]);
  });
});

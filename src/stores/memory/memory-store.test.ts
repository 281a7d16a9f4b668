import { describe, expect, it } from "vitest";
import { createStepOut } from "../../algorithms/algorithm.js";
import { algorithms } from "../../algorithms/index.js";
import { createLimitSet, type LimitSet } from "../../algorithms/limit-set.js";
import type { Decision } from "../../core/decision.js";
import { type AlgorithmId, parseLimitSpec } from "../../core/limit-spec.js";
import { ReferenceStore } from "../../testing/reference-store.js";
import type { StoreItem, StoreOp } from "../store.js";
import { MemoryStore, memoryStore } from "./memory-store.js";

const T0 = 1_700_000_000_000;
const gcraSet = (limit = 2, namespace = "t") =>
  createLimitSet(namespace, [parseLimitSpec({ name: "s", algorithm: "gcra", limit, periodMs: 1000 })]);

describe("MemoryStore", () => {
  it("rejects a bad capacity with a clear error", () => {
    expect(() => new MemoryStore({ capacity: 0 })).toThrow(/capacity must be a whole number/);
    expect(() => new MemoryStore({ capacity: 1.5 })).toThrow(/capacity/);
  });

  it("never holds more keys than its capacity under a flood of distinct keys", () => {
    const store = new MemoryStore({ capacity: 64 });
    const set = gcraSet(5);
    for (let i = 0; i < 10_000; i++) store.consumeSync(set, `flood:${i}`, 1, T0);
    const s = store.stats;
    expect(s.size).toBe(64);
    expect(s.evicted + s.reclaimed).toBe(10_000 - 64);
  });

  it("reclaims keys whose state is back to fresh before evicting live ones", () => {
    const store = new MemoryStore({ capacity: 4 });
    const set = gcraSet(1);
    for (let i = 0; i < 4; i++) store.consumeSync(set, `old:${i}`, 1, T0);
    // a second later every old key is full again: inserting new keys reclaims, never evicts
    for (let i = 0; i < 4; i++) store.consumeSync(set, `new:${i}`, 1, T0 + 1000);
    expect(store.stats).toMatchObject({ size: 4, reclaimed: 4, evicted: 0 });
    // all four are live now: a fifth key evicts one (counted)
    store.consumeSync(set, "fifth", 1, T0 + 1000);
    expect(store.stats.evicted).toBe(1);
  });

  it("judges a key idle under every set of its namespace that may have written it, not the one bound last", () => {
    // Tiers of one rule: the same name and algorithm, so one namespace whose keys' states the sets share as is.
    const tier = (limit: number, periodMs: number, algorithm: AlgorithmId) =>
      createLimitSet("rule", [parseLimitSpec({ name: "rate", algorithm, limit, periodMs })]);
    for (const algorithm of ["token_bucket", "leaky_bucket", "gcra"] as const) {
      for (const how of ["bound", "choice"] as const) {
        const fast = tier(100, 1000, algorithm); // the rule's: back to full within a second
        const slow = tier(1, 60_000, algorithm); // a slow tier's: 1 a minute
        const store = new MemoryStore({ capacity: 8 });
        const ctx = `${algorithm} (${how})`;
        if (how === "choice") {
          const tiers = store.bindChoiceSync([fast, slow], (key) => (key === "slow" ? 1 : 0));
          expect(tiers, ctx).toBeDefined();
          tiers?.consume("other", 1, T0);
          expect(tiers?.consume("slow", 1, T0 + 30_000).allowed, ctx).toBe(true);
        } else {
          store.consumeSync(fast, "other", 1, T0);
          expect(store.consumeSync(slow, "slow", 1, T0 + 30_000).allowed, ctx).toBe(true);
          store.applySync([{ limits: fast, key: "other", cost: 0 }], "peek", T0 + 30_000); // the rule's set, bound last
        }
        // "other" is back to full under either set; "slow" is not under its own until T0 + 90 s.
        expect(store.sweep(T0 + 61_000), ctx).toBe(1);
        expect(store.stats, ctx).toMatchObject({ size: 1, reclaimed: 1, evicted: 0 });
        expect(store.consumeSync(slow, "slow", 1, T0 + 61_000).allowed, ctx).toBe(false);
      }
    }
  });

  it("still judges a key under every set of its namespace's shape after the namespace was re-laid and back", () => {
    // Two limiters of one name and shape, one per second and one per hour, share each key's state; a third of
    // another algorithm re-lays the namespace in between. Only the set that rebinds after it (the per-second one)
    // went through the store again: the per-hour one's consumer finds the shape it knows and never rebinds, but
    // its keys still hold an hour's usage, so they must not be reclaimed as idle a few seconds later.
    const set = (algorithm: AlgorithmId, limit: number, periodMs: number) =>
      createLimitSet("n", [parseLimitSpec({ name: "x", algorithm, limit, periodMs })]);
    const store = new MemoryStore({ capacity: 2 });
    const perSecond = store.bindSync(set("fixed_window", 10, 1000));
    const perHour = store.bindSync(set("fixed_window", 3, 3_600_000));
    const other = store.bindSync(set("gcra", 5, 1000));
    const t = T0 + 12 * 3_600_000;
    other("o", 1, t);
    perSecond("warm", 1, t); // re-lays the namespace back to the fixed windows' shape
    const admitted = () => [0, 1, 2, 3, 4].filter(() => perHour("k", 1, t + 10).allowed).length;
    expect(admitted()).toBe(3);
    perHour("a", 1, t + 5000); // the store is full: making room sweeps
    perHour("b", 1, t + 5000);
    expect(perHour("k", 1, t + 6000).allowed).toBe(false);
    expect(store.stats).toMatchObject({ reclaimed: 1, evicted: 1 }); // "warm" is idle under both; "k" is not
  });

  it("evicts the least recently used live key first (CLOCK)", () => {
    const store = new MemoryStore({ capacity: 3 });
    const set = gcraSet(100);
    for (const k of ["a", "b", "c"]) store.consumeSync(set, k, 1, T0);
    store.consumeSync(set, "d", 1, T0); // full pass clears every reference bit, then evicts a
    store.consumeSync(set, "b", 1, T0); // b used again
    store.consumeSync(set, "e", 1, T0); // c was not used since: evicted, b survives
    const remaining = (k: string) =>
      store.applySync([{ limits: set, key: k, cost: 0 }], "peek", T0)[0].remaining;
    expect(remaining("b")).toBe(98);
    expect(remaining("c")).toBe(100);
  });

  it("starts a reused slot clean", () => {
    const store = new MemoryStore({ capacity: 1 });
    const set = gcraSet(2);
    store.consumeSync(set, "a", 2, T0);
    expect(store.consumeSync(set, "b", 1, T0)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it("keeps state when a limit changes, clamped to the new one on next touch", () => {
    const store = new MemoryStore();
    store.consumeSync(gcraSet(10, "ns"), "k", 10, T0);
    const lowered = gcraSet(5, "ns");
    expect(store.consumeSync(lowered, "k", 1, T0)).toMatchObject({ allowed: false });
    // GCRA keeps its debt as time: raised to 20/s, the key is still fully used, but refills twice as fast
    const raised = gcraSet(20, "ns");
    expect(store.consumeSync(raised, "k", 1, T0)).toMatchObject({ allowed: false, retryAfterMs: 50 });
    expect(store.consumeSync(raised, "k", 1, T0 + 50)).toMatchObject({ allowed: true });
  });

  it("moves a namespace's keys to a set of other widths, and drops them for other algorithms, leaving other namespaces", () => {
    const store = new MemoryStore({ capacity: 8 });
    const log = (limit: number) =>
      createLimitSet("ns", [parseLimitSpec({ name: "s", algorithm: "sliding_log", limit, periodMs: 1000 })]);
    const other = gcraSet(10, "other");
    for (const k of ["a", "b", "c"]) store.consumeSync(log(3), k, 3, T0);
    store.consumeSync(other, "a", 4, T0);
    // sliding_log of 5 entries: another state width, same algorithm — every key keeps its 3 entries
    for (const k of ["a", "b", "c"]) {
      expect(store.consumeSync(log(5), k, 2, T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(store.consumeSync(log(5), k, 1, T0)).toMatchObject({ allowed: false });
    }
    expect(store.stats.size).toBe(4);
    // gcra in the same namespace: another algorithm — its keys start fresh, the other namespace is untouched
    const g = gcraSet(2, "ns");
    expect(store.consumeSync(g, "a", 1, T0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(store.stats.size).toBe(2);
    expect(store.consumeSync(other, "a", 0, T0)).toMatchObject({ remaining: 6 });
    // the freed slots are taken again, and every key is found where it is
    for (let i = 0; i < 6; i++) store.consumeSync(g, `n${i}`, 1, T0);
    expect(store.stats).toMatchObject({ size: 8, evicted: 0 });
    expect(store.consumeSync(g, "a", 1, T0)).toMatchObject({ allowed: true, remaining: 0 });
    expect(store.consumeSync(other, "a", 0, T0)).toMatchObject({ remaining: 6 });
  });

  it("switches one namespace between sets of two algorithms, call by call, leaving the other keys alone", () => {
    const store = new MemoryStore({ capacity: 1000 });
    const other = gcraSet(10, "other");
    for (let i = 0; i < 900; i++) store.consumeSync(other, `o${i}`, 1, T0);
    const fixed = createLimitSet("ns", [
      parseLimitSpec({ name: "s", algorithm: "fixed_window", limit: 3, periodMs: 1000 }),
    ]);
    const g = gcraSet(3, "ns");
    // Each switch of algorithm starts the namespace fresh (documented): both always see a fresh key.
    for (let i = 0; i < 50; i++) {
      expect(store.consumeSync(i % 2 === 0 ? fixed : g, "k", 1, T0)).toMatchObject({
        allowed: true,
        remaining: 2,
      });
    }
    expect(store.stats.size).toBe(901);
    expect(store.consumeSync(other, "o7", 0, T0)).toMatchObject({ remaining: 9 });
  });

  describe("reconfiguration identifies a limit by its name, as the reference store does", () => {
    const spec = (name: string, algorithm: AlgorithmId, limit: number, periodMs: number) =>
      parseLimitSpec({ name, algorithm, limit, periodMs });
    const perSecond = spec("per-second", "fixed_window", 10, 1000);
    const perHour = spec("per-hour", "fixed_window", 100, 3_600_000);
    /** Every field a caller can read, `policies` included. */
    const fields = (d: Decision) => ({ ...d, policies: d.policies.map((p) => ({ ...p })) });
    /** Consumes on both stores, through the memory store's general path, and checks they agree. */
    const both = (memory: MemoryStore, reference: ReferenceStore) => (item: StoreItem, nowMs: number) => {
      const got = memory.applySync([item], "consume", nowMs)[0];
      const want = reference.applySync([item], "consume", nowMs)[0];
      expect(fields(got), `${item.limits.specs.map((s) => s.name)} ${item.key} at +${nowMs - T0} ms`).toEqual(
        fields(want),
      );
      return got;
    };

    it("keeps each limit's state by name when the limits are listed in another order", () => {
      const memory = new MemoryStore({ capacity: 8 });
      const reference = new ReferenceStore();
      const step = both(memory, reference);
      const before = createLimitSet("svc", [perSecond, perHour]);
      for (let i = 0; i < 8; i++) step({ limits: before, key: "k", cost: 1 }, T0);
      const after = createLimitSet("svc", [perHour, perSecond]);
      // per-hour has 92 left and per-second a new window each second: one a second is admitted all along
      for (let i = 0; i < 100; i++) {
        const d = step({ limits: after, key: "k", cost: 1 }, T0 + 2000 + 1000 * i);
        expect(d.allowed, `second ${i}`).toBe(i < 92);
      }
      // a limit's warning flag moves with its state: 9 of 10 per second used (warning), one refunded (2 left, in
      // the hysteresis band, where the flag decides), then listed second: still warning
      for (let i = 0; i < 9; i++) step({ limits: before, key: "w", cost: 1 }, T0 + 300_000);
      for (const store of [memory, reference])
        store.applySync([{ limits: before, key: "w", cost: 1 }], "refund", T0 + 300_000);
      const warned = step({ limits: after, key: "w", cost: 0 }, T0 + 300_100);
      expect(warned.policies.map((p) => [p.policy, p.state])).toEqual([
        ["per-hour", "normal"],
        ["per-second", "warning"],
      ]);
      // back to the first order: the same states, read by name again
      expect(step({ limits: before, key: "k", cost: 0 }, T0 + 200_000)).toMatchObject({ allowed: true });
      expect(step({ limits: before, key: "k", cost: 1 }, T0 + 3_600_000).allowed).toBe(true);
    });

    it("starts a renamed limit fresh and keeps the others, through the general and the bound paths", () => {
      for (const how of ["general", "bound"] as const) {
        const memory = new MemoryStore({ capacity: 8 });
        const reference = new ReferenceStore();
        const step = both(memory, reference);
        const consume = (
          limits: ReturnType<typeof createLimitSet>,
          key: string,
          cost: number,
          nowMs: number,
        ) =>
          how === "general"
            ? step({ limits, key, cost }, nowMs)
            : (() => {
                const got = memory.bindSync(limits)(key, cost, nowMs);
                const want = reference.applySync([{ limits, key, cost }], "consume", nowMs)[0];
                expect(fields(got), how).toEqual(fields(want));
                return got;
              })();
        // one limit renamed: a new limit, fresh (not the old one's state under a new name)
        const a = createLimitSet("one", [spec("a", "gcra", 3, 60_000)]);
        const b = createLimitSet("one", [spec("b", "gcra", 3, 60_000)]);
        for (let i = 0; i < 3; i++) consume(a, "k", 1, T0);
        expect(consume(a, "k", 1, T0).allowed, how).toBe(false);
        expect(consume(b, "k", 1, T0), how).toMatchObject({ allowed: true, remaining: 2 });
        // two limits, the second renamed: the first keeps its state, the renamed one starts fresh
        const ab = createLimitSet("two", [perSecond, perHour]);
        const ac = createLimitSet("two", [perSecond, spec("per-hour-2", "fixed_window", 100, 3_600_000)]);
        for (let i = 0; i < 10; i++) consume(ab, "k", 1, T0);
        const d = consume(ac, "k", 1, T0 + 500);
        expect(d.allowed, how).toBe(false); // per-second is still used up
        expect(
          d.policies.map((p) => [p.policy, p.remaining]),
          how,
        ).toEqual([
          ["per-second", 0],
          ["per-hour-2", 100],
        ]);
        // one limit's algorithm changed, the other's name and algorithm kept: only the changed one starts fresh
        const xy = createLimitSet("three", [
          spec("x", "fixed_window", 5, 60_000),
          spec("y", "gcra", 5, 60_000),
        ]);
        const xy2 = createLimitSet("three", [
          spec("x", "fixed_window", 5, 60_000),
          spec("y", "token_bucket", 5, 60_000),
        ]);
        for (let i = 0; i < 4; i++) consume(xy, "k", 1, T0);
        expect(
          consume(xy2, "k", 1, T0).policies.map((p) => [p.policy, p.remaining]),
          how,
        ).toEqual([
          ["x", 0],
          ["y", 4],
        ]);
      }
    });

    it("never shares a key's state between sets of one limit under other names", () => {
      const memory = new MemoryStore({ capacity: 8 });
      const reference = new ReferenceStore();
      const x = createLimitSet("ns", [spec("x", "fixed_window", 2, 60_000)]);
      const y = createLimitSet("ns", [spec("y", "fixed_window", 5, 60_000)]);
      const consumeX = memory.bindSync(x);
      const consumeY = memory.bindSync(y);
      const check = (got: Decision, limits: typeof x, cost: number) =>
        expect(fields(got)).toEqual(
          fields(reference.applySync([{ limits, key: "k", cost }], "consume", T0)[0]),
        );
      check(consumeX("k", 2, T0), x, 2);
      const d = consumeY("k", 1, T0);
      check(d, y, 1);
      expect(d).toMatchObject({ allowed: true, remaining: 4 }); // y's own count, not x's 2 used read as y's
      // the choice consumer does not take sets of other names as tiers of one shape either
      expect(memory.bindChoiceSync([x, y], () => 0)).toBeUndefined();
    });
  });

  describe("a consume of cost 0 of a key the store does not hold (a quota read)", () => {
    const fields = (d: Decision) => ({ ...d, policies: d.policies.map((p) => ({ ...p })) });
    const one = (name: string, algorithm: AlgorithmId, limit: number, namespace = "q") =>
      createLimitSet(namespace, [parseLimitSpec({ name, algorithm, limit, periodMs: 3_600_000 })]);
    const window = one("w", "fixed_window", 3);
    const tierOf = one("w", "fixed_window", 5); // a tier of window's shape
    const two = createLimitSet("q2", [
      parseLimitSpec({ name: "a", algorithm: "gcra", limit: 4, periodMs: 1000 }),
      parseLimitSpec({ name: "b", algorithm: "sliding_log", limit: 12, periodMs: 60_000 }), // a large state
    ]);
    const big = one("log", "sliding_log", 10, "q3");

    /** A full store (capacity 4) of used-up keys, and the reference with the same history. */
    function full() {
      const store = new MemoryStore({ capacity: 4 });
      const reference = new ReferenceStore();
      for (const k of ["v0", "v1", "v2", "v3"]) {
        for (const s of [store, reference]) s.applySync([{ limits: window, key: k, cost: 3 }], "consume", T0);
      }
      return { store, reference };
    }
    /** The victims are still held, used up: nothing was evicted, reclaimed nor stored. */
    function untouched(store: MemoryStore, ctx: string) {
      expect(store.stats, ctx).toEqual({
        size: 4,
        capacity: 4,
        reclaimed: 0,
        evicted: 0,
        largeStateBytes: 0,
      });
      for (const k of ["v0", "v1", "v2", "v3"]) {
        expect(store.consumeSync(window, k, 1, T0 + 10).allowed, `${ctx}: ${k}`).toBe(false);
      }
    }

    type Path = (store: MemoryStore, key: string, nowMs: number) => Decision;
    const paths: Record<string, { limits: ReturnType<typeof one>; consume: Path }> = {
      consumeSync: { limits: window, consume: (st, k, now) => st.consumeSync(window, k, 0, now) },
      bindSync: { limits: window, consume: (st, k, now) => st.bindSync(window)(k, 0, now) },
      bindChoiceSync: {
        limits: tierOf,
        consume: (st, k, now) => {
          const chooser = st.bindChoiceSync([window, tierOf], () => 1);
          expect(chooser).toBeDefined();
          return (chooser as NonNullable<typeof chooser>).consume(k, 0, now);
        },
      },
      "consumeSync, several limits": { limits: two, consume: (st, k, now) => st.consumeSync(two, k, 0, now) },
      "consumeSync, a large state": { limits: big, consume: (st, k, now) => st.consumeSync(big, k, 0, now) },
      "applySync, one item": {
        limits: window,
        consume: (st, k, now) => st.applySync([{ limits: window, key: k, cost: 0 }], "consume", now)[0],
      },
    };

    for (const [name, { limits, consume }] of Object.entries(paths)) {
      it(`stores nothing and evicts nothing on a full store, answering as a fresh state (${name})`, () => {
        const { store, reference } = full();
        for (let i = 0; i < 20; i++) {
          const now = T0 + i;
          const got = consume(store, `probe${i % 7}`, now);
          const want = reference.applySync([{ limits, key: `probe${i % 7}`, cost: 0 }], "consume", now)[0];
          expect(fields(got), `${name}: probe ${i}`).toEqual(fields(want));
          expect(got.allowed).toBe(true);
        }
        untouched(store, name);
        // a held key is read as before, and a cost of 1 still stores the key (evicting one: the store is full)
        expect(store.consumeSync(window, "v0", 0, T0 + 20)).toMatchObject({ allowed: true, remaining: 0 });
        expect(store.consumeSync(window, "new", 1, T0 + 20)).toMatchObject({ allowed: true, remaining: 2 });
        expect(store.stats.evicted).toBe(1);
      });
    }

    it("stores such a key while a slot is free, as the reference keeps it (a clock going back reads it), never more", () => {
      const gcra = one("g", "gcra", 2, "qg");
      const store = new MemoryStore({ capacity: 4 });
      const reference = new ReferenceStore();
      const both = (items: StoreItem[], op: "consume" | "peek", nowMs: number) => {
        const got = store.applySync(items, op, nowMs);
        expect(got.map(fields)).toEqual(reference.applySync(items, op, nowMs).map(fields));
        return got;
      };
      both([{ limits: window, key: "v0", cost: 3 }], "consume", T0);
      both([{ limits: window, key: "v1", cost: 3 }], "consume", T0);
      // GCRA's cost-0 step records its time: read back after the clock went 100 ms back, the key is ahead
      both([{ limits: gcra, key: "a", cost: 0 }], "consume", T0 + 1000);
      expect(both([{ limits: gcra, key: "a", cost: 1 }], "peek", T0 + 900)[0].resetAfterMs).toBe(
        3_600_000 / 2 + 100,
      );
      for (let i = 0; i < 20; i++) store.consumeSync(gcra, `r${i}`, 0, T0 + 1000);
      // one more key took the last free slot; the others were answered without one: nothing reclaimed or evicted
      expect(store.stats).toEqual({ size: 4, capacity: 4, reclaimed: 0, evicted: 0, largeStateBytes: 0 });
      for (const k of ["v0", "v1"]) expect(store.consumeSync(window, k, 1, T0 + 1000).allowed).toBe(false);
    });

    it("answers cost-0 items of keys not held as fresh states among the other items of a call, storing none of them", () => {
      const { store, reference } = full();
      const call = (items: StoreItem[], nowMs: number) => {
        const got = store.applySync(items, "consume", nowMs);
        const want = reference.applySync(items, "consume", nowMs);
        expect(got.map(fields)).toEqual(want.map(fields));
        return got;
      };
      // allowed: a held key of another namespace's shape-alike set, and absent keys of other layouts, twice each
      store.applySync([{ limits: window, key: "v0", cost: 0 }], "reset", T0);
      reference.applySync([{ limits: window, key: "v0", cost: 0 }], "reset", T0);
      call([{ limits: window, key: "v0", cost: 1 }], T0); // v0 held again, 2 left
      const absent = (key: string): StoreItem[] => [
        { limits: two, key, cost: 0 },
        { limits: big, key, cost: 0 },
        { limits: window, key, cost: 0 },
      ];
      const allowed = call(
        [...absent("p"), { limits: window, key: "v0", cost: 1 }, ...absent("p"), ...absent("r")],
        T0 + 1,
      );
      expect(allowed.every((d) => d.allowed)).toBe(true);
      // denied by a used-up key: the absent items report their fresh state, not allowed (all-or-nothing)
      const denied = call([...absent("s"), { limits: window, key: "v1", cost: 1 }, ...absent("t")], T0 + 2);
      expect(denied.map((d) => d.allowed)).toEqual(denied.map(() => false));
      expect(denied[2].policies[0]).toMatchObject({ policy: "w", remaining: 3 });
      // a key named twice, used up by its first item: the second (cost 0) reads it used up, as the reference does
      call(
        [
          { limits: window, key: "n", cost: 3 },
          { limits: window, key: "n", cost: 0 },
        ],
        T0 + 3,
      );
      expect(store.stats).toMatchObject({ size: 4, reclaimed: 0 });
      expect(store.stats.evicted).toBe(1); // "n", a cost of 3, took a slot: the only eviction
      for (const k of ["p", "r", "s", "t"]) {
        expect(store.applySync([{ limits: window, key: k, cost: 0 }], "peek", T0 + 4)[0].remaining).toBe(3);
      }
    });
  });

  describe("a denied consume of a key the store does not hold", () => {
    const fields = (d: Decision) => ({ ...d, policies: d.policies.map((p) => ({ ...p })) });
    const DAY = 86_400_000;
    const one = (name: string, algorithm: AlgorithmId, limit: number, namespace = "d") =>
      createLimitSet(namespace, [parseLimitSpec({ name, algorithm, limit, periodMs: DAY })]);
    const window = one("w", "fixed_window", 1);
    const tierOf = one("w", "fixed_window", 3); // a tier of window's shape: admits a cost of 2
    const two = createLimitSet("d2", [
      parseLimitSpec({ name: "a", algorithm: "gcra", limit: 4, periodMs: 1000 }),
      parseLimitSpec({ name: "b", algorithm: "sliding_log", limit: 1, periodMs: 60_000 }),
    ]);
    const big = one("log", "sliding_log", 1, "d3");

    /** A full store of used-up keys (one a day, used), and the reference with the same history. */
    function full(capacity = 64) {
      const store = new MemoryStore({ capacity });
      const reference = new ReferenceStore();
      for (let i = 0; i < capacity; i++) {
        for (const s of [store, reference])
          s.applySync([{ limits: window, key: `v${i}`, cost: 1 }], "consume", T0);
      }
      return { store, reference };
    }
    /** Every victim is still held and used up: nothing was evicted, reclaimed nor stored. */
    function untouched(store: MemoryStore, capacity: number, ctx: string) {
      expect(store.stats, ctx).toMatchObject({ size: capacity, reclaimed: 0, evicted: 0 });
      for (let i = 0; i < capacity; i++) {
        expect(store.consumeSync(window, `v${i}`, 0, T0 + 10).remaining, `${ctx}: v${i}`).toBe(0);
      }
    }

    type Path = (store: MemoryStore, key: string, nowMs: number) => Decision;
    const paths: Record<string, { limits: LimitSet; consume: Path }> = {
      consumeSync: { limits: window, consume: (st, k, now) => st.consumeSync(window, k, 2, now) },
      bindSync: { limits: window, consume: (st, k, now) => st.bindSync(window)(k, 2, now) },
      bindChoiceSync: {
        limits: window,
        consume: (st, k, now) => {
          // the key's chosen set (window) denies a cost of 2; the other tier would admit it
          const chooser = st.bindChoiceSync([tierOf, window], () => 1);
          expect(chooser).toBeDefined();
          return (chooser as NonNullable<typeof chooser>).consume(k, 2, now);
        },
      },
      "consumeSync, several limits": { limits: two, consume: (st, k, now) => st.consumeSync(two, k, 2, now) },
      "consumeSync, a large state": { limits: big, consume: (st, k, now) => st.consumeSync(big, k, 2, now) },
      "applySync, one item": {
        limits: window,
        consume: (st, k, now) => st.applySync([{ limits: window, key: k, cost: 2 }], "consume", now)[0],
      },
    };

    for (const [name, { limits, consume }] of Object.entries(paths)) {
      it(`stores nothing and evicts nothing, answering as a fresh state (${name})`, () => {
        const { store, reference } = full();
        for (let i = 0; i < 90; i++) {
          const now = T0 + 1 + i;
          const got = consume(store, `flood${i}`, now);
          const want = reference.applySync([{ limits, key: `flood${i}`, cost: 2 }], "consume", now)[0];
          expect(fields(got), `${name}: flood ${i}`).toEqual(fields(want));
          expect(got.allowed).toBe(false);
        }
        untouched(store, 64, name);
      });
    }

    it("stores none of a denied call's keys not held; an allowed call stores them", () => {
      const { store, reference } = full(8);
      const call = (items: StoreItem[], nowMs: number) => {
        const got = store.applySync(items, "consume", nowMs);
        expect(got.map(fields)).toEqual(reference.applySync(items, "consume", nowMs).map(fields));
        return got;
      };
      const fresh = (key: string): StoreItem[] => [
        { limits: two, key, cost: 1 },
        { limits: big, key, cost: 1 },
        { limits: window, key, cost: 1 },
      ];
      // denied by a used-up key, each new key passing on its own: all reported on fresh states, none stored
      for (let i = 0; i < 20; i++) {
        const denied = call(
          [...fresh(`a${i}`), { limits: window, key: "v3", cost: 1 }, ...fresh(`b${i}`)],
          T0 + i,
        );
        expect(denied.every((d) => !d.allowed)).toBe(true);
      }
      untouched(store, 8, "denied calls");
      // a new key named twice, its second item denied after its first: stored as any other (exact either way)
      call(
        [
          { limits: window, key: "n", cost: 1 },
          { limits: window, key: "n", cost: 1 },
        ],
        T0 + 30,
      );
      // allowed: the new keys are stored, each evicting a used-up key (the store is full)
      const allowed = call([...fresh("c"), { limits: tierOf, key: "v4", cost: 0 }], T0 + 40);
      expect(allowed.every((d) => d.allowed)).toBe(true);
      expect(store.consumeSync(window, "c", 1, T0 + 50).allowed).toBe(false);
      expect(store.stats.evicted).toBeGreaterThan(0);
    });

    it("never evicts a key a call holds to make room for another key of the call", () => {
      const store = new MemoryStore({ capacity: 2 });
      const set = one("w", "fixed_window", 5);
      store.consumeSync(set, "held", 1, T0);
      store.consumeSync(set, "other", 1, T0);
      const [fresh, held] = store.applySync(
        [
          { limits: set, key: "new", cost: 1 },
          { limits: set, key: "held", cost: 1 },
        ],
        "consume",
        T0,
      );
      expect(fresh).toMatchObject({ allowed: true, remaining: 4 });
      expect(held).toMatchObject({ allowed: true, remaining: 3 });
      expect(store.stats).toMatchObject({ size: 2, evicted: 1 });
    });

    it("reclaims keys a quota read stored (they hold nothing) before evicting a live key, wherever the hand is", () => {
      const capacity = 1600; // a sweep at most every 100 inserts
      const { store } = full(capacity);
      // 50 new keys: the first sweeps (nothing idle), then CLOCK evicts v0 … v49, the hand moving past them
      for (let i = 0; i < 50; i++) store.consumeSync(window, `x${i}`, 1, T0 + 1);
      expect(store.stats).toMatchObject({ evicted: 50, reclaimed: 0 });
      // 20 slots behind the hand freed, then taken by quota reads of new keys: stored, holding nothing
      for (let i = 10; i < 30; i++)
        store.applySync([{ limits: window, key: `x${i}`, cost: 0 }], "reset", T0 + 2);
      for (let i = 0; i < 20; i++) store.consumeSync(window, `read${i}`, 0, T0 + 3);
      // 20 more new keys: the 20 read keys make room, not 20 more used-up keys
      for (let i = 0; i < 20; i++) store.consumeSync(window, `y${i}`, 1, T0 + 4);
      expect(store.stats).toMatchObject({ size: capacity, evicted: 50, reclaimed: 20 });
    });
  });

  describe("large states (sliding_log, bucketed_window, concurrency)", () => {
    const fields = (d: Decision) => ({ ...d, policies: d.policies.map((p) => ({ ...p })) });
    /** mulberry32, so that a failure replays. */
    function random(seed: number): () => number {
      let a = seed;
      return () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }

    it("hold memory for what a key uses, not for its limit", () => {
      // A sliding_log of 100,000 keeps up to 100,000 entries per key (1.6 MB at full width): 150 keys each asked
      // once (half of them quota reads) used to take ~229 MiB.
      const store = new MemoryStore();
      const set = createLimitSet("big", [
        parseLimitSpec({ name: "log", algorithm: "sliding_log", limit: 100_000, periodMs: 60_000 }),
      ]);
      const before = process.memoryUsage().arrayBuffers;
      for (let i = 0; i < 150; i++) store.consumeSync(set, `ip-${i}`, i % 2, T0);
      const grown = process.memoryUsage().arrayBuffers - before;
      expect(grown).toBeLessThan(8 * 2 ** 20);
      expect(store.stats.largeStateBytes).toBe(150 * 16 * 8);
      // a key grows as it admits: 1,000 admissions take ~2,000 floats (the ring doubled as it filled)
      for (let i = 0; i < 1000; i++) store.consumeSync(set, "busy", 1, T0 + i);
      expect(store.stats.largeStateBytes - 150 * 128).toBeLessThanOrEqual(2 * (3 + 2 * 1001) * 8);
      expect(store.consumeSync(set, "busy", 0, T0 + 1000)).toMatchObject({ remaining: 99_000 });
    });

    const specsOf = (size: number) => ({
      log: { name: "log", algorithm: "sliding_log" as const, limit: size, periodMs: 1000 },
      queue: {
        name: "queue",
        algorithm: "bucketed_window" as const,
        limit: size,
        periodMs: 50 * size,
        bucketMs: 50,
      },
      leases: { name: "leases", algorithm: "concurrency" as const, limit: size, periodMs: 1000 },
    });

    for (const kind of ["log", "queue", "leases", "all"] as const) {
      it(`answer as at full width while they grow, wrap round and are re-laid under other limits (${kind})`, () => {
        const setOf = (size: number) => {
          const s = specsOf(size);
          const specs = kind === "all" ? [s.log, s.queue, s.leases] : [s[kind]];
          return createLimitSet(
            "grow",
            specs.map((x) => parseLimitSpec(x)),
          );
        };
        // Limits changed under the same name mid-run (the ring re-laid by prefix, raised and lowered).
        const sizes = [40, 40, 64, 25, 40];
        const store = new MemoryStore({ capacity: 3 });
        const reference = new ReferenceStore();
        const next = random(kind.length * 101 + 7);
        let now = T0;
        let reachedFull = false;
        for (let i = 0; i < 6000; i++) {
          const set = setOf(sizes[Math.floor(i / 1200)]);
          const r = next();
          now += r < 0.01 ? 5000 : r < 0.05 ? -Math.floor(next() * 200) : Math.floor(next() * 25);
          const key = `k${Math.floor(next() * 2)}`;
          const o = next();
          let items: StoreItem[];
          let op: StoreOp = "consume";
          if (o < 0.75) {
            const c = next();
            items = [{ limits: set, key, cost: c < 0.8 ? 1 : c < 0.9 ? 0 : Math.floor(next() * 70) }];
          } else if (o < 0.85) {
            // a key named twice, and another key: all-or-nothing on growing states
            items = [
              { limits: set, key, cost: 1 },
              { limits: set, key: "k9", cost: 2 },
              { limits: set, key, cost: Math.floor(next() * 5) },
            ];
          } else if (o < 0.93) {
            items = [{ limits: set, key, cost: Math.floor(next() * 3) }];
            op = "peek";
          } else if (o < 0.995) {
            items = [{ limits: set, key, cost: 1 + Math.floor(next() * 3) }];
            op = "refund";
          } else {
            items = [{ limits: set, key, cost: 0 }];
            op = "reset";
          }
          const got = store.applySync(items, op, now);
          const want = reference.applySync(items, op, now);
          expect(
            got.map(fields),
            `step ${i}: ${op} ${JSON.stringify(items.map((x) => [x.key, x.cost]))}`,
          ).toEqual(want.map(fields));
          const full = set.specs.reduce((n, s, j) => n + set.algorithms[j].width(s), 0) * 8;
          if (store.stats.largeStateBytes >= full) reachedFull = true;
        }
        expect(reachedFull).toBe(true); // some key's states grew to their full width (and wrapped round)
      });
    }

    it("keep their bytes within maxLargeStateBytes: idle keys reclaimed first, then the least recently used evicted", () => {
      const full = (3 + 2 * 100) * 8; // a sliding_log of 100 holding 100 entries (one per admission)
      const store = new MemoryStore({ capacity: 100, maxLargeStateBytes: 4 * full });
      const set = createLimitSet("budget", [
        parseLimitSpec({ name: "log", algorithm: "sliding_log", limit: 100, periodMs: 1000 }),
      ]);
      /** 100 admissions of one unit: the key's log full, its state at full width. */
      const useUp = (key: string, nowMs: number) => {
        for (let i = 0; i < 100; i++) expect(store.consumeSync(set, key, 1, nowMs).allowed).toBe(true);
      };
      for (const k of ["a", "b", "c", "d"]) useUp(k, T0);
      expect(store.stats).toMatchObject({ size: 4, largeStateBytes: 4 * full, reclaimed: 0, evicted: 0 });
      // a fifth used-up key: one of the four goes (none is idle), counted as evicted; the others stay used up
      useUp("e", T0);
      expect(store.stats).toMatchObject({ size: 4, largeStateBytes: 4 * full, evicted: 1 });
      const remaining = (k: string) =>
        store.applySync([{ limits: set, key: k, cost: 0 }], "peek", T0)[0].remaining;
      expect(["a", "b", "c", "d", "e"].filter((k) => remaining(k) === 0)).toHaveLength(4);
      // quota reads of new keys are stored (there is room) with small states, taking room from no used-up key
      for (let i = 0; i < 20; i++) store.consumeSync(set, `read${i}`, 0, T0);
      expect(["a", "b", "c", "d", "e"].filter((k) => remaining(k) === 0)).toHaveLength(4);
      expect(store.stats).toMatchObject({ evicted: 1 });
      // a second later the four are idle: a sixth key takes an idle one's room, evicting none
      useUp("f", T0 + 1000);
      expect(store.stats).toMatchObject({ size: 4, evicted: 1 });
      expect(store.stats.largeStateBytes).toBeLessThanOrEqual(4 * full);
      // a budget of bytes, not keys: keys whose logs hold one entry take 128 bytes each, 50 of them fit in it
      for (let i = 0; i < 90; i++) store.consumeSync(set, `small${i}`, 1, T0 + 1000);
      expect(store.stats).toMatchObject({ size: 50, largeStateBytes: 50 * 128 });
    });

    it("grow a key's ring to its full width once it wraps round, answering as the reference throughout", () => {
      const set = createLimitSet("wrap", [
        parseLimitSpec({ name: "log", algorithm: "sliding_log", limit: 40, periodMs: 1000 }),
      ]);
      const store = new MemoryStore({ capacity: 4 });
      const reference = new ReferenceStore();
      const sizes: number[] = [];
      for (let i = 0; i < 200; i++) {
        const items = [{ limits: set, key: "k", cost: 1 }];
        const now = T0 + 30 * i; // ~33 entries live: the ring's head goes round
        expect(store.applySync(items, "consume", now).map(fields)).toEqual(
          reference.applySync(items, "consume", now).map(fields),
        );
        sizes.push(store.stats.largeStateBytes / 8);
      }
      expect([...new Set(sizes)]).toEqual([16, 32, 64, 83]); // 3 + 2 · 40 floats at full width
    });

    it("re-lay a wrapped ring held as a prefix in order when its limit is raised and lowered, as the reference", () => {
      // A ring of 100 grows past its first prefix (16 floats, 6 entries) and wraps (then it is held whole); raised
      // to 250 it is unwrapped into a prefix of the wider block (not its whole 503 floats); lowered to 30 from that
      // prefix, its old width is the layout's (503), not the prefix's length. Every answer is the reference's.
      const specOf = (kind: "log" | "queue", size: number) =>
        kind === "log"
          ? { name: "r", algorithm: "sliding_log" as const, limit: size, periodMs: 1000 }
          : {
              name: "r",
              algorithm: "bucketed_window" as const,
              limit: 4 * size,
              periodMs: 20 * size,
              bucketMs: 20,
            };
      for (const kind of ["log", "queue"] as const) {
        const setOf = (size: number) => createLimitSet(`relay-${kind}`, [parseLimitSpec(specOf(kind, size))]);
        const store = new MemoryStore({ capacity: 4 });
        const reference = new ReferenceStore();
        const both = (size: number, op: StoreOp, cost: number, now: number) => {
          const items = [{ limits: setOf(size), key: "k", cost }];
          const got = store.applySync(items, op, now).map(fields);
          expect(got, `${kind} ${op} cost ${cost} under ${size} at +${now - T0}`).toEqual(
            reference.applySync(items, op, now).map(fields),
          );
          return got[0];
        };
        const floats = () => store.stats.largeStateBytes / 8;
        const limitOf = (size: number) => (kind === "log" ? size : 4 * size);
        let now = T0;
        // 130 admissions 20 ms apart under 100: ~50 live at once, the ring goes round its end (cells 0 … 29 again)
        for (let i = 0; i < 130; i++, now += 20) expect(both(100, "consume", 1, now).allowed).toBe(true);
        expect(floats(), kind).toBe(3 + 2 * 100); // wrapped: held whole
        // raised to 250: unwrapped in order into a prefix of the 503 floats (its live entries still count)
        const raised = both(250, "peek", 0, now);
        expect(floats(), kind).toBeLessThan(3 + 2 * 250);
        expect(raised.remaining, kind).toBeLessThan(limitOf(250) - 40);
        for (let i = 0; i < 10; i++, now += 20) both(250, "consume", 1, now);
        both(250, "consume", 120, now); // some pass, some do not: reference decides
        expect(floats(), kind).toBeLessThan(3 + 2 * 250); // still held as a prefix
        // lowered to 30 from the prefix: the newest 30 entries kept, the older ones folded into the oldest kept
        const lowered = both(30, "peek", 0, now);
        expect(lowered.remaining, kind).toBeLessThan(limitOf(30));
        for (let i = 0; i < 40; i++, now += 37) both(30, "consume", 1 + (i % 3), now);
        // and up again: a wrapped ring of 30 (held whole, 63 floats) re-laid into 250's prefix
        both(250, "peek", 0, now);
        for (let i = 0; i < 60; i++, now += 15) both(250, "consume", 2, now);
        both(100, "consume", 1, now);
        both(100, "refund", 3, now);
        both(100, "peek", 5, now + 500);
      }
    });

    it("reject a set one key of which could hold more than maxLargeStateBytes, naming the option", () => {
      expect(() => new MemoryStore({ maxLargeStateBytes: 0 })).toThrow(/maxLargeStateBytes must be/);
      expect(() => new MemoryStore({ maxLargeStateBytes: Number.NaN })).toThrow(/maxLargeStateBytes/);
      const store = new MemoryStore({ maxLargeStateBytes: 1_000_000 });
      const set = createLimitSet("huge", [
        parseLimitSpec({ name: "log", algorithm: "sliding_log", limit: 100_000, periodMs: 1000 }),
      ]);
      expect(() => store.consumeSync(set, "k", 1, T0)).toThrow(
        /1600024 bytes .*maxLargeStateBytes \(1000000\)/,
      );
      expect(
        new MemoryStore({ maxLargeStateBytes: Number.POSITIVE_INFINITY }).consumeSync(set, "k", 1, T0)
          .allowed,
      ).toBe(true);
    });
  });

  it("takes new namespaces for the life of the process, reusing those that hold no key", () => {
    // A namespace's table id is 16 bits: the store used to refuse the 65,536th namespace it ever saw, forever.
    const store = new MemoryStore({ capacity: 1000 });
    const set = (namespace: string, limit = 2) =>
      createLimitSet(namespace, [
        parseLimitSpec({ name: "s", algorithm: "fixed_window", limit, periodMs: 60_000 }),
      ]);
    const a = set("a");
    const holding = store.bindSync(a);
    holding("k", 2, T0); // used up: its table holds a key
    for (let i = 0; i < 65_532; i++) store.bindSync(set(`tenant-${i}`));
    // the last two ids: namespaces whose keys are gone (reset here; reclaimed or evicted alike)
    const b = set("b", 3);
    const c = set("c", 3);
    const emptied = store.bindSync(b);
    const choice = store.bindChoiceSync([c], () => 0);
    if (choice === undefined) throw new Error("the set qualifies");
    emptied("k", 1, T0);
    choice.consume("k", 1, T0);
    store.applySync([{ limits: b, key: "k", cost: 0 }], "reset", T0);
    store.applySync([{ limits: c, key: "k", cost: 0 }], "reset", T0);
    // 100 new namespaces: the ids of tables holding no key are reused (b's and c's among the first)
    for (let i = 0; i < 100; i++) {
      const next = store.bindSync(set(`late-${i}`, 1));
      expect(next("k", 1, T0).allowed).toBe(true); // each holds "k", used up
      expect(next("k", 1, T0).allowed).toBe(false);
    }
    // every consumer made before keeps counting its own namespace, never a key of the one that took its id
    expect(holding("k", 1, T0)).toMatchObject({ allowed: false, remaining: 0 });
    for (const consume of [emptied, (k: string, n: number, now: number) => choice.consume(k, n, now)]) {
      expect(consume("k", 1, T0)).toMatchObject({ allowed: true, remaining: 2 });
      expect(consume("k", 2, T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(consume("k", 1, T0).allowed).toBe(false);
    }
    expect(store.bindSync(b)("k", 0, T0)).toMatchObject({ remaining: 0 });
    expect(store.bindSync(set("late-0", 1))("k", 0, T0)).toMatchObject({ remaining: 0 });
    expect(store.stats.size).toBe(103);
  });

  it("refuses a new namespace, naming it, only while 65,535 namespaces hold keys", () => {
    const store = new MemoryStore({ capacity: 65_536 });
    const set = (namespace: string) =>
      createLimitSet(namespace, [
        parseLimitSpec({ name: "s", algorithm: "gcra", limit: 2, periodMs: 60_000 }),
      ]);
    for (let i = 0; i < 65_535; i++) store.consumeSync(set(`n${i}`), "k", 1, T0);
    expect(() => store.consumeSync(set("one more"), "k", 1, T0)).toThrow(
      /namespace "one more": the store holds keys of 65535 namespaces/,
    );
    store.applySync([{ limits: set("n7"), key: "k", cost: 0 }], "reset", T0);
    expect(store.consumeSync(set("one more"), "k", 1, T0).allowed).toBe(true);
  });

  it("forgets every key on close() and refuses further use", async () => {
    const store = new MemoryStore({ capacity: 4 });
    const set = gcraSet(2);
    store.consumeSync(set, "a", 2, T0);
    await store.close();
    expect(() => store.consumeSync(set, "a", 1, T0)).toThrow(/after close/);
  });

  it("applies several items all-or-nothing", () => {
    const store = new MemoryStore();
    const a = gcraSet(5, "a");
    const b = gcraSet(1, "b");
    store.consumeSync(b, "k", 1, T0);
    const [da, db] = store.applySync(
      [
        { limits: a, key: "k", cost: 1 },
        { limits: b, key: "k", cost: 1 },
      ],
      "consume",
      T0,
    );
    expect(db.allowed).toBe(false);
    expect(da.allowed).toBe(false);
    expect(da.remaining).toBe(5); // nothing taken from a
    expect(store.consumeSync(a, "k", 5, T0).allowed).toBe(true);
  });

  it("combines several limits on one key and reports each", () => {
    const store = new MemoryStore();
    const set = createLimitSet("multi", [
      parseLimitSpec({ name: "per-second", algorithm: "gcra", limit: 2, periodMs: 1000 }),
      parseLimitSpec({ name: "per-minute", algorithm: "gcra", limit: 3, periodMs: 60_000 }),
    ]);
    const d1 = store.consumeSync(set, "k", 1, T0);
    expect(d1.policies.map((p) => [p.policy, p.remaining])).toEqual([
      ["per-second", 1],
      ["per-minute", 2],
    ]);
    store.consumeSync(set, "k", 1, T0);
    const d3 = store.consumeSync(set, "k", 1, T0);
    expect(d3).toMatchObject({ allowed: false, policy: "per-second", state: "throttled" });
    expect(d3.policies[1]).toMatchObject({ policy: "per-minute", allowed: true, remaining: 1 });
    const d4 = store.consumeSync(set, "k", 1, T0 + 1000);
    expect(d4).toMatchObject({ allowed: true, policy: "per-minute", remaining: 0 });
    expect(store.consumeSync(set, "k", 1, T0 + 2000)).toMatchObject({ allowed: false, policy: "per-minute" });
  });

  it("reports warning above 80% and keeps it until below 70% (hysteresis)", () => {
    const store = new MemoryStore();
    const set = createLimitSet("w", [
      parseLimitSpec({ algorithm: "fixed_window", limit: 10, periodMs: 1000 }),
    ]);
    const states = [];
    for (let i = 0; i < 11; i++) states.push(store.consumeSync(set, "k", 1, T0).state);
    expect(states).toEqual([...Array(8).fill("normal"), "warning", "warning", "throttled"]);
  });

  it("judges warning against the burst, the capacity remaining counts down from, on every path", () => {
    // limit 100, burst 10: one used of ten is 10% (normal); limit 10, burst 100: 95 used is 95% (warning); the
    // README's 10/s with a burst of 20: 17 used is 85% (warning).
    const cases = [
      { limit: 100, burst: 10, cost: 1, remaining: 9, state: "normal" },
      { limit: 10, burst: 100, cost: 95, remaining: 5, state: "warning" },
      { limit: 10, burst: 20, cost: 17, remaining: 3, state: "warning" },
    ] as const;
    for (const algorithm of ["gcra", "token_bucket", "leaky_bucket"] as const) {
      for (const c of cases) {
        const set = createLimitSet("cap", [
          parseLimitSpec({ algorithm, limit: c.limit, periodMs: 1000, burst: c.burst }),
        ]);
        const other = createLimitSet("cap", [parseLimitSpec({ algorithm, limit: 1, periodMs: 1000 })]);
        const paths: Record<string, (store: MemoryStore) => Decision> = {
          consumeSync: (store) => store.consumeSync(set, "k", c.cost, T0),
          applySync: (store) => store.applySync([{ limits: set, key: "k", cost: c.cost }], "consume", T0)[0],
          peek: (store) => store.applySync([{ limits: set, key: "k", cost: c.cost }], "peek", T0)[0],
          bindSync: (store) => store.bindSync(set)("k", c.cost, T0),
          bindChoiceSync: (store) => {
            const choice = store.bindChoiceSync([other, set], () => 1);
            if (choice === undefined) throw new Error("no choice consumer");
            return choice.consume("k", c.cost, T0);
          },
        };
        for (const [path, decide] of Object.entries(paths)) {
          const ctx = `${algorithm} limit ${c.limit} burst ${c.burst} (${path})`;
          expect(decide(new MemoryStore()), ctx).toMatchObject({
            allowed: true,
            remaining: c.remaining,
            state: c.state,
          });
        }
      }
    }
  });

  it("peeks without storing, refunds and resets", () => {
    const store = new MemoryStore();
    const set = gcraSet(3);
    expect(store.applySync([{ limits: set, key: "k", cost: 0 }], "peek", T0)[0].remaining).toBe(3);
    expect(store.stats.size).toBe(0);
    store.consumeSync(set, "k", 3, T0);
    expect(store.applySync([{ limits: set, key: "k", cost: 2 }], "refund", T0)[0].remaining).toBe(2);
    expect(store.applySync([{ limits: set, key: "k", cost: 0 }], "reset", T0)[0].remaining).toBe(3);
    expect(store.stats.size).toBe(0);
  });

  it("sweeps idle keys on demand", () => {
    const store = new MemoryStore({ capacity: 10 });
    const set = gcraSet(1);
    for (let i = 0; i < 5; i++) store.consumeSync(set, `k${i}`, 1, T0);
    expect(store.sweep(T0 + 500)).toBe(0);
    expect(store.sweep(T0 + 1000)).toBe(5);
    expect(store.stats.size).toBe(0);
  });

  it("reports a multi-limit item as not allowed when another item of the call was denied", () => {
    const store = new MemoryStore();
    const multi = createLimitSet("multi2", [
      parseLimitSpec({ name: "a", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "b", algorithm: "fixed_window", limit: 5, periodMs: 1000 }),
    ]);
    const tight = gcraSet(1, "tight");
    store.consumeSync(tight, "k", 1, T0);
    const [dm, dt] = store.applySync(
      [
        { limits: multi, key: "k", cost: 1 },
        { limits: tight, key: "k", cost: 1 },
      ],
      "consume",
      T0,
    );
    expect(dt.allowed).toBe(false);
    expect(dm.allowed).toBe(false);
    expect(dm.policies.every((p) => p.allowed && p.remaining === 5)).toBe(true);
  });

  it("returns the lease of a lone concurrency limit so it can be released", () => {
    const store = new MemoryStore();
    const set = createLimitSet("conc", [
      parseLimitSpec({ name: "jobs", algorithm: "concurrency", limit: 1, periodMs: 60_000 }),
    ]);
    const d = store.consumeSync(set, "k", 1, T0);
    expect(d.leases?.jobs).toBeGreaterThan(0);
    expect(store.consumeSync(set, "k", 1, T0).allowed).toBe(false);
    store.releaseSync(set, "k", d.leases!, T0);
    expect(store.consumeSync(set, "k", 1, T0).allowed).toBe(true);
  });

  it("denies the second of two items on one key when the first takes what is left, as the reference store", () => {
    const one = createLimitSet("d", [
      parseLimitSpec({ name: "s", algorithm: "fixed_window", limit: 1, periodMs: 1000 }),
    ]);
    const two = createLimitSet("e", [
      parseLimitSpec({ name: "a", algorithm: "gcra", limit: 5, periodMs: 1000 }),
      parseLimitSpec({ name: "b", algorithm: "sliding_log", limit: 1, periodMs: 1000 }),
    ]);
    const calls: StoreItem[][] = [
      [
        { limits: one, key: "u", cost: 1 },
        { limits: one, key: "u", cost: 1 }, // Envoy's same descriptor sent twice
      ],
      [
        { limits: two, key: "u", cost: 1 },
        { limits: one, key: "v", cost: 1 },
        { limits: two, key: "u", cost: 1 },
        { limits: one, key: "w", cost: 2 }, // denied on its own too
      ],
    ];
    for (const items of calls) {
      const store = new MemoryStore({ capacity: 8 });
      const got = store.applySync(items, "consume", T0);
      const want = new ReferenceStore().applySync(items, "consume", T0);
      expect(got.map((d) => d.policies)).toEqual(want.map((d) => d.policies));
      expect(got.every((d) => !d.allowed)).toBe(true);
      // Nothing was written: the first item still passes alone.
      expect(store.applySync([items[0]], "consume", T0)[0].allowed).toBe(true);
    }
    const [first, second] = new MemoryStore({ capacity: 8 }).applySync(calls[0], "consume", T0);
    expect([first.policies[0].allowed, first.remaining]).toEqual([true, 1]);
    expect([second.policies[0].allowed, second.remaining, second.retryAfterMs]).toEqual([false, 0, 1000]);
  });

  it("never makes room for a call's next key by taking a slot its earlier key just got", () => {
    const set = createLimitSet("p", [
      parseLimitSpec({ name: "s", algorithm: "token_bucket", limit: 1, periodMs: 1000 }),
    ]);
    const items = [
      { limits: set, key: "x", cost: 1 },
      { limits: set, key: "y", cost: 1 },
    ];
    const store = new MemoryStore({ capacity: 2 });
    store.consumeSync(set, "z", 1, T0); // the store is full of live keys
    store.consumeSync(set, "w", 1, T0);
    const got = store.applySync(items, "consume", T0).map((d) => [d.allowed, d.remaining]);
    const want = new ReferenceStore().applySync(items, "consume", T0).map((d) => [d.allowed, d.remaining]);
    expect(got).toEqual(want);
    expect(got).toEqual([
      [true, 0],
      [true, 0],
    ]);
    // A call naming more keys than the store holds is refused, not decided on a shared slot.
    expect(() => new MemoryStore({ capacity: 1 }).applySync(items, "consume", T0)).toThrow(
      /one call names more keys than the store holds \(capacity 1\)/,
    );
  });

  it("refuses, changing nothing, a call using sets of one namespace whose states differ in size", () => {
    const log = (limit: number) =>
      createLimitSet("b", [parseLimitSpec({ name: "s", algorithm: "sliding_log", limit, periodMs: 1000 })]);
    const store = new MemoryStore();
    store.consumeSync(log(9), "x", 1, T0);
    expect(() =>
      store.applySync(
        [
          { limits: log(9), key: "x", cost: 1 },
          { limits: log(2), key: "y", cost: 1 },
        ],
        "consume",
        T0,
      ),
    ).toThrow(/items\[0\] and items\[1\] use sets of namespace "b" whose states differ in size/);
    expect(store.applySync([{ limits: log(9), key: "x", cost: 0 }], "peek", T0)[0].remaining).toBe(8);
  });

  it("applies one key named twice in a call in order, all-or-nothing", () => {
    const store = new MemoryStore();
    const set = createLimitSet("dup", [
      parseLimitSpec({ algorithm: "fixed_window", limit: 5, periodMs: 1000 }),
    ]);
    const twice = (cost: number) =>
      store.applySync(
        [
          { limits: set, key: "k", cost },
          { limits: set, key: "k", cost },
        ],
        "consume",
        T0,
      );
    expect(twice(3).map((d) => d.allowed)).toEqual([false, false]);
    expect(store.applySync([{ limits: set, key: "k", cost: 0 }], "peek", T0)[0].remaining).toBe(5);
    expect(twice(2).map((d) => d.allowed)).toEqual([true, true]);
    expect(store.applySync([{ limits: set, key: "k", cost: 0 }], "peek", T0)[0].remaining).toBe(1);
  });

  describe("bound single-limit consumer (bindSync)", () => {
    /** Every field a caller can read, `policies` included. */
    const fields = (d: Decision) => ({ ...d, policies: d.policies.map((p) => ({ ...p })) });

    /** A small deterministic generator (mulberry32), so that a failure replays. */
    function random(seed: number): () => number {
      let a = seed;
      return () => {
        a = (a + 0x6d2b79f5) | 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }

    const algorithmsUnderTest: AlgorithmId[] = [
      "gcra",
      "token_bucket",
      "leaky_bucket",
      "fixed_window",
      "sliding_window",
    ];

    for (const algorithm of algorithmsUnderTest) {
      it(`answers every field as the reference store does (${algorithm})`, () => {
        const set = createLimitSet("diff", [
          parseLimitSpec({ name: "p", algorithm, limit: 10, periodMs: 1000 }),
        ]);
        const store = new MemoryStore({ capacity: 16 });
        const reference = new ReferenceStore();
        const consume = store.bindSync(set);
        const next = random(algorithm.length * 7919);
        let now = T0;
        for (let i = 0; i < 3000; i++) {
          // mostly small steps, sometimes an idle gap (states back to fresh), sometimes a clock step back
          const r = next();
          now += r < 0.05 ? 2000 : r < 0.08 ? -30 : Math.floor(next() * 40);
          const key = `k${Math.floor(next() * 3)}`;
          // costs near the limit land in the warning hysteresis band right after a fresh state
          const cost = next() < 0.1 ? 7 + Math.floor(next() * 4) : next() < 0.05 ? 12 : 1;
          const got = consume(key, cost, now);
          const want = reference.applySync([{ limits: set, key, cost }], "consume", now)[0];
          expect(fields(got), `step ${i}: ${key} cost ${cost} at +${now - T0} ms`).toEqual(fields(want));
        }
      });
    }

    it("drops the warning flag of a state back to fresh on a denial, as the reference store does", () => {
      // Warning at T+1000 (1 left; GCRA's TAT T+1900), then a cost above the burst once the state is back to
      // fresh: denied, and the flag goes with the history. A clock then back in the hysteresis band (3 left) reads
      // "normal"; a kept flag read "warning".
      const steps = [
        { at: 1000, cost: 9 },
        { at: 1950, cost: 11 },
        { at: 1300, cost: 1 },
      ];
      const paths = {
        bindSync: (set: ReturnType<typeof gcraSet>, store: MemoryStore) => store.bindSync(set),
        consumeSync:
          (set: ReturnType<typeof gcraSet>, store: MemoryStore) => (k: string, c: number, n: number) =>
            store.consumeSync(set, k, c, n),
        bindChoiceSync: (set: ReturnType<typeof gcraSet>, store: MemoryStore) => {
          const chooser = store.bindChoiceSync([set], () => 0);
          if (chooser === undefined) throw new Error("the set qualifies");
          return (k: string, c: number, n: number) => chooser.consume(k, c, n);
        },
      };
      for (const [name, bind] of Object.entries(paths)) {
        const set = gcraSet(10, "warn");
        const store = new MemoryStore({ capacity: 4 });
        const reference = new ReferenceStore();
        const consume = bind(set, store);
        for (const { at, cost } of steps) {
          const got = consume("k", cost, T0 + at);
          const want = reference.applySync([{ limits: set, key: "k", cost }], "consume", T0 + at)[0];
          expect(fields(got), `${name} at +${at}`).toEqual(fields(want));
        }
      }
    });

    it("relies on a state back to fresh denying only a cost no state admits (retry never)", () => {
      // stepSingle asks whether a denied state is back to fresh only when the denial's retryAfterMs is Infinity.
      const out = createStepOut();
      for (const algorithm of algorithmsUnderTest) {
        for (const input of [
          { limit: 10, periodMs: 1000 },
          { limit: 3, periodMs: 1000, burst: 7 },
          { limit: 1, periodMs: 60_000 },
        ]) {
          const { burst, ...rest } = input;
          const bucket = algorithm === "gcra" || algorithm === "token_bucket" || algorithm === "leaky_bucket";
          const spec = parseLimitSpec({
            name: "p",
            algorithm,
            ...rest,
            ...(bucket && burst ? { burst } : {}),
          });
          const { apply, idleAfterMs, width } = algorithms[algorithm];
          const s = new Float64Array(width(spec));
          const next = random(input.limit * 31 + algorithm.length);
          let now = T0;
          for (let i = 0; i < 5000; i++) {
            const r = next();
            now +=
              r < 0.05
                ? 5000
                : r < 0.1
                  ? -Math.floor(next() * 300)
                  : r < 0.12
                    ? next()
                    : Math.floor(next() * 60);
            const cost = Math.floor(next() * (input.limit + (burst ?? 0) + 3));
            const fresh = idleAfterMs(s, 0, now, spec) <= 0;
            apply(s, 0, now, spec, cost, true, out);
            if (fresh && !out.allowed) expect(out.retryAfterMs, `${algorithm} ${i}`).toBe(Infinity);
          }
        }
      }
    });

    it("agrees with consumeSync and with the all-or-nothing path, warning included", () => {
      const set = () =>
        createLimitSet("same", [parseLimitSpec({ name: "p", algorithm: "gcra", limit: 10, periodMs: 1000 })]);
      const a = new MemoryStore();
      const b = new MemoryStore();
      const c = new MemoryStore();
      const sa = set();
      const sb = set();
      const sc = set();
      const bound = a.bindSync(sa);
      const costs = [9, 1, 1, 1, 5, 8, 1, 1, 1, 1, 1, 1];
      let now = T0;
      for (const cost of costs) {
        now += 50;
        const d1 = bound("k", cost, now);
        const d2 = b.consumeSync(sb, "k", cost, now);
        const d3 = c.applySync([{ limits: sc, key: "k", cost }], "consume", now)[0];
        expect(fields(d1)).toEqual(fields(d2));
        expect(fields(d1)).toEqual(fields(d3));
      }
    });

    it("keeps answering for its own set after another set of its namespace was used", () => {
      const store = new MemoryStore();
      const gcra = createLimitSet("ns", [parseLimitSpec({ algorithm: "gcra", limit: 2, periodMs: 1000 })]);
      const window = createLimitSet("ns", [
        parseLimitSpec({ algorithm: "fixed_window", limit: 5, periodMs: 1000 }),
      ]);
      const consume = store.bindSync(gcra);
      consume("k", 2, T0);
      expect(consume("k", 1, T0).allowed).toBe(false);
      // another algorithm in the namespace starts it fresh...
      expect(store.consumeSync(window, "k", 1, T0)).toMatchObject({ allowed: true, remaining: 4 });
      // ...and so does coming back to GCRA: the consumer rebinds instead of reading window state as GCRA's
      expect(consume("k", 1, T0)).toMatchObject({ allowed: true, remaining: 1 });
      expect(consume("k", 1, T0).allowed).toBe(true);
      expect(consume("k", 1, T0).allowed).toBe(false);
    });

    it("steps the shared state with its own limit while a set of the same shape is bound, as the general path does", () => {
      // Two tiers of one shape (gcra, one float) and one of another shape (token_bucket) used in turn on one
      // namespace: the bound consumers answer as the all-or-nothing path, which rebinds at every switch.
      const specs = [
        { name: "p", algorithm: "gcra", limit: 4, periodMs: 1000 },
        { name: "p", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 6 },
        { name: "p", algorithm: "token_bucket", limit: 4, periodMs: 1000 },
      ] as const;
      const store = new MemoryStore();
      const general = new MemoryStore();
      const sets = specs.map((s) => createLimitSet("tiers", [parseLimitSpec(s)]));
      const generalSets = specs.map((s) => createLimitSet("tiers", [parseLimitSpec(s)]));
      const consumers = sets.map((s) => store.bindSync(s));
      const next = random(4242);
      let now = T0;
      for (let i = 0; i < 2000; i++) {
        now += Math.floor(next() * 120);
        const tier = next() < 0.05 ? 2 : next() < 0.5 ? 1 : 0;
        const key = `k${Math.floor(next() * 3)}`;
        const cost = next() < 0.1 ? 3 : 1;
        const got = consumers[tier](key, cost, now);
        const want = general.applySync([{ limits: generalSets[tier], key, cost }], "consume", now)[0];
        expect(fields(got), `step ${i}: tier ${tier} ${key} cost ${cost}`).toEqual(fields(want));
      }
    });

    it("keeps its keys' state when a wider set of another namespace widens the shared array", () => {
      const store = new MemoryStore();
      const gcra = gcraSet(4, "narrow");
      const consume = store.bindSync(gcra);
      consume("k", 3, T0);
      const wide = createLimitSet("wide", [
        parseLimitSpec({ name: "a", algorithm: "token_bucket", limit: 5, periodMs: 1000 }),
        parseLimitSpec({ name: "b", algorithm: "sliding_window", limit: 5, periodMs: 1000 }),
      ]);
      store.consumeSync(wide, "other", 1, T0);
      expect(consume("k", 1, T0)).toMatchObject({ allowed: true, remaining: 0 });
      expect(consume("k", 1, T0).allowed).toBe(false);
    });

    describe("choice consumer (bindChoiceSync)", () => {
      const tierSpecs = [
        { name: "p", algorithm: "gcra", limit: 4, periodMs: 1000 },
        { name: "p", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 6 },
        { name: "p", algorithm: "gcra", limit: 1, periodMs: 1000 },
      ] as const;
      const setsOf = (namespace = "tiers") =>
        tierSpecs.map((s) => createLimitSet(namespace, [parseLimitSpec(s)]));

      it("steps each key under the set chosen for it, as the bound consumer of that set does", () => {
        const store = new MemoryStore({ capacity: 8 });
        const plain = new MemoryStore({ capacity: 8 });
        const plainSets = setsOf();
        const plainConsumers = plainSets.map((s) => plain.bindSync(s));
        const choiceOf = (key: string) => Number(key.slice(1)) % 3;
        const chooser = store.bindChoiceSync(setsOf(), choiceOf);
        if (chooser === undefined) throw new Error("the sets qualify");
        const next = random(99);
        let now = T0;
        // More keys than the capacity: evicted keys come back and are chosen again.
        for (let i = 0; i < 3000; i++) {
          now += Math.floor(next() * 60);
          const key = `k${Math.floor(next() * 12)}`;
          const cost = next() < 0.1 ? 3 : 1;
          const got = chooser.consume(key, cost, now);
          expect(chooser.chosen).toBe(choiceOf(key));
          const want = plainConsumers[choiceOf(key)](key, cost, now);
          expect(fields(got), `step ${i}: ${key} cost ${cost}`).toEqual(fields(want));
        }
      });

      it("asks for a key's choice when it is stored, not on later calls, and again once the key was dropped", () => {
        const store = new MemoryStore();
        const asked: string[] = [];
        const chooser = store.bindChoiceSync(setsOf(), (key) => {
          asked.push(key);
          return key === "gold" ? 1 : 0;
        });
        if (chooser === undefined) throw new Error("the sets qualify");
        chooser.consume("gold", 1, T0);
        chooser.consume("gold", 1, T0);
        chooser.consume("plain", 1, T0);
        expect(chooser.consume("gold", 1, T0)).toMatchObject({ limit: 10, remaining: 3 });
        expect(chooser.chosen).toBe(1);
        expect(chooser.consume("plain", 1, T0)).toMatchObject({ limit: 4, remaining: 2 });
        expect(chooser.chosen).toBe(0);
        expect(asked).toEqual(["gold", "plain"]);
        store.applySync([{ limits: setsOf()[0], key: "gold", cost: 0 }], "reset", T0);
        expect(chooser.consume("gold", 1, T0)).toMatchObject({ limit: 10, remaining: 5 });
        expect(asked).toEqual(["gold", "plain", "gold"]);
      });

      it("gives each consumer its own choices: a new one asks again and reads the same state", () => {
        const store = new MemoryStore();
        const first = store.bindChoiceSync(setsOf(), () => 0);
        const second = store.bindChoiceSync(setsOf(), () => 2);
        if (first === undefined || second === undefined) throw new Error("the sets qualify");
        expect(first.consume("k", 1, T0)).toMatchObject({ limit: 4, remaining: 3 });
        // the same key's state (one unit used at T0), stepped with the second consumer's choice (limit 1)
        expect(second.consume("k", 1, T0)).toMatchObject({ allowed: false, limit: 1 });
        expect(first.consume("k", 1, T0)).toMatchObject({ limit: 4, remaining: 2 });
        expect([first.chosen, second.chosen]).toEqual([0, 2]);
      });

      it("keeps consumers of equal limits apart: each counts its own namespace and reports its own policy", () => {
        // Equal limits are shared between consumers (one array of specs): that must change no count and no name.
        const store = new MemoryStore();
        const renamed = tierSpecs.map((s) => createLimitSet("other", [parseLimitSpec({ ...s, name: "q" })]));
        const consumers = [
          store.bindChoiceSync(setsOf("a"), () => 0),
          store.bindChoiceSync(setsOf("b"), () => 0),
          store.bindChoiceSync(renamed, () => 1),
        ];
        const [a, b, other] = consumers;
        if (a === undefined || b === undefined || other === undefined) throw new Error("the sets qualify");
        expect(a.consume("k", 3, T0)).toMatchObject({ policy: "p", limit: 4, remaining: 1 });
        expect(b.consume("k", 1, T0)).toMatchObject({ policy: "p", limit: 4, remaining: 3 });
        expect(other.consume("k", 1, T0)).toMatchObject({ policy: "q", limit: 10, remaining: 5 });
        expect(a.consume("k", 1, T0)).toMatchObject({ remaining: 0 });
        expect(a.consume("k", 1, T0).allowed).toBe(false);
        expect(b.consume("k", 1, T0)).toMatchObject({ allowed: true, remaining: 2 });
      });

      it("sees its table change shape under it (another algorithm took the namespace) and starts its keys fresh", () => {
        // The consumer skips reading its table while no table of the store has changed; a change to any makes it
        // look again. Here its own namespace goes to a fixed window and back, and another namespace changes too.
        const store = new MemoryStore();
        const chooser = store.bindChoiceSync(setsOf(), () => 0);
        if (chooser === undefined) throw new Error("the sets qualify");
        const window = (namespace: string) =>
          createLimitSet(namespace, [
            parseLimitSpec({ name: "p", algorithm: "fixed_window", limit: 4, periodMs: 1000 }),
          ]);
        expect(chooser.consume("k", 3, T0)).toMatchObject({ limit: 4, remaining: 1 });
        expect(chooser.consume("k", 1, T0)).toMatchObject({ remaining: 0 });
        const windowed = store.bindSync(window("tiers"));
        expect(windowed("k", 2, T0)).toMatchObject({ remaining: 2 });
        // Each shape change drops the namespace's state: the key starts fresh on either side, every time.
        expect(chooser.consume("k", 1, T0)).toMatchObject({ allowed: true, limit: 4, remaining: 3 });
        expect(windowed("k", 1, T0)).toMatchObject({ allowed: true, limit: 4, remaining: 3 });
        expect(chooser.consume("k", 1, T0)).toMatchObject({ allowed: true, limit: 4, remaining: 3 });
        expect(chooser.consume("k", 1, T0)).toMatchObject({ remaining: 2 });
        // A change elsewhere: the consumer checks its table again, finds it as it was, and keeps counting.
        store.bindSync(createLimitSet("elsewhere", [parseLimitSpec(tierSpecs[0])]))("j", 1, T0);
        store.bindSync(window("elsewhere"))("j", 1, T0);
        expect(chooser.consume("k", 1, T0)).toMatchObject({ remaining: 1 });
        expect(chooser.consume("k", 1, T0)).toMatchObject({ remaining: 0 });
      });

      it("declines sets that do not share a namespace and a one-limit shape, and rejects a choice out of range", () => {
        const store = new MemoryStore();
        const [a, b] = setsOf();
        const elsewhere = createLimitSet("other", [parseLimitSpec(tierSpecs[0])]);
        const window = createLimitSet("tiers", [
          parseLimitSpec({ name: "p", algorithm: "fixed_window", limit: 4, periodMs: 1000 }),
        ]);
        const two = createLimitSet("tiers", [
          parseLimitSpec({ name: "p", algorithm: "gcra", limit: 4, periodMs: 1000 }),
          parseLimitSpec({ name: "q", algorithm: "gcra", limit: 40, periodMs: 60_000 }),
        ]);
        expect(store.bindChoiceSync([], () => 0)).toBeUndefined();
        expect(store.bindChoiceSync([a, elsewhere], () => 0)).toBeUndefined();
        expect(store.bindChoiceSync([a, window], () => 0)).toBeUndefined();
        expect(store.bindChoiceSync([two], () => 0)).toBeUndefined();
        const chooser = store.bindChoiceSync([a, b], () => 2);
        expect(() => chooser?.consume("k", 1, T0)).toThrow(/choice 2 is not one of the 2 sets bound/);
      });
    });

    it("stores a new key through the general path and throws after close()", async () => {
      const store = new MemoryStore({ capacity: 2 });
      const consume = store.bindSync(gcraSet(2));
      expect(consume("a", 1, T0)).toMatchObject({ allowed: true, remaining: 1 });
      expect(store.stats.size).toBe(1);
      await store.close();
      expect(() => consume("a", 1, T0)).toThrow(/used after close/);
      expect(() => store.applySync([{ limits: gcraSet(2), key: "b", cost: 1 }], "consume", T0)).toThrow(
        expect.objectContaining({ code: "ERR_SLUICE_STORE_CLOSED" }),
      );
    });
  });
});

describe("memoryStore options", () => {
  const invalid = (message: string) =>
    expect.objectContaining({ code: "ERR_SLUICE_INVALID_ARGUMENT", message });

  it("refuses an unknown option, naming it and the closest known one", () => {
    expect(() => memoryStore({ capacty: 10 } as never)).toThrow(
      invalid('memoryStore: unknown option "capacty"; did you mean "capacity"?'),
    );
    expect(() => memoryStore({ size: 10 } as never)).toThrow(
      invalid(
        'memoryStore: unknown option "size"; expected one of capacity, sweepIntervalMs, clock, maxLargeStateBytes',
      ),
    );
    expect(() => memoryStore(null as never)).toThrow(
      invalid(
        "memoryStore: options must be an object of options (capacity, sweepIntervalMs, clock, maxLargeStateBytes), got null",
      ),
    );
  });

  it("quotes a string where a number belongs, and refuses a bad sweep interval or clock", () => {
    expect(() => memoryStore({ capacity: "10" as never })).toThrow(
      invalid('memoryStore: capacity must be a whole number from 1 to 2^30, got "10"'),
    );
    expect(() => memoryStore({ sweepIntervalMs: "5" as never })).toThrow(
      invalid(
        'memoryStore: sweepIntervalMs must be a number of milliseconds from 0 (no timer) to 2147483647, got "5"',
      ),
    );
    expect(() => memoryStore({ sweepIntervalMs: 2 ** 31 })).toThrow(/sweepIntervalMs must be/);
    expect(() => memoryStore({ clock: Date.now as never })).toThrow(
      invalid("memoryStore: clock must be a Clock (an object with nowMs()), got a function"),
    );
    expect(() => memoryStore({ maxLargeStateBytes: "1" as never })).toThrow(
      /maxLargeStateBytes .*, got "1"$/,
    );
    expect(
      memoryStore({ capacity: 10, sweepIntervalMs: 0, maxLargeStateBytes: Infinity }).stats.capacity,
    ).toBe(10);
  });
});

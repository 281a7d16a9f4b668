import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { createLimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";
import { SluiceError, StoreUnavailableError } from "../core/errors.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor } from "../rules/rule.js";
import { any, makeConfig, makeRules } from "../rules/testing-rules.js";
import { checkResponseOf } from "../server/check-api.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { resilientStore } from "../stores/resilient-store.js";
import { shardedStore } from "../stores/sharded-store.js";
import type { IdempotencyClaim, OnceResult, Store, StoreItem } from "../stores/store.js";
import { type CheckRequest, createEngine } from "./engine.js";

const T0 = 1_700_000_000_000;
const user = (id: string): Descriptor => [{ key: "user", value: id }];
const ip = (v: string): Descriptor => [{ key: "ip", value: v }];
const fixed = (limit: number) => [
  parseLimitSpec({ name: "m", algorithm: "fixed_window", limit, periodMs: 60_000 }),
];

/**
 * A shared store stand-in: memory state, and `applyOnce` records kept by `<first key>|<record>` (as Redis scopes
 * them by the first item's identity), checked and written in the same synchronous step as the consume.
 */
class RecordingStore extends AsyncMemoryStore {
  override readonly name = "recording";
  readonly records = new Map<string, { decisions: Decision[]; atMs: number }>();
  /** Record names refused with ERR_SLUICE_UNSUPPORTED. */
  readonly refuse = new Set<string>();
  onceCalls: string[] = [];

  applyOnce(items: readonly StoreItem[], nowMs: number, once: IdempotencyClaim): Promise<OnceResult> {
    this.onceCalls.push(once.key);
    if (this.failing) return Promise.reject(new StoreUnavailableError(this.name, "down"));
    if (this.refuse.has(once.key)) {
      return Promise.reject(new SluiceError("ERR_SLUICE_UNSUPPORTED", "spread over shards"));
    }
    const key = `${items[0].key}|${once.key}`;
    const stored = this.records.get(key);
    if (stored !== undefined) {
      return Promise.resolve({ decisions: stored.decisions, replayed: true, decidedAtMs: stored.atMs });
    }
    const decisions = this.memory.applySync(items, "consume", nowMs);
    this.records.set(key, { decisions, atMs: nowMs });
    return Promise.resolve({ decisions, replayed: false, decidedAtMs: nowMs });
  }
}

/**
 * What a first attempt of `r` that died between its store calls leaves in `store`: its user group's record (named
 * as `r` names it, at `atMs`) and its unit counted, its ip group not at all.
 */
async function userGroupOnly(store: RecordingStore, r: CheckRequest, atMs = T0): Promise<void> {
  const seed = new RecordingStore();
  await engineOn(seed).engine.check({ ...r, nowMs: atMs });
  const userRecord = [...seed.records.keys()].find((k) => k.endsWith(":0")) as string;
  store.records.set(userRecord, seed.records.get(userRecord) as { decisions: Decision[]; atMs: number });
  await engineOn(store).engine.check({ domain: r.domain, descriptors: [r.descriptors[0]], nowMs: atMs });
}

const config = makeConfig({
  rules: makeRules([
    { id: "u", domain: "a:b", match: [any("user")], limits: fixed(5), failurePolicy: "fallback" },
    { id: "i", domain: "a:b", match: [any("ip")], limits: fixed(5), failurePolicy: "fail_closed" },
  ]),
});

function engineOn(store: Store, ttlMs = 300_000) {
  const clock = new ManualClock(T0);
  const engine = createEngine({
    config,
    store,
    clock,
    scheduler: clock,
    idempotency: { ttlMs },
    failure: { timeoutMs: Number.POSITIVE_INFINITY, breaker: { failures: 100 } },
  });
  return { clock, engine };
}

describe("engine idempotency — memory store", () => {
  it("never hands a key's answer to another request: other descriptors or costs are decided and counted", async () => {
    const engine = createEngine({ config, clock: new ManualClock(T0) });
    const carol = { domain: "a:b", descriptors: [user("carol")], cost: 2, idempotencyKey: "K", nowMs: T0 };
    expect(engine.checkSync(carol)).toMatchObject({ replayed: false, decision: { remaining: 3 } });
    expect(engine.checkSync(carol).replayed).toBe(true); // its retry
    const dave = { ...carol, descriptors: [user("dave")] };
    expect(engine.checkSync(dave)).toMatchObject({ replayed: false, decision: { remaining: 3 } });
    expect(await engine.check({ ...carol, cost: 4 })).toMatchObject({ replayed: false, allowed: false });
    const probe = (id: string) =>
      engine.checkSync({ domain: "a:b", descriptors: [user(id)], cost: 0, nowMs: T0 }).decision.remaining;
    expect([probe("carol"), probe("dave")]).toEqual([3, 3]);
  });

  it("counts concurrent retries with one key once", async () => {
    const engine = createEngine({ config, clock: new ManualClock(T0) });
    const r = { domain: "a:b", descriptors: [user("1")], idempotencyKey: "k", nowMs: T0 };
    const results = await Promise.all(Array.from({ length: 20 }, () => engine.check(r)));
    expect(results.filter((x) => !x.replayed)).toHaveLength(1);
    for (const x of results) expect(x.decision.remaining).toBe(4);
    const probe = engine.checkSync({ domain: "a:b", descriptors: [user("1")], cost: 0, nowMs: T0 });
    expect(probe.decision.remaining).toBe(4);
    expect(engine.stats).toMatchObject({ checks: 21, replayed: 19, unsharedIdempotent: 0 });
  });
});

describe("engine idempotency — one request written several ways", () => {
  // A retry may be built by other code than the first attempt (a proxy, a client library): the ways of writing the
  // same request must share its record, so the retry replays instead of counting again.
  const base = { domain: "a:b", descriptors: [user("eve"), ip("y")], idempotencyKey: "k", nowMs: T0 };
  const sameAsBase: Partial<CheckRequest>[] = [
    { cost: 1 },
    { costs: [1, 1] },
    { costs: [undefined, 1] },
    { cost: 1, costs: [undefined, undefined] },
    { cost: 7, costs: [1, 1] },
    { limitOverrides: [undefined, undefined] },
    { costs: [1, undefined], limitOverrides: [undefined, undefined] },
  ];
  const probe = (engine: ReturnType<typeof engineOn>["engine"]) =>
    engine.check({ domain: "a:b", descriptors: [user("eve"), ip("y")], cost: 0, nowMs: T0 });

  it("replays every equivalent form of a request and counts it once (memory, async store)", async () => {
    for (const store of [new MemoryStore({ capacity: 100 }), new AsyncMemoryStore()]) {
      const { engine } = engineOn(store);
      expect(await engine.check(base)).toMatchObject({ replayed: false, decision: { remaining: 4 } });
      for (const form of sameAsBase) {
        const r = await engine.check({ ...base, ...form });
        expect(r, JSON.stringify(form)).toMatchObject({ replayed: true, decision: { remaining: 4 } });
      }
      expect((await probe(engine)).descriptors.map((d) => d.decision?.remaining)).toEqual([4, 4]);
      // Another effective cost, or a limit override, is another request: decided and counted.
      expect(await engine.check({ ...base, costs: [2, undefined] })).toMatchObject({ replayed: false });
      const own = { requestsPerUnit: 9, unitMs: 60_000 };
      expect(await engine.check({ ...base, limitOverrides: [undefined, own] })).toMatchObject({
        replayed: false,
      });
      expect((await probe(engine)).descriptors.map((d) => d.decision?.remaining)).toEqual([1, 3]); // the override request counted eve too
    }
  });

  it("names the same store records for every form, so another process replays them", async () => {
    const store = new RecordingStore();
    await engineOn(store).engine.check(base);
    for (const form of sameAsBase) {
      const r = await engineOn(store).engine.check({ ...base, ...form });
      expect(r, JSON.stringify(form)).toMatchObject({ replayed: true, decision: { remaining: 4 } });
    }
    expect(new Set(store.onceCalls).size).toBe(2); // one record per failure-policy group, named alike
  });
});

describe("engine idempotency — stats of a replay", () => {
  // A delayed check with a shadow descriptor over its limit, then its retry: the retry counts as the answer it
  // repeats, from the in-process record as from a store's.
  const shaped = makeConfig({
    rules: makeRules([
      {
        id: "d",
        domain: "s",
        match: [any("user")],
        behaviour: "delay",
        maxDelayMs: 5000,
        limits: [parseLimitSpec({ name: "d", algorithm: "gcra", limit: 1, periodMs: 1000 })],
      },
      { id: "w", domain: "s", match: [any("ip")], behaviour: "shadow", limits: fixed(1) },
    ]),
  });
  const r = { domain: "s", descriptors: [user("1"), ip("x")], idempotencyKey: "k", nowMs: T0 };
  const on = (store: Store) => createEngine({ config: shaped, store, clock: new ManualClock(T0) });

  it("counts a replay as delayed and shadowed as the first answer was, on every store", async () => {
    for (const store of [new MemoryStore({ capacity: 100 }), new AsyncMemoryStore(), new RecordingStore()]) {
      const engine = on(store);
      await engine.check({ ...r, idempotencyKey: undefined }); // uses the burst and the shadow limit
      const first = await engine.check(r);
      expect(first).toMatchObject({ allowed: true, delayMs: 1000, replayed: false });
      expect(first.descriptors[1].shadowed).toBe(true);
      expect(engine.stats).toMatchObject({ checks: 2, delayed: 1, shadowed: 1 });
      const again = await engine.check(r); // from the in-process record
      expect(again).toMatchObject({ replayed: true, delayMs: 1000 });
      expect(engine.stats).toMatchObject({ checks: 3, allowed: 3, delayed: 2, shadowed: 2, replayed: 1 });
      if (store instanceof RecordingStore) {
        // Another process replays from the store's records: counted alike.
        const other = on(store);
        expect(await other.check(r)).toMatchObject({ replayed: true, delayMs: 1000 });
        expect(other.stats).toMatchObject({ checks: 1, allowed: 1, delayed: 1, shadowed: 1, replayed: 1 });
      }
    }
  });
});

describe("engine idempotency — records of different domains", () => {
  it("never share a record, whatever characters the domain and the key hold (NUL included)", () => {
    const engine = createEngine({
      config: makeConfig({
        rules: makeRules([{ id: "per-user", domain: "api", match: [any("user")], limits: fixed(1) }]),
      }),
      clock: new ManualClock(T0),
    });
    expect(engine.checkSync({ domain: "api", descriptors: [user("1")] }).allowed).toBe(true);
    expect(engine.checkSync({ domain: "api", descriptors: [user("1")] }).allowed).toBe(false);
    for (let i = 0; i < 3; i++) {
      // An allowed answer of a domain without rules, recorded under (`api\0x`, `k`)...
      engine.checkSync({ domain: "api\u0000x", descriptors: [user("1")], idempotencyKey: `k${i}` });
      // ...is not the record of (`api`, `x\0k`): the check is decided, and denied.
      const r = engine.checkSync({ domain: "api", descriptors: [user("1")], idempotencyKey: `x\u0000k${i}` });
      expect([r.allowed, r.replayed]).toEqual([false, false]);
    }
  });
});

describe("engine idempotency — the first decision's instant", () => {
  /** The wire answer's absolute part (what must be byte-identical in every replay). */
  const absolute = (r: ReturnType<typeof checkResponseOf>) =>
    JSON.stringify([r.allowed, r.limit, r.remaining, r.reset_at, r.reset_at_ms, r.current_count]);

  it("replays reset_at byte-identical after the clock moved, relative fields from the first instant (memory)", async () => {
    const clock = new ManualClock(T0 + 0.5);
    const engine = createEngine({ config, clock });
    const r = { domain: "a:b", descriptors: [user("1")], idempotencyKey: "k" };
    const first = engine.checkSync(r);
    expect(first).toMatchObject({ replayed: false, decidedAtMs: T0 + 0.5 });
    const wireFirst = checkResponseOf(first, clock.nowMs());
    clock.advance(1500.25);
    const sync = engine.checkSync(r);
    const async = await engine.check(r);
    for (const replay of [sync, async]) {
      expect(replay).toMatchObject({ replayed: true, decidedAtMs: T0 + 0.5 });
      const wire = checkResponseOf(replay, clock.nowMs());
      expect(absolute(wire)).toBe(absolute(wireFirst));
      expect(wire.policies[0].reset_after_ms).toBe(wireFirst.policies[0].reset_after_ms - 1500);
      expect(wire.descriptors[0].reset_after_ms).toBe(wire.policies[0].reset_after_ms);
    }
    // A check without a key carries no instant: its durations are its own.
    const plain = engine.checkSync({ domain: "a:b", descriptors: [user("2")] });
    expect(plain.decidedAtMs).toBeUndefined();
    const wirePlain = checkResponseOf(plain, clock.nowMs());
    expect(wirePlain.reset_at_ms).toBe(Math.ceil(clock.nowMs() + wirePlain.policies[0].reset_after_ms));
  });

  it("replays a denial's retry_after from the first instant, never negative", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({ config, clock });
    for (let i = 0; i < 5; i++) engine.checkSync({ domain: "a:b", descriptors: [user("d")] });
    const r = { domain: "a:b", descriptors: [user("d")], idempotencyKey: "deny" };
    const first = checkResponseOf(engine.checkSync(r), clock.nowMs());
    expect(first).toMatchObject({ allowed: false });
    expect(first.retry_after_ms).toBeGreaterThan(2000);
    clock.advance(2000);
    const later = checkResponseOf(await engine.check(r), clock.nowMs());
    expect(later).toMatchObject({ allowed: false, replayed: true, reset_at_ms: first.reset_at_ms });
    expect(later.retry_after_ms).toBe(first.retry_after_ms - 2000);
    expect(later.retry_after).toBe(Math.ceil(later.retry_after_ms / 1000));
    clock.advance(10 * 60_000); // past the decision's retry and reset (the in-process record still holds it)
    const stale = checkResponseOf(engine.checkSync({ ...r, nowMs: T0 + 2000 }), T0 + 10 * 60_000);
    expect(stale).toMatchObject({ reset_at_ms: first.reset_at_ms, retry_after_ms: 0, retry_after: 0 });
    expect(stale.policies[0]).toMatchObject({ reset_after_ms: 0, retry_after_ms: 0 });
  });

  it("takes a store replay's instant from the store's record (the earliest of the check's records)", async () => {
    const store = new RecordingStore();
    const r = { domain: "a:b", descriptors: [user("1"), ip("x")], idempotencyKey: "k" };
    // A first attempt recorded the user group only (at T0); a retry at T0 + 100 replays it and records the ip group.
    await userGroupOnly(store, r);
    const c = engineOn(store);
    c.clock.advance(100);
    const whole = await c.engine.check(r);
    expect(whole).toMatchObject({ replayed: false, decidedAtMs: T0 + 100 }); // partly decided now
    const d = engineOn(store);
    d.clock.advance(300);
    const replay = await d.engine.check(r);
    expect(replay).toMatchObject({ replayed: true, decidedAtMs: T0 });
  });
});

describe("engine idempotency — a shared store with applyOnce", () => {
  it("names one record per failure-policy group, escaped, and replays from the store in another engine", async () => {
    const store = new RecordingStore();
    const a = engineOn(store).engine;
    const r = { domain: "a:b", descriptors: [user("1"), ip("x")], idempotencyKey: "k:%", nowMs: T0 };
    const first = await a.check(r);
    expect(first).toMatchObject({ allowed: true, replayed: false });
    // <domain>:<key>:<fingerprint of the request>:<group>
    expect(store.onceCalls.sort()).toEqual([
      expect.stringMatching(/^a%3Ab:k%3A%25:[0-9a-f]{16}:0$/),
      expect.stringMatching(/^a%3Ab:k%3A%25:[0-9a-f]{16}:1$/),
    ]);
    // Another process (no in-process record): the store replays both groups; nothing is counted.
    const b = engineOn(store).engine;
    const again = await b.check(r);
    expect(again).toMatchObject({ allowed: true, replayed: true, decision: { reason: "replay" } });
    expect(again.descriptors.map((d) => d.decision?.remaining)).toEqual([4, 4]);
    expect(b.stats).toMatchObject({ checks: 1, allowed: 1, replayed: 1 });
    // The same process answers from its own record, without a store call.
    const calls = store.onceCalls.length;
    expect((await a.check(r)).replayed).toBe(true);
    expect(store.onceCalls).toHaveLength(calls);
  });

  it("never refunds a replayed group when another group denies now", async () => {
    const store = new RecordingStore();
    const { engine } = engineOn(store);
    // A first attempt whose user group was recorded (admitted) but not its ip group (say it died in between).
    const r = { domain: "a:b", descriptors: [user("1"), ip("x")], idempotencyKey: "k", nowMs: T0 };
    const other = engineOn(store).engine;
    await userGroupOnly(store, r); // records the user group (…:0) under the user's identity
    // Exhaust the ip so the ip group denies now.
    for (let i = 0; i < 5; i++) await other.check({ domain: "a:b", descriptors: [ip("x")], nowMs: T0 });
    const result = await engine.check(r);
    expect(result.allowed).toBe(false);
    expect(result.replayed).toBe(false); // only one of two groups replayed
    const probe = await other.check({ domain: "a:b", descriptors: [user("1")], cost: 0, nowMs: T0 });
    expect(probe.decision.remaining).toBe(4); // the replayed group's unit stays with the first answer
  });

  it("replays a check one group denied as it was answered: the other group's descriptor not consumed", async () => {
    const store = new RecordingStore();
    const other = engineOn(store).engine;
    for (let i = 0; i < 5; i++) await other.check({ domain: "a:b", descriptors: [ip("x")], nowMs: T0 });
    const r = { domain: "a:b", descriptors: [user("1"), ip("x")], idempotencyKey: "k", nowMs: T0 };
    const first = await engineOn(store).engine.check(r);
    expect(first.allowed).toBe(false);
    const allowedOf = (x: typeof first) => x.descriptors.map((d) => d.decision?.allowed);
    expect(allowedOf(first)).toEqual([false, false]);
    // Another process: both groups replay from the store, and answer as the first check did.
    const again = await engineOn(store).engine.check(r);
    expect([again.allowed, again.replayed]).toEqual([false, true]);
    expect(allowedOf(again)).toEqual(allowedOf(first));
    // The user's unit was given back once, by the first check.
    const probe = await other.check({ domain: "a:b", descriptors: [user("1")], cost: 0, nowMs: T0 });
    expect(probe.decision.remaining).toBe(5);
  });

  it("falls back to a plain consume and the in-process record when the store refuses the record", async () => {
    const store = new RecordingStore();
    const { engine } = engineOn(store);
    const r = { domain: "a:b", descriptors: [user("1")], idempotencyKey: "k", nowMs: T0 };
    const seed = new RecordingStore();
    await engineOn(seed).engine.check(r); // learns the record's name: the same in every engine
    store.refuse.add(seed.onceCalls[0]);
    expect((await engine.check(r)).replayed).toBe(false);
    expect((await engine.check(r)).replayed).toBe(true);
    expect(engine.stats).toMatchObject({ unsharedIdempotent: 1, replayed: 1 });
    const probe = await engine.check({ domain: "a:b", descriptors: [user("1")], cost: 0, nowMs: T0 });
    expect(probe.decision.remaining).toBe(4);
  });

  it("answers by the failure policy when the store is down, the in-process record still replaying", async () => {
    const store = new RecordingStore();
    store.failing = true;
    const { engine } = engineOn(store);
    const r = { domain: "a:b", descriptors: [user("1")], idempotencyKey: "k", nowMs: T0 };
    const first = await engine.check(r);
    expect(first).toMatchObject({ allowed: true, replayed: false, decision: { reason: "fallback" } });
    expect(await engine.check(r)).toMatchObject({ replayed: true, decision: { remaining: 4 } });
  });
});

describe("store wrappers and applyOnce", () => {
  const limits = createLimitSet("n", fixed(5));
  const item = (key: string): StoreItem => ({ limits, key, cost: 1 });

  it("resilientStore offers applyOnce only over a store that has it, answering by policy on failure", async () => {
    expect(resilientStore(new MemoryStore({ capacity: 10 })).applyOnce).toBeUndefined();
    const inner = new RecordingStore();
    const s = resilientStore(inner, { onError: "fail_closed", timeoutMs: Number.POSITIVE_INFINITY });
    const once = { key: "r", ttlMs: 1000 };
    expect(await s.applyOnce?.([item("u")], T0, once)).toMatchObject({ replayed: false });
    expect(await s.applyOnce?.([item("u")], T0, once)).toMatchObject({ replayed: true });
    inner.failing = true;
    const failed = await s.applyOnce?.([item("u")], T0, once);
    expect(failed).toMatchObject({ replayed: false, decisions: [{ allowed: false, reason: "fail_closed" }] });
    inner.failing = false;
    inner.refuse.add("x");
    await expect(s.applyOnce?.([item("u")], T0, { key: "x", ttlMs: 1 })).rejects.toMatchObject({
      code: "ERR_SLUICE_UNSUPPORTED",
    });
    expect(s.stats.failures).toBe(1); // the refusal is the caller's, not a store failure
  });

  it("shardedStore delegates a one-shard call and refuses calls spread over shards without a ledger", async () => {
    const one = new RecordingStore();
    const two = new RecordingStore();
    const s = shardedStore({
      shards: [
        { id: "a", store: one },
        { id: "b", store: two },
      ],
    });
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const onA = keys.find((k) => s.shardFor(k) === "a") as string;
    const onB = keys.find((k) => s.shardFor(k) === "b") as string;
    const once = { key: "r", ttlMs: 1000 };
    expect(await s.applyOnce([item(onA)], T0, once)).toMatchObject({ replayed: false });
    expect(await s.applyOnce([item(onA)], T0, once)).toMatchObject({ replayed: true });
    await expect(s.applyOnce([item(onA), item(onB)], T0, once)).rejects.toMatchObject({
      code: "ERR_SLUICE_UNSUPPORTED",
    });
    const memoryShards = shardedStore({ shards: [{ id: "m", store: new MemoryStore({ capacity: 10 }) }] });
    await expect(memoryShards.applyOnce([item("u")], T0, once)).rejects.toThrow(/no shared idempotency/);
  });
});

describe("engine — in-process idempotency records bounded by bytes", () => {
  /** A request of 60 descriptors whose values are 1000 characters of `ch`, unique to `i`, with its own key. */
  const large = (i: number, ch = "x"): CheckRequest => ({
    domain: "a:b",
    descriptors: Array.from({ length: 60 }, (_, d) => user(`${i}_${d}_`.padEnd(1000, ch))),
    idempotencyKey: `key-${i}`,
  });
  const maxBytes = 1_000_000;

  it("keeps the records' estimated bytes within maxBytes on a synchronous store, the oldest dropped", () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore({ capacity: 10_000 });
    const engine = createEngine({ config, store, clock, idempotency: { maxBytes } });
    for (let i = 0; i < 40; i++) {
      expect(engine.checkSync(large(i)).replayed).toBe(false);
      expect(engine.stats.idempotencyBytes).toBeLessThanOrEqual(maxBytes);
    }
    const { idempotencyRecords: kept, idempotencyBytes: bytes } = engine.stats;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(40);
    expect(bytes).toBeGreaterThanOrEqual(kept * 60 * 1000); // each record counts at least its values' characters
    expect(engine.checkSync(large(39)).replayed).toBe(true); // the newest replays
    expect(engine.checkSync(large(0)).replayed).toBe(false); // the oldest was dropped: decided again
  });

  it("keeps them within maxBytes on an asynchronous store too", async () => {
    const clock = new ManualClock(T0);
    const store = new AsyncMemoryStore();
    const engine = createEngine({ config, store, clock, scheduler: clock, idempotency: { maxBytes } });
    for (let i = 0; i < 40; i++) {
      expect((await engine.check(large(i))).replayed).toBe(false);
      expect(engine.stats.idempotencyBytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(engine.stats.idempotencyRecords).toBeLessThan(40);
    expect((await engine.check(large(39))).replayed).toBe(true);
    expect((await engine.check(large(0))).replayed).toBe(false);
  });

  it("counts two bytes a character for values beyond Latin-1", () => {
    const engine = createEngine({
      config,
      store: new MemoryStore({ capacity: 1000 }),
      clock: new ManualClock(T0),
    });
    engine.checkSync(large(1, "é")); // Latin-1: one byte a character in V8
    const latin1 = engine.stats.idempotencyBytes;
    engine.checkSync(large(2, "€"));
    const wide = engine.stats.idempotencyBytes - latin1;
    expect(latin1).toBeGreaterThanOrEqual(60 * 1000);
    expect(wide).toBeGreaterThanOrEqual(60 * 2000);
  });

  it("keeps no record larger than maxBytes on its own: its retry is decided again", () => {
    const engine = createEngine({
      config,
      store: new MemoryStore({ capacity: 1000 }),
      clock: new ManualClock(T0),
      idempotency: { maxBytes: 10_000 },
    });
    expect(engine.checkSync(large(1)).replayed).toBe(false);
    expect(engine.checkSync(large(1)).replayed).toBe(false);
    expect(engine.stats).toMatchObject({ idempotencyRecords: 0, idempotencyBytes: 0 });
    const small = { domain: "a:b", descriptors: [user("1")], idempotencyKey: "s" };
    engine.checkSync(small);
    expect(engine.checkSync(small).replayed).toBe(true);
  });

  it("refuses an unknown idempotency option, naming the closest known one", () => {
    expect(() => createEngine({ config, idempotency: { maxByte: 1 } as never })).toThrow(
      'createEngine: unknown option "idempotency.maxByte"; did you mean "idempotency.maxBytes"?',
    );
    expect(() => createEngine({ config, idempotency: { maxBytes: 0 } })).toThrow(
      /idempotency\.maxBytes must be a whole number of bytes from 1/,
    );
  });
});

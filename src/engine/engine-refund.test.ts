import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { getSharedRedis, uniqueKeyPrefix } from "../../test/support/redis-env.js";
import { SluiceError } from "../core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor } from "../rules/rule.js";
import { any, makeConfig, makeRule } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { redisStore } from "../stores/redis/index.js";
import type { Store, StoreItem, StoreOp } from "../stores/store.js";
import { type CheckRequest, type CheckResult, createEngine, type EngineOptions } from "./engine.js";

// Engine.refund gives back what an admitted check counted, for a caller that did not proceed (forward-auth: a
// delayed request the waiting pool could not hold, or whose client went away while it waited).

const T0 = 1_700_000_000_000;
const spec = (input: LimitSpecInput) => parseLimitSpec(input);

const config = makeConfig({
  rules: [
    // 1 per second, one at a time, waits of up to 10 s.
    makeRule({
      id: "shaped",
      domain: "api",
      match: [any("user")],
      behaviour: "delay",
      maxDelayMs: 10_000,
      limits: [spec({ name: "per-second", algorithm: "gcra", limit: 1, periodMs: 1000, burst: 1 })],
    }),
    makeRule({
      id: "per-ip",
      domain: "api",
      match: [any("ip")],
      limits: [spec({ name: "per-minute", algorithm: "fixed_window", limit: 3, periodMs: 60_000 })],
    }),
    makeRule({
      id: "trial",
      domain: "api",
      match: [any("plan")],
      behaviour: "shadow",
      limits: [spec({ name: "trial", algorithm: "fixed_window", limit: 5, periodMs: 60_000 })],
    }),
    makeRule({
      id: "dyn",
      domain: "api",
      match: [any("tenant")],
      limits: [spec({ name: "rate", algorithm: "gcra", limit: 10, periodMs: 1000 })],
      dynamic: { windowMs: 10_000, recentWeight: 0.75, multiplier: 1.5 },
    }),
    makeRule({
      id: "open",
      domain: "api",
      match: [any("key")],
      failurePolicy: "fail_open",
      limits: [spec({ name: "per-minute", algorithm: "fixed_window", limit: 3, periodMs: 60_000 })],
    }),
    makeRule({
      id: "device",
      domain: "api",
      match: [any("device")],
      mode: "local",
      limits: [spec({ name: "per-minute", algorithm: "fixed_window", limit: 3, periodMs: 60_000 })],
    }),
  ],
});

const of = (key: string, value: string): Descriptor => [{ key, value }];

const STORES: readonly [string, () => Store][] = [
  ["memory (synchronous path)", () => new MemoryStore({ capacity: 100 })],
  ["async store", () => new AsyncMemoryStore()],
];

describe.each(STORES)("engine.refund (%s)", (_name, makeStore) => {
  function setup(options: Partial<EngineOptions> = {}) {
    const clock = new ManualClock(T0);
    const store = makeStore();
    const engine = createEngine({ config, store, clock, scheduler: clock, ...options });
    const check = (descriptors: Descriptor[], extra: Partial<CheckRequest> = {}) => {
      const request: CheckRequest = { domain: "api", descriptors, ...extra };
      return engine.check(request).then((result) => ({ request, result }));
    };
    return { clock, store, engine, check };
  }

  it("gives a delayed admission's reservation back: the next request waits as if it had never come", async () => {
    const { engine, check } = setup();
    expect((await check([of("user", "bob")])).result.delayMs).toBe(0);
    expect((await check([of("user", "bob")])).result.delayMs).toBe(1000);
    // Refused (or gone) before its turn: refunded, the one after it waits 2 s, not 3.
    const third = await check([of("user", "bob")]);
    expect(third.result.delayMs).toBe(2000);
    expect(await engine.refund(third.request, third.result)).toBe(1);
    expect((await check([of("user", "bob")])).result.delayMs).toBe(2000);
    // Another key is untouched.
    expect((await check([of("user", "ann")])).result.delayMs).toBe(0);
  });

  it("refunds every counted descriptor of the request, shadow ones included, and nothing of a denied one", async () => {
    const { engine, check } = setup();
    const both = [of("ip", "192.0.2.1"), of("plan", "free")];
    const first = await check(both);
    expect(first.result.allowed).toBe(true);
    expect(await engine.refund(first.request, first.result)).toBe(2);
    const again = await check(both);
    expect(again.result.descriptors.map((d) => d.decision?.remaining)).toEqual([2, 4]);
    await check(both);
    await check(both);
    const denied = await check(both);
    expect(denied.result.allowed).toBe(false);
    expect(await engine.refund(denied.request, denied.result)).toBe(0);
    expect((await check([of("ip", "192.0.2.1")])).result.allowed).toBe(false);
  });

  it("gives a dynamic rule's traffic counters back with it", async () => {
    const { engine, check, store } = setup();
    const first = await check([of("tenant", "t1")]);
    expect(first.result.decision.remaining).toBe(9);
    expect(await engine.refund(first.request, first.result)).toBe(1);
    if (store instanceof AsyncMemoryStore) {
      const refund = store.calls.find((c) => c.op === "refund");
      expect(refund?.items.length).toBe(3); // the limit, then its two traffic counters
    }
    expect((await check([of("tenant", "t1")], { cost: 0 })).result.decision.remaining).toBe(10);
  });

  it("refunds nothing for a replay: its units belong to the first answer", async () => {
    const { engine, check } = setup();
    const first = await check([of("ip", "192.0.2.2")], { idempotencyKey: "k" });
    const replay = await check([of("ip", "192.0.2.2")], { idempotencyKey: "k" });
    expect(replay.result.replayed).toBe(true);
    expect(await engine.refund(replay.request, replay.result)).toBe(0);
    expect((await check([of("ip", "192.0.2.2")], { cost: 0 })).result.decision.remaining).toBe(2);
    expect(first.result.replayed).toBe(false);
  });

  it("moves a refunded admission from allowed (and delayed) to refunded in the stats, once per answer", async () => {
    const { engine, check } = setup();
    const first = await check([of("user", "bob")]);
    const second = await check([of("user", "bob")]); // waits 1 s
    expect(second.result.delayMs).toBe(1000);
    expect(engine.stats).toMatchObject({ checks: 2, allowed: 2, denied: 0, delayed: 1, refunded: 0 });
    expect(await engine.refund(second.request, second.result)).toBe(1);
    expect(engine.stats).toMatchObject({ checks: 2, allowed: 1, denied: 0, delayed: 0, refunded: 1 });
    // The same answer given back again moves nothing more (and gives nothing back).
    expect(await engine.refund(second.request, second.result)).toBe(0);
    expect(engine.stats).toMatchObject({ checks: 2, allowed: 1, denied: 0, delayed: 0, refunded: 1 });
    // An undelayed admission leaves `delayed` alone.
    await engine.refund(first.request, first.result);
    expect(engine.stats).toMatchObject({ checks: 2, allowed: 0, denied: 0, delayed: 0, refunded: 2 });
    // A denied answer stays denied.
    const ip = [of("ip", "192.0.2.9")];
    for (let i = 0; i < 3; i++) await check(ip);
    const denied = await check(ip);
    expect(denied.result.allowed).toBe(false);
    await engine.refund(denied.request, denied.result);
    expect(engine.stats).toMatchObject({ checks: 6, allowed: 3, denied: 1, delayed: 0, refunded: 2 });
    // A refund the engine refuses (not the request's answer) counts nothing.
    const other = await check([of("ip", "192.0.2.10")]);
    await expect(engine.refund({ domain: "api", descriptors: [] }, other.result)).rejects.toThrow(/result/);
    expect(engine.stats).toMatchObject({ checks: 7, allowed: 4, denied: 1, refunded: 2 });
  });

  it("gives an answer's units back once: a second refund of it gives nothing back and resolves 0", async () => {
    const { engine, check } = setup();
    await check([of("user", "bob")]);
    expect((await check([of("user", "bob")])).result.delayMs).toBe(1000);
    const third = await check([of("user", "bob")]);
    expect(third.result.delayMs).toBe(2000);
    expect(await engine.refund(third.request, third.result)).toBe(1);
    // A retried refund (or a second code path refunding the same answer) must not give its reservation back again:
    // the next request still waits 2 s, not 1 s.
    expect(await engine.refund(third.request, third.result)).toBe(0);
    expect((await check([of("user", "bob")])).result.delayMs).toBe(2000);
    expect(engine.stats).toMatchObject({ checks: 4, allowed: 3, refunded: 1 });
  });

  it("gives an answer back once when two refunds of it start before either settles", async () => {
    const { engine, check, store } = setup();
    await check([of("user", "bob")]);
    await check([of("user", "bob")]);
    const third = await check([of("user", "bob")]);
    const counted = store instanceof AsyncMemoryStore ? store.calls.length : 0;
    const both = [engine.refund(third.request, third.result), engine.refund(third.request, third.result)];
    expect(await Promise.all(both)).toEqual([1, 0]);
    if (store instanceof AsyncMemoryStore) {
      expect(store.calls.slice(counted).map((c) => c.op)).toEqual(["refund"]);
    }
    expect((await check([of("user", "bob")])).result.delayMs).toBe(2000);
  });

  it("gives back once what a denied answer counted (counting each), its stats untouched", async () => {
    const { engine, check } = setup({ counting: "each" });
    const ip = of("ip", "192.0.2.30");
    for (let i = 0; i < 3; i++) await check([ip]);
    const mixed = await check([of("tenant", "t2"), ip]);
    expect(mixed.result.allowed).toBe(false);
    expect(mixed.result.descriptors[0].decision?.remaining).toBe(9); // counted: each descriptor on its own
    expect(await engine.refund(mixed.request, mixed.result)).toBe(1);
    expect(await engine.refund(mixed.request, mixed.result)).toBe(0);
    // Back to 10 once; a second give-back would not show (never above the fresh state), so spend one first.
    await check([of("tenant", "t2")]);
    expect((await check([of("tenant", "t2")], { cost: 0 })).result.decision.remaining).toBe(9);
    expect(engine.stats).toMatchObject({ checks: 6, allowed: 5, denied: 1, refunded: 0 });
  });

  it("counts a refunded replay as refunded, though its units belong to the first answer", async () => {
    const { engine, check } = setup();
    await check([of("ip", "192.0.2.4")], { idempotencyKey: "k" });
    const replay = await check([of("ip", "192.0.2.4")], { idempotencyKey: "k" });
    expect(await engine.refund(replay.request, replay.result)).toBe(0);
    expect(engine.stats).toMatchObject({ checks: 2, replayed: 1, allowed: 1, denied: 0, refunded: 1 });
  });

  it("refuses a result that is not the request's answer", async () => {
    const { engine, check } = setup();
    const { result } = await check([of("ip", "192.0.2.3")]);
    await expect(
      engine.refund({ domain: "api", descriptors: [of("ip", "a"), of("ip", "b")] }, result),
    ).rejects.toMatchObject({
      code: "ERR_SLUICE_INVALID_ARGUMENT",
      message: expect.stringMatching(/^refund: result must be the answer to the request's check/),
    });
    await expect(engine.refund({ domain: "", descriptors: [] }, result)).rejects.toThrow(/domain/);
  });
});

/**
 * An asynchronous store whose refunds reject while `refusing` is set, as a closed store's calls do
 * (`ERR_SLUICE_STORE_CLOSED`: a caller error, which the engine's failure wrapper passes on instead of answering by
 * the failure policy).
 */
class RefundRefusingStore extends AsyncMemoryStore {
  refusing = false;

  override apply(items: readonly StoreItem[], op: StoreOp, nowMs: number) {
    if (op !== "refund" || !this.refusing) return super.apply(items, op, nowMs);
    this.calls.push({ items, op });
    return Promise.reject(new SluiceError("ERR_SLUICE_STORE_CLOSED", "refund: the store is closed"));
  }
}

describe("engine.refund whose store call rejects", () => {
  it("gives back on a later refund what the rejected call did not, and nothing twice", async () => {
    const clock = new ManualClock(T0);
    const store = new RefundRefusingStore();
    const engine = createEngine({ config, store, clock, scheduler: clock });
    // A shared counter (ip) and an in-process one (device, mode local): one store call each.
    const descriptors = [of("ip", "192.0.2.40"), of("device", "d1")];
    const peek = async () =>
      (await engine.check({ domain: "api", descriptors, cost: 0 })).descriptors.map(
        (d) => d.decision?.remaining,
      );
    await engine.check({ domain: "api", descriptors: [of("device", "d1")] });
    const request: CheckRequest = { domain: "api", descriptors };
    const result = await engine.check(request);
    expect(result.descriptors.map((d) => d.decision?.remaining)).toEqual([2, 1]);
    store.refusing = true;
    await expect(engine.refund(request, result)).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
    // The in-process (local) counter got its unit back; the shared one did not.
    expect(await peek()).toEqual([2, 2]);
    store.refusing = false;
    // A retry gives back the shared descriptor only: the local one went back already.
    expect(await engine.refund(request, result)).toBe(1);
    expect(await peek()).toEqual([3, 2]);
    expect(await engine.refund(request, result)).toBe(0);
    expect(engine.stats).toMatchObject({ refunded: 1 });
  });
});

describe("engine.refund with a store that is down", () => {
  it("gives nothing back for a descriptor fail_open let through: it counted nothing", async () => {
    const clock = new ManualClock(T0);
    const store = new AsyncMemoryStore();
    const engine = createEngine({ config, store, clock, scheduler: clock });
    const request: CheckRequest = { domain: "api", descriptors: [of("key", "k")] };
    store.failing = true;
    const result: CheckResult = await engine.check(request);
    expect(result.decision.reason).toBe("fail_open");
    store.failing = false;
    const calls = store.calls.length;
    expect(await engine.refund(request, result)).toBe(0);
    expect(store.calls.length).toBe(calls);
    // Nothing went back, but the caller did not proceed: the stats say so.
    expect(engine.stats).toMatchObject({ checks: 1, allowed: 0, denied: 0, refunded: 1 });
  });
});

describe("engine.refund on Redis", () => {
  const clients: Redis[] = [];
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });

  it("gives a delayed admission's reservation back through the store's script", async () => {
    const client = new Redis((await getSharedRedis()).url);
    clients.push(client);
    const clock = new ManualClock(T0);
    const store = redisStore({ client, prefix: uniqueKeyPrefix("engine-refund"), clock: "client" });
    const engine = createEngine({ config, store, clock, scheduler: clock });
    const check = (user: string) => {
      const request: CheckRequest = { domain: "api", descriptors: [of("user", user)] };
      return engine.check(request).then((result) => ({ request, result }));
    };
    expect((await check("bob")).result.delayMs).toBe(0);
    const second = await check("bob");
    expect(second.result.delayMs).toBe(1000);
    expect(await engine.refund(second.request, second.result)).toBe(1);
    expect((await check("bob")).result.delayMs).toBe(1000);
    await engine.close();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import type { Clock, Scheduler } from "../core/clock.js";
import type { Decision } from "../core/decision.js";
import { ConfigError, InvalidArgumentError, StoreUnavailableError } from "../core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { createLimiter } from "../engine/limiter.js";
import { MemoryStore } from "./memory/memory-store.js";
import {
  type BreakerStateChange,
  type ResilientOptions,
  ResilientStore,
  resilientStore,
} from "./resilient-store.js";
import type { CallTicket, Store, StoreItem, StoreOp } from "./store.js";

const T0 = 1_700_000_000_000;

type Mode = "ok" | "fail" | "hang" | "caller_error";

/** A store that delegates to a MemoryStore and can be told to fail, hang (until settled) or recover. */
class FlakyStore implements Store {
  readonly name = "flaky";
  readonly shared = true;
  readonly memory = new MemoryStore({ capacity: 1000 });
  mode: Mode = "ok";
  applyCalls = 0;
  releaseCalls = 0;
  closed = false;
  readonly hung: { resolve: () => void; reject: (error: unknown) => void }[] = [];

  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    this.applyCalls++;
    return this.#outcome(() => this.memory.applySync(items, op, nowMs));
  }

  release(limits: LimitSet, key: string, leases: Readonly<Record<string, number>>, nowMs: number) {
    this.releaseCalls++;
    return this.#outcome(() => this.memory.releaseSync(limits, key, leases, nowMs));
  }

  close(): Promise<void> {
    this.closed = true;
    return this.memory.close();
  }

  /** Answers every hung call, late: with its result, or with an error. */
  settleHung(how: "resolve" | "reject"): void {
    for (const h of this.hung.splice(0)) {
      if (how === "resolve") h.resolve();
      else h.reject(new StoreUnavailableError(this.name, "late failure"));
    }
  }

  #outcome<T>(run: () => T): Promise<T> {
    switch (this.mode) {
      case "ok":
        return Promise.resolve(run());
      case "fail":
        return Promise.reject(new StoreUnavailableError(this.name, "connection refused"));
      case "caller_error":
        return Promise.reject(new InvalidArgumentError("flaky: key is not acceptable"));
      case "hang":
        return new Promise<T>((resolve, reject) => {
          this.hung.push({ resolve: () => resolve(run()), reject });
        });
    }
  }
}

/**
 * The same store answering through {@link Store.applyTo} callbacks (as the Redis store does), so that every test
 * below also covers the wrapper's callback path: a synchronous throw of `apply` becomes a synchronous throw of
 * `applyTo`, a rejection an `onError`.
 */
class CallbackFlakyStore extends FlakyStore {
  applyToCalls = 0;
  /** The ticket each applyTo call was given. */
  readonly tickets: (CallTicket | undefined)[] = [];

  applyTo(
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
    onDecisions: (decisions: Decision[]) => void,
    onError: (error: unknown) => void,
    ticket?: CallTicket,
  ): void {
    this.applyToCalls++;
    this.tickets.push(ticket);
    this.apply(items, op, nowMs).then(onDecisions, onError);
  }
}

/** Which inner store `setup` makes (set per run of the suite below). */
let innerKind: "apply" | "applyTo" = "apply";

const setOf = (namespace: string, ...specs: LimitSpecInput[]): LimitSet =>
  createLimitSet(
    namespace,
    specs.map((s) => parseLimitSpec(s)),
  );

const PER_SECOND = setOf("api", { name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 });

/** Lets pending promise callbacks and any `unhandledRejection` event run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", onUnhandled);
});

afterEach(async () => {
  await flush();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

function setup({
  schedulerOf = (clock: ManualClock): Scheduler => clock,
  ...options
}: ResilientOptions & { schedulerOf?: (clock: ManualClock) => Scheduler } = {}) {
  const clock = new ManualClock(T0);
  const inner = innerKind === "apply" ? new FlakyStore() : new CallbackFlakyStore();
  const changes: BreakerStateChange[] = [];
  const store = resilientStore(inner, {
    clock,
    scheduler: schedulerOf(clock),
    onStateChange: (c) => changes.push(c),
    ...options,
  });
  const consume = async (key = "k", cost = 1, set = PER_SECOND): Promise<Decision> =>
    (await store.apply([{ limits: set, key, cost }], "consume", clock.nowMs()))[0];
  return { clock, inner, store, changes, consume };
}

describe.each(["apply", "applyTo"] as const)("resilientStore (inner store answering by %s)", (kind) => {
  beforeEach(() => {
    innerKind = kind;
  });

  it("calls the inner store's applyTo when it has one, else its apply", async () => {
    const { inner, consume } = setup();
    expect((await consume()).allowed).toBe(true);
    expect(inner.applyCalls).toBe(1);
    expect(inner instanceof CallbackFlakyStore ? inner.applyToCalls : 0).toBe(kind === "applyTo" ? 1 : 0);
  });

  it("passes calls through to a healthy store, reason store, and cancels its timeout timer", async () => {
    const { clock, inner, store, consume } = setup();
    expect(await consume()).toMatchObject({ allowed: true, remaining: 9, reason: "store" });
    expect(inner.applyCalls).toBe(1);
    expect(clock.pendingSleeps).toBe(0);
    expect(store.stats).toEqual({
      state: "closed",
      storeCalls: 1,
      failures: 0,
      timeouts: 0,
      queueTimeouts: 0,
      failOpen: 0,
      failClosed: 0,
      fallback: 0,
      breakerOpened: 0,
      shortCircuited: 0,
      releasesDropped: 0,
    });
  });

  it("fail_open: allows with remaining = limit for every limit, reason fail_open", async () => {
    const { inner, store, consume } = setup({ onError: "fail_open" });
    inner.mode = "fail";
    const both = setOf(
      "two",
      { name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 },
      { name: "per-day", algorithm: "fixed_window", limit: 500, periodMs: 86_400_000 },
    );
    const d = await consume("k", 1, both);
    expect(d).toMatchObject({ allowed: true, reason: "fail_open", state: "normal", retryAfterMs: 0 });
    expect(d.policies.map((p) => [p.policy, p.allowed, p.remaining, p.limit])).toEqual([
      ["per-second", true, 10, 10],
      ["per-day", true, 500, 500],
    ]);
    expect(store.stats).toMatchObject({ storeCalls: 1, failures: 1, failOpen: 1, fallback: 0 });
  });

  it("fail_closed: denies as throttled, retryAfterMs = timeout while closed, = next probe while open", async () => {
    const { clock, inner, store, consume } = setup({
      onError: "fail_closed",
      timeoutMs: 50,
      breaker: { failures: 2, openMs: 1000 },
    });
    inner.mode = "fail";
    expect(await consume()).toMatchObject({
      allowed: false,
      remaining: 0,
      state: "throttled",
      reason: "fail_closed",
      retryAfterMs: 50,
      limit: 10,
      policy: "per-second",
    });
    expect(await consume()).toMatchObject({ allowed: false, reason: "fail_closed", retryAfterMs: 1000 });
    expect(store.state).toBe("open");
    clock.advance(300);
    expect(await consume()).toMatchObject({ allowed: false, reason: "fail_closed", retryAfterMs: 700 });
    expect(store.stats).toMatchObject({ failures: 2, failClosed: 3, shortCircuited: 1 });
  });

  it("fallback (the default): keeps limiting with a local store, reason fallback", async () => {
    const { inner, store, consume } = setup();
    inner.mode = "fail";
    const decisions = [];
    for (let i = 0; i < 12; i++) decisions.push(await consume());
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.every((d) => d.reason === "fallback")).toBe(true);
    expect(decisions[10]).toMatchObject({ allowed: false, state: "throttled", retryAfterMs: 100, limit: 10 });
    expect(store.stats).toMatchObject({ fallback: 12, failures: 5, breakerOpened: 1, shortCircuited: 7 });
    // the inner store's own state was never touched
    expect(inner.memory.stats.size).toBe(0);
  });

  it("fallback share: limit 100 with share 0.25 allows 25 locally (burst scaled too; windows round down)", async () => {
    const { inner, consume } = setup({ fallbackShare: 0.25 });
    inner.mode = "fail";
    const hundred = setOf("h", { name: "per-second", algorithm: "gcra", limit: 100, periodMs: 1000 });
    let allowed = 0;
    for (let i = 0; i < 40; i++) if ((await consume("k", 1, hundred)).allowed) allowed++;
    expect(allowed).toBe(25);
    expect(await consume("k", 1, hundred)).toMatchObject({ limit: 25, reason: "fallback" });

    const bursty = setOf("b", { algorithm: "token_bucket", limit: 100, burst: 200, periodMs: 1000 });
    allowed = 0;
    for (let i = 0; i < 80; i++) if ((await consume("k", 1, bursty)).allowed) allowed++;
    expect(allowed).toBe(50);

    const windowed = setOf("w", { algorithm: "fixed_window", limit: 10, periodMs: 1000 });
    allowed = 0;
    for (let i = 0; i < 10; i++) if ((await consume("k", 1, windowed)).allowed) allowed++;
    expect(allowed).toBe(2); // floor(2.5)

    const tiny = setOf("t", { algorithm: "sliding_window", limit: 3, periodMs: 1000 });
    allowed = 0;
    for (let i = 0; i < 5; i++) if ((await consume("k", 1, tiny)).allowed) allowed++;
    expect(allowed).toBe(1); // never below 1
  });

  // The scheduler's cheap `timer` when it has one; `sleep` aborted through an AbortSignal when it has only that.
  it.each([
    ["a scheduler with timer", (clock: ManualClock): Scheduler => clock],
    [
      "a scheduler with only sleep",
      (clock: ManualClock): Scheduler & Clock => ({
        sleep: (ms, signal) => clock.sleep(ms, signal),
        nowMs: () => clock.nowMs(),
      }),
    ],
  ])(
    "times out each of many overlapping calls at its own deadline, with one timer at a time (%s)",
    async (_name, schedulerOf) => {
      const { clock, inner, store, consume } = setup({
        onError: "fail_open",
        timeoutMs: 50,
        breaker: { failures: 1000 },
        schedulerOf,
      });
      inner.mode = "hang";
      const done: number[] = [];
      // Calls issued at 0, 10, 20, 30 ms; the one issued at 10 ms is answered at 25 ms.
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 4; i++) {
        const issued = i * 10;
        calls.push(consume(`k${i}`).then((d) => done.push(issued) && d));
        await flush();
        expect(clock.pendingSleeps).toBe(1);
        if (i < 3) clock.advance(10);
      }
      // now 30
      expect(done).toEqual([]);
      inner.hung[1].resolve(); // answered in time
      await flush();
      expect(done).toEqual([10]);
      clock.advance(19); // 49: nothing due yet
      await flush();
      expect(done).toEqual([10]);
      clock.advance(1); // 50: the first call's deadline
      await flush();
      expect(done).toEqual([10, 0]);
      expect(clock.pendingSleeps).toBe(1);
      clock.advance(20); // 70: the third (issued at 20)
      await flush();
      expect(done).toEqual([10, 0, 20]);
      clock.advance(9);
      await flush();
      expect(done).toEqual([10, 0, 20]);
      clock.advance(1); // 80: the last
      await flush();
      expect(done).toEqual([10, 0, 20, 30]);
      await Promise.all(calls);
      expect(clock.pendingSleeps).toBe(0); // nothing pending: no timer left
      expect(store.stats).toMatchObject({ storeCalls: 4, failures: 3, timeouts: 3, failOpen: 3 });
      inner.settleHung("reject"); // late answers are ignored, their errors handled
      await flush();
    },
  );

  it("times out a hung call, applies the policy, and ignores the late answer without unhandled rejections", async () => {
    const { clock, inner, store, consume } = setup({ onError: "fail_open", timeoutMs: 50 });
    inner.mode = "hang";
    let answered = false;
    const pending = consume().then((d) => {
      answered = true;
      return d;
    });
    await flush();
    clock.advance(49);
    await flush();
    expect(answered).toBe(false);
    clock.advance(1);
    expect(await pending).toMatchObject({ allowed: true, reason: "fail_open" });
    expect(store.stats).toMatchObject({ storeCalls: 1, failures: 1, timeouts: 1, failOpen: 1 });

    // a second hung call; then both answer late, one with an error, one with a result
    const second = consume();
    clock.advance(50);
    expect((await second).reason).toBe("fail_open");
    const [late1, late2] = inner.hung;
    late1.reject(new StoreUnavailableError("flaky", "late failure"));
    late2.resolve();
    await flush();
    expect(unhandled).toEqual([]);
    expect(store.stats).toMatchObject({ failures: 2, timeouts: 2 });
  });

  it("opens the breaker after N consecutive failures and stops calling the inner store", async () => {
    const { inner, store, changes, consume } = setup({ breaker: { failures: 3, openMs: 1000 } });
    // a success in between resets the count
    inner.mode = "fail";
    await consume();
    await consume();
    inner.mode = "ok";
    await consume();
    inner.mode = "fail";
    await consume();
    await consume();
    expect(store.state).toBe("closed");
    await consume();
    expect(store.state).toBe("open");
    expect(inner.applyCalls).toBe(6);
    for (let i = 0; i < 10; i++) await consume();
    expect(inner.applyCalls).toBe(6);
    expect(store.stats).toMatchObject({ breakerOpened: 1, failures: 5, shortCircuited: 10 });
    expect(changes).toEqual([
      expect.objectContaining({
        from: "closed",
        to: "open",
        atMs: T0,
        error: expect.any(StoreUnavailableError),
      }),
    ]);
  });

  it("lets one half-open probe through after openMs: failure re-opens, success closes", async () => {
    const { clock, inner, store, changes, consume } = setup({
      onError: "fail_closed",
      breaker: { failures: 1, openMs: 1000 },
    });
    inner.mode = "fail";
    await consume();
    expect(store.state).toBe("open");
    clock.advance(999);
    await consume();
    expect(inner.applyCalls).toBe(1);

    clock.advance(1); // probe due; the store is still down
    expect(await consume()).toMatchObject({ reason: "fail_closed", retryAfterMs: 1000 });
    expect(inner.applyCalls).toBe(2);
    expect(store.state).toBe("open");

    clock.advance(1000);
    inner.mode = "hang"; // a slow probe: other calls do not pile onto the store meanwhile
    const probe = consume();
    expect(store.state).toBe("half_open");
    expect(await consume()).toMatchObject({ reason: "fail_closed" });
    expect(inner.applyCalls).toBe(3);
    inner.mode = "ok";
    inner.settleHung("resolve");
    expect(await probe).toMatchObject({ allowed: true, reason: "store" });
    expect(store.state).toBe("closed");
    expect(await consume()).toMatchObject({ allowed: true, reason: "store" });
    expect(inner.applyCalls).toBe(4);

    expect(changes.map((c) => `${c.from}>${c.to}@${c.atMs - T0}`)).toEqual([
      "closed>open@0",
      "open>half_open@1000",
      "half_open>open@1000",
      "open>half_open@2000",
      "half_open>closed@2000",
    ]);
    expect(store.stats).toMatchObject({ breakerOpened: 2, failures: 2 });
  });

  it("re-opens when the probe times out", async () => {
    const { clock, inner, store, consume } = setup({ timeoutMs: 50, breaker: { failures: 1, openMs: 1000 } });
    inner.mode = "fail";
    await consume();
    clock.advance(1000);
    inner.mode = "hang";
    const probe = consume();
    clock.advance(50);
    expect((await probe).reason).toBe("fallback");
    expect(store.state).toBe("open");
    expect(store.stats).toMatchObject({ breakerOpened: 2, timeouts: 1 });
    inner.settleHung("resolve"); // the late success does not close the breaker
    await flush();
    expect(store.state).toBe("open");
  });

  it("rethrows caller errors untouched and never counts them as store failures", async () => {
    const { inner, store, consume } = setup({ breaker: { failures: 1 } });
    inner.mode = "caller_error";
    for (let i = 0; i < 3; i++) {
      await expect(consume()).rejects.toMatchObject({ code: "ERR_SLUICE_INVALID_ARGUMENT" });
    }
    inner.apply = () =>
      Promise.reject(new ConfigError("ERR_SLUICE_INVALID_LIMIT", [{ path: "x", message: "bad" }]));
    await expect(consume()).rejects.toBeInstanceOf(ConfigError);
    inner.apply = () => {
      throw new InvalidArgumentError("thrown synchronously");
    };
    await expect(consume()).rejects.toThrow(/thrown synchronously/);
    expect(store.state).toBe("closed");
    expect(store.stats).toMatchObject({ failures: 0, fallback: 0, breakerOpened: 0 });
  });

  it("treats a synchronous throw of a non-caller error as a failure", async () => {
    const { inner, store, consume } = setup({ onError: "fail_open" });
    inner.apply = () => {
      throw new Error("socket destroyed");
    };
    expect(await consume()).toMatchObject({ allowed: true, reason: "fail_open" });
    expect(store.stats.failures).toBe(1);
  });

  it("release never throws for a dead store: failures, timeouts and open breaker are counted and dropped", async () => {
    const { clock, inner, store } = setup({ timeoutMs: 50, breaker: { failures: 2, openMs: 1000 } });
    const release = () => store.release(PER_SECOND, "k", { "per-second": 1 }, clock.nowMs());
    inner.mode = "fail";
    await expect(release()).resolves.toBeUndefined();
    inner.mode = "hang";
    const hung = release();
    clock.advance(50);
    await expect(hung).resolves.toBeUndefined();
    expect(store.state).toBe("open");
    await expect(release()).resolves.toBeUndefined();
    expect(inner.releaseCalls).toBe(2);
    expect(store.stats).toMatchObject({
      storeCalls: 2,
      failures: 2,
      timeouts: 1,
      releasesDropped: 3,
      shortCircuited: 1,
    });
    inner.settleHung("reject");
  });

  it("releases a lease granted by the fallback store locally", async () => {
    const { clock, inner, store, consume } = setup();
    const inFlight = setOf("c", { name: "in-flight", algorithm: "concurrency", limit: 1, periodMs: 30_000 });
    inner.mode = "fail";
    const first = await consume("k", 1, inFlight);
    expect(first).toMatchObject({ allowed: true, reason: "fallback" });
    expect(first.leases?.["in-flight"]).toBeLessThan(0); // a fallback lease: its id negated
    expect((await consume("k", 1, inFlight)).allowed).toBe(false);
    await store.release(inFlight, "k", first.leases ?? {}, clock.nowMs());
    expect(await consume("k", 1, inFlight)).toMatchObject({ allowed: true, reason: "fallback" });
  });

  it("a fallback lease and a store lease of one key, taken in the same millisecond: each release frees its own", async () => {
    const { clock, inner, store, consume } = setup();
    const inFlight = setOf("c", { name: "in-flight", algorithm: "concurrency", limit: 2, periodMs: 30_000 });
    inner.mode = "fail";
    const a = await consume("k", 1, inFlight); // the fallback store's lease
    inner.mode = "ok";
    const b = await consume("k", 1, inFlight); // the shared store's, the same millisecond
    expect([a.reason, b.reason]).toEqual(["fallback", "store"]);
    // Both stores seed ids from the clock: the same number, told apart by its sign.
    expect(-(a.leases?.["in-flight"] ?? 0)).toBe(b.leases?.["in-flight"]);
    await store.release(inFlight, "k", a.leases ?? {}, clock.nowMs());
    // b still holds its lease on the shared store: one more fits under the limit of 2, not two.
    expect((await consume("k", 1, inFlight)).allowed).toBe(true);
    expect(await consume("k", 1, inFlight)).toMatchObject({ allowed: false, reason: "store" });
    // And the fallback lease was released there.
    inner.mode = "fail";
    expect((await consume("k", 1, inFlight)).reason).toBe("fallback");
    expect((await consume("k", 1, inFlight)).allowed).toBe(true);
  });

  it("a fallback answer keeps an item that passed but was not counted (another item denied) not allowed", async () => {
    const { clock, inner, store } = setup();
    const one = setOf("one", { name: "n", algorithm: "fixed_window", limit: 1, periodMs: 60_000 });
    const ten = setOf("ten", { name: "n", algorithm: "fixed_window", limit: 10, periodMs: 60_000 });
    inner.mode = "fail";
    const call = () =>
      store.apply(
        [
          { limits: ten, key: "k", cost: 1 },
          { limits: one, key: "k", cost: 1 },
        ],
        "consume",
        clock.nowMs(),
      );
    expect((await call()).map((d) => d.allowed)).toEqual([true, true]);
    const second = await call(); // `one` is used up: nothing is counted, so neither item is allowed
    expect(second.map((d) => [d.allowed, d.reason, d.policies[0].allowed])).toEqual([
      [false, "fallback", true],
      [false, "fallback", false],
    ]);
  });

  it("fallback share 1/N is not cut one unit short by float error (98 · 1/49 = 1.9999999999999998)", async () => {
    const { inner, consume } = setup({ fallbackShare: 1 / 49 });
    const set = setOf("w", { name: "w", algorithm: "fixed_window", limit: 98, periodMs: 60_000 });
    inner.mode = "fail";
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await consume("k", 1, set)).allowed);
    expect(answers).toEqual([true, true, false]);
  });

  it("close: a call the inner store never settles is still answered by the policy (its deadline), through the fallback", async () => {
    const { clock, inner, store, consume } = setup({ timeoutMs: 50 });
    inner.mode = "fail";
    expect((await consume("z")).reason).toBe("fallback"); // the fallback store exists
    inner.mode = "hang";
    const inFlight = consume("a");
    const closing = store.close(); // the inner store closes at once, its call still hanging
    await flush();
    clock.advance(50);
    expect((await inFlight).reason).toBe("fallback");
    await closing;
    await expect(consume()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
  });

  it("peek and refund follow the policy; reset rejects with ERR_SLUICE_STORE_UNAVAILABLE after resetting locally", async () => {
    const { clock, inner, store, consume } = setup();
    inner.mode = "fail";
    await consume("k", 4);
    const item = (cost: number) => [{ limits: PER_SECOND, key: "k", cost }];
    expect((await store.apply(item(0), "peek", clock.nowMs()))[0]).toMatchObject({
      remaining: 6,
      reason: "fallback",
    });
    expect((await store.apply(item(2), "refund", clock.nowMs()))[0]).toMatchObject({
      remaining: 8,
      reason: "fallback",
    });
    await expect(store.apply(item(0), "reset", clock.nowMs())).rejects.toMatchObject({
      code: "ERR_SLUICE_STORE_UNAVAILABLE",
      message: expect.stringMatching(/reset not applied/),
    });
    expect((await store.apply(item(0), "peek", clock.nowMs()))[0].remaining).toBe(10);
  });

  it("a reset names why it was not applied: the breaker open, or the timeout", async () => {
    const { clock, inner, store, consume } = setup({ breaker: { failures: 1, openMs: 1000 }, timeoutMs: 50 });
    const item = [{ limits: PER_SECOND, key: "k", cost: 0 }];
    inner.mode = "hang";
    const hung = consume();
    clock.advance(50);
    expect((await hung).reason).toBe("fallback"); // timed out: the breaker opens
    expect(store.stats.state).toBe("open");
    await expect(store.apply(item, "reset", clock.nowMs())).rejects.toMatchObject({
      code: "ERR_SLUICE_STORE_UNAVAILABLE",
      message: expect.stringMatching(/reset not applied: flaky: circuit breaker open/),
    });
    clock.advance(1000); // the next call is the probe; it times out too
    const probe = store.apply(item, "reset", clock.nowMs());
    clock.advance(50);
    await expect(probe).rejects.toMatchObject({
      message: expect.stringMatching(/reset not applied: flaky: no answer within 50 ms/),
    });
    inner.mode = "ok";
    for (const h of inner.hung) h.resolve();
  });

  it("mirrors shared and name; close closes both stores; use after close is refused", async () => {
    const { clock, inner, store, consume } = setup();
    expect(store.shared).toBe(true);
    expect(store.name).toBe("flaky");
    inner.mode = "fail";
    await consume(); // creates the fallback store
    await store.close();
    expect(inner.closed).toBe(true);
    await expect(consume()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
    await expect(store.release(PER_SECOND, "k", {}, clock.nowMs())).rejects.toMatchObject({
      code: "ERR_SLUICE_STORE_CLOSED",
    });
    await store.close(); // idempotent
  });

  it("a call with nothing to do reaches the inner store but is never the probe: the breaker stays open", async () => {
    const { clock, inner, store, changes, consume } = setup({
      onError: "fail_open",
      breaker: { failures: 1, openMs: 1000 },
    });
    inner.mode = "fail";
    await consume();
    expect(store.state).toBe("open");
    clock.advance(1000); // a probe is due; the store is still down
    // A lease the policy granted is none: its release frees nothing, nor does an empty apply or applyOnce.
    await expect(store.release(PER_SECOND, "k", {}, clock.nowMs())).resolves.toBeUndefined();
    await expect(store.release(PER_SECOND, "k", { "per-second": 0 }, clock.nowMs())).resolves.toBeUndefined();
    await expect(store.apply([], "consume", clock.nowMs())).resolves.toEqual([]);
    expect(store.state).toBe("open");
    expect(store.stats).toMatchObject({ failures: 1, shortCircuited: 0, storeCalls: 1, releasesDropped: 2 });
    // The next call with work is the probe, and finds the store down.
    expect((await consume()).reason).toBe("fail_open");
    expect(changes.map((c) => `${c.from}>${c.to}`)).toEqual([
      "closed>open",
      "open>half_open",
      "half_open>open",
    ]);
    // A caller error of such a call is still the caller's.
    inner.mode = "caller_error";
    await expect(store.apply([], "consume", clock.nowMs())).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("close during calls in flight: they are still answered by the policy, then the fallback store closes", async () => {
    const { clock, inner, store, consume } = setup({ timeoutMs: 50 });
    let drained!: () => void;
    const innerClose = inner.close.bind(inner);
    inner.close = () =>
      new Promise<void>((resolve) => {
        drained = () => innerClose().then(resolve);
      });
    inner.mode = "fail";
    expect((await consume("z")).reason).toBe("fallback"); // the fallback store exists
    inner.mode = "hang";
    const inFlight = [consume("a"), consume("b")];
    const closing = store.close();
    clock.advance(50); // both time out while the inner store is still draining
    const answers = await Promise.all(inFlight);
    expect(answers.map((d) => d.reason)).toEqual(["fallback", "fallback"]);
    inner.settleHung("resolve");
    drained();
    await closing;
    expect(inner.closed).toBe(true);
    await expect(consume()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
  });

  it("ignores exceptions thrown by onStateChange", async () => {
    const { inner, store, consume } = setup({
      breaker: { failures: 1 },
      onStateChange: () => {
        throw new Error("logger broke");
      },
    });
    inner.mode = "fail";
    expect((await consume()).reason).toBe("fallback");
    expect(store.state).toBe("open");
  });

  it("rejects bad options naming the field", () => {
    const inner = new FlakyStore();
    const bad: [ResilientOptions, RegExp][] = [
      [{ fallbackShare: 0 }, /fallbackShare must be a number in \(0, 1\]/],
      [{ fallbackShare: 1.5 }, /fallbackShare/],
      [{ timeoutMs: 0 }, /timeoutMs must be/],
      [{ timeoutMs: 2 ** 31 }, /timeoutMs must be .* at most 2147483647/],
      [{ timeoutMs: 1e10 }, /timeoutMs must be/],
      [{ breaker: { failures: 0 } }, /breaker\.failures/],
      [{ breaker: { openMs: Number.NaN } }, /breaker\.openMs/],
      [{ onError: "ignore" as never }, /onError must be one of/],
      [{ fallbackCapacity: 0 }, /fallbackCapacity/],
    ];
    for (const [options, message] of bad) {
      expect(() => resilientStore(inner, options)).toThrow(message);
    }
    expect(() => resilientStore({} as Store)).toThrow(/inner must be a Store/);
  });

  it("refuses unknown options, the breaker's too, and quotes strings", () => {
    const inner = new FlakyStore();
    const invalid = (message: string) =>
      expect.objectContaining({ code: "ERR_SLUICE_INVALID_ARGUMENT", message });
    expect(() => resilientStore(inner, { timeoutMss: 5 } as never)).toThrow(
      invalid('resilientStore: unknown option "timeoutMss"; did you mean "timeoutMs"?'),
    );
    expect(() => resilientStore(inner, { breaker: { faliures: 2 } } as never)).toThrow(
      invalid('resilientStore: unknown option "breaker.faliures"; did you mean "breaker.failures"?'),
    );
    expect(() => resilientStore(inner, { breaker: 5 } as never)).toThrow(
      invalid("resilientStore: breaker must be an object of options (failures, openMs), got 5"),
    );
    expect(() => resilientStore(inner, { fallbackShare: "0.5" } as never)).toThrow(
      invalid('resilientStore: fallbackShare must be a number in (0, 1], got "0.5"'),
    );
    expect(() => resilientStore(inner, { clock: 5 } as never)).toThrow(
      invalid("resilientStore: clock must be a Clock (an object with nowMs()), got 5"),
    );
    expect(() => resilientStore(inner, { scheduler: {} } as never)).toThrow(
      invalid("resilientStore: scheduler must be a Scheduler (an object with sleep()), got an object"),
    );
  });
});

describe("createLimiter({ failure })", () => {
  it("wraps a remote store: falls back during the outage, returns to the store within openMs", async () => {
    const clock = new ManualClock(T0);
    const inner = new FlakyStore();
    const limiter = createLimiter({
      store: inner,
      clock,
      limits: { name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 },
      failure: { fallbackShare: 0.5, scheduler: clock, breaker: { failures: 2, openMs: 1000 } },
    });
    expect(limiter.store).toBeInstanceOf(ResilientStore);
    expect((await limiter.limit("u")).reason).toBe("store");
    inner.mode = "fail";
    const during = [];
    for (let i = 0; i < 8; i++) during.push(await limiter.limit("u"));
    expect(during.map((d) => d.reason)).toEqual(Array(8).fill("fallback"));
    expect(during.filter((d) => d.allowed)).toHaveLength(5);
    expect(inner.applyCalls).toBe(3); // two failures opened the breaker
    inner.mode = "ok";
    clock.advance(1000); // the breaker's own clock is the limiter's clock
    expect(await limiter.limit("u")).toMatchObject({ allowed: true, reason: "store" });
    expect((limiter.store as ResilientStore).state).toBe("closed");
  });

  it("without a clock of its own, the breaker times openMs on a monotonic clock: a wall-clock step moves nothing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] }); // Date.now only: performance.now runs on
    try {
      const inner = new FlakyStore();
      const limiter = createLimiter({
        store: inner,
        limits: { name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 },
        failure: { onError: "fail_open", breaker: { failures: 1, openMs: 60_000 } },
      });
      inner.mode = "fail";
      expect((await limiter.limit("u")).reason).toBe("fail_open");
      expect(inner.applyCalls).toBe(1);
      vi.setSystemTime(new Date(Date.UTC(2030, 0, 1))); // the wall clock jumps years ahead
      expect((await limiter.limit("u")).reason).toBe("fail_open");
      expect(inner.applyCalls).toBe(1); // still open: no probe
      expect((limiter.store as ResilientStore).state).toBe("open");
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves an in-process store unwrapped, keeping limitSync", () => {
    const limiter = createLimiter({
      limits: { limit: 1, periodMs: 1000 },
      failure: { onError: "fail_closed" },
    });
    expect(limiter.store).toBeInstanceOf(MemoryStore);
    expect(limiter.limitSync("k").reason).toBe("store");
    expect(() => createLimiter({ limits: { limit: 1, periodMs: 1000 }, failure: null as never })).toThrow(
      /failure must be an object/,
    );
  });
});

describe("resilientStore: the inner store's applyTo gets a ticket per call", () => {
  beforeEach(() => {
    innerKind = "applyTo";
  });

  it("gives applyTo a ticket per call that is settled once the call is answered or times out", async () => {
    const { clock, inner, store, consume } = setup({ timeoutMs: 50, onError: "fail_open" });
    const tickets = (inner as CallbackFlakyStore).tickets;
    await consume();
    expect(tickets).toHaveLength(1);
    expect(tickets[0]?.settled).toBe(true); // answered
    inner.mode = "hang";
    const hung = consume();
    await flush();
    expect(tickets[1]?.settled).toBe(false); // the caller still waits: a store must still send it
    clock.advance(50);
    expect(await hung).toMatchObject({ allowed: true, reason: "fail_open" });
    expect(tickets[1]?.settled).toBe(true); // timed out: a store holding it unsent drops it
    expect(store.stats.timeouts).toBe(1);
    inner.mode = "ok";
    for (const h of inner.hung) h.resolve();
  });

  /** Issues `n` calls that hang, the store holding each as queued (`queued` set on its ticket) or as sent. */
  const hangCalls = async (
    ctx: ReturnType<typeof setup>,
    n: number,
    queued: boolean,
  ): Promise<Promise<Decision>[]> => {
    ctx.inner.mode = "hang";
    const calls = Array.from({ length: n }, () => ctx.consume());
    await flush();
    for (const t of (ctx.inner as CallbackFlakyStore).tickets.slice(-n)) (t as CallTicket).queued = queued;
    return calls;
  };

  it("an idempotent consume gets a ticket too: timed out still queued, it is no store failure", async () => {
    const clock = new ManualClock(T0);
    const tickets: (CallTicket | undefined)[] = [];
    const inner = new FlakyStore();
    const onceInner = Object.assign(inner, {
      applyOnce: (_items: readonly StoreItem[], _nowMs: number, _once: unknown, ticket?: CallTicket) => {
        tickets.push(ticket);
        if (ticket !== undefined) ticket.queued = true; // it waits in the process, never sent
        return new Promise<never>(() => {});
      },
    });
    const store = resilientStore(onceInner, { clock, scheduler: clock, timeoutMs: 50, onError: "fail_open" });
    const call = (store.applyOnce as NonNullable<Store["applyOnce"]>)(
      [{ limits: PER_SECOND, key: "k", cost: 1 }],
      clock.nowMs(),
      { key: "r", ttlMs: 60_000 },
    );
    expect(tickets).toHaveLength(1);
    expect(tickets[0]?.settled).toBe(false);
    clock.advance(50);
    expect((await call).decisions[0].reason).toBe("fail_open");
    expect(tickets[0]?.settled).toBe(true);
    expect(store.stats).toMatchObject({ failures: 0, timeouts: 0, queueTimeouts: 1, failOpen: 1 });
  });

  it("a call that times out still queued in the process is answered by the policy but is no store failure", async () => {
    const ctx = setup({ timeoutMs: 50, breaker: { failures: 5, openMs: 1000 } });
    const calls = await hangCalls(ctx, 4, true);
    ctx.clock.advance(50);
    for (const d of await Promise.all(calls)) expect(d.reason).toBe("fallback");
    expect(ctx.store.stats).toMatchObject({ failures: 0, timeouts: 0, queueTimeouts: 4, fallback: 4 });
    expect(ctx.store.state).toBe("closed");
    ctx.inner.mode = "ok";
    ctx.inner.settleHung("resolve");
    expect(await ctx.consume()).toMatchObject({ reason: "store" }); // a success ends the run of four
    const more = await hangCalls(ctx, 4, true);
    ctx.clock.advance(50);
    await Promise.all(more);
    expect(ctx.store.state).toBe("closed");
    ctx.inner.settleHung("resolve");
  });

  it("a run of queued timeouts alone opens the breaker for min(openMs, timeoutMs); the store is tried again then", async () => {
    const ctx = setup({ timeoutMs: 50, breaker: { failures: 3, openMs: 1000 } });
    const calls = await hangCalls(ctx, 3, true);
    ctx.clock.advance(50);
    await Promise.all(calls);
    expect(ctx.store.state).toBe("open");
    expect(ctx.changes.at(-1)).toMatchObject({
      to: "open",
      error: { code: "ERR_SLUICE_STORE_TIMEOUT", message: expect.stringMatching(/queued in this process/) },
    });
    ctx.inner.mode = "ok";
    ctx.inner.settleHung("resolve");
    const before = ctx.inner.applyCalls;
    ctx.clock.advance(49);
    expect((await ctx.consume()).reason).toBe("fallback"); // still open
    ctx.clock.advance(1); // 50 ms after it opened: the probe
    expect(await ctx.consume()).toMatchObject({ reason: "store" });
    expect(ctx.store.state).toBe("closed");
    expect(ctx.inner.applyCalls).toBe(before + 1);
  });

  it("a run holding a failure of the store opens the breaker for openMs, queued timeouts counting toward it", async () => {
    const ctx = setup({ timeoutMs: 50, breaker: { failures: 3, openMs: 1000 } });
    const sent = await hangCalls(ctx, 1, false); // Redis has it and does not answer
    const queued = await hangCalls(ctx, 2, true); // behind it in the process
    ctx.clock.advance(50);
    await Promise.all([...sent, ...queued]);
    expect(ctx.store.stats).toMatchObject({ failures: 1, timeouts: 1, queueTimeouts: 2 });
    expect(ctx.store.state).toBe("open");
    ctx.inner.mode = "ok";
    ctx.inner.settleHung("resolve");
    ctx.clock.advance(999);
    expect((await ctx.consume()).reason).toBe("fallback");
    ctx.clock.advance(1);
    expect((await ctx.consume()).reason).toBe("store");
  });
});

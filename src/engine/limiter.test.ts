import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import type { LimitSpecInput } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { MAX_NOW_MS } from "../core/time-math.js";
import { memoryStore } from "../stores/memory/memory-store.js";
import { createLimiter } from "./limiter.js";

const T0 = 1_700_000_000_000;

describe("createLimiter", () => {
  it("applies several named limits all-or-nothing, with string durations", async () => {
    const clock = new ManualClock(T0);
    const limiter = createLimiter({
      clock,
      limits: [
        { name: "per-second", algorithm: "gcra", limit: 2, period: "1s" },
        { name: "per-day", algorithm: "fixed_window", limit: 3, period: "1d" },
      ],
    });
    expect((await limiter.limit("u")).allowed).toBe(true);
    expect(limiter.limitSync("u").allowed).toBe(true);
    const third = limiter.limitSync("u");
    expect(third).toMatchObject({ allowed: false, policy: "per-second", retryAfterMs: 500 });
    clock.advance(1000);
    expect(limiter.limitSync("u")).toMatchObject({ allowed: true, policy: "per-day", remaining: 0 });
    clock.advance(1000);
    expect(limiter.limitSync("u")).toMatchObject({ allowed: false, policy: "per-day" });
  });

  it("rejects invalid limits naming every bad field", () => {
    expect(() =>
      createLimiter({
        limits: [
          { algorithm: "gcra", limit: -1, period: "soon" },
          { algorithm: "fixed_window", limit: 1, periodMs: 1000, burst: 5 },
        ],
      }),
    ).toThrow(/limits\[0\]\.limit: must be a finite number > 0/);
    // Every bad limit's issues at once, not only the first limit's.
    try {
      createLimiter({
        limits: [
          { algorithm: "gcra", limit: -1, period: "soon" },
          { algorithm: "fixed_window", limit: 1, periodMs: 1000, burst: 5 },
        ],
      });
      expect.unreachable();
    } catch (error) {
      expect((error as { code: string }).code).toBe("ERR_SLUICE_INVALID_LIMIT");
      const paths = (error as { issues: { path: string }[] }).issues.map((i) => i.path);
      expect(paths).toEqual(["limits[0].limit", "limits[0].period", "limits[1].burst"]);
    }
    try {
      createLimiter({ limits: { algorithm: "gcra", limit: 1, period: "x", extra: 1 } as never });
    } catch (error) {
      expect((error as { code: string }).code).toBe("ERR_SLUICE_INVALID_LIMIT");
      expect(String(error)).toMatch(/unknown field\(s\): extra/);
    }
    expect(() => createLimiter({ limits: [] })).toThrow(/at least one limit/);
    expect(() =>
      createLimiter({
        limits: [
          { name: "a", limit: 1, periodMs: 1 },
          { name: "a", limit: 1, periodMs: 1 },
        ],
      }),
    ).toThrow(/names must be unique/);
    // Unnamed limits are all "default": the error says to name them, not that a name was reused.
    expect(() =>
      createLimiter({
        limits: [
          { limit: 1, period: "1s" },
          { limit: 100, period: "1d" },
        ],
      }),
    ).toThrow(
      /limits\[1\]\.name: "default" is used by an earlier limit: a limit without a name is named "default", so when there are several limits each needs its own name/,
    );
  });

  it("refuses a second limiter of other limits under the default name on one store, naming the option", () => {
    const clock = new ManualClock(T0);
    const store = memoryStore();
    const perIp = createLimiter({
      store,
      clock,
      limits: { algorithm: "fixed_window", limit: 3, period: "1m" },
    });
    const refused = (limits: LimitSpecInput, these: string, name?: string) =>
      expect(() => createLimiter({ store, clock, limits, ...(name === undefined ? {} : { name }) })).toThrow(
        expect.objectContaining({
          code: "ERR_SLUICE_INVALID_ARGUMENT",
          message: `createLimiter: the store already has a limiter named "default" with other limits ("default": fixed_window 3/60000 ms; these are ${these}); give each limiter on a shared store its own name (option name)`,
        }),
      );
    // Another algorithm would read the first one's state as fresh (each admitting everything); the same algorithm
    // with other numbers would count into its counter. "default" given is the default name too.
    refused({ algorithm: "gcra", limit: 3, period: "1m" }, '"default": gcra 3/60000 ms');
    refused({ algorithm: "fixed_window", limit: 50, period: "1m" }, '"default": fixed_window 50/60000 ms');
    refused(
      { algorithm: "fixed_window", limit: 50, period: "1m" },
      '"default": fixed_window 50/60000 ms',
      "default",
    );
    // The refused limiters bound nothing: the first one's limits are still the store's default.
    for (let i = 0; i < 3; i++) expect(perIp.limitSync("k").allowed).toBe(true);
    expect(perIp.limitSync("k").allowed).toBe(false);
    // The same limits again (a limiter re-created) is allowed and shares the counters.
    const again = createLimiter({
      store,
      clock,
      limits: { algorithm: "fixed_window", limit: 3, period: "1m" },
    });
    expect(again.limitSync("k").allowed).toBe(false);
    // A name of its own: its own counters (the default name's key is spent); a chosen name may be shared by other
    // limits (a reconfiguration, tiers of one policy): a raised limit keeps the count.
    const perUser = createLimiter({
      store,
      clock,
      name: "per-user",
      limits: { algorithm: "fixed_window", limit: 3, period: "1m" },
    });
    for (let i = 0; i < 3; i++) expect(perUser.limitSync("k").allowed).toBe(true);
    expect(perUser.limitSync("k").allowed).toBe(false);
    const raised = createLimiter({
      store,
      clock,
      name: "per-user",
      limits: { algorithm: "fixed_window", limit: 5, period: "1m" },
    });
    expect(raised.limitSync("k")).toMatchObject({ allowed: true, remaining: 1 });
    // Another store has its own default name; a limiter without a store gets one of its own.
    createLimiter({ store: memoryStore(), clock, limits: { algorithm: "gcra", limit: 3, period: "1m" } });
    createLimiter({ clock, limits: { algorithm: "gcra", limit: 3, period: "1m" } });
  });

  it("refuses a store that is not a Store at construction, with a coded error", () => {
    for (const store of [{}, null, 42, { apply: () => undefined }]) {
      expect(() => createLimiter({ store: store as never, limits: { limit: 1, period: "1s" } })).toThrow(
        expect.objectContaining({
          code: "ERR_SLUICE_INVALID_ARGUMENT",
          message: expect.stringMatching(/store must be a Store/),
        }),
      );
    }
  });

  it("rejects bad keys and costs without touching state", async () => {
    const limiter = createLimiter({ limits: { algorithm: "fixed_window", limit: 1, periodMs: 1000 } });
    expect(() => limiter.limitSync("")).toThrow(/key must be a non-empty string/);
    expect(() => limiter.limitSync("k", { cost: -1 })).toThrow(/cost must be a whole number/);
    expect(() => limiter.limitSync("k", { cost: 0.5 })).toThrow(/cost/);
    expect(() => limiter.limitSync("k", { cost: Number.NaN })).toThrow(/cost/);
    await expect(limiter.limit(42 as never)).rejects.toMatchObject({ code: "ERR_SLUICE_INVALID_ARGUMENT" });
    for (const nowMs of [Number.NaN, Number.POSITIVE_INFINITY, "1" as never]) {
      expect(() => limiter.limitSync("k", { nowMs })).toThrow(/limitSync: nowMs must be epoch milliseconds/);
      await expect(limiter.limit("k", { nowMs })).rejects.toMatchObject({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
      });
      await expect(limiter.peek("k", { nowMs })).rejects.toThrow(/peek: nowMs/);
    }
    expect(limiter.limitSync("k").allowed).toBe(true);
  });

  it("refuses a nowMs before 1970 or after MAX_NOW_MS (2100), where the algorithms are not exact", async () => {
    // Before 0, the all-zero fresh state is not fresh: a gcra key never seen was denied at -5000.
    for (const algorithm of ["gcra", "token_bucket", "sliding_log", "concurrency"] as const) {
      const limiter = createLimiter({ limits: { algorithm, limit: 10, periodMs: 1000 } });
      const call = (nowMs: number) =>
        algorithm === "concurrency" ? limiter.acquire("k", { nowMs }) : limiter.limit("k", { nowMs });
      for (const nowMs of [-5000, -0.5, MAX_NOW_MS + 0.5, MAX_NOW_MS + 1000, 2 ** 53]) {
        await expect(call(nowMs), `${algorithm} at ${nowMs}`).rejects.toMatchObject({
          code: "ERR_SLUICE_INVALID_ARGUMENT",
          message: expect.stringMatching(/nowMs must be epoch milliseconds from 0 to 4102444800000/),
        });
        await expect(limiter.peek("k", { nowMs })).rejects.toThrow(/peek: nowMs/);
        await expect(limiter.refund("k", 1, { nowMs })).rejects.toThrow(/refund: nowMs/);
        await expect(limiter.reset("k", { nowMs })).rejects.toThrow(/reset: nowMs/);
        if (algorithm !== "concurrency")
          expect(() => limiter.limitSync("k", { nowMs })).toThrow(/limitSync: nowMs/);
      }
      // the bounds themselves are decided at, a fresh key passing at both
      expect((await call(0)).allowed, algorithm).toBe(true);
      expect((await call(MAX_NOW_MS)).allowed, algorithm).toBe(true);
    }
  });

  it("refuses to take a lease at a clock's time past MAX_NOW_MS, where lease ids repeat (after 2255)", async () => {
    const clock = new ManualClock(Date.UTC(3000, 0, 1));
    const limiter = createLimiter({
      clock,
      limits: { algorithm: "concurrency", limit: 1, periodMs: 60_000 },
    });
    await expect(limiter.acquire("k")).rejects.toMatchObject({
      code: "ERR_SLUICE_INVALID_ARGUMENT",
      message: expect.stringMatching(/^acquire: nowMs \(the clock's\) must be epoch milliseconds from 0/),
    });
    clock.set(MAX_NOW_MS);
    const a = await limiter.acquire("k");
    await limiter.reset("k");
    const b = await limiter.acquire("k"); // the same millisecond, after a reset: a new id
    expect(b.decision.leases?.default).not.toBe(a.decision.leases?.default);
    await a.release(); // the lease the reset dropped: b keeps its unit
    expect((await limiter.acquire("k")).allowed).toBe(false);
  });

  it("checks the key on the common call (no options) as on every other", () => {
    const clock = new ManualClock(T0);
    const limiter = createLimiter({ clock, limits: { algorithm: "gcra", limit: 2, period: "1s" } });
    expect(() => limiter.limitSync(42 as never)).toThrow(/limitSync: key must be a non-empty string/);
    expect(() => limiter.limitSync("x".repeat(1025))).toThrow(/at most 1024 characters, got 1025/);
    expect(limiter.limitSync("x".repeat(1024)).allowed).toBe(true);
    // unbound, at the clock's time, and the same decisions as with explicit options
    const { limitSync } = limiter;
    expect(limitSync("k")).toMatchObject({ allowed: true, remaining: 1 });
    expect(limitSync("k", { nowMs: T0 })).toMatchObject({ allowed: true, remaining: 0 });
    expect(limitSync("k")).toMatchObject({ allowed: false, retryAfterMs: 500, state: "throttled" });
    clock.advance(500);
    expect(limitSync("k")).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("peeks, refunds and resets", async () => {
    const limiter = createLimiter({ limits: { algorithm: "token_bucket", limit: 5, period: "1m" } });
    const nowMs = T0;
    await limiter.limit("k", { cost: 5, nowMs });
    expect((await limiter.peek("k", { nowMs })).remaining).toBe(0);
    expect((await limiter.refund("k", 2, { nowMs })).remaining).toBe(2);
    await limiter.reset("k", { nowMs });
    expect((await limiter.peek("k", { nowMs })).remaining).toBe(5);
  });

  it("takes and releases concurrency leases", async () => {
    const clock = new ManualClock(T0);
    const limiter = createLimiter({
      clock,
      limits: { name: "in-flight", algorithm: "concurrency", limit: 2, period: "30s" },
    });
    const a = await limiter.acquire("k");
    const b = await limiter.acquire("k");
    const c = await limiter.acquire("k");
    expect([a.allowed, b.allowed, c.allowed]).toEqual([true, true, false]);
    await a.release();
    await a.release(); // idempotent
    expect((await limiter.acquire("k")).allowed).toBe(true);
    expect(() => limiter.limitSync("k")).toThrow(/use acquire/);
  });

  it("fails clearly when the store has no synchronous path", () => {
    const store = memoryStore();
    const asyncOnly = {
      name: "remote",
      shared: true,
      apply: store.apply.bind(store),
      release: store.release.bind(store),
      close: store.close.bind(store),
    };
    const limiter = createLimiter({ store: asyncOnly, limits: { limit: 1, periodMs: 1000 } });
    expect(() => limiter.limitSync("k")).toThrow(/ERR_SLUICE_UNSUPPORTED|no synchronous path/);
  });
});

describe("createLimiter: options are checked, unknown keys refused", () => {
  const limits = { algorithm: "gcra", limit: 10, period: "1s" } as const;
  const invalid = (message: RegExp | string) =>
    expect.objectContaining({
      code: "ERR_SLUICE_INVALID_ARGUMENT",
      message: typeof message === "string" ? message : expect.stringMatching(message),
    });

  it("refuses an unknown option, naming it and the closest known one", () => {
    expect(() => createLimiter({ limits, stor: 1 } as never)).toThrow(
      invalid('createLimiter: unknown option "stor"; did you mean "store"?'),
    );
    expect(() => createLimiter({ limits, colour: "red" } as never)).toThrow(
      invalid('createLimiter: unknown option "colour"; expected one of limits, store, clock, name, failure'),
    );
    expect(() => createLimiter(null as never)).toThrow(invalid(/^createLimiter: options must be an object/));
    expect(() => createLimiter({ limits, clock: {} as never })).toThrow(
      invalid("createLimiter: clock must be a Clock (an object with nowMs()), got an object"),
    );
    expect(() => createLimiter({ limits, name: 7 as never })).toThrow(invalid(/name must be .*, got 7$/));
  });

  it("checks failure whatever the store: an in-process store's bad failure options are refused, not ignored", () => {
    for (const store of [undefined, new AsyncMemoryStore()]) {
      const make = (failure: unknown) => () => createLimiter({ limits, store, failure: failure as never });
      expect(make({ onError: "explode" })).toThrow(
        invalid(
          'createLimiter: failure.onError must be one of fail_open, fail_closed, fallback, got "explode"',
        ),
      );
      expect(make({ fallbackShare: 2 })).toThrow(
        invalid("createLimiter: failure.fallbackShare must be a number in (0, 1], got 2"),
      );
      expect(make({ timeoutMss: 5 })).toThrow(
        invalid('createLimiter: unknown option "failure.timeoutMss"; did you mean "failure.timeoutMs"?'),
      );
      expect(make({ breaker: { faliures: 2 } })).toThrow(
        invalid(
          'createLimiter: unknown option "failure.breaker.faliures"; did you mean "failure.breaker.failures"?',
        ),
      );
      expect(make({ breaker: 5 })).toThrow(invalid(/^createLimiter: failure\.breaker must be an object/));
      expect(make({ timeoutMs: "50" })).toThrow(
        invalid(/^createLimiter: failure\.timeoutMs must be .*, got "50"$/),
      );
      expect(make([])).toThrow(
        invalid(/^createLimiter: failure must be an object of options .*, got an array$/),
      );
      // valid ones still build
      expect(make({ onError: "fail_open", timeoutMs: 20, breaker: { failures: 2 } })).not.toThrow();
    }
  });

  it("refuses an unknown per-call option, on every method and on either path, naming the method called", async () => {
    const sync = createLimiter({ limits });
    const remote = createLimiter({ limits, store: new AsyncMemoryStore() });
    const jobs = createLimiter({ limits: { algorithm: "concurrency", limit: 2, period: "30s" } });
    expect(() => sync.limitSync("k", { cots: 2 } as never)).toThrow(
      invalid('limitSync: unknown option "cots"; did you mean "cost"?'),
    );
    for (const limiter of [sync, remote]) {
      await expect(limiter.limit("k", { cots: 2 } as never)).rejects.toEqual(
        invalid('limit: unknown option "cots"; did you mean "cost"?'),
      );
      await expect(limiter.peek("k", { nowms: 1 } as never)).rejects.toEqual(
        invalid('peek: unknown option "nowms"; did you mean "nowMs"?'),
      );
      // refund and reset take nowMs only: a cost there would be ignored
      await expect(limiter.refund("k", 1, { cost: 2 } as never)).rejects.toEqual(
        invalid('refund: unknown option "cost"; expected one of nowMs'),
      );
      await expect(limiter.reset("k", { cost: 2 } as never)).rejects.toEqual(
        invalid('reset: unknown option "cost"; expected one of nowMs'),
      );
      await expect(limiter.limit("k", 5 as never)).rejects.toEqual(
        invalid("limit: options must be an object (cost, nowMs), got 5"),
      );
      await expect(limiter.limit("k", null as never)).rejects.toEqual(
        invalid("limit: options must be an object (cost, nowMs), got null"),
      );
      // nothing was charged by the refused calls
      expect((await limiter.peek("k")).remaining).toBe(10);
      expect((await limiter.limit("k", { cost: 2 })).remaining).toBe(8);
      expect((await limiter.limit("k", {})).remaining).toBe(7);
    }
    await expect(jobs.acquire("k", { cots: 1 } as never)).rejects.toEqual(
      invalid('acquire: unknown option "cots"; did you mean "cost"?'),
    );
  });
});

describe("limiter errors name the method the caller called, and the argument", () => {
  const invalid = (message: string) =>
    expect.objectContaining({ code: "ERR_SLUICE_INVALID_ARGUMENT", message });

  it("limit() on the in-process store names limit, not limitSync", async () => {
    const limiter = createLimiter({ limits: { algorithm: "fixed_window", limit: 5, period: "1s" } });
    await expect(limiter.limit("")).rejects.toEqual(
      invalid("limit: key must be a non-empty string of at most 1024 characters, got 0 characters"),
    );
    await expect(limiter.limit("k", { cost: 0.5 })).rejects.toEqual(
      invalid("limit: cost must be a whole number from 0 to Number.MAX_SAFE_INTEGER, got 0.5"),
    );
    expect(() => limiter.limitSync("")).toThrow(
      invalid("limitSync: key must be a non-empty string of at most 1024 characters, got 0 characters"),
    );
  });

  it("limit() on a concurrency limiter names limit", async () => {
    const jobs = createLimiter({ limits: { algorithm: "concurrency", limit: 4, period: "30s" } });
    await expect(jobs.limit("t")).rejects.toEqual(
      invalid("limit: this limiter has a concurrency limit; use acquire() and release the lease"),
    );
    expect(() => jobs.limitSync("t")).toThrow(
      invalid("limitSync: this limiter has a concurrency limit; use acquire() and release the lease"),
    );
  });

  it("refund names its amount", async () => {
    const limiter = createLimiter({ limits: { algorithm: "gcra", limit: 5, period: "1s" } });
    await expect((limiter.refund as (key: string) => Promise<unknown>)("k")).rejects.toEqual(
      invalid("refund: amount must be a number from 0 to Number.MAX_SAFE_INTEGER, got undefined"),
    );
    await expect(limiter.refund("k", -1)).rejects.toEqual(
      invalid("refund: amount must be a number from 0 to Number.MAX_SAFE_INTEGER, got -1"),
    );
  });

  it("quotes a string where a number belongs, so that it cannot be read as the number", async () => {
    const limiter = createLimiter({ limits: { algorithm: "gcra", limit: 5, period: "1s" } });
    await expect(limiter.limit("k", { cost: "2" as never })).rejects.toEqual(
      invalid('limit: cost must be a number from 0 to Number.MAX_SAFE_INTEGER, got "2"'),
    );
    expect(() => limiter.limitSync("k", { nowMs: "5" as never })).toThrow(
      invalid(
        'limitSync: nowMs must be epoch milliseconds from 0 to 4102444800000 (2100-01-01T00:00:00Z), got "5"',
      ),
    );
    await expect(limiter.limit(42 as never)).rejects.toEqual(
      invalid("limit: key must be a non-empty string of at most 1024 characters, got 42"),
    );
  });
});

// The claim protocol of once-claim.ts against an in-process ledger (the Redis one, once.lua, is exercised against
// real servers in test/integration/redis-idempotency.test.ts): replay, wait with bounded pauses, give up with a
// typed error, abandon on a failed consume, answer despite a lost record.
import { describe, expect, it } from "vitest";
import { createLimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { MemoryStore } from "./memory/memory-store.js";
import {
  applyOnceClaimed,
  claimSettingsOf,
  IdempotencyPendingError,
  ONCE_WAIT_STEP_MAX_MS,
  PENDING,
  untilSettled,
} from "./once-claim.js";
import type { OnceClaimState, OnceLedger } from "./store.js";

const T0 = 1_700_000_000_000;
const limits = createLimitSet("n", [
  parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 5, periodMs: 60_000 }),
]);

/** One record slot as once.lua keeps it: a claim (by token) or a record; claims never expire here. */
class SlotLedger implements OnceLedger {
  claimedBy: string | undefined;
  recorded: { decisions: Decision[]; decidedAtMs: number } | undefined;
  failRecord = false;
  readonly log: string[] = [];

  claim(token: string): Promise<OnceClaimState> {
    this.log.push("claim");
    if (this.recorded !== undefined) return Promise.resolve({ state: "recorded", ...this.recorded });
    if (this.claimedBy !== undefined) return Promise.resolve({ state: "pending" });
    this.claimedBy = token;
    return Promise.resolve({ state: "claimed" });
  }

  record(token: string, decisions: readonly Decision[], decidedAtMs: number): Promise<void> {
    this.log.push("record");
    if (this.failRecord) return Promise.reject(new Error("lost"));
    if (this.claimedBy === token) {
      this.claimedBy = undefined;
      this.recorded = { decisions: [...decisions], decidedAtMs };
    }
    return Promise.resolve();
  }

  abandon(token: string): Promise<void> {
    this.log.push("abandon");
    if (this.claimedBy === token) this.claimedBy = undefined;
    return Promise.resolve();
  }
}

/** Lets pending promise callbacks run (the ledger answers on microtasks). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("applyOnceClaimed", () => {
  it("claims, consumes and records once; concurrent callers wait for the record and replay it", async () => {
    const clock = new ManualClock(T0);
    const ledger = new SlotLedger();
    const store = new MemoryStore({ capacity: 10 });
    const consume = () => Promise.resolve(store.applySync([{ limits, key: "u", cost: 1 }], "consume", T0));
    const options = { scheduler: clock, claimTtlMs: 10_000, record: "r" };
    const calls = Array.from({ length: 5 }, () => applyOnceClaimed(ledger, T0, consume, options));
    await settle();
    expect(clock.pendingSleeps).toBe(4); // the claimer recorded; the others pause before asking again
    clock.advance(2);
    const results = await Promise.all(calls);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    for (const r of results) {
      expect(r.decidedAtMs).toBe(T0);
      expect(r.decisions[0]).toMatchObject({ allowed: true, remaining: 4 });
    }
    expect(store.applySync([{ limits, key: "u", cost: 0 }], "peek", T0)[0].remaining).toBe(4);
  });

  it("abandons its claim when the consume fails, so a retry proceeds at once", async () => {
    const clock = new ManualClock(T0);
    const ledger = new SlotLedger();
    const options = { scheduler: clock, claimTtlMs: 10_000, record: "r" };
    const failing = () => Promise.reject(new Error("node down"));
    await expect(applyOnceClaimed(ledger, T0, failing, options)).rejects.toThrow("node down");
    expect(ledger.claimedBy).toBeUndefined();
    expect(ledger.log).toEqual(["claim", "abandon"]);
    const retry = await applyOnceClaimed(ledger, T0 + 5, () => Promise.resolve([]), options);
    expect(retry).toMatchObject({ replayed: false, decidedAtMs: T0 + 5 });
  });

  it("answers when its record cannot be written, leaving the claim (the waiters then give up, typed)", async () => {
    const clock = new ManualClock(T0);
    const ledger = new SlotLedger();
    ledger.failRecord = true;
    const store = new MemoryStore({ capacity: 10 });
    const consume = () => Promise.resolve(store.applySync([{ limits, key: "u", cost: 1 }], "consume", T0));
    const first = await applyOnceClaimed(ledger, T0, consume, {
      scheduler: clock,
      claimTtlMs: 100,
      record: "r",
    });
    expect(first).toMatchObject({ replayed: false, decisions: [{ allowed: true, remaining: 4 }] });
    expect(ledger.claimedBy).toBeDefined();
    const waiter = applyOnceClaimed(ledger, T0, consume, { scheduler: clock, claimTtlMs: 100, record: "r" });
    const outcome = waiter.then(
      () => "resolved",
      (e: unknown) => e,
    );
    for (let i = 0; i < 20 && clock.pendingSleeps === 0; i++) await settle();
    for (let i = 0; i < 200; i++) {
      clock.advance(ONCE_WAIT_STEP_MAX_MS);
      await settle();
    }
    const error = await outcome;
    expect(error).toBeInstanceOf(IdempotencyPendingError);
    expect(error).toMatchObject({ code: "ERR_SLUICE_IDEMPOTENCY_PENDING" });
    expect(store.applySync([{ limits, key: "u", cost: 0 }], "peek", T0)[0].remaining).toBe(4); // counted once
  });
});

describe("applyOnceClaimed: failure policies and wait bounds", () => {
  it("answers a consume a failure policy took part in without recording it, abandoning its claim", async () => {
    const clock = new ManualClock(T0);
    const ledger = new SlotLedger();
    const store = new MemoryStore({ capacity: 10 });
    const options = { scheduler: clock, claimTtlMs: 10_000, record: "r" };
    const consume = () =>
      Promise.resolve(
        store
          .applySync([{ limits, key: "u", cost: 1 }], "consume", T0)
          .map((d, i) => (i === 0 ? { ...d, reason: "fallback" as const } : d)),
      );
    const r = await applyOnceClaimed(ledger, T0, consume, options);
    expect(r).toEqual({ decisions: [expect.objectContaining({ reason: "fallback" })], replayed: false });
    expect(ledger.log).toEqual(["claim", "abandon"]);
    expect(ledger.recorded).toBeUndefined();
    expect(ledger.claimedBy).toBeUndefined();
  });

  it("gives up waiting after maxWaitMs when it is shorter than the claim's TTL", async () => {
    const pauses: number[] = [];
    const scheduler = {
      sleep: (ms: number) => {
        pauses.push(ms);
        return Promise.resolve();
      },
    };
    const ledger = new SlotLedger();
    ledger.claimedBy = "another";
    const options = { scheduler, claimTtlMs: 10_000, maxWaitMs: 50, record: "r" };
    await expect(applyOnceClaimed(ledger, T0, () => Promise.resolve([]), options)).rejects.toBeInstanceOf(
      IdempotencyPendingError,
    );
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(50);
  });
});

describe("untilSettled", () => {
  it("pauses 2 ms doubling up to the step cap, for at most the bound in all, then throws", async () => {
    const pauses: number[] = [];
    const scheduler = {
      sleep: (ms: number) => {
        pauses.push(ms);
        return Promise.resolve();
      },
    };
    let tries = 0;
    const attempt = () => {
      tries++;
      return Promise.resolve(PENDING);
    };
    await expect(untilSettled(attempt, scheduler, 1000, "rec")).rejects.toThrow(/"rec".*1000 ms/);
    expect(pauses.slice(0, 8)).toEqual([2, 4, 8, 16, 32, 64, 128, ONCE_WAIT_STEP_MAX_MS]);
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(ONCE_WAIT_STEP_MAX_MS);
    expect(tries).toBe(pauses.length + 1);
    let n = 0;
    const later = () => Promise.resolve(++n < 3 ? PENDING : "done");
    expect(await untilSettled(later, scheduler, 1000, "rec")).toBe("done");
  });
});

describe("claimSettingsOf", () => {
  it("defaults the scheduler and refuses one without sleep(), naming the store and what it got", () => {
    expect(claimSettingsOf("someStore", {}).claimTtlMs).toBe(10_000);
    const clock = new ManualClock(T0);
    expect(claimSettingsOf("someStore", { scheduler: clock }).scheduler).toBe(clock);
    for (const [scheduler, got] of [
      [5, "5"],
      [{}, "an object"],
      ["later", '"later"'],
    ] as const) {
      expect(() => claimSettingsOf("someStore", { scheduler: scheduler as never })).toThrow(
        expect.objectContaining({
          code: "ERR_SLUICE_INVALID_ARGUMENT",
          message: `someStore: scheduler must be a Scheduler (with sleep), got ${got}`,
        }),
      );
    }
  });
});

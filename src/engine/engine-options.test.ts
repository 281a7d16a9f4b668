import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { any, makeConfig, makeRules } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { createEngine } from "./engine.js";

// createEngine's options are checked as createLimiter's are: an unknown key, at the top or in a nested object, is
// refused with ERR_SLUICE_INVALID_ARGUMENT naming it (and the closest known key), never ignored; a store, clock or
// scheduler of the wrong kind is refused at construction, naming the option and showing what it got.

const config = makeConfig({
  rules: makeRules([
    {
      id: "per-user",
      domain: "api",
      match: [any("user")],
      limits: [parseLimitSpec({ name: "m", algorithm: "fixed_window", limit: 5, periodMs: 60_000 })],
    },
  ]),
});

const invalid = (message: RegExp | string) =>
  expect.objectContaining({
    code: "ERR_SLUICE_INVALID_ARGUMENT",
    message: typeof message === "string" ? message : expect.stringMatching(message),
  });

describe("createEngine options", () => {
  it("accepts every known option", async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const engine = createEngine({
      config,
      store: new AsyncMemoryStore(),
      clock,
      scheduler: clock,
      idempotency: { ttlMs: 1000, maxEntries: 10, maxBytes: 100_000 },
      failure: {
        timeoutMs: 50,
        fallbackShare: 0.5,
        fallbackCapacity: 100,
        breaker: { failures: 2, openMs: 1000 },
        onStateChange: () => {},
      },
      counting: "each",
    });
    const r = await engine.check({ domain: "api", descriptors: [[{ key: "user", value: "1" }]] });
    expect(r.allowed).toBe(true);
    await engine.close();
  });

  it("refuses an unknown top-level option, naming it and the closest known one", () => {
    expect(() => createEngine({ config, stroe: new MemoryStore({ capacity: 10 }) } as never)).toThrow(
      invalid('createEngine: unknown option "stroe"; did you mean "store"?'),
    );
    expect(() => createEngine({ config, idempotence: { ttlMs: 1 } } as never)).toThrow(
      invalid('createEngine: unknown option "idempotence"; did you mean "idempotency"?'),
    );
    expect(() => createEngine({ config, colour: "red" } as never)).toThrow(
      invalid(
        'createEngine: unknown option "colour"; expected one of config, store, clock, scheduler, idempotency, failure, counting',
      ),
    );
    // A key set to undefined is still a typo.
    expect(() => createEngine({ config, clok: undefined } as never)).toThrow(
      invalid('createEngine: unknown option "clok"; did you mean "clock"?'),
    );
  });

  it("refuses options that are not an object", () => {
    for (const options of [null, undefined, 5, "config", []]) {
      expect(() => createEngine(options as never)).toThrow(
        invalid(/^createEngine: options must be an object of options \(config, store, /),
      );
    }
  });

  it("refuses a clock that is not a Clock, naming the option and what it got", () => {
    for (const [clock, got] of [
      [{}, "an object"],
      [5, "5"],
      [() => 0, "a function"],
      [{ nowMs: 5 }, "an object"],
    ] as const) {
      expect(() => createEngine({ config, clock: clock as never })).toThrow(
        invalid(`createEngine: clock must be a Clock (an object with nowMs()), got ${got}`),
      );
    }
  });

  it("refuses a scheduler that is not a Scheduler at construction, not when something sleeps on it", () => {
    for (const store of [undefined, new MemoryStore({ capacity: 10 }), new AsyncMemoryStore()]) {
      for (const [scheduler, got] of [
        [5, "5"],
        [{}, "an object"],
        ["setTimeout", '"setTimeout"'],
      ] as const) {
        expect(() => createEngine({ config, store, scheduler: scheduler as never })).toThrow(
          invalid(`createEngine: scheduler must be a Scheduler (an object with sleep()), got ${got}`),
        );
      }
    }
  });

  it("refuses a store that is not a Store, saying what it got", () => {
    for (const [store, got] of [
      [null, "null"],
      [5, "5"],
      ["memory", '"memory"'],
      [{}, "an object"],
      [{ apply: 1 }, "an object"],
    ] as const) {
      expect(() => createEngine({ config, store: store as never })).toThrow(
        invalid(`createEngine: store must be a Store (an object with apply()), got ${got}`),
      );
    }
  });

  it("refuses an unknown idempotency option beside valid failure options", () => {
    expect(() =>
      createEngine({ config, failure: { timeoutMs: 50 }, idempotency: { ttlMS: 1000 } } as never),
    ).toThrow(invalid('createEngine: unknown option "idempotency.ttlMS"; did you mean "idempotency.ttlMs"?'));
  });

  it("checks failure whatever the store: refused at construction, named as the engine's option", () => {
    for (const store of [undefined, new MemoryStore({ capacity: 10 }), new AsyncMemoryStore()]) {
      const make = (failure: unknown) => () => createEngine({ config, store, failure: failure as never });
      expect(make({ timeoutMss: 5 })).toThrow(
        invalid('createEngine: unknown option "failure.timeoutMss"; did you mean "failure.timeoutMs"?'),
      );
      expect(make({ breaker: { faliures: 2 } })).toThrow(
        invalid(
          'createEngine: unknown option "failure.breaker.faliures"; did you mean "failure.breaker.failures"?',
        ),
      );
      expect(make({ fallbackShare: 2 })).toThrow(
        invalid("createEngine: failure.fallbackShare must be a number in (0, 1], got 2"),
      );
      expect(make({ timeoutMs: "50" })).toThrow(
        invalid(/^createEngine: failure\.timeoutMs must be .*, got "50"$/),
      );
      expect(make(null)).toThrow(invalid(/^createEngine: failure must be an object of options/));
      expect(make([])).toThrow(invalid(/^createEngine: failure must be an object of options/));
      // What the engine sets itself per wrapper would be silently overridden: refused, saying where it comes from.
      expect(make({ onError: "fail_open" })).toThrow(
        invalid(
          "createEngine: failure.onError is not an option of the engine: each rule's failure policy chooses it",
        ),
      );
      expect(make({ clock: new ManualClock(0) })).toThrow(
        invalid(
          "createEngine: failure.clock is not an option of the engine: the engine's own `clock` is used",
        ),
      );
      expect(make({ scheduler: new ManualClock(0) })).toThrow(
        invalid(
          "createEngine: failure.scheduler is not an option of the engine: the engine's own `scheduler` is used",
        ),
      );
      expect(make({})).not.toThrow();
    }
  });
});

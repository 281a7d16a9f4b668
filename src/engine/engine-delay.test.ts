import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import type { PolicyStatus } from "../core/decision.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor } from "../rules/rule.js";
import { any, makeConfig, makeRule } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { type CheckRequest, type CheckResult, createEngine } from "./engine.js";

// A `delay` rule's store decision is taken under a GCRA whose burst holds the requests that may wait as well; its
// results must read against the limits it reports (the configured ones), as a `reject` rule of the same limits reads,
// on every path: hot and general, synchronous and asynchronous.

const T0 = 1_700_000_000_000;
const spec = (input: LimitSpecInput) => parseLimitSpec(input);

/** 1 per second, burst 2: as a delay rule with waits of up to 3 s (3 whole intervals), and as a reject rule. */
const limits = [spec({ name: "rate", algorithm: "gcra", limit: 1, periodMs: 1000, burst: 2 })];
/** 3 per second (T = 333.3 ms), burst 3, waits of up to 500 ms: an extension of 1.5 units, not a whole number. */
const odd = [spec({ name: "odd", algorithm: "gcra", limit: 3, periodMs: 1000, burst: 3 })];
/** 10 per second with a burst of 20: the state reads against the burst, as a reject rule's does. */
const bursty = [spec({ name: "bursty", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 20 })];
const config = makeConfig({
  rules: [
    makeRule({
      id: "shaped",
      domain: "api",
      match: [any("d")],
      behaviour: "delay",
      maxDelayMs: 3000,
      limits,
    }),
    makeRule({ id: "plain", domain: "api", match: [any("r")], limits }),
    // Tiers of the rule's shape: the memory store picks the tier beside the counter (the hot path's choice consumer).
    makeRule({
      id: "tiered",
      domain: "api",
      match: [any("t")],
      behaviour: "delay",
      maxDelayMs: 3000,
      limits: [spec({ name: "rate", algorithm: "gcra", limit: 5, periodMs: 1000 })],
      tiers: { pro: limits },
    }),
    makeRule({
      id: "odd",
      domain: "api",
      match: [any("od")],
      behaviour: "delay",
      maxDelayMs: 500,
      limits: odd,
    }),
    makeRule({ id: "odd-plain", domain: "api", match: [any("or")], limits: odd }),
    // The README's quick start, 10/s with a burst of 20, waits of up to 1 s (10 whole intervals).
    makeRule({
      id: "bursty",
      domain: "api",
      match: [any("bd")],
      behaviour: "delay",
      maxDelayMs: 1000,
      limits: bursty,
    }),
    makeRule({ id: "bursty-plain", domain: "api", match: [any("bp")], limits: bursty }),
  ],
  identities: { "t:p": "pro" },
});

type Path = "sync hot" | "sync general" | "async hot" | "async general";
const PATHS: readonly Path[] = ["sync hot", "sync general", "async hot", "async general"];

/** An engine whose `check` takes `path`. */
function setup(path: Path) {
  const clock = new ManualClock(T0);
  const sync = path.startsWith("sync");
  const store = sync ? new MemoryStore({ capacity: 100 }) : new AsyncMemoryStore();
  const engine = createEngine({ config, store, clock, scheduler: clock });
  const general = path.endsWith("general");
  const check = (descriptor: Descriptor, extra: Partial<CheckRequest> = {}): Promise<CheckResult> => {
    // A limit override slot left undefined changes nothing but sends the request down the general path.
    const req: CheckRequest = {
      domain: "api",
      descriptors: [descriptor],
      ...(general ? { limitOverrides: [undefined] } : {}),
      ...extra,
    };
    return sync ? Promise.resolve(engine.checkSync(req)) : engine.check(req);
  };
  return { clock, engine, check };
}

const of = (key: string, value = "x"): Descriptor => [{ key, value }];
const numbers = (p: PolicyStatus) => ({
  remaining: p.remaining,
  state: p.state,
  resetAfterMs: p.resetAfterMs,
});

describe.each(PATHS)("delay rules report against the configured limits (%s)", (path) => {
  it("reports remaining, state and resetAfterMs as a reject rule of the same limits, then waits", async () => {
    for (const [key, value] of [
      ["d", "x"],
      ["t", "p"], // a tier, on the hot path picked by the store
    ]) {
      const { check } = setup(path);
      // The burst: the same answer as the reject rule's.
      for (let i = 0; i < 2; i++) {
        const shaped = await check(of(key, value));
        const plain = await check(of("r"));
        expect(shaped).toMatchObject({ allowed: true, delayMs: 0 });
        expect(numbers(shaped.decision)).toEqual(numbers(plain.decision));
        expect(numbers(shaped.descriptors[0].decision as PolicyStatus)).toEqual(numbers(plain.decision));
      }
      // Beyond it the reject rule denies; the delay rule admits with a wait, nothing left of the burst.
      for (let i = 1; i <= 3; i++) {
        const shaped = await check(of(key, value));
        expect(shaped).toMatchObject({ allowed: true, delayMs: 1000 * i });
        expect(shaped.decision).toMatchObject({
          remaining: 0,
          state: "warning",
          resetAfterMs: 2000 + 1000 * i,
        });
        expect(shaped.decision.policies[0]).toMatchObject({ remaining: 0, state: "warning" });
      }
      const over = await check(of(key, value));
      expect(over).toMatchObject({ allowed: false, delayMs: 0 });
      expect(over.decision).toMatchObject({ remaining: 0, state: "throttled", retryAfterMs: 1000 });
    }
  });

  it("reads the state against the configured burst, as a reject rule of the same limits does", async () => {
    const { check } = setup(path);
    // 17 of a burst of 20 used is 85%: warning (against the limit of 10, 3 left read as 70% used); 16 is 80%.
    for (const [value, cost, state] of [
      ["a", 17, "warning"],
      ["b", 16, "normal"],
    ] as const) {
      const shaped = await check(of("bd", value), { cost });
      const plain = await check(of("bp", value), { cost });
      expect(shaped.decision).toMatchObject({ allowed: true, remaining: 20 - cost, state });
      expect(numbers(shaped.decision)).toEqual(numbers(plain.decision));
    }
  });

  it("never reports more than the reject rule's remaining when the extension is not whole units", async () => {
    const { check, clock } = setup(path);
    for (let i = 0; i < 12; i++) {
      const shaped = await check(of("od"));
      const plain = await check(of("or"));
      if (!plain.allowed) expect(shaped.decision.remaining).toBe(0);
      else {
        expect(shaped.decision.remaining).toBeLessThanOrEqual(plain.decision.remaining);
        expect(shaped.decision.remaining).toBeGreaterThanOrEqual(plain.decision.remaining - 1);
      }
      clock.advance(100);
    }
  });

  it("a cost-0 check reserves nothing and waits for nothing; its remaining says whether a request would wait", async () => {
    const { check, engine } = setup(path);
    for (let i = 0; i < 4; i++) await check(of("d")); // the burst, then one waiting 2 s
    const probe = await check(of("d"), { cost: 0 });
    expect(probe).toMatchObject({ allowed: true, delayMs: 0 });
    expect(probe.descriptors[0].delayMs).toBe(0);
    expect(probe.decision).toMatchObject({ remaining: 0, state: "warning" });
    expect(engine.stats.delayed).toBe(2);
    // It took no slot: the next request waits 3 s (what it would have waited without the probe).
    expect(await check(of("d"))).toMatchObject({ allowed: true, delayMs: 3000 });
    const fresh = await check(of("d", "other"), { cost: 0 });
    expect(fresh).toMatchObject({ allowed: true, delayMs: 0, decision: { remaining: 2, state: "normal" } });
  });
});

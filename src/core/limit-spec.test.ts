import { describe, expect, it } from "vitest";
import { createLimitSet } from "../algorithms/limit-set.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { ConfigError } from "./errors.js";
import { type LimitSpecInput, MAX_STATE_HORIZON_MS, parseLimitSpec } from "./limit-spec.js";

const T0 = 1_700_000_000_000;

function messageOf(input: LimitSpecInput): string {
  try {
    parseLimitSpec(input, "limits[0]");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected the limit to be refused");
}

describe("parseLimitSpec", () => {
  it("gives a rate below one unit per period a burst of one unit: 0.5 a second is one every 2 s", () => {
    for (const algorithm of ["gcra", "token_bucket", "leaky_bucket"] as const) {
      const spec = parseLimitSpec({ algorithm, limit: 0.5, period: "1s" });
      expect(spec.burst, algorithm).toBe(1);
      const store = new MemoryStore({ capacity: 4 });
      const set = createLimitSet("t", [spec]);
      expect(store.consumeSync(set, "k", 1, T0).allowed, algorithm).toBe(true);
      const denied = store.consumeSync(set, "k", 1, T0 + 1000);
      expect(denied.allowed, algorithm).toBe(false);
      expect(denied.retryAfterMs, algorithm).toBe(1000);
      expect(store.consumeSync(set, "k", 1, T0 + 2000).allowed, algorithm).toBe(true);
    }
    // A whole limit keeps its burst: the limit itself.
    expect(parseLimitSpec({ algorithm: "gcra", limit: 3, period: "1s" }).burst).toBe(3);
  });

  it("refuses a period whose state would outlive what the stores can keep", () => {
    expect(
      parseLimitSpec({ algorithm: "fixed_window", limit: 1, periodMs: MAX_STATE_HORIZON_MS / 2 }).periodMs,
    ).toBe(MAX_STATE_HORIZON_MS / 2);
    expect(messageOf({ algorithm: "fixed_window", limit: 1, periodMs: 1e14 })).toContain(
      "limits[0].periodMs: is too long: a key could take 200000000000000 ms to go back to fresh (period × max(2, burst / limit)); at most 10000000000000 ms (~317 years)",
    );
    expect(messageOf({ algorithm: "gcra", limit: 1, burst: 1e6, period: "365d" })).toContain(
      "limits[0].period: is too long",
    );
  });
});

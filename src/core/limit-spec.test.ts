import { describe, expect, it } from "vitest";
import { createLimitSet } from "../algorithms/limit-set.js";
import { createLimiter } from "../engine/limiter.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { ConfigError } from "./errors.js";
import { type LimitSpecInput, MAX_STATE_HORIZON_MS, parseLimitSpec } from "./limit-spec.js";

const T0 = 1_700_000_000_000;

/** The issues `parseLimitSpec` refuses `input` with, as `path: message`. */
function issuesOf(input: unknown): string[] {
  try {
    parseLimitSpec(input as LimitSpecInput, "limits[0]");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("expected the limit to be refused");
}

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

  it("lists every problem of a limit at once, not only the first field's", () => {
    const PERIOD = 'must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d")';
    expect(issuesOf({ limit: -1, period: "1q", burst: -4 })).toEqual([
      "limits[0].limit: must be a finite number > 0",
      `limits[0].period: ${PERIOD}, got "1q"`,
      "limits[0].burst: must be a finite number >= 1, got -4",
    ]);
    // A limit of the wrong type, an unknown key: the other fields are judged all the same.
    expect(issuesOf({ limit: "ten", period: "1q", bucketMs: 5, extra: 1 })).toEqual([
      "limits[0].limit: must be a number",
      "limits[0]: unknown field(s): extra",
      `limits[0].period: ${PERIOD}, got "1q"`,
      "limits[0].bucketMs: applies only to bucketed_window",
    ]);
    // An unknown algorithm: what is wrong under every algorithm is still reported.
    expect(issuesOf({ algorithm: "nope", limit: 5, periodMs: -1, burst: 0, bucket: "0ms" })).toEqual([
      "limits[0].algorithm: must be one of token_bucket, leaky_bucket, fixed_window, sliding_log, sliding_window, gcra, bucketed_window, concurrency",
      'limits[0].periodMs: must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got -1',
      "limits[0].burst: must be a finite number >= 1, got 0",
      'limits[0].bucket: must be a whole number of milliseconds >= 1, got "0ms"',
    ]);
    expect(issuesOf({ algorithm: "bucketed_window", limit: 0, period: 1000.5, bucket: "1q" })).toEqual([
      "limits[0].limit: must be a finite number > 0",
      'limits[0].bucket: must be a whole number of milliseconds >= 1, got "1q"',
      "limits[0].period: must be a whole number of milliseconds for bucketed_window",
    ]);
  });

  it("does not report what follows from another field being invalid", () => {
    // fixed_window's burst may only repeat the limit: not compared with an invalid one...
    expect(issuesOf({ algorithm: "fixed_window", limit: -1, period: "1s", burst: 3 })).toEqual([
      "limits[0].limit: must be a finite number > 0",
    ]);
    // ...but refused when it could equal no valid limit.
    expect(issuesOf({ algorithm: "fixed_window", limit: -1, period: "1s", burst: 0 })).toEqual([
      "limits[0].limit: must be a finite number > 0",
      "limits[0].burst: applies only to token_bucket, leaky_bucket and gcra; fixed_window admits at most limit per period",
    ]);
    // An invalid algorithm has no rules of its own to break (whole limits, burst or bucket allowed).
    expect(issuesOf({ algorithm: "nope", limit: 2.5, period: "1s", burst: 5, bucketMs: 100 })).toEqual([
      "limits[0].algorithm: must be one of token_bucket, leaky_bucket, fixed_window, sliding_log, sliding_window, gcra, bucketed_window, concurrency",
    ]);
    // No bucket checked against an invalid period, no state horizon from an invalid limit or burst.
    expect(issuesOf({ algorithm: "bucketed_window", limit: 10, period: "1q", bucket: 300 })).toEqual([
      'limits[0].period: must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got "1q"',
    ]);
    expect(issuesOf({ limit: -1, periodMs: 1e14 })).toEqual(["limits[0].limit: must be a finite number > 0"]);
    expect(issuesOf({ limit: 1, periodMs: 1e12, burst: "x" })).toEqual(["limits[0].burst: must be a number"]);
    // Not an object: there is nothing more to say.
    expect(issuesOf(null)).toHaveLength(1);
  });

  it("blames the period, not an unwritten bucket, when the default bucket (period / 10) is not whole", () => {
    expect(issuesOf({ algorithm: "bucketed_window", limit: 5, period: 15 })).toEqual([
      "limits[0].period: gives bucketed_window a default bucket of period / 10 = 1.5 ms, not a whole number of milliseconds; set bucket (a width that divides 15 ms) or pick a period divisible by 10 ms",
    ]);
    // A bucket the user wrote is still the field blamed.
    expect(issuesOf({ algorithm: "bucketed_window", limit: 5, period: 15, bucket: 4 })).toEqual([
      "limits[0].bucket: must divide the period (15 ms) into whole buckets, got 4 ms",
    ]);
    expect(parseLimitSpec({ algorithm: "bucketed_window", limit: 5, period: 15, bucket: 5 }).bucketMs).toBe(
      5,
    );
  });

  it("makes createLimiter list every problem of its limit", () => {
    expect(() => createLimiter({ limits: { limit: -1, period: "1q", burst: -4 } })).toThrow(
      expect.objectContaining({
        code: "ERR_SLUICE_INVALID_LIMIT",
        issues: [
          { path: "limits.limit", message: "must be a finite number > 0" },
          {
            path: "limits.period",
            message: 'must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got "1q"',
          },
          { path: "limits.burst", message: "must be a finite number >= 1, got -4" },
        ],
      }),
    );
  });
});

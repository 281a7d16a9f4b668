import { describe, expect, it } from "vitest";
import { parseLimitSpec } from "../core/limit-spec.js";
import {
  BURST_CYCLE_MS,
  BURST_LENGTH_MS,
  BURST_START_MS,
  generateTraffic,
  maxInSpan,
  PATTERNS,
  RATE_ALGORITHMS,
  simulate,
  spanBound,
} from "./simulation.js";

describe("generateTraffic", () => {
  it("is deterministic for a seed", () => {
    for (const pattern of PATTERNS) {
      const a = generateTraffic({ pattern, rps: 37, durationMs: 5_000, keys: 4, seed: 7 });
      const b = generateTraffic({ pattern, rps: 37, durationMs: 5_000, keys: 4, seed: 7 });
      expect(a).toEqual(b);
    }
    const p1 = generateTraffic({ pattern: "poisson", rps: 50, durationMs: 2_000, seed: 1 });
    const p2 = generateTraffic({ pattern: "poisson", rps: 50, durationMs: 2_000, seed: 2 });
    expect(p1.timesMs).not.toEqual(p2.timesMs);
  });

  it("offers the right number of requests, sorted, in whole ms within the duration", () => {
    const expected = { steady: 200, bursty: 200, ramp: 200, spike: 380 } as const;
    for (const pattern of PATTERNS) {
      const t = generateTraffic({ pattern, rps: 20, durationMs: 10_000, keys: 3, seed: 42 });
      if (pattern === "poisson") {
        // Mean 200, standard deviation ≈ 14: stay within 5σ.
        expect(t.timesMs.length).toBeGreaterThan(130);
        expect(t.timesMs.length).toBeLessThan(270);
      } else {
        expect(t.timesMs.length, pattern).toBe(expected[pattern]);
      }
      expect(t.keys).toHaveLength(t.timesMs.length);
      for (let i = 0; i < t.timesMs.length; i++) {
        expect(Number.isInteger(t.timesMs[i])).toBe(true);
        expect(t.timesMs[i]).toBeGreaterThanOrEqual(i === 0 ? 0 : t.timesMs[i - 1]);
        expect(t.timesMs[i]).toBeLessThan(10_000);
        expect(t.keys[i]).toBeGreaterThanOrEqual(0);
        expect(t.keys[i]).toBeLessThan(3);
      }
    }
  });

  it("spaces steady traffic evenly and keeps bursty traffic inside its bursts", () => {
    const steady = generateTraffic({ pattern: "steady", rps: 20, durationMs: 1_000 });
    expect(steady.timesMs).toEqual(Array.from({ length: 20 }, (_, i) => i * 50));
    const bursty = generateTraffic({ pattern: "bursty", rps: 20, durationMs: 10_000 });
    for (const t of bursty.timesMs) {
      const phase = t % BURST_CYCLE_MS;
      expect(phase).toBeGreaterThanOrEqual(BURST_START_MS);
      expect(phase).toBeLessThan(BURST_START_MS + BURST_LENGTH_MS);
    }
  });

  it("ramps the rate up: the second half carries three times the first", () => {
    const t = generateTraffic({ pattern: "ramp", rps: 100, durationMs: 10_000 });
    const firstHalf = t.timesMs.filter((x) => x < 5_000).length;
    expect(firstHalf).toBe(250);
    expect(t.timesMs.length - firstHalf).toBe(750);
  });
});

describe("maxInSpan", () => {
  it("counts the most times inside any half-open span, exactly", () => {
    expect(maxInSpan([], 1_000)).toBe(0);
    expect(maxInSpan([0, 1_000], 1_000)).toBe(1);
    expect(maxInSpan([0, 999], 1_000)).toBe(2);
    // [10, 1010) holds 10, 20, 990, 1000, 1005; no span of 1000 ms holds six.
    expect(maxInSpan([0, 10, 20, 990, 1_000, 1_005, 1_010, 2_500], 1_000)).toBe(5);
    expect(maxInSpan([5, 5, 5, 5], 1)).toBe(4);
  });
});

describe("simulate", () => {
  const configs = [
    { limit: 10, period: "1s", rps: 20 },
    { limit: 7, period: "700ms", rps: 35, burst: 3 },
    { limit: 5, period: "2s", rps: 50, burst: 12, bucket: "500ms" },
  ];

  it("never admits more in any period span than each algorithm's bound", () => {
    for (const pattern of PATTERNS) {
      for (const { limit, period, rps, burst, bucket } of configs) {
        const traffic = generateTraffic({ pattern, rps, durationMs: 8_000, keys: 2, seed: 3 });
        const limits = RATE_ALGORITHMS.map((algorithm) => ({
          algorithm,
          limit,
          period,
          ...(burst !== undefined && ["token_bucket", "leaky_bucket", "gcra"].includes(algorithm)
            ? { burst }
            : {}),
          ...(bucket !== undefined && algorithm === "bucketed_window" ? { bucket } : {}),
        }));
        const result = simulate({ limits, traffic, buckets: 40 });
        for (const r of result.results) {
          const label = `${pattern} ${r.algorithm} ${limit}/${period}`;
          expect(r.maxInSpan, label).toBeLessThanOrEqual(spanBound(r.spec));
          if (r.algorithm === "sliding_log") expect(r.maxInSpan, label).toBeLessThanOrEqual(limit);
          expect(r.admitted + r.denied).toBe(traffic.timesMs.length);
          expect(r.admittedPerBucket.reduce((a, b) => a + b, 0)).toBe(r.admitted);
        }
        expect(result.offeredPerBucket.reduce((a, b) => a + b, 0)).toBe(traffic.timesMs.length);
      }
    }
  });

  it("shows fixed_window's boundary burst against sliding_log's exact limit", () => {
    const traffic = generateTraffic({ pattern: "bursty", rps: 20, durationMs: 10_000 });
    const result = simulate({
      limits: [
        { algorithm: "fixed_window", limit: 10, period: "1s" },
        { algorithm: "sliding_log", limit: 10, period: "1s" },
      ],
      traffic,
      buckets: 60,
    });
    const [fixed, log] = result.results;
    expect(fixed.overLimitRatio).toBe(2);
    expect(log.maxInSpan).toBe(10);
    expect(log.overLimitRatio).toBe(1);
  });

  it("bounds spans by the parsed spec", () => {
    expect(spanBound(parseLimitSpec({ algorithm: "gcra", limit: 10, period: "1s", burst: 4 }))).toBe(14);
    expect(spanBound(parseLimitSpec({ algorithm: "fixed_window", limit: 10, period: "1s" }))).toBe(20);
    expect(spanBound(parseLimitSpec({ algorithm: "sliding_log", limit: 10, period: "1s" }))).toBe(10);
  });
});

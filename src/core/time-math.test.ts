import { describe, expect, it } from "vitest";
import {
  CEIL_SLACK_MS,
  ceilMs,
  floorCount,
  MAX_NOW_MS,
  rateToleranceMs,
  TIME_TOLERANCE_MS,
  UNIT_TOLERANCE,
} from "./time-math.js";

describe("time-math", () => {
  it("keeps the values the kernels and their Lua twins write as literals", () => {
    // src/algorithms/gcra.ts and drain.ts, and src/stores/redis/scripts/*.lua, write these numbers out.
    expect(TIME_TOLERANCE_MS).toBe(1e-3);
    expect(UNIT_TOLERANCE).toBe(1e-3);
    expect(CEIL_SLACK_MS).toBe(1e-4);
    expect(CEIL_SLACK_MS).toBeLessThan(TIME_TOLERANCE_MS);
  });

  it("bounds nowMs at 2100-01-01, where epoch times resolve 2⁻¹¹ ms and lease ids stay far below 2⁵³", () => {
    expect(MAX_NOW_MS).toBe(Date.UTC(2100, 0, 1));
    expect(MAX_NOW_MS).toBeLessThan(2 ** 42); // one ulp of an epoch time up to it: 2⁻¹¹ ms or less
    expect(Math.floor(MAX_NOW_MS) * 1000 + 1_000_000).toBeLessThan(2 ** 53); // concurrency lease ids
  });

  it("caps the rate tolerance at 1/1000 of an emission interval", () => {
    expect(rateToleranceMs(100)).toBe(1e-3);
    expect(rateToleranceMs(1)).toBe(1e-3);
    expect(rateToleranceMs(0.5)).toBe(5e-4);
    expect(rateToleranceMs(6e-5)).toBeCloseTo(6e-8, 20);
  });

  it("rounds durations up past the slack and counts down past the tolerance", () => {
    expect(ceilMs(1e-4)).toBe(0);
    expect(ceilMs(1.00005)).toBe(1);
    expect(ceilMs(1.0002)).toBe(2);
    expect(floorCount(4.9999999999)).toBe(5);
    expect(floorCount(-1)).toBe(0);
  });
});

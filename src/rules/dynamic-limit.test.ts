import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dynamicLimit } from "./dynamic-limit.js";
import type { DynamicLimit } from "./rule.js";

/** Seed 003's configuration: ewma_window 5m, recent_window_weight 0.75, ewma_multiplier 1.5, rate 1000/s. */
const SEED: DynamicLimit = { windowMs: 300_000, recentWeight: 0.75, multiplier: 1.5 };
const STATIC = 1000;

describe("dynamicLimit — seed 003's worked scenarios (rates per second)", () => {
  it("scenario 1, first 5 minutes: 120,000 requests (400/s), previous 0 → the static rate", () => {
    expect(120_000 / 300).toBe(400);
    expect(dynamicLimit(STATIC, 120_000 / 300, 0, SEED)).toBe(1000);
  });

  it("scenario 1, next 5 minutes: 150,000 requests (500/s), previous 400 → ewma 475, min(712.5, 600) → 1000", () => {
    expect(150_000 / 300).toBe(500);
    expect(dynamicLimit(STATIC, 150_000 / 300, 400, SEED)).toBe(1000);
  });

  it("scenario 2, ramping up: previous 900, current 1200 → ewma 1125, min(1687.5, 1350) → 1350", () => {
    expect(dynamicLimit(STATIC, 1200, 900, SEED)).toBe(1350);
  });

  it("scenario 3, sustained high traffic: previous 1500, current 1600 → ewma 1575, min(2362.5, 2250) → 2250", () => {
    expect(dynamicLimit(STATIC, 1600, 1500, SEED)).toBe(2250);
  });

  it("scenario 4, spike: previous 1000, current 3000 → ewma 2500, min(3750, 1500) → 1500", () => {
    expect(dynamicLimit(STATIC, 3000, 1000, SEED)).toBe(1500);
  });

  it("scenario 5, reduction: previous 2000, current 500 → ewma 875, min(1312.5, 3000) → 1312.5", () => {
    expect(dynamicLimit(STATIC, 500, 2000, SEED)).toBe(1312.5);
  });
});

describe("dynamicLimit — special cases", () => {
  it("previous 0 gives the static limit whatever the current rate (including 0)", () => {
    expect(dynamicLimit(STATIC, 0, 0, SEED)).toBe(STATIC);
    expect(dynamicLimit(STATIC, 1e9, 0, SEED)).toBe(STATIC);
  });

  it("current 0 gives previous·m literally, above the static limit", () => {
    expect(dynamicLimit(STATIC, 0, 2000, SEED)).toBe(3000);
  });

  it("current 0 never goes below the static limit: max(static, previous·m)", () => {
    expect(dynamicLimit(STATIC, 0, 400, SEED)).toBe(STATIC); // previous·m = 600
    expect(dynamicLimit(STATIC, 0, 666, SEED)).toBe(STATIC); // 999
    expect(dynamicLimit(STATIC, 0, 700, SEED)).toBe(1050);
  });

  it("is unit-agnostic: the same rates per window instead of per second scale the result", () => {
    const perWindow = 300;
    expect(dynamicLimit(STATIC * perWindow, 1200 * perWindow, 900 * perWindow, SEED)).toBe(1350 * perWindow);
    expect(dynamicLimit(STATIC * perWindow, 500 * perWindow, 2000 * perWindow, SEED)).toBe(
      1312.5 * perWindow,
    );
  });

  it("w = 1 uses only the current window, w = 0 only the previous one", () => {
    expect(dynamicLimit(10, 100, 50, { windowMs: 1000, recentWeight: 1, multiplier: 2 })).toBe(100); // min(200, 100)
    expect(dynamicLimit(10, 100, 50, { windowMs: 1000, recentWeight: 0, multiplier: 2 })).toBe(100); // min(100, 100)
    expect(dynamicLimit(10, 20, 50, { windowMs: 1000, recentWeight: 1, multiplier: 2 })).toBe(40); // min(40, 100)
  });

  it("rejects negative and non-finite rates", () => {
    expect(() => dynamicLimit(-1, 1, 1, SEED)).toThrow(/staticLimit/);
    expect(() => dynamicLimit(1, Number.NaN, 1, SEED)).toThrow(/currentRate/);
    expect(() => dynamicLimit(1, 1, Number.POSITIVE_INFINITY, SEED)).toThrow(/previousRate/);
  });

  it("with both rates > 0: never below static, never above max(static, previous·m)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        (s, cur, prev, w, m) => {
          const d: DynamicLimit = { windowMs: 1000, recentWeight: w, multiplier: m };
          const l = dynamicLimit(s, cur, prev, d);
          expect(l).toBeGreaterThanOrEqual(s);
          expect(l <= Math.max(s, prev * m)).toBe(true);
        },
      ),
    );
  });
});

import { describe, expect, it } from "vitest";
import { checkOptions, closestName, isClock, isScheduler, shown, unknownOptionError } from "./arguments.js";
import { systemClock, systemScheduler } from "./clock.js";
import { ManualClock } from "./manual-clock.js";

describe("shown", () => {
  it("quotes strings, so that a string is never read as a number", () => {
    expect(shown("2")).toBe('"2"');
    expect(shown("")).toBe('""');
    expect(shown('a"b')).toBe('"a\\"b"');
    expect(shown("x".repeat(70))).toBe(`"${"x".repeat(64)}"… (70 characters)`);
  });

  it("shows numbers, booleans, bigints, null and undefined as written, anything else by its kind", () => {
    expect([2, -0.5, Number.NaN, Infinity, true, 10n, null, undefined].map(shown)).toEqual([
      "2",
      "-0.5",
      "NaN",
      "Infinity",
      "true",
      "10n",
      "null",
      "undefined",
    ]);
    expect([[], {}, () => 1, Symbol("s")].map(shown)).toEqual([
      "an array",
      "an object",
      "a function",
      "a symbol",
    ]);
  });
});

describe("closestName", () => {
  it("names a likely typo's intended name (edit distance ≤ 2, any case), else nothing", () => {
    const known = ["capacity", "sweepIntervalMs", "clock"];
    expect(closestName("capacty", known)).toBe("capacity");
    expect(closestName("CAPACITY", known)).toBe("capacity");
    expect(closestName("clocks", known)).toBe("clock");
    expect(closestName("size", known)).toBeUndefined();
  });
});

describe("checkOptions", () => {
  const known = ["cost", "nowMs"];

  it("accepts an object of known keys, and refuses any other key, even one set to undefined", () => {
    expect(() => checkOptions("m", "options", { cost: 1, nowMs: undefined }, known)).not.toThrow();
    expect(() => checkOptions("m", "options", {}, known)).not.toThrow();
    expect(() => checkOptions("m", "options", { cots: undefined }, known)).toThrow(
      expect.objectContaining({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
        message: 'm: unknown option "cots"; did you mean "cost"?',
      }),
    );
    expect(() => checkOptions("m", "failure", { weight: 1 }, known)).toThrow(
      'm: unknown option "failure.weight"; expected one of failure.cost, failure.nowMs',
    );
  });

  it("refuses what is not an object, naming the field", () => {
    for (const [value, got] of [
      [null, "null"],
      [[], "an array"],
      ["x", '"x"'],
      [undefined, "undefined"],
    ] as const) {
      expect(() => checkOptions("m", "options", value, known)).toThrow(
        `m: options must be an object of options (cost, nowMs), got ${got}`,
      );
    }
  });

  it("builds the unknown-option error with a prefix", () => {
    expect(unknownOptionError("m", "opnMs", ["openMs"], "breaker.").message).toBe(
      'm: unknown option "breaker.opnMs"; did you mean "breaker.openMs"?',
    );
  });
});

describe("isClock", () => {
  it("accepts objects with nowMs()", () => {
    expect([systemClock, new ManualClock(0), { nowMs: () => 0 }].every(isClock)).toBe(true);
    expect([null, {}, () => 0, { nowMs: 5 }].some(isClock)).toBe(false);
  });
});

describe("isScheduler", () => {
  it("accepts objects with sleep()", () => {
    const sleep = () => Promise.resolve();
    expect([systemScheduler, new ManualClock(0), { sleep }].every(isScheduler)).toBe(true);
    expect([null, undefined, 5, {}, sleep, { sleep: 5 }].some(isScheduler)).toBe(false);
  });
});

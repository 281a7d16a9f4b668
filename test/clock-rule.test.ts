import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("the clock rule", () => {
  it("finds no wall-clock reads outside src/core/clock.ts", () => {
    expect(() =>
      execFileSync(process.execPath, ["scripts/check-clock.mjs"], { encoding: "utf8" }),
    ).not.toThrow();
  });
});

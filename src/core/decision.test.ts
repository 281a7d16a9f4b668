import { describe, expect, it } from "vitest";
import { combineDecision, type PolicyStatus } from "./decision.js";

const status = (policy: string, remaining: number, state: PolicyStatus["state"]): PolicyStatus => ({
  policy,
  allowed: state !== "throttled",
  limit: policy === "per-second" ? 10 : 10_000,
  remaining,
  resetAfterMs: policy === "per-second" ? 1000 : 86_400_000,
  retryAfterMs: state === "throttled" ? 1000 : 0,
  state,
  periodMs: policy === "per-second" ? 1000 : 86_400_000,
});

describe("combineDecision", () => {
  it("reports the worst state over every policy while the headline stays the least remaining", () => {
    // 10/s with 9 left (normal) beside 10,000/day at 90% used (1,000 left: warning).
    const d = combineDecision(
      [status("per-second", 9, "normal"), status("per-day", 1000, "warning")],
      "store",
    );
    expect(d).toMatchObject({ allowed: true, policy: "per-second", remaining: 9, state: "warning" });
    expect(d.policies.map((p) => p.state)).toEqual(["normal", "warning"]);
  });

  it("is normal when every policy is, and throttled when any denies or the call was not consumed", () => {
    const calm = [status("per-second", 9, "normal"), status("per-day", 9000, "normal")];
    expect(combineDecision(calm, "store").state).toBe("normal");
    expect(combineDecision(calm, "store", undefined, false).state).toBe("throttled");
    const denied = [status("per-second", 0, "throttled"), status("per-day", 1000, "warning")];
    expect(combineDecision(denied, "store")).toMatchObject({
      allowed: false,
      policy: "per-second",
      state: "throttled",
    });
  });
});

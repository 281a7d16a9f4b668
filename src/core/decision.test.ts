import { describe, expect, it } from "vitest";
import {
  combineDecision,
  type Decision,
  decisionOf,
  type PolicyStatus,
  policyStatusOf,
  singleDecision,
  verdictDecision,
} from "./decision.js";

const second = { name: "per-second", limit: 10, periodMs: 1000 };
const minute = { name: "per-minute", limit: 100, periodMs: 60_000 };
const verdict = { remaining: 7, resetAfterMs: 300, retryAfterMs: 0 };

/** The JSON round trip a caller would use to copy a decision, or to send it over the wire. */
const viaJSON = (d: Decision) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>;

describe("Decision serialisation", () => {
  // Every way the library builds a single-limit decision (a class whose `policies` is a prototype getter).
  const singles: [string, Decision][] = [
    ["decisionOf", decisionOf("per-second", true, 10, 7, 300, 0, "normal", 1000, "store")],
    ["verdictDecision", verdictDecision(second, verdict, true, "normal")],
    ["singleDecision", singleDecision(policyStatusOf(second, verdict, true, false), "store")],
    ["combineDecision of one", combineDecision([policyStatusOf(second, verdict, true, false)], "store")],
  ];
  const multi = combineDecision(
    [policyStatusOf(second, verdict, true, false), policyStatusOf(minute, verdict, true, false)],
    "store",
  );

  it.each(singles)(
    "JSON of a single-limit decision (%s) has the keys of a multi-limit one, in order",
    (_, d) => {
      expect(Object.keys(viaJSON(d))).toEqual(Object.keys(viaJSON(multi)));
      expect(Object.keys(viaJSON(d))).toContain("policies");
    },
  );

  it.each(singles)("policies round-trips through JSON (%s)", (_, d) => {
    const copy = viaJSON(d);
    expect(copy.policies).toEqual([
      {
        policy: "per-second",
        allowed: true,
        limit: 10,
        remaining: 7,
        resetAfterMs: 300,
        retryAfterMs: 0,
        state: "normal",
        periodMs: 1000,
      },
    ]);
    // Its policy status has the keys of a multi-limit decision's (a plain PolicyStatus, no nested policies).
    expect(Object.keys((copy.policies as object[])[0])).toEqual(
      Object.keys((viaJSON(multi).policies as object[])[0]),
    );
    expect({ ...copy, policies: undefined }).toEqual({ ...d, policies: undefined });
  });

  it("keeps a single-limit decision's leases in its JSON", () => {
    const d = singleDecision(policyStatusOf(second, verdict, true, false), "store", { jobs: 3 });
    expect(viaJSON(d)).toMatchObject({ leases: { jobs: 3 }, policies: [{ policy: "per-second" }] });
  });

  it("computes policies on read for a single-limit decision: a spread drops it, JSON keeps it", () => {
    const [, d] = singles[1];
    expect(d.policies).toEqual([d]);
    expect("policies" in { ...d }).toBe(false); // documented on Decision: the getter is not an own property
    expect(Object.hasOwn(d, "policies")).toBe(false); // no array allocated per decision
    expect("policies" in { ...multi }).toBe(true);
  });
});

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

import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import { createEngine } from "../engine/engine.js";
import { parseConfig } from "../rules/load-config.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import {
  fieldOf,
  invalidRequestProblem,
  QUOTA_EXCEEDED_TYPE,
  quotaExceededProblem,
  statusProblem,
} from "./problem-details.js";

const T0 = 1_700_000_000_000;
const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - { name: per-second, algorithm: fixed_window, limit: 1, period: 1s }
      - { name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }
  - id: banned
    domain: api
    match: [{ key: ip, value: 203.0.113.9 }]
    blocked: true
`;

function setup() {
  const clock = new ManualClock(T0 + 100);
  const engine = createEngine({
    config: parseConfig(CONFIG),
    store: new MemoryStore({ capacity: 100 }),
    clock,
    scheduler: clock,
  });
  return { engine };
}

describe("problem details", () => {
  it("describes a denial as quota-exceeded with the violated policies and retry-after", () => {
    const { engine } = setup();
    const req = { domain: "api", descriptors: [[{ key: "user", value: "1" }]] };
    engine.checkSync(req);
    const p = quotaExceededProblem(engine.checkSync(req));
    expect(p).toEqual({
      type: QUOTA_EXCEEDED_TYPE,
      title: "Request cannot be satisfied as assigned quota has been exceeded",
      status: 429,
      detail: "Over the limit of policy per-second; retry in 1 s.",
      "violated-policies": ["per-second"],
      "retry-after": 1,
    });
    expect(quotaExceededProblem(engine.checkSync(req), 403).status).toBe(403);
  });

  it("leaves retry-after out when the request can never pass", () => {
    const { engine } = setup();
    const p = quotaExceededProblem(
      engine.checkSync({ domain: "api", descriptors: [[{ key: "ip", value: "203.0.113.9" }]] }),
    );
    expect(p["violated-policies"]).toEqual(["banned"]);
    expect(p).not.toHaveProperty("retry-after");
    expect(p.detail).toBe("Over the limit of policy banned; this request cannot pass.");
  });

  it("names the field of an invalid request", () => {
    const p = invalidRequestProblem("descriptors[0].entries[1].key must be a string, got 5");
    expect(p).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "descriptors[0].entries[1].key must be a string, got 5",
      "invalid-params": [{ name: "descriptors[0].entries[1].key", reason: "must be a string, got 5" }],
    });
    expect(invalidRequestProblem("body", "body")["invalid-params"]).toEqual([
      { name: "body", reason: "body" },
    ]);
    expect(fieldOf('"cots" is not a known field')).toBe('"cots"');
    expect(fieldOf("  no field")).toBeUndefined();
    expect(invalidRequestProblem("?")).not.toHaveProperty("invalid-params");
  });

  it("titles other statuses by their reason phrase", () => {
    expect(statusProblem(405, "GET only")).toEqual({
      type: "about:blank",
      title: "Method Not Allowed",
      status: 405,
      detail: "GET only",
    });
    expect(statusProblem(418, "x").title).toBe("HTTP 418");
  });
});

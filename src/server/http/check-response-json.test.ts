import { describe, expect, it } from "vitest";
import { ManualClock } from "../../core/manual-clock.js";
import { createRandom } from "../../core/random.js";
import { createEngine } from "../../engine/engine.js";
import { parseConfig } from "../../rules/load-config.js";
import { MemoryStore } from "../../stores/memory/memory-store.js";
import { type ApiCheckResponse, checkResponseOf } from "../check-api.js";
import { checkResponseJson } from "./check-response-json.js";

const T0 = 1_700_000_000_000;

// Every shape of answer: several policies, renamed policies, blocked, unlimited, shadow, delay, concurrency, odd
// names that need escaping, and descriptors that match nothing.
const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - { name: per-second, algorithm: fixed_window, limit: 3, period: 1s }
      - { name: "per \\"minute\\" \\\\ é", algorithm: sliding_window, limit: 10, period: 1m }
  - id: user-endpoint
    domain: api
    match: [{ key: user }, { key: endpoint }]
    limits: [{ name: per-second, algorithm: token_bucket, limit: 2, period: 1s }]
  - id: banned
    domain: api
    match: [{ key: ip, value: 203.0.113.9 }]
    blocked: true
  - id: free
    domain: api
    match: [{ key: endpoint, value: /healthz }]
    unlimited: true
  - id: trial
    domain: api
    match: [{ key: trial }]
    behaviour: shadow
    limits: [{ name: per-second, algorithm: gcra, limit: 1, period: 1s }]
  - id: shaped
    domain: api
    match: [{ key: shaped }]
    behaviour: delay
    maxDelay: 2s
    limits: [{ name: per-second, algorithm: leaky_bucket, limit: 2, period: 1s }]
`;

describe("checkResponseJson", () => {
  it("writes exactly what JSON.stringify writes, for every kind of answer", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({
      config: parseConfig(CONFIG),
      store: new MemoryStore({ capacity: 1000 }),
      clock,
      scheduler: clock,
    });
    const rand = createRandom(7);
    const entries = [
      [{ key: "user", value: "u1" }],
      [{ key: "user", value: 'u"2\\\n\u2028' }],
      [
        { key: "user", value: "u1" },
        { key: "endpoint", value: "/items" },
      ],
      [{ key: "ip", value: "203.0.113.9" }],
      [{ key: "endpoint", value: "/healthz" }],
      [{ key: "trial", value: "t" }],
      [{ key: "shaped", value: "s" }],
      [{ key: "nothing", value: "x" }],
    ];
    const seen = new Set<string>();
    let compared = 0;
    for (let i = 0; i < 400; i++) {
      const n = 1 + Math.floor(rand() * 3);
      const descriptors = Array.from({ length: n }, () => entries[Math.floor(rand() * entries.length)]);
      const cost = rand() < 0.1 ? 0 : rand() < 0.1 ? 50 : 1;
      const result = await engine.check({ domain: "api", descriptors, cost });
      const response: ApiCheckResponse = checkResponseOf(result, clock.nowMs());
      expect(checkResponseJson(response)).toBe(JSON.stringify(response));
      seen.add(`${response.allowed}/${response.state}/${response.policies.length}/${response.retry_after}`);
      compared++;
      clock.advance(rand() * 300);
    }
    expect(compared).toBe(400);
    expect(seen.size).toBeGreaterThan(8);
  });

  it("writes non-finite numbers as null, as JSON.stringify does", () => {
    const response: ApiCheckResponse = {
      allowed: false,
      current_count: Number.NaN,
      limit: Number.POSITIVE_INFINITY,
      remaining: -0,
      reset_at: 1e21,
      retry_after: -1,
      reset_at_ms: 0.1,
      retry_after_ms: Number.NEGATIVE_INFINITY,
      delay_ms: 0,
      state: "throttled",
      replayed: true,
      reason: "fail_closed",
      policies: [],
      descriptors: [],
    };
    expect(checkResponseJson(response)).toBe(JSON.stringify(response));
  });
});

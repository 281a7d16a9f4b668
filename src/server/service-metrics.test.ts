import { describe, expect, it } from "vitest";
import { AsyncMemoryStore } from "../../test/support/async-memory-store.js";
import { failingStore } from "../../test/support/failing-store.js";
import { ManualClock } from "../core/manual-clock.js";
import { createEngine } from "../engine/engine.js";
import { parseConfig } from "../rules/load-config.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { resilientStore } from "../stores/resilient-store.js";
import { shardedStore } from "../stores/sharded-store.js";
import { createInflightGate } from "./inflight-gate.js";
import { createServiceMetrics, MAX_DETAILED_SERIES } from "./service-metrics.js";

const T0 = 1_700_000_000_000;
const CONFIG = `
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-second, algorithm: fixed_window, limit: 1, period: 1s }]
  - id: trial
    domain: api
    match: [{ key: trial }]
    behaviour: shadow
    limits: [{ name: trial, algorithm: fixed_window, limit: 1, period: 1m }]
  - id: fallback-rule
    domain: api
    match: [{ key: tenant }]
    failurePolicy: fail_open
    limits: [{ name: per-second, algorithm: fixed_window, limit: 1, period: 1s }]
`;

/** One sample of the text exposition. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses Prometheus text exposition format (version 0.0.4), failing on any malformed line. */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`malformed exposition line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2] !== undefined && m[2] !== "") {
      for (const pair of m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g))
        labels[pair[1]] = pair[2];
    }
    // Go's ParseFloat (Prometheus' parser) takes NaN and Inf in any case; prom-client writes "Nan".
    const raw = m[3].toLowerCase();
    const value =
      raw === "+inf" ? Number.POSITIVE_INFINITY : raw === "-inf" ? Number.NEGATIVE_INFINITY : Number(m[3]);
    if (Number.isNaN(value) && raw !== "nan") throw new Error(`bad value in: ${line}`);
    out.push({ name: m[1], labels, value });
  }
  return out;
}

function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const s = samples.find(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
  return s?.value;
}

describe("createServiceMetrics", () => {
  it("renders decisions, requests, latency, reloads, in-flight and store metrics as parseable text", async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore({ capacity: 2 });
    const engine = createEngine({ config: parseConfig(CONFIG), store, clock, scheduler: clock });
    const gate = createInflightGate(10, clock);
    const metrics = createServiceMetrics(engine, { gate });

    const check = (domain: string, key: string, value: string) => {
      const r = engine.checkSync({ domain, descriptors: [[{ key, value }]] });
      metrics.recordDecision(domain, r);
      return r;
    };
    check("api", "user", "1");
    check("api", "user", "1"); // denied
    check("api", "trial", "t");
    check("api", "trial", "t"); // shadow denied
    check("nowhere", "user", "1"); // no rule: nothing recorded
    check("api", "user", "2");
    check("api", "user", "3"); // a third key in a capacity-2 store: an eviction
    metrics.recordRequest("http_check", "ok", 0.3);
    metrics.recordRequest("http_check", "over_limit", 2);
    metrics.recordRequest("grpc_envoy", "invalid", 0.01);
    gate.tryEnter();
    // A version of the admin API's (its repository's), which the gauge reports.
    engine.updateConfig(Object.freeze({ ...parseConfig(CONFIG), version: 4 }));
    expect(() => engine.reportConfigError(new Error("bad yaml"), "x.yaml")).not.toThrow();

    const { contentType, body } = await metrics.render();
    expect(contentType).toMatch(/^text\/plain/);
    const s = parseExposition(body);
    const dec = (rule: string, outcome: string) =>
      sampleValue(s, "sluice_decisions_total", { domain: "api", rule, outcome });
    expect(dec("per-user", "allowed")).toBe(3);
    expect(dec("per-user", "denied")).toBe(1);
    expect(dec("trial", "allowed")).toBe(1);
    expect(dec("trial", "shadow_denied")).toBe(1);
    expect(s.some((x) => x.name === "sluice_decisions_total" && x.labels.domain === "nowhere")).toBe(false);
    expect(sampleValue(s, "sluice_requests_total", { api: "http_check", code: "ok" })).toBe(1);
    expect(sampleValue(s, "sluice_requests_total", { api: "http_check", code: "over_limit" })).toBe(1);
    expect(sampleValue(s, "sluice_request_duration_seconds_count", { api: "http_check" })).toBe(2);
    expect(
      sampleValue(s, "sluice_request_duration_seconds_bucket", { api: "http_check", le: "0.0005" }),
    ).toBe(1);
    expect(
      sampleValue(s, "sluice_request_duration_seconds_bucket", { api: "http_check", le: "0.0025" }),
    ).toBe(2);
    expect(sampleValue(s, "sluice_request_duration_seconds_count", { api: "grpc_envoy" })).toBe(1);
    expect(sampleValue(s, "sluice_inflight_requests")).toBe(1);
    expect(sampleValue(s, "sluice_config_reloads_total", { result: "applied" })).toBe(1);
    expect(sampleValue(s, "sluice_config_reloads_total", { result: "refused" })).toBe(1);
    expect(sampleValue(s, "sluice_config_version")).toBe(4);
    expect(sampleValue(s, "sluice_store_evictions_total")).toBeGreaterThanOrEqual(1);
    expect(sampleValue(s, "sluice_store_keys")).toBeLessThanOrEqual(2);
    expect(sampleValue(s, "sluice_store_large_state_bytes")).toBe(0); // gcra only: no large state
    expect(sampleValue(s, "process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(0);
  });

  it("reports the engine's in-process idempotency records and their estimated bytes", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({
      config: parseConfig(CONFIG),
      store: new MemoryStore({ capacity: 100 }),
      clock,
      idempotency: { maxBytes: 50_000 },
    });
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const gauges = async () => {
      const s = parseExposition((await metrics.render()).body);
      return [sampleValue(s, "sluice_idempotency_records"), sampleValue(s, "sluice_idempotency_bytes")];
    };
    expect(await gauges()).toEqual([0, 0]);
    for (let i = 0; i < 20; i++) {
      const value = `${i}-`.padEnd(1000, "x");
      engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value }]], idempotencyKey: `k${i}` });
    }
    const [records, bytes] = await gauges();
    expect([records, bytes]).toEqual([engine.stats.idempotencyRecords, engine.stats.idempotencyBytes]);
    expect(records).toBeGreaterThan(0);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(50_000);
  });

  it("labels decisions of a domain outside the configuration `unknown`", async () => {
    const clock = new ManualClock(T0);
    const engine = createEngine({ config: parseConfig(CONFIG), clock, scheduler: clock });
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const r = engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: "1" }]] });
    metrics.recordDecision("made-up-domain", r);
    metrics.recordDecision("api", { ...r, replayed: true }); // replays are not counted again
    const s = parseExposition((await metrics.render()).body);
    expect(
      sampleValue(s, "sluice_decisions_total", { domain: "unknown", rule: "per-user", outcome: "allowed" }),
    ).toBe(1);
    expect(sampleValue(s, "sluice_decisions_total", { domain: "api" })).toBeUndefined();
    expect(s.some((x) => x.name.startsWith("process_"))).toBe(false);
  });

  it("counts the decisions of detailedMetric rules per counter key, the first keys on their own, later ones as other", async () => {
    const clock = new ManualClock(T0);
    const config = parseConfig(`${CONFIG}
  - id: per-key
    domain: api
    match: [{ key: api_key }]
    detailedMetric: true
    limits: [{ name: per-second, algorithm: fixed_window, limit: 1, period: 1s }]
`);
    const engine = createEngine({ config, clock, scheduler: clock });
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const check = (value: string) =>
      metrics.recordDecision(
        "api",
        engine.checkSync({ domain: "api", descriptors: [[{ key: "api_key", value }]] }),
      );
    check("k1");
    check("k1");
    for (let i = 0; i < MAX_DETAILED_SERIES + 5; i++) check(`n${i}`);
    metrics.recordDecision(
      "api",
      engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: "u" }]] }),
    );
    const s = parseExposition((await metrics.render()).body);
    const detailed = (labels: Record<string, string>) =>
      sampleValue(s, "sluice_detailed_decisions_total", { domain: "api", rule: "per-key", ...labels });
    expect(detailed({ key: "k1", outcome: "allowed" })).toBe(1);
    expect(detailed({ key: "k1", outcome: "denied" })).toBe(1);
    expect(detailed({ key: `n${MAX_DETAILED_SERIES - 2}`, outcome: "allowed" })).toBe(1);
    expect(detailed({ key: `n${MAX_DETAILED_SERIES - 1}` })).toBeUndefined();
    expect(detailed({ key: "other", outcome: "allowed" })).toBe(6);
    const keys = new Set(
      s.filter((x) => x.name === "sluice_detailed_decisions_total").map((x) => x.labels.key),
    );
    expect(keys.size).toBe(MAX_DETAILED_SERIES + 1);
    // Rules without it add no series.
    expect(sampleValue(s, "sluice_detailed_decisions_total", { rule: "per-user" })).toBeUndefined();
    expect(sampleValue(s, "sluice_decisions_total", { rule: "per-key", outcome: "allowed" })).toBe(
      MAX_DETAILED_SERIES + 6,
    );
  });

  it("reports a resilient store's errors and failure-policy decisions", async () => {
    const clock = new ManualClock(T0);
    const failing = failingStore();
    const store = resilientStore(failing, { onError: "fail_open", clock, scheduler: clock });
    const engine = createEngine({ config: parseConfig(CONFIG), store, clock, scheduler: clock });
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const r = await engine.check({ domain: "api", descriptors: [[{ key: "tenant", value: "a" }]] });
    expect(r.allowed).toBe(true);
    metrics.recordDecision("api", r);
    const s = parseExposition((await metrics.render()).body);
    expect(sampleValue(s, "sluice_store_errors_total")).toBe(1);
    expect(sampleValue(s, "sluice_store_calls_total")).toBe(1);
    expect(sampleValue(s, "sluice_store_breaker_open")).toBe(0);
    expect(
      sampleValue(s, "sluice_failure_policy_decisions_total", {
        domain: "api",
        rule: "fallback-rule",
        policy: "fail_open",
      }),
    ).toBe(1);
  });

  it("reports the failure wrappers the engine puts around a shared store, by policy", async () => {
    // `sluice serve` hands the engine the bare store: the engine wraps it once per failure policy its rules use.
    const clock = new ManualClock(T0);
    const failing = failingStore();
    const engine = createEngine({
      config: parseConfig(CONFIG),
      store: failing,
      clock,
      scheduler: clock,
      failure: { breaker: { failures: 2, openMs: 1000 } },
    });
    expect([...engine.failureStores.keys()].sort()).toEqual(["fail_open", "fallback"]);
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    for (let i = 0; i < 3; i++) {
      await engine.check({ domain: "api", descriptors: [[{ key: "tenant", value: "a" }]] }); // fail_open
    }
    await engine.check({ domain: "api", descriptors: [[{ key: "user", value: "1" }]] }); // fallback (the default)
    const s = parseExposition((await metrics.render()).body);
    const at = (name: string, policy: string) => sampleValue(s, name, { policy });
    expect(at("sluice_store_calls_total", "fail_open")).toBe(2); // the third was short-circuited
    expect(at("sluice_store_errors_total", "fail_open")).toBe(2);
    expect(at("sluice_store_short_circuited_total", "fail_open")).toBe(1);
    expect(at("sluice_store_breaker_opened_total", "fail_open")).toBe(1);
    expect(at("sluice_store_breaker_open", "fail_open")).toBe(1);
    expect(at("sluice_store_calls_total", "fallback")).toBe(1);
    expect(at("sluice_store_errors_total", "fallback")).toBe(1);
    expect(at("sluice_store_breaker_open", "fallback")).toBe(0);
    expect(at("sluice_store_queue_timeouts_total", "fallback")).toBe(0);
  });

  it("reports a sharded store's failure wrappers by policy and shard: one breaker per shard", async () => {
    const clock = new ManualClock(T0);
    const [up, down] = [new AsyncMemoryStore(), failingStore()];
    const sharded = shardedStore({
      shards: [
        { id: "10.0.0.1:6379/0", store: up },
        { id: "10.0.0.2:6379/0", store: down },
      ],
    });
    const engine = createEngine({
      config: parseConfig(CONFIG),
      store: sharded,
      clock,
      scheduler: clock,
      failure: { breaker: { failures: 2, openMs: 1000 } },
    });
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const onShard = (id: string) => {
      for (let i = 0; ; i++) if (sharded.shardFor(`a${i}`) === id) return `a${i}`;
    };
    // The counter key of a `tenant` descriptor is its value (one variable entry).
    for (const id of ["10.0.0.1:6379/0", "10.0.0.2:6379/0"]) {
      for (let i = 0; i < 3; i++) {
        await engine.check({ domain: "api", descriptors: [[{ key: "tenant", value: onShard(id) }]] });
      }
    }
    const s = parseExposition((await metrics.render()).body);
    const at = (name: string, shard: string) => sampleValue(s, name, { policy: "fail_open", shard });
    expect(at("sluice_store_calls_total", "10.0.0.1:6379/0")).toBe(3);
    expect(at("sluice_store_errors_total", "10.0.0.1:6379/0")).toBe(0);
    expect(at("sluice_store_breaker_open", "10.0.0.1:6379/0")).toBe(0);
    expect(at("sluice_store_calls_total", "10.0.0.2:6379/0")).toBe(2); // the third was short-circuited
    expect(at("sluice_store_errors_total", "10.0.0.2:6379/0")).toBe(2);
    expect(at("sluice_store_short_circuited_total", "10.0.0.2:6379/0")).toBe(1);
    expect(at("sluice_store_breaker_opened_total", "10.0.0.2:6379/0")).toBe(1);
    expect(at("sluice_store_breaker_open", "10.0.0.2:6379/0")).toBe(1);
    // One series per policy in use (the rules use two) and shard, never one without a shard on a sharded store.
    const gauges = s.filter((x) => x.name === "sluice_store_breaker_open");
    expect(gauges.map((x) => `${x.labels.policy} ${x.labels.shard}`).sort()).toEqual([
      "fail_open 10.0.0.1:6379/0",
      "fail_open 10.0.0.2:6379/0",
      "fallback 10.0.0.1:6379/0",
      "fallback 10.0.0.2:6379/0",
    ]);
  });

  it("has no store traffic series on an in-process store", async () => {
    const engine = createEngine({ config: parseConfig(CONFIG) });
    expect(engine.failureStores.size).toBe(0);
    const metrics = createServiceMetrics(engine, { defaultMetrics: false });
    const s = parseExposition((await metrics.render()).body);
    expect(s.some((x) => x.name === "sluice_store_calls_total")).toBe(false);
  });

  it("registers into a given registry and never into the global one", async () => {
    const { Registry, register } = await import("prom-client");
    const registry = new Registry();
    const clock = new ManualClock(T0);
    const engine = createEngine({ config: parseConfig(CONFIG), clock, scheduler: clock });
    createServiceMetrics(engine, { registry });
    createServiceMetrics(createEngine({ config: parseConfig(CONFIG), clock }), {}); // a second one: no clash
    expect(registry.getSingleMetric("sluice_decisions_total")).toBeDefined();
    expect(register.getSingleMetric("sluice_decisions_total")).toBeUndefined();
  });
});

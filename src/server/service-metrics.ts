/**
 * The service's Prometheus metrics (prom-client), in a registry of their own (never prom-client's global one, so
 * two services in one process, or tests, never collide). Label values are bounded: `rule` is a rule id of the
 * configuration, `domain` a domain of the configuration or `unknown`, `api` and `code` closed sets; no caller
 * value ever becomes a label.
 *
 * | metric | type | labels | meaning |
 * |---|---|---|---|
 * | `sluice_decisions_total` | counter | domain, rule, outcome | one per counted descriptor: `allowed` (its rule's limits admitted it — the request may still have been denied by another descriptor), `denied` (its limits refused it; `blocked` rules included), `shadow_denied` (a shadow rule over its limit; shadow denials are folded in here, there is no separate counter). Replays are not counted again. |
 * | `sluice_failure_policy_decisions_total` | counter | domain, rule, policy | descriptors decided by a failure policy (`fail_open`, `fail_closed`, `fallback`) because the store failed |
 * | `sluice_requests_total` | counter | api, code | served requests by outcome (`ok`, `over_limit`, `invalid`, `overloaded`, `unavailable`, `error`) |
 * | `sluice_request_duration_seconds` | histogram | api | latency of served requests, buckets from 50 µs to 1 s |
 * | `sluice_inflight_requests` | gauge | | requests holding a slot of the in-flight gate (when a gate is given) |
 * | `sluice_config_reloads_total` | counter | result | configuration updates `applied` / `refused` (engine events) |
 * | `sluice_config_version` | gauge | | the engine's configuration version (1 = the first) |
 * | `sluice_store_evictions_total` | counter | | memory store keys evicted while holding usage (when the engine's store is a memory store) |
 * | `sluice_store_keys` | gauge | | keys a memory store holds |
 * | `sluice_store_calls_total`, `sluice_store_errors_total`, `sluice_store_timeouts_total`, `sluice_store_short_circuited_total` | counter | | a `ResilientStore`'s traffic (when the engine's store is one) |
 * | `sluice_store_breaker_open` | gauge | | 1 while that store's breaker is open or half-open |
 * | process_*, nodejs_* | | | prom-client's default metrics |
 */
import client, { type Registry } from "prom-client";
import type { CheckResult, Engine } from "../engine/engine.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { ResilientStore } from "../stores/resilient-store.js";
import type { InflightGate, ServiceApi, ServiceMetrics, ServiceOutcome } from "./service-context.js";

/** Latency buckets, seconds: sub-millisecond resolution for memory-store checks up to 1 s for slow stores. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/** Options of {@link createServiceMetrics}. */
export interface ServiceMetricsOptions {
  /** The registry to register into. @default a new `Registry` */
  readonly registry?: Registry;
  /** The gate whose in-flight count `sluice_inflight_requests` reports. */
  readonly gate?: Pick<InflightGate, "inflight">;
  /** Register prom-client's default process metrics (skipped when the registry already has them). @default true */
  readonly defaultMetrics?: boolean;
}

/** The domains that have rules in the engine's configuration now. */
function domainsOf(engine: Engine): Set<string> {
  const out = new Set<string>();
  for (const r of engine.config.rules) out.add(r.domain);
  return out;
}

/** Sets a collect-time counter to an absolute value read from elsewhere. */
function setCounter(c: client.Counter, value: number): void {
  c.reset();
  if (value > 0) c.inc(value);
}

/**
 * Creates the service's metrics over `engine` (see the module comment for the catalogue). Listens to the engine's
 * `config` and `configError` events for the process lifetime.
 */
export function createServiceMetrics(engine: Engine, options: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = options.registry ?? new client.Registry();
  const registers = [registry];
  if (
    options.defaultMetrics !== false &&
    registry.getSingleMetric("process_cpu_user_seconds_total") === undefined
  ) {
    client.collectDefaultMetrics({ register: registry });
  }

  const decisions = new client.Counter({
    name: "sluice_decisions_total",
    help: "Decisions per counted descriptor, by domain, rule and outcome (allowed, denied, shadow_denied).",
    labelNames: ["domain", "rule", "outcome"] as const,
    registers,
  });
  const degraded = new client.Counter({
    name: "sluice_failure_policy_decisions_total",
    help: "Descriptors decided by a failure policy because the store failed, by domain, rule and policy.",
    labelNames: ["domain", "rule", "policy"] as const,
    registers,
  });
  const requests = new client.Counter({
    name: "sluice_requests_total",
    help: "Served requests by API and outcome code.",
    labelNames: ["api", "code"] as const,
    registers,
  });
  const duration = new client.Histogram({
    name: "sluice_request_duration_seconds",
    help: "Latency of served requests by API, seconds.",
    labelNames: ["api"] as const,
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers,
  });
  const reloads = new client.Counter({
    name: "sluice_config_reloads_total",
    help: "Configuration updates by result (applied, refused).",
    labelNames: ["result"] as const,
    registers,
  });
  new client.Gauge({
    name: "sluice_config_version",
    help: "Version of the configuration in use (1 = the first one loaded).",
    registers,
    collect() {
      this.set(engine.status.version);
    },
  });
  const gate = options.gate;
  if (gate !== undefined) {
    new client.Gauge({
      name: "sluice_inflight_requests",
      help: "Requests currently holding a slot of the in-flight gate.",
      registers,
      collect() {
        this.set(gate.inflight);
      },
    });
  }

  const store = engine.store;
  if (store instanceof MemoryStore) {
    new client.Counter({
      name: "sluice_store_evictions_total",
      help: "Memory store keys evicted while still holding usage, to make room.",
      registers,
      collect() {
        setCounter(this, store.stats.evicted);
      },
    });
    new client.Gauge({
      name: "sluice_store_keys",
      help: "Keys the memory store holds.",
      registers,
      collect() {
        this.set(store.stats.size);
      },
    });
  }
  if (store instanceof ResilientStore) {
    const fromStats = (name: string, help: string, read: (s: ResilientStore["stats"]) => number): void => {
      new client.Counter({
        name,
        help,
        registers,
        collect() {
          setCounter(this, read(store.stats));
        },
      });
    };
    fromStats("sluice_store_calls_total", "Calls that reached the store.", (s) => s.storeCalls);
    fromStats("sluice_store_errors_total", "Store calls that failed, timeouts included.", (s) => s.failures);
    fromStats("sluice_store_timeouts_total", "Store calls that timed out.", (s) => s.timeouts);
    fromStats(
      "sluice_store_short_circuited_total",
      "Calls not sent to the store because its breaker was open.",
      (s) => s.shortCircuited,
    );
    new client.Gauge({
      name: "sluice_store_breaker_open",
      help: "1 while the store's circuit breaker is open or half-open, else 0.",
      registers,
      collect() {
        this.set(store.stats.state === "closed" ? 0 : 1);
      },
    });
  }

  let domains = domainsOf(engine);
  engine.on("config", () => {
    domains = domainsOf(engine);
    reloads.inc({ result: "applied" });
  });
  engine.on("configError", () => {
    reloads.inc({ result: "refused" });
  });

  return {
    recordDecision(domain: string, result: CheckResult): void {
      if (result.replayed) return;
      const d = domains.has(domain) ? domain : "unknown";
      for (const r of result.descriptors) {
        const dec = r.decision;
        if (dec === undefined || r.match === undefined) continue;
        const rule = r.match.rule.id;
        const outcome = r.shadowed ? "shadow_denied" : r.code === "OVER_LIMIT" ? "denied" : "allowed";
        decisions.inc({ domain: d, rule, outcome });
        const reason = dec.reason;
        if (reason === "fail_open" || reason === "fail_closed" || reason === "fallback") {
          degraded.inc({ domain: d, rule, policy: reason });
        }
      }
    },
    recordRequest(api: ServiceApi, outcome: ServiceOutcome, latencyMs: number): void {
      requests.inc({ api, code: outcome });
      duration.observe({ api }, Math.max(0, latencyMs) / 1000);
    },
    async render(): Promise<{ readonly contentType: string; readonly body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

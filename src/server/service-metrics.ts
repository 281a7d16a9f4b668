/**
 * The service's Prometheus metrics (prom-client), in a registry of their own (never prom-client's global one, so
 * two services in one process, or tests, never collide). Label values are bounded: `rule` is a rule id of the
 * configuration, `domain` a domain of the configuration or `unknown`, `api` and `code` closed sets; no caller
 * value becomes a label, except the counter keys of `detailedMetric` rules, whose series are capped.
 *
 * | metric | type | labels | meaning |
 * |---|---|---|---|
 * | `sluice_decisions_total` | counter | domain, rule, outcome | one per counted descriptor: `allowed` (its rule's limits admitted it — the request may still have been denied by another descriptor), `denied` (its limits refused it; `blocked` rules included), `shadow_denied` (a shadow rule over its limit; shadow denials are folded in here, there is no separate counter). Replays are not counted again. A delayed forward-auth request counts as the client got it: `allowed` once its 200 is sent, `denied` when the waiting pool was full, not at all when its client left |
 * | `sluice_detailed_decisions_total` | counter | domain, rule, key, outcome | the same, per counter of the rules that ask for it (`detailedMetric`, Envoy's `detailed_metric`): `key` is the descriptor's counter key (its matched values, see `RuleMatch.counterKey`). Caller values become labels here, so the series are bounded: the first {@link MAX_DETAILED_SERIES} keys seen by this process get their own, later ones count under `key="other"` |
 * | `sluice_failure_policy_decisions_total` | counter | domain, rule, policy | descriptors decided by a failure policy (`fail_open`, `fail_closed`, `fallback`) because the store failed |
 * | `sluice_requests_total` | counter | api, code | served requests by outcome (`ok`, `over_limit`, `fail_closed`, `invalid`, `overloaded`, `unavailable`, `error`, `cancelled`): `cancelled` is a forward-auth request whose client left while it waited out a delay (its units refunded, no decision recorded); `fail_closed` is a check denied only because the store was unreachable and its rule fails closed (HTTP: a 503 on `/v1/auth`, a 200 with `reason: "fail_closed"` on `/v1/check`; gRPC: `CheckRateLimit` with `reason: "fail_closed"`, `ShouldRateLimit` OVER_LIMIT), not a quota used up; the four APIs that check record it alike (`checkOutcome` / `deniedByUnavailableStore`) |
 * | `sluice_request_duration_seconds` | histogram | api | latency of served requests, buckets from 50 µs to 1 s |
 * | `sluice_inflight_requests` | gauge | | requests holding a slot of the in-flight gate (when a gate is given) |
 * | `sluice_delayed_requests` | gauge | | forward-auth requests waiting out a `delay` rule's delay, outside the in-flight cap (when a gate is given) |
 * | `sluice_config_reloads_total` | counter | result | configuration updates `applied` / `refused` (engine events) |
 * | `sluice_config_version` | gauge | | the version of the configuration in force, as the admin API numbers them (`GET /api/v1/rules`); 0 when it has none (a rules file read without the admin API: count reloads with `sluice_config_reloads_total`) |
 * | `sluice_idempotency_records` | gauge | | answers the engine's in-process idempotency record holds now (`EngineStats.idempotencyRecords`; bounded by `idempotency.maxEntries`) |
 * | `sluice_idempotency_bytes` | gauge | | their estimated bytes, an upper bound of what they retain (`EngineStats.idempotencyBytes`; bounded by `idempotency.maxBytes`, 64 MiB by default) |
 * | `sluice_store_evictions_total` | counter | | memory store keys evicted while holding usage (when the engine's store is a memory store) |
 * | `sluice_store_keys` | gauge | | keys a memory store holds |
 * | `sluice_store_large_state_bytes` | gauge | | bytes a memory store's large states hold (sliding_log, bucketed_window, concurrency; bounded by its `maxLargeStateBytes`) |
 * | `sluice_store_calls_total`, `sluice_store_errors_total`, `sluice_store_timeouts_total`, `sluice_store_queue_timeouts_total`, `sluice_store_short_circuited_total`, `sluice_store_breaker_opened_total` | counter | policy, shard | the traffic of the engine's failure wrappers around a shared store, one per failure policy in use (`Engine.failureStores`), and on a client-side sharded store one per policy and shard (`shard` is the shard's id, `host:port/db` in `sluice serve`; absent on any other store), so the series are at most 3 × the configured shards |
 * | `sluice_store_breaker_open` | gauge | policy, shard | 1 while that wrapper's breaker (that shard's, on a sharded store) is open or half-open |
 * | process_*, nodejs_* | | | prom-client's default metrics |
 *
 * **Cost on the data plane.** `recordDecision` and `recordRequest` run once per request, so they only add to plain
 * counters (per api and code, per domain / rule / outcome) and to a {@link CountingHistogram} series; the
 * prom-client counters are set from those tallies when the registry is scraped (their `collect`). prom-client's
 * own `inc` / `observe` validate and hash a label object on every call: about 3 µs a request measured here, more
 * than the engine's whole memory-store check.
 */
import client, { type Registry } from "prom-client";
import type { CheckResult, Engine } from "../engine/engine.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { ResilientShardedStore } from "../stores/resilient-sharded-store.js";
import type { ResilientStore } from "../stores/resilient-store.js";
import { CountingHistogram, type HistogramSeries } from "./counting-histogram.js";
import type { InflightGate, ServiceApi, ServiceMetrics, ServiceOutcome } from "./service-context.js";

/** Latency buckets, seconds: sub-millisecond resolution for memory-store checks up to 1 s for slow stores. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/** Options of {@link createServiceMetrics}. */
export interface ServiceMetricsOptions {
  /** The registry to register into. @default a new `Registry` */
  readonly registry?: Registry;
  /** The gate whose counts `sluice_inflight_requests` and `sluice_delayed_requests` report. */
  readonly gate?: Pick<InflightGate, "inflight" | "waiting">;
  /** Register prom-client's default process metrics (skipped when the registry already has them). @default true */
  readonly defaultMetrics?: boolean;
}

/** The domains that have rules in the engine's configuration now. */
function domainsOf(engine: Engine): Set<string> {
  const out = new Set<string>();
  for (const r of engine.config.rules) out.add(r.domain);
  return out;
}

/** Most distinct counter keys `sluice_detailed_decisions_total` labels (see the module comment). */
export const MAX_DETAILED_SERIES = 1000;

/** Sets a collect-time counter to an absolute value read from elsewhere. */
function setCounter(c: client.Counter, value: number): void {
  c.reset();
  if (value > 0) c.inc(value);
}

/** One label set's count in a {@link LabelTally}. */
interface TallyCell {
  /** The label set. */
  readonly labels: Readonly<Record<string, string>>;
  /** Its count. */
  value: number;
}

/**
 * Counts per label set for a counter set at scrape time, listed in the order the label sets were first counted
 * (prom-client's own order), so the exposition is the same as with `inc` on every call.
 */
class LabelTally {
  readonly #order: TallyCell[] = [];

  /** A cell of `labels`, counting nothing yet; count with {@link LabelTally.add}. */
  cell(labels: Readonly<Record<string, string>>): TallyCell {
    return { labels, value: 0 };
  }

  /** Adds one to `cell` (and lists its label set on its first count). */
  add(cell: TallyCell): void {
    if (cell.value++ === 0) this.#order.push(cell);
  }

  /** Sets `counter` to the tallies. */
  collectInto(counter: client.Counter<string>): void {
    counter.reset();
    for (const c of this.#order) counter.inc(c.labels, c.value);
  }
}

/** The cells of one (domain label, rule): the decision outcomes and failure policies. */
interface RuleCells {
  readonly allowed: TallyCell;
  readonly denied: TallyCell;
  readonly shadow_denied: TallyCell;
  readonly fail_open: TallyCell;
  readonly fail_closed: TallyCell;
  readonly fallback: TallyCell;
}

/** What one API records into: a cell per outcome (created on first use) and its latency series. */
interface ApiCells {
  readonly api: ServiceApi;
  readonly byOutcome: Map<ServiceOutcome, TallyCell>;
  readonly latency: HistogramSeries;
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

  // The data plane's tallies (see the module comment), set into the counters when scraped.
  const decisionTally = new LabelTally();
  const policyTally = new LabelTally();
  const requestTally = new LabelTally();
  const byDomain = new Map<string, Map<string, RuleCells>>();
  const ruleCells = (domain: string, rule: string): RuleCells => {
    let rules = byDomain.get(domain);
    if (rules === undefined) {
      rules = new Map();
      byDomain.set(domain, rules);
    }
    let c = rules.get(rule);
    if (c === undefined) {
      const d = (outcome: string): TallyCell => decisionTally.cell({ domain, rule, outcome });
      const p = (policy: string): TallyCell => policyTally.cell({ domain, rule, policy });
      c = {
        allowed: d("allowed"),
        denied: d("denied"),
        shadow_denied: d("shadow_denied"),
        fail_open: p("fail_open"),
        fail_closed: p("fail_closed"),
        fallback: p("fallback"),
      };
      rules.set(rule, c);
    }
    return c;
  };
  new client.Counter({
    name: "sluice_decisions_total",
    help: "Decisions per counted descriptor, by domain, rule and outcome (allowed, denied, shadow_denied).",
    labelNames: ["domain", "rule", "outcome"] as const,
    registers,
    collect() {
      decisionTally.collectInto(this);
    },
  });
  // Detailed decisions: per (domain, rule, key) their outcomes' cells, the first MAX_DETAILED_SERIES keys on their
  // own, every later key under "other".
  const detailedTally = new LabelTally();
  const detailed = new Map<string, Map<string, TallyCell>>();
  let detailedKeys = 0;
  const detailedCell = (domain: string, rule: string, key: string, outcome: string): TallyCell => {
    const id = `${domain.length}:${domain}${rule.length}:${rule}${key}`;
    let cells = detailed.get(id);
    if (cells === undefined) {
      if (detailedKeys >= MAX_DETAILED_SERIES && key !== "other")
        return detailedCell(domain, rule, "other", outcome);
      if (key !== "other") detailedKeys++;
      cells = new Map();
      detailed.set(id, cells);
    }
    let c = cells.get(outcome);
    if (c === undefined) {
      c = detailedTally.cell({ domain, rule, key, outcome });
      cells.set(outcome, c);
    }
    return c;
  };
  new client.Counter({
    name: "sluice_detailed_decisions_total",
    help: "Decisions per counter key of the rules with detailedMetric, by domain, rule, key and outcome (the first 1000 keys, then key=other).",
    labelNames: ["domain", "rule", "key", "outcome"] as const,
    registers,
    collect() {
      detailedTally.collectInto(this);
    },
  });
  new client.Counter({
    name: "sluice_failure_policy_decisions_total",
    help: "Descriptors decided by a failure policy because the store failed, by domain, rule and policy.",
    labelNames: ["domain", "rule", "policy"] as const,
    registers,
    collect() {
      policyTally.collectInto(this);
    },
  });
  new client.Counter({
    name: "sluice_requests_total",
    help: "Served requests by API and outcome code.",
    labelNames: ["api", "code"] as const,
    registers,
    collect() {
      requestTally.collectInto(this);
    },
  });
  const duration = new CountingHistogram({
    name: "sluice_request_duration_seconds",
    help: "Latency of served requests by API, seconds.",
    labelName: "api",
    buckets: LATENCY_BUCKETS_SECONDS,
    registers,
  });
  const apis = new Map<ServiceApi, ApiCells>();
  const apiCells = (api: ServiceApi): ApiCells => {
    let t = apis.get(api);
    if (t === undefined) {
      t = { api, byOutcome: new Map(), latency: duration.series(api) };
      apis.set(api, t);
    }
    return t;
  };
  const outcomeCell = (t: ApiCells, outcome: ServiceOutcome): TallyCell => {
    let c = t.byOutcome.get(outcome);
    if (c === undefined) {
      c = requestTally.cell({ api: t.api, code: outcome });
      t.byOutcome.set(outcome, c);
    }
    return c;
  };
  const reloads = new client.Counter({
    name: "sluice_config_reloads_total",
    help: "Configuration updates by result (applied, refused).",
    labelNames: ["result"] as const,
    registers,
  });
  new client.Gauge({
    name: "sluice_config_version",
    help: "Version of the configuration in use, as the admin API numbers them (GET /api/v1/rules); 0 when it has none (a rules file read without the admin API).",
    registers,
    collect() {
      this.set(engine.status.configVersion ?? 0);
    },
  });
  new client.Gauge({
    name: "sluice_idempotency_records",
    help: "Answers the in-process idempotency record holds now (bounded by the engine's idempotency.maxEntries).",
    registers,
    collect() {
      this.set(engine.stats.idempotencyRecords);
    },
  });
  new client.Gauge({
    name: "sluice_idempotency_bytes",
    help: "Estimated bytes the in-process idempotency records retain, an upper bound (bounded by the engine's idempotency.maxBytes).",
    registers,
    collect() {
      this.set(engine.stats.idempotencyBytes);
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
    new client.Gauge({
      name: "sluice_delayed_requests",
      help: "Requests waiting out a delay rule's delay before they answer (outside the in-flight cap).",
      registers,
      collect() {
        this.set(gate.waiting);
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
    new client.Gauge({
      name: "sluice_store_large_state_bytes",
      help: "Bytes the memory store's large states (sliding_log, bucketed_window, concurrency) hold, bounded by its maxLargeStateBytes.",
      registers,
      collect() {
        this.set(store.stats.largeStateBytes);
      },
    });
  }
  // The failure wrappers of a shared store (one per failure policy in use, created as rules need them, so read at
  // every scrape): their traffic, by policy, and by shard on a sharded store (a breaker each). None on an
  // in-process store: then no series.
  const eachWrapper = (
    visit: (labels: { policy: string; shard?: string }, w: ResilientStore) => void,
  ): void => {
    for (const [policy, w] of engine.failureStores) {
      if (w instanceof ResilientShardedStore)
        for (const s of w.shards) visit({ policy, shard: s.id }, s.store);
      else visit({ policy }, w);
    }
  };
  const fromStats = (name: string, help: string, read: (s: ResilientStore["stats"]) => number): void => {
    new client.Counter({
      name,
      help,
      labelNames: ["policy", "shard"] as const,
      registers,
      collect() {
        this.reset();
        eachWrapper((labels, w) => this.inc(labels, read(w.stats)));
      },
    });
  };
  fromStats("sluice_store_calls_total", "Calls that reached the store.", (s) => s.storeCalls);
  fromStats("sluice_store_errors_total", "Store calls that failed, timeouts included.", (s) => s.failures);
  fromStats("sluice_store_timeouts_total", "Store calls that timed out.", (s) => s.timeouts);
  fromStats(
    "sluice_store_queue_timeouts_total",
    "Calls that timed out still queued in this process, never sent to the store (not store errors).",
    (s) => s.queueTimeouts,
  );
  fromStats(
    "sluice_store_short_circuited_total",
    "Calls not sent to the store because its breaker was open.",
    (s) => s.shortCircuited,
  );
  fromStats(
    "sluice_store_breaker_opened_total",
    "Times the store's circuit breaker opened (first openings and re-openings after a failed probe).",
    (s) => s.breakerOpened,
  );
  new client.Gauge({
    name: "sluice_store_breaker_open",
    help: "1 while the store's circuit breaker is open or half-open, else 0.",
    labelNames: ["policy", "shard"] as const,
    registers,
    collect() {
      this.reset();
      eachWrapper((labels, w) => this.set(labels, w.state === "closed" ? 0 : 1));
    },
  });

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
      const ds = result.descriptors;
      for (let i = 0; i < ds.length; i++) {
        const r = ds[i];
        const dec = r.decision;
        if (dec === undefined || r.match === undefined) continue;
        const rule = r.match.rule;
        const c = ruleCells(d, rule.id);
        const outcome = r.shadowed ? c.shadow_denied : r.code === "OVER_LIMIT" ? c.denied : c.allowed;
        decisionTally.add(outcome);
        if (rule.detailedMetric) {
          detailedTally.add(detailedCell(d, rule.id, r.match.counterKey, outcome.labels.outcome));
        }
        const reason = dec.reason;
        if (reason === "fail_open" || reason === "fail_closed" || reason === "fallback") {
          policyTally.add(c[reason]);
        }
      }
    },
    recordRequest(api: ServiceApi, outcome: ServiceOutcome, latencyMs: number): void {
      const t = apiCells(api);
      requestTally.add(outcomeCell(t, outcome));
      t.latency.observe(Math.max(0, latencyMs) / 1000);
    },
    async render(): Promise<{ readonly contentType: string; readonly body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * What every protocol adapter of the service (gRPC, HTTP, forward-auth) is given: the engine that decides, the
 * metrics it records into, the in-flight gate that sheds overload, a logger and the clock. The adapters hold
 * no limiting logic: they turn wire messages into engine requests and engine results into wire messages.
 *
 * `sluice serve` (src/server/service.ts) builds one context per process and hands it to each adapter.
 */
import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import type { CheckResult, Engine } from "../engine/engine.js";

/** The protocol surfaces of the service, as metric labels (`api`). */
export type ServiceApi =
  | "grpc_check"
  | "grpc_check_batch"
  | "grpc_quota"
  | "grpc_reset"
  | "grpc_envoy"
  | "http_check"
  | "http_auth";

/**
 * The outcome of one served request, as a metric label (`code`): `fail_closed` is a check denied because the store
 * was unreachable and its rule fails closed (not a quota used up, so not `over_limit`); `cancelled` is a request
 * whose client went away before its answer (forward-auth, while it waited out a delay: its units were refunded).
 */
export type ServiceOutcome =
  | "ok"
  | "over_limit"
  | "fail_closed"
  | "invalid"
  | "overloaded"
  | "unavailable"
  | "error"
  | "cancelled";

/** Where the service records what it does (Prometheus metrics; see service-metrics.ts). */
export interface ServiceMetrics {
  /**
   * Records one engine answer: per counted descriptor, its domain, rule and outcome (`allowed`, `denied`,
   * `shadow_denied`). Unknown domains are labelled `unknown` so callers cannot grow label sets.
   */
  recordDecision(domain: string, result: CheckResult): void;
  /** Records one served request of `api`: its outcome and its latency in milliseconds. */
  recordRequest(api: ServiceApi, outcome: ServiceOutcome, latencyMs: number): void;
  /** The Prometheus text exposition and its content type. */
  render(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/**
 * A cap on in-flight requests across every API of the process. Beyond it a request is refused at once
 * (`RESOURCE_EXHAUSTED` / 503) instead of queueing, so overload never grows memory or latency without bound.
 *
 * **Waiting is not work.** A request that waits out a `delay` rule's delay before it answers (forward-auth, the only
 * API that waits: `/v1/check`, sluice.v1 and Envoy's API return the delay to the caller, who waits) costs a timer
 * and an open connection, not CPU: it gives its in-flight slot back and holds a slot of a second, separate pool
 * instead, capped by `maxWaiting`, so shaped keys cannot use up the in-flight cap and get unrelated clients refused
 * 503, while the waiting requests (and the memory they hold) stay bounded too.
 */
export interface InflightGate {
  /** Takes a slot; false when the cap is reached or the service is draining (the caller refuses the request). */
  tryEnter(): boolean;
  /** Gives a slot back; call exactly once per successful {@link InflightGate.tryEnter}. */
  leave(): void;
  /** Requests currently holding a slot. */
  readonly inflight: number;
  /** The cap. */
  readonly max: number;
  /**
   * Takes a slot of the waiting pool, for a request about to wait out a delay (it then gives its in-flight slot
   * back); false when `maxWaiting` requests already wait (the caller answers at once). Not refused while draining:
   * a request admitted before the drain may finish its wait, and the drain waits for it.
   */
  tryWait(): boolean;
  /** Gives a waiting slot back; call exactly once per successful {@link InflightGate.tryWait}. */
  leaveWait(): void;
  /** Requests currently waiting out a delay. */
  readonly waiting: number;
  /** The cap on waiting requests (0: none may wait). */
  readonly maxWaiting: number;
  /**
   * True once {@link InflightGate.drain} was called: the service is shutting down, so a refusal means "go to
   * another instance" (gRPC `UNAVAILABLE`), not "over the cap" (`RESOURCE_EXHAUSTED`).
   */
  readonly draining: boolean;
  /**
   * Refuses every later {@link InflightGate.tryEnter}; resolves true when no request is in flight or waiting within
   * `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<boolean>;
}

/** Bounds on request sizes, enforced by every adapter before the engine sees a request. */
export interface RequestBounds {
  /** Largest request body (HTTP JSON body, gRPC message), bytes. */
  readonly maxBodyBytes: number;
  /** Most items in one batch request. */
  readonly maxBatchItems: number;
  /** Largest cost (hits_addend) accepted. */
  readonly maxCost: number;
  /** Largest skew between a client `timestamp` and the server clock, ms, before the request is refused. */
  readonly maxClockSkewMs: number;
}

/** Everything a protocol adapter needs. */
export interface ServiceContext {
  /** The engine that decides. */
  readonly engine: Engine;
  /** Where metrics go. */
  readonly metrics: ServiceMetrics;
  /** The overload gate shared by every API. */
  readonly gate: InflightGate;
  /** Structured logs (pino); credentials are redacted by the logger's configuration. */
  readonly log: Logger;
  /** The service's wall clock (epoch ms: client timestamps, reset instants). */
  readonly clock: Clock;
  /** A monotonic clock for latencies (`monotonicClock` in production). */
  readonly stopwatch: Clock;
  /** Request size bounds. */
  readonly bounds: RequestBounds;
}

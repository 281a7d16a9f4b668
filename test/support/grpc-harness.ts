/**
 * A gRPC server of the service started in the test process on a free loopback port, over an engine on the
 * memory store with a {@link ManualClock}, plus grpc-js clients built from the server's own service definitions
 * (so the clients code messages with the same generated code as the server) and a metrics recorder.
 */
import {
  type CallOptions,
  type Client,
  credentials,
  makeGenericClientConstructor,
  type ServiceError,
} from "@grpc/grpc-js";
import { pino } from "pino";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { CheckResult, Engine } from "../../src/engine/engine.js";
import { createEngine } from "../../src/engine/engine.js";
import { parseConfig } from "../../src/rules/load-config.js";
import {
  createGrpcServer,
  GRPC_TRANSPORTS,
  type GrpcServerOptions,
  type GrpcTransport,
  type SluiceGrpcServer,
} from "../../src/server/grpc/grpc-server.js";
import {
  healthServiceDefinition,
  rateLimiterServiceDefinition,
  rateLimitServiceDefinition,
} from "../../src/server/grpc/service-definitions.js";
import { createInflightGate } from "../../src/server/inflight-gate.js";
import type {
  RequestBounds,
  ServiceApi,
  ServiceContext,
  ServiceMetrics,
  ServiceOutcome,
} from "../../src/server/service-context.js";
import type { Store } from "../../src/stores/store.js";

/** Metrics that remember what was recorded. */
export interface RecordingMetrics extends ServiceMetrics {
  /** Every `recordRequest` call, in order. */
  readonly requests: { api: ServiceApi; outcome: ServiceOutcome; latencyMs: number }[];
  /** Every `recordDecision` call, in order. */
  readonly decisions: { domain: string; result: CheckResult }[];
}

/** Creates {@link RecordingMetrics}. */
export function recordingMetrics(): RecordingMetrics {
  const requests: RecordingMetrics["requests"] = [];
  const decisions: RecordingMetrics["decisions"] = [];
  return {
    requests,
    decisions,
    recordDecision(domain, result) {
      decisions.push({ domain, result });
    },
    recordRequest(api, outcome, latencyMs) {
      requests.push({ api, outcome, latencyMs });
    },
    render: async () => ({ contentType: "text/plain", body: "" }),
  };
}

/** The start of the harness clock: a whole hour, so fixed windows of up to an hour start with the test. */
export const HARNESS_START_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/** Default bounds of the harness. */
export const HARNESS_BOUNDS: RequestBounds = {
  maxBodyBytes: 64 * 1024,
  maxBatchItems: 10,
  maxCost: 1_000_000,
  maxClockSkewMs: 60_000,
};

/** Options of {@link startGrpcHarness}. */
export interface GrpcHarnessOptions {
  /** The configuration, as YAML text (native or envoyproxy/ratelimit format). */
  readonly yaml: string;
  /** Bounds overriding {@link HARNESS_BOUNDS}. */
  readonly bounds?: Partial<RequestBounds>;
  /** The in-flight cap. @default 64 */
  readonly gateMax?: number;
  /** Server options. */
  readonly server?: GrpcServerOptions;
  /** Wraps the engine the server sees (e.g. to delay or fail its checks). */
  readonly wrapEngine?: (engine: Engine) => Engine;
  /** The engine's store (e.g. `failingStore()` for the failure policies). @default a memory store */
  readonly store?: Store;
}

/** A running server with its clients. */
export interface GrpcHarness {
  /** The context the server was given. */
  readonly ctx: ServiceContext;
  /** The engine. */
  readonly engine: Engine;
  /** The clock of the engine and the context. */
  readonly clock: ManualClock;
  /** What the server recorded. */
  readonly metrics: RecordingMetrics;
  /** The server. */
  readonly server: SluiceGrpcServer;
  /** `127.0.0.1:port`. */
  readonly address: string;
  /** A client of `envoy.service.ratelimit.v3.RateLimitService`. */
  readonly envoy: Client;
  /** A client of `sluice.v1.RateLimiter`. */
  readonly sluice: Client;
  /** A client of `grpc.health.v1.Health`. */
  readonly health: Client;
  /** Closes the clients, the server and the engine. */
  close(): Promise<void>;
}

/**
 * The transport the harness serves with: `SLUICE_TEST_GRPC_TRANSPORT` (vitest.config.ts runs the gRPC test files
 * once per transport), else the default.
 */
export function harnessTransport(): GrpcTransport {
  const named = process.env.SLUICE_TEST_GRPC_TRANSPORT;
  if (named === undefined || named === "") return GRPC_TRANSPORTS[0];
  if (!(GRPC_TRANSPORTS as readonly string[]).includes(named))
    throw new Error(`SLUICE_TEST_GRPC_TRANSPORT: "${named}" is not one of ${GRPC_TRANSPORTS.join(", ")}`);
  return named as GrpcTransport;
}

/** Starts a server on a free loopback port. */
export async function startGrpcHarness(options: GrpcHarnessOptions): Promise<GrpcHarness> {
  const clock = new ManualClock(HARNESS_START_MS);
  const engine = createEngine({
    config: parseConfig(options.yaml),
    clock,
    scheduler: clock,
    store: options.store,
  });
  const metrics = recordingMetrics();
  const ctx: ServiceContext = {
    engine: options.wrapEngine === undefined ? engine : options.wrapEngine(engine),
    metrics,
    gate: createInflightGate(options.gateMax ?? 64),
    log: pino({ level: "silent" }),
    clock,
    stopwatch: clock,
    bounds: { ...HARNESS_BOUNDS, ...options.bounds },
  };
  const server = createGrpcServer(ctx, { transport: harnessTransport(), ...options.server });
  const port = await server.listen("127.0.0.1", 0);
  const address = `127.0.0.1:${port}`;
  const make = (def: object, name: string): Client => {
    const Ctor = makeGenericClientConstructor(def as never, name);
    return new Ctor(address, credentials.createInsecure());
  };
  const envoy = make(rateLimitServiceDefinition, "RateLimitService");
  const sluice = make(rateLimiterServiceDefinition, "RateLimiter");
  const health = make(healthServiceDefinition, "Health");
  return {
    ctx,
    engine,
    clock,
    metrics,
    server,
    address,
    envoy,
    sluice,
    health,
    async close() {
      envoy.close();
      sluice.close();
      health.close();
      await server.close(0);
      await engine.close();
    },
  };
}

/** The answer of a unary call: the response, or the error status. */
export type UnaryAnswer<R> = { ok: true; response: R } | { ok: false; error: ServiceError };

/** Calls unary `method` of `client` and resolves with its answer (never rejects). */
export function unary<R>(
  client: Client,
  method: string,
  request: unknown,
  options: CallOptions = {},
): Promise<UnaryAnswer<R>> {
  return new Promise((resolve) => {
    const fn = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method].bind(client);
    fn(request, options, (error: ServiceError | null, response: R) => {
      resolve(error ? { ok: false, error } : { ok: true, response });
    });
  });
}

/** Calls unary `method` and returns the response; throws the status when the call failed. */
export async function call<R>(client: Client, method: string, request: unknown): Promise<R> {
  const a = await unary<R>(client, method, request);
  if (!a.ok) throw new Error(`${method} failed: ${a.error.code} ${a.error.details}`);
  return a.response;
}

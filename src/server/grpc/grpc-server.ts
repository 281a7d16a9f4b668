/**
 * The gRPC server of `sluice serve` (cleartext HTTP/2), serving three services on one port:
 * `envoy.service.ratelimit.v3.RateLimitService` (Envoy's rate limit filter), `sluice.v1.RateLimiter` (Sluice's own
 * API) and `grpc.health.v1.Health`. Messages are coded by the static protobufjs code in `gen/` (see
 * service-definitions.ts).
 *
 * Two transports run the same handlers over the same definitions: `node-http2` (the default), Sluice's lean
 * server on `node:http2` (h2-grpc-server.ts), and `grpc-js`, the reference implementation's server. Both pass the
 * same wire tests (every gRPC test file runs over each); the lean one spends less CPU per call (measured by
 * `npm run bench -- service`).
 *
 * Every unary call goes through the service context's in-flight gate (refused at once with `RESOURCE_EXHAUSTED`
 * beyond it, `UNAVAILABLE` once the service is draining), is timed and recorded in the metrics, and maps every failure to a status (grpc-call.ts): a
 * malformed message or bad field is `INVALID_ARGUMENT` naming the field, a store outage not covered by the rules'
 * failure policies `UNAVAILABLE`, anything else `INTERNAL` (logged). Deadlines are grpc-js's: a call past its
 * `grpc-timeout` is answered `DEADLINE_EXCEEDED` by grpc-js and its late answer dropped. Health calls bypass the
 * gate (health-service.ts).
 *
 * Transport bounds: requests above `maxMessageBytes` are refused by grpc-js (`RESOURCE_EXHAUSTED`) before
 * decoding; at most {@link DEFAULT_MAX_CONCURRENT_STREAMS} streams per connection; the server pings idle
 * connections (keepalive) to drop dead peers; a connection with no call open for `maxConnectionIdleMs` gets a
 * GOAWAY and is closed (gRPC's MAX_CONNECTION_IDLE: see {@link DEFAULT_MAX_CONNECTION_IDLE_MS}); connections are
 * recycled after `maxConnectionAgeMs` (GOAWAY, then `maxConnectionAgeGraceMs` for calls in flight) so clients
 * re-resolve the service when it scales, as envoyproxy/ratelimit's GRPC_MAX_CONNECTION_AGE. (On `node-http2` the
 * same bounds, with the same messages.)
 *
 * `node-http2` alone also bounds what clients can make it hold before a call reaches the gate: the bytes of calls
 * still receiving their request, server-wide ({@link DEFAULT_MAX_RECEIVE_BUFFER_BYTES}; beyond it a call is refused
 * `RESOURCE_EXHAUSTED`), the time to receive a message ({@link DEFAULT_RECEIVE_TIMEOUT_MS}), the time to complete
 * the HTTP/2 handshake ({@link DEFAULT_HANDSHAKE_TIMEOUT_MS}) and the connections ({@link DEFAULT_MAX_CONNECTIONS};
 * at the cap a new connection closes the longest-idle one, and is refused only when every connection has a call
 * open), and it resets a stream it answered before the client finished sending. grpc-js has none of these: there,
 * each connection may hold `maxConcurrentStreams` unfinished messages of up to `maxMessageBytes` each, for as long
 * as the client keeps them open, and a connection that never sends the HTTP/2 preface is closed by the idle limit.
 */
import {
  type ChannelOptions,
  Server,
  ServerCredentials,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { InvalidArgumentError } from "../../core/errors.js";
import type { RateLimitHeaderOptions } from "../rate-limit-headers.js";
import type { ServiceContext } from "../service-context.js";
import { shouldRateLimit } from "./envoy-rls-service.js";
import { unaryHandler } from "./grpc-call.js";
import { H2GrpcServer, type H2GrpcServerOptions, type H2MethodDefinition } from "./h2-grpc-server.js";
import { HealthState, healthHandlers } from "./health-service.js";
import {
  healthServiceDefinition,
  RATE_LIMIT_SERVICE_NAME,
  RATE_LIMITER_SERVICE_NAME,
  rateLimiterServiceDefinition,
  rateLimitServiceDefinition,
} from "./service-definitions.js";
import { sluiceService } from "./sluice-service.js";

/** Server keepalive ping interval on idle connections, ms. */
export const DEFAULT_KEEPALIVE_TIME_MS = 60_000;
/** How long a keepalive ping may go unanswered before the connection is closed, ms. */
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 20_000;
/** Connection age after which the server asks the client to reconnect (GOAWAY), ms: 24 h. */
export const DEFAULT_MAX_CONNECTION_AGE_MS = 86_400_000;
/** Time calls in flight get to finish on a connection past its age, ms: 1 h. */
export const DEFAULT_MAX_CONNECTION_AGE_GRACE_MS = 3_600_000;
/** Most concurrent streams (calls) per HTTP/2 connection. */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 1000;
/** Longest wait for a call's request message after its headers, ms (as HTTP's request timeout). */
export const DEFAULT_RECEIVE_TIMEOUT_MS = 10_000;
/**
 * Most bytes the calls still receiving their request may hold together (`node-http2`), bytes: 64 MiB, room for
 * as many 64 KiB messages as the default in-flight cap (1024) admits, or ~8,000 small calls arriving at once.
 */
export const DEFAULT_MAX_RECEIVE_BUFFER_BYTES = 64 * 1024 * 1024;
/**
 * How far the receive budget must exceed the largest message, bytes: one call's stream charge (8 KiB,
 * `RECEIVING_CALL_BYTES` of h2-grpc-server.ts), the largest header block a connection accepts (64 KiB,
 * node:http2's default) and room to spare, so that a message of the maximum size can always be received.
 */
export const RECEIVE_BUFFER_HEADROOM_BYTES = 128 * 1024;
/**
 * Most open gRPC connections per listening address (`node-http2`); at the cap a new connection closes the
 * longest-idle one, and is closed as accepted only when none is idle.
 */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/**
 * How long a gRPC connection may have no call open before the server sends a GOAWAY and closes it, ms: 5 minutes
 * (gRPC's MAX_CONNECTION_IDLE; grpc-go and grpc-js default to never).
 *
 * Why 5 minutes: it frees, within minutes, what connections that never call hold (a slot of the connection cap, a
 * session, a socket), while a client that calls at least every few minutes (Envoy's pooled connections under
 * traffic, a health probe's) keeps its connection; one idle longer pays one reconnect on its next call (Envoy and
 * gRPC clients reconnect on a GOAWAY by themselves, and a call already sent is never cut: a connection with a call
 * open is not idle). It need not be shorter near the connection cap: there a new connection closes the longest
 * idle one at once (see {@link DEFAULT_MAX_CONNECTIONS}), so idle connections never lock new clients out.
 */
export const DEFAULT_MAX_CONNECTION_IDLE_MS = 300_000;
/**
 * How long a new gRPC connection gets to send the HTTP/2 preface and its SETTINGS (`node-http2`), ms: as the HTTP
 * server's request timeout (10 s). A client sends both at once on connecting.
 */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

/** The gRPC server implementations: Sluice's lean `node:http2` server, or grpc-js's. */
export type GrpcTransport = "node-http2" | "grpc-js";

/** The transports, the default first. */
export const GRPC_TRANSPORTS: readonly GrpcTransport[] = Object.freeze(["node-http2", "grpc-js"]);

/** Options of {@link createGrpcServer}. */
export interface GrpcServerOptions {
  /** Which server speaks gRPC. @default "node-http2" */
  readonly transport?: GrpcTransport;
  /** The domain of `sluice.v1` requests that name none; undefined: they must name one. (Envoy always sends one.) */
  readonly defaultDomain?: string | undefined;
  /** Largest request message accepted, bytes. @default ctx.bounds.maxBodyBytes */
  readonly maxMessageBytes?: number;
  /**
   * The rate limit fields Envoy answers carry in `response_headers_to_add` (like envoyproxy/ratelimit's
   * LIMIT_RESPONSE_HEADERS_ENABLED, in draft-10's form): true for `rateLimitHeaders`' defaults (`RateLimit-Policy`,
   * `RateLimit`, `Retry-After` on denial, `RateLimit-State`), false for none, or its options. @default true
   */
  readonly envoyHeaders?: boolean | RateLimitHeaderOptions;
  /** The health status before the first {@link SluiceGrpcServer.setServing}. @default true */
  readonly serving?: boolean;
  /** Keepalive ping interval on idle connections, ms. @default {@link DEFAULT_KEEPALIVE_TIME_MS} */
  readonly keepaliveTimeMs?: number;
  /** Keepalive ping timeout, ms. @default {@link DEFAULT_KEEPALIVE_TIMEOUT_MS} */
  readonly keepaliveTimeoutMs?: number;
  /** Connection age before a GOAWAY, ms. @default {@link DEFAULT_MAX_CONNECTION_AGE_MS} */
  readonly maxConnectionAgeMs?: number;
  /** Grace after the GOAWAY, ms. @default {@link DEFAULT_MAX_CONNECTION_AGE_GRACE_MS} */
  readonly maxConnectionAgeGraceMs?: number;
  /** Most concurrent calls per connection. @default {@link DEFAULT_MAX_CONCURRENT_STREAMS} */
  readonly maxConcurrentStreams?: number;
  /**
   * Longest wait for a call's request message after its headers, ms (`node-http2` transport; grpc-js has no such
   * bound). @default {@link DEFAULT_RECEIVE_TIMEOUT_MS}
   */
  readonly receiveTimeoutMs?: number;
  /**
   * Most bytes the calls still receiving their request may hold together, server-wide (`node-http2`; grpc-js has
   * no such bound): at least `maxMessageBytes` + {@link RECEIVE_BUFFER_HEADROOM_BYTES}.
   * @default {@link DEFAULT_MAX_RECEIVE_BUFFER_BYTES}
   */
  readonly maxReceiveBufferBytes?: number;
  /**
   * Most open connections per listening address (`node-http2`; grpc-js has no cap): at it a new connection closes
   * the longest-idle one, or is closed as accepted when none is idle. @default {@link DEFAULT_MAX_CONNECTIONS}
   */
  readonly maxConnections?: number;
  /**
   * How long a connection may have no call open before it gets a GOAWAY and is closed, ms (either transport; 0:
   * never). @default {@link DEFAULT_MAX_CONNECTION_IDLE_MS}
   */
  readonly maxConnectionIdleMs?: number;
  /**
   * How long a new connection gets to send the HTTP/2 preface and SETTINGS before it is destroyed, ms
   * (`node-http2`; on grpc-js such a connection is closed by the idle limit). @default {@link DEFAULT_HANDSHAKE_TIMEOUT_MS}
   */
  readonly handshakeTimeoutMs?: number;
}

/** The gRPC server of the service. */
export interface SluiceGrpcServer {
  /** Binds `host:port` (cleartext; port 0: any free port) and resolves with the bound port. */
  listen(host: string, port: number): Promise<number>;
  /** Sets the `grpc.health.v1` status of `""` and of every served service: SERVING or NOT_SERVING. */
  setServing(serving: boolean): void;
  /**
   * Stops accepting calls and connections, ends health `Watch` streams, lets calls in flight finish for up to
   * `graceMs`, then closes every connection; resolves when the server is stopped.
   */
  close(graceMs: number): Promise<void>;
  /** Which server speaks gRPC. */
  readonly transport: GrpcTransport;
}

/** `host:port` as grpc-js binds it: IPv6 literals in brackets. */
function bindAddress(host: string, port: number): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What {@link createGrpcServer} needs of either server ({@link H2GrpcServer} has exactly this). */
interface TransportServer {
  addService(
    definition: Readonly<Record<string, H2MethodDefinition>>,
    implementation: Readonly<Record<string, (...args: never[]) => void>>,
  ): void;
  listen(host: string, port: number): Promise<number>;
  tryShutdown(callback: () => void): void;
  forceShutdown(): void;
}

/**
 * The transport bounds of `options`, defaulted (one set for either server); a receive budget that could not hold a
 * message of the maximum size is an `ERR_SLUICE_INVALID_ARGUMENT`.
 */
function boundsOf(options: GrpcServerOptions, ctx: ServiceContext): H2GrpcServerOptions {
  const maxMessage = options.maxMessageBytes ?? ctx.bounds.maxBodyBytes;
  const budget = options.maxReceiveBufferBytes ?? DEFAULT_MAX_RECEIVE_BUFFER_BYTES;
  if (!(budget >= maxMessage + RECEIVE_BUFFER_HEADROOM_BYTES)) {
    throw new InvalidArgumentError(
      `createGrpcServer: maxReceiveBufferBytes (${budget}) must be at least maxMessageBytes (${maxMessage}) + ${RECEIVE_BUFFER_HEADROOM_BYTES}`,
    );
  }
  const idleMs = options.maxConnectionIdleMs ?? DEFAULT_MAX_CONNECTION_IDLE_MS;
  if (!(idleMs >= 0)) {
    throw new InvalidArgumentError(
      `createGrpcServer: maxConnectionIdleMs must be a duration in ms, 0 for never, got ${idleMs}`,
    );
  }
  const handshakeMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  if (!(handshakeMs > 0)) {
    throw new InvalidArgumentError(
      `createGrpcServer: handshakeTimeoutMs must be a positive duration in ms, got ${handshakeMs}`,
    );
  }
  return {
    maxReceiveMessageBytes: maxMessage,
    keepaliveTimeMs: options.keepaliveTimeMs ?? DEFAULT_KEEPALIVE_TIME_MS,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS,
    maxConnectionAgeMs: options.maxConnectionAgeMs ?? DEFAULT_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: options.maxConnectionAgeGraceMs ?? DEFAULT_MAX_CONNECTION_AGE_GRACE_MS,
    maxConcurrentStreams: options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS,
    receiveTimeoutMs: options.receiveTimeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS,
    maxReceiveBufferBytes: budget,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxConnectionIdleMs: idleMs,
    handshakeTimeoutMs: handshakeMs,
  };
}

/** The longest idle limit grpc-js applies: from 2³¹ − 1 ms up, it takes `grpc.max_connection_idle_ms` as never. */
const GRPC_JS_MAX_IDLE_MS = 2 ** 31 - 2;

/**
 * A grpc-js server with transport bounds `b` (grpc-js has no receive timeout, receive budget, connection cap or
 * handshake deadline: those four are not applied; a connection that never sends the HTTP/2 preface has no stream,
 * so grpc-js's idle limit closes it).
 */
function grpcJsServer(b: H2GrpcServerOptions): TransportServer {
  const channelOptions: ChannelOptions = {
    "grpc.max_receive_message_length": b.maxReceiveMessageBytes,
    "grpc.keepalive_time_ms": b.keepaliveTimeMs,
    "grpc.keepalive_timeout_ms": b.keepaliveTimeoutMs,
    "grpc.max_connection_age_ms": b.maxConnectionAgeMs,
    "grpc.max_connection_age_grace_ms": b.maxConnectionAgeGraceMs,
    "grpc.max_concurrent_streams": b.maxConcurrentStreams,
  };
  if (b.maxConnectionIdleMs > 0 && b.maxConnectionIdleMs <= GRPC_JS_MAX_IDLE_MS) {
    channelOptions["grpc.max_connection_idle_ms"] = b.maxConnectionIdleMs;
  }
  const server = new Server(channelOptions);
  return {
    addService: (definition, implementation) =>
      server.addService(definition as never, implementation as UntypedServiceImplementation),
    listen: (host, port) =>
      new Promise<number>((resolve, reject) => {
        server.bindAsync(bindAddress(host, port), ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        );
      }),
    tryShutdown: (callback) => server.tryShutdown(callback),
    forceShutdown: () => server.forceShutdown(),
  };
}

/** Creates the gRPC server over `ctx` (not listening: call {@link SluiceGrpcServer.listen}). */
export function createGrpcServer(ctx: ServiceContext, options: GrpcServerOptions = {}): SluiceGrpcServer {
  const transport = options.transport ?? "node-http2";
  const bounds = boundsOf(options, ctx);
  const server: TransportServer = transport === "grpc-js" ? grpcJsServer(bounds) : new H2GrpcServer(bounds);
  const headers = options.envoyHeaders ?? true;
  const envoy = shouldRateLimit(ctx, { responseHeaders: headers === true ? {} : headers });
  server.addService(rateLimitServiceDefinition, {
    ShouldRateLimit: unaryHandler(ctx, "grpc_envoy", "envoy.service.ratelimit.v3.RateLimitRequest", envoy),
  });
  const own = sluiceService(ctx, { defaultDomain: options.defaultDomain });
  server.addService(rateLimiterServiceDefinition, {
    CheckRateLimit: unaryHandler(ctx, "grpc_check", "sluice.v1.CheckRequest", own.check),
    CheckRateLimitBatch: unaryHandler(ctx, "grpc_check_batch", "sluice.v1.CheckBatchRequest", own.checkBatch),
    GetRemainingQuota: unaryHandler(ctx, "grpc_quota", "sluice.v1.QuotaRequest", own.quota),
    ResetLimit: unaryHandler(ctx, "grpc_reset", "sluice.v1.ResetRequest", own.reset),
  });
  const health = new HealthState(
    [RATE_LIMIT_SERVICE_NAME, RATE_LIMITER_SERVICE_NAME],
    options.serving ?? true,
  );
  server.addService(healthServiceDefinition, healthHandlers(health, ctx.log));

  let closing: Promise<void> | undefined;
  return {
    transport,
    listen(host, port) {
      return server.listen(host, port);
    },
    setServing(serving) {
      health.setServing(serving);
    },
    close(graceMs) {
      closing ??= new Promise<void>((resolve) => {
        health.setServing(false);
        health.close();
        let timer: NodeJS.Timeout | undefined;
        server.tryShutdown(() => {
          if (timer !== undefined) clearTimeout(timer);
          resolve();
        });
        // Calls still running after the grace are cut (their clients see UNAVAILABLE / CANCELLED).
        timer = setTimeout(
          () => {
            server.forceShutdown();
            resolve();
          },
          Math.max(0, graceMs),
        );
        timer.unref();
      });
      return closing;
    },
  };
}

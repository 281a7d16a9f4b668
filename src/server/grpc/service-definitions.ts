/**
 * grpc-js service definitions of the three services Sluice serves, built from the static protobuf code in `gen/`
 * (generated from `proto/**` by `scripts/gen-proto.mjs`; no `.proto` parsing at run time):
 * - `envoy.service.ratelimit.v3.RateLimitService` (Envoy's rate limit service protocol),
 * - `sluice.v1.RateLimiter` (Sluice's own API),
 * - `grpc.health.v1.Health`.
 *
 * Messages are the generated classes with snake_case fields (`--keep-case`). Decoding never throws: bytes that
 * are not a valid message (truncated, bad UTF-8, a length beyond the buffer, nesting deeper than 100) decode to a
 * {@link MalformedMessage}, which the handlers answer with `INVALID_ARGUMENT` (grpc-js would answer `INTERNAL`
 * for a throwing deserializer). Unknown fields are skipped.
 *
 * The definitions serve both sides: `new grpc.Server().addService(def, impl)` and
 * `grpc.makeGenericClientConstructor(def, name)`. A benchmark's no-op server can use them as they are.
 */
import type { ServiceDefinition } from "@grpc/grpc-js";
import { envoy, grpc as grpcPb, sluice } from "./gen/protos.js";

/** A generated message class: what a method definition needs of it. */
interface MessageCodec<T, P> {
  encode(message: P): { finish(): Uint8Array };
  decode(bytes: Uint8Array): T;
}

/** Bytes that did not decode as the expected message; `reason` says why (protobufjs's message). */
export class MalformedMessage {
  /** Creates a marker for undecodable bytes. */
  constructor(
    /** Why decoding failed, e.g. `index out of range: 12 + 40 > 30` or `invalid UTF-8`. */
    readonly reason: string,
  ) {}
}

/** Encodes with the generated `encode`; the writer yields a Node Buffer already, else one is wrapped around it. */
function serializer<P>(codec: MessageCodec<unknown, P>): (message: P) => Buffer {
  return (message) => {
    const bytes = codec.encode(message).finish();
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/** Decodes with the generated `decode`; any failure becomes a {@link MalformedMessage}. */
function deserializer<T>(codec: MessageCodec<T, unknown>): (bytes: Buffer) => T | MalformedMessage {
  return (bytes) => {
    try {
      return codec.decode(bytes);
    } catch (error) {
      return new MalformedMessage(error instanceof Error ? error.message : String(error));
    }
  };
}

/**
 * A grpc-js method definition: properties `QP` / `RP` encoded, decoded messages `Q` / `R` (or a
 * {@link MalformedMessage}) out of the decoders.
 */
export interface SluiceMethodDefinition<QP, Q, RP, R> {
  /** The HTTP/2 path, `/package.Service/Method`. */
  readonly path: string;
  /** Always false: every method takes one request message. */
  readonly requestStream: false;
  /** Whether the server answers with a stream of messages (health `Watch`). */
  readonly responseStream: boolean;
  /** Client side: encodes a request. */
  readonly requestSerialize: (message: QP) => Buffer;
  /** Server side: decodes a request. */
  readonly requestDeserialize: (bytes: Buffer) => Q | MalformedMessage;
  /** Server side: encodes a response. */
  readonly responseSerialize: (message: RP) => Buffer;
  /** Client side: decodes a response. */
  readonly responseDeserialize: (bytes: Buffer) => R | MalformedMessage;
}

function method<Q, QP, R, RP>(
  path: string,
  request: MessageCodec<Q, QP>,
  response: MessageCodec<R, RP>,
  responseStream = false,
): SluiceMethodDefinition<QP, Q, RP, R> {
  return {
    path,
    requestStream: false,
    responseStream,
    requestSerialize: serializer(request),
    requestDeserialize: deserializer(request),
    responseSerialize: serializer(response),
    responseDeserialize: deserializer(response),
  };
}

const rls = envoy.service.ratelimit.v3;
const v1 = sluice.v1;
const h = grpcPb.health.v1;

/** The package of the Envoy protocol's messages (`envoy.service.ratelimit.v3`), generated. */
export const envoyRls = rls;
/** The package of Sluice's own API messages (`sluice.v1`), generated. */
export const sluiceV1 = v1;
/** The package of the health protocol's messages (`grpc.health.v1`), generated. */
export const grpcHealthV1 = h;

/** Full name of Envoy's rate limit service. */
export const RATE_LIMIT_SERVICE_NAME = "envoy.service.ratelimit.v3.RateLimitService";
/** Full name of Sluice's own service. */
export const RATE_LIMITER_SERVICE_NAME = "sluice.v1.RateLimiter";
/** Full name of the health service. */
export const HEALTH_SERVICE_NAME = "grpc.health.v1.Health";

/** `envoy.service.ratelimit.v3.RateLimitService`: `ShouldRateLimit`. */
export const rateLimitServiceDefinition = {
  ShouldRateLimit: method(
    `/${RATE_LIMIT_SERVICE_NAME}/ShouldRateLimit`,
    rls.RateLimitRequest,
    rls.RateLimitResponse,
  ),
} satisfies ServiceDefinition;

/** `sluice.v1.RateLimiter`: `CheckRateLimit`, `CheckRateLimitBatch`, `GetRemainingQuota`, `ResetLimit`. */
export const rateLimiterServiceDefinition = {
  CheckRateLimit: method(`/${RATE_LIMITER_SERVICE_NAME}/CheckRateLimit`, v1.CheckRequest, v1.CheckResponse),
  CheckRateLimitBatch: method(
    `/${RATE_LIMITER_SERVICE_NAME}/CheckRateLimitBatch`,
    v1.CheckBatchRequest,
    v1.CheckBatchResponse,
  ),
  GetRemainingQuota: method(
    `/${RATE_LIMITER_SERVICE_NAME}/GetRemainingQuota`,
    v1.QuotaRequest,
    v1.QuotaResponse,
  ),
  ResetLimit: method(`/${RATE_LIMITER_SERVICE_NAME}/ResetLimit`, v1.ResetRequest, v1.ResetResponse),
} satisfies ServiceDefinition;

/** `grpc.health.v1.Health`: unary `Check`, server-streaming `Watch`. */
export const healthServiceDefinition = {
  Check: method(`/${HEALTH_SERVICE_NAME}/Check`, h.HealthCheckRequest, h.HealthCheckResponse),
  Watch: method(`/${HEALTH_SERVICE_NAME}/Watch`, h.HealthCheckRequest, h.HealthCheckResponse, true),
} satisfies ServiceDefinition;

/**
 * How every unary call of the Sluice gRPC server is run ({@link unaryHandler}): through the in-flight gate
 * (refused at once: `RESOURCE_EXHAUSTED` when it is full, `UNAVAILABLE` when the service is draining), timed on the service's stopwatch and
 * recorded in the metrics, with every failure mapped to a gRPC status ({@link grpcErrorOf}) — nothing a client
 * sends can make a handler throw, and a call cancelled by its client or its deadline is answered by grpc-js
 * (`CANCELLED` / `DEADLINE_EXCEEDED`) while the late answer is dropped quietly.
 */
import type { ServerUnaryCall, StatusObject, sendUnaryData } from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { InvalidArgumentError, SluiceError } from "../../core/errors.js";
import type { ServiceApi, ServiceContext, ServiceOutcome } from "../service-context.js";
import { MalformedMessage } from "./service-definitions.js";

/** Longest `grpc-message` sent, in characters (messages name fields; they never need more). */
export const MAX_STATUS_DETAILS = 1024;

/** What a call's logic returns: the response and the outcome recorded in the metrics. */
export interface UnaryOutcome<R> {
  /** The response message. */
  readonly response: R;
  /** The outcome label of the call (`ok`, `over_limit`, …). */
  readonly outcome: ServiceOutcome;
}

/** A call's logic: a decoded request in, an outcome out; it may throw (typed errors are mapped to statuses). */
export type UnaryLogic<Q, R> = (request: Q) => Promise<UnaryOutcome<R>> | UnaryOutcome<R>;

/** A gRPC error status and the outcome label it records. */
export interface GrpcError {
  /** The status code and message sent. */
  readonly status: Partial<StatusObject> & { code: status; details: string };
  /** The outcome recorded in the metrics. */
  readonly outcome: ServiceOutcome;
}

/** Store outages that escaped the rules' failure policies. */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  "ERR_SLUICE_STORE_UNAVAILABLE",
  "ERR_SLUICE_STORE_TIMEOUT",
  "ERR_SLUICE_STORE_CLOSED",
]);

/**
 * `message` cut to {@link MAX_STATUS_DETAILS} characters, never inside a surrogate pair, with any lone surrogate (from
 * a caller's text) written U+FFFD: a `grpc-message` is percent-encoded with `encodeURI`, which throws on one.
 */
export function clipDetails(message: string): string {
  let out = message;
  if (out.length > MAX_STATUS_DETAILS) {
    let end = MAX_STATUS_DETAILS - 1;
    const last = out.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    out = `${out.slice(0, end)}…`;
  }
  return LONE_SURROGATE.test(out) ? out.replace(LONE_SURROGATE_ALL, "\ufffd") : out;
}

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, "g");

/**
 * The gRPC status of an error thrown while serving: `INVALID_ARGUMENT` (its message, which names the field) for
 * bad input, `UNAVAILABLE` for a store outage no failure policy covered, else `INTERNAL` with a generic message
 * (the error is logged, never sent: it could disclose internals).
 */
export function grpcErrorOf(error: unknown, ctx: Pick<ServiceContext, "log">, what: string): GrpcError {
  if (error instanceof InvalidArgumentError) {
    return {
      status: { code: status.INVALID_ARGUMENT, details: clipDetails(error.message) },
      outcome: "invalid",
    };
  }
  if (error instanceof SluiceError && UNAVAILABLE_CODES.has(error.code)) {
    return {
      status: {
        code: status.UNAVAILABLE,
        details: clipDetails(`the rate limit store is unavailable: ${error.message}`),
      },
      outcome: "unavailable",
    };
  }
  ctx.log.error({ err: error }, `${what} failed`);
  return { status: { code: status.INTERNAL, details: "internal error" }, outcome: "error" };
}

/** Sends at most one answer; a call already cancelled or answered drops it (grpc-js ignores it too). */
function answer<R>(callback: sendUnaryData<R>, error: Partial<StatusObject> | null, response?: R): void {
  try {
    if (error === null) callback(null, response);
    else callback(error);
  } catch {
    // The stream is gone (client cancelled, deadline passed, connection closed): nothing to answer.
  }
}

/**
 * Wraps `logic` as a grpc-js unary handler for metric label `api`: gate, timing, metrics, error mapping. A
 * request that did not decode is `INVALID_ARGUMENT` naming `request` and the message type `typeName`.
 */
export function unaryHandler<Q, R>(
  ctx: ServiceContext,
  api: ServiceApi,
  typeName: string,
  logic: UnaryLogic<Q, R>,
): (call: ServerUnaryCall<Q | MalformedMessage, R>, callback: sendUnaryData<R>) => void {
  const what = `grpc ${api}`;
  return (call, callback) => {
    const startMs = ctx.stopwatch.nowMs();
    if (!ctx.gate.tryEnter()) {
      // Draining is not overload: its refusal must read as "this instance is going away", which clients and Envoy
      // retry elsewhere (UNAVAILABLE), and not as "over a limit" (RESOURCE_EXHAUSTED, not retried). A call whose
      // headers came before SIGTERM and its message after lands here too, with a stream id the GOAWAY covered.
      const draining = ctx.gate.draining;
      ctx.metrics.recordRequest(
        api,
        draining ? "unavailable" : "overloaded",
        ctx.stopwatch.nowMs() - startMs,
      );
      answer(
        callback,
        draining
          ? { code: status.UNAVAILABLE, details: "the server is shutting down; retry on another instance" }
          : {
              code: status.RESOURCE_EXHAUSTED,
              details: `the server is at its in-flight limit (${ctx.gate.max}); retry later`,
            },
      );
      return;
    }
    let settled = false;
    const finish = (outcome: ServiceOutcome, error: Partial<StatusObject> | null, response?: R): void => {
      if (settled) return;
      settled = true;
      ctx.gate.leave();
      try {
        ctx.metrics.recordRequest(api, outcome, ctx.stopwatch.nowMs() - startMs);
      } catch (e) {
        ctx.log.error({ err: e }, `${what}: recording metrics failed`);
      }
      answer(callback, error, response);
    };
    const fail = (error: unknown): void => {
      const e = grpcErrorOf(error, ctx, what);
      finish(e.outcome, e.status);
    };
    try {
      const request = call.request;
      if (request instanceof MalformedMessage) {
        throw new InvalidArgumentError(`request: not a valid ${typeName} message (${request.reason})`);
      }
      const out = logic(request);
      if (out instanceof Promise) {
        out.then((o) => finish(o.outcome, null, o.response), fail);
      } else finish(out.outcome, null, out.response);
    } catch (error) {
      fail(error);
    }
  };
}

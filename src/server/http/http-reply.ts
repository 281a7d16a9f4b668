/**
 * How the HTTP routes answer failures: every error becomes an RFC 9457 problem body with the status and the
 * metric outcome it maps to. Bad input (the service's own validation, fastify's body and URL errors) is a 4xx
 * naming what is wrong; an unreachable store is 503; anything else is 500 with a generic detail (the error is
 * logged, never echoed).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { SluiceError } from "../../core/errors.js";
import type { CheckRequest, CheckResult } from "../../engine/engine.js";
import {
  invalidRequestProblem,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  statusProblem,
} from "../problem-details.js";
import type { RateLimitHeaderOptions } from "../rate-limit-headers.js";
import type { ServiceApi, ServiceContext, ServiceOutcome } from "../service-context.js";

/** What an error answers: the problem body (its status included) and the metric outcome. */
export interface ErrorAnswer {
  /** The problem details to send; `status` is the HTTP status. */
  readonly problem: ProblemDetails;
  /** The `code` label of `sluice_requests_total`. */
  readonly outcome: ServiceOutcome;
}

/** Longest detail taken from a framework error message (they may quote the request). */
const MAX_DETAIL = 300;

function clip(s: string): string {
  return s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL)}…` : s;
}

/** Fastify's error codes for request bodies and URLs, by the status they answer with. */
const FASTIFY_STATUS: Readonly<Record<string, number>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_BAD_URL: 400,
};

/** Maps any error to its answer; logs the unexpected ones (500) on `log`. `bodyLimit` words the 413 detail. */
export function errorAnswer(error: unknown, log: Logger, bodyLimit?: number): ErrorAnswer {
  if (error instanceof SluiceError) {
    switch (error.code) {
      case "ERR_SLUICE_INVALID_ARGUMENT":
        return { problem: invalidRequestProblem(error.message), outcome: "invalid" };
      case "ERR_SLUICE_STORE_UNAVAILABLE":
      case "ERR_SLUICE_STORE_TIMEOUT":
      case "ERR_SLUICE_STORE_CLOSED":
        return {
          problem: statusProblem(503, "The rate limit store is unavailable; retry later."),
          outcome: "unavailable",
        };
      default:
        break;
    }
  }
  const e = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  const mapped = typeof e?.code === "string" ? FASTIFY_STATUS[e.code] : undefined;
  const status =
    mapped ??
    (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500
      ? e.statusCode
      : undefined);
  if (status !== undefined) {
    const message =
      status === 413 && bodyLimit !== undefined
        ? `The body is larger than ${bodyLimit} bytes.`
        : status === 415
          ? "The body must be JSON (Content-Type: application/json)."
          : typeof e.message === "string"
            ? clip(e.message)
            : "invalid request";
    const problem =
      status === 400
        ? invalidRequestProblem(message, mapped === 400 && e.code !== "FST_ERR_BAD_URL" ? "body" : undefined)
        : statusProblem(status, message);
    return { problem, outcome: "invalid" };
  }
  log.error({ err: error }, "http: unexpected error");
  return {
    problem: statusProblem(500, "An unexpected error occurred; it has been logged."),
    outcome: "error",
  };
}

/** Sends `problem` as `application/problem+json` with its status and any extra `headers`. */
export function sendProblem(
  reply: FastifyReply,
  problem: ProblemDetails,
  headers?: Readonly<Record<string, string>>,
): FastifyReply {
  if (headers !== undefined) reply.headers(headers);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

/** What the route modules share, built once by `createHttpServer`. */
export interface RouteKit {
  /** The service context. */
  readonly ctx: ServiceContext;
  /** Options of the `RateLimit` headers sent with answers. */
  readonly headerOptions: RateLimitHeaderOptions;
  /** Records one served request of `api` with its outcome, timed from when the request arrived. */
  record(api: ServiceApi, outcome: ServiceOutcome, request: FastifyRequest): void;
  /**
   * Checks `request` with the engine: synchronously (`engine.checkSync`) when its store has a synchronous path
   * (memory), else `engine.check`'s promise.
   */
  check(request: CheckRequest): CheckResult | Promise<CheckResult>;
  /**
   * Serves one request holding a slot of the in-flight gate: `prepare` validates it into the engine request to
   * check (undefined: nothing to check), `check` checks that, and `answer` sends the answer from the result
   * (undefined when nothing was checked) and the prepared request; `answer` returns a promise when it must work
   * asynchronously before it sends. When the check is synchronous (memory), `answer` runs at once, in the same turn.
   * The slot is given back once `answer` has sent (or its promise settled). A mere wait (a `delay` rule's) is not
   * work: `answer` takes a slot of the gate's waiting pool for it and returns, giving the in-flight slot back. When the gate refuses, answers 503 at
   * once (recorded as `overloaded`). Any error `prepare`, the check or `answer` throws or rejects with is
   * answered as a problem and recorded with its outcome. `prepare` and `answer` are built once per route and
   * take the request as arguments: a check answered from memory costs no closure and no promise.
   */
  gated(
    api: ServiceApi,
    request: FastifyRequest,
    reply: FastifyReply,
    prepare: (request: FastifyRequest) => CheckRequest | undefined,
    answer: (
      result: CheckResult | undefined,
      input: CheckRequest | undefined,
      request: FastifyRequest,
      reply: FastifyReply,
    ) => Promise<void> | undefined,
  ): void;
}

/**
 * RFC 9457 problem details (`application/problem+json`) for the service's HTTP error answers.
 *
 * - A denial (429, or 403 for forward-auth proxies that only accept 2xx/401/403) is draft-ietf-httpapi-
 *   ratelimit-headers-10's problem type `quota-exceeded`, with the draft's `violated-policies` member (the names
 *   of the denying policies, as in the `RateLimit` header) and Sluice's `retry-after` member (whole seconds, as in
 *   the `Retry-After` header; absent when the request can never pass).
 * - A denial only because the store is unreachable and the rule fails closed is not a quota used up: 503 of the
 *   draft's type `temporary-reduced-capacity`, `violated-policies` naming the policies that could not be asked,
 *   and `retry-after` until the store is tried again.
 * - A request a `delay` rule would have made wait, refused at once because the server holds its cap of waiting
 *   requests, is a denial too (`quota-exceeded`, naming the delayed policies): its caller is over the rate.
 * - An invalid request (400) names the offending field in `detail` and in RFC 9457's `invalid-params` extension
 *   (`[{ name, reason }]`).
 * - Everything else (404, 405, 408, 413, 415, 431, 500, 503) is `about:blank` with the status's reason phrase as title.
 */
import type { CheckResult } from "../engine/engine.js";
import {
  type AppliedPolicy,
  appliedPolicies,
  isUnavailable,
  retryAfterSeconds,
} from "./rate-limit-headers.js";

/** The media type of problem details. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** The draft's registered problem type of a request over its quota. */
export const QUOTA_EXCEEDED_TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";

/** The draft's registered title of {@link QUOTA_EXCEEDED_TYPE}. */
export const QUOTA_EXCEEDED_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

/** The draft's registered problem type of a request refused for a temporary reduction in capacity (with 503). */
export const REDUCED_CAPACITY_TYPE =
  "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

/** The draft's registered title of {@link REDUCED_CAPACITY_TYPE}. */
export const REDUCED_CAPACITY_TITLE =
  "Request cannot be satisfied due to temporary server capacity constraints";

/** An RFC 9457 problem details object (members beyond the standard five are extensions). */
export interface ProblemDetails {
  /** A URI identifying the problem type; `about:blank` when the status says it all. */
  readonly type: string;
  /** A short summary of the problem type. */
  readonly title: string;
  /** The HTTP status code. */
  readonly status: number;
  /** What went wrong with this request. */
  readonly detail?: string;
  /** Extension members. */
  readonly [extension: string]: unknown;
}

/** Reason phrases of the statuses the service answers with. */
const TITLES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** A problem of type `about:blank` for `status`, titled by its reason phrase. */
export function statusProblem(status: number, detail: string): ProblemDetails {
  return { type: "about:blank", title: TITLES[status] ?? `HTTP ${status}`, status, detail };
}

/**
 * The field path an `InvalidArgumentError` message starts with (`descriptors[0].entries[1].key must be …` →
 * `descriptors[0].entries[1].key`), or undefined when the message does not start with one.
 */
export function fieldOf(message: string): string | undefined {
  const m = /^([A-Za-z_"][^\s]*) /.exec(message);
  return m === null ? undefined : m[1];
}

/** A 400 problem for an invalid request; `field` (default: read from the message) goes to `invalid-params`. */
export function invalidRequestProblem(message: string, field = fieldOf(message)): ProblemDetails {
  const base = statusProblem(400, message);
  if (field === undefined) return base;
  const reason = message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  return { ...base, "invalid-params": [{ name: field, reason }] };
}

/**
 * The `quota-exceeded` problem of a denied answer: `violated-policies` lists the policies whose quota denied
 * (a denial with none of its own, which the engine does not produce, lists none; policies `fail_closed` denied
 * are not quotas and are left out), `retry-after` the seconds to wait when known. `status` is 429, or 403 for
 * proxies that need it.
 */
export function quotaExceededProblem(
  result: CheckResult,
  status: 429 | 403 = 429,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
): ProblemDetails {
  const violated = policies.filter((p) => !p.status.allowed && !isUnavailable(p)).map((p) => p.name);
  const retry = retryAfterSeconds(result, policies);
  const over = violated.length === 1 ? `policy ${violated[0]}` : `policies ${violated.join(", ")}`;
  const detail =
    violated.length === 0
      ? "The request was denied by a rate limit."
      : retry === undefined
        ? `Over the limit of ${over}; this request cannot pass.`
        : `Over the limit of ${over}; retry in ${retry} s.`;
  const body: Record<string, unknown> = {
    type: QUOTA_EXCEEDED_TYPE,
    title: QUOTA_EXCEEDED_TITLE,
    status,
    detail,
    "violated-policies": violated,
  };
  if (retry !== undefined) body["retry-after"] = retry;
  return body as ProblemDetails;
}

/**
 * The `quota-exceeded` problem of a request a `delay` rule admitted after `delayMs` (its caller is over the rate),
 * answered at once because the server already holds its cap of waiting requests (`maxWaiting`): `violated-policies`
 * names the policies of the delayed descriptors, `retry-after` the seconds until its slot (at least 1). `status` is
 * 429, or 403 for proxies that need it.
 */
export function delayRefusedProblem(
  result: CheckResult,
  maxWaiting: number,
  status: 429 | 403 = 429,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
): ProblemDetails {
  const delayed = result.descriptors;
  const violated = policies.filter((p) => delayed[p.descriptorIndex]?.delayMs > 0).map((p) => p.name);
  const retry = delayRetryAfterSeconds(result.delayMs);
  const over = violated.length === 1 ? `policy ${violated[0]}` : `policies ${violated.join(", ")}`;
  return {
    type: QUOTA_EXCEEDED_TYPE,
    title: QUOTA_EXCEEDED_TITLE,
    status,
    detail: `Over the rate of ${over}: this request would wait ${Math.ceil(result.delayMs)} ms, and the server already holds its most waiting requests (${maxWaiting}); retry in ${retry} s.`,
    "violated-policies": violated,
    "retry-after": retry,
  };
}

/** `Retry-After` seconds of a delayed request answered at once: its delay in whole seconds, rounded up, at least 1. */
export function delayRetryAfterSeconds(delayMs: number): number {
  return Math.max(1, Math.ceil(delayMs / 1000));
}

/**
 * The `temporary-reduced-capacity` problem (503) of an answer denied only because the store was unreachable and
 * its rules fail closed: `violated-policies` names those policies, `retry-after` is when the store is tried again.
 */
export function reducedCapacityProblem(
  result: CheckResult,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
): ProblemDetails {
  const violated = policies.filter((p) => !p.status.allowed && isUnavailable(p)).map((p) => p.name);
  const retry = retryAfterSeconds(result, policies);
  const which =
    violated.length === 1 ? `policy ${violated[0]} fails` : `policies ${violated.join(", ")} fail`;
  const detail = `The rate limit store is unavailable and ${which} closed; retry in ${retry ?? 1} s.`;
  const body: Record<string, unknown> = {
    type: REDUCED_CAPACITY_TYPE,
    title: REDUCED_CAPACITY_TITLE,
    status: 503,
    detail,
    "violated-policies": violated,
  };
  if (retry !== undefined) body["retry-after"] = retry;
  return body as ProblemDetails;
}

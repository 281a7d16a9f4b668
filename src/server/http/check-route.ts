/**
 * `POST /v1/check`: the check API over HTTP. The body is an `ApiCheckRequest` (check-api.ts) as JSON; the answer
 * is 200 with an `ApiCheckResponse` whether the request is allowed or not (the caller decides what to do with a
 * denial), plus the `RateLimit-Policy` / `RateLimit` / `RateLimit-State` headers of the answer. `Retry-After` is
 * not sent: this 200 is not itself throttled, and the body carries `retry_after`. A replayed idempotent answer's
 * `t` counts down from the first check as its body's durations do (both taken at one `nowMs`).
 *
 * **Store unreachable, rule `fail_closed`.** Still 200 with the decision (this API reports decisions; the caller
 * chose to be refused when the store is down): `allowed: false`, `reason: "fail_closed"`, `current_count` 0 and
 * `retry_after` until the store is tried again; the made-up policy is in no header. Recorded as `fail_closed`,
 * not `over_limit`, in `sluice_requests_total`.
 *
 * **Body.** Only `application/json` (any parameters, e.g. `charset=utf-8`) is accepted (415 otherwise), at most
 * `bounds.maxBodyBytes` (413). The bytes must be valid UTF-8 and valid JSON (400 `body …`); no lenient decoding
 * replaces bad bytes, so what is counted is exactly what was sent. No content coding is decoded: a body with a
 * `Content-Encoding` other than `identity` (gzip, br, …) is answered 415 with `Accept-Encoding: identity` (RFC 9110
 * §15.5.16, §12.5.3), a problem naming the header, recorded as `invalid`; it is read (within the size limit) but
 * not parsed.
 *
 * **Idempotency.** The `X-Idempotency-Key` header is the `idempotency_key` field: either may be given; when both
 * are, they must be equal (400 naming `idempotency_key` otherwise), so a client can never be unsure which one
 * was used. The header's bytes are read as UTF-8 when they form it, as forward-auth reads its headers
 * (`headerText`), so a non-ASCII key is the same key in the header as in the JSON body.
 */
import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidArgumentError } from "../../core/errors.js";
import type { CheckRequest, CheckResult } from "../../engine/engine.js";
import { checkOutcome, checkResponseOf, parseCheckRequest } from "../check-api.js";
import { statusProblem } from "../problem-details.js";
import {
  appliedPolicies,
  HTTP_FIELD_NAMES,
  type RateLimitHeaderOptions,
  rateLimitHeaders,
} from "../rate-limit-headers.js";
import { checkResponseJson } from "./check-response-json.js";
import { headerText } from "./forward-auth.js";
import { type RouteKit, sendProblem } from "./http-reply.js";

/** The request header that carries the idempotency key. */
export const IDEMPOTENCY_HEADER = "x-idempotency-key";

/** Longest JSON error detail quoted back (V8's messages quote part of the input). */
const MAX_JSON_ERROR = 200;

/** Longest `Content-Encoding` value quoted back. */
const MAX_CODING_QUOTE = 100;

/** The parsed body of a request sent with a content coding (see the module comment): answered 415, never parsed. */
const CODED_BODY: unique symbol = Symbol("sluice.codedBody");

/**
 * Whether a `Content-Encoding` value leaves the body as it is: absent, or a list (RFC 9110 §5.6.1, empty elements
 * allowed) of `identity` only, in any case.
 */
export function isIdentityCoding(value: string | string[] | undefined): boolean {
  if (value === undefined) return true;
  const text = Array.isArray(value) ? value.join(",") : value;
  for (const coding of text.split(",")) {
    const c = coding.trim().toLowerCase();
    if (c !== "" && c !== "identity") return false;
  }
  return true;
}

/** Answers a body sent with a content coding: 415 naming the header, `Accept-Encoding: identity`. */
function refuseCoding(kit: RouteKit, request: FastifyRequest, reply: FastifyReply): void {
  const v = request.headers["content-encoding"];
  const value = Array.isArray(v) ? v.join(", ") : (v ?? "");
  const quoted = JSON.stringify(
    value.length > MAX_CODING_QUOTE ? `${value.slice(0, MAX_CODING_QUOTE)}…` : value,
  );
  kit.record("http_check", "invalid", request);
  sendProblem(
    reply,
    statusProblem(
      415,
      `content-encoding header must be identity or absent (the body is read as sent, not decoded), got ${quoted}`,
    ),
    { "Accept-Encoding": "identity" },
  );
}

/**
 * Decodes a JSON body strictly: valid UTF-8 (a leading BOM allowed), then `JSON.parse`. The bytes are checked
 * only when the decoded text holds U+FFFD (what the decoder puts for bad bytes), and emptiness only when the
 * parse fails: one pass over a good body instead of three.
 */
export function parseJsonBody(body: Buffer): unknown {
  let text = body.toString("utf8");
  if (text.indexOf("\uFFFD") !== -1 && !isUtf8(body)) {
    throw new InvalidArgumentError("body is not valid UTF-8");
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (e) {
    if (text.trim() === "") throw new InvalidArgumentError("body is empty; a JSON object is expected");
    const m = e instanceof Error ? e.message : String(e);
    throw new InvalidArgumentError(
      `body is not valid JSON: ${m.length > MAX_JSON_ERROR ? `${m.slice(0, MAX_JSON_ERROR)}…` : m}`,
    );
  }
}

/** Merges the `X-Idempotency-Key` header into the body (see the module comment); the body itself is not changed. */
function withIdempotencyHeader(body: unknown, header: string | string[] | undefined): unknown {
  if (header === undefined) return body;
  const raw = Array.isArray(header) ? header.join(", ") : header;
  if (raw === "") return body;
  const key = headerText(raw);
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body; // refused by the parser
  const field = (body as { idempotency_key?: unknown }).idempotency_key;
  if (field !== undefined && field !== null && field !== "" && field !== key) {
    throw new InvalidArgumentError(
      "idempotency_key differs from the X-Idempotency-Key header; give one of them, or the same key in both",
    );
  }
  return { ...body, idempotency_key: key };
}

/**
 * Registers `POST /v1/check` (and 405 for its other methods) in an encapsulated context whose only body parser
 * is the strict JSON one.
 */
export function registerCheckRoute(
  app: FastifyInstance,
  kit: RouteKit,
  defaultDomain: string | undefined,
): void {
  const { ctx } = kit;
  // This 200 is not itself throttled: no Retry-After (the body carries retry_after).
  const headerOptions: RateLimitHeaderOptions = { ...kit.headerOptions, retryAfter: false };
  const prepare = (request: FastifyRequest): CheckRequest => {
    if (request.body === undefined) {
      throw new InvalidArgumentError("body is required: a JSON object (Content-Type: application/json)");
    }
    const input = withIdempotencyHeader(request.body, request.headers[IDEMPOTENCY_HEADER]);
    return parseCheckRequest(input, ctx, defaultDomain);
  };
  // `prepare` always gives a request, so the engine always answered.
  const answer = (
    checked: CheckResult | undefined,
    input: CheckRequest | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): undefined => {
    const result = checked as CheckResult;
    ctx.metrics.recordDecision((input as CheckRequest).domain, result);
    const policies = appliedPolicies(result);
    // One instant for the headers and the body: a replay's `t` and `retry_after` count down alike.
    const nowMs = ctx.clock.nowMs();
    const headers = rateLimitHeaders(result, headerOptions, policies, HTTP_FIELD_NAMES, nowMs);
    const body = checkResponseJson(checkResponseOf(result, nowMs, policies));
    kit.record("http_check", checkOutcome(result, policies), request);
    reply.code(200).headers(headers).type("application/json").send(body);
    return undefined;
  };
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "application/json",
      { parseAs: "buffer", bodyLimit: ctx.bounds.maxBodyBytes },
      (request, body, done) => {
        if (!isIdentityCoding(request.headers["content-encoding"])) {
          done(null, CODED_BODY);
          return;
        }
        try {
          done(null, parseJsonBody(body as Buffer));
        } catch (e) {
          done(e as Error, undefined);
        }
      },
    );
    scope.post("/v1/check", (request, reply) => {
      if (request.body === CODED_BODY) refuseCoding(kit, request, reply);
      else kit.gated("http_check", request, reply, prepare, answer);
    });
  });
}

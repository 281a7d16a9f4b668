/**
 * Envoy's rate limit service (`envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`) over the engine,
 * with envoyproxy/ratelimit's semantics where the protocol leaves them open.
 *
 * **Request** ({@link envoyCheckRequestOf}). `domain` and every descriptor go to the engine as they are (an
 * unknown domain matches no rule, so every descriptor is OK: no configuration, no limit). Hits: a descriptor's own
 * `hits_addend` (a `UInt64Value`, so present-and-0 means "check without counting") overrides the request's
 * `hits_addend`, whose 0 (or absence) means 1. A descriptor's `limit` override (`requests_per_unit` per `unit`)
 * replaces the configured limits of the rule it matches (`CheckRequest.limitOverrides`); units are
 * envoyproxy/ratelimit's fixed lengths (MONTH is 30 days, YEAR 365). Refused with `INVALID_ARGUMENT` naming the
 * proto field: an empty domain or descriptor list (as envoyproxy/ratelimit), a descriptor without entries, an
 * entry with an empty key, strings or counts beyond the engine's limits, hits above `bounds.maxCost`, and an
 * override of unit UNKNOWN (or a number no unit has).
 *
 * **Response** ({@link envoyResponseOf}). One `DescriptorStatus` per request descriptor, in order; `overall_code`
 * is OVER_LIMIT when the request was denied (then at least one descriptor is OVER_LIMIT). Shadow rules answer OK
 * (the engine reports them so). Per descriptor:
 * - counted: `current_limit` is its most restrictive limit ({@link currentLimitOf}: `requests_per_unit` and `unit`,
 *   `name` the limit's name as in `RateLimit-Policy`), `limit_remaining` its remaining units (whole, clamped to
 *   uint32 and to `current_limit`'s `requests_per_unit`, which for a window of no whole unit is a rate rescaled
 *   down to one unit; 0 when OVER_LIMIT, as envoyproxy/ratelimit answers, even when a larger cost than what is
 *   left was refused), `duration_until_reset` the time until its key is back to full (whole ms, rounded up);
 * - no rule matched, or its rule was replaced (Envoy's `replaces`): OK, no `current_limit`, `limit_remaining` 0
 *   (envoyproxy/ratelimit's answer for a descriptor without a limit);
 * - an `unlimited` rule: OK, no `current_limit`, `limit_remaining` 4294967295 (envoyproxy/ratelimit's MaxUint32);
 * - let through uncounted by the `fail_open` failure policy (the store is unreachable): OK, no `current_limit`,
 *   `limit_remaining` 0 and no `duration_until_reset`, as a descriptor without a limit. The engine stands in with
 *   the full limit remaining, which nobody counted; Envoy reads its `x-ratelimit-*` headers from the statuses
 *   that have a `current_limit`, so none is made up from it. (envoyproxy/ratelimit answers a Redis error with a
 *   gRPC error, and Envoy with `failure_mode_deny: false` lets the request through with no rate limit header.)
 *   The `response_headers_to_add` leave such policies out too (`rateLimitHeaders`);
 * - a `blocked` rule (`requests_per_unit: 0`): OVER_LIMIT with `requests_per_unit` 0;
 * - not evaluated because another descriptor matched a `blocked` rule: OK with its first limit as
 *   `current_limit` and `limit_remaining` 0 (nothing was counted).
 * With `responseHeaders` (the default), `response_headers_to_add` carries the draft-10 `RateLimit-Policy` and
 * `RateLimit` fields, `Retry-After` on denial and `RateLimit-State` (`rateLimitHeaders`), like
 * envoyproxy/ratelimit's LIMIT_RESPONSE_HEADERS_ENABLED but in the current draft's form. `delay` rules cannot
 * make Envoy wait: their admitted requests are OK at once.
 */
import { InvalidArgumentError } from "../../core/errors.js";
import {
  type CheckRequest,
  type CheckResult,
  type DescriptorResult,
  MAX_DESCRIPTORS,
  MAX_DOMAIN_LENGTH,
  MAX_ENTRIES,
  MAX_ENTRY_KEY_LENGTH,
  MAX_VALUE_LENGTH,
} from "../../engine/engine.js";
import { ENVOY_UNIT_SECONDS } from "../../rules/envoy-config.js";
import type { Descriptor, DescriptorEntry } from "../../rules/rule.js";
import {
  deniedByUnavailableStore,
  type RateLimitHeaderOptions,
  rateLimitHeaders,
} from "../rate-limit-headers.js";
import type { ServiceContext } from "../service-context.js";
import type { envoy } from "./gen/protos.js";
import type { UnaryLogic } from "./grpc-call.js";
import { envoyRls } from "./service-definitions.js";

type RateLimitRequest = envoy.service.ratelimit.v3.RateLimitRequest;
/** The response message, as the properties the generated encoder takes. */
export type RateLimitResponseProps = envoy.service.ratelimit.v3.RateLimitResponse.$Properties;
type DescriptorStatusProps = envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus.$Properties;
type RateLimitProps = envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.$Properties;

const Code = envoyRls.RateLimitResponse.Code;
const Unit = envoyRls.RateLimitResponse.RateLimit.Unit;

/** Largest uint32: envoyproxy/ratelimit's `limit_remaining` of an unlimited descriptor. */
export const UINT32_MAX = 4_294_967_295;

/** Length of each Envoy unit in ms (`envoy.type.v3.RateLimitUnit` and `RateLimitResponse.RateLimit.Unit` agree). */
export const ENVOY_UNIT_MS: ReadonlyMap<number, number> = new Map([
  [Unit.SECOND, ENVOY_UNIT_SECONDS.second * 1000],
  [Unit.MINUTE, ENVOY_UNIT_SECONDS.minute * 1000],
  [Unit.HOUR, ENVOY_UNIT_SECONDS.hour * 1000],
  [Unit.DAY, ENVOY_UNIT_SECONDS.day * 1000],
  [Unit.WEEK, ENVOY_UNIT_SECONDS.week * 1000],
  [Unit.MONTH, ENVOY_UNIT_SECONDS.month * 1000],
  [Unit.YEAR, ENVOY_UNIT_SECONDS.year * 1000],
]);

/** The units from the shortest to the longest, with their lengths in ms. */
const UNITS_BY_LENGTH: readonly (readonly [number, number])[] = [...ENVOY_UNIT_MS].sort(
  (a, b) => a[1] - b[1],
);

/** Options of the Envoy service. */
export interface EnvoyRlsOptions {
  /** Headers for `response_headers_to_add` (`rateLimitHeaders` options), or false for none. */
  readonly responseHeaders: RateLimitHeaderOptions | false;
}

/** A protobufjs uint64/int64 value (a Long when `long` is installed, else a number) as a number. */
function numberOf(v: number | { toNumber(): number } | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === "number" ? v : v.toNumber();
}

function fail(message: string): never {
  throw new InvalidArgumentError(message);
}

/** A proto string field checked against a length limit (decoding already refused invalid UTF-8). */
function checkLength(s: string, path: string, max: number): void {
  if (s.length > max) fail(`${path} must be at most ${max} characters, got ${s.length}`);
}

/** A per-descriptor limit replacing the configured ones: `requestsPerUnit` (0 = blocked) per `unitMs`. */
export interface LimitOverride {
  /** Requests admitted per unit; 0 blocks the descriptor. */
  readonly requestsPerUnit: number;
  /** The unit's length, ms. */
  readonly unitMs: number;
}

/**
 * The engine request of an Envoy check: a `CheckRequest` with, per descriptor, Envoy's `limit` override
 * (`CheckRequest.limitOverrides` of the engine; declared here too so this module does not depend on the order in
 * which the two land — the "limit override" test proves the engine honours it).
 */
export type EnvoyCheckRequest = CheckRequest & {
  readonly limitOverrides?: readonly (LimitOverride | undefined)[];
};

/**
 * Validates a decoded `RateLimitRequest` into an engine request (see the module comment); throws
 * `InvalidArgumentError` whose message starts with the proto field path. Touches nothing.
 */
export function envoyCheckRequestOf(
  req: RateLimitRequest,
  bounds: ServiceContext["bounds"],
): EnvoyCheckRequest {
  const domain = req.domain;
  if (domain === "") fail("domain must not be empty (the rate limit domain of the Envoy filter)");
  checkLength(domain, "domain", MAX_DOMAIN_LENGTH);
  const list = req.descriptors;
  if (list.length === 0) fail("descriptors must not be empty");
  if (list.length > MAX_DESCRIPTORS) {
    fail(`descriptors must hold at most ${MAX_DESCRIPTORS} descriptors, got ${list.length}`);
  }
  const maxCost = bounds.maxCost;
  const hits = req.hits_addend === 0 ? 1 : req.hits_addend;
  if (hits > maxCost) fail(`hits_addend must be at most ${maxCost}, got ${hits}`);
  const n = list.length;
  const descriptors: Descriptor[] = new Array(n);
  let costs: (number | undefined)[] | undefined;
  let overrides: (LimitOverride | undefined)[] | undefined;
  for (let i = 0; i < n; i++) {
    const d = list[i];
    const at = `descriptors[${i}]`;
    const entries = d.entries ?? [];
    if (entries.length === 0 || entries.length > MAX_ENTRIES) {
      fail(`${at}.entries must hold 1 to ${MAX_ENTRIES} entries, got ${entries.length}`);
    }
    const out: DescriptorEntry[] = new Array(entries.length);
    for (let j = 0; j < entries.length; j++) {
      const key = entries[j].key ?? "";
      const value = entries[j].value ?? "";
      if (key === "") fail(`${at}.entries[${j}].key must not be empty`);
      checkLength(key, `${at}.entries[${j}].key`, MAX_ENTRY_KEY_LENGTH);
      checkLength(value, `${at}.entries[${j}].value`, MAX_VALUE_LENGTH);
      out[j] = { key, value };
    }
    descriptors[i] = out;
    const own = d.hits_addend;
    if (own !== null && own !== undefined) {
      const cost = numberOf(own.value);
      if (cost > maxCost) fail(`${at}.hits_addend must be at most ${maxCost}, got ${cost}`);
      costs ??= new Array(n).fill(undefined);
      costs[i] = cost;
    }
    const limit = d.limit;
    if (limit !== null && limit !== undefined) {
      const unit = limit.unit ?? 0;
      const unitMs = ENVOY_UNIT_MS.get(unit);
      if (unitMs === undefined) {
        fail(
          `${at}.limit.unit must be one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR, got ${unit === 0 ? "UNKNOWN" : unit}`,
        );
      }
      overrides ??= new Array(n).fill(undefined);
      overrides[i] = { requestsPerUnit: limit.requests_per_unit ?? 0, unitMs };
    }
  }
  const request: { -readonly [K in keyof EnvoyCheckRequest]: EnvoyCheckRequest[K] } = {
    domain,
    descriptors,
    cost: hits,
  };
  if (costs !== undefined) request.costs = costs;
  if (overrides !== undefined) request.limitOverrides = overrides;
  return request;
}

/** A count as a uint32: whole (rounded down), clamped to [0, 2³²−1]. */
function uint32(n: number): number {
  if (!(n > 0)) return 0;
  return n >= UINT32_MAX ? UINT32_MAX : Math.floor(n);
}

/**
 * A limit of `limit` units per `periodMs` as Envoy's `requests_per_unit` per `unit`. A period of exactly one unit
 * is that unit. Otherwise the rate is rescaled to a unit, rounding down so the reported rate never exceeds the
 * real one: the longest unit not longer than the period that still gives at least one request per unit, else
 * (a rate below one per unit for every such unit, or a period under a second) the shortest unit that does. E.g.
 * 100 per 10 s → 10/SECOND, 1 per 2 s → 30/MINUTE, 5 per 90 s → 3/MINUTE, 50 per 100 ms → 500/SECOND. A limit of 0
 * (a blocked rule) is 0 per the period's unit, or per SECOND.
 */
export function currentLimitOf(limit: number, periodMs: number): { requestsPerUnit: number; unit: number } {
  let exact: number | undefined;
  for (const [unit, ms] of UNITS_BY_LENGTH) if (ms === periodMs) exact = unit;
  if (exact !== undefined) return { requestsPerUnit: uint32(limit), unit: exact };
  if (!(limit > 0) || !(periodMs > 0)) return { requestsPerUnit: 0, unit: Unit.SECOND };
  let best: readonly [number, number] | undefined;
  for (const u of UNITS_BY_LENGTH) {
    if (u[1] <= periodMs && Math.floor((limit * u[1]) / periodMs) >= 1) best = u;
  }
  if (best === undefined) {
    best = UNITS_BY_LENGTH.find((u) => Math.floor((limit * u[1]) / periodMs) >= 1) ?? UNITS_BY_LENGTH[6];
  }
  return { requestsPerUnit: uint32((limit * best[1]) / periodMs), unit: best[0] };
}

/** A duration in ms as a `google.protobuf.Duration` (whole ms, rounded up). */
function durationOf(ms: number): { seconds: number; nanos: number } {
  const whole = Math.ceil(ms);
  return { seconds: Math.floor(whole / 1000), nanos: (whole % 1000) * 1_000_000 };
}

function rateLimit(
  name: string,
  limit: number,
  periodMs: number,
): RateLimitProps & { requests_per_unit: number } {
  const c = currentLimitOf(limit, periodMs);
  return { name, requests_per_unit: c.requestsPerUnit, unit: c.unit };
}

/** One descriptor's status (see the module comment). */
function statusOf(d: DescriptorResult): DescriptorStatusProps {
  const code = d.code === "OVER_LIMIT" ? Code.OVER_LIMIT : Code.OK;
  const dec = d.decision;
  // Nothing was counted: no limit, no remaining made up (see the module comment).
  if (dec?.reason === "fail_open") return { code, limit_remaining: 0 };
  if (dec !== undefined && Number.isFinite(dec.limit)) {
    const current = rateLimit(dec.policy, dec.limit, dec.periodMs);
    const s: DescriptorStatusProps = {
      code,
      current_limit: current,
      // envoyproxy/ratelimit reports 0 left on every OVER_LIMIT status, also when a cost larger than what is left
      // was refused (Envoy's x-ratelimit-remaining header is read from it). Never more than `current_limit` itself:
      // for a window that is no whole unit the limit is a rate rescaled down to one (900 per 15 minutes: 60 per
      // MINUTE), and Envoy pairs the two in its headers, so 899 left "of 60" would contradict it; what is left of
      // one unit's share is at most that share (the exact figures are in the RateLimit headers).
      limit_remaining:
        code === Code.OVER_LIMIT ? 0 : Math.min(uint32(dec.remaining), current.requests_per_unit),
    };
    if (Number.isFinite(dec.resetAfterMs) && dec.resetAfterMs > 0) {
      s.duration_until_reset = durationOf(dec.resetAfterMs);
    }
    return s;
  }
  if (d.limits === "unlimited") return { code, limit_remaining: UINT32_MAX };
  if (dec === undefined && Array.isArray(d.limits) && d.limits.length > 0 && d.replacedBy === undefined) {
    const first = d.limits[0];
    return { code, current_limit: rateLimit(first.name, first.limit, first.periodMs), limit_remaining: 0 };
  }
  return { code, limit_remaining: 0 };
}

/** The `RateLimitResponse` of an engine answer (see the module comment). */
export function envoyResponseOf(result: CheckResult, options: EnvoyRlsOptions): RateLimitResponseProps {
  const statuses: DescriptorStatusProps[] = new Array(result.descriptors.length);
  let over = !result.allowed;
  for (let i = 0; i < statuses.length; i++) {
    statuses[i] = statusOf(result.descriptors[i]);
    if (statuses[i].code === Code.OVER_LIMIT) over = true;
  }
  const response: RateLimitResponseProps = { overall_code: over ? Code.OVER_LIMIT : Code.OK, statuses };
  if (options.responseHeaders !== false) {
    const headers = rateLimitHeaders(result, options.responseHeaders);
    const list = Object.keys(headers).map((key) => ({ key, value: headers[key] }));
    if (list.length > 0) response.response_headers_to_add = list;
  }
  return response;
}

/**
 * `ShouldRateLimit`: validate, check (counting), record the decision, answer. Recorded in `sluice_requests_total`
 * as the HTTP API records it: `ok`, `over_limit`, or `fail_closed` for an OVER_LIMIT only because the store was
 * unreachable and its rule fails closed.
 */
export function shouldRateLimit(
  ctx: ServiceContext,
  options: EnvoyRlsOptions,
): UnaryLogic<RateLimitRequest, RateLimitResponseProps> {
  // Not async: the only promise is the engine's (a bad request throws at once; unaryHandler maps it).
  return (req) => {
    const request = envoyCheckRequestOf(req, ctx.bounds);
    return ctx.engine.check(request).then((result) => {
      ctx.metrics.recordDecision(request.domain, result);
      const response = envoyResponseOf(result, options);
      // A denial only because the store was unreachable (fail_closed) used up no quota: recorded as HTTP does.
      const outcome =
        response.overall_code !== Code.OVER_LIMIT
          ? "ok"
          : deniedByUnavailableStore(result)
            ? "fail_closed"
            : "over_limit";
      return { response, outcome };
    });
  };
}

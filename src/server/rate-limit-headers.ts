/**
 * The standard rate limit response fields of an engine answer, for HTTP responses and Envoy's
 * `response_headers_to_add`:
 *
 * - `RateLimit-Policy` and `RateLimit` of draft-ietf-httpapi-ratelimit-headers-10: Structured-Field lists (RFC
 *   9651) with one item per policy that applied, named by an sf-string:
 *   `RateLimit-Policy: "per-second";q=10;w=1, "per-day";q=10000;w=86400` (`q` quota, `w` window in whole seconds)
 *   and `RateLimit: "per-second";r=3;t=1, "per-day";r=9950;t=3600` (`r` remaining, `t` seconds until more quota:
 *   for a denied policy until this request's cost could pass, otherwise until the key is back to full — an upper
 *   bound, exact for windows). `qu` is sent when the unit is not the default `"requests"`: `"content-bytes"` for
 *   rules of strategy `bytes`, `"concurrent-requests"` for concurrency limits (which then have no `w`: their period
 *   is a lease lifetime, not a window). Rules of strategy `records` have no registered unit, so they carry the
 *   vendor parameter `sluice-qu="records"` instead. A `blocked` rule is `q=0` without `w` or `t`. Integers are
 *   clamped to the sf-integer range (15 digits). No `pk` (partition key) is sent: it would disclose identities.
 *   No jitter is added to `t`: answers stay reproducible.
 * - `r` is never above `q` (a bucket whose burst exceeds its limit holds more than one window's quota when full).
 * - **`q` and `w` never promise more than the limit admits** ({@link advertisedQuota}): `q` is the limit rounded
 *   down and `w` the period rounded up to whole seconds, both of which only slow the advertised rate; a limit
 *   below one unit per period (gcra / token / leaky bucket, whose burst is then 1) is advertised as one unit per
 *   the time one unit takes to come back, rounded up: `limit: 0.5, period: 1s` is `q=1;w=2`, not `q=1;w=1`.
 * - `Retry-After` (RFC 9110) on a denial: whole seconds, rounded up, at least 1, and never earlier than the `t` of
 *   any denied policy (it is the largest of them). Omitted when a denied policy can never admit the request
 *   (a `blocked` rule, or a cost above the burst).
 * - The legacy trio `X-RateLimit-Limit` (the advertised `q`), `X-RateLimit-Remaining`, `X-RateLimit-Reset` (delta
 *   seconds) of the most restrictive policy, when asked for (envoyproxy/ratelimit's and express-rate-limit's form).
 * - `RateLimit-State: normal | warning | throttled`: seed 002's state (warning above 80% of a limit used, until
 *   back below 70%; throttled when the request was denied, but for a `fail_closed` denial: see below), the worst
 *   over the sent policies. Not part of any draft.
 *
 * **What is never advertised.**
 * - Policies of `shadow` rules, under their limit or over it: a shadow rule is never enforced, so a client must
 *   not pace itself by it (nor learn of it). Operators see shadow outcomes in the metrics
 *   (`sluice_decisions_total{outcome="shadow_denied"}`) and in the check API's per-descriptor `shadowed`.
 * - Policies decided by the `fail_closed` failure policy (the store was unreachable): their numbers are made up
 *   (nothing remaining, a reset at the next probe), so they appear in no field but `Retry-After`, which then says
 *   when the store is tried again. A denial by such policies alone is not a quota the client used up
 *   ({@link deniedByUnavailableStore}): the HTTP answers report it as reduced capacity (503), not as 429.
 * - Policies decided by the `fail_open` failure policy (the store was unreachable, the rule lets requests pass
 *   uncounted): the engine reports them with `remaining = limit`, a full quota nobody counted, so they too appear
 *   in no field ({@link isUncounted}). That is what a client behind envoyproxy/ratelimit sees when Redis fails:
 *   it answers the call with an error, Envoy (`failure_mode_deny: false`) lets the request through, and no rate
 *   limit header is added. A client must not pace itself by a quota nobody counted.
 * A request no advertised limit applied to (nothing matched, only `unlimited`, shadow or `fail_open` rules) gets
 * no fields at all, except the `Retry-After` of a `fail_closed` denial.
 *
 * **Replays.** The durations of an idempotent answer run from the instant it was decided
 * (`CheckResult.decidedAtMs`); given the answer's `nowMs`, `t` and `Retry-After` are what is left of them then, as
 * the check API's body counts them, so a replay's fields agree with its body.
 *
 * **Policy names.** Each item is named after its limit (`LimitSpec.name`), by a name derived from the configuration
 * alone (`rules/policy-names.ts`), so one policy bears one name in every answer: a name several rules of a domain
 * share is qualified by the rule id (`api-per-user/per-second`) in every answer, whichever other policies the answer
 * holds. The one case an answer adds to it: one rule matched by two descriptors of a request applies one policy to
 * two partitions (the draft's `pk`, not sent), and each later one is suffixed with `#<descriptor index>` (the first
 * keeps the policy's name). Names are printable ASCII, so every name is a valid sf-string; `"` and `\` are
 * backslash-escaped when serialised. The same names appear in the check API's `policies` and in problem details'
 * `violated-policies`.
 */
import type { DecisionReason, PolicyStatus } from "../core/decision.js";
import type { LimitSpec } from "../core/limit-spec.js";
import { ceilMs } from "../core/time-math.js";
import type { CheckResult } from "../engine/engine.js";
import { advertisedPolicyName, printableName } from "../rules/policy-names.js";

export { printableName };

/** The quota unit of a policy: the draft's registered `qu` values plus Sluice's `records`. */
export type QuotaUnit = "requests" | "content-bytes" | "concurrent-requests" | "records";

/** One policy that applied to a request, named uniquely within the answer. */
export interface AppliedPolicy {
  /** The policy's name for its configuration, unique within the answer; printable ASCII only (see the module comment). */
  readonly name: string;
  /** The id of the rule it belongs to. */
  readonly ruleId: string;
  /** The position of its descriptor in the request. */
  readonly descriptorIndex: number;
  /** What the limit answered. */
  readonly status: PolicyStatus;
  /** Which path decided its descriptor: the store, or a failure policy (`fail_closed` / `fail_open`: made up). */
  readonly reason: DecisionReason;
  /** What its quota counts. */
  readonly unit: QuotaUnit;
}

/** Options of {@link rateLimitHeaders}. */
export interface RateLimitHeaderOptions {
  /** Send draft-10's `RateLimit-Policy` and `RateLimit`. @default true */
  readonly standard?: boolean;
  /** Send the legacy `X-RateLimit-Limit/Remaining/Reset` of the most restrictive policy. @default false */
  readonly legacy?: boolean;
  /** Send `RateLimit-State` (seed 002's normal / warning / throttled). @default true */
  readonly state?: boolean;
  /** Send `Retry-After` on a denial (not on answers that are not themselves throttled). @default true */
  readonly retryAfter?: boolean;
}

/** The names {@link rateLimitHeaders} gives its fields, one per field. */
export interface RateLimitFieldNames {
  /** `RateLimit-Policy`. */
  readonly policy: string;
  /** `RateLimit`. */
  readonly limit: string;
  /** `Retry-After`. */
  readonly retryAfter: string;
  /** `X-RateLimit-Limit`. */
  readonly legacyLimit: string;
  /** `X-RateLimit-Remaining`. */
  readonly legacyRemaining: string;
  /** `X-RateLimit-Reset`. */
  readonly legacyReset: string;
  /** `RateLimit-State`. */
  readonly state: string;
}

/** The fields' names as the drafts spell them (gRPC metadata, Envoy's `response_headers_to_add`, the library). */
export const FIELD_NAMES: RateLimitFieldNames = Object.freeze({
  policy: "RateLimit-Policy",
  limit: "RateLimit",
  retryAfter: "Retry-After",
  legacyLimit: "X-RateLimit-Limit",
  legacyRemaining: "X-RateLimit-Remaining",
  legacyReset: "X-RateLimit-Reset",
  state: "RateLimit-State",
});

/**
 * The same names in lower case, as HTTP/1.1 responses carry them here (fastify lower-cases every header name it
 * is given): handing them over already lower-cased spares it a new string per field per answer.
 */
export const HTTP_FIELD_NAMES: RateLimitFieldNames = Object.freeze({
  policy: "ratelimit-policy",
  limit: "ratelimit",
  retryAfter: "retry-after",
  legacyLimit: "x-ratelimit-limit",
  legacyRemaining: "x-ratelimit-remaining",
  legacyReset: "x-ratelimit-reset",
  state: "ratelimit-state",
});

/** Largest sf-integer (RFC 9651: at most 15 digits). */
export const SF_INTEGER_MAX = 999_999_999_999_999;

/** Clamps a non-negative count to a whole sf-integer. */
function sfInt(n: number): number {
  if (!(n > 0)) return 0;
  return n >= SF_INTEGER_MAX ? SF_INTEGER_MAX : Math.floor(n);
}

/** Serialises `s` (printable ASCII) as an sf-string: quoted, with `"` and `\` backslash-escaped. */
export function sfString(s: string): string {
  if (s.indexOf('"') === -1 && s.indexOf("\\") === -1) return `"${s}"`;
  return `"${s.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * Every policy that applied to `result`, in descriptor order, uniquely named: the policies of each counted
 * descriptor (a `blocked` rule's one included), except those of shadow rules (never enforced, whether under
 * their limit or over it) and the unbounded pseudo-policy of "no limit". Policies decided by `fail_closed` are
 * listed (they denied the request), marked by their `reason`.
 */
export function appliedPolicies(result: CheckResult): AppliedPolicy[] {
  const out: AppliedPolicy[] = [];
  const ds = result.descriptors;
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i];
    const dec = d.decision;
    if (dec === undefined || d.shadowed || d.match === undefined) continue;
    const rule = d.match.rule;
    // A shadow rule under its limit is not `shadowed`, yet no more enforced than over it.
    if (rule.behaviour === "shadow") continue;
    const specs = Array.isArray(d.limits) ? d.limits : undefined;
    const ps = dec.policies;
    for (let k = 0; k < ps.length; k++) {
      const p = ps[k];
      if (!Number.isFinite(p.limit)) continue;
      const spec = specs === undefined ? undefined : specOf(specs, p.policy, k);
      const unit: QuotaUnit =
        spec?.algorithm === "concurrency"
          ? "concurrent-requests"
          : rule.strategy === "bytes"
            ? "content-bytes"
            : rule.strategy === "records"
              ? "records"
              : "requests";
      out.push({
        name: advertisedPolicyName(rule, p.policy),
        ruleId: rule.id,
        descriptorIndex: i,
        status: p,
        reason: dec.reason,
        unit,
      });
    }
  }
  return out.length < 2 ? out : uniquelyNamed(out);
}

/** The spec named `name` among `specs`, else the `k`-th (what `find(...) ?? specs[k]` gives, without a closure). */
function specOf(specs: readonly LimitSpec[], name: string, k: number): LimitSpec | undefined {
  for (let i = 0; i < specs.length; i++) if (specs[i].name === name) return specs[i];
  return specs[k];
}

/**
 * `list` with names unique within the answer. Names from the configuration are unique within a domain, so a name
 * repeats only when one rule matched several descriptors (one policy, several partitions): each repeat after the
 * first is suffixed with its descriptor index (`per-second#1`), then, should that still meet a name (a limit named
 * `per-second#1`), numbered `~2`, `~3`, …. The same array when no name repeats (the common case).
 */
function uniquelyNamed(list: AppliedPolicy[]): AppliedPolicy[] {
  const seen = new Set<string>();
  let repeats = false;
  for (const p of list) {
    if (seen.has(p.name)) {
      repeats = true;
      break;
    }
    seen.add(p.name);
  }
  if (!repeats) return list;
  seen.clear();
  const taken = new Set(list.map((p) => p.name));
  return list.map((p) => {
    if (!seen.has(p.name)) {
      seen.add(p.name);
      return p;
    }
    const base = `${p.name}#${p.descriptorIndex}`;
    let name = base;
    for (let n = 2; taken.has(name) || seen.has(name); n++) name = `${base}~${n}`;
    seen.add(name);
    taken.add(name);
    return { ...p, name };
  });
}

/** Whether `p` was decided by the `fail_closed` failure policy: a denial with made-up numbers, never advertised. */
export function isUnavailable(p: AppliedPolicy): boolean {
  return p.reason === "fail_closed";
}

/**
 * Whether `p` was let through by the `fail_open` failure policy: nothing was counted, and its `remaining` (the
 * engine reports the full limit) is made up, so it is never advertised and the check API reports it as 0.
 */
export function isUncounted(p: AppliedPolicy): boolean {
  return p.reason === "fail_open";
}

/**
 * Whether `result` is denied only because its store was unreachable: every denying policy was decided by
 * `fail_closed`. Such a denial is not a quota the client used up; a denial by any other policy (its quota, a
 * `blocked` rule, a fallback limit) is.
 */
export function deniedByUnavailableStore(
  result: CheckResult,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
): boolean {
  if (result.allowed) return false;
  let unavailable = false;
  for (const p of policies) {
    if (p.status.allowed) continue;
    if (!isUnavailable(p)) return false;
    unavailable = true;
  }
  return unavailable;
}

/**
 * The most restrictive of `policies`: a denied one with the longest wait, else the one with the least remaining
 * (ties: the longest to reset), as the engine picks its headline decision; undefined for an empty list. A policy
 * its quota denied ranks above one `fail_closed` denied, whatever their waits: that is the denial the client can
 * do something about. Likewise an allowed policy that was counted ranks above one `fail_open` let through
 * uncounted, whatever their remaining: only the counted one's numbers are known.
 */
export function mostRestrictive(policies: readonly AppliedPolicy[]): AppliedPolicy | undefined {
  let head: AppliedPolicy | undefined;
  for (const p of policies) {
    if (head === undefined) {
      head = p;
      continue;
    }
    const a = p.status;
    const b = head.status;
    const more =
      a.allowed !== b.allowed
        ? !a.allowed
        : !a.allowed
          ? isUnavailable(p) !== isUnavailable(head)
            ? isUnavailable(head)
            : a.retryAfterMs > b.retryAfterMs
          : isUncounted(p) !== isUncounted(head)
            ? isUncounted(head)
            : a.remaining !== b.remaining
              ? a.remaining < b.remaining
              : a.resetAfterMs > b.resetAfterMs;
    if (more) head = p;
  }
  return head;
}

/**
 * What is left at `nowMs` of a duration `ms` of a decision taken at `atMs` (both epoch ms on the engine's clock):
 * whole ms rounded up ({@link ceilMs}), never negative; `ceilMs(ms)` itself when `atMs` is `nowMs`, and a
 * non-finite `ms` (never) unchanged. The check API's body counts its durations the same way.
 */
export function msLeft(ms: number, atMs: number, nowMs: number): number {
  if (!Number.isFinite(ms)) return ms;
  const whole = ceilMs(ms);
  return atMs === nowMs ? whole : Math.max(0, ceilMs(atMs + whole - nowMs));
}

/**
 * The `t` of a policy in whole seconds (rounded up), or undefined when it can never admit the request; for an
 * answer decided at `atMs`, what is left at `nowMs` (see {@link msLeft}; both default to "now": the answer's own).
 */
export function secondsUntilMore(s: PolicyStatus, atMs = 0, nowMs = atMs): number | undefined {
  const ms = msLeft(s.allowed ? s.resetAfterMs : s.retryAfterMs, atMs, nowMs);
  if (!Number.isFinite(ms)) return undefined;
  return sfInt(Math.ceil(ms / 1000));
}

/**
 * `Retry-After` seconds of a denied answer: the largest `t` of its denied policies (those `fail_closed` denied
 * included: theirs is the store's next probe), at least 1, left at `nowMs` of an answer decided earlier (see
 * {@link rateLimitHeaders}); undefined when the answer is allowed or a denied policy can never admit the request.
 */
export function retryAfterSeconds(
  result: CheckResult,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
  nowMs?: number,
): number | undefined {
  if (result.allowed) return undefined;
  const atMs = nowMs === undefined ? 0 : (result.decidedAtMs ?? nowMs);
  let max: number | undefined;
  for (const p of policies) {
    if (p.status.allowed) continue;
    const t = secondsUntilMore(p.status, atMs, nowMs ?? atMs);
    if (t === undefined) return undefined;
    if (max === undefined || t > max) max = t;
  }
  return max === undefined ? undefined : Math.max(1, max);
}

/** The `q` and `w` (whole seconds; undefined: none) a policy is advertised with: see the module comment. */
export interface AdvertisedQuota {
  /** Units per window: the limit rounded down, 1 for a limit below one unit, 0 for none (`blocked`). */
  readonly q: number;
  /** The window in whole seconds, at least 1; undefined for concurrency and for a `blocked` rule. */
  readonly w: number | undefined;
}

/**
 * The quota a client can rely on for a limit of `limit` units per `periodMs`: never a faster rate than the limit
 * admits, nor more units at once than it holds. `q = floor(limit)` per `w = ceil(period)` for a limit of 1 or
 * more (a window algorithm holds `limit`, a bucket at least that). Below one unit, a bucket's burst is 1 (see
 * limit-spec.ts) and one unit comes back every `period / limit`: `q = 1` per that time rounded up
 * (`0.5 per 1 s` → `q=1;w=2`; `0.5 per 250 ms` → `q=1;w=1`). `concurrent` (a lease count) has no window.
 */
export function advertisedQuota(limit: number, periodMs: number, concurrent = false): AdvertisedQuota {
  if (!(limit > 0)) return { q: 0, w: undefined };
  if (concurrent) return { q: Math.max(1, sfInt(limit)), w: undefined };
  if (!(periodMs > 0)) return { q: Math.max(1, sfInt(limit)), w: undefined };
  const unitMs = limit >= 1 ? periodMs : periodMs / limit;
  return { q: Math.max(1, sfInt(limit)), w: Math.max(1, sfInt(Math.ceil(ceilMs(unitMs) / 1000))) };
}

/**
 * The last policy item built, by what it is built from: a `RateLimit-Policy` item changes only with the policy's
 * name, quota, unit and window, so answers under one policy (the common case) build it once.
 */
let lastItem: { name: string; limit: number; unit: QuotaUnit; periodMs: number; item: string } | undefined;

function policyItem(p: AppliedPolicy): string {
  const s = p.status;
  const last = lastItem;
  if (
    last !== undefined &&
    last.name === p.name &&
    last.limit === s.limit &&
    last.unit === p.unit &&
    last.periodMs === s.periodMs
  ) {
    return last.item;
  }
  const item = buildPolicyItem(p);
  lastItem = { name: p.name, limit: s.limit, unit: p.unit, periodMs: s.periodMs, item };
  return item;
}

function buildPolicyItem(p: AppliedPolicy): string {
  const s = p.status;
  const { q, w } = advertisedQuota(s.limit, s.periodMs, p.unit === "concurrent-requests");
  let item = `${sfString(p.name)};q=${q}`;
  if (p.unit === "content-bytes" || p.unit === "concurrent-requests") item += `;qu="${p.unit}"`;
  else if (p.unit === "records") item += ';sluice-qu="records"';
  if (w !== undefined) item += `;w=${w}`;
  return item;
}

function limitItem(p: AppliedPolicy, atMs: number, nowMs: number): string {
  const s = p.status;
  const t = secondsUntilMore(s, atMs, nowMs);
  return `${sfString(p.name)};r=${advertisedRemaining(p)}${t === undefined ? "" : `;t=${t}`}`;
}

/**
 * The `r` of policy `p`: its remaining units, never above its advertised `q`. A bucket whose burst is larger than
 * its limit (gcra or token bucket with `burst`) holds more than one window's quota when full, and reported as it is
 * (`q=10;w=1` beside `r=19`) it reads as more than the quota; no client is told less than it may use per window.
 */
function advertisedRemaining(p: AppliedPolicy): number {
  const s = p.status;
  const { q } = advertisedQuota(s.limit, s.periodMs, p.unit === "concurrent-requests");
  const r = sfInt(s.remaining);
  return r < q ? r : q;
}

/** Whether `p` is advertised: decided by the store (or the fallback), not made up by `fail_closed` / `fail_open`. */
function isAdvertised(p: AppliedPolicy): boolean {
  return p.reason !== "fail_closed" && p.reason !== "fail_open";
}

/** The advertised `policies` (the same array when all are: the common case). */
function advertisedOf(policies: readonly AppliedPolicy[]): readonly AppliedPolicy[] {
  for (let i = 0; i < policies.length; i++) {
    if (!isAdvertised(policies[i])) return policies.filter(isAdvertised);
  }
  return policies;
}

/**
 * The rate limit response fields of `result` (see the module comment): `RateLimit-Policy`, `RateLimit`,
 * `Retry-After` on denial, the legacy trio when asked for, and `RateLimit-State`. Empty when no advertised limit
 * applied (none, or only made-up ones: `fail_open`, `fail_closed`), but for the `Retry-After` of a `fail_closed`
 * denial. `policies` are `appliedPolicies(result)`, when
 * the caller already has them; `names` spell the fields ({@link FIELD_NAMES} by default, {@link HTTP_FIELD_NAMES}
 * for HTTP answers). `nowMs` is the instant the answer is sent (epoch ms on the engine's clock): for an idempotent
 * answer (`result.decidedAtMs`, a replay's the first check's), `t` and `Retry-After` are what is left of its
 * durations then; without it, the durations as decided.
 */
export function rateLimitHeaders(
  result: CheckResult,
  options: RateLimitHeaderOptions = {},
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
  names: RateLimitFieldNames = FIELD_NAMES,
  nowMs?: number,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (policies.length === 0) return headers;
  const atMs = nowMs === undefined ? 0 : (result.decidedAtMs ?? nowMs);
  const now = nowMs ?? atMs;
  const advertised = advertisedOf(policies);
  if (options.standard !== false && advertised.length > 0) {
    if (advertised.length === 1) {
      headers[names.policy] = policyItem(advertised[0]);
      headers[names.limit] = limitItem(advertised[0], atMs, now);
    } else {
      headers[names.policy] = advertised.map(policyItem).join(", ");
      headers[names.limit] = advertised.map((p) => limitItem(p, atMs, now)).join(", ");
    }
  }
  if (options.retryAfter !== false) {
    const retry = retryAfterSeconds(result, policies, nowMs);
    if (retry !== undefined) headers[names.retryAfter] = String(retry);
  }
  if (advertised.length === 0) return headers;
  if (options.legacy === true) {
    const head = mostRestrictive(advertised) as AppliedPolicy;
    const s = head.status;
    headers[names.legacyLimit] = String(
      advertisedQuota(s.limit, s.periodMs, head.unit === "concurrent-requests").q,
    );
    headers[names.legacyRemaining] = String(advertisedRemaining(head));
    const t = secondsUntilMore(s, atMs, now);
    if (t !== undefined) headers[names.legacyReset] = String(t);
  }
  if (options.state !== false) {
    // A denial by `fail_closed` policies alone throttled no quota: the sent policies' own state then.
    let state: PolicyStatus["state"] = "normal";
    if (!result.allowed && !deniedByUnavailableStore(result, policies)) state = "throttled";
    else for (const p of advertised) if (p.status.state === "warning") state = "warning";
    headers[names.state] = state;
  }
  return headers;
}

import type { LimitState } from "./limit-state.js";

/** Which path produced a decision: the store, or one of the failure policies when the store was unavailable. */
export type DecisionReason = "store" | "fail_open" | "fail_closed" | "fallback" | "replay";

/** The outcome of one named limit (policy) for one request. */
export interface PolicyStatus {
  /** The limit's name, as in `RateLimit-Policy`. */
  readonly policy: string;
  /** Whether this limit let the request through. */
  readonly allowed: boolean;
  /** The limit (units per period; leases for concurrency). */
  readonly limit: number;
  /** Units that could still pass right now after this decision (whole units, never negative). */
  readonly remaining: number;
  /** Milliseconds until this key is back to its full, never-used state. */
  readonly resetAfterMs: number;
  /**
   * When denied: milliseconds until this cost could pass if nothing else happens; `Infinity` when the cost
   * exceeds what this limit can ever admit at once. 0 when allowed.
   */
  readonly retryAfterMs: number;
  /** Normal / warning (above 80% used, until back below 70%) / throttled (denied). */
  readonly state: LimitState;
  /** The limit's period in milliseconds (the `w` of `RateLimit-Policy`). */
  readonly periodMs: number;
}

/**
 * The answer to "may this request pass?". A request checked against several limits gets the most restrictive
 * status at the top level (the denying limit with the longest wait, else the one with the least remaining),
 * except `state`, which is the worst over every limit (throttled > warning > normal), and every limit's status
 * in `policies`. A denied request consumed nothing from any limit.
 *
 * Copying: a single-limit decision is a class instance whose `policies` is computed on read (a getter, so that
 * no array is allocated per decision), not an own property. `JSON.stringify` includes it (the class's `toJSON`
 * gives the same fields, in the same order, as a multi-limit decision's), but an object spread (`{ ...d }`),
 * `Object.assign` and `structuredClone` drop it: read `d.policies`, or copy with `JSON.parse(JSON.stringify(d))`.
 */
export interface Decision extends PolicyStatus {
  /** Every limit's status, in declaration order (computed on read for a single-limit decision; see the type). */
  readonly policies: readonly PolicyStatus[];
  /** Which path produced the decision. */
  readonly reason: DecisionReason;
  /** For concurrency limits: the lease to release, per concurrency policy name. */
  readonly leases?: Readonly<Record<string, number>>;
}

/** The numbers an algorithm reports for one limit (a structural view of the algorithms' `StepOut`). */
export interface LimitVerdict {
  /** Whole units still available. */
  readonly remaining: number;
  /** Milliseconds until the key is back to fresh. */
  readonly resetAfterMs: number;
  /** Milliseconds until the cost could pass (meaningful when denied). */
  readonly retryAfterMs: number;
}

/** Builds one limit's {@link PolicyStatus} from its verdict, its own allowed flag and its warning flag. */
export function policyStatusOf(
  spec: { readonly name: string; readonly limit: number; readonly periodMs: number },
  verdict: LimitVerdict,
  allowed: boolean,
  warning: boolean,
): PolicyStatus {
  return {
    policy: spec.name,
    allowed,
    limit: spec.limit,
    remaining: verdict.remaining,
    resetAfterMs: verdict.resetAfterMs,
    retryAfterMs: allowed ? 0 : verdict.retryAfterMs,
    state: allowed ? (warning ? "warning" : "normal") : "throttled",
    periodMs: spec.periodMs,
  };
}

/**
 * The plain-object form of a single-limit decision, for `JSON.stringify`: the fields of a multi-limit decision
 * (`combineDecision`), in its order, with `policies` holding `d`'s own status as a plain {@link PolicyStatus}
 * (not `d` itself, whose `toJSON` would nest a `policies` in it).
 */
function singleDecisionJSON(d: Decision): Decision {
  return { ...statusFields(d), reason: d.reason, leases: d.leases, policies: [statusFields(d)] };
}

/** The {@link PolicyStatus} fields of `d` as a plain object, in their declared order. */
function statusFields(d: PolicyStatus): PolicyStatus {
  return {
    policy: d.policy,
    allowed: d.allowed,
    limit: d.limit,
    remaining: d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: d.retryAfterMs,
    state: d.state,
    periodMs: d.periodMs,
  };
}

/** A decision over a single limit: it is its own only policy status. */
class SingleDecision implements Decision {
  constructor(
    readonly policy: string,
    readonly allowed: boolean,
    readonly limit: number,
    readonly remaining: number,
    readonly resetAfterMs: number,
    readonly retryAfterMs: number,
    readonly state: LimitState,
    readonly periodMs: number,
    readonly reason: DecisionReason,
    readonly leases: Readonly<Record<string, number>> | undefined,
  ) {}

  get policies(): readonly PolicyStatus[] {
    return [this];
  }

  /** Every public field, `policies` included, as a plain object (see {@link Decision}: the getter is not copied). */
  toJSON(): Decision {
    return singleDecisionJSON(this);
  }
}

/** Builds the decision of a request checked against one limit. */
export function singleDecision(
  status: PolicyStatus,
  reason: DecisionReason,
  leases?: Record<string, number>,
): Decision {
  return new SingleDecision(
    status.policy,
    status.allowed,
    status.limit,
    status.remaining,
    status.resetAfterMs,
    status.retryAfterMs,
    status.state,
    status.periodMs,
    reason,
    leases,
  );
}

/** Builds a single-limit decision from its fields without an intermediate status object (hot path). */
export function decisionOf(
  policy: string,
  allowed: boolean,
  limit: number,
  remaining: number,
  resetAfterMs: number,
  retryAfterMs: number,
  state: LimitState,
  periodMs: number,
  reason: DecisionReason,
): Decision {
  return new SingleDecision(
    policy,
    allowed,
    limit,
    remaining,
    resetAfterMs,
    retryAfterMs,
    state,
    periodMs,
    reason,
    undefined,
  );
}

/** A limit as a decision names it (a `LimitSpec` fits). */
export interface LimitIdentity {
  /** The limit's name. */
  readonly name: string;
  /** Units per period. */
  readonly limit: number;
  /** Period in milliseconds. */
  readonly periodMs: number;
}

/**
 * A {@link SingleDecision} built by the store straight from a limit and its kernel's verdict: the same fields
 * in the same order, assigned without an argument list of ten (the memory store's hot path).
 */
export class VerdictDecision implements Decision {
  readonly policy: string;
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAfterMs: number;
  readonly retryAfterMs: number;
  readonly state: LimitState;
  readonly periodMs: number;
  readonly reason: DecisionReason;
  readonly leases: undefined;

  constructor(spec: LimitIdentity, verdict: LimitVerdict, allowed: boolean, state: LimitState) {
    this.policy = spec.name;
    this.allowed = allowed;
    this.limit = spec.limit;
    this.remaining = verdict.remaining;
    this.resetAfterMs = verdict.resetAfterMs;
    this.retryAfterMs = allowed ? 0 : verdict.retryAfterMs;
    this.state = state;
    this.periodMs = spec.periodMs;
    this.reason = "store";
    this.leases = undefined;
  }

  get policies(): readonly PolicyStatus[] {
    return [this];
  }

  /** Every public field, `policies` included, as a plain object (see {@link Decision}: the getter is not copied). */
  toJSON(): Decision {
    return singleDecisionJSON(this);
  }
}

/**
 * Builds the store's decision for a request checked against one limit, from the limit, its verdict, whether it
 * allowed, and its state; the decision is the only allocation.
 */
export function verdictDecision(
  spec: LimitIdentity,
  verdict: LimitVerdict,
  allowed: boolean,
  state: LimitState,
): Decision {
  return new VerdictDecision(spec, verdict, allowed, state);
}

/**
 * Combines the statuses of every limit a request was checked against. `allowed` only when all allowed (and
 * `consumed`: false when another item of the same all-or-nothing call was denied); the headline status is the
 * denying limit with the longest wait, else the limit with the least remaining (ties: the one that takes longest
 * to reset). The state is the worst of all: `throttled` when not allowed, else `warning` when any limit is in
 * warning (a limit near its own capacity need not be the one with the least remaining: 10/s with 9 left beside
 * 10,000/day with 1,000 left), else `normal`.
 */
export function combineDecision(
  statuses: readonly PolicyStatus[],
  reason: DecisionReason,
  leases?: Record<string, number>,
  consumed = true,
): Decision {
  if (statuses.length === 1 && (consumed || !statuses[0].allowed))
    return singleDecision(statuses[0], reason, leases);
  let head = statuses[0];
  let allowed = head.allowed && consumed;
  let warning = head.state === "warning";
  for (let i = 1; i < statuses.length; i++) {
    const s = statuses[i];
    if (!s.allowed) allowed = false;
    if (s.state === "warning") warning = true;
    if (moreRestrictive(s, head)) head = s;
  }
  return Object.freeze({
    policy: head.policy,
    allowed,
    limit: head.limit,
    remaining: head.remaining,
    resetAfterMs: head.resetAfterMs,
    retryAfterMs: head.retryAfterMs,
    state: allowed ? (warning ? "warning" : "normal") : "throttled",
    periodMs: head.periodMs,
    reason,
    leases,
    policies: Object.freeze([...statuses]),
  });
}

function moreRestrictive(a: PolicyStatus, b: PolicyStatus): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  if (!a.allowed) return a.retryAfterMs > b.retryAfterMs;
  if (a.remaining !== b.remaining) return a.remaining < b.remaining;
  return a.resetAfterMs > b.resetAfterMs;
}

/**
 * `d` as reported when another part of the same all-or-nothing call was denied and everything was rolled back:
 * not allowed, throttled, holding no leases; its per-policy statuses stay as each limit answered.
 */
export function deniedDecision(d: Decision): Decision {
  if (!d.allowed && d.leases === undefined) return d;
  return Object.freeze({
    policy: d.policy,
    allowed: false,
    limit: d.limit,
    remaining: d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: d.retryAfterMs,
    state: "throttled",
    periodMs: d.periodMs,
    reason: d.reason,
    leases: undefined,
    policies: d.policies,
  });
}

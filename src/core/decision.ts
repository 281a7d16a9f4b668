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
 * and every limit's status in `policies`. A denied request consumed nothing from any limit.
 */
export interface Decision extends PolicyStatus {
  /** Every limit's status, in declaration order. */
  readonly policies: readonly PolicyStatus[];
  /** Which path produced the decision. */
  readonly reason: DecisionReason;
  /** For concurrency limits: the lease to release, per concurrency policy name. */
  readonly leases?: Readonly<Record<string, number>>;
}

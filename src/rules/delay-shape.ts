/**
 * The shaping limit of a `delay` rule (DESIGN §5): each rate limit of the rule becomes a GCRA of the same rate whose
 * burst also holds the requests that may wait, `maxDelayMs / T` of them (`T = period / limit`, the emission
 * interval), so a request is admitted with a delay of at most `maxDelayMs` and never queued beyond it. The engine
 * compiles a delay rule's limits through it, and the config check runs it too, so a file that loads is a file the
 * engine can compile (a long `maxDelay` on a fast limit can push the burst past `Number.MAX_SAFE_INTEGER`).
 */
import type { LimitSpec, LimitSpecInput } from "../core/limit-spec.js";

/**
 * The units `spec`'s shaping limit adds to its burst under `maxDelayMs`: `maxDelayMs / T` (may be fractional), the
 * requests that may wait. The shaped burst is `spec.burst` plus exactly this number.
 */
export function delayExtension(spec: LimitSpec, maxDelayMs: number): number {
  const t = spec.periodMs / spec.limit;
  return maxDelayMs / t;
}

/** The input of `spec`'s shaping limit under `maxDelayMs` (not for concurrency limits, which are not shaped). */
export function delayShapeInput(spec: LimitSpec, maxDelayMs: number): LimitSpecInput {
  return {
    name: spec.name,
    algorithm: "gcra",
    limit: spec.limit,
    periodMs: spec.periodMs,
    burst: spec.burst + delayExtension(spec, maxDelayMs),
  };
}

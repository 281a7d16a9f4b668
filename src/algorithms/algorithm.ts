/**
 * The contract every algorithm implements: a pure, synchronous step over a fixed-width block of float64 state.
 *
 * State lives at `s[o] … s[o + width − 1]` of a `Float64Array`. The memory store keeps small states side by side
 * in one preallocated array (struct-of-arrays by slot, seed 004) and large ones (sliding_log, bucketed_window,
 * concurrency) in one array per key; the functional {@link step} wrapper hands out fresh arrays. The Lua twins in
 * `src/stores/redis/scripts/` implement the same semantics over Redis values.
 *
 * Invariants shared by every algorithm:
 * - All zeros is the fresh state ("never seen"), so a reused slot is cleaned by zero-filling it and a missing
 *   Redis key reads as zeros.
 * - A denied request writes nothing. `commit = false` decides without writing (peek, and the first phase of an
 *   all-or-nothing check over several limits).
 * - A clock that goes backwards counts as no time passing; nothing refills negatively.
 * - A cost the limit can never admit at once (cost > burst) is denied with `retryAfterMs = Infinity`.
 * - Reported durations are whole milliseconds rounded up (`ceilMs`), so retrying at `now + retryAfterMs` passes
 *   when nothing else happened; `remaining` is whole units rounded down.
 * - State read under a changed limit is clamped to the new one on touch; it is never reset. A changed limit that
 *   changes the width is handed over by {@link resizeState} (the algorithm's `resize`, else the common prefix).
 */
import type { AlgorithmId, LimitSpec } from "../core/limit-spec.js";

/** Mutable scratch an algorithm writes its verdict into (reused across calls to avoid allocation). */
export interface StepOut {
  /** Whether the cost passes. */
  allowed: boolean;
  /** Whole units still available after this step. */
  remaining: number;
  /** Milliseconds until the state is back to fresh. */
  resetAfterMs: number;
  /** Milliseconds until the cost could pass (0 when allowed; Infinity when it never can). */
  retryAfterMs: number;
  /** For concurrency: the id of the lease just taken (0 otherwise). */
  leaseId: number;
}

/** Creates an empty {@link StepOut}. */
export function createStepOut(): StepOut {
  return { allowed: false, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, leaseId: 0 };
}

/** One rate limiting algorithm as a pure step over float64 state. */
export interface Algorithm {
  /** The algorithm's id. */
  readonly id: AlgorithmId;
  /** Number of float64 fields of state this spec needs. */
  width(spec: LimitSpec): number;
  /**
   * Decides whether `cost` units pass at `nowMs` and writes the verdict into `out`. When allowed and `commit`
   * is true, writes the next state; otherwise writes nothing. `cost` 0 reports the current state (peek).
   */
  apply(
    s: Float64Array,
    o: number,
    nowMs: number,
    spec: LimitSpec,
    cost: number,
    commit: boolean,
    out: StepOut,
  ): void;
  /** Gives back up to `amount` units consumed earlier; the state never goes below fresh. */
  refund(s: Float64Array, o: number, nowMs: number, spec: LimitSpec, amount: number): void;
  /** Milliseconds from `nowMs` after which the state is indistinguishable from fresh (0: already is). */
  idleAfterMs(s: Float64Array, o: number, nowMs: number, spec: LimitSpec): number;
  /**
   * States of O(limit) fields only (sliding_log, bucketed_window, concurrency): how many floats from `o` the next
   * call of any method on this state may read, or write with anything but zeros — at most `width(spec)`. That
   * includes `resize`, which reads the live part of a state laid out for `spec` when it is handed over to another
   * width. A store may hold just that prefix of a state, the rest being zeros as in a fresh state: the state then
   * behaves exactly as at full width. It reads only the state's first 3 floats; a fresh state's extent is at most
   * 6. Without it a store holds the full width.
   */
  extent?(s: Float64Array, o: number, spec: LimitSpec): number;
  /**
   * Lays `from`, this algorithm's state block laid out for `fromWidth` floats (another width: a changed limit or
   * period), out for `spec` at `to[o …]`. `from` may hold just a prefix of that block, as a store holding large
   * states by {@link Algorithm.extent} does (at least the floats `extent` names under the spec it was laid out
   * for): the floats past its end are zeros. It writes nothing but zeros past `o + min(width(spec), from.length)`,
   * so `to` needs room for that much only (the floats past its end then read as zeros too). Without it a store
   * copies the common prefix and the kernel clamps the rest on touch; sliding_log and bucketed_window have it,
   * because their rings keep entries in an order that a prefix read under another capacity scrambles once they
   * have wrapped. Called by the stores only when the width changed.
   */
  resize?(from: Float64Array, fromWidth: number, to: Float64Array, o: number, spec: LimitSpec): void;
  /** Concurrency only: ends lease `leaseId`; returns whether it was held. */
  release?(s: Float64Array, o: number, nowMs: number, spec: LimitSpec, leaseId: number): boolean;
  /**
   * Concurrency only: makes the state at `o` what a reset leaves, in place — fresh for every decision (no lease),
   * but for the fields a reset must not forget (the last lease id, so ids are never handed out twice) — and returns
   * whether any such field is non-zero (false: the state is all zeros, the store may drop the key). Without it a
   * reset zeroes the state.
   */
  resetKeep?(s: Float64Array, o: number, spec: LimitSpec): boolean;
}

/** What {@link step} returns: the verdict and the next state (a new array; the input is never mutated). */
export interface StepResult {
  /** The verdict. */
  readonly decision: Readonly<Omit<StepOut, "leaseId">> & { readonly leaseId: number };
  /** The state after the step (equal to the input when denied). */
  readonly state: Float64Array;
}

/**
 * The functional form `(state, nowMs, spec, cost) → { decision, state }`. `state` undefined means fresh.
 * Used by tests and tools; stores call {@link Algorithm.apply} on their own arrays.
 */
export function step(
  algorithm: Algorithm,
  state: ArrayLike<number> | undefined,
  nowMs: number,
  spec: LimitSpec,
  cost = 1,
): StepResult {
  const next = new Float64Array(algorithm.width(spec));
  if (state !== undefined) {
    const from = Float64Array.from(state);
    if (from.length === next.length) next.set(from);
    else resizeState(algorithm, from, from.length, next, 0, spec); // a whole state: its width is its length
  }
  const out = createStepOut();
  algorithm.apply(next, 0, nowMs, spec, cost, true, out);
  return { decision: { ...out }, state: next };
}

/**
 * Hands the state `from` (laid out for `fromWidth` floats, another width: a changed limit or period; possibly just
 * a prefix of that block, zeros past its end) over to `spec`'s layout at `to[o …]`: {@link Algorithm.resize} when
 * the algorithm has one, else the common prefix (zeros beyond it). Writes nothing but zeros past
 * `o + min(width(spec), from.length)`.
 */
export function resizeState(
  algorithm: Algorithm,
  from: Float64Array,
  fromWidth: number,
  to: Float64Array,
  o: number,
  spec: LimitSpec,
): void {
  if (algorithm.resize !== undefined) {
    algorithm.resize(from, fromWidth, to, o, spec);
    return;
  }
  const width = algorithm.width(spec);
  to.fill(0, o, o + width);
  to.set(from.subarray(0, Math.min(width, from.length)), o);
}

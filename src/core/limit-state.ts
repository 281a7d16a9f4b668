/**
 * The Normal / Warning / Throttled state every decision carries (seed 002). Usage is `1 − remaining/capacity`,
 * where the capacity is what `remaining` counts down from: the spec's `burst` (for token_bucket, leaky_bucket and
 * gcra the bucket's size, which may differ from `limit`; for the window and concurrency algorithms it equals
 * `limit`). Dividing by `limit` instead reported a fresh `limit: 100, burst: 10` key in warning and a
 * `limit: 10, burst: 100` key at 95% used as normal. A key enters `warning` above 80% usage and leaves it only
 * below 70% (hysteresis, so a key hovering near the threshold does not flap); a denial is `throttled`. The previous
 * warning flag is kept per key and limit by the store.
 */

/** How close a key is to its limit. */
export type LimitState = "normal" | "warning" | "throttled";

/** Remaining below this fraction of the capacity (usage above 80%) enters `warning`. */
export const WARNING_ENTER_REMAINING = 0.2;
/** Remaining above this fraction of the capacity (usage below 70%) leaves `warning`. */
export const WARNING_LEAVE_REMAINING = 0.3;

/**
 * Returns the next warning flag from the previous one and the remaining units after the decision, against
 * `capacity` (units; a spec's `burst`, see the module comment). Computed on remaining units without division
 * (usage > 80% ⟺ remaining < 0.2·capacity), identically in every store.
 */
export function nextWarning(previous: boolean, remaining: number, capacity: number): boolean {
  if (remaining < WARNING_ENTER_REMAINING * capacity) return true;
  if (remaining > WARNING_LEAVE_REMAINING * capacity) return false;
  return previous;
}

/** The state a decision reports, given whether it was allowed and the (already updated) warning flag. */
export function limitStateOf(allowed: boolean, warning: boolean): LimitState {
  if (!allowed) return "throttled";
  return warning ? "warning" : "normal";
}

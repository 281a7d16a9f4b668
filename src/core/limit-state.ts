/**
 * The Normal / Warning / Throttled state every decision carries (seed 002). Usage is `1 − remaining/limit`.
 * A key enters `warning` above 80% usage and leaves it only below 70% (hysteresis, so a key hovering near the
 * threshold does not flap); a denial is `throttled`. The previous warning flag is kept per key and limit by
 * the store.
 */

/** How close a key is to its limit. */
export type LimitState = "normal" | "warning" | "throttled";

/** Usage above this fraction enters `warning`. */
export const WARNING_ENTER = 0.8;
/** Usage below this fraction leaves `warning`. */
export const WARNING_LEAVE = 0.7;

/** Returns the next warning flag from the previous one and the usage after the decision. */
export function nextWarning(previous: boolean, remaining: number, limit: number): boolean {
  const usage = limit > 0 ? 1 - remaining / limit : 1;
  if (usage > WARNING_ENTER) return true;
  if (usage < WARNING_LEAVE) return false;
  return previous;
}

/** The state a decision reports, given whether it was allowed and the (already updated) warning flag. */
export function limitStateOf(allowed: boolean, warning: boolean): LimitState {
  if (!allowed) return "throttled";
  return warning ? "warning" : "normal";
}

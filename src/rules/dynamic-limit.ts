/**
 * Seed 003's dynamic (EWMA) limit: the effective rate follows recent traffic.
 *
 * ```
 * ewma  = w·current + (1 − w)·previous
 * limit = max(static, min(ewma·m, previous·m))
 * ```
 * with the seed's two special cases, checked in this order:
 * - `previous` is 0 (no traffic in the previous window): the limit is `static`;
 * - `current` is 0 (no traffic yet in the current window): the limit is `previous·m`.
 *
 * Reading of the second case: the seed says the limit "is set to `previous_rate * ewma_multiplier`", and the
 * processor it documents returns exactly that, without `max(static, …)`. We follow it literally, so with little
 * previous traffic (`previous·m < static`) and none yet in the current window the limit is **below** `static`
 * (e.g. static 1000, previous 400, m 1.5 → 600). Without the special case the general formula would give
 * `max(static, (1 − w)·previous·m)`; the special case instead keeps the whole previous rate, so a window that has
 * just begun (current still 0) does not sag to `(1 − w)` of it.
 *
 * The function is unit-agnostic: `staticLimit`, `currentRate` and `previousRate` must be in one unit (the seed
 * uses units per second; units per window or per the limit's period work the same), and the result is in it.
 */
import { InvalidArgumentError } from "../core/errors.js";
import type { DynamicLimit } from "./rule.js";

function checkRate(name: string, v: number): void {
  if (!(v >= 0) || !Number.isFinite(v)) {
    throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${v}`);
  }
}

/** The seed-003 dynamic limit for the given rates (any one unit), `w = d.recentWeight`, `m = d.multiplier`. */
export function dynamicLimit(
  staticLimit: number,
  currentRate: number,
  previousRate: number,
  d: DynamicLimit,
): number {
  checkRate("staticLimit", staticLimit);
  checkRate("currentRate", currentRate);
  checkRate("previousRate", previousRate);
  if (previousRate === 0) return staticLimit;
  const m = d.multiplier;
  if (currentRate === 0) return previousRate * m;
  const w = d.recentWeight;
  const ewma = w * currentRate + (1 - w) * previousRate;
  return Math.max(staticLimit, Math.min(ewma * m, previousRate * m));
}

/**
 * Seed 003's dynamic (EWMA) limit: the effective rate follows recent traffic.
 *
 * ```
 * ewma  = w·current + (1 − w)·previous
 * limit = max(static, min(ewma·m, previous·m))
 * ```
 * with the seed's two special cases, checked in this order:
 * - `previous` is 0 (no traffic in the previous window): the limit is `static`;
 * - `current` is 0 (no traffic yet in the current window): the limit is `max(static, previous·m)`.
 *
 * Reading of the second case: the seed says the limit "is set to `previous_rate * ewma_multiplier`"; we keep the
 * formula's floor, `max(static, …)`, there too. Read literally, with little previous traffic (`previous·m <
 * static`) the limit would fall **below** `static` (static 1000, previous 400, m 1.5 → 600). The engine reads the
 * rates before counting a request, so the first request of every dynamic window sees `current = 0`: the literal
 * reading judged it against a limit under the static one, and denied requests the static limit admits (a 100/min
 * rule with 1 s windows denied its 92nd request of the minute at 89 after 90 requests in one second and 1 in the
 * next). A dynamic limit exists to raise a busy key's limit, never to lower a quiet one's, and the seed's own
 * scenario 1 keeps `static` with previous 400. The special case still keeps the whole previous rate: without it the
 * general formula would give `max(static, (1 − w)·previous·m)`, so a window that has just begun (current still 0)
 * would sag to `(1 − w)` of it.
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
  if (currentRate === 0) return Math.max(staticLimit, previousRate * m);
  const w = d.recentWeight;
  const ewma = w * currentRate + (1 - w) * previousRate;
  return Math.max(staticLimit, Math.min(ewma * m, previousRate * m));
}

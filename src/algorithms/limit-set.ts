import { ConfigError } from "../core/errors.js";
import type { LimitSpec } from "../core/limit-spec.js";
import type { Algorithm } from "./algorithm.js";
import { algorithms } from "./index.js";

/** Most limits one key may carry at once (the memory store keeps one warning bit per limit in a byte). */
export const MAX_LIMITS_PER_SET = 7;

/**
 * The named limits applied together, all-or-nothing, to one key: e.g. 10 per second and 10,000 per day.
 * `namespace` identifies the limits in the store across reconfiguration, so that changing a number keeps the
 * state (clamped on next touch) while changing an algorithm starts that limit fresh.
 */
export interface LimitSet {
  /** Process-unique id, used by stores to find their table without hashing. */
  readonly id: number;
  /** Stable name of this group of limits in the store (a limiter prefix, a rule id). */
  readonly namespace: string;
  /** The limits, in declaration order; names are unique. */
  readonly specs: readonly LimitSpec[];
  /** The algorithm of each limit, parallel to `specs`. */
  readonly algorithms: readonly Algorithm[];
  /** Whether any limit is a concurrency limit (then use acquire/release, not limit). */
  readonly hasConcurrency: boolean;
}

let nextId = 1;

/** Compiles parsed limits into a {@link LimitSet}; throws `ERR_SLUICE_INVALID_LIMIT` on duplicate names or too many limits. */
export function createLimitSet(namespace: string, specs: readonly LimitSpec[]): LimitSet {
  const issues: { path: string; message: string }[] = [];
  if (specs.length === 0) issues.push({ path: "limits", message: "at least one limit is required" });
  if (specs.length > MAX_LIMITS_PER_SET) {
    issues.push({
      path: "limits",
      message: `at most ${MAX_LIMITS_PER_SET} limits may apply to one key, got ${specs.length}`,
    });
  }
  const seen = new Set<string>();
  specs.forEach((s, i) => {
    if (seen.has(s.name)) {
      issues.push({
        path: `limits[${i}].name`,
        message:
          s.name === "default"
            ? `"default" is used by an earlier limit: a limit without a name is named "default", so when there are several limits each needs its own name (e.g. name: "per-second")`
            : `"${s.name}" is used by an earlier limit; names must be unique`,
      });
    }
    seen.add(s.name);
  });
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_LIMIT", issues);
  return Object.freeze({
    id: nextId++,
    namespace,
    specs: Object.freeze([...specs]),
    algorithms: Object.freeze(specs.map((s) => algorithms[s.algorithm])),
    hasConcurrency: specs.some((s) => s.algorithm === "concurrency"),
  });
}

/**
 * Whether two lists of limits can count in one namespace: the same names, algorithms and state widths, in
 * order, and for the algorithms whose state numbers windows in units of the period (fixed_window and
 * sliding_window: a window id ⌊now / P⌋; bucketed_window: bucket ids ⌊now / w⌋) the same period and bucket width.
 * Such lists differ only in numbers that every store clamps on the next touch of a key (a limit moved from 10 to
 * 100 per minute keeps the 8 already counted); lists that differ in shape cannot share state. A window id read
 * under another period names another time altogether (a per-second window's id, read as minutes, lies centuries
 * ahead), so tiers of different periods must not share it.
 */
export function sameStateShape(a: readonly LimitSpec[], b: readonly LimitSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.name !== y.name || x.algorithm !== y.algorithm) return false;
    if (algorithms[x.algorithm].width(x) !== algorithms[y.algorithm].width(y)) return false;
    if (WINDOW_IDS.has(x.algorithm) && (x.periodMs !== y.periodMs || x.bucketMs !== y.bucketMs)) return false;
  }
  return true;
}

/**
 * A text naming the state shape of `specs`: equal for two lists exactly when {@link sameStateShape} holds. Per limit
 * `name=algorithm;width`, plus `;periodMs;bucketMs` for the algorithms whose state holds window ids, joined by ",";
 * the name percent-encoded (`encodeURIComponent`), so that no name can forge a separator. Stable across processes
 * (it is part of store namespaces, and so of Redis keys).
 */
export function stateShapeKey(specs: readonly LimitSpec[]): string {
  return specs
    .map((s) => {
      const head = `${encodeURIComponent(s.name)}=${s.algorithm};${algorithms[s.algorithm].width(s)}`;
      return WINDOW_IDS.has(s.algorithm) ? `${head};${s.periodMs};${s.bucketMs}` : head;
    })
    .join(",");
}

/** The algorithms whose state holds window or bucket ids counted in units of the period or bucket width. */
const WINDOW_IDS: ReadonlySet<string> = new Set(["fixed_window", "sliding_window", "bucketed_window"]);

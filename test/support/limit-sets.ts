import { createLimitSet, type LimitSet } from "../../src/algorithms/limit-set.js";
import { type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";

/** A LimitSet of `limits` in `namespace`, the limits named `l0`, `l1`, … unless they carry a name. */
export function set(namespace: string, ...limits: LimitSpecInput[]): LimitSet {
  return createLimitSet(
    namespace,
    limits.map((l, i) => parseLimitSpec({ name: `l${i}`, ...l })),
  );
}

/**
 * Token bucket — a bucket of `burst` tokens refilled continuously at `limit / periodMs`.
 *
 * Model: a bucket holds at most B tokens and gains L/P tokens per ms; a request of cost c passes when the
 * bucket holds at least c tokens, and takes them. The state is kept in deficit form, tokens = B − used, so the
 * all-zeros fresh state is a full bucket. At `now`: Δ = max(0, now − last), used' = max(0, used − Δ·L/P)
 * (clamped for a lowered burst, see `drain.ts`); the cost passes when the excess (used' + c − B)·P/L is at most
 * TIME_TOLERANCE_MS, and then used = used' + c, last = max(last, now). The arithmetic is shared with
 * leaky_bucket (`drain.ts`); on a clock that never goes backwards, decisions equal GCRA's for the same spec.
 *
 * State (2 fields): `s[o] = usedTokens` (B − tokens), `s[o + 1] = lastMs` (epoch ms of the last write).
 *
 * Reported: remaining = ⌊B − used⌋ after the step (forgiving TIME_TOLERANCE_MS worth of refill);
 * resetAfterMs = used·P/L (until the bucket is full again); retryAfterMs (denied) = the excess, in ms.
 * Seed 002's pseudocode (tokens ≥ cost, wait = (cost − tokens) / rate) gives the same decisions, except that a
 * denial here writes nothing.
 *
 * Edges: a clock going backwards is no time passing (Δ = 0, last is never moved back) and reported durations
 * include the lag behind `last`. cost > burst never passes (retryAfterMs = Infinity). A burst lowered since the
 * key was last seen clamps the deficit to the new burst. cost 0 is a peek and writes nothing. Refund gives
 * tokens back up to a full bucket.
 *
 * Pro: O(1), two floats per key, bursts up to B then a steady L/P, the model most APIs document. Con: two
 * fields where GCRA needs one; like GCRA it has no calendar window.
 */
import type { Algorithm } from "./algorithm.js";
import { drainApply, drainIdleAfterMs, drainRefund } from "./drain.js";

/** Token bucket over two floats (tokens used, last refill time) per key. */
export const tokenBucket: Algorithm = {
  id: "token_bucket",
  width: () => 2,
  apply: drainApply,
  refund: drainRefund,
  idleAfterMs: drainIdleAfterMs,
};

/** The algorithm registry: every {@link Algorithm} by id. */
import type { AlgorithmId } from "../core/limit-spec.js";
import type { Algorithm } from "./algorithm.js";
import { bucketedWindow } from "./bucketed-window.js";
import { concurrency } from "./concurrency.js";
import { fixedWindow } from "./fixed-window.js";
import { gcra } from "./gcra.js";
import { leakyBucket } from "./leaky-bucket.js";
import { slidingLog } from "./sliding-log.js";
import { slidingWindow } from "./sliding-window.js";
import { tokenBucket } from "./token-bucket.js";

export type { Algorithm, StepOut, StepResult } from "./algorithm.js";
export { createStepOut, step } from "./algorithm.js";
export {
  bucketedWindow,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingLog,
  slidingWindow,
  tokenBucket,
};

/** Every algorithm, by id. */
export const algorithms: Readonly<Record<AlgorithmId, Algorithm>> = Object.freeze({
  token_bucket: tokenBucket,
  leaky_bucket: leakyBucket,
  fixed_window: fixedWindow,
  sliding_log: slidingLog,
  sliding_window: slidingWindow,
  gcra,
  bucketed_window: bucketedWindow,
  concurrency,
});

/**
 * Sluice: rate limiting for Node.js. The root export is deliberately small: the Limiter, the in-process store,
 * the core types and errors. The other stores, the rules engine and the test helpers are subpath exports
 * (`sluice/memory`, `sluice/redis`, `sluice/engine`, `sluice/testing`).
 */
export type { Algorithm, StepOut, StepResult } from "./algorithms/algorithm.js";
export { step } from "./algorithms/algorithm.js";
export { algorithms } from "./algorithms/index.js";
export type { LimitSet } from "./algorithms/limit-set.js";
export { createLimitSet } from "./algorithms/limit-set.js";
export type { Clock, Scheduler } from "./core/clock.js";
export { systemClock, systemScheduler } from "./core/clock.js";
export type { Decision, DecisionReason, PolicyStatus } from "./core/decision.js";
export type { Duration } from "./core/duration.js";
export { parseDurationMs } from "./core/duration.js";
export type { ConfigIssue, SluiceErrorCode } from "./core/errors.js";
export {
  ConfigError,
  InvalidArgumentError,
  SluiceError,
  StoreTimeoutError,
  StoreUnavailableError,
} from "./core/errors.js";
export type { AlgorithmId, LimitSpec, LimitSpecInput } from "./core/limit-spec.js";
export { ALGORITHM_IDS, parseLimitSpec } from "./core/limit-spec.js";
export type { LimitState } from "./core/limit-state.js";
export { MAX_NOW_MS } from "./core/time-math.js";
export type { CallOptions, Lease, Limiter, LimiterOptions } from "./engine/limiter.js";
export { createLimiter } from "./engine/limiter.js";
export type { MemoryStoreOptions, MemoryStoreStats } from "./stores/memory/memory-store.js";
export { MemoryStore, memoryStore } from "./stores/memory/memory-store.js";
export type { ResilientShard } from "./stores/resilient-sharded-store.js";
export { ResilientShardedStore, resilientShardedStore } from "./stores/resilient-sharded-store.js";
export type {
  BreakerOptions,
  BreakerState,
  BreakerStateChange,
  FailurePolicy,
  ResilientOptions,
  ResilientStats,
} from "./stores/resilient-store.js";
export { ResilientStore, resilientStore } from "./stores/resilient-store.js";
export type { Shard, ShardedStoreOptions, WrapShardsOptions } from "./stores/sharded-store.js";
export { ShardedStore, shardedStore } from "./stores/sharded-store.js";
export type { Store, StoreItem, StoreOp, SyncStore } from "./stores/store.js";

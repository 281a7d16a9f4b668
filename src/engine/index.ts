/**
 * `sluice/engine`: the rules engine for a server of yours that embeds it — `createEngine`, the configuration
 * loaders (`parseConfig`, `loadConfigFile`, `configFromValue`), the file watch that hot-reloads it
 * (`watchConfigFile`), and the types of its requests, answers and compiled configuration. The limiter, stores and
 * errors stay in the root export (`sluice`).
 */

export type { NativeConfigInput } from "../rules/config-schema.js";
export type { LimitSource } from "../rules/effective-limits.js";
export type { ParseConfigOptions } from "../rules/load-config.js";
export { configFromValue, loadConfigFile, parseConfig } from "../rules/load-config.js";
export type { RuleMatch } from "../rules/matcher.js";
export type {
  Behaviour,
  CostStrategy,
  Descriptor,
  DescriptorEntry,
  DescriptorTree,
  DescriptorTreeNode,
  DynamicLimit,
  EntryMatcher,
  Override,
  Rule,
  RuleDefaults,
  RuleFailurePolicy,
  RuleMode,
  SluiceConfig,
  ValuePattern,
} from "../rules/rule.js";
export type { ConfigTarget, ConfigWatcher, WatchConfigOptions } from "./config-watcher.js";
export { watchConfigFile } from "./config-watcher.js";
export type {
  CheckRequest,
  CheckResult,
  Counting,
  DescriptorCode,
  DescriptorResult,
  Engine,
  EngineEvents,
  EngineOptions,
  EngineStats,
  EngineStatus,
  FailureStore,
  RequestLimitOverride,
  ResetDescriptorResult,
  ResetRequest,
  ResetResult,
} from "./engine.js";
export { createEngine, NO_LIMIT_DECISION } from "./engine.js";

/**
 * `sluice/testing`: what a store author or a user's test suite needs — a manual clock, the reference store,
 * the conformance traces and the functions that replay them against any {@link Store}.
 */
export { ManualClock } from "../core/manual-clock.js";
export type {
  ConformanceIt,
  ConformanceOptions,
  ConformanceSkip,
  ConformanceTestApi,
  ReplayOptions,
  ReplayResult,
} from "./conformance.js";
export { replayTrace, runStoreConformance } from "./conformance.js";
export { ReferenceStore, referenceStore } from "./reference-store.js";
export type {
  PolicyExpect,
  RandomTraceOptions,
  Step,
  StepExpect,
  StepItem,
  StepOp,
  Trace,
} from "./traces.js";
export { randomTrace, randomTraces, T0, traceKeys, traces, traceTestName, traceTopic } from "./traces.js";

/**
 * Test fixtures for the HTTP surface: a {@link ServiceContext} over an engine of a YAML configuration, a memory
 * store and a {@link ManualClock} (decisions, client timestamps and latencies all on manual time), a silent
 * logger, and request bounds small enough to hit in tests.
 */
import pino from "pino";
import { ManualClock } from "../../core/manual-clock.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { parseConfig } from "../../rules/load-config.js";
import { MemoryStore } from "../../stores/memory/memory-store.js";
import type { Store } from "../../stores/store.js";
import { createInflightGate } from "../inflight-gate.js";
import type { RequestBounds, ServiceContext } from "../service-context.js";
import { createServiceMetrics } from "../service-metrics.js";

/** A Unix ms instant inside 2023, away from any window edge of whole seconds. */
export const TEST_T0_MS = 1_700_000_000_000;

/** Bounds of {@link testServiceContext}. */
export const TEST_BOUNDS: RequestBounds = Object.freeze({
  maxBodyBytes: 16_384,
  maxBatchItems: 10,
  maxCost: 1000,
  maxClockSkewMs: 60_000,
});

/** A context for adapter tests, with the clock that drives it. */
export interface TestServiceContext {
  /** The context to hand to an adapter. */
  readonly ctx: ServiceContext;
  /** The manual clock behind the engine, the context's clock and its stopwatch. */
  readonly clock: ManualClock;
  /** The engine. */
  readonly engine: Engine;
}

/** Options of {@link testServiceContext}. */
export interface TestServiceContextOptions {
  /** The store. @default a memory store of 10 000 keys */
  readonly store?: Store;
  /** The in-flight cap. @default 64 */
  readonly maxInflight?: number;
  /** The cap on requests waiting out a delay. @default the gate's default */
  readonly maxWaiting?: number;
  /** Replaces the engine (e.g. a stub that throws); the configuration is then only used for metrics' domains. */
  readonly engine?: (real: Engine) => Engine;
}

/** Builds a context over the YAML configuration `yaml`. */
export function testServiceContext(
  yaml: string,
  options: TestServiceContextOptions = {},
): TestServiceContext {
  const clock = new ManualClock(TEST_T0_MS);
  const real = createEngine({
    config: parseConfig(yaml),
    store: options.store ?? new MemoryStore({ capacity: 10_000 }),
    clock,
    scheduler: clock,
  });
  const engine = options.engine === undefined ? real : options.engine(real);
  const gate = createInflightGate(options.maxInflight ?? 64, clock, options.maxWaiting);
  const ctx: ServiceContext = {
    engine,
    metrics: createServiceMetrics(engine, { gate, defaultMetrics: false }),
    gate,
    log: pino({ level: "silent" }),
    clock,
    stopwatch: clock,
    bounds: TEST_BOUNDS,
  };
  return { ctx, clock, engine };
}

import type { LimitSet } from "../../src/algorithms/limit-set.js";
import type { Decision } from "../../src/core/decision.js";
import { StoreUnavailableError } from "../../src/core/errors.js";
import { MemoryStore } from "../../src/stores/memory/memory-store.js";
import type { Store, StoreItem, StoreOp } from "../../src/stores/store.js";

/** One `apply` call seen by an {@link AsyncMemoryStore}. */
export interface SeenCall {
  /** Its items, as passed. */
  readonly items: readonly StoreItem[];
  /** Its operation. */
  readonly op: StoreOp;
}

/**
 * A shared store stand-in for tests: the in-process store's state behind the asynchronous interface only (no
 * `applySync`), so an engine or a limiter over it takes its asynchronous paths, as over Redis. It records every
 * `apply` call and, while `failing` is set, rejects them with `ERR_SLUICE_STORE_UNAVAILABLE` (message `down`).
 */
export class AsyncMemoryStore implements Store {
  readonly name: string = "async-memory";
  readonly shared = true;
  /** The state. */
  readonly memory = new MemoryStore({ capacity: 1000 });
  /** Every `apply` call, in order (failed ones included). */
  readonly calls: SeenCall[] = [];
  /** While true, `apply` (and subclasses' other calls, by their choice) fail as an unreachable store does. */
  failing = false;

  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    this.calls.push({ items, op });
    if (this.failing) return Promise.reject(new StoreUnavailableError(this.name, "down"));
    return Promise.resolve(this.memory.applySync(items, op, nowMs));
  }

  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    return this.memory.release(limits, key, leases, nowMs);
  }

  close(): Promise<void> {
    return this.memory.close();
  }
}

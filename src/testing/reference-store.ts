/**
 * The reference store: the obviously-correct model every other store is compared with by the conformance
 * suite. One `Float64Array` per (namespace, key, limit) in a `Map`, driven directly by the algorithm kernels,
 * with no capacity, no eviction and no cleverness. Slow on purpose; never use it in production.
 *
 * Conventions (shared with the memory store; a store that disagrees is wrong, or this model is):
 * - `consume` is all-or-nothing over every limit of every item: the items are first applied in order to copies
 *   of the states (so a key named twice sees its earlier item), and only when every limit of every item allows
 *   is everything committed, in order. When any denies, nothing is written and each item reports its own
 *   verdict on the states its earlier items that pass on their own would leave (each limit's verdict there, an
 *   allowing limit re-run for cost 0): for items on distinct keys, the unchanged states; a key named twice
 *   (Envoy's same descriptor sent twice) is denied in its second item when the first takes what is left, as
 *   separate calls would answer. An item is allowed only when its own limits and every other item allowed
 *   (`combineDecision(…, consumed)`); `retryAfterMs` is 0 when allowed; concurrency leases are reported by
 *   policy name.
 * - Warning hysteresis (seed 002) is kept per (namespace, key, limit) and updated only by a committed consume;
 *   a limit whose state is idle (back to fresh, `idleAfterMs` 0) at the time of a touch has no warning, since a
 *   fresh state carries no history (a store may drop an idle key at any time).
 * - `peek` reports the verdict for `cost` without writing; `refund` gives units back to stored limits whose state
 *   is not idle (an idle state has none in use: a refund leaves it as it is, as if the store had dropped it, so a
 *   state that only a denied consume created is never changed by one) and then reports as a cost-0 peek; `reset`
 *   forgets the key (but for what `Algorithm.resetKeep` keeps: a concurrency limit's last lease id) and reports
 *   the fresh state.
 * - A limit is identified across reconfiguration by its namespace, key and policy name: a changed number keeps
 *   the state (the kernel clamps on touch; a changed state width hands it over with `resizeState`, as `step` does),
 *   while a changed algorithm starts that limit fresh.
 */
import type { Algorithm } from "../algorithms/algorithm.js";
import { createStepOut, resizeState } from "../algorithms/algorithm.js";
import type { LimitSet } from "../algorithms/limit-set.js";
import { combineDecision, type Decision, type PolicyStatus, policyStatusOf } from "../core/decision.js";
import { InvalidArgumentError, SluiceError } from "../core/errors.js";
import type { LimitSpec } from "../core/limit-spec.js";
import { nextWarning } from "../core/limit-state.js";
import type { Store, StoreItem, StoreOp } from "../stores/store.js";

interface Cell {
  algorithm: Algorithm;
  state: Float64Array;
  warning: boolean;
}

/** The conformance oracle: a `Map` of per-limit states driven by the algorithm kernels (see module comment). */
export class ReferenceStore implements Store {
  readonly name = "reference";
  readonly shared = false;
  readonly #cells = new Map<string, Cell>();
  #closed = false;

  /** Number of (namespace, key, limit) states held. */
  get size(): number {
    return this.#cells.size;
  }

  /** Applies `op` to every item; see {@link Store.apply}. */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    try {
      return Promise.resolve(this.applySync(items, op, nowMs));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Synchronous {@link ReferenceStore.apply} (not a `SyncStore`: limiters use the asynchronous path). */
  applySync(items: readonly StoreItem[], op: StoreOp, nowMs: number): Decision[] {
    if (this.#closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", "referenceStore: used after close()");
    switch (op) {
      case "consume":
        return this.#consume(items, nowMs);
      case "peek":
        return items.map((it) => this.#peek(it.limits, it.key, it.cost, nowMs));
      case "refund":
        return items.map((it) => {
          it.limits.specs.forEach((spec, i) => {
            const cell = this.#cell(it.limits, it.key, i, false);
            if (cell !== undefined && cell.algorithm.idleAfterMs(cell.state, 0, nowMs, spec) > 0) {
              cell.algorithm.refund(cell.state, 0, nowMs, spec, it.cost);
            }
          });
          return this.#peek(it.limits, it.key, 0, nowMs);
        });
      case "reset":
        return items.map((it) => {
          it.limits.specs.forEach((spec) => {
            // A concurrency limit keeps its last lease id across a reset (Algorithm.resetKeep); the rest is forgotten.
            const k = cellKey(it.limits.namespace, it.key, spec);
            const cell = this.#cells.get(k);
            if (cell?.algorithm.resetKeep?.(cell.state, 0, spec)) cell.warning = false;
            else this.#cells.delete(k);
          });
          return this.#peek(it.limits, it.key, 0, nowMs);
        });
      default:
        throw new InvalidArgumentError(`referenceStore: unknown op ${JSON.stringify(op)}`);
    }
  }

  /** Ends the leases named in `leases` (lease id by policy name) for `key`. */
  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    limits.specs.forEach((spec, i) => {
      const id = leases[spec.name];
      const cell = this.#cell(limits, key, i, false);
      if (id === undefined || cell === undefined || cell.algorithm.release === undefined) return;
      cell.algorithm.release(cell.state, 0, nowMs, spec, id);
    });
    return Promise.resolve();
  }

  /** Drops all state; the store must not be used afterwards. */
  close(): Promise<void> {
    this.#closed = true;
    this.#cells.clear();
    return Promise.resolve();
  }

  #consume(items: readonly StoreItem[], nowMs: number): Decision[] {
    const out = createStepOut();
    const cells = items.map((it) => it.limits.specs.map((_, i) => this.#cell(it.limits, it.key, i, true)!));
    // A limit idle at this touch has no history: its warning flag goes.
    items.forEach((it, n) => {
      it.limits.specs.forEach((spec, i) => {
        const cell = cells[n][i];
        if (cell.warning && cell.algorithm.idleAfterMs(cell.state, 0, nowMs, spec) <= 0) cell.warning = false;
      });
    });
    // Phase 1: apply every item in order to copies of the states (a key named twice sees its first item).
    const trial = new Map<Cell, Float64Array>();
    let all = true;
    items.forEach((it, n) => {
      it.limits.specs.forEach((spec, i) => {
        if (!all) return;
        const cell = cells[n][i];
        let copy = trial.get(cell);
        if (copy === undefined) {
          copy = cell.state.slice();
          trial.set(cell, copy);
        }
        cell.algorithm.apply(copy, 0, nowMs, spec, it.cost, true, out);
        if (!out.allowed) all = false;
      });
    });
    // Phase 2, denied: each item's own verdict on copies its earlier passing items have stepped; nothing is written.
    const seen = all ? undefined : new Map<Cell, Float64Array>();
    // Phase 2: commit everything when all allowed; otherwise report each item as above.
    return items.map((it, n) => {
      const statuses: PolicyStatus[] = [];
      let leases: Record<string, number> | undefined;
      let pass = true;
      it.limits.specs.forEach((spec, i) => {
        const cell = cells[n][i];
        let own: boolean;
        let warning = cell.warning;
        if (seen !== undefined) {
          let state = seen.get(cell);
          if (state === undefined) {
            state = cell.state.slice();
            seen.set(cell, state);
          }
          cell.algorithm.apply(state, 0, nowMs, spec, it.cost, false, out);
          own = out.allowed;
          if (own) cell.algorithm.apply(state, 0, nowMs, spec, 0, false, out);
          else pass = false;
        } else {
          cell.algorithm.apply(cell.state, 0, nowMs, spec, it.cost, true, out);
          own = out.allowed;
          if (!own)
            throw new Error(
              `referenceStore: ${spec.name} denied on commit after allowing; kernel is not pure`,
            );
          warning = nextWarning(cell.warning, out.remaining, spec.burst);
          cell.warning = warning;
          if (out.leaseId !== 0) {
            leases ??= {};
            leases[spec.name] = out.leaseId;
          }
        }
        statuses.push(policyStatusOf(spec, out, own, warning));
      });
      // An item that passes on its own takes its steps on the copies, for the items after it.
      if (seen !== undefined && pass) {
        it.limits.specs.forEach((spec, i) => {
          const cell = cells[n][i];
          cell.algorithm.apply(seen.get(cell) as Float64Array, 0, nowMs, spec, it.cost, true, out);
        });
      }
      // Allowed only when consumed: an item whose own limits allowed is still denied when another item denied.
      return combineDecision(statuses, "store", leases, all);
    });
  }

  #peek(limits: LimitSet, key: string, cost: number, nowMs: number): Decision {
    const out = createStepOut();
    const statuses = limits.specs.map((spec, i) => {
      const cell = this.#cell(limits, key, i, false);
      const algorithm = limits.algorithms[i];
      const state = cell?.state ?? new Float64Array(algorithm.width(spec));
      algorithm.apply(state, 0, nowMs, spec, cost, false, out);
      const previous = cell?.warning === true && algorithm.idleAfterMs(state, 0, nowMs, spec) > 0;
      return policyStatusOf(
        spec,
        out,
        out.allowed,
        out.allowed && nextWarning(previous, out.remaining, spec.burst),
      );
    });
    return combineDecision(statuses, "store");
  }

  /** The cell of limit `i` of `limits` for `key`, adapted to the current spec; created when `create`. */
  #cell(limits: LimitSet, key: string, i: number, create: boolean): Cell | undefined {
    const spec = limits.specs[i];
    const algorithm = limits.algorithms[i];
    const id = cellKey(limits.namespace, key, spec);
    let cell = this.#cells.get(id);
    if (cell !== undefined && cell.algorithm !== algorithm) {
      this.#cells.delete(id); // a changed algorithm starts fresh
      cell = undefined;
    }
    const width = algorithm.width(spec);
    if (cell === undefined) {
      if (!create) return undefined;
      cell = { algorithm, state: new Float64Array(width), warning: false };
      this.#cells.set(id, cell);
    } else if (cell.state.length !== width) {
      const next = new Float64Array(width);
      resizeState(algorithm, cell.state, cell.state.length, next, 0, spec); // held whole
      cell.state = next; // a changed limit hands the state over (a ring unwrapped); the kernel clamps the rest on touch
    }
    return cell;
  }
}

function cellKey(namespace: string, key: string, spec: LimitSpec): string {
  return JSON.stringify([namespace, key, spec.name]);
}

/** Creates a {@link ReferenceStore}. */
export function referenceStore(): ReferenceStore {
  return new ReferenceStore();
}

/**
 * The store contract: where limiter state lives and how a step is applied atomically. Stores know nothing of
 * rules, HTTP or gRPC; they apply the algorithms of a {@link LimitSet} to keys.
 */
import type { LimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";

/**
 * What to do with each item:
 * - `consume`: check and, when every limit of every item allows, take `cost` from all of them (all-or-nothing);
 * - `peek`: report the state as if `cost` were asked for, changing nothing;
 * - `refund`: give `cost` back (settling an over-estimate); never below the fresh state;
 * - `reset`: forget the key (back to fresh).
 */
export type StoreOp = "consume" | "peek" | "refund" | "reset";

/** One key checked against one set of limits. */
export interface StoreItem {
  /** The limits that apply. */
  readonly limits: LimitSet;
  /** The identity the limits are counted for (e.g. `user:42`). */
  readonly key: string;
  /** Units asked for (consume/peek) or given back (refund). */
  readonly cost: number;
}

/**
 * The idempotency record of one consume (see {@link Store.applyOnce}): a caller-chosen key and how long the answer
 * is kept.
 */
export interface IdempotencyClaim {
  /**
   * Names the record within the identity of the call's first item (the store scopes it by that identity, so a
   * retry must send the same items in the same order). 1 to 1024 characters.
   */
  readonly key: string;
  /** How long the first answer is replayed, ms (a whole number >= 1). */
  readonly ttlMs: number;
}

/** The answer of {@link Store.applyOnce}. */
export interface OnceResult {
  /** One decision per item: this call's, or (when `replayed`) the first call's with the same record. */
  readonly decisions: Decision[];
  /** Whether the decisions are the stored answer of an earlier call (nothing was counted now). */
  readonly replayed: boolean;
}

/** A place where limiter state lives. */
export interface Store {
  /** Short name used in errors, logs and metrics (`memory`, `redis`). */
  readonly name: string;
  /** Whether several processes see the same state through this store. */
  readonly shared: boolean;
  /**
   * Applies `op` to every item and returns one decision per item. With `consume`, the items are all-or-nothing
   * where the store can make them so (memory: always; Redis: per hash slot, see its docs). `nowMs` is the
   * caller's clock; stores with a clock of their own (Redis `TIME`) may ignore it unless told to trust it.
   */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]>;
  /**
   * Optional: a `consume` of `items` that is also checked against and recorded in the idempotency record `once`,
   * in the same atomic step as the decision (so two concurrent calls with one record count once, whichever
   * process sends them). When the record exists and has not expired, its decisions are returned with
   * `replayed: true` and nothing is counted; otherwise the items are consumed (all-or-nothing, as by
   * {@link Store.apply}) and the decisions are recorded for `once.ttlMs`, whether admitted or denied. A store
   * that cannot make one particular call atomic (items spread over independent nodes) rejects it with
   * `ERR_SLUICE_UNSUPPORTED` having changed nothing, and the caller decides without the shared record.
   * Stores without a shared state (memory) do not offer it: their callers keep records in process.
   */
  applyOnce?(items: readonly StoreItem[], nowMs: number, once: IdempotencyClaim): Promise<OnceResult>;
  /** Releases concurrency leases taken by an earlier consume of `item` (lease ids by policy name). */
  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void>;
  /** Frees resources (connections, timers). The store must not be used afterwards. */
  close(): Promise<void>;
}

/** A store that can also answer synchronously (in-process state). */
export interface SyncStore extends Store {
  /** Synchronous {@link Store.apply}. */
  applySync(items: readonly StoreItem[], op: StoreOp, nowMs: number): Decision[];
  /** The fast path: one key, one consume. */
  consumeSync(limits: LimitSet, key: string, cost: number, nowMs: number): Decision;
  /** {@link SyncStore.consumeSync} bound to one set of limits, for callers that call it in a loop. */
  bindSync(limits: LimitSet): (key: string, cost: number, nowMs: number) => Decision;
  /** Synchronous {@link Store.release}. */
  releaseSync(limits: LimitSet, key: string, leases: Readonly<Record<string, number>>, nowMs: number): void;
}

/** Whether `store` offers the synchronous path. */
export function isSyncStore(store: Store): store is SyncStore {
  return typeof (store as Partial<SyncStore>).consumeSync === "function";
}

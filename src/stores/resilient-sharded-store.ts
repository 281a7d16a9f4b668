/**
 * Failure handling for a sharded store, one shard at a time: a {@link ResilientStore} (timeout, circuit breaker,
 * failure policy) around each shard's store, inside the shard router, instead of one around the whole
 * {@link ShardedStore}. Model: the shards are independent nodes, so one of them failing says nothing of the others;
 * one breaker over all of them was tripped by the dead node's calls and then sent every key, the healthy nodes'
 * included, to the policy (with `fail_closed`, losing one node of N was a full outage), and flapped as its
 * half-open probe landed on a healthy or on the dead node.
 *
 * - **Routing** is the sharded store's own ({@link ShardedStore.wrapShards}): same ring, same shard ids, its
 *   membership followed call by call, so a key's shard, and so its breaker, is the one that owns it.
 * - **Decisions**: a key on a healthy shard is decided by that shard's store; a key on a failed shard by the policy
 *   (`fail_open`, `fail_closed`, `fallback`: the module comment of `resilient-store.ts`). A call whose items span
 *   shards sends each shard its part through that shard's wrapper and combines the answers exactly as the sharded
 *   store does (all-or-nothing through refunds): a part the policy answered is one more shard's answer there.
 * - **Breakers** are per shard: only calls to a shard's node move its breaker; each shard has its own fallback
 *   store (at most `fallbackCapacity` keys each, allocated when that shard first fails).
 * - **Idempotent consumes** (`applyOnce`): on one shard, that shard's wrapper's (timeout, breaker, policy). Spread
 *   over shards, the sharded store's claim protocol (`once-claim.ts`) with the record's ledger behind the record
 *   shard's breaker and timeout, and the consume through each shard's wrapper; then:
 *   - the record shard unreachable (its ledger failed, timed out or its breaker is open): the items are consumed
 *     without a record, through the wrappers (healthy shards' items counted by their stores, the rest by the
 *     policy), `replayed: false`: as a policy's answer, it reaches no shared record;
 *   - a consume a policy took part in is answered but not recorded (`once-claim.ts`), so a retry once the node is
 *     back is decided by the store;
 *   - a wait for another caller's claim longer than `timeoutMs` (the claim's TTL when that is shorter): answered by
 *     the record shard's policy for every item, nothing sent to the stores, `replayed: false` (the sharded store
 *     alone would throw `ERR_SLUICE_IDEMPOTENCY_PENDING`).
 * - **Stats**: each shard's wrapper has its own (`shards`); {@link ResilientShardedStore.stats} sums their counters
 *   and reports the worst state (`open` if any shard's breaker is open, else `half_open` if any is, else `closed`).
 *
 * Caller errors (`ERR_SLUICE_INVALID_*`, `ERR_SLUICE_UNSUPPORTED`, …) are rethrown untouched, as by the wrappers.
 */
import type { LimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";
import { InvalidArgumentError } from "../core/errors.js";
import { IdempotencyPendingError } from "./once-claim.js";
import {
  type BreakerState,
  type FailurePolicy,
  isCallerError,
  parseResilientOptions,
  type ResilientOptions,
  type ResilientStats,
  ResilientStore,
  zeroCounters,
} from "./resilient-store.js";
import type { Shard, ShardedStore } from "./sharded-store.js";
import type { CallTicket, IdempotencyClaim, OnceResult, Store, StoreItem, StoreOp } from "./store.js";

/** One shard's failure wrapper in a {@link ResilientShardedStore}. */
export interface ResilientShard {
  /** The shard's id in the sharded store. */
  readonly id: string;
  /** The wrapper around the shard's store: its breaker, `stats` and `state`. */
  readonly store: ResilientStore;
}

const STATE_RANK: Readonly<Record<BreakerState, number>> = { closed: 0, half_open: 1, open: 2 };

/** A {@link ShardedStore} with a timeout, a circuit breaker and a failure policy per shard; see the module comment. */
export class ResilientShardedStore implements Store {
  /** The sharded store's name, so logs and metrics keep naming the real backend. */
  readonly name: string;
  /** The wrapped sharded store (its shards' stores unwrapped). */
  readonly inner: ShardedStore;
  readonly #view: ShardedStore;
  readonly #policy: FailurePolicy;

  /** Wraps each shard of `inner`; throws `ERR_SLUICE_INVALID_ARGUMENT` naming any bad option. */
  constructor(inner: ShardedStore, options: ResilientOptions = {}) {
    if (inner === null || typeof inner !== "object" || typeof inner.wrapShards !== "function") {
      throw new InvalidArgumentError("resilientShardedStore: inner must be a ShardedStore");
    }
    // Checked here, so that a bad option is named as this function's (each shard's wrapper checks them again).
    const parsed = parseResilientOptions("resilientShardedStore", "options", options);
    this.inner = inner;
    this.name = inner.name;
    this.#policy = parsed.onError;
    const listener = parsed.onStateChange;
    const timeoutMs = parsed.timeoutMs;
    this.#view = inner.wrapShards(
      (shard) =>
        new ResilientStore(shard.store, {
          ...options,
          onStateChange:
            listener === undefined ? undefined : (change) => listener({ ...change, shard: shard.id }),
        }),
      // A longer wait for another caller's claim is answered by the policy (see the module comment).
      { claimWaitMs: timeoutMs },
    );
  }

  /** Whether every shard is shared. */
  get shared(): boolean {
    return this.#view.shared;
  }

  /** What a failed, timed-out or short-circuited call answers (`onError`), on every shard. */
  get policy(): FailurePolicy {
    return this.#policy;
  }

  /** Each current shard's id and wrapper, in the sharded store's order. */
  get shards(): readonly ResilientShard[] {
    return this.#view.shards.map((s) => ({ id: s.id, store: s.store as ResilientStore }));
  }

  /** The id of the shard that owns `key`. */
  shardFor(key: string): string {
    return this.#view.shardFor(key);
  }

  /** The worst breaker state of the current shards: `open` if any is open, else `half_open` if any is, else `closed`. */
  get state(): BreakerState {
    let worst: BreakerState = "closed";
    for (const s of this.shards) if (STATE_RANK[s.store.state] > STATE_RANK[worst]) worst = s.store.state;
    return worst;
  }

  /** The current shards' counters summed, with {@link ResilientShardedStore.state} as the state. */
  get stats(): ResilientStats {
    const sum = zeroCounters();
    let state: BreakerState = "closed";
    for (const { store } of this.shards) {
      const s = store.stats;
      for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += s[k];
      if (STATE_RANK[s.state] > STATE_RANK[state]) state = s.state;
    }
    return Object.freeze({ state, ...sum });
  }

  /** Applies `op` shard by shard, each shard's part through its wrapper (the module comment). */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    return this.#view.apply(items, op, nowMs);
  }

  /** {@link Store.applyTo}, shard by shard as {@link ResilientShardedStore.apply}. */
  applyTo(
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
    onDecisions: (decisions: Decision[]) => void,
    onError: (error: unknown) => void,
    ticket?: CallTicket,
  ): void {
    this.#view.applyTo(items, op, nowMs, onDecisions, onError, ticket);
  }

  /** {@link Store.applyOnce} per shard, or spread under a claim; see the module comment for its failures. */
  applyOnce(
    items: readonly StoreItem[],
    nowMs: number,
    once: IdempotencyClaim,
    ticket?: CallTicket,
  ): Promise<OnceResult> {
    const view = this.#view;
    return view.applyOnce(items, nowMs, once, ticket).catch((error: unknown) => {
      if (isCallerError(error)) throw error;
      if (error instanceof IdempotencyPendingError) {
        // Another caller's claim outlasted the wait: the policy answers, as the timeout of one wrapper would have.
        const id = view.shardFor(items[0].key);
        const record = (view.shards.find((s) => s.id === id) as Shard).store as ResilientStore;
        return { decisions: record.consumeByPolicy(items, nowMs), replayed: false };
      }
      // The record's shard could not be reached: decided without the record (a one-shard call never gets here, its
      // wrapper answers every failure; a spread consume through the wrappers fails only for the caller's errors).
      return view.apply(items, "consume", nowMs).then((decisions) => ({ decisions, replayed: false }));
    });
  }

  /** Releases leases through the wrapper of the shard that owns `key` (a failure is dropped there). */
  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    return this.#view.release(limits, key, leases, nowMs);
  }

  /** Closes every current shard's wrapper, which closes the shard's store, then its fallback store. */
  close(): Promise<void> {
    return this.#view.close();
  }
}

/**
 * Wraps each shard of `inner` with a timeout, a circuit breaker and a failure policy (default `fallback`); see the
 * module comment. Options as {@link ResilientOptions}, applied to every shard.
 */
export function resilientShardedStore(
  inner: ShardedStore,
  options?: ResilientOptions,
): ResilientShardedStore {
  return new ResilientShardedStore(inner, options);
}

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
 * - `refund`: give `cost` back (settling an over-estimate); never below the fresh state. A limit whose state is
 *   idle (`idleAfterMs` 0: back to fresh, or never stored, e.g. a key whose consumes were all denied) has nothing
 *   in use to give back and is left as it is, so a store that dropped the idle state and one that kept it agree;
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
  /**
   * The instant the decisions were taken, epoch ms on the caller's clock: the `nowMs` of the call that recorded
   * them (kept in the record, so every replay reports the same one). Absent: this call's `nowMs` (a record older
   * than the field, or an answer that reached no record, such as a failure policy's).
   */
  readonly decidedAtMs?: number;
}

/** What a claim on an idempotency record found (see {@link OnceLedger.claim}). */
export type OnceClaimState =
  /** Nothing was recorded nor claimed: the record is now this caller's to decide and write. */
  | { readonly state: "claimed" }
  /** Another caller holds an unexpired claim: it is deciding; ask again later. */
  | { readonly state: "pending" }
  /**
   * The record: the first call's decisions and the instant they were taken (epoch ms, caller's clock; undefined
   * for a record written before instants were kept).
   */
  | { readonly state: "recorded"; readonly decisions: Decision[]; readonly decidedAtMs: number | undefined };

/**
 * The idempotency record of one call held apart from its decision, for a call whose items no single atomic step
 * covers (they live on several independent nodes). Each method is one atomic step on the node owning the record;
 * `token` identifies one claimer (random, unique per claim). The protocol is in `once-claim.ts`.
 */
export interface OnceLedger {
  /** The record if present; else "pending" while another caller's claim lives; else claims it for `claimTtlMs`. */
  claim(token: string, claimTtlMs: number): Promise<OnceClaimState>;
  /**
   * Writes the record (`decisions`, decided at `decidedAtMs`) for the record's TTL in place of the claim of
   * `token`; leaves the key alone when another caller's claim or a record holds it.
   */
  record(token: string, decisions: readonly Decision[], decidedAtMs: number): Promise<void>;
  /** Deletes the claim of `token`, if it still holds the record (the claimer failed: a retry may proceed). */
  abandon(token: string): Promise<void>;
}

/** A store that can hold idempotency records apart from decisions (Redis); see {@link OnceLedger}. */
export interface OnceLedgerStore extends Store {
  /**
   * The ledger of record `once` of a call whose first item is `items[0]` (scoped as {@link Store.applyOnce}
   * scopes it); `items` decode a recorded answer. Throws `ERR_SLUICE_INVALID_ARGUMENT` on bad input.
   */
  onceLedger(items: readonly StoreItem[], once: IdempotencyClaim): OnceLedger;
}

/** Whether `store` offers {@link OnceLedgerStore.onceLedger}. */
export function hasOnceLedger(store: Store): store is OnceLedgerStore {
  return typeof (store as Partial<OnceLedgerStore>).onceLedger === "function";
}

/**
 * A caller's hold on a store call it issued ({@link Store.applyTo}): `settled` turns true once the caller no longer
 * waits for the answer (a wrapper's timeout answered it with its failure policy). A call still queued then is
 * dropped rather than applied, so a backlog built during a stall is shed instead of being sent, and a request the
 * policy answered is not also counted by the store.
 *
 * `queued` goes the other way: a store that holds calls in the process before sending them (Redis batching) sets
 * it true while the call waits there and false once it has left. A call whose deadline passes while `queued` is
 * true never reached the backend, so its timeout says nothing of the backend's health: it is the caller's own
 * backlog (its event loop held up, or calls arriving faster than one connection carries them), and a circuit
 * breaker that counted it would cut off a healthy backend. A store that never sets it leaves it undefined, and
 * every timeout then counts as the backend's.
 */
export interface CallTicket {
  /** The caller has its answer (or gave up): the call's outcome is no longer awaited. */
  readonly settled: boolean;
  /** True while the call waits in the store's own queue in this process, false once it has left it (see above). */
  queued?: boolean;
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
   * atomically with the decision (so two concurrent calls with one record count once, whichever process sends
   * them). When the record exists and has not expired, its decisions are returned with `replayed: true` and the
   * instant they were taken (`decidedAtMs`), and nothing is counted; otherwise the items are consumed
   * (all-or-nothing, as by {@link Store.apply}) and the decisions are recorded for `once.ttlMs` with `nowMs` as
   * their instant, whether admitted or denied. Items on one node: the record is read and written in the
   * decision's own atomic step. Items spread over several nodes: a claim on the record's node serializes the
   * callers (`once-claim.ts`): one decides and records, the others wait for its record (bounded, then
   * `ERR_SLUICE_IDEMPOTENCY_PENDING`); one bound remains there: a claimer that dies after consuming and before
   * recording lets a retry after the claim's TTL (10 s by default) count again. A store that cannot hold a
   * particular record (a shard without shared records, a record of other limits) rejects the call with
   * `ERR_SLUICE_UNSUPPORTED` having changed nothing, and the caller decides without the shared record. Stores
   * without a shared state (memory) do not offer it: their callers keep records in process. `ticket`: as
   * {@link Store.applyTo}'s (a call whose ticket is settled while it is still queued is never sent).
   */
  applyOnce?(
    items: readonly StoreItem[],
    nowMs: number,
    once: IdempotencyClaim,
    ticket?: CallTicket,
  ): Promise<OnceResult>;
  /**
   * Optional: {@link Store.apply} answering through callbacks instead of a promise, for a wrapper that settles a
   * promise of its own (`resilientStore`): a promise, its resolving functions and a reaction less per call. Exactly
   * one of `onDecisions` / `onError` is called, once (`onError` may be called before `applyTo` returns, for bad
   * input); neither may throw. `ticket`, when given, tells whether the caller still waits: a store that queues
   * calls (Redis batching) drops a call whose ticket is settled before it leaves the process — never applying it —
   * and answers it with `onError` (`ERR_SLUICE_STORE_UNAVAILABLE`), which the settled caller ignores.
   */
  applyTo?(
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
    onDecisions: (decisions: Decision[]) => void,
    onError: (error: unknown) => void,
    ticket?: CallTicket,
  ): void;
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
  /**
   * Optional: one consumer over several sets of one namespace, each of one small limit of one shape, that applies
   * to each key the set `choose(key)` names (an index into `sets`) and remembers that choice with the key's state,
   * so `choose` runs only when a key is stored (or after its state was dropped). `choose` must be a pure function
   * of the key for the consumer's lifetime (bind a new consumer when it changes). Undefined when the sets do not
   * qualify; the caller then picks the set itself and uses {@link SyncStore.bindSync}.
   */
  bindChoiceSync?(sets: readonly LimitSet[], choose: (key: string) => number): ChoiceConsumer | undefined;
}

/** A consumer made by {@link SyncStore.bindChoiceSync}. */
export interface ChoiceConsumer {
  /** Consumes `cost` units for `key` under the set chosen for it, as {@link SyncStore.consumeSync}. */
  consume(key: string, cost: number, nowMs: number): Decision;
  /** The index (into the sets bound) of the set the last {@link ChoiceConsumer.consume} applied. */
  readonly chosen: number;
}

/** Whether `store` offers the synchronous path. */
export function isSyncStore(store: Store): store is SyncStore {
  return typeof (store as Partial<SyncStore>).consumeSync === "function";
}

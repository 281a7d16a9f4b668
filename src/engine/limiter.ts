/**
 * The Limiter: the library's front door. It binds named limits to a store and answers, per key, whether a
 * request may pass. Several limits on one limiter apply all-or-nothing: a request denied by any of them is
 * consumed from none.
 */
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import { checkClock, checkOptions, shown, unknownOptionError } from "../core/arguments.js";
import { type Clock, systemClock } from "../core/clock.js";
import type { Decision } from "../core/decision.js";
import { ConfigError, type ConfigIssue, InvalidArgumentError, SluiceError } from "../core/errors.js";
import { type LimitSpec, type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { MAX_NOW_MS } from "../core/time-math.js";
import { memoryStore } from "../stores/memory/memory-store.js";
import { resilientShardedStore } from "../stores/resilient-sharded-store.js";
import { parseResilientOptions, type ResilientOptions, resilientStore } from "../stores/resilient-store.js";
import { ShardedStore } from "../stores/sharded-store.js";
import { isSyncStore, type Store, type StoreOp, type SyncStore } from "../stores/store.js";

/** Longest key accepted, in UTF-16 code units. */
export const MAX_KEY_LENGTH = 1024;
// Module-local copy for the hot path: V8 folds it into optimised code, while an exported binding is read from its
// cell and checked on every use.
const KEY_LENGTH_LIMIT = MAX_KEY_LENGTH;

/** The decision of a one-item store call. */
const firstDecision = (decisions: readonly Decision[]): Decision => decisions[0];

/** Options of {@link createLimiter}. */
export interface LimiterOptions {
  /** The limits every key is held to; several apply all-or-nothing. */
  readonly limits: LimitSpecInput | readonly LimitSpecInput[];
  /** Where state lives. @default memoryStore() */
  readonly store?: Store;
  /** Source of time. @default systemClock */
  readonly clock?: Clock;
  /**
   * Name of this limiter's keys in the store (its namespace): limiters sharing a store (or a Redis) need distinct
   * names, or they read and write one another's counters. Keeping the name while changing the limits keeps each
   * key's state (a changed algorithm or window period starts that limit fresh). The default name is the one
   * exception checked in-process: on one store object, a limiter created with the name `"default"` (given or
   * defaulted) whose limits differ from an earlier such limiter's throws `ERR_SLUICE_INVALID_ARGUMENT`; a chosen
   * name is taken as meant to be shared (a reconfigured limiter, tiers of one policy). @default "default"
   */
  readonly name?: string;
  /**
   * Failure handling for a remote store: timeout, circuit breaker and `fail_open` / `fail_closed` /
   * `fallback` (see `resilientStore`). Only wraps stores without a synchronous path: in-process stores
   * cannot be unreachable, and wrapping them would lose `limitSync`. A `ShardedStore` is wrapped shard by shard
   * (`resilientShardedStore`: a breaker per shard, so one dead node leaves the others' keys to their stores).
   * Checked whatever the store: an unknown key or a bad value throws `ERR_SLUICE_INVALID_ARGUMENT`
   * (`createLimiter: failure.onError must be …`), an in-process store's too, though there it changes nothing.
   * Without it, a call on a remote store waits as long as its client does: a Redis that stalls (paused, swapping,
   * a network partition without resets) holds every `limit()` until it answers, so give `failure` (at least a
   * `timeoutMs`) to any limiter on Redis. (The engine and `sluice serve` always wrap shared stores.)
   * @default undefined (no wrapping)
   */
  readonly failure?: ResilientOptions;
}

/**
 * Per-call options. An unknown key (`{ cots: 2 }`) or a bad value throws `ERR_SLUICE_INVALID_ARGUMENT` naming the
 * method called and the field; `refund` and `reset` take `nowMs` only.
 */
export interface CallOptions {
  /** Units this request costs (0 peeks). @default 1 */
  readonly cost?: number;
  /**
   * Decide at this time instead of the clock's (tests, replays): epoch ms from 0 to `MAX_NOW_MS`
   * (2100-01-01T00:00:00Z); anything else is refused with `ERR_SLUICE_INVALID_ARGUMENT`. A store that takes time
   * from elsewhere ignores it: the Redis store with its default `clock: "redis"` decides at Redis's `TIME`, so that
   * processes with skewed clocks agree (its `clock: "client"` uses this value).
   */
  readonly nowMs?: number;
}

/** A held concurrency lease: release it when the work is done (an unreleased lease expires after its period). */
export interface Lease {
  /** Whether the lease was granted. */
  readonly allowed: boolean;
  /** The full decision. */
  readonly decision: Decision;
  /** Gives the lease back; safe to call more than once. */
  release(): Promise<void>;
}

/** A set of limits bound to a store. */
export interface Limiter {
  /** The parsed limits, in declaration order. */
  readonly limits: readonly LimitSpec[];
  /** The store in use. */
  readonly store: Store;
  /** Checks and consumes `cost` (default 1) for `key` against every limit. */
  limit(key: string, options?: CallOptions): Promise<Decision>;
  /** Synchronous {@link Limiter.limit}; needs a store with a synchronous path (memory). */
  limitSync(key: string, options?: CallOptions): Decision;
  /**
   * Reports what {@link Limiter.limit} would answer for `cost` (default 0), consuming nothing. With the default cost
   * nothing is asked for, so `allowed` is true even on a key whose quota is used up: read `remaining`, or pass
   * `{ cost: 1 }` to ask whether one more request would pass now.
   */
  peek(key: string, options?: CallOptions): Promise<Decision>;
  /** Gives back `amount` units (settling an over-estimate); never below fresh: an idle key is left as is. */
  refund(key: string, amount: number, options?: Omit<CallOptions, "cost">): Promise<Decision>;
  /** Forgets `key`: it starts fresh. */
  reset(key: string, options?: Omit<CallOptions, "cost">): Promise<void>;
  /** Takes a concurrency lease (and consumes any rate limits alongside); release it when done. */
  acquire(key: string, options?: CallOptions): Promise<Lease>;
}

/** The keys {@link LimiterOptions} accepts. */
const LIMITER_KEYS: readonly string[] = ["limits", "store", "clock", "name", "failure"];
/** The keys {@link CallOptions} accepts. */
const CALL_KEYS: readonly string[] = ["cost", "nowMs"];
/** The keys the options of `refund` and `reset` accept. */
const TIME_KEYS: readonly string[] = ["nowMs"];

/** The name a limiter gets without `name`. */
const DEFAULT_NAME = "default";

/**
 * Per store object given to {@link createLimiter}, the limits ({@link limitsIdentity}) of the limiters created on
 * it under {@link DEFAULT_NAME}. Model: a second limiter on a shared store without a name of its own is nearly always
 * a forgotten name, not a reconfiguration, and it would silently share (or, of another algorithm, wipe) the first
 * one's counters; so the default name binds one set of limits per store. Other names are not recorded: sharing a
 * chosen name is how a limiter is reconfigured and how a policy's tiers share counters. Weak keys: a store that is
 * no longer referenced takes its entry with it. In-process only; limiters in other processes on one Redis are not
 * seen (see the README on `name`).
 */
const defaultNameLimits = new WeakMap<Store, string>();

/**
 * The identity of a list of parsed limits: equal for two lists exactly when every field of every limit is equal, in
 * order. Readable, as it is shown in errors: per limit `name: algorithm limit/periodMs ms`, plus `burst` when it
 * differs from the limit and `bucket` for bucketed_window.
 */
function limitsIdentity(specs: readonly LimitSpec[]): string {
  return specs
    .map((s) => {
      const burst = s.burst !== s.limit ? ` burst ${s.burst}` : "";
      const bucket = s.algorithm === "bucketed_window" ? ` bucket ${s.bucketMs} ms` : "";
      return `${JSON.stringify(s.name)}: ${s.algorithm} ${s.limit}/${s.periodMs} ms${burst}${bucket}`;
    })
    .join(", ");
}

/**
 * Creates a {@link Limiter}. Throws `ERR_SLUICE_INVALID_LIMIT` listing every invalid field of the limits, and
 * `ERR_SLUICE_INVALID_ARGUMENT` naming an unknown option (`createLimiter: unknown option "stor"; did you mean
 * "store"?`), a bad value, or a second limiter named `"default"` with other limits on one store
 * (see {@link LimiterOptions.name}).
 */
export function createLimiter(options: LimiterOptions): Limiter {
  checkOptions("createLimiter", "options", options, LIMITER_KEYS);
  const inputs = Array.isArray(options.limits) ? options.limits : [options.limits];
  // Every limit is parsed, and the issues of all of them are thrown together (not only the first bad limit's).
  const specs: LimitSpec[] = [];
  const issues: ConfigIssue[] = [];
  for (const [i, l] of inputs.entries()) {
    try {
      specs.push(
        parseLimitSpec(
          l as LimitSpecInput,
          inputs.length === 1 && !Array.isArray(options.limits) ? "limits" : `limits[${i}]`,
        ),
      );
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_LIMIT", issues);
  const name = options.name ?? DEFAULT_NAME;
  if (typeof name !== "string" || name.length === 0 || name.length > 128) {
    throw new InvalidArgumentError(
      `createLimiter: name must be a string of 1 to 128 characters, got ${shown(name)}`,
    );
  }
  const clock = options.clock ?? systemClock;
  checkClock("createLimiter", "clock", clock);
  const given = options.store as Partial<Store> | null | undefined;
  if (
    given !== undefined &&
    (given === null ||
      typeof given !== "object" ||
      typeof given.apply !== "function" ||
      typeof given.release !== "function" ||
      typeof given.close !== "function")
  ) {
    throw new InvalidArgumentError(
      `createLimiter: store must be a Store (an object with apply, release and close), such as memoryStore() or redisStore(), got ${shown(given)}`,
    );
  }
  const set = createLimitSet(name, specs);
  // Only a given store can be shared (one made here is this limiter's alone), and only the default name is checked.
  const shared = name === DEFAULT_NAME ? options.store : undefined;
  const identity = shared === undefined ? undefined : limitsIdentity(specs);
  const bound = shared === undefined ? undefined : defaultNameLimits.get(shared);
  if (bound !== undefined && bound !== identity) {
    throw new InvalidArgumentError(
      `createLimiter: the store already has a limiter named "${DEFAULT_NAME}" with other limits (${bound}; these are ${identity}); give each limiter on a shared store its own name (option name)`,
    );
  }
  let store = options.store ?? memoryStore();
  const failure = options.failure;
  if (failure !== undefined) {
    // Checked whatever the store: a typo is an error even where the options change nothing (an in-process store).
    parseResilientOptions("createLimiter", "failure", failure);
    if (!isSyncStore(store)) {
      const resilience = { ...failure, clock: failure.clock ?? clock };
      store =
        store instanceof ShardedStore
          ? resilientShardedStore(store, resilience)
          : resilientStore(store, resilience);
    }
  }
  // Bound once every check has passed: a refused limiter binds nothing.
  if (shared !== undefined && identity !== undefined) defaultNameLimits.set(shared, identity);
  return new BoundLimiter(set, store, clock);
}

class BoundLimiter implements Limiter {
  readonly limits: readonly LimitSpec[];
  /**
   * A closure rather than a method: the common call (no options, a valid key) is one check of the key, one read
   * of the clock and one call into the store's consumer, in a function small enough for callers to inline.
   * Decisions are fresh objects, never reused: callers may keep them.
   */
  readonly limitSync: (key: string, options?: CallOptions) => Decision;
  /** The store's consumer bound to these limits; undefined without a sync path, or with concurrency limits. */
  readonly #consume: ((key: string, cost: number, nowMs: number) => Decision) | undefined;
  readonly #set: LimitSet;
  readonly #clock: Clock;
  readonly #sync: SyncStore | undefined;
  readonly #wholeCosts: boolean;
  readonly #maxCost: number;

  constructor(
    set: LimitSet,
    readonly store: Store,
    clock: Clock,
  ) {
    this.limits = set.specs;
    this.#set = set;
    this.#clock = clock;
    this.#sync = isSyncStore(store) ? store : undefined;
    // The store's consumer bound to these limits (absent without a sync path, or with concurrency limits).
    const consume = this.#sync !== undefined && !set.hasConcurrency ? this.#sync.bindSync(set) : undefined;
    // The method's name reaches `#checkedCost` only off the common path (options given, or a key to reject).
    this.limitSync =
      consume === undefined
        ? () => {
            throw this.#noSyncPath();
          }
        : limitSyncOver(consume, clock, (key, options) => this.#checkedCost(key, options, "limitSync"));
    this.#consume = consume;
    this.#wholeCosts = set.specs.some(
      (s) => s.algorithm !== "gcra" && s.algorithm !== "token_bucket" && s.algorithm !== "leaky_bucket",
    );
    this.#maxCost = Number.MAX_SAFE_INTEGER;
  }

  /**
   * The cost of a sync-path call (`method`: the one the caller called) with options, or with arguments to reject
   * (then throws).
   */
  #checkedCost(key: string, options: CallOptions | undefined, method: string): number {
    if (options !== undefined) checkCallOptions(method, options, true);
    const cost = options?.cost ?? 1;
    this.#check(key, cost, method, options?.nowMs);
    return cost;
  }

  limit(key: string, options?: CallOptions): Promise<Decision> {
    try {
      const consume = this.#consume;
      if (consume !== undefined) {
        // limitSync's own path (limitSyncOver), with errors naming limit.
        const cost =
          options === undefined && typeof key === "string" && (key.length - 1) >>> 0 < KEY_LENGTH_LIMIT
            ? 1
            : this.#checkedCost(key, options, "limit");
        return Promise.resolve(consume(key, cost, options?.nowMs ?? this.#clock.nowMs()));
      }
      if (this.#set.hasConcurrency) throw this.#useAcquire("limit");
      if (options !== undefined) checkCallOptions("limit", options, true);
      const cost = options?.cost ?? 1;
      this.#check(key, cost, "limit", options?.nowMs);
      return this.#one("consume", key, cost, options?.nowMs);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  peek(key: string, options?: CallOptions): Promise<Decision> {
    try {
      if (options !== undefined) checkCallOptions("peek", options, true);
      return this.#call("peek", key, options?.cost ?? 0, options?.nowMs, "peek", "cost");
    } catch (error) {
      return Promise.reject(error);
    }
  }

  refund(key: string, amount: number, options?: Omit<CallOptions, "cost">): Promise<Decision> {
    try {
      if (options !== undefined) checkCallOptions("refund", options, false);
      return this.#call("refund", key, amount, options?.nowMs, "refund", "amount");
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async reset(key: string, options?: Omit<CallOptions, "cost">): Promise<void> {
    if (options !== undefined) checkCallOptions("reset", options, false);
    await this.#call("reset", key, 0, options?.nowMs, "reset", "cost");
  }

  async acquire(key: string, options?: CallOptions): Promise<Lease> {
    if (options !== undefined) checkCallOptions("acquire", options, true);
    const cost = options?.cost ?? 1;
    this.#check(key, cost, "acquire", options?.nowMs);
    if (!this.#set.hasConcurrency) {
      throw new InvalidArgumentError("acquire: this limiter has no concurrency limit; use limit()");
    }
    // The clock's time too (off the hot path here): lease ids are exact and distinct only within the range.
    const nowMs = options?.nowMs ?? this.#clock.nowMs();
    if (!(nowMs >= 0 && nowMs <= MAX_NOW_MS)) {
      throw new InvalidArgumentError(
        `acquire: nowMs (the clock's) must be epoch milliseconds from 0 to ${MAX_NOW_MS} (2100-01-01T00:00:00Z), got ${String(nowMs)}`,
      );
    }
    const decision = await this.#one("consume", key, cost, nowMs);
    let released = !decision.allowed;
    const leases = decision.leases ?? {};
    return {
      allowed: decision.allowed,
      decision,
      release: async (): Promise<void> => {
        if (released) return;
        released = true;
        await this.store.release(this.#set, key, leases, this.#clock.nowMs());
      },
    };
  }

  #call(
    op: StoreOp,
    key: string,
    cost: number,
    nowMs: number | undefined,
    method: string,
    costName: string,
  ): Promise<Decision> {
    try {
      this.#check(key, cost, method, nowMs, costName);
      return this.#one(op, key, cost, nowMs);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One store call for one key. Not an `async` function: its frame, its promise and the reaction of an `await`
   * would be ~600 B more garbage per decision on an asynchronous store (measured with the sampling heap profiler).
   */
  #one(op: StoreOp, key: string, cost: number, nowMs: number | undefined): Promise<Decision> {
    return this.store
      .apply([{ limits: this.#set, key, cost }], op, nowMs ?? this.#clock.nowMs())
      .then(firstDecision);
  }

  /**
   * Throws `ERR_SLUICE_INVALID_ARGUMENT` for a bad argument of `method` (the method the caller called), naming it and
   * the argument: `costName` is what the method calls its cost (`amount` for `refund`). A key is described by its
   * length, never quoted (keys identify users).
   */
  #check(key: string, cost: number, method: string, nowMs: number | undefined, costName = "cost"): void {
    if (nowMs !== undefined && !(typeof nowMs === "number" && nowMs >= 0 && nowMs <= MAX_NOW_MS)) {
      throw new InvalidArgumentError(
        `${method}: nowMs must be epoch milliseconds from 0 to ${MAX_NOW_MS} (2100-01-01T00:00:00Z), got ${shown(nowMs)}`,
      );
    }
    if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new InvalidArgumentError(
        `${method}: key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${typeof key === "string" ? `${key.length} characters` : shown(key)}`,
      );
    }
    if (
      !(typeof cost === "number" && cost >= 0 && cost <= this.#maxCost) ||
      (this.#wholeCosts && !Number.isInteger(cost))
    ) {
      throw new InvalidArgumentError(
        `${method}: ${costName} must be a ${this.#wholeCosts ? "whole " : ""}number from 0 to Number.MAX_SAFE_INTEGER, got ${shown(cost)}`,
      );
    }
  }

  #noSyncPath(): SluiceError {
    if (this.#sync === undefined) {
      return new SluiceError(
        "ERR_SLUICE_UNSUPPORTED",
        `limitSync: the ${this.store.name} store has no synchronous path; use limit()`,
      );
    }
    return this.#useAcquire("limitSync");
  }

  #useAcquire(method: string): InvalidArgumentError {
    return new InvalidArgumentError(
      `${method}: this limiter has a concurrency limit; use acquire() and release the lease`,
    );
  }
}

/**
 * Throws unless the per-call `options` of `method` (given: not undefined) is an object whose keys are `nowMs` and,
 * when `withCost`, `cost`. A loop over the keys only (a call with no options never gets here; one with a small
 * literal, a few comparisons): the values are {@link BoundLimiter.#check}'s to check.
 */
function checkCallOptions(method: string, options: object, withCost: boolean): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(
      `${method}: options must be an object (${withCost ? "cost, nowMs" : "nowMs"}), got ${shown(options)}`,
    );
  }
  for (const k in options) {
    if (k !== "nowMs" && (k !== "cost" || !withCost)) {
      throw unknownOptionError(method, k, withCost ? CALL_KEYS : TIME_KEYS);
    }
  }
}

/**
 * The {@link Limiter.limitSync} of a limiter whose store has a consumer for its limits: one call into `consume`
 * whatever the arguments, so that a caller inlining it sees the decision's only allocation site and, when it just
 * reads the decision's fields, need not allocate the decision at all. The common call (no options, a key of 1 to
 * MAX_KEY_LENGTH characters) costs 1 at the clock's time; any other goes through `checkedCost`, which throws on
 * invalid arguments. A module function with plain parameters keeps the closure's bytecode small.
 */
function limitSyncOver(
  consume: (key: string, cost: number, nowMs: number) => Decision,
  clock: Clock,
  checkedCost: (key: string, options: CallOptions | undefined) => number,
): (key: string, options?: CallOptions) => Decision {
  const limitSync = (key: string, options?: CallOptions): Decision =>
    consume(
      key,
      options === undefined && typeof key === "string" && (key.length - 1) >>> 0 < KEY_LENGTH_LIMIT
        ? 1
        : checkedCost(key, options),
      options?.nowMs ?? clock.nowMs(),
    );
  return limitSync;
}

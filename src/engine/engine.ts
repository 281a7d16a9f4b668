/**
 * The engine: a request's descriptors → matching rules → effective limits → store calls → one answer, with the
 * throttle behaviours (reject / delay / shadow), dynamic limits, idempotency and hot reload. It speaks no wire
 * protocol; the service, proxy and middleware call it.
 *
 * **A check.** Each descriptor of `{ domain, descriptors }` is matched on its own (most specific rule wins,
 * see `rules/matcher.ts`); its identity's limits come from an override, a tier or the rule
 * (`rules/effective-limits.ts`). No match, or `unlimited`, is OK without touching the store. Envoy's `replaces`
 * drops a matched descriptor whose rule (by id or name) another matched rule replaces. Every counted descriptor
 * of `reject` and `delay` rules goes to the store in **one** `apply` call, so they are all-or-nothing: a request
 * denied by any of them is consumed from none. The answer has one result per descriptor, in request order
 * (Envoy's per-descriptor statuses), and the most restrictive decision overall.
 *
 * **A request's own limits** (Envoy's per-descriptor `limit`, envoyproxy/ratelimit's `GetLimit`). A descriptor with
 * an entry in `limitOverrides` is limited by that limit alone, `requestsPerUnit` per `unitMs`, whether or not a
 * rule matches it (its rule, if any, is not applied, neither replaces nor is replaced): behaviour `reject`, never
 * shadow, the configuration's default algorithm, counted under the descriptor's full key (domain, then every entry's
 * key and value) in a namespace of its own (`REQUEST_LIMIT_NAMESPACE`), with the other enforcing descriptors in the
 * one all-or-nothing call. A limit of 0 blocks (denied, not counted), like a rule's `requests_per_unit: 0`. In a
 * domain without rules nothing applies, as in envoyproxy/ratelimit. Its result reports `source: "request"`, the
 * limit, and no `match`.
 *
 * **Costs.** `cost` (default 1) applies to every descriptor; `costs[i]` overrides it for descriptor i (Envoy's
 * per-descriptor `hits_addend`); a cost of 0 checks without counting. Costs must be whole numbers unless every
 * limit involved is a rate algorithm (gcra, token_bucket, leaky_bucket).
 *
 * **Behaviours.**
 * - `reject`: denied when over the limit.
 * - `shadow`: never denies. Its descriptors are counted after the enforcing ones admitted the request (each on
 *   its own, so one over its limit does not stop another from counting), or only peeked when the request was
 *   denied; one over its limit reports `shadowed: true` and increments `stats.shadowed`.
 * - `delay` (shaping, see `engine-compile.ts`): the store holds a GCRA reservation with the burst extended by
 *   `maxDelayMs`; an admitted request reports `delayMs`, the time until its slot; beyond `maxDelayMs` it is
 *   denied. No queue exists anywhere: the reservation is the state (one number per key), so memory is bounded
 *   by the store's capacity whatever the load. The caller waits `delayMs` (or `await engine.waitFor(result)`)
 *   and proceeds. The result's `delayMs` is the largest over its descriptors. Its decision reads against the
 *   configured limits (`remaining` and `state` exclude the waiting room: 0 and `warning` while requests wait; see
 *   `DelayShape`). A descriptor of cost 0 reserves nothing and reports `delayMs` 0: a probe learns whether a
 *   request would wait from `remaining` (0: it would).
 *
 * **Dynamic limits.** A rule with `dynamic` counts its admitted traffic per counter key in the store (two
 * counters, see `RATE_SCHEME`), peeks them before deciding, and enforces
 * `dynamicLimit(static, currentRate, previousRate, d)` for each limit, rates in units per that limit's period.
 * The current rate is the current window's count over the time elapsed in it (at least 1 ms), the previous rate
 * the previous window's count over `windowMs`. The counters are consumed in the same all-or-nothing call as the
 * limits, so denied requests do not raise the limit; with many instances the peek may be a few requests
 * stale, which only shifts the limit slightly. A dynamic rule costs two store calls per check. A descriptor whose
 * limits come from a static-only override (seed 003's `static_only`) is counted as under a rule without `dynamic`:
 * against the override's limits as written, with no peek and its traffic not counted.
 *
 * **Failure policy.** For a store without a synchronous path, each rule's items go through a `resilientStore`
 * wrapper of its `failurePolicy` (one wrapper per policy, created once, each with its own breaker; a store that
 * already is a `ResilientStore` or a `ResilientShardedStore` is used as is). On a `ShardedStore` the wrapper of a
 * policy is a `resilientShardedStore`: a breaker per shard, so a dead node sends only the keys it owns to the
 * policy, and keys on the other nodes keep being decided by their stores (`stores/resilient-sharded-store.ts`).
 * Items of rules with different policies therefore go to
 * different wrappers in separate calls: all-or-nothing holds within a policy group, and when one group denies,
 * the units taken by the groups that admitted are refunded (best effort). Their descriptors then report the
 * refund's answer, the state as it left it, as one all-or-nothing call reports an item of a denied call (its state
 * untouched); a refund that fails, or is answered by a failure policy, leaves them the consume's numbers.
 * In-process stores (memory) cannot be unreachable and are used directly. Rules of mode `local` go to a private
 * in-process store when the store is shared; mode `lease` is enforced as `exact` until lease stores exist.
 *
 * **Idempotency.** With `idempotencyKey`, a repeated check of the same request (domain, descriptors, effective costs
 * and limit overrides, however written: {@link requestFingerprint}) within `ttlMs` returns the first answer (`replayed: true`, decision reason
 * `replay`) and counts nothing; the same key with another request is decided (and counted) on its own. Two records
 * serve it:
 * - in process (every store): at most `maxEntries` answers and at most `maxBytes` bytes of them (64 MiB by
 *   default), the oldest dropped first when either is exceeded; a record's bytes are an upper-bound estimate made
 *   when it is stored (its objects, and the strings it takes from the request: record key, counter keys, identity
 *   values; see "idempotency record sizes" below), and a record larger than `maxBytes` alone is not kept. A repeat
 *   arriving while the first is in flight waits for it. On a synchronous store (memory) this is the whole
 *   mechanism, and exact within those bounds, since a check runs to completion before the next starts;
 * - in a shared store offering `applyOnce` (Redis): every counting store call of the check carries an idempotency
 *   record, checked and written in the same atomic step as its decision (for Redis, the same script call), so
 *   retries reaching different processes, or the same process concurrently after its record was dropped, count
 *   once. The in-process record is consulted first (a retry to the same process costs no round trip); the store's
 *   answer is authoritative otherwise. Record names: `<domain>:<idempotencyKey>:<fingerprint>` (`%` and `:`
 *   percent-encoded in the first two), then `:<k>` for the k-th failure-policy group of the enforcing call (the groups are deterministic for
 *   one configuration, so a retry names the same records) and `:s<i>` for the shadow descriptor i; the store
 *   scopes each by its first item's identity. A check is `replayed` when every record it used was replayed; then
 *   its enforcing decisions are the first check's, shadow descriptors of a denied first check are peeked again.
 *   When only some groups replay (the first attempt failed between its store calls, or a record expired between
 *   two), the replayed groups keep the first answer and are never refunded; the others are decided now. Items
 *   across Redis Cluster masters or shards are recorded too (under a claim on the record's node, see
 *   `stores/once-claim.ts`). A store call the store cannot record (a shard without shared records, a record of
 *   other limits: `ERR_SLUICE_UNSUPPORTED` from `applyOnce`) is made as a plain consume, counted in
 *   `stats.unsharedIdempotent`; one answered by the failure policy (store down, or a wait for another caller's
 *   claim longer than the policy's timeout) reaches no shared record either. Both leave the in-process record
 *   alone to deduplicate. Record lifetimes run on the store's clock (Redis: server time), `ttlMs` rounded up to
 *   whole ms.
 * An idempotent check's result carries `decidedAtMs`, the engine's `nowMs` of the check that decided it, kept in
 * both records; a replay carries the first check's (the earliest of its store records'), so the absolute instants
 * derived from it (`reset_at` on the wire) are the same in every replay.
 *
 * **Hot reload.** `updateConfig` compiles the new configuration (matcher, overrides, every rule's sets) and
 * swaps it in one assignment; checks in flight finish on the configuration they started with. Namespaces derive
 * from domain and rule id, so counters survive a reload (a changed number is clamped by the store, a changed
 * algorithm starts fresh). An invalid configuration is refused whole: the old one stays, `status.lastError` is
 * set, `configError` is emitted, and the error is thrown.
 *
 * Concurrency limits in rules take leases that this API does not release: they expire after their period.
 */
import { createHash } from "node:crypto";
import type { LimitSet } from "../algorithms/limit-set.js";
import { checkClock, checkOptions, checkScheduler, shown } from "../core/arguments.js";
import { type Clock, type Scheduler, systemClock, systemScheduler } from "../core/clock.js";
import {
  combineDecision,
  type Decision,
  type DecisionReason,
  decisionOf,
  type PolicyStatus,
} from "../core/decision.js";
import { InvalidArgumentError, SluiceError } from "../core/errors.js";
import type { LimitSpec } from "../core/limit-spec.js";
import { dynamicLimit } from "../rules/dynamic-limit.js";
import { effectiveLimits, type LimitSource } from "../rules/effective-limits.js";
import { descriptorKey, LazyRuleMatch, type RuleMatch, valueKey } from "../rules/matcher.js";
import type { Descriptor, Rule, RuleFailurePolicy, SluiceConfig } from "../rules/rule.js";
import { type MemoryStore, memoryStore } from "../stores/memory/memory-store.js";
import { ResilientShardedStore, resilientShardedStore } from "../stores/resilient-sharded-store.js";
import {
  type ParsedResilientOptions,
  parseResilientOptions,
  type ResilientOptions,
  ResilientStore,
  resilientStore,
} from "../stores/resilient-store.js";
import { ShardedStore } from "../stores/sharded-store.js";
import {
  type ChoiceConsumer,
  isSyncStore,
  type OnceResult,
  type Store,
  type StoreItem,
  type SyncStore,
} from "../stores/store.js";
import {
  type CompiledConfig,
  compileConfig,
  type DelayShape,
  HOT_BY_TIER,
  HOT_NONE,
  type HotRule,
  type Resolved,
  type RuleState,
  type SetEntry,
  type TargetSpec,
  type TierIndex,
} from "./engine-compile.js";
import { Emitter, IDEMPOTENCY_MAX_BYTES, IdempotencyRecords, validateRequest } from "./engine-support.js";

export { RATE_SCHEME, REQUEST_LIMIT_NAME, REQUEST_LIMIT_NAMESPACE } from "./engine-compile.js";
export {
  IDEMPOTENCY_MAX_BYTES,
  MAX_DESCRIPTORS,
  MAX_DOMAIN_LENGTH,
  MAX_ENTRIES,
  MAX_ENTRY_KEY_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_REQUESTS_PER_UNIT,
  MAX_VALUE_LENGTH,
} from "./engine-support.js";

/** A limit a request carries for one descriptor (Envoy's `RateLimitDescriptor.limit`). */
export interface RequestLimitOverride {
  /** Units admitted per `unitMs`: a whole number from 0 (blocked) to 2^32 − 1. */
  readonly requestsPerUnit: number;
  /** The period, ms (> 0; Envoy's unit as milliseconds). */
  readonly unitMs: number;
}

/** One request to {@link Engine.check}. */
export interface CheckRequest {
  /** The domain whose rules apply. */
  readonly domain: string;
  /** The descriptors, each matched on its own (at most 64, of 1 to 64 entries each). */
  readonly descriptors: readonly Descriptor[];
  /** Units every descriptor costs. @default 1 */
  readonly cost?: number;
  /** Per descriptor (same length as `descriptors`): a cost overriding `cost`, or undefined; 0 checks only. */
  readonly costs?: readonly (number | undefined)[];
  /** A retry of the same request (domain, descriptors, costs, overrides) with this key within the TTL replays the first answer. */
  readonly idempotencyKey?: string;
  /** Decide at this time instead of the clock's (tests, replays): epoch ms from 0 to `MAX_NOW_MS` (2100). */
  readonly nowMs?: number;
  /**
   * Per descriptor (same length as `descriptors`): a limit the request carries, applied instead of any rule (see
   * the module comment), or undefined.
   */
  readonly limitOverrides?: readonly (RequestLimitOverride | undefined)[];
}

/** One request to {@link Engine.reset}: the counters the same check would touch. */
export interface ResetRequest {
  /** The domain whose rules apply. */
  readonly domain: string;
  /** The descriptors whose matched counters are forgotten. */
  readonly descriptors: readonly Descriptor[];
  /** Reset at this time instead of the clock's (tests, replays): epoch ms from 0 to `MAX_NOW_MS` (2100). */
  readonly nowMs?: number;
}

/** What a reset did to one of its descriptors. */
export interface ResetDescriptorResult {
  /** The rule the descriptor matched, as a check would match it (the most specific); undefined when none. */
  readonly rule: Rule | undefined;
  /** Its counters forgotten: 1 when the match is counted, 0 when not (no match, unlimited, blocked, replaced). */
  readonly counters: number;
}

/** The answer to a reset. */
export interface ResetResult {
  /** Counters forgotten (one per matched, counted descriptor; dynamic traffic counters not included). */
  readonly counters: number;
  /** Per descriptor of the request, in its order: which rule's counter was forgotten (see the type). */
  readonly descriptors: readonly ResetDescriptorResult[];
}

/** Envoy's per-descriptor status code. */
export type DescriptorCode = "OK" | "OVER_LIMIT";

/** The outcome of one descriptor of a request. */
export interface DescriptorResult {
  /** `OVER_LIMIT` when this descriptor's own limits refused it (shadow rules always report `OK`). */
  readonly code: DescriptorCode;
  /** The rule it matched, with its counter key and identity; undefined when none matched or the request's own limit applied. */
  readonly match?: RuleMatch;
  /** The limits applied (dynamic values included, before the delay transform), `unlimited`, or undefined. */
  readonly limits: "unlimited" | readonly LimitSpec[] | undefined;
  /** Where the limits came from. */
  readonly source?: LimitSource;
  /** The store's decision for it; undefined when not counted (no match, unlimited, replaced). */
  readonly decision?: Decision;
  /** Over the limit, but the rule's behaviour is `shadow`, so it was allowed. */
  readonly shadowed: boolean;
  /** For `delay` rules: how long the caller should wait before proceeding, ms (0 for a cost of 0: nothing reserved). */
  readonly delayMs: number;
  /** The id of the matched rule that replaced this descriptor's rule (Envoy's `replaces`). */
  readonly replacedBy?: string;
}

/** The answer to a check. */
export interface CheckResult {
  /** Whether the request may proceed (after `delayMs`). */
  readonly allowed: boolean;
  /** The most restrictive decision of the counted descriptors, or {@link NO_LIMIT_DECISION}. */
  readonly decision: Decision;
  /** One result per request descriptor, same order. */
  readonly descriptors: readonly DescriptorResult[];
  /** How long to wait before proceeding (the largest of the descriptors'), ms; 0 when denied. */
  readonly delayMs: number;
  /** Whether this is the stored answer of an earlier check with the same idempotency key. */
  readonly replayed: boolean;
  /**
   * Idempotent checks only: the instant the answer was decided, epoch ms on the engine's clock (the first check's
   * for a replay); its durations (`resetAfterMs`, `retryAfterMs`) run from it.
   */
  readonly decidedAtMs?: number;
}

/**
 * Options of {@link createEngine}. An unknown key, here or in `idempotency`, `failure` or `failure.breaker`, is
 * refused (`ERR_SLUICE_INVALID_ARGUMENT`: `createEngine: unknown option "stor"; did you mean "store"?`), as
 * `createLimiter` refuses one.
 */
export interface EngineOptions {
  /** The compiled configuration (from `parseConfig` / `loadConfigFile`). */
  readonly config: SluiceConfig;
  /** Where counters live; a store created here is closed by {@link Engine.close}. @default memoryStore() */
  readonly store?: Store;
  /** Source of time. @default systemClock */
  readonly clock?: Clock;
  /** What {@link Engine.waitFor} and store timeouts sleep on. @default systemScheduler */
  readonly scheduler?: Scheduler;
  /**
   * Replay of repeated checks: how long an answer is kept (`ttlMs`), and the bounds of the in-process records, by
   * count (`maxEntries`) and by estimated bytes (`maxBytes`; see the module comment); an unknown key is refused.
   * @default { ttlMs: 300_000, maxEntries: 100_000, maxBytes: IDEMPOTENCY_MAX_BYTES (64 MiB) }
   */
  readonly idempotency?: {
    readonly ttlMs?: number;
    readonly maxEntries?: number;
    readonly maxBytes?: number;
  };
  /**
   * Timeout and breaker settings of the per-policy failure wrappers (shared stores only; checked whatever the
   * store). `onError`, `clock` and `scheduler` are refused: the rules' failure policies and the engine's own
   * options set them.
   */
  readonly failure?: Omit<ResilientOptions, "onError" | "clock" | "scheduler">;
  /**
   * How a request of several counted descriptors counts ({@link Counting}). @default "all_or_nothing"
   */
  readonly counting?: Counting;
}

/**
 * How a request of several counted descriptors counts. `all_or_nothing`: a denied request counts nowhere, so a
 * client over one limit does not use up the others (envoyproxy/ratelimit with
 * `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true`). `each`: every descriptor counts on its own, denied request or
 * not — each one whose limits pass is counted, as envoyproxy/ratelimit does by default (it increments every
 * descriptor), so its answers match that service's. The limits of one descriptor (a rule's 10/s and 1000/day) are
 * all-or-nothing either way; a descriptor over its limit is not counted (envoyproxy/ratelimit increments that one
 * too, which only shows with `hits_addend` above 1: a hit that does not fit still uses up the window there).
 */
export type Counting = "all_or_nothing" | "each";

/** What {@link Engine.status} reports. */
export interface EngineStatus {
  /** Where the configuration in use came from. */
  readonly configSource: string | undefined;
  /** When it was applied, on the engine's clock. */
  readonly loadedAtMs: number;
  /**
   * The configuration's own version (`SluiceConfig.version`: the admin API's repository numbers them), or undefined
   * when it has none (a rules file read without the admin API).
   */
  readonly configVersion: number | undefined;
  /**
   * Updates applied since the engine was created (0: still the configuration it was created with). A count of this
   * engine's, which differs between instances and restarts: not a version of the configuration.
   */
  readonly reloads: number;
  /** The last refused update, cleared by the next applied one. */
  readonly lastError?: { readonly message: string; readonly atMs: number };
}

/**
 * Counters since the engine was created, and the size of its in-process idempotency records now. Every answer
 * counts, replays included: a replay (from the in-process record or a store's) counts in `replayed` and as the
 * answer it repeats (checks, allowed or denied, delayed, shadowed), so the counters describe the answers callers
 * received (a retried, delayed check is one more caller told to wait). An allowed answer its caller gave back
 * ({@link Engine.refund}: admitted, but it did not proceed) moves from `allowed` (and `delayed`) to `refunded`, so
 * `checks` = `allowed` + `denied` + `refunded`, and `allowed` counts the callers that went ahead.
 */
export interface EngineStats {
  /** Checks answered (replays included). */
  readonly checks: number;
  /** Checks allowed, less those refunded since (`refunded`): the callers that went ahead. */
  readonly allowed: number;
  /** Checks denied. */
  readonly denied: number;
  /** Allowed checks with a delay, less those refunded since: the callers that waited, then went ahead. */
  readonly delayed: number;
  /**
   * Allowed checks given back with {@link Engine.refund} (forward-auth: a delayed request whose client left while
   * it waited, or that the full waiting pool refused, answered 429): counted once per answer when `refund` is
   * called with it, whether or not units could be given back (a replay, a failure policy's answer, a store that
   * failed). A refund of a denied answer changes no counter: it stays denied.
   */
  readonly refunded: number;
  /** Shadow descriptors over their limit (allowed because of shadow behaviour). */
  readonly shadowed: number;
  /** Checks answered from the idempotency record (in process or in the store). */
  readonly replayed: number;
  /**
   * Idempotent store calls the shared store could not record (`ERR_SLUICE_UNSUPPORTED`: a shard without shared
   * records, a record of other limits): deduplicated by the in-process record only.
   */
  readonly unsharedIdempotent: number;
  /** In-process idempotency records held now (a level, not a counter; expired ones until a keyed check sweeps them). */
  readonly idempotencyRecords: number;
  /** Their estimated bytes (a level; see the module comment), at most `idempotency.maxBytes`. */
  readonly idempotencyBytes: number;
}

/** Events of {@link Engine.on}. */
export interface EngineEvents {
  /** A configuration was applied: its version (if any), the engine's count of updates applied, its source. */
  readonly config: {
    readonly configVersion: number | undefined;
    readonly reloads: number;
    readonly source: string | undefined;
    readonly atMs: number;
  };
  /** A configuration was refused (or could not be loaded); the previous one stays. */
  readonly configError: {
    readonly error: unknown;
    readonly message: string;
    readonly source: string | undefined;
    readonly atMs: number;
  };
}

/** The rate limiting engine; see the module comment. */
export interface Engine {
  /** Checks and counts a request; see {@link CheckRequest}. */
  check(request: CheckRequest): Promise<CheckResult>;
  /** Synchronous {@link Engine.check}; needs a store with a synchronous path (memory). */
  checkSync(request: CheckRequest): CheckResult;
  /**
   * Forgets the counters the same check would count (every matched rule's key, shadow ones included): the
   * identity starts fresh (seed 002's ResetLimit). Descriptors that match nothing are ignored.
   */
  reset(request: ResetRequest): Promise<ResetResult>;
  /**
   * Gives back the units a check of `request` counted, as its answer `result` reports them: for a caller that was
   * admitted (typically told to wait `delayMs`) but does not proceed — it could not be held while it waited, or it
   * went away. Resolves with how many counters were refunded.
   *
   * The request is planned again, at `request.nowMs` (else now) on the configuration in use, and every counted
   * descriptor whose result says it consumed (its decision `allowed`, reached through the store itself: `reason`
   * `store`; a shadow descriptor only when the request was admitted or counting is `each`, else it was peeked) and
   * that plans to the same rule, counter key and source gets its cost back, a dynamic rule's traffic counters with
   * it and at the level the result reports: one `refund` store call per store, so a limit never goes below its
   * fresh state, and units others took since stay taken. Nothing is given back for a replay (its units belong to
   * the first answer), for a descriptor a failure policy answered (`fail_open` counted nothing; a `fallback`
   * counted in a store the wrapper may no longer send to), for one whose rule or identity a reload moved since,
   * nor for a concurrency limit (a lease is freed by its expiry: no refund can say which lease). The stats move an
   * allowed answer from `allowed` (and `delayed`) to `refunded`, once per answer, even when nothing could be given
   * back (see {@link EngineStats.refunded}); an idempotency record keeps its answer. On a store with a synchronous
   * path (memory) the units are back when this returns.
   *
   * An answer is given back once: a second refund of the same `result` object (a caller retrying, two code paths
   * both refunding, even one made before the first settles) gives nothing back and resolves 0, so refunds never
   * admit more than the limit. A store call that rejects (a caller error, such as a closed store; a failure of a
   * shared store is answered by the rule's failure policy instead, and its refund counts as made: a call that
   * timed out may have reached the store) gave nothing back: a later refund of the answer gives back the
   * descriptors of that call, and only those.
   */
  refund(request: CheckRequest, result: CheckResult): Promise<number>;
  /** Resolves after `result.delayMs` on the engine's scheduler (at once when 0); rejects when `signal` aborts it. */
  waitFor(result: CheckResult, signal?: AbortSignal): Promise<void>;
  /** Applies a new configuration atomically, keeping counters; throws (and reports) when it is invalid. */
  updateConfig(config: SluiceConfig): void;
  /** Records a configuration that could not be loaded: sets `status.lastError` and emits `configError`. */
  reportConfigError(error: unknown, source?: string): void;
  /** The configuration in use. */
  readonly config: SluiceConfig;
  /** Whether the current configuration has a rule in `domain` (a check elsewhere matches nothing). */
  hasDomain(domain: string): boolean;
  /** Configuration status. */
  readonly status: EngineStatus;
  /** Counters. */
  readonly stats: EngineStats;
  /** The store in use. */
  readonly store: Store;
  /**
   * The failure wrappers of a shared store, by failure policy: the timeout, circuit breaker and policy the engine
   * put around `store` for each policy its rules have used (or `store` itself, when it is a `ResilientStore` or a
   * `ResilientShardedStore`, under its own policy). Empty on an in-process store. On a `ShardedStore`, a
   * `ResilientShardedStore`, whose `shards` each have their own wrapper. Their `stats` and `state` are what metrics
   * report.
   */
  readonly failureStores: ReadonlyMap<RuleFailurePolicy, FailureStore>;
  /** Listens to `event`; returns a function that stops listening. */
  on<K extends keyof EngineEvents>(event: K, listener: (e: EngineEvents[K]) => void): () => void;
  /** Stops `listener` listening to `event`. */
  off<K extends keyof EngineEvents>(event: K, listener: (e: EngineEvents[K]) => void): void;
  /** Closes the stores the engine created. */
  close(): Promise<void>;
}

/** A failure wrapper of {@link Engine.failureStores}: one breaker, or one per shard. */
export type FailureStore = ResilientStore | ResilientShardedStore;

/** The decision of a request no limit applied to: allowed, unbounded. */
export const NO_LIMIT_DECISION: Decision = decisionOf(
  "none",
  true,
  Number.POSITIVE_INFINITY,
  Number.POSITIVE_INFINITY,
  0,
  0,
  "normal",
  0,
  "store",
);

const NO_MATCH: DescriptorResult = Object.freeze({
  code: "OK",
  limits: undefined,
  shadowed: false,
  delayMs: 0,
});

const EMPTY: readonly Item[] = Object.freeze([]) as readonly Item[];

/** The keys of {@link EngineOptions}. */
const ENGINE_OPTIONS: readonly string[] = Object.freeze([
  "config",
  "store",
  "clock",
  "scheduler",
  "idempotency",
  "failure",
  "counting",
]);
/** The keys of {@link EngineOptions.idempotency}. */
const IDEMPOTENCY_OPTIONS: readonly string[] = Object.freeze(["ttlMs", "maxEntries", "maxBytes"]);
/**
 * The keys of {@link EngineOptions.failure}: those of `ResilientOptions` but the three the engine sets itself for
 * each wrapper (`onError` from the rule's failure policy, `clock` and `scheduler` from its own options).
 */
const FAILURE_OPTIONS: readonly string[] = Object.freeze([
  "fallbackShare",
  "fallbackCapacity",
  "timeoutMs",
  "breaker",
  "onStateChange",
]);
/** Why a key of `ResilientOptions` is not one of {@link FAILURE_OPTIONS}: where the engine takes it from. */
const FAILURE_SET_BY_ENGINE: ReadonlyMap<string, string> = new Map([
  ["onError", "each rule's failure policy chooses it"],
  ["clock", "the engine's own `clock` is used"],
  ["scheduler", "the engine's own `scheduler` is used"],
]);

/**
 * Checks and defaults {@link EngineOptions.failure} (frozen), whatever the store: an unknown key or a bad value is
 * refused at construction, with `createEngine` and the field in the message (`failure.timeoutMss`), even where the
 * options change nothing (an in-process store), as `createLimiter` does; undefined when not given.
 */
function parseFailureOptions(failure: unknown): ParsedResilientOptions | undefined {
  if (failure === undefined) return undefined;
  if (failure !== null && typeof failure === "object" && !Array.isArray(failure)) {
    for (const key of Object.keys(failure)) {
      const why = FAILURE_SET_BY_ENGINE.get(key);
      if (why !== undefined) {
        throw new InvalidArgumentError(`createEngine: failure.${key} is not an option of the engine: ${why}`);
      }
    }
  }
  checkOptions("createEngine", "failure", failure, FAILURE_OPTIONS);
  return parseResilientOptions("createEngine", "failure", failure);
}

/**
 * An error `checkSync` threw for a `check()` call, worded for the method the caller called: a request error names
 * `check`, not the `checkSync` that `check` runs on a store with a synchronous path (off the hot path: only a
 * refused request pays for the new error).
 */
function asCheckError(error: unknown): unknown {
  if (error instanceof InvalidArgumentError && error.message.startsWith("checkSync: ")) {
    return new InvalidArgumentError(`check: ${error.message.slice("checkSync: ".length)}`);
  }
  return error;
}

/** {@link SluiceEngine.#soleAt}: no descriptor of the request matches a rule. */
const NONE_MATCHED = -1;
/** {@link SluiceEngine.#soleAt}: the general path decides (several descriptors match, or `replaces` is in use). */
const SEVERAL = -2;

/** The results of a request none of whose descriptors matches a rule. */
function noMatches(request: CheckRequest): DescriptorResult[] {
  const n = request.descriptors.length;
  if (n === 1) return [NO_MATCH];
  return new Array<DescriptorResult>(n).fill(NO_MATCH);
}

/** The results of a request whose only matching descriptor, at `at`, has result `r` (the others: NO_MATCH). */
function resultsWith(request: CheckRequest, at: number, r: DescriptorResult): DescriptorResult[] {
  const n = request.descriptors.length;
  if (n === 1) return [r];
  const out = new Array<DescriptorResult>(n).fill(NO_MATCH);
  out[at] = r;
  return out;
}

/** One counted descriptor: a store item plus what the result needs. */
class Item implements StoreItem {
  decision: Decision | undefined = undefined;
  /** The dynamic rule's traffic counters, consumed with it: [current window, two windows]. */
  rates: StoreItem[] | undefined = undefined;

  constructor(
    public limits: LimitSet,
    readonly key: string,
    readonly cost: number,
    readonly index: number,
    /** The store it goes to. */
    readonly target: Store,
    /** Its rule's state; undefined for a request's own limit. */
    readonly rs: RuleState | undefined,
    public entry: SetEntry,
    readonly source: LimitSource,
    readonly match: RuleMatch | undefined,
  ) {}
}

/** The result of counted item `it`, with `match` only when a rule matched. */
function itemResult(
  it: Item,
  code: DescriptorCode,
  decision: Decision | undefined,
  shadowed: boolean,
  delayMs: number,
): DescriptorResult {
  const limits = it.entry.specs;
  if (it.match === undefined) {
    return decision === undefined
      ? { code, limits, source: it.source, shadowed, delayMs }
      : { code, limits, source: it.source, decision, shadowed, delayMs };
  }
  return decision === undefined
    ? { code, match: it.match, limits, source: it.source, shadowed, delayMs }
    : { code, match: it.match, limits, source: it.source, decision, shadowed, delayMs };
}

/** A request after matching, before the store. */
interface Plan {
  readonly results: (DescriptorResult | undefined)[];
  /** Items of reject and delay rules: one all-or-nothing call. */
  enforce: Item[];
  /** Items of shadow rules. */
  shadow: Item[];
  /** Whether any item has traffic counters (dynamic rules). */
  dynamic: boolean;
  /** The decision of the first matched `blocked` rule that is not shadow: the request is denied uncounted. */
  blocked: Decision | undefined;
  /** Matched `blocked` rules of shadow behaviour (allowed, counted as shadowed). */
  shadowBlocked: number;
}

/** Whether the decision's own limits allowed (it may be `allowed: false` because another item denied). */
function ownAllowed(d: Decision): boolean {
  if (d.allowed) return true;
  const ps = d.policies;
  for (let i = 0; i < ps.length; i++) if (!ps[i].allowed) return false;
  return true;
}

/** The result of a descriptor whose limits resolved to unlimited: allowed, nothing counted. */
function unlimitedResult(match: RuleMatch, source: LimitSource): DescriptorResult {
  return { code: "OK", match, limits: "unlimited", source, shadowed: false, delayMs: 0 };
}

/** The result of a counted descriptor of a request denied before counting (a blocked rule matched). */
function notEvaluated(it: Item): DescriptorResult {
  return itemResult(it, "OK", undefined, false, 0);
}

/**
 * The limits of matched descriptor `desc` under rule state `rs`: resolved ahead by the rule state (no override
 * can apply), else by `effectiveLimits` from the identity string.
 */
function resolveLimits(
  c: CompiledConfig,
  rs: RuleState,
  m: RuleMatch,
  desc: Descriptor,
  nowMs: number,
): Resolved {
  const r = rs.resolve(desc);
  if (r !== undefined) return r;
  const identity = m.identity; // built on each read (LazyRuleMatch): read once
  return rs.resolvedOf(effectiveLimits(c.config, rs.rule, identity, nowMs, c.overrides), identity);
}

/**
 * Throws when fractional `cost` (named `field`) is not allowed for `entry` of `rule` (undefined: a request's limit);
 * `dynamic`: whether the descriptor feeds the rule's traffic counters, which count whole units.
 */
function checkFractional(
  entry: SetEntry,
  rule: Rule | undefined,
  cost: number,
  field: string,
  dynamic: boolean,
): void {
  if (entry.fractional && !dynamic) return;
  const what = rule === undefined ? "the request's own limit" : `rule "${rule.id}"`;
  throw new InvalidArgumentError(
    `${field} must be a whole number for ${what} (${entry.specs.map((s) => s.algorithm).join(", ")}${dynamic ? ", dynamic" : ""}), got ${cost}`,
  );
}

/** The cost asked for descriptor `at`: its own (`costs[at]`), else the request's, else 1. */
function costAt(request: CheckRequest, at: number): number {
  const costs = request.costs;
  return (costs === undefined ? undefined : costs[at]) ?? request.cost ?? 1;
}

/**
 * The cost the hot path counts for descriptor `at` ({@link costAt}); a fraction
 * is checked against `entry` (see {@link checkFractional}).
 */
function hotCost(request: CheckRequest, at: number, entry: SetEntry, rule: Rule): number {
  const cost = costAt(request, at);
  if (!Number.isInteger(cost))
    checkFractional(
      entry,
      rule,
      cost,
      request.costs?.[at] === undefined ? "cost" : `costs[${at}]`,
      rule.dynamic !== undefined,
    );
  return cost;
}

/** The result of a descriptor counted on the hot path under `match`, with decision `d`. */
function countedResult(
  ok: boolean,
  match: RuleMatch,
  limits: DescriptorResult["limits"],
  source: LimitSource,
  d: Decision,
  delayMs: number,
): DescriptorResult {
  return { code: ok ? "OK" : "OVER_LIMIT", match, limits, source, decision: d, shadowed: false, delayMs };
}

/** The same decision, marked as not consumed (another group denied). */
function unconsumed(d: Decision): Decision {
  return d.allowed
    ? combineDecision(d.policies, d.reason, d.leases === undefined ? undefined : { ...d.leases }, false)
    : d;
}

/**
 * The decision of an item whose group admitted and was refunded because another group denied: `after`, the
 * refund's answer (the state as the refund left it, for cost 0), marked not consumed, with the leases and reason of
 * `was` (the consume's decision).
 */
function refunded(after: Decision, was: Decision): Decision {
  return combineDecision(
    after.policies,
    was.reason,
    was.leases === undefined ? undefined : { ...was.leases },
    false,
  );
}

/**
 * The in-process record key of an idempotent check: the domain's length, then the domain, the key and the request's
 * {@link requestFingerprint}. The domain and key may hold any character, NUL included, so a separator alone would
 * let (`a\0x`, `k`) and (`a`, `x\0k`) share a record: a check could replay another domain's answer.
 */
function recordKeyOf(domain: string, idempotencyKey: string, fingerprint: string): string {
  return `${domain.length}:${domain}${fingerprint}${idempotencyKey}`;
}

/**
 * What makes two checks with one idempotency key the same request, as 16 hex digits of a SHA-256: the
 * descriptors' entries, each descriptor's effective cost and each one's limit override (not `nowMs`: a retry may be
 * sent at another time). A key sent again with another request is no retry of the first: it is decided on its own
 * (and counted), never handed the first answer (a caller reusing keys would otherwise be admitted for free, under
 * another identity). The request is normalised first, so that the ways of writing one request fingerprint alike:
 * `cost: 1`, `costs: [1]`, `costs: [undefined]` and no cost at all; `limitOverrides: [undefined]` and none. The text
 * hashed is `[entries, c, null, overrides]` when every descriptor costs `c` (for a request with neither `costs` nor
 * overrides, the text fingerprints have always hashed: a retry across an upgrade still replays), else
 * `[entries, null, [c₀, …], overrides]`; `overrides` is null when no descriptor has one, else one
 * `{ requestsPerUnit, unitMs }` or null per descriptor.
 */
function requestFingerprint(request: CheckRequest): string {
  const descriptors = request.descriptors;
  const n = descriptors.length;
  const costs: number[] = new Array(n);
  let uniform = true;
  for (let i = 0; i < n; i++) {
    costs[i] = costAt(request, i);
    if (costs[i] !== costs[0]) uniform = false;
  }
  let overrides: ({ requestsPerUnit: number; unitMs: number } | null)[] | null = null;
  const given = request.limitOverrides;
  if (given !== undefined) {
    for (let i = 0; i < n; i++) {
      const o = given[i];
      if (o === undefined) continue;
      overrides ??= new Array(n).fill(null);
      overrides[i] = { requestsPerUnit: o.requestsPerUnit, unitMs: o.unitMs };
    }
  }
  const text = JSON.stringify([
    descriptors.map((d) => d.map((e) => [e.key, e.value])),
    uniform ? (n === 0 ? (request.cost ?? 1) : costs[0]) : null,
    uniform ? null : costs,
    overrides,
  ]);
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** `result` with its decision instant: its own (a replay's), else `nowMs` (idempotent checks only). */
function withInstant(result: CheckResult, nowMs: number): CheckResult {
  return result.decidedAtMs === undefined ? { ...result, decidedAtMs: nowMs } : result;
}

// ------------------------------------------------------------------------------ idempotency record sizes
//
// What an in-process idempotency record retains, estimated when it is stored, for the records' `maxBytes`
// (`IdempotencyRecords`). Model: V8's heap on 64 bits without pointer compression (Node's builds): an object is a
// 24 B header plus 8 B a field, a number field not a small integer boxed in 16 B more; an array 48 B plus 8 B an
// element; a string a header (16 to 32 B: flat, or a cons or sliced node) plus 1 B a UTF-16 code unit when all are
// below U+0100 (V8 stores it one byte a character), else 2 B. The estimate is an upper bound of what the record alone
// holds: what it shares with the configuration (rules, their limits and policy names, identity prefixes) and the
// engine's constants (NO_MATCH, NO_LIMIT_DECISION) is not counted, and every constant below rounds its objects up.
// Measured (heap used after a full GC with and without 2000 records, Node 20, examples/sluice.yaml, 200-character
// keys): a record of one descriptor retained ~1.5 KB (estimated ~2.4 KB), of 60 descriptors of 1000-character values
// ~99 KB (~113 KB), of 1000 two-byte characters ~158 KB (~173 KB), of 60 descriptors matching no rule ~1.5 KB
// (~1.8 KB); with a 2-character key and one descriptor matching no rule, ~0.6 KB (~1.1 KB).

/**
 * A record without its result, bytes: its map entry (with the table's slack), the record object, the result object
 * and its boxed numbers, the descriptors array's header, the record key's cons nodes and the fingerprint's slice
 * (with its 64-digit parent). Its key's characters are counted apart ({@link stringBytes}).
 */
const RECORD_BYTES = 1024;
/** An array's objects without its elements, bytes (the array and its backing store's header). */
const ARRAY_BYTES = 48;
/** A string's header, bytes (a flat string's, or a cons or sliced node's): its characters are counted apart. */
const STRING_BYTES = 32;
/** A descriptor result object of its own (not the shared NO_MATCH), with a boxed delay, bytes. */
const DESCRIPTOR_BYTES = 128;
/** A rule match object (`LazyRuleMatch`), bytes; its counter key and identity value are counted apart. */
const MATCH_BYTES = 64;
/**
 * Per entry of a matched descriptor, bytes: the cons nodes of a counter key joined from several entries, or of a
 * normalised path, when no store has flattened it yet (two nodes an entry at most).
 */
const CONS_BYTES_PER_ENTRY = 64;
/** A decision object with its boxed numbers and its policies array's header, bytes. */
const DECISION_BYTES = 224;
/** A policy status object with its boxed numbers and its slot in the policies array, bytes. */
const POLICY_BYTES = 160;
/** A decision's leases object, bytes, plus {@link LEASE_BYTES} per lease. */
const LEASES_BYTES = 64;
/** One lease of a decision's leases (its slot and boxed number), bytes. */
const LEASE_BYTES = 64;
/** A request limit's spec object (`source: "request"`: made for the request, not the configuration's), bytes. */
const SPEC_BYTES = 256;

/** Code units of U+0100 and above: a string holding one takes two bytes a character. */
const TWO_BYTE = /[\u0100-\uffff]/;

/** The bytes of string `s` (see the model above): a header, then 1 B a code unit, or 2 B if any is U+0100 or above. */
function stringBytes(s: string): number {
  return STRING_BYTES + (TWO_BYTE.test(s) ? 2 * s.length : s.length);
}

/** The bytes of an idempotency record holding nothing yet (in flight), under record key `key`. */
function recordBytes(key: string): number {
  return RECORD_BYTES + stringBytes(key);
}

/** The bytes of `d` and what it holds of its own (see the model above); 0 for the shared no-limit decision. */
function decisionBytes(d: Decision): number {
  if (d === NO_LIMIT_DECISION) return 0;
  let bytes = DECISION_BYTES + POLICY_BYTES * d.policies.length;
  const leases = d.leases;
  if (leases !== undefined) bytes += LEASES_BYTES + LEASE_BYTES * Object.keys(leases).length;
  return bytes;
}

/**
 * The bytes `result` (the answer to `request`) adds to its idempotency record (see the model above): its
 * descriptors' own objects and the strings taken from the request (counter keys, identity values), and its
 * combined decision; an upper bound of what the record retains beyond {@link recordBytes}.
 */
function resultBytes(request: CheckRequest, result: CheckResult): number {
  const results = result.descriptors;
  let bytes = 8 * results.length;
  for (let i = 0; i < results.length; i++) {
    const r = results[i];
    if (r === NO_MATCH) continue;
    bytes += DESCRIPTOR_BYTES;
    const m = r.match;
    if (m !== undefined) {
      const counterKey = m.counterKey;
      bytes += MATCH_BYTES + stringBytes(counterKey);
      bytes += CONS_BYTES_PER_ENTRY * (request.descriptors[i]?.length ?? 0);
      const identity = m instanceof LazyRuleMatch ? m.identityValue : m.identity;
      if (identity !== undefined && identity !== counterKey) bytes += stringBytes(identity);
    }
    if (r.decision !== undefined) bytes += decisionBytes(r.decision);
    if (r.source === "request" && Array.isArray(r.limits))
      bytes += ARRAY_BYTES + SPEC_BYTES * r.limits.length;
  }
  // The result's decision: a descriptor's (counted again here), or one combining their statuses (its own object
  // and array; the statuses are the descriptors'), or the shared no-limit one.
  const d = result.decision;
  if (d !== NO_LIMIT_DECISION) bytes += DECISION_BYTES + 8 * d.policies.length;
  return bytes;
}

/** The earlier of two instants, either possibly unknown. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || (b !== undefined && b < a) ? b : a;
}

/** `s` with `%` and `:` percent-encoded: a part of an idempotency record name (see the module comment). */
function escapeRecordPart(s: string): string {
  return /[%:]/.test(s) ? s.replace(/[%:]/g, (ch) => (ch === "%" ? "%25" : "%3A")) : s;
}

/** Items then their traffic counters, as one store call's items. */
function storeItemsOf(items: readonly Item[]): readonly StoreItem[] {
  let rates = 0;
  for (let i = 0; i < items.length; i++) if (items[i].rates !== undefined) rates++;
  if (rates === 0) return items;
  const out: StoreItem[] = [...items];
  for (const it of items) if (it.rates !== undefined) out.push(...it.rates);
  return out;
}

/** Items grouped by the store they go to; one group (the common case) without building a map. */
function groupsOf(items: readonly Item[]): { store: Store; items: Item[] }[] {
  const first = items[0].target;
  let same = true;
  for (let i = 1; i < items.length; i++) if (items[i].target !== first) same = false;
  if (same) return [{ store: first, items: items as Item[] }];
  const m = new Map<Store, Item[]>();
  for (const it of items) {
    const list = m.get(it.target);
    if (list === undefined) m.set(it.target, [it]);
    else list.push(it);
  }
  return [...m].map(([store, list]) => ({ store, items: list }));
}

class SluiceEngine implements Engine {
  readonly store: Store;
  #compiled: CompiledConfig;
  readonly #sync: SyncStore | undefined;
  readonly #ownsStore: boolean;
  /** Whether descriptors count each on its own ({@link Counting} `each`). */
  readonly #each: boolean;
  readonly #clock: Clock;
  readonly #scheduler: Scheduler;
  readonly #idem: IdempotencyRecords<CheckResult>;
  readonly #events = new Emitter<EngineEvents>();
  /** {@link EngineOptions.failure} parsed (defaults filled in), or undefined when not given. */
  readonly #failure: ParsedResilientOptions | undefined;
  readonly #wrappers = new Map<RuleFailurePolicy, FailureStore>();
  #local: MemoryStore | undefined;
  #lastError: { message: string; atMs: number } | undefined;
  #checks = 0;
  /**
   * The rule index of the descriptor {@link SluiceEngine.#soleAt} found, read by the hot path right after it (all
   * in one synchronous run).
   */
  #hit = -1;
  #allowed = 0;
  #delayed = 0;
  #shadowed = 0;
  #replayed = 0;
  #unsharedIdempotent = 0;
  /** Allowed answers given back ({@link EngineStats.refunded}); moved out of `#allowed` and `#delayed`. */
  #refunded = 0;
  /**
   * The answers given to {@link Engine.refund}, each with the indices of its descriptors whose units went back or
   * are on their way: taken at the call, before any store call, and let go again only when that store call
   * rejects. So an answer moves the stats once, and each of its units goes back at most once, even when two
   * refunds of it run at the same time.
   */
  readonly #refunds = new WeakMap<CheckResult, Set<number>>();
  readonly #targetOf = (spec: TargetSpec): { store: Store; sync: SyncStore | undefined } =>
    this.#target(spec);

  constructor(options: EngineOptions) {
    checkOptions("createEngine", "options", options, ENGINE_OPTIONS);
    const given = options.store as Partial<Store> | null | undefined;
    // Checked before the default is filled in: `null` is refused, not taken for "an in-process store".
    if (
      given !== undefined &&
      (given === null || typeof given !== "object" || typeof given.apply !== "function")
    ) {
      throw new InvalidArgumentError(
        `createEngine: store must be a Store (an object with apply()), got ${shown(given)}`,
      );
    }
    const clock = options.clock ?? systemClock;
    checkClock("createEngine", "clock", clock);
    this.#clock = clock;
    const scheduler = options.scheduler ?? systemScheduler;
    checkScheduler("createEngine", "scheduler", scheduler);
    this.#scheduler = scheduler;
    this.#ownsStore = given === undefined;
    this.store = options.store ?? memoryStore();
    this.#sync = isSyncStore(this.store) ? this.store : undefined;
    this.#failure = parseFailureOptions(options.failure);
    const counting = options.counting ?? "all_or_nothing";
    if (counting !== "all_or_nothing" && counting !== "each") {
      throw new InvalidArgumentError(
        `createEngine: counting must be "all_or_nothing" or "each", got ${JSON.stringify(counting)}`,
      );
    }
    this.#each = counting === "each";
    const idem = options.idempotency ?? {};
    checkOptions("createEngine", "idempotency", idem, IDEMPOTENCY_OPTIONS);
    this.#idem = new IdempotencyRecords(
      idem.ttlMs ?? 300_000,
      idem.maxEntries ?? 100_000,
      idem.maxBytes ?? IDEMPOTENCY_MAX_BYTES,
    );
    this.#compiled = compileConfig(options.config, 0, this.#clock.nowMs(), this.#targetOf);
  }

  get config(): SluiceConfig {
    return this.#compiled.config;
  }

  hasDomain(domain: string): boolean {
    return this.#compiled.domains.has(domain);
  }

  get status(): EngineStatus {
    const c = this.#compiled;
    const base = {
      configSource: c.config.source,
      loadedAtMs: c.loadedAtMs,
      configVersion: c.config.version,
      reloads: c.reloads,
    };
    return Object.freeze(this.#lastError === undefined ? base : { ...base, lastError: this.#lastError });
  }

  get failureStores(): ReadonlyMap<RuleFailurePolicy, FailureStore> {
    if (isFailureStore(this.store)) return new Map([[this.store.policy, this.store]]);
    return new Map(this.#wrappers);
  }

  get stats(): EngineStats {
    return Object.freeze({
      checks: this.#checks,
      allowed: this.#allowed,
      denied: this.#checks - this.#allowed - this.#refunded,
      delayed: this.#delayed,
      refunded: this.#refunded,
      shadowed: this.#shadowed,
      replayed: this.#replayed,
      unsharedIdempotent: this.#unsharedIdempotent,
      idempotencyRecords: this.#idem.size,
      idempotencyBytes: this.#idem.bytes,
    });
  }

  on<K extends keyof EngineEvents>(event: K, listener: (e: EngineEvents[K]) => void): () => void {
    return this.#events.on(event, listener);
  }

  off<K extends keyof EngineEvents>(event: K, listener: (e: EngineEvents[K]) => void): void {
    this.#events.off(event, listener);
  }

  updateConfig(config: SluiceConfig): void {
    const atMs = this.#clock.nowMs();
    let next: CompiledConfig;
    try {
      next = compileConfig(config, this.#compiled.reloads + 1, atMs, this.#targetOf);
    } catch (error) {
      this.reportConfigError(error, (config as Partial<SluiceConfig> | null)?.source);
      throw error;
    }
    this.#compiled = next; // the swap: one assignment
    this.#lastError = undefined;
    this.#events.emit("config", {
      configVersion: config.version,
      reloads: next.reloads,
      source: config.source,
      atMs,
    });
  }

  reportConfigError(error: unknown, source?: string): void {
    const atMs = this.#clock.nowMs();
    const message = error instanceof Error ? error.message : String(error);
    this.#lastError = Object.freeze({ message, atMs });
    this.#events.emit("configError", { error, message, source, atMs });
  }

  waitFor(result: CheckResult, signal?: AbortSignal): Promise<void> {
    const ms = result.delayMs;
    return ms > 0 ? this.#scheduler.sleep(ms, signal) : Promise.resolve();
  }

  async close(): Promise<void> {
    const closing: Promise<void>[] = [];
    if (this.#ownsStore) closing.push(this.store.close());
    if (this.#local !== undefined && this.#local !== this.store) closing.push(this.#local.close());
    await Promise.all(closing);
  }

  // ------------------------------------------------------------------------------------------- checks

  check(request: CheckRequest): Promise<CheckResult> {
    // Small, so that V8 can inline it, and `checkSync` inside it, into the caller: the asynchronous store's path is a
    // call of its own. With that path written here, `check` took 253 bytes of bytecode and, in the engine bench's
    // caller, V8's budget for what one function inlines ran out before `checkSync` (--trace-turbo-inlining); at 85
    // bytes both fit. The gain in time is within this machine's process-to-process spread (docs/benchmarks.md).
    if (this.#sync !== undefined) {
      try {
        return Promise.resolve(this.checkSync(request));
      } catch (error) {
        return Promise.reject(asCheckError(error));
      }
    }
    return this.#checkOnStore(request);
  }

  /**
   * {@link SluiceEngine.check} on a store without a synchronous path. Not an `async` function: the hot path's
   * promise is returned as is (an async function would wrap it in one more promise, resolved through a thenable
   * job: two more turns of the microtask queue and ~400 B per check).
   */
  #checkOnStore(request: CheckRequest): Promise<CheckResult> {
    let nowMs: number;
    let c: CompiledConfig;
    try {
      validateRequest("check", request);
      nowMs = request.nowMs ?? this.#clock.nowMs();
      c = this.#compiled;
      if (request.idempotencyKey === undefined && request.limitOverrides === undefined) {
        const at = this.#soleAt(c, request);
        if (at !== SEVERAL) {
          const one = this.#oneAsync(c, request, nowMs, at);
          if (one !== undefined) return one;
        }
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#checkAsync(request, c, nowMs);
  }

  checkSync(request: CheckRequest): CheckResult {
    // Kept small (the rare cases are calls out), so that V8 inlines it into its callers and `check`.
    const sync = this.#sync;
    if (sync === undefined) throw this.#noSyncPath();
    validateRequest("checkSync", request);
    const nowMs = request.nowMs ?? this.#clock.nowMs();
    const c = this.#compiled;
    if (request.idempotencyKey === undefined) return this.#decideSync(sync, c, request, nowMs);
    return this.#checkSyncOnce(sync, c, request, nowMs);
  }

  /** The error of `checkSync` on a store without a synchronous path. */
  #noSyncPath(): SluiceError {
    return new SluiceError(
      "ERR_SLUICE_UNSUPPORTED",
      `checkSync: the ${this.store.name} store has no synchronous path; use check()`,
    );
  }

  /** {@link SluiceEngine.checkSync} of a request with an idempotency key: replayed, or decided once. */
  #checkSyncOnce(sync: SyncStore, c: CompiledConfig, request: CheckRequest, nowMs: number): CheckResult {
    const key = recordKeyOf(request.domain, request.idempotencyKey as string, requestFingerprint(request));
    const rec = this.#idem.get(key, nowMs);
    if (rec?.value !== undefined) return this.#replay(rec.value);
    const result = withInstant(this.#decideSync(sync, c, request, nowMs), nowMs);
    this.#idem.set(key, nowMs, result, recordBytes(key) + resultBytes(request, result));
    return result;
  }

  /** {@link SluiceEngine.check} on an asynchronous store, off the hot path: `request` validated, read at `nowMs`. */
  #checkAsync(request: CheckRequest, c: CompiledConfig, nowMs: number): Promise<CheckResult> {
    const idempotencyKey = request.idempotencyKey;
    if (idempotencyKey === undefined) return this.#decideAsync(c, request, nowMs);
    return this.#checkOnceAsync(c, request, idempotencyKey, nowMs);
  }

  /** {@link SluiceEngine.#checkAsync} of a request with an idempotency key: replayed, or decided once. */
  async #checkOnceAsync(
    c: CompiledConfig,
    request: CheckRequest,
    idempotencyKey: string,
    nowMs: number,
  ): Promise<CheckResult> {
    const fingerprint = requestFingerprint(request);
    const key = recordKeyOf(request.domain, idempotencyKey, fingerprint);
    const rec = this.#idem.get(key, nowMs);
    if (rec !== undefined) return this.#replay(rec.value ?? (await (rec.pending as Promise<CheckResult>)));
    const once = `${escapeRecordPart(request.domain)}:${escapeRecordPart(idempotencyKey)}:${fingerprint}`;
    const pending = this.#decideAsync(c, request, nowMs, once).then((r) => withInstant(r, nowMs));
    const keyBytes = recordBytes(key);
    this.#idem.begin(key, nowMs, pending, keyBytes);
    try {
      const result = await pending;
      this.#idem.settle(key, pending, result, keyBytes + resultBytes(request, result));
      return result;
    } catch (error) {
      this.#idem.drop(key, pending);
      throw error;
    }
  }

  async reset(request: ResetRequest): Promise<ResetResult> {
    validateRequest("reset", {
      domain: (request as Partial<ResetRequest> | null)?.domain,
      descriptors: (request as Partial<ResetRequest> | null)?.descriptors,
      nowMs: (request as Partial<ResetRequest> | null)?.nowMs,
    });
    const nowMs = request.nowMs ?? this.#clock.nowMs();
    const plan = this.#plan(
      this.#compiled,
      { domain: request.domain, descriptors: request.descriptors },
      nowMs,
    );
    const items = [...plan.enforce, ...plan.shadow];
    // `results` has holes where an item is planned: Array.from visits them (map would skip them).
    const descriptors: ResetDescriptorResult[] = Array.from(plan.results, (r) => ({
      rule: r?.match?.rule,
      counters: 0,
    }));
    for (const it of items) descriptors[it.index] = { rule: it.match?.rule, counters: 1 };
    if (items.length === 0) return { counters: 0, descriptors };
    await Promise.all(groupsOf(items).map((g) => g.store.apply(storeItemsOf(g.items), "reset", nowMs)));
    return { counters: items.length, descriptors };
  }

  refund(request: CheckRequest, result: CheckResult): Promise<number> {
    let nowMs: number;
    let plan: Plan;
    let given: Set<number>;
    try {
      validateRequest("refund", request);
      const results = (result as Partial<CheckResult> | null)?.descriptors;
      if (!Array.isArray(results) || results.length !== request.descriptors.length) {
        throw new InvalidArgumentError(
          "refund: result must be the answer to the request's check (one descriptor result per descriptor)",
        );
      }
      given = this.#claimRefund(result);
      if (result.replayed) return Promise.resolve(0);
      nowMs = request.nowMs ?? this.#clock.nowMs();
      plan = this.#plan(this.#compiled, request, nowMs);
    } catch (error) {
      return Promise.reject(error);
    }
    const items: Item[] = [];
    // Shadow descriptors of a denied request were only peeked (counting `each` aside): their `allowed` says nothing.
    const planned =
      plan.shadow.length === 0 || !(result.allowed || this.#each)
        ? plan.enforce
        : [...plan.enforce, ...plan.shadow];
    for (const it of planned) {
      if (given.has(it.index)) continue; // given back already, or by a refund not yet settled
      const r = result.descriptors[it.index];
      const d = r.decision;
      if (d === undefined || !d.allowed || d.reason !== "store" || r.source !== it.source) continue;
      if (
        r.match?.rule.id !== it.match?.rule.id ||
        (it.match !== undefined && r.match?.counterKey !== it.key)
      ) {
        continue;
      }
      if (it.rates !== undefined && it.rs !== undefined && Array.isArray(r.limits)) {
        // The level the check counted at, from the limits it reports (already a level: found again exactly).
        it.entry = it.rs.dynamicEntry(
          it.entry,
          r.limits.map((s) => s.limit),
        );
        it.limits = it.entry.set;
      }
      items.push(it);
    }
    if (items.length === 0) return Promise.resolve(0);
    // Claimed now, synchronously: a refund of the same answer made before these calls settle finds them taken.
    for (const it of items) given.add(it.index);
    const giveBack = (g: { store: Store; items: Item[] }): Promise<unknown> => {
      let call: Promise<unknown>;
      try {
        call = g.store.apply(storeItemsOf(g.items), "refund", nowMs);
      } catch (error) {
        call = Promise.reject(error);
      }
      // A rejected call gave nothing back (a store failure is answered by the failure policy, not rejected): its
      // descriptors may be refunded again. Those of the other stores stay given back.
      return call.then(undefined, (error: unknown) => {
        for (const it of g.items) given.delete(it.index);
        throw error;
      });
    };
    return Promise.all(groupsOf(items).map(giveBack)).then(() => items.length);
  }

  /**
   * The descriptor indices of `result` given back so far ({@link SluiceEngine.#refunds}), registering it at its
   * first refund: then an allowed answer moves from the allowed (and delayed) count to the refunded one, once per
   * answer (see {@link EngineStats.refunded}). A denied answer stays denied; an answer this engine cannot have
   * counted as allowed (more refunds than allowed answers) moves nothing, so no counter goes below 0.
   */
  #claimRefund(result: CheckResult): Set<number> {
    let given = this.#refunds.get(result);
    if (given !== undefined) return given;
    given = new Set();
    this.#refunds.set(result, given);
    if (result.allowed === true && this.#allowed > 0) {
      this.#allowed--;
      this.#refunded++;
      if (result.delayMs > 0 && this.#delayed > 0) this.#delayed--;
    }
    return given;
  }

  /**
   * The replay of `first` from the in-process record, counted as every answer is (see {@link EngineStats}): as a
   * check, allowed and delayed or not, and its shadowed descriptors, as a replay from a store's record is counted.
   */
  #replay(first: CheckResult): CheckResult {
    this.#checks++;
    this.#replayed++;
    if (first.allowed) {
      this.#allowed++;
      if (first.delayMs > 0) this.#delayed++;
    }
    for (const r of first.descriptors) if (r.shadowed) this.#shadowed++;
    const d = first.decision;
    return {
      allowed: first.allowed,
      decision: combineDecision(d.policies, "replay", d.leases, d.allowed),
      descriptors: first.descriptors,
      delayMs: first.delayMs,
      replayed: true,
      decidedAtMs: first.decidedAtMs,
    };
  }

  #decideSync(sync: SyncStore, c: CompiledConfig, request: CheckRequest, nowMs: number): CheckResult {
    if (request.limitOverrides === undefined) {
      const at = this.#soleAt(c, request);
      if (at !== SEVERAL) {
        const one = this.#oneSync(sync, c, request, nowMs, at);
        if (one !== undefined) return one;
      }
    }
    return this.#decideSyncPlanned(sync, c, request, nowMs);
  }

  /** {@link SluiceEngine.#decideSync} off the hot path: every descriptor planned, then counted together. */
  #decideSyncPlanned(sync: SyncStore, c: CompiledConfig, request: CheckRequest, nowMs: number): CheckResult {
    const plan = this.#plan(c, request, nowMs);
    const each = this.#each;
    if (plan.blocked !== undefined && !each) return this.#finish(plan, false);
    if (plan.dynamic) {
      const dyn = this.#dynamicItems(plan);
      const peeks = sync.applySync(this.#rateItems(dyn), "peek", nowMs);
      this.#resolveDynamic(dyn, peeks, nowMs);
    }
    let allowed = plan.blocked === undefined;
    const enforce = plan.enforce;
    if (each) {
      // Counting `each`: every descriptor on its own (its limits still all-or-nothing), whatever the others answer.
      for (const it of enforce) {
        const d = sync.applySync(storeItemsOf([it]), "consume", nowMs)[0];
        it.decision = d;
        if (!d.allowed) allowed = false;
      }
    } else if (enforce.length === 1 && enforce[0].rates === undefined) {
      const it = enforce[0];
      const entry = it.entry;
      entry.consume ??= sync.bindSync(entry.set);
      const d = entry.consume(it.key, it.cost, nowMs);
      it.decision = d;
      allowed = d.allowed;
    } else if (enforce.length > 0) {
      const ds = sync.applySync(storeItemsOf(enforce), "consume", nowMs);
      for (let i = 0; i < enforce.length; i++) {
        enforce[i].decision = ds[i];
        if (!ds[i].allowed) allowed = false;
      }
    }
    const shadow = plan.shadow;
    if (shadow.length > 0) {
      if (allowed || each) {
        for (const it of shadow) {
          it.decision =
            it.rates === undefined
              ? sync.consumeSync(it.limits, it.key, it.cost, nowMs)
              : sync.applySync([it, ...it.rates], "consume", nowMs)[0];
        }
      } else {
        const ds = sync.applySync(shadow, "peek", nowMs);
        for (let i = 0; i < shadow.length; i++) shadow[i].decision = ds[i];
      }
    }
    return this.#finish(plan, allowed);
  }

  /**
   * The hot path: one descriptor whose rule is neither shadow nor dynamic, on a synchronous store — no plan, no
   * item, one bound store call. The rule is found by its position (`find`) and read from its hot record (`HotRule`)
   * alone when it can be (its limits resolved ahead without the identity string, its counter key the caller's
   * value string itself); else from its `RuleState` (`#oneSyncState`). Undefined when the general path must decide
   * (it matches again; those are rare). `at` is {@link SluiceEngine.#soleAt}'s answer (not SEVERAL): the position
   * of the one descriptor that matches a rule (at `#hit`), or NONE_MATCHED; every other descriptor answers NO_MATCH.
   */
  #oneSync(
    sync: SyncStore,
    c: CompiledConfig,
    request: CheckRequest,
    nowMs: number,
    at: number,
  ): CheckResult | undefined {
    if (at === NONE_MATCHED) return this.#answer(noMatches(request), NO_LIMIT_DECISION, true, 0);
    const index = this.#hit;
    const desc = request.descriptors[at];
    const h = c.hotAt[index];
    const mode = h.mode;
    if (mode === HOT_NONE) return this.#oneSyncState(sync, c, request, nowMs, index, at);
    const ii = h.identityIndex;
    if (mode === HOT_BY_TIER) {
      const choices = h.choices;
      if (choices !== undefined) {
        let chooser = h.chooser;
        if (chooser === undefined) {
          chooser =
            sync.bindChoiceSync?.(
              choices.map((e) => e.set),
              h.choose as (key: string) => number,
            ) ?? null;
          h.chooser = chooser;
        }
        if (chooser !== null) {
          const chosen = this.#consumeChosen(request, nowMs, at, h, desc, chooser, choices);
          if (chosen !== undefined) return chosen;
        }
      }
      const tier = (h.tierOf as TierIndex).get(desc[ii].value);
      if (tier !== undefined) {
        const entry = h.tierEntries[tier];
        if (entry === undefined) return this.#oneSyncState(sync, c, request, nowMs, index, at); // unlimited
        return this.#consumeOne(
          sync,
          request,
          nowMs,
          at,
          h.rule,
          this.#hotMatch(h, desc),
          entry,
          entry.source,
        );
      }
    }
    // The rule's own entry (every identity's, or that of the identities in no tier), read from `h` alone.
    const m = this.#hotMatch(h, desc);
    const cost = hotCost(request, at, h.entry as SetEntry, h.rule);
    let consume = h.consume;
    if (consume === undefined) {
      const entry = h.entry as SetEntry;
      consume = entry.consume ?? sync.bindSync(entry.set);
      entry.consume = consume;
      h.consume = consume;
    }
    return this.#countedHot(request, at, h, m, consume(m.counterKey, cost, nowMs));
  }

  /**
   * The asynchronous hot path (a store without a synchronous path, e.g. Redis): one descriptor whose rule is neither
   * shadow nor dynamic, no idempotency key, no limit override — one store call of one item, with none of the
   * general path's plan, groups, `Promise.all` and per-item closures (~2 KB of garbage and ~1 µs less per check).
   * The answer is the general path's ({@link SluiceEngine.#decideAsync} with its `#finish`) for such a request, field
   * for field. Undefined when the general path must decide (a rule that is not `simple`, an unlimited tier).
   */
  #oneAsync(
    c: CompiledConfig,
    request: CheckRequest,
    nowMs: number,
    at: number,
  ): Promise<CheckResult> | undefined {
    if (at === NONE_MATCHED)
      return Promise.resolve(this.#answer(noMatches(request), NO_LIMIT_DECISION, true, 0));
    const index = this.#hit;
    const desc = request.descriptors[at];
    const rs = c.stateAt[index];
    if (!rs.simple) return undefined;
    const h = c.hotAt[index];
    let m: RuleMatch;
    let entry: SetEntry | undefined;
    let source: LimitSource;
    if (h.mode !== HOT_NONE) {
      m = this.#hotMatch(h, desc);
      entry = h.entry as SetEntry;
      source = h.source;
      if (h.mode === HOT_BY_TIER) {
        const tier = (h.tierOf as TierIndex).get(desc[h.identityIndex].value);
        if (tier !== undefined) {
          entry = h.tierEntries[tier];
          if (entry === undefined) return undefined; // an unlimited tier
          source = entry.source;
        }
      }
    } else {
      m = rs.matchOf(desc) ?? c.rules.matchAt(index, desc);
      entry = rs.entryOf(desc);
      if (entry !== undefined) source = entry.source;
      else {
        const res = resolveLimits(c, rs, m, desc, nowMs);
        if (res.entry === undefined) {
          const r = unlimitedResult(m, res.source);
          return Promise.resolve(this.#answer(resultsWith(request, at, r), NO_LIMIT_DECISION, true, 0));
        }
        entry = res.entry;
        source = res.source;
      }
    }
    const cost = hotCost(request, at, entry, rs.rule);
    const e = entry;
    const src = source;
    return rs.target.apply([{ limits: e.set, key: m.counterKey, cost }], "consume", nowMs).then((ds) => {
      let d = ds[0];
      const allowed = d.allowed;
      let delayMs = 0;
      const delay = e.delay;
      if (delay !== undefined) {
        delayMs = delay.waitMs(d, cost);
        d = delay.report(d);
      }
      const r = countedResult(ownAllowed(d), m, e.specs, src, d, delayMs);
      return this.#answer(resultsWith(request, at, r), d, allowed, delayMs);
    });
  }

  /**
   * {@link SluiceEngine.#oneSync} for a rule whose tiers the store chooses (`h.choices`, see
   * `SyncStore.bindChoiceSync`): the identity's tier is read beside its counter instead of looked up, and the result
   * is the one `#consumeOne` gives for the chosen entry. Undefined, with nothing counted, for a fractional cost (which
   * `#consumeOne` checks against the entry).
   */
  #consumeChosen(
    request: CheckRequest,
    nowMs: number,
    at: number,
    h: HotRule,
    desc: Descriptor,
    chooser: ChoiceConsumer,
    choices: readonly SetEntry[],
  ): CheckResult | undefined {
    const cost = costAt(request, at);
    if (!Number.isInteger(cost)) return undefined;
    const m = this.#hotMatch(h, desc);
    const d = chooser.consume(m.counterKey, cost, nowMs);
    const c = chooser.chosen;
    // Choices 0 and 1 (the rule's own entry, the first tier's) are read from their copies in `h`: the common
    // checks read no SetEntry.
    if (c === 0) return this.#countedHot(request, at, h, m, d);
    if (c === 1)
      return this.#counted(request, at, m, h.specs1 as readonly LimitSpec[], h.source1, h.delay1, d);
    const entry = choices[c];
    return this.#counted(request, at, m, entry.specs, entry.source, entry.delay, d);
  }

  /** {@link SluiceEngine.#counted} for the entry of hot record `h` (`h.entry`), from the copies of its fields in `h`. */
  #countedHot(request: CheckRequest, at: number, h: HotRule, m: RuleMatch, d: Decision): CheckResult {
    return this.#counted(request, at, m, h.specs as readonly LimitSpec[], h.source, h.delay, d);
  }

  /** The {@link RuleMatch} of `desc` under hot record `h` (equal to `RuleState.matchOf`). */
  #hotMatch(h: HotRule, desc: Descriptor): RuleMatch {
    const ii = h.identityIndex;
    return new LazyRuleMatch(
      h.rule,
      valueKey(desc[h.keyEntry].value),
      h.identityPrefix,
      ii === -1 ? undefined : desc[ii].value,
    );
  }

  /**
   * Where the hot path can decide `request`: the position of its only descriptor that matches a rule (that rule's
   * index left in `#hit`), NONE_MATCHED when none matches, or SEVERAL when more than one does, or when the config
   * has `replaces` rules and the request several descriptors (the general path decides those). A descriptor that
   * matches no rule answers NO_MATCH on every path, so it keeps no other from the hot path: forward-auth's default
   * templates make three descriptors of a subrequest, of which a configuration usually limits one.
   */
  #soleAt(c: CompiledConfig, request: CheckRequest): number {
    const descriptors = request.descriptors;
    const n = descriptors.length;
    const domain = request.domain;
    if (n === 1) {
      const index = c.rules.find(domain, descriptors[0]);
      this.#hit = index;
      return index === -1 ? NONE_MATCHED : 0;
    }
    if (c.anyReplaces) return SEVERAL;
    let at = NONE_MATCHED;
    for (let i = 0; i < n; i++) {
      const index = c.rules.find(domain, descriptors[i]);
      if (index === -1) continue;
      if (at !== NONE_MATCHED) return SEVERAL;
      at = i;
      this.#hit = index;
    }
    return at;
  }

  /** {@link SluiceEngine.#oneSync} from the rule's `RuleState` (the rule at `index`, which is `simple` or not). */
  #oneSyncState(
    sync: SyncStore,
    c: CompiledConfig,
    request: CheckRequest,
    nowMs: number,
    index: number,
    at: number,
  ): CheckResult | undefined {
    const desc = request.descriptors[at];
    const rs = c.stateAt[index];
    if (!rs.simple) return undefined;
    const m = rs.matchOf(desc) ?? c.rules.matchAt(index, desc);
    let entry = rs.entryOf(desc);
    let source: LimitSource;
    if (entry !== undefined) source = entry.source;
    else {
      const res = resolveLimits(c, rs, m, desc, nowMs);
      if (res.entry === undefined) {
        const r = unlimitedResult(m, res.source);
        return this.#answer(resultsWith(request, at, r), NO_LIMIT_DECISION, true, 0);
      }
      entry = res.entry;
      source = res.source;
    }
    return this.#consumeOne(sync, request, nowMs, at, rs.rule, m, entry, source);
  }

  /** The last step of the hot path: the cost checked, one consume of `entry` under `m`'s counter key, the answer. */
  #consumeOne(
    sync: SyncStore,
    request: CheckRequest,
    nowMs: number,
    at: number,
    rule: Rule,
    m: RuleMatch,
    entry: SetEntry,
    source: LimitSource,
  ): CheckResult {
    const cost = hotCost(request, at, entry, rule);
    let consume = entry.consume;
    if (consume === undefined) {
      consume = sync.bindSync(entry.set);
      entry.consume = consume;
    }
    const d = consume(m.counterKey, cost, nowMs);
    return this.#counted(request, at, m, entry.specs, source, entry.delay, d);
  }

  /** The answer to `request` whose descriptor `at`, matched as `m`, was counted with decision `d` under the limits `specs` (from `source`; `delay`: their `SetEntry.delay`). */
  #counted(
    request: CheckRequest,
    at: number,
    m: RuleMatch,
    specs: readonly LimitSpec[],
    source: LimitSource,
    delay: DelayShape | undefined,
    d: Decision,
  ): CheckResult {
    const allowed = d.allowed;
    if (delay !== undefined) return this.#countedDelay(request, at, m, specs, source, delay, d);
    const r = countedResult(allowed, m, specs, source, d, 0);
    return this.#answer(resultsWith(request, at, r), d, allowed, 0);
  }

  /** {@link SluiceEngine.#counted} for a `delay` rule: the wait, and `d` reported against the configured limits. */
  #countedDelay(
    request: CheckRequest,
    at: number,
    m: RuleMatch,
    specs: readonly LimitSpec[],
    source: LimitSource,
    delay: DelayShape,
    raw: Decision,
  ): CheckResult {
    const allowed = raw.allowed;
    const delayMs = delay.waitMs(raw, costAt(request, at));
    const d = delay.report(raw);
    const r = countedResult(allowed, m, specs, source, d, delayMs);
    return this.#answer(resultsWith(request, at, r), d, allowed, delayMs);
  }

  /**
   * Consumes `items` on `store`: with record name `record`, through the store's `applyOnce` when it has one (see
   * the module comment), else a plain consume (never replayed).
   */
  #consume(
    store: Store,
    items: readonly StoreItem[],
    nowMs: number,
    record: string | undefined,
  ): Promise<OnceResult> {
    if (record === undefined || store.applyOnce === undefined) {
      return store.apply(items, "consume", nowMs).then((decisions) => ({ decisions, replayed: false }));
    }
    const ttlMs = Math.ceil(this.#idem.ttlMs);
    return store.applyOnce(items, nowMs, { key: record, ttlMs }).catch((error: unknown) => {
      if (!(error instanceof SluiceError && error.code === "ERR_SLUICE_UNSUPPORTED")) throw error;
      this.#unsharedIdempotent++;
      return store.apply(items, "consume", nowMs).then((decisions) => ({ decisions, replayed: false }));
    });
  }

  /**
   * Decides `request` on the asynchronous path; `once` (the idempotency record name of the module comment) makes
   * every counting store call idempotent where the store can.
   */
  #decideAsync(c: CompiledConfig, request: CheckRequest, nowMs: number, once?: string): Promise<CheckResult> {
    let plan: Plan;
    try {
      plan = this.#plan(c, request, nowMs);
    } catch (error) {
      return Promise.reject(error);
    }
    // The common case: the counted descriptors on one store, nothing shadowed, no dynamic limit, no idempotency
    // record — one store call, then the answer (what the general path does for it, without its groups, its
    // Promise.all and its async frame).
    const enforce = plan.enforce;
    if (
      once === undefined &&
      plan.blocked === undefined &&
      !plan.dynamic &&
      plan.shadow.length === 0 &&
      enforce.length > 0 &&
      (enforce.length === 1 || !this.#each)
    ) {
      const store = enforce[0].target;
      let one = true;
      for (let i = 1; i < enforce.length; i++) if (enforce[i].target !== store) one = false;
      if (one) {
        return store.apply(storeItemsOf(enforce), "consume", nowMs).then((ds) => {
          let allowed = true;
          for (let i = 0; i < enforce.length; i++) {
            enforce[i].decision = ds[i];
            if (!ds[i].allowed) allowed = false;
          }
          return this.#finish(plan, allowed);
        });
      }
    }
    return this.#decidePlanAsync(plan, nowMs, once);
  }

  /** {@link SluiceEngine.#decideAsync} in general, from the request's plan. */
  async #decidePlanAsync(plan: Plan, nowMs: number, once: string | undefined): Promise<CheckResult> {
    const each = this.#each;
    if (plan.blocked !== undefined && !each) return this.#finish(plan, false);
    if (plan.dynamic) {
      const dyn = this.#dynamicItems(plan);
      const peeks: Decision[] = new Array(dyn.length * 2);
      await Promise.all(
        groupsOf(dyn).map(async (g) => {
          const ds = await g.store.apply(this.#rateItems(g.items), "peek", nowMs);
          g.items.forEach((it, i) => {
            const k = dyn.indexOf(it);
            peeks[2 * k] = ds[2 * i];
            peeks[2 * k + 1] = ds[2 * i + 1];
          });
        }),
      );
      this.#resolveDynamic(dyn, peeks, nowMs);
    }
    let allowed = plan.blocked === undefined;
    // Idempotent calls made and replayed: the check is a replay when every one of them was, decided at the earliest
    // instant its records hold.
    let records = 0;
    let replays = 0;
    let recordedAtMs: number | undefined;
    if (plan.enforce.length > 0) {
      // Counting `each`: one call per descriptor, so each is all-or-nothing on its own.
      const groups = each
        ? plan.enforce.map((it) => ({ store: it.target, items: [it] }))
        : groupsOf(plan.enforce);
      const calls = groups.map((g, k) =>
        this.#consume(g.store, storeItemsOf(g.items), nowMs, once === undefined ? undefined : `${once}:${k}`),
      );
      const answers = await Promise.all(calls);
      const admitted: boolean[] = [];
      groups.forEach((g, k) => {
        let ok = true;
        const ds = answers[k].decisions;
        g.items.forEach((it, i) => {
          it.decision = ds[i];
          if (!ds[i].allowed) ok = false;
        });
        admitted.push(ok);
        if (!ok) allowed = false;
        if (once !== undefined && g.store.applyOnce !== undefined) records++;
        if (answers[k].replayed) {
          replays++;
          recordedAtMs = earliest(recordedAtMs, answers[k].decidedAtMs);
        }
      });
      if (!allowed && groups.length > 1 && !each) {
        const refunds: Promise<unknown>[] = [];
        groups.forEach((g, k) => {
          if (!admitted[k]) return;
          // Not consumed by this answer, replayed or not (a replay answers as the first check did)...
          for (const it of g.items) it.decision = unconsumed(it.decision as Decision);
          // ...but a replayed group's units belong to the first attempt's answer: never given back here.
          if (answers[k].replayed) return;
          refunds.push(
            g.store.apply(storeItemsOf(g.items), "refund", nowMs).then(
              (ds) => {
                // A refund answers as a cost-0 peek of the state it leaves, the numbers the synchronous path reports
                // for an item of a denied call (its state untouched): taken when the refund reached the same path
                // (reason) as the consume, else the consume's numbers stay (a failure policy's stand-in is no state).
                g.items.forEach((it, i) => {
                  const was = it.decision as Decision;
                  if (ds[i] !== undefined && ds[i].reason === was.reason) it.decision = refunded(ds[i], was);
                });
              },
              () => undefined,
            ),
          );
        });
        await Promise.all(refunds);
      }
    }
    const shadow = plan.shadow;
    if (shadow.length > 0) {
      if (allowed || each) {
        const ds = await Promise.all(
          shadow.map((it) =>
            this.#consume(
              it.target,
              it.rates === undefined ? [it] : [it, ...it.rates],
              nowMs,
              once === undefined ? undefined : `${once}:s${it.index}`,
            ),
          ),
        );
        shadow.forEach((it, i) => {
          it.decision = ds[i].decisions[0];
          if (once !== undefined && it.target.applyOnce !== undefined) records++;
          if (ds[i].replayed) {
            replays++;
            recordedAtMs = earliest(recordedAtMs, ds[i].decidedAtMs);
          }
        });
      } else {
        await Promise.all(
          groupsOf(shadow).map(async (g) => {
            const ds = await g.store.apply(g.items, "peek", nowMs);
            g.items.forEach((it, i) => {
              it.decision = ds[i];
            });
          }),
        );
      }
    }
    const result = this.#finish(plan, allowed);
    if (replays === 0 || replays < records) return result;
    this.#replayed++;
    const d = result.decision;
    return {
      ...result,
      decision: combineDecision(d.policies, "replay", d.leases, d.allowed),
      replayed: true,
      decidedAtMs: recordedAtMs,
    };
  }

  // ------------------------------------------------------------------------------------------- planning

  /** Matches every descriptor and picks each counted one's set; touches no store. Throws on bad costs. */
  #plan(c: CompiledConfig, request: CheckRequest, nowMs: number): Plan {
    const descriptors = request.descriptors;
    const n = descriptors.length;
    const domain = request.domain;
    const results: (DescriptorResult | undefined)[] = new Array(n);
    const plan: Plan = {
      results,
      enforce: EMPTY as Item[],
      shadow: EMPTY as Item[],
      dynamic: false,
      blocked: undefined,
      shadowBlocked: 0,
    };
    if (n === 0) return plan;
    const overrides = request.limitOverrides;
    let matches: (RuleMatch | undefined)[] | undefined;
    if (c.anyReplaces && n > 1) {
      matches = new Array(n);
      // A descriptor with its own limit takes no part in `replaces` (its limit has no name, as in Envoy).
      for (let i = 0; i < n; i++)
        matches[i] = overrides?.[i] === undefined ? c.rules.match(domain, descriptors[i]) : undefined;
      this.#applyReplaces(matches, results);
    }
    const costs = request.costs;
    const defaultCost = request.cost ?? 1;
    for (let i = 0; i < n; i++) {
      if (results[i] !== undefined) continue; // replaced
      const own = overrides === undefined ? undefined : overrides[i];
      if (own !== undefined) {
        this.#planRequestLimit(c, plan, request, i, own.requestsPerUnit, own.unitMs);
        continue;
      }
      const m = matches === undefined ? c.rules.match(domain, descriptors[i]) : matches[i];
      if (m === undefined) {
        results[i] = NO_MATCH;
        continue;
      }
      const rule = m.rule;
      const rs = c.states.get(rule) as RuleState;
      if (rs.blockedDecision !== undefined) {
        const shadow = rule.behaviour === "shadow";
        if (shadow) plan.shadowBlocked++;
        else plan.blocked ??= rs.blockedDecision;
        results[i] = {
          code: shadow ? "OK" : "OVER_LIMIT",
          match: m,
          limits: rule.limits,
          source: "rule",
          decision: rs.blockedDecision,
          shadowed: shadow,
          delayMs: 0,
        };
        continue;
      }
      const res = resolveLimits(c, rs, m, descriptors[i], nowMs);
      const entry = res.entry;
      if (entry === undefined) {
        results[i] = unlimitedResult(m, res.source);
        continue;
      }
      // A static-only override's limits are enforced as written: no traffic counters, so never scaled.
      const dynamic = rs.rateCurrent !== undefined && rs.rateTwo !== undefined && !res.staticOnly;
      const cost = costs === undefined ? defaultCost : (costs[i] ?? defaultCost);
      if (!Number.isInteger(cost))
        checkFractional(entry, rule, cost, costs?.[i] === undefined ? "cost" : `costs[${i}]`, dynamic);
      const item = new Item(entry.set, m.counterKey, cost, i, rs.target, rs, entry, res.source, m);
      if (dynamic && rs.rateCurrent !== undefined && rs.rateTwo !== undefined) {
        item.rates = [
          { limits: rs.rateCurrent, key: m.counterKey, cost },
          { limits: rs.rateTwo, key: m.counterKey, cost },
        ];
        plan.dynamic = true;
      }
      if (rule.behaviour === "shadow") {
        if (plan.shadow === EMPTY) plan.shadow = [];
        plan.shadow.push(item);
      } else {
        if (plan.enforce === EMPTY) plan.enforce = [];
        plan.enforce.push(item);
      }
    }
    return plan;
  }

  /**
   * Plans descriptor `i`, which carries its own limit of `requestsPerUnit` per `unitMs` (see the module comment):
   * nothing in a domain without rules, a block for a limit of 0, else an enforcing item under the descriptor's key.
   */
  #planRequestLimit(
    c: CompiledConfig,
    plan: Plan,
    request: CheckRequest,
    i: number,
    requestsPerUnit: number,
    unitMs: number,
  ): void {
    const domain = request.domain;
    if (!c.domains.has(domain)) {
      plan.results[i] = NO_MATCH;
      return;
    }
    const limits = c.requestLimits;
    const own = limits.get(requestsPerUnit, unitMs, `limitOverrides[${i}]`);
    const entry = own.entry;
    if (entry === undefined) {
      const decision = own.blocked as Decision;
      plan.blocked ??= decision;
      plan.results[i] = {
        code: "OVER_LIMIT",
        limits: own.specs,
        source: "request",
        decision,
        shadowed: false,
        delayMs: 0,
      };
      return;
    }
    const costs = request.costs;
    const cost = costs?.[i] ?? request.cost ?? 1;
    if (!Number.isInteger(cost))
      checkFractional(entry, undefined, cost, costs?.[i] === undefined ? "cost" : `costs[${i}]`, false);
    const key = descriptorKey(domain, request.descriptors[i]);
    const item = new Item(entry.set, key, cost, i, limits.target, undefined, entry, "request", undefined);
    if (plan.enforce === EMPTY) plan.enforce = [];
    plan.enforce.push(item);
  }

  /** Envoy's `replaces`: a matched descriptor whose rule another matched rule replaces is not counted. */
  #applyReplaces(
    matches: readonly (RuleMatch | undefined)[],
    results: (DescriptorResult | undefined)[],
  ): void {
    for (let j = 0; j < matches.length; j++) {
      const by = matches[j]?.rule;
      if (by === undefined || by.replaces.length === 0) continue;
      for (let i = 0; i < matches.length; i++) {
        const m = matches[i];
        if (m === undefined || m.rule === by || results[i] !== undefined) continue;
        if (by.replaces.includes(m.rule.id) || by.replaces.includes(m.rule.name)) {
          results[i] = {
            code: "OK",
            match: m,
            limits: undefined,
            shadowed: false,
            delayMs: 0,
            replacedBy: by.id,
          };
        }
      }
    }
  }

  #dynamicItems(plan: Plan): Item[] {
    const out: Item[] = [];
    for (const it of plan.enforce) if (it.rates !== undefined) out.push(it);
    for (const it of plan.shadow) if (it.rates !== undefined) out.push(it);
    return out;
  }

  /** The traffic counters of `items`, peeked with cost 0: [current₀, two₀, current₁, two₁, …]. */
  #rateItems(items: readonly Item[]): StoreItem[] {
    const out: StoreItem[] = [];
    for (const it of items) {
      const [cur, two] = it.rates as StoreItem[];
      out.push({ limits: cur.limits, key: it.key, cost: 0 }, { limits: two.limits, key: it.key, cost: 0 });
    }
    return out;
  }

  /** Sets each dynamic item's set from its peeked traffic counters. */
  #resolveDynamic(items: readonly Item[], peeks: readonly Decision[], nowMs: number): void {
    for (let k = 0; k < items.length; k++) {
      const it = items[k];
      const rs = it.rs;
      const d = rs?.rule.dynamic;
      if (rs === undefined || d === undefined) continue;
      // Counts from each decision's own limit, so a failure policy's answer (a fallback's scaled limit, fail_open's
      // full remaining) reads as its count, and fail_closed's "nothing remaining" as no previous traffic (static).
      const cur = peeks[2 * k];
      const two = peeks[2 * k + 1];
      const current = Math.max(0, cur.limit - cur.remaining);
      const previous = Math.max(0, two.limit - two.remaining - current);
      const w = d.windowMs;
      const elapsed = Math.max(1, nowMs - Math.floor(nowMs / w) * w);
      const specs = it.entry.specs;
      const dyn: number[] = new Array(specs.length);
      for (let i = 0; i < specs.length; i++) {
        const p = specs[i].periodMs;
        dyn[i] = dynamicLimit(specs[i].limit, (current / elapsed) * p, (previous / w) * p, d);
      }
      it.entry = rs.dynamicEntry(it.entry, dyn);
      it.limits = it.entry.set;
    }
  }

  // ------------------------------------------------------------------------------------------- answer

  #finish(plan: Plan, allowed: boolean): CheckResult {
    const results = plan.results;
    let delayMs = 0;
    let head: Decision | undefined;
    let counted = 0;
    let reason: DecisionReason = "store";
    this.#shadowed += plan.shadowBlocked;
    if (plan.blocked !== undefined && !this.#each) {
      // Denied before counting: the other counted descriptors were not evaluated.
      for (const it of plan.enforce) results[it.index] = notEvaluated(it);
      for (const it of plan.shadow) results[it.index] = notEvaluated(it);
      return this.#answer(results as DescriptorResult[], plan.blocked, false, 0);
    }
    for (const it of plan.enforce) {
      let d = it.decision as Decision;
      let delay = 0;
      const shape = it.entry.delay;
      if (shape !== undefined) {
        if (allowed) delay = shape.waitMs(d, it.cost);
        d = shape.report(d);
        it.decision = d; // the combined decision below reads it
      }
      const own = ownAllowed(d);
      if (delay > delayMs) delayMs = delay;
      results[it.index] = itemResult(it, own ? "OK" : "OVER_LIMIT", d, false, delay);
      head = d;
      counted++;
      if (d.reason !== "store" && reason === "store") reason = d.reason;
    }
    for (const it of plan.shadow) {
      const d = it.decision as Decision;
      const own = ownAllowed(d);
      if (!own) this.#shadowed++;
      results[it.index] = itemResult(it, "OK", d, !own, 0);
      if (own) {
        head = d;
        counted++;
        if (d.reason !== "store" && reason === "store") reason = d.reason;
      }
    }
    let decision: Decision;
    const blocked = plan.blocked; // counting `each` only: the others were counted all the same
    if (blocked !== undefined && counted === 0) decision = blocked;
    else if (counted === 0) decision = NO_LIMIT_DECISION;
    else if (counted === 1 && blocked === undefined) decision = head as Decision;
    else {
      const statuses: PolicyStatus[] = blocked === undefined ? [] : [...blocked.policies];
      for (const it of plan.enforce) statuses.push(...(it.decision as Decision).policies);
      for (const it of plan.shadow) {
        const d = it.decision as Decision;
        if (ownAllowed(d)) statuses.push(...d.policies);
      }
      decision = combineDecision(statuses, reason, undefined, allowed);
    }
    return this.#answer(results as DescriptorResult[], decision, allowed, delayMs);
  }

  /** The result, counted in the stats; a denied request has no delay. */
  #answer(
    descriptors: readonly DescriptorResult[],
    decision: Decision,
    allowed: boolean,
    delayMs: number,
  ): CheckResult {
    this.#checks++;
    if (allowed) {
      this.#allowed++;
      if (delayMs > 0) this.#delayed++;
    } else delayMs = 0;
    return { allowed, decision, descriptors, delayMs, replayed: false };
  }

  // ------------------------------------------------------------------------------------------- stores

  /** Where items of a mode and policy go: the in-process store as is, else a failure wrapper of the policy. */
  #target(spec: TargetSpec): { store: Store; sync: SyncStore | undefined } {
    if (this.#sync !== undefined) return { store: this.#sync, sync: this.#sync };
    if (spec.mode === "local") {
      this.#local ??= memoryStore();
      return { store: this.#local, sync: this.#local };
    }
    if (isFailureStore(this.store)) return { store: this.store, sync: undefined };
    let w = this.#wrappers.get(spec.failurePolicy);
    if (w === undefined) {
      const options: ResilientOptions = {
        ...this.#failure,
        onError: spec.failurePolicy,
        clock: this.#clock, // the system clock's stand-in there is a monotonic one (resilient-store.ts)
        scheduler: this.#scheduler,
      };
      // Shards fail one by one: a breaker each (module comment), so a dead node does not cut off the others.
      w =
        this.store instanceof ShardedStore
          ? resilientShardedStore(this.store, options)
          : resilientStore(this.store, options);
      this.#wrappers.set(spec.failurePolicy, w);
    }
    return { store: w, sync: undefined };
  }
}

/** Whether `store` already is a failure wrapper (used as is, under its own policy). */
function isFailureStore(store: Store): store is FailureStore {
  return store instanceof ResilientStore || store instanceof ResilientShardedStore;
}

/**
 * Creates an {@link Engine}; throws `ConfigError` when the configuration cannot be enforced, and
 * `ERR_SLUICE_INVALID_ARGUMENT` naming an unknown option or a bad value of one.
 */
export function createEngine(options: EngineOptions): Engine {
  return new SluiceEngine(options);
}

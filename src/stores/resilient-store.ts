/**
 * Failure handling for any store (DESIGN §4, §7): a per-call timeout, a circuit breaker, and a failure policy
 * that turns an unreachable store into decisions instead of errors.
 *
 * - **Timeout** — every call to the inner store gets `timeoutMs`; a call not answered by then counts as a
 *   failure, and its late answer (or late error) is ignored. The deadlines share one timer on the injected
 *   {@link Scheduler} (see {@link DeadlineQueue}): every call has the same timeout, so deadlines fall in the
 *   order calls are issued, and one timer armed for the oldest unanswered call serves them all, instead of a
 *   timer, an `AbortController` and a `Promise.race` per call (about a tenth of the CPU of a Redis-backed check).
 * - **Local overload** — a call that times out while still queued in this process (`CallTicket.queued`, set by the
 *   Redis store's batching), or that left the queue only once its deadline had passed, never had a chance at the
 *   store: this process is behind (its event loop was held up, or calls arrive faster than it sends them). The
 *   policy answers it, and it is counted in `queueTimeouts`, not as a
 *   failure. It still counts toward opening the breaker, because only the breaker's cheap path (no queue, no
 *   deadline, no script call) lets a process that is behind catch up; but when every call of the run that opens it
 *   was such a timeout, the breaker opens for `min(openMs, timeoutMs)` instead of `openMs`: the store is healthy,
 *   and its calls resume as soon as this process has caught up. Measured with an open loop of 235 k decisions/s
 *   on one CPU against a local Redis, and one 60 ms stall of the client's event loop: of the 352 k decisions of
 *   the 1.5 s from the stall, the fallback answered 262–279 k when these timeouts opened the breaker for `openMs`
 *   (the stall cut a healthy store off for over a second), and 54–95 k now; counting them as nothing instead, the
 *   process never caught up (every call queued, timed out and answered by the fallback, with collections of
 *   0.4–2 s, for as long as the load lasted).
 * - **Circuit breaker** — `closed` until `breaker.failures` consecutive failures, then `open`: calls go
 *   straight to the policy without touching the inner store. The first call at least `breaker.openMs` later
 *   (on `clock`, by default a monotonic one: a wall clock set back would keep the breaker open that much longer)
 *   is let through as the single `half_open` probe: success closes the breaker, failure re-opens it for another
 *   `openMs`. Outcomes of calls issued before the last state change are counted in the stats but do not move the
 *   breaker. So a store that comes back gets traffic again within `openMs` (plus one probe). A call that gives
 *   the inner store nothing to do (no items; a release of no lease) says nothing of its health: it goes straight
 *   to the inner store (which checks it), never counted, short-circuited or taken as the probe.
 * - **Policy** (`onError`) — what a failed or short-circuited call answers:
 *   - `fail_open`: allowed, `remaining = limit`, reason `fail_open` (availability over protection);
 *   - `fail_closed`: denied, `state: "throttled"`, `retryAfterMs` until the breaker's next probe (or the
 *     timeout while it is closed), reason `fail_closed` (protection over availability);
 *   - `fallback` (the default): decided by a private in-process {@link MemoryStore} holding the same limits
 *     scaled by `fallbackShare`, reason `fallback`. It keeps limiting during an outage, only per instance:
 *     with N instances behind a shared store, `fallbackShare: 1 / N` keeps the fleet near the global limit.
 *     This is the default because neither extreme is a safe surprise: failing open removes protection exactly
 *     when a dependency is in trouble, and failing closed turns a Redis outage into a full API outage.
 *
 * Operations: `consume`, `peek` and `refund` follow the policy (the fallback store gets the refund). `reset`
 * is an administrative write no policy can stand in for: it resets the local fallback state and then rejects
 * with `ERR_SLUICE_STORE_UNAVAILABLE`, so the caller learns it did not reach the shared store. `release`
 * never throws for a dead store: it is counted and dropped (a lease expires on its own). A lease the fallback
 * store granted is handed out with its id negated, and a release goes by the sign: a negative id to the fallback
 * store (negated back), a positive one to the inner store. Both stores seed lease ids from the clock, so the same
 * key's leases from the two, taken in the same millisecond, share an id; sent to both, the release of one freed
 * the other's holder too (a timeout answered by the fallback while other calls reached the store is enough).
 *
 * Idempotent consumes (`applyOnce`, offered when the inner store offers it) pass the same timeout and breaker; a
 * failed one is answered by the policy as a consume, `replayed: false` (the shared record was not reached: the
 * caller's own in-process record is all that remains). `ERR_SLUICE_UNSUPPORTED` (a call the inner store cannot
 * record atomically) is a caller error and is rethrown untouched. The inner store's idempotency ledger
 * (`onceLedger`, offered when it offers one: records held apart from decisions, for a consume spread over shards)
 * passes the same timeout and breaker too; a ledger call that fails, times out or is short-circuited rejects (no
 * policy can stand in for a record), and its caller decides without the record (`resilient-sharded-store.ts`).
 *
 * Caller errors (`ERR_SLUICE_INVALID_*`, `ERR_SLUICE_UNSUPPORTED`, `ERR_SLUICE_UNKNOWN_LEASE`,
 * `ERR_SLUICE_STORE_CLOSED`) are rethrown untouched and never count as store failures.
 *
 * A consume that timed out may still have been applied by the inner store: the request is then counted both
 * there and by the policy. That is inherent to timeouts once the call has left the process; the fallback share
 * bounds the excess. A call that has not left it when it times out is not applied: each call's deadline entry is
 * passed to the inner store's `applyTo` as its `CallTicket` (store.ts), and a store that queues calls (the Redis
 * store's batching) drops the settled ones unsent, so a backlog built during a stall is shed, not replayed.
 */
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import { checkClock, checkOptions, checkScheduler, shown } from "../core/arguments.js";
import { type Clock, monotonicClock, type Scheduler, systemClock, systemScheduler } from "../core/clock.js";
import { combineDecision, type Decision, type PolicyStatus } from "../core/decision.js";
import {
  InvalidArgumentError,
  SluiceError,
  StoreTimeoutError,
  StoreUnavailableError,
} from "../core/errors.js";
import { type AlgorithmId, type LimitSpec, type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { DeadlineQueue, type PendingCall } from "./deadline-queue.js";
import { MemoryStore } from "./memory/memory-store.js";
import {
  type CallTicket,
  hasOnceLedger,
  type IdempotencyClaim,
  type OnceLedger,
  type OnceResult,
  type Store,
  type StoreItem,
  type StoreOp,
} from "./store.js";

/** The longest delay a timer can wait (Node runs a longer one after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a call answers when the store fails, times out, or the breaker is open. */
export type FailurePolicy = "fail_open" | "fail_closed" | "fallback";

/** The circuit breaker's state. */
export type BreakerState = "closed" | "open" | "half_open";

/** Circuit breaker settings of {@link ResilientOptions}. */
export interface BreakerOptions {
  /** Consecutive failures that open the breaker. @default 5 */
  readonly failures?: number;
  /** How long the breaker stays open before one probe is let through, in milliseconds. @default 1000 */
  readonly openMs?: number;
}

/** A change of the breaker's state, reported to {@link ResilientOptions.onStateChange}. */
export interface BreakerStateChange {
  /** State before the change. */
  readonly from: BreakerState;
  /** State after the change. */
  readonly to: BreakerState;
  /** When it changed: epoch ms (the system clock), or on `ResilientOptions.clock` when one is given. */
  readonly atMs: number;
  /** The failure that opened (or re-opened) the breaker, when `to` is `open` because of one. */
  readonly error?: unknown;
  /** The shard whose breaker changed, when the wrapper guards one shard of a sharded store. */
  readonly shard?: string;
}

/** Options of {@link resilientStore}. */
export interface ResilientOptions {
  /** What to answer when the store is unavailable; see the module comment for why. @default "fallback" */
  readonly onError?: FailurePolicy;
  /**
   * Share of each limit (and burst) the local fallback enforces, in (0, 1]: set it to 1 / (expected
   * instances). Counting algorithms round down, never below 1. @default 1
   */
  readonly fallbackShare?: number;
  /** Most keys the local fallback store holds (allocated on first use). @default 100_000 */
  readonly fallbackCapacity?: number;
  /** Longest wait for the inner store per call, in milliseconds (`Infinity`: no timeout). @default 50 */
  readonly timeoutMs?: number;
  /** Circuit breaker settings. @default { failures: 5, openMs: 1000 } */
  readonly breaker?: BreakerOptions;
  /**
   * Clock the breaker measures `openMs` with (and stamps its state changes with). @default monotonicClock (also
   * used when this is `systemClock`, a wall clock that may be set back)
   */
  readonly clock?: Clock;
  /** Scheduler the timeout sleeps on. @default systemScheduler */
  readonly scheduler?: Scheduler;
  /** Called on every breaker state change (for logs and metrics); exceptions it throws are ignored. */
  readonly onStateChange?: (change: BreakerStateChange) => void;
}

/** Counters of a {@link ResilientStore}, since it was created. */
export interface ResilientStats {
  /** The breaker's state now. */
  readonly state: BreakerState;
  /** Calls (apply and release) that reached the inner store. */
  readonly storeCalls: number;
  /** Calls to the inner store that failed, timeouts included. */
  readonly failures: number;
  /** Calls to the inner store that did not answer within `timeoutMs`. */
  readonly timeouts: number;
  /**
   * Calls that timed out still queued in this process, never sent to the inner store (`CallTicket.queued`): answered
   * by the policy; neither failures nor timeouts of the store (see "Local overload" in the module comment).
   */
  readonly queueTimeouts: number;
  /** Decisions answered by `fail_open`. */
  readonly failOpen: number;
  /** Decisions answered by `fail_closed`. */
  readonly failClosed: number;
  /** Decisions answered by the local fallback store. */
  readonly fallback: number;
  /** Transitions to `open` (first openings and re-openings after a failed probe). */
  readonly breakerOpened: number;
  /** Calls that did not reach the inner store because the breaker was open (or a probe was in flight). */
  readonly shortCircuited: number;
  /** Releases that did not reach the inner store (failed, timed out, or short-circuited); leases expire. */
  readonly releasesDropped: number;
}

/** The defaults of {@link ResilientOptions}. */
export const RESILIENT_DEFAULTS = Object.freeze({
  onError: "fallback" as FailurePolicy,
  fallbackShare: 1,
  fallbackCapacity: 100_000,
  timeoutMs: 50,
  failures: 5,
  openMs: 1000,
});

const POLICIES: ReadonlySet<string> = new Set<FailurePolicy>(["fail_open", "fail_closed", "fallback"]);
const RATE_ALGORITHMS: ReadonlySet<AlgorithmId> = new Set(["token_bucket", "leaky_bucket", "gcra"]);
const CALLER_CODES: ReadonlySet<string> = new Set([
  "ERR_SLUICE_UNSUPPORTED",
  "ERR_SLUICE_UNKNOWN_LEASE",
  "ERR_SLUICE_STORE_CLOSED",
]);

/** Whether `error` is the caller's fault (bad input, misuse) rather than a store failure. */
export function isCallerError(error: unknown): boolean {
  if (error instanceof InvalidArgumentError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("ERR_SLUICE_INVALID_") || CALLER_CODES.has(code));
}

/** Whether `items` is an empty array: a call with nothing for the inner store to do (a non-array is its to refuse). */
function isEmpty(items: readonly StoreItem[]): boolean {
  return Array.isArray(items) && items.length === 0;
}

/**
 * Whether `leases` names a lease of one of `limits`' policies (an id other than 0; a bad one is the inner store's
 * to refuse): else a release has nothing to free (a grant made by the policy holds no lease), and the inner store
 * only checks its arguments.
 */
function holdsLease(limits: LimitSet, leases: Readonly<Record<string, number>>): boolean {
  if (leases === null || typeof leases !== "object" || !Array.isArray(limits?.specs)) return true; // its to refuse
  return limits.specs.some((s) => {
    const id = leases[s.name];
    return id !== undefined && id !== 0;
  });
}

/**
 * `leases` split by where each lease lives (see the module comment): `local`, the fallback store's (negative ids,
 * negated back), or undefined when none is; `inner`, every other entry as given (the inner store checks them).
 */
function splitLeases(leases: Readonly<Record<string, number>>): {
  local: Record<string, number> | undefined;
  inner: Readonly<Record<string, number>>;
} {
  if (leases === null || typeof leases !== "object") return { local: undefined, inner: leases };
  let local: Record<string, number> | undefined;
  let inner: Record<string, number> | undefined;
  for (const name of Object.keys(leases)) {
    const id = leases[name];
    if (typeof id === "number" && id < 0) {
      local ??= {};
      local[name] = -id;
      inner ??= { ...leases };
      delete inner[name];
    }
  }
  return { local, inner: inner ?? leases };
}

/** `leases` (the fallback store's) with every id negated: the form the caller holds (see the module comment). */
function negated(leases: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(leases)) out[name] = leases[name] > 0 ? -leases[name] : leases[name];
  return out;
}

/** The keys {@link ResilientOptions} accepts. */
const RESILIENT_KEYS: readonly string[] = [
  "onError",
  "fallbackShare",
  "fallbackCapacity",
  "timeoutMs",
  "breaker",
  "clock",
  "scheduler",
  "onStateChange",
];
/** The keys {@link BreakerOptions} accepts. */
const BREAKER_KEYS: readonly string[] = ["failures", "openMs"];

/** {@link ResilientOptions} checked and defaulted (frozen); `clock` stays undefined when not given. */
export interface ParsedResilientOptions {
  /** What a failed, timed-out or short-circuited call answers. */
  readonly onError: FailurePolicy;
  /** Share of each limit the local fallback enforces, in (0, 1]. */
  readonly fallbackShare: number;
  /** Most keys the local fallback store holds. */
  readonly fallbackCapacity: number;
  /** Longest wait for the inner store per call, ms, in (0, 2^31 − 1] or Infinity. */
  readonly timeoutMs: number;
  /** Consecutive failures that open the breaker (≥ 1), and how long it stays open, ms (finite, > 0). */
  readonly breaker: { readonly failures: number; readonly openMs: number };
  /** The breaker's clock as given (the constructor picks the monotonic clock for none or the system clock). */
  readonly clock: Clock | undefined;
  /** Scheduler the timeout sleeps on. */
  readonly scheduler: Scheduler;
  /** Told of every breaker state change. */
  readonly onStateChange: ((change: BreakerStateChange) => void) | undefined;
}

/**
 * Checks and defaults the {@link ResilientOptions} `options` given to `method` as `field` (`options`, or `failure`
 * of `createLimiter`): throws `ERR_SLUICE_INVALID_ARGUMENT` naming the method and the field of an unknown key
 * (`failure.timeoutMss`) or a bad value, whichever store the options are for.
 */
export function parseResilientOptions(
  method: string,
  field: string,
  options: unknown,
): ParsedResilientOptions {
  checkOptions(method, field, options, RESILIENT_KEYS);
  const at = field === "options" ? "" : `${field}.`;
  const fail = (message: string): never => {
    throw new InvalidArgumentError(`${method}: ${at}${message}`);
  };
  const o = options as ResilientOptions;
  const policy = o.onError ?? RESILIENT_DEFAULTS.onError;
  if (!POLICIES.has(policy)) {
    fail(`onError must be one of fail_open, fail_closed, fallback, got ${shown(policy)}`);
  }
  const share = o.fallbackShare ?? RESILIENT_DEFAULTS.fallbackShare;
  if (!(typeof share === "number" && share > 0 && share <= 1)) {
    fail(`fallbackShare must be a number in (0, 1], got ${shown(share)}`);
  }
  const capacity = o.fallbackCapacity ?? RESILIENT_DEFAULTS.fallbackCapacity;
  if (!(Number.isInteger(capacity) && capacity >= 1 && capacity <= 2 ** 30)) {
    fail(`fallbackCapacity must be a whole number from 1 to 2^30, got ${shown(capacity)}`);
  }
  const timeoutMs = o.timeoutMs ?? RESILIENT_DEFAULTS.timeoutMs;
  // A timer cannot wait longer than 2^31 − 1 ms (Node fires it after 1 ms instead): every call would time out.
  if (
    !(typeof timeoutMs === "number" && timeoutMs > 0 && (timeoutMs <= MAX_TIMER_MS || timeoutMs === Infinity))
  ) {
    fail(
      `timeoutMs must be a number of milliseconds > 0 and at most ${MAX_TIMER_MS} (or Infinity: no timeout), got ${shown(timeoutMs)}`,
    );
  }
  const breaker: BreakerOptions = o.breaker === undefined ? {} : o.breaker;
  checkOptions(method, `${at}breaker`, breaker, BREAKER_KEYS);
  const failures = breaker.failures ?? RESILIENT_DEFAULTS.failures;
  if (!(Number.isInteger(failures) && failures >= 1)) {
    fail(`breaker.failures must be a whole number >= 1, got ${shown(failures)}`);
  }
  const openMs = breaker.openMs ?? RESILIENT_DEFAULTS.openMs;
  if (!(typeof openMs === "number" && Number.isFinite(openMs) && openMs > 0)) {
    fail(`breaker.openMs must be a finite number of milliseconds > 0, got ${shown(openMs)}`);
  }
  if (o.clock !== undefined) checkClock(method, `${at}clock`, o.clock);
  const scheduler = o.scheduler ?? systemScheduler;
  checkScheduler(method, `${at}scheduler`, scheduler);
  if (o.onStateChange !== undefined && typeof o.onStateChange !== "function") {
    fail(`onStateChange must be a function, got ${shown(o.onStateChange)}`);
  }
  return Object.freeze({
    onError: policy,
    fallbackShare: share,
    fallbackCapacity: capacity,
    timeoutMs,
    breaker: Object.freeze({ failures, openMs }),
    clock: o.clock,
    scheduler,
    onStateChange: o.onStateChange,
  });
}

/** How a call passes the breaker: short-circuited to the policy, sent normally, or sent as the probe. */
const Gate = { Short: 0, Normal: 1, Probe: 2 } as const;
type Gate = (typeof Gate)[keyof typeof Gate];

/** The counters of {@link ResilientStats} (every field but `state`), mutable. */
export interface ResilientCounters {
  storeCalls: number;
  failures: number;
  timeouts: number;
  queueTimeouts: number;
  failOpen: number;
  failClosed: number;
  fallback: number;
  breakerOpened: number;
  shortCircuited: number;
  releasesDropped: number;
}

/** A fresh set of {@link ResilientCounters}, all 0. */
export function zeroCounters(): ResilientCounters {
  return {
    storeCalls: 0,
    failures: 0,
    timeouts: 0,
    queueTimeouts: 0,
    failOpen: 0,
    failClosed: 0,
    fallback: 0,
    breakerOpened: 0,
    shortCircuited: 0,
    releasesDropped: 0,
  };
}

/** A {@link Store} wrapped with a timeout, a circuit breaker and a failure policy; see the module comment. */
export class ResilientStore implements Store {
  /** The inner store's name, so logs and metrics keep naming the real backend. */
  readonly name: string;
  /** Whether the inner store is shared. */
  readonly shared: boolean;
  /** The wrapped store. */
  readonly inner: Store;
  /** {@link Store.applyOnce} through the timeout, breaker and policy; present when `inner` offers it. */
  readonly applyOnce?: (
    items: readonly StoreItem[],
    nowMs: number,
    once: IdempotencyClaim,
  ) => Promise<OnceResult>;
  /** The inner store's idempotency ledger through the timeout and breaker; present when `inner` offers one. */
  readonly onceLedger?: (items: readonly StoreItem[], once: IdempotencyClaim) => OnceLedger;
  readonly #policy: FailurePolicy;
  readonly #share: number;
  readonly #fallbackCapacity: number;
  readonly #timeoutMs: number;
  /**
   * The error of every timed-out call: one instance, since it never reaches the caller (the policy answers; only a
   * `reset` quotes its message, and `release` drops it) and a timeout often strikes every call in flight at once,
   * where an `Error` per call (its stack trace: ~2.5 µs) would cost more than the policy's answers.
   */
  readonly #timeoutError: StoreTimeoutError;
  /** The timeout of a call that never left this process (see "Local overload" in the module comment). */
  readonly #queueTimeoutError: StoreTimeoutError;
  readonly #failureThreshold: number;
  readonly #openMs: number;
  readonly #clock: Clock;
  /** Stamps state changes: `clock` when given, else the epoch clock (the breaker times on a monotonic one). */
  readonly #stampClock: Clock;
  /** The calls' deadlines; undefined when `timeoutMs` is infinite. */
  readonly #deadlines: DeadlineQueue | undefined;
  readonly #onStateChange: ((change: BreakerStateChange) => void) | undefined;
  readonly #fallbackSets = new WeakMap<LimitSet, LimitSet>();
  #fallbackStore: MemoryStore | undefined;
  #state: BreakerState = "closed";
  /** Incremented on every state change; outcomes of calls from an older epoch do not move the breaker. */
  #epoch = 0;
  #consecutive = 0;
  /** Failures among the `#consecutive` ones that were the store's (not timeouts of calls still queued here). */
  #consecutiveStore = 0;
  #nextProbeAtMs = 0;
  #closed = false;
  /**
   * Calls under a deadline not answered yet (each is by its deadline at the latest, through the policy): `close`
   * waits for them before it closes the fallback store.
   */
  #timedInFlight = 0;
  /** Called when {@link ResilientStore.#timedInFlight} drops to 0 while `close` waits. */
  #onDrained: (() => void) | undefined = undefined;
  readonly #n: ResilientCounters = zeroCounters();

  /** Wraps `inner`; throws `ERR_SLUICE_INVALID_ARGUMENT` naming any bad option. */
  constructor(inner: Store, options: ResilientOptions = {}) {
    if (inner === null || typeof inner !== "object" || typeof inner.apply !== "function") {
      throw new InvalidArgumentError("resilientStore: inner must be a Store");
    }
    const o = parseResilientOptions("resilientStore", "options", options);
    const { onError: policy, fallbackShare: share, fallbackCapacity: capacity, timeoutMs } = o;
    const { failures, openMs } = o.breaker;
    this.inner = inner;
    this.name = inner.name;
    this.shared = inner.shared;
    this.#policy = policy;
    this.#share = share;
    this.#fallbackCapacity = capacity;
    this.#timeoutMs = timeoutMs;
    this.#timeoutError = new StoreTimeoutError(this.name, timeoutMs);
    this.#queueTimeoutError = new StoreTimeoutError(this.name, timeoutMs, true);
    this.#failureThreshold = failures;
    this.#openMs = openMs;
    // The system clock is a wall clock, which may be set back: the breaker times on a monotonic one instead.
    this.#clock = o.clock === undefined || o.clock === systemClock ? monotonicClock : o.clock;
    this.#stampClock = o.clock ?? systemClock;
    this.#deadlines =
      timeoutMs === Number.POSITIVE_INFINITY ? undefined : new DeadlineQueue(timeoutMs, o.scheduler);
    this.#onStateChange = o.onStateChange;
    if (typeof inner.applyOnce === "function") {
      this.applyOnce = (items, nowMs, once) => this.#applyOnce(items, nowMs, once);
    }
    if (hasOnceLedger(inner)) {
      this.onceLedger = (items, once) => this.#guardedLedger(inner.onceLedger(items, once));
    }
  }

  /** `ledger` with each call through the timeout and breaker: a failure is counted, then rethrown. */
  #guardedLedger(ledger: OnceLedger): OnceLedger {
    return {
      claim: (token, claimTtlMs) => this.#ledgerCall(() => ledger.claim(token, claimTtlMs)),
      record: (token, decisions, decidedAtMs) =>
        this.#ledgerCall(() => ledger.record(token, decisions, decidedAtMs)),
      abandon: (token) => this.#ledgerCall(() => ledger.abandon(token)),
    };
  }

  /**
   * One ledger call through the breaker and the timeout, as any call to the inner store, except that a failed or
   * short-circuited one rejects (`ERR_SLUICE_STORE_UNAVAILABLE` for the breaker) instead of taking the policy.
   */
  #ledgerCall<T>(call: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(closedError(this.name));
    const gate = this.#admit();
    if (gate === Gate.Short) {
      this.#n.shortCircuited++;
      return Promise.reject(new StoreUnavailableError(this.name, "circuit breaker open"));
    }
    const epoch = this.#epoch;
    const probe = gate === Gate.Probe;
    return this.#timed(call).then(
      (value) => {
        this.#succeeded(epoch, probe);
        return value;
      },
      (error: unknown) => {
        if (isCallerError(error)) this.#neutral(epoch, probe);
        else this.#failed(epoch, probe, error);
        throw error;
      },
    );
  }

  /**
   * The failure policy's answer to a consume of `items`, without calling the inner store, as for a call it did not
   * answer (counted in the stats as such): for a caller that could not reach the store another way (a spread
   * idempotent consume whose wait for another caller's claim ran out).
   */
  consumeByPolicy(items: readonly StoreItem[], nowMs: number): Decision[] {
    if (this.#closed) throw closedError(this.name);
    return this.#answer(items, "consume", nowMs, BREAKER_OPEN);
  }

  /** See {@link ResilientStore.applyOnce}: the inner store's, or the policy's answer (never replayed). */
  #applyOnce(items: readonly StoreItem[], nowMs: number, once: IdempotencyClaim): Promise<OnceResult> {
    if (this.#closed) return Promise.reject(closedError(this.name));
    if (isEmpty(items))
      return this.#noWork(this.#innerOnce(items, nowMs, once), { decisions: [], replayed: false });
    const gate = this.#admit();
    if (gate === Gate.Short) {
      this.#n.shortCircuited++;
      try {
        return Promise.resolve({
          decisions: this.#answer(items, "consume", nowMs, BREAKER_OPEN),
          replayed: false,
        });
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const epoch = this.#epoch;
    const probe = gate === Gate.Probe;
    const inner = this.inner;
    return this.#timed((ticket) =>
      (inner.applyOnce as NonNullable<Store["applyOnce"]>)(items, nowMs, once, ticket),
    ).then(
      (result) => {
        this.#succeeded(epoch, probe);
        return result;
      },
      (error: unknown) => {
        if (isCallerError(error)) {
          this.#neutral(epoch, probe);
          throw error;
        }
        this.#failed(epoch, probe, error);
        return { decisions: this.#answer(items, "consume", nowMs, error), replayed: false };
      },
    );
  }

  /** What a failed, timed-out or short-circuited call answers (`onError`). */
  get policy(): FailurePolicy {
    return this.#policy;
  }

  /** The breaker's state; `open` turns `half_open` on the first call at least `openMs` after it opened. */
  get state(): BreakerState {
    return this.#state;
  }

  /** A snapshot of the counters and the breaker state. */
  get stats(): ResilientStats {
    return Object.freeze({ state: this.#state, ...this.#n });
  }

  /** Applies `op` on the inner store, or by the failure policy when it fails, times out or is cut off. */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    if (this.#closed) return Promise.reject(closedError(this.name));
    if (isEmpty(items)) return this.#noWork(this.#innerApply(items, op, nowMs), []);
    const gate = this.#admit();
    if (gate === Gate.Short) {
      this.#n.shortCircuited++;
      try {
        return Promise.resolve(this.#answer(items, op, nowMs, BREAKER_OPEN));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const epoch = this.#epoch;
    const probe = gate === Gate.Probe;
    this.#n.storeCalls++;
    // The answer, or the policy's: one settlement layer over the inner call (the deadline's and the policy's in
    // one), not a timed promise and then a `.then` on it — a promise, a reaction and four closures less per call;
    // and through the inner store's callbacks when it has them (`applyTo`), not through a promise of its own.
    const succeeded = (decisions: Decision[]): Decision[] => {
      this.#succeeded(epoch, probe);
      if (op === "reset" && this.#fallbackStore !== undefined) {
        this.#fallbackStore.applySync(this.#fallbackItems(items), "reset", nowMs);
      }
      return decisions;
    };
    const failed = (error: unknown): Decision[] => {
      if (isCallerError(error)) {
        this.#neutral(epoch, probe);
        throw error;
      }
      this.#failed(epoch, probe, error);
      return this.#answer(items, op, nowMs, error);
    };
    const inner = this.inner;
    const deadlines = this.#deadlines;
    if (deadlines === undefined && inner.applyTo === undefined)
      return this.#innerApply(items, op, nowMs).then(succeeded, failed);
    if (deadlines !== undefined) this.#timedInFlight++;
    return new Promise<Decision[]>((resolve, reject) => {
      // Called once per call (every caller is guarded by the deadline's settle, or there is no deadline).
      const settle = (outcome: (value: never) => Decision[], value: unknown): void => {
        try {
          resolve(outcome(value as never));
        } catch (error) {
          reject(error);
        }
        if (deadlines !== undefined) this.#timedSettled();
      };
      const pending =
        deadlines === undefined
          ? undefined
          : deadlines.add(() => {
              settle(failed, (pending as PendingCall).unsent ? this.#queueTimeoutError : this.#timeoutError);
            });
      // Either way, a late answer or failure after the timeout is dropped (and never left unhandled).
      const onDecisions = (decisions: Decision[]): void => {
        if (pending === undefined || (deadlines as DeadlineQueue).settle(pending))
          settle(succeeded, decisions);
      };
      const onError = (error: unknown): void => {
        if (pending === undefined || (deadlines as DeadlineQueue).settle(pending)) settle(failed, error);
      };
      if (inner.applyTo === undefined) this.#innerApply(items, op, nowMs).then(onDecisions, onError);
      else {
        try {
          // The deadline entry is the call's ticket: once it times out, a store still holding the call unsent
          // drops it (not applying a request the policy answered, not spending the store's time on it).
          inner.applyTo(items, op, nowMs, onDecisions, onError, pending);
        } catch (error) {
          onError(error); // a store breaking its contract: still one answer
        }
      }
    });
  }

  /**
   * The outcome of an inner call with nothing to do (see "Circuit breaker" in the module comment): its answer, a
   * caller error rethrown, any other failure answered by `empty` (the policy's answer to no items), and none of
   * them counted or moving the breaker.
   */
  #noWork<T, E>(call: Promise<T>, empty: E): Promise<T | E> {
    return call.catch((error: unknown) => {
      if (isCallerError(error)) throw error;
      return empty;
    });
  }

  /** The inner store's `applyOnce`, a synchronous throw turned into a rejection. */
  #innerOnce(items: readonly StoreItem[], nowMs: number, once: IdempotencyClaim): Promise<OnceResult> {
    try {
      return Promise.resolve((this.inner.applyOnce as NonNullable<Store["applyOnce"]>)(items, nowMs, once));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The inner store's `apply`, a synchronous throw turned into a rejection. */
  #innerApply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    try {
      return Promise.resolve(this.inner.apply(items, op, nowMs));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Releases leases on the inner store; a failure is counted and dropped, never thrown (leases expire). */
  async release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    if (this.#closed) throw closedError(this.name);
    const split = splitLeases(leases);
    if (this.#fallbackStore !== undefined && split.local !== undefined && limits.hasConcurrency) {
      this.#fallbackStore.releaseSync(this.#fallbackSet(limits), key, split.local, nowMs);
    }
    leases = split.inner;
    // A release of no lease (a grant by the policy holds none) gives the inner store nothing to do.
    if (!holdsLease(limits, leases)) {
      let released: Promise<void>;
      try {
        released = Promise.resolve(this.inner.release(limits, key, leases, nowMs));
      } catch (error) {
        released = Promise.reject(error);
      }
      const done = await this.#noWork(
        released.then(() => true),
        false,
      );
      if (!done) this.#n.releasesDropped++;
      return;
    }
    const gate = this.#admit();
    if (gate === Gate.Short) {
      this.#n.shortCircuited++;
      this.#n.releasesDropped++;
      return;
    }
    const epoch = this.#epoch;
    const probe = gate === Gate.Probe;
    try {
      await this.#timed(() => this.inner.release(limits, key, leases, nowMs));
    } catch (error) {
      if (isCallerError(error)) {
        this.#neutral(epoch, probe);
        throw error;
      }
      this.#failed(epoch, probe, error);
      this.#n.releasesDropped++;
      return;
    }
    this.#succeeded(epoch, probe);
  }

  /**
   * Closes the inner store, then the fallback store; rethrows the inner store's close error, if any. In that order:
   * calls in flight when `close` is called may still time out or fail while the inner store drains them, and are
   * then answered by the policy, through the fallback store.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const [inner] = await Promise.allSettled([this.inner.close()]);
    // An inner store may close without settling its calls (one that hangs): they are answered by their deadlines,
    // at most `timeoutMs` from now, through the fallback store, which must stay open until then.
    if (this.#timedInFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#onDrained = resolve;
      });
    }
    await this.#fallbackStore?.close();
    if (inner.status === "rejected") throw inner.reason;
  }

  /** Whether a call may reach the inner store now; moves `open` to `half_open` when a probe is due. */
  #admit(): Gate {
    if (this.#state === "closed") return Gate.Normal;
    if (this.#state === "open" && this.#clock.nowMs() >= this.#nextProbeAtMs) {
      this.#transition("half_open");
      return Gate.Probe;
    }
    return Gate.Short;
  }

  #succeeded(epoch: number, probe: boolean): void {
    if (epoch !== this.#epoch) return;
    if (probe) this.#transition("closed");
    else {
      this.#consecutive = 0;
      this.#consecutiveStore = 0;
    }
  }

  /**
   * A failed call. One that timed out still queued in this process (`#queueTimeoutError`, see "Local overload" in
   * the module comment) is no failure of the store, but counts toward opening the breaker, for
   * `min(openMs, timeoutMs)` when the run that opens it holds no failure of the store.
   */
  #failed(epoch: number, probe: boolean, error: unknown): void {
    const queued = error === this.#queueTimeoutError;
    if (queued) this.#n.queueTimeouts++;
    else {
      this.#n.failures++;
      if (error instanceof StoreTimeoutError) this.#n.timeouts++;
    }
    if (epoch !== this.#epoch) return;
    if (!queued) this.#consecutiveStore++;
    if (probe || ++this.#consecutive >= this.#failureThreshold) {
      this.#open(error, this.#consecutiveStore > 0 ? this.#openMs : Math.min(this.#openMs, this.#timeoutMs));
    }
  }

  /** A caller error says nothing about the store; a probe that ended in one is retried by the next call. */
  #neutral(epoch: number, probe: boolean): void {
    if (probe && epoch === this.#epoch) this.#transition("open");
  }

  #open(error: unknown, forMs: number): void {
    this.#nextProbeAtMs = this.#clock.nowMs() + forMs;
    this.#n.breakerOpened++;
    this.#transition("open", error);
  }

  #transition(to: BreakerState, error?: unknown): void {
    const from = this.#state;
    this.#state = to;
    this.#epoch++;
    this.#consecutive = 0;
    this.#consecutiveStore = 0;
    const listener = this.#onStateChange;
    if (listener === undefined) return;
    try {
      listener(
        error === undefined
          ? { from, to, atMs: this.#stampClock.nowMs() }
          : { from, to, atMs: this.#stampClock.nowMs(), error },
      );
    } catch {
      // a logging callback must never break limiting
    }
  }

  /**
   * The inner call, or a `StoreTimeoutError` once its deadline passes (the queued one when the call had not left
   * this process, see "Local overload"); the late outcome is swallowed. `start` gets the deadline entry as the
   * call's ticket.
   */
  #timed<T>(start: (ticket: CallTicket | undefined) => Promise<T>): Promise<T> {
    this.#n.storeCalls++;
    const deadlines = this.#deadlines;
    if (deadlines === undefined) {
      try {
        return Promise.resolve(start(undefined));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    this.#timedInFlight++;
    return new Promise<T>((resolve, reject) => {
      const pending: PendingCall = deadlines.add(() => {
        reject(pending.unsent ? this.#queueTimeoutError : this.#timeoutError);
        this.#timedSettled();
      });
      let call: Promise<T>;
      try {
        call = Promise.resolve(start(pending));
      } catch (error) {
        if (deadlines.settle(pending)) {
          reject(error);
          this.#timedSettled();
        }
        return;
      }
      // Handled either way: a late rejection after the timeout must not go unhandled.
      call.then(
        (value) => {
          if (deadlines.settle(pending)) {
            resolve(value);
            this.#timedSettled();
          }
        },
        (error: unknown) => {
          if (deadlines.settle(pending)) {
            reject(error);
            this.#timedSettled();
          }
        },
      );
    });
  }

  /** A call under a deadline was answered (after its promise settled: the caller's answer comes first). */
  #timedSettled(): void {
    if (--this.#timedInFlight === 0) this.#onDrained?.();
  }

  /**
   * The failure policy's decisions for `items` (throws for `reset`, which no policy can answer). `cause` is the
   * failure, or {@link BREAKER_OPEN} for a short-circuited call: its error is built only if thrown (an `Error` costs
   * a stack trace, ~2.5 µs, more than the policy's whole answer, on every call while the breaker is open).
   */
  #answer(items: readonly StoreItem[], op: StoreOp, nowMs: number, failure: unknown): Decision[] {
    if (op === "reset") {
      if (this.#fallbackStore !== undefined) {
        this.#fallbackStore.applySync(this.#fallbackItems(items), "reset", nowMs);
      }
      const cause =
        failure === BREAKER_OPEN ? new StoreUnavailableError(this.name, "circuit breaker open") : failure;
      throw new StoreUnavailableError(
        this.name,
        `reset not applied: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause,
      );
    }
    switch (this.#policy) {
      case "fallback": {
        this.#fallbackStore ??= new MemoryStore({ capacity: this.#fallbackCapacity });
        const decisions = this.#fallbackStore.applySync(this.#fallbackItems(items), op, nowMs);
        this.#n.fallback += decisions.length;
        return decisions.map(fromFallback);
      }
      case "fail_open":
        this.#n.failOpen += items.length;
        return items.map((it) => combineDecision(it.limits.specs.map(openStatus), "fail_open"));
      case "fail_closed": {
        this.#n.failClosed += items.length;
        const retryAfterMs = this.#retryAfterMs();
        return items.map((it) =>
          combineDecision(
            it.limits.specs.map((s) => closedStatus(s, retryAfterMs)),
            "fail_closed",
          ),
        );
      }
    }
  }

  /** Until the next probe while open, else the timeout (a failed call is retried no sooner). */
  #retryAfterMs(): number {
    const waitMs =
      this.#state === "open"
        ? this.#nextProbeAtMs - this.#clock.nowMs()
        : Number.isFinite(this.#timeoutMs)
          ? this.#timeoutMs
          : this.#openMs;
    return Math.max(1, Math.ceil(waitMs));
  }

  #fallbackItems(items: readonly StoreItem[]): StoreItem[] {
    return items.map((it) => ({ limits: this.#fallbackSet(it.limits), key: it.key, cost: it.cost }));
  }

  /** The local twin of `set`: same limits scaled by the fallback share, derived once per set. */
  #fallbackSet(set: LimitSet): LimitSet {
    let local = this.#fallbackSets.get(set);
    if (local === undefined) {
      local = createLimitSet(
        `${set.namespace}#fallback`,
        set.specs.map((s) => scaleSpec(s, this.#share)),
      );
      this.#fallbackSets.set(set, local);
    }
    return local;
  }
}

/** Wraps `inner` with a timeout, a circuit breaker and a failure policy (default `fallback`). */
export function resilientStore(inner: Store, options?: ResilientOptions): ResilientStore {
  return new ResilientStore(inner, options);
}

/** Stands for the cause of a call the open breaker short-circuited (see `#answer`). */
const BREAKER_OPEN: unique symbol = Symbol("breaker open");

function closedError(name: string): SluiceError {
  return new SluiceError("ERR_SLUICE_STORE_CLOSED", `${name}: resilient store used after close()`);
}

/**
 * `spec` with `limit` and `burst` multiplied by `share`; counting algorithms round down (forgiving the float error of
 * a share written as 1 / N), never below 1.
 */
function scaleSpec(spec: LimitSpec, share: number): LimitSpec {
  if (share === 1) return spec;
  const rate = RATE_ALGORITHMS.has(spec.algorithm);
  const input: LimitSpecInput = {
    name: spec.name,
    algorithm: spec.algorithm,
    periodMs: spec.periodMs,
    // A share meant as 1 / N is not exact in binary (98 · (1/49) = 1.9999999999999998): a product within a relative
    // 1e-9 below a whole number counts as that number, rather than one unit less.
    limit: rate ? spec.limit * share : Math.max(1, Math.floor(spec.limit * share * (1 + 1e-9))),
    ...(rate ? { burst: Math.max(1, spec.burst * share) } : {}),
    ...(spec.algorithm === "bucketed_window" ? { bucketMs: spec.bucketMs } : {}),
  };
  return parseLimitSpec(input);
}

/**
 * A decision of the fallback store as the caller gets it: reason `fallback`, consumed or not as it was (an item
 * passing on its own limits but not counted, because another item of its call was denied, stays `allowed: false`),
 * and its lease ids negated (see the module comment).
 */
function fromFallback(d: Decision): Decision {
  return combineDecision(
    d.policies,
    "fallback",
    d.leases === undefined ? undefined : negated(d.leases),
    d.allowed,
  );
}

function openStatus(spec: LimitSpec): PolicyStatus {
  return {
    policy: spec.name,
    allowed: true,
    limit: spec.limit,
    remaining: spec.limit,
    resetAfterMs: 0,
    retryAfterMs: 0,
    state: "normal",
    periodMs: spec.periodMs,
  };
}

function closedStatus(spec: LimitSpec, retryAfterMs: number): PolicyStatus {
  return {
    policy: spec.name,
    allowed: false,
    limit: spec.limit,
    remaining: 0,
    resetAfterMs: retryAfterMs,
    retryAfterMs,
    state: "throttled",
    periodMs: spec.periodMs,
  };
}

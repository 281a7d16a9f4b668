/**
 * The Redis store: limiter state in Redis, every decision taken inside one Lua script (`scripts/apply.lua`, with
 * one twin of each TypeScript algorithm step), so any number of processes share exact limits.
 *
 * Keys (DESIGN §2): `<prefix>:{<identity>}:<namespace>:<policy>`, one string per limit and identity. The braces
 * are a Redis Cluster hash tag around the identity, so every limit of one identity lives in one slot and is
 * checked and consumed in one atomic call. In the identity, `%` and `}` are percent-encoded (a `}` would end the
 * tag early); in the namespace and policy, `%` and `:`, so distinct limits never share a key. The algorithm is
 * recorded in the value: a key written by another algorithm reads as fresh. Every key expires once it holds no
 * information (`idleAfterMs` of its algorithm, plus `ttlMarginMs`). A reset deletes it (a concurrency key that handed
 * out a lease keeps its last lease id, with no lease, for the margin); a refund or release that
 * leaves it idle keeps it for the margin only, since an idle state still matters to a clock that lags (a bucket's
 * last time, the last lease id), exactly as the reference store keeps it. A refund of a key that is missing or
 * idle changes nothing: it has no units in use to give back (the shared convention, `Store.apply`).
 *
 * Time: by default the script reads the server clock (`TIME`), so processes with skewed clocks agree; with
 * `clock: "client"` it decides at the `nowMs` the caller passes (the conformance suite, replays).
 *
 * Batching (`batch-queue.ts`): calls queue per Redis node and leave together as one EVALSHA of at most `maxBatch`
 * items that applies them in order: at the end of the event-loop turn (so calls of one turn share it) while fewer
 * than `maxInFlight` script calls await their answer, else at the end of the turn an answer arrives in, or at once
 * when a whole batch has queued (unless 8 script calls already await their answer: then the node is behind, and
 * the batch waits in the queue). Batches
 * so grow with the load, one round trip's worth at a time, without a timer. Each call stays its own
 * all-or-nothing group; the answers are the ones separate calls would get in the same order. A script call that
 * fails in Redis for what one of its calls holds (a key of another type: WRONGTYPE) has written nothing (the script
 * writes only at its end), and each of its calls is sent again alone, so that only that call fails, as it would
 * alone. `batch: false` sends one EVALSHA per call.
 *
 * Shedding: behind `resilientStore` (as every Limiter and engine puts it), a call that times out while still in
 * the queue is dropped when its turn comes, never sent: after a stall, the backlog nobody waits for costs no Redis
 * time, and no request the failure policy answered is also counted in Redis (see {@link CallTicket}).
 *
 * Client options: some ioredis options defeat the failure policy (calls that hang through an outage, or are
 * replayed after it) or slow the store (autopipelining); the store reports each one it finds once, through
 * `onWarning` (see `client-option-warnings.ts`).
 *
 * All-or-nothing: the items of one `apply` call (every limit of every item) are applied together or not at all,
 * on a single node.
 *
 * Idempotency (`applyOnce`): the record lives at `<prefix>:{<identity of the first item>}:idem:<record>` (with a
 * custom `keyOf`, the hash tag of the first item's first key, or that whole key as the tag), so it shares the slot
 * of the first item. It holds the decisions and the instant they were taken (the caller's `nowMs`), so every
 * replay reports the first answer's instant. On a single node, and on a Redis Cluster when every item lives on the
 * record's master (every call of one identity), it is read, and written when missing, in the same script call
 * that consumes the items (op 6 of `apply.lua`): two retries serialize in Redis and only the first counts,
 * whichever processes send them, in one round trip. A Cluster call whose items live on several masters takes the
 * claim protocol of `../once-claim.ts` instead: a claim on the record's master (`scripts/once.lua`, one key), the
 * split consume below, then the record in place of the claim (three round trips); the other callers wait for the
 * record (pauses on `scheduler`, at most `claimTtlMs` in all, then `ERR_SLUICE_IDEMPOTENCY_PENDING`). The one
 * bound left: a claimer that dies after consuming and before recording lets a retry after `claimTtlMs` count
 * again. The ledger is offered to other stores too ({@link RedisStore.onceLedger}: `sharded-store.ts` claims on
 * the node of the record). A recorded answer that no longer fits the items (their limits changed) is refused with
 * `ERR_SLUICE_UNSUPPORTED`, and the caller decides without the shared record.
 *
 * Redis Cluster: pass an ioredis `Cluster` as `client` (recognised by its `isCluster` flag). A flush then sends
 * one script call per master, holding the queued calls whose keys that master serves, whatever their slots (the
 * cluster variant of the script carries `allow-cross-slot-keys`). A call whose items live on several masters is
 * all-or-nothing per master and, across masters, consumes then refunds on any denial (not atomic: see
 * `cluster-router.ts`); an idempotent one is serialized by a claim (above). MOVED, ASK, CLUSTERDOWN and lost connections re-route a master's call after a slot-table
 * refresh, at most `clusterRetries` times; then the call fails with `ERR_SLUICE_STORE_UNAVAILABLE`.
 */
import { type LimitSet, MAX_LIMITS_PER_SET } from "../../algorithms/limit-set.js";
import { checkOptions, shown } from "../../core/arguments.js";
import type { Scheduler } from "../../core/clock.js";
import type { Decision } from "../../core/decision.js";
import { InvalidArgumentError, SluiceError, StoreUnavailableError } from "../../core/errors.js";
import { applyOnceClaimed, claimSettingsOf, PENDING, untilSettled } from "../once-claim.js";
import type {
  CallTicket,
  IdempotencyClaim,
  OnceClaimState,
  OnceLedger,
  OnceLedgerStore,
  OnceResult,
  StoreItem,
  StoreOp,
} from "../store.js";
import { BatchQueue } from "./batch-queue.js";
import {
  clientOptionWarnings,
  emitProcessWarning,
  type RedisClientWarning,
} from "./client-option-warnings.js";
import { ClusterRouter, failedForOneCall, isClusterClient, type PendingGroup } from "./cluster-router.js";
import {
  decodeRecord,
  dropUnsent,
  encodeBatch,
  encodeRecord,
  type Group,
  type KeyNamer,
  type OnceAnswer,
  sendBatch,
  settleBatch,
} from "./protocol.js";
import {
  hasBufferReplies,
  loadOnceScript,
  loadScript,
  type RedisScript,
  type RedisScriptClient,
  runScript,
} from "./script.js";

/** Longest identity accepted, in UTF-16 code units (the Limiter's limit too). */
export const MAX_KEY_LENGTH = 1024;
/** Longest idempotency record name accepted by {@link RedisStore.applyOnce}, in UTF-16 code units. */
export const MAX_ONCE_KEY_LENGTH = 1024;
/** Longest idempotency record lifetime accepted by {@link RedisStore.applyOnce}, in ms (the script's TTL cap). */
export const MAX_ONCE_TTL_MS = 1e13;

/** The keys {@link RedisStoreOptions} accepts. */
const REDIS_STORE_KEYS: readonly string[] = [
  "client",
  "prefix",
  "clock",
  "keyOf",
  "batch",
  "maxBatch",
  "maxInFlight",
  "ttlMarginMs",
  "clusterRetries",
  "onWarning",
  "claimTtlMs",
  "scheduler",
];

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * An ioredis client (`new Redis(url)`) or cluster client (`new Cluster(nodes)`), connected or connecting; the
   * store never closes it.
   */
  readonly client: RedisScriptClient;
  /** First segment of every key; no braces. @default "rl" */
  readonly prefix?: string;
  /**
   * Whose clock decides: `"redis"` reads `TIME` inside the script (the caller's `nowMs` is ignored), so every
   * process agrees; `"client"` trusts the `nowMs` each call passes. @default "redis"
   */
  readonly clock?: "redis" | "client";
  /**
   * Names the Redis key of one limit for one identity, instead of the default layout. It must keep every key of
   * one identity in one Redis Cluster slot (a hash tag) and never give two limits the same key.
   */
  readonly keyOf?: (key: string, namespace: string, policy: string) => string;
  /** Coalesce concurrent calls into few script calls (see `maxInFlight`). @default true */
  readonly batch?: boolean;
  /** Most items per script call when batching (a larger single call is sent alone). @default 64 */
  readonly maxBatch?: number;
  /**
   * When batching: script calls in flight per Redis node (per master on a Cluster) before further calls queue
   * for the next answer; a whole batch of `maxBatch` items leaves at once while fewer than max(8, maxInFlight)
   * are in flight. @default 2
   */
  readonly maxInFlight?: number;
  /** Added to every key's TTL, in ms: slack for clients whose clocks lag (with `clock: "client"`). @default 1000 */
  readonly ttlMarginMs?: number;
  /**
   * Redis Cluster only: how many times a master's call is re-routed (slot table refreshed) after MOVED, ASK,
   * CLUSTERDOWN or a lost connection, before it fails. @default 3
   */
  readonly clusterRetries?: number;
  /**
   * Told, once per store and problem, during construction, of each option of `client` that defeats the failure
   * policy or slows the store (see `clientOptionWarnings`). @default a Node process warning (`SluiceWarning`),
   * once per client and problem
   */
  readonly onWarning?: (warning: RedisClientWarning) => void;
  /**
   * Idempotent consumes spread over several masters (see the module comment): how long a caller's claim on the
   * record lives, in ms, which bounds both its consume and the wait of the other callers. @default 10000
   */
  readonly claimTtlMs?: number;
  /** What callers waiting for another caller's claim sleep on (`applyOnce`). @default systemScheduler */
  readonly scheduler?: Scheduler;
}

type Pending = PendingGroup;

const OPS: ReadonlySet<string> = new Set<StoreOp>(["consume", "peek", "refund", "reset"]);
const WINDOW_ALGORITHMS: ReadonlySet<string> = new Set([
  "fixed_window",
  "sliding_window",
  "sliding_log",
  "bucketed_window",
  "concurrency",
]);

/** Percent-encodes the characters `special` matches (`test` finds one, `all` replaces every one). */
function escaper(test: RegExp, all: RegExp): (s: string) => string {
  const hex = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
  return (s) => (test.test(s) ? s.replace(all, hex) : s);
}
const escapeIdentity = escaper(/[%}]/, /[%}]/g);
const escapePart = escaper(/[%:]/, /[%:]/g);

/** The Redis store; see the module comment. Create it with {@link redisStore}. */
export class RedisStore implements OnceLedgerStore {
  readonly name = "redis";
  readonly shared = true;
  readonly #client: RedisScriptClient;
  readonly #script: RedisScript;
  readonly #serverClock: boolean;
  readonly #margin: number;
  /** Whether replies of `apply.lua` come binary (the client has `evalshaBuffer`), else as integer arrays. */
  readonly #binary: boolean;
  readonly #keysOf: KeyNamer;
  readonly #prefix: string;
  readonly #keyOf: RedisStoreOptions["keyOf"];
  readonly #tails = new WeakMap<LimitSet, readonly string[]>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #router: ClusterRouter | undefined;
  /** The single node's queue when batching (a Cluster's queues are the router's). */
  readonly #queue: BatchQueue<Pending> | undefined;
  readonly #claimTtlMs: number;
  readonly #scheduler: Scheduler;
  readonly #onceScript = loadOnceScript();
  #closed = false;

  /** Creates a store over `options.client`; validates every option. */
  constructor(options: RedisStoreOptions) {
    checkOptions("redisStore", "options", options, REDIS_STORE_KEYS);
    const { client } = options;
    if (
      client === null ||
      typeof client !== "object" ||
      typeof client.evalsha !== "function" ||
      typeof client.eval !== "function"
    ) {
      throw new InvalidArgumentError(
        `redisStore: client must be an ioredis client (with evalsha and eval), got ${shown(client)}`,
      );
    }
    const prefix = options.prefix ?? "rl";
    if (typeof prefix !== "string" || prefix.length === 0 || prefix.length > 128 || /[{}]/.test(prefix)) {
      throw new InvalidArgumentError(
        `redisStore: prefix must be a string of 1 to 128 characters without braces, got ${shown(prefix)}`,
      );
    }
    const clock = options.clock ?? "redis";
    if (clock !== "redis" && clock !== "client") {
      throw new InvalidArgumentError(`redisStore: clock must be "redis" or "client", got ${shown(clock)}`);
    }
    const maxBatch = options.maxBatch ?? 64;
    if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > 10_000) {
      throw new InvalidArgumentError(
        `redisStore: maxBatch must be a whole number from 1 to 10000, got ${shown(maxBatch)}`,
      );
    }
    const maxInFlight = options.maxInFlight ?? 2;
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > 10_000) {
      throw new InvalidArgumentError(
        `redisStore: maxInFlight must be a whole number from 1 to 10000, got ${shown(maxInFlight)}`,
      );
    }
    const batch = options.batch ?? true;
    if (typeof batch !== "boolean") {
      throw new InvalidArgumentError(`redisStore: batch must be true or false, got ${shown(batch)}`);
    }
    const margin = options.ttlMarginMs ?? 1000;
    if (!Number.isInteger(margin) || margin < 0 || margin > 2 ** 31) {
      throw new InvalidArgumentError(
        `redisStore: ttlMarginMs must be a whole number of ms from 0 to 2^31, got ${shown(margin)}`,
      );
    }
    const retries = options.clusterRetries ?? 3;
    if (!Number.isInteger(retries) || retries < 0 || retries > 10) {
      throw new InvalidArgumentError(
        `redisStore: clusterRetries must be a whole number from 0 to 10, got ${shown(retries)}`,
      );
    }
    if (options.keyOf !== undefined && typeof options.keyOf !== "function") {
      throw new InvalidArgumentError(
        `redisStore: keyOf must be a function (key, namespace, policy) => string, got ${shown(options.keyOf)}`,
      );
    }
    const onWarning = options.onWarning;
    if (onWarning !== undefined && typeof onWarning !== "function") {
      throw new InvalidArgumentError(
        `redisStore: onWarning must be a function (warning) => void, got ${shown(onWarning)}`,
      );
    }
    const { claimTtlMs, scheduler } = claimSettingsOf("redisStore", options);
    this.#claimTtlMs = claimTtlMs;
    this.#scheduler = scheduler;
    this.#client = client;
    this.#script = loadScript();
    this.#serverClock = clock === "redis";
    this.#margin = margin;
    this.#binary = hasBufferReplies(client);
    this.#prefix = prefix;
    const keyOf = options.keyOf;
    this.#keyOf = keyOf;
    const open = `${prefix}:{`;
    this.#keysOf =
      keyOf !== undefined
        ? (set, key) => set.specs.map((s) => keyOf(key, set.namespace, s.name))
        : (set, key) => {
            // Two concatenations per key (`<prefix>:{` + identity, then `}:<namespace>:<policy>`), the rest cached.
            const head = open + escapeIdentity(key);
            const tails = this.#tailsOf(set);
            return tails.length === 1 ? [head + tails[0]] : tails.map((t) => head + t);
          };
    this.#router = isClusterClient(client)
      ? new ClusterRouter({
          client,
          keysOf: this.#keysOf,
          checkKeys: keyOf !== undefined,
          ttlMarginMs: margin,
          binary: this.#binary,
          batch,
          maxBatch,
          maxInFlight,
          retries,
          submit: (group) => this.#enqueue(group),
          across: (pending) => this.#across(pending),
        })
      : undefined;
    this.#queue =
      batch && this.#router === undefined
        ? new BatchQueue<Pending>({
            maxBatch,
            maxInFlight,
            send: (pending, answered) => this.#send(pending, answered),
            drop: dropUnsent,
          })
        : undefined;
    for (const warning of clientOptionWarnings(client)) {
      if (onWarning !== undefined) onWarning(warning);
      else emitProcessWarning(client, warning);
    }
  }

  /** The Redis keys holding `key`'s state under `limits`, one per limit in declaration order. */
  keysOf(limits: LimitSet, key: string): readonly string[] {
    return this.#keysOf(limits, key);
  }

  /** Applies `op` to every item in one script call (batched with concurrent calls); see {@link Store.apply}. */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    return new Promise<Decision[]>((resolve, reject) => this.applyTo(items, op, nowMs, resolve, reject));
  }

  /** {@link RedisStore.apply} answering through callbacks (see {@link Store.applyTo}). */
  applyTo(
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
    onDecisions: (decisions: Decision[]) => void,
    onError: (error: unknown) => void,
    ticket?: CallTicket,
  ): void {
    let group: Group | undefined;
    try {
      this.#assertOpen();
      if (!OPS.has(op)) {
        throw new InvalidArgumentError(
          `redisStore.apply: op must be consume, peek, refund or reset, got ${JSON.stringify(op)}`,
        );
      }
      if (!Array.isArray(items)) throw new InvalidArgumentError("redisStore.apply: items must be an array");
      for (let i = 0; i < items.length; i++) checkItem(items[i], i, op);
      if (items.length > 0) group = { op, items, now: this.#now(nowMs) };
    } catch (error) {
      onError(error);
      return;
    }
    if (group === undefined) onDecisions([]);
    else this.#submit({ group, resolve: onDecisions, reject: onError, ticket });
  }

  /**
   * Consumes `items` unless the idempotency record `once` holds an earlier answer, which is then returned with
   * `replayed: true` and its instant; checked and recorded in the same script call, or by a claim when the items
   * live on several Cluster masters (see the module comment and {@link Store.applyOnce}). `nowMs` is recorded as
   * the decision's instant (whatever `clock`), so it must be finite. Batched with concurrent calls like
   * {@link RedisStore.apply}.
   */
  applyOnce(
    items: readonly StoreItem[],
    nowMs: number,
    once: IdempotencyClaim,
    ticket?: CallTicket,
  ): Promise<OnceResult> {
    try {
      this.#assertOpen();
      if (!Array.isArray(items))
        throw new InvalidArgumentError("redisStore.applyOnce: items must be an array");
      for (let i = 0; i < items.length; i++) checkItem(items[i], i, "consume");
      checkOnce(once);
      checkInstant(nowMs);
      if (items.length === 0) return Promise.resolve({ decisions: [], replayed: false });
      const key = this.#onceKeyOf(items[0], once.key);
      const group: Group = {
        op: "consume",
        items,
        now: this.#now(nowMs),
        once: { key, ttlMs: once.ttlMs, atMs: nowMs },
      };
      const attempt = (): Promise<OnceResult | typeof PENDING> =>
        new Promise((resolve, reject) => {
          this.#submit({
            group,
            resolve: (decisions, answer) =>
              resolve(answer?.state === "pending" ? PENDING : onceResultOf(decisions, answer, nowMs)),
            reject,
            ticket,
          });
        });
      // A claim holds the record while a call spread over masters (or shards) decides it: wait for its record.
      return untilSettled(attempt, this.#scheduler, this.#claimTtlMs, key);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The claim ledger of record `once` of a call whose first item is `items[0]` (the key {@link RedisStore.applyOnce}
   * uses), for a caller consuming `items` across nodes itself (`sharded-store.ts`); see `once-claim.ts`.
   */
  onceLedger(items: readonly StoreItem[], once: IdempotencyClaim): OnceLedger {
    this.#assertOpen();
    if (!Array.isArray(items) || items.length === 0) {
      throw new InvalidArgumentError("redisStore.onceLedger: items must be a non-empty array");
    }
    for (let i = 0; i < items.length; i++) checkItem(items[i], i, "consume");
    checkOnce(once);
    return this.#ledger(items, this.#onceKeyOf(items[0], once.key), once.ttlMs);
  }

  /** The ledger of the record at Redis key `key` (see `scripts/once.lua`); every call is one EVALSHA on its node. */
  #ledger(items: readonly StoreItem[], key: string, ttlMs: number): OnceLedger {
    const run = (args: readonly string[]): Promise<unknown> =>
      runScript(this.#client, this.#onceScript, [key], args).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new StoreUnavailableError("redis", message, error);
      });
    return {
      claim: async (token: string, claimTtlMs: number): Promise<OnceClaimState> => {
        const reply = await run(["c", `~${token}`, String(claimTtlMs)]);
        if (reply === 0) return { state: "claimed" };
        if (reply === 2) return { state: "pending" };
        if (typeof reply !== "string") {
          throw new StoreUnavailableError("redis", `unexpected once.lua reply: ${typeof reply}`);
        }
        const { decisions, decidedAtMs } = decodeRecord(reply, items, key);
        return { state: "recorded", decisions, decidedAtMs };
      },
      record: async (token: string, decisions: readonly Decision[], decidedAtMs: number): Promise<void> => {
        await run(["r", `~${token}`, String(ttlMs), encodeRecord(items, decisions, decidedAtMs)]);
      },
      abandon: async (token: string): Promise<void> => {
        await run(["d", `~${token}`]);
      },
    };
  }

  /**
   * A Cluster call with a record whose items (or record) live on several masters, handed over by the router:
   * decided under a claim on the record's master (`once-claim.ts`), its consume split by the router.
   */
  #across(p: Pending): void {
    const { items, now, once } = p.group;
    if (once === undefined) {
      p.reject(new TypeError("redisStore: a call without a record was routed as one"));
      return;
    }
    const done = applyOnceClaimed(
      this.#ledger(items, once.key, once.ttlMs),
      once.atMs,
      () => this.#enqueue({ op: "consume", items, now }),
      { scheduler: this.#scheduler, claimTtlMs: this.#claimTtlMs, record: once.key },
    ).then(
      (r) => p.resolve(r.decisions, { state: r.replayed ? "replayed" : "fresh", decidedAtMs: r.decidedAtMs }),
      p.reject,
    );
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
  }

  /** The Redis key of idempotency record `name` of a call whose first item is `first` (module comment). */
  #onceKeyOf(first: StoreItem, name: string): string {
    if (this.#keyOf === undefined) return `${this.#prefix}:{${escapeIdentity(first.key)}}:idem:${name}`;
    const key = this.#keysOf(first.limits, first.key)[0];
    return `${this.#prefix}:{${hashTagOf(key) ?? key}}:idem:${name}`;
  }

  /** Releases concurrency leases taken by an earlier consume of `key` (lease ids by policy name). */
  async release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    this.#assertOpen();
    checkItem({ limits, key, cost: 0 }, 0, "release");
    if (leases === null || typeof leases !== "object") {
      throw new InvalidArgumentError(
        "redisStore.release: leases must be an object of lease ids by policy name",
      );
    }
    for (const [name, id] of Object.entries(leases)) {
      if (!Number.isSafeInteger(id) || id < 0) {
        throw new InvalidArgumentError(
          `redisStore.release: leases.${name} must be a whole number >= 0, got ${String(id)}`,
        );
      }
    }
    if (!limits.specs.some((s) => (leases[s.name] ?? 0) > 0)) return;
    await this.#enqueue({ op: "release", items: [{ limits, key, cost: 0 }], now: this.#now(nowMs), leases });
  }

  /** Sends what is queued, waits for every call in flight, and refuses further use. Leaves the client open. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue?.flushAll();
    await Promise.allSettled([...this.#inFlight]);
    await this.#router?.idle();
  }

  #now(nowMs: number): number | "" {
    if (this.#serverClock) return "";
    if (typeof nowMs !== "number" || !Number.isFinite(nowMs) || nowMs < 0) {
      throw new InvalidArgumentError(
        `redisStore: nowMs must be a finite number of epoch ms with clock "client", got ${String(nowMs)}`,
      );
    }
    return nowMs;
  }

  #assertOpen(): void {
    if (this.#closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", "redisStore: used after close()");
  }

  /** The end of each key of `set` after the identity, `}:<namespace>:<policy>` per limit (cached per set). */
  #tailsOf(set: LimitSet): readonly string[] {
    let s = this.#tails.get(set);
    if (s === undefined) {
      const ns = escapePart(set.namespace);
      s = Object.freeze(set.specs.map((spec) => `}:${ns}:${escapePart(spec.name)}`));
      this.#tails.set(set, s);
    }
    return s;
  }

  #enqueue(group: Group): Promise<Decision[]> {
    return new Promise<Decision[]>((resolve, reject) => {
      this.#submit({ group, resolve, reject, ticket: undefined });
    });
  }

  #submit(pending: Pending): void {
    if (this.#router !== undefined) this.#router.submit(pending);
    else if (this.#queue !== undefined) this.#queue.push(pending);
    else this.#send([pending]);
  }

  /** Sends `pending` as one script call and settles them; `answered` runs as soon as the reply (or error) is in. */
  #send(pending: readonly Pending[], answered?: () => void): void {
    const groups = pending.map((p) => p.group);
    let batch: ReturnType<typeof encodeBatch>;
    try {
      batch = encodeBatch(groups, this.#keysOf, this.#margin, this.#binary);
    } catch (error) {
      // A call that cannot be encoded (a custom `keyOf` throwing for its key) fails alone, not its batch.
      const sendable = pending.filter((p) => {
        try {
          encodeBatch([p.group], this.#keysOf, this.#margin, this.#binary);
          return true;
        } catch (own) {
          p.reject(own);
          return false;
        }
      });
      if (sendable.length > 0 && sendable.length < pending.length) {
        this.#send(sendable, answered);
        return;
      }
      answered?.();
      for (const p of sendable) p.reject(error); // each encodes alone but not together: the batch's failure
      return;
    }
    // The handlers take the call off #inFlight themselves (they run after the add below: a reaction is never
    // synchronous), rather than one more promise and closure per script call from `finally`.
    const done: Promise<void> = sendBatch(this.#client, this.#script, batch).then(
      (reply) => {
        this.#inFlight.delete(done);
        answered?.();
        settleBatch(reply, pending, groups);
      },
      (error: unknown) => {
        this.#inFlight.delete(done);
        answered?.();
        if (pending.length > 1 && failedForOneCall(error)) {
          // The script ran and failed (a key holding another type …) and so wrote nothing (it writes only at its
          // end): each call is sent again alone, so that only the one at fault fails, as separate calls would.
          for (const p of pending) {
            if (p.ticket?.settled === true) dropUnsent(p);
            else this.#send([p]);
          }
          return;
        }
        const message = error instanceof Error ? error.message : String(error);
        const failure = new StoreUnavailableError("redis", message, error);
        for (const p of pending) p.reject(failure);
      },
    );
    this.#inFlight.add(done);
  }
}

/** How an error names item `i` of a call of `op`. */
function whereOf(op: StoreOp | "release", i: number): string {
  return `redisStore.${op === "release" ? "release" : `apply: items[${i}]`}`;
}

/** Validates one item without touching Redis; throws `ERR_SLUICE_INVALID_ARGUMENT` naming the field. */
function checkItem(item: StoreItem, i: number, op: StoreOp | "release"): void {
  // The item's name is built only for an error (whereOf), never on the path every call takes.
  if (item === null || typeof item !== "object")
    throw new InvalidArgumentError(`${whereOf(op, i)} must be an object`);
  const { limits, key, cost } = item;
  if (limits === null || typeof limits !== "object" || !Array.isArray(limits.specs)) {
    throw new InvalidArgumentError(`${whereOf(op, i)}.limits must be a LimitSet (createLimitSet)`);
  }
  if (limits.specs.length === 0 || limits.specs.length > MAX_LIMITS_PER_SET) {
    throw new InvalidArgumentError(`${whereOf(op, i)}.limits must hold 1 to ${MAX_LIMITS_PER_SET} limits`);
  }
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new InvalidArgumentError(
      `${whereOf(op, i)}.key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${typeof key === "string" ? `${key.length} characters` : typeof key}`,
    );
  }
  if (typeof cost !== "number" || !(cost >= 0 && cost <= Number.MAX_SAFE_INTEGER)) {
    throw new InvalidArgumentError(
      `${whereOf(op, i)}.cost must be a number from 0 to Number.MAX_SAFE_INTEGER, got ${String(cost)}`,
    );
  }
  if (!Number.isInteger(cost) && limits.specs.some((s) => WINDOW_ALGORITHMS.has(s.algorithm))) {
    throw new InvalidArgumentError(
      `${whereOf(op, i)}.cost must be a whole number for ${limits.specs.map((s) => s.algorithm).join(", ")}, got ${cost}`,
    );
  }
}

/** Validates an idempotency claim; throws `ERR_SLUICE_INVALID_ARGUMENT` naming the field. */
function checkOnce(once: IdempotencyClaim): void {
  if (once === null || typeof once !== "object") {
    throw new InvalidArgumentError("redisStore.applyOnce: once must be an object { key, ttlMs }");
  }
  const { key, ttlMs } = once;
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_ONCE_KEY_LENGTH) {
    throw new InvalidArgumentError(
      `redisStore.applyOnce: once.key must be a non-empty string of at most ${MAX_ONCE_KEY_LENGTH} characters, got ${typeof key === "string" ? `${key.length} characters` : typeof key}`,
    );
  }
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_ONCE_TTL_MS) {
    throw new InvalidArgumentError(
      `redisStore.applyOnce: once.ttlMs must be a whole number of ms from 1 to ${MAX_ONCE_TTL_MS}, got ${String(ttlMs)}`,
    );
  }
}

/** Validates the instant an idempotency record keeps; throws `ERR_SLUICE_INVALID_ARGUMENT`. */
function checkInstant(nowMs: number): void {
  if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) {
    throw new InvalidArgumentError(
      `redisStore.applyOnce: nowMs must be a finite number of epoch ms (the decision's instant, kept in the record), got ${String(nowMs)}`,
    );
  }
}

/** The answer of one `applyOnce` script call that was not pending; the instant is `nowMs` unless recorded. */
function onceResultOf(decisions: Decision[], answer: OnceAnswer | undefined, nowMs: number): OnceResult {
  const replayed = answer?.state === "replayed";
  return { decisions, replayed, decidedAtMs: (replayed ? answer?.decidedAtMs : undefined) ?? nowMs };
}

/** The hash tag of `key` as Redis Cluster reads it (between the first `{` and the next `}`, non-empty), if any. */
function hashTagOf(key: string): string | undefined {
  const open = key.indexOf("{");
  if (open === -1) return undefined;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/** Creates a {@link RedisStore} over an ioredis client. */
export function redisStore(options: RedisStoreOptions): RedisStore {
  return new RedisStore(options);
}

/**
 * Client-side sharding (seed 002's "consistent hash router"): several independent stores — Redis nodes, or any
 * {@link Store} — each own a part of a hash ring, and every item is routed by its `key` (the identity), so all
 * the limits of one identity live on one shard and a multi-limit check of one identity stays one atomic call.
 *
 * Ring: each shard places `round(virtualNodes · weight)` points on a 32-bit ring at `murmur3("<id>#<i>")`; a
 * key belongs to the shard owning the first point at or after `murmur3(key)` (wrapping round), found by binary
 * search. Equal points are ordered by shard id, so ownership never depends on insertion order.
 *
 * Membership ({@link ShardedStore.addShard}, {@link ShardedStore.removeShard}): only keys whose ring successor
 * changes move. Adding a shard moves about 1/(n+1) of the keys, every one of them *to* the new shard; removing
 * one moves exactly the keys it owned, and nothing else. No key ever moves between two shards that both stay.
 * State is not migrated: a moved key starts fresh on its new shard (it may be admitted up to one extra limit's
 * worth in that period), and its old state stays on the old shard until it expires (Redis TTL, memory sweep).
 *
 * Consume across shards is all-or-nothing, but not atomic. Items are grouped per shard and each shard is called
 * once (in parallel); each shard's reply is taken as one all-or-nothing unit (true of the memory store and of a
 * standalone Redis node): a shard that denied any item is taken to have consumed nothing. When any shard
 * denies (or fails), every shard that admitted its items gets them back — `release` of their concurrency
 * leases, then a `refund` of the same cost — and every item is reported denied. Between the consume on an
 * admitting shard and its refund, that shard's usage is briefly higher than it should be: a concurrent request
 * may be denied early, never admitted beyond the limit. A refund that fails leaves the units consumed (again
 * only denying early, until the state expires).
 *
 * Idempotent consumes (`applyOnce`): a call whose items all live on one shard goes to that shard's `applyOnce`
 * (atomic there: a Redis node checks and records in the decision's own script call, one round trip). A call
 * spread over several shards is serialized by a claim on the shard of its first item, which owns the record
 * (`once-claim.ts`, through that shard's {@link OnceLedger}): the claimer consumes across shards as above
 * (all-or-nothing through refunds) and records the decisions with their instant; concurrent callers, in any
 * process, wait for that record (pauses on `scheduler`, at most `claimTtlMs` in all, then
 * `ERR_SLUICE_IDEMPOTENCY_PENDING`) and replay it. The one bound left: a claimer that dies after consuming and
 * before recording lets a retry after `claimTtlMs` count again. A call whose record shard keeps no shared records
 * (no `applyOnce`, or no ledger for a spread call: a memory shard) is refused with `ERR_SLUICE_UNSUPPORTED` before
 * anything is applied, and the caller decides without a shared record.
 *
 * Views ({@link ShardedStore.wrapShards}): the same ring with each shard's store wrapped (a failure wrapper per
 * shard, `resilient-sharded-store.ts`), so a wrapper sees only the calls of its own shard's keys. A view has no
 * membership of its own: it follows its source's, re-read on every call (a key's shard is the same in both), and
 * wraps a shard once, the first time it sees it. Everything above holds for a view, each shard's part going
 * through that shard's wrapper.
 */
import type { LimitSet } from "../algorithms/limit-set.js";
import { checkOptions, shown } from "../core/arguments.js";
import type { Scheduler } from "../core/clock.js";
import { type Decision, deniedDecision } from "../core/decision.js";
import { InvalidArgumentError, SluiceError } from "../core/errors.js";
import { applyOnceClaimed, claimSettingsOf } from "./once-claim.js";
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

/** One member of a {@link ShardedStore}. */
export interface Shard {
  /** Stable name of the shard; its ring points derive from it, so renaming a shard moves its keys. */
  readonly id: string;
  /** Where this shard's keys live. */
  readonly store: Store;
  /** Relative share of keys (scales its virtual node count). @default 1 */
  readonly weight?: number;
}

/** Options of {@link ShardedStore.wrapShards}. */
export interface WrapShardsOptions {
  /**
   * Longest total pause, in ms, of a spread idempotent consume waiting for another caller's claim on its record
   * (then `ERR_SLUICE_IDEMPOTENCY_PENDING`); the claim TTL bounds it too. @default the claim TTL
   */
  readonly claimWaitMs?: number;
}

/** Options of {@link shardedStore}. */
export interface ShardedStoreOptions {
  /** The shards (at least one; ids unique). */
  readonly shards: readonly Shard[];
  /** Ring points per unit of weight; more points give a more even split. @default 160 */
  readonly virtualNodes?: number;
  /**
   * Idempotent consumes spread over shards: how long a caller's claim on the record lives, in ms, which bounds
   * both its consume and the wait of the other callers (see the module comment). @default 10000
   */
  readonly claimTtlMs?: number;
  /** What callers waiting for another caller's claim sleep on. @default systemScheduler */
  readonly scheduler?: Scheduler;
}

interface Ring {
  /** Sorted ring points. */
  readonly points: Uint32Array;
  /** Index into `shards` of the owner of each point. */
  readonly owners: Uint32Array;
  readonly shards: readonly Shard[];
}

/** A store that spreads keys over independent stores by consistent hashing; see the module comment. */
export class ShardedStore implements Store {
  readonly name = "sharded";
  readonly #virtualNodes: number;
  readonly #claimTtlMs: number;
  readonly #scheduler: Scheduler;
  #ring: Ring;
  /** A view's (see the module comment): the store whose ring it follows; undefined for a store of its own. */
  #source: ShardedStore | undefined = undefined;
  /** A view's: the ring of `#source` that `#ring` mirrors last. */
  #mirrored: Ring | undefined = undefined;
  /** A view's: what stands for each shard of the source, by the source's `Shard` (made once each). */
  readonly #wrapped = new WeakMap<Shard, Shard>();
  #wrap: ((shard: Shard) => Store) | undefined = undefined;
  /** Longest total pause of a spread idempotent consume waiting for another caller's claim, ms. */
  #claimWaitMs: number;

  /** Creates a sharded store over `options.shards`. */
  constructor(options: ShardedStoreOptions) {
    checkOptions("shardedStore", "options", options, SHARDED_KEYS);
    const vnodes = options.virtualNodes ?? 160;
    if (!Number.isInteger(vnodes) || vnodes < 1 || vnodes > 100_000) {
      throw new InvalidArgumentError(
        `shardedStore: virtualNodes must be a whole number from 1 to 100000, got ${shown(vnodes)}`,
      );
    }
    const shards: unknown = options.shards;
    if (!Array.isArray(shards)) {
      throw new InvalidArgumentError(
        `shardedStore: shards must be an array of { id, store, weight? }, got ${shown(shards)}`,
      );
    }
    for (const [i, shard] of shards.entries()) checkShard("shardedStore", `shards[${i}]`, shard);
    const { claimTtlMs, scheduler } = claimSettingsOf("shardedStore", options);
    this.#virtualNodes = vnodes;
    this.#claimTtlMs = claimTtlMs;
    this.#claimWaitMs = claimTtlMs;
    this.#scheduler = scheduler;
    this.#ring = buildRing(options.shards, vnodes);
  }

  /**
   * A view of this store (see the module comment): the same routing, following this store's membership, with each
   * shard's store replaced by `wrap(shard)`, called once per shard (now for the current ones, later for shards
   * added). Throws what `wrap` throws, and `ERR_SLUICE_INVALID_ARGUMENT` for bad options.
   */
  wrapShards(wrap: (shard: Shard) => Store, options: WrapShardsOptions = {}): ShardedStore {
    if (typeof wrap !== "function")
      throw new InvalidArgumentError("shardedStore.wrapShards: wrap must be a function");
    checkOptions("shardedStore.wrapShards", "options", options, WRAP_SHARDS_KEYS);
    const waitMs = options.claimWaitMs ?? this.#claimTtlMs;
    if (!(typeof waitMs === "number" && waitMs > 0)) {
      throw new InvalidArgumentError(
        `shardedStore.wrapShards: claimWaitMs must be a number of ms > 0, got ${shown(waitMs)}`,
      );
    }
    this.#refresh();
    const view = new ShardedStore({
      shards: this.#ring.shards,
      virtualNodes: this.#virtualNodes,
      claimTtlMs: this.#claimTtlMs,
      scheduler: this.#scheduler,
    });
    view.#source = this;
    view.#wrap = wrap;
    view.#claimWaitMs = Math.min(this.#claimTtlMs, waitMs);
    view.#refresh();
    return view;
  }

  /** A view's: mirrors its source's ring when it changed, wrapping shards not seen yet. */
  #refresh(): void {
    const source = this.#source;
    if (source === undefined) return;
    source.#refresh();
    const ring = source.#ring;
    if (ring === this.#mirrored) return;
    this.#ring = {
      points: ring.points,
      owners: ring.owners,
      shards: Object.freeze(ring.shards.map((s) => this.#wrapOf(s))),
    };
    this.#mirrored = ring;
  }

  /** A view's: what stands for `shard` of the source (its id and weight, its store wrapped). */
  #wrapOf(shard: Shard): Shard {
    let wrapped = this.#wrapped.get(shard);
    if (wrapped === undefined) {
      const store = (this.#wrap as (shard: Shard) => Store)(shard);
      wrapped = Object.freeze(shard.weight === undefined ? { id: shard.id, store } : { ...shard, store });
      this.#wrapped.set(shard, wrapped);
    }
    return wrapped;
  }

  /** Whether every shard is shared between processes. */
  get shared(): boolean {
    this.#refresh();
    return this.#ring.shards.every((s) => s.store.shared);
  }

  /** The current shards, in the order they were given (a view's: its source's, each with its wrapped store). */
  get shards(): readonly Shard[] {
    this.#refresh();
    return this.#ring.shards;
  }

  /** The id of the shard that owns `key`. */
  shardFor(key: string): string {
    this.#refresh();
    return this.#ring.shards[this.#ownerIndex(key)].id;
  }

  /** Adds a shard; about 1/(n+1) of the keys move to it and start fresh there. A view refuses (its source's to do). */
  addShard(shard: Shard): void {
    this.#ownMembership("addShard");
    checkShard("shardedStore.addShard", "shard", shard);
    this.#ring = buildRing([...this.#ring.shards, shard], this.#virtualNodes);
  }

  /**
   * Removes shard `id` and returns its store, not closed; its keys move to the other shards and start fresh. A view
   * refuses (its source's to do).
   */
  removeShard(id: string): Store {
    this.#ownMembership("removeShard");
    const shards = this.#ring.shards;
    const removed = shards.find((s) => s.id === id);
    if (removed === undefined) throw new InvalidArgumentError(`shardedStore: no shard with id ${shown(id)}`);
    if (shards.length === 1) throw new InvalidArgumentError("shardedStore: cannot remove the last shard");
    this.#ring = buildRing(
      shards.filter((s) => s !== removed),
      this.#virtualNodes,
    );
    return removed.store;
  }

  /** Throws for a view: its membership is its source's. */
  #ownMembership(what: string): void {
    if (this.#source !== undefined) {
      throw new InvalidArgumentError(
        `shardedStore.${what}: this store is a view (wrapShards) following another sharded store's shards; change them there`,
      );
    }
  }

  /** Applies `op` shard by shard; a consume spanning shards is all-or-nothing through refunds (module comment). */
  async apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    if (items.length === 0) return [];
    this.#refresh();
    const ring = this.#ring;
    const owners = this.#ownersOf(items);
    if (typeof owners === "number") return ring.shards[owners].store.apply(items, op, nowMs);
    return this.#applySpread(ring, owners, items, op, nowMs);
  }

  /**
   * {@link Store.applyTo}: a call owned by one shard goes to that shard's own `applyTo` with its `ticket` (so a
   * queued call whose caller stopped waiting is dropped there); a call spread over shards is applied as by
   * {@link ShardedStore.apply}, every part sent (its refunds must follow the answers).
   */
  applyTo(
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
    onDecisions: (decisions: Decision[]) => void,
    onError: (error: unknown) => void,
    ticket?: CallTicket,
  ): void {
    if (items.length === 0) {
      onDecisions([]);
      return;
    }
    let ring: Ring;
    let owners: number | Uint32Array;
    try {
      this.#refresh();
      ring = this.#ring;
      owners = this.#ownersOf(items);
    } catch (error) {
      onError(error);
      return;
    }
    if (typeof owners !== "number") {
      this.#applySpread(ring, owners, items, op, nowMs).then(onDecisions, onError);
      return;
    }
    const store = ring.shards[owners].store;
    if (store.applyTo !== undefined) store.applyTo(items, op, nowMs, onDecisions, onError, ticket);
    else store.apply(items, op, nowMs).then(onDecisions, onError);
  }

  /** The index of the one shard owning every item, else each item's owning shard's index. */
  #ownersOf(items: readonly StoreItem[]): number | Uint32Array {
    const first = this.#ownerIndex(items[0].key);
    let i = 1;
    while (i < items.length && this.#ownerIndex(items[i].key) === first) i++;
    if (i === items.length) return first; // the common case: no array
    const owners = new Uint32Array(items.length);
    owners.fill(first, 0, i);
    for (; i < items.length; i++) owners[i] = this.#ownerIndex(items[i].key);
    return owners;
  }

  /** Applies `op` to items spread over several shards of `ring` (`owners`: each item's shard index). */
  async #applySpread(
    ring: Ring,
    owners: Uint32Array,
    items: readonly StoreItem[],
    op: StoreOp,
    nowMs: number,
  ): Promise<Decision[]> {
    const groups = groupByOwner(owners);
    const settled = await Promise.allSettled(
      groups.map((g) =>
        ring.shards[g.owner].store.apply(
          g.indexes.map((i) => items[i]),
          op,
          nowMs,
        ),
      ),
    );
    if (op !== "consume") {
      const failed = settled.find((s) => s.status === "rejected");
      if (failed !== undefined) throw failed.reason;
      const out = new Array<Decision>(items.length);
      groups.forEach((g, gi) => {
        const replies = (settled[gi] as PromiseFulfilledResult<Decision[]>).value;
        g.indexes.forEach((itemIndex, j) => {
          out[itemIndex] = replies[j];
        });
      });
      return out;
    }
    return settleConsume(ring, items, groups, settled, nowMs);
  }

  /**
   * {@link Store.applyOnce}: on the one shard owning every item, that shard's own; spread over shards, under a
   * claim on the first item's shard (module comment).
   */
  applyOnce(
    items: readonly StoreItem[],
    nowMs: number,
    once: IdempotencyClaim,
    ticket?: CallTicket,
  ): Promise<OnceResult> {
    if (items.length === 0) return Promise.resolve({ decisions: [], replayed: false });
    try {
      this.#refresh();
    } catch (error) {
      return Promise.reject(error);
    }
    const ring = this.#ring;
    const first = this.#ownerIndex(items[0].key);
    let spread = false;
    for (let i = 1; i < items.length && !spread; i++) spread = this.#ownerIndex(items[i].key) !== first;
    const shard = ring.shards[first];
    if (!spread) {
      if (typeof shard.store.applyOnce !== "function") return Promise.reject(unshared(shard, "applyOnce"));
      return shard.store.applyOnce(items, nowMs, once, ticket);
    }
    if (!hasOnceLedger(shard.store)) return Promise.reject(unshared(shard, "onceLedger"));
    let ledger: OnceLedger;
    try {
      ledger = shard.store.onceLedger(items, once);
    } catch (error) {
      return Promise.reject(error);
    }
    return applyOnceClaimed(ledger, nowMs, () => this.apply(items, "consume", nowMs), {
      scheduler: this.#scheduler,
      claimTtlMs: this.#claimTtlMs,
      maxWaitMs: this.#claimWaitMs,
      record: once.key,
    });
  }

  /** Releases concurrency leases on the shard that owns `key`. */
  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    try {
      this.#refresh();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#ring.shards[this.#ownerIndex(key)].store.release(limits, key, leases, nowMs);
  }

  /**
   * Closes every current shard (a removed shard's store is the caller's to close); a view closes its wrapped stores,
   * which close theirs.
   */
  async close(): Promise<void> {
    this.#refresh();
    const results = await Promise.allSettled(this.#ring.shards.map((s) => s.store.close()));
    const failed = results.find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  #ownerIndex(key: string): number {
    const { points, owners } = this.#ring;
    const h = murmur3(key);
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return owners[lo === points.length ? 0 : lo];
  }
}

/** The refusal of a record on `shard`, whose store lacks `what` (it keeps no shared records). */
function unshared(shard: Shard, what: string): SluiceError {
  return new SluiceError(
    "ERR_SLUICE_UNSUPPORTED",
    `shardedStore.applyOnce: shard "${shard.id}" (${shard.store.name}) keeps no shared idempotency records (no ${what})`,
  );
}

/** Completes a multi-shard consume: when anything was denied or failed, gives back what the others took. */
async function settleConsume(
  ring: Ring,
  items: readonly StoreItem[],
  groups: readonly Group[],
  settled: readonly PromiseSettledResult<Decision[]>[],
  nowMs: number,
): Promise<Decision[]> {
  const admitted = settled.map((s) => s.status === "fulfilled" && s.value.every((d) => d.allowed));
  const failure = settled.find((s) => s.status === "rejected");
  const out = new Array<Decision>(items.length);
  if (failure === undefined && admitted.every(Boolean)) {
    groups.forEach((g, gi) => {
      const replies = (settled[gi] as PromiseFulfilledResult<Decision[]>).value;
      g.indexes.forEach((itemIndex, j) => {
        out[itemIndex] = replies[j];
      });
    });
    return out;
  }
  const rollbacks = groups.map(async (g, gi) => {
    const result = settled[gi];
    if (result.status === "rejected") return;
    const replies = result.value;
    if (!admitted[gi]) {
      g.indexes.forEach((itemIndex, j) => {
        out[itemIndex] = deniedDecision(replies[j]);
      });
      return;
    }
    const store = ring.shards[g.owner].store;
    const groupItems = g.indexes.map((i) => items[i]);
    await Promise.all(
      groupItems.map((it, j) => {
        const leases = replies[j].leases;
        return leases === undefined || Object.keys(leases).length === 0
          ? undefined
          : store.release(it.limits, it.key, leases, nowMs);
      }),
    );
    const refunded = await store.apply(groupItems, "refund", nowMs);
    g.indexes.forEach((itemIndex, j) => {
      out[itemIndex] = deniedDecision(refunded[j]);
    });
  });
  const rolledBack = await Promise.allSettled(rollbacks);
  if (failure !== undefined) throw failure.reason;
  const rollbackFailure = rolledBack.find((r) => r.status === "rejected");
  if (rollbackFailure !== undefined) throw rollbackFailure.reason;
  return out;
}

interface Group {
  readonly owner: number;
  readonly indexes: number[];
}

function groupByOwner(owners: Uint32Array): Group[] {
  const groups: Group[] = [];
  const byOwner = new Map<number, Group>();
  owners.forEach((owner, i) => {
    let g = byOwner.get(owner);
    if (g === undefined) {
      g = { owner, indexes: [] };
      byOwner.set(owner, g);
      groups.push(g);
    }
    g.indexes.push(i);
  });
  return groups;
}

/** The keys {@link ShardedStoreOptions} accepts. */
const SHARDED_KEYS: readonly string[] = ["shards", "virtualNodes", "claimTtlMs", "scheduler"];
/** The keys {@link WrapShardsOptions} accepts. */
const WRAP_SHARDS_KEYS: readonly string[] = ["claimWaitMs"];
/** The keys a {@link Shard} accepts. */
const SHARD_KEYS: readonly string[] = ["id", "store", "weight"];

/**
 * Checks `shard`, given to `method` as `field` (`shards[2]`, `shard`): its keys, a non-empty string id, a Store, a
 * finite positive weight; throws `ERR_SLUICE_INVALID_ARGUMENT` naming the method and the field.
 */
function checkShard(method: string, field: string, shard: unknown): void {
  checkOptions(method, field, shard, SHARD_KEYS);
  const { id, store, weight } = shard as Shard;
  if (typeof id !== "string" || id === "") {
    throw new InvalidArgumentError(`${method}: ${field}.id must be a non-empty string, got ${shown(id)}`);
  }
  if (store === null || typeof store !== "object" || typeof store.apply !== "function") {
    throw new InvalidArgumentError(
      `${method}: ${field}.store (shard ${shown(id)}) must be a Store, got ${shown(store)}`,
    );
  }
  if (weight !== undefined && !(typeof weight === "number" && weight > 0 && Number.isFinite(weight))) {
    throw new InvalidArgumentError(
      `${method}: ${field}.weight (shard ${shown(id)}) must be a positive number, got ${shown(weight)}`,
    );
  }
}

function buildRing(shards: readonly Shard[], vnodes: number): Ring {
  if (shards.length === 0) throw new InvalidArgumentError("shardedStore: at least one shard is required");
  const ids = new Set<string>();
  const counts = shards.map((s) => {
    if (ids.has(s.id)) throw new InvalidArgumentError(`shardedStore: shard id ${shown(s.id)} is used twice`);
    ids.add(s.id);
    const weight = s.weight ?? 1;
    return Math.max(1, Math.round(vnodes * weight));
  });
  const total = counts.reduce((a, b) => a + b, 0);
  const entries: { point: number; owner: number }[] = new Array(total);
  let n = 0;
  shards.forEach((s, owner) => {
    for (let i = 0; i < counts[owner]; i++) entries[n++] = { point: murmur3(`${s.id}#${i}`), owner };
  });
  entries.sort((a, b) => a.point - b.point || compareIds(shards[a.owner].id, shards[b.owner].id));
  const points = new Uint32Array(total);
  const owners = new Uint32Array(total);
  entries.forEach((e, i) => {
    points[i] = e.point;
    owners[i] = e.owner;
  });
  return { points, owners, shards: Object.freeze([...shards]) };
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/**
 * MurmurHash3 x86_32 (Austin Appleby, public domain) of `input` — a string is hashed as its UTF-8 bytes —
 * as an unsigned 32-bit number.
 */
export function murmur3(input: string | Uint8Array, seed = 0): number {
  let bytes: Uint8Array;
  let len: number;
  if (typeof input === "string") {
    if (scratch.length < input.length * 3) scratch = new Uint8Array(input.length * 3);
    len = encoder.encodeInto(input, scratch).written;
    bytes = scratch;
  } else {
    bytes = input;
    len = input.length;
  }
  let h = seed >>> 0;
  const tail = len & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = len & 3;
  if (rest !== 0) {
    let k = bytes[tail];
    if (rest > 1) k ^= bytes[tail + 1] << 8;
    if (rest > 2) k ^= bytes[tail + 2] << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Creates a {@link ShardedStore}: consistent hashing of identities over independent stores. */
export function shardedStore(options: ShardedStoreOptions): ShardedStore {
  return new ShardedStore(options);
}

/**
 * The in-process store (seed 004's layout): a fixed capacity of slots chosen at construction, state kept in
 * preallocated typed arrays indexed by slot, one index from (group of limits, key) to slot ({@link KeyIndex}: an
 * open-addressing table that doubles as keys come, up to twice the capacity; long keys in a `Map` per group), and a
 * free list.
 *
 * Layout, for a capacity C:
 * - `data: Float64Array(C · stride)` — the small states (width ≤ {@link SMALL_STATE_MAX_WIDTH}) of a slot's
 *   limits side by side at `slot · stride + offset`; `stride` is the widest group seen (gcra alone: 1 float).
 * - `big[slot]: Float64Array[]` — large states (sliding_log, bucketed_window, concurrency: O(limit) floats), one
 *   array per limit of a key, each holding a prefix of its state that grows as the key uses it (below).
 * - `keys[slot]` (the key, confirming index matches and unmapping it on eviction), `owner[slot]` (its table,
 *   0 = free),
 *   `flags[slot]` (bit 0: recently used, for CLOCK eviction; bit i+1: limit i is in the warning state).
 *
 * When no slot is free: first reclaim slots whose state carries no information (every limit back to fresh:
 * a full bucket, an expired window) — the keys a quota read stored (below: they hold nothing from the start),
 * wherever they are, then a full pass, amortised to at most 16 slot checks per insert — and otherwise evict by
 * CLOCK (second chance, an approximation of least-recently-used), still preferring an idle slot the hand passes.
 * Evicting a key forgets its usage, so it can only ever over-admit; both reclaims and evictions are counted in
 * {@link MemoryStore.stats}. A flood of distinct keys therefore never grows memory past the capacity.
 *
 * Large states: a key's sliding_log holds one entry per admission in its window (up to the limit), a concurrency
 * limit one per lease, a bucketed_window one per bucket: at full width that is 3 + 2L or 3 + 3L floats (1.6 MB for a
 * sliding_log of 100,000), which a flood of distinct keys each asking once would allocate in full. A key's large
 * state therefore starts at {@link LARGE_STATE_INITIAL_FLOATS} floats and holds a prefix of the state: the floats past
 * it are zeros, as in a fresh state. Before each step the kernel's {@link Algorithm.extent} names how many floats the
 * step may touch (the header and the ring's entries up to where an admission would go); past the prefix, the array
 * grows to the larger of that and twice its size, up to its full width, so a state behaves exactly as at full width
 * and a key's memory follows what it holds (a ring that has gone round its end is at full width; a state never
 * shrinks but when its key is dropped). Their bytes are bounded too ({@link MemoryStoreOptions.maxLargeStateBytes},
 * 256 MiB by default; {@link MemoryStore.stats} counts them): past it, once the call is over, the keys a quota read
 * stored, then a CLOCK over the slots holding large states, reclaim idle keys and evict others (counted as the
 * capacity's evictions). A set one key of which could exceed the budget on its own is refused when bound.
 *
 * Reconfiguration: limits are grouped by their set's `namespace`, one layout bound per namespace at a time, and a
 * limit is identified across sets by its name, as in the reference store. Binding a set whose limits have the same
 * names, algorithms and state widths, in the same order (its *shape*: every tier of an engine rule's shape), shares
 * every key's state as is, with nothing moved (a lowered limit clamps on next touch, it never resets). A set of
 * another shape re-lays the namespace's keys by limit name: a limit of the same name and algorithm keeps its state
 * (handed over by `resizeState` when the width changed: the ring of a sliding_log or bucketed_window is unwrapped
 * in order, other states keep their common prefix; the kernels clamp the rest on touch; a large state's prefix is
 * read under the old layout's width, and the new state is held as a prefix as well) and its warning flag, a name that
 * is new or whose algorithm changed starts fresh, and when no limit carries over the keys are dropped. Limits the new
 * set no longer has are dropped with the re-lay (coming back to them starts fresh), as when a key is evicted.
 * A key is reclaimed as idle only when idle under every set of the bound shape that may have stepped it: each
 * table remembers the sets bound to it, and a re-lay to a shape judges under all of them, those bound before an
 * excursion to another shape included (their consumers step the shape they know without binding again).
 * A namespace's table has a 16-bit id (a slot's owner): when a new namespace finds none left, the tables holding no
 * key are recycled, their ids reused; whatever still holds such a table (a bound consumer, a set) binds again on its
 * next call, to a new table (see `#recycleTables`). Only 65,535 namespaces holding keys at once are refused.
 *
 * A consume of cost 0 (a quota read) of a key the store does not hold never makes room for it: a quota read must not
 * reclaim or evict a live key (flooding reads of new identities would otherwise readmit used-up ones). When no slot
 * is free it stores nothing and is answered as for a fresh state (as `peek` answers an absent key), stepped on the
 * *scratch slot*, slot C (every per-slot array has C + 1 entries). While a slot is free the key is stored as any
 * other (its state is idle, so reclaimed first when room is needed, wherever the hand is): the step may still leave
 * information that the reference store keeps and reads back (GCRA's cost-0 step records `now`, which a clock that
 * goes back then sees), and a store with room answers exactly as the reference; a full one answers so up to
 * dropping that idle state, which the shared conventions allow at any time. The scratch slot is never on the free
 * list, never owned by a table nor in the index, and never swept, reclaimed or evicted (those scan slots
 * 0 … C − 1); its state, flags and tag are zeroed (its large state sized for the set) before each use, so nothing
 * written there outlives the step, and a call of several such items zeroes it before each item (and never saves or
 * restores it).
 *
 * A consume of a key the store does not hold that its fresh state denies (a cost above what the limit ever admits
 * at once, or a call of several items denied by another) stores nothing either, on a full store or not: a denial
 * writes nothing, so the state would stay fresh, and storing it would take a slot, evicting a live key on a full
 * store (a flood of such requests for new identities would readmit used-up ones). It is decided on a fresh state,
 * the scratch slot, as the reference store decides it. A call of several items first decides with its keys not
 * held read as fresh, and stores them only when allowed (unless a key not held is named twice: then they are
 * stored first, as before). The checks of the cost, of a free slot and of a fresh state's verdict (one step of
 * each limit on zeros) are on the miss path only: a hit, whatever its cost, is not slowed.
 *
 * The common call, one key against a set of one small limit, has its own path: `bindSync` hands out a consumer
 * made once per set ({@link singleLimitConsumer}) that goes from the index lookup through the kernel to the decision
 * with nothing in between; it is kept small enough for V8 to compile the whole path as one unit.
 *
 * Everything is synchronous: the read–step–write of one call has no `await` in it, so it is atomic in Node.
 */
import type { Algorithm, StepOut } from "../../algorithms/algorithm.js";
import { createStepOut, resizeState } from "../../algorithms/algorithm.js";
import type { LimitSet } from "../../algorithms/limit-set.js";
import { checkClock, checkOptions, shown } from "../../core/arguments.js";
import { type Clock, systemClock } from "../../core/clock.js";
import {
  combineDecision,
  type Decision,
  type PolicyStatus,
  policyStatusOf,
  VerdictDecision,
  verdictDecision,
} from "../../core/decision.js";
import { InvalidArgumentError, SluiceError } from "../../core/errors.js";
import type { LimitSpec } from "../../core/limit-spec.js";
import {
  limitStateOf,
  nextWarning,
  WARNING_ENTER_REMAINING,
  WARNING_LEAVE_REMAINING,
} from "../../core/limit-state.js";
import type { ChoiceConsumer, StoreItem, StoreOp, SyncStore } from "../store.js";
import { KeyIndex } from "./key-index.js";

// Module-local copy for the hot path: V8 folds it into optimised code, while an imported binding is read from its
// cell and checked on every use.
const StoreDecision = VerdictDecision;

/** States wider than this many floats live in a per-key array instead of the shared preallocated one. */
export const SMALL_STATE_MAX_WIDTH = 8;

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** Most keys held at once; their state memory is preallocated. @default 100_000 */
  readonly capacity?: number;
  /** Also reclaim idle keys on a timer every this many milliseconds (0: only when full). @default 0 */
  readonly sweepIntervalMs?: number;
  /**
   * Clock for the sweep timer: give it the clock of the limiters (or engine) using the store. The sweep reclaims
   * keys idle at this clock's time, so a store swept on the system clock under a limiter on a `ManualClock` (or
   * calls with an explicit `nowMs`) drops state that is still live at the limiter's time. @default systemClock
   */
  readonly clock?: Clock;
  /**
   * Most bytes of large states (sliding_log, bucketed_window, concurrency: O(limit) floats per key, grown as a key
   * uses them) held at once; past it, keys holding them are reclaimed when idle and otherwise evicted, as when the
   * capacity is full. `Infinity`: bounded by the capacity alone. @default 268_435_456 (256 MiB)
   */
  readonly maxLargeStateBytes?: number;
}

/** The keys {@link MemoryStoreOptions} accepts. */
const MEMORY_STORE_KEYS: readonly string[] = ["capacity", "sweepIntervalMs", "clock", "maxLargeStateBytes"];
/** The longest delay a timer can wait, ms (Node runs a longer one after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The default {@link MemoryStoreOptions.maxLargeStateBytes}: 256 MiB. */
export const DEFAULT_MAX_LARGE_STATE_BYTES = 256 * 2 ** 20;

/**
 * Floats a key's large state starts with (its full width when smaller): a header and a few entries; it doubles as
 * its {@link Algorithm.extent} asks for more, up to its full width.
 */
const LARGE_STATE_INITIAL_FLOATS = 16;

/** A fresh state's header (zeros), for {@link Algorithm.extent} to size a new key's large state. */
const ZERO_HEADER = new Float64Array(LARGE_STATE_INITIAL_FLOATS);

/** Counters of a {@link MemoryStore}. */
export interface MemoryStoreStats {
  /** Keys held now. */
  readonly size: number;
  /** Most keys it can hold. */
  readonly capacity: number;
  /** Keys dropped because their state had returned to fresh (no information lost). */
  readonly reclaimed: number;
  /** Keys dropped while still holding usage, to make room (each may over-admit later). */
  readonly evicted: number;
  /** Bytes of large states held now (see {@link MemoryStoreOptions.maxLargeStateBytes}). */
  readonly largeStateBytes: number;
}

/**
 * Where one limit of a set keeps its state in a slot. A small state sits in the shared array at
 * `slot · stride + offset`; a large one is the slot's `offset`-th large state, an array of its own holding a prefix
 * of the state (at least {@link LimitLayout.initial} floats, at most `width`; see the module comment).
 */
interface LimitLayout {
  readonly algorithm: Algorithm;
  readonly spec: LimitSpec;
  readonly big: boolean;
  readonly offset: number;
  readonly width: number;
  readonly warnBit: number;
  /** Large states: the floats a new key's state starts with. */
  readonly initial: number;
}

/** One set's layout, computed once. */
interface CompiledSet {
  readonly layout: LimitLayout[];
  /** Floats of its small states side by side. */
  readonly small: number;
  /** Floats of its large states at their full widths (the most one key can hold). */
  readonly big: number;
  /** Its large states (the number of arrays a slot holds for it). */
  readonly bigCount: number;
  readonly only: LimitLayout | undefined;
  /**
   * `only`'s shape (algorithm, width and name), one object per shape: sets of one shape share a slot's state as
   * is. The name is part of it, so that sets of one limit each under other names never read each other's state.
   */
  readonly shape: object | undefined;
  readonly zeros: Float64Array;
  /** Its {@link idleKeyOf}. */
  readonly idleKey: string;
}

interface Table {
  readonly id: number;
  readonly namespace: string;
  /** Keys held in this table (their slots are found through the store's {@link KeyIndex}). */
  size: number;
  /**
   * Every slot of this table lies in `[lo, hi]` (empty: `lo` > `hi`; reset when the table empties), so that a
   * reconfiguration finds its slots by scanning that range rather than the whole store: a namespace switched
   * between sets of different algorithms on every call (two limiters of one name) costs its few keys, not the
   * capacity.
   */
  lo: number;
  hi: number;
  set: LimitSet;
  layout: LimitLayout[];
  /** The single small limit when the set has exactly one limit and it is small (the fast path), else undefined. */
  only: LimitLayout | undefined;
  /** The shape of `only` ({@link CompiledSet.shape}), compared by single-limit consumers of any set. */
  shape: object | undefined;
  /** Zeros of the widest small state or initial large one, read (never written) for a key that is not stored. */
  zeros: Float64Array;
  /** The single-limit consumer of `set` when `only` is defined. */
  consumeOne: Consumer | undefined;
  /** The id of the table's last choice consumer in its epoch (see {@link MAX_CHOICE_ID}). */
  choiceId: number;
  /** The table's choice epoch: tags written in an earlier one are not trusted (see {@link MAX_CHOICE_ID}). */
  choiceEpoch: number;
  /**
   * Every set of this shape bound to the table since its state last started fresh, one per distinct numbers (see
   * {@link idleKeyOf}): a key's state may have been written under any of them (tiers of a rule share it as is), so
   * a key is idle only when idle under each. Empty with {@link Table.neverIdle}.
   */
  idleSets: CompiledSet[];
  /** The {@link idleKeyOf} of each of `idleSets`. */
  readonly idleKeys: Set<string>;
  /** More than {@link MAX_IDLE_SETS} sets were bound: no key of the table is ever judged idle (it may be evicted). */
  neverIdle: boolean;
  /**
   * Every set bound to the table (or to a choice consumer of it), of any shape, up to {@link MAX_NOTED_SETS}: a
   * re-lay to a shape makes `idleSets` those of that shape. A consumer whose set has the shape the table is bound
   * to steps keys without binding again (the fast path reads no more than the shape), so a set noted before a
   * re-lay to another shape and back must be noted again without its consumer's help.
   */
  readonly noted: CompiledSet[];
  /** The {@link idleKeyOf} of each of `noted`. */
  readonly notedKeys: Set<string>;
  /** A set was bound past {@link MAX_NOTED_SETS}: after a re-lay, no key of the table is ever judged idle. */
  forgetful: boolean;
}

/**
 * Most distinct sets a table judges idleness under (see {@link Table.idleSets}); past it, its keys are only ever
 * evicted (and counted so), never reclaimed as idle, so a sweep stays O(keys · this).
 */
const MAX_IDLE_SETS = 16;

/** Most sets a table remembers across re-lays ({@link Table.noted}). */
const MAX_NOTED_SETS = 64;

/**
 * What a set's idleness depends on, per limit: its place in the layout (name, algorithm, width) and its numbers.
 * Sets of one shape differ only in their numbers.
 */
function idleKeyOf(layout: readonly LimitLayout[]): string {
  return JSON.stringify(
    layout.map((l) => [
      l.spec.name,
      l.algorithm.id,
      l.width,
      l.spec.limit,
      l.spec.periodMs,
      l.spec.burst,
      l.spec.bucketMs,
    ]),
  );
}

/** The shared array of small states: slot `s` holds its limits' states at `data[s · stride + offset]`. */
interface Slab {
  data: Float64Array;
  stride: number;
}

/** A single-limit consumer: `(key, cost, nowMs) → Decision`. */
type Consumer = (key: string, cost: number, nowMs: number) => Decision;

/** Most tables (namespaces) holding keys at once: a table's id is a slot's `owner`, 16 bits (0: free). */
const MAX_TABLES = 0xffff;

/**
 * The `set` of a recycled table (see {@link MemoryStore.#recycleTables}): no set is it, so every path holding the
 * table finds it unbound and binds its set again, to a live table.
 */
const RECYCLED_SET: LimitSet = Object.freeze({
  id: 0,
  namespace: "",
  specs: Object.freeze([]),
  algorithms: Object.freeze([]),
  hasConcurrency: false,
});

/** The `shape` of a recycled table: no consumer's, so a single-limit consumer of it takes its slow path. */
const RECYCLED_SHAPE = Object.freeze({ name: "recycled" });

/**
 * Most sets of one {@link MemoryStore.bindChoiceSync} consumer: a slot's choice tag is `id · 256 + choice + 1`, the
 * consumer's id (unique in its table) in the upper 23 bits (so the tag stays a positive int32), the choice in the
 * low 8.
 */
const MAX_CHOICES = 255;
/**
 * Choice consumer ids of one table run from 1 to this; the next bind starts a new epoch of the table (its tags
 * cleared, ids from 1 again), and consumers of earlier epochs stop trusting tags (they choose on every call).
 */
const MAX_CHOICE_ID = 2 ** 23 - 1;

/** The in-process store with a synchronous path; see the module comment for its layout. */
export class MemoryStore implements SyncStore {
  readonly name = "memory";
  readonly shared = false;
  readonly #capacity: number;
  /** The shared array of small states and its per-slot stride (replaced together when a wider set arrives). */
  readonly #slab: Slab;
  /** Per slot, its large states (see {@link LimitLayout}), or undefined; the scratch slot's are reused. */
  readonly #big: (Float64Array[] | undefined)[];
  /** Bytes of the large states of slots 0 … C − 1 (not the scratch slot's). */
  #largeBytes = 0;
  readonly #maxLargeBytes: number;
  /**
   * The slots holding large states, densely (`#largeCount` of them), for the CLOCK that keeps their bytes within
   * {@link MemoryStoreOptions.maxLargeStateBytes}; `#largeAt[slot]` is a slot's place in it + 1 (0: absent).
   * Allocated with the first large state.
   */
  #largeSlots: Int32Array | undefined;
  #largeAt: Int32Array | undefined;
  #largeCount = 0;
  #largeHand = 0;
  readonly #keys: (string | undefined)[];
  readonly #owner: Uint16Array;
  readonly #flags: Uint8Array;
  /**
   * Per slot, the choice of the {@link MemoryStore.bindChoiceSync} consumer that last stepped it: `id · 256 + choice
   * + 1`, or 0 (none). Cleared when the slot is (re)assigned, so a choice never outlives its key. Allocated on the
   * first such consumer.
   */
  #tags: Int32Array | undefined;
  /** (table, key) → slot for every key held. */
  readonly #index: KeyIndex;
  readonly #free: Int32Array;
  #freeTop: number;
  #hand = 0;
  #insertsSinceSweep = 0;
  /**
   * Slots stored by a quota read (a consume of cost 0 of a key not held, stored while a slot was free): they hold
   * nothing, so making room reclaims them first, wherever the CLOCK hand is. A ring of the last `capacity` such
   * slots, newest taken first (an entry may be stale: checked when taken); allocated on the first.
   */
  #idleRing: Int32Array | undefined;
  /** Where the next entry of {@link MemoryStore.#idleRing} goes. */
  #idleNext = 0;
  /** Entries in {@link MemoryStore.#idleRing}. */
  #idleCount = 0;
  /**
   * The slots a multi-item consume has taken so far: making room for its next key must not reclaim or evict them (a
   * fresh slot counts as idle), or two of its keys would share one slot. Empty outside such a call.
   */
  readonly #pinned: number[] = [];
  #reclaimed = 0;
  #evicted = 0;
  /** The table each set was last bound to (weak: sets dropped by a config reload do not pile up). */
  readonly #tables = new WeakMap<LimitSet, Table>();
  /** Each set's compiled layout, so switching between sets of one namespace allocates nothing. */
  readonly #compiledSets = new WeakMap<LimitSet, CompiledSet>();
  /** One object per shape of a lone small limit (algorithm id, width, name), see {@link CompiledSet.shape}. */
  readonly #shapes = new Map<string, object>();
  /** What the choice consumers of each shape share (see {@link SlotChoice}). */
  readonly #choiceCores = new Map<object, ChoiceCore>();
  /**
   * Bumped whenever a table's `shape` or `choiceEpoch` changes, read by every {@link SlotChoice}: while it holds the
   * value a consumer last checked its table at, its table is as it was then, so a call reads no `Table`.
   */
  readonly #tableVersion: TableVersion = { version: 0 };
  /**
   * The limits of choice consumers by content ({@link choiceLimitsKey}): consumers whose sets hold equal limits (a
   * configuration's rules often repeat the same limits, and so do their tiers) share one array of specs and one of
   * thresholds, so a check going round many rules reads the same few objects. At most {@link MAX_SHARED_CHOICES}
   * entries; past that, a consumer keeps its own.
   */
  readonly #choiceLimits = new Map<string, ChoiceLimits>();
  /** The single-limit consumer of each set of one small limit, made on first use, and the table it was made for. */
  readonly #consumers = new WeakMap<LimitSet, { table: Table; consume: Consumer }>();
  /** Ids of recycled tables, free for new ones (see {@link MemoryStore.#recycleTables}). */
  readonly #freeTableIds: number[] = [];
  readonly #tablesByNamespace = new Map<string, Table>();
  readonly #tablesBySlotOwner: (Table | undefined)[] = [undefined];
  readonly #out: StepOut = createStepOut();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  /** Creates a store holding at most `capacity` keys. */
  constructor(options: MemoryStoreOptions = {}) {
    checkOptions("memoryStore", "options", options, MEMORY_STORE_KEYS);
    const capacity = options.capacity ?? 100_000;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 2 ** 30) {
      throw new InvalidArgumentError(
        `memoryStore: capacity must be a whole number from 1 to 2^30, got ${shown(capacity)}`,
      );
    }
    const sweepMs = options.sweepIntervalMs ?? 0;
    // A timer cannot wait longer than 2^31 − 1 ms (Node runs a longer one after 1 ms).
    if (!(typeof sweepMs === "number" && sweepMs >= 0 && sweepMs <= MAX_TIMER_MS)) {
      throw new InvalidArgumentError(
        `memoryStore: sweepIntervalMs must be a number of milliseconds from 0 (no timer) to ${MAX_TIMER_MS}, got ${shown(sweepMs)}`,
      );
    }
    if (options.clock !== undefined) checkClock("memoryStore", "clock", options.clock);
    const maxLarge = options.maxLargeStateBytes ?? DEFAULT_MAX_LARGE_STATE_BYTES;
    if (typeof maxLarge !== "number" || !(maxLarge > 0)) {
      throw new InvalidArgumentError(
        `memoryStore: maxLargeStateBytes must be a number of bytes > 0 (Infinity: no bound but the capacity), got ${shown(maxLarge)}`,
      );
    }
    this.#capacity = capacity;
    // One slot more than the capacity: the scratch slot, `capacity` (see the module comment).
    this.#slab = { data: new Float64Array(capacity + 1), stride: 1 };
    this.#big = [];
    this.#keys = [];
    this.#owner = new Uint16Array(capacity + 1);
    this.#flags = new Uint8Array(capacity + 1);
    this.#index = new KeyIndex(capacity, this.#keys, this.#owner);
    this.#free = new Int32Array(capacity);
    for (let i = 0; i < capacity; i++) this.#free[i] = capacity - 1 - i;
    this.#freeTop = capacity;
    this.#maxLargeBytes = maxLarge;
    if (sweepMs > 0) {
      const clock = options.clock ?? systemClock;
      this.#timer = setInterval(() => this.sweep(clock.nowMs()), sweepMs);
      this.#timer.unref();
    }
  }

  /** Current counters. */
  get stats(): MemoryStoreStats {
    return {
      size: this.#capacity - this.#freeTop,
      capacity: this.#capacity,
      reclaimed: this.#reclaimed,
      evicted: this.#evicted,
      largeStateBytes: this.#largeBytes,
    };
  }

  /**
   * {@link MemoryStore.consumeSync} bound to `limits`: skips finding the table on every call. A set of one small
   * limit gets its single-limit consumer ({@link MemoryStore.#consumerOf}).
   */
  bindSync(limits: LimitSet): Consumer {
    const t = this.#table(limits);
    if (t.consumeOne !== undefined) return t.consumeOne;
    return (key, cost, nowMs) => this.#consumeIn(t, limits, key, cost, nowMs);
  }

  /**
   * A consumer over `sets` that applies to each key the set `choose(key)` names (see {@link SyncStore.bindChoiceSync}):
   * the choice is kept in the slot's tag ({@link MemoryStore.#tags}) under this consumer's id, read beside the
   * slot's flags, so a key's choice costs nothing after its first call. The sets must share a namespace and be of
   * one small limit of one shape (the engine's tiers of a rule's shape): they then share each key's state as is
   * (see `#bind`), and each step uses the chosen set's limit. Undefined when they do not qualify.
   */
  bindChoiceSync(sets: readonly LimitSet[], choose: (key: string) => number): ChoiceConsumer | undefined {
    if (sets.length === 0 || sets.length > MAX_CHOICES) return undefined;
    const first = this.#compiled(sets[0]);
    if (first.only === undefined) return undefined;
    for (const s of sets) {
      if (s.namespace !== sets[0].namespace || this.#compiled(s).shape !== first.shape) return undefined;
    }
    const t = this.#table(sets[0]);
    this.#tags ??= new Int32Array(this.#capacity + 1);
    if (t.choiceId === MAX_CHOICE_ID) {
      t.choiceEpoch++;
      this.#tableVersion.version++;
      t.choiceId = 0;
      for (const slot of this.#slotsOf(t)) this.#tags[slot] = 0;
    }
    const id = ++t.choiceId;
    const compiled = sets.map((s) => this.#compiled(s));
    for (const c of compiled) this.#noteIdleSet(t, c);
    const only = first.only;
    const shape = first.shape as object; // a set of one small limit has one (see #compiled)
    const limits = this.#choiceLimitsOf(sets.map((s) => (this.#compiled(s).only as LimitLayout).spec));
    let core = this.#choiceCores.get(shape);
    if (core === undefined) {
      core = {
        apply: only.algorithm.apply,
        idleAfterMs: only.algorithm.idleAfterMs,
        offset: only.offset,
        warnBit: only.warnBit,
        slab: this.#slab,
        flags: this.#flags,
        out: this.#out,
        tables: this.#tableVersion,
      };
      this.#choiceCores.set(shape, core);
    }
    const epoch = t.choiceEpoch;
    const mark = id * 256 + 1;
    return new SlotChoice(
      t,
      shape,
      id,
      limits,
      this.#index,
      this.#tags,
      core,
      choose,
      outOfLine((key: string, cost: number, nowMs: number) =>
        this.#slotOfChoice(t, sets, compiled, mark, epoch, choose, key, cost, nowMs),
      ),
    );
  }

  /**
   * The slow path of a {@link SlotChoice} (its table `t` bound to another shape since, or `key` not held): the slot
   * of `key` as {@link MemoryStore.#slotOf} finds it, under the set chosen for the key, whose limit decides whether a
   * key not held is stored (a cost its fresh state denies is not). A key not held gets its choice in its slot's tag
   * here (`mark` + choice, while `t` is in the consumer's `epoch`), so the consumer does not ask again.
   */
  #slotOfChoice(
    t: Table,
    sets: readonly LimitSet[],
    compiled: readonly CompiledSet[],
    mark: number,
    epoch: number,
    choose: (key: string) => number,
    key: string,
    cost: number,
    nowMs: number,
  ): number {
    const shape = compiled[0].shape;
    const bound = t.shape === shape ? t : this.#table(sets[0]);
    const held = this.#index.get(bound.id, key);
    if (held !== -1) return held;
    const c = choose(key);
    if (!(c >= 0 && c < sets.length))
      throw new InvalidArgumentError(`memoryStore: choice ${c} is not one of the ${sets.length} sets bound`);
    const slot = this.#slotFor(bound, compiled[c], key, cost, nowMs);
    if (t.choiceEpoch === epoch && t.shape === shape) (this.#tags as Int32Array)[slot] = mark + c;
    return slot;
  }

  /**
   * The shared {@link ChoiceLimits} of `specs` (equal content, equal decisions: a step reads only a spec's numbers,
   * and a decision copies its name, limit and period), or new ones when the cache is full.
   */
  #choiceLimitsOf(specs: readonly LimitSpec[]): ChoiceLimits {
    const key = choiceLimitsKey(specs);
    const shared = this.#choiceLimits.get(key);
    if (shared !== undefined) return shared;
    const bounds = new Float64Array(2 * specs.length);
    for (let c = 0; c < specs.length; c++) {
      bounds[2 * c] = WARNING_ENTER_REMAINING * specs[c].burst;
      bounds[2 * c + 1] = WARNING_LEAVE_REMAINING * specs[c].burst;
    }
    // A plain array (read-only by its type), not a frozen one: optimized code loads an element of a frozen array
    // through V8's generic KeyedLoadIC builtin instead of inline (Node 20, 22 and 24; a loop of such loads here took
    // 8–10 ns a load against 1–3.5 ns from a plain array), and `#step` loads one per check.
    const limits: ChoiceLimits = { specs: [...specs], bounds };
    if (this.#choiceLimits.size < MAX_SHARED_CHOICES) this.#choiceLimits.set(key, limits);
    return limits;
  }

  /** The fast path: one key, one consume, synchronous. */
  consumeSync(limits: LimitSet, key: string, cost: number, nowMs: number): Decision {
    return this.#consumeIn(this.#table(limits), limits, key, cost, nowMs);
  }

  /** One consume of one key: a set of one small limit takes its single-limit consumer. */
  #consumeIn(t: Table, limits: LimitSet, key: string, cost: number, nowMs: number): Decision {
    if (t.set !== limits) t = this.#table(limits); // another set of this namespace was used since, or recycled
    if (t.consumeOne !== undefined) return t.consumeOne(key, cost, nowMs);
    const slot = this.#slotFor(t, this.#compiled(limits), key, cost, nowMs);
    this.#flags[slot] |= 1;
    const decision = this.#consumeItems([{ limits, key, cost }], [slot], nowMs)[0];
    if (this.#largeBytes > this.#maxLargeBytes) this.#trimLarge(nowMs);
    return decision;
  }

  /**
   * The slot of `key` in table `t` for `set` (the slow path of {@link singleLimitConsumer}, whose `set` is of one
   * small limit): rebinds `set` when the set bound since has another shape, and stores the key when it is new (or
   * hands out the zeroed scratch slot: see {@link MemoryStore.#slotFor}). A set of the same shape (one small limit, same name,
   * algorithm and width: e.g. the engine's tiers of a rule's shape, used in turn) shares the state as is (see
   * `#bind`): the consumer steps it with its own limit and does not come here.
   */
  #slotOf(t: Table, set: LimitSet, key: string, cost: number, nowMs: number): number {
    const c = this.#compiled(set);
    if (t.shape !== c.shape) t = this.#table(set); // binds `set`, unless bound already (`t` was recycled)
    return this.#slotFor(t, c, key, cost, nowMs);
  }

  /**
   * The slot of `key` in table `t` for a consume of `cost` under set `c` (of `t`'s shape). A key not held is stored,
   * unless its step would leave nothing to keep: then it gets the scratch slot, zeroed for `c`, and the store is left
   * as it was (see the module comment) — a cost of 0 on a store with no free slot, or a cost its fresh state denies
   * (a denial writes nothing). A key stored by a cost of 0 holds nothing: it is reclaimed first when room is needed.
   */
  #slotFor(t: Table, c: CompiledSet, key: string, cost: number, nowMs: number): number {
    const slot = this.#index.get(t.id, key);
    if (slot !== -1) return slot;
    if (cost === 0) return this.#freeTop === 0 ? this.#scratch(c) : this.#insert(t, key, nowMs, true);
    return this.#deniedFresh(c, cost, nowMs) ? this.#scratch(c) : this.#insert(t, key, nowMs, false);
  }

  /**
   * Whether a fresh state denies `cost` under set `c`: one of its limits does (each decides alone on a fresh state),
   * without writing. The verdict of every item of a call whose keys are all fresh, as the reference store gives it.
   */
  #deniedFresh(c: CompiledSet, cost: number, nowMs: number): boolean {
    const out = this.#out;
    for (const l of c.layout) {
      l.algorithm.apply(c.zeros, 0, nowMs, l.spec, cost, false, out);
      if (!out.allowed) return true;
    }
    return false;
  }

  /**
   * The scratch slot (`capacity`, see the module comment), its state, flags and tag zeroed and its large states
   * (reused) zeroed for set `c`: a fresh state to step a consume of a key not held on, storing nothing (a cost of 0
   * on a full store, a denial). Throws on a closed store.
   */
  #scratch(c: CompiledSet): number {
    this.#assertOpen();
    const slot = this.#capacity;
    const base = slot * this.#slab.stride;
    this.#slab.data.fill(0, base, base + this.#slab.stride);
    this.#flags[slot] = 0;
    if (this.#tags !== undefined) this.#tags[slot] = 0;
    if (c.bigCount > 0) {
      let states = this.#big[slot];
      if (states === undefined) {
        states = [];
        this.#big[slot] = states;
      }
      for (const l of c.layout) {
        if (!l.big) continue;
        const state = states[l.offset];
        // A longer array is a longer prefix of the same fresh state: zeros past `initial` read as the kernel expects.
        if (state !== undefined && state.length >= l.initial) state.fill(0);
        else states[l.offset] = new Float64Array(l.initial);
      }
    }
    return slot;
  }

  /** `slot` for an item of set `c`: the scratch slot is zeroed for it first (each item of a call steps it afresh). */
  #use(slot: number, c: CompiledSet): number {
    return slot === this.#capacity ? this.#scratch(c) : slot;
  }

  /**
   * The single-limit consumer of `set` in table `t` ({@link singleLimitConsumer}), made once per set (and again when
   * the set's namespace has a new table: the one made for a recycled table only ever takes its slow path).
   */
  #consumerOf(t: Table, set: LimitSet, only: LimitLayout): Consumer {
    const made = this.#consumers.get(set);
    if (made !== undefined && made.table === t) return made.consume;
    const consume = singleLimitConsumer(
      t,
      this.#compiled(set).shape,
      only,
      this.#index,
      this.#slab,
      this.#flags,
      this.#out,
      outOfLine((key: string, cost: number, nowMs: number) => this.#slotOf(t, set, key, cost, nowMs)),
    );
    this.#consumers.set(set, { table: t, consume });
    return consume;
  }

  /** Synchronous {@link MemoryStore.apply}. */
  applySync(items: readonly StoreItem[], op: StoreOp, nowMs: number): Decision[] {
    this.#assertOpen();
    const decisions = this.#applyOp(items, op, nowMs);
    if (this.#largeBytes > this.#maxLargeBytes) this.#trimLarge(nowMs);
    return decisions;
  }

  /** {@link MemoryStore.applySync} but for keeping large states within their bytes. */
  #applyOp(items: readonly StoreItem[], op: StoreOp, nowMs: number): Decision[] {
    switch (op) {
      case "consume": {
        if (items.length > 1) this.#checkLayouts(items);
        return this.#consumeItems(items, this.#consumeSlots(items, nowMs), nowMs);
      }
      case "peek":
        return items.map((it) => this.#peek(it.limits, it.key, it.cost, nowMs));
      case "refund":
        return items.map((it) => {
          const t = this.#table(it.limits);
          const slot = this.#slotIn(t, it.key);
          if (slot !== undefined) {
            for (const l of this.#compiled(it.limits).layout) {
              const [arr, off] = this.#where(slot, l);
              // An idle state has nothing in use to give back: left as it is (Store.apply's `refund`).
              if (l.algorithm.idleAfterMs(arr, off, nowMs, l.spec) > 0) {
                l.algorithm.refund(arr, off, nowMs, l.spec, it.cost);
              }
            }
          }
          return this.#peek(it.limits, it.key, 0, nowMs);
        });
      case "reset":
        return items.map((it) => {
          const t = this.#table(it.limits);
          const slot = this.#slotIn(t, it.key);
          if (slot !== undefined && !this.#resetInPlace(it.limits, slot)) this.#release(slot);
          return this.#peek(it.limits, it.key, 0, nowMs);
        });
    }
  }

  /**
   * The slots of the items of a consume: each held key's first, then the keys not held, stored or not as
   * {@link MemoryStore.#slotFor} does for one. Making room for a key of the call never takes a slot another key of
   * the call holds (they are pinned). When several items name keys not held, none of them is stored if the call is
   * denied with each of those keys read as a fresh state (the scratch slot): exact when no key not held is named
   * twice; a key that is is stored, as any other.
   */
  #consumeSlots(items: readonly StoreItem[], nowMs: number): number[] {
    const slots: number[] = [];
    const pinned = this.#pinned;
    const many = items.length > 1;
    let absent = 0;
    try {
      for (const it of items) {
        const slot = this.#index.get(this.#table(it.limits).id, it.key);
        if (slot === -1) absent++;
        else {
          this.#flags[slot] |= 1;
          if (many) pinned.push(slot);
        }
        slots.push(slot);
      }
      if (absent === 0) return slots;
      if (!many) {
        const it = items[0];
        slots[0] = this.#slotFor(this.#table(it.limits), this.#compiled(it.limits), it.key, it.cost, nowMs);
        return slots;
      }
      if (absent === 1 || this.#absentOnce(items, slots)) {
        const probe = slots.map((s) => (s === -1 ? this.#capacity : s));
        const allowed = hasDuplicates(probe)
          ? this.#trialRun(items, probe, nowMs)
          : this.#dryRun(items, probe, nowMs);
        if (!allowed) return probe;
      }
      for (let i = 0; i < items.length; i++) {
        if (slots[i] !== -1) continue;
        const it = items[i];
        const t = this.#table(it.limits);
        let slot = this.#index.get(t.id, it.key); // stored by an earlier item of the call
        if (slot === -1) {
          // A cost-0 item of a key not held, no slot free: decided on a fresh state (the scratch slot), not stored.
          if (it.cost === 0 && this.#freeTop === 0) slot = this.#capacity;
          else slot = this.#insert(t, it.key, nowMs, it.cost === 0);
        }
        pinned.push(slot);
        slots[i] = slot;
      }
      return slots;
    } finally {
      pinned.length = 0;
    }
  }

  /** Whether the keys not held (`slots[i]` -1) of `items` are each named once (by namespace and key). */
  #absentOnce(items: readonly StoreItem[], slots: readonly number[]): boolean {
    const seen = new Set<string>();
    for (let i = 0; i < items.length; i++) {
      if (slots[i] !== -1) continue;
      const name = JSON.stringify([items[i].limits.namespace, items[i].key]);
      if (seen.has(name)) return false;
      seen.add(name);
    }
    return true;
  }

  /** Applies `op` to every item; see {@link Store.apply}. Memory is always all-or-nothing across items. */
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    try {
      return Promise.resolve(this.applySync(items, op, nowMs));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Synchronous {@link MemoryStore.release}. */
  releaseSync(limits: LimitSet, key: string, leases: Readonly<Record<string, number>>, nowMs: number): void {
    const t = this.#table(limits);
    const slot = this.#slotIn(t, key);
    if (slot === undefined) return;
    for (const l of this.#compiled(limits).layout) {
      const id = leases[l.spec.name];
      if (id === undefined || l.algorithm.release === undefined) continue;
      const [arr, off] = this.#where(slot, l);
      l.algorithm.release(arr, off, nowMs, l.spec, id);
    }
  }

  /** Releases concurrency leases taken by an earlier consume. */
  release(
    limits: LimitSet,
    key: string,
    leases: Readonly<Record<string, number>>,
    nowMs: number,
  ): Promise<void> {
    this.releaseSync(limits, key, leases, nowMs);
    return Promise.resolve();
  }

  /** Drops every key whose state is back to fresh; returns how many were dropped. */
  sweep(nowMs: number): number {
    let freed = 0;
    for (let slot = 0; slot < this.#capacity; slot++) {
      if (this.#owner[slot] !== 0 && this.#isIdle(slot, nowMs) && !this.#pinned.includes(slot)) {
        this.#release(slot);
        freed++;
      }
    }
    this.#reclaimed += freed;
    this.#insertsSinceSweep = 0;
    this.#idleCount = 0; // every idle key is gone
    return freed;
  }

  /** Stops the sweep timer and drops all state. */
  close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#closed = true;
    this.#index.clear();
    this.#big.length = 0;
    this.#largeBytes = 0;
    this.#largeCount = 0;
    for (const t of this.#tablesByNamespace.values()) this.#emptied(t);
    return Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", "memoryStore: used after close()");
  }

  /** Consumes from every limit of every item, all-or-nothing: decide all without writing, then commit. */
  /**
   * Refuses, before anything is bound, a call whose items use sets of one namespace of different shapes (say
   * sliding_log limits 9 and 2, or limits of other names): binding the second would re-lay the state the first was
   * read for.
   */
  #checkLayouts(items: readonly StoreItem[]): void {
    for (let i = 1; i < items.length; i++) {
      const a = items[i].limits;
      for (let j = 0; j < i; j++) {
        const b = items[j].limits;
        if (a === b || a.namespace !== b.namespace) continue;
        if (!sameShape(this.#compiled(a).layout, this.#compiled(b).layout)) {
          throw new InvalidArgumentError(
            `memoryStore: items[${j}] and items[${i}] use sets of namespace ${JSON.stringify(a.namespace)} whose states differ in size or in their limits' names or algorithms; one call cannot count both`,
          );
        }
      }
    }
  }

  #consumeItems(items: readonly StoreItem[], slots: readonly number[], nowMs: number): Decision[] {
    const out = this.#out;
    for (let i = 0; i < items.length; i++) {
      const c = this.#compiled(items[i].limits);
      this.#forgetIdleWarnings(this.#use(slots[i], c), c.layout, nowMs);
    }
    // Several items on the scratch slot count as one key named twice: decided in order, each on a zeroed state.
    const duplicates = hasDuplicates(slots);
    const allAllowed = duplicates ? this.#trialRun(items, slots, nowMs) : this.#dryRun(items, slots, nowMs);
    if (!allAllowed && duplicates) return this.#deniedInOrder(items, slots, nowMs);
    return items.map((it, i) => {
      const c = this.#compiled(it.limits);
      const slot = this.#use(slots[i], c);
      if (c.only !== undefined && allAllowed) {
        const l = c.only;
        const own = verdict(
          this.#slab.data,
          slot * this.#slab.stride + l.offset,
          l,
          it.cost,
          allAllowed,
          nowMs,
          out,
        );
        return this.#single(slot, l, out, own && allAllowed);
      }
      const statuses: PolicyStatus[] = [];
      let leases: Record<string, number> | undefined;
      for (const l of c.layout) {
        const [arr, off] = this.#where(slot, l);
        const own = verdict(arr, off, l, it.cost, allAllowed, nowMs, out);
        if (allAllowed && out.leaseId !== 0) {
          leases ??= {};
          leases[l.spec.name] = out.leaseId;
        }
        statuses.push(policyStatusOf(l.spec, out, own, this.#warning(slot, l, out, allAllowed)));
      }
      return combineDecision(statuses, "store", leases, allAllowed);
    });
  }

  /** Whether every item would pass, deciding each against the current state without writing. */
  #dryRun(items: readonly StoreItem[], slots: readonly number[], nowMs: number): boolean {
    const out = this.#out;
    for (let i = 0; i < items.length; i++) {
      const c = this.#compiled(items[i].limits);
      const slot = this.#use(slots[i], c);
      for (const l of c.layout) {
        const [arr, off] = this.#where(slot, l);
        l.algorithm.apply(arr, off, nowMs, l.spec, items[i].cost, false, out);
        if (!out.allowed) return false;
      }
    }
    return true;
  }

  /**
   * Whether every item would pass when applied in order — for calls naming one key more than once, where each
   * item must see the ones before it. Commits tentatively on snapshots and always restores them.
   */
  #trialRun(items: readonly StoreItem[], slots: readonly number[], nowMs: number): boolean {
    const out = this.#out;
    const saved = this.#save(slots);
    let allowed = true;
    for (let i = 0; i < items.length && allowed; i++) {
      const c = this.#compiled(items[i].limits);
      const slot = this.#use(slots[i], c);
      for (const l of c.layout) {
        const [arr, off] = this.#where(slot, l);
        l.algorithm.apply(arr, off, nowMs, l.spec, items[i].cost, true, out);
        if (!out.allowed) {
          allowed = false;
          break;
        }
      }
    }
    this.#restore(saved);
    return allowed;
  }

  /**
   * The decisions of a denied call naming one key more than once (nothing is written): each item's own verdict on
   * the states its earlier items that pass on their own would leave, as the reference store gives them, so the
   * second of two items on a key is denied when the first takes what is left.
   */
  #deniedInOrder(items: readonly StoreItem[], slots: readonly number[], nowMs: number): Decision[] {
    const out = this.#out;
    const saved = this.#save(slots);
    try {
      return items.map((it, i) => {
        const c = this.#compiled(it.limits);
        const slot = this.#use(slots[i], c);
        const layout = c.layout;
        const statuses: PolicyStatus[] = [];
        let pass = true;
        for (const l of layout) {
          const [arr, off] = this.#where(slot, l);
          const own = verdict(arr, off, l, it.cost, false, nowMs, out);
          if (!own) pass = false;
          statuses.push(policyStatusOf(l.spec, out, own, this.#warning(slot, l, out, false)));
        }
        if (pass) {
          for (const l of layout) {
            const [arr, off] = this.#where(slot, l);
            l.algorithm.apply(arr, off, nowMs, l.spec, it.cost, true, out);
          }
        }
        return combineDecision(statuses, "store", undefined, false);
      });
    } finally {
      this.#restore(saved);
    }
  }

  /**
   * Copies of the states of `slots` (each once), for {@link MemoryStore.#restore}; not of the scratch slot, zeroed
   * before each use instead.
   */
  #save(slots: readonly number[]): Map<number, [Float64Array, Float64Array[] | undefined]> {
    const stride = this.#slab.stride;
    const saved = new Map<number, [Float64Array, Float64Array[] | undefined]>();
    for (const slot of slots) {
      if (saved.has(slot) || slot === this.#capacity) continue;
      const big = this.#big[slot];
      saved.set(slot, [
        this.#slab.data.slice(slot * stride, slot * stride + stride),
        big?.map((state) => state.slice()),
      ]);
    }
    return saved;
  }

  /**
   * Puts back the states {@link MemoryStore.#save} copied: a large state grown since is replaced by its copy, so
   * that nothing the trial wrote past the copied prefix stays.
   */
  #restore(saved: Map<number, [Float64Array, Float64Array[] | undefined]>): void {
    const stride = this.#slab.stride;
    for (const [slot, [data, big]] of saved) {
      this.#slab.data.set(data, slot * stride);
      const states = this.#big[slot];
      if (big === undefined || states === undefined) continue;
      big.forEach((copy, i) => {
        const state = states[i];
        if (state.length === copy.length) state.set(copy);
        else {
          this.#largeBytes += (copy.length - state.length) * 8;
          states[i] = copy;
        }
      });
    }
  }

  #peek(limits: LimitSet, key: string, cost: number, nowMs: number): Decision {
    const t = this.#table(limits);
    const slot = this.#slotIn(t, key);
    const out = this.#out;
    const statuses: PolicyStatus[] = [];
    const c = this.#compiled(limits);
    for (const l of c.layout) {
      if (slot === undefined) l.algorithm.apply(c.zeros, 0, nowMs, l.spec, cost, false, out);
      else {
        const [arr, off] = this.#where(slot, l);
        l.algorithm.apply(arr, off, nowMs, l.spec, cost, false, out);
      }
      // A fresh state carries no warning (the flag is cleared on the next consume).
      const warning =
        slot !== undefined && (this.#flags[slot] & l.warnBit) !== 0 && !this.#idle(slot, l, nowMs);
      statuses.push(
        policyStatusOf(
          l.spec,
          out,
          out.allowed,
          out.allowed && nextWarning(warning, out.remaining, l.spec.burst),
        ),
      );
    }
    return combineDecision(statuses, "store");
  }

  /** The decision of `slot`'s single limit `l` from the verdict in `out`, updating its warning flag. */
  #single(slot: number, l: LimitLayout, out: StepOut, allowed: boolean): Decision {
    return verdictDecision(l.spec, out, allowed, limitStateOf(allowed, this.#warning(slot, l, out, allowed)));
  }

  /** Clears the warning flags of the limits of `slot` whose state is back to fresh: it carries no history. */
  #forgetIdleWarnings(slot: number, layout: readonly LimitLayout[], nowMs: number): void {
    if ((this.#flags[slot] & ~1) === 0) return;
    for (const l of layout) {
      if ((this.#flags[slot] & l.warnBit) !== 0 && this.#idle(slot, l, nowMs)) this.#flags[slot] ^= l.warnBit;
    }
  }

  /** Whether limit `l` of `slot` is back to its fresh state. */
  #idle(slot: number, l: LimitLayout, nowMs: number): boolean {
    const [arr, off] = this.#where(slot, l);
    return l.algorithm.idleAfterMs(arr, off, nowMs, l.spec) <= 0;
  }

  /** The warning flag of limit `l` of `slot`, updated from this step's usage when the step was committed. */
  #warning(slot: number, l: LimitLayout, out: StepOut, committed: boolean): boolean {
    const warning = (this.#flags[slot] & l.warnBit) !== 0;
    if (!committed) return warning;
    const next = nextWarning(warning, out.remaining, l.spec.burst);
    if (next !== warning) this.#flags[slot] ^= l.warnBit;
    return next;
  }

  /**
   * Where limit `l` of `slot` keeps its state: the array and the offset in it. A large state is first grown to what
   * its next step may touch ({@link Algorithm.extent}), so any call on it may follow.
   */
  #where(slot: number, l: LimitLayout): [Float64Array, number] {
    if (l.big) return [this.#large(slot, l), 0];
    return [this.#slab.data, slot * this.#slab.stride + l.offset];
  }

  /**
   * Large state `l` of `slot`, grown when its next step may touch floats past the prefix held: to the larger of that
   * and twice the prefix, at most the full width (the new floats zero, as in a full-width state). Its bytes are
   * counted, and kept within the budget once the call is over ({@link MemoryStore.#trimLarge}).
   */
  #large(slot: number, l: LimitLayout): Float64Array {
    const states = this.#big[slot] as Float64Array[];
    const state = states[l.offset];
    if (state.length === l.width) return state;
    const need = l.algorithm.extent === undefined ? l.width : l.algorithm.extent(state, 0, l.spec);
    if (need <= state.length) return state;
    const grown = new Float64Array(Math.min(l.width, Math.max(need, 2 * state.length)));
    grown.set(state);
    states[l.offset] = grown;
    if (slot !== this.#capacity) this.#largeBytes += (grown.length - state.length) * 8;
    return grown;
  }

  /**
   * Gives `slot` the large states of `layout`, each `lengths[i]` floats (the initial size by default), dropping those
   * it held; keeps the count of their bytes and the slot's place among the slots holding some.
   */
  #setLarge(slot: number, layout: readonly LimitLayout[], lengths?: readonly number[]): void {
    this.#dropLarge(slot);
    const states: Float64Array[] = [];
    for (let i = 0; i < layout.length; i++) {
      const l = layout[i];
      if (!l.big) continue;
      const state = new Float64Array(lengths?.[i] ?? l.initial);
      states[l.offset] = state;
      this.#largeBytes += state.length * 8;
    }
    if (states.length === 0) return;
    this.#big[slot] = states;
    this.#largeSlots ??= new Int32Array(this.#capacity);
    this.#largeAt ??= new Int32Array(this.#capacity);
    this.#largeSlots[this.#largeCount] = slot;
    this.#largeAt[slot] = ++this.#largeCount;
  }

  /** Drops the large states of `slot` (of slots 0 … C − 1), if any. */
  #dropLarge(slot: number): void {
    const states = this.#big[slot];
    if (states === undefined) return;
    for (const state of states) this.#largeBytes -= state.length * 8;
    this.#big[slot] = undefined;
    const list = this.#largeSlots as Int32Array;
    const at = this.#largeAt as Int32Array;
    const last = list[--this.#largeCount];
    list[at[slot] - 1] = last;
    at[last] = at[slot];
    at[slot] = 0;
  }

  /**
   * Brings the bytes of large states back within {@link MemoryStoreOptions.maxLargeStateBytes}, after a call: first
   * the keys a quota read stored (they hold nothing), then a CLOCK over the slots holding large states, reclaiming an
   * idle one, else giving a recently used one a second chance, else evicting it (counted as the capacity's CLOCK
   * counts). Never in the middle of a call, which may hold any slot.
   */
  #trimLarge(nowMs: number): void {
    const list = this.#largeSlots as Int32Array;
    const flags = this.#flags;
    while (this.#largeBytes > this.#maxLargeBytes && this.#reclaimStoredByRead(nowMs)) {}
    while (this.#largeBytes > this.#maxLargeBytes && this.#largeCount > 0) {
      if (this.#largeHand >= this.#largeCount) this.#largeHand = 0;
      const slot = list[this.#largeHand];
      if (this.#isIdle(slot, nowMs)) {
        this.#reclaimed++;
        this.#release(slot); // the last slot of the list takes its place under the hand
      } else if ((flags[slot] & 1) !== 0) {
        flags[slot] &= ~1;
        this.#largeHand++;
      } else {
        this.#evicted++;
        this.#release(slot);
      }
    }
  }

  /**
   * Stores `key` in table `t` (a free slot, or one {@link MemoryStore.#makeRoom} frees), its state fresh, and returns
   * its slot. `idle`: the call stepping it leaves it holding nothing (a cost of 0), to be reclaimed first.
   */
  #insert(t: Table, key: string, nowMs: number, idle: boolean): number {
    if (this.#closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", "memoryStore: used after close()");
    let slot: number;
    if (this.#freeTop > 0) slot = this.#free[--this.#freeTop];
    else slot = this.#makeRoom(nowMs);
    if (idle) {
      this.#idleRing ??= new Int32Array(this.#capacity);
      this.#idleRing[this.#idleNext] = slot;
      this.#idleNext = this.#idleNext + 1 === this.#capacity ? 0 : this.#idleNext + 1;
      if (this.#idleCount < this.#capacity) this.#idleCount++;
    }
    this.#insertsSinceSweep++;
    this.#keys[slot] = key;
    this.#owner[slot] = t.id;
    this.#index.add(t.id, key, slot);
    t.size++;
    if (slot < t.lo) t.lo = slot;
    if (slot > t.hi) t.hi = slot;
    this.#flags[slot] = 1;
    if (this.#tags !== undefined) this.#tags[slot] = 0;
    const base = slot * this.#slab.stride;
    this.#slab.data.fill(0, base, base + this.#slab.stride);
    this.#setLarge(slot, t.layout);
    return slot;
  }

  /**
   * Resets the state of `slot` under `limits` in place when one of its limits keeps something across a reset
   * (`Algorithm.resetKeep`: a concurrency limit's last lease id): every state fresh but for what those keep, the
   * warning flags cleared. False when nothing is kept: the caller then drops the key.
   */
  #resetInPlace(limits: LimitSet, slot: number): boolean {
    const layout = this.#compiled(limits).layout;
    let kept = false;
    for (const l of layout) {
      const [arr, off] = this.#where(slot, l);
      const keep = l.algorithm.resetKeep;
      if (keep !== undefined) {
        if (keep(arr, off, l.spec)) kept = true;
      } else arr.fill(0, off, off + l.width);
    }
    if (kept) this.#flags[slot] &= 1; // the recently-used bit stays; the warning bits go
    return kept;
  }

  /** Marks table `t` as holding no key (its slot range empty). */
  #emptied(t: Table): void {
    t.size = 0;
    t.lo = this.#capacity;
    t.hi = -1;
  }

  /** The slot of `key` in table `t`, or undefined when the store does not hold it. */
  #slotIn(t: Table, key: string): number | undefined {
    const slot = this.#index.get(t.id, key);
    return slot === -1 ? undefined : slot;
  }

  /** The slots of every key of table `t` (a scan of the owners in `[t.lo, t.hi]`: for reconfiguration). */
  #slotsOf(t: Table): number[] {
    const slots: number[] = [];
    const owner = this.#owner;
    for (let slot = t.lo; slot <= t.hi; slot++) if (owner[slot] === t.id) slots.push(slot);
    return slots;
  }

  /**
   * Frees a slot when none is free: reclaim idle keys first (those a quota read stored, then any a sweep finds,
   * amortised to at most 16 slot checks per insert), else evict by CLOCK. Returns a free slot.
   */
  #makeRoom(nowMs: number): number {
    const owner = this.#owner;
    const flags = this.#flags;
    const pinned = this.#pinned;
    if (this.#reclaimStoredByRead(nowMs)) return this.#free[--this.#freeTop];
    if (this.#insertsSinceSweep * 16 >= this.#capacity && this.sweep(nowMs) > 0)
      return this.#free[--this.#freeTop];
    for (let seen = 0; ; seen++) {
      const slot = this.#hand;
      this.#hand = slot + 1 === this.#capacity ? 0 : slot + 1;
      if (owner[slot] === 0) continue;
      if (pinned.length > 0 && pinned.includes(slot)) {
        // Two rounds met only pinned or referenced slots: every slot holds a key of this very call.
        if (seen > 2 * this.#capacity) {
          throw new InvalidArgumentError(
            `memoryStore: one call names more keys than the store holds (capacity ${this.#capacity})`,
          );
        }
        continue;
      }
      if (this.#isIdle(slot, nowMs)) {
        this.#reclaimed++;
        this.#release(slot);
        return this.#free[--this.#freeTop];
      }
      if ((flags[slot] & 1) !== 0) {
        flags[slot] &= ~1;
        continue;
      }
      this.#evicted++;
      this.#release(slot);
      return this.#free[--this.#freeTop];
    }
  }

  /**
   * Reclaims the newest key a quota read stored that is still held, idle and not pinned ({@link
   * MemoryStore.#idleRing}; the entries passed on the way are stale, and dropped). False when there is none.
   */
  #reclaimStoredByRead(nowMs: number): boolean {
    const ring = this.#idleRing;
    while (this.#idleCount > 0 && ring !== undefined) {
      this.#idleNext = (this.#idleNext === 0 ? this.#capacity : this.#idleNext) - 1;
      this.#idleCount--;
      const slot = ring[this.#idleNext];
      if (this.#owner[slot] !== 0 && !this.#pinned.includes(slot) && this.#isIdle(slot, nowMs)) {
        this.#reclaimed++;
        this.#release(slot);
        return true;
      }
    }
    return false;
  }

  /**
   * Whether `slot`'s state carries no information: idle under every set bound to its table since the state last
   * started fresh (a key may have been written under any of them), never when there were too many.
   */
  #isIdle(slot: number, nowMs: number): boolean {
    const t = this.#tablesBySlotOwner[this.#owner[slot]]!;
    if (t.neverIdle) return false;
    for (const c of t.idleSets) {
      for (const l of c.layout) {
        const [arr, off] = this.#where(slot, l);
        if (l.algorithm.idleAfterMs(arr, off, nowMs, l.spec) > 0) return false;
      }
    }
    return true;
  }

  #release(slot: number): void {
    const t = this.#tablesBySlotOwner[this.#owner[slot]];
    const key = this.#keys[slot];
    if (t !== undefined && key !== undefined) {
      this.#index.remove(t.id, key, slot);
      if (--t.size === 0) this.#emptied(t);
    }
    this.#keys[slot] = undefined;
    this.#dropLarge(slot);
    this.#owner[slot] = 0;
    this.#flags[slot] = 0;
    if (this.#tags !== undefined) this.#tags[slot] = 0;
    this.#free[this.#freeTop++] = slot;
  }

  /** The table `set` was last bound to, rebinding when another set of its namespace was used since. */
  #table(set: LimitSet): Table {
    const t = this.#tables.get(set);
    return t !== undefined && t.set === set ? t : this.#bind(set);
  }

  /** `set`'s layout: where each limit's state sits in a slot (computed once per set). */
  #compiled(set: LimitSet): CompiledSet {
    let c = this.#compiledSets.get(set);
    if (c === undefined) {
      const layout: LimitLayout[] = [];
      let small = 0;
      let big = 0;
      let bigCount = 0;
      let initials = 0;
      set.specs.forEach((spec, i) => {
        const algorithm = set.algorithms[i];
        const width = algorithm.width(spec);
        const isBig = width > SMALL_STATE_MAX_WIDTH;
        // A large state starts small when its algorithm says how much of it a step touches; else at its full width.
        const initial = !isBig
          ? width
          : algorithm.extent === undefined
            ? width
            : Math.min(width, Math.max(LARGE_STATE_INITIAL_FLOATS, algorithm.extent(ZERO_HEADER, 0, spec)));
        layout.push({
          algorithm,
          spec,
          big: isBig,
          offset: isBig ? bigCount : small,
          width,
          warnBit: 1 << (i + 1),
          initial,
        });
        if (isBig) {
          big += width;
          bigCount++;
          initials = Math.max(initials, initial);
        } else small += width;
      });
      // The single-limit fast path returns no leases, so concurrency limits never take it.
      const only =
        layout.length === 1 && !layout[0].big && layout[0].algorithm.release === undefined
          ? layout[0]
          : undefined;
      c = {
        layout,
        small,
        big,
        bigCount,
        only,
        shape: only === undefined ? undefined : this.#shapeOf(only),
        zeros: new Float64Array(Math.max(small, initials, 1)),
        idleKey: idleKeyOf(layout),
      };
      this.#compiledSets.set(set, c);
    }
    return c;
  }

  /** The object standing for `l`'s shape (algorithm, state width, name), the same for every set of that shape. */
  #shapeOf(l: LimitLayout): object {
    const name = `${l.algorithm.id}/${l.width}/${l.spec.name}`; // the name last: it may hold "/" itself
    let shape = this.#shapes.get(name);
    if (shape === undefined) {
      shape = Object.freeze({ name });
      this.#shapes.set(name, shape);
    }
    return shape;
  }

  /**
   * Makes `set` the current set of its namespace's table, creating the table on first use. Sets of the same
   * shape (names, algorithms and widths, in order) share the state as is; a set of another shape re-lays it by
   * limit name ({@link MemoryStore.#migrate}), or drops the keys when no limit carries over (see the module
   * comment). Switching between same-shape sets allocates nothing.
   */
  #bind(set: LimitSet): Table {
    this.#assertOpen();
    const c = this.#compiled(set);
    if (c.big * 8 > this.#maxLargeBytes) {
      throw new InvalidArgumentError(
        `memoryStore: one key of limits ${JSON.stringify(set.namespace)} may hold ${c.big * 8} bytes of large states (${c.layout
          .filter((l) => l.big)
          .map((l) => `${l.spec.name}: ${l.spec.algorithm}`)
          .join(", ")}), more than maxLargeStateBytes (${this.#maxLargeBytes})`,
      );
    }
    let t = this.#tablesByNamespace.get(set.namespace);
    const relaid = t !== undefined && !sameShape(t.layout, c.layout);
    if (t !== undefined && relaid) {
      const from = carriedFrom(t.layout, c.layout);
      if (from.some((i) => i !== -1)) {
        this.#migrate(t, c.layout, c.small, from); // kept limits: keep state, the kernels clamp on touch
      } else {
        for (const slot of this.#slotsOf(t)) this.#release(slot);
      }
      // The states are re-laid (or gone): the sets of the old layout no longer read them; those of the new one
      // are noted again below.
      t.idleSets = [];
      t.idleKeys.clear();
      t.neverIdle = t.forgetful;
    }
    if (t === undefined) {
      let id = this.#freeTableIds.pop() ?? this.#tablesBySlotOwner.length;
      if (id > MAX_TABLES) {
        this.#recycleTables();
        id = this.#freeTableIds.pop() ?? id;
        if (id > MAX_TABLES) {
          throw new InvalidArgumentError(
            `memoryStore: ${set.namespace === "" ? "a new namespace" : `namespace ${JSON.stringify(set.namespace)}`}: the store holds keys of ${MAX_TABLES} namespaces, the most it can at once`,
          );
        }
      }
      t = {
        id,
        namespace: set.namespace,
        size: 0,
        lo: this.#capacity,
        hi: -1,
        set,
        layout: c.layout,
        only: c.only,
        shape: c.shape,
        zeros: c.zeros,
        consumeOne: undefined,
        choiceId: 0,
        choiceEpoch: 0,
        idleSets: [],
        idleKeys: new Set(),
        neverIdle: false,
        noted: [],
        notedKeys: new Set(),
        forgetful: false,
      };
      this.#tablesBySlotOwner[id] = t;
      this.#tablesByNamespace.set(set.namespace, t);
    }
    t.set = set;
    t.layout = c.layout;
    t.only = c.only;
    if (t.shape !== c.shape) this.#tableVersion.version++;
    t.shape = c.shape;
    t.zeros = c.zeros;
    t.consumeOne = c.only === undefined ? undefined : this.#consumerOf(t, set, c.only);
    if (c.small > this.#slab.stride) this.#widen(c.small);
    this.#tables.set(set, t);
    if (relaid) {
      for (const n of t.noted) if (sameShape(n.layout, c.layout)) this.#addIdleSet(t, n);
    }
    this.#noteIdleSet(t, c);
    return t;
  }

  /**
   * Notes that `c`, of the shape `t` is bound to, may step `t`'s keys: remembered across re-lays
   * ({@link Table.noted}), and one of the sets they are judged idle under ({@link Table.idleSets}).
   */
  #noteIdleSet(t: Table, c: CompiledSet): void {
    if (!t.notedKeys.has(c.idleKey)) {
      if (t.noted.length < MAX_NOTED_SETS) {
        t.noted.push(c);
        t.notedKeys.add(c.idleKey);
      } else t.forgetful = true;
    }
    this.#addIdleSet(t, c);
  }

  /**
   * Frees the ids of every table holding no key, when no id is left for a new namespace: a table's id is 16 bits, and
   * namespaces come and go over a process's life (tenants, reloaded rules). A recycled table is unbound for good (its
   * set and shape are no set's, its choice epoch no consumer's), so whatever still holds it — a set's entry, a bound
   * consumer, a choice consumer — finds it unbound on its next call and binds its set again, to a new table (the id
   * it holds may be another namespace's by then; it is never used to read a key but beside that check). Such a
   * consumer keeps working, on its slow path; binding the set again gives a fast one. O(tables), once per 65,535
   * tables created at most, unless nearly all of them hold keys.
   */
  #recycleTables(): void {
    const tables = this.#tablesBySlotOwner;
    for (let id = tables.length - 1; id >= 1; id--) {
      const t = tables[id];
      if (t === undefined || t.size !== 0) continue;
      if (this.#tablesByNamespace.get(t.namespace) === t) this.#tablesByNamespace.delete(t.namespace);
      tables[id] = undefined;
      t.set = RECYCLED_SET;
      t.shape = RECYCLED_SHAPE;
      t.choiceEpoch = -1;
      t.consumeOne = undefined;
      this.#freeTableIds.push(id);
    }
    this.#tableVersion.version++;
  }

  /** Adds `c` to the sets `t`'s keys are judged idle under ({@link Table.idleSets}). */
  #addIdleSet(t: Table, c: CompiledSet): void {
    if (t.neverIdle) return;
    const key = c.idleKey;
    if (t.idleKeys.has(key)) return;
    if (t.idleSets.length >= MAX_IDLE_SETS) {
      t.neverIdle = true;
      t.idleSets = [];
      t.idleKeys.clear();
      return;
    }
    t.idleKeys.add(key);
    t.idleSets.push(c);
  }

  /**
   * Moves every key of `t` to a new layout, limit by name: limit `i` of `layout` takes the state of limit
   * `from[i]` of the old one (same name and algorithm; -1: none, it starts fresh), handed over by `resizeState`
   * when the width changed (a changed limit of sliding_log or concurrency, a changed period of bucketed_window), as
   * {@link step} does; the kernels clamp the rest on touch. Each limit's warning flag moves with its state.
   *
   * A large state is held as a prefix (module comment), so its old width is the old layout's, never the length of
   * what is held: `resizeState` reads the prefix under the old width (zeros past it; the prefix covers the old
   * `extent`, which covers what a ring's resize reads), and writes nothing but zeros past the smaller of the new
   * width and the prefix's length, the length the new state is given (at least the initial one; it grows to the
   * new `extent` on its next use, in `#where`).
   */
  #migrate(t: Table, layout: readonly LimitLayout[], small: number, from: readonly number[]): void {
    if (small > this.#slab.stride) this.#widen(small);
    const old = t.layout;
    for (const slot of this.#slotsOf(t)) {
      // A large state held as a prefix: the floats past it are zeros, and its copy keeps the prefix as held.
      const saved = old.map((l) => {
        const [arr, off] = this.#where(slot, l);
        return arr.slice(off, off + l.width);
      });
      const base = slot * this.#slab.stride;
      this.#slab.data.fill(0, base, base + this.#slab.stride);
      this.#setLarge(
        slot,
        layout,
        layout.map((l, i) =>
          Math.min(l.width, Math.max(l.initial, from[i] === -1 ? 0 : saved[from[i]].length)),
        ),
      );
      const flags = this.#flags[slot];
      let next = flags & 1; // recently used
      layout.forEach((l, i) => {
        const j = from[i];
        if (j === -1) return;
        const [arr, off] = this.#where(slot, l);
        const was = old[j].width; // the full width the state was laid out for (saved[j] may be a prefix of it)
        // the same layout: the prefix as held; else handed over (read under the old width)
        if (was === l.width) arr.set(saved[j], off);
        else resizeState(l.algorithm, saved[j], was, arr, off, l.spec);
        if ((flags & old[j].warnBit) !== 0) next |= l.warnBit;
      });
      this.#flags[slot] = next;
    }
  }

  /** Grows the per-slot block of the shared array to `stride` floats, moving every slot's state. */
  #widen(stride: number): void {
    const old = this.#slab.data;
    const oldStride = this.#slab.stride;
    const next = new Float64Array((this.#capacity + 1) * stride); // the scratch slot's state is not moved
    for (let slot = 0; slot < this.#capacity; slot++) {
      if (this.#owner[slot] === 0) continue;
      next.set(old.subarray(slot * oldStride, slot * oldStride + oldStride), slot * stride);
    }
    this.#slab.data = next;
    this.#slab.stride = stride;
  }
}

/**
 * The consume of a set of one small limit `l` (the common case): one index lookup, one read and one write of the
 * slot's flags (marking it recently used, updating its warning bit), the kernel, and the decision as the only
 * allocation. Everything it needs arrives as parameters, so that the closure is small and self-contained: the JIT
 * compiles the whole path as one unit, inlined into its caller when the caller has room.
 *
 * It has one exit, the decision it builds: a caller that inlines the path and only reads the decision's fields
 * (`allowed`, `retryAfterMs`) then sees where the object comes from and need not allocate it at all. So a key not
 * stored yet, or a set of another shape bound in the namespace since, does not return from elsewhere: `slotOf` (the
 * slow path) stores or rebinds and hands back the slot (for a key it does not store, a cost of 0 on a full store
 * or a denial of a fresh state, the zeroed scratch slot), and the step continues here. It throws on a closed store.
 * `shape` is the set's {@link CompiledSet.shape}: while the table's bound set has it, the slot's state is this
 * limit's to step, whichever set of the shape was bound.
 */
function singleLimitConsumer(
  table: Table,
  shape: object | undefined,
  l: LimitLayout,
  index: KeyIndex,
  slab: Slab,
  flags: Uint8Array,
  out: StepOut,
  slotOf: (key: string, cost: number, nowMs: number) => number,
): Consumer {
  const { algorithm, spec } = l;
  return consumerOver(
    table,
    shape,
    index,
    table.id,
    algorithm.apply,
    algorithm.idleAfterMs,
    spec,
    WARNING_ENTER_REMAINING * spec.burst,
    WARNING_LEAVE_REMAINING * spec.burst,
    l.offset,
    l.warnBit,
    slab,
    flags,
    out,
    slotOf,
  );
}

/**
 * {@link singleLimitConsumer} over the layout's parts, each a plain parameter: the closure reads them from its
 * context without the check for the temporal dead zone that a `const` (or a destructured parameter) needs, which
 * keeps its bytecode small. `apply` and `idleAfterMs` are the algorithm's, which use no `this`; `enter` and `leave`
 * are {@link nextWarning}'s thresholds for this limit, computed once.
 */
function consumerOver(
  table: Table,
  shape: object | undefined,
  index: KeyIndex,
  tableId: number,
  apply: Algorithm["apply"],
  idleAfterMs: Algorithm["idleAfterMs"],
  spec: LimitSpec,
  enter: number,
  leave: number,
  offset: number,
  warnBit: number,
  slab: Slab,
  flags: Uint8Array,
  out: StepOut,
  slotOf: (key: string, cost: number, nowMs: number) => number,
): Consumer {
  return function consumeOne(key, cost, nowMs) {
    let slot = index.get(tableId, key);
    if (table.shape !== shape || slot === -1) slot = slotOf(key, cost, nowMs);
    return stepSingle(
      apply,
      idleAfterMs,
      spec,
      enter,
      leave,
      warnBit,
      slab,
      offset,
      slot,
      flags,
      cost,
      nowMs,
      out,
    );
  };
}

/**
 * The step of a single small limit on `slot` (the kernel, the flags, the decision): the common part of
 * {@link consumerOver} and {@link SlotChoice}, small enough to be inlined into either, so that a caller inlining
 * the consumer still sees where the decision comes from.
 */
function stepSingle(
  apply: Algorithm["apply"],
  idleAfterMs: Algorithm["idleAfterMs"],
  spec: LimitSpec,
  enter: number,
  leave: number,
  warnBit: number,
  slab: Slab,
  offset: number,
  slot: number,
  flags: Uint8Array,
  cost: number,
  nowMs: number,
  out: StepOut,
): Decision {
  const data = slab.data;
  const off = slot * slab.stride + offset;
  const before = flags[slot] | 1; // marked recently used
  // A key with its warning flag up decides first without writing: denied, it keeps the flag (a denial changes
  // no state, and every reader of the flag drops it from a fresh state first); granted, the step runs again to
  // write (one call site of the kernel, in a loop, so that the JIT inlines it once), and the flag is dropped if
  // the state was back to fresh, which can only be asked before the write.
  let commit = (before & warnBit) === 0;
  let warned = !commit;
  for (;;) {
    apply(data, off, nowMs, spec, cost, commit, out);
    if (commit || !out.allowed) break;
    // The flag decides the new one only in the hysteresis band [enter, leave] (the remaining units are the same
    // in both runs), and holds there unless the state was back to fresh (no history). Asked only there: a call
    // that never runs is not inlined, which keeps the consumer within its callers' inlining budget.
    if (out.remaining >= enter && out.remaining <= leave)
      warned = !(idleAfterMs(data, off, nowMs, spec) <= 0);
    commit = true;
  }
  const allowed = out.allowed;
  const remaining = out.remaining;
  // A grant moves the flag with the remaining units, as nextWarning does: up below `enter`, down above `leave`.
  // A denial keeps it, unless the state was back to fresh (it carries no history, as on a grant above). A state
  // back to fresh denies only a cost no state admits (retry never: `retryAfterMs` Infinity), so only such a denial
  // of a flagged key asks; the grant's arm is unchanged.
  const warning = allowed
    ? remaining < enter || (remaining <= leave && warned)
    : warned && (out.retryAfterMs !== Infinity || !(idleAfterMs(data, off, nowMs, spec) <= 0));
  flags[slot] = warning ? before | warnBit : before & ~warnBit;
  return new StoreDecision(spec, out, allowed, allowed ? (warning ? "warning" : "normal") : "throttled");
}

/**
 * The {@link ChoiceConsumer} of {@link MemoryStore.bindChoiceSync}: over several sets of one shape, the slot's tag
 * names the set when it carries this consumer's `mark` (and the table is still in the consumer's `epoch`); otherwise
 * `choose(key)` does, and the tag keeps it. `chosen` is the last choice.
 *
 * One object per bound rule, with `consume` on the prototype: a check reads the fields of one object instead of a
 * closure, its context and three arrays. The engine's checks go round its rules, so each rule's consumer is usually
 * out of the CPU's first-level cache when its turn comes, and every object touched is a cache miss (on the engine's
 * benchmark, one consumer shared by all 1,000 rules made a check 12–18 % faster; this form recovered 0–12 % of a
 * check, run to run). The numbers of each set (the {@link nextWarning} thresholds) are packed in one array,
 * `[enter, leave]` per set; the state's offset and warning bit are the shape's. Consumers of equal limits share
 * their specs and thresholds ({@link MemoryStore.#choiceLimits}): on that benchmark, whose 1,000 rules repeat one
 * pair of limits, a check got 5–8 % faster (one run in turns).
 */
class SlotChoice implements ChoiceConsumer {
  chosen = 0;
  readonly #table: Table;
  readonly #shape: object;
  readonly #tableId: number;
  readonly #mark: number;
  readonly #epoch: number;
  /** The store's table version at which this consumer last found its table as bound ({@link ChoiceCore.tables}). */
  #version = -1;
  /** The sets' limits, by choice (shared with every consumer of equal limits). */
  readonly #specs: readonly LimitSpec[];
  /** `[enter, leave]` ({@link nextWarning}'s thresholds) per choice. */
  readonly #bounds: Float64Array;
  readonly #index: KeyIndex;
  readonly #tags: Int32Array;
  readonly #core: ChoiceCore;
  readonly #choose: (key: string) => number;
  readonly #slotOf: (key: string, cost: number, nowMs: number) => number;

  constructor(
    table: Table,
    shape: object,
    id: number,
    limits: ChoiceLimits,
    index: KeyIndex,
    tags: Int32Array,
    core: ChoiceCore,
    choose: (key: string) => number,
    slotOf: (key: string, cost: number, nowMs: number) => number,
  ) {
    this.#table = table;
    this.#shape = shape;
    this.#tableId = table.id;
    this.#mark = id * 256 + 1;
    this.#epoch = table.choiceEpoch;
    this.#specs = limits.specs;
    this.#bounds = limits.bounds;
    this.#index = index;
    this.#tags = tags;
    this.#core = core;
    this.#choose = choose;
    this.#slotOf = slotOf;
  }

  consume(key: string, cost: number, nowMs: number): Decision {
    const core = this.#core;
    // While no table of the store has changed since this consumer last looked at its own, the table's shape and
    // epoch are as they were then: the common call reads no `Table` (one cold object fewer per call when calls go
    // round many rules).
    if (core.tables.version !== this.#version) return this.#consumeChecked(key, cost, nowMs);
    let slot = this.#index.get(this.#tableId, key);
    if (slot === -1) slot = this.#slotOf(key, cost, nowMs);
    const specs = this.#specs;
    const tags = this.#tags;
    let c = tags[slot] - this.#mark;
    if (c < 0 || c >= specs.length) {
      c = this.#chooseFor(key);
      tags[slot] = this.#mark + c;
    }
    return this.#step(c, slot, cost, nowMs);
  }

  /** {@link SlotChoice.consume} reading the table: after a change to some table of the store (maybe this one). */
  #consumeChecked(key: string, cost: number, nowMs: number): Decision {
    const table = this.#table;
    const version = this.#core.tables.version;
    let slot = this.#index.get(this.#tableId, key);
    if (table.shape !== this.#shape || slot === -1) slot = this.#slotOf(key, cost, nowMs);
    const current = table.choiceEpoch === this.#epoch;
    // The table is as this consumer was bound to it (#slotOf rebinds a table of another shape to this one's):
    // later calls may skip these checks until the next change.
    if (current && table.shape === this.#shape) this.#version = version;
    const tags = this.#tags;
    let c = tags[slot] - this.#mark;
    if (c < 0 || c >= this.#specs.length || !current) {
      c = this.#chooseFor(key);
      if (current) tags[slot] = this.#mark + c;
    }
    return this.#step(c, slot, cost, nowMs);
  }

  /** The choice of `key` by `choose`, checked. */
  #chooseFor(key: string): number {
    const c = this.#choose(key);
    if (!(c >= 0 && c < this.#specs.length))
      throw new InvalidArgumentError(
        `memoryStore: choice ${c} is not one of the ${this.#specs.length} sets bound`,
      );
    return c;
  }

  /** One step of choice `c` on `slot`; `chosen` records it. */
  #step(c: number, slot: number, cost: number, nowMs: number): Decision {
    this.chosen = c;
    const core = this.#core;
    const bounds = this.#bounds;
    return stepSingle(
      core.apply,
      core.idleAfterMs,
      this.#specs[c],
      bounds[2 * c],
      bounds[2 * c + 1],
      core.warnBit,
      core.slab,
      core.offset,
      slot,
      core.flags,
      cost,
      nowMs,
      core.out,
    );
  }
}

/** Cached {@link ChoiceLimits} of one store at most: past this, new consumers keep their own (memory stays bounded). */
const MAX_SHARED_CHOICES = 4096;

/** The limits of a {@link SlotChoice}, by choice: the specs and their `[enter, leave]` thresholds. */
interface ChoiceLimits {
  readonly specs: readonly LimitSpec[];
  readonly bounds: Float64Array;
}

/**
 * The content of `specs` as a string, equal exactly for specs that step and decide alike (every field of each, in
 * JSON: no name, whatever its characters, can make two different lists read alike).
 */
function choiceLimitsKey(specs: readonly LimitSpec[]): string {
  return JSON.stringify(
    specs.map((s) => [s.name, s.algorithm, s.limit, s.periodMs, s.burst, s.bucketMs, s.emissionMs]),
  );
}

/**
 * What every {@link SlotChoice} of one shape in one store shares: the kernel, the state's place in a slot, and the
 * store's arrays. One object per shape, so that it stays in the CPU's caches while the consumers round it.
 */
interface ChoiceCore {
  readonly apply: Algorithm["apply"];
  readonly idleAfterMs: Algorithm["idleAfterMs"];
  readonly offset: number;
  readonly warnBit: number;
  readonly slab: Slab;
  readonly flags: Uint8Array;
  readonly out: StepOut;
  /** The store's {@link MemoryStore.#tableVersion}. */
  readonly tables: TableVersion;
}

/** A counter bumped whenever any table of a store changes its `shape` or `choiceEpoch`. */
interface TableVersion {
  version: number;
}

/**
 * `fn` behind a call that V8's optimising compiler never inlines (a call through a Proxy, ~30 ns): for a slow path
 * called from a hot function, so that it does not take the hot function's inlining budget. V8 charges a function's
 * inlined code against every caller that inlines it; {@link singleLimitConsumer}'s callers must be able to inline all
 * of it (and so avoid allocating its decision), which leaves no room for the insert path.
 */
function outOfLine<F extends (...args: never[]) => unknown>(fn: F): F {
  return new Proxy(fn, {});
}

function hasDuplicates(slots: readonly number[]): boolean {
  if (slots.length < 2) return false;
  if (slots.length === 2) return slots[0] === slots[1];
  return new Set(slots).size !== slots.length;
}

/**
 * Per limit of `next`, the position in `prev` of the limit whose state it takes across a reconfiguration: the one
 * of the same name and algorithm (names are unique in a set), or -1 (a new name, or another algorithm: fresh).
 */
function carriedFrom(prev: readonly LimitLayout[], next: readonly LimitLayout[]): number[] {
  return next.map((l) => prev.findIndex((p) => p.spec.name === l.spec.name && p.algorithm === l.algorithm));
}

/** Whether two layouts share a slot's state as is: the same names, algorithms and widths, in order. */
function sameShape(a: readonly LimitLayout[], b: readonly LimitLayout[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (l, i) => l.algorithm === b[i].algorithm && l.width === b[i].width && l.spec.name === b[i].spec.name,
    )
  );
}

/**
 * Runs limit `l` for `cost` and returns its own verdict. With `commit`, an allowed step is written. Without,
 * nothing is written, and an allowed step is re-run for cost 0 so `out` reports the unchanged state.
 */
function verdict(
  arr: Float64Array,
  off: number,
  l: LimitLayout,
  cost: number,
  commit: boolean,
  nowMs: number,
  out: StepOut,
): boolean {
  l.algorithm.apply(arr, off, nowMs, l.spec, cost, commit, out);
  if (commit || !out.allowed) return out.allowed;
  l.algorithm.apply(arr, off, nowMs, l.spec, 0, false, out);
  return true;
}

/** Creates an in-process {@link MemoryStore}. */
export function memoryStore(options?: MemoryStoreOptions): MemoryStore {
  return new MemoryStore(options);
}

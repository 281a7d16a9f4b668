/**
 * The wire format of `scripts/apply.lua`: encoding a batch of groups into KEYS and ARGV, and decoding the flat
 * reply (one binary string of doubles, or an array of integers for a client without Buffer replies) into
 * decisions. Pure functions with no I/O, so that a Cluster store can group the same batches by
 * node and send each with {@link runScript}. The layout is documented line by line at the top of `apply.lua`.
 *
 * Decisions are built exactly as the memory and reference stores build them: per-limit statuses; with several
 * limits, `combineDecision`; an item whose own limits allowed while another item of its group denied is denied
 * (nothing was consumed); `retryAfterMs` is 0 when allowed; concurrency leases are reported by policy name.
 */
import type { LimitSet } from "../../algorithms/limit-set.js";
import {
  combineDecision,
  type Decision,
  decisionOf,
  type PolicyStatus,
  singleDecision,
} from "../../core/decision.js";
import { SluiceError, StoreUnavailableError } from "../../core/errors.js";
import type { LimitSpec } from "../../core/limit-spec.js";
import { limitStateOf } from "../../core/limit-state.js";
import type { CallTicket, StoreItem, StoreOp } from "../store.js";
import { ALGORITHM_CODES, type RedisScript, type RedisScriptClient, runScript } from "./script.js";

/** What a group asks the script to do: a {@link StoreOp}, or `release` of concurrency leases. */
export type GroupOp = StoreOp | "release";

const OP_CODES: Readonly<Record<GroupOp, number>> = Object.freeze({
  consume: 1,
  peek: 2,
  refund: 3,
  reset: 4,
  release: 5,
});

/** The op code of a consume checked against and recorded in an idempotency record (`Group.once`). */
const CONSUME_ONCE = 6;

/** The idempotency record of a consume group, as the script sees it. */
export interface GroupOnce {
  /** The Redis key of the record; in the slot of the group's first item (same hash tag). */
  readonly key: string;
  /** How long the record lives, whole ms >= 1. */
  readonly ttlMs: number;
  /** The instant of the decision, epoch ms on the caller's clock: kept in the record, reported by replays. */
  readonly atMs: number;
}

/** What the script says of the record of a group with `once`. */
export interface OnceAnswer {
  /** `fresh`: decided and recorded now; `replayed`: the record's; `pending`: a claim holds it, nothing was done. */
  readonly state: "fresh" | "replayed" | "pending";
  /** When replayed: the recorded instant (undefined for a record written before instants were kept). */
  readonly decidedAtMs: number | undefined;
}

/** One Store call: its items are all-or-nothing among themselves and independent of other groups. */
export interface Group {
  /** The operation. */
  readonly op: GroupOp;
  /** The items (release: exactly one, with `leases`). */
  readonly items: readonly StoreItem[];
  /** Epoch ms to decide at, or `""` for the server's clock (`TIME`). */
  readonly now: number | "";
  /** release only: lease ids by policy name. */
  readonly leases?: Readonly<Record<string, number>>;
  /** consume only: replay the recorded answer, or consume and record it (see `apply.lua`). */
  readonly once?: GroupOnce;
}

/** How a limit set's Redis keys are named: one key per limit for an identity. */
export type KeyNamer = (set: LimitSet, key: string) => readonly string[];

/** KEYS and ARGV of one script call. */
export interface EncodedBatch {
  /** Every state key, in batch order. */
  readonly keys: string[];
  /**
   * ARGV: one binary string of little-endian doubles, as documented in `apply.lua`; then `"b"` when the reply is
   * asked for in binary.
   */
  readonly args: [Buffer] | [Buffer, "b"];
  /** Whether the reply comes as one binary string (sent with `evalshaBuffer`), else as an array of integers. */
  readonly binary: boolean;
}

/** `now` of a group that asks for the server's clock. */
const SERVER_CLOCK = -1;

const setArgsCache = new WeakMap<LimitSet, readonly number[]>();

/** The ARGV description of a limit set: its number of limits, then 5 numbers per limit. */
function setArgs(set: LimitSet): readonly number[] {
  let args = setArgsCache.get(set);
  if (args === undefined) {
    const a: number[] = [set.specs.length];
    for (const s of set.specs) a.push(ALGORITHM_CODES[s.algorithm], s.limit, s.periodMs, s.burst, s.bucketMs);
    args = Object.freeze(a);
    setArgsCache.set(set, args);
  }
  return args;
}

/**
 * Builds the KEYS and ARGV that apply `groups` in order in one call.
 *
 * Two passes over the groups, so that nothing grows while it is built: the first counts the keys and the doubles
 * and numbers the distinct limit sets (a batch holds few: a linear search beats a Map), the second writes the
 * keys into an array of their final length and the doubles straight into the ARGV buffer. With `binary`, the
 * script is asked for its binary reply (the client must send it with `evalshaBuffer`: {@link sendBatch} does).
 */
export function encodeBatch(
  groups: readonly Group[],
  keysOf: KeyNamer,
  ttlMarginMs: number,
  binary = false,
): EncodedBatch {
  const sets: LimitSet[] = [];
  let nkeys = 0;
  let count = 3; // ttlMarginMs, S, G
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    const items = g.items;
    count += g.once === undefined ? 3 : 5;
    if (g.once !== undefined) nkeys++;
    for (let i = 0; i < items.length; i++) {
      const set = items[i].limits;
      const n = set.specs.length;
      nkeys += n;
      count += g.op === "release" ? 2 + n : 2;
      if (sets.indexOf(set) === -1) {
        sets.push(set);
        count += setArgs(set).length;
      }
    }
  }
  const buf = Buffer.allocUnsafe(count * 8);
  buf.writeDoubleLE(ttlMarginMs, 0);
  buf.writeDoubleLE(sets.length, 8);
  let at = 16;
  for (let si = 0; si < sets.length; si++) {
    const args = setArgs(sets[si]);
    for (let j = 0; j < args.length; j++) at = buf.writeDoubleLE(args[j], at);
  }
  at = buf.writeDoubleLE(groups.length, at);
  const keys: string[] = new Array(nkeys);
  let ki = 0;
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    const once = g.once;
    const items = g.items;
    if (once === undefined) {
      at = buf.writeDoubleLE(OP_CODES[g.op], at);
      at = buf.writeDoubleLE(g.now === "" ? SERVER_CLOCK : g.now, at);
      at = buf.writeDoubleLE(items.length, at);
    } else {
      at = buf.writeDoubleLE(CONSUME_ONCE, at);
      at = buf.writeDoubleLE(g.now === "" ? SERVER_CLOCK : g.now, at);
      at = buf.writeDoubleLE(items.length, at);
      at = buf.writeDoubleLE(once.ttlMs, at);
      at = buf.writeDoubleLE(once.atMs, at);
      keys[ki++] = once.key;
    }
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const set = item.limits;
      at = buf.writeDoubleLE(sets.indexOf(set) + 1, at);
      at = buf.writeDoubleLE(item.cost, at);
      const names = keysOf(set, item.key);
      for (let j = 0; j < names.length; j++) keys[ki++] = names[j];
      if (g.op === "release") {
        for (const s of set.specs) at = buf.writeDoubleLE(g.leases?.[s.name] ?? 0, at);
      }
    }
  }
  if (at !== buf.length || ki !== nkeys) {
    throw new TypeError(`encodeBatch: wrote ${at} of ${buf.length} bytes, ${ki} of ${nkeys} keys`);
  }
  return { keys, args: binary ? [buf, "b"] : [buf], binary };
}

/**
 * Sends one encoded batch with EVALSHA (EVAL on NOSCRIPT), as `evalshaBuffer` when its reply is binary, and returns
 * the raw reply.
 */
export function sendBatch(
  client: RedisScriptClient,
  script: RedisScript,
  batch: EncodedBatch,
): Promise<unknown> {
  return runScript(client, script, batch.keys, batch.args, batch.binary);
}

/** Whether Float64Array stores little-endian doubles here (it uses the platform's byte order). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** The doubles of the reply being decoded: reused by every call ({@link decodeBatch} is synchronous). */
let scratch = new Float64Array(256);
let scratchBytes = new Uint8Array(scratch.buffer);

/**
 * The reply as doubles, in {@link scratch} (grown as needed), and their number: a binary reply copied (a Buffer
 * from the socket has any alignment), an array reply converted (a recorded instant, a string, to its number; ""
 * to NaN).
 */
function valuesOf(reply: unknown): number {
  if (reply instanceof Uint8Array) {
    const bytes = reply.length;
    if (bytes % 8 !== 0) throw new TypeError(`unexpected script reply: ${bytes} bytes`);
    const n = bytes / 8;
    if (scratch.length < n) {
      scratch = new Float64Array(Math.max(n, 2 * scratch.length));
      scratchBytes = new Uint8Array(scratch.buffer);
    }
    if (LITTLE_ENDIAN) scratchBytes.set(reply);
    else {
      const view = new DataView(reply.buffer, reply.byteOffset, bytes);
      for (let i = 0; i < n; i++) scratch[i] = view.getFloat64(8 * i, true);
    }
    return n;
  }
  if (!Array.isArray(reply)) throw new TypeError(`unexpected script reply: ${typeof reply}`);
  const n = reply.length;
  if (scratch.length < n) {
    scratch = new Float64Array(Math.max(n, 2 * scratch.length));
    scratchBytes = new Uint8Array(scratch.buffer);
  }
  for (let i = 0; i < n; i++) {
    const v: unknown = reply[i];
    scratch[i] = typeof v === "number" ? v : typeof v === "string" && v !== "" ? Number(v) : Number.NaN;
  }
  return n;
}

/** A retryAfterMs from the reply: -1 stands for Infinity (the cost can never pass). */
function retryOf(ms: number): number {
  return ms === -1 ? Number.POSITIVE_INFINITY : ms;
}

/**
 * Per group, the decisions of its items (empty for release). Throws when the reply does not fit the batch.
 *
 * The reply (documented in `apply.lua`), a Buffer of little-endian doubles or an array of integers: for a release
 * group one value (1); otherwise, per item and per limit, a status of 3 to 5 values: `head` (1 allowed, 2 warning,
 * 4 committed, 8 a lease id follows), remaining, resetAfterMs, then retryAfterMs when not allowed (-1: never) and
 * the lease id when head has 8. A group with `once` is preceded by three values: its state (0 fresh, 1 replayed,
 * 2 pending: a claim holds the record, no status follows), how many values its statuses take, and the recorded
 * instant (a number in a binary reply, NaN for none; a string in an array reply, "" for none). With `replays`,
 * `replays[i]` is set for every group with `once`: its {@link OnceAnswer}, or the error of a record that does not
 * fit the group's items (recorded for other limits, or not numbers), in which case its decisions are empty.
 */
export function decodeBatch(
  reply: unknown,
  groups: readonly Group[],
  replays?: (OnceAnswer | Error | undefined)[],
): Decision[][] {
  const n = valuesOf(reply);
  const r = scratch;
  let p = 0;
  const out: Decision[][] = new Array(groups.length);
  for (let gi = 0; gi < groups.length; gi++) {
    const g = groups[gi];
    if (g.op === "release") {
      if (r[p++] !== 1) throw new TypeError(`unexpected script reply at ${p - 1}: ${String(r[p - 1])}`);
      out[gi] = [];
      continue;
    }
    if (g.once === undefined) {
      const items = g.items;
      if (items.length === 1) {
        // The common call (one item): its one decision, in an array of length one.
        out[gi] = [decodeItem(r, n, p, items[0])];
        p = decodedTo;
      } else {
        const decisions: Decision[] = [];
        p = decodeItems(r, n, p, items, decisions);
        out[gi] = decisions;
      }
      continue;
    }
    const decisions: Decision[] = [];
    const state = r[p];
    const end = p + 3 + r[p + 1];
    if (!(end <= n) || !(state === 0 || state === 1 || state === 2)) {
      throw new TypeError(`unexpected script reply at ${p}: ${String(state)}, ${String(r[p + 1])} of ${n}`);
    }
    const recordedAt = r[p + 2];
    if (state === 2) {
      p = end;
      if (replays !== undefined) replays[gi] = PENDING_ANSWER;
      out[gi] = decisions;
      continue;
    }
    let at = -1;
    try {
      at = decodeItems(r, end, p + 3, g.items, decisions);
      for (let i = p + 3; i < end; i++) if (Number.isNaN(r[i])) at = -1; // a recorded value that is no number
    } catch {
      // a record that does not fit these items: reported below
    }
    p = end;
    if (at !== end) {
      if (replays !== undefined) replays[gi] = new IdempotencyMismatchError(g.once.key);
      out[gi] = [];
      continue;
    }
    if (replays !== undefined) {
      replays[gi] =
        state === 0
          ? FRESH_ANSWER
          : { state: "replayed", decidedAtMs: Number.isFinite(recordedAt) ? recordedAt : undefined };
    }
    out[gi] = decisions;
  }
  if (p !== n) throw new TypeError(`unexpected script reply: ${n} values, expected ${p}`);
  return out;
}

const FRESH_ANSWER: OnceAnswer = Object.freeze({ state: "fresh", decidedAtMs: undefined });
const PENDING_ANSWER: OnceAnswer = Object.freeze({ state: "pending", decidedAtMs: undefined });

/** A recorded instant as the script returns it (a decimal string, "" when the record has none). */
function instantOf(v: unknown): number | undefined {
  const at = typeof v === "string" && v !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

/** A store call waiting for its script call's reply. */
export interface Settleable {
  /** The call's group. */
  readonly group: Group;
  /** Whether the caller still waits (batch-queue.ts drops a settled one unsent); undefined: always sent. */
  readonly ticket: CallTicket | undefined;
  /** Settles the call with its decisions; for a group with `once`, what became of its record. */
  readonly resolve: (decisions: Decision[], once?: OnceAnswer) => void;
  /** Settles the call with an error. */
  readonly reject: (error: unknown) => void;
}

/**
 * Answers a call dropped unsent because its ticket was settled (batch-queue.ts): its caller no longer waits, so the
 * error is never seen; it only keeps "every call is settled once".
 */
export function dropUnsent(call: Settleable): void {
  call.reject(DROPPED);
}

/** The one error every dropped call is answered with (nobody reads it; an `Error` per call costs ~2.5 µs). */
const DROPPED = new StoreUnavailableError(
  "redis",
  "call dropped unsent: its caller had stopped waiting for it",
);

/**
 * Settles every call of one script call from its `reply` (their `groups`, in order): a reply that does not fit
 * rejects them all with `ERR_SLUICE_STORE_UNAVAILABLE`; a recorded answer that does not fit its group rejects that
 * call alone (`ERR_SLUICE_UNSUPPORTED`).
 */
export function settleBatch(reply: unknown, pending: readonly Settleable[], groups: readonly Group[]): void {
  let replays: (OnceAnswer | Error | undefined)[] | undefined;
  for (let i = 0; i < groups.length; i++) {
    if (groups[i].once !== undefined) {
      replays = [];
      break;
    }
  }
  let decisions: Decision[][];
  try {
    decisions = decodeBatch(reply, groups, replays);
  } catch (error) {
    const failure = new StoreUnavailableError("redis", (error as Error).message, error);
    for (const p of pending) p.reject(failure);
    return;
  }
  if (replays === undefined) {
    for (let i = 0; i < pending.length; i++) pending[i].resolve(decisions[i]);
    return;
  }
  for (let i = 0; i < pending.length; i++) {
    const answer = replays[i];
    if (answer instanceof Error) pending[i].reject(answer);
    else pending[i].resolve(decisions[i], answer);
  }
}

/** A recorded answer that does not fit the items of its retry (their limits changed in between). */
export class IdempotencyMismatchError extends SluiceError {
  /** Names the record. */
  constructor(key: string) {
    super(
      "ERR_SLUICE_UNSUPPORTED",
      `redisStore.applyOnce: the answer recorded under ${JSON.stringify(key)} does not fit this call's items (their limits changed since it was recorded); decide without the shared record`,
    );
  }
}

/**
 * The value of an idempotency record, as `apply.lua` writes it: `<decidedAtMs>;<statuses>`, the statuses being what
 * the script would reply for `decisions` of `items` (per item and limit: head, remaining, resetAfterMs, then
 * retryAfterMs when denied, -1 for never, and the lease id when one was taken), decimal, joined by commas. Throws
 * `TypeError` when a decision does not fit its item's limits.
 */
export function encodeRecord(
  items: readonly StoreItem[],
  decisions: readonly Decision[],
  decidedAtMs: number,
): string {
  if (decisions.length !== items.length) {
    throw new TypeError(`idempotency record: ${decisions.length} decisions for ${items.length} items`);
  }
  const out: number[] = [];
  items.forEach((item, i) => {
    const d = decisions[i];
    const specs = item.limits.specs;
    const policies = d.policies;
    if (policies.length !== specs.length) {
      throw new TypeError(
        `idempotency record: items[${i}] has ${specs.length} limits, its decision ${policies.length}`,
      );
    }
    const committed = d.allowed;
    specs.forEach((spec, j) => {
      const s = policies[j];
      const lease = committed ? (d.leases?.[spec.name] ?? 0) : 0;
      const head =
        (s.allowed ? 1 : 0) + (s.state === "warning" ? 2 : 0) + (committed ? 4 : 0) + (lease !== 0 ? 8 : 0);
      out.push(head, s.remaining, s.resetAfterMs);
      if (!s.allowed) out.push(Number.isFinite(s.retryAfterMs) ? s.retryAfterMs : -1);
      if (lease !== 0) out.push(lease);
    });
  });
  return `${decidedAtMs};${out.join(",")}`;
}

/**
 * Decodes an idempotency record (see {@link encodeRecord}; one without `;` predates the instant) for `items`;
 * throws {@link IdempotencyMismatchError} naming `key` when it does not fit them.
 */
export function decodeRecord(
  value: string,
  items: readonly StoreItem[],
  key: string,
): { decisions: Decision[]; decidedAtMs: number | undefined } {
  const semi = value.indexOf(";");
  const body = semi === -1 ? value : value.slice(semi + 1);
  const r = body === "" ? new Float64Array(0) : Float64Array.from(body.split(","), Number);
  const decisions: Decision[] = [];
  let end = -1;
  try {
    end = decodeItems(r, r.length, 0, items, decisions);
  } catch {
    // reported below
  }
  if (end !== r.length || r.some((v) => Number.isNaN(v))) throw new IdempotencyMismatchError(key);
  return { decisions, decidedAtMs: semi === -1 ? undefined : instantOf(value.slice(0, semi)) };
}

/** Where {@link decodeItem} stopped: the position after the statuses it read (a module cursor: no tuple per call). */
let decodedTo = 0;

/** Decodes the statuses of `items` from `r[p…]` (up to `n`) into `decisions`; returns the position after them. */
function decodeItems(
  r: Float64Array,
  n: number,
  p: number,
  items: readonly StoreItem[],
  decisions: Decision[],
): number {
  for (const item of items) {
    decisions.push(decodeItem(r, n, p, item));
    p = decodedTo;
  }
  return p;
}

/** One limit's status as the script reported it. */
function statusOf(
  spec: LimitSpec,
  allowed: boolean,
  remaining: number,
  resetAfterMs: number,
  retryAfterMs: number,
  state: PolicyStatus["state"],
): PolicyStatus {
  const { name: policy, limit, periodMs } = spec;
  return { policy, allowed, limit, remaining, resetAfterMs, retryAfterMs, state, periodMs };
}

/**
 * Decodes the statuses of one item from `r[p…]` (up to `n`): its decision; sets {@link decodedTo} to the position
 * after them.
 */
function decodeItem(r: Float64Array, n: number, p: number, item: StoreItem): Decision {
  const specs = item.limits.specs;
  if (specs.length === 1) {
    // The common case, without intermediate objects: one limit, whose verdict is the item's unless another
    // item of the group denied (then this limit allowed but nothing was committed).
    const spec = specs[0];
    const head = r[p];
    const own = (head & 1) === 1;
    const committed = (head & 4) === 4;
    const remaining = r[p + 1];
    const resetAfterMs = r[p + 2];
    p += 3;
    const retryAfterMs = own ? 0 : retryOf(r[p++]);
    const lease = (head & 8) === 8 ? r[p++] : 0;
    if (p > n) throw new TypeError(`unexpected script reply: ${n} values, more expected`);
    decodedTo = p;
    const state = limitStateOf(own, (head & 2) === 2);
    // A verdict without a lease: the flat decision. Otherwise one status, with the lease when committed, or (this
    // limit allowed, another item denied) as not committed.
    if ((committed || !own) && !(committed && lease !== 0)) {
      return decisionOf(
        spec.name,
        own,
        spec.limit,
        remaining,
        resetAfterMs,
        retryAfterMs,
        state,
        spec.periodMs,
        "store",
      );
    }
    const status = statusOf(spec, own, remaining, resetAfterMs, retryAfterMs, state);
    if (committed) return singleDecision(status, "store", { [spec.name]: lease });
    return combineDecision([status], "store", undefined, false);
  }
  const statuses: PolicyStatus[] = [];
  let leases: Record<string, number> | undefined;
  let committed = false;
  for (const spec of specs) {
    const head = r[p];
    const own = (head & 1) === 1;
    committed = (head & 4) === 4;
    const remaining = r[p + 1];
    const resetAfterMs = r[p + 2];
    p += 3;
    const retryAfterMs = own ? 0 : retryOf(r[p++]);
    const lease = (head & 8) === 8 ? r[p++] : 0;
    if (committed && lease !== 0) {
      leases ??= {};
      leases[spec.name] = lease;
    }
    statuses.push(
      statusOf(spec, own, remaining, resetAfterMs, retryAfterMs, limitStateOf(own, (head & 2) === 2)),
    );
  }
  decodedTo = p;
  // Allowed only when consumed: an item whose own limits allowed is denied when another item denied.
  return combineDecision(statuses, "store", leases, committed);
}

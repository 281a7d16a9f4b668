/**
 * The wire format of `scripts/apply.lua`: encoding a batch of groups into KEYS and ARGV, and decoding the flat
 * integer reply into decisions. Pure functions with no I/O, so that a Cluster store can group the same batches by
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
import { limitStateOf } from "../../core/limit-state.js";
import type { StoreItem, StoreOp } from "../store.js";
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
}

/** How a limit set's Redis keys are named: one key per limit for an identity. */
export type KeyNamer = (set: LimitSet, key: string) => readonly string[];

/** KEYS and ARGV of one script call. */
export interface EncodedBatch {
  /** Every state key, in batch order. */
  readonly keys: string[];
  /** ARGV: one binary string of little-endian doubles, as documented in `apply.lua`. */
  readonly args: [Buffer];
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

/** Builds the KEYS and ARGV that apply `groups` in order in one call. */
export function encodeBatch(groups: readonly Group[], keysOf: KeyNamer, ttlMarginMs: number): EncodedBatch {
  const keys: string[] = [];
  const setIndex = new Map<LimitSet, number>();
  const setPart: number[] = [];
  const groupPart: number[] = [groups.length];
  for (const g of groups) {
    groupPart.push(OP_CODES[g.op], g.now === "" ? SERVER_CLOCK : g.now, g.items.length);
    for (const item of g.items) {
      const set = item.limits;
      let index = setIndex.get(set);
      if (index === undefined) {
        index = setIndex.size + 1;
        setIndex.set(set, index);
        for (const n of setArgs(set)) setPart.push(n);
      }
      groupPart.push(index, item.cost);
      for (const k of keysOf(set, item.key)) keys.push(k);
      if (g.op === "release") {
        for (const s of set.specs) groupPart.push(g.leases?.[s.name] ?? 0);
      }
    }
  }
  const count = 2 + setPart.length + groupPart.length;
  const buf = Buffer.allocUnsafe(count * 8);
  buf.writeDoubleLE(ttlMarginMs, 0);
  buf.writeDoubleLE(setIndex.size, 8);
  let at = 16;
  for (const n of setPart) {
    buf.writeDoubleLE(n, at);
    at += 8;
  }
  for (const n of groupPart) {
    buf.writeDoubleLE(n, at);
    at += 8;
  }
  return { keys, args: [buf] };
}

/** Sends one encoded batch with EVALSHA (EVAL on NOSCRIPT) and returns the raw reply. */
export function sendBatch(
  client: RedisScriptClient,
  script: RedisScript,
  batch: EncodedBatch,
): Promise<unknown> {
  return runScript(client, script, batch.keys, batch.args);
}

/** A retryAfterMs from the reply: -1 stands for Infinity (the cost can never pass). */
function retryOf(ms: number): number {
  return ms === -1 ? Number.POSITIVE_INFINITY : ms;
}

/** Per group, the decisions of its items (empty for release). Throws when the reply does not fit the batch. */
export function decodeBatch(reply: unknown, groups: readonly Group[]): Decision[][] {
  if (!Array.isArray(reply)) throw new TypeError(`unexpected script reply: ${typeof reply}`);
  const r = reply as number[];
  let p = 0;
  const out: Decision[][] = [];
  for (const g of groups) {
    const committed = r[p++] === 1;
    if (g.op === "release") {
      out.push([]);
      continue;
    }
    const decisions: Decision[] = [];
    for (const item of g.items) {
      const specs = item.limits.specs;
      if (specs.length === 1 && (committed || r[p] !== 1)) {
        // The common case, without intermediate objects: one limit whose verdict is the item's.
        const spec = specs[0];
        const allowed = r[p] === 1;
        const lease = r[p + 5];
        const remaining = r[p + 1];
        const resetAfterMs = r[p + 2];
        const retryAfterMs = allowed ? 0 : retryOf(r[p + 3]);
        const state = limitStateOf(allowed, r[p + 4] === 1);
        decisions.push(
          committed && lease !== 0
            ? singleDecision(
                {
                  policy: spec.name,
                  allowed,
                  limit: spec.limit,
                  remaining,
                  resetAfterMs,
                  retryAfterMs,
                  state,
                  periodMs: spec.periodMs,
                },
                "store",
                { [spec.name]: lease },
              )
            : decisionOf(
                spec.name,
                allowed,
                spec.limit,
                remaining,
                resetAfterMs,
                retryAfterMs,
                state,
                spec.periodMs,
                "store",
              ),
        );
        p += 6;
        continue;
      }
      const statuses: PolicyStatus[] = [];
      let leases: Record<string, number> | undefined;
      for (const spec of specs) {
        const own = r[p] === 1;
        if (committed && r[p + 5] !== 0) {
          leases ??= {};
          leases[spec.name] = r[p + 5];
        }
        statuses.push({
          policy: spec.name,
          allowed: own,
          limit: spec.limit,
          remaining: r[p + 1],
          resetAfterMs: r[p + 2],
          retryAfterMs: own ? 0 : retryOf(r[p + 3]),
          state: limitStateOf(own, r[p + 4] === 1),
          periodMs: spec.periodMs,
        });
        p += 6;
      }
      // Allowed only when consumed: an item whose own limits allowed is denied when another item denied.
      decisions.push(combineDecision(statuses, "store", leases, committed));
    }
    out.push(decisions);
  }
  if (p !== r.length) throw new TypeError(`unexpected script reply: ${r.length} values, expected ${p}`);
  return out;
}

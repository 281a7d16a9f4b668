/**
 * Small pieces of the engine kept apart from its hot path: a bounded idempotency record, a typed event
 * emitter that never lets a listener break the caller, and request validation.
 */
import { shown } from "../core/arguments.js";
import { InvalidArgumentError } from "../core/errors.js";
import type { Descriptor } from "../rules/rule.js";

// The request limits. validateRequest reads the module-private names: V8 reads an exported `const` through a cell,
// with a check that it is initialised, at every use (~7 instructions, seven uses per check of two entries); a
// private one is folded into the compiled code.
const DESCRIPTORS_LIMIT = 64;
const ENTRIES_LIMIT = 64;
const ENTRY_KEY_LIMIT = 256;
const VALUE_LIMIT = 1024;
const DOMAIN_LIMIT = 256;
const IDEMPOTENCY_KEY_LIMIT = 256;
const NOW_MS_LIMIT = 4_102_444_800_000; // MAX_NOW_MS of src/core/time-math.ts (engine-support.test.ts holds them equal)
/** Most descriptors in one request. */
export const MAX_DESCRIPTORS = DESCRIPTORS_LIMIT;
/** Most entries in one descriptor. */
export const MAX_ENTRIES = ENTRIES_LIMIT;
/** Longest entry key, in UTF-16 code units. */
export const MAX_ENTRY_KEY_LENGTH = ENTRY_KEY_LIMIT;
/** Longest entry value, in UTF-16 code units. */
export const MAX_VALUE_LENGTH = VALUE_LIMIT;
/** Longest domain name. */
export const MAX_DOMAIN_LENGTH = DOMAIN_LIMIT;
/** Longest idempotency key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = IDEMPOTENCY_KEY_LIMIT;
/** Largest `requestsPerUnit` of a request's own limit (Envoy's `uint32`). */
export const MAX_REQUESTS_PER_UNIT = 2 ** 32 - 1;

/** The fields of a check request that {@link validateRequest} inspects. */
interface RequestShape {
  readonly domain: unknown;
  readonly descriptors: unknown;
  readonly cost?: unknown;
  readonly costs?: unknown;
  readonly idempotencyKey?: unknown;
  readonly nowMs?: unknown;
  readonly limitOverrides?: unknown;
}

function describe(v: unknown): string {
  if (typeof v === "string") return `a string of ${v.length} characters`;
  if (typeof v === "number") return String(v);
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

function isCost(v: unknown): v is number {
  return typeof v === "number" && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
}

/** Throws the `InvalidArgumentError` of a bad request field. */
function failField(method: string, field: string, message: string): never {
  throw new InvalidArgumentError(`${method}: ${field} ${message}`);
}

/**
 * Throws the `InvalidArgumentError` of bad descriptor `i` (or its entry `j`, `.key`/`.value` in `part`). The field's
 * name is built here, on the failing path only: built in `validateRequest`, the optimising compiler merged the
 * `${i}` of every error message into one number-to-string conversion run for every descriptor of every request.
 */
function failDescriptor(method: string, message: string, i: number, j?: number, part = ""): never {
  failField(method, j === undefined ? `descriptors[${i}]` : `descriptors[${i}][${j}]${part}`, message);
}

/**
 * Throws `InvalidArgumentError` naming the first bad field of a check request; touches nothing. The checks run
 * twice over: {@link isValidRequest} answers yes or no without a message, and only a request it refuses goes
 * through {@link explainInvalidRequest}, which finds the first bad field again and words the error. The hot
 * function thus holds no message building and is small enough for V8 to inline into a check.
 */
export function validateRequest(method: string, req: RequestShape): void {
  if (!isValidRequest(req)) explainInvalidRequest(method, req);
  const limitOverrides = req.limitOverrides;
  if (limitOverrides !== undefined) {
    // Read again here: a getter may answer otherwise than when it was checked, and must not make this throw a
    // TypeError (-1 descriptors: no overrides list can match, so it is refused as an InvalidArgumentError).
    const descriptors = req.descriptors;
    validateLimitOverrides(method, limitOverrides, Array.isArray(descriptors) ? descriptors.length : -1);
  }
}

/** Whether `req` passes every check of {@link explainInvalidRequest} but those of `limitOverrides`. */
function isValidRequest(req: RequestShape): boolean {
  if (req === null || typeof req !== "object") return false;
  const domain = req.domain;
  if (typeof domain !== "string" || domain.length === 0 || domain.length > DOMAIN_LIMIT) return false;
  const list = req.descriptors;
  if (!Array.isArray(list) || list.length > DESCRIPTORS_LIMIT) return false;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (!Array.isArray(d) || d.length === 0 || d.length > ENTRIES_LIMIT) return false;
    for (let j = 0; j < d.length; j++) {
      const e = d[j];
      if (e === null || typeof e !== "object") return false;
      const key = e.key;
      if (typeof key !== "string" || key.length === 0 || key.length > ENTRY_KEY_LIMIT) return false;
      const value = e.value;
      if (typeof value !== "string" || value.length > VALUE_LIMIT) return false;
    }
  }
  const cost = req.cost;
  if (cost !== undefined && !isCost(cost)) return false;
  const costs = req.costs;
  if (costs !== undefined) {
    if (!Array.isArray(costs) || costs.length !== list.length) return false;
    for (let i = 0; i < costs.length; i++) if (costs[i] !== undefined && !isCost(costs[i])) return false;
  }
  const idempotencyKey = req.idempotencyKey;
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== "string" ||
      idempotencyKey.length === 0 ||
      idempotencyKey.length > IDEMPOTENCY_KEY_LIMIT)
  ) {
    return false;
  }
  const nowMs = req.nowMs;
  return nowMs === undefined || (typeof nowMs === "number" && nowMs >= 0 && nowMs <= NOW_MS_LIMIT);
}

/**
 * Throws the `InvalidArgumentError` of the first bad field of `req`, one that {@link isValidRequest} refused (the
 * same checks in the same order, each with its message); `limitOverrides` is checked by the caller.
 */
function explainInvalidRequest(method: string, req: RequestShape): never {
  if (req === null || typeof req !== "object")
    failField(method, "request", "must be an object { domain, descriptors }");
  const { domain, descriptors, cost, costs, idempotencyKey, nowMs } = req;
  if (typeof domain !== "string" || domain.length === 0 || domain.length > DOMAIN_LIMIT) {
    failField(
      method,
      "domain",
      `must be a non-empty string of at most ${DOMAIN_LIMIT} characters, got ${describe(domain)}`,
    );
  }
  if (!Array.isArray(descriptors))
    failField(method, "descriptors", `must be an array of descriptors, got ${describe(descriptors)}`);
  const list = descriptors as readonly unknown[];
  if (list.length > DESCRIPTORS_LIMIT) {
    failField(
      method,
      "descriptors",
      `must hold at most ${DESCRIPTORS_LIMIT} descriptors, got ${list.length}`,
    );
  }
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (!Array.isArray(d) || d.length === 0 || d.length > ENTRIES_LIMIT) {
      failDescriptor(
        method,
        `must be an array of 1 to ${ENTRIES_LIMIT} { key, value } entries, got ${Array.isArray(d) ? `${d.length} entries` : describe(d)}`,
        i,
      );
    }
    const entries = d as Descriptor;
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j];
      if (e === null || typeof e !== "object")
        failDescriptor(method, `must be { key, value }, got ${describe(e)}`, i, j);
      const { key, value } = e;
      if (typeof key !== "string" || key.length === 0 || key.length > ENTRY_KEY_LIMIT) {
        failDescriptor(
          method,
          `must be a non-empty string of at most ${ENTRY_KEY_LIMIT} characters, got ${describe(key)}`,
          i,
          j,
          ".key",
        );
      }
      if (typeof value !== "string" || value.length > VALUE_LIMIT) {
        failDescriptor(
          method,
          `must be a string of at most ${VALUE_LIMIT} characters, got ${describe(value)}`,
          i,
          j,
          ".value",
        );
      }
    }
  }
  if (cost !== undefined && !isCost(cost)) {
    failField(method, "cost", `must be a number from 0 to Number.MAX_SAFE_INTEGER, got ${describe(cost)}`);
  }
  if (costs !== undefined) {
    if (!Array.isArray(costs) || costs.length !== list.length) {
      failField(
        method,
        "costs",
        `must be an array with one entry (a cost or undefined) per descriptor (${list.length}), got ${Array.isArray(costs) ? `${costs.length} entries` : describe(costs)}`,
      );
    }
    const cs = costs as readonly unknown[];
    for (let i = 0; i < cs.length; i++) {
      if (cs[i] !== undefined && !isCost(cs[i])) {
        failField(
          method,
          `costs[${i}]`,
          `must be undefined or a number from 0 to Number.MAX_SAFE_INTEGER, got ${describe(cs[i])}`,
        );
      }
    }
  }
  if (
    idempotencyKey !== undefined &&
    (typeof idempotencyKey !== "string" ||
      idempotencyKey.length === 0 ||
      idempotencyKey.length > IDEMPOTENCY_KEY_LIMIT)
  ) {
    failField(
      method,
      "idempotencyKey",
      `must be a non-empty string of at most ${IDEMPOTENCY_KEY_LIMIT} characters, got ${describe(idempotencyKey)}`,
    );
  }
  if (nowMs !== undefined && !(typeof nowMs === "number" && nowMs >= 0 && nowMs <= NOW_MS_LIMIT)) {
    failField(
      method,
      "nowMs",
      `must be epoch milliseconds from 0 to ${NOW_MS_LIMIT} (2100-01-01T00:00:00Z), got ${describe(nowMs)}`,
    );
  }
  // Reached only when a field read differently the second time (a getter): still refused, as a whole.
  failField(method, "request", "changed while it was validated");
}

/** Throws `InvalidArgumentError` naming the first bad entry of a request's `limitOverrides`. */
function validateLimitOverrides(method: string, overrides: unknown, descriptors: number): void {
  if (!Array.isArray(overrides) || overrides.length !== descriptors) {
    failField(
      method,
      "limitOverrides",
      `must be an array with one entry ({ requestsPerUnit, unitMs } or undefined) per descriptor (${descriptors}), got ${Array.isArray(overrides) ? `${overrides.length} entries` : describe(overrides)}`,
    );
  }
  const list = overrides as readonly unknown[];
  for (let i = 0; i < list.length; i++) {
    const o = list[i];
    if (o === undefined) continue;
    if (o === null || typeof o !== "object" || Array.isArray(o)) {
      failField(
        method,
        `limitOverrides[${i}]`,
        `must be undefined or { requestsPerUnit, unitMs }, got ${describe(o)}`,
      );
    }
    const { requestsPerUnit, unitMs } = o as { requestsPerUnit?: unknown; unitMs?: unknown };
    if (
      typeof requestsPerUnit !== "number" ||
      !Number.isInteger(requestsPerUnit) ||
      requestsPerUnit < 0 ||
      requestsPerUnit > MAX_REQUESTS_PER_UNIT
    ) {
      failField(
        method,
        `limitOverrides[${i}].requestsPerUnit`,
        `must be a whole number from 0 to ${MAX_REQUESTS_PER_UNIT}, got ${describe(requestsPerUnit)}`,
      );
    }
    if (typeof unitMs !== "number" || !(unitMs > 0) || !Number.isFinite(unitMs)) {
      failField(
        method,
        `limitOverrides[${i}].unitMs`,
        `must be a finite number of milliseconds > 0, got ${describe(unitMs)}`,
      );
    }
  }
}

/** One remembered answer: settled (`value`) or still being computed (`pending`), and its estimated size. */
interface IdemRecord<T> {
  readonly atMs: number;
  value: T | undefined;
  pending: Promise<T> | undefined;
  /** What the record retains, bytes: the caller's estimate, an upper bound (see {@link IdempotencyRecords}). */
  bytes: number;
}

/** Default bound on the estimated bytes of the in-process idempotency records: 64 MiB. */
export const IDEMPOTENCY_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Answers remembered by key for `ttlMs`, bounded by count and by bytes: at most `maxEntries` records and at most
 * `maxBytes` bytes of them, the oldest dropped first when either bound is exceeded. A record's bytes are the
 * caller's estimate of what it retains (an upper bound: the engine's model is `recordBytes` / `resultBytes` in
 * engine.ts), given when it is stored and again when a pending one settles; a record larger than `maxBytes` on its
 * own is not kept (its retries are decided again), so `bytes` never exceeds `maxBytes`. Insertion order of a `Map`
 * is age order, so eviction and expiry are O(1) amortised from its head.
 */
export class IdempotencyRecords<T> {
  readonly #records = new Map<string, IdemRecord<T>>();
  /** The sum of the records' `bytes`. */
  #bytes = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {
    if (!(typeof ttlMs === "number" && ttlMs > 0 && Number.isFinite(ttlMs))) {
      throw new InvalidArgumentError(
        `createEngine: idempotency.ttlMs must be a finite number > 0, got ${shown(ttlMs)}`,
      );
    }
    if (!(Number.isInteger(maxEntries) && maxEntries >= 1 && maxEntries <= 2 ** 24)) {
      throw new InvalidArgumentError(
        `createEngine: idempotency.maxEntries must be a whole number from 1 to 2^24, got ${shown(maxEntries)}`,
      );
    }
    if (!(Number.isSafeInteger(maxBytes) && maxBytes >= 1)) {
      throw new InvalidArgumentError(
        `createEngine: idempotency.maxBytes must be a whole number of bytes from 1 to 2^53 - 1, got ${shown(maxBytes)}`,
      );
    }
  }

  /** Records held now (expired ones included until they are swept). */
  get size(): number {
    return this.#records.size;
  }

  /** The estimated bytes of the records held now (expired ones included until they are swept); at most `maxBytes`. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The live record of `key` at `nowMs`: a settled value, a pending promise, or undefined. */
  get(key: string, nowMs: number): { value: T | undefined; pending: Promise<T> | undefined } | undefined {
    this.#expire(nowMs);
    const r = this.#records.get(key);
    if (r === undefined || nowMs - r.atMs >= this.ttlMs) return undefined;
    return r;
  }

  /** Records `value` (settled) for `key` at `nowMs`; `bytes`: what the record retains, estimated. */
  set(key: string, nowMs: number, value: T, bytes: number): void {
    this.#put(key, { atMs: nowMs, value, pending: undefined, bytes });
  }

  /**
   * Records a computation in flight, `bytes` its estimated size so far (its key); settle it with
   * {@link IdempotencyRecords.settle} or drop it.
   */
  begin(key: string, nowMs: number, pending: Promise<T>, bytes: number): void {
    this.#put(key, { atMs: nowMs, value: undefined, pending, bytes });
  }

  /**
   * Settles the in-flight record of `key` (if it is still the one begun with `pending`), now retaining `bytes`
   * (estimated): the oldest records go if the bytes exceed `maxBytes`, this one too if it alone does.
   */
  settle(key: string, pending: Promise<T>, value: T, bytes: number): void {
    const r = this.#records.get(key);
    if (r === undefined || r.pending !== pending) return;
    if (bytes > this.maxBytes) {
      this.#delete(key, r);
      return;
    }
    r.value = value;
    r.pending = undefined;
    this.#bytes += bytes - r.bytes;
    r.bytes = bytes;
    this.#evict();
  }

  /** Drops the in-flight record of `key` (its computation failed: a retry must run again). */
  drop(key: string, pending: Promise<T>): void {
    const r = this.#records.get(key);
    if (r !== undefined && r.pending === pending) this.#delete(key, r);
  }

  #put(key: string, r: IdemRecord<T>): void {
    const old = this.#records.get(key);
    if (old !== undefined) this.#delete(key, old);
    if (r.bytes > this.maxBytes) return; // never kept: it alone is over the bound
    this.#records.set(key, r);
    this.#bytes += r.bytes;
    this.#evict();
  }

  /** Drops the oldest records while either bound is exceeded (the newest, at most `maxBytes` itself, stays). */
  #evict(): void {
    while (this.#records.size > 0 && (this.#records.size > this.maxEntries || this.#bytes > this.maxBytes)) {
      const [oldest, r] = this.#records.entries().next().value as [string, IdemRecord<T>];
      this.#delete(oldest, r);
    }
  }

  #delete(key: string, r: IdemRecord<T>): void {
    this.#records.delete(key);
    this.#bytes -= r.bytes;
  }

  /** Drops expired records from the head (the oldest); stops at the first live one. */
  #expire(nowMs: number): void {
    for (const [key, r] of this.#records) {
      if (nowMs - r.atMs < this.ttlMs) return;
      this.#delete(key, r);
    }
  }
}

/** A minimal typed event emitter; a listener that throws is ignored, never breaking the emitter's caller. */
export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  readonly #listeners = new Map<keyof Events, Set<(event: never) => void>>();

  /** Adds `listener` for `event`; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: (e: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as (event: never) => void);
    return () => this.off(event, listener);
  }

  /** Removes `listener` from `event`. */
  off<K extends keyof Events>(event: K, listener: (e: Events[K]) => void): void {
    this.#listeners.get(event)?.delete(listener as (event: never) => void);
  }

  /** Calls every listener of `event` with `e`. */
  emit<K extends keyof Events>(event: K, e: Events[K]): void {
    const set = this.#listeners.get(event);
    if (set === undefined) return;
    for (const l of [...set]) {
      try {
        (l as (e: Events[K]) => void)(e);
      } catch {
        // a listener must never break configuration updates
      }
    }
  }
}

/**
 * Live decision counts for the dashboard: per rule, how many descriptors were allowed, denied and denied in
 * shadow mode (allowed anyway) per second, and which identities were throttled most.
 *
 * **Model.** Each (domain, rule id) has three rings of per-second buckets (allowed / denied / shadow), `windowMs`
 * long (default 60 s: 60 buckets of 1 s), indexed by `floor(nowMs / 1000) mod n`; a bucket is zeroed when time
 * reaches it again (the skipped ones too), so a rule seen once holds no stale counts. A rate is the sum of the
 * last `rateWindowMs / 1000` buckets (default 5: the current, partial second and the 4 before it) over the time
 * they cover (4 s plus the current second so far), or over the time since the tally started when that is
 * shorter, and never over less than 1 s. Totals count since the rule was first seen.
 *
 * **Top throttled.** The identities of denied descriptors (`user:42`; a rule without an identity entry counts as
 * `rule:<domain>/<id>`) go through the space-saving algorithm (Metwally et al.): `topK` counters in a min-heap;
 * an unknown identity takes the smallest counter's place with count = min + 1 and error = min. Any identity
 * denied more than N/topK times (N = denials in the generation) is guaranteed to be listed, and a listed count
 * overestimates by at most its `error`. Two generations of `windowMs` each rotate, so the list covers the last
 * one to two windows, and memory stays at 2 × topK entries.
 *
 * **Cost.** `record` is O(descriptors): a `WeakMap` lookup of the rule object (a `Map` lookup by domain and id
 * after a reload), a few array writes, and O(log topK) per denial. Memory is bounded: at most `maxRules` rules
 * (the one idle longest is dropped for a new one) and 2 × `topK` identities. Replayed answers (idempotency) are
 * not counted again.
 */
import type { Clock } from "../../core/clock.js";
import { InvalidArgumentError } from "../../core/errors.js";
import type { CheckResult } from "../../engine/engine.js";
import type { Rule } from "../../rules/rule.js";

/** Options of {@link createDecisionTally}. */
export interface DecisionTallyOptions {
  /** Source of time. */
  readonly clock: Clock;
  /** History kept per rule, and the length of a top-throttled generation, ms (whole seconds). @default 60_000 */
  readonly windowMs?: number;
  /** The window rates are averaged over, ms (whole seconds, at most `windowMs`). @default 5_000 */
  readonly rateWindowMs?: number;
  /** Identities tracked in the top-throttled list. @default 100 */
  readonly topK?: number;
  /** Most rules tracked at once. @default 1_000 */
  readonly maxRules?: number;
}

/** Decisions per second and totals of one rule. */
export interface RuleTally {
  /** The rule's domain. */
  readonly domain: string;
  /** The rule id. */
  readonly rule: string;
  /** Descriptors allowed per second over the rate window. */
  readonly allowedPerSec: number;
  /** Descriptors denied per second over the rate window. */
  readonly deniedPerSec: number;
  /** Shadow-mode descriptors over their limit (allowed anyway) per second over the rate window. */
  readonly shadowPerSec: number;
  /** Counts since the rule was first seen. */
  readonly totals: { readonly allowed: number; readonly denied: number; readonly shadow: number };
  /** Per-second counts of the last `windowMs`, oldest first (the last is the current, partial second). */
  readonly series: { readonly allowed: number[]; readonly denied: number[]; readonly shadow: number[] };
}

/** One of the most throttled identities. */
export interface ThrottledIdentity {
  /** The identity (`user:42`), or `rule:<domain>/<id>` for a rule without an identity entry. */
  readonly identity: string;
  /** Denials counted over the last one to two windows (an upper bound, see `error`). */
  readonly count: number;
  /** How much `count` may overestimate (space-saving); 0 when exact. */
  readonly error: number;
}

/** What {@link DecisionTally.snapshot} returns. */
export interface TallySnapshot {
  /** When it was taken, epoch ms. */
  readonly atMs: number;
  /** The rate window, ms. */
  readonly rateWindowMs: number;
  /** Every tracked rule, by domain then rule id. */
  readonly rules: RuleTally[];
  /** The most throttled identities, most first (at most `topK`). */
  readonly topThrottled: ThrottledIdentity[];
}

/** Counts engine answers for the dashboard; see the module comment. */
export interface DecisionTally {
  /** Counts one answer of `domain` (cheap: call it on the data-plane's hot path). */
  record(domain: string, result: CheckResult): void;
  /** The current rates, totals and top throttled identities. */
  snapshot(): TallySnapshot;
}

const SECOND_MS = 1000;

/** Per-rule counters: three rings of per-second buckets plus totals. */
class RuleCounters {
  readonly allowed: Float64Array;
  readonly denied: Float64Array;
  readonly shadow: Float64Array;
  totalAllowed = 0;
  totalDenied = 0;
  totalShadow = 0;
  /** The second (floor(nowMs / 1000)) the rings were last advanced to. */
  second: number;

  constructor(
    readonly domain: string,
    readonly rule: string,
    buckets: number,
    second: number,
  ) {
    this.allowed = new Float64Array(buckets);
    this.denied = new Float64Array(buckets);
    this.shadow = new Float64Array(buckets);
    this.second = second;
  }

  /** Zeroes the buckets of the seconds after `this.second` up to `second` (all of them after a long idle). */
  advance(second: number): void {
    const n = this.allowed.length;
    if (second <= this.second) return;
    const gap = Math.min(n, second - this.second);
    for (let s = second - gap + 1; s <= second; s++) {
      const i = s % n;
      this.allowed[i] = 0;
      this.denied[i] = 0;
      this.shadow[i] = 0;
    }
    this.second = second;
  }
}

/** Space-saving counters in a min-heap by count, with each identity's heap position. */
class SpaceSaving {
  readonly #ids: string[] = [];
  readonly #counts: number[] = [];
  readonly #errors: number[] = [];
  readonly #pos = new Map<string, number>();

  constructor(readonly capacity: number) {}

  add(id: string): void {
    const at = this.#pos.get(id);
    if (at !== undefined) {
      this.#counts[at]++;
      this.#down(at);
      return;
    }
    if (this.#ids.length < this.capacity) {
      this.#ids.push(id);
      this.#counts.push(1);
      this.#errors.push(0);
      this.#pos.set(id, this.#ids.length - 1);
      this.#up(this.#ids.length - 1);
      return;
    }
    const min = this.#counts[0];
    this.#pos.delete(this.#ids[0]);
    this.#ids[0] = id;
    this.#counts[0] = min + 1;
    this.#errors[0] = min;
    this.#pos.set(id, 0);
    this.#down(0);
  }

  entries(): ThrottledIdentity[] {
    return this.#ids.map((identity, i) => ({ identity, count: this.#counts[i], error: this.#errors[i] }));
  }

  #swap(a: number, b: number): void {
    const ids = this.#ids;
    const counts = this.#counts;
    const errors = this.#errors;
    [ids[a], ids[b]] = [ids[b], ids[a]];
    [counts[a], counts[b]] = [counts[b], counts[a]];
    [errors[a], errors[b]] = [errors[b], errors[a]];
    this.#pos.set(ids[a], a);
    this.#pos.set(ids[b], b);
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#counts[parent] <= this.#counts[i]) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#ids.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < n && this.#counts[l] < this.#counts[smallest]) smallest = l;
      if (r < n && this.#counts[r] < this.#counts[smallest]) smallest = r;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}

function wholeSeconds(ms: number, field: string, min: number): number {
  if (!Number.isFinite(ms) || ms < min * SECOND_MS || ms % SECOND_MS !== 0) {
    throw new InvalidArgumentError(
      `${field} must be a whole number of seconds, at least ${min} s, in ms; got ${ms}`,
    );
  }
  return ms / SECOND_MS;
}

function positiveInteger(n: number, field: string): number {
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`${field} must be a whole number >= 1, got ${n}`);
  return n;
}

class Tally implements DecisionTally {
  readonly #clock: Clock;
  readonly #buckets: number;
  readonly #rateSeconds: number;
  readonly #windowMs: number;
  readonly #topK: number;
  readonly #maxRules: number;
  readonly #startMs: number;
  readonly #byRule = new WeakMap<Rule, RuleCounters>();
  readonly #byKey = new Map<string, RuleCounters>();
  #generation: number;
  #current: SpaceSaving;
  #previous: SpaceSaving | undefined;

  constructor(options: DecisionTallyOptions) {
    this.#clock = options.clock;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#buckets = wholeSeconds(this.#windowMs, "windowMs", 1);
    this.#rateSeconds = wholeSeconds(
      options.rateWindowMs ?? Math.min(5_000, this.#windowMs),
      "rateWindowMs",
      1,
    );
    if (this.#rateSeconds > this.#buckets) {
      throw new InvalidArgumentError(
        `rateWindowMs must be at most windowMs (${this.#windowMs}), got ${options.rateWindowMs}`,
      );
    }
    this.#topK = positiveInteger(options.topK ?? 100, "topK");
    this.#maxRules = positiveInteger(options.maxRules ?? 1_000, "maxRules");
    this.#startMs = this.#clock.nowMs();
    this.#generation = Math.floor(this.#startMs / this.#windowMs);
    this.#current = new SpaceSaving(this.#topK);
  }

  record(domain: string, result: CheckResult): void {
    if (result.replayed) return;
    const ds = result.descriptors;
    let second = -1;
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const m = d.match;
      if (m === undefined || d.replacedBy !== undefined) continue;
      if (d.decision === undefined && d.limits !== "unlimited") continue; // not evaluated
      if (second === -1) second = Math.floor(this.#clock.nowMs() / SECOND_MS);
      const c = this.#counters(domain, m.rule, second);
      if (c === undefined) continue;
      c.advance(second);
      const at = second % this.#buckets;
      if (d.shadowed) {
        c.shadow[at]++;
        c.totalShadow++;
      } else if (d.code === "OVER_LIMIT") {
        c.denied[at]++;
        c.totalDenied++;
        this.#throttled(m.identity ?? `rule:${domain}/${m.rule.id}`, second);
      } else {
        c.allowed[at]++;
        c.totalAllowed++;
      }
    }
  }

  snapshot(): TallySnapshot {
    const nowMs = this.#clock.nowMs();
    const second = Math.floor(nowMs / SECOND_MS);
    this.#rotate(second);
    const n = this.#buckets;
    // The rate buckets cover the rate window's whole seconds before the current one plus the current one so far.
    const coveredMs = (this.#rateSeconds - 1) * SECOND_MS + (nowMs - second * SECOND_MS);
    const spanMs = Math.max(SECOND_MS, Math.min(coveredMs, nowMs - this.#startMs));
    const perSec = (ring: Float64Array): number => {
      let sum = 0;
      for (let k = 0; k < this.#rateSeconds; k++) sum += ring[(((second - k) % n) + n) % n];
      return Math.round((sum * SECOND_MS * 100) / spanMs) / 100;
    };
    const series = (ring: Float64Array): number[] => {
      const out: number[] = new Array(n);
      for (let k = 0; k < n; k++) out[k] = ring[(((second - n + 1 + k) % n) + n) % n];
      return out;
    };
    const rules: RuleTally[] = [];
    for (const c of this.#byKey.values()) {
      c.advance(second);
      rules.push({
        domain: c.domain,
        rule: c.rule,
        allowedPerSec: perSec(c.allowed),
        deniedPerSec: perSec(c.denied),
        shadowPerSec: perSec(c.shadow),
        totals: { allowed: c.totalAllowed, denied: c.totalDenied, shadow: c.totalShadow },
        series: { allowed: series(c.allowed), denied: series(c.denied), shadow: series(c.shadow) },
      });
    }
    rules.sort((a, b) => (a.domain === b.domain ? cmp(a.rule, b.rule) : cmp(a.domain, b.domain)));
    return { atMs: nowMs, rateWindowMs: this.#rateSeconds * SECOND_MS, rules, topThrottled: this.#top() };
  }

  /** The counters of `rule`, created on first sight (dropping the rule idle longest when full). */
  #counters(domain: string, rule: Rule, second: number): RuleCounters | undefined {
    let c = this.#byRule.get(rule);
    if (c !== undefined) return c;
    const key = `${domain}\u0000${rule.id}`;
    c = this.#byKey.get(key);
    if (c === undefined) {
      if (this.#byKey.size >= this.#maxRules) this.#dropIdlest();
      c = new RuleCounters(domain, rule.id, this.#buckets, second);
      this.#byKey.set(key, c);
    }
    this.#byRule.set(rule, c);
    return c;
  }

  #dropIdlest(): void {
    let idlest: string | undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [key, c] of this.#byKey) {
      if (c.second < oldest) {
        oldest = c.second;
        idlest = key;
      }
    }
    // Rule objects still mapped to the dropped counters keep counting into them unseen until the next reload.
    if (idlest !== undefined) this.#byKey.delete(idlest);
  }

  #throttled(identity: string, second: number): void {
    this.#rotate(second);
    this.#current.add(identity);
  }

  /** Starts a new generation when `second` is in a later window than the current one. */
  #rotate(second: number): void {
    const generation = Math.floor((second * SECOND_MS) / this.#windowMs);
    if (generation <= this.#generation) return;
    this.#previous = generation === this.#generation + 1 ? this.#current : undefined;
    this.#current = new SpaceSaving(this.#topK);
    this.#generation = generation;
  }

  #top(): ThrottledIdentity[] {
    const merged = new Map<string, { count: number; error: number }>();
    for (const gen of [this.#previous, this.#current]) {
      if (gen === undefined) continue;
      for (const e of gen.entries()) {
        const m = merged.get(e.identity);
        if (m === undefined) merged.set(e.identity, { count: e.count, error: e.error });
        else {
          m.count += e.count;
          m.error += e.error;
        }
      }
    }
    const out = [...merged].map(([identity, v]) => ({ identity, count: v.count, error: v.error }));
    out.sort((a, b) => b.count - a.count || cmp(a.identity, b.identity));
    return out.slice(0, this.#topK);
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Creates a {@link DecisionTally}; throws `ERR_SLUICE_INVALID_ARGUMENT` naming a bad option. */
export function createDecisionTally(options: DecisionTallyOptions): DecisionTally {
  return new Tally(options);
}

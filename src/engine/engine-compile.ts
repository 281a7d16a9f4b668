/**
 * A configuration compiled for the engine: the rule matcher, the override index, and per rule the
 * {@link LimitSet}s its requests go to the store with. Built once per configuration (frozen input), swapped
 * whole on reload; nothing here is built per request except, on first use, the sets of overrides and of
 * dynamic-limit levels, which are cached.
 *
 * Namespaces (the stable identity of counters in the store, see `createLimitSet`):
 * - `${domain}/${rule.id}` — the rule's own limits, and every tier's or override's limits of the same shape
 *   (`%` and `/` in the domain and the rule id written `%25` and `%2F`, so that no two rules' namespaces, nor a
 *   rule's and another's dynamic counters, can be written alike: domains may hold `/`, and the rule ids of an
 *   envoyproxy/ratelimit file always do)
 *   (same names, algorithms and state widths: {@link sameStateShape}). An identity's count therefore carries
 *   over when its tier changes or an override is set or expires: moved from `free` (10/min) to `pro`
 *   (100/min) after using 8, it has 92 left, not 100; an override that lowers its limit to 5 denies at once.
 *   This is what envoyproxy/ratelimit and most peers do (their counter key holds no limit), and it keeps an
 *   override from ever handing out a fresh allowance. When the rule has no limits of its own (unlimited,
 *   blocked), the tier whose name sorts first (by code unit) gives the shape, so reordering the tiers in the file
 *   moves no counters. A change of the rule's own limits to another shape moves the tiers that shared it to
 *   namespaces of their own (their counts start afresh once): one namespace holds one shape;
 * - `${domain}/${rule.id}/tier:${tier}` — a tier's limits of another shape;
 * - `${domain}/${rule.id}/override-shape:${shape}` — overrides' limits of another shape, one namespace per distinct
 *   shape ({@link stateShapeKey}: names, algorithms, widths, window periods), shared by every identity whose override
 *   has it. The counter key already holds the identity, so identities never share a count there; what must not
 *   happen is two shapes in one namespace (the memory store re-lays a namespace's keys whenever sets of different
 *   layouts alternate in it, cutting every other identity's state). The number of such namespaces is bounded by the
 *   distinct shapes of the configuration, not by its identities: the memory store holds keys of at most 65,535
 *   namespaces at once (it once never freed one, and a namespace per overridden identity, as before, made the
 *   check of the 65,536th such identity throw; it now reuses those holding no key, each a table to rebind). In Redis the namespace is part of each limit's key (the identity too), so the shape's text is
 *   written in full: it is stable across processes. Identities whose overrides have equal limits also share one
 *   set (see `entryFor`), so checks going round them do not rebind the store's table on every call. State cannot
 *   move between shapes: such a change starts the identity's count afresh;
 * - `${domain}/${rule.id}/rate` and `…/rate2` — the traffic counters of a dynamic rule (see {@link RATE_SCHEME});
 * - {@link REQUEST_LIMIT_NAMESPACE} — the limits requests carry themselves (Envoy's per-descriptor limit), one
 *   namespace for all of them, keyed by the descriptor's full key (see {@link RequestLimits}).
 * A reload that keeps a rule id keeps these names, so the store keeps (clamps, migrates) the state.
 *
 * **Limits per identity without the identity string.** Each rule state resolves ahead what `effectiveLimits` can
 * answer: the rule's own limits and each tier's (with their sets). When no override can apply to a rule, a check
 * finds the tier by the identity entry's *value* in a per-identity-key index of `config.identities` (holding only
 * the tiers some rule defines), so it neither builds `user:42` nor calls `effectiveLimits`; rules that overrides
 * may apply to keep the exact `effectiveLimits` path.
 *
 * **Delay (shaping).** A `delay` rule does not use its limits as written: each limit `L per P` with burst `B`
 * becomes a GCRA limit with the same rate (`T = P / L`) and the burst extended by `maxDelayMs / T`. A request is
 * admitted when its slot under the original limit is at most `maxDelayMs` away, and its wait is
 * `max(0, resetAfterMs − B·T)` (the time until it conforms to the original burst). The reservation in the
 * store (GCRA's theoretical arrival time) is the only state: no queue is held, so memory per key is one number,
 * and the callers waiting at once per key are at most `B + maxDelayMs / T`. Results report the store's decision
 * against the configured burst ({@link DelayShape}): `remaining` excludes the waiting room.
 *
 * **Dynamic limits** (seed 003): each static limit `L` becomes `dynamicLimit(L, current, previous, d)` with the
 * rates converted to units per that limit's period; the result is quantised *down* to 1/64 of an octave, so the
 * sets of one rule are bounded (at most 2,049 levels per limit) and a limit is never above the seed's formula: rate
 * algorithms take the highest level at or below it (at most 1.1% below); window algorithms count whole units (at
 * least 1) and take the level of the largest whole-unit limit at or below it, which is the formula's value floored
 * wherever levels lie less than a unit apart (below about 92 units per period: an exact 15 stays 15), else within
 * 1.1% below ({@link levelOf}). Every level of one base keeps the base's namespace, so a key whose
 * limit moves keeps its state. Rate algorithms scale `burst` with the limit (the burst keeps its duration). The
 * limits of a static-only override are never scaled ({@link Resolved.staticOnly}).
 */
import { createLimitSet, type LimitSet, sameStateShape, stateShapeKey } from "../algorithms/limit-set.js";
import { combineDecision, type Decision, decisionOf, type PolicyStatus } from "../core/decision.js";
import { ConfigError, InvalidArgumentError } from "../core/errors.js";
import { type AlgorithmId, type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { limitStateOf, nextWarning } from "../core/limit-state.js";
import { ceilMs } from "../core/time-math.js";
import { delayExtension, delayShapeInput } from "../rules/delay-shape.js";
import {
  compileOverrides,
  type EffectiveLimits,
  type LimitSource,
  type OverrideIndex,
} from "../rules/effective-limits.js";
import {
  type CompiledRules,
  compileRules,
  type KeyForm,
  LazyRuleMatch,
  type RuleMatch,
  valueKey,
} from "../rules/matcher.js";
import { registerPolicyNames } from "../rules/policy-names.js";
import type { Descriptor, Rule, RuleFailurePolicy, RuleMode, SluiceConfig } from "../rules/rule.js";
import type { ChoiceConsumer, Store, SyncStore } from "../stores/store.js";

/**
 * How a dynamic rule's traffic is counted, per counter key, in the store (so every instance agrees): a
 * `fixed_window` of period W (`current`: units in the current window) and a `bucketed_window` of period 2W with
 * buckets of W (`two`: units in the previous and the current window together), both with a limit of
 * `Number.MAX_SAFE_INTEGER` so they never deny. A count is `MAX_SAFE_INTEGER − remaining`; the previous
 * window's count is `two − current`. Windows are epoch-aligned (`floor(now / W)`), as in every instance.
 */
export const RATE_SCHEME = "fixed_window(W) + bucketed_window(2W, W)";

/** Steps per doubling of a quantised dynamic limit (1/64 octave ≈ 1.09%). */
export const DYNAMIC_STEPS_PER_OCTAVE = 64;
/** Most steps a dynamic limit may move from the static limit, either way (2^16×). */
export const DYNAMIC_MAX_LEVEL = 1024;

const RATE_ALGORITHMS: ReadonlySet<AlgorithmId> = new Set(["gcra", "token_bucket", "leaky_bucket"]);

/** Whether every limit of `specs` accepts fractional costs (rate algorithms only). */
function fractionalOk(specs: readonly LimitSpec[]): boolean {
  for (const s of specs) if (!RATE_ALGORITHMS.has(s.algorithm)) return false;
  return true;
}

/** Limits as enforced for one source, and the set the store applies. */
export interface SetEntry {
  /** Which mechanism supplies these limits (the `source` of every {@link Resolved} holding this entry). */
  readonly source: LimitSource;
  /** The limits as configured (after dynamic scaling, before the delay transform): what results report. */
  readonly specs: readonly LimitSpec[];
  /** What the store applies (for `delay` rules, the shaping GCRA limits). */
  readonly set: LimitSet;
  /** For `delay` rules: how the shaping set's decisions read against the configured limits; else undefined. */
  readonly delay: DelayShape | undefined;
  /** Whether fractional costs are accepted. */
  readonly fractional: boolean;
  /** Dynamic levels derived from this entry, by level (one limit) or levels joined by "," (several). */
  dyn: Map<number | string, SetEntry> | undefined;
  /** The synchronous store's consumer bound to `set` (made on first use; skips the store's set lookup). */
  consume: ((key: string, cost: number, nowMs: number) => Decision) | undefined;
}

/**
 * A new {@link SetEntry}, every entry of one shape: the fields a check reads first (`consume`, `specs`,
 * `delay`, `source`) at the front of the object, in its first cache line.
 */
function setEntryOf(
  source: LimitSource,
  specs: readonly LimitSpec[],
  set: LimitSet,
  delay: DelayShape | undefined,
  fractional: boolean,
): SetEntry {
  return { consume: undefined, specs, delay, source, set, fractional, dyn: undefined };
}

/** The limits one check applies for one descriptor: where they came from, and their set (none when unlimited). */
export interface Resolved {
  /** Which mechanism supplied the limits. */
  readonly source: LimitSource;
  /** The limits as configured, or `"unlimited"`. */
  readonly limits: readonly LimitSpec[] | "unlimited";
  /** The entry the store applies; undefined exactly when `limits` is `"unlimited"`. */
  readonly entry: SetEntry | undefined;
  /**
   * Whether the limits come from a static-only override (`Override.staticOnly`): a dynamic rule neither scales
   * them nor counts the traffic. Decided here, per check, never by `entry`, which identities share (see `entryFor`).
   */
  readonly staticOnly: boolean;
}

/**
 * The tier numbers (positions in `tierNames`) of the identity values of one identity key: `get("42")` is the number
 * of the tier of `user:42` in `config.identities`, found without building the `key:value` string. Most lookups
 * miss (an identity in no indexed tier, the common case), and a miss in a large `Map` reads a bucket, an entry and
 * the strings it holds, several cache misses: a bit filter by a hash of the value ({@link valueHash}, one bit per
 * value, about 16 bits per entry) answers nearly all of them from a few KB, and only the values whose bit is set
 * (the indexed ones and about 1 in 16 of the others) reach the map. Immutable once built.
 */
export class TierIndex {
  readonly #byValue: ReadonlyMap<string, number>;
  /** One bit per hash value (masked), set for every indexed value. */
  readonly #bits: Int32Array;
  readonly #mask: number;

  constructor(byValue: ReadonlyMap<string, number>) {
    this.#byValue = byValue;
    // 2^k bits with 2^k ≥ 16 · entries (false positives ≈ 1 − e^(−1/16) ≈ 6%), from 2^10 (128 B) to 2^24 (2 MB).
    let bits = 1 << 10;
    while (bits < 16 * byValue.size && bits < 1 << 24) bits *= 2;
    this.#mask = bits - 1;
    this.#bits = new Int32Array(bits >>> 5);
    for (const value of byValue.keys()) {
      const h = valueHash(value) & this.#mask;
      this.#bits[h >>> 5] |= 1 << (h & 31);
    }
  }

  /** Values held. */
  get size(): number {
    return this.#byValue.size;
  }

  /** The tier number of identity value `value`, or undefined when it is in no indexed tier. */
  get(value: string): number | undefined {
    const h = valueHash(value) & this.#mask;
    if ((this.#bits[h >>> 5] & (1 << (h & 31))) === 0) return undefined;
    return this.#byValue.get(value);
  }
}

/**
 * A 32-bit hash of `v` for {@link TierIndex}'s filter: FNV-1a over its last (at most) 64 UTF-16 code units and its
 * length, then a murmur3 finaliser. Reads only the string itself, which the check has just read.
 */
export function valueHash(v: string): number {
  const n = v.length;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  for (let i = n > 64 ? n - 64 : 0; i < n; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The {@link TierIndex} of each identity key that some rule with tiers uses. Only the tiers that some rule of that
 * identity key defines are held (`tiersByKey`): an identity of any other tier gets the rule's own limits anyway, so
 * it needs no entry (with the common "one default tier for most identities", the index is small).
 */
function tierIndexOf(
  identities: ReadonlyMap<string, string>,
  tiersByKey: ReadonlyMap<string, ReadonlySet<string>>,
  tierNames: readonly string[],
): Map<string, TierIndex> {
  const byKey = new Map<string, Map<string, number>>();
  if (tiersByKey.size === 0) return new Map();
  for (const k of tiersByKey.keys()) byKey.set(k, new Map());
  for (const [identity, tier] of identities) {
    // `${key}:${value}` for every split at a ":" whose left side is a key in use (a key may hold ":" too).
    for (let p = identity.indexOf(":"); p !== -1; p = identity.indexOf(":", p + 1)) {
      const key = identity.slice(0, p);
      if (tiersByKey.get(key)?.has(tier) === true)
        byKey.get(key)?.set(identity.slice(p + 1), tierNames.indexOf(tier));
    }
  }
  return new Map([...byKey].map(([key, byValue]) => [key, new TierIndex(byValue)]));
}

/**
 * One shared object per distinct limit (equal in every field), for the sets of one configuration: the store keeps
 * a set's limits in each namespace's state and reads one on every call, so rules that repeat a limit (the same
 * "100 per minute" on many endpoints) read the same few objects, which stay in the CPU caches, instead of one copy
 * per rule. Results still report each rule's own objects (`SetEntry.specs`).
 */
export class SpecPool {
  readonly #byValue = new Map<string, LimitSpec>();

  /** `specs` with each limit replaced by the pool's equal one (the first seen). */
  of(specs: readonly LimitSpec[]): LimitSpec[] {
    return specs.map((s) => {
      const key = JSON.stringify(s);
      const pooled = this.#byValue.get(key);
      if (pooled !== undefined) return pooled;
      this.#byValue.set(key, s);
      return s;
    });
  }
}

/** {@link HotRule.mode}: every identity gets `HotRule.entry`. */
export const HOT_FIXED = 0;
/** {@link HotRule.mode}: the identity's tier picks the entry (`tierEntries`), `entry` for identities in no tier. */
export const HOT_BY_TIER = 1;
/** {@link HotRule.mode}: the hot path does not apply (see {@link HotRule}); use the {@link RuleState}. */
export const HOT_NONE = 2;

/**
 * What the engine's hot path (one descriptor, synchronous store) reads of one rule, and nothing else, in one small
 * object: a check reads it once, and the hot records of a configuration are allocated one after the other
 * (`compileConfig`), so the data of the rules a check may touch lies in a few contiguous KB rather than in each
 * rule's {@link RuleState} (about 30 fields, several cache lines). With thousands of rules a rule's data is
 * seldom still in the CPU caches when its next request comes; every cache line less is a miss less. Its mode is
 * {@link HOT_NONE} unless the rule is `simple`, its limits are resolved ahead (fixed or by tier) and not
 * unlimited, and its counter key is one entry's value as is (`keyEntry ≥ 0`): the match and the entry then
 * follow from these fields alone, equal to `RuleState.matchOf` and `RuleState.entryOf`. Immutable.
 */
export class HotRule {
  /** {@link HOT_FIXED}, {@link HOT_BY_TIER} or {@link HOT_NONE}. */
  readonly mode: number;
  /** The identity entry, or -1. */
  readonly identityIndex: number;
  /** The entry whose value is the counter key (see `KeyForm.keyEntry`). */
  readonly keyEntry: number;
  /** `${identityKey}:` ("" without an identity). */
  readonly identityPrefix: string;
  /**
   * `entry.consume` once bound (the store's consumer of `entry.set`, set by the engine on first use): with
   * `specs`, `source` and `delay`, the fields of `entry` a check reads, copied here so that the common check
   * (an identity in no tier) reads no {@link SetEntry}.
   */
  consume: ((key: string, cost: number, nowMs: number) => Decision) | undefined;
  /** `entry.specs` (undefined without an entry). */
  readonly specs: readonly LimitSpec[] | undefined;
  /** `entry.source`. */
  readonly source: LimitSource;
  /** `entry.delay`. */
  readonly delay: DelayShape | undefined;
  /**
   * `choices[1].specs`, `.source` and `.delay` (undefined, "tier", undefined without choices), copied here as
   * `specs`, `source` and `delay` copy choice 0's: a check of choice 1 (an identity in the first tier with
   * limits of its own) then reads no {@link SetEntry} either. A check of a later choice reads its entry: per rule,
   * `choices`, its elements and the entry are three more objects, out of the caches when few of a rule's identities
   * are tiered (on the engine benchmark, where 1 in 10 is, those three loads took ~40 % of the samples of the hot
   * path's own body).
   */
  readonly specs1: readonly LimitSpec[] | undefined;
  /** See {@link HotRule.specs1}. */
  readonly source1: LimitSource;
  /** See {@link HotRule.specs1}. */
  readonly delay1: DelayShape | undefined;
  /** The rule. */
  readonly rule: Rule;
  /** The entry of every identity ({@link HOT_FIXED}), or of the identities in no tier ({@link HOT_BY_TIER}). */
  readonly entry: SetEntry | undefined;
  /** The tier number of an identity value ({@link HOT_BY_TIER}). */
  readonly tierOf: TierIndex | undefined;
  /** The entry by tier number ({@link HOT_BY_TIER}); undefined for an unlimited tier. */
  readonly tierEntries: readonly (SetEntry | undefined)[];
  /**
   * The entries a store's choice consumer picks from ({@link HOT_BY_TIER}, see `SyncStore.bindChoiceSync`): `entry`
   * at 0, then `tierEntries` (tier t at t + 1). Undefined when the counter key is not the identity's value, or a tier
   * is unlimited: the tier is then looked up on every check.
   */
  readonly choices: readonly SetEntry[] | undefined;
  /** The choice of a counter key (its identity's tier + 1, or 0), for the store's choice consumer. */
  readonly choose: ((key: string) => number) | undefined;
  /**
   * The store's choice consumer of `choices` (bound by the engine on first use; null when the store offers none or
   * the sets do not qualify).
   */
  chooser: ChoiceConsumer | null | undefined;
  /** The rule's full state. */
  readonly state: RuleState;

  // Fields assigned in the order a check reads them (the object's layout follows the order of assignment).
  constructor(
    mode: number,
    identityIndex: number,
    keyEntry: number,
    identityPrefix: string,
    rule: Rule,
    entry: SetEntry | undefined,
    tierOf: TierIndex | undefined,
    tierEntries: readonly (SetEntry | undefined)[],
    state: RuleState,
  ) {
    // The fields a check reads come first, in the order it reads them (V8 lays fields out in assignment order):
    // the checks go round the rules, so this object is usually a cache miss, and fewer lines touched cost less.
    const choices = [entry, ...tierEntries];
    const chosen =
      mode === HOT_BY_TIER &&
      tierOf !== undefined &&
      keyEntry === identityIndex &&
      choices.every((e) => e !== undefined);
    this.mode = mode;
    this.identityIndex = identityIndex;
    this.choices = chosen ? (choices as SetEntry[]) : undefined;
    this.chooser = undefined;
    this.keyEntry = keyEntry;
    this.identityPrefix = identityPrefix;
    this.rule = rule;
    this.consume = entry?.consume;
    this.specs = entry?.specs;
    this.source = entry?.source ?? "rule";
    this.delay = entry?.delay;
    const first = chosen ? choices[1] : undefined;
    this.specs1 = first?.specs;
    this.source1 = first?.source ?? "tier";
    this.delay1 = first?.delay;
    this.entry = entry;
    this.tierOf = tierOf;
    this.tierEntries = tierEntries;
    this.choose = chosen
      ? (key) => {
          // The counter key is valueKey(value): "%" in front of an empty value or one starting with "%".
          const tier = (tierOf as TierIndex).get(key.charCodeAt(0) === 37 ? key.slice(1) : key);
          return tier === undefined ? 0 : tier + 1;
        }
      : undefined;
    this.state = state;
  }
}

/** Per-rule compiled state: namespaces, set caches, and where its items go. */
export class RuleState {
  /** `${domain}/${rule.id}`. */
  readonly ns: string;
  /** The rule's own limits (undefined when unlimited). */
  readonly own: SetEntry | undefined;
  /** For a `blocked` rule, its decision: denied, nothing remaining, never passes (`retryAfterMs` Infinity). */
  readonly blockedDecision: Decision | undefined;
  /** A dynamic rule's count of the current window (see {@link RATE_SCHEME}). */
  readonly rateCurrent: LimitSet | undefined;
  /** A dynamic rule's count of the previous and current windows together (see {@link RATE_SCHEME}). */
  readonly rateTwo: LimitSet | undefined;
  /**
   * Position of the identity entry in the rule's match list (and so in a matched descriptor), or -1: the first
   * entry whose key is `rule.identityKey`, as the matcher's `identity`.
   */
  readonly identityIndex: number;
  /** Whether a single descriptor of this rule takes the engine's hot path: neither shadow, dynamic nor blocked. */
  readonly simple: boolean;
  /** The resolved limits of every identity when they cannot vary (see {@link RuleState.resolve}). */
  readonly #fixedLimits: Resolved | undefined;
  /** The rule's own limits, resolved; undefined when they cannot be resolved ahead (no set for them). */
  readonly #ruleLimits: Resolved | undefined;
  /** The limits whose shape counts in the rule's own namespace (see `#namespaceOf`); unset until known. */
  #sharedShape: readonly LimitSpec[] | undefined = undefined;
  /** Each tier the rule defines, resolved, by tier number (see `tierIndexOf`); undefined for the others. */
  readonly #tierLimits: (Resolved | undefined)[] = [];
  /** The tier number of each identity value of this rule's identity key, when tiers matter; else undefined. */
  readonly #tierOf: TierIndex | undefined;
  /**
   * The entries of {@link RuleState.entryOf}: every identity's when the limits cannot vary (`#fixed`); else, when
   * they are resolved by tier (`#byTier`), the rule's own and each tier's by tier number (the rule's own for tiers it
   * does not define). Undefined where the limits are unlimited or not resolved ahead.
   */
  readonly #fixedEntry: SetEntry | undefined;
  /** The matcher's {@link KeyForm} of this rule: its key entry (or -1), identity entry and identity prefix. */
  readonly #keyEntry: number;
  readonly #keyIdentity: number;
  /** Whether the identity entry is a path pattern (its identity is the normalised path: see `resolve`). */
  readonly #identityPath: boolean;
  readonly #identityPrefix: string;
  readonly #fixed: boolean;
  readonly #byTier: boolean;
  readonly #ruleEntry: SetEntry | undefined;
  readonly #tierEntries: (SetEntry | undefined)[];
  readonly #tiers = new Map<string, SetEntry>();
  readonly #overrides = new Map<string, SetEntry>();
  /** The entries of override limits by value (`JSON`), whose sets identities with equal overrides share. */
  readonly #overrideSets = new Map<string, SetEntry>();
  readonly #other = new WeakMap<readonly LimitSpec[], SetEntry>();

  constructor(
    readonly rule: Rule,
    /** Index in `config.rules` (for error paths). */
    readonly index: number,
    /** The store this rule's items go to (by mode and failure policy). */
    readonly target: Store,
    /** `target` when it has a synchronous path. */
    readonly targetSync: SyncStore | undefined,
    /** Whether some override of the configuration may apply to this rule. */
    readonly overridable: boolean,
    /** The configuration's tier index (see `tierIndexOf`); holds this rule's identity key when it has tiers. */
    tierIndex: ReadonlyMap<string, TierIndex>,
    /** The tier names the index numbers. */
    tierNames: readonly string[],
    /** How the matcher forms this rule's matches (see {@link RuleState.matchOf}). */
    keyForm: KeyForm,
    /** The configuration's shared limits (see {@link SpecPool}). */
    readonly pool: SpecPool = new SpecPool(),
  ) {
    this.#keyEntry = keyForm.keyEntry;
    this.#keyIdentity = keyForm.identityIndex;
    this.#identityPrefix = keyForm.identityPrefix;
    this.ns = `${namespacePart(rule.domain)}/${namespacePart(rule.id)}`;
    const path = `rules[${index}]`;
    this.blockedDecision =
      rule.blocked === true
        ? decisionOf(
            rule.name,
            false,
            0,
            0,
            0,
            Number.POSITIVE_INFINITY,
            "throttled",
            rule.blockedPeriodMs ?? 0,
            "store",
          )
        : undefined;
    this.own =
      rule.unlimited || rule.blocked === true || rule.limits.length === 0
        ? undefined
        : this.#entry(this.ns, rule.limits, `${path}.limits`, "rule");
    if (this.own !== undefined) this.#sharedShape = rule.limits;
    else {
      // No limits of its own: the tier whose name sorts first gives the shape, whatever order the file lists the
      // tiers in (the first written, as before, made a reordering of the file move every tier's counters).
      let first: string | undefined;
      for (const [tier, limits] of Object.entries(rule.tiers)) {
        if (limits !== "unlimited" && (first === undefined || tier < first)) first = tier;
      }
      if (first !== undefined) this.#sharedShape = rule.tiers[first] as readonly LimitSpec[];
    }
    for (const tier of Object.keys(rule.tiers)) {
      const limits = rule.tiers[tier];
      if (limits !== "unlimited") {
        this.#tiers.set(
          tier,
          this.#entry(this.#namespaceOf(limits, `tier:${tier}`), limits, `${path}.tiers.${tier}`, "tier"),
        );
      }
    }
    const hasTiers = Object.keys(rule.tiers).length > 0;
    let identityIndex = -1;
    if (rule.identityKey !== undefined) {
      for (let i = 0; i < rule.match.length && identityIndex === -1; i++)
        if (rule.match[i].key === rule.identityKey) identityIndex = i;
    }
    this.identityIndex = identityIndex;
    this.#identityPath = identityIndex !== -1 && rule.match[identityIndex].value.kind === "path";
    this.simple =
      rule.behaviour !== "shadow" && rule.dynamic === undefined && this.blockedDecision === undefined;
    // Resolved ahead exactly as effectiveLimits would resolve them (see resolve()).
    this.#ruleLimits = rule.unlimited
      ? Object.freeze({
          source: "rule" as const,
          limits: "unlimited" as const,
          entry: undefined,
          staticOnly: false,
        })
      : this.own === undefined
        ? undefined
        : Object.freeze({ source: "rule" as const, limits: rule.limits, entry: this.own, staticOnly: false });
    for (let t = 0; t < tierNames.length; t++) {
      const tier = tierNames[t];
      if (!Object.hasOwn(rule.tiers, tier)) {
        this.#tierLimits.push(undefined);
        continue;
      }
      const limits = rule.tiers[tier];
      const entry = limits === "unlimited" ? undefined : this.#tiers.get(tier);
      this.#tierLimits.push(Object.freeze({ source: "tier" as const, limits, entry, staticOnly: false }));
    }
    // Without an identity entry, or without tiers and overrides, every identity gets the rule's own limits.
    this.#fixedLimits =
      this.blockedDecision === undefined && (identityIndex === -1 || (!hasTiers && !overridable))
        ? this.#ruleLimits
        : undefined;
    this.#tierOf = hasTiers && rule.identityKey !== undefined ? tierIndex.get(rule.identityKey) : undefined;
    this.#fixed = this.#fixedLimits !== undefined;
    this.#fixedEntry = this.#fixedLimits?.entry;
    this.#byTier = !overridable && this.blockedDecision === undefined && identityIndex !== -1;
    this.#ruleEntry = this.#ruleLimits?.entry;
    this.#tierEntries = this.#tierLimits.map((r) => (r ?? this.#ruleLimits)?.entry);
    if (rule.dynamic !== undefined) {
      const w = rule.dynamic.windowMs;
      const max = Number.MAX_SAFE_INTEGER;
      this.rateCurrent = wrap(
        `${path}.dynamic.windowMs`,
        () =>
          createLimitSet(`${this.ns}/rate`, [
            parseLimitSpec({ name: "current", algorithm: "fixed_window", limit: max, periodMs: w }),
          ]),
        false,
      );
      this.rateTwo = wrap(
        `${path}.dynamic.windowMs`,
        () =>
          createLimitSet(`${this.ns}/rate2`, [
            parseLimitSpec({
              name: "two",
              algorithm: "bucketed_window",
              limit: max,
              periodMs: 2 * w,
              bucketMs: w,
            }),
          ]),
        false,
      );
    }
  }

  /**
   * The limits of the identity of `desc` (a descriptor this rule matched), as `effectiveLimits` resolves them,
   * without building the identity's `key:value` string: the tier is looked up by value in the rule's tier index.
   * Undefined when an override may apply, or for a blocked rule: the caller then uses `effectiveLimits`.
   */
  resolve(desc: Descriptor): Resolved | undefined {
    const fixed = this.#fixedLimits;
    if (fixed !== undefined) return fixed;
    if (this.overridable || this.blockedDecision !== undefined || this.identityIndex === -1) return undefined;
    if (this.#identityPath) return undefined; // the tier of the normalised path: `effectiveLimits` finds it
    const tier = this.#tierOf?.get(desc[this.identityIndex].value);
    return (tier === undefined ? undefined : this.#tierLimits[tier]) ?? this.#ruleLimits;
  }

  /**
   * {@link RuleState.resolve} for the hot path, one object less to read: the entry of `desc`'s limits (its `source`
   * is the resolved one), or undefined when they are unlimited or not resolved ahead (then use `resolve`).
   */
  entryOf(desc: Descriptor): SetEntry | undefined {
    if (this.#fixed) return this.#fixedEntry;
    if (!this.#byTier || this.#identityPath) return undefined;
    const tier = this.#tierOf?.get(desc[this.identityIndex].value);
    return tier === undefined ? this.#ruleEntry : this.#tierEntries[tier];
  }

  /**
   * The {@link RuleMatch} of `desc` (a descriptor this rule matched), equal to the matcher's `matchAt`, from this
   * state alone (the hot path reads one rule object, not two); undefined when the counter key is not one entry's
   * value as is (then use `matchAt`).
   */
  matchOf(desc: Descriptor): RuleMatch | undefined {
    const k = this.#keyEntry;
    if (k < 0) return undefined;
    const i = this.#keyIdentity;
    return new LazyRuleMatch(
      this.rule,
      valueKey(desc[k].value),
      this.#identityPrefix,
      i === -1 ? undefined : desc[i].value,
    );
  }

  /** This rule's {@link HotRule}; a new object on each call (`compileConfig` makes them in one pass). */
  hotRule(): HotRule {
    let mode = HOT_NONE;
    if (this.simple && this.#keyEntry >= 0 && this.#ruleEntry !== undefined) {
      if (this.#fixed) mode = HOT_FIXED;
      else if (this.#byTier) mode = this.#tierOf === undefined ? HOT_FIXED : HOT_BY_TIER;
    }
    return new HotRule(
      mode,
      this.#keyIdentity,
      this.#keyEntry,
      this.#identityPrefix,
      this.rule,
      mode === HOT_NONE ? undefined : this.#ruleEntry,
      mode === HOT_BY_TIER ? this.#tierOf : undefined,
      mode === HOT_BY_TIER ? this.#tierEntries : [],
      this,
    );
  }

  /** The resolved form of `eff`, limits computed by `effectiveLimits` for `identity`. */
  resolvedOf(eff: EffectiveLimits, identity: string | undefined): Resolved {
    const staticOnly = eff.staticOnly;
    if (eff.limits === "unlimited")
      return { source: eff.source, limits: "unlimited", entry: undefined, staticOnly };
    return { source: eff.source, limits: eff.limits, entry: this.entryFor(eff, identity), staticOnly };
  }

  /**
   * The entry for `eff` (not unlimited) of `identity`: own, tier or override, built once and cached. Static-only
   * and plain overrides of equal limits share one entry (and set): `staticOnly` travels in the {@link Resolved},
   * so a static-only check never reads the dynamic levels a plain one caches on the entry (`dyn`).
   */
  entryFor(eff: EffectiveLimits, identity: string | undefined): SetEntry {
    const limits = eff.limits as readonly LimitSpec[];
    if (eff.source === "rule" && this.own !== undefined && limits === this.rule.limits) return this.own;
    if (eff.source === "tier" && eff.tier !== undefined) {
      const e = this.#tiers.get(eff.tier);
      if (e !== undefined && e.specs === limits) return e;
    }
    if (eff.source === "override" && identity !== undefined) {
      let e = this.#overrides.get(identity);
      if (e === undefined || e.specs !== limits) {
        // The set of equal limits, shared (one binding in the store); the entry the identity's own, so that results
        // report its override's own objects.
        const value = JSON.stringify(limits);
        let shared = this.#overrideSets.get(value);
        if (shared === undefined) {
          shared = this.#entry(this.#overrideNamespaceOf(limits), limits, `override ${identity}`, "override");
          this.#overrideSets.set(value, shared);
        }
        e =
          shared.specs === limits
            ? shared
            : setEntryOf("override", limits, shared.set, shared.delay, shared.fractional);
        this.#overrides.set(identity, e);
      }
      return e;
    }
    // Limits other than the compiled arrays (not produced by effectiveLimits today): built once per array.
    let e = this.#other.get(limits);
    if (e === undefined) {
      const ns =
        eff.source === "tier"
          ? this.#namespaceOf(limits, `tier:${eff.tier}`)
          : eff.source === "override"
            ? this.#overrideNamespaceOf(limits)
            : this.ns;
      e = this.#entry(ns, limits, ns, eff.source);
      this.#other.set(limits, e);
    }
    return e;
  }

  /** The entry of `base` with dynamic limits `dyn` (one per limit), quantised; cached per level. */
  dynamicEntry(base: SetEntry, dyn: readonly number[]): SetEntry {
    const specs = base.specs;
    let key: number | string;
    if (specs.length === 1) {
      key = levelOf(dyn[0], specs[0]);
      if (key === 0) return base;
    } else {
      let any = false;
      key = "";
      for (let i = 0; i < specs.length; i++) {
        const level = levelOf(dyn[i], specs[i]);
        if (level !== 0) any = true;
        key += i > 0 ? `,${level}` : `${level}`;
      }
      if (!any) return base;
    }
    base.dyn ??= new Map();
    let e = base.dyn.get(key);
    if (e === undefined) {
      const levels = typeof key === "number" ? [key] : key.split(",").map(Number);
      const scaled = specs.map((s, i) => scaleSpec(s, levels[i]));
      e = this.#entry(base.set.namespace, scaled, `${this.ns} dynamic level ${key}`, base.source);
      base.dyn.set(key, e);
    }
    return e;
  }

  /**
   * The namespace of `limits` of a tier or override (`suffix` names it): the rule's own when they have its
   * shape, so the identity's count carries over (see the file comment), else a namespace of their own.
   */
  #namespaceOf(limits: readonly LimitSpec[], suffix: string): string {
    return this.#sharedShape !== undefined && sameStateShape(this.#sharedShape, limits)
      ? this.ns
      : `${this.ns}/${suffix}`;
  }

  /**
   * The namespace of an override's `limits`: the rule's own when they have its shape, else the one of their shape
   * (see the file comment), whichever identity they are for.
   */
  #overrideNamespaceOf(limits: readonly LimitSpec[]): string {
    return this.#namespaceOf(limits, `override-shape:${stateShapeKey(limits)}`);
  }

  /** Builds an entry: validates the set, derives the shaping limits of a delay rule. */
  #entry(namespace: string, specs: readonly LimitSpec[], path: string, source: LimitSource): SetEntry {
    const rule = this.rule;
    if (rule.behaviour !== "delay") {
      const set = wrap(path, () => createLimitSet(namespace, this.pool.of(specs)));
      return setEntryOf(source, specs, set, undefined, fractionalOk(specs));
    }
    const shaped: LimitSpec[] = [];
    const base: number[] = [];
    const extra: number[] = [];
    const burst: number[] = [];
    specs.forEach((s, i) => {
      if (s.algorithm === "concurrency") {
        shaped.push(s);
        base.push(-1);
        extra.push(0);
        burst.push(s.burst);
        return;
      }
      const input = delayShapeInput(s, rule.maxDelayMs);
      shaped.push(wrap(`${path}[${i}]`, () => parseLimitSpec(input)));
      base.push(s.burst * (s.periodMs / s.limit));
      extra.push(delayExtension(s, rule.maxDelayMs));
      burst.push(s.burst);
    });
    const set = wrap(path, () => createLimitSet(namespace, this.pool.of(shaped)));
    return setEntryOf(source, specs, set, new DelayShape(base, extra, burst), fractionalOk(shaped));
  }
}

/**
 * How the decisions of a `delay` rule's shaping set (see the file comment) read against its limits as configured.
 * The store decides under GCRAs whose burst is the configured `B` plus `e = maxDelayMs / T` units; a result reports
 * them against `B`, as a `reject` rule of the same limits would (the limits it shows are the configured ones):
 * - `remaining`: `max(0, ⌊remaining − e⌋)` (whole units). Exact when `e` is whole (the usual configuration: a
 *   `maxDelay` that is a whole number of intervals); otherwise at most one unit low, never high (the store's
 *   `remaining` is already floored);
 * - `state`: from that `remaining` (`warning` below 20% of the configured burst `B`, the capacity `remaining`
 *   counts down from (src/core/limit-state.ts), so a request that waits reports `warning`;
 *   within the 20–30% band the store's flag stands in for the previous one); a denial stays `throttled`;
 * - `resetAfterMs` and `retryAfterMs` as the store reports them: the time until the reservation has drained (GCRA's
 *   time to fresh does not depend on the burst: `TAT − now` under either) and, when denied, until a request is
 *   within `maxDelayMs` of its slot, when a retry is admitted (with a delay).
 * Limits that are not shaped (concurrency) report as they are. Immutable.
 */
export class DelayShape {
  constructor(
    /** Per limit of the set: the configured burst as time, `B·T` ms (−1: not shaped). */
    readonly baseMs: readonly number[],
    /** Per limit of the set: the burst extension `e`, units (0: not shaped). */
    readonly extra: readonly number[],
    /** Per limit of the set: the configured burst `B`, units (the capacity its `state` is judged against). */
    readonly burst: readonly number[],
  ) {}

  /**
   * The wait of an item admitted with decision `d` at `cost`: max over its shaped limits of `resetAfterMs − B·T`,
   * whole ms rounded up. 0 for a cost of 0: a check that counts nothing reserves no slot, so there is nothing to wait
   * for (its `remaining`, against the configured burst, says whether a request would wait: 0 when it would).
   */
  waitMs(d: Decision, cost: number): number {
    if (!d.allowed || cost === 0) return 0;
    const base = this.baseMs;
    const ps = d.policies;
    let max = 0;
    for (let i = 0; i < ps.length && i < base.length; i++) {
      if (base[i] < 0) continue;
      const w = ps[i].resetAfterMs - base[i];
      if (w > max) max = w;
    }
    return ceilMs(max);
  }

  /** Decision `d` of the shaping set, reported against the configured limits (see the class comment). */
  report(d: Decision): Decision {
    const ps = d.policies;
    const extra = this.extra;
    const out: PolicyStatus[] = new Array(ps.length);
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      const e = i < extra.length ? extra[i] : 0;
      if (!(e > 0)) {
        out[i] = p;
        continue;
      }
      // 1e-9: `remaining − e` is whole when `e` is, up to the rounding of `e` itself.
      const remaining = Math.max(0, Math.floor(p.remaining - e + 1e-9));
      const state = p.allowed
        ? limitStateOf(true, nextWarning(p.state === "warning", remaining, this.burst[i]))
        : p.state;
      out[i] = {
        policy: p.policy,
        allowed: p.allowed,
        limit: p.limit,
        remaining,
        resetAfterMs: p.resetAfterMs,
        retryAfterMs: p.retryAfterMs,
        state,
        periodMs: p.periodMs,
      };
    }
    return combineDecision(out, d.reason, d.leases === undefined ? undefined : { ...d.leases }, d.allowed);
  }
}

/**
 * The quantised level of dynamic limit `dyn` against static `spec` (`L` its limit), clamped to ±{@link DYNAMIC_MAX_LEVEL}:
 * - rate algorithms: ⌊log2(dyn / L)·64⌋, the highest level whose limit `L·2^(level/64)` is at most `dyn`;
 * - window algorithms (whole units, {@link windowLimitAt}): the lowest level whose whole-unit limit is the largest
 *   one reachable at or below `dyn`. Flooring the rate algorithms' level first, then the units, lost up to a unit
 *   more (static 10, dyn 15: level 37, 14.93, limit 14); now `⌊dyn⌋` itself when some level floors to it, which
 *   every whole number is below about 92 units (where levels lie less than a unit apart), and otherwise the
 *   level below it as before (within 1.1%). Never above `dyn`.
 */
export function levelOf(dyn: number, spec: LimitSpec): number {
  if (spec.algorithm === "concurrency" || !(dyn > 0)) return 0;
  const raw = clampLevel(Math.floor(Math.log2(dyn / spec.limit) * DYNAMIC_STEPS_PER_OCTAVE + 1e-9));
  if (RATE_ALGORITHMS.has(spec.algorithm) || raw < 0 || raw >= DYNAMIC_MAX_LEVEL) return raw;
  // The lowest level whose limit reaches m = ⌊dyn⌋ (as windowLimitAt floors, with its 1e-9), checked with the same
  // arithmetic (a level off by one in the logarithm's rounding is stepped over).
  const m = Math.floor(dyn + 1e-9);
  let q = clampLevel(Math.ceil(Math.log2((m - 1e-9) / spec.limit) * DYNAMIC_STEPS_PER_OCTAVE));
  while (q > 0 && windowLimitAt(spec, q - 1) >= m) q--;
  while (q < DYNAMIC_MAX_LEVEL && windowLimitAt(spec, q) < m) q++;
  return windowLimitAt(spec, q) === m ? q + 0 : raw; // + 0: a −0 from Math.ceil is level 0
}

/** `level` within ±{@link DYNAMIC_MAX_LEVEL}. */
function clampLevel(level: number): number {
  return level > DYNAMIC_MAX_LEVEL
    ? DYNAMIC_MAX_LEVEL
    : level < -DYNAMIC_MAX_LEVEL
      ? -DYNAMIC_MAX_LEVEL
      : level;
}

/** The whole-unit limit of window `spec` moved by `level` steps: `max(1, ⌊L·2^(level/64)⌋)`. */
function windowLimitAt(spec: LimitSpec, level: number): number {
  if (level === 0) return spec.limit;
  return Math.max(1, Math.floor(spec.limit * 2 ** (level / DYNAMIC_STEPS_PER_OCTAVE) + 1e-9));
}

/** `spec` with its limit moved by `level` steps (window algorithms floored to whole units, at least 1). */
export function scaleSpec(spec: LimitSpec, level: number): LimitSpec {
  if (level === 0 || spec.algorithm === "concurrency") return spec;
  const f = 2 ** (level / DYNAMIC_STEPS_PER_OCTAVE);
  if (RATE_ALGORITHMS.has(spec.algorithm)) {
    return parseLimitSpec({
      name: spec.name,
      algorithm: spec.algorithm,
      limit: spec.limit * f,
      periodMs: spec.periodMs,
      burst: Math.max(1, spec.burst * f),
    });
  }
  const limit = windowLimitAt(spec, level);
  return parseLimitSpec({
    name: spec.name,
    algorithm: spec.algorithm,
    limit,
    periodMs: spec.periodMs,
    ...(spec.algorithm === "bucketed_window" ? { bucketMs: spec.bucketMs } : {}),
  });
}

/**
 * Runs `build`, re-throwing a limit error as a configuration error under `path`: an issue path starting with
 * `limits` (from createLimitSet) is re-rooted at `path`; others are appended to it, or dropped when `inner` is false.
 */
function wrap<T>(path: string, build: () => T, inner = true): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof ConfigError) {
      const at = (p: string): string =>
        !inner || p === ""
          ? path
          : p.startsWith("limits")
            ? `${path}${p.slice("limits".length)}`
            : `${path}.${p}`;
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        error.issues.map((i) => ({ ...i, path: at(i.path) })),
      );
    }
    throw error;
  }
}

/** `s` as one part of a rule's namespace: `%` written `%25` and `/` written `%2F` (see the file comment). */
export function namespacePart(s: string): string {
  return s.includes("%") || s.includes("/") ? s.replaceAll("%", "%25").replaceAll("/", "%2F") : s;
}

/**
 * The namespace of every limit a request carries itself (Envoy's `RateLimitDescriptor.limit`, see
 * `CheckRequest.limitOverrides`). It holds no "/", while every rule's namespace does (`${domain}/${rule.id}…`), so
 * a request's limit never shares a counter with a rule. All such limits share it, whatever their numbers: as in
 * envoyproxy/ratelimit, a descriptor's counter does not depend on the limit sent with it (a changed limit is
 * applied to the same state, which the store clamps), and the store holds one table for them however many
 * distinct limits requests send.
 */
export const REQUEST_LIMIT_NAMESPACE = "request-limit";

/** The name of a request's own limit, in its decision and its reported {@link LimitSpec}. */
export const REQUEST_LIMIT_NAME = "request-limit";

/** Most distinct request limits whose sets are kept at once (built on first use; beyond it the cache restarts). */
export const REQUEST_LIMIT_CACHE_MAX = 1024;

/** A limit a request carries, as the engine applies it. */
export interface RequestLimit {
  /** The limit, as reported in the descriptor's result (`limit` 0 when it blocks). */
  readonly specs: readonly LimitSpec[];
  /** The set the store applies; undefined when the limit is 0 (`blocked`). */
  readonly entry: SetEntry | undefined;
  /** For a limit of 0: the decision (denied, never passes), as a `blocked` rule's. */
  readonly blocked: Decision | undefined;
}

/**
 * The limits requests carry (Envoy's per-descriptor `limit`), built on first use and cached by their numbers:
 * `requestsPerUnit` per `unitMs`, with the configuration's default algorithm, behaviour `reject`, never shadow.
 * Counted in {@link REQUEST_LIMIT_NAMESPACE}, on the store of the default mode and failure policy. The limit changes
 * from request to request while the namespace stays, so the algorithm's state must not be sized by the limit:
 * `sliding_log` (a log entry per unit) falls back to `sliding_window`, its fixed-size approximation, and
 * `concurrency` (a lease slot per unit, and no rate) to `fixed_window`, envoyproxy/ratelimit's own. (With
 * `sliding_log`, requests sending limits 2 and 1 in turn made the memory store re-lay and cut the log of every key
 * of the namespace on each turn: other descriptors lost their entries and got more than their limit.)
 */
export class RequestLimits {
  /** The algorithm of every request limit. */
  readonly algorithm: AlgorithmId;
  readonly #cache = new Map<string, RequestLimit>();

  constructor(
    algorithm: AlgorithmId,
    /** Where their items go (by the configuration's default mode and failure policy). */
    readonly target: Store,
  ) {
    this.algorithm =
      algorithm === "concurrency"
        ? "fixed_window"
        : algorithm === "sliding_log"
          ? "sliding_window"
          : algorithm;
  }

  /**
   * The limit of `requestsPerUnit` (a whole number ≥ 0) per `unitMs` (> 0); throws `InvalidArgumentError` naming
   * `field` when the algorithm cannot enforce it.
   */
  get(requestsPerUnit: number, unitMs: number, field: string): RequestLimit {
    const key = `${requestsPerUnit}/${unitMs}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    const made = this.#build(requestsPerUnit, unitMs, field);
    if (this.#cache.size >= REQUEST_LIMIT_CACHE_MAX) this.#cache.clear();
    this.#cache.set(key, made);
    return made;
  }

  #build(requestsPerUnit: number, unitMs: number, field: string): RequestLimit {
    const algorithm = this.algorithm;
    if (requestsPerUnit === 0) {
      // Not a valid LimitSpec (limits are > 0): reported as sent; nothing is counted against it.
      const spec: LimitSpec = Object.freeze({
        name: REQUEST_LIMIT_NAME,
        algorithm,
        limit: 0,
        periodMs: unitMs,
        burst: 0,
        bucketMs: 0,
        emissionMs: Number.POSITIVE_INFINITY,
      });
      return Object.freeze({
        specs: Object.freeze([spec]),
        entry: undefined,
        blocked: decisionOf(
          REQUEST_LIMIT_NAME,
          false,
          0,
          0,
          0,
          Number.POSITIVE_INFINITY,
          "throttled",
          unitMs,
          "store",
        ),
      });
    }
    let spec: LimitSpec;
    let set: LimitSet;
    try {
      spec = parseLimitSpec({
        name: REQUEST_LIMIT_NAME,
        algorithm,
        limit: requestsPerUnit,
        periodMs: unitMs,
      });
      set = createLimitSet(REQUEST_LIMIT_NAMESPACE, [spec]);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new InvalidArgumentError(
        `${field} cannot be enforced with ${algorithm} (the configuration's default algorithm): ${error.issues.map((i) => i.message).join("; ")}`,
      );
    }
    const specs = Object.freeze([spec]);
    return Object.freeze({
      specs,
      entry: setEntryOf("request", specs, set, undefined, fractionalOk(specs)),
      blocked: undefined,
    });
  }
}

/** A configuration compiled for the engine; replaced whole on reload. */
export interface CompiledConfig {
  /** The configuration. */
  readonly config: SluiceConfig;
  /** Its matcher. */
  readonly rules: CompiledRules;
  /** Its override index. */
  readonly overrides: OverrideIndex;
  /** Per rule, its compiled state. */
  readonly states: ReadonlyMap<Rule, RuleState>;
  /** The same states by position in `config.rules` (the matcher's `find`). */
  readonly stateAt: readonly RuleState[];
  /** Their hot records, by the same position, allocated one after the other (see {@link HotRule}). */
  readonly hotAt: readonly HotRule[];
  /** Whether any rule replaces another (skips the replaces pass otherwise). */
  readonly anyReplaces: boolean;
  /** The domains that have rules (a request's own limits apply only in those, as in envoyproxy/ratelimit). */
  readonly domains: ReadonlySet<string>;
  /** The limits requests carry themselves. */
  readonly requestLimits: RequestLimits;
  /** Updates the engine applied before and with this one (0 for the configuration it was created with). */
  readonly reloads: number;
  /** When it was loaded, on the engine's clock. */
  readonly loadedAtMs: number;
}

/** What decides where a rule's items go: its mode and failure policy. */
export interface TargetSpec {
  /** Where the counters live. */
  readonly mode: RuleMode;
  /** What happens when the store is unavailable. */
  readonly failurePolicy: RuleFailurePolicy;
}

/**
 * Compiles `config`; throws `ConfigError` (`ERR_SLUICE_INVALID_CONFIG`) naming the rule or override that cannot
 * be enforced. `reloads`: the engine's count of updates applied, this one included (0 for its first configuration).
 * `targetOf` says which store items of a mode and failure policy go to.
 */
export function compileConfig(
  config: SluiceConfig,
  reloads: number,
  loadedAtMs: number,
  targetOf: (spec: TargetSpec) => { store: Store; sync: SyncStore | undefined },
): CompiledConfig {
  if (config === null || typeof config !== "object" || !Array.isArray(config.rules)) {
    throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", [
      { path: "", message: "must be a compiled SluiceConfig (use parseConfig or loadConfigFile)" },
    ]);
  }
  const rules = compileRules(config.rules, config.trees);
  const overrides = compileOverrides(config);
  const states = new Map<Rule, RuleState>();
  const ids = new Set<string>();
  let anyReplaces = false;
  // Rule ids named by some override, and the identity keys an override naming no rule may be of: an override of
  // identity `k:v` can only apply to a rule whose identity key is `k` (every split at a ":", as keys may hold ":"),
  // so the rules of other identity keys are resolved ahead (by tier, or fixed) whatever generic overrides exist.
  const overridden = new Set<string>();
  const genericKeys = new Set<string>();
  for (const o of config.overrides) {
    if (o.rule !== undefined) overridden.add(o.rule);
    else {
      for (let p = o.identity.indexOf(":"); p !== -1; p = o.identity.indexOf(":", p + 1))
        genericKeys.add(o.identity.slice(0, p));
    }
  }
  const tiersByKey = new Map<string, Set<string>>();
  for (const rule of config.rules) {
    const tiers = Object.keys(rule.tiers);
    if (rule.identityKey === undefined || tiers.length === 0) continue;
    let set = tiersByKey.get(rule.identityKey);
    if (set === undefined) {
      set = new Set();
      tiersByKey.set(rule.identityKey, set);
    }
    for (const t of tiers) set.add(t);
  }
  const tierNames = [...new Set([...tiersByKey.values()].flatMap((set) => [...set]))];
  const tierIndex = tierIndexOf(config.identities, tiersByKey, tierNames);
  const stateAt: RuleState[] = [];
  const pool = new SpecPool();
  config.rules.forEach((rule, i) => {
    const key = `${rule.domain.length}:${rule.domain}${rule.id}`;
    if (ids.has(key)) {
      throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", [
        {
          path: `rules[${i}].id`,
          message: `"${rule.id}" is used by an earlier rule of domain "${rule.domain}"`,
        },
      ]);
    }
    ids.add(key);
    if (rule.replaces.length > 0) anyReplaces = true;
    const { store, sync } = targetOf(rule);
    const overridable =
      overridden.has(rule.id) || (rule.identityKey !== undefined && genericKeys.has(rule.identityKey));
    const state = new RuleState(
      rule,
      i,
      store,
      sync,
      overridable,
      tierIndex,
      tierNames,
      rules.keyFormAt(i),
      pool,
    );
    states.set(rule, state);
    stateAt.push(state);
  });
  config.overrides.forEach((o, i) => {
    if (o.limits !== "unlimited") {
      wrap(`overrides[${i}].limits`, () => createLimitSet(`override:${o.identity}`, o.limits as LimitSpec[]));
    }
  });
  // In one pass after every state is built: the records lie side by side in memory.
  const hotAt = stateAt.map((rs) => rs.hotRule());
  const requestLimits = new RequestLimits(
    config.defaults.algorithm,
    targetOf({ mode: config.defaults.mode, failurePolicy: config.defaults.failurePolicy }).store,
  );
  // The names its answers advertise its policies under, once per configuration (and only for one that compiled).
  registerPolicyNames(config);
  return Object.freeze({
    config,
    rules,
    overrides,
    states,
    stateAt,
    hotAt,
    anyReplaces,
    domains: new Set(rules.domains),
    requestLimits,
    reloads,
    loadedAtMs,
  });
}

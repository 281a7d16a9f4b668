/**
 * Which limits apply to one identity under one rule, now: an override, the identity's tier, or the rule's own.
 *
 * Precedence, first that applies wins:
 * 1. an unexpired override for the identity: one naming this rule beats a generic one (rule undefined); among
 *    equals the later in declaration order wins; an expired override is as if absent (so an older or a generic
 *    one may apply instead). An override applies even to an `unlimited` rule: it is the explicit, per-identity
 *    statement.
 * 2. the identity's tier, when the rule defines limits for that tier;
 * 3. the rule's `limits`, or `"unlimited"` when the rule is.
 * A `blocked` rule ignores all of these: its source is `rule` and its limits are its (empty) `limits`, with no
 * tier reported; the engine denies it before counting.
 *
 * An override with `expiresAtMs` applies while `nowMs < expiresAtMs` and stops at exactly `expiresAtMs`. A
 * `staticOnly` one is reported as such (`EffectiveLimits.staticOnly`), for the engine to enforce its limits as
 * written under a dynamic rule; every other source is never static-only. All functions here are pure functions of
 * their arguments (time is `nowMs`, never read from a clock).
 */
import type { LimitSpec } from "../core/limit-spec.js";
import type { Override, Rule, SluiceConfig } from "./rule.js";

/**
 * Where an identity's effective limits came from: a configured override, the identity's tier, the rule itself, or
 * (set by the engine, never by {@link effectiveLimits}) a limit the request carried for its descriptor.
 */
export type LimitSource = "override" | "tier" | "rule" | "request";

/** The limits that apply to one identity under one rule at one instant. */
export interface EffectiveLimits {
  /** Which mechanism supplied `limits`. */
  readonly source: LimitSource;
  /** The limits to enforce together, or `"unlimited"` (never counted, always allowed). */
  readonly limits: readonly LimitSpec[] | "unlimited";
  /** The identity's tier, if any (whether or not the rule defines it, and whatever the source). */
  readonly tier: string | undefined;
  /** When the applied override stops applying (epoch ms); undefined for a permanent override or another source. */
  readonly expiresAtMs: number | undefined;
  /** Whether the applied override is static-only (`Override.staticOnly`): never scaled by a dynamic limit. */
  readonly staticOnly: boolean;
}

/**
 * Overrides by identity, for O(1) lookup: each identity's rule-specific overrides first, then its generic ones,
 * each group latest-declared first, so the first unexpired override whose rule fits is the one that applies.
 */
export type OverrideIndex = ReadonlyMap<string, readonly Override[]>;

/** Builds the {@link OverrideIndex} of `config`; build once per configuration. */
export function compileOverrides(config: SluiceConfig): OverrideIndex {
  const specific = new Map<string, Override[]>();
  const generic = new Map<string, Override[]>();
  for (let i = config.overrides.length - 1; i >= 0; i--) {
    const o = config.overrides[i];
    const m = o.rule === undefined ? generic : specific;
    let list = m.get(o.identity);
    if (list === undefined) {
      list = [];
      m.set(o.identity, list);
    }
    list.push(o);
  }
  const index = new Map<string, readonly Override[]>();
  for (const [identity, list] of specific) index.set(identity, list);
  for (const [identity, list] of generic) {
    const before = index.get(identity);
    index.set(identity, before === undefined ? list : [...before, ...list]);
  }
  for (const [identity, list] of index) index.set(identity, Object.freeze(list));
  return index;
}

/** Indexes built on demand for configurations passed without one (configurations are immutable). */
const indexCache = new WeakMap<SluiceConfig, OverrideIndex>();

function indexOf(config: SluiceConfig): OverrideIndex {
  let index = indexCache.get(config);
  if (index === undefined) {
    index = compileOverrides(config);
    indexCache.set(config, index);
  }
  return index;
}

/** The override of `identity` that applies to `rule` at `nowMs`, if any. */
function activeOverride(
  index: OverrideIndex,
  rule: Rule,
  identity: string,
  nowMs: number,
): Override | undefined {
  const list = index.get(identity);
  if (list === undefined) return undefined;
  for (let i = 0; i < list.length; i++) {
    const o = list[i];
    if (o.rule !== undefined && o.rule !== rule.id) continue;
    if (o.expiresAtMs !== undefined && nowMs >= o.expiresAtMs) continue;
    return o;
  }
  return undefined;
}

/**
 * The limits `rule` enforces for `identity` (`key:value`, or undefined when the rule has no identity entry) at
 * `nowMs`: override, then tier, then the rule's own. Pass `index` (from {@link compileOverrides}) on hot paths;
 * without it the index is built once per configuration object and cached.
 */
export function effectiveLimits(
  config: SluiceConfig,
  rule: Rule,
  identity: string | undefined,
  nowMs: number,
  index?: OverrideIndex,
): EffectiveLimits {
  if (rule.blocked === true || identity === undefined) {
    return {
      source: "rule",
      limits: rule.unlimited ? "unlimited" : rule.limits,
      tier: undefined,
      expiresAtMs: undefined,
      staticOnly: false,
    };
  }
  const tier = config.identities.get(identity);
  const o = activeOverride(index ?? indexOf(config), rule, identity, nowMs);
  if (o !== undefined) {
    return {
      source: "override",
      limits: o.limits,
      tier,
      expiresAtMs: o.expiresAtMs,
      staticOnly: o.staticOnly,
    };
  }
  if (tier !== undefined && Object.hasOwn(rule.tiers, tier)) {
    return { source: "tier", limits: rule.tiers[tier], tier, expiresAtMs: undefined, staticOnly: false };
  }
  return {
    source: "rule",
    limits: rule.unlimited ? "unlimited" : rule.limits,
    tier,
    expiresAtMs: undefined,
    staticOnly: false,
  };
}

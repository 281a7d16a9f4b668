/**
 * Test helpers: build frozen {@link Rule}, {@link SluiceConfig} and {@link Override} objects directly, with the
 * defaults a loader would apply, so tests of matching, limits and the engine need no config file.
 */
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import type { RuleMatch } from "./matcher.js";
import type { EntryMatcher, Override, Rule, RuleDefaults, SluiceConfig, ValuePattern } from "./rule.js";

/** The limit a {@link makeRule} rule gets when `limits` is not given: 10 per second, GCRA, named `default`. */
export const DEFAULT_TEST_LIMIT: LimitSpec = parseLimitSpec({ name: "default", limit: 10, periodMs: 1000 });

/** The defaults of a {@link makeConfig} configuration. */
export const DEFAULT_TEST_DEFAULTS: RuleDefaults = Object.freeze({
  algorithm: "gcra",
  behaviour: "reject",
  maxDelayMs: 0,
  failurePolicy: "fallback",
  mode: "exact",
});

/** An entry matcher; `shared` defaults to true for `path` patterns and false otherwise (as in rule.ts). */
export function entry(key: string, value: ValuePattern, shared?: boolean): EntryMatcher {
  return Object.freeze({ key, value: Object.freeze(value), shared: shared ?? value.kind === "path" });
}

/** Matches `key` with exactly `value`. */
export function exact(key: string, value: string): EntryMatcher {
  return entry(key, { kind: "exact", value });
}

/** Matches `key` with any value. */
export function any(key: string, shared = false): EntryMatcher {
  return entry(key, { kind: "any" }, shared);
}

/** Matches `key` with values starting with `prefix`. */
export function prefix(key: string, prefixText: string, shared = false): EntryMatcher {
  return entry(key, { kind: "prefix", prefix: prefixText }, shared);
}

/** Matches `key` with values matching the `*` wildcard `pattern`. */
export function glob(key: string, pattern: string, shared = false): EntryMatcher {
  return entry(key, { kind: "glob", pattern }, shared);
}

/** Matches `key` with paths matching `pattern` (`/users/:id/*`); shared by default. */
export function path(key: string, pattern: string, shared = true): EntryMatcher {
  return entry(key, { kind: "path", pattern }, shared);
}

/** `list` itself when already frozen (so tests can compare by identity), else a frozen copy. */
function frozen<T>(list: readonly T[]): readonly T[] {
  return Object.isFrozen(list) ? list : Object.freeze([...list]);
}

/** Fields of a rule a test may set; everything else is defaulted. */
export type RuleInput = Partial<Rule>;

/**
 * A frozen rule with defaults: id `rule`, name = id, domain `default`, no match entries, limits
 * `[DEFAULT_TEST_LIMIT]` (`[]` when `unlimited` or `blocked`), tiers `{}`, unlimited and blocked false,
 * behaviour `reject`, maxDelayMs 0, strategy `requests`, mode `exact`, failurePolicy `fallback`, no dynamic
 * limit, priority 0, replaces `[]`, detailedMetric false, order 0. `identityKey`, unless given (even as
 * undefined), is the key of the first entry
 * matched by a non-exact pattern, as loaders derive it.
 */
export function makeRule(partial: RuleInput = {}): Rule {
  const id = partial.id ?? "rule";
  const match = Object.freeze([...(partial.match ?? [])]);
  const unlimited = partial.unlimited ?? false;
  const identityKey =
    "identityKey" in partial ? partial.identityKey : match.find((m) => m.value.kind !== "exact")?.key;
  const tiers: Record<string, readonly LimitSpec[] | "unlimited"> = {};
  for (const [k, v] of Object.entries(partial.tiers ?? {})) tiers[k] = v === "unlimited" ? v : frozen(v);
  return Object.freeze({
    id,
    name: partial.name ?? id,
    domain: partial.domain ?? "default",
    match,
    limits: frozen(partial.limits ?? (unlimited || partial.blocked ? [] : [DEFAULT_TEST_LIMIT])),
    tiers: Object.freeze(tiers),
    identityKey,
    unlimited,
    blocked: partial.blocked ?? false,
    behaviour: partial.behaviour ?? "reject",
    maxDelayMs: partial.maxDelayMs ?? 0,
    strategy: partial.strategy ?? "requests",
    mode: partial.mode ?? "exact",
    failurePolicy: partial.failurePolicy ?? "fallback",
    dynamic: partial.dynamic === undefined ? undefined : Object.freeze({ ...partial.dynamic }),
    priority: partial.priority ?? 0,
    replaces: Object.freeze([...(partial.replaces ?? [])]),
    detailedMetric: partial.detailedMetric ?? false,
    order: partial.order ?? 0,
  });
}

/** Rules in declaration order: `order` is each one's index and `id` defaults to `r<index>`. */
export function makeRules(partials: readonly RuleInput[]): Rule[] {
  return partials.map((p, i) => makeRule({ id: `r${i}`, ...p, order: p.order ?? i }));
}

/** A frozen override; `rule` and `expiresAtMs` default to undefined (generic, permanent), `staticOnly` to false. */
export function makeOverride(partial: Pick<Override, "identity" | "limits"> & Partial<Override>): Override {
  return Object.freeze({
    identity: partial.identity,
    rule: partial.rule,
    limits: partial.limits === "unlimited" ? "unlimited" : frozen(partial.limits),
    expiresAtMs: partial.expiresAtMs,
    staticOnly: partial.staticOnly ?? false,
  });
}

/** Fields of a configuration a test may set; `identities` may also be a plain object. */
export type ConfigInput = Partial<Omit<SluiceConfig, "identities">> & {
  readonly identities?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
};

/**
 * A frozen configuration with defaults: no rules, identities or overrides, {@link DEFAULT_TEST_DEFAULTS}, source
 * undefined. Rules are kept as given (use {@link makeRules} for declaration-order `order` values).
 */
export function makeConfig(partial: ConfigInput = {}): SluiceConfig {
  const ids = partial.identities;
  const identities: ReadonlyMap<string, string> =
    ids === undefined ? new Map() : ids instanceof Map ? new Map(ids) : new Map(Object.entries(ids));
  return Object.freeze({
    rules: Object.freeze([...(partial.rules ?? [])]),
    identities,
    overrides: Object.freeze([...(partial.overrides ?? [])]),
    defaults: partial.defaults ?? DEFAULT_TEST_DEFAULTS,
    source: partial.source,
  });
}

/** The three fields of a match as a plain object (a {@link RuleMatch} may read `identity` through a getter). */
export function matchFields(m: RuleMatch | undefined): RuleMatch | undefined {
  return m === undefined ? undefined : { rule: m.rule, counterKey: m.counterKey, identity: m.identity };
}

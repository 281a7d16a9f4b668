/**
 * The rule model: what a compiled configuration looks like to the engine. Loaders (native YAML/JSON, the
 * envoyproxy/ratelimit format, the admin API) all produce these frozen objects; the engine consumes them.
 *
 * Requests are descriptors in Envoy's model: an ordered list of `{ key, value }` entries. A request carries a
 * domain and one or more descriptors; each descriptor is matched on its own against the domain's rules, and the
 * request is allowed only when every matched descriptor is. Seed 002's `(dimension, identifier, endpoint)` is the
 * descriptor `[{ key: dimension, value: identifier }, { key: "endpoint", value: path }]`.
 */
import type { LimitSpec } from "../core/limit-spec.js";

/** One entry of a descriptor. */
export interface DescriptorEntry {
  /** The entry's key, e.g. `user`, `remote_address`, `endpoint`. */
  readonly key: string;
  /** The entry's runtime value, e.g. `42`, `10.0.0.1`, `/api/v1/orders/7`. */
  readonly value: string;
}

/** An ordered list of entries, matched against rules entry by entry. */
export type Descriptor = readonly DescriptorEntry[];

/** How a rule matches one entry's value. */
export type ValuePattern =
  /** Any value (the key must be present). */
  | { readonly kind: "any" }
  /** Exactly this value. */
  | { readonly kind: "exact"; readonly value: string }
  /** Values starting with `prefix`. */
  | { readonly kind: "prefix"; readonly prefix: string }
  /** `*` matches any run of characters, any number of times (`/api/*\/action`, Envoy's wildcard). */
  | { readonly kind: "glob"; readonly pattern: string }
  /** A path pattern by segments: `:name` matches one segment, a trailing `*` the rest (`/users/:id/*`). */
  | { readonly kind: "path"; readonly pattern: string };

/** A rule's condition on one entry. */
export interface EntryMatcher {
  /** The entry key that must be present at this position. */
  readonly key: string;
  /** Which values match. */
  readonly value: ValuePattern;
  /**
   * Whether every value matching the pattern shares one counter (Envoy's `share_threshold`; the default for
   * `path` patterns, so `/api/v1/orders/*` counts all orders endpoints together). Otherwise each distinct value
   * gets its own counter.
   */
  readonly shared: boolean;
}

/** What happens when a request is over a rule's limit. */
export type Behaviour =
  /** Deny it. */
  | "reject"
  /** Allow it after `delayMs` when a slot can be reserved within `maxDelayMs` (spaced at the rate), else deny. */
  | "delay"
  /** Never deny; report and count what would have been denied. */
  | "shadow";

/** What a request's cost is measured in (the engine receives the computed cost). */
export type CostStrategy = "requests" | "bytes" | "records";

/** Where a rule's counters live: the shared store exactly, leased quota, or this process only. */
export type RuleMode = "exact" | "lease" | "local";

/** What happens when the store is unavailable. */
export type RuleFailurePolicy = "fail_open" | "fail_closed" | "fallback";

/**
 * Seed 003's dynamic limit: the effective rate follows recent traffic, `max(static, min(ewma·m, previous·m))`,
 * never below the static limit, also in the seed's special case of a silent current window, where it is
 * `max(static, previous·m)` (src/rules/dynamic-limit.ts).
 */
export interface DynamicLimit {
  /** Length of the current and previous measurement windows, ms. */
  readonly windowMs: number;
  /** Weight `w` of the current window in `ewma = w·current + (1 − w)·previous`, in [0, 1]. */
  readonly recentWeight: number;
  /** Multiplier `m` in `limit = max(static, min(ewma·m, previous·m))`, > 0. */
  readonly multiplier: number;
}

/** A compiled rule. */
export interface Rule {
  /** Unique id within the configuration (stable across reloads: the store namespace derives from it). */
  readonly id: string;
  /** Human-readable name (defaults to the id). */
  readonly name: string;
  /** The domain whose requests the rule applies to. */
  readonly domain: string;
  /** Conditions on the descriptor, entry by entry; a descriptor matches only with exactly this many entries. */
  readonly match: readonly EntryMatcher[];
  /** The limits applied together, all-or-nothing (empty when `unlimited` or `blocked`). */
  readonly limits: readonly LimitSpec[];
  /** Limits per tier, replacing `limits` for identities in that tier; `"unlimited"` exempts the tier. */
  readonly tiers: Readonly<Record<string, readonly LimitSpec[] | "unlimited">>;
  /**
   * The entry key whose value identifies the caller, for tiers and overrides (`user` → identity `user:42`).
   * Defaults to the first entry matched by a non-exact pattern.
   */
  readonly identityKey: string | undefined;
  /** Matches and exempts: never counted, always allowed. */
  readonly unlimited: boolean;
  /**
   * Matches and denies: never counted, never allowed (envoyproxy/ratelimit's `requests_per_unit: 0`; native
   * `blocked: true`). `limits` and `tiers` are empty and no override applies. Absent means false.
   */
  readonly blocked?: boolean;
  /**
   * The period of a `blocked` rule's zero limit, ms, when it was written with one (envoyproxy/ratelimit's
   * `requests_per_unit: 0` per `unit`): reported with the 0, as envoyproxy/ratelimit reports its unit. Absent
   * otherwise.
   */
  readonly blockedPeriodMs?: number;
  /** Behaviour when over the limit. */
  readonly behaviour: Behaviour;
  /** Longest wait the `delay` behaviour may impose, ms. */
  readonly maxDelayMs: number;
  /** What the cost is measured in. */
  readonly strategy: CostStrategy;
  /** Where the counters live. */
  readonly mode: RuleMode;
  /** What happens when the store is unavailable. */
  readonly failurePolicy: RuleFailurePolicy;
  /** Dynamic (EWMA) limit, when enabled. */
  readonly dynamic: DynamicLimit | undefined;
  /** Tie-breaker between equally specific matches: higher wins. */
  readonly priority: number;
  /** Names of other rules (Envoy: limits) this one suppresses when both match the same request. */
  readonly replaces: readonly string[];
  /** Put the runtime values into metric labels (Envoy's `detailed_metric`). */
  readonly detailedMetric: boolean;
  /** Declaration order, the last tie-breaker. */
  readonly order: number;
}

/** A per-identity (or per-metadata-value) replacement of a rule's limits, optionally temporary. */
export interface Override {
  /** The identity it applies to, `key:value` (e.g. `user:42`, `tenant:acme`). */
  readonly identity: string;
  /** Only for this rule id; undefined: every rule whose identity entry matches. */
  readonly rule: string | undefined;
  /** The replacement limits, or `"unlimited"`. */
  readonly limits: readonly LimitSpec[] | "unlimited";
  /** Epoch ms at which it stops applying (exactly); undefined: permanent. */
  readonly expiresAtMs: number | undefined;
  /**
   * Seed 003's `static_only`: under a rule with `dynamic`, the limits are enforced as written, never scaled by the
   * rule's traffic (and the identity's traffic is not counted towards it). No effect on other rules. Default false.
   */
  readonly staticOnly: boolean;
}

/** Defaults applied to rules that do not set the field. */
export interface RuleDefaults {
  /** Default algorithm of limits. */
  readonly algorithm: LimitSpec["algorithm"];
  /** Default behaviour. */
  readonly behaviour: Behaviour;
  /** Default maximum delay, ms. */
  readonly maxDelayMs: number;
  /** Default failure policy. */
  readonly failurePolicy: RuleFailurePolicy;
  /** Default mode. */
  readonly mode: RuleMode;
}

/** One node of an envoyproxy/ratelimit descriptor tree (see {@link DescriptorTree}). */
export interface DescriptorTreeNode {
  /** The entries from the domain's root down to this node (`any`, `exact` or `glob` values). */
  readonly match: readonly EntryMatcher[];
  /** The id of the rule this node's `rate_limit` became; undefined for a node without one. */
  readonly rule: string | undefined;
}

/**
 * A domain whose descriptors are matched as envoyproxy/ratelimit matches them, by a greedy walk down its descriptor
 * tree (see descriptor-tree.ts), instead of by the most specific complete match: every node of the tree, those
 * without a limit included, parents before children, siblings in the file's order.
 */
export interface DescriptorTree {
  /** The domain. */
  readonly domain: string;
  /** Its nodes, in the file's order (a node's parent comes before it). */
  readonly nodes: readonly DescriptorTreeNode[];
}

/** A whole compiled configuration: frozen, defaulted, validated. */
export interface SluiceConfig {
  /** Every rule, in declaration order. */
  readonly rules: readonly Rule[];
  /** Domains matched by envoyproxy/ratelimit's greedy walk (those of an envoyproxy/ratelimit file); absent: none. */
  readonly trees?: readonly DescriptorTree[];
  /** Tier of each identity (`user:42` → `premium`). */
  readonly identities: ReadonlyMap<string, string>;
  /** Overrides, in declaration order (a later one for the same identity and rule wins). */
  readonly overrides: readonly Override[];
  /** The defaults that were applied. */
  readonly defaults: RuleDefaults;
  /** Where it was loaded from (a file path), for errors and status. */
  readonly source: string | undefined;
  /**
   * When read from a file by `loadConfigFile`: that file's signature (`configFileSignature`: inode, size, times),
   * taken just *before* it was read. A watch compares the file against it, so a change made after the read
   * (before the watch started) is applied rather than mistaken for what was loaded. Absent otherwise.
   */
  readonly sourceSignature?: string;
  /**
   * The version of the document it was compiled from, as the admin API's repository numbers them (the rules file's
   * managed header, or Redis's `<prefix>:config` `version`): what `GET /api/v1/rules` shows. Absent for a file read
   * without the admin API, which carries no version (see `sourceSha256`).
   */
  readonly version?: number;
  /**
   * When read from a file by `loadConfigFile`: the SHA-256 of the file's bytes as read, lowercase hex (what
   * `sha256sum FILE` prints), naming what is in force when there is no `version`. Absent otherwise.
   */
  readonly sourceSha256?: string;
}

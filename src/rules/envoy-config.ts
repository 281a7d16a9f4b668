/**
 * Loads envoyproxy/ratelimit configuration files unchanged, so its users can switch: `domain`, nested
 * `descriptors` (`key`, optional `value` with `*` wildcards), `rate_limit { unit, requests_per_unit, unlimited,
 * name, replaces, unit_multiplier }`, `shadow_mode`, `detailed_metric`, `share_threshold`; `value_to_metric` and
 * `metadata` are accepted and ignored, `quota_mode: true` is refused (not supported). Unknown keys are errors, as
 * in envoyproxy/ratelimit, which checks every level against one set of known keys: a known key at another level
 * (`name` beside `key`) is ignored there, as it is there.
 *
 * Every descriptor with a `rate_limit`, at any depth, becomes one rule matching the entries from the root down to
 * it. The domain's descriptors are matched as envoyproxy/ratelimit matches them, by a greedy walk of the whole tree
 * (`SluiceConfig.trees`, descriptor-tree.ts): a node without a `rate_limit` exempts what reaches it. Limits use `fixed_window` by default with envoyproxy/ratelimit's epoch-aligned unit lengths (a month is 30
 * days, a year 365), so answers match the original service; another algorithm may be chosen.
 * `requests_per_unit: 0` (or left out, as envoyproxy/ratelimit reads it) compiles to a `blocked` rule.
 */
import { tryParseDurationMs } from "../core/duration.js";
import { InvalidArgumentError } from "../core/errors.js";
import { ALGORITHM_IDS, type AlgorithmId, parseLimitSpec } from "../core/limit-spec.js";
import {
  BUILTIN_DEFAULTS,
  type ConfigPath,
  ConfigSource,
  deepFreeze,
  defaultIdentityKey,
  describeValue,
  FrozenMap,
  type PathIssue,
  unknownKeyMessage,
} from "./config-schema.js";
import type { EntryMatcher, Rule, RuleDefaults, SluiceConfig } from "./rule.js";

/** Length of each envoyproxy/ratelimit unit in seconds (its `UnitToDivider`: MONTH is 30 days, YEAR 365). */
export const ENVOY_UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({
  second: 1,
  minute: 60,
  hour: 3_600,
  day: 86_400,
  week: 604_800,
  month: 2_592_000,
  year: 31_536_000,
});

const UNITS = Object.keys(ENVOY_UNIT_SECONDS);
const MAX_REQUESTS_PER_UNIT = 4_294_967_295; // uint32
const ROOT_KEYS = ["domain", "descriptors"];
const DESCRIPTOR_KEYS = [
  "key",
  "value",
  "rate_limit",
  "descriptors",
  "shadow_mode",
  "quota_mode",
  "detailed_metric",
  "value_to_metric",
  "share_threshold",
  "metadata",
];
const RATE_LIMIT_KEYS = ["unit", "requests_per_unit", "unlimited", "name", "replaces", "unit_multiplier"];
/**
 * Every key envoyproxy/ratelimit knows. It checks keys against one flat set at every level (`validKeys`), so a key of
 * another level (`name` beside `key`, `shadow_mode` inside `rate_limit`) loads there and is ignored: Sluice does the
 * same, so that every file it accepts loads here too.
 */
const ENVOY_KEYS = [...new Set([...ROOT_KEYS, ...DESCRIPTOR_KEYS, ...RATE_LIMIT_KEYS])];

/** Options of {@link parseEnvoyConfig}. */
export interface EnvoyConfigOptions {
  /** Where the text came from (a file path), for messages and `SluiceConfig.source`. */
  readonly source?: string | undefined;
  /** Algorithm of every limit (default `fixed_window`, the only one envoyproxy/ratelimit has). */
  readonly algorithm?: AlgorithmId;
  /** Format of a text input (default YAML; JSON is read as YAML, of which it is a subset). */
  readonly format?: "yaml" | "json";
}

/** Whether a parsed value looks like an envoyproxy/ratelimit config: top-level `descriptors`, or only `domain`. */
export function isEnvoyConfig(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.includes("descriptors") || (keys.includes("domain") && keys.every((k) => ROOT_KEYS.includes(k)))
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

interface PendingRule {
  readonly id: string;
  readonly path: ConfigPath;
  readonly name: string | undefined;
  readonly match: readonly EntryMatcher[];
  readonly build: Omit<Rule, "id" | "name" | "domain" | "match" | "identityKey" | "replaces" | "order">;
  readonly replaces: readonly string[];
}

/**
 * Parses an envoyproxy/ratelimit configuration (YAML text, a parsed {@link ConfigSource}, or a plain value) into a
 * frozen {@link SluiceConfig}; throws `ERR_SLUICE_INVALID_CONFIG` listing every problem, with lines for text.
 */
export function parseEnvoyConfig(input: unknown, options: EnvoyConfigOptions = {}): SluiceConfig {
  const algorithm = options.algorithm ?? "fixed_window";
  if (!(ALGORITHM_IDS as readonly string[]).includes(algorithm) || algorithm === "concurrency") {
    throw new InvalidArgumentError(
      `algorithm: must be a rate algorithm (${ALGORITHM_IDS.filter((a) => a !== "concurrency").join(", ")}), got ${JSON.stringify(algorithm)}`,
    );
  }
  const source =
    typeof input === "string"
      ? // envoyproxy/ratelimit reads YAML 1.1 (yes/no booleans), like its Go YAML library.
        ConfigSource.parse(input, {
          format: options.format ?? "yaml",
          source: options.source ?? "<config>",
          schema: "yaml-1.1",
        })
      : input instanceof ConfigSource
        ? input
        : ConfigSource.fromValue(input, options.source);
  const defaults: RuleDefaults = {
    algorithm,
    behaviour: "reject",
    maxDelayMs: tryParseDurationMs(BUILTIN_DEFAULTS.maxDelay) as number,
    failurePolicy: BUILTIN_DEFAULTS.failurePolicy,
    mode: BUILTIN_DEFAULTS.mode,
  };
  const issues: PathIssue[] = [];
  const pending: PendingRule[] = [];
  /** Every node of the descriptor tree in the file's order, with its rule when its `rate_limit` made one. */
  const nodes: { match: readonly EntryMatcher[]; rule: PendingRule | undefined }[] = [];
  const root = source.value;

  const text = (path: ConfigPath, v: unknown): string | undefined => {
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" || v instanceof Date) {
      // A YAML scalar that is not a string (`value: 500`) is read as its source text, as envoyproxy/ratelimit does.
      return source.textOf(path) ?? (v instanceof Date ? v.toISOString() : String(v));
    }
    if (v !== undefined && v !== null)
      issues.push({ path, message: `must be a string, got ${describeValue(v)}` });
    return undefined;
  };
  const flag = (path: ConfigPath, v: unknown): boolean => {
    if (v === undefined || v === null) return false;
    if (typeof v === "boolean") return v;
    issues.push({ path, message: `must be true or false, got ${describeValue(v)}` });
    return false;
  };
  // A key of another level is ignored, as envoyproxy/ratelimit ignores it (see ENVOY_KEYS).
  const unknownKeys = (obj: Record<string, unknown>, path: ConfigPath, known: readonly string[]): void => {
    for (const key of Object.keys(obj)) {
      if (!known.includes(key) && !ENVOY_KEYS.includes(key))
        issues.push({ path: [...path, key], message: unknownKeyMessage(key, known) });
    }
  };
  const list = (path: ConfigPath, v: unknown, what: string): unknown[] => {
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    issues.push({ path, message: `must be a list of ${what}, got ${describeValue(v)}` });
    return [];
  };

  let domain = "";
  if (!isRecord(root)) {
    issues.push({
      path: [],
      message: `must be a mapping with domain and descriptors, got ${describeValue(root)}`,
    });
  } else {
    unknownKeys(root, [], ROOT_KEYS);
    domain = text(["domain"], root.domain) ?? "";
    if (domain === "")
      issues.push({ path: ["domain"], message: "is required: a config file cannot have an empty domain" });
    walk(list(["descriptors"], root.descriptors, "descriptors"), ["descriptors"], [], `${domain}.`);
  }

  function walk(
    descriptors: unknown[],
    path: ConfigPath,
    parents: readonly EntryMatcher[],
    parentKey: string,
  ): void {
    const seen = new Map<string, number>();
    descriptors.forEach((d, i) => {
      const at = [...path, i];
      if (!isRecord(d)) {
        issues.push({
          path: at,
          message: `must be a mapping (key, value, rate_limit, descriptors, …), got ${describeValue(d)}`,
        });
        return;
      }
      unknownKeys(d, at, DESCRIPTOR_KEYS);
      const key = text([...at, "key"], d.key) ?? "";
      if (key === "") {
        issues.push({ path: [...at, "key"], message: "is required: every descriptor has a key" });
        return;
      }
      const value = text([...at, "value"], d.value) ?? "";
      const finalKey = value === "" ? key : `${key}_${value}`;
      const first = seen.get(finalKey);
      if (first !== undefined) {
        issues.push({
          path: at,
          message: `duplicate descriptor composite key '${parentKey}${finalKey}'`,
          related: [...path, first],
        });
        return;
      }
      seen.set(finalKey, i);

      const wildcard = value.includes("*");
      const shared = flag([...at, "share_threshold"], d.share_threshold);
      if (shared && !wildcard) {
        issues.push({
          path: [...at, "share_threshold"],
          message: "can only be used with a wildcard value (one containing '*')",
        });
      }
      if (flag([...at, "quota_mode"], d.quota_mode)) {
        issues.push({
          path: [...at, "quota_mode"],
          message:
            "is not supported: Sluice has no quota-mode descriptors (remove it, or use shadow_mode to count without denying)",
        });
      }
      flag([...at, "value_to_metric"], d.value_to_metric); // accepted, ignored: metric labels are Sluice's own
      const shadow = flag([...at, "shadow_mode"], d.shadow_mode);
      const detailedMetric = flag([...at, "detailed_metric"], d.detailed_metric);

      const entry: EntryMatcher = {
        key,
        value:
          value === ""
            ? { kind: "any" }
            : wildcard
              ? { kind: "glob", pattern: value }
              : { kind: "exact", value },
        shared: shared && wildcard,
      };
      const match = [...parents, entry];
      let rule: PendingRule | undefined;
      if (d.rate_limit !== undefined && d.rate_limit !== null) {
        rule = rateLimit(d.rate_limit, [...at, "rate_limit"], match, shadow, detailedMetric);
        if (rule) pending.push(rule);
      }
      nodes.push({ match, rule });
      walk(
        list([...at, "descriptors"], d.descriptors, "descriptors"),
        [...at, "descriptors"],
        match,
        `${parentKey}${finalKey}.`,
      );
    });
  }

  function rateLimit(
    rl: unknown,
    at: ConfigPath,
    match: readonly EntryMatcher[],
    shadow: boolean,
    detailedMetric: boolean,
  ): PendingRule | undefined {
    if (!isRecord(rl)) {
      issues.push({
        path: at,
        message: `must be a mapping (unit, requests_per_unit, …), got ${describeValue(rl)}`,
      });
      return undefined;
    }
    const before = issues.length;
    unknownKeys(rl, at, RATE_LIMIT_KEYS);
    const unlimited = flag([...at, "unlimited"], rl.unlimited);
    const name = text([...at, "name"], rl.name) || undefined;
    const rawUnit = rl.unit === undefined || rl.unit === null ? undefined : text([...at, "unit"], rl.unit);
    const unit = rawUnit?.toLowerCase();
    if (unlimited) {
      // envoyproxy/ratelimit refuses only a valid unit beside unlimited (an empty or unknown one is ignored).
      if (unit !== undefined && UNITS.includes(unit)) {
        issues.push({ path: [...at, "unit"], message: "should not specify rate limit unit when unlimited" });
      }
    } else if (unit === undefined || !UNITS.includes(unit)) {
      issues.push({
        path: rawUnit === undefined ? at : [...at, "unit"],
        message: `invalid rate limit unit '${rawUnit ?? ""}'; use ${UNITS.slice(0, -1).join(", ")} or year`,
      });
    }
    const rpu = rl.requests_per_unit ?? 0; // envoyproxy/ratelimit reads a missing value as 0
    if (typeof rpu !== "number" || !Number.isInteger(rpu) || rpu < 0 || rpu > MAX_REQUESTS_PER_UNIT) {
      issues.push({
        path: [...at, "requests_per_unit"],
        message: `must be a whole number from 0 to ${MAX_REQUESTS_PER_UNIT}, got ${describeValue(rpu)}`,
      });
    }
    const multiplier = rl.unit_multiplier ?? 1;
    if (typeof multiplier !== "number" || !Number.isInteger(multiplier) || multiplier < 1) {
      issues.push({
        path: [...at, "unit_multiplier"],
        message: `must be a whole number >= 1, got ${describeValue(multiplier)}`,
      });
    }
    const replaces: string[] = [];
    list([...at, "replaces"], rl.replaces, "{ name } entries").forEach((r, j) => {
      const rAt = [...at, "replaces", j];
      if (!isRecord(r)) {
        issues.push({ path: rAt, message: `must be a mapping with a name, got ${describeValue(r)}` });
        return;
      }
      unknownKeys(r, rAt, ["name"]);
      const target = text([...rAt, "name"], r.name) ?? "";
      if (target === "") issues.push({ path: [...rAt, "name"], message: "should not be empty" });
      else if (target === name) {
        issues.push({ path: [...rAt, "name"], message: "cannot name this descriptor's own limit" });
      } else replaces.push(target);
    });
    if (issues.length > before) return undefined;

    const id = ruleIdOf(match, false);
    const base = {
      tiers: Object.create(null) as Rule["tiers"],
      unlimited,
      behaviour: shadow ? ("shadow" as const) : ("reject" as const),
      maxDelayMs: defaults.maxDelayMs,
      strategy: "requests" as const,
      mode: defaults.mode,
      failurePolicy: defaults.failurePolicy,
      dynamic: undefined,
      priority: 0,
      detailedMetric,
    };
    if (unlimited || rpu === 0) {
      return {
        id,
        path: at,
        name,
        match,
        replaces,
        build: {
          ...base,
          limits: [],
          ...(unlimited
            ? {}
            : {
                blocked: true,
                blockedPeriodMs: ENVOY_UNIT_SECONDS[unit as string] * (multiplier as number) * 1000,
              }),
        },
      };
    }
    const periodMs = ENVOY_UNIT_SECONDS[unit as string] * (multiplier as number) * 1000;
    try {
      const spec = parseLimitSpec({
        name: name ?? (multiplier === 1 ? `per_${unit}` : `per_${multiplier}_${unit}s`),
        algorithm,
        limit: rpu as number,
        periodMs,
      });
      return { id, path: at, name, match, replaces, build: { ...base, limits: [spec] } };
    } catch (error) {
      for (const issue of (error as { issues?: readonly { path: string; message: string }[] }).issues ?? []) {
        issues.push({
          path: issue.path === "limit" ? [...at, "requests_per_unit"] : at,
          message: `${issue.message} (with algorithm ${algorithm})`,
        });
      }
      return undefined;
    }
  }

  // Ids repeat only when keys or values contain "/" or "=" in a way that makes two paths read alike (`a=b/c` is both
  // a: "b/c" and a: "b" → c): those rules get ids with "%", "/" and "=" percent-encoded, which cannot repeat.
  const counts = new Map<string, number>();
  for (const p of pending) counts.set(p.id, (counts.get(p.id) ?? 0) + 1);
  const renamed = new Map<PendingRule, PendingRule>();
  for (const [i, p] of pending.entries()) {
    if ((counts.get(p.id) as number) > 1) {
      pending[i] = { ...p, id: ruleIdOf(p.match, true) };
      renamed.set(p, pending[i]);
    }
  }
  const ids = new Map<string, ConfigPath>();
  for (const p of pending) {
    const first = ids.get(p.id);
    if (first)
      issues.push({
        path: p.path,
        message: `two descriptors compile to the same rule id ${JSON.stringify(p.id)}`,
        related: first,
      });
    else ids.set(p.id, p.path);
  }
  if (issues.length > 0) throw source.error(issues);

  const idsByName = new Map<string, string[]>();
  for (const p of pending) {
    if (p.name !== undefined) idsByName.set(p.name, [...(idsByName.get(p.name) ?? []), p.id]);
  }
  const rules = pending.map(
    (p, order): Rule => ({
      id: p.id,
      name: p.name ?? p.id,
      domain,
      match: p.match,
      identityKey: defaultIdentityKey(
        p.match.map((e) =>
          e.value.kind === "exact" ? { key: e.key, value: e.value.value } : { key: e.key },
        ),
      ),
      // Envoy names the replaced limits by rate_limit.name; names nothing carries are ignored, as there.
      replaces: [...new Set(p.replaces.flatMap((n) => idsByName.get(n) ?? []))].filter((id) => id !== p.id),
      order,
      ...p.build,
    }),
  );
  return deepFreeze({
    rules,
    // Matched by Envoy's greedy walk of this tree (descriptor-tree.ts), nodes without a limit included.
    trees: [
      {
        domain,
        nodes: nodes.map((n) => ({
          match: n.match,
          rule: n.rule === undefined ? undefined : (renamed.get(n.rule) ?? n.rule).id,
        })),
      },
    ],
    identities: new FrozenMap<string, string>(),
    overrides: [],
    defaults,
    source: options.source,
  });
}

/**
 * The id of the rule of the node at `match`: its entries as `key` or `key=value` joined by "/"; with `escaped`, "%",
 * "/" and "=" in keys and values percent-encoded (only for ids that would otherwise repeat, so that the common ids
 * read as the file does).
 */
function ruleIdOf(match: readonly EntryMatcher[], escaped: boolean): string {
  const part = (s: string): string =>
    escaped ? s.replace(/[%/=]/g, (c) => (c === "%" ? "%25" : c === "/" ? "%2F" : "%3D")) : s;
  return match
    .map((e) => (e.value.kind === "any" ? part(e.key) : `${part(e.key)}=${part(patternText(e))}`))
    .join("/");
}

function patternText(e: EntryMatcher): string {
  const v = e.value;
  return v.kind === "exact"
    ? v.value
    : v.kind === "glob" || v.kind === "path"
      ? v.pattern
      : v.kind === "prefix"
        ? `${v.prefix}*`
        : "*";
}

/**
 * The native configuration schema (YAML or JSON): one zod schema for the whole file, with its rule, override,
 * tier and limit sub-schemas exported so the admin API can validate request bodies with the same rules.
 *
 * Validation has two layers, both inside {@link configSchema}: the structural schema (types, unknown keys,
 * enums, durations, patterns) and {@link checkConfig}, the checks that look across fields (limits against the
 * default algorithm, declared tiers, rule ids that `replaces` and overrides name, …). The second layer runs even
 * when the first found problems, on whatever parts are well-formed, so one pass reports every error.
 *
 * This module also owns issue paths (`rules[1].limits[0].burst`) and where they are in a YAML/JSON source
 * ({@link ConfigSource}), shared by the native and the envoyproxy/ratelimit loaders.
 */
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type SchemaOptions,
} from "yaml";
import { z } from "zod";
import { MAX_LIMITS_PER_SET } from "../algorithms/limit-set.js";
import { closestName } from "../core/arguments.js";
import { tryParseDurationMs } from "../core/duration.js";
import { ConfigError, type ConfigIssue } from "../core/errors.js";
import {
  ALGORITHM_IDS,
  type AlgorithmId,
  type LimitSpec,
  type LimitSpecInput,
  parseLimitSpec,
} from "../core/limit-spec.js";
import { delayShapeInput } from "./delay-shape.js";
import { JsonPositions, jsonRepeatedKey, jsonSyntaxErrorOffset } from "./json-positions.js";
import { pathPatternKey } from "./matcher.js";

// ---------------------------------------------------------------------------------------------------------
// Vocabulary and documented defaults
// ---------------------------------------------------------------------------------------------------------

/** Rule behaviours when over the limit. */
export const BEHAVIOURS = ["reject", "delay", "shadow"] as const;
/** What a request's cost is measured in. */
export const STRATEGIES = ["requests", "bytes", "records"] as const;
/** Where a rule's counters live. */
export const MODES = ["exact", "lease", "local"] as const;
/** What happens when the store is unavailable. */
export const FAILURE_POLICIES = ["fail_open", "fail_closed", "fallback"] as const;
/** Algorithms with a rate to space requests at, the only ones the `delay` behaviour can shape with. */
export const DELAY_ALGORITHMS: readonly AlgorithmId[] = ["gcra", "token_bucket", "leaky_bucket"];

/** Defaults used when the file's `defaults` section leaves a field out. */
export const BUILTIN_DEFAULTS = Object.freeze({
  algorithm: "gcra" as AlgorithmId,
  behaviour: "reject" as (typeof BEHAVIOURS)[number],
  maxDelay: "1s",
  failurePolicy: "fallback" as (typeof FAILURE_POLICIES)[number],
  mode: "exact" as (typeof MODES)[number],
});

/** Defaults of a rule's `dynamic` section (seed 003: a 5-minute window, weight 0.75, multiplier 1.5). */
export const DYNAMIC_DEFAULTS = Object.freeze({ window: "5m", recentWeight: 0.75, multiplier: 1.5 });

const ID_PATTERN = /^[A-Za-z0-9_.-]+$/;
const IDENTITY_PATTERN = /^[^:]+:.+$/;

// ---------------------------------------------------------------------------------------------------------
// Sub-schemas
// ---------------------------------------------------------------------------------------------------------

/** Describes a value briefly for messages: `"abc"`, `42`, `a list`, `a mapping`. */
export function describeValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  return String(v);
}

const nonEmpty = z.string().min(1);

const DURATION_HINT = 'milliseconds, or a string such as "1s", "1m", "1d"';

/** A duration > 0: milliseconds, or a string such as `"1s"`. */
const durationSchema = z
  .union([z.number(), z.string()], {
    error: (iss) => `must be a duration > 0 (${DURATION_HINT}), got ${describeValue(iss.input)}`,
  })
  .superRefine((v, ctx) => {
    const ms = tryParseDurationMs(v);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({
        code: "custom",
        message: `must be a duration > 0 (${DURATION_HINT}), got ${describeValue(v)}`,
      });
    }
  });

/**
 * A rule's `mode`. `lease` (quota leased to each instance by a coordinator, DESIGN §4) is part of the vocabulary but
 * not built yet: refused by name, so that no configuration believes its counters are leased while they are exact.
 */
const modeSchema = z.enum(MODES).superRefine((m, ctx) => {
  if (m === "lease") {
    ctx.addIssue({
      code: "custom",
      message:
        "lease (quota leased to each instance by a coordinator) is not available yet; use exact (counted in the store) or local (counted in this process)",
    });
  }
});

/** A number or a duration string, judged by `parseLimitSpec` (which knows the algorithm). */
const limitDurationSchema = z.union([z.number(), z.string()], {
  error: (iss) => `must be a duration (${DURATION_HINT}), got ${describeValue(iss.input)}`,
});

const wholeNumber = z.number().refine(Number.isInteger, "must be a whole number");

/**
 * One limit as written (the fields of `LimitSpecInput`). Values are judged later by `parseLimitSpec`, which
 * needs the algorithm, and that may come from the file's `defaults`.
 */
export const limitSchema = z
  .object({
    name: z.string().min(1).max(128).optional(),
    algorithm: z.enum(ALGORITHM_IDS).optional(),
    limit: z.number(),
    period: limitDurationSchema.optional(),
    periodMs: z.number().optional(),
    burst: z.number().optional(),
    bucket: limitDurationSchema.optional(),
    bucketMs: z.number().optional(),
  })
  .strict();

/** A list of limits, or `"unlimited"` (tiers and overrides). */
export const limitsOrUnlimitedSchema = z.union([z.literal("unlimited"), z.array(limitSchema).min(1)], {
  error: (iss) => `must be a list of limits or "unlimited", got ${describeValue(iss.input)}`,
});

/**
 * Problems with a path pattern (`/users/:id/*`), or undefined when it is well-formed. A pattern matches the URL
 * path only: the matcher drops a value's query string, as forward-auth does before it builds the descriptor, so a
 * `?` in a pattern (`/items?page=*`) could only ever be cut off there, silently widening the rule to every query.
 */
export function pathPatternProblem(pattern: string): string | undefined {
  if (!pattern.startsWith("/")) return `must start with "/", got ${describeValue(pattern)}`;
  if (pattern.includes("?")) {
    return `must not contain "?": path patterns match the URL path only, query strings are not matched (the query is dropped before matching), got ${describeValue(pattern)}`;
  }
  const segments = pattern.slice(1).split("/");
  for (const s of segments) {
    if (s.includes("*") && s !== "*") {
      return `"*" must be a whole segment (last, it matches the rest of the path; elsewhere, one segment); use glob for wildcards inside a segment, got ${describeValue(pattern)}`;
    }
    if (s.startsWith(":") && !/^:[A-Za-z0-9_]+$/.test(s)) {
      return `a ":" segment names one path segment and needs a name of letters, digits or "_" (e.g. ":id"), got ${describeValue(pattern)}`;
    }
  }
  return undefined;
}

const VALUE_KINDS = ["value", "prefix", "glob", "path"] as const;

/** One match entry: `key` plus at most one of `value`, `prefix`, `glob`, `path` (none: any value). */
export const entryMatcherSchema = z
  .object({
    key: nonEmpty,
    value: nonEmpty.optional(),
    prefix: nonEmpty.optional(),
    glob: nonEmpty.optional(),
    path: nonEmpty
      .superRefine((p, ctx) => {
        const problem = pathPatternProblem(p);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    shared: z.boolean().optional(),
  })
  .strict()
  .superRefine(
    (e, ctx) => {
      if (!isRecord(e)) return;
      const given = VALUE_KINDS.filter((k) => e[k] !== undefined);
      if (given.length > 1) {
        ctx.addIssue({
          code: "custom",
          message: `give at most one of value, prefix, glob, path (found ${given.join(" and ")})`,
        });
      }
    },
    { when: () => true },
  );

/** Seed 003's dynamic limit: `window` > 0, `recentWeight` in [0, 1], `multiplier` > 0. */
export const dynamicSchema = z
  .object({
    window: durationSchema.optional(),
    recentWeight: z.number().min(0, "must be from 0 to 1").max(1, "must be from 0 to 1").optional(),
    multiplier: z.number().positive("must be > 0").optional(),
  })
  .strict();

/** A tier name. */
export const tierNameSchema = z
  .string()
  .regex(ID_PATTERN, 'must contain only letters, digits, "_", "." and "-"');

/** Longest rule id. */
export const MAX_RULE_ID_LENGTH = 128;

/** One rule as written. */
export const ruleSchema = z
  .object({
    id: z
      .string()
      .max(MAX_RULE_ID_LENGTH)
      .regex(ID_PATTERN, 'must contain only letters, digits, "_", "." and "-"'),
    name: z.string().min(1).max(200).optional(),
    domain: nonEmpty,
    match: z.array(entryMatcherSchema).min(1),
    identity: nonEmpty.optional(),
    limits: z.array(limitSchema).min(1).optional(),
    tiers: z.record(z.string(), limitsOrUnlimitedSchema).optional(),
    unlimited: z.boolean().optional(),
    blocked: z.boolean().optional(),
    behaviour: z.enum(BEHAVIOURS).optional(),
    maxDelay: durationSchema.optional(),
    strategy: z.enum(STRATEGIES).optional(),
    mode: modeSchema.optional(),
    failurePolicy: z.enum(FAILURE_POLICIES).optional(),
    dynamic: dynamicSchema.optional(),
    priority: wholeNumber.optional(),
    replaces: z.array(nonEmpty).optional(),
    detailedMetric: z.boolean().optional(),
  })
  .strict();

/** Problems with an ISO-8601 timestamp with a timezone, or undefined when it is one (and a real date). */
function timestampProblem(s: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  const bad = `must be an ISO-8601 time with a timezone, such as "2026-12-01T00:00:00Z", got ${describeValue(s)}`;
  if (!m) return bad;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) return bad;
  return Number.isFinite(Date.parse(s)) ? undefined : bad;
}

/** Parses an ISO-8601 timestamp with a timezone into epoch ms, or undefined when it is not one. */
export function parseTimestampMs(s: string): number | undefined {
  return timestampProblem(s) === undefined ? Date.parse(s) : undefined;
}

/** An identity, `key:value` (e.g. `user:42`, `tenant:acme`). */
export const identitySchema = z
  .string()
  .regex(IDENTITY_PATTERN, "must be key:value, such as user:42 or tenant:acme");

/**
 * One override as written: an identity's replacement limits, for one rule or every rule, optionally temporary;
 * `staticOnly` (seed 003's `static_only`) keeps a dynamic rule from scaling them. Either way it must be able to
 * apply ({@link checkConfig}): its identity is of the key its rule (or, without `rule`, some unblocked rule)
 * identifies callers by.
 */
export const overrideSchema = z
  .object({
    identity: identitySchema,
    rule: nonEmpty.optional(),
    limits: limitsOrUnlimitedSchema,
    expiresAt: z
      .string()
      .superRefine((s, ctx) => {
        const problem = timestampProblem(s);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
    staticOnly: z.boolean().optional(),
  })
  .strict();

/** The `defaults` section. */
export const defaultsSchema = z
  .object({
    algorithm: z.enum(ALGORITHM_IDS).optional(),
    behaviour: z.enum(BEHAVIOURS).optional(),
    maxDelay: durationSchema.optional(),
    failurePolicy: z.enum(FAILURE_POLICIES).optional(),
    mode: modeSchema.optional(),
  })
  .strict();

/** The structure of a whole native configuration, without the checks across fields. */
export const configShapeSchema = z
  .object({
    version: z.literal(1).optional(),
    defaults: defaultsSchema.optional(),
    tiers: z.array(tierNameSchema).optional(),
    identities: z.record(z.string(), z.string()).optional(),
    rules: z.array(ruleSchema),
    overrides: z.array(overrideSchema).optional(),
  })
  .strict();

/** The whole native configuration: structure plus every check across fields ({@link checkConfig}). */
export const configSchema = configShapeSchema.superRefine(
  (value, ctx) => {
    for (const issue of checkConfig(value)) {
      ctx.addIssue({
        code: "custom",
        path: [...issue.path],
        message: issue.message,
        ...(issue.related ? { params: { related: issue.related, relation: issue.relation } } : {}),
      });
    }
  },
  { when: () => true },
);

/** A native configuration as written (input of {@link configSchema}). */
export type NativeConfigInput = z.input<typeof configShapeSchema>;
/** A validated native configuration, before defaults are applied. */
export type NativeConfig = z.output<typeof configShapeSchema>;
/** One rule as written. */
export type NativeRule = z.output<typeof ruleSchema>;
/** One match entry as written. */
export type NativeEntry = z.output<typeof entryMatcherSchema>;
/** One override as written. */
export type NativeOverride = z.output<typeof overrideSchema>;

// ---------------------------------------------------------------------------------------------------------
// Paths and issues
// ---------------------------------------------------------------------------------------------------------

/** Where a value is in a configuration: keys and list indexes from the root. */
export type ConfigPath = readonly (string | number)[];

/** A problem at a path; `related` names another position it conflicts with (the first of duplicates). */
export interface PathIssue {
  /** Where the problem is. */
  readonly path: ConfigPath;
  /** What is wrong. */
  readonly message: string;
  /** The other position involved (the first of duplicates), when any. */
  readonly related?: ConfigPath;
  /** How the message introduces `related`. Default `"first at"`. */
  readonly relation?: string;
}

/** Formats a path as `rules[1].limits[0].burst` (keys that are not identifiers as `identities["user:42"]`). */
export function formatPath(path: ConfigPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Parses a path string made by {@link formatPath} (or `parseLimitSpec`) back into segments. */
export function parsePath(s: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(m[2]) as string);
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (Array.isArray(v) && typeof seg === "number") v = v[seg];
    else if (isRecord(v) && typeof seg === "string" && Object.hasOwn(v, seg)) v = v[seg];
    else return undefined;
  }
  return v;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  int: "a whole number",
};

/** The message for an unknown key, naming the closest known one or listing them all. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const close = closestName(key, known);
  return close
    ? `unknown field; did you mean ${close}?`
    : `unknown field; expected one of ${known.join(", ")}`;
}

/** The keys an object schema at `path` accepts, found by walking the schema. */
function knownKeys(schema: z.ZodType, path: ConfigPath): string[] {
  let s: unknown = schema;
  const unwrap = (x: unknown): unknown => {
    let cur = x as { def?: { type?: string; innerType?: unknown; in?: unknown; options?: unknown[] } };
    for (let i = 0; i < 10 && cur?.def; i++) {
      const t = cur.def.type;
      if (t === "optional" || t === "default" || t === "nullable") cur = cur.def.innerType as typeof cur;
      else if (t === "pipe") cur = cur.def.in as typeof cur;
      else break;
    }
    return cur;
  };
  for (const seg of path) {
    s = unwrap(s);
    const def = (s as { def?: Record<string, unknown> }).def;
    if (!def) return [];
    if (def.type === "object" && typeof seg === "string") s = (def.shape as Record<string, unknown>)[seg];
    else if (def.type === "array" && typeof seg === "number") s = def.element;
    else if (def.type === "record") s = def.valueType;
    else if (def.type === "union") {
      const options = (def.options as unknown[]).map(unwrap);
      s = options.find((o) => (o as { def?: { type?: string } }).def?.type === "array");
      if (s && typeof seg === "number") s = (s as { def: { element: unknown } }).def.element;
    } else return [];
    if (!s) return [];
  }
  const def = (unwrap(s) as { def?: { type?: string; shape?: Record<string, unknown> } }).def;
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

/**
 * Turns zod issues into path issues with clear messages: one per unknown key (at the key), the matching branch
 * of a union, `is required` for a missing field, and `must be …, got …` for a wrong type or value.
 */
export function zodIssuesToPathIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  schema: z.ZodType = configSchema,
  prefix: ConfigPath = [],
): PathIssue[] {
  const out: PathIssue[] = [];
  for (const issue of issues) {
    const path: (string | number)[] = [...prefix, ...(issue.path as (string | number)[])];
    const raw = valueAt(input, path);
    switch (issue.code) {
      case "unrecognized_keys": {
        const known = knownKeys(schema, path);
        for (const key of issue.keys)
          out.push({ path: [...path, key], message: unknownKeyMessage(key, known) });
        break;
      }
      case "invalid_union": {
        // Report the branch whose type matched the input (a list of limits), else the union's own message.
        const matching = issue.errors.filter(
          (branch) =>
            !branch.some(
              (i) => i.path.length === 0 && (i.code === "invalid_type" || i.code === "invalid_value"),
            ),
        );
        if (matching.length === 1) out.push(...zodIssuesToPathIssues(matching[0], input, schema, path));
        else out.push({ path, message: issue.message });
        break;
      }
      case "invalid_type":
        out.push({
          path,
          message:
            raw === undefined
              ? "is required"
              : `must be ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeValue(raw)}`,
        });
        break;
      case "invalid_value": {
        const values = issue.values.map((v) => String(v));
        out.push({
          path,
          message: `must be ${values.length === 1 ? values[0] : `one of ${values.join(", ")}`}, got ${describeValue(raw)}`,
        });
        break;
      }
      case "too_small":
        out.push({
          path,
          message:
            issue.origin === "array"
              ? `must list at least ${issue.minimum} ${Number(issue.minimum) === 1 ? "entry" : "entries"}`
              : issue.origin === "string"
                ? "must not be empty"
                : issue.message.startsWith("Too small")
                  ? `must be ${issue.inclusive ? ">=" : ">"} ${issue.minimum}, got ${describeValue(raw)}`
                  : `${issue.message}, got ${describeValue(raw)}`,
        });
        break;
      case "too_big":
        out.push({
          path,
          message:
            issue.origin === "string"
              ? `must be at most ${issue.maximum} characters`
              : issue.message.startsWith("Too big")
                ? `must be ${issue.inclusive ? "<=" : "<"} ${issue.maximum}, got ${describeValue(raw)}`
                : `${issue.message}, got ${describeValue(raw)}`,
        });
        break;
      case "invalid_format":
        out.push({ path, message: `${issue.message}, got ${describeValue(raw)}` });
        break;
      default: {
        const params = (issue as { params?: { related?: ConfigPath; relation?: string } }).params;
        out.push({
          path,
          message: issue.message,
          ...(params?.related ? { related: params.related } : {}),
          ...(params?.relation ? { relation: params.relation } : {}),
        });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Checks across fields
// ---------------------------------------------------------------------------------------------------------

/** The entry key identifying callers when `identity` is not given: the first entry matched by a non-exact pattern. */
export function defaultIdentityKey(match: readonly unknown[]): string | undefined {
  for (const e of match) {
    if (isRecord(e) && typeof e.key === "string" && e.value === undefined) return e.key;
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function enumValue<T extends string>(v: unknown, values: readonly T[]): T | undefined {
  return typeof v === "string" && (values as readonly string[]).includes(v) ? (v as T) : undefined;
}

function declaredTiersHint(tiers: ReadonlySet<string>): string {
  return tiers.size === 0 ? "no tiers are declared (add it to tiers)" : `declared: ${[...tiers].join(", ")}`;
}

/**
 * Validates a list of limits with `parseLimitSpec`, the algorithm defaulting to `algorithm`: reports each
 * problem under `path`, duplicate names (every limit of a list needs its own policy name), more limits than apply
 * to one key, and, for a `delay` rule (`maxDelayMs` given), a shaping limit the engine could not build. Returns the
 * specs of the limits that are valid. A field the structural schema refuses is reported by it, not again here; the
 * limit's other fields are still judged (a mistyped `limit` hides no bad `period`), none of them against that field.
 */
export function checkLimits(
  limits: unknown,
  path: ConfigPath,
  algorithm: AlgorithmId,
  issues: PathIssue[],
  maxDelayMs?: number,
): LimitSpec[] {
  const specs: LimitSpec[] = [];
  if (!Array.isArray(limits)) return specs;
  if (limits.length > MAX_LIMITS_PER_SET) {
    issues.push({
      path,
      message: `at most ${MAX_LIMITS_PER_SET} limits may apply to one key, got ${limits.length}`,
    });
  }
  const names = new Map<string, number>();
  limits.forEach((l, i) => {
    if (!isRecord(l)) return;
    // Fields the structural schema refuses (wrong type, unknown key) are reported by it; parseLimitSpec judges the
    // others, so a limit of the wrong type does not hide a bad period, and nothing is reported twice.
    const refused = new Set<string>();
    const parsed = limitSchema.safeParse(l);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.code === "unrecognized_keys") for (const key of issue.keys) refused.add(key);
        else if (issue.path.length > 0) refused.add(String(issue.path[0]));
        else return;
      }
    }
    // Unknown keys left out (reported once, by the schema); refused fields kept, for parseLimitSpec to skip too.
    const input = Object.fromEntries(
      Object.entries(l).filter(([key]) => Object.hasOwn(limitSchema.shape, key)),
    ) as unknown as LimitSpecInput;
    if (!refused.has("name")) {
      const name = typeof l.name === "string" ? l.name : "default";
      const first = names.get(name);
      if (first !== undefined) {
        issues.push({
          path: [...path, i, ...(l.name !== undefined ? ["name"] : [])],
          message: `duplicate limit name ${JSON.stringify(name)}; give each limit of the list its own name`,
          related: [...path, first],
        });
      } else names.set(name, i);
    }
    let spec: LimitSpec;
    try {
      spec = parseLimitSpec({ ...input, algorithm: input.algorithm ?? algorithm });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const issue of error.issues) {
        const at = parsePath(issue.path);
        if (refused.has(String(at[0]))) continue;
        issues.push({ path: [...path, i, ...at], message: issue.message });
      }
      return;
    }
    specs.push(spec);
    if (maxDelayMs === undefined || spec.algorithm === "concurrency") return;
    try {
      parseLimitSpec(delayShapeInput(spec, maxDelayMs));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const why = error.issues.map((issue) => issue.message).join("; ");
      issues.push({
        path: [...path, i],
        message: `with behaviour delay, maxDelay ${maxDelayMs} ms makes a shaping limit of burst ${spec.burst} + ${maxDelayMs} ms / ${spec.periodMs / spec.limit} ms per request, which is out of range (${why}); shorten maxDelay or lower the rate`,
      });
    }
  });
  return specs;
}

/** Which algorithms a rule's behaviour or section refuses for its limits, and why. */
interface AlgorithmNeed {
  /** Whether `alg` cannot serve. */
  refuses(alg: AlgorithmId): boolean;
  /** The issue: `note` tells when `alg` is the default algorithm, `ruleNote` names the rule when not the one at hand. */
  why(alg: AlgorithmId, note: string, ruleNote: string): string;
}

/** Behaviour `delay` spaces requests at a rate: it needs an algorithm that has one. */
const DELAY_NEEDS: AlgorithmNeed = {
  refuses: (alg) => !DELAY_ALGORITHMS.includes(alg),
  why: (alg, note, ruleNote) =>
    `behaviour delay${ruleNote} spaces requests at the limit's rate, so it needs a rate algorithm (gcra, token_bucket or leaky_bucket); ${alg}${note} has no rate to space them at`,
};

/**
 * A `dynamic` rule scales its limits: algorithms whose state's size follows the limit (a log entry, a lease slot per
 * unit) cannot serve, since every level would need a state of another size, and a store holding one namespace's
 * keys in one layout would have to re-lay (and cut) the state of every key on each change of level.
 */
const DYNAMIC_NEEDS: AlgorithmNeed = {
  refuses: (alg) => alg === "sliding_log" || alg === "concurrency",
  why: (alg, note, ruleNote) =>
    `dynamic${ruleNote} scales the limit, and ${alg}${note} keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket`,
};

/**
 * Reports each limit of `limits` whose algorithm (its own, else the default `algorithm`) `need` refuses, at the
 * limit's `algorithm` field when it names one, else at the limit; `ruleNote` names the rule when not the one at hand.
 */
function checkAlgorithms(
  limits: unknown,
  path: ConfigPath,
  algorithm: AlgorithmId,
  issues: PathIssue[],
  need: AlgorithmNeed,
  ruleNote = "",
): void {
  if (!Array.isArray(limits)) return;
  limits.forEach((l, i) => {
    if (!isRecord(l)) return;
    const explicit = enumValue(l.algorithm, ALGORITHM_IDS);
    const alg = explicit ?? algorithm;
    if (!need.refuses(alg)) return;
    issues.push({
      path: explicit ? [...path, i, "algorithm"] : [...path, i],
      message: need.why(alg, explicit ? "" : " (the default algorithm)", ruleNote),
    });
  });
}

interface RuleFacts {
  readonly index: number;
  readonly identityKey: string | undefined;
  readonly behaviour: (typeof BEHAVIOURS)[number];
  readonly unlimited: boolean;
  readonly blocked: boolean;
  /** Whether the rule has a `dynamic` section. */
  readonly dynamic: boolean;
  /** A delay rule's maxDelay, ms (undefined for other behaviours, or when it is malformed: reported apart). */
  readonly maxDelayMs: number | undefined;
}

/**
 * The maxDelay of rule `r` when its behaviour is delay (its own, else the file's default, else the built-in one),
 * in ms; undefined for other behaviours or a malformed duration (reported by the schema).
 */
function delayOf(
  r: Record<string, unknown>,
  defaults: Record<string, unknown>,
  defaultBehaviour: (typeof BEHAVIOURS)[number],
): number | undefined {
  if ((enumValue(r.behaviour, BEHAVIOURS) ?? defaultBehaviour) !== "delay") return undefined;
  return tryParseDurationMs(r.maxDelay ?? defaults.maxDelay ?? BUILTIN_DEFAULTS.maxDelay);
}

/**
 * A key for a rule's domain and match patterns (not `shared`), or undefined when they are malformed. With
 * `normalised`, path patterns are keyed as the matcher reads them ({@link pathPatternKey}), so patterns it treats
 * alike (`/a/b` and `/a/b/`, `/a/:x` and `/a/:y`) give one key; else as written.
 */
function matchSignature(r: unknown, normalised: boolean): string | undefined {
  if (!isRecord(r) || typeof r.domain !== "string" || !Array.isArray(r.match)) return undefined;
  const entries: string[][] = [];
  for (const e of r.match) {
    if (!isRecord(e) || typeof e.key !== "string") return undefined;
    const kind = VALUE_KINDS.find((k) => e[k] !== undefined);
    const text = kind ? String(e[kind]) : "";
    entries.push([e.key, kind ?? "any", normalised && kind === "path" ? pathPatternKey(text) : text]);
  }
  return JSON.stringify([r.domain, entries]);
}

/**
 * The checks that look across fields, on a value that may be only partly well-formed (anything malformed is
 * skipped: the structural schema reports it). Returns every problem found.
 */
export function checkConfig(value: unknown): PathIssue[] {
  const issues: PathIssue[] = [];
  if (!isRecord(value)) return issues;
  const defaults = isRecord(value.defaults) ? value.defaults : {};
  const algorithm = enumValue(defaults.algorithm, ALGORITHM_IDS) ?? BUILTIN_DEFAULTS.algorithm;
  const defaultBehaviour = enumValue(defaults.behaviour, BEHAVIOURS) ?? BUILTIN_DEFAULTS.behaviour;

  // Tiers and identities.
  const tiers = new Set<string>();
  if (Array.isArray(value.tiers)) {
    const first = new Map<string, number>();
    value.tiers.forEach((t, i) => {
      if (typeof t !== "string") return;
      const j = first.get(t);
      if (j !== undefined) {
        issues.push({
          path: ["tiers", i],
          message: `duplicate tier ${JSON.stringify(t)}`,
          related: ["tiers", j],
        });
      } else first.set(t, i);
      tiers.add(t);
    });
  }
  if (isRecord(value.identities)) {
    for (const [identity, tier] of Object.entries(value.identities)) {
      if (!IDENTITY_PATTERN.test(identity)) {
        issues.push({
          path: ["identities", identity],
          message: "must be key:value, such as user:42 or apikey:ak_1",
        });
      }
      if (typeof tier === "string" && !tiers.has(tier)) {
        issues.push({
          path: ["identities", identity],
          message: `unknown tier ${JSON.stringify(tier)}; ${declaredTiersHint(tiers)}`,
        });
      }
    }
  }

  // Rule ids first: replaces and overrides refer to them.
  const rules = Array.isArray(value.rules) ? value.rules : [];
  const facts = new Map<string, RuleFacts>();
  rules.forEach((r, i) => {
    if (!isRecord(r)) return;
    const id = str(r.id);
    if (id === undefined) return;
    const earlier = facts.get(id);
    if (earlier !== undefined) {
      issues.push({
        path: ["rules", i, "id"],
        message: `duplicate rule id ${JSON.stringify(id)}`,
        related: ["rules", earlier.index, "id"],
      });
      return;
    }
    const match = Array.isArray(r.match) ? r.match : [];
    facts.set(id, {
      index: i,
      identityKey: str(r.identity) ?? defaultIdentityKey(match),
      behaviour: enumValue(r.behaviour, BEHAVIOURS) ?? defaultBehaviour,
      unlimited: r.unlimited === true,
      blocked: r.blocked === true,
      dynamic: r.dynamic !== undefined,
      maxDelayMs: delayOf(r, defaults, defaultBehaviour),
    });
  });

  rules.forEach((r, i) => {
    if (!isRecord(r)) return;
    const at = (...rest: (string | number)[]): (string | number)[] => ["rules", i, ...rest];
    const unlimited = r.unlimited === true;
    const blocked = r.blocked === true;
    const behaviour = enumValue(r.behaviour, BEHAVIOURS) ?? defaultBehaviour;
    const match = Array.isArray(r.match) ? r.match : undefined;

    if (unlimited && blocked) {
      issues.push({ path: at("blocked"), message: "cannot be combined with unlimited: true" });
    }
    if (r.limits !== undefined && (unlimited || blocked)) {
      issues.push({
        path: at("limits"),
        message: `must be left out when ${unlimited ? "unlimited" : "blocked"} is true (the rule has no limits)`,
      });
    } else if (r.limits === undefined && !unlimited && !blocked) {
      issues.push({ path: at("limits"), message: "is required (or set unlimited: true)" });
    }
    const maxDelayMs = delayOf(r, defaults, defaultBehaviour);
    checkLimits(r.limits, at("limits"), algorithm, issues, maxDelayMs);
    if (behaviour === "delay") checkAlgorithms(r.limits, at("limits"), algorithm, issues, DELAY_NEEDS);
    if (r.dynamic !== undefined) checkAlgorithms(r.limits, at("limits"), algorithm, issues, DYNAMIC_NEEDS);

    let identityKey: string | undefined;
    if (match !== undefined) {
      const keys = match.flatMap((e) => (isRecord(e) && typeof e.key === "string" ? [e.key] : []));
      const identity = str(r.identity);
      if (identity !== undefined && !keys.includes(identity)) {
        issues.push({
          path: at("identity"),
          message: `must be one of the match keys (${keys.join(", ")}), got ${describeValue(identity)}`,
        });
      }
      identityKey = identity ?? defaultIdentityKey(match);
    }

    if (isRecord(r.tiers)) {
      if (blocked) {
        issues.push({ path: at("tiers"), message: "do not apply to a blocked rule (it denies everyone)" });
      } else if (match !== undefined && identityKey === undefined) {
        issues.push({
          path: at("tiers"),
          message: "need an identity to look callers up by: every match entry is exact, so set identity",
        });
      }
      for (const [tier, limits] of Object.entries(r.tiers)) {
        if (!tiers.has(tier)) {
          issues.push({
            path: at("tiers", tier),
            message: `unknown tier ${JSON.stringify(tier)}; ${declaredTiersHint(tiers)}`,
          });
        }
        checkLimits(limits, at("tiers", tier), algorithm, issues, maxDelayMs);
        if (behaviour === "delay") checkAlgorithms(limits, at("tiers", tier), algorithm, issues, DELAY_NEEDS);
        if (r.dynamic !== undefined)
          checkAlgorithms(limits, at("tiers", tier), algorithm, issues, DYNAMIC_NEEDS);
      }
    }

    if (r.dynamic !== undefined && (unlimited || blocked)) {
      issues.push({
        path: at("dynamic"),
        message: `needs limits to adjust; the rule is ${unlimited ? "unlimited" : "blocked"}`,
      });
    }

    if (Array.isArray(r.replaces)) {
      r.replaces.forEach((target, j) => {
        if (typeof target !== "string" || target === "") return;
        if (target === r.id) {
          issues.push({ path: at("replaces", j), message: "a rule cannot replace itself" });
        } else if (!facts.has(target)) {
          issues.push({ path: at("replaces", j), message: `unknown rule id ${JSON.stringify(target)}` });
        }
      });
    }
  });

  // Rules that can never apply: the same domain and match as another that always wins (higher priority, then
  // earlier), since a descriptor is counted by its single most specific rule. "The same" as the matcher reads them
  // (path patterns normalised), and every loser names the rule that really wins among all of that match, not the
  // first it was compared with (of a and b at priority 0 and c at 5, both a and b lose to c).
  const priority = (k: number): number => {
    const p = (rules[k] as Record<string, unknown>).priority;
    return typeof p === "number" ? p : 0;
  };
  const signatures = rules.map((r) => matchSignature(r, true));
  const winners = new Map<string, number>();
  signatures.forEach((signature, i) => {
    if (signature === undefined) return;
    const j = winners.get(signature);
    if (j === undefined || priority(i) > priority(j)) winners.set(signature, i);
  });
  signatures.forEach((signature, loser) => {
    const winner = signature === undefined ? undefined : winners.get(signature);
    if (winner === undefined || winner === loser) return;
    const same = matchSignature(rules[winner], false) === matchSignature(rules[loser], false);
    issues.push({
      path: ["rules", loser, "match"],
      message: `rule ${JSON.stringify((rules[winner] as Record<string, unknown>).id)} has ${same ? "the same domain and match" : "the same domain and an equivalent match (path patterns that match the same paths)"} and wins (${priority(winner) > priority(loser) ? "higher priority" : "declared first, same priority"}), so this rule never applies`,
      related: ["rules", winner, "match"],
      relation: "the winner is at",
    });
  });

  // Overrides. The identity key of every rule, with an id or not (a rule without one is reported apart, and should
  // not make a rule-less override look dead), and whether it is blocked (overrides never apply to a blocked rule).
  const identified = rules.flatMap((r) =>
    isRecord(r)
      ? [
          {
            key: str(r.identity) ?? defaultIdentityKey(Array.isArray(r.match) ? r.match : []),
            blocked: r.blocked === true,
          },
        ]
      : [],
  );
  const overrides = Array.isArray(value.overrides) ? value.overrides : [];
  overrides.forEach((o, i) => {
    if (!isRecord(o)) return;
    const at = (...rest: (string | number)[]): (string | number)[] => ["overrides", i, ...rest];
    const identity = str(o.identity);
    // Whether the override can be of a rule identifying callers by `key`: the engine forms an identity as
    // `${key}:${value}`, and keys and values may hold ":" themselves, so `ns:tenant:acme` can be of key `ns:tenant`
    // (value `acme`) as well as of key `ns` (value `tenant:acme`). Not by its first ":" alone.
    const ofKey = (key: string | undefined): boolean =>
      key !== undefined && identity?.startsWith(`${key}:`) === true;
    const ruleId = str(o.rule);
    // A static-only override is never scaled by a dynamic rule, so any algorithm serves it there.
    const staticOnly = o.staticOnly === true;
    checkLimits(o.limits, at("limits"), algorithm, issues, facts.get(ruleId ?? "")?.maxDelayMs);
    if (ruleId !== undefined) {
      const rule = facts.get(ruleId);
      if (rule === undefined) {
        issues.push({ path: at("rule"), message: `unknown rule id ${JSON.stringify(ruleId)}` });
        return;
      }
      if (rule.blocked) {
        issues.push({
          path: at("rule"),
          message: `rule ${JSON.stringify(ruleId)} is blocked (it denies everyone), so overrides do not apply to it`,
        });
        return;
      }
      if (identity?.includes(":") === true && !ofKey(rule.identityKey)) {
        issues.push({
          path: at("identity"),
          message:
            rule.identityKey === undefined
              ? `rule ${JSON.stringify(ruleId)} has no identity entry, so this override never applies`
              : `rule ${JSON.stringify(ruleId)} identifies callers by ${JSON.stringify(rule.identityKey)}, so an override for ${JSON.stringify(identity)} never applies`,
        });
      }
      if (rule.behaviour === "delay") checkAlgorithms(o.limits, at("limits"), algorithm, issues, DELAY_NEEDS);
      if (rule.dynamic && !staticOnly)
        checkAlgorithms(o.limits, at("limits"), algorithm, issues, DYNAMIC_NEEDS);
    } else if (identity?.includes(":") === true) {
      // A rule-less override applies to every rule identifying callers by a key it can be of, blocked rules aside.
      // With no such rule it can never apply (a typo in the key, or the rules of that key gone): refused, as an
      // override naming a rule of another key is, rather than kept as a statement that silently does nothing.
      const reachable = identified.filter((rule) => ofKey(rule.key));
      if (!reachable.some((rule) => !rule.blocked)) {
        const keys = [...new Set(identified.flatMap((rule) => (rule.key === undefined ? [] : [rule.key])))];
        issues.push({
          path: at("identity"),
          message:
            reachable.length > 0
              ? `every rule identifying callers by the key of ${JSON.stringify(identity)} is blocked (it denies everyone), so this override never applies`
              : `no rule identifies callers by the key of ${JSON.stringify(identity)}, so this override never applies (${keys.length === 0 ? "no rule has an identity entry" : `rules identify callers by ${keys.map((k) => JSON.stringify(k)).join(", ")}`})`,
        });
        return;
      }
      // Each rule it applies to must accept its limits.
      const needs: [AlgorithmNeed, (rule: RuleFacts) => boolean][] = [
        [DELAY_NEEDS, (rule) => rule.behaviour === "delay"],
        [DYNAMIC_NEEDS, (rule) => rule.dynamic && !rule.unlimited && !staticOnly],
      ];
      for (const [need, applies] of needs) {
        for (const [id, rule] of facts) {
          if (ofKey(rule.identityKey) && !rule.blocked && applies(rule)) {
            checkAlgorithms(
              o.limits,
              at("limits"),
              algorithm,
              issues,
              need,
              ` (of rule ${JSON.stringify(id)})`,
            );
            break;
          }
        }
      }
    }
  });
  return issues;
}

/** Validates a native configuration value; returns the typed value or every problem found. */
export function validateConfig(
  value: unknown,
): { success: true; data: NativeConfig } | { success: false; issues: PathIssue[] } {
  const result = configSchema.safeParse(value, { reportInput: true });
  if (result.success) return { success: true, data: result.data };
  return { success: false, issues: zodIssuesToPathIssues(result.error.issues, value) };
}

// ---------------------------------------------------------------------------------------------------------
// Freezing compiled configurations
// ---------------------------------------------------------------------------------------------------------

/** A `Map` that cannot change after construction: `set`, `delete` and `clear` throw. */
export class FrozenMap<K, V> extends Map<K, V> {
  /** Creates the map from `entries` and freezes it. */
  constructor(entries: Iterable<readonly [K, V]> = []) {
    super();
    for (const [k, v] of entries) super.set(k, v);
    Object.freeze(this);
  }

  /** Always throws: the map is read-only. */
  override set(_key: K, _value: V): this {
    throw new TypeError("this map is read-only");
  }

  /** Always throws: the map is read-only. */
  override delete(_key: K): boolean {
    throw new TypeError("this map is read-only");
  }

  /** Always throws: the map is read-only. */
  override clear(): void {
    throw new TypeError("this map is read-only");
  }
}

/** Freezes `value` and every object and array reachable from it (maps must already be {@link FrozenMap}s). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || value instanceof Map) return value;
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return Object.freeze(value);
}

// ---------------------------------------------------------------------------------------------------------
// Sources: text with positions
// ---------------------------------------------------------------------------------------------------------

/** The formats a configuration text may be in. */
export type ConfigFormat = "yaml" | "json";

/** Options of {@link ConfigSource.parse}. */
export interface ParseSourceOptions {
  /**
   * The text's format. Default `"yaml"`. JSON is read with `JSON.parse` (a large document in milliseconds, where
   * the YAML parser takes minutes) and located by `json-positions.ts`; a key repeated in one object is an error,
   * as in YAML.
   */
  readonly format?: ConfigFormat;
  /** The file name, for messages. */
  readonly source?: string;
  /** The YAML schema: `"core"` (YAML 1.2, the default) or `"yaml-1.1"` (envoyproxy/ratelimit reads YAML 1.1). */
  readonly schema?: SchemaOptions["schema"];
}

/** A parsed configuration text that remembers where each value came from, to put lines on issues. */
export class ConfigSource {
  /** The parsed value (plain objects, lists and scalars). */
  readonly value: unknown;
  /** The file name, for messages. */
  readonly name: string | undefined;
  private readonly doc: Document | undefined;
  private readonly lines: LineCounter | undefined;
  private readonly json: JsonPositions | undefined;

  private constructor(
    value: unknown,
    name: string | undefined,
    doc?: Document,
    lines?: LineCounter,
    json?: JsonPositions,
  ) {
    this.value = value;
    this.name = name;
    this.doc = doc;
    this.lines = lines;
    this.json = json;
  }

  /** Wraps an already-parsed value (e.g. a JSON request body): issues carry no lines. */
  static fromValue(value: unknown, name?: string): ConfigSource {
    return new ConfigSource(value, name);
  }

  /** Parses YAML or JSON text keeping positions; throws `ERR_SLUICE_INVALID_CONFIG` on a syntax error. */
  static parse(text: string, options: ParseSourceOptions = {}): ConfigSource {
    if (options.format === "json") return ConfigSource.parseJson(text, options.source);
    const lines = new LineCounter();
    const doc = parseDocument(text, {
      lineCounter: lines,
      prettyErrors: false,
      uniqueKeys: true,
      merge: true,
      schema: options.schema ?? "core",
    });
    // Only the first syntax error: the parser's later ones mostly follow from it and point at sound lines.
    const first = doc.errors[0];
    if (first) {
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [{ path: "", message: `invalid YAML: ${first.message}`, line: lines.linePos(first.pos[0]).line }],
        options.source,
      );
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (error) {
      // e.g. aliases expanding without bound ("billion laughs"): refuse rather than exhaust memory.
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [{ path: "", message: `invalid YAML: ${(error as Error).message}` }],
        options.source,
      );
    }
    return new ConfigSource(value, options.source, doc, lines);
  }

  /**
   * Parses JSON text with `JSON.parse`; positions are found only when a message needs them. Throws
   * `ERR_SLUICE_INVALID_CONFIG` on a syntax error (with its line) or a key repeated in one object.
   */
  private static parseJson(text: string, source: string | undefined): ConfigSource {
    return ConfigSource.#json(text, source, false) as ConfigSource;
  }

  /**
   * Parses `text` as JSON when `JSON.parse` accepts it (then as {@link ConfigSource.parse} with format `json`,
   * a repeated key included); undefined when it is not JSON (for the caller to read it as YAML).
   */
  static parseIfJson(text: string, source?: string): ConfigSource | undefined {
    return ConfigSource.#json(text, source, true);
  }

  static #json(text: string, source: string | undefined, lenient: boolean): ConfigSource | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (lenient) return undefined;
      const message = (error as Error).message;
      const pos = /at position (\d+)/.exec(message);
      const lineCol = /\(line (\d+) column \d+\)/.exec(message);
      // Newer V8 messages carry no position: the scanner finds where a strict parser stops.
      const offset = pos ? Number(pos[1]) : jsonSyntaxErrorOffset(text);
      const line = lineCol
        ? Number(lineCol[1])
        : offset !== undefined
          ? new JsonPositions(text).line(offset)
          : undefined;
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [
          {
            path: "",
            // Keep V8's first clause ("Unexpected token '#'"), not the position or the quoted text that follow.
            message: `invalid JSON: ${message
              .replace(/ in JSON at position \d+.*$/s, "")
              .replace(/ \(line \d+ column \d+\)$/, "")
              .replace(/, ".*" is not valid JSON$/s, "")}`,
            ...(line !== undefined ? { line } : {}),
          },
        ],
        source,
      );
    }
    const json = new JsonPositions(text);
    const repeated = jsonRepeatedKey(text);
    if (repeated !== undefined) {
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [
          {
            path: formatPath(repeated.path),
            message: `invalid JSON: the key is repeated in its object (keys must be unique); first at line ${json.line(repeated.firstOffset)}`,
            line: json.line(repeated.offset),
          },
        ],
        source,
      );
    }
    return new ConfigSource(value, source, undefined, undefined, json);
  }

  /** The YAML node at `path`, and the node to take its line from (the key, for a mapping entry). */
  private locate(path: ConfigPath): { node: unknown; at: Node | undefined } {
    let node: unknown = this.doc?.contents;
    let at = node as Node | undefined;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        at = (pair.key as Node | null) ?? at;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === "number" && seg < node.items.length) {
        node = node.items[seg];
        at = (node as Node | null) ?? at;
      } else break;
    }
    return { node, at };
  }

  /** The 1-based line of the value at `path` (of its key, for a mapping entry); the nearest existing parent's when it is missing. */
  lineOf(path: ConfigPath): number | undefined {
    if (this.json !== undefined) return this.json.lineOf(path);
    if (!this.lines || !this.doc) return undefined;
    const { at } = this.locate(path);
    const offset = at?.range?.[0];
    return offset === undefined ? 1 : this.lines.linePos(offset).line;
  }

  /** The source text of the scalar at `path` (`1.10` stays `"1.10"`), or undefined when it is not a scalar. */
  textOf(path: ConfigPath): string | undefined {
    if (this.json !== undefined) return this.json.textOf(path);
    const { node } = this.locate(path);
    if (!isScalar(node)) return undefined;
    return typeof node.value === "string" ? node.value : (node.source ?? String(node.value));
  }

  /** Builds the `ERR_SLUICE_INVALID_CONFIG` error for `issues`, with lines, in document order. */
  error(issues: readonly PathIssue[]): ConfigError {
    const seen = new Set<string>();
    const located: ConfigIssue[] = [];
    for (const issue of issues) {
      const path = formatPath(issue.path);
      let message = issue.message;
      if (issue.related) {
        const line = this.lineOf(issue.related);
        message += `; ${issue.relation ?? "first at"} ${formatPath(issue.related)}${line !== undefined ? ` (line ${line})` : ""}`;
      }
      const key = `${path}\u0000${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const line = this.lineOf(issue.path);
      located.push({ path, message, ...(line !== undefined ? { line } : {}) });
    }
    const order = located.map((issue, i) => ({ issue, i }));
    order.sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || a.i - b.i);
    return new ConfigError(
      "ERR_SLUICE_INVALID_CONFIG",
      order.map((o) => o.issue),
      this.name,
    );
  }
}

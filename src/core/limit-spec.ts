import { z } from "zod";
import { tryParseDurationMs } from "./duration.js";
import { ConfigError, type ConfigIssue } from "./errors.js";

/** The algorithms Sluice implements; each is a pure step in `src/algorithms/<id>.ts` with a Lua twin. */
export const ALGORITHM_IDS = [
  "token_bucket",
  "leaky_bucket",
  "fixed_window",
  "sliding_log",
  "sliding_window",
  "gcra",
  "bucketed_window",
  "concurrency",
] as const;

/** One of {@link ALGORITHM_IDS}. */
export type AlgorithmId = (typeof ALGORITHM_IDS)[number];

/** Algorithms whose `burst` may differ from `limit`. */
const BURST_ALGORITHMS: ReadonlySet<AlgorithmId> = new Set(["token_bucket", "leaky_bucket", "gcra"]);
/** Algorithms that count whole requests and so need an integer `limit`. */
const COUNTING_ALGORITHMS: ReadonlySet<AlgorithmId> = new Set([
  "fixed_window",
  "sliding_log",
  "sliding_window",
  "bucketed_window",
  "concurrency",
]);

/** Largest `limit` for `sliding_log`, whose memory per key is O(limit). */
export const SLIDING_LOG_MAX_LIMIT = 100_000;
/** Largest concurrency `limit` (in-flight leases per key are kept individually). */
export const CONCURRENCY_MAX_LIMIT = 100_000;
/** Largest number of buckets (`periodMs / bucketMs`) of a `bucketed_window`. */
export const BUCKETED_WINDOW_MAX_BUCKETS = 10_000;
/**
 * Longest time a key's state may need to go back to fresh, ms (~317 years): `periodMs · max(2, burst / limit)`
 * must stay within it. The Redis store gives each key that time as its TTL and caps TTLs here (Redis refuses a PX
 * it formats with an exponent), so a longer-lived state would expire while it still held usage.
 */
export const MAX_STATE_HORIZON_MS = 1e13;

/** A limit as users write it; durations may be strings such as `"1s"` or `"1d"`. */
export interface LimitSpecInput {
  /** Policy name, reported in decisions and the `RateLimit-Policy` header. Default: `"default"`. */
  readonly name?: string;
  /** Which algorithm enforces the limit. Default: `"gcra"`. */
  readonly algorithm?: AlgorithmId;
  /** Units admitted per period (for `concurrency`: leases in flight at once). */
  readonly limit: number;
  /** Length of the period; for `concurrency`, how long an unreleased lease lives. Alias: `periodMs`. */
  readonly period?: number | string;
  /** Length of the period in milliseconds. Alias: `period`. */
  readonly periodMs?: number;
  /** Most units that may pass at once (token_bucket, leaky_bucket, gcra). Default: `limit`. */
  readonly burst?: number;
  /** Bucket width of `bucketed_window`; must divide the period. Alias: `bucketMs`. Default: period / 10. */
  readonly bucket?: number | string;
  /** Bucket width of `bucketed_window` in milliseconds. Alias: `bucket`. */
  readonly bucketMs?: number;
}

/** A parsed, validated, frozen limit. All durations in milliseconds. */
export interface LimitSpec {
  /** Policy name. */
  readonly name: string;
  /** Algorithm enforcing the limit. */
  readonly algorithm: AlgorithmId;
  /** Units per period (in-flight leases for `concurrency`). */
  readonly limit: number;
  /** Period in milliseconds (lease lifetime for `concurrency`). */
  readonly periodMs: number;
  /** Most units that may pass at once; equals `limit` for window and concurrency algorithms. */
  readonly burst: number;
  /** Bucket width of `bucketed_window`, in milliseconds; 0 for other algorithms. */
  readonly bucketMs: number;
  /** Time one unit takes to replenish, `periodMs / limit` (GCRA's emission interval T). */
  readonly emissionMs: number;
}

const duration = z.union([z.number(), z.string()]);

const inputSchema = z
  .object({
    name: z
      .string()
      .min(1, "must be a non-empty string")
      .max(128, "must be at most 128 characters")
      .optional(),
    algorithm: z
      .enum(ALGORITHM_IDS, { error: () => `must be one of ${ALGORITHM_IDS.join(", ")}` })
      .optional(),
    limit: z
      .number({ error: "must be a number" })
      .refine((v) => Number.isFinite(v) && v > 0, "must be a finite number > 0")
      .refine((v) => v <= Number.MAX_SAFE_INTEGER, "must be at most Number.MAX_SAFE_INTEGER"),
    period: duration.optional(),
    periodMs: z.number().optional(),
    burst: z.number({ error: "must be a number" }).optional(),
    bucket: duration.optional(),
    bucketMs: z.number().optional(),
  })
  .strict();

function pathOf(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/** The fields of a {@link LimitSpecInput}, as its keys. */
type LimitField = keyof LimitSpecInput;

/**
 * Parses and validates a limit, returning a frozen {@link LimitSpec}. Throws `ConfigError`
 * (`ERR_SLUICE_INVALID_LIMIT`) listing every problem, each named by its path under `path`.
 *
 * Every field is judged on its own, so one bad field does not hide another (`limit: -1, period: "1q", burst: -4`
 * gives three issues). A check that relates fields runs only when each field it reads is valid: a burst is not
 * compared with an invalid limit, nor a bucket with an invalid period, nor anything with an invalid algorithm's
 * rules; such an issue would be a consequence of the first, and would change once that is fixed.
 */
export function parseLimitSpec(input: LimitSpecInput, path = ""): LimitSpec {
  const parsed = inputSchema.safeParse(input);
  const issues: ConfigIssue[] = [];
  // Fields whose value the schema refused (wrong type or out of range): taken as unknown below, not judged again.
  const bad = new Set<PropertyKey>();
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const message =
        i.code === "unrecognized_keys"
          ? `unknown field(s): ${i.keys.join(", ")}`
          : i.message.replace(/^Invalid input: /, "");
      issues.push({ path: pathOf(path, i.path), message });
      if (i.path.length > 0) bad.add(i.path[0]);
      // Not an object at all: there are no fields to judge.
      else if (i.code !== "unrecognized_keys") throw new ConfigError("ERR_SLUICE_INVALID_LIMIT", issues);
    }
  }
  // The input as given, its unknown keys aside; each field below is read only when it is not in `bad`.
  const v = input;
  const ok = (name: LimitField): boolean => !bad.has(name);
  const field = (name: LimitField): string => pathOf(path, [name]);
  /** The algorithm, undefined when the one given is not one of {@link ALGORITHM_IDS}. */
  const algorithm: AlgorithmId | undefined = ok("algorithm") ? (v.algorithm ?? "gcra") : undefined;
  /** The limit, undefined when invalid (then nothing is judged against it). */
  const limit: number | undefined = ok("limit") ? v.limit : undefined;

  const periodField = field(v.period !== undefined ? "period" : "periodMs");
  let periodMs: number | undefined;
  if (v.period !== undefined && v.periodMs !== undefined) {
    issues.push({ path: field("period"), message: "give either period or periodMs, not both" });
  } else if (v.period !== undefined || v.periodMs !== undefined) {
    if (ok("period") && ok("periodMs")) {
      periodMs = tryParseDurationMs(v.period ?? v.periodMs);
      if (periodMs === undefined || periodMs <= 0) {
        issues.push({
          path: periodField,
          message: `must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got ${JSON.stringify(v.period ?? v.periodMs)}`,
        });
        periodMs = undefined;
      }
    }
  } else {
    issues.push({ path: field("period"), message: 'is required (e.g. period: "1s" or periodMs: 1000)' });
  }

  if (algorithm !== undefined && limit !== undefined) {
    if (COUNTING_ALGORITHMS.has(algorithm) && !Number.isInteger(limit)) {
      issues.push({ path: field("limit"), message: `must be a whole number for ${algorithm}, got ${limit}` });
    }
    if (algorithm === "sliding_log" && limit > SLIDING_LOG_MAX_LIMIT) {
      issues.push({
        path: field("limit"),
        message: `sliding_log keeps every admitted request, so limit must be at most ${SLIDING_LOG_MAX_LIMIT}; use sliding_window or bucketed_window for larger limits`,
      });
    }
    if (algorithm === "concurrency" && limit > CONCURRENCY_MAX_LIMIT) {
      issues.push({
        path: field("limit"),
        message: `must be at most ${CONCURRENCY_MAX_LIMIT} for concurrency`,
      });
    }
  }

  // The burst, undefined when it cannot be known (it, or the limit it defaults to, is invalid). Below one unit a
  // bucket could never hold a request of cost 1: `limit: 0.5, period: 1s` means 1 every 2 s.
  let burst: number | undefined;
  if (v.burst === undefined || !ok("burst")) {
    if (v.burst === undefined && limit !== undefined && algorithm !== undefined) {
      burst = BURST_ALGORITHMS.has(algorithm) ? Math.max(1, limit) : limit;
    }
  } else {
    // Whatever the algorithm, a burst must be a count of at least one unit (a window or concurrency limit, which
    // a burst may only repeat, is a whole number >= 1 too).
    const sound = Number.isFinite(v.burst) && v.burst >= 1 && v.burst <= Number.MAX_SAFE_INTEGER;
    if (algorithm !== undefined && !BURST_ALGORITHMS.has(algorithm)) {
      // Allowed only as a repeat of the limit: compared with a valid limit, else refused only when it could equal none.
      if (limit !== undefined ? v.burst !== limit : !sound) {
        issues.push({
          path: field("burst"),
          message: `applies only to token_bucket, leaky_bucket and gcra; ${algorithm} admits at most limit per period`,
        });
      } else burst = limit;
    } else if (!sound) {
      issues.push({ path: field("burst"), message: `must be a finite number >= 1, got ${v.burst}` });
    } else if (algorithm !== undefined) burst = v.burst;
  }

  const bucketName: LimitField = v.bucket !== undefined ? "bucket" : "bucketMs";
  /** The bucket width, ms; 0 for algorithms without buckets; undefined when it cannot be known. */
  let bucketMs: number | undefined = algorithm === "bucketed_window" ? undefined : 0;
  if (v.bucket !== undefined || v.bucketMs !== undefined) {
    bucketMs = undefined;
    if (algorithm !== undefined && algorithm !== "bucketed_window") {
      issues.push({ path: field(bucketName), message: "applies only to bucketed_window" });
    } else if (v.bucket !== undefined && v.bucketMs !== undefined) {
      issues.push({ path: field("bucket"), message: "give either bucket or bucketMs, not both" });
    } else if (ok(bucketName)) {
      const b = tryParseDurationMs(v.bucket ?? v.bucketMs);
      if (b === undefined || b < 1 || !Number.isInteger(b)) {
        issues.push({
          path: field(bucketName),
          message: `must be a whole number of milliseconds >= 1, got ${JSON.stringify(v.bucket ?? v.bucketMs)}`,
        });
      } else bucketMs = b;
    }
  } else if (algorithm === "bucketed_window" && periodMs !== undefined) {
    bucketMs = periodMs / 10;
  }
  if (algorithm === "bucketed_window" && periodMs !== undefined) {
    if (!Number.isInteger(periodMs)) {
      issues.push({
        path: periodField,
        message: "must be a whole number of milliseconds for bucketed_window",
      });
    } else if (bucketMs !== undefined && (!Number.isInteger(bucketMs) || periodMs % bucketMs !== 0)) {
      // Only the default (period / 10) can fail here unasked; then the period is the field the user wrote.
      if (v.bucket === undefined && v.bucketMs === undefined) {
        issues.push({
          path: periodField,
          message: `gives bucketed_window a default bucket of period / 10 = ${bucketMs} ms, not a whole number of milliseconds; set bucket (a width that divides ${periodMs} ms) or pick a period divisible by 10 ms`,
        });
      } else
        issues.push({
          path: field(bucketName),
          message: `must divide the period (${periodMs} ms) into whole buckets, got ${bucketMs} ms`,
        });
    } else if (bucketMs !== undefined && periodMs / bucketMs > BUCKETED_WINDOW_MAX_BUCKETS) {
      issues.push({
        path: field(bucketName),
        message: `gives ${periodMs / bucketMs} buckets per period; at most ${BUCKETED_WINDOW_MAX_BUCKETS} are allowed`,
      });
    }
  }

  if (periodMs !== undefined && limit !== undefined && burst !== undefined) {
    const horizonMs = periodMs * Math.max(2, burst / limit);
    if (horizonMs > MAX_STATE_HORIZON_MS) {
      issues.push({
        path: periodField,
        message: `is too long: a key could take ${horizonMs} ms to go back to fresh (period × max(2, burst / limit)); at most ${MAX_STATE_HORIZON_MS} ms (~317 years)`,
      });
    }
  }
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_LIMIT", issues);
  // No issue: every field is valid, so each value above is known.
  const p = periodMs as number;
  return Object.freeze({
    name: v.name ?? "default",
    algorithm: algorithm as AlgorithmId,
    limit: v.limit,
    periodMs: p,
    burst: burst as number,
    bucketMs: bucketMs as number,
    emissionMs: p / v.limit,
  });
}

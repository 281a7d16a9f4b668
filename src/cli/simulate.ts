/**
 * `sluice simulate`: offers synthetic traffic to several algorithms holding the same limit, on a manual clock,
 * and prints how each one admits it over time (a text chart) and in total (a summary table). The simulation
 * itself lives in `simulation.ts`; this module validates options and renders.
 */
import type { Command } from "commander";
import { tryParseDurationMs } from "../core/duration.js";
import { ConfigError, InvalidArgumentError } from "../core/errors.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import {
  expectedRequests,
  generateTraffic,
  PATTERNS,
  type Pattern,
  RATE_ALGORITHMS,
  type RateAlgorithmId,
  type SimulationResult,
  simulate,
  type TrafficOptions,
} from "./simulation.js";

/** Most requests one run may offer (per algorithm), keeping a run to a few seconds at worst. */
export const MAX_SIMULATED_REQUESTS = 2_000_000;

/** Options of `sluice simulate` as commander hands them over (strings, flags as booleans). */
export interface RawSimulateOptions {
  algorithms?: string;
  limit?: string;
  period?: string;
  burst?: string;
  bucket?: string;
  rps?: string;
  duration?: string;
  pattern?: string;
  keys?: string;
  seed?: string;
  width?: string;
  json?: boolean;
  ascii?: boolean;
}

/** Validated options of `sluice simulate`. */
export interface SimulateConfig {
  /** The algorithms to compare, in the order given. */
  readonly algorithms: readonly RateAlgorithmId[];
  /** One limit input per algorithm (same limit, period; burst and bucket where they apply). */
  readonly limits: readonly LimitSpecInput[];
  /** The limit, per period. */
  readonly limit: number;
  /** The period in milliseconds. */
  readonly periodMs: number;
  /** The burst given with --burst, if any. */
  readonly burst: number | undefined;
  /** The traffic to generate. */
  readonly traffic: Required<TrafficOptions>;
  /** Chart columns. */
  readonly width: number;
  /** Print JSON instead of the chart. */
  readonly json: boolean;
  /** Draw the chart in ASCII. */
  readonly ascii: boolean;
}

const DEFAULTS = {
  algorithms: RATE_ALGORITHMS.join(","),
  limit: "10",
  period: "1s",
  rps: "20",
  duration: "10s",
  pattern: "bursty",
  keys: "1",
  seed: "42",
  width: "60",
} as const;

const BURST_ALGORITHMS: ReadonlySet<RateAlgorithmId> = new Set(["token_bucket", "leaky_bucket", "gcra"]);

function fail(message: string): never {
  throw new InvalidArgumentError(message);
}

function parseNumber(option: string, raw: string, what: string, ok: (n: number) => boolean): number {
  const n = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!Number.isFinite(n) || !ok(n)) fail(`--${option} must be ${what}, got ${JSON.stringify(raw)}`);
  return n;
}

function parseWhole(option: string, raw: string, min: number, max: number): number {
  return parseNumber(
    option,
    raw,
    `a whole number from ${min} to ${max}`,
    (n) => Number.isInteger(n) && n >= min && n <= max,
  );
}

/** Bare numbers are milliseconds; otherwise a duration string such as "250ms" or "1s". */
function durationInput(raw: string): number | string {
  return /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
}

function parseAlgorithms(raw: string): RateAlgorithmId[] {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (names.length === 0) fail(`--algorithms must list at least one of ${RATE_ALGORITHMS.join(", ")}`);
  const out: RateAlgorithmId[] = [];
  for (const name of names) {
    const ids: readonly RateAlgorithmId[] =
      name === "all"
        ? RATE_ALGORITHMS
        : (RATE_ALGORITHMS as readonly string[]).includes(name)
          ? [name as RateAlgorithmId]
          : name === "concurrency"
            ? fail("--algorithms: concurrency limits work in flight, not a rate, so it cannot be simulated")
            : fail(
                `--algorithms: unknown algorithm ${JSON.stringify(name)}; use ${RATE_ALGORITHMS.join(", ")} or all`,
              );
    for (const id of ids) if (!out.includes(id)) out.push(id);
  }
  return out;
}

/** Renames the fields of a limit error to the options that set them (`limit` → `--limit`). */
function asOptionError(error: unknown): unknown {
  if (!(error instanceof ConfigError)) return error;
  return new ConfigError(
    error.code as "ERR_SLUICE_INVALID_LIMIT",
    error.issues.map((i) => ({ ...i, path: i.path ? `--${i.path}` : i.path })),
  );
}

/** Validates the raw options of `sluice simulate`; throws a SluiceError naming the offending option. */
export function parseSimulateOptions(raw: RawSimulateOptions): SimulateConfig {
  const algorithms = parseAlgorithms(raw.algorithms ?? DEFAULTS.algorithms);
  // Only "is it a number" here: parseLimitSpec judges the value (positive, whole for window algorithms, …).
  const limit = parseNumber("limit", raw.limit ?? DEFAULTS.limit, "a number", () => true);
  const period = durationInput(raw.period ?? DEFAULTS.period);
  const burst =
    raw.burst === undefined ? undefined : parseNumber("burst", raw.burst, "a number >= 1", (n) => n >= 1);
  if (burst !== undefined && !algorithms.some((a) => BURST_ALGORITHMS.has(a))) {
    fail("--burst applies only to token_bucket, leaky_bucket and gcra, and none of them is in --algorithms");
  }
  const bucket = raw.bucket === undefined ? undefined : durationInput(raw.bucket);
  if (bucket !== undefined && !algorithms.includes("bucketed_window")) {
    fail("--bucket applies only to bucketed_window, which is not in --algorithms");
  }

  const limits = algorithms.map((algorithm): LimitSpecInput => {
    const input: LimitSpecInput = {
      name: algorithm,
      algorithm,
      limit,
      period,
      ...(burst !== undefined && BURST_ALGORITHMS.has(algorithm) ? { burst } : {}),
      ...(bucket !== undefined && algorithm === "bucketed_window" ? { bucket } : {}),
    };
    try {
      parseLimitSpec(input);
    } catch (error) {
      throw asOptionError(error);
    }
    return input;
  });
  const periodMs = parseLimitSpec(limits[0]).periodMs;

  const rps = parseNumber("rps", raw.rps ?? DEFAULTS.rps, "a number > 0", (n) => n > 0);
  const rawDuration = raw.duration ?? DEFAULTS.duration;
  const durationMs = tryParseDurationMs(durationInput(rawDuration));
  if (durationMs === undefined || durationMs < 1) {
    fail(
      `--duration must be a duration of at least 1ms (such as "10s" or "2m"), got ${JSON.stringify(rawDuration)}`,
    );
  }
  const rawPattern = raw.pattern ?? DEFAULTS.pattern;
  if (!(PATTERNS as readonly string[]).includes(rawPattern)) {
    fail(`--pattern must be one of ${PATTERNS.join(", ")}, got ${JSON.stringify(rawPattern)}`);
  }
  const pattern = rawPattern as Pattern;
  const keys = parseWhole("keys", raw.keys ?? DEFAULTS.keys, 1, 100_000);
  const seed = parseWhole("seed", raw.seed ?? DEFAULTS.seed, 0, 4_294_967_295);
  const width = parseWhole("width", raw.width ?? DEFAULTS.width, 1, 1000);
  const expected = expectedRequests(pattern, rps, durationMs);
  if (expected > MAX_SIMULATED_REQUESTS) {
    fail(
      `--rps × --duration offers about ${Math.round(expected)} requests; at most ${MAX_SIMULATED_REQUESTS} are simulated`,
    );
  }
  return {
    algorithms,
    limits,
    limit,
    periodMs,
    burst,
    traffic: { pattern, rps, durationMs, keys, seed },
    width,
    json: raw.json === true,
    ascii: raw.ascii === true,
  };
}

/** Formats milliseconds compactly: "1s", "1.5s", "250ms", "2m", "1h", "1d". */
export function formatDuration(ms: number): string {
  const units: readonly [string, number][] = [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ];
  for (const [unit, size] of units) {
    if (ms >= size && (ms % size === 0 || (unit === "s" && ms < 60_000)))
      return `${+(ms / size).toFixed(3)}${unit}`;
  }
  return `${+ms.toFixed(3)}ms`;
}

const UNICODE_RAMP = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"] as const;
const ASCII_RAMP = [" ", ".", ":", "-", "=", "+", "*", "%", "#"] as const;

/** One chart cell: blank when nothing was offered, the "none" mark for 0, else a ramp level (full only at 1). */
function cell(fraction: number | undefined, ascii: boolean): string {
  const ramp = ascii ? ASCII_RAMP : UNICODE_RAMP;
  if (fraction === undefined) return " ";
  if (fraction <= 0) return ascii ? "_" : "·";
  if (fraction >= 1) return ramp[8];
  return ramp[Math.max(1, Math.min(7, Math.round(fraction * 8)))];
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

function padStart(s: string, n: number): string {
  return s.length >= n ? s : " ".repeat(n - s.length) + s;
}

/** Renders a simulation as a header, the chart (offered load, then one row per algorithm) and a summary table. */
export function renderSimulation(config: SimulateConfig, result: SimulationResult): string {
  const { traffic, ascii } = config;
  const lines: string[] = [];
  const period = formatDuration(config.periodMs);
  const burstAlgorithms = config.algorithms.filter((a) => BURST_ALGORITHMS.has(a));
  const burstNote =
    config.burst !== undefined && burstAlgorithms.length > 0
      ? ` (burst ${config.burst} for ${burstAlgorithms.join(", ")})`
      : "";
  lines.push(
    `limit ${config.limit} per ${period}${burstNote}; ${traffic.pattern} traffic, ${traffic.rps} rps for ${formatDuration(traffic.durationMs)}, ${traffic.keys} key${traffic.keys === 1 ? "" : "s"}, seed ${traffic.seed}`,
  );
  const peak = Math.max(0, ...result.offeredPerBucket);
  const full = ascii ? ASCII_RAMP[8] : UNICODE_RAMP[8];
  lines.push(
    `one column = ${formatDuration(result.bucketMs)}; offered: load (${full} = ${peak} requests); algorithms: fraction admitted (${full} all, ${cell(0, ascii)} none, blank: no traffic)`,
  );
  lines.push("");

  const labelWidth = Math.max(16, ...config.algorithms.map((a) => a.length + 2));
  const offeredRow = result.offeredPerBucket.map((n) => (n === 0 ? " " : cell(n / peak, ascii))).join("");
  lines.push(pad("offered", labelWidth) + offeredRow);
  for (const r of result.results) {
    const row = r.admittedPerBucket
      .map((a, i) => {
        const offered = result.offeredPerBucket[i];
        return cell(offered === 0 ? undefined : a / offered, ascii);
      })
      .join("");
    lines.push(pad(r.algorithm, labelWidth) + row);
  }
  const start = "0s";
  const end = formatDuration(traffic.durationMs);
  const axisWidth = result.offeredPerBucket.length;
  lines.push(
    " ".repeat(labelWidth) +
      (axisWidth >= start.length + end.length + 1 ? start + padStart(end, axisWidth - start.length) : ""),
  );
  lines.push("");

  const header = [
    "algorithm",
    "offered",
    "admitted",
    "denied",
    "admitted %",
    `max in ${period}`,
    "max/limit",
  ];
  const rows = result.results.map((r) => [
    r.algorithm,
    String(r.offered),
    String(r.admitted),
    String(r.denied),
    r.offered === 0 ? "-" : `${((100 * r.admitted) / r.offered).toFixed(1)}%`,
    String(r.maxInSpan),
    `${r.overLimitRatio.toFixed(2)}${ascii ? "x" : "×"}`,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const format = (row: readonly string[]): string =>
    row
      .map((v, c) => (c === 0 ? pad(v, widths[c]) : padStart(v, widths[c])))
      .join("  ")
      .trimEnd();
  lines.push(format(header));
  for (const row of rows) lines.push(format(row));
  lines.push(
    `max in ${period}: most admitted in any ${period} span (sliding, exact)${traffic.keys > 1 ? " for the worst key" : ""}; max/limit above 1 means bursts beyond the nominal rate`,
  );
  return lines.join("\n");
}

/** The machine-readable result of a run (`--json`). */
export function simulationJson(config: SimulateConfig, result: SimulationResult): unknown {
  return {
    limit: config.limit,
    periodMs: config.periodMs,
    burst: config.burst ?? null,
    traffic: config.traffic,
    bucketMs: result.bucketMs,
    offeredPerBucket: result.offeredPerBucket,
    results: result.results.map((r) => ({
      algorithm: r.algorithm,
      spec: r.spec,
      offered: r.offered,
      admitted: r.admitted,
      denied: r.denied,
      admittedRatio: r.offered === 0 ? 0 : r.admitted / r.offered,
      maxInSpan: r.maxInSpan,
      overLimitRatio: r.overLimitRatio,
      admittedPerBucket: r.admittedPerBucket,
    })),
  };
}

/** Runs `sluice simulate` with raw options and returns the text to print. */
export function runSimulate(raw: RawSimulateOptions): string {
  const config = parseSimulateOptions(raw);
  const traffic = generateTraffic(config.traffic);
  const result = simulate({ limits: config.limits, traffic, buckets: config.width });
  return config.json
    ? JSON.stringify(simulationJson(config, result), null, 2)
    : renderSimulation(config, result);
}

/** Registers `sluice simulate` on the program. */
export function registerSimulate(program: Command): void {
  program
    .command("simulate")
    .description(
      "offer synthetic traffic to several algorithms with the same limit (on a simulated clock) and compare what they admit",
    )
    .option("--algorithms <list>", `comma-separated algorithms to compare, or all`, DEFAULTS.algorithms)
    .option("--limit <n>", "requests admitted per period", DEFAULTS.limit)
    .option("--period <duration>", "the limit's period (e.g. 1s, 1m, 500ms)", DEFAULTS.period)
    .option("--burst <n>", "burst size for token_bucket, leaky_bucket and gcra (default: the limit)")
    .option("--bucket <duration>", "bucket width for bucketed_window (default: period / 10)")
    .option("--rps <n>", "average offered requests per second", DEFAULTS.rps)
    .option("--duration <duration>", "how long the traffic lasts", DEFAULTS.duration)
    .option(
      "--pattern <name>",
      "steady (even spacing), bursty (0.5s bursts at 4× rps every 2s), poisson (random gaps), ramp (0 → 2× rps), spike (10× rps in the middle tenth)",
      DEFAULTS.pattern,
    )
    .option("--keys <n>", "number of keys the traffic is spread over, each with its own limit", DEFAULTS.keys)
    .option("--seed <n>", "seed of the random choices (poisson gaps, keys)", DEFAULTS.seed)
    .option("--width <n>", "chart columns", DEFAULTS.width)
    .option("--ascii", "draw the chart with ASCII characters only")
    .option("--json", "print the result as JSON instead of a chart")
    .action((options: RawSimulateOptions) => {
      console.log(runSimulate(options));
    });
}

/**
 * `sluice validate FILE`: loads a configuration (native YAML/JSON or envoyproxy/ratelimit YAML) exactly as the
 * service would. Invalid: prints every problem to stderr, one per line (`file:line: path: message`), and exits 1.
 * Valid: prints a summary (domains, each rule's match → limits, tiers, identities, overrides) and exits 0.
 */
import type { Command } from "commander";
import { ConfigError, InvalidArgumentError } from "../core/errors.js";
import { ALGORITHM_IDS, type AlgorithmId, type LimitSpec } from "../core/limit-spec.js";
import { loadConfigFile } from "../rules/load-config.js";
import type { EntryMatcher, Rule, SluiceConfig } from "../rules/rule.js";
import { CommandExit } from "./main.js";
import { formatDuration } from "./simulate.js";

/** Options of `sluice validate` as commander hands them over. */
export interface RawValidateOptions {
  envoyAlgorithm?: string;
}

/** What `sluice validate` prints and how it exits. */
export interface ValidateResult {
  /** 0 when the file is valid, 1 when it is not (or cannot be read). */
  readonly exitCode: 0 | 1;
  /** The summary of a valid file. */
  readonly stdout: string;
  /** Every problem of an invalid file, one per line. */
  readonly stderr: string;
}

function describeEntry(e: EntryMatcher): string {
  const shared = e.shared ? " shared" : "";
  const v = e.value;
  switch (v.kind) {
    case "exact":
      return `${e.key}=${v.value}`;
    case "any":
      return `${e.key}=<any${shared}>`;
    case "prefix":
      return `${e.key}=<prefix ${v.prefix}${shared}>`;
    case "glob":
      return `${e.key}=<glob ${v.pattern}${shared}>`;
    case "path":
      return `${e.key}=<path ${v.pattern}${shared}>`;
  }
}

/** Formats a limit as `per-second 10/1s gcra burst 20`. */
export function describeLimit(l: LimitSpec): string {
  const extra =
    l.burst !== l.limit ? ` burst ${l.burst}` : l.bucketMs > 0 ? ` bucket ${formatDuration(l.bucketMs)}` : "";
  return `${l.name} ${l.limit}/${formatDuration(l.periodMs)} ${l.algorithm}${extra}`;
}

function describeLimits(limits: readonly LimitSpec[] | "unlimited"): string {
  return limits === "unlimited" ? "unlimited" : limits.map(describeLimit).join(", ");
}

function ruleNotes(rule: Rule, config: SluiceConfig): string[] {
  const notes: string[] = [];
  if (rule.behaviour === "delay") notes.push(`delay ≤${formatDuration(rule.maxDelayMs)}`);
  if (rule.behaviour === "shadow") notes.push("shadow");
  if (rule.strategy !== "requests") notes.push(`cost in ${rule.strategy}`);
  if (rule.mode !== config.defaults.mode) notes.push(`mode ${rule.mode}`);
  if (rule.failurePolicy !== config.defaults.failurePolicy) notes.push(rule.failurePolicy);
  const tiers = Object.entries(rule.tiers);
  if (tiers.length > 0) {
    notes.push(`tiers: ${tiers.map(([tier, limits]) => `${tier} ${describeLimits(limits)}`).join("; ")}`);
  }
  if (rule.dynamic) {
    const d = rule.dynamic;
    notes.push(`dynamic: window ${formatDuration(d.windowMs)}, weight ${d.recentWeight}, ×${d.multiplier}`);
  }
  if (rule.priority !== 0) notes.push(`priority ${rule.priority}`);
  if (rule.replaces.length > 0) notes.push(`replaces ${rule.replaces.join(", ")}`);
  if (rule.detailedMetric) notes.push("detailed metric");
  return notes;
}

/** The summary of a valid configuration, one rule per line. */
export function summarizeConfig(config: SluiceConfig, file: string): string {
  const domains = [...new Set(config.rules.map((r) => r.domain))];
  const lines = [
    `${file}: valid`,
    `domains: ${domains.length === 0 ? "(none)" : domains.join(", ")}`,
    `rules: ${config.rules.length}`,
  ];
  for (const rule of config.rules) {
    const limits = rule.blocked ? "blocked" : rule.unlimited ? "unlimited" : describeLimits(rule.limits);
    const notes = ruleNotes(rule, config);
    const name = rule.name !== rule.id ? ` "${rule.name}"` : "";
    lines.push(
      `  [${rule.domain}] ${rule.id}${name}: ${rule.match.map(describeEntry).join(" ")} → ${limits}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`,
    );
  }
  const tierNames = [
    ...new Set([...config.identities.values(), ...config.rules.flatMap((r) => Object.keys(r.tiers))]),
  ].sort();
  lines.push(`tiers: ${tierNames.length === 0 ? "(none)" : tierNames.join(", ")}`);
  const perTier = new Map<string, number>();
  for (const tier of [...config.identities.values()].sort()) perTier.set(tier, (perTier.get(tier) ?? 0) + 1);
  lines.push(
    `identities: ${config.identities.size}${perTier.size > 0 ? ` (${[...perTier].map(([t, n]) => `${t} ${n}`).join(", ")})` : ""}`,
  );
  lines.push(`overrides: ${config.overrides.length}`);
  for (const o of config.overrides) {
    const until = o.expiresAtMs === undefined ? "" : ` until ${new Date(o.expiresAtMs).toISOString()}`;
    const fixed = o.staticOnly ? " (static only)" : "";
    lines.push(`  ${o.identity} on ${o.rule ?? "every rule"} → ${describeLimits(o.limits)}${until}${fixed}`);
  }
  return lines.join("\n");
}

function parseAlgorithm(raw: string | undefined): AlgorithmId | undefined {
  if (raw === undefined) return undefined;
  if (!(ALGORITHM_IDS as readonly string[]).includes(raw) || raw === "concurrency") {
    throw new InvalidArgumentError(
      `--envoy-algorithm must be one of ${ALGORITHM_IDS.filter((a) => a !== "concurrency").join(", ")}, got ${JSON.stringify(raw)}`,
    );
  }
  return raw as AlgorithmId;
}

/** Validates `file`; resolves to what to print and the exit code (throws only on a bad option). */
export async function runValidate(file: string, raw: RawValidateOptions = {}): Promise<ValidateResult> {
  const envoyAlgorithm = parseAlgorithm(raw.envoyAlgorithm);
  try {
    const config = await loadConfigFile(file, envoyAlgorithm ? { envoyAlgorithm } : {});
    return { exitCode: 0, stdout: summarizeConfig(config, file), stderr: "" };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { exitCode: 1, stdout: "", stderr: error.message };
  }
}

/** Registers `sluice validate` on the program. */
export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description(
      "check a configuration file (native YAML/JSON or envoyproxy/ratelimit YAML): print every error and exit 1, or a summary",
    )
    .argument("<file>", "the configuration file")
    .option(
      "--envoy-algorithm <id>",
      "algorithm of the limits of an envoyproxy/ratelimit file (default fixed_window, as envoyproxy/ratelimit)",
    )
    .action(async (file: string, options: RawValidateOptions) => {
      const result = await runValidate(file, options);
      if (result.stdout) console.log(result.stdout);
      if (result.stderr) console.error(result.stderr);
      if (result.exitCode !== 0) throw new CommandExit(result.exitCode);
    });
}

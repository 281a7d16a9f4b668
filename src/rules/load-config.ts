/**
 * Loads a configuration file into the frozen {@link SluiceConfig} the engine consumes: the native format
 * (YAML or JSON, validated by `config-schema.ts`) or, detected by its top-level `domain` + `descriptors`, the
 * envoyproxy/ratelimit format (`envoy-config.ts`). Every problem is reported at once, each as
 * `file:line: path: message`.
 */
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { tryParseDurationMs } from "../core/duration.js";
import { ConfigError } from "../core/errors.js";
import { type AlgorithmId, type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import {
  BUILTIN_DEFAULTS,
  ConfigSource,
  DYNAMIC_DEFAULTS,
  deepFreeze,
  defaultIdentityKey,
  FrozenMap,
  type NativeConfig,
  type NativeEntry,
  parseTimestampMs,
  validateConfig,
} from "./config-schema.js";
import { isEnvoyConfig, parseEnvoyConfig } from "./envoy-config.js";
import type { EntryMatcher, Override, Rule, RuleDefaults, SluiceConfig, ValuePattern } from "./rule.js";

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /** Where the text came from (a file path), for messages and `SluiceConfig.source`. */
  readonly source?: string;
  /**
   * The text's format; `"auto"` (the default) takes JSON for a `.json` source, and for a text whose first
   * non-blank character is `{` when `JSON.parse` accepts it (else YAML, whose flow mappings also start with `{`);
   * YAML otherwise.
   */
  readonly format?: "yaml" | "json" | "auto";
  /** Algorithm of the limits of an envoyproxy/ratelimit config (default `fixed_window`, as envoyproxy/ratelimit). */
  readonly envoyAlgorithm?: AlgorithmId;
}

/** Parses a configuration (native or envoyproxy/ratelimit, YAML or JSON); throws `ERR_SLUICE_INVALID_CONFIG` listing every problem. */
export function parseConfig(text: string, options: ParseConfigOptions = {}): SluiceConfig {
  const { source, format } = readSource(text, options);
  if (isEnvoyConfig(source.value)) {
    return parseEnvoyConfig(text, {
      source: options.source,
      format,
      ...(options.envoyAlgorithm ? { algorithm: options.envoyAlgorithm } : {}),
    });
  }
  return compileSource(source, options.source);
}

/**
 * The value of a configuration text exactly as {@link parseConfig} reads it (same format choice, YAML merge keys
 * and aliases resolved, unique keys), not validated; throws `ERR_SLUICE_INVALID_CONFIG` on a syntax error. For a
 * caller that needs the document itself (the admin API's Redis seed).
 */
export function parseConfigValue(
  text: string,
  options: Pick<ParseConfigOptions, "source" | "format"> = {},
): unknown {
  return readSource(text, options).source.value;
}

function readSource(
  text: string,
  options: Pick<ParseConfigOptions, "source" | "format">,
): { source: ConfigSource; format: "yaml" | "json" } {
  const name = label(options.source);
  let format = options.format ?? "auto";
  let source: ConfigSource | undefined;
  if (format === "auto") {
    // JSON for a `.json` file, or for a text that opens with `{` and is JSON; YAML otherwise. Reading JSON as YAML
    // gives the same value, but the YAML parser takes minutes on 100,000 identities, `JSON.parse` milliseconds.
    if (options.source?.toLowerCase().endsWith(".json")) format = "json";
    else {
      source = /^[ \t\r\n]*\{/.test(text) ? ConfigSource.parseIfJson(text, name) : undefined;
      format = source === undefined ? "yaml" : "json"; // not JSON: e.g. a YAML flow mapping, `{ rules: [] }`
    }
  }
  source ??= ConfigSource.parse(text, { format, source: name });
  return { source, format };
}

/** Validates and compiles an already-parsed native configuration (e.g. an admin API body); issues carry no lines. */
export function configFromValue(value: unknown, source?: string): SluiceConfig {
  return compileSource(ConfigSource.fromValue(value, source), source);
}

/** The `ERR_SLUICE_INVALID_CONFIG` of a rules file at `path` that could not be read (`error`: the read's). */
export function unreadableConfigFile(path: string, error: unknown): ConfigError {
  return new ConfigError(
    "ERR_SLUICE_INVALID_CONFIG",
    [{ path: "", message: `cannot read the file (${(error as Error).message})` }],
    path,
  );
}

/**
 * Reads and parses a configuration file; throws `ERR_SLUICE_INVALID_CONFIG` when it cannot be read or is invalid. The
 * result records the file's signature as it was just before the read (`SluiceConfig.sourceSignature`) and the
 * SHA-256 of the bytes read (`SluiceConfig.sourceSha256`).
 */
export async function loadConfigFile(
  path: string,
  options: Omit<ParseConfigOptions, "source"> = {},
): Promise<SluiceConfig> {
  let bytes: Buffer;
  let signature: string | undefined;
  try {
    // Stat first, then read: a change landing in between makes the recorded signature older than the text, so a
    // watch reloads once more (harmless); the other order could record a newer signature than the text read.
    signature = signatureOf(await stat(path).catch(() => undefined));
    bytes = await readFile(path);
  } catch (error) {
    throw unreadableConfigFile(path, error);
  }
  const config = parseConfig(bytes.toString("utf8"), { ...options, source: path });
  return Object.freeze({
    ...config,
    ...(signature === undefined ? {} : { sourceSignature: signature }),
    sourceSha256: createHash("sha256").update(bytes).digest("hex"),
  });
}

/**
 * What identifies one version of a file without reading it: its inode, size, modification and change times; undefined
 * when it cannot be stat-ed. Equal signatures are taken as the same content (see `config-watcher.ts`).
 */
export function configFileSignature(path: string): string | undefined {
  try {
    return signatureOf(statSync(path));
  } catch {
    return undefined;
  }
}

function signatureOf(s: Stats | undefined): string | undefined {
  return s === undefined ? undefined : `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/** The name issues are prefixed with: the file, or `<config>` for text without one (so lines still show). */
function label(source: string | undefined): string {
  return source ?? "<config>";
}

function compileSource(source: ConfigSource, name: string | undefined): SluiceConfig {
  const result = validateConfig(source.value);
  if (!result.success) throw source.error(result.issues);
  return compileNativeConfig(result.data, name);
}

function durationMs(v: number | string | undefined, fallback: number | string): number {
  return tryParseDurationMs(v ?? fallback) as number;
}

function valuePattern(e: NativeEntry): ValuePattern {
  if (e.value !== undefined) return { kind: "exact", value: e.value };
  if (e.prefix !== undefined) return { kind: "prefix", prefix: e.prefix };
  if (e.glob !== undefined) return { kind: "glob", pattern: e.glob };
  if (e.path !== undefined) return { kind: "path", pattern: e.path };
  return { kind: "any" };
}

/** A record without a prototype, so tier names such as `constructor` are plain keys. */
function record<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** Compiles a validated native configuration: applies defaults, parses limits and durations, deep-freezes. */
export function compileNativeConfig(config: NativeConfig, source?: string): SluiceConfig {
  const d = config.defaults ?? {};
  const defaults: RuleDefaults = {
    algorithm: d.algorithm ?? BUILTIN_DEFAULTS.algorithm,
    behaviour: d.behaviour ?? BUILTIN_DEFAULTS.behaviour,
    maxDelayMs: durationMs(d.maxDelay, BUILTIN_DEFAULTS.maxDelay),
    failurePolicy: d.failurePolicy ?? BUILTIN_DEFAULTS.failurePolicy,
    mode: d.mode ?? BUILTIN_DEFAULTS.mode,
  };
  const limits = (list: readonly Parameters<typeof parseLimitSpec>[0][]): LimitSpec[] =>
    list.map((l) => parseLimitSpec({ ...l, algorithm: l.algorithm ?? defaults.algorithm }));

  const rules = config.rules.map((r, order): Rule => {
    const match = r.match.map(
      (e): EntryMatcher => ({ key: e.key, value: valuePattern(e), shared: e.shared ?? e.path !== undefined }),
    );
    const exempt = r.unlimited === true || r.blocked === true;
    const dynamic = r.dynamic;
    return {
      id: r.id,
      name: r.name ?? r.id,
      domain: r.domain,
      match,
      limits: exempt ? [] : limits(r.limits ?? []),
      tiers: record(
        Object.entries(r.tiers ?? {}).map(([tier, l]) => [tier, l === "unlimited" ? l : limits(l)] as const),
      ),
      identityKey: r.identity ?? defaultIdentityKey(r.match),
      unlimited: r.unlimited === true,
      ...(r.blocked === true ? { blocked: true } : {}),
      behaviour: r.behaviour ?? defaults.behaviour,
      maxDelayMs: r.maxDelay !== undefined ? durationMs(r.maxDelay, 0) : defaults.maxDelayMs,
      strategy: r.strategy ?? "requests",
      mode: r.mode ?? defaults.mode,
      failurePolicy: r.failurePolicy ?? defaults.failurePolicy,
      dynamic:
        dynamic === undefined
          ? undefined
          : {
              windowMs: durationMs(dynamic.window, DYNAMIC_DEFAULTS.window),
              recentWeight: dynamic.recentWeight ?? DYNAMIC_DEFAULTS.recentWeight,
              multiplier: dynamic.multiplier ?? DYNAMIC_DEFAULTS.multiplier,
            },
      priority: r.priority ?? 0,
      replaces: r.replaces ?? [],
      detailedMetric: r.detailedMetric ?? false,
      order,
    };
  });

  const overrides = (config.overrides ?? []).map(
    (o): Override => ({
      identity: o.identity,
      rule: o.rule,
      limits: o.limits === "unlimited" ? o.limits : limits(o.limits),
      expiresAtMs: o.expiresAt === undefined ? undefined : parseTimestampMs(o.expiresAt),
      staticOnly: o.staticOnly ?? false,
    }),
  );

  return deepFreeze({
    rules,
    identities: new FrozenMap(Object.entries(config.identities ?? {})),
    overrides,
    defaults,
    source,
  });
}

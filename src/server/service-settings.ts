/**
 * The process settings of `sluice serve`, as ONE typed table ({@link SERVICE_SETTINGS}). Each row names a
 * setting's field, its command-line flag, its `SLUICE_*` environment variable, its default (written as a user
 * would type it, so `--help` shows exactly what applies), a description and how its text is parsed (zod). The
 * table generates the commander options and help of `sluice serve`, reads the environment, and validates both
 * into one frozen {@link ServiceSettings}.
 *
 * Precedence: a flag wins over its environment variable, which wins over the default. An empty environment
 * variable counts as unset. The admin tokens have two variables, `SLUICE_ADMIN_TOKENS` (the tokens) and
 * `SLUICE_ADMIN_TOKENS_FILE` (a file of them): setting both is refused (neither would be ignored in silence);
 * `--admin-tokens-file` wins over both. Every problem is reported at once, one line each, naming the flag or the variable
 * the bad value came from (`--grpc-port: …`, `SLUICE_GRPC_PORT: …`).
 *
 * Units: durations accept milliseconds (`250`) or a duration string (`250ms`, `10s`, `1m`); sizes accept bytes
 * (`65536`) or a binary-unit size (`64KiB`, `1MiB`; `k`/`KB` and `m`/`MB` mean the same 1024 multiples).
 * Switches accept `true|false|1|0|yes|no|on|off` in the environment; on the command line `--watch` / `--no-watch`.
 *
 * Secrets: rows marked `secret` (the Redis URLs, which may carry a password, and the Sentinels' password) are
 * masked by {@link describeSettings} and never echoed in errors; pass them through the environment rather than the
 * command line, where `ps` shows them.
 */
import { type Command, Option } from "commander";
import { z } from "zod";
import { tryParseDurationMs } from "../core/duration.js";
import { InvalidArgumentError } from "../core/errors.js";
import { ALGORITHM_IDS, type AlgorithmId } from "../core/limit-spec.js";
import type { Counting } from "../engine/engine.js";
import { ADMIN_TOKENS_ENV, ADMIN_TOKENS_FILE_ENV } from "./admin/admin-tokens.js";
import { GRPC_TRANSPORTS, type GrpcTransport, RECEIVE_BUFFER_HEADROOM_BYTES } from "./grpc/grpc-server.js";
import { compileTemplates, FORWARD_AUTH_HEADERS, type ForwardAuthHeaders } from "./http/forward-auth.js";
import { maskUrlCredentials } from "./service-logger.js";

/** Log levels of the service logger (pino's), quietest last. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The engine's counting modes (see `Counting` in src/engine/engine.ts). */
const COUNTING_MODES = ["all_or_nothing", "each"] as const satisfies readonly Counting[];

/** Where the service keeps its counters. */
export const STORE_KINDS = ["memory", "redis"] as const;
/** One of {@link STORE_KINDS}. */
export type StoreKind = (typeof STORE_KINDS)[number];

/** Validated settings of one `sluice serve` process (frozen). */
export interface ServiceSettings {
  /** The rules file (native YAML/JSON or envoyproxy/ratelimit YAML). */
  readonly configFile: string;
  /** Algorithm of the limits of an envoyproxy/ratelimit file; undefined: `fixed_window`, as envoyproxy/ratelimit. */
  readonly envoyAlgorithm: AlgorithmId | undefined;
  /**
   * How a request of several counted descriptors counts: `all_or_nothing` (a denied request counts nowhere) or `each`
   * (every descriptor whose limits pass counts, denied request or not: envoyproxy/ratelimit's default).
   */
  readonly counting: Counting;
  /** Reload the rules file when it changes (an invalid version is refused and shows in /readyz). */
  readonly watch: boolean;
  /** Where counters live. */
  readonly store: StoreKind;
  /**
   * Redis URLs (`redis://` or `rediss://`); several = client-side sharded nodes, or Cluster seed nodes; with
   * {@link ServiceSettings.redisSentinel}, the Sentinels (their credentials, `/db` and scheme apply to the master).
   */
  readonly redisUrls: readonly string[];
  /** Treat {@link ServiceSettings.redisUrls} as the seed nodes of one Redis Cluster. */
  readonly redisCluster: boolean;
  /** Name of the master the Sentinels at {@link ServiceSettings.redisUrls} monitor; undefined: no Sentinel. */
  readonly redisSentinel: string | undefined;
  /** Password of the Sentinels themselves (their `requirepass`); undefined: they need no AUTH. */
  readonly redisSentinelPassword: string | undefined;
  /** First segment of every Redis key. */
  readonly redisPrefix: string;
  /** Most keys the memory store holds (preallocated). */
  readonly memoryCapacity: number;
  /** Share of each limit the local fallback enforces while Redis is unreachable (rules with `fallback`), (0, 1]. */
  readonly fallbackShare: number;
  /** Longest wait for the store per call, ms; beyond it the rule's failure policy answers. */
  readonly storeTimeoutMs: number;
  /** Interface both servers listen on. */
  readonly host: string;
  /** gRPC port (sluice.v1 and Envoy RLS v3); 0 = any free port. */
  readonly grpcPort: number;
  /** Which server speaks gRPC: Sluice's lean `node:http2` server or grpc-js's (same wire behaviour). */
  readonly grpcTransport: GrpcTransport;
  /**
   * Most bytes the gRPC calls still receiving their request may hold together (`node-http2`): headers, the declared
   * message and 8 KiB a call; beyond it a call is refused `RESOURCE_EXHAUSTED`. At least `maxBodyBytes` + 128 KiB.
   */
  readonly grpcReceiveBufferBytes: number;
  /**
   * Most open gRPC connections (`node-http2`); at the cap a new connection closes the longest-idle one (no call
   * open), and is closed as accepted only when none is idle.
   */
  readonly grpcMaxConnections: number;
  /** How long a gRPC connection may have no call open before a GOAWAY closes it, ms (either transport); 0: never. */
  readonly grpcMaxConnectionIdleMs: number;
  /** How long a new gRPC connection gets to send the HTTP/2 preface and SETTINGS before it is closed, ms (`node-http2`). */
  readonly grpcHandshakeTimeoutMs: number;
  /** HTTP port (/v1/check, /v1/auth, /metrics, /healthz, /readyz); 0 = any free port. */
  readonly httpPort: number;
  /** Domain of requests that name none; undefined: the configuration's only domain, when it has exactly one. */
  readonly defaultDomain: string | undefined;
  /** Most requests in flight across every API; beyond it requests are refused at once (503 / RESOURCE_EXHAUSTED). */
  readonly maxInflight: number;
  /**
   * Most forward-auth requests waiting out a `delay` rule's delay at once (they hold no in-flight slot meanwhile);
   * beyond it a delayed request is denied at once (429, or the forward-auth deny status).
   */
  readonly maxDelayed: number;
  /** Largest request body or gRPC message, bytes. */
  readonly maxBodyBytes: number;
  /** Most items in one batch request. */
  readonly maxBatchItems: number;
  /** Largest cost (hits_addend) one request may carry. */
  readonly maxCost: number;
  /** Largest accepted skew between a client `timestamp` and the server clock, ms. */
  readonly maxClockSkewMs: number;
  /** On SIGTERM: how long in-flight requests may take to finish before connections are closed, ms. */
  readonly drainTimeoutMs: number;
  /** Log level. */
  readonly logLevel: LogLevel;
  /** Domain of forward-auth checks (GET /v1/auth); undefined: the default domain, else the HTTP server's (`edge`). */
  readonly authDomain: string | undefined;
  /** Request header carrying the authenticated user, for forward-auth. */
  readonly authUserHeader: string;
  /**
   * Which headers carry the original request's URI and method for forward-auth: `x-forwarded` (`X-Forwarded-Uri` /
   * `X-Forwarded-Method`) or `x-original` (`X-Original-URI` / `X-Original-Method`); the other family is ignored.
   */
  readonly authHeaders: ForwardAuthHeaders;
  /** Header holding the client address for forward-auth, read before `X-Forwarded-For`; `""`: skip it. */
  readonly authAddressHeader: string;
  /** Descriptor templates of forward-auth checks (attributes joined by `,`); undefined: the HTTP server's default. */
  readonly authDescriptors: readonly string[] | undefined;
  /** Status of a forward-auth denial: 429, or 403 for proxies that only pass 401/403 on (nginx auth_request). */
  readonly authDenyStatus: 429 | 403;
  /** Proxies in front of the service whose `X-Forwarded-For` entries are trusted (0: the rightmost entry, appended by the proxy next to Sluice). */
  readonly trustedProxyHops: number;
  /** Add the legacy `X-RateLimit-Limit/Remaining/Reset` trio to HTTP answers (the draft-10 headers always go). */
  readonly legacyHeaders: boolean;
  /** Add draft-10 RateLimit headers to Envoy `ShouldRateLimit` answers (`response_headers_to_add`). */
  readonly envoyHeaders: boolean;
  /** Serve the admin API and dashboard on their own port. */
  readonly admin: boolean;
  /** Admin port (`/api/v1`, `/dashboard/`); 0 = any free port. */
  readonly adminPort: number;
  /** Admin reads open to anyone who reaches the port, or token-only (writes always need a token). */
  readonly adminReadAccess: "open" | "token";
  /** File of admin tokens (`name:token` per line, or JSON); undefined: `SLUICE_ADMIN_TOKENS(_FILE)`. */
  readonly adminTokensFile: string | undefined;
  /** The audit log file of the embedded mode; undefined: `<rules file>.audit.jsonl` (Redis mode: a stream). */
  readonly auditFile: string | undefined;
}

/** How a setting's text reads: shapes its help (`<arg>` placeholder, or a `--x` / `--no-x` switch pair). */
export type SettingKind = "string" | "list" | "int" | "number" | "duration" | "bytes" | "enum" | "switch";

/** One row of the settings table. */
export interface SettingDef<K extends keyof ServiceSettings = keyof ServiceSettings> {
  /** The field of {@link ServiceSettings} it sets. */
  readonly key: K;
  /** The long flag without dashes (`grpc-port`). */
  readonly flag: string;
  /** The environment variable (`SLUICE_GRPC_PORT`). */
  readonly env: `SLUICE_${string}`;
  /** How the text reads. */
  readonly kind: SettingKind;
  /** The `<arg>` placeholder of the flag in help (switches have none). */
  readonly arg?: string;
  /** The default as text, parsed like user input; undefined: no default (see the description). */
  readonly default: string | undefined;
  /** One line for `--help`. */
  readonly description: string;
  /** Masked by {@link describeSettings} (may carry a password). */
  readonly secret?: boolean;
  /**
   * An empty value is a value ("none"), from the variable as from the flag; otherwise an empty variable counts as
   * unset (as shells and container runtimes often leave them), and the default applies.
   */
  readonly emptyIsValue?: boolean;
  /** Parses the text (a switch gets "true" / "false"); its error message is prefixed by the flag or variable. */
  readonly schema: z.ZodType<ServiceSettings[K], string>;
}

// ---------------------------------------------------------------------------------------------------------
// Value schemas: each turns the text a user typed into a typed value, with a message saying what was expected.
// ---------------------------------------------------------------------------------------------------------

const show = (s: string): string => JSON.stringify(s);

/** A whole number in [min, max]. */
function wholeNumber(min: number, max: number): z.ZodType<number, string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim();
    const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be a whole number from ${min} to ${max}, got ${show(s)}`,
      });
      return z.NEVER;
    }
    return n;
  });
}

/** A number in (0, 1]. */
const share: z.ZodType<number, string> = z.string().transform((s, ctx) => {
  const t = s.trim();
  const n = t === "" ? Number.NaN : Number(t);
  if (!Number.isFinite(n) || n <= 0 || n > 1) {
    ctx.addIssue({ code: "custom", message: `must be a number in (0, 1], got ${show(s)}` });
    return z.NEVER;
  }
  return n;
});

/** A duration in ms within [minMs, maxMs]: bare milliseconds or a duration string. */
function duration(minMs: number, maxMs: number): z.ZodType<number, string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim();
    const ms = tryParseDurationMs(/^\d+(\.\d+)?$/.test(t) ? Number(t) : t);
    if (ms === undefined || ms < minMs || ms > maxMs) {
      ctx.addIssue({
        code: "custom",
        message: `must be a duration from ${minMs}ms to ${maxMs}ms (milliseconds, or such as "500ms", "10s", "1m"), got ${show(s)}`,
      });
      return z.NEVER;
    }
    return ms;
  });
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
};

/** A size in bytes within [min, max]: bare bytes, or with a binary unit. */
function bytes(min: number, max: number): z.ZodType<number, string> {
  return z.string().transform((s, ctx) => {
    const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(s);
    const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
    const n = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be a size from ${min} to ${max} bytes (bytes, or such as "64KiB", "1MiB"), got ${show(s)}`,
      });
      return z.NEVER;
    }
    return n;
  });
}

/** One of `values`. */
function oneOf<const T extends readonly string[]>(values: T): z.ZodType<T[number], string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim();
    if (!(values as readonly string[]).includes(t)) {
      ctx.addIssue({ code: "custom", message: `must be one of ${values.join(", ")}, got ${show(s)}` });
      return z.NEVER;
    }
    return t as T[number];
  });
}

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

/** A switch. */
const switchValue: z.ZodType<boolean, string> = z.string().transform((s, ctx) => {
  const t = s.trim().toLowerCase();
  if (TRUE.has(t)) return true;
  if (FALSE.has(t)) return false;
  ctx.addIssue({
    code: "custom",
    message: `must be one of true, false, 1, 0, yes, no, on, off, got ${show(s)}`,
  });
  return z.NEVER;
});

/** A non-empty string of at most `max` characters, trimmed. */
function text(max: number, what = "a non-empty string"): z.ZodType<string, string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim();
    if (t.length === 0 || t.length > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be ${what} of at most ${max} characters, got ${show(s)}`,
      });
      return z.NEVER;
    }
    return t;
  });
}

/** A Sentinel master name: non-empty, no whitespace (Sentinel's configuration separates words by spaces). */
const masterName: z.ZodType<string, string> = z.string().transform((s, ctx) => {
  const t = s.trim();
  if (!/^\S{1,255}$/.test(t)) {
    ctx.addIssue({
      code: "custom",
      message: `must be the master name the Sentinels monitor: 1 to 255 characters, no whitespace, got ${show(s)}`,
    });
    return z.NEVER;
  }
  return t;
});

/** A password, taken exactly as given (never trimmed, never echoed in an error). */
const password: z.ZodType<string, string> = z.string().transform((s, ctx) => {
  if (s.length === 0 || s.length > 1024) {
    ctx.addIssue({ code: "custom", message: "must be a non-empty password of at most 1024 characters" });
    return z.NEVER;
  }
  return s;
});

/** Like {@link text}, but "" (only possible from a default) means unset. */
function optionalText(max: number): z.ZodType<string | undefined, string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim();
    if (t.length > max) {
      ctx.addIssue({ code: "custom", message: `must be at most ${max} characters, got ${show(s)}` });
      return z.NEVER;
    }
    return t === "" ? undefined : t;
  });
}

/** An HTTP header name (a token), lower-cased; with `empty`, "" is allowed (a default's way of saying "none"). */
function headerName(empty: boolean): z.ZodType<string, string> {
  return z.string().transform((s, ctx) => {
    const t = s.trim().toLowerCase();
    if ((empty && t === "") || (/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(t) && t.length <= 128)) return t;
    ctx.addIssue({ code: "custom", message: `must be an HTTP header name, got ${show(s)}` });
    return z.NEVER;
  });
}

/** Comma-separated Redis URLs (`redis://` or `rediss://` with a host). */
const redisUrls: z.ZodType<readonly string[], string> = z.string().transform((s, ctx) => {
  const urls = s
    .split(",")
    .map((u) => u.trim())
    .filter((u) => u !== "");
  if (urls.length === 0) {
    ctx.addIssue({ code: "custom", message: "must list at least one redis:// or rediss:// URL" });
    return z.NEVER;
  }
  for (const [i, u] of urls.entries()) {
    let url: URL | undefined;
    try {
      url = new URL(u);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== "redis:" && url.protocol !== "rediss:") ||
      url.hostname === ""
    ) {
      // The URL may carry a password: name its position, never echo it.
      ctx.addIssue({
        code: "custom",
        message: `URL ${i + 1} of ${urls.length} must be redis://[user:password@]host[:port][/db] or rediss://…`,
      });
      return z.NEVER;
    }
  }
  if (new Set(urls).size !== urls.length) {
    ctx.addIssue({ code: "custom", message: "lists the same URL twice" });
    return z.NEVER;
  }
  return Object.freeze(urls);
});

/** Descriptor templates, separated by `;` (a template itself holds `,` between its entries). */
const templates: z.ZodType<readonly string[] | undefined, string> = z.string().transform((s, ctx) => {
  const list = s
    .split(";")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (list.length === 0) return undefined;
  try {
    compileTemplates(list);
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: (error as Error).message
        .replace(/^forwardAuth\.descriptors(\[(\d+)\])?/, (_m, _i, n?: string) =>
          n === undefined ? "" : `template ${Number(n) + 1} (${show(list[Number(n)])})`,
        )
        .trim(),
    });
    return z.NEVER;
  }
  return Object.freeze(list);
});

const denyStatus: z.ZodType<429 | 403, string> = oneOf(["429", "403"] as const).transform(
  (s) => Number(s) as 429 | 403,
);

const envoyAlgorithm: z.ZodType<AlgorithmId | undefined, string> = z.string().transform((s, ctx) => {
  const t = s.trim();
  if (t === "") return undefined;
  const ids = ALGORITHM_IDS.filter((a) => a !== "concurrency");
  if (!(ids as readonly string[]).includes(t)) {
    ctx.addIssue({ code: "custom", message: `must be one of ${ids.join(", ")}, got ${show(s)}` });
    return z.NEVER;
  }
  return t as AlgorithmId;
});

/** Keeps each row's key and schema type together. */
function row<K extends keyof ServiceSettings>(def: SettingDef<K>): SettingDef<K> {
  return Object.freeze(def);
}

/** The settings table: every process setting of `sluice serve`, in `--help` order. */
export const SERVICE_SETTINGS: readonly SettingDef[] = Object.freeze([
  row({
    key: "configFile",
    flag: "config",
    env: "SLUICE_CONFIG",
    kind: "string",
    arg: "<file>",
    default: undefined,
    description:
      "the rules file, native YAML/JSON or envoyproxy/ratelimit YAML (required), e.g. examples/sluice.yaml",
    schema: text(4096, "a file path"),
  }),
  row({
    key: "envoyAlgorithm",
    flag: "envoy-algorithm",
    env: "SLUICE_ENVOY_ALGORITHM",
    kind: "enum",
    arg: "<id>",
    default: "",
    description:
      "algorithm of the limits of an envoyproxy/ratelimit file (default fixed_window, as envoyproxy/ratelimit)",
    schema: envoyAlgorithm,
  }),
  row({
    key: "counting",
    flag: "counting",
    env: "SLUICE_COUNTING",
    kind: "enum",
    arg: "<mode>",
    default: "all_or_nothing",
    description:
      "how a request of several descriptors counts: all_or_nothing (a denied request counts nowhere) or each (every descriptor that passes counts, as envoyproxy/ratelimit does by default)",
    schema: oneOf(COUNTING_MODES),
  }),
  row({
    key: "watch",
    flag: "watch",
    env: "SLUICE_WATCH",
    kind: "switch",
    default: "true",
    description: "reload the rules file when it changes; an invalid version is refused and shows in /readyz",
    schema: switchValue,
  }),
  row({
    key: "store",
    flag: "store",
    env: "SLUICE_STORE",
    kind: "enum",
    arg: "<kind>",
    default: undefined,
    description:
      "where counters live: memory (this process) or redis (shared); default redis when --redis is set, else memory",
    schema: oneOf(STORE_KINDS),
  }),
  row({
    key: "redisUrls",
    flag: "redis",
    env: "SLUICE_REDIS",
    kind: "list",
    arg: "<urls>",
    default: undefined,
    description:
      "redis://[user:pass@]host[:port][/db] or rediss://…; several comma-separated URLs are client-side sharded nodes (or Cluster seeds with --redis-cluster, Sentinels with --redis-sentinel). Prefer the variable: it keeps passwords out of `ps`",
    secret: true,
    schema: redisUrls,
  }),
  row({
    key: "redisCluster",
    flag: "redis-cluster",
    env: "SLUICE_REDIS_CLUSTER",
    kind: "switch",
    default: "false",
    description: "the --redis URLs are seed nodes of one Redis Cluster",
    schema: switchValue,
  }),
  row({
    key: "redisSentinel",
    flag: "redis-sentinel",
    env: "SLUICE_REDIS_SENTINEL",
    kind: "string",
    arg: "<master>",
    default: undefined,
    description:
      "the --redis URLs are Redis Sentinels (redis://host:26379, comma-separated) monitoring this master; their user:password, /db and rediss:// apply to the master (and its replicas)",
    schema: masterName,
  }),
  row({
    key: "redisSentinelPassword",
    flag: "redis-sentinel-password",
    env: "SLUICE_REDIS_SENTINEL_PASSWORD",
    kind: "string",
    arg: "<pw>",
    default: undefined,
    description:
      "password of the Sentinels themselves, when they require AUTH (with --redis-sentinel). Prefer the variable: it keeps the password out of `ps`",
    secret: true,
    schema: password,
  }),
  row({
    key: "redisPrefix",
    flag: "redis-prefix",
    env: "SLUICE_REDIS_PREFIX",
    kind: "string",
    arg: "<prefix>",
    default: "rl",
    description: "first segment of every Redis key",
    schema: text(128).refine((s) => !/[{}]/.test(s), "must not contain braces"),
  }),
  row({
    key: "memoryCapacity",
    flag: "memory-capacity",
    env: "SLUICE_MEMORY_CAPACITY",
    kind: "int",
    arg: "<keys>",
    default: "1000000",
    description:
      "most keys the memory store holds (preallocated; idle keys are reclaimed, then the oldest evicted)",
    schema: wholeNumber(1, 100_000_000),
  }),
  row({
    key: "fallbackShare",
    flag: "fallback-share",
    env: "SLUICE_FALLBACK_SHARE",
    kind: "number",
    arg: "<share>",
    default: "1",
    description:
      "share of each limit the local fallback enforces while Redis is unreachable: 1 / (instances)",
    schema: share,
  }),
  row({
    key: "storeTimeoutMs",
    flag: "store-timeout",
    env: "SLUICE_STORE_TIMEOUT",
    kind: "duration",
    arg: "<duration>",
    default: "50ms",
    description: "longest wait for Redis per call; beyond it the rule's failure policy answers",
    schema: duration(1, 60_000),
  }),
  row({
    key: "host",
    flag: "host",
    env: "SLUICE_HOST",
    kind: "string",
    arg: "<address>",
    default: "127.0.0.1",
    description: "interface both servers listen on (0.0.0.0 or :: for every interface)",
    schema: text(255, "an address"),
  }),
  row({
    key: "grpcPort",
    flag: "grpc-port",
    env: "SLUICE_GRPC_PORT",
    kind: "int",
    arg: "<port>",
    default: "8081",
    description: "gRPC port: sluice.v1.RateLimiter and Envoy's RateLimitService (0: any free port)",
    schema: wholeNumber(0, 65_535),
  }),
  row({
    key: "grpcTransport",
    flag: "grpc-transport",
    env: "SLUICE_GRPC_TRANSPORT",
    kind: "enum",
    arg: "<server>",
    default: "node-http2",
    description: `gRPC server: ${GRPC_TRANSPORTS.join(" (lean, default) or ")} (the reference implementation's)`,
    schema: oneOf(GRPC_TRANSPORTS),
  }),
  row({
    key: "grpcReceiveBufferBytes",
    flag: "grpc-receive-buffer",
    env: "SLUICE_GRPC_RECEIVE_BUFFER",
    kind: "bytes",
    arg: "<size>",
    default: "64MiB",
    description:
      "most bytes gRPC calls still receiving their request may hold together (headers, declared message, 8KiB a call); a call beyond it gets RESOURCE_EXHAUSTED (node-http2 only; at least --max-body-bytes + 128KiB)",
    schema: bytes(1024 * 1024, 1024 * 1024 * 1024),
  }),
  row({
    key: "grpcMaxConnections",
    flag: "grpc-max-connections",
    env: "SLUICE_GRPC_MAX_CONNECTIONS",
    kind: "int",
    arg: "<n>",
    default: "1024",
    description:
      "most open gRPC connections; at the cap a new connection closes the one idle the longest (no call open), and is closed as accepted only when none is idle (node-http2 only)",
    schema: wholeNumber(1, 1_000_000),
  }),
  row({
    key: "grpcMaxConnectionIdleMs",
    flag: "grpc-max-connection-idle",
    env: "SLUICE_GRPC_MAX_CONNECTION_IDLE",
    kind: "duration",
    arg: "<duration>",
    default: "5m",
    description:
      "a gRPC connection with no call open this long gets a GOAWAY and is closed (gRPC's MAX_CONNECTION_IDLE; clients reconnect on their next call); 0: never",
    schema: duration(0, 86_400_000),
  }),
  row({
    key: "grpcHandshakeTimeoutMs",
    flag: "grpc-handshake-timeout",
    env: "SLUICE_GRPC_HANDSHAKE_TIMEOUT",
    kind: "duration",
    arg: "<duration>",
    default: "10s",
    description:
      "a new gRPC connection that has not sent the HTTP/2 preface and SETTINGS within this is closed (node-http2 only; on grpc-js the idle limit closes it)",
    schema: duration(1, 600_000),
  }),
  row({
    key: "httpPort",
    flag: "http-port",
    env: "SLUICE_HTTP_PORT",
    kind: "int",
    arg: "<port>",
    default: "8080",
    description: "HTTP port: /v1/check, /v1/auth, /metrics, /healthz, /readyz (0: any free port)",
    schema: wholeNumber(0, 65_535),
  }),
  row({
    key: "defaultDomain",
    flag: "default-domain",
    env: "SLUICE_DEFAULT_DOMAIN",
    kind: "string",
    arg: "<domain>",
    default: "",
    description:
      "domain of requests that name none (default: the rules' only domain, when there is exactly one)",
    schema: optionalText(255),
  }),
  row({
    key: "maxInflight",
    flag: "max-inflight",
    env: "SLUICE_MAX_INFLIGHT",
    kind: "int",
    arg: "<n>",
    default: "1024",
    description:
      "most requests in flight across every API; more are refused at once (503 / RESOURCE_EXHAUSTED)",
    schema: wholeNumber(1, 1_000_000),
  }),
  row({
    key: "maxDelayed",
    flag: "max-delayed",
    env: "SLUICE_MAX_DELAYED",
    kind: "int",
    arg: "<n>",
    default: "4096",
    description:
      "most forward-auth requests waiting out a delay rule's delay at once, outside --max-inflight; more are denied at once (429 / the deny status)",
    schema: wholeNumber(0, 1_000_000),
  }),
  row({
    key: "maxBodyBytes",
    flag: "max-body-bytes",
    env: "SLUICE_MAX_BODY_BYTES",
    kind: "bytes",
    arg: "<size>",
    default: "64KiB",
    description: "largest HTTP request body or gRPC message",
    schema: bytes(256, 64 * 1024 * 1024),
  }),
  row({
    key: "maxBatchItems",
    flag: "max-batch-items",
    env: "SLUICE_MAX_BATCH_ITEMS",
    kind: "int",
    arg: "<n>",
    default: "100",
    description: "most checks in one batch request",
    schema: wholeNumber(1, 10_000),
  }),
  row({
    key: "maxCost",
    flag: "max-cost",
    env: "SLUICE_MAX_COST",
    kind: "int",
    arg: "<n>",
    default: "1000000000",
    description: "largest cost (hits_addend) one request may ask for",
    schema: wholeNumber(1, 4_294_967_295),
  }),
  row({
    key: "maxClockSkewMs",
    flag: "max-clock-skew",
    env: "SLUICE_MAX_CLOCK_SKEW",
    kind: "duration",
    arg: "<duration>",
    default: "1m",
    description: "largest skew between a request's client timestamp and the server clock",
    schema: duration(0, 86_400_000),
  }),
  row({
    key: "drainTimeoutMs",
    flag: "drain-timeout",
    env: "SLUICE_DRAIN_TIMEOUT",
    kind: "duration",
    arg: "<duration>",
    default: "10s",
    description: "on SIGTERM/SIGINT, how long in-flight requests may finish before connections are closed",
    schema: duration(0, 3_600_000),
  }),
  row({
    key: "logLevel",
    flag: "log-level",
    env: "SLUICE_LOG_LEVEL",
    kind: "enum",
    arg: "<level>",
    default: "info",
    description: `log level: ${LOG_LEVELS.join(", ")}`,
    schema: oneOf(LOG_LEVELS),
  }),
  row({
    key: "authDomain",
    flag: "auth-domain",
    env: "SLUICE_AUTH_DOMAIN",
    kind: "string",
    arg: "<domain>",
    default: "",
    description: "domain of forward-auth checks, GET /v1/auth (default: the default domain, else edge)",
    schema: optionalText(255),
  }),
  row({
    key: "authUserHeader",
    flag: "auth-user-header",
    env: "SLUICE_AUTH_USER_HEADER",
    kind: "string",
    arg: "<name>",
    default: "x-user-id",
    description: "request header carrying the authenticated user, for forward-auth",
    schema: headerName(false),
  }),
  row({
    key: "authHeaders",
    flag: "auth-headers",
    env: "SLUICE_AUTH_HEADERS",
    kind: "enum",
    arg: "<family>",
    default: "x-forwarded",
    description:
      "headers carrying the original URI and method, for forward-auth: x-forwarded (X-Forwarded-Uri/-Method: Caddy, Traefik, nginx with proxy_set_header) or x-original (X-Original-URI/-Method); the other family is ignored (a proxy must set the one read: nginx passes the client's headers on)",
    schema: oneOf(FORWARD_AUTH_HEADERS),
  }),
  row({
    key: "authAddressHeader",
    flag: "auth-address-header",
    env: "SLUICE_AUTH_ADDRESS_HEADER",
    kind: "string",
    arg: "<name>",
    default: "x-real-ip",
    description:
      'request header holding the client address, for forward-auth: read before X-Forwarded-For at 0 trusted proxy hops, and only when X-Forwarded-For is absent beyond ("" to skip it, from the flag or an empty variable)',
    emptyIsValue: true,
    schema: headerName(true),
  }),
  row({
    key: "authDescriptors",
    flag: "auth-descriptors",
    env: "SLUICE_AUTH_DESCRIPTORS",
    kind: "list",
    arg: "<templates>",
    default: "",
    description:
      "descriptors of forward-auth checks: templates separated by ';', each naming attributes separated by ',' (remote_address, user, endpoint, method, header:<name>); default remote_address;user;user,endpoint",
    schema: templates,
  }),
  row({
    key: "authDenyStatus",
    flag: "auth-deny-status",
    env: "SLUICE_AUTH_DENY_STATUS",
    kind: "enum",
    arg: "<status>",
    default: "429",
    description:
      "status of a forward-auth denial: 429, or 403 for nginx auth_request (which passes on only 401/403)",
    schema: denyStatus,
  }),
  row({
    key: "trustedProxyHops",
    flag: "trusted-proxy-hops",
    env: "SLUICE_TRUSTED_PROXY_HOPS",
    kind: "int",
    arg: "<n>",
    default: "0",
    description:
      "trusted proxies (a CDN, a load balancer) in front of the one next to Sluice, for forward-auth: n > 0 takes the client address from the X-Forwarded-For entry n places from the right, over the address header (which names one of those proxies); 0 reads the address header, else the rightmost entry (the one the proxy next to Sluice appended)",
    schema: wholeNumber(0, 32),
  }),
  row({
    key: "legacyHeaders",
    flag: "legacy-headers",
    env: "SLUICE_LEGACY_HEADERS",
    kind: "switch",
    default: "false",
    description:
      "also send X-RateLimit-Limit/Remaining/Reset on HTTP answers (draft-10 RateLimit headers always)",
    schema: switchValue,
  }),
  row({
    key: "envoyHeaders",
    flag: "envoy-headers",
    env: "SLUICE_ENVOY_HEADERS",
    kind: "switch",
    default: "true",
    description: "add draft-10 RateLimit headers to Envoy ShouldRateLimit answers (response_headers_to_add)",
    schema: switchValue,
  }),
  row({
    key: "admin",
    flag: "admin",
    env: "SLUICE_ADMIN",
    kind: "switch",
    default: "true",
    description: "serve the admin API (/api/v1) and the dashboard on --admin-port",
    schema: switchValue,
  }),
  row({
    key: "adminPort",
    flag: "admin-port",
    env: "SLUICE_ADMIN_PORT",
    kind: "int",
    arg: "<port>",
    default: "8082",
    description:
      "admin port: /api/v1 (rules, tiers, overrides, audit, reset) and /dashboard/ (0: any free port)",
    schema: wholeNumber(0, 65_535),
  }),
  row({
    key: "adminReadAccess",
    flag: "admin-read-access",
    env: "SLUICE_ADMIN_READ_ACCESS",
    kind: "enum",
    arg: "<who>",
    default: "open",
    description: "admin reads: open (anyone reaching the port) or token; writes always need a bearer token",
    schema: oneOf(["open", "token"] as const),
  }),
  row({
    key: "adminTokensFile",
    flag: "admin-tokens-file",
    env: "SLUICE_ADMIN_TOKENS_FILE",
    kind: "string",
    arg: "<file>",
    default: "",
    description: 'admin tokens, one name:token per line (or SLUICE_ADMIN_TOKENS="ops:secret,ci:secret2")',
    schema: optionalText(4096),
  }),
  row({
    key: "auditFile",
    flag: "audit-file",
    env: "SLUICE_AUDIT_FILE",
    kind: "string",
    arg: "<file>",
    default: "",
    description: "admin audit log file (default <rules file>.audit.jsonl; with Redis: a stream)",
    schema: optionalText(4096),
  }),
] as SettingDef[]);

/** Raw values as commander hands them over (attribute names: `grpcPort`; switches as booleans). */
export type RawSettingFlags = Readonly<Record<string, string | boolean | undefined>>;

/** The commander attribute name of a flag (`grpc-port` → `grpcPort`). */
export function attributeOf(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The help text of a row: its description, environment variable and default. */
function helpOf(def: SettingDef): string {
  const dflt =
    def.default === undefined || def.default === ""
      ? ""
      : `; default ${def.kind === "switch" ? (def.default === "true" ? "on" : "off") : def.default}`;
  return `${def.description} [${def.env}${dflt}]`;
}

/** Adds one commander option per row to `command` (switches as a visible `--x` / `--no-x` and its hidden twin). */
export function addSettingOptions(command: Command): Command {
  for (const def of SERVICE_SETTINGS) {
    if (def.kind === "switch") {
      // Both `--x` and `--no-x` are accepted; help lists the one that changes the default.
      const onByDefault = def.default === "true";
      const on = new Option(`--${def.flag}`, helpOf(def));
      const off = new Option(
        `--no-${def.flag}`,
        onByDefault ? `turn off: ${helpOf(def)}` : `turn off --${def.flag}`,
      );
      (onByDefault ? on : off).hideHelp();
      command.addOption(on).addOption(off);
    } else {
      command.addOption(new Option(`--${def.flag} ${def.arg ?? "<value>"}`, helpOf(def)));
    }
  }
  return command;
}

/** Where a value came from, named in errors. */
interface Raw {
  readonly text: string;
  readonly from: string;
}

function rawOf(
  def: SettingDef,
  flags: RawSettingFlags,
  env: Readonly<Record<string, string | undefined>>,
): Raw | undefined {
  const flag = flags[attributeOf(def.flag)];
  if (typeof flag === "boolean") return { text: String(flag), from: `--${flag ? "" : "no-"}${def.flag}` };
  if (typeof flag === "string") return { text: flag, from: `--${def.flag}` };
  const e = env[def.env];
  if (e !== undefined && (e !== "" || def.emptyIsValue === true)) return { text: e, from: def.env };
  return undefined;
}

/**
 * Validates flags (commander's parsed options) and environment variables into frozen settings; throws an
 * `ERR_SLUICE_INVALID_ARGUMENT` listing every problem, one per line, each naming its flag or variable.
 */
export function parseServiceSettings(
  flags: RawSettingFlags = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServiceSettings {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  const given = new Map<string, string>();
  for (const def of SERVICE_SETTINGS) {
    const raw = rawOf(def, flags, env);
    if (raw !== undefined) given.set(def.key, raw.from);
    const input = raw?.text ?? def.default;
    if (input === undefined) {
      out[def.key] = undefined;
      continue;
    }
    const r = def.schema.safeParse(input);
    if (r.success) out[def.key] = r.data;
    else {
      const from = raw?.from ?? `the default of --${def.flag}`;
      problems.push(`${from}: ${r.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  const name = (key: keyof ServiceSettings, flag: string, envName: string): string =>
    given.get(key) ?? `--${flag} (${envName})`;

  if (out.configFile === undefined) {
    problems.push(
      "--config (SLUICE_CONFIG) is required: the rules file to enforce, e.g. --config examples/sluice.yaml",
    );
  }
  const urls = out.redisUrls as readonly string[] | undefined;
  if (out.store === undefined) out.store = urls === undefined ? "memory" : "redis";
  if (out.store === "redis" && urls === undefined && !given.has("redisUrls")) {
    problems.push(
      `${name("store", "store", "SLUICE_STORE")} redis needs --redis (SLUICE_REDIS): the Redis URL(s)`,
    );
  }
  if (out.store === "memory" && urls !== undefined) {
    problems.push(
      `${name("redisUrls", "redis", "SLUICE_REDIS")} applies only to the Redis store, but ${name("store", "store", "SLUICE_STORE")} is memory`,
    );
  }
  if (out.redisCluster === true && out.store !== "redis") {
    problems.push(
      `${name("redisCluster", "redis-cluster", "SLUICE_REDIS_CLUSTER")} applies only to --store redis`,
    );
  }
  const sentinel = name("redisSentinel", "redis-sentinel", "SLUICE_REDIS_SENTINEL");
  if (out.redisSentinel !== undefined && out.store !== "redis") {
    problems.push(`${sentinel} applies only to --store redis`);
  }
  if (out.redisSentinel !== undefined && out.redisCluster === true) {
    problems.push(
      `${sentinel} and ${name("redisCluster", "redis-cluster", "SLUICE_REDIS_CLUSTER")} exclude each other: the --redis URLs are either Sentinels or Cluster seeds`,
    );
  }
  if (out.redisSentinelPassword !== undefined && out.redisSentinel === undefined) {
    problems.push(
      `${name("redisSentinelPassword", "redis-sentinel-password", "SLUICE_REDIS_SENTINEL_PASSWORD")} applies only with --redis-sentinel (SLUICE_REDIS_SENTINEL)`,
    );
  }
  if (out.redisSentinel !== undefined && urls !== undefined && urls.length > 1) {
    // One client reaches the master through any Sentinel: the master's credentials, database and TLS come from the
    // URLs, so they must say the same thing. Compared without echoing them (they hold passwords).
    const masterPart = (u: string): string => {
      const url = new URL(u);
      return `${url.protocol}//${url.username}:${url.password}@/${url.pathname.replace(/^\//, "") || "0"}`;
    };
    if (new Set(urls.map(masterPart)).size > 1) {
      problems.push(
        `${name("redisUrls", "redis", "SLUICE_REDIS")}: with --redis-sentinel every URL must carry the same scheme, user:password and /db (they are the master's)`,
      );
    }
  }
  // The admin API's audit log is this file only on the memory store: with Redis it is the Redis stream
  // `<prefix>:audit`, readable from every instance, and without the admin API there is none.
  const auditFile = name("auditFile", "audit-file", "SLUICE_AUDIT_FILE");
  if (out.auditFile !== undefined && out.store === "redis") {
    problems.push(
      `${auditFile} applies only to the memory store: with --store redis the admin API's audit log is the Redis stream <--redis-prefix>:audit`,
    );
  }
  if (out.auditFile !== undefined && out.admin === false) {
    problems.push(`${auditFile} applies only with the admin API, which --no-admin (SLUICE_ADMIN) turns off`);
  }
  const budget = out.grpcReceiveBufferBytes as number | undefined;
  const maxBody = out.maxBodyBytes as number | undefined;
  if (budget !== undefined && maxBody !== undefined && budget < maxBody + RECEIVE_BUFFER_HEADROOM_BYTES) {
    // A message of the maximum size, its headers and its stream's charge must fit, or it could never be received.
    problems.push(
      `${name("grpcReceiveBufferBytes", "grpc-receive-buffer", "SLUICE_GRPC_RECEIVE_BUFFER")} (${budget} bytes) must be at least ${name("maxBodyBytes", "max-body-bytes", "SLUICE_MAX_BODY_BYTES")} (${maxBody} bytes) + ${RECEIVE_BUFFER_HEADROOM_BYTES / 1024}KiB`,
    );
  }
  const inlineTokens = env[ADMIN_TOKENS_ENV];
  if (
    given.get("adminTokensFile") === ADMIN_TOKENS_FILE_ENV &&
    inlineTokens !== undefined &&
    inlineTokens !== ""
  ) {
    // The file would win and the tokens of the other variable would fail with 401 (never echoed: they are secrets).
    problems.push(
      `${ADMIN_TOKENS_ENV} and ${ADMIN_TOKENS_FILE_ENV} are both set: set one of them (the tokens, or the file that holds them)`,
    );
  }
  if (out.redisUrls === undefined) out.redisUrls = Object.freeze([]);
  if (problems.length > 0) throw new InvalidArgumentError(problems.join("\n"));
  return Object.freeze(out) as unknown as ServiceSettings;
}

/**
 * The settings as a plain object for a start-up log line, secrets masked: the password (or token) of each URL as
 * `***`, and a secret that is no URL list (a password) as `***` whole.
 */
export function describeSettings(settings: ServiceSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of SERVICE_SETTINGS) {
    const v = settings[def.key];
    if (!def.secret || v === undefined) out[def.key] = v;
    else out[def.key] = Array.isArray(v) ? v.map((u: string) => maskUrlCredentials(u)) : "***";
  }
  return out;
}

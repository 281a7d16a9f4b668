/**
 * The admin side of `sluice serve`: composes the repository, the audit log, the tokens, the decision tally and
 * the admin HTTP server, and listens on the admin port (never the data-plane port).
 *
 * **Where the configuration lives.** Embedded default (no Redis): the rules file is the source of truth; admin
 * writes rewrite it atomically and hand edits are picked up by the repository's watcher; the audit log is a JSON
 * lines file beside it (`<rules file>.audit.jsonl` unless given). One admin service per file: both files are
 * locked (`<file>.lock`, naming the pid) from start to `close`, and a second service on the same rules or audit
 * file refuses to start with `ERR_SLUICE_FILE_LOCKED` naming the file and the holder's pid (several instances
 * share a configuration through Redis mode). An audit file given explicitly (`--audit-file`) that cannot be opened
 * at start (its directory cannot be written, or cannot be created; any other failure) stops the start too, with an
 * error naming the file, why and the setting (`ERR_SLUICE_FILE_NOT_WRITABLE`, or `ERR_SLUICE_INVALID_ARGUMENT`):
 * the operator asked for that record, so it is neither replaced nor left failing (every audit read an error, every
 * record lost). Only the default audit file falls back (to memory, below).
 *
 * **A rules file in a directory that cannot be written** (embedded mode: its lock refused with EROFS, EACCES or
 * EPERM, `FileNotWritableError`: a Kubernetes ConfigMap or another read-only mount, a read-only root file system,
 * another user's directory) still gets the admin API, with the file repository read-only, as for an
 * envoyproxy/ratelimit file in Redis mode below: the file loads and, with `watch`, each edit of it is applied (one
 * that does not load shows in `/readyz`, the previous rules staying); configuration writes (rules, tiers,
 * overrides) are refused with `ERR_SLUICE_UNSUPPORTED` (409) naming the file and why, and `GET /api/v1/status` says
 * the repository is read-only and why (`repository.readOnly`, `readOnlyReason`). Audit records go to the
 * `--audit-file` when one is given (its own directory, locked as usual). The default one, beside the rules file,
 * usually cannot be created either: then the audit log is kept in memory, bounded (`memory-audit-log.ts`:
 * the last {@link MEMORY_AUDIT_MAX_ENTRIES} entries, 16 MiB), readable through the admin API until the service
 * stops, and every change is also in the service log (`admin: change`), which is what keeps a trail where rules
 * are mounted read-only (containers' logs are collected). Chosen over refusing what the admin API can still change
 * there (a limits reset, an operational fix) for want of a durable record: the record exists, in the log. One
 * warning at start says that the file is read-only, why, and where audit records go.
 *
 * **Redis mode**: rules, tiers and overrides live in Redis, versioned; the rules file seeds Redis only when Redis
 * holds no configuration yet; every write is published and every instance applies it (within the repository's 1 s
 * poll at worst); the audit log is a Redis stream. A Redis that is not reachable at start does not stop the service
 * (the data plane serves anyway too): the admin API listens with its repository unloaded, the engine keeps the rules
 * file's rules, admin reads and writes answer 503 (`ERR_SLUICE_STORE_UNAVAILABLE`), and the repository loads by
 * itself once Redis answers (seeding it when empty), the engine then following the shared configuration. Either way,
 * every snapshot reaches the engine through `createAdminServer`'s watch, and a snapshot that cannot be loaded (an
 * invalid hand edit) is reported to the engine, so `/readyz` shows it until the repository reads a version that
 * loads, a new one or the one in force (the edit reverted, or fixed by comments only).
 *
 * **The rules file in Redis mode** is no source of truth: once Redis holds a configuration, the file's rules are
 * not applied, at start or when it changes. So that a restart with an edited (or another) file, or an edit of the
 * file while the service runs, is not ignored silently, the file is compared with the configuration in force and a
 * warning names the file, the Redis location, the version held and what to do (change the rules through the admin
 * API or the dashboard; or, to seed Redis from the file again, stop every instance, since a running one writes back
 * the version it knows, delete the hash `<prefix>:config` and start again). Compared: the file's native document
 * and Redis's, both as the repository stores documents (`toJsonData`, then `canonicalJson`: comments, layout, YAML
 * anchors and key order do not count), so a file equal to Redis's document (the instance that just seeded it, an
 * edit that only reformats) gives no warning. When: once Redis's configuration is first loaded (at start, or when
 * Redis answers after being unreachable at start), and, with `watch`, at each change of the file (watched as in
 * embedded mode, but only to warn).
 *
 * **An envoyproxy/ratelimit file in Redis mode** is the source of truth of the rules, as it is for
 * envoyproxy/ratelimit itself: every instance reads its own copy (a ConfigMap) and, with `watch`, applies each edit
 * of it; Redis holds the counters (the data plane's store) and the audit stream, not the rules. Such a file is no
 * native document, so it cannot seed Redis, and taking the rules from Redis instead (none on an empty one) silently
 * dropped every limit. Chosen at start by the file's format: the repository is then the file repository, read-only
 * (`file-config-repository.ts`): it loads and watches the file as in embedded mode (an edit that does not load shows
 * in `/readyz`, the previous rules staying), and refuses every configuration write (rules, tiers, overrides) with
 * `ERR_SLUICE_UNSUPPORTED` naming the file (409). It takes no file lock: it never writes, so several instances may
 * share one file on one host. The audit log stays the Redis stream, as in Redis mode: what the admin API can still
 * change (a reset of limits) acts on the counters in Redis, which every instance shares, so its record belongs
 * beside them, readable from every instance, and nothing is written beside a file that may sit on a read-only mount.
 * A configuration held in Redis under the prefix (`<prefix>:config`: written by instances started with a native
 * file) is not used, and is warned of once it is seen, since instances sharing the counters then run other rules.
 *
 * The admin connection to Redis is its own ioredis client (config and audit traffic never queue behind the data
 * plane's scripts), built from the same settings as the store's (`redis-clients.ts`: one node, a Cluster or a
 * Sentinel-managed master), with the admin's options: its calls wait through a reconnection rather than fail fast.
 */
import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import {
  ConfigError,
  FileLockedError,
  FileNotWritableError,
  InvalidArgumentError,
  StoreUnavailableError,
} from "../../core/errors.js";
import type { AlgorithmId } from "../../core/limit-spec.js";
import { type ConfigWatcher, watchConfigFile } from "../../engine/config-watcher.js";
import type { Engine } from "../../engine/engine.js";
import type { NativeConfigInput } from "../../rules/config-schema.js";
import { isEnvoyConfig } from "../../rules/envoy-config.js";
import { parseConfigValue, unreadableConfigFile } from "../../rules/load-config.js";
import { createRedisClient, type RedisConnectionSettings, redisClientSpecs } from "../redis-clients.js";
import { within } from "../service-store.js";
import { type AdminReadAccess, createAdminServer } from "./admin-server.js";
import type { AdminTokens } from "./admin-tokens.js";
import type { AuditLog } from "./audit-log.js";
import {
  type ConfigRepository,
  type ConfigSnapshot,
  canonicalJson,
  toJsonData,
} from "./config-repository.js";
import { createDecisionTally, type DecisionTally } from "./decision-tally.js";
import { fileAuditLog } from "./file-audit-log.js";
import { fileConfigRepository } from "./file-config-repository.js";
import { MEMORY_AUDIT_MAX_ENTRIES, memoryAuditLog } from "./memory-audit-log.js";
import { redisAuditLog } from "./redis-audit-log.js";
import { redisConfigKey, redisConfigRepository } from "./redis-config-repository.js";

/** How long {@link RunningAdmin.close} waits for a clean close (Redis QUIT included) before cutting, ms. */
export const ADMIN_CLOSE_TIMEOUT_MS = 1000;

/** Options of {@link startAdminService}. */
export interface AdminServiceOptions {
  /** The data plane's engine. */
  readonly engine: Engine;
  /**
   * The rules file: the source of truth (embedded, and Redis mode with an envoyproxy/ratelimit file), or the seed of
   * Redis (Redis mode with a native file). See the module comment.
   */
  readonly configFile: string;
  /** Algorithm of the limits of an envoyproxy/ratelimit rules file (`--envoy-algorithm`). @default fixed_window */
  readonly envoyAlgorithm?: AlgorithmId;
  /**
   * Where the shared configuration and audit stream live (the service's Redis settings; with several sharded
   * URLs, the first node); undefined: embedded (file) mode.
   */
  readonly redis?: RedisConnectionSettings;
  /** Key prefix in Redis. */
  readonly redisPrefix: string;
  /** The audit file in embedded mode. @default `${configFile}.audit.jsonl` */
  readonly auditFile?: string;
  /** Who may write (and read, with `readAccess: "token"`). */
  readonly tokens: AdminTokens;
  /** Reads open, or token-only. */
  readonly readAccess: AdminReadAccess;
  /** The engine's clock. */
  readonly clock: Clock;
  /** The service logger (tokens never reach it). */
  readonly log: Logger;
  /** Interface to listen on. */
  readonly host: string;
  /** Port to listen on (0: any free port). */
  readonly port: number;
  /**
   * Embedded mode: watch the rules file and apply every version written to it by hand (`--watch`, the service's
   * setting); false: only the admin API's own writes change the rules. Redis mode with a native file always follows
   * the shared document: the file is watched only to warn that an edit of it is not applied; with an
   * envoyproxy/ratelimit file, as embedded (see the module comment).
   * @default true
   */
  readonly watch?: boolean;
}

/** The running admin side. */
export interface RunningAdmin {
  /** The bound port. */
  readonly port: number;
  /** Where the configuration lives (`file:…` or `redis://…`, no credentials). */
  readonly location: string;
  /**
   * Whether each edit of the rules file is applied to the engine: with `watch`, in embedded mode and in Redis mode
   * with an envoyproxy/ratelimit file; false when the rules follow Redis.
   */
  readonly watchesRulesFile: boolean;
  /** Record every data-plane decision here (feeds `/api/v1/stats` and the dashboard). */
  readonly tally: DecisionTally;
  /**
   * Stops listening and closes the repository, the audit log and the admin Redis connection, within `timeoutMs`
   * (default {@link ADMIN_CLOSE_TIMEOUT_MS}): what has not finished by then (a Redis that stopped answering) is cut
   * (admin connections and the Redis connection dropped), so it always resolves, and never rejects.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * A rules file as the admin service reads it: an envoyproxy/ratelimit file, or the native document (the Redis seed;
 * undefined when the value has no `rules` list, which the loader refuses).
 */
type RulesFile =
  | { readonly envoy: true }
  | { readonly envoy: false; readonly document: NativeConfigInput | undefined };

/**
 * Reads the rules file at `path` by the loader's own parser, so the seed is the document the data plane loaded
 * (YAML merge keys and aliases resolved, the same JSON-or-YAML choice) and the format is the one it detected.
 */
async function readRulesFile(path: string): Promise<RulesFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw unreadableConfigFile(path, error);
  }
  const value = parseConfigValue(text, { source: path });
  if (isEnvoyConfig(value)) return { envoy: true };
  if (value === null || typeof value !== "object" || !Array.isArray((value as { rules?: unknown }).rules)) {
    return { envoy: false, document: undefined };
  }
  return { envoy: false, document: toJsonData(value as NativeConfigInput, path) };
}

/** Why a configuration write is refused in Redis mode with an envoyproxy/ratelimit file (after `<file>: `). */
export const ENVOY_FILE_READ_ONLY =
  "the rules are read from this envoyproxy/ratelimit file (with the Redis store, Redis holds the counters, not the " +
  "rules), which the admin API does not edit: edit the file on every instance (each reloads it on change, unless " +
  "--no-watch); to manage the rules through the admin API, convert the file to the native format, which seeds " +
  "the shared configuration in Redis";

/** Why `error`'s directory cannot be written, in words: the system error and what it usually means. */
function unwritableCause(error: FileNotWritableError): string {
  const hint =
    error.errno === "EROFS"
      ? ", as on a read-only mount, such as a Kubernetes ConfigMap or a read-only root file system"
      : ": this process's user may not create files there";
  return `the directory ${error.directory} cannot be written (${error.errno}: ${error.meaning})${hint}`;
}

/**
 * Why a configuration write is refused in embedded mode on a rules file whose directory cannot be written (after
 * `<file>: `); `watch`: whether edits of the file are applied.
 */
export function unwritableRulesReason(error: FileNotWritableError, watch: boolean): string {
  return (
    `the admin API cannot write this file: ${unwritableCause(error)}. Change the rules by editing the file where ` +
    `it comes from (${watch ? "each edit is applied" : "read at start only, --no-watch"}); to manage them through ` +
    "the admin API, start with a rules file in a writable directory, or with --store redis (the file then seeds Redis)"
  );
}

/**
 * What to do about an `--audit-file` that cannot be opened (after the error's `; `); `configFile`: the rules file,
 * beside which the default audit file goes.
 */
function auditFileAdvice(configFile: string): string {
  return (
    "--audit-file (SLUICE_AUDIT_FILE) names this file, and the service does not start without the audit log it " +
    "asks for: give a path in a directory this process can write, or leave the setting out (audit records then go " +
    `to ${configFile}.audit.jsonl, kept in memory when that directory cannot be written)`
  );
}

/**
 * The start-up error of an `--audit-file` that cannot be opened (`error`, the audit log's), with
 * {@link auditFileAdvice} appended: `ERR_SLUICE_FILE_NOT_WRITABLE` for a directory that cannot be written or
 * created, `ERR_SLUICE_FILE_LOCKED` as it is (it says what to do), `ERR_SLUICE_INVALID_ARGUMENT` for any other
 * failure.
 */
function explicitAuditFileError(error: unknown, configFile: string): Error {
  if (error instanceof FileLockedError) return error;
  const advice = auditFileAdvice(configFile);
  if (error instanceof FileNotWritableError) {
    return new FileNotWritableError(error.file, error.directory, error.errno, error.action, error, advice);
  }
  return new InvalidArgumentError(`${error instanceof Error ? error.message : String(error)}; ${advice}`);
}

/** What {@link warnUnwritable} says. */
interface Unwritable {
  readonly configFile: string;
  readonly auditFile: string;
  readonly watch: boolean;
  /** The rules file's directory cannot be written: the repository is read-only. */
  readonly unwritable: FileNotWritableError | undefined;
  /** The default audit file's directory cannot be written: the audit log is in memory. */
  readonly auditInMemory: FileNotWritableError | undefined;
}

/** Embedded mode: the one warning at start that the rules file is read-only and where audit records go. */
function warnUnwritable(log: Logger, u: Unwritable): void {
  const memory =
    `audit records (limits resets) are kept in memory, the last ${MEMORY_AUDIT_MAX_ENTRIES}, until the service ` +
    'stops, and logged ("admin: change"); --audit-file with a path in a writable directory keeps them in a file';
  const parts: string[] = [];
  if (u.unwritable !== undefined) {
    parts.push(
      `admin API: the rules file ${u.configFile} is read-only through the admin API: ${unwritableCause(u.unwritable)}. ` +
        `Its rules are in force${u.watch ? " and each edit of it is applied" : " (read at start only, --no-watch)"}; ` +
        "admin writes of rules, tiers and overrides are refused (409, naming the file)",
    );
    parts.push(
      u.auditInMemory !== undefined
        ? `The audit log cannot be written beside it (${u.auditFile}): ${memory}`
        : `Audit records go to ${u.auditFile}`,
    );
  } else if (u.auditInMemory !== undefined) {
    parts.push(
      `admin API: the audit log ${u.auditFile} cannot be written: ${unwritableCause(u.auditInMemory)}. Instead, ${memory}`,
    );
  }
  const cause = u.unwritable ?? u.auditInMemory;
  log.warn(
    {
      configFile: u.configFile,
      ...(cause === undefined ? {} : { directory: cause.directory, errno: cause.errno }),
      readOnly: u.unwritable !== undefined,
      audit: u.auditInMemory !== undefined ? "memory" : u.auditFile,
      watch: u.watch,
    },
    parts.join(". "),
  );
}

/** What {@link warnIfFileIgnored} needs to know of the service. */
interface FileCheck {
  readonly configFile: string;
  /** The repository's location (no credentials). */
  readonly location: string;
  /** The Redis hash holding the configuration. */
  readonly key: string;
  readonly log: Logger;
}

/**
 * Redis mode: reads the rules file now and, unless its native document is Redis's (`snapshot`, the configuration in
 * force) once both are normalised as the repository stores documents, logs why the file is not applied and what
 * to do (see the module comment). `edited`: the check follows a change of the file, not the first load.
 */
async function warnIfFileIgnored(check: FileCheck, snapshot: ConfigSnapshot, edited: boolean): Promise<void> {
  const { configFile, location, key, log } = check;
  let file: RulesFile | undefined;
  let unreadable: string | undefined;
  try {
    file = await readRulesFile(configFile);
    // `readRulesFile` normalises with `toJsonData`, as `snapshotOf` did Redis's document.
    if (
      !file.envoy &&
      file.document !== undefined &&
      canonicalJson(file.document) === canonicalJson(snapshot.document)
    )
      return;
  } catch (error) {
    // An edit that does not load: not applied either, and the error says why.
    unreadable = error instanceof Error ? error.message : String(error);
  }
  const fields = {
    configFile,
    configuration: location,
    version: snapshot.version,
    rules: snapshot.document.rules?.length ?? 0,
    key,
    ...(unreadable === undefined ? {} : { error: unreadable }),
  };
  const redis = `the configuration in Redis (${location}, version ${snapshot.version})`;
  if (file?.envoy === true) {
    // Edited into that format while running: this instance chose Redis's configuration at start, from a native file.
    log.warn(
      fields,
      `admin API: the rules file ${configFile} changed to the envoyproxy/ratelimit format, and the change is not ` +
        `applied: ${redis} stays in force. An instance started with an envoyproxy/ratelimit file takes its rules ` +
        "from the file (restart to do so)",
    );
    return;
  }
  const what = edited
    ? `admin API: the rules file ${configFile} changed, and the change is not applied: ${redis} stays in force`
    : `admin API: the rules file ${configFile} differs from ${redis}, which is in force: the file's rules are not applied`;
  log.warn(
    fields,
    `${what}. In Redis mode the file only seeds a Redis that holds no configuration yet, and edits to it are ` +
      `ignored. Change the rules through the admin API or the dashboard; or, to seed Redis from the file again, ` +
      `stop every instance, delete the key ${key} (redis-cli DEL ${key}) and start them again`,
  );
}

/**
 * Redis mode with an envoyproxy/ratelimit file: once Redis answers, logs a warning when it holds a configuration under
 * the prefix (`key`), which this instance does not use (see the module comment). Never waits, never throws: a
 * failed read (the client closed first) is dropped.
 */
function warnIfRedisConfigUnused(
  client: { hget(key: string, field: string): Promise<string | null> },
  key: string,
  configFile: string,
  log: Logger,
): void {
  client.hget(key, "version").then(
    (version) => {
      if (version === null) return;
      log.warn(
        { configFile, key, version: Number(version) },
        `admin API: Redis holds a shared configuration (${key}, version ${version}) that this instance does not ` +
          `use: its rules come from the envoyproxy/ratelimit file ${configFile}. Instances on this Redis and prefix ` +
          "started with a native rules file follow that configuration, sharing counters with this one under other " +
          `rules; once none does, delete it (redis-cli DEL ${key})`,
      );
    },
    () => undefined,
  );
}

/** Starts the admin API; see the module comment. */
export async function startAdminService(options: AdminServiceOptions): Promise<RunningAdmin> {
  const { engine, log, clock } = options;
  // A version that does not load (an invalid hand edit, a bad document in Redis) shows in /readyz like a refused
  // reload; a failed read (Redis down) is only logged: the rules in force stay valid.
  const onError = (error: unknown): void => {
    if (error instanceof ConfigError) engine.reportConfigError(error, options.configFile);
    else
      log.warn(
        { error: error instanceof Error ? error.message : String(error) },
        "admin configuration refresh failed",
      );
  };
  // The configuration loads again after a refused version (the bad edit reverted, or fixed by a comment-only
  // change, so no new snapshot is announced): the error /readyz shows no longer holds. Re-applying the snapshot in
  // force clears it (and sets it again, should the engine refuse that snapshot).
  const onRecovered = (snapshot: ConfigSnapshot): void => {
    if (engine.status.lastError === undefined) return;
    try {
      engine.updateConfig(snapshot.config);
    } catch {
      // refused: the engine recorded and logged the error, and keeps the configuration in force
    }
  };
  let repository: ConfigRepository;
  let audit: AuditLog;
  // The admin Redis connection (Redis mode): `quitClient` asks Redis to close it (it waits for Redis's answer, so
  // callers bound it); `dropClient` closes the socket at once, failing the commands still waiting for a reply.
  let quitClient: () => Promise<void> = () => Promise.resolve();
  let dropClient: () => void = () => {};
  // Redis mode with a native file and `watch`: started once the admin API listens (see the module comment).
  let startFileWatch: () => ConfigWatcher | undefined = () => undefined;
  // Whether the rules follow the file (embedded, or an envoyproxy/ratelimit file in Redis mode) rather than Redis.
  let rulesFromFile = true;
  const envoyAlgorithm =
    options.envoyAlgorithm === undefined ? {} : { envoyAlgorithm: options.envoyAlgorithm };
  if (options.redis === undefined) {
    const watch = options.watch ?? true;
    const fileOptions = {
      path: options.configFile,
      clock,
      watch,
      onError,
      onRecovered,
      ...envoyAlgorithm,
    };
    let fileRepository = fileConfigRepository(fileOptions);
    // Take both files' locks now, so a second service on them refuses to start rather than failing its writes. A
    // directory that cannot be written makes the rules file read-only and the default audit log in memory (see the
    // module comment). Other failures (an unreadable file) are left to the server, which logs them and serves what it
    // can.
    let unwritable: FileNotWritableError | undefined;
    try {
      await fileRepository.load();
    } catch (error) {
      if (error instanceof FileLockedError) {
        await fileRepository.close();
        throw error;
      }
      if (error instanceof FileNotWritableError) {
        unwritable = error;
        await fileRepository.close();
        fileRepository = fileConfigRepository({
          ...fileOptions,
          readOnly: { reason: unwritableRulesReason(error, watch) },
        });
        await fileRepository.load().catch(() => undefined);
      }
    }
    repository = fileRepository;
    const auditFile = options.auditFile ?? `${options.configFile}.audit.jsonl`;
    const fileAudit = fileAuditLog({ path: auditFile, clock });
    audit = fileAudit;
    let auditInMemory: FileNotWritableError | undefined;
    try {
      await fileAudit.open();
    } catch (error) {
      // The default audit file in a directory that cannot be written: the audit log is kept in memory. Any other
      // failure of the default one is left to the admin API (its audit reads answer 503 naming the file, and a
      // change it cannot record is logged), as for the rules file.
      if (error instanceof FileNotWritableError && options.auditFile === undefined) {
        auditInMemory = error;
        await fileAudit.close();
        audit = memoryAuditLog({ clock });
      } else if (error instanceof FileLockedError || options.auditFile !== undefined) {
        // Held by another process, or the file the operator asked for cannot be opened: do not start.
        await repository.close();
        await fileAudit.close();
        throw options.auditFile === undefined ? error : explicitAuditFileError(error, options.configFile);
      }
    }
    if (unwritable !== undefined || auditInMemory !== undefined) {
      warnUnwritable(log, { configFile: options.configFile, auditFile, watch, unwritable, auditInMemory });
    }
  } else {
    // Before the client: a failure here leaves nothing to close.
    const file = await readRulesFile(options.configFile);
    const { Redis, Cluster } = await import("ioredis");
    const [spec] = redisClientSpecs(options.redis, "admin");
    const client = createRedisClient({ Redis, Cluster }, spec) as InstanceType<typeof Redis>;
    client.on("error", () => {
      // connection errors surface through the repository's onError and the admin routes' 503s
    });
    quitClient = async () => {
      try {
        if (client.status === "ready") await client.quit();
      } catch {
        // not connected after all: dropped below
      }
    };
    dropClient = () => client.disconnect();
    audit = redisAuditLog({ client, key: `${options.redisPrefix}:audit`, clock });
    if (file.envoy) {
      // The file is the rules' source of truth, Redis holds the counters and the audit stream (see the module comment).
      repository = fileConfigRepository({
        path: options.configFile,
        clock,
        watch: options.watch ?? true,
        onError,
        onRecovered,
        readOnly: { reason: ENVOY_FILE_READ_ONLY },
        ...envoyAlgorithm,
      });
      log.info(
        {
          configFile: options.configFile,
          audit: `${options.redisPrefix}:audit`,
          watch: options.watch ?? true,
        },
        `admin API: the rules come from the envoyproxy/ratelimit file ${options.configFile}` +
          `${(options.watch ?? true) ? ", reloaded on change" : ""}, read-only through the admin API; Redis holds ` +
          "the counters and the audit log",
      );
      // As in embedded mode, a failure to load (the file broken since the data plane read it) is left to the
      // server, which logs it and serves the rules the engine holds.
      await repository.load().catch(() => undefined);
      warnIfRedisConfigUnused(client, redisConfigKey(options.redisPrefix), options.configFile, log);
    } else {
      rulesFromFile = false;
      repository = redisConfigRepository({
        client,
        prefix: options.redisPrefix,
        ...(file.document === undefined ? {} : { seed: file.document }),
        clock,
        onError,
        onRecovered,
      });
      const check: FileCheck = {
        configFile: options.configFile,
        location: repository.location,
        key: redisConfigKey(options.redisPrefix),
        log,
      };
      // Set once the configuration in Redis is first loaded: before that, the first load's check covers any edit.
      let loaded = false;
      const redisRepository = repository;
      if (options.watch ?? true) {
        const edited = (): void => {
          if (!loaded) return;
          void redisRepository
            .load()
            .then((snapshot) => warnIfFileIgnored(check, snapshot, true))
            .catch(() => undefined); // closed meanwhile
        };
        // The watch's target is no engine: a version of the file that loads, or one that does not, is only compared.
        startFileWatch = () =>
          watchConfigFile(options.configFile, { updateConfig: edited, reportConfigError: edited });
      }
      try {
        // Redis may hold a newer configuration than the file: the engine starts from the shared one.
        const snapshot = await repository.load();
        engine.updateConfig(snapshot.config);
        loaded = true;
        await warnIfFileIgnored(check, snapshot, false);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) {
          // A document in Redis that does not load, or the engine refusing it: nothing to serve the admin API from.
          await repository.close();
          await audit.close();
          dropClient();
          throw error;
        }
        // Redis unreachable: serve anyway, as the data plane does. The repository stays unloaded (admin reads and
        // writes answer 503) and loads by itself once Redis answers; its first snapshot then reaches the watchers:
        // this one applies it to the engine (as above), the admin server's records it.
        log.warn(
          { configuration: repository.location, error: error.message },
          "admin API: the configuration in Redis is not reachable yet: serving the rules file meanwhile; admin reads and writes answer 503 until Redis answers",
        );
        const stopWaiting = repository.watch((snapshot) => {
          stopWaiting();
          log.info(
            { configuration: repository.location, version: snapshot.version },
            "admin API: the configuration in Redis is reachable: following it",
          );
          loaded = true;
          void warnIfFileIgnored(check, snapshot, false);
          if (snapshot.config === engine.config) return;
          try {
            engine.updateConfig(snapshot.config);
          } catch {
            // refused: the engine recorded and logged the error, and keeps the configuration in force
          }
        });
      }
    }
  }
  const tally = createDecisionTally({ clock });
  const server: FastifyInstance = createAdminServer({
    engine,
    repository,
    audit,
    tokens: options.tokens,
    clock,
    readAccess: options.readAccess,
    tally,
    log,
  });
  try {
    await server.listen({ host: options.host, port: options.port });
  } catch (error) {
    await server.close();
    await repository.close();
    await audit.close();
    dropClient();
    throw error;
  }
  const port = (server.server.address() as AddressInfo).port;
  const fileWatch = startFileWatch();
  if (options.tokens.names.length === 0) {
    log.warn(
      "admin API: no tokens configured (SLUICE_ADMIN_TOKENS or --admin-tokens-file): every write is refused",
    );
  }
  return {
    port,
    location: repository.location,
    watchesRulesFile: rulesFromFile && (options.watch ?? true),
    tally,
    async close(timeoutMs = ADMIN_CLOSE_TIMEOUT_MS): Promise<void> {
      fileWatch?.close();
      const clean = (async () => {
        await server.close();
        await repository.close();
        await audit.close();
        await quitClient();
      })();
      try {
        await within(clean, timeoutMs, "admin close");
      } catch (error) {
        // A step waits for a Redis that does not answer (a request's command, the repository's refresh, QUIT), or
        // for an admin request that does not end, or failed: cut the connections; the steps still waiting fail.
        log.warn(
          { error: error instanceof Error ? error.message : String(error) },
          "admin API: not closed cleanly, connections dropped",
        );
        server.server.closeAllConnections();
      } finally {
        dropClient();
      }
    },
  };
}

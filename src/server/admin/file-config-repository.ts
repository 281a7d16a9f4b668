/**
 * The embedded default {@link ConfigRepository}: the configuration file is the source of truth.
 *
 * Writes. `update` runs one edit at a time in this process (a promise chain), on a deep copy of the latest
 * document; it validates the whole result (`configFromValue`: a ConfigError naming each field) and only then
 * replaces the file atomically (`atomic-write.ts`: temp file in the same directory, fsync, rename, fsync of the
 * directory), so a crash mid-write leaves the old file or the new one, never a torn one. Before each edit the
 * file is read again: a hand edit made since the last read becomes a new version first, and a hand edit that
 * broke the file makes `update` refuse with that file's ConfigError rather than overwrite it.
 *
 * Hand edits racing a write. A hand edit can also land while the write is in flight, after that read: the new
 * text is written to a temp file and synced, then the file is read once more, right before the rename, and
 * compared with the text the edit started from. When it changed, nothing is renamed: the write starts over from
 * the file as it is now (the hand edit becomes a version first, the edit is applied on top of it), at most
 * {@link MAX_WRITE_ATTEMPTS} times; then `update` fails with `ERR_SLUICE_STORE_UNAVAILABLE` and writes nothing.
 * The window left is honest but small: `rename(2)` is no compare-and-swap, so a hand edit that lands between that
 * last read and the rename (one read of the file and a string compare, the temp file already synced) is still
 * replaced by the admin write. The file lock below cannot close it: editors do not take it.
 *
 * Format. A YAML file is rewritten as YAML by the `yaml` library, editing the previous text in place
 * (`yaml-rewrite.ts`): comments and styles around unchanged values survive; comments attached to changed or
 * removed values may be dropped. The file starts with a managed header comment,
 * `# sluice: written by the admin API, version N, <ISO time>`, above the file's own leading comment block (kept).
 * A `.json` file is rewritten as indented JSON, which has no comments, so it carries no header.
 *
 * Versions. A snapshot's version is the header's `version N` when the file has one (so it survives restarts),
 * 1 otherwise; each admin write adds 1; a hand edit that changes the document (seen by the watcher, or by the
 * next `update`) adds 1 too, or takes the header's number when that is higher. Edits of comments or layout only
 * change no version. A JSON file starts at version 1 on every load.
 *
 * Watching (`watch`, default true) reuses `engine/config-watcher.ts`: the directory and the file are watched, so
 * editors' and Kubernetes' atomic replacements are seen. The repository's own writes are recognised (same text)
 * and produce no second notification. A hand edit that does not load goes to `onError`; the last good snapshot
 * stays. When the watch starts, the file is read once more and compared with the text the current snapshot came
 * from, so a hand edit made between the first `load` and the start of the watch is not missed.
 *
 * Files in the envoyproxy/ratelimit format are read-only here: `load` returns their compiled rules (`config`, their
 * limits' algorithm `envoyAlgorithm`, as `sluice serve --envoy-algorithm` loads them), with a `document` holding no
 * rules since the file is not in the native format, and `update` throws `ERR_SLUICE_UNSUPPORTED` naming the file.
 *
 * A read-only repository (`readOnly`: the admin API in Redis mode on an envoyproxy/ratelimit file, which every
 * instance reads from its own copy, or in embedded mode on a file whose directory cannot be written) never writes: `update` throws `ERR_SLUICE_UNSUPPORTED` naming the file and the
 * reason given, whatever the file holds, before reading it. Loading and watching are as above. It takes no lock and
 * does not sweep the directory of dead writers' temp files: it writes nothing there (a ConfigMap volume is mounted
 * read-only), and any number of processes, on one host or in containers sharing a mount, may read one file.
 * Either way `readOnlyReason` is the message `update` would throw (`<file>: <why>`; for an envoyproxy/ratelimit
 * file, as of the last reading), undefined while the file takes writes.
 *
 * One writer per file: two processes editing one file through the API would lose each other's updates (each
 * re-reads, then renames its own text over the file), so it is enforced. The repository takes the file's
 * exclusive lock (`file-lock.ts`: `<file>.lock` naming its pid) before its first read, and keeps it until
 * `close`; a second repository on the same file, in this process or another, fails its `load` and `update` with
 * `ERR_SLUICE_FILE_LOCKED` naming the file and the holder's pid, and changes nothing. A lock left by a process
 * that died is taken over. Hand edits and other readers, read-only repositories included, are not affected (use
 * Redis mode for several instances).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Clock, systemClock } from "../../core/clock.js";
import { ConfigError, SluiceError, StoreUnavailableError } from "../../core/errors.js";
import type { AlgorithmId } from "../../core/limit-spec.js";
import { type ConfigWatcher, watchConfigFile } from "../../engine/config-watcher.js";
import {
  ConfigSource,
  deepFreeze,
  type NativeConfigInput,
  validateConfig,
} from "../../rules/config-schema.js";
import { isEnvoyConfig, parseEnvoyConfig } from "../../rules/envoy-config.js";
import { compileNativeConfig } from "../../rules/load-config.js";
import type { SluiceConfig } from "../../rules/rule.js";
import { removeStaleTempFiles, resolveTarget, writeFileAtomic } from "./atomic-write.js";
import {
  type ConfigEdit,
  type ConfigRepository,
  type ConfigSnapshot,
  canonicalJson,
  cloneDocument,
  Serializer,
  SnapshotListeners,
  snapshotOf,
  toJsonData,
  versioned,
} from "./config-repository.js";
import { acquireFileLock, type FileLock } from "./file-lock.js";
import { renderYaml } from "./yaml-rewrite.js";

/** Options of {@link fileConfigRepository}. */
export interface FileConfigRepositoryOptions {
  /** The configuration file (YAML, or JSON when it ends in `.json`). It must exist. */
  readonly path: string;
  /** Dates the header of each write. @default systemClock */
  readonly clock?: Clock;
  /** Watch the file for hand edits and report them as new snapshots. @default true */
  readonly watch?: boolean;
  /** Quiet time after the last file event before re-reading it, ms. @default 100 */
  readonly debounceMs?: number;
  /** Receives problems that have no caller to throw to: a hand edit that does not load, a listener that throws. */
  readonly onError?: (error: unknown) => void;
  /**
   * Called with the snapshot in force when the file loads again after a reading that did not (an invalid hand
   * edit reverted, or fixed by a change of comments only), whether or not the document changed: the error reported
   * to `onError` no longer holds.
   */
  readonly onRecovered?: (snapshot: ConfigSnapshot) => void;
  /** Algorithm of the limits of an envoyproxy/ratelimit file (`--envoy-algorithm`). @default fixed_window */
  readonly envoyAlgorithm?: AlgorithmId;
  /**
   * Never write the file, nor lock it (see the module comment): every `update` throws `ERR_SLUICE_UNSUPPORTED` with
   * `<file>: <reason>`. Undefined: the file is the admin API's to edit.
   */
  readonly readOnly?: { readonly reason: string };
}

/** Attempts of one `update` whose file keeps changing by hand while it writes (see the module comment). */
export const MAX_WRITE_ATTEMPTS = 8;

/** The first word of the managed header line; the line is `# sluice: written by the admin API, version N, <time>`. */
const HEADER_PREFIX = "sluice: written by the admin API";
/** The second managed header line. */
const HEADER_NOTE =
  "sluice: admin writes rewrite this file; comments beside values they change or remove may be lost";
const HEADER_VERSION = /^#\s*sluice: written by the admin API, version (\d+)\b/;

/** Why an envoyproxy/ratelimit file is not written (after `<file>: `), in `update`'s refusal and `readOnlyReason`. */
const ENVOY_FORMAT_READ_ONLY =
  "the file is in the envoyproxy/ratelimit format, which the admin API cannot edit; convert it to the native " +
  "format to manage it through the API";

/** The empty native document given to envoyproxy/ratelimit files (see the module comment). */
const NO_RULES: NativeConfigInput = deepFreeze({ version: 1, rules: [] });

/** One reading of the file. */
interface DiskState {
  readonly text: string;
  readonly document: NativeConfigInput;
  readonly config: SluiceConfig;
  readonly envoy: boolean;
  readonly headerVersion: number | undefined;
}

/** The version in the managed header of `text`'s leading comment block, if any. */
function headerVersion(text: string): number | undefined {
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!trimmed.startsWith("#")) return undefined;
    const m = HEADER_VERSION.exec(trimmed);
    if (m) return Number(m[1]);
  }
  return undefined;
}

class FileConfigRepository implements ConfigRepository {
  readonly location: string;
  private readonly file: string;
  private readonly json: boolean;
  private readonly clock: Clock;
  private readonly watchFile: boolean;
  private readonly debounceMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly onRecovered: (snapshot: ConfigSnapshot) => void;
  private readonly envoyAlgorithm: AlgorithmId | undefined;
  /** `readOnly.reason`: why every `update` is refused; undefined: the repository writes the file (module comment). */
  private readonly readOnly: string | undefined;
  private readonly serial = new Serializer();
  private readonly listeners: SnapshotListeners;
  private current: ConfigSnapshot | undefined;
  private envoy = false;
  /** The text of the file as last read or written: an equal text on disk means no one else changed it. */
  private lastText: string | undefined;
  /**
   * The last reading of the file did not load (its error went to the caller or `onError`); the next one that
   * loads calls `onRecovered`. `lastText` is not updated by a failed reading, so a revert to it can be recognised
   * only through this flag.
   */
  private refused = false;
  private watcher: ConfigWatcher | undefined;
  /** The file's exclusive lock, taken by the first `load` or `update` and held until `close`. */
  private lock: FileLock | undefined;
  private closed = false;

  constructor(options: FileConfigRepositoryOptions) {
    this.file = resolve(options.path);
    this.location = `file:${this.file}`;
    this.json = this.file.toLowerCase().endsWith(".json");
    this.clock = options.clock ?? systemClock;
    this.watchFile = options.watch ?? true;
    this.debounceMs = options.debounceMs ?? 100;
    this.onError = options.onError ?? (() => {});
    this.onRecovered = options.onRecovered ?? (() => {});
    this.envoyAlgorithm = options.envoyAlgorithm;
    this.readOnly = options.readOnly?.reason;
    this.listeners = new SnapshotListeners(this.onError);
  }

  async load(): Promise<ConfigSnapshot> {
    this.assertOpen();
    if (this.current !== undefined) return this.current;
    const snapshot = await this.serial.run(async () => {
      await this.takeLock();
      return this.current ?? this.sync();
    });
    this.startWatching();
    return snapshot;
  }

  update(edit: ConfigEdit): Promise<ConfigSnapshot> {
    const result = this.serial.run(async () => {
      this.assertOpen();
      if (this.readOnly !== undefined) {
        throw new SluiceError("ERR_SLUICE_UNSUPPORTED", `${this.file}: ${this.readOnly}`);
      }
      await this.takeLock();
      for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
        const current = await this.sync();
        if (this.envoy)
          throw new SluiceError("ERR_SLUICE_UNSUPPORTED", `${this.file}: ${ENVOY_FORMAT_READ_ONLY}`);
        const draft = cloneDocument(current.document);
        edit(draft, current);
        const document = toJsonData(draft, this.file);
        if (canonicalJson(document) === canonicalJson(current.document)) return current;
        const next = snapshotOf(current.version + 1, document, this.file);
        const text = this.render(next);
        // The text `current` came from, as `sync` just read it: the file must still hold it when the rename comes.
        const base = this.lastText;
        const written = await writeFileAtomic(await resolveTarget(this.file), text, {
          precondition: async () => (await readFile(this.file, "utf8").catch(() => undefined)) === base,
        });
        if (written) {
          this.lastText = text;
          this.adopt(next);
          return next;
        }
        // Changed by hand meanwhile: start over from the file as it is now (see the module comment).
      }
      throw new StoreUnavailableError(
        this.location,
        `gave up after ${MAX_WRITE_ATTEMPTS} attempts: the file kept changing by hand while the admin API wrote it; nothing was written`,
      );
    });
    void result.then(
      () => this.startWatching(),
      () => this.startWatching(),
    );
    return result;
  }

  /** The refusal every `update` would throw now, `<file>: <why>`; undefined while the file takes writes. */
  get readOnlyReason(): string | undefined {
    if (this.readOnly !== undefined) return `${this.file}: ${this.readOnly}`;
    return this.envoy ? `${this.file}: ${ENVOY_FORMAT_READ_ONLY}` : undefined;
  }

  watch(listener: (snapshot: ConfigSnapshot) => void): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    await this.serial.idle();
    await this.lock?.release();
    this.lock = undefined;
    this.listeners.clear();
  }

  /** Takes the file's lock unless held or read-only (see the module comment); runs inside the serializer. */
  private async takeLock(): Promise<void> {
    if (this.lock !== undefined || this.readOnly !== undefined) return;
    this.lock = await acquireFileLock(await resolveTarget(this.file), "edit it through the admin API");
  }

  private assertOpen(): void {
    if (this.closed)
      throw new SluiceError("ERR_SLUICE_STORE_CLOSED", `${this.location}: the repository is closed`);
  }

  private startWatching(): void {
    if (!this.watchFile || this.watcher !== undefined || this.closed || this.current === undefined) return;
    this.watcher = watchConfigFile(
      this.file,
      {
        updateConfig: () => {},
        reportConfigError: (error) => this.onError(error),
      },
      {
        debounceMs: this.debounceMs,
        load: async () => (await this.serial.run(() => (this.closed ? this.latest() : this.sync()))).config,
      },
    );
    // A hand edit made between the reading that gave the current snapshot and this watch raised no event the watch
    // can see, and the watch takes the file as it is now for the version held: compare the file with the text last
    // read or written (the identity of what was loaded) once, now. Unchanged, this costs one read.
    void this.serial
      .run(() => (this.closed ? this.latest() : this.sync()))
      .catch((error: unknown) => this.onError(error));
  }

  private latest(): ConfigSnapshot {
    return this.current as ConfigSnapshot;
  }

  /**
   * Reads the file; when its text differs from the last one read or written, and its document too, makes it the
   * next version and notifies watchers. Runs inside the serializer. Throws the file's ConfigError when it does
   * not load (the current snapshot stays); the first reading that loads after such a failure calls `onRecovered`
   * (after the listeners, when the document changed).
   */
  private async sync(): Promise<ConfigSnapshot> {
    let snapshot: ConfigSnapshot;
    try {
      snapshot = await this.read();
    } catch (error) {
      this.refused = true;
      throw error;
    }
    if (this.refused) {
      this.refused = false;
      try {
        this.onRecovered(snapshot);
      } catch (error) {
        this.onError(error);
      }
    }
    return snapshot;
  }

  /** {@link sync} without the recovery bookkeeping. */
  private async read(): Promise<ConfigSnapshot> {
    // First read: temp files of a writer that died mid-write are removed (they are never read either way); a
    // read-only repository leaves the directory alone.
    if (this.current === undefined && this.readOnly === undefined)
      await removeStaleTempFiles(await resolveTarget(this.file));
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [{ path: "", message: `cannot read the file (${(error as Error).message})` }],
        this.file,
      );
    }
    const current = this.current;
    if (current !== undefined && text === this.lastText) return current;
    const disk = this.parse(text);
    this.lastText = text;
    this.envoy = disk.envoy;
    if (
      current !== undefined &&
      canonicalJson(disk.document) === canonicalJson(current.document) &&
      !disk.envoy
    ) {
      return current; // comments or layout only
    }
    const version =
      current === undefined
        ? (disk.headerVersion ?? 1)
        : Math.max(disk.headerVersion ?? 0, current.version + 1);
    const snapshot: ConfigSnapshot = Object.freeze({
      version,
      document: deepFreeze(disk.document),
      config: versioned(disk.config, version),
    });
    this.adopt(snapshot);
    return snapshot;
  }

  /** Parses a text of the file: the native format (validated with lines) or envoyproxy/ratelimit's. */
  private parse(text: string): DiskState {
    const format = this.json ? "json" : "yaml";
    const source = ConfigSource.parse(text, { format, source: this.file });
    const version = this.json ? undefined : headerVersion(text);
    if (isEnvoyConfig(source.value)) {
      const config = parseEnvoyConfig(text, {
        source: this.file,
        format,
        ...(this.envoyAlgorithm === undefined ? {} : { algorithm: this.envoyAlgorithm }),
      });
      return { text, document: NO_RULES, config, envoy: true, headerVersion: version };
    }
    const result = validateConfig(source.value);
    if (!result.success) throw source.error(result.issues);
    return {
      text,
      document: toJsonData(source.value as NativeConfigInput, this.file),
      config: compileNativeConfig(result.data, this.file),
      envoy: false,
      headerVersion: version,
    };
  }

  /** The file text of `snapshot`: the previous text edited in place (YAML), or indented JSON. */
  private render(snapshot: ConfigSnapshot): string {
    if (this.json) return `${JSON.stringify(snapshot.document, null, 2)}\n`;
    const at = new Date(this.clock.nowMs()).toISOString();
    return renderYaml(snapshot.document, {
      previous: this.lastText,
      header: [`${HEADER_PREFIX}, version ${snapshot.version}, ${at}`, HEADER_NOTE],
      managedPrefixes: [HEADER_PREFIX, "sluice: admin writes rewrite this file"],
    });
  }

  private adopt(snapshot: ConfigSnapshot): void {
    const previous = this.current;
    this.current = snapshot;
    if (previous !== undefined) this.listeners.emit(snapshot);
  }
}

/**
 * The embedded default configuration repository: `path` is the source of truth, rewritten atomically on every
 * admin write (see the module comment).
 */
export function fileConfigRepository(options: FileConfigRepositoryOptions): ConfigRepository {
  return new FileConfigRepository(options);
}

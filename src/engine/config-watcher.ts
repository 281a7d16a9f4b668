/**
 * Hot reload from a file: watch a configuration file and apply each valid change to an engine, keeping the
 * old configuration (and reporting why) when a change is invalid.
 *
 * What is watched, so that every common way of replacing a file is seen:
 * - the file's **directory** (changes to the file, renames into its name — the atomic write-rename of editors
 *   and of Sluice's own admin writes — and Kubernetes ConfigMap volumes, which swap a `..data` symlink);
 * - the **file itself** (following a symlink to a file elsewhere); after a rename or deletion that watch points
 *   at a dead inode, so it is re-armed on the path after each reload.
 * Events are debounced (`debounceMs`); a reload whose file has the same inode, size and times
 * (`configFileSignature`, load-config.ts) as the version the engine holds is skipped, so unrelated events in the
 * directory cost one `stat`. Reloads never overlap: changes arriving during one are picked up by one more reload after it.
 *
 * The version the engine holds is the one *loaded*, identified by its signature taken before the read: at the start,
 * that of the engine's configuration when `loadConfigFile` read it from this file (`SluiceConfig.sourceSignature`),
 * else the file's at the start (nothing better is known); then that of each version loaded. A change made between
 * the caller's load and the start of the watch raised no event the watch could see: it differs from the recorded
 * signature, so it is loaded at once.
 *
 * A file that cannot be read or parsed goes to `engine.reportConfigError` (status `lastError`, `configError`
 * event); a parsed configuration the engine refuses is reported by `engine.updateConfig` itself. Either way the
 * engine keeps enforcing the last good configuration. A version that failed to load is not recorded as loaded, so
 * the next event loads it again, and it is retried on its own after `max(debounceMs, 100)` ms, doubling up to
 * {@link RETRY_MAX_DELAY_MS}, at most {@link MAX_RETRIES} times: a transient failure (EMFILE, EACCES while a file is
 * swapped) otherwise left the old configuration and the error in place until the file changed again. Retrying stops
 * when a load succeeds or the file is back to the version held. A retry failing with the message already reported
 * for that version is not reported again. A configuration the engine refuses is recorded as loaded and not retried:
 * the same text gives the same answer.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { loadConfigFile, configFileSignature as signature } from "../rules/load-config.js";
import type { SluiceConfig } from "../rules/rule.js";
import type { Engine } from "./engine.js";

/** Options of {@link watchConfigFile}. */
export interface WatchConfigOptions {
  /** Quiet time after the last event before reloading, ms. @default 100 */
  readonly debounceMs?: number;
  /** Reads and parses the file. @default loadConfigFile */
  readonly load?: (path: string) => SluiceConfig | Promise<SluiceConfig>;
}

/**
 * What a watch applies changes to: an {@link Engine}, or anything with its two configuration methods; `config`, when
 * given, tells which version of the file it holds (see the module comment).
 */
export type ConfigTarget = Pick<Engine, "updateConfig" | "reportConfigError"> & {
  readonly config?: SluiceConfig;
};

/** Most retries of one version of the file that failed to load (see the module comment). */
export const MAX_RETRIES = 10;
/** Longest wait between two retries, ms. */
export const RETRY_MAX_DELAY_MS = 30_000;

/** A running file watch. */
export interface ConfigWatcher {
  /** Stops watching (a reload in progress finishes but applies nothing). */
  close(): void;
}

/** Watches `path` and applies each valid change to `engine`; see the module comment. */
export function watchConfigFile(
  path: string,
  engine: ConfigTarget,
  options: WatchConfigOptions = {},
): ConfigWatcher {
  const file = resolve(path);
  const dir = dirname(file);
  const name = basename(file);
  const debounceMs = options.debounceMs ?? 100;
  const load = options.load ?? ((p: string) => loadConfigFile(p));
  const held = engine.config;
  // The signature of the version the engine holds (see the module comment).
  let last =
    held?.sourceSignature !== undefined && held.source !== undefined && resolve(held.source) === file
      ? held.sourceSignature
      : signature(file);
  // The version whose loads failed, how many retries it had, and the message last reported for it.
  let failed: string | undefined;
  let retries = 0;
  let reported: string | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let loading = false;
  let again = false;
  let fileWatcher: FSWatcher | undefined;

  const schedule = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, debounceMs);
    timer.unref();
  };

  /** Loads the failed version again after a backoff, unless its retries are spent or a reload is already due. */
  const scheduleRetry = (): void => {
    if (closed || retries >= MAX_RETRIES || timer !== undefined) return;
    const delay = Math.min(Math.max(debounceMs, 100) * 2 ** retries, RETRY_MAX_DELAY_MS);
    retries++;
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, delay);
    timer.unref();
  };

  const armFile = (): void => {
    fileWatcher?.close();
    fileWatcher = undefined;
    if (closed) return;
    try {
      fileWatcher = watch(file, { persistent: false }, (event) => {
        if (event === "rename") {
          fileWatcher?.close(); // the inode is gone or replaced: re-armed after the reload
          fileWatcher = undefined;
        }
        schedule();
      });
      fileWatcher.on("error", () => {
        fileWatcher?.close();
        fileWatcher = undefined;
        schedule();
      });
    } catch {
      // the file does not exist (yet): the directory watch sees it appear
    }
  };

  const reload = async (): Promise<void> => {
    if (closed) return;
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    let retry = false;
    try {
      const now = signature(file);
      if (fileWatcher === undefined) armFile();
      if (now === last || now !== failed) {
        // Back to the version held (nothing to retry), or another version: it gets retries of its own.
        failed = undefined;
        retries = 0;
        reported = undefined;
      }
      if (now === last) return;
      let config: SluiceConfig;
      try {
        config = await load(file);
      } catch (error) {
        if (closed) return;
        // Not recorded as loaded: the next event, or the retry, loads this version again.
        failed = now;
        retry = true;
        const message = error instanceof Error ? error.message : String(error);
        if (message !== reported) {
          reported = message;
          engine.reportConfigError(error, file);
        }
        return;
      }
      last = now;
      failed = undefined;
      retries = 0;
      reported = undefined;
      if (closed) return;
      try {
        engine.updateConfig(config);
      } catch {
        // refused: the engine recorded and emitted the error, and keeps the old configuration
      }
    } finally {
      loading = false;
      if (again && !closed) {
        again = false;
        schedule();
      } else if (retry) scheduleRetry();
    }
  };

  const dirWatcher = watch(dir, { persistent: false }, (_event, filename) => {
    if (filename === null || filename === name || String(filename).startsWith("..")) schedule();
  });
  dirWatcher.on("error", () => {
    // the directory went away: nothing more can be seen; the engine keeps its configuration
  });
  armFile();
  // A change made before the watch started (after the engine's configuration was read) raised no event seen here.
  if (signature(file) !== last) schedule();

  return {
    close(): void {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      fileWatcher?.close();
      dirWatcher.close();
    },
  };
}

/**
 * Crash-safe file replacement for the admin layer's files (the config file, the audit log's compaction).
 *
 * {@link writeFileAtomic} writes a temp file in the target's directory, `fsync`s it, renames it over the target
 * and `fsync`s the directory. `rename(2)` within one file system is atomic, so a crash at any moment (SIGKILL,
 * power loss after the fsyncs) leaves the old file or the new one, never a mix; the directory fsync makes the
 * rename itself durable. A crash before the rename can leave the temp file behind: it is named
 * `.<name>.<pid>.<random>.sluice-tmp`, never read by loaders (they read the target path only), and removed by
 * {@link removeStaleTempFiles} once its writer is gone.
 *
 * A `precondition` is checked after the temp file is written and synced, right before the rename: when it does
 * not hold, nothing is renamed. It narrows, but cannot close, the window for a change of the target by someone
 * else: `rename(2)` is no compare-and-swap, so a change landing between the check and the rename is replaced.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, open, readdir, realpath, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The suffix of every temp file {@link writeFileAtomic} creates. */
export const TEMP_SUFFIX = ".sluice-tmp";

/** Temp files this process is writing right now (never removed as stale). */
const inFlight = new Set<string>();

/** The path a symlinked target resolves to (so a rename replaces the file, not the link); `path` itself when it does not exist. */
export async function resolveTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** Permission bits of a new file (an existing file's are kept). @default 0o644 less the umask */
  readonly mode?: number;
  /**
   * Checked right before the rename (see the module comment); false: the temp file is removed, the target is left
   * as it is and `writeFileAtomic` resolves false.
   */
  readonly precondition?: () => Promise<boolean>;
}

/**
 * Replaces `path` with `data` atomically and durably (see the module comment). `data` may be a function that
 * writes the content to the temp file's handle (to stream a large file). The new file keeps the old one's
 * permission bits (`mode` when it did not exist, default 0o644 less the umask). On failure the temp file is
 * removed and the target is untouched. Resolves true when written, false when the `precondition` did not hold.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | ((handle: FileHandle) => Promise<void>),
  options: WriteFileAtomicOptions = {},
): Promise<boolean> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`);
  let mode = options.mode;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    // a new file
  }
  inFlight.add(tmp);
  try {
    const handle = await open(tmp, "wx", options.mode ?? 0o644);
    try {
      if (mode !== undefined) await handle.chmod(mode);
      if (typeof data === "function") await data(handle);
      else await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.precondition !== undefined && !(await options.precondition())) {
      await rm(tmp, { force: true });
      return false;
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  } finally {
    inFlight.delete(tmp);
  }
  await syncDirectory(dir);
  return true;
}

/** `fsync`s a directory so a rename in it is durable; a no-op where directories cannot be synced (Windows). */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
  } finally {
    await handle?.close();
  }
}

/** Whether process `pid` exists (EPERM: it exists but belongs to someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes temp files of `path` left by writers that died mid-write (their pid is gone, or is this process but
 * the file is not one of its writes in flight); returns the removed paths. Temp files of live writers stay.
 */
export async function removeStaleTempFiles(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
    const pid = Number(name.slice(prefix.length).split(".")[0]);
    // Not a pid: the temp file of another target whose name extends this one's (`.rules.yaml.lock.<pid>…`).
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const full = join(dir, name);
    if (inFlight.has(full)) continue;
    if (pid !== process.pid && isAlive(pid)) continue;
    await rm(full, { force: true });
    removed.push(full);
  }
  return removed;
}

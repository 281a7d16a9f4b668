/**
 * One writer per file: an exclusive lock held by a process for as long as it writes a file that has no other
 * coordination (the admin API's rules file and audit log in embedded mode).
 *
 * Model: the lock is the sibling file `<file>.lock` holding `{"pid","host","nonce"}` of its holder. It is
 * created complete and atomically: the content is written to a temp file, which is then `link(2)`ed to the lock
 * path (fails with `EEXIST` when a lock exists), so a lock file is never seen empty or half written. It is
 * removed by {@link FileLock.release}, or at process exit when the holder forgot to release it.
 *
 * Invariants:
 * - while a holder lives, no other process (nor another lock in the same process) acquires the lock: the second
 *   one gets a {@link FileLockedError} naming the file, the holder's pid and host, and the lock file;
 * - a lock whose holder is gone (same host, its pid no longer exists: a SIGKILL, a crash) is taken over. The
 *   stale lock is renamed aside first (of several processes racing to take it over, one rename succeeds), checked
 *   to be the dead holder's (by nonce), removed, and the lock created afresh; a lock of another host is never
 *   taken over, since its pid cannot be checked there;
 * - a holder only ever removes its own lock (checked by nonce), so a taken-over lock is not removed by the late
 *   release of the process it was taken from.
 * A pid reused by an unrelated process makes a stale lock look held: the error says to delete the lock file then.
 *
 * A directory this process cannot create files in (the lock's temp file refused with EROFS, EACCES or EPERM: a
 * read-only mount such as a Kubernetes ConfigMap, or another user's directory) throws {@link FileNotWritableError}
 * naming the file, the directory and the system error, so a caller can tell "no one may write here" from a lock
 * held by someone else; nothing is created.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, readFile, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { FileLockedError, FileNotWritableError, NOT_WRITABLE_CAUSES } from "../../core/errors.js";
import { removeStaleTempFiles, TEMP_SUFFIX } from "./atomic-write.js";

/** A held lock; see the module comment. */
export interface FileLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file when it is still this holder's; idempotent. */
  release(): Promise<void>;
}

/** The content of a lock file. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly nonce: string;
}

/** Attempts to create the lock before giving up (each lost race against another taker costs one). */
const ATTEMPTS = 5;

function parseHolder(text: string): Holder | undefined {
  try {
    const v = JSON.parse(text) as Partial<Holder>;
    if (!Number.isInteger(v.pid) || typeof v.host !== "string" || typeof v.nonce !== "string")
      return undefined;
    return v as Holder;
  } catch {
    return undefined;
  }
}

async function readHolder(path: string): Promise<Holder | undefined | "absent"> {
  try {
    return parseHolder(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
}

/** Whether process `pid` exists on this host (EPERM: it exists, owned by another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the exclusive lock of `file` (see the module comment); throws {@link FileLockedError} when another live
 * process (or another lock in this one) holds it, {@link FileNotWritableError} when the directory cannot be
 * written. `use` completes the errors' "one process at a time may …" and "cannot take its lock … to …".
 */
export async function acquireFileLock(file: string, use: string): Promise<FileLock> {
  const path = `${file}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString("hex") };
  const text = `${JSON.stringify(me)}\n`;
  // Temp and aside files are named as atomic-write's temp files of the lock path: a dead process's are swept.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${me.nonce}${TEMP_SUFFIX}`);
  const aside = join(dirname(path), `.${basename(path)}.${process.pid}.${me.nonce}.stale${TEMP_SUFFIX}`);
  await removeStaleTempFiles(path);
  try {
    await writeFile(temp, text, { flag: "wx" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && Object.hasOwn(NOT_WRITABLE_CAUSES, code)) {
      throw new FileNotWritableError(
        file,
        dirname(path),
        code,
        `cannot take its lock ${path} to ${use}`,
        error,
      );
    }
    throw error;
  }
  let last: Holder | undefined;
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        await link(temp, path);
        return held(path, me);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readHolder(path);
      if (holder === "absent") continue; // released meanwhile
      last = holder;
      // A lock of unreadable content was not made by this module: treated as stale, like a dead holder's.
      if (holder !== undefined && (holder.host !== me.host || alive(holder.pid))) {
        throw new FileLockedError(file, path, holder.pid, holder.host, use);
      }
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // another taker was first
        throw error;
      }
      const moved = await readHolder(aside);
      if (moved !== "absent" && moved?.nonce !== holder?.nonce) {
        // Between the read and the rename another process took the lock over: give it back.
        await link(aside, path).catch(() => undefined);
      }
      await rm(aside, { force: true });
    }
  } finally {
    await rm(temp, { force: true });
  }
  throw new FileLockedError(file, path, last?.pid ?? 0, last?.host ?? "an unknown host", use);
}

function held(path: string, me: Holder): FileLock {
  let released = false;
  const ours = (text: string): boolean => parseHolder(text)?.nonce === me.nonce;
  // A holder that exits without releasing (process.exit, an uncaught error) still removes its lock.
  const onExit = (): void => {
    try {
      if (ours(readFileSync(path, "utf8"))) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.once("exit", onExit);
  return {
    path,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      process.off("exit", onExit);
      try {
        if (ours(await readFile(path, "utf8"))) await rm(path, { force: true });
      } catch {
        // already gone
      }
    },
  };
}

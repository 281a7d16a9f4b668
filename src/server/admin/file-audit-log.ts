/**
 * The embedded default {@link AuditLog}: a JSON-lines file, one entry per line, appended and `fdatasync`ed before
 * `append` resolves.
 *
 * Ids: `<ms, 15 digits>-<sequence, 6 digits>` (e.g. `001714564800000-000003`), so they sort as strings and by
 * time; the millisecond part never goes backwards (a clock stepping back reuses the last one with the next
 * sequence), and the last id is read back from the file at start, so ids stay unique across restarts.
 *
 * Bounds: entries older than `retentionMs` are never listed, and at most `maxEntries` are kept. The file is
 * compacted (the entries to keep copied to a temp file, fsynced, renamed over it: crash-safe, see
 * `atomic-write.ts`) when the entries to drop — too old or beyond the count — reach a margin of a tenth of
 * `maxEntries` (at least 1), checked at start and after every append; so the file never holds more than
 * `maxEntries` plus the margin entries, plus expired ones that no append has come to drop yet.
 *
 * Memory: an index of (id, time, offset, length) per entry; `list` reads only the lines of the page asked for.
 * A crash mid-append can leave a torn last line: it is cut off at the next start. Lines that are not entries
 * (edited by hand) are skipped. The file may still change behind this process's back (a hand edit, a process
 * that ignored the lock): `list` re-indexes it when its size is not the one last written, and once more when a
 * line it reads is not the entry the index expects there; a line still unreadable then is left out of the page,
 * so `list` never fails on the file's content. `append` writes at the file's real end, on a line of its own.
 *
 * One writer per file, enforced: the log takes the file's exclusive lock (`file-lock.ts`: `<file>.lock` naming
 * its pid) when it opens the file and holds it until `close`; another log on the same file, in this process or
 * another, fails to open with `ERR_SLUICE_FILE_LOCKED` naming the file and the holder's pid (use Redis mode for
 * several instances). A lock left by a process that died is taken over.
 *
 * Opening fails with a typed error naming the file: `ERR_SLUICE_FILE_NOT_WRITABLE` when its directory, or the
 * nearest existing parent of a missing one, refuses to create files (EROFS, EACCES, EPERM; it names that
 * directory), `ERR_SLUICE_STORE_UNAVAILABLE` for any other failure (a path through a regular file, a file this
 * process may not open). A failed open is tried again by the next `append`, `list` or `open`.
 */
import { type FileHandle, mkdir, open, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Clock, systemClock } from "../../core/clock.js";
import {
  FileNotWritableError,
  InvalidArgumentError,
  NOT_WRITABLE_CAUSES,
  SluiceError,
  StoreUnavailableError,
} from "../../core/errors.js";
import { removeStaleTempFiles, writeFileAtomic } from "./atomic-write.js";
import {
  AUDIT_ID,
  AUDIT_MAX_ENTRIES,
  AUDIT_MAX_SEQ,
  AUDIT_RETENTION_MS,
  type AuditEntry,
  type AuditListOptions,
  type AuditLog,
  type AuditPage,
  auditFields,
  formatAuditId,
  pageLimit,
  positiveOption,
} from "./audit-log.js";
import { Serializer } from "./config-repository.js";
import { acquireFileLock, type FileLock } from "./file-lock.js";

/** Options of {@link fileAuditLog}. */
export interface FileAuditLogOptions {
  /** The JSON-lines file; created (with its directory) when missing. */
  readonly path: string;
  /** Entries older than this are dropped, ms. @default 90 days */
  readonly retentionMs?: number;
  /** Most entries kept (the oldest go first). @default 100000 */
  readonly maxEntries?: number;
  /** Stamps entries. @default systemClock */
  readonly clock?: Clock;
}

/** The embedded audit log: an {@link AuditLog} whose file can be opened ahead of its first use. */
export interface FileAuditLog extends AuditLog {
  /** Opens the file now (taking its lock, indexing it); otherwise the first `append` or `list` does. */
  open(): Promise<void>;
}

/** Where one entry is in the file. */
interface Slot {
  readonly id: string;
  readonly atMs: number;
  offset: number;
  readonly length: number;
}

const CHUNK = 1 << 20;

class JsonLinesAuditLog implements FileAuditLog {
  private readonly path: string;
  private readonly retentionMs: number;
  private readonly maxEntries: number;
  private readonly margin: number;
  private readonly clock: Clock;
  private readonly serial = new Serializer();
  private handle: FileHandle | undefined;
  private slots: Slot[] = [];
  private size = 0;
  private lastMs = -1;
  private lastSeq = 0;
  private opened: Promise<void> | undefined;
  /** The file's exclusive lock, taken when the file is first opened and held until `close`. */
  private lock: FileLock | undefined;
  /** The file changed behind this process's back since it was indexed: re-index before the next list. */
  private stale = false;
  private closed = false;

  constructor(options: FileAuditLogOptions) {
    this.path = resolve(options.path);
    this.retentionMs = positiveOption("retentionMs", options.retentionMs, AUDIT_RETENTION_MS);
    this.maxEntries = positiveOption("maxEntries", options.maxEntries, AUDIT_MAX_ENTRIES);
    this.margin = Math.max(1, Math.floor(this.maxEntries / 10));
    this.clock = options.clock ?? systemClock;
  }

  async append(entry: Omit<AuditEntry, "id" | "atMs">): Promise<AuditEntry> {
    const fields = auditFields(entry);
    return this.serial.run(async () => {
      const handle = await this.handleOf();
      const atMs = this.clock.nowMs();
      const id = this.nextId(atMs);
      const stored: AuditEntry = Object.freeze({ id, atMs, ...fields });
      const line = Buffer.from(`${JSON.stringify(stored)}\n`, "utf8");
      // The file normally ends where this process last wrote; when it does not (changed behind its back), the
      // entry goes at the real end, on a line of its own.
      const end = (await handle.stat()).size;
      const last = Buffer.alloc(1);
      if (end > 0) await handle.read(last, 0, 1, end - 1);
      const lead = end > 0 && last[0] !== 10 ? 1 : 0;
      const bytes = lead === 0 ? line : Buffer.concat([Buffer.from("\n"), line]);
      try {
        await handle.write(bytes, 0, bytes.length);
        await handle.datasync();
      } catch (error) {
        await handle.truncate(end).catch(() => undefined); // never leave a partial line to merge with the next
        throw error;
      }
      if (end !== this.size) this.stale = true; // what was written meanwhile is indexed by the next list
      this.slots.push({ id, atMs, offset: end + lead, length: line.length });
      this.size = end + bytes.length;
      // The entry is stored: a compaction that fails (a full disk) is tried again after the next append.
      await this.compactIfDue().catch(() => undefined);
      return stored;
    });
  }

  async list(options: AuditListOptions = {}): Promise<AuditPage> {
    const limit = pageLimit(options.limit);
    const cursor = options.cursor;
    if (cursor !== undefined && !AUDIT_ID.test(cursor)) {
      throw new InvalidArgumentError(
        `cursor: must be the "next" of a previous page, got ${JSON.stringify(cursor)}`,
      );
    }
    return this.serial.run(async () => {
      let handle = await this.handleOf();
      // Appended to or cut behind this process's back: index it again (leaving an unterminated last line alone).
      if (this.stale || (await handle.stat()).size !== this.size) await this.index(handle, false);
      for (let pass = 0; ; pass++) {
        const cutoffMs = this.clock.nowMs() - this.retentionMs;
        let i = cursor === undefined ? this.slots.length : this.lowerBound(cursor);
        const picked: Slot[] = [];
        while (--i >= 0 && picked.length < limit) {
          if (this.slots[i].atMs >= cutoffMs) picked.push(this.slots[i]);
        }
        let more = false;
        for (; i >= 0; i--) {
          if (this.slots[i].atMs >= cutoffMs) {
            more = true;
            break;
          }
        }
        const read = await this.readSlots(handle, picked);
        if (read.includes(undefined) && pass === 0) {
          // The file is not what the index says: index it again (leaving any unterminated last line alone).
          await this.index(handle, false);
          handle = await this.handleOf();
          continue;
        }
        const entries = read.filter((e): e is AuditEntry => e !== undefined);
        return more && entries.length > 0 ? { entries, next: entries[entries.length - 1].id } : { entries };
      }
    });
  }

  open(): Promise<void> {
    return this.handleOf().then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.serial.idle();
    await this.opened?.catch(() => undefined);
    await this.handle?.close();
    this.handle = undefined;
    await this.lock?.release();
    this.lock = undefined;
  }

  /** The index of the first slot whose id is >= `id`. */
  private lowerBound(id: string): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slots[mid].id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private nextId(atMs: number): string {
    let ms = Math.max(Math.floor(atMs), this.lastMs);
    let seq = ms === this.lastMs ? this.lastSeq + 1 : 0;
    if (seq > AUDIT_MAX_SEQ) {
      ms += 1;
      seq = 0;
    }
    this.lastMs = ms;
    this.lastSeq = seq;
    return formatAuditId(ms, seq);
  }

  /**
   * Reads `slots` (newest first) from the file in one read of the range they span; undefined for a slot whose
   * line is not the entry it indexes (see the module comment).
   */
  private async readSlots(handle: FileHandle, slots: readonly Slot[]): Promise<(AuditEntry | undefined)[]> {
    if (slots.length === 0) return [];
    const start = slots[slots.length - 1].offset;
    const end = slots[0].offset + slots[0].length;
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return slots.map((s) => {
      if (s.offset - start + s.length > bytesRead) return undefined;
      try {
        const v = JSON.parse(
          buffer.toString("utf8", s.offset - start, s.offset - start + s.length),
        ) as AuditEntry;
        return v !== null && typeof v === "object" && v.id === s.id ? Object.freeze(v) : undefined;
      } catch {
        return undefined;
      }
    });
  }

  /** Opens the file and builds the index, once. */
  private handleOf(): Promise<FileHandle> {
    if (this.closed) {
      return Promise.reject(
        new SluiceError("ERR_SLUICE_STORE_CLOSED", `${this.path}: the audit log is closed`),
      );
    }
    if (this.opened === undefined) {
      const opening = this.load();
      this.opened = opening;
      // A failed open (the file locked by another process, a permission) is tried again by the next call.
      opening.catch(() => {
        if (this.opened === opening) this.opened = undefined;
      });
    }
    return this.opened.then(() => this.handle as FileHandle);
  }

  /** Opens the file (see the module comment for its errors). */
  private async load(): Promise<void> {
    try {
      await createDirectory(this.path, dirname(this.path));
      this.lock ??= await acquireFileLock(this.path, "append to this audit log");
      await removeStaleTempFiles(this.path);
      const handle = await open(this.path, "a+");
      this.handle = handle;
      await this.index(handle, true);
      await this.compactIfDue();
    } catch (error) {
      if (error instanceof SluiceError) throw error;
      throw new StoreUnavailableError(
        this.path,
        `cannot open the audit log: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
  }

  /** Scans the file: indexes every entry line; with `cut`, cuts off a torn last line. */
  private async index(handle: FileHandle, cut: boolean): Promise<void> {
    const slots: Slot[] = [];
    const buffer = Buffer.alloc(CHUNK);
    let pending: Buffer = Buffer.alloc(0);
    let position = 0;
    let lineStart = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let data = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
      let nl = data.indexOf(10);
      while (nl !== -1) {
        const line = data.subarray(0, nl + 1);
        const slot = this.parseSlot(line, lineStart);
        if (slot !== undefined) slots.push(slot);
        lineStart += line.length;
        data = data.subarray(nl + 1);
        nl = data.indexOf(10);
      }
      pending = Buffer.from(data);
    }
    if (pending.length > 0 && cut) await handle.truncate(lineStart); // a torn last line (crash mid-append)
    this.size = cut ? lineStart : position;
    this.stale = false;
    let sorted = true;
    for (let i = 1; i < slots.length && sorted; i++) sorted = slots[i - 1].id < slots[i].id;
    if (!sorted) slots.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.slots = slots;
    const last = slots.at(-1);
    if (last !== undefined) {
      const m = AUDIT_ID.exec(last.id) as RegExpExecArray;
      this.lastMs = Number(m[1]);
      this.lastSeq = Number(m[2]);
    }
  }

  private parseSlot(line: Buffer, offset: number): Slot | undefined {
    try {
      const v = JSON.parse(line.toString("utf8")) as Partial<AuditEntry>;
      if (typeof v.id !== "string" || !AUDIT_ID.test(v.id) || typeof v.atMs !== "number") return undefined;
      return { id: v.id, atMs: v.atMs, offset, length: line.length };
    } catch {
      return undefined;
    }
  }

  /** Compacts when the entries to drop (expired, or beyond `maxEntries`) reach the margin. */
  private async compactIfDue(): Promise<void> {
    const cutoffMs = this.clock.nowMs() - this.retentionMs;
    let drop = Math.max(0, this.slots.length - this.maxEntries);
    while (drop < this.slots.length && this.slots[drop].atMs < cutoffMs) drop++;
    if (drop < this.margin || drop === 0) return;
    const old = this.handle as FileHandle;
    const kept = this.slots.slice(drop);
    const base = kept.length > 0 ? kept[0].offset : this.size;
    await writeFileAtomic(this.path, async (target) => {
      const buffer = Buffer.alloc(CHUNK);
      for (let position = base; position < this.size; ) {
        const { bytesRead } = await old.read(buffer, 0, Math.min(CHUNK, this.size - position), position);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead);
        position += bytesRead;
      }
    });
    // The file is replaced: the old handle points at the unlinked one. Any failure from here re-indexes on next use.
    this.handle = undefined;
    this.opened = undefined;
    await old.close().catch(() => undefined);
    const handle = await open(this.path, "a+");
    for (const slot of kept) slot.offset -= base;
    this.slots = kept;
    this.size -= base;
    this.handle = handle;
    this.opened = Promise.resolve();
  }
}

/**
 * Creates `dir` and its missing parents, as `mkdir -p` does, for the audit log `file`. A directory that refuses to
 * create one (EROFS, EACCES, EPERM) throws {@link FileNotWritableError} naming it (Node's recursive `mkdir` reports
 * that as ENOENT on the missing directory, naming neither); `dir` existing as something else than a directory throws
 * an error saying so. Other failures are thrown as they are.
 */
async function createDirectory(file: string, dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") {
        if ((await stat(dir)).isDirectory()) return;
        throw new Error(`${dir} exists and is not a directory`);
      }
      // Its parent is missing: create it, then this one (once: a parent removed meanwhile fails the second try).
      if (code === "ENOENT" && attempt === 0 && dirname(dir) !== dir) {
        await createDirectory(file, dirname(dir));
        continue;
      }
      if (code !== undefined && Object.hasOwn(NOT_WRITABLE_CAUSES, code)) {
        throw new FileNotWritableError(
          file,
          dirname(dir),
          code,
          `cannot create its directory ${dir} to append to this audit log`,
          error,
        );
      }
      throw error;
    }
  }
}

/**
 * The embedded default audit log: a bounded JSON-lines file at `path` (see the module comment). Options:
 * `retentionMs` (default 90 days), `maxEntries` (default 100000), `clock`.
 */
export function fileAuditLog(options: FileAuditLogOptions): FileAuditLog {
  return new JsonLinesAuditLog(options);
}

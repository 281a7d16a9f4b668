/**
 * An {@link AuditLog} held in this process's memory, for when the embedded audit file cannot be written: the admin
 * API on a rules file in a directory this process cannot write (a read-only mount such as a Kubernetes ConfigMap),
 * with no `--audit-file` given elsewhere. Entries are lost at restart; the admin API also logs every change it makes
 * (`admin: change`, to the service log), which is where a durable trail comes from in that setup.
 *
 * Model: entries in append order, which is id order. Ids are the file log's (`<ms, 15 digits>-<sequence, 6
 * digits>`, `AUDIT_ID`), stamped by the clock; the millisecond part never goes backwards (a clock stepping back
 * reuses the last one with the next sequence), so ids are unique and sort by time, and a cursor reads the same.
 *
 * Bounds, kept after every append: at most `maxEntries` entries and at most `maxBytes` bytes of entries (their
 * UTF-8 JSON), the oldest dropped first, the newest entry always kept (one entry is bounded by the admin API's
 * request body limit); entries older than `retentionMs` are never listed and are dropped at the next append.
 */
import { type Clock, systemClock } from "../../core/clock.js";
import { InvalidArgumentError, SluiceError } from "../../core/errors.js";
import {
  AUDIT_ID,
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

/** Default bound on the number of entries an in-memory audit log keeps. */
export const MEMORY_AUDIT_MAX_ENTRIES = 10_000;
/** Default bound on the bytes of entries (their UTF-8 JSON) an in-memory audit log keeps: 16 MiB. */
export const MEMORY_AUDIT_MAX_BYTES = 16 * 1024 * 1024;

/** Options of {@link memoryAuditLog}. */
export interface MemoryAuditLogOptions {
  /** Entries older than this are never listed, ms. @default 90 days */
  readonly retentionMs?: number;
  /** Most entries kept (the oldest go first). @default {@link MEMORY_AUDIT_MAX_ENTRIES} */
  readonly maxEntries?: number;
  /** Most bytes of entries kept, as UTF-8 JSON (the oldest go first). @default {@link MEMORY_AUDIT_MAX_BYTES} */
  readonly maxBytes?: number;
  /** Stamps entries and dates the retention. @default systemClock */
  readonly clock?: Clock;
}

/** A kept entry and its size in bytes. */
interface Kept {
  readonly entry: AuditEntry;
  readonly bytes: number;
}

class MemoryAuditLog implements AuditLog {
  private readonly retentionMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly clock: Clock;
  /** Oldest first; `first` is the index of the oldest kept one (dropped ones before it are compacted away). */
  private kept: Kept[] = [];
  private first = 0;
  private bytes = 0;
  private lastMs = -1;
  private lastSeq = 0;
  private closed = false;

  constructor(options: MemoryAuditLogOptions) {
    this.retentionMs = positiveOption("retentionMs", options.retentionMs, AUDIT_RETENTION_MS);
    this.maxEntries = positiveOption("maxEntries", options.maxEntries, MEMORY_AUDIT_MAX_ENTRIES);
    this.maxBytes = positiveOption("maxBytes", options.maxBytes, MEMORY_AUDIT_MAX_BYTES);
    this.clock = options.clock ?? systemClock;
  }

  async append(entry: Omit<AuditEntry, "id" | "atMs">): Promise<AuditEntry> {
    this.assertOpen();
    const fields = auditFields(entry);
    const atMs = this.clock.nowMs();
    const stored: AuditEntry = Object.freeze({ id: this.nextId(atMs), atMs, ...fields });
    const bytes = Buffer.byteLength(JSON.stringify(stored), "utf8");
    this.kept.push({ entry: stored, bytes });
    this.bytes += bytes;
    this.trim(atMs);
    return stored;
  }

  async list(options: AuditListOptions = {}): Promise<AuditPage> {
    this.assertOpen();
    const limit = pageLimit(options.limit);
    const cursor = options.cursor;
    if (cursor !== undefined && !AUDIT_ID.test(cursor)) {
      throw new InvalidArgumentError(
        `cursor: must be the "next" of a previous page, got ${JSON.stringify(cursor)}`,
      );
    }
    const cutoffMs = this.clock.nowMs() - this.retentionMs;
    // Entries are in id order, and so in time order: the ones past the retention are a prefix.
    let i = cursor === undefined ? this.kept.length : this.lowerBound(cursor);
    const entries: AuditEntry[] = [];
    while (--i >= this.first && entries.length < limit) {
      const { entry } = this.kept[i];
      if (entry.atMs < cutoffMs) break;
      entries.push(entry);
    }
    const more = i >= this.first && this.kept[i].entry.atMs >= cutoffMs;
    return more && entries.length > 0 ? { entries, next: entries[entries.length - 1].id } : { entries };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.kept = [];
    this.first = 0;
    this.bytes = 0;
  }

  private assertOpen(): void {
    if (this.closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", "in-memory audit log: closed");
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

  /** The index of the first kept entry whose id is >= `id`. */
  private lowerBound(id: string): number {
    let lo = this.first;
    let hi = this.kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.kept[mid].entry.id < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Drops the oldest entries beyond the bounds, and the expired ones; always keeps the newest. */
  private trim(nowMs: number): void {
    const cutoffMs = nowMs - this.retentionMs;
    const last = this.kept.length - 1;
    while (
      this.first < last &&
      (last + 1 - this.first > this.maxEntries ||
        this.bytes > this.maxBytes ||
        this.kept[this.first].entry.atMs < cutoffMs)
    ) {
      this.bytes -= this.kept[this.first].bytes;
      this.first++;
    }
    // Compact once the dropped prefix is as long as what is kept, so each entry is copied O(1) times on average.
    if (this.first > 0 && this.first >= this.kept.length - this.first) {
      this.kept = this.kept.slice(this.first);
      this.first = 0;
    }
  }
}

/**
 * An audit log in this process's memory, bounded by count, bytes and age (see the module comment). Options:
 * `maxEntries` (default 10000), `maxBytes` (default 16 MiB), `retentionMs` (default 90 days), `clock`.
 */
export function memoryAuditLog(options: MemoryAuditLogOptions = {}): AuditLog {
  return new MemoryAuditLog(options);
}

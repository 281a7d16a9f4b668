/**
 * The audit log of the admin API: who changed what and when, with the value before and after. Two
 * implementations: `file-audit-log.ts` (JSON lines, the embedded default) and `redis-audit-log.ts` (a Redis
 * stream, Redis mode). Both are bounded, by age (default 90 days, seed 002's retention of audit logs) and by
 * count, and list newest first in pages.
 *
 * This module also holds what both share: the defaults, the paging limits and the validation of what is
 * appended and asked for.
 */
import { InvalidArgumentError } from "../../core/errors.js";

/** One audited change. */
export interface AuditEntry {
  /** Sortable (time-ordered) and unique. */
  readonly id: string;
  /** When, epoch ms. */
  readonly atMs: number;
  /** Who: the name of the admin token. */
  readonly actor: string;
  /** What was done, e.g. "rule.create" | "rule.update" | "rule.delete" | "tier.set" | "override.create" | "override.delete" | "limits.reset". */
  readonly action: string;
  /** What it was done to, e.g. "rules/api-per-user", "users/user:42/tier". */
  readonly resource: string;
  /** The value before the change: JSON data, or null. */
  readonly before: unknown;
  /** The value after the change: JSON data, or null. */
  readonly after: unknown;
}

/** One page of entries, newest first; `next` is the cursor of the following (older) page, absent on the last. */
export interface AuditPage {
  /** The entries, newest first. */
  readonly entries: readonly AuditEntry[];
  /** Pass as `cursor` to get the next, older page. */
  readonly next?: string;
}

/** Options of {@link AuditLog.list}. */
export interface AuditListOptions {
  /** Entries per page, 1 to {@link AUDIT_MAX_PAGE}. @default 50 */
  readonly limit?: number;
  /** The `next` of the previous page; absent for the newest entries. */
  readonly cursor?: string;
}

/** An append-only, bounded log of admin changes. */
export interface AuditLog {
  /** Records a change, stamping its id and time; resolves once it is stored. */
  append(entry: Omit<AuditEntry, "id" | "atMs">): Promise<AuditEntry>;
  /** Lists entries newest first, a page at a time; entries older than the retention are never listed. */
  list(options?: AuditListOptions): Promise<AuditPage>;
  /** Waits for pending writes and releases the log's resources. */
  close(): Promise<void>;
}

/** Default retention by age: 90 days (seed 002). */
export const AUDIT_RETENTION_MS = 90 * 86_400_000;
/** Default bound on the number of entries kept. */
export const AUDIT_MAX_ENTRIES = 100_000;
/** Default page size. */
export const AUDIT_DEFAULT_PAGE = 50;
/** Largest page size. */
export const AUDIT_MAX_PAGE = 1000;
/** Longest `actor` and `action`. */
export const AUDIT_MAX_TEXT_LENGTH = 1024;
/**
 * Longest `resource`. It must hold every admin resource of every identity and rule the admin API accepts, or a
 * change of a long identity would be made and not audited: the longest is `users/<identity>/override/<rule>`,
 * 6 + 1,281 (`MAX_IDENTITY_LENGTH`, `admin-request.ts`) + 10 + 128 (a rule id) = 1,425 characters.
 */
export const AUDIT_MAX_RESOURCE_LENGTH = 2048;

/**
 * The id of an entry of the file and in-memory logs: `<ms, 15 digits>-<sequence, 6 digits>`, so ids sort as strings
 * and by time (e.g. `001714564800000-000003`).
 */
export const AUDIT_ID = /^(\d{15})-(\d{6})$/;
/** The last sequence number of one millisecond in an {@link AUDIT_ID}; the next id takes the next millisecond. */
export const AUDIT_MAX_SEQ = 999_999;

/** The {@link AUDIT_ID} of the `seq`th entry of epoch millisecond `ms`. */
export function formatAuditId(ms: number, seq: number): string {
  return `${String(ms).padStart(15, "0")}-${String(seq).padStart(6, "0")}`;
}

/** The page size asked for, checked: a whole number from 1 to {@link AUDIT_MAX_PAGE}. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return AUDIT_DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_PAGE) {
    throw new InvalidArgumentError(
      `limit: must be a whole number from 1 to ${AUDIT_MAX_PAGE}, got ${String(limit)}`,
    );
  }
  return limit;
}

/** Checks a positive whole-number option (`retentionMs`, `maxEntries`, …); returns it or `fallback` when absent. */
export function positiveOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError(`${name}: must be a whole number >= 1, got ${String(value)}`);
  }
  return value;
}

/** `v` when it is a non-empty string of at most `max` characters; else throws naming the field `name`. */
export function auditText(name: string, v: unknown, max: number): string {
  if (typeof v !== "string" || v === "" || v.length > max) {
    throw new InvalidArgumentError(
      `${name}: must be a non-empty string of at most ${max} characters${typeof v === "string" && v !== "" ? `, got ${v.length}` : ""}`,
    );
  }
  return v;
}

/**
 * What is appended, checked and normalised: `actor` and `action` non-empty strings of at most
 * {@link AUDIT_MAX_TEXT_LENGTH} characters, `resource` of at most {@link AUDIT_MAX_RESOURCE_LENGTH}, `before` and
 * `after` JSON data (`undefined` becomes null).
 */
export function auditFields(entry: Omit<AuditEntry, "id" | "atMs">): Omit<AuditEntry, "id" | "atMs"> {
  const text = (name: string, v: unknown): string => auditText(name, v, AUDIT_MAX_TEXT_LENGTH);
  const json = (name: string, v: unknown): unknown => {
    if (v === undefined) return null;
    try {
      return JSON.parse(JSON.stringify(v) ?? "null");
    } catch (error) {
      throw new InvalidArgumentError(`${name}: must be JSON data (${(error as Error).message})`);
    }
  };
  return {
    actor: text("actor", entry.actor),
    action: text("action", entry.action),
    resource: auditText("resource", entry.resource, AUDIT_MAX_RESOURCE_LENGTH),
    before: json("before", entry.before),
    after: json("after", entry.after),
  };
}

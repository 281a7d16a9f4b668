/**
 * The Redis-mode {@link AuditLog}: a Redis stream (`key`, default `sluice:audit`) shared by every instance, one
 * stream entry per audit entry (field `entry`: the JSON of everything but the id).
 *
 * Ids are the stream ids, `<ms>-<seq>`, where `ms` is the appending instance's clock, never below the stream's
 * last id (a Lua script reads the last generated id and adds with the explicit `<ms>-*` form, Redis >= 7.0), so
 * ids are unique and time-ordered across instances.
 *
 * Bounds: the same script trims after each append, by age (`XTRIM MINID ~ now - retentionMs`) and by count
 * (`XTRIM MAXLEN ~ maxLen`). `~` trims whole stream nodes only (cheap; up to `stream-node-max-entries`, 100 by
 * default, more entries may stay), so `list` also reads from `now - retentionMs` on: an entry past the
 * retention is never listed even before it is trimmed. Both bounds use the injected clock, so time can be
 * controlled in tests.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { type Clock, systemClock } from "../../core/clock.js";
import { InvalidArgumentError, SluiceError, StoreUnavailableError } from "../../core/errors.js";
import { type RedisScript, runScript } from "../../stores/redis/script.js";
import {
  AUDIT_MAX_ENTRIES,
  AUDIT_RETENTION_MS,
  type AuditEntry,
  type AuditListOptions,
  type AuditLog,
  type AuditPage,
  auditFields,
  pageLimit,
  positiveOption,
} from "./audit-log.js";

/** Options of {@link redisAuditLog}. */
export interface RedisAuditLogOptions {
  /** An ioredis client, connected or connecting; the log never closes it. */
  readonly client: Redis;
  /** The stream's key. @default "sluice:audit" */
  readonly key?: string;
  /** Entries older than this are trimmed and never listed, ms. @default 90 days */
  readonly retentionMs?: number;
  /** About how many entries the stream keeps (approximate trimming, see the module comment). @default 100000 */
  readonly maxLen?: number;
  /** Stamps entries and dates the retention. @default systemClock */
  readonly clock?: Clock;
}

/** KEYS[1] the stream; ARGV nowMs, entry JSON, MINID threshold (ms), MAXLEN. Returns the new entry's id. */
const APPEND_SOURCE = `
local ms = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then
  local info = redis.call('XINFO', 'STREAM', KEYS[1])
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local last = tonumber(string.match(info[i + 1], '^(%d+)-'))
      if last > ms then ms = last end
    end
  end
end
local id = redis.call('XADD', KEYS[1], string.format('%.0f', ms) .. '-*', 'entry', ARGV[2])
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[3])
redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[4])
return id
`;
const APPEND: RedisScript = Object.freeze({
  source: APPEND_SOURCE,
  sha: createHash("sha1").update(APPEND_SOURCE).digest("hex"),
});

const STREAM_ID = /^\d+-\d+$/;

class RedisAuditLog implements AuditLog {
  private readonly client: Redis;
  private readonly key: string;
  private readonly retentionMs: number;
  private readonly maxLen: number;
  private readonly clock: Clock;
  private closed = false;

  constructor(options: RedisAuditLogOptions) {
    this.client = options.client;
    this.key = options.key ?? "sluice:audit";
    this.retentionMs = positiveOption("retentionMs", options.retentionMs, AUDIT_RETENTION_MS);
    this.maxLen = positiveOption("maxLen", options.maxLen, AUDIT_MAX_ENTRIES);
    this.clock = options.clock ?? systemClock;
  }

  async append(entry: Omit<AuditEntry, "id" | "atMs">): Promise<AuditEntry> {
    this.assertOpen();
    const fields = auditFields(entry);
    const atMs = this.clock.nowMs();
    const body = JSON.stringify({ atMs, ...fields });
    const id = (await this.call(() =>
      runScript(
        this.client,
        APPEND,
        [this.key],
        [Math.floor(atMs), body, Math.max(0, Math.floor(atMs - this.retentionMs)), this.maxLen],
      ),
    )) as string;
    return Object.freeze({ id: String(id), atMs, ...fields });
  }

  async list(options: AuditListOptions = {}): Promise<AuditPage> {
    this.assertOpen();
    const limit = pageLimit(options.limit);
    const cursor = options.cursor;
    if (cursor !== undefined && !STREAM_ID.test(cursor)) {
      throw new InvalidArgumentError(
        `cursor: must be the "next" of a previous page, got ${JSON.stringify(cursor)}`,
      );
    }
    const minMs = Math.max(0, Math.floor(this.clock.nowMs() - this.retentionMs));
    const rows = await this.call(() =>
      this.client.xrevrange(
        this.key,
        cursor === undefined ? "+" : `(${cursor}`,
        String(minMs),
        "COUNT",
        limit + 1,
      ),
    );
    const entries: AuditEntry[] = [];
    for (const [id, values] of rows.slice(0, limit)) {
      const at = values.indexOf("entry");
      if (at === -1 || at % 2 !== 0) continue;
      try {
        entries.push(Object.freeze({ id, ...(JSON.parse(values[at + 1]) as Omit<AuditEntry, "id">) }));
      } catch {
        // not an audit entry (written by something else): skipped
      }
    }
    return rows.length > limit ? { entries, next: rows[limit - 1][0] } : { entries };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new SluiceError("ERR_SLUICE_STORE_CLOSED", `redis audit log ${this.key}: closed`);
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new StoreUnavailableError(`redis audit log ${this.key}`, (error as Error).message, error);
    }
  }
}

/**
 * The Redis-mode audit log: a bounded Redis stream shared by every instance (see the module comment). Options:
 * `key` (default `sluice:audit`), `retentionMs` (default 90 days), `maxLen` (default 100000), `clock`.
 */
export function redisAuditLog(options: RedisAuditLogOptions): AuditLog {
  return new RedisAuditLog(options);
}

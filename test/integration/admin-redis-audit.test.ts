// The Redis audit log against the shared redis-server: stream ids from the injected clock, newest-first paging,
// retention by age (MINID computed from a manual clock, so the trimming is provable) and by length.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { AuditEntry } from "../../src/server/admin/audit-log.js";
import { redisAuditLog } from "../../src/server/admin/redis-audit-log.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";

const T0 = Date.UTC(2026, 4, 1);
const DAY = 86_400_000;
/** Redis's default `stream-node-max-entries`: approximate trimming removes whole nodes of this many entries. */
const NODE = 100;

const change = (n: number) => ({
  actor: "ops",
  action: "rule.update",
  resource: `rules/r${n}`,
  before: { limit: n },
  after: null,
});

describe("redisAuditLog", () => {
  let client: Redis;
  beforeAll(async () => {
    client = new Redis((await getSharedRedis()).url);
  });
  const keys: string[] = [];
  afterAll(async () => {
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  });
  const key = (label: string) => {
    const k = `${uniqueKeyPrefix(label)}audit`;
    keys.push(k);
    return k;
  };

  it("appends with stream ids from the clock and lists newest first, a page at a time", async () => {
    const clock = new ManualClock(T0);
    const log = redisAuditLog({ client, key: key("page"), clock });
    const appended: AuditEntry[] = [];
    for (let i = 1; i <= 5; i++) {
      appended.push(await log.append(change(i)));
      if (i === 2) clock.advance(1000);
    }
    expect(appended.map((e) => e.id)).toEqual([
      `${T0}-0`,
      `${T0}-1`,
      `${T0 + 1000}-0`,
      `${T0 + 1000}-1`,
      `${T0 + 1000}-2`,
    ]);
    expect(appended[0]).toEqual({ id: `${T0}-0`, atMs: T0, ...change(1) });

    const p1 = await log.list({ limit: 2 });
    expect(p1.entries.map((e) => e.resource)).toEqual(["rules/r5", "rules/r4"]);
    const p2 = await log.list({ limit: 2, cursor: p1.next });
    expect(p2.entries.map((e) => e.resource)).toEqual(["rules/r3", "rules/r2"]);
    const p3 = await log.list({ limit: 2, cursor: p2.next });
    expect(p3).toEqual({ entries: [appended[0]] });
    expect((await log.list()).entries).toEqual([...appended].reverse());
  });

  it("keeps ids unique and ordered across instances whose clocks disagree", async () => {
    const k = key("skew");
    const ahead = redisAuditLog({ client, key: k, clock: new ManualClock(T0 + 60_000) });
    const behind = redisAuditLog({ client, key: k, clock: new ManualClock(T0) });
    const a = await ahead.append(change(1));
    const b = await behind.append(change(2));
    expect(a.id).toBe(`${T0 + 60_000}-0`);
    expect(b.id).toBe(`${T0 + 60_000}-1`); // never below the stream's last id
    expect(b.atMs).toBe(T0);
    expect((await behind.list()).entries.map((e) => e.id)).toEqual([b.id, a.id]);
  });

  it("trims and hides entries older than the retention (MINID from the clock)", async () => {
    const k = key("retention");
    const clock = new ManualClock(T0);
    const log = redisAuditLog({ client, key: k, clock });
    for (let i = 0; i < 2.5 * NODE; i++) await log.append(change(i));
    expect(await client.xlen(k)).toBe(2.5 * NODE);
    clock.advance(89 * DAY);
    expect((await log.list({ limit: 1000 })).entries).toHaveLength(2.5 * NODE);
    clock.advance(2 * DAY); // past the default 90 days
    expect((await log.list()).entries).toEqual([]);
    const fresh = await log.append(change(999));
    expect((await log.list()).entries).toEqual([fresh]);
    const length = await client.xlen(k);
    expect(length).toBeLessThanOrEqual(NODE + 1); // whole nodes of old entries are gone
    expect(length).toBeGreaterThanOrEqual(1);
  });

  it("stays bounded by maxLen", async () => {
    const k = key("maxlen");
    const log = redisAuditLog({ client, key: k, maxLen: 50, clock: new ManualClock(T0) });
    const all: AuditEntry[] = [];
    for (let i = 0; i < 500; i++) all.push(await log.append(change(i)));
    const length = await client.xlen(k);
    expect(length).toBeLessThanOrEqual(50 + NODE);
    expect(length).toBeGreaterThanOrEqual(50);
    const listed = (await log.list({ limit: 1000 })).entries;
    expect(listed).toEqual(all.slice(-length).reverse());
  });

  it("validates what it is given", async () => {
    const log = redisAuditLog({ client, key: key("validate") });
    for (const limit of [0, 1001, 2.5]) await expect(log.list({ limit })).rejects.toThrow(/^limit: /);
    await expect(log.list({ cursor: "nope" })).rejects.toThrow(InvalidArgumentError);
    await expect(log.append({ ...change(1), resource: "" })).rejects.toThrow(/^resource: /);
    expect(() => redisAuditLog({ client, maxLen: 0 })).toThrow(/^maxLen: /);
    await log.close();
    await expect(log.list()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
  });
});

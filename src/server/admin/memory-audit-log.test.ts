import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../core/errors.js";
import { ManualClock } from "../../core/manual-clock.js";
import type { AuditEntry } from "./audit-log.js";
import { memoryAuditLog } from "./memory-audit-log.js";

const T0 = Date.UTC(2026, 4, 1);
const DAY = 86_400_000;

const change = (n: number, after: unknown = { limit: n + 1 }) => ({
  actor: "ops",
  action: "limits.reset",
  resource: `limits/d${n}`,
  before: null,
  after,
});

describe("memoryAuditLog", () => {
  it("appends entries with the file log's time-ordered ids and lists them newest first, a page at a time", async () => {
    const clock = new ManualClock(T0);
    const log = memoryAuditLog({ clock });
    const appended: AuditEntry[] = [];
    for (let i = 1; i <= 5; i++) {
      appended.push(await log.append(change(i)));
      clock.advance(1000);
    }
    expect(appended[0]).toEqual({ id: `${String(T0).padStart(15, "0")}-000000`, atMs: T0, ...change(1) });
    const p1 = await log.list({ limit: 2 });
    expect(p1.entries.map((e) => e.resource)).toEqual(["limits/d5", "limits/d4"]);
    expect(p1.next).toBe(appended[3].id);
    const p2 = await log.list({ limit: 2, cursor: p1.next });
    expect(p2.entries.map((e) => e.resource)).toEqual(["limits/d3", "limits/d2"]);
    const p3 = await log.list({ limit: 2, cursor: p2.next });
    expect(p3).toEqual({ entries: [appended[0]] });
    await expect(log.list({ cursor: "nope" })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it("keeps ids unique and ordered when the clock stands still or steps back", async () => {
    const clock = new ManualClock(T0);
    const log = memoryAuditLog({ clock });
    const a = await log.append(change(1));
    const b = await log.append(change(2));
    clock.set(T0 - 5000);
    const c = await log.append(change(3));
    expect([a.id, b.id, c.id]).toEqual([
      `${String(T0).padStart(15, "0")}-000000`,
      `${String(T0).padStart(15, "0")}-000001`,
      `${String(T0).padStart(15, "0")}-000002`,
    ]);
    expect(c.atMs).toBe(T0 - 5000); // the entry keeps the clock's time; only its id is held back
  });

  it("stores a copy of what it is given", async () => {
    const log = memoryAuditLog({ clock: new ManualClock(T0) });
    const after = { descriptors: [[{ key: "user", value: "ann" }]] };
    await log.append(change(1, after));
    after.descriptors[0][0].value = "changed";
    expect((await log.list()).entries[0].after).toEqual({ descriptors: [[{ key: "user", value: "ann" }]] });
  });

  it("keeps at most maxEntries, the oldest dropped first", async () => {
    const log = memoryAuditLog({ clock: new ManualClock(T0), maxEntries: 3 });
    for (let i = 1; i <= 10; i++) await log.append(change(i));
    const page = await log.list();
    expect(page.entries.map((e) => e.resource)).toEqual(["limits/d10", "limits/d9", "limits/d8"]);
    expect(page.next).toBeUndefined();
  });

  it("keeps at most maxBytes of entries, and always the newest one", async () => {
    const log = memoryAuditLog({ clock: new ManualClock(T0), maxBytes: 1000 });
    const big = "x".repeat(300);
    for (let i = 1; i <= 6; i++) await log.append(change(i, { note: big }));
    const kept = (await log.list()).entries;
    // Each entry is some 420 bytes of JSON: two fit in 1000.
    expect(kept.map((e) => e.resource)).toEqual(["limits/d6", "limits/d5"]);
    const bytes = kept.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(bytes).toBeLessThanOrEqual(1000);
    await log.append(change(7, { note: "y".repeat(2000) })); // alone over the bound: kept, alone
    expect((await log.list()).entries.map((e) => e.resource)).toEqual(["limits/d7"]);
  });

  it("never lists an entry past the retention, and drops it at the next append", async () => {
    const clock = new ManualClock(T0);
    const log = memoryAuditLog({ clock, retentionMs: DAY });
    await log.append(change(1));
    clock.advance(DAY / 2);
    await log.append(change(2));
    clock.advance(DAY / 2 + 1);
    const page = await log.list({ limit: 1 });
    expect(page).toEqual({ entries: [expect.objectContaining({ resource: "limits/d2" })] });
    clock.advance(DAY);
    expect((await log.list()).entries).toEqual([]);
    await log.append(change(3));
    expect((await log.list()).entries.map((e) => e.resource)).toEqual(["limits/d3"]);
  });

  it("pages correctly over many appends and drops (the kept array is compacted)", async () => {
    const log = memoryAuditLog({ clock: new ManualClock(T0), maxEntries: 7 });
    for (let i = 1; i <= 100; i++) await log.append(change(i));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await log.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.entries.map((e) => e.resource));
      cursor = page.next;
    } while (cursor !== undefined);
    expect(seen).toEqual([100, 99, 98, 97, 96, 95, 94].map((n) => `limits/d${n}`));
  });

  it("refuses to be used once closed, and checks its options", async () => {
    const log = memoryAuditLog({ clock: new ManualClock(T0) });
    await log.close();
    await expect(log.append(change(1))).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
    await expect(log.list()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
    expect(() => memoryAuditLog({ maxBytes: 0 })).toThrow(/maxBytes: must be a whole number >= 1/);
    expect(() => memoryAuditLog({ maxEntries: 1.5 })).toThrow(/maxEntries/);
  });
});

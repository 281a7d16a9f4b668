import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileLockedError, InvalidArgumentError, StoreUnavailableError } from "../../core/errors.js";
import { ManualClock } from "../../core/manual-clock.js";
import type { AuditEntry, AuditLog } from "./audit-log.js";
import { fileAuditLog } from "./file-audit-log.js";

const T0 = Date.UTC(2026, 4, 1);
const DAY = 86_400_000;

const change = (n: number) => ({
  actor: "ops",
  action: "rule.update",
  resource: `rules/r${n}`,
  before: { limit: n },
  after: { limit: n + 1 },
});

describe("fileAuditLog", () => {
  let dir: string;
  let file: string;
  let clock: ManualClock;
  const logs: AuditLog[] = [];
  const log = (options: { retentionMs?: number; maxEntries?: number } = {}) => {
    const l = fileAuditLog({ path: file, clock, ...options });
    logs.push(l);
    return l;
  };
  const lines = async () => (await readFile(file, "utf8")).split("\n").filter((l) => l !== "");

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-audit-"));
    file = join(dir, "audit", "audit.jsonl");
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it("appends entries with time-ordered ids and lists them newest first, a page at a time", async () => {
    const l = log();
    const appended: AuditEntry[] = [];
    for (let i = 1; i <= 5; i++) {
      appended.push(await l.append(change(i)));
      clock.advance(1000);
    }
    expect(appended[0]).toEqual({ id: `${String(T0).padStart(15, "0")}-000000`, atMs: T0, ...change(1) });
    const ids = appended.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);

    const p1 = await l.list({ limit: 2 });
    expect(p1.entries.map((e) => e.resource)).toEqual(["rules/r5", "rules/r4"]);
    expect(p1.next).toBe(ids[3]);
    const p2 = await l.list({ limit: 2, cursor: p1.next });
    expect(p2.entries.map((e) => e.resource)).toEqual(["rules/r3", "rules/r2"]);
    const p3 = await l.list({ limit: 2, cursor: p2.next });
    expect(p3.entries).toEqual([appended[0]]);
    expect(p3.next).toBeUndefined();
    expect((await l.list()).entries).toHaveLength(5);
    expect(await lines()).toHaveLength(5);
  });

  it("pages 50 by default", async () => {
    const l = log();
    for (let i = 0; i < 60; i++) await l.append(change(i));
    const page = await l.list();
    expect(page.entries).toHaveLength(50);
    expect(page.entries[0].resource).toBe("rules/r59");
    expect((await l.list({ cursor: page.next })).entries).toHaveLength(10);
  });

  it("keeps ids unique and ordered when the clock stands still or steps back, across restarts", async () => {
    const first = log();
    const a = await first.append(change(1));
    const b = await first.append(change(2));
    clock.set(T0 - 5000); // the wall clock stepped back
    const c = await first.append(change(3));
    await first.close();
    const second = log();
    const d = await second.append(change(4));
    const ids = [a, b, c, d].map((e) => e.id);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort()).toEqual(ids);
    expect(c.atMs).toBe(T0 - 5000); // the time is the clock's, the id stays ordered
    expect((await second.list()).entries.map((e) => e.id)).toEqual([...ids].reverse());
  });

  it("serializes concurrent appends", async () => {
    const l = log();
    const entries = await Promise.all(Array.from({ length: 50 }, (_, i) => l.append(change(i))));
    expect(new Set(entries.map((e) => e.id)).size).toBe(50);
    expect(await lines()).toHaveLength(50);
    expect((await l.list({ limit: 1000 })).entries).toHaveLength(50);
  });

  it("drops entries older than the retention, and compacts them away", async () => {
    const l = log({ maxEntries: 20 });
    for (let i = 0; i < 5; i++) await l.append(change(i));
    clock.advance(89 * DAY);
    expect((await l.list()).entries).toHaveLength(5);
    clock.advance(2 * DAY); // 91 days: past the default 90-day retention
    expect((await l.list()).entries).toEqual([]);
    const fresh = await l.append(change(99));
    expect((await l.list()).entries).toEqual([fresh]);
    expect(await lines()).toHaveLength(1); // compacted
    // No temp file left; the lock is held until close.
    expect(await readdir(join(dir, "audit"))).toEqual(["audit.jsonl", "audit.jsonl.lock"]);

    await l.close();
    const reopened = log({ maxEntries: 20 });
    expect((await reopened.list()).entries).toEqual([fresh]);
  });

  it("honours a custom retention", async () => {
    const l = log({ retentionMs: 60_000 });
    await l.append(change(1));
    clock.advance(30_000);
    const second = await l.append(change(2));
    clock.advance(40_000);
    expect((await l.list()).entries).toEqual([second]);
  });

  it("stays bounded by maxEntries", async () => {
    const l = log({ maxEntries: 10 });
    const all: AuditEntry[] = [];
    for (let i = 0; i < 100; i++) {
      all.push(await l.append(change(i)));
      expect((await lines()).length).toBeLessThanOrEqual(11); // maxEntries + a margin of a tenth (at least 1)
    }
    const listed = (await l.list({ limit: 1000 })).entries;
    expect(listed.length).toBeGreaterThanOrEqual(10);
    expect(listed).toEqual(all.slice(-listed.length).reverse()); // the newest ones
    await l.close();
    const reopened = log({ maxEntries: 10 });
    expect((await reopened.list({ limit: 1000 })).entries).toEqual(listed);
  });

  it("cuts off a torn last line and skips lines that are not entries", async () => {
    const first = log();
    const a = await first.append(change(1));
    await first.close();
    await appendFile(file, 'not json\n{"id":"x"}\n{"id":"001777000000000-000000","atMs":17');
    const second = log();
    expect((await second.list()).entries).toEqual([a]);
    const b = await second.append(change(2));
    expect((await second.list()).entries).toEqual([b, a]);
    const text = await readFile(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text).not.toContain("001777000000000"); // the torn line is gone
    expect(text.split("\n").filter((line) => line.startsWith('{"id":"0'))).toHaveLength(2);
  });

  it("lists what the file holds when it changed behind its back, never failing on a malformed line", async () => {
    const l = log();
    const a = await l.append(change(1));
    // Another writer (by hand, or a process that ignored the lock) appends an entry and a half-written line.
    const foreign = { id: `${String(T0 + 500).padStart(15, "0")}-000000`, atMs: T0 + 500, ...change(7) };
    await appendFile(file, `${JSON.stringify(foreign)}\n{"id":"0017770000`);
    clock.advance(1000);
    const b = await l.append(change(2));
    expect((await l.list()).entries).toEqual([b, foreign, a]);
    expect((await l.list({ limit: 1 })).entries).toEqual([b]);
  });

  it("refuses a second log on the same file while the first is open, naming the file and the holder", async () => {
    const first = log();
    await first.append(change(1));
    const second = log();
    await expect(second.append(change(2))).rejects.toMatchObject({
      code: "ERR_SLUICE_FILE_LOCKED",
      file,
      holderPid: process.pid,
    });
    await expect(second.list()).rejects.toBeInstanceOf(FileLockedError);
    expect(await lines()).toHaveLength(1);
    await first.close();
    expect((await second.list()).entries).toHaveLength(1); // the lock is free again: opens on the next call
  });

  it("creates missing directories; a path it cannot open fails with an error naming the file, tried again later", async () => {
    const nested = fileAuditLog({ path: join(dir, "a", "b", "audit.jsonl"), clock });
    logs.push(nested);
    await nested.append(change(1));
    expect(await readdir(join(dir, "a", "b"))).toContain("audit.jsonl");

    const blocker = join(dir, "not-a-directory");
    await writeFile(blocker, "");
    const path = join(blocker, "audit.jsonl");
    const blocked = fileAuditLog({ path, clock });
    logs.push(blocked);
    const error = await blocked.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe(
      `${path}: cannot open the audit log: ${blocker} exists and is not a directory`,
    );
    await expect(blocked.append(change(1))).rejects.toBeInstanceOf(StoreUnavailableError);
    await rm(blocker);
    expect((await blocked.list()).entries).toEqual([]); // opens on the next call once it can
  });

  it("validates what it is given", async () => {
    const l = log();
    for (const limit of [0, 1001, 1.5]) {
      await expect(l.list({ limit })).rejects.toThrow(/^limit: /);
    }
    await expect(l.list({ cursor: "abc" })).rejects.toThrow(InvalidArgumentError);
    await expect(l.append({ ...change(1), actor: "" })).rejects.toThrow(/^actor: /);
    await expect(l.append({ ...change(1), after: 10n })).rejects.toThrow(/^after: /);
    const e = await l.append({
      actor: "ops",
      action: "limits.reset",
      resource: "users/user:1",
      before: undefined,
      after: null,
    });
    expect(e.before).toBeNull();
    expect(() => fileAuditLog({ path: file, maxEntries: 0 })).toThrow(/^maxEntries: /);
    expect(() => fileAuditLog({ path: file, retentionMs: -1 })).toThrow(/^retentionMs: /);
  });
});

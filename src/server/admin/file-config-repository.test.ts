import { spawnSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ConfigError, FileLockedError, SluiceError } from "../../core/errors.js";
import { ManualClock } from "../../core/manual-clock.js";
import type { NativeConfigInput } from "../../rules/config-schema.js";
import { loadConfigFile } from "../../rules/load-config.js";
import type { ConfigRepository, ConfigSnapshot } from "./config-repository.js";
import { fileConfigRepository, MAX_WRITE_ATTEMPTS } from "./file-config-repository.js";

const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);
const EXAMPLE = new URL("../../../examples/sluice.yaml", import.meta.url);
const ENVOY_EXAMPLE = new URL("../../../examples/envoy-ratelimit.yaml", import.meta.url);

const BASE = `# My rate limits.
# Owned by the platform team.

version: 1
tiers: [free, premium]
rules:
  # Per user: the main API limit.
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - { name: per-second, limit: 10, period: 1s } # raised in March
  # Health checks are never limited.
  - id: health
    domain: api
    match: [{ key: endpoint, value: /healthz }]
    unlimited: true
`;

type Rule = NonNullable<NativeConfigInput["rules"]>[number];
const rule = (id: string, limit = 5): Rule => ({
  id,
  domain: "api",
  match: [{ key: "tenant", value: id }],
  limits: [{ name: "per-minute", limit, period: "1m" }],
});
/** The limits of `r`, to edit in place (the rule must exist and have limits). */
const limitsOf = (r: Rule | undefined) => (r as Rule).limits as { limit: number }[];

/** Polls `done` every 10 ms until it holds (or 5 s pass). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("fileConfigRepository", () => {
  let dir: string;
  let file: string;
  let clock: ManualClock;
  const open: ConfigRepository[] = [];
  const repo = (options: { watch?: boolean; path?: string; onError?: (e: unknown) => void } = {}) => {
    const r = fileConfigRepository({
      path: options.path ?? file,
      clock,
      watch: options.watch ?? false,
      debounceMs: 10,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    open.push(r);
    return r;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-admin-file-"));
    file = join(dir, "sluice.yaml");
    await writeFile(file, BASE);
    clock = new ManualClock(T0);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it("loads the file as version 1, its document as written and its compiled config", async () => {
    const r = repo();
    const s = await r.load();
    expect(r.location).toBe(`file:${file}`);
    expect(s.version).toBe(1);
    expect(s.document).toEqual(parse(BASE));
    expect(Object.isFrozen(s.document.rules?.[0])).toBe(true);
    expect(s.config.rules.map((x) => x.id)).toEqual(["per-user", "health"]);
    expect(await r.load()).toBe(s);
  });

  it("persists an edit with a versioned header, keeps the comments, and a new repository reloads it", async () => {
    const r = repo();
    const s2 = await r.update((draft) => {
      draft.rules?.push(rule("acme"));
      limitsOf(draft.rules?.[0])[0].limit = 20;
    });
    expect(s2.version).toBe(2);
    expect(s2.config.rules.map((x) => x.id)).toEqual(["per-user", "health", "acme"]);
    const text = await readFile(file, "utf8");
    expect(text.split("\n")[0]).toBe(
      `# sluice: written by the admin API, version 2, ${new Date(T0).toISOString()}`,
    );
    for (const comment of [
      "# My rate limits.",
      "# Owned by the platform team.",
      "# Per user: the main API limit.",
      "# Health checks are never limited.",
      "# raised in March",
    ]) {
      expect(text).toContain(comment);
    }
    expect(text).toContain("{ name: per-second, limit: 20, period: 1s }"); // the flow style survives
    expect(parse(text)).toEqual(s2.document);
    expect((await loadConfigFile(file)).rules).toHaveLength(3); // a valid file for the plain loader too

    clock.advance(60_000);
    const s3 = await r.update((draft) => {
      draft.rules?.splice(1, 1); // delete "health": its comment goes, the others stay put
    });
    const text3 = await readFile(file, "utf8");
    expect(text3.match(/^# sluice: written by the admin API/gm)).toHaveLength(1); // replaced, not accumulated
    expect(text3).toContain(`version 3, ${new Date(T0 + 60_000).toISOString()}`);
    expect(text3).not.toContain("Health checks");
    expect(text3).toContain("# Per user: the main API limit.");

    await r.close();
    const again = repo();
    const loaded = await again.load();
    expect(loaded.version).toBe(3); // from the header: versions survive restarts
    expect(loaded.document).toEqual(s3.document);
    expect(loaded.config.rules.map((x) => x.id)).toEqual(["per-user", "acme"]);
  });

  it("rewrites the example file keeping every comment that is not on a changed value", async () => {
    const example = join(dir, "example.yaml");
    await copyFile(EXAMPLE, example);
    const before = await readFile(example, "utf8");
    const r = repo({ path: example });
    await r.update((draft) => {
      const perUser = draft.rules?.find((x) => x.id === "api-per-user");
      limitsOf(perUser)[0].limit = 11;
    });
    const after = await readFile(example, "utf8");
    const comments = (t: string) =>
      t
        .split("\n")
        .map((l) => l.replace(/^.*?(#.*)$/, "$1").trim())
        .filter((l) => l.startsWith("#") && !l.startsWith("# sluice:"));
    expect(comments(after)).toEqual(comments(before));
    expect((await loadConfigFile(example)).rules.find((x) => x.id === "api-per-user")?.limits[0].limit).toBe(
      11,
    );
  });

  it("refuses an invalid edit naming the field, and writes nothing", async () => {
    const r = repo();
    await r.load();
    const bytes = await readFile(file);
    const error = await r
      .update((draft) => {
        limitsOf(draft.rules?.[0])[0].limit = -1;
        draft.rules?.push({ ...rule("per-user") }); // a duplicate id
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((i) => i.path);
    expect(paths).toContain("rules[0].limits[0].limit");
    expect(paths.some((p) => p.startsWith("rules[2]"))).toBe(true);
    expect(await readFile(file)).toEqual(bytes);
    expect((await r.load()).version).toBe(1);
    expect(await readdir(dir)).toEqual(["sluice.yaml", "sluice.yaml.lock"]); // no temp file left; the lock
  });

  it("rethrows what an edit throws and writes nothing", async () => {
    const r = repo();
    const bytes = await readFile(file);
    const boom = new Error("precondition failed");
    await expect(
      r.update((draft) => {
        draft.rules = [];
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await readFile(file)).toEqual(bytes);
    expect((await r.load()).document.rules).toHaveLength(2);
  });

  it("writes nothing for an edit that changes nothing", async () => {
    const r = repo();
    const s = await r.load();
    const bytes = await readFile(file);
    expect(await r.update(() => {})).toBe(s);
    expect(await readFile(file)).toEqual(bytes);
  });

  it("serializes concurrent updates: none is lost", async () => {
    const r = repo();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        r.update((draft) => {
          draft.rules?.push(rule(`t${i}`, i + 1));
        }),
      ),
    );
    expect(results.map((s) => s.version)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    await r.close();
    const reloaded = await repo().load();
    expect(reloaded.version).toBe(21);
    expect(reloaded.document.rules?.map((x) => x.id)).toEqual([
      "per-user",
      "health",
      ...Array.from({ length: 20 }, (_, i) => `t${i}`),
    ]);
  });

  it("reports a hand edit as the next version, and its own writes once", async () => {
    const r = repo({ watch: true });
    const seen: ConfigSnapshot[] = [];
    r.watch((s) => seen.push(s));
    await r.load();
    await r.update((draft) => {
      draft.rules?.push(rule("acme"));
    });
    const written = await readFile(file, "utf8");
    expect(written).toContain("version 2");
    // A hand edit keeping the header (version 2) but changing a limit: the next version is 3.
    await writeFile(file, written.replace("limit: 10,", "limit: 12,"));
    await until(() => seen.length >= 2, "the hand edit");
    expect(seen.map((s) => s.version)).toEqual([2, 3]);
    expect(seen[1].config.rules[0].limits[0].limit).toBe(12);
    expect((await r.load()).version).toBe(3);

    // A comment-only edit is no new version; an edit of the next admin write starts from the hand-edited text.
    await writeFile(file, `${written.replace("limit: 10,", "limit: 12,")}# trailing note\n`);
    const s4 = await r.update((draft) => {
      draft.rules?.pop();
    });
    expect(s4.version).toBe(4);
    expect(s4.config.rules.map((x) => x.id)).toEqual(["per-user", "health"]);
    expect(s4.config.rules[0].limits[0].limit).toBe(12);
    expect(await readFile(file, "utf8")).toContain("# trailing note");
  });

  it("takes in a hand edit made while not watching before applying the next edit", async () => {
    const r = repo();
    const seen: number[] = [];
    r.watch((s) => seen.push(s.version));
    await r.load();
    await writeFile(file, BASE.replace("tiers: [free, premium]", "tiers: [free, premium, gold]"));
    const s = await r.update((draft) => {
      draft.rules?.push(rule("acme"));
    });
    expect(seen).toEqual([2, 3]);
    expect(s.document.tiers).toEqual(["free", "premium", "gold"]);
    expect(s.document.rules).toHaveLength(3);
  });

  /** A hand edit as editors make it: the whole file replaced at once (a temp file renamed over it). */
  const handEdit = (change: (text: string) => string): void => {
    writeFileSync(`${file}.hand`, change(readFileSync(file, "utf8")));
    renameSync(`${file}.hand`, file);
  };

  it("keeps a hand edit that lands while an admin write is in flight, and applies the write on top of it", async () => {
    const r = repo();
    const seen: number[] = [];
    r.watch((s) => seen.push(s.version));
    await r.load();
    let runs = 0;
    const s = await r.update((draft) => {
      // The first run is on the file as read; the hand edit lands after that read, before the write's rename.
      if (++runs === 1) handEdit((text) => `${text}identities:\n  "user:hand": premium\n`);
      draft.identities = { ...draft.identities, "user:admin": "free" };
    });
    expect(runs).toBe(2); // started over from the hand-edited file
    expect(seen).toEqual([2, 3]); // the hand edit, then the admin write on top of it
    expect(s.document.identities).toEqual({ "user:hand": "premium", "user:admin": "free" });
    expect(parse(await readFile(file, "utf8")).identities).toEqual({
      "user:hand": "premium",
      "user:admin": "free",
    });
  });

  it("gives up, writing nothing, when the file changes by hand during every attempt of a write", async () => {
    const r = repo();
    await r.load();
    let runs = 0;
    const write = r.update((draft) => {
      runs++;
      handEdit((text) => `${text}# hand edit ${runs}\n`);
      draft.tiers = ["free", "premium", "gold"];
    });
    await expect(write).rejects.toMatchObject({
      code: "ERR_SLUICE_STORE_UNAVAILABLE",
      message: expect.stringContaining(`${file}: gave up after ${MAX_WRITE_ATTEMPTS} attempts`),
    });
    expect(runs).toBe(MAX_WRITE_ATTEMPTS);
    const text = await readFile(file, "utf8");
    expect(text).toContain(`# hand edit ${MAX_WRITE_ATTEMPTS}\n`);
    expect(parse(text).tiers).toEqual(["free", "premium"]);
  });

  it("keeps the last good snapshot when a hand edit breaks the file, and refuses to overwrite it", async () => {
    const errors: unknown[] = [];
    const r = repo({ watch: true, onError: (e) => errors.push(e) });
    const s = await r.load();
    await writeFile(file, "rules:\n  - id: broken\n    limits: nope\n");
    await until(() => errors.length > 0, "the error report");
    expect(errors[0]).toBeInstanceOf(ConfigError);
    expect(await r.load()).toBe(s);
    const bytes = await readFile(file);
    await expect(r.update((draft) => draft.rules?.push(rule("acme")))).rejects.toThrow(/rules\[0\]/);
    expect(await readFile(file)).toEqual(bytes);
  });

  it("loads an envoyproxy/ratelimit file read-only", async () => {
    const envoy = join(dir, "envoy.yaml");
    await copyFile(ENVOY_EXAMPLE, envoy);
    const bytes = await readFile(envoy);
    const r = repo({ path: envoy });
    const s = await r.load();
    expect(s.config.rules.length).toBeGreaterThan(0);
    expect(s.document.rules).toEqual([]);
    const error = await r.update((draft) => draft.rules?.push(rule("acme"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceError);
    expect(error).toMatchObject({ code: "ERR_SLUICE_UNSUPPORTED" });
    expect((error as Error).message).toContain(envoy);
    expect(await readFile(envoy)).toEqual(bytes);
  });

  it("compiles an envoyproxy/ratelimit file with the envoyAlgorithm given, as the service loads it", async () => {
    const envoy = join(dir, "envoy.yaml");
    await copyFile(ENVOY_EXAMPLE, envoy);
    const r = fileConfigRepository({ path: envoy, clock, watch: false, envoyAlgorithm: "gcra" });
    open.push(r);
    const algorithms = (await r.load()).config.rules.flatMap((x) => x.limits.map((l) => l.algorithm));
    expect(algorithms.length).toBeGreaterThan(0);
    expect(new Set(algorithms)).toEqual(new Set(["gcra"]));
    await r.close();
    expect((await repo({ path: envoy }).load()).config.rules[0].limits[0].algorithm).toBe("fixed_window");
  });

  it("read-only: refuses every update with the reason, takes no lock, leaves the directory alone", async () => {
    const bytes = await readFile(file);
    const readOnly = () => {
      const r = fileConfigRepository({
        path: file,
        clock,
        watch: false,
        readOnly: { reason: "edit the file" },
      });
      open.push(r);
      return r;
    };
    // A writer holds the lock: read-only repositories on the same file load anyway, any number of them.
    const writer = repo();
    await writer.load();
    // A temp file of a writer that died, which a writing repository removes on its first read.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // a pid that has exited
    const stale = `.sluice.yaml.${dead}.0123456789ab.sluice-tmp`;
    await writeFile(join(dir, stale), "rules: [ {{{ torn");
    const [a, b] = [readOnly(), readOnly()];
    expect((await a.load()).document.rules).toHaveLength(2);
    expect((await b.load()).config.rules).toHaveLength(2);
    await writer.close();
    expect((await readdir(dir)).sort()).toEqual([stale, "sluice.yaml"]);
    // Whatever the file holds, native here: refused before any write, naming the file.
    const error = await a.update((draft) => draft.rules?.push(rule("acme"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceError);
    expect(error).toMatchObject({ code: "ERR_SLUICE_UNSUPPORTED", message: `${file}: edit the file` });
    expect(await readFile(file)).toEqual(bytes);
    expect((await readdir(dir)).sort()).toEqual([stale, "sluice.yaml"]);
  });

  it("read-only: applies hand edits, as the watch does for any repository", async () => {
    const r = fileConfigRepository({
      path: file,
      clock,
      debounceMs: 10,
      readOnly: { reason: "edit the file" },
    });
    open.push(r);
    const seen: ConfigSnapshot[] = [];
    r.watch((s) => seen.push(s));
    expect((await r.load()).version).toBe(1);
    await writeFile(file, BASE.replace("limit: 10,", "limit: 20,"));
    await until(() => seen.length > 0, "the hand edit");
    expect(seen[0].version).toBe(2);
    expect(limitsOf(seen[0].document.rules?.[0])[0].limit).toBe(20);
  });

  it("rewrites a JSON file as JSON", async () => {
    const json = join(dir, "sluice.json");
    await writeFile(json, JSON.stringify(parse(BASE)));
    const r = repo({ path: json });
    const s = await r.update((draft) => {
      draft.rules?.push(rule("acme"));
    });
    const text = await readFile(json, "utf8");
    expect(JSON.parse(text)).toEqual(s.document);
    expect((await loadConfigFile(json)).rules).toHaveLength(3);
  });

  it("ignores and removes temp files left by a writer that died", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // a pid that has exited
    const stale = join(dir, `.sluice.yaml.${dead}.0123456789ab.sluice-tmp`);
    await writeFile(stale, "rules: [ {{{ torn");
    const r = repo();
    expect((await r.load()).document.rules).toHaveLength(2);
    expect(await readdir(dir)).toEqual(["sluice.yaml", "sluice.yaml.lock"]);
  });

  it("refuses a second repository on the same file while the first is open, and writes nothing", async () => {
    const first = repo();
    await first.load();
    const bytes = await readFile(file);
    const second = repo();
    const error = await second.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileLockedError);
    expect(error).toMatchObject({ code: "ERR_SLUICE_FILE_LOCKED", file, holderPid: process.pid });
    await expect(
      second.update((draft) => {
        draft.rules = [];
      }),
    ).rejects.toBeInstanceOf(FileLockedError);
    expect(await readFile(file)).toEqual(bytes);
    await first.close();
    expect((await second.load()).document.rules).toHaveLength(2);
  });

  it("refuses use after close", async () => {
    const r = repo();
    await r.load();
    await r.close();
    await expect(r.load()).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_CLOSED" });
  });
});

// The Redis config repository against real redis-server processes: seeding without clobbering, a write on one
// instance reaching another's watcher, compare-and-set under concurrent writers (no lost update), an invalid or
// aborted edit writing nothing, the poll catching a change whose notification was lost, and instances that
// start, reconnect, or find Redis emptied by a restart loading (or restoring) the latest version.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { ManualClock } from "../../src/core/manual-clock.js";
import type { NativeConfigInput } from "../../src/rules/config-schema.js";
import type { ConfigRepository, ConfigSnapshot } from "../../src/server/admin/config-repository.js";
import {
  type RedisConfigRepositoryOptions,
  redisConfigRepository,
} from "../../src/server/admin/redis-config-repository.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";

type Rule = NonNullable<NativeConfigInput["rules"]>[number];
const rule = (id: string, limit = 5): Rule => ({
  id,
  domain: "api",
  match: [{ key: "tenant", value: id }],
  limits: [{ name: "per-minute", limit, period: "1m" }],
});
/** The limits of `r`, to edit in place (the rule must exist and have limits). */
const limitsOf = (r: Rule | undefined) => (r as Rule).limits as { limit: number }[];
const SEED: NativeConfigInput = { version: 1, tiers: ["free"], rules: [rule("base")] };

/** Polls `done` every 10 ms until it holds (or 10 s pass): a bound, not a timing assertion. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const clients: Redis[] = [];
const repos: ConfigRepository[] = [];
function client(url: string): Redis {
  const c = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
  c.on("error", () => {});
  clients.push(c);
  return c;
}
function repo(options: RedisConfigRepositoryOptions): ConfigRepository {
  const r = redisConfigRepository(options);
  repos.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.close()));
  for (const c of clients.splice(0)) c.disconnect();
});

describe("redisConfigRepository on the shared server", () => {
  let url: string;
  let raw: Redis;
  beforeAll(async () => {
    url = (await getSharedRedis()).url;
    raw = new Redis(url);
  });
  const prefixes: string[] = [];
  afterAll(async () => {
    if (prefixes.length > 0) await raw.del(...prefixes.map((p) => `${p}:config`));
    raw.disconnect();
  });
  const prefix = (label: string) => {
    const p = uniqueKeyPrefix(label).slice(0, -1);
    prefixes.push(p);
    return p;
  };

  it("seeds an empty Redis once, even when two instances start together", async () => {
    const p = prefix("seed");
    const a = repo({ client: client(url), prefix: p, seed: SEED });
    const b = repo({ client: client(url), prefix: p, seed: { ...SEED, rules: [rule("other")] } });
    const [sa, sb] = await Promise.all([a.load(), b.load()]);
    expect(sa.version).toBe(1);
    expect(sb.version).toBe(1);
    expect(sb.document).toEqual(sa.document); // one of the seeds won, and both hold it
    expect(await raw.hget(`${p}:config`, "version")).toBe("1");
    expect(a.location).toMatch(new RegExp(`^redis://127\\.0\\.0\\.1:\\d+/${p}$`));

    const late = repo({ client: client(url), prefix: p, seed: { version: 1, rules: [] } });
    expect((await late.load()).document).toEqual(sa.document); // a later seed does not overwrite
  });

  it("starts empty at version 0 without a seed; the first write is version 1", async () => {
    const p = prefix("empty");
    const a = repo({ client: client(url), prefix: p });
    const s0 = await a.load();
    expect(s0.version).toBe(0);
    expect(s0.config.rules).toEqual([]);
    const s1 = await a.update((d) => {
      d.rules?.push(rule("x"));
    });
    expect(s1.version).toBe(1);
    expect(JSON.parse((await raw.hget(`${p}:config`, "document")) as string)).toEqual(s1.document);
  });

  it("delivers a write on one instance to the other's watcher", async () => {
    const p = prefix("watch");
    const a = repo({ client: client(url), prefix: p, seed: SEED });
    const b = repo({ client: client(url), prefix: p, seed: SEED });
    await Promise.all([a.load(), b.load()]);
    const seenByB: ConfigSnapshot[] = [];
    b.watch((s) => seenByB.push(s));
    const seenByA: number[] = [];
    a.watch((s) => seenByA.push(s.version));
    const written = await a.update((d) => {
      d.rules?.push(rule("acme", 7));
    });
    expect(written.version).toBe(2);
    expect(seenByA).toEqual([2]); // the writer's own watchers hear it once
    await until(() => seenByB.length > 0, "the change to reach the other instance");
    expect(seenByB[0].version).toBe(2);
    expect(seenByB[0].document).toEqual(written.document);
    expect(seenByB[0].config.rules.map((r) => r.id)).toEqual(["base", "acme"]);
    expect(await b.load()).toBe(seenByB[0]);

    // Figures (not asserted): from the start of a write on a to b's listener, over 20 writes.
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      const arrived = new Promise<void>((resolve) => {
        const stop = b.watch(() => {
          stop();
          resolve();
        });
      });
      await a.update((d) => {
        d.rules?.push(rule(`m${i}`));
      });
      await arrived;
      delays.push(performance.now() - start);
    }
    delays.sort((x, y) => x - y);
    console.log(
      `admin-redis-config: write on one instance -> other instance's watcher: median ${delays[10].toFixed(2)} ms, max ${delays[19].toFixed(2)} ms (20 writes)`,
    );
  });

  it("keeps every edit of two instances racing (compare-and-set retries)", async () => {
    const p = prefix("race");
    const a = repo({ client: client(url), prefix: p, seed: SEED });
    const b = repo({ client: client(url), prefix: p, seed: SEED });
    await Promise.all([a.load(), b.load()]);
    const N = 15;
    const edits = (r: ConfigRepository, name: string) =>
      Array.from({ length: N }, (_, i) =>
        r.update((d) => {
          d.rules?.push(rule(`${name}${i}`));
        }),
      );
    const results = await Promise.all([...edits(a, "a"), ...edits(b, "b")]);
    const versions = results.map((s) => s.version).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: 2 * N }, (_, i) => i + 2)); // each write its own version
    const final = JSON.parse((await raw.hget(`${p}:config`, "document")) as string) as NativeConfigInput;
    const ids = new Set(final.rules?.map((r) => r.id));
    expect(ids.size).toBe(2 * N + 1);
    for (let i = 0; i < N; i++) expect(ids.has(`a${i}`) && ids.has(`b${i}`)).toBe(true);
    await until(async () => (await a.load()).version === 2 * N + 1, "a to reach the last version");
    await until(async () => (await b.load()).version === 2 * N + 1, "b to reach the last version");
  });

  it("writes nothing for an invalid edit or an edit that throws", async () => {
    const p = prefix("invalid");
    const a = repo({ client: client(url), prefix: p, seed: SEED });
    await a.load();
    const before = await raw.hgetall(`${p}:config`);
    const error = await a
      .update((d) => {
        d.rules?.push({ ...rule("base") }); // duplicate id
        limitsOf(d.rules?.[0])[0].limit = 0;
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toContain("rules[0].limits[0].limit");
    const boom = new Error("412");
    await expect(
      a.update((d) => {
        d.rules = [];
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await raw.hgetall(`${p}:config`)).toEqual(before);
    expect((await a.load()).version).toBe(1);
  });

  it("catches a change whose notification was lost on the next poll", async () => {
    const p = prefix("poll");
    const clock = new ManualClock(1_700_000_000_000);
    const a = repo({ client: client(url), prefix: p, seed: SEED, clock, scheduler: clock });
    await a.load();
    const seen: number[] = [];
    a.watch((s) => seen.push(s.version));
    // Another writer that does not publish (a lost message).
    await raw.hset(`${p}:config`, {
      version: 2,
      stamp: "by-hand",
      document: JSON.stringify({ ...SEED, rules: [rule("base", 9)] }),
    });
    clock.advance(1000);
    await until(() => seen.length > 0, "the poll to load version 2");
    expect(seen).toEqual([2]);
    expect((await a.load()).config.rules[0].limits[0].limit).toBe(9);
  });

  it("reports a bad document once, keeps the last good one, and the next edit replaces it", async () => {
    const p = prefix("bad");
    const errors: unknown[] = [];
    const clock = new ManualClock(1_700_000_000_000);
    const a = repo({
      client: client(url),
      prefix: p,
      seed: SEED,
      clock,
      scheduler: clock,
      onError: (e) => errors.push(e),
    });
    const good = await a.load();
    await raw.hset(`${p}:config`, { version: 2, stamp: "bad", document: '{"rules": "nope"}' });
    clock.advance(1000);
    await until(() => errors.length > 0, "the bad document to be reported");
    clock.advance(1000);
    await until(() => clock.pendingSleeps > 0, "the next poll");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConfigError);
    expect(await a.load()).toBe(good);
    const fixed = await a.update((d) => {
      d.rules?.push(rule("acme"));
    });
    expect(fixed.version).toBe(3);
    expect(fixed.document.rules?.map((r) => r.id)).toEqual(["base", "acme"]);
  });

  it("recovers when the previous hash is restored as it was, and reports the same bad document again later", async () => {
    const p = prefix("recover");
    const errors: unknown[] = [];
    const recovered: ConfigSnapshot[] = [];
    const clock = new ManualClock(1_700_000_000_000);
    const a = repo({
      client: client(url),
      prefix: p,
      seed: SEED,
      clock,
      scheduler: clock,
      onError: (e) => errors.push(e),
      onRecovered: (s) => recovered.push(s),
    });
    const good = await a.load();
    const hash = await raw.hgetall(`${p}:config`);
    const bad = { version: 2, stamp: "bad", document: '{"rules": "nope"}' };
    await raw.hset(`${p}:config`, bad);
    clock.advance(1000);
    await until(() => errors.length > 0, "the bad document to be reported");
    expect(recovered).toEqual([]);
    await raw.multi().del(`${p}:config`).hset(`${p}:config`, hash).exec();
    clock.advance(1000);
    await until(() => recovered.length > 0, "the restored document to be recognised");
    expect(recovered).toEqual([good]);
    // No new version: nothing to announce, only the recovery.
    expect(await a.load()).toBe(good);
    await raw.hset(`${p}:config`, bad);
    clock.advance(1000);
    await until(() => errors.length > 1, "the same bad document to be reported again");
    expect(errors.every((e) => e instanceof ConfigError)).toBe(true);
  });
});

describe("redisConfigRepository across restarts", () => {
  let server: RedisProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("loads the latest version when an instance starts, and after Redis restarts", async () => {
    // With an append-only file, so the data survives the restart.
    server = await startRedis({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
    const a = repo({ client: client(server.url), seed: SEED });
    const b = repo({ client: client(server.url), seed: SEED });
    await Promise.all([a.load(), b.load()]);
    await a.update((d) => {
      d.rules?.push(rule("one"));
    });
    await a.update((d) => {
      d.rules?.push(rule("two"));
    });
    const late = repo({ client: client(server.url), seed: SEED });
    expect((await late.load()).version).toBe(3);

    await until(async () => (await b.load()).version === 3, "b to reach version 3");
    const seenByB: number[] = [];
    b.watch((s) => seenByB.push(s.version));
    await server.restart("SIGKILL");
    // Written right after the restart, possibly before b's subscriber is back: b must still get it.
    const s4 = await a.update((d) => {
      d.rules?.push(rule("three"));
    });
    expect(s4.version).toBe(4);
    await until(() => seenByB.includes(4), "b to load version 4 after the reconnect");
    expect((await b.load()).document).toEqual(s4.document);
  });

  it("writes back the latest version when Redis comes back empty", async () => {
    server = await startRedis(); // no persistence: a restart loses everything
    const a = repo({ client: client(server.url), seed: SEED });
    await a.load();
    const s2 = await a.update((d) => {
      d.rules?.push(rule("kept"));
    });
    await server.restart("SIGKILL");
    const check = new Redis(server.url);
    try {
      await until(
        async () => (await check.hget("sluice:config", "version")) === "2",
        "a to restore version 2",
      );
      const fresh = repo({ client: client(server.url), seed: SEED });
      const loaded = await fresh.load();
      expect(loaded.version).toBe(2);
      expect(loaded.document).toEqual(s2.document);
    } finally {
      check.disconnect();
    }
  });
});

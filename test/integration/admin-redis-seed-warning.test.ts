// The admin API in Redis mode against real redis-server processes: the rules file only seeds a Redis that holds no
// configuration, so a file that differs from the document Redis holds (a restart with an edited or another file, an
// edit while the service runs, an envoyproxy/ratelimit file) is warned of, naming the file, the Redis location, the
// version held and the key to delete to seed again; a file equal to Redis's document once normalised (the instance
// that seeded it, the same rules in another layout) gives no warning. Also when Redis answers only after the start.
// An envoyproxy/ratelimit file is no seed but the rules in force (see admin-service.ts): no such warning, but one
// when Redis holds a configuration that instance does not use; and a native file edited into that format while
// the service follows Redis is warned of.

import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import type { Engine } from "../../src/engine/engine.js";
import { createEngine } from "../../src/engine/engine.js";
import { loadConfigFile } from "../../src/rules/load-config.js";
import {
  ENVOY_FILE_READ_ONLY,
  type RunningAdmin,
  startAdminService,
} from "../../src/server/admin/admin-service.js";
import { adminTokens } from "../../src/server/admin/admin-tokens.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";
import { testDir } from "../support/service-clients.js";

const SEEDED = `# the first version
version: 1
tiers: [free]
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 2, period: 1h }]
`;
/** SEEDED's document in another layout and key order, without comments: equal once normalised. */
const SEEDED_AS_JSON = JSON.stringify({
  rules: [
    {
      limits: [{ period: "1h", limit: 2, algorithm: "fixed_window", name: "per-hour" }],
      match: [{ key: "user" }],
      domain: "api",
      id: "per-user",
    },
  ],
  tiers: ["free"],
  version: 1,
});
/** SEEDED with the limit edited. */
const EDITED = SEEDED.replace("limit: 2,", "limit: 5,");
const ENVOY = `domain: api
descriptors:
  - key: user
    rate_limit: { unit: minute, requests_per_unit: 3 }
`;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const files = testDir("admin-seed-warning");
const running: RunningAdmin[] = [];

/** Starts the admin service on `configFile` against `url` (prefix `prefix`); its warnings land in `lines`. */
async function start(
  configFile: string,
  url: string,
  prefix: string,
  watch = false,
): Promise<{ admin: RunningAdmin; lines: Line[]; engine: Engine }> {
  const lines: Line[] = [];
  const log = pino({ level: "warn" }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  const engine = createEngine({ config: await loadConfigFile(configFile), clock: systemClock });
  const admin = await startAdminService({
    engine,
    configFile,
    redis: {
      redisUrls: [url],
      redisCluster: false,
      redisSentinel: undefined,
      redisSentinelPassword: undefined,
    },
    redisPrefix: prefix,
    tokens: adminTokens([]),
    readAccess: "open",
    clock: systemClock,
    log,
    host: "127.0.0.1",
    port: 0,
    watch,
  });
  running.push(admin);
  return { admin, lines, engine };
}

/** The warnings about the rules file among `lines`. */
const fileWarnings = (lines: readonly Line[]): Line[] =>
  lines.filter((l) => l.level === 40 && l.msg.startsWith("admin API: the rules file"));

/** The warnings and errors among `lines` but the one of every test (no admin tokens: writes refused). */
const problems = (lines: readonly Line[]): Line[] =>
  lines.filter((l) => l.level >= 40 && !l.msg.startsWith("admin API: no tokens configured"));

/** Polls `done` every 10 ms until it holds (or 15 s pass): a bound, not a timing assertion. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
});
afterAll(() => files.remove());

describe("the admin API in Redis mode, on the shared server", () => {
  let url: string;
  let raw: Redis;
  const prefixes: string[] = [];
  beforeAll(async () => {
    url = (await getSharedRedis()).url;
    raw = new Redis(url);
  });
  afterAll(async () => {
    if (prefixes.length > 0)
      await raw.del(...prefixes.map((p) => `${p}:config`), ...prefixes.map((p) => `${p}:audit`));
    raw.disconnect();
  });
  const prefix = (label: string): string => {
    const p = uniqueKeyPrefix(label).slice(0, -1);
    prefixes.push(p);
    return p;
  };

  it("warns when restarted with a file that differs from the document Redis holds, not with an equal one", async () => {
    const p = prefix("seedwarn");
    const seeded = files.write("seeded.yaml", SEEDED);
    // The instance that seeds Redis: its file is Redis's document.
    const first = await start(seeded, url, p);
    expect(await raw.hget(`${p}:config`, "version")).toBe("1");
    expect(fileWarnings(first.lines)).toEqual([]);
    await first.admin.close();

    // The same document in another layout: no warning either.
    const json = await start(files.write("seeded.json", SEEDED_AS_JSON), url, p);
    expect(fileWarnings(json.lines)).toEqual([]);
    await json.admin.close();

    // Restarted with an edited file: Redis's document stays in force, and the warning says so.
    const edited = files.write("edited.yaml", EDITED);
    const second = await start(edited, url, p);
    const [warning, ...more] = fileWarnings(second.lines);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({
      configFile: edited,
      configuration: `${url}/${p}`,
      version: 1,
      rules: 1,
      key: `${p}:config`,
    });
    expect(warning.msg).toBe(
      `admin API: the rules file ${edited} differs from the configuration in Redis (${url}/${p}, version 1), ` +
        "which is in force: the file's rules are not applied. In Redis mode the file only seeds a Redis that holds " +
        "no configuration yet, and edits to it are ignored. Change the rules through the admin API or the " +
        `dashboard; or, to seed Redis from the file again, stop every instance, delete the key ${p}:config ` +
        `(redis-cli DEL ${p}:config) and start them again`,
    );
    // Nothing was written: Redis still holds the seeded document.
    expect(await raw.hget(`${p}:config`, "version")).toBe("1");
    expect(await raw.hget(`${p}:config`, "document")).toContain('"limit":2');
  });

  it("warns when the file is edited while the service runs (the edit is not applied), not when it is reformatted", async () => {
    const p = prefix("seedwarn-edit");
    const path = files.write("watched.yaml", SEEDED);
    const { lines } = await start(path, url, p, true);
    expect(fileWarnings(lines)).toEqual([]);
    // Only comments change: the document is Redis's, nothing to warn of. Then an edit that changes a limit.
    files.write("watched.yaml", `# reformatted\n${SEEDED}`);
    await new Promise((r) => setTimeout(r, 500));
    expect(fileWarnings(lines)).toEqual([]);
    files.write("watched.yaml", EDITED);
    await until(() => fileWarnings(lines).length > 0, "the warning on the edit");
    expect(fileWarnings(lines)[0]).toMatchObject({ configFile: path, version: 1, key: `${p}:config` });
    expect(fileWarnings(lines)[0].msg).toContain(
      `admin API: the rules file ${path} changed, and the change is not applied: the configuration in Redis ` +
        `(${url}/${p}, version 1) stays in force. In Redis mode the file only seeds`,
    );
  });

  it("applies an envoyproxy/ratelimit file's rules, not Redis's (empty) configuration, and warns of nothing", async () => {
    const p = prefix("seedwarn-envoy");
    const path = files.write("envoy.yaml", ENVOY);
    const { admin, lines, engine } = await start(path, url, p);
    expect(fileWarnings(lines)).toEqual([]);
    expect(problems(lines)).toEqual([]);
    expect(engine.config.rules.map((r) => r.id)).toEqual(["user"]);
    expect(admin.location).toBe(`file:${path}`);
    expect(await raw.exists(`${p}:config`)).toBe(0); // no seed written
    // The admin API says that the rules cannot be changed through it, and why.
    const status = (await (await fetch(`http://127.0.0.1:${admin.port}/api/v1/status`)).json()) as {
      repository: unknown;
    };
    expect(status.repository).toEqual({
      location: `file:${path}`,
      appliedVersion: 1,
      readOnly: true,
      readOnlyReason: `${path}: ${ENVOY_FILE_READ_ONLY}`,
    });
  });

  it("warns when Redis holds a configuration an envoyproxy/ratelimit instance does not use", async () => {
    const p = prefix("seedwarn-envoy-unused");
    const seeder = await start(files.write("unused-seed.yaml", SEEDED), url, p);
    await seeder.admin.close();
    const path = files.write("envoy-unused.yaml", ENVOY);
    const { lines, engine } = await start(path, url, p);
    await until(() => problems(lines).length > 0, "the warning");
    const [warning, ...more] = problems(lines);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ configFile: path, key: `${p}:config`, version: 1 });
    expect(warning.msg).toBe(
      `admin API: Redis holds a shared configuration (${p}:config, version 1) that this instance does not use: its ` +
        `rules come from the envoyproxy/ratelimit file ${path}. Instances on this Redis and prefix started with a ` +
        "native rules file follow that configuration, sharing counters with this one under other rules; once none " +
        `does, delete it (redis-cli DEL ${p}:config)`,
    );
    expect(engine.config.rules.map((r) => r.id)).toEqual(["user"]);
  });

  it("warns when a native file is edited into the envoyproxy/ratelimit format while it follows Redis", async () => {
    const p = prefix("seedwarn-to-envoy");
    const path = files.write("to-envoy.yaml", SEEDED);
    const { lines, engine } = await start(path, url, p, true);
    expect(fileWarnings(lines)).toEqual([]);
    files.write("to-envoy.yaml", ENVOY);
    await until(() => fileWarnings(lines).length > 0, "the warning on the edit");
    const [warning, ...more] = fileWarnings(lines);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ configFile: path, version: 1, key: `${p}:config` });
    expect(warning.msg).toBe(
      `admin API: the rules file ${path} changed to the envoyproxy/ratelimit format, and the change is not ` +
        `applied: the configuration in Redis (${url}/${p}, version 1) stays in force. An instance started with an ` +
        "envoyproxy/ratelimit file takes its rules from the file (restart to do so)",
    );
    expect(engine.config.rules.map((r) => r.id)).toEqual(["per-user"]);
  });
});

describe("the admin API in Redis mode, Redis unreachable at start", () => {
  let server: RedisProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("warns on the first load, once Redis answers, when the file differs from the document Redis holds", async () => {
    // An append-only file, so the document survives the restart.
    server = await startRedis({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
    const seeded = files.write("down-seeded.yaml", SEEDED);
    const first = await start(seeded, server.url, "down");
    expect(fileWarnings(first.lines)).toEqual([]);
    await first.admin.close();
    await server.kill("SIGTERM");

    const edited = files.write("down-edited.yaml", EDITED);
    const { lines } = await start(edited, server.url, "down");
    expect(lines.map((l) => l.msg)).toContain(
      "admin API: the configuration in Redis is not reachable yet: serving the rules file meanwhile; admin reads and writes answer 503 until Redis answers",
    );
    expect(fileWarnings(lines)).toEqual([]);
    await server.start();
    await until(() => fileWarnings(lines).length > 0, "the warning once Redis answers");
    const [warning, ...more] = fileWarnings(lines);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({ configFile: edited, version: 1, key: "down:config" });
    expect(warning.msg).toContain(
      `admin API: the rules file ${edited} differs from the configuration in Redis`,
    );
  }, 60_000);
});

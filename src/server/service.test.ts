import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type Logger, pino } from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type RedisProcess, startRedis } from "../../test/support/redis-server.js";
import { healthClient } from "../../test/support/service-clients.js";
import { ManualClock } from "../core/manual-clock.js";
import { IDEMPOTENCY_MAX_BYTES } from "../engine/engine.js";
import { parseConfig } from "../rules/load-config.js";
import { memoryStore } from "../stores/memory/memory-store.js";
import {
  httpOptionsOf,
  READINESS_CACHE_MS,
  type RunningService,
  resolveDefaultDomain,
  startService,
} from "./service.js";
import { createServiceLogger } from "./service-logger.js";
import { parseServiceSettings, type ServiceSettings } from "./service-settings.js";
import type { ProbeResult, ServiceStore } from "./service-store.js";

const dir = mkdtempSync(join(tmpdir(), "sluice-service-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ONE_DOMAIN = `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
`;
const TWO_DOMAINS = `${ONE_DOMAIN}  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
`;

function settings(flags: Record<string, string | boolean> = {}, text = ONE_DOMAIN): ServiceSettings {
  const file = join(dir, `rules-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return parseServiceSettings(
    { config: file, httpPort: "0", grpcPort: "0", admin: false, watch: false, logLevel: "silent", ...flags },
    {},
  );
}

/** The SHA-256 of a file's bytes, as `sha256sum` prints it. */
function sha256Of(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** A pino logger keeping every line it writes, parsed, in `lines`. */
function capturingLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log: Logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** A tokens file granting `ops` the token it returns, for admin API writes. */
function adminToken(): { tokensFile: string; token: string } {
  const token = `ops-token-${Math.random().toString(36).slice(2)}`;
  const tokensFile = join(dir, `tokens-${Math.random().toString(36).slice(2)}`);
  writeFileSync(tokensFile, `ops:${token}\n`);
  return { tokensFile, token };
}

/** Calls the admin API of `svc` with `token`; answers the status and the JSON body (if any). */
async function adminCall(
  svc: RunningService,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const r = await fetch(`http://127.0.0.1:${svc.adminPort}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** Polls `read` every 10 ms until it answers `want`, 10 s at most: a bound, not a timing assertion. */
async function until<T>(read: () => Promise<T>, want: T, what: string): Promise<void> {
  for (let i = 0; (await read()) !== want; i++) {
    if (i > 1000) throw new Error(`timed out waiting for ${what} (last: ${String(await read())})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A rule for the admin API to add (domain `api`, keyed by `ip`). */
const ADDED_RULE = {
  id: "per-ip",
  domain: "api",
  match: [{ key: "ip" }],
  limits: [{ name: "per-second", limit: 5, period: "1s" }],
};

/** A memory store whose readiness probe is counted and scripted. */
function countingStore(answers: ProbeResult[] = []): ServiceStore & { probes: number } {
  const store = memoryStore({ capacity: 1000 });
  const s = {
    store,
    description: "counting memory store",
    probes: 0,
    async probe(): Promise<ProbeResult> {
      s.probes++;
      return answers.shift() ?? { ok: true, detail: "fine" };
    },
    connected: async () => true,
    close: () => store.close(),
  };
  return s;
}

describe("resolveDefaultDomain", () => {
  it("takes the setting, else the configuration's only domain, else none", () => {
    const one = parseConfig(ONE_DOMAIN);
    const two = parseConfig(TWO_DOMAINS);
    expect(resolveDefaultDomain(settings(), one)).toBe("api");
    expect(resolveDefaultDomain(settings(), two)).toBeUndefined();
    expect(resolveDefaultDomain(settings({ defaultDomain: "edge" }), two)).toBe("edge");
  });
});

describe("httpOptionsOf", () => {
  it("maps the forward-auth and header settings onto the HTTP server's options", () => {
    const readiness = async () => ({ ready: true, checks: {} });
    const s = settings({
      authDenyStatus: "403",
      authUserHeader: "X-Auth-User",
      authAddressHeader: "",
      authDescriptors: "user;user,endpoint",
      authHeaders: "x-original",
      trustedProxyHops: "2",
      legacyHeaders: true,
    });
    expect(httpOptionsOf(s, "api", readiness)).toEqual({
      defaultDomain: "api",
      readiness,
      legacyHeaders: true,
      forwardAuth: {
        domain: "api",
        userHeader: "x-auth-user",
        headers: "x-original",
        addressHeader: "",
        descriptors: ["user", "user,endpoint"],
        denyStatus: 403,
        trustedProxyHops: 2,
      },
    });
    expect(httpOptionsOf(settings({ authDomain: "edge" }), "api", readiness).forwardAuth?.domain).toBe(
      "edge",
    );
  });
});

describe("startService (in process)", () => {
  it("serves on the bound ports, is ready, and closes once however often close() is called", async () => {
    const lines: string[] = [];
    const log = createServiceLogger({ destination: { write: (l: string) => lines.push(l) } });
    const svc = await startService(settings(), { log });
    expect(svc.httpPort).toBeGreaterThan(0);
    expect(svc.grpcPort).toBeGreaterThan(0);
    expect(svc.defaultDomain).toBe("api");
    const r = await fetch(`http://127.0.0.1:${svc.httpPort}/v1/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ identifier: "u", dimension: "user" }),
    });
    expect(((await r.json()) as { allowed: boolean }).allowed).toBe(true);
    expect(await svc.readiness()).toEqual({
      ready: true,
      checks: {
        store: { ok: true, detail: "memory (in process)" },
        config: {
          ok: true,
          detail: expect.stringMatching(
            /^unversioned rules from .*rules-.*\.yaml \(sha256 [0-9a-f]{64}\), 0 reloads/,
          ),
        },
        forwardAuth: { ok: true, detail: "domain api: 1 rule" },
      },
    });
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; endpoint?: string });
    expect(logged.filter((l) => l.endpoint !== undefined).map((l) => l.endpoint)).toEqual(["http", "grpc"]);

    const first = svc.close();
    expect(svc.close()).toBe(first);
    expect(await first).toEqual({ drained: true });
    const after = await svc.readiness();
    expect(after.ready).toBe(false);
    expect(after.checks.shutdown).toEqual({ ok: false, detail: "draining: shutting down" });
  });

  it("keeps the idempotent answers of unique keys on large requests within the default byte bound", async () => {
    // A key per request, each answer holding 60 descriptors of 1000-character values: kept by count alone (100,000
    // of ~100 KB), they ran the heap out of memory after ~42,000 requests.
    const svc = await startService(settings(), { log: createServiceLogger({ level: "silent" }) });
    try {
      const check = async (i: number): Promise<{ replayed: boolean }> => {
        const descriptors = Array.from({ length: 60 }, (_, d) => ({
          entries: [{ key: "user", value: `${i}_${d}_`.padEnd(1000, "x") }],
        }));
        const r = await fetch(`http://127.0.0.1:${svc.httpPort}/v1/check`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ domain: "api", descriptors, idempotency_key: `key-${i}` }),
        });
        expect(r.status).toBe(200);
        return (await r.json()) as { replayed: boolean };
      };
      const total = 800; // ~90 MB of answers by the estimate
      let next = 0;
      const worker = async () => {
        while (next < total) expect((await check(next++)).replayed).toBe(false);
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const metrics = await (await fetch(`http://127.0.0.1:${svc.httpPort}/metrics`)).text();
      const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(metrics)?.[1]);
      const records = gauge("sluice_idempotency_records");
      expect(gauge("sluice_idempotency_bytes")).toBeLessThanOrEqual(IDEMPOTENCY_MAX_BYTES);
      expect(records).toBeGreaterThan(0);
      expect(records).toBeLessThan(total);
      expect((await check(total - 1)).replayed).toBe(true); // the newest is kept
      expect((await check(0)).replayed).toBe(false); // the oldest was dropped
    } finally {
      await svc.close();
    }
  });

  it("probes the store at most once per cache period, concurrent callers sharing one probe", async () => {
    const stopwatch = new ManualClock(1000);
    const store = countingStore([
      { ok: true, detail: "warm-up" },
      { ok: false, detail: "down" },
    ]);
    const svc = await startService(settings(), {
      log: createServiceLogger({ level: "silent" }),
      stopwatch,
      createStore: async () => store,
    });
    try {
      expect(store.probes).toBe(1); // the warm-up round trip at start
      const [a, b] = await Promise.all([svc.readiness(), svc.readiness()]);
      expect(store.probes).toBe(2);
      expect(a).toEqual(b);
      expect(a.ready).toBe(false);
      expect(a.checks.store).toEqual({ ok: false, detail: "down" });
      stopwatch.advance(READINESS_CACHE_MS - 1);
      await svc.readiness();
      expect(store.probes).toBe(2);
      stopwatch.advance(1);
      expect((await svc.readiness()).ready).toBe(true);
      expect(store.probes).toBe(3);
    } finally {
      await svc.close();
    }
  });

  it("turns gRPC health NOT_SERVING while the store is unreachable, and SERVING again once it answers", async () => {
    const clock = new ManualClock(1000); // the stopwatch of the probe's cache and the health loop's scheduler
    const store = countingStore([
      { ok: true, detail: "warm-up" },
      { ok: false, detail: "down" },
      { ok: true, detail: "back" },
    ]);
    const svc = await startService(settings(), {
      log: createServiceLogger({ level: "silent" }),
      stopwatch: clock,
      scheduler: clock,
      createStore: async () => store,
    });
    const health = healthClient(`127.0.0.1:${svc.grpcPort}`);
    const status = async () => (await health.call<{ status: number }>("Check", { service: "" })).status;
    /** One period on: the health loop re-reads readiness (its probe settles over a few turns). */
    const period = async () => {
      clock.advance(READINESS_CACHE_MS);
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    };
    try {
      expect(await status()).toBe(1); // SERVING
      await period();
      expect(store.probes).toBe(2);
      expect(await status()).toBe(2); // NOT_SERVING
      await period();
      expect(store.probes).toBe(3);
      expect(await status()).toBe(1);
    } finally {
      health.close();
      await svc.close();
    }
  });

  it("with the admin API on, follows hand edits of the rules file only when watching (--no-watch: never)", async () => {
    const log = createServiceLogger({ level: "silent" });
    // One admin service per rules file (the file is locked): each gets its own file, both edited at once.
    const base = settings({ admin: true, adminPort: "0", watch: true });
    const other = settings({ admin: true, adminPort: "0", watch: false });
    const watching = await startService(base, { log });
    const still = await startService(other, { log });
    // "version N from <file>": the version only (the files differ).
    const versionOf = async (svc: typeof watching): Promise<string | undefined> =>
      (await svc.readiness()).checks.config?.detail?.replace(/ from .*$/, "");
    try {
      const before = await versionOf(still);
      expect(before).toMatch(/^version \d+$/);
      expect(await versionOf(watching)).toBe(before);
      writeFileSync(base.configFile, TWO_DOMAINS);
      writeFileSync(other.configFile, TWO_DOMAINS);
      // Both services see the same change at the same time: once the watching one has applied it, the other would
      // have too, had it been watching.
      for (let i = 0; (await versionOf(watching)) === before; i++) {
        if (i > 500) throw new Error("the watching service never applied the edit");
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await versionOf(watching)).toMatch(/^version \d+$/);
      expect(await versionOf(still)).toBe(before);
    } finally {
      await Promise.all([watching.close(), still.close()]);
    }
  });

  it("with the admin API on, /readyz and the log name the admin API's version (the file header's), before and after a write", async () => {
    const { tokensFile, token } = adminToken();
    const header = "# sluice: written by the admin API, version 4, 2026-01-01T00:00:00.000Z\n";
    const s = settings(
      { admin: true, adminPort: "0", adminTokensFile: tokensFile },
      `${header}${ONE_DOMAIN}`,
    );
    const { log, lines } = capturingLog();
    const svc = await startService(s, { log });
    const detail = async (): Promise<string | undefined> => (await svc.readiness()).checks.config?.detail;
    const applied = () => lines.filter((l) => l.msg === "rules applied");
    try {
      expect((await adminCall(svc, token, "GET", "/rules")).body?.version).toBe(4);
      expect(await detail()).toBe(`version 4 from ${s.configFile}`);
      // The admin API applied its snapshot of the file over the one read at start.
      expect(applied().map((l) => [l.version, l.source])).toEqual([[4, s.configFile]]);

      expect((await adminCall(svc, token, "POST", "/rules", ADDED_RULE)).status).toBe(201);
      expect((await adminCall(svc, token, "GET", "/rules")).body?.version).toBe(5);
      expect(readFileSync(s.configFile, "utf8")).toMatch(/^# sluice: written by the admin API, version 5,/);
      expect(await detail()).toBe(`version 5 from ${s.configFile}`);
      expect(applied().map((l) => l.version)).toEqual([4, 5]);
      const status = (await adminCall(svc, token, "GET", "/status")).body?.config as Record<string, unknown>;
      expect(status).toMatchObject({ version: 5, reloads: 2 });
    } finally {
      await svc.close();
    }
  });

  it("without the admin API, /readyz and the log name the rules file by its SHA-256 and count reloads as such", async () => {
    const s = settings({ watch: true });
    const { log, lines } = capturingLog();
    const svc = await startService(s, { log });
    const detail = async (): Promise<string | undefined> => (await svc.readiness()).checks.config?.detail;
    try {
      const first = sha256Of(s.configFile);
      expect(await detail()).toBe(
        `unversioned rules from ${s.configFile} (sha256 ${first}), 0 reloads applied since start`,
      );
      writeFileSync(s.configFile, TWO_DOMAINS);
      const second = sha256Of(s.configFile);
      await until(
        detail,
        `unversioned rules from ${s.configFile} (sha256 ${second}), 1 reload applied since start`,
        "the edit to be applied",
      );
      const applied = lines.filter((l) => l.msg === "rules applied");
      expect(applied).toHaveLength(1);
      expect(applied[0]).toMatchObject({ sha256: second, reloads: 1, source: s.configFile });
      // A file read without the admin API has no version: none is made up.
      expect(applied[0].version).toBeUndefined();
      expect(svc.context.engine.status.configVersion).toBeUndefined();
    } finally {
      await svc.close();
    }
  });

  it("with the admin API on, an envoyproxy/ratelimit file keeps the --envoy-algorithm of its limits", async () => {
    const envoy =
      "domain: api\ndescriptors:\n  - key: user\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n";
    const s = settings({ admin: true, adminPort: "0", watch: false, envoyAlgorithm: "gcra" }, envoy);
    const svc = await startService(s, { log: createServiceLogger({ level: "silent" }) });
    try {
      // The admin API applied its repository's snapshot of the file (version 1) over the one loaded at start.
      expect((await svc.readiness()).checks.config?.detail).toBe(`version 1 from ${s.configFile}`);
      expect(svc.context.engine.config.rules[0].limits[0].algorithm).toBe("gcra");
    } finally {
      await svc.close();
    }
  });

  it("with the admin API watching, /readyz is ready again once an invalid hand edit is reverted or fixed by a comment", async () => {
    const s = settings({ admin: true, adminPort: "0", watch: true });
    const svc = await startService(s, { log: createServiceLogger({ level: "silent" }) });
    const configOk = async (): Promise<boolean | undefined> => (await svc.readiness()).checks.config?.ok;
    // Polls every 10 ms, 10 s at most: a bound, not a timing assertion.
    const until = async (ok: boolean, what: string): Promise<void> => {
      for (let i = 0; (await configOk()) !== ok; i++) {
        if (i > 1000) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      expect(await configOk()).toBe(true);
      // The exact original text back: the repository has read it before, and announces no new version.
      writeFileSync(s.configFile, `${ONE_DOMAIN}rules: [\n`);
      await until(false, "the invalid edit to be reported");
      writeFileSync(s.configFile, ONE_DOMAIN);
      await until(true, "the reverted file to clear the error");
      // Fixed by a text whose document is the one in force (a comment added): no new version either.
      writeFileSync(s.configFile, "version: 1\nrules: 7\n");
      await until(false, "the second invalid edit to be reported");
      writeFileSync(s.configFile, `# per-user limits\n${ONE_DOMAIN}`);
      await until(true, "the comment-only fix to clear the error");
      expect((await svc.readiness()).ready).toBe(true);
    } finally {
      await svc.close();
    }
  });

  describe("a forward-auth domain without rules", () => {
    // Two domains, none of them `edge`, and no --auth-domain: forward-auth checks `edge`, which has no rules.
    const API_AND_WEB = `${ONE_DOMAIN}  - id: per-visitor
    domain: web
    match: [{ key: user }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
`;
    const EDGE_RULE = `  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
`;
    const EMPTY =
      "domain edge has no rules: /v1/auth allows every request without counting it; the rules' domains: api, web";

    /** A service on `API_AND_WEB` with its warnings about the forward-auth domain, and a wait on its detail. */
    async function start(flags: Record<string, string | boolean>) {
      const lines: string[] = [];
      const log = createServiceLogger({
        level: "warn",
        destination: { write: (l: string) => lines.push(l) },
      });
      const s = settings(flags, API_AND_WEB);
      const svc = await startService(s, { log });
      const warnings = () =>
        lines
          .map((l) => JSON.parse(l) as { msg: string; authDomain?: string; domains?: string[] })
          .filter((l) => l.authDomain !== undefined);
      // Polls every 10 ms, 10 s at most: a bound, not a timing assertion.
      const until = async (detail: string): Promise<void> => {
        for (let i = 0; (await svc.readiness()).checks.forwardAuth?.detail !== detail; i++) {
          if (i > 1000) throw new Error(`timed out waiting for ${detail}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      return { s, svc, warnings, until };
    }

    it("is warned of at start, naming it and the rules' domains, and shown in /readyz, which stays ready; /v1/auth allows", async () => {
      const { svc, warnings } = await start({});
      try {
        expect(warnings()).toEqual([
          expect.objectContaining({
            level: 40,
            authDomain: "edge",
            domains: ["api", "web"],
            msg: expect.stringMatching(
              /^no rule uses the forward-auth domain edge: .*\(the rules' domains: api, web;/,
            ),
          }),
        ]);
        const ready = await fetch(`http://127.0.0.1:${svc.httpPort}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({
          status: "ready",
          checks: { forwardAuth: { ok: true, detail: EMPTY } },
        });
        // Allowed, uncounted: envoyproxy/ratelimit answers OK for a domain without limits too.
        const auth = await fetch(`http://127.0.0.1:${svc.httpPort}/v1/auth`, {
          headers: { "x-real-ip": "192.0.2.1" },
        });
        expect(auth.status).toBe(200);
      } finally {
        await svc.close();
      }
      // A typo in --auth-domain alike.
      const typo = await start({ authDomain: "apii" });
      try {
        expect(typo.warnings()).toMatchObject([{ authDomain: "apii", domains: ["api", "web"] }]);
        expect((await typo.svc.readiness()).checks.forwardAuth).toEqual({
          ok: true,
          detail:
            "domain apii has no rules: /v1/auth allows every request without counting it; the rules' domains: api, web",
        });
      } finally {
        await typo.svc.close();
      }
    });

    it("is warned of again after each reload of the rules file that leaves it without rules", async () => {
      const { s, svc, warnings, until } = await start({ watch: true });
      try {
        expect(warnings()).toHaveLength(1);
        writeFileSync(s.configFile, `${API_AND_WEB}${EDGE_RULE}`);
        await until("domain edge: 1 rule");
        expect(warnings()).toHaveLength(1);
        writeFileSync(s.configFile, API_AND_WEB);
        await until(EMPTY);
        expect(warnings()).toHaveLength(2);
        expect((await svc.readiness()).ready).toBe(true);
      } finally {
        await svc.close();
      }
    });

    it("is warned of again after an admin API write that leaves it without rules", async () => {
      const token = "ops-secret-token-for-the-service-test";
      const tokensFile = join(dir, `tokens-${Math.random().toString(36).slice(2)}`);
      writeFileSync(tokensFile, `ops:${token}\n`);
      const { svc, warnings, until } = await start({
        admin: true,
        adminPort: "0",
        adminTokensFile: tokensFile,
      });
      const api = async (method: string, path: string, body?: unknown, ifMatch?: string) => {
        const r = await fetch(`http://127.0.0.1:${svc.adminPort}/api/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(ifMatch === undefined ? {} : { "if-match": ifMatch }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        await r.arrayBuffer();
        return { status: r.status, etag: r.headers.get("etag") ?? undefined };
      };
      try {
        expect(warnings()).toHaveLength(1);
        const rule = {
          id: "per-ip",
          domain: "edge",
          match: [{ key: "remote_address" }],
          limits: [{ name: "per-second", limit: 5, period: "1s" }],
        };
        expect((await api("POST", "/rules", rule)).status).toBe(201);
        await until("domain edge: 1 rule");
        expect(warnings()).toHaveLength(1);
        const { etag } = await api("GET", "/rules/per-ip");
        expect((await api("DELETE", "/rules/per-ip", undefined, etag)).status).toBe(204);
        await until(EMPTY);
        expect(warnings()).toHaveLength(2);
        expect((await svc.readiness()).ready).toBe(true);
      } finally {
        await svc.close();
      }
    });
  });

  it("refuses an invalid rules file, naming it", async () => {
    const s = settings({}, "version: 1\nrules: 7\n");
    await expect(startService(s, { log: createServiceLogger({ level: "silent" }) })).rejects.toMatchObject({
      code: "ERR_SLUICE_INVALID_CONFIG",
      message: expect.stringContaining(s.configFile),
    });
  });

  it("fails with a message naming the flag when a port is taken, and leaves nothing running", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const store = countingStore();
    let closed = false;
    try {
      await expect(
        startService(settings({ grpcPort: String(port) }), {
          log: createServiceLogger({ level: "silent" }),
          createStore: async () => ({
            ...store,
            close: async () => {
              closed = true;
            },
          }),
        }),
      ).rejects.toMatchObject({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
        message: `--grpc-port ${port}: cannot listen on 127.0.0.1:${port}: the address is in use`,
      });
      expect(closed).toBe(true);
    } finally {
      blocker.close();
    }
  });
});

describe("startService with the Redis store and the admin API (in process)", () => {
  let redis: RedisProcess | undefined;
  afterEach(async () => {
    const pid = redis?.pid;
    if (pid !== undefined) process.kill(pid, "SIGCONT");
    await redis?.stop();
    redis = undefined;
  });
  const redisSettings = (url: string): ServiceSettings =>
    settings({
      store: "redis",
      redis: url,
      admin: true,
      adminPort: "0",
      drainTimeout: "500ms",
      redisPrefix: `svc${Math.random().toString(36).slice(2, 8)}`,
    });

  it("is ready again once a bad document in Redis is replaced by the previous good one as it was", async () => {
    redis = await startRedis();
    const s = redisSettings(redis.url);
    const svc = await startService(s, { log: createServiceLogger({ level: "silent" }) });
    const raw = new Redis(redis.url);
    const key = `${s.redisPrefix}:config`;
    // Polls every 10 ms, 10 s at most (the repository polls Redis every second): a bound, not a timing assertion.
    const until = async (ok: boolean, what: string): Promise<void> => {
      for (let i = 0; (await svc.readiness()).checks.config?.ok !== ok; i++) {
        if (i > 1000) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      await until(true, "the seeded configuration");
      const good = await raw.hgetall(key);
      expect(good.version).toBe("1");
      await raw.hset(key, { version: 2, stamp: "by-hand", document: '{"rules": "nope"}' });
      await until(false, "the bad document to be reported");
      // The previous hash exactly (version, stamp, document): no newer version to announce.
      await raw.multi().del(key).hset(key, good).exec();
      await until(true, "the restored document to clear the error");
    } finally {
      raw.disconnect();
      await svc.close();
    }
  });

  it("names Redis's version in /readyz and the log, as GET /api/v1/rules and HGET <prefix>:config version, before and after a write", async () => {
    redis = await startRedis();
    const { tokensFile, token } = adminToken();
    const s = { ...redisSettings(redis.url), adminTokensFile: tokensFile };
    const { log, lines } = capturingLog();
    const svc = await startService(s, { log });
    const raw = new Redis(redis.url);
    const detail = async (): Promise<string | undefined> => (await svc.readiness()).checks.config?.detail;
    const applied = () => lines.filter((l) => l.msg === "rules applied");
    const location = String(lines.find((l) => l.endpoint === "admin")?.config);
    try {
      // Seeded from the file as version 1 (README: "written there as version 1").
      expect(await raw.hget(`${s.redisPrefix}:config`, "version")).toBe("1");
      expect((await adminCall(svc, token, "GET", "/rules")).body?.version).toBe(1);
      expect(await detail()).toBe(`version 1 from ${location}`);
      expect(applied().map((l) => [l.version, l.source])).toEqual([[1, location]]);

      expect((await adminCall(svc, token, "POST", "/rules", ADDED_RULE)).status).toBe(201);
      expect(await raw.hget(`${s.redisPrefix}:config`, "version")).toBe("2");
      expect((await adminCall(svc, token, "GET", "/rules")).body?.version).toBe(2);
      await until(detail, `version 2 from ${location}`, "the write to be applied");
      expect(applied().map((l) => l.version)).toEqual([1, 2]);
    } finally {
      raw.disconnect();
      await svc.close();
    }
  });

  it("logs the rules in force, Redis's, and watch false in its ready line, not the file's", async () => {
    redis = await startRedis();
    const seeding = redisSettings(redis.url);
    // The first instance seeds Redis with two rules; the second starts, watching, with a file of one.
    writeFileSync(seeding.configFile, TWO_DOMAINS);
    await (await startService(seeding, { log: createServiceLogger({ level: "silent" }) })).close();
    const s = { ...redisSettings(redis.url), redisPrefix: seeding.redisPrefix, watch: true };
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const svc = await startService(s, { log });
    try {
      expect(lines.find((l) => l.msg === "ready")).toMatchObject({
        rules: 2,
        domains: ["api", "edge"],
        watch: false,
      });
    } finally {
      await svc.close();
    }
  });

  it("seeds Redis with a rules file that uses YAML merge keys, resolved as the loader reads them", async () => {
    redis = await startRedis();
    const text = `version: 1
rules:
  - id: r1
    domain: api
    match: [{ key: user }]
    limits:
      - &std { name: per-second, algorithm: gcra, limit: 10, period: 1s }
  - id: r2
    domain: api
    match: [{ key: tenant }]
    limits:
      - <<: *std
        limit: 20
`;
    const s = settings(
      {
        store: "redis",
        redis: redis.url,
        admin: true,
        adminPort: "0",
        drainTimeout: "500ms",
        redisPrefix: `svc${Math.random().toString(36).slice(2, 8)}`,
      },
      text,
    );
    const svc = await startService(s, { log: createServiceLogger({ level: "silent" }) });
    const raw = new Redis(redis.url);
    try {
      const seeded = JSON.parse((await raw.hget(`${s.redisPrefix}:config`, "document")) as string);
      expect(seeded.rules[1].limits).toEqual([
        { name: "per-second", algorithm: "gcra", limit: 20, period: "1s" },
      ]);
    } finally {
      raw.disconnect();
      await svc.close();
    }
  });

  it("refuses a bad document in Redis at start as it is, not as a failure to listen, and closes its Redis clients", async () => {
    redis = await startRedis();
    const s = redisSettings(redis.url);
    const raw = new Redis(redis.url);
    try {
      await raw.hset(`${s.redisPrefix}:config`, {
        version: 3,
        stamp: "by-hand",
        document: '{"rules": "nope"}',
      });
      const error = await startService(s, { log: createServiceLogger({ level: "silent" }) }).catch((e) => e);
      expect(error).toMatchObject({ code: "ERR_SLUICE_INVALID_CONFIG" });
      expect((error as Error).message).not.toContain("cannot listen");
      // Only `raw` is left: the store's, the admin's and its subscriber's connections are closed. Polled every
      // 10 ms, 10 s at most (a closing socket takes a moment to reach Redis): a bound, not a timing assertion.
      let clients = "";
      for (let i = 0; i < 1000; i++) {
        clients = (await raw.client("LIST")) as string;
        if (clients.trim().split("\n").length === 1) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(clients.trim().split("\n")).toHaveLength(1);
    } finally {
      raw.disconnect();
    }
  });

  it("closes when Redis stops answering (SIGSTOP): the admin's Redis connection is not waited for forever", async () => {
    redis = await startRedis();
    const svc = await startService(redisSettings(redis.url), {
      log: createServiceLogger({ level: "silent" }),
    });
    expect((await svc.readiness()).ready).toBe(true);
    process.kill(redis.pid as number, "SIGSTOP");
    // The only claim is that close() resolves; the race just ends the test (and lets afterEach resume Redis) if it
    // does not, rather than leaving it to the test timeout.
    const hung = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error("close() did not resolve within 20 s")), 20_000).unref();
    });
    await expect(Promise.race([svc.close(), hung])).resolves.toMatchObject({ drained: true });
  }, 60_000);
});

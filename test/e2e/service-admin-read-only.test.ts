// End to end: `sluice serve` in embedded mode (memory store, admin API on) on a rules file in a read-only mount, as a
// Kubernetes ConfigMap volume or a read-only root file system gives a container. The admin API cannot create the
// rules file's lock beside it; the service starts anyway, with the file read-only through the admin API: its rules
// are enforced and readable through the admin API, an edit of the file (made through the writable source directory,
// as the kubelet does) is applied and a bad one shows in /readyz, admin configuration writes are refused with 409
// naming the file and why (GET /api/v1/status says the rules are read-only and why), nothing is written in the
// directory, audit records (a limits reset) are kept in memory (or in an --audit-file given elsewhere; one in the
// read-only mount refuses the start), and one warning at start says so.
import { readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest } from "../support/admin-request.js";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type ReadOnlyMount, readOnlyMount } from "../support/read-only-mount.js";
import { sleep } from "../support/redis-server.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const RULES = `# mounted read-only
version: 1
tiers: [free, premium]
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ limit: 2, period: 1h }]
`;
/** RULES edited: a rule per team, limited to 1. */
const EDITED = `${RULES}  - id: per-team
    domain: api
    match: [{ key: team }]
    limits: [{ limit: 1, period: 1h }]
`;
/** An edit that does not load: a negative limit. */
const BROKEN = `${RULES}  - id: per-team
    domain: api
    match: [{ key: team }]
    limits: [{ limit: -1, period: 1h }]
`;
const TOKEN = "read-only-admin-secret";
/** A rule an admin write adds. */
const NEW_RULE = {
  id: "per-tenant",
  domain: "api",
  match: [{ key: "tenant" }],
  limits: [{ limit: 1, period: "1h" }],
};

const files = testDir("admin-read-only");
let mount: ReadOnlyMount;
/** The rules file as the service sees it (read-only) and as the test writes it. */
let rulesFile: string;
let sourceFile: string;
/** The directory the service names (where the rules file really is: the lock goes beside the link's target). */
let directory: string;
let svc: ServiceProcess;

/** Replaces the rules file in the writable source directory atomically (write, then rename), as editors do. */
function replaceRules(text: string): void {
  const temp = `${sourceFile}.next`;
  writeFileSync(temp, text);
  renameSync(temp, sourceFile);
}

beforeAll(async () => {
  await ensureDistBuilt();
  mount = readOnlyMount(join(files.dir, "src"), join(files.dir, "ro"));
  sourceFile = join(mount.source, "rules.yaml");
  writeFileSync(sourceFile, RULES);
  rulesFile = join(mount.path, "rules.yaml");
  directory = realpathSync(mount.path);
  svc = await startServiceProcess(["--config", rulesFile], {
    env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` },
    commandPrefix: mount.commandPrefix,
  });
}, 180_000);

afterAll(async () => {
  await svc?.stop();
  mount?.unmount();
  files.remove();
});

/** POST /v1/check of one descriptor `key=value` in domain `api` through `s`: allowed or not. */
async function allowed(key: string, value: string, s: ServiceProcess = svc): Promise<boolean> {
  const res = await request(`${s.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain: "api", descriptors: [{ entries: [{ key, value }] }] }),
  });
  expect(res.statusCode).toBe(200);
  return ((await res.body.json()) as { allowed: boolean }).allowed;
}

/** A request to the admin API of `s` with the token. */
const admin = (
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
  s: ServiceProcess = svc,
) => adminRequest(s.adminPort, TOKEN, method, path, body);

/** /readyz: its status and its `config` check. */
async function readyz(): Promise<{ status: number; config: { ok: boolean; detail?: string } }> {
  const res = await request(`${svc.httpUrl}/readyz`);
  const body = (await res.body.json()) as { checks: { config: { ok: boolean; detail?: string } } };
  return { status: res.statusCode, config: body.checks.config };
}

/** Polls `done` every 50 ms until it holds (or 20 s pass): a bound, not a timing assertion. */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("sluice serve, embedded mode, rules file on a read-only mount", () => {
  it("starts with one warning naming the file, the directory and why, and no error", () => {
    const warnings = svc.logs.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      configFile: rulesFile,
      directory,
      errno: "EROFS",
      readOnly: true,
      audit: "memory",
      watch: true,
    });
    expect(warnings[0].msg).toContain(
      `admin API: the rules file ${rulesFile} is read-only through the admin API: the directory ${directory} ` +
        "cannot be written (EROFS: read-only file system), as on a read-only mount",
    );
    expect(warnings[0].msg).toContain("each edit of it is applied");
    expect(warnings[0].msg).toContain("audit records (limits resets) are kept in memory");
    expect(svc.logs.filter((l) => l.level >= 50)).toEqual([]);
    expect(svc.logs.find((l) => l.endpoint === "admin")?.config).toBe(`file:${rulesFile}`);
    expect(svc.logs.find((l) => l.msg === "ready")).toMatchObject({ rules: 1, watch: true });
  });

  it("enforces the file's rules and serves them through the admin API", async () => {
    expect([
      await allowed("user", "ann"),
      await allowed("user", "ann"),
      await allowed("user", "ann"),
    ]).toEqual([true, true, false]);
    const rules = await admin("GET", "/rules");
    expect(rules.status).toBe(200);
    expect((rules.body.rules as { id: string }[]).map((r) => r.id)).toEqual(["per-user"]);
    const status = await admin("GET", "/status");
    expect(status.body.repository).toMatchObject({
      location: `file:${rulesFile}`,
      readOnly: true,
      readOnlyReason: expect.stringContaining(
        `${rulesFile}: the admin API cannot write this file: the directory ${directory} cannot be written ` +
          "(EROFS: read-only file system)",
      ),
    });
    expect((await readyz()).status).toBe(200);
  });

  it("refuses admin configuration writes with 409 naming the file and the read-only mount, and writes nothing", async () => {
    const writes = [
      await admin("POST", "/rules", NEW_RULE),
      await admin("PUT", "/users/user:ann/tier", { tier: "premium" }),
      await admin("DELETE", "/rules/per-user"),
    ];
    for (const refused of writes) {
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain(
        `${rulesFile}: the admin API cannot write this file: the directory ${directory} cannot be written ` +
          "(EROFS: read-only file system)",
      );
    }
    expect(readFileSync(sourceFile, "utf8")).toBe(RULES);
    expect(readdirSync(mount.source)).toEqual(["rules.yaml"]);
    expect(await allowed("tenant", "t1")).toBe(true);
    expect(await allowed("tenant", "t1")).toBe(true); // no such rule: never limited
  });

  it("resets limits and keeps the record in memory, readable through the admin API", async () => {
    const reset = await admin("POST", "/limits/reset", {
      domain: "api",
      descriptors: [[{ key: "user", value: "ann" }]],
    });
    expect(reset.status).toBe(200);
    expect(await allowed("user", "ann")).toBe(true);
    const audit = await admin("GET", "/audit");
    expect(audit.status).toBe(200);
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ actor: "ops", action: "limits.reset", resource: "limits/api" }),
    ]);
    expect(svc.logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it("applies an edit of the file; a bad edit shows in /readyz and keeps the rules; fixing it clears it", async () => {
    replaceRules(EDITED);
    await svc.waitForLog((l) => l.msg === "admin: configuration applied" && l.version === 2, 20_000);
    expect([await allowed("team", "red"), await allowed("team", "red")]).toEqual([true, false]);

    replaceRules(BROKEN);
    await until(async () => (await readyz()).status === 503, "/readyz to report the bad edit");
    const { config } = await readyz();
    expect(config.ok).toBe(false);
    expect(config.detail).toContain(rulesFile);
    expect(config.detail).toContain("limit");
    expect([await allowed("team", "blue"), await allowed("team", "blue")]).toEqual([true, false]); // still in force

    replaceRules(RULES);
    await until(async () => (await readyz()).status === 200, "/readyz to clear once the file is fixed");
    expect([await allowed("team", "green"), await allowed("team", "green")]).toEqual([true, true]); // rule gone
  }, 60_000);

  it("with --audit-file in the read-only mount, or under it, refuses to start (exit 2) naming the file, why and the flag", async () => {
    for (const [auditFile, what] of [
      [join(mount.path, "audit.jsonl"), `cannot take its lock ${join(mount.path, "audit.jsonl")}.lock`],
      [join(mount.path, "logs", "audit.jsonl"), `cannot create its directory ${join(mount.path, "logs")}`],
    ]) {
      const refused = await startServiceProcess(["--config", rulesFile, "--audit-file", auditFile], {
        env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` },
        commandPrefix: mount.commandPrefix,
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      const message = (refused as Error).message;
      expect(message).toContain('"code":2');
      expect(message).toContain(
        `sluice: ERR_SLUICE_FILE_NOT_WRITABLE: ${auditFile}: ${what} to append to this audit log: the directory ` +
          `${directory} cannot be written (EROFS: read-only file system); --audit-file (SLUICE_AUDIT_FILE) names ` +
          "this file",
      );
    }
    expect(readdirSync(mount.source)).toEqual(["rules.yaml"]);
  }, 60_000);

  it("with --audit-file in a writable directory, records go there; a second service shares the read-only file", async () => {
    const auditFile = join(files.dir, "audit", "audit.jsonl");
    const second = await startServiceProcess(["--config", rulesFile, "--audit-file", auditFile], {
      env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` },
      commandPrefix: mount.commandPrefix,
    });
    try {
      const warnings = second.logs.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ readOnly: true, audit: auditFile });
      expect(warnings[0].msg).toContain(`Audit records go to ${auditFile}`);
      const reset = await admin(
        "POST",
        "/limits/reset",
        { domain: "api", descriptors: [[{ key: "user", value: "bob" }]] },
        second,
      );
      expect(reset.status).toBe(200);
      const lines = readFileSync(auditFile, "utf8").trim().split("\n");
      expect(lines.map((l) => JSON.parse(l) as { action: string; actor: string })).toEqual([
        expect.objectContaining({ action: "limits.reset", actor: "ops" }),
      ]);
      expect((await admin("POST", "/rules", NEW_RULE, second)).status).toBe(409);
    } finally {
      await second.stop();
    }
  }, 60_000);
});

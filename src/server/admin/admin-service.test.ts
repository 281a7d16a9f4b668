// The admin service in embedded mode (memory engine, rules file in a temp dir) where a directory cannot be written:
// an explicit audit file there stops the start, naming the file and the flag; a rules file there is read-only, and
// GET /api/v1/status says so and why. As root, a read-only bind mount (EROFS: a ConfigMap volume's case); otherwise
// a directory without write permission (EACCES), which root would ignore.
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adminRequest } from "../../../test/support/admin-request.js";
import { type ReadOnlyMount, readOnlyMount } from "../../../test/support/read-only-mount.js";
import { systemClock } from "../../core/clock.js";
import { FileNotWritableError, InvalidArgumentError } from "../../core/errors.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { loadConfigFile } from "../../rules/load-config.js";
import { createAdminServer } from "./admin-server.js";
import { type AdminServiceOptions, type RunningAdmin, startAdminService } from "./admin-service.js";
import { parseAdminTokens } from "./admin-tokens.js";
import { fileAuditLog } from "./file-audit-log.js";
import { fileConfigRepository } from "./file-config-repository.js";

const RULES = `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ limit: 2, period: 1h }]
`;
const TOKEN = "admin-service-test-token";
const NEW_RULE = {
  id: "per-tenant",
  domain: "api",
  match: [{ key: "tenant" }],
  limits: [{ limit: 1, period: "1h" }],
};

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const root = process.getuid?.() === 0;
let dir: string;
/** A writable directory holding the rules file. */
let writable: string;
/** A directory that cannot be written (read-only mount as root, mode 0555 otherwise), holding a rules file. */
let readOnly: string;
let mount: ReadOnlyMount | undefined;
const running: RunningAdmin[] = [];
const engines: Engine[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "sluice-admin-service-"));
  writable = join(dir, "rw");
  await mkdir(writable);
  await writeFile(join(writable, "rules.yaml"), RULES);
  const source = join(dir, "src");
  readOnly = join(dir, "ro");
  await mkdir(source);
  await writeFile(join(source, "rules.yaml"), RULES);
  if (root) {
    mount = readOnlyMount(source, readOnly);
  } else {
    await mkdir(readOnly);
    await writeFile(join(readOnly, "rules.yaml"), RULES);
    await chmod(readOnly, 0o555);
  }
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
  await Promise.all(engines.splice(0).map((e) => e.close()));
  mount?.unmount();
  mount = undefined;
  if (!root) await chmod(readOnly, 0o755);
  await rm(dir, { recursive: true, force: true });
});

const errno = root ? "EROFS" : "EACCES";
const meaning = root ? "read-only file system" : "permission denied";

/** Starts the admin service on `configFile` (embedded mode, any free port); its log lines land in `lines`. */
async function start(
  configFile: string,
  options: Partial<AdminServiceOptions> = {},
): Promise<{ admin: RunningAdmin; lines: Line[] }> {
  const lines: Line[] = [];
  const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  const engine = createEngine({ config: await loadConfigFile(configFile), clock: systemClock });
  engines.push(engine);
  const admin = await startAdminService({
    engine,
    configFile,
    redisPrefix: "rl",
    tokens: parseAdminTokens(`ops:${TOKEN}`),
    readAccess: "open",
    clock: systemClock,
    log,
    host: "127.0.0.1",
    port: 0,
    watch: false,
    ...options,
  });
  running.push(admin);
  return { admin, lines };
}

/** A request to the admin API of `admin` with the token. */
const api = (admin: RunningAdmin, method: "GET" | "POST", path: string, body?: unknown) =>
  adminRequest(admin.port, TOKEN, method, path, body);

describe("admin service: an explicit audit file that cannot be written", () => {
  it("stops the start with ERR_SLUICE_FILE_NOT_WRITABLE naming the file, the directory, why and --audit-file", async () => {
    const auditFile = join(readOnly, "audit.jsonl");
    const error = await start(join(writable, "rules.yaml"), { auditFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileNotWritableError);
    expect(error).toMatchObject({
      code: "ERR_SLUICE_FILE_NOT_WRITABLE",
      file: auditFile,
      directory: readOnly,
      errno,
    });
    const message = (error as Error).message;
    expect(message).toContain(
      `${auditFile}: cannot take its lock ${auditFile}.lock to append to this audit log`,
    );
    expect(message).toContain(`the directory ${readOnly} cannot be written (${errno}: ${meaning})`);
    expect(message).toContain("; --audit-file (SLUICE_AUDIT_FILE) names this file");
    // Nothing is left behind: the rules file's lock is released, so a start with a writable audit file succeeds.
    expect(await readdir(writable)).toEqual(["rules.yaml"]);
    const { admin } = await start(join(writable, "rules.yaml"), { auditFile: join(writable, "audit.jsonl") });
    expect((await api(admin, "GET", "/audit")).status).toBe(200);
  });

  it("stops the start when its directory is missing and cannot be created, naming the directory that refused it", async () => {
    const auditFile = join(readOnly, "logs", "audit.jsonl");
    const error = await start(join(writable, "rules.yaml"), { auditFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileNotWritableError);
    expect(error).toMatchObject({ file: auditFile, directory: readOnly, errno });
    const message = (error as Error).message;
    expect(message).toContain(
      `${auditFile}: cannot create its directory ${join(readOnly, "logs")} to append to this audit log`,
    );
    expect(message).toContain("--audit-file");
  });

  it("stops the start when it cannot be opened for another reason, naming the file, why and the flag", async () => {
    // A path through a regular file, whoever runs the test.
    const auditFile = join(writable, "rules.yaml", "audit.jsonl");
    const error = await start(join(writable, "rules.yaml"), { auditFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    const message = (error as Error).message;
    expect(message).toContain(
      `${auditFile}: cannot open the audit log: ${join(writable, "rules.yaml")} exists and is not a directory; ` +
        "--audit-file (SLUICE_AUDIT_FILE) names this file",
    );
  });

  it("with a rules file read-only too, still stops the start (the explicit file is not replaced by memory)", async () => {
    const auditFile = join(readOnly, "audit.jsonl");
    const error = await start(join(readOnly, "rules.yaml"), { auditFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileNotWritableError);
    expect((error as Error).message).toContain("--audit-file");
  });
});

describe("admin service: GET /api/v1/status and a read-only rules file", () => {
  it("says the repository is read-only and why, in the words a refused write gives", async () => {
    const rulesFile = join(readOnly, "rules.yaml");
    const { admin } = await start(rulesFile);
    const refused = await api(admin, "POST", "/rules", NEW_RULE);
    expect(refused.status).toBe(409);
    const status = await api(admin, "GET", "/status");
    expect(status.status).toBe(200);
    expect(status.body.repository).toEqual({
      location: `file:${rulesFile}`,
      appliedVersion: 1,
      readOnly: true,
      readOnlyReason: refused.body.detail,
    });
    expect(status.body.repository).toMatchObject({
      readOnlyReason: expect.stringContaining(
        `${rulesFile}: the admin API cannot write this file: the directory ${readOnly} cannot be written (${errno}`,
      ),
    });
  });

  it("says it is writable otherwise", async () => {
    const rulesFile = join(writable, "rules.yaml");
    const { admin } = await start(rulesFile);
    const status = await api(admin, "GET", "/status");
    expect(status.body.repository).toEqual({
      location: `file:${rulesFile}`,
      appliedVersion: 1,
      readOnly: false,
      readOnlyReason: null,
    });
    expect((await api(admin, "POST", "/rules", NEW_RULE)).status).toBe(201);
  });

  it("says an envoyproxy/ratelimit file is read-only, and why", async () => {
    const rulesFile = join(writable, "envoy.yaml");
    await writeFile(
      rulesFile,
      "domain: api\ndescriptors:\n  - key: user\n    rate_limit: { unit: minute, requests_per_unit: 3 }\n",
    );
    const { admin } = await start(rulesFile);
    const refused = await api(admin, "POST", "/rules", NEW_RULE);
    expect(refused.status).toBe(409);
    const status = await api(admin, "GET", "/status");
    expect(status.body.repository).toMatchObject({ readOnly: true, readOnlyReason: refused.body.detail });
    expect(String(refused.body.detail)).toContain(
      `${rulesFile}: the file is in the envoyproxy/ratelimit format`,
    );
  });
});

describe("admin server: an audit log that cannot be opened after the start", () => {
  it("answers GET /api/v1/audit with a 503 problem naming the file, not a 500", async () => {
    const rulesFile = join(writable, "rules.yaml");
    const repository = fileConfigRepository({ path: rulesFile, watch: false });
    const engine = createEngine({ config: (await repository.load()).config, clock: systemClock });
    engines.push(engine);
    try {
      for (const [auditFile, detail] of [
        [join(readOnly, "audit.jsonl"), `the directory ${readOnly} cannot be written (${errno}: ${meaning})`],
        [
          join(readOnly, "logs", "audit.jsonl"),
          `cannot create its directory ${join(readOnly, "logs")} to append to this audit log`,
        ],
        [
          join(rulesFile, "audit.jsonl"),
          `cannot open the audit log: ${rulesFile} exists and is not a directory`,
        ],
      ] as const) {
        const audit = fileAuditLog({ path: auditFile, clock: systemClock });
        const app = createAdminServer({
          engine,
          repository,
          audit,
          tokens: parseAdminTokens(`ops:${TOKEN}`),
          clock: systemClock,
          readAccess: "open",
        });
        try {
          const res = await app.inject({ url: "/api/v1/audit" });
          expect(res.statusCode).toBe(503);
          expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
          expect(JSON.parse(res.body).detail).toContain(`${auditFile}: `);
          expect(JSON.parse(res.body).detail).toContain(detail);
        } finally {
          await app.close();
          await audit.close();
        }
      }
    } finally {
      await repository.close();
    }
  });
});

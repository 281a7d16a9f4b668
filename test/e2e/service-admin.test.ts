// End to end: the admin API of the real `sluice serve` process, on its own port. A rule written through it is
// enforced by the data plane at once, persisted to the rules file, and audited under the token's name; writes
// without a token change nothing; the data-plane port has no admin route; a second service on the same rules file
// refuses to start (one writer per file).
import { readFileSync } from "node:fs";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/rules/load-config.js";
import { ensureDistBuilt } from "../support/dist-build.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const CONFIG = `# rules of the admin end-to-end test
version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: token_bucket, limit: 3, period: 1h }]
`;

const NEW_RULE = {
  id: "per-tenant",
  domain: "api",
  match: [{ key: "tenant" }],
  limits: [{ name: "per-hour", algorithm: "token_bucket", limit: 2, period: "1h" }],
};

const files = testDir("admin");
let svc: ServiceProcess;
let rulesFile: string;
const TOKEN = "e2e-admin-secret";

beforeAll(async () => {
  await ensureDistBuilt();
  rulesFile = files.write("rules.yaml", CONFIG);
  svc = await startServiceProcess(["--config", rulesFile], { env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` } });
}, 180_000);

afterAll(async () => {
  await svc?.stop();
  files.remove();
});

const admin = (path: string) => `http://127.0.0.1:${svc.adminPort}/api/v1${path}`;

async function checkTenant(tenant: string): Promise<boolean> {
  const res = await request(`${svc.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain: "api", descriptors: [{ entries: [{ key: "tenant", value: tenant }] }] }),
  });
  const body = (await res.body.json()) as { allowed: boolean };
  return body.allowed;
}

describe("sluice serve — admin API", () => {
  it("listens on its own port; the data-plane port has no admin route", async () => {
    expect(Number.isInteger(svc.adminPort) && svc.adminPort !== svc.httpPort).toBe(true);
    const res = await request(`${svc.httpUrl}/api/v1/rules`);
    expect(res.statusCode).toBe(404);
    await res.body.dump();
    const list = await request(admin("/rules"));
    expect(list.statusCode).toBe(200);
    expect(list.headers.etag).toBeDefined();
    await list.body.dump();
  });

  it("refuses a write without a token (401) and changes nothing", async () => {
    const before = readFileSync(rulesFile, "utf8");
    const res = await request(admin("/rules"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(NEW_RULE),
    });
    expect(res.statusCode).toBe(401);
    await res.body.dump();
    expect(readFileSync(rulesFile, "utf8")).toBe(before);
    expect(await checkTenant("acme")).toBe(true); // no rule yet: unlimited
  });

  it("a rule created with a token is enforced at once, persisted to the file and audited", async () => {
    const res = await request(admin("/rules"), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(NEW_RULE),
    });
    expect(res.statusCode).toBe(201);
    await res.body.dump();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await checkTenant("globex"));
    expect(answers).toEqual([true, true, false, false]);

    const persisted = parseConfig(readFileSync(rulesFile, "utf8"), { source: rulesFile });
    expect(persisted.rules.map((r) => r.id)).toEqual(["per-user", "per-tenant"]);

    const audit = await request(admin("/audit"));
    const page = (await audit.body.json()) as {
      entries: { actor: string; action: string; resource: string }[];
    };
    expect(page.entries[0]).toMatchObject({ actor: "ops", action: "rule.create" });
  });

  it("a second sluice serve on the same rules file refuses to start, naming the file and the first one's pid", async () => {
    const second = await startServiceProcess(["--config", rulesFile], {
      env: { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` },
    }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(Error);
    const message = (second as Error).message;
    expect(message).toContain("ERR_SLUICE_FILE_LOCKED");
    expect(message).toContain(`rules.yaml: already in use by process ${svc.pid}`);
    // The first one is unaffected: it still writes the file and its audit log.
    const res = await request(admin("/rules/per-tenant"), {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "if-match": await etagOf("/rules/per-tenant") },
    });
    expect(res.statusCode).toBe(204);
    await res.body.dump();
    const audit = (await (await request(admin("/audit"))).body.json()) as { entries: { action: string }[] };
    expect(audit.entries[0].action).toBe("rule.delete");
  });
});

async function etagOf(path: string): Promise<string> {
  const res = await request(admin(path));
  await res.body.dump();
  return res.headers.etag as string;
}

// End to end: the admin server on a free port (in process: memory engine, file repository and audit log in a temp
// dir), its dashboard in headless Chromium (apt `chromium`, driven by playwright-core). The page loads, shows a
// rule created through the API while it is open, and its live counters move while the test drives checks through
// the engine and the decision tally; on a read-only repository it says so, and why. A screenshot is saved to
// test-artifacts/dashboard.png.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { createEngine, type Engine } from "../../src/engine/engine.js";
import { createAdminServer } from "../../src/server/admin/admin-server.js";
import { parseAdminTokens } from "../../src/server/admin/admin-tokens.js";
import type { AuditLog } from "../../src/server/admin/audit-log.js";
import type { ConfigRepository } from "../../src/server/admin/config-repository.js";
import { createDecisionTally, type DecisionTally } from "../../src/server/admin/decision-tally.js";
import { fileAuditLog } from "../../src/server/admin/file-audit-log.js";
import { fileConfigRepository } from "../../src/server/admin/file-config-repository.js";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const TOKEN = "e2e-dashboard-token";

const CONFIG = `# Sluice rules for the dashboard end-to-end test.
version: 1
tiers: [free, premium]
rules:
  - id: api-per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
    tiers:
      premium: [{ name: per-minute, algorithm: fixed_window, limit: 1000, period: 1m }]
  - id: tenant-ingest
    domain: ingest
    match: [{ key: tenant }]
    behaviour: shadow
    limits: [{ name: per-second, algorithm: gcra, limit: 5, period: 1s }]
`;

const SEARCH_RULE = {
  id: "search-per-ip",
  name: "Search requests per client address",
  domain: "api",
  match: [{ key: "ip" }, { key: "endpoint", value: "/search" }],
  limits: [{ name: "per-second", algorithm: "gcra", limit: 10, period: "1s", burst: 5 }],
};

let dir: string;
let repository: ConfigRepository;
let audit: AuditLog;
let engine: Engine;
let tally: DecisionTally;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with  sudo apt-get install -y chromium`);
  }
  dir = mkdtempSync(join(tmpdir(), "sluice-dashboard-"));
  const configPath = join(dir, "sluice.yaml");
  writeFileSync(configPath, CONFIG);
  repository = fileConfigRepository({ path: configPath, watch: false });
  audit = fileAuditLog({ path: join(dir, "audit.jsonl") });
  engine = createEngine({ config: (await repository.load()).config, clock: systemClock });
  tally = createDecisionTally({ clock: systemClock });
  app = createAdminServer({
    engine,
    repository,
    audit,
    tally,
    tokens: parseAdminTokens(`ops:${TOKEN}`),
    clock: systemClock,
    readAccess: "open",
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the admin server has no TCP address");
  base = `http://127.0.0.1:${address.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1360, height: 1000 } });
  page.on("pageerror", (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await engine?.close();
  await audit?.close();
  await repository?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Drives checks through the engine and the tally every 50 ms until stopped. */
function driveLoad(): () => void {
  let n = 0;
  const timer = setInterval(() => {
    for (let i = 0; i < 12; i++, n++) {
      const ip = `10.0.0.${n % 3}`;
      const search = engine.checkSync({
        domain: "api",
        descriptors: [
          [
            { key: "ip", value: ip },
            { key: "endpoint", value: "/search" },
          ],
        ],
      });
      tally.record("api", search);
      tally.record(
        "api",
        engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: String(n % 7) }]] }),
      );
      tally.record(
        "ingest",
        engine.checkSync({ domain: "ingest", descriptors: [[{ key: "tenant", value: "acme" }]] }),
      );
    }
  }, 50);
  return () => clearInterval(timer);
}

/** The number shown in a live-table cell of `rule`. */
/**
 * Opens the dashboard of an admin server of its own over `repo` (and an engine on its rules) in a new page, runs
 * `use` on it, then closes the page, the server, the engine and `repo`; page errors are collected as everywhere.
 */
async function withOwnDashboard(repo: ConfigRepository, use: (page: Page) => Promise<void>): Promise<void> {
  const own = createEngine({ config: (await repo.load()).config, clock: systemClock });
  const server = createAdminServer({
    engine: own,
    repository: repo,
    audit,
    tokens: parseAdminTokens(`ops:${TOKEN}`),
    clock: systemClock,
    readAccess: "open",
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  try {
    const address = server.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    const other = await browser.newPage();
    other.on("pageerror", (error) => pageErrors.push(error.message));
    await other.goto(`http://127.0.0.1:${address.port}/dashboard/`);
    await use(other);
    await other.close();
  } finally {
    await server.close();
    await own.close();
    await repo.close();
  }
}

async function liveNumber(rule: string, field: string): Promise<number> {
  const text = await page
    .locator(`#live-table tr[data-rule-id="${rule}"] td[data-field="${field}"]`)
    .textContent();
  return Number((text ?? "").replace(/,/g, ""));
}

describe("admin dashboard in Chromium", () => {
  it("loads, shows a rule created through the API, and its counters move under load", async () => {
    await page.goto(`${base}/`);
    expect(page.url()).toBe(`${base}/dashboard/`);
    await page.locator('#rules-table tr[data-rule-id="api-per-user"]').waitFor();
    await expect
      .poll(() => page.locator("#status").textContent(), { timeout: 10_000 })
      .toMatch(/^Live · configuration v\d+/);
    expect(await page.locator("#tiers").textContent()).toBe("Tiers: free, premium");
    expect(await page.locator("#rules-read-only").isHidden()).toBe(true);
    expect(await page.locator("#status").textContent()).not.toContain("read-only");

    // Create a rule through the API while the page is open: the page picks it up on its own.
    const created = await fetch(`${base}/api/v1/rules`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(SEARCH_RULE),
    });
    expect(created.status).toBe(201);
    const row = page.locator('#rules-table tr[data-rule-id="search-per-ip"]');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("per-second: 10 / 1s, burst 5 · gcra");
    await page
      .locator("#audit-table tbody tr", { hasText: "rules/search-per-ip" })
      .waitFor({ timeout: 10_000 });
    expect(await page.locator("#audit-table tbody tr").first().textContent()).toContain("rule.create");
    expect(await liveNumber("search-per-ip", "allowed")).toBe(0);

    const stop = driveLoad();
    try {
      await expect.poll(() => liveNumber("search-per-ip", "allowed"), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => liveNumber("search-per-ip", "denied"), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => liveNumber("tenant-ingest", "shadow"), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => liveNumber("api-per-user", "allowed"), { timeout: 15_000 }).toBeGreaterThan(0);
      await page
        .locator('#throttled-list li[data-identity^="ip:10.0.0."]')
        .first()
        .waitFor({ timeout: 15_000 });
      // Totals keep rising while the load runs.
      const before = await liveNumber("search-per-ip", "total-denied");
      await expect
        .poll(() => liveNumber("search-per-ip", "total-denied"), { timeout: 15_000 })
        .toBeGreaterThan(before);
      // Let the sparklines fill a little before the picture.
      await page.waitForTimeout(2_500);
    } finally {
      stop();
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "dashboard.png"), fullPage: true });
    expect(existsSync(join(ARTIFACTS, "dashboard.png"))).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it("shows the behaviour, mode, failure policy and algorithm a rule inherits from the defaults", async () => {
    const path = join(dir, "defaults.yaml");
    writeFileSync(
      path,
      `version: 1
defaults: { behaviour: shadow, algorithm: sliding_log, failurePolicy: fail_closed, mode: local }
rules:
  - id: inherits
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-second, limit: 2, period: 1s }]
  - id: own
    domain: api
    match: [{ key: team }]
    behaviour: delay
    maxDelay: 2s
    mode: exact
    failurePolicy: fail_open
    limits: [{ name: per-second, algorithm: gcra, limit: 2, period: 1s }]
`,
    );
    const repo = fileConfigRepository({ path, watch: false });
    await withOwnDashboard(repo, async (other) => {
      const row = (id: string) => other.locator(`#rules-table tr[data-rule-id="${id}"]`);
      await row("inherits").waitFor({ timeout: 10_000 });
      const cell = (id: string) => row(id).locator("td").last().innerText();
      expect(await cell("inherits")).toBe("shadow\nmode local · fail_closed");
      expect(await row("inherits").textContent()).toContain("per-second: 2 / 1s · sliding_log");
      expect(await cell("own")).toBe("delay ≤ 2s\nmode exact · fail_open");
      expect(await row("own").textContent()).toContain("per-second: 2 / 1s · gcra");
    });
    expect(pageErrors).toEqual([]);
  });

  it("says when the rules are read-only through the admin API, and why", async () => {
    const path = join(dir, "read-only.yaml");
    writeFileSync(path, CONFIG);
    const why = "the directory cannot be written (staged for the test)";
    const repo = fileConfigRepository({ path, watch: false, readOnly: { reason: why } });
    await withOwnDashboard(repo, async (other) => {
      const notice = other.locator("#rules-read-only");
      await notice.waitFor({ state: "visible", timeout: 10_000 });
      expect(await notice.textContent()).toBe(`Read-only through the admin API: ${path}: ${why}`);
      expect(await other.locator("#status").textContent()).toMatch(
        /^Live · configuration v1 \(read-only\) · /,
      );
    });
    expect(pageErrors).toEqual([]);
  });

  it("asks for a token when reads need one, and uses the one typed into the page", async () => {
    const guarded = createAdminServer({
      engine,
      repository,
      audit,
      tokens: parseAdminTokens(`ops:${TOKEN}`),
      clock: systemClock,
      readAccess: "token",
    });
    await guarded.listen({ host: "127.0.0.1", port: 0 });
    try {
      const address = guarded.server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address");
      const other = await browser.newPage();
      await other.goto(`http://127.0.0.1:${address.port}/dashboard/`);
      await expect
        .poll(() => other.locator("#status").textContent(), { timeout: 10_000 })
        .toBe("Reads need a token: enter one above.");
      await other.locator("#token").fill(TOKEN);
      await other.locator("#token-form button[type=submit]").click();
      await other.locator('#rules-table tr[data-rule-id="api-per-user"]').waitFor({ timeout: 10_000 });
      expect(await other.evaluate(() => sessionStorage.getItem("sluice-admin-token"))).toBe(TOKEN);
      await other.close();
    } finally {
      await guarded.close();
    }
  });
});

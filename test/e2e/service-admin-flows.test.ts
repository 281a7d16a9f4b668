// End to end: admin flows over HTTP against real `sluice serve` child processes (issue 6 §5). Optimistic
// concurrency (412 on a stale ETag, 428 without If-Match) changes nothing; tier changes and overrides reach the
// data plane at once, and an override stops applying once it has expired; a SIGKILL in the middle of a burst of
// admin writes leaves a rules file that a restarted service loads as a consistent set; two instances on one
// Redis share the configuration written through either; concurrent retries with one idempotency key count once,
// on the memory store and across two Redis instances. Figures (admin write latency, cross-instance propagation)
// are printed, never asserted.
import { readFileSync } from "node:fs";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/rules/load-config.js";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const TOKEN = "e2e-flows-secret";
const ENV = { SLUICE_ADMIN_TOKENS: `ops:${TOKEN}` };

// Hour-long fixed windows: no window boundary is likely to fall inside a test.
const fw = (name: string, limit: number) =>
  `{ name: ${name}, algorithm: fixed_window, limit: ${limit}, period: 1h }`;

/** The file-store service's rules: one rule per flow, each keyed by its own descriptor key. */
const CONFIG = `# rules of the admin-flows end-to-end test
version: 1
tiers: [free, premium]
rules:
  - id: etag-rule
    domain: api
    match: [{ key: tenant }]
    limits: [${fw("per-hour", 3)}]
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [${fw("per-hour", 1)}]
    tiers: { premium: [${fw("per-hour", 5)}] }
  - id: idem-rule
    domain: api
    match: [{ key: client }]
    limits: [${fw("per-hour", 10)}]
`;

interface AdminAnswer {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: unknown;
}

interface CheckAnswer {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly replayed: boolean;
  readonly [field: string]: unknown;
}

/** One admin API call with the token; JSON in and out. */
async function admin(
  svc: ServiceProcess,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<AdminAnswer> {
  const res = await request(`http://127.0.0.1:${svc.adminPort}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  const etag = res.headers.etag;
  return {
    status: res.statusCode,
    etag: typeof etag === "string" ? etag : undefined,
    body: text === "" ? undefined : JSON.parse(text),
  };
}

/** `POST /v1/check` with one descriptor `{key: value}` in domain api. */
async function check(
  svc: ServiceProcess,
  key: string,
  value: string,
  headers: Record<string, string> = {},
): Promise<CheckAnswer> {
  const res = await request(`${svc.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ domain: "api", descriptors: [{ entries: [{ key, value }] }] }),
  });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as CheckAnswer;
}

/** Polls `probe` until it returns a value (not undefined), at most `timeoutMs`; rejects with `what` otherwise. */
async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(stepMs);
  }
}

/**
 * The answer without `replayed` (which tells the first answer from its replays) and without the relative fields
 * (`retry_after`, `retry_after_ms`, and `reset_after_ms` / `retry_after_ms` of every policy and descriptor): a
 * replay derives them from the first decision's instant at its own time, so they shrink by the ms between the
 * answers. The absolute instants `reset_at` / `reset_at_ms` are kept: every replay must repeat them exactly.
 */
function comparable(a: CheckAnswer): Record<string, unknown> {
  const { replayed: _replayed, retry_after: _ra, retry_after_ms: _ram, policies, descriptors, ...rest } = a;
  const strip = (list: unknown) =>
    (list as Record<string, unknown>[]).map(({ reset_after_ms: _r, retry_after_ms: _t, ...kept }) => kept);
  return { ...rest, policies: strip(policies), descriptors: strip(descriptors) };
}

/** How far apart the answers' `reset_at_ms` are (0 since replays keep the first instant; printed as a figure). */
function resetSpreadMs(answers: readonly CheckAnswer[]): number {
  const at = answers.map((a) => a.reset_at_ms as number);
  return Math.max(...at) - Math.min(...at);
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

beforeAll(async () => {
  await ensureDistBuilt();
}, 180_000);

describe("admin flows on the file store", () => {
  const files = testDir("admin-flows");
  let svc: ServiceProcess;
  let rulesFile: string;

  beforeAll(async () => {
    rulesFile = files.write("rules.yaml", CONFIG);
    svc = await startServiceProcess(["--config", rulesFile], { env: ENV });
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    files.remove();
  });

  // Proves optimistic concurrency over HTTP: a PUT carrying an ETag that a later write has made stale is refused
  // with 412 and changes nothing (the rules file keeps its bytes); a PUT without If-Match is refused with 428.
  it("refuses a stale ETag with 412 and a missing If-Match with 428, leaving the rules file unchanged", async () => {
    const first = await admin(svc, "GET", "/rules/etag-rule");
    expect(first.status).toBe(200);
    const oldEtag = first.etag as string;
    expect(oldEtag).toBeDefined();

    const rule = (limit: number) => ({
      domain: "api",
      match: [{ key: "tenant" }],
      limits: [{ name: "per-hour", algorithm: "fixed_window", limit, period: "1h" }],
    });
    const updated = await admin(svc, "PUT", "/rules/etag-rule", rule(4), { "if-match": oldEtag });
    expect(updated.status).toBe(200);
    expect(updated.etag).toBeDefined();
    expect(updated.etag).not.toBe(oldEtag);

    const bytes = readFileSync(rulesFile);
    const stale = await admin(svc, "PUT", "/rules/etag-rule", rule(7), { "if-match": oldEtag });
    expect(stale.status).toBe(412);
    expect(readFileSync(rulesFile).equals(bytes)).toBe(true);

    const unconditional = await admin(svc, "PUT", "/rules/etag-rule", rule(7));
    expect(unconditional.status).toBe(428);
    expect(readFileSync(rulesFile).equals(bytes)).toBe(true);

    // The rule is still the one the accepted PUT wrote.
    const now = await admin(svc, "GET", "/rules/etag-rule");
    expect(now.etag).toBe(updated.etag);
    expect((now.body as { limits: { limit: number }[] }).limits[0].limit).toBe(4);
  });

  // Proves a tier assignment reaches the data plane at once: user:u1 is held to the free limit (1), and the very
  // next checks after `PUT /users/user:u1/tier {"tier":"premium"}` are allowed under the premium limit (5).
  it("applies a tier change to the very next check", async () => {
    expect((await check(svc, "user", "u1")).allowed).toBe(true);
    const denied = await check(svc, "user", "u1");
    expect(denied.allowed).toBe(false);
    expect(denied.limit).toBe(1);

    const put = await admin(svc, "PUT", "/users/user:u1/tier", { tier: "premium" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ identity: "user:u1", tier: "premium" });

    const next = await check(svc, "user", "u1");
    expect(next.allowed).toBe(true);
    expect(next.limit).toBe(5);
    // The unit counted under the free limit carries over (the tier's limits have the rule's shape, so they count
    // in its namespace): the one under free, `next` and 3 more reach the premium 5; the 4th more is denied.
    const more: CheckAnswer[] = [];
    for (let i = 0; i < 5; i++) more.push(await check(svc, "user", "u1"));
    const passed = 2 + more.filter((a) => a.allowed).length;
    expect(more.map((a) => a.allowed)).toEqual([true, true, true, false, false]);
    expect(more.every((a) => a.limit === 5)).toBe(true);
    console.log(
      `[figure] tier change: ${passed} checks allowed under premium (limit 5) after the free limit was hit`,
    );
  });

  // Proves an override with `expires_at` applies until it expires and then stops applying by itself (no write in
  // between): before expiry user:u2 gets the override's limit (3); afterwards the rule's limit (1) applies again.
  // The service's clock cannot be set from outside, so expiry is awaited by polling (bounded), not timed.
  it("applies an override until expires_at, then the rule's limit again", async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const post = await admin(svc, "POST", "/users/user:u2/override", {
      rule: "per-user",
      limits: [{ name: "per-hour", algorithm: "fixed_window", limit: 3, period: "1h" }],
      expires_at: expiresAt,
    });
    expect(post.status).toBe(201);

    const before: CheckAnswer[] = [];
    for (let i = 0; i < 4; i++) before.push(await check(svc, "user", "u2"));
    expect(Date.now()).toBeLessThan(Date.parse(expiresAt)); // else the machine was too slow for this test
    expect(before.map((a) => a.allowed)).toEqual([true, true, true, false]);
    expect(before.every((a) => a.limit === 3)).toBe(true);

    // Poll until the answer reports the rule's limit again (denied checks do not count).
    const after = await eventually(
      "the override of user:u2 expires",
      async () => {
        const a = await check(svc, "user", "u2");
        return a.limit === 1 ? a : undefined;
      },
      15_000,
      100,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    // Held to the rule's limit of 1: at most one more check passes (none if the counter is shared), then denied.
    const next = [after, await check(svc, "user", "u2"), await check(svc, "user", "u2")];
    expect(next.every((a) => a.limit === 1)).toBe(true);
    expect(next.filter((a) => a.allowed).length).toBeLessThanOrEqual(1);
    expect(next[2].allowed).toBe(false);

    const limits = await admin(svc, "GET", "/users/user:u2/limits");
    const perUser = (limits.body as { rules: { rule: string; source: string }[] }).rules.find(
      (r) => r.rule === "per-user",
    );
    expect(perUser?.source).toBe("rule");
  }, 30_000);

  // Proves the idempotency key over HTTP on the memory store: 20 concurrent retries of one check with the same
  // X-Idempotency-Key give the same answer and consume exactly one unit.
  it("counts 20 concurrent retries with one idempotency key once (memory store)", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => check(svc, "client", "c-mem", { "x-idempotency-key": "retry-mem-1" })),
    );
    const first = comparable(answers[0]);
    for (const a of answers) expect(comparable(a)).toEqual(first);
    expect(answers[0].allowed).toBe(true);
    expect(answers[0].remaining).toBe(9);
    console.log(
      `[figure] memory store: ${answers.filter((a) => a.replayed).length} of 20 idempotent retries marked replayed; reset_at_ms spread ${resetSpreadMs(answers)} ms`,
    );
    const after = await check(svc, "client", "c-mem");
    expect(after.remaining).toBe(10 - 2);
  });

  // A figure, not an assertion: the median round trip of an admin write (a tier assignment) on the file store.
  it("prints the median admin write latency (20 sequential tier PUTs)", async () => {
    const ms: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const put = await admin(svc, "PUT", `/users/user:lat-${i}/tier`, { tier: i % 2 ? "free" : "premium" });
      ms.push(performance.now() - t0);
      expect(put.status).toBe(200);
    }
    console.log(
      `[figure] admin write latency, file store: median ${median(ms).toFixed(1)} ms over 20 sequential PUT /users/{id}/tier (min ${Math.min(...ms).toFixed(1)}, max ${Math.max(...ms).toFixed(1)})`,
    );
  });
});

describe("kill -9 during a burst of admin writes", () => {
  const files = testDir("admin-kill");
  const SEED = `version: 1
tiers: [free, premium]
rules:
  - id: seed
    domain: api
    match: [{ key: user }]
    limits: [${fw("per-hour", 5)}]
`;
  let rulesFile: string;
  const services: ServiceProcess[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    files.remove();
  });

  // Proves crash safety of the file store: SIGKILL while ~50 rule and tier writes are in flight leaves a rules
  // file that parses and validates, that a restarted service loads (it becomes ready), holding every write that
  // was acknowledged before the kill and only rules that were written, each complete.
  it("restarts on the same file with a consistent set of rules", async () => {
    rulesFile = files.write("rules.yaml", SEED);
    const svc = await startServiceProcess(["--config", rulesFile], { env: ENV });
    services.push(svc);

    const WRITES = 50;
    const KILL_AFTER = 20;
    const written = new Set<string>(["seed"]);
    const acknowledged = new Set<string>(["seed"]);
    let done = 0;
    let killed = false;
    const write = async (i: number): Promise<void> => {
      try {
        if (i % 5 === 4) {
          await admin(svc, "PUT", `/users/user:burst-${i}/tier`, { tier: "premium" });
        } else {
          const id = `burst-${i}`;
          written.add(id);
          const res = await admin(svc, "POST", "/rules", {
            id,
            domain: "api",
            match: [{ key: `k${i}` }],
            limits: [{ name: "per-hour", algorithm: "fixed_window", limit: i + 1, period: "1h" }],
          });
          if (res.status === 201 && !killed) acknowledged.add(id);
        }
      } catch {
        // the connection died with the process
      }
      done++;
      if (done >= KILL_AFTER && !killed) {
        killed = true;
        svc.signal("SIGKILL");
      }
    };
    // Five writers in parallel, each sending its share in sequence.
    await Promise.all(
      Array.from({ length: 5 }, async (_, w) => {
        for (let i = w; i < WRITES; i += 5) await write(i);
      }),
    );
    const exit = await svc.exited;
    expect(exit.signal).toBe("SIGKILL");

    // The file parses and validates on its own...
    const persisted = parseConfig(readFileSync(rulesFile, "utf8"), { source: rulesFile });
    const ids = persisted.rules.map((r) => r.id);
    // ...and a new service starts on it.
    const again = await startServiceProcess(["--config", rulesFile], { env: ENV });
    services.push(again);
    const list = await admin(again, "GET", "/rules");
    expect(list.status).toBe(200);
    const rules = (list.body as { rules: { id: string; limits: { limit: number }[] }[] }).rules;
    expect(rules.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(written.has(id)).toBe(true);
    for (const id of acknowledged) expect(ids).toContain(id);
    // Every rule is complete: the limit it was written with.
    for (const r of rules) {
      if (r.id !== "seed") expect(r.limits[0].limit).toBe(Number(r.id.slice("burst-".length)) + 1);
    }
    // The rule count is one of the counts written (1 seed + 0..40 created rules).
    expect(rules.length).toBeGreaterThanOrEqual(acknowledged.size);
    expect(rules.length).toBeLessThanOrEqual(written.size);
    console.log(
      `[figure] kill -9 burst: ${acknowledged.size - 1} rule writes acknowledged before the kill, ${rules.length - 1} rules found after restart (of ${written.size - 1} attempted)`,
    );
    // And the restarted service enforces a surviving rule.
    const survivor = rules.find((r) => r.id !== "seed");
    if (survivor !== undefined) {
      const key = `k${survivor.id.slice("burst-".length)}`;
      const a = await check(again, key, "x");
      expect(a.limit).toBe(survivor.limits[0].limit);
    }
  }, 60_000);
});

describe("two instances on one Redis", () => {
  const files = testDir("admin-redis");
  let redis: RedisProcess;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const config = files.write("rules.yaml", CONFIG);
    // A generous store timeout: on a loaded machine a slow call would be answered by the fallback policy (a
    // local limiter per process), which is not what these tests are about.
    const args = ["--config", config, "--store", "redis", "--redis", redis.url, "--store-timeout", "2s"];
    services.push(await startServiceProcess(args, { env: ENV }));
    services.push(await startServiceProcess(args, { env: ENV }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await redis?.stop();
    files.remove();
  });

  // Proves the shared configuration: a rule created through instance A's admin API is enforced by instance B
  // (polled until B limits, bounded) and listed by B's admin API. How long it took is printed, not asserted.
  it("a rule written through A is enforced by B and listed by B", async () => {
    const [a, b] = services;
    const res = await admin(a, "POST", "/rules", {
      id: "team-rule",
      domain: "api",
      match: [{ key: "team" }],
      limits: [{ name: "per-hour", algorithm: "fixed_window", limit: 1, period: "1h" }],
    });
    expect(res.status).toBe(201);
    const t0 = performance.now();
    // Until B knows the rule, "team" is unlimited (limit 0); once it does, the second check is denied.
    const denied = await eventually(
      "instance B limits team:red",
      async () => {
        const c = await check(b, "team", "red");
        return c.allowed ? undefined : c;
      },
      5_000,
      20,
    );
    const ms = performance.now() - t0;
    expect(denied.limit).toBe(1);
    console.log(`[figure] rule written through A enforced by B after ${ms.toFixed(0)} ms`);

    const list = await admin(b, "GET", "/rules");
    expect(list.status).toBe(200);
    expect((list.body as { rules: { id: string }[] }).rules.map((r) => r.id)).toContain("team-rule");
  });

  // Proves the idempotency key across instances: 20 concurrent retries of one check, 10 through each instance,
  // with the same X-Idempotency-Key, give the same answer and consume exactly one unit of the shared counter.
  it("counts 20 concurrent retries with one idempotency key once across both instances", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        check(services[i % 2], "client", "c-redis", { "x-idempotency-key": "retry-redis-1" }),
      ),
    );
    const first = comparable(answers[0]);
    for (const a of answers) expect(comparable(a)).toEqual(first);
    expect(answers[0].allowed).toBe(true);
    expect(answers[0].remaining).toBe(9);
    console.log(
      `[figure] redis store: ${answers.filter((a) => a.replayed).length} of 20 idempotent retries marked replayed; reset_at_ms spread ${resetSpreadMs(answers)} ms`,
    );
    // A following check without the key, through B: one unit for the retries, one for itself.
    const after = await check(services[1], "client", "c-redis");
    expect(after.remaining).toBe(10 - 2);
  });
});

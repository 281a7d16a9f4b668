import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failingStore } from "../../../test/support/failing-store.js";
import { ConfigError, FileNotWritableError, SluiceError, StoreUnavailableError } from "../../core/errors.js";
import { ManualClock } from "../../core/manual-clock.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { deepFreeze, type NativeConfigInput } from "../../rules/config-schema.js";
import { configFromValue } from "../../rules/load-config.js";
import { createAdminServer } from "./admin-server.js";
import { adminTokens, parseAdminTokens } from "./admin-tokens.js";
import { type AuditEntry, type AuditLog, type AuditPage, auditFields } from "./audit-log.js";
import {
  type ConfigEdit,
  type ConfigRepository,
  type ConfigSnapshot,
  versioned,
} from "./config-repository.js";
import { createDecisionTally } from "./decision-tally.js";

// ------------------------------------------------------------------------------------------------ test doubles

/** An in-memory ConfigRepository with the contract's semantics: serialized edits, whole validation, watchers. */
class MemoryRepository implements ConfigRepository {
  readonly location = "memory:test";
  readOnlyReason: string | undefined;
  updates = 0;
  failWith: Error | undefined;
  #snapshot: ConfigSnapshot;
  #tail: Promise<unknown> = Promise.resolve();
  readonly #listeners = new Set<(s: ConfigSnapshot) => void>();

  constructor(document: NativeConfigInput) {
    this.#snapshot = MemoryRepository.snapshotOf(1, document);
  }

  static snapshotOf(version: number, document: NativeConfigInput): ConfigSnapshot {
    const data = JSON.parse(JSON.stringify(document)) as NativeConfigInput;
    return Object.freeze({
      version,
      document: deepFreeze(data),
      config: versioned(configFromValue(data), version),
    });
  }

  async load(): Promise<ConfigSnapshot> {
    return this.#snapshot;
  }

  update(edit: ConfigEdit): Promise<ConfigSnapshot> {
    const run = async (): Promise<ConfigSnapshot> => {
      if (this.failWith) throw this.failWith;
      const current = this.#snapshot;
      const draft = JSON.parse(JSON.stringify(current.document)) as NativeConfigInput;
      edit(draft, current);
      if (JSON.stringify(draft) === JSON.stringify(current.document)) return current;
      const next = MemoryRepository.snapshotOf(current.version + 1, draft);
      this.#snapshot = next;
      this.updates++;
      for (const l of this.#listeners) l(next);
      return next;
    };
    const result = this.#tail.then(run);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  watch(listener: (s: ConfigSnapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {}
}

/** An in-memory AuditLog: ids are zero-padded sequence numbers, listed newest first; entries checked as the real ones. */
class MemoryAuditLog implements AuditLog {
  readonly entries: AuditEntry[] = [];
  constructor(private readonly clock: ManualClock) {}

  async append(entry: Omit<AuditEntry, "id" | "atMs">): Promise<AuditEntry> {
    const full = {
      ...auditFields(entry),
      id: String(this.entries.length + 1).padStart(8, "0"),
      atMs: this.clock.nowMs(),
    };
    this.entries.push(JSON.parse(JSON.stringify(full)));
    return full;
  }

  async list(options: { limit?: number; cursor?: string } = {}): Promise<AuditPage> {
    const newest = [...this.entries].reverse();
    const start =
      options.cursor === undefined ? 0 : newest.findIndex((e) => e.id < (options.cursor as string));
    const page = start === -1 ? [] : newest.slice(start, start + (options.limit ?? 50));
    const more = start !== -1 && start + page.length < newest.length;
    return { entries: page, ...(more ? { next: page[page.length - 1].id } : {}) };
  }

  async close(): Promise<void> {}
}

// ------------------------------------------------------------------------------------------------ fixture

const T0 = Date.parse("2026-03-01T12:00:00Z");
const OPS = { authorization: "Bearer ops-secret-1" };
const CI = { authorization: "Bearer ci-secret-2" };

const DOC: NativeConfigInput = {
  version: 1,
  tiers: ["free", "premium"],
  identities: { "user:7": "free" },
  rules: [
    {
      id: "api-per-user",
      domain: "api",
      match: [{ key: "user" }],
      limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 3, period: "1m" }],
      tiers: { premium: [{ name: "per-minute", algorithm: "fixed_window", limit: 10, period: "1m" }] },
    },
    {
      id: "orders-per-user",
      domain: "api",
      match: [{ key: "user" }, { key: "endpoint", path: "/orders/*" }],
      limits: [{ name: "orders", algorithm: "fixed_window", limit: 5, period: "1s" }],
    },
  ],
};

const NEW_RULE = {
  id: "search-per-ip",
  domain: "api",
  match: [{ key: "ip" }, { key: "endpoint", value: "/search" }],
  limits: [{ name: "per-second", algorithm: "gcra", limit: 2, period: "1s" }],
};

let clock: ManualClock;
let repository: MemoryRepository;
let audit: MemoryAuditLog;
let engine: Engine;
let app: FastifyInstance;
let logged: { level: string; obj: unknown; msg: string }[];

function logger() {
  const at = (level: string) => (obj: unknown, msg?: string) => {
    logged.push({ level, obj, msg: msg ?? "" });
  };
  return { info: at("info"), warn: at("warn"), error: at("error") } as never;
}

function build(overrides: Partial<Parameters<typeof createAdminServer>[0]> = {}): FastifyInstance {
  return createAdminServer({
    engine,
    repository,
    audit,
    tokens: parseAdminTokens("ops:ops-secret-1,ci:ci-secret-2"),
    clock,
    readAccess: "open",
    log: logger(),
    ...overrides,
  });
}

beforeEach(async () => {
  clock = new ManualClock(T0);
  repository = new MemoryRepository(DOC);
  audit = new MemoryAuditLog(clock);
  engine = createEngine({ config: (await repository.load()).config, clock });
  logged = [];
  app = build();
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await engine.close();
});

function json(res: LightMyRequestResponse): Record<string, unknown> {
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function checkUser(
  user: string,
): Promise<{ allowed: boolean; limit: number; source: string | undefined }> {
  const r = await engine.check({ domain: "api", descriptors: [[{ key: "user", value: user }]] });
  return { allowed: r.allowed, limit: r.decision.limit, source: r.descriptors[0].source };
}

// ------------------------------------------------------------------------------------------------ tests

describe("admin API: authentication", () => {
  it("refuses writes without a token or with a wrong one (401, WWW-Authenticate: Bearer), changing nothing", async () => {
    const none = await app.inject({ method: "POST", url: "/api/v1/rules", payload: NEW_RULE });
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="sluice-admin"');
    expect(none.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(json(none)).toMatchObject({ status: 401, type: "urn:sluice:problem:unauthorized" });
    const wrong = await app.inject({
      method: "POST",
      url: "/api/v1/rules",
      headers: { authorization: "Bearer not-a-token" },
      payload: NEW_RULE,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers["www-authenticate"]).toContain('error="invalid_token"');
    const basic = await app.inject({
      method: "DELETE",
      url: "/api/v1/rules/api-per-user",
      headers: { authorization: "Basic b3BzOm9wcy1zZWNyZXQtMQ==" },
    });
    expect(basic.statusCode).toBe(401);
    expect(repository.updates).toBe(0);
    expect(audit.entries).toEqual([]);
    expect(JSON.stringify(logged)).not.toContain("secret");
  });

  it("authenticates a token of every character the loader accepts", async () => {
    await app.close();
    const token = "Az09-._~+/=:@!$&'*,;%";
    app = build({ tokens: adminTokens([{ name: "odd", token }]), readAccess: "token" });
    await app.ready();
    const res = await app.inject({ url: "/api/v1/rules", headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
  });

  it("opens reads when configured so, and refuses a wrong token even there", async () => {
    expect((await app.inject({ url: "/api/v1/rules" })).statusCode).toBe(200);
    const wrong = await app.inject({ url: "/api/v1/rules", headers: { authorization: "Bearer nope" } });
    expect(wrong.statusCode).toBe(401);
  });

  it("requires a token for reads with readAccess token", async () => {
    await app.close();
    app = build({ readAccess: "token" });
    const none = await app.inject({ url: "/api/v1/rules" });
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="sluice-admin"');
    expect((await app.inject({ url: "/api/v1/rules", headers: CI })).statusCode).toBe(200);
    // The dashboard's files hold no data and stay reachable.
    expect((await app.inject({ url: "/dashboard/" })).statusCode).toBe(200);
  });
});

describe("admin API: rules", () => {
  it("creates a rule, serves it with an ETag, enforces it at once, and audits who did it", async () => {
    const created = await app.inject({
      method: "POST",
      url: "/api/v1/rules",
      headers: OPS,
      payload: NEW_RULE,
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers.location).toBe("/api/v1/rules/search-per-ip");
    const etag = created.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const got = await app.inject({ url: "/api/v1/rules/search-per-ip" });
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe(etag);
    expect(json(got)).toEqual(NEW_RULE);
    const list = json(await app.inject({ url: "/api/v1/rules" }));
    expect((list.rules as { id: string }[]).map((r) => r.id)).toEqual([
      "api-per-user",
      "orders-per-user",
      "search-per-ip",
    ]);
    expect(list.tiers).toEqual(["free", "premium"]);
    const descriptor = [
      { key: "ip", value: "10.0.0.1" },
      { key: "endpoint", value: "/search" },
    ];
    const results = [];
    for (let i = 0; i < 3; i++)
      results.push((await engine.check({ domain: "api", descriptors: [descriptor] })).allowed);
    expect(results).toEqual([true, true, false]);
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      actor: "ops",
      action: "rule.create",
      resource: "rules/search-per-ip",
      before: null,
      after: NEW_RULE,
      atMs: T0,
    });
  });

  it("lists what each rule inherits from the defaults, resolved, beside the rules as written", async () => {
    await app.close();
    await engine.close();
    repository = new MemoryRepository({
      ...DOC,
      defaults: { behaviour: "shadow", algorithm: "sliding_log", failurePolicy: "fail_closed" },
      rules: [
        ...DOC.rules,
        {
          ...NEW_RULE,
          limits: [{ name: "per-second", limit: 2, period: "1s" }],
          behaviour: "reject",
          mode: "local",
        },
      ],
    });
    engine = createEngine({ config: (await repository.load()).config, clock });
    app = build();
    await app.ready();
    const list = json(await app.inject({ url: "/api/v1/rules" }));
    expect(list.defaults).toEqual({
      algorithm: "sliding_log",
      behaviour: "shadow",
      maxDelayMs: expect.any(Number),
      failurePolicy: "fail_closed",
      mode: "exact",
    });
    expect((list.rules as Record<string, unknown>[])[0].behaviour).toBeUndefined();
    expect(list.effective).toEqual([
      expect.objectContaining({ rule: "api-per-user", behaviour: "shadow", failurePolicy: "fail_closed" }),
      expect.objectContaining({ rule: "orders-per-user", behaviour: "shadow", mode: "exact" }),
      {
        rule: "search-per-ip",
        behaviour: "reject",
        maxDelayMs: expect.any(Number),
        failurePolicy: "fail_closed",
        mode: "local",
        algorithm: "sliding_log",
      },
    ]);
  });

  it("answers a conditional GET with 304", async () => {
    const first = await app.inject({ url: "/api/v1/rules/api-per-user" });
    const again = await app.inject({
      url: "/api/v1/rules/api-per-user",
      headers: { "if-none-match": first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
  });

  it("requires If-Match to replace a rule (428) and refuses a stale one (412) with nothing changed", async () => {
    const original = await app.inject({ url: "/api/v1/rules/api-per-user" });
    const etag = original.headers.etag as string;
    const body = {
      ...json(original),
      limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 50, period: "1m" }],
    };

    const without = await app.inject({
      method: "PUT",
      url: "/api/v1/rules/api-per-user",
      headers: OPS,
      payload: body,
    });
    expect(without.statusCode).toBe(428);
    expect(without.headers.etag).toBe(etag);

    const ok = await app.inject({
      method: "PUT",
      url: "/api/v1/rules/api-per-user",
      headers: { ...OPS, "if-match": etag },
      payload: body,
    });
    expect(ok.statusCode).toBe(200);
    const newTag = ok.headers.etag as string;
    expect(newTag).not.toBe(etag);
    const versionAfter = (await repository.load()).version;

    // A second writer still holding the first ETag loses: 412, and nothing changes.
    const stale = await app.inject({
      method: "PUT",
      url: "/api/v1/rules/api-per-user",
      headers: { ...CI, "if-match": etag },
      payload: {
        ...body,
        limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 1, period: "1m" }],
      },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers.etag).toBe(newTag);
    expect(json(stale)).toMatchObject({ status: 412, type: "urn:sluice:problem:precondition-failed" });
    expect((await repository.load()).version).toBe(versionAfter);
    expect((await app.inject({ url: "/api/v1/rules/api-per-user" })).headers.etag).toBe(newTag);
    expect(engine.config.rules[0].limits[0].limit).toBe(50);
    expect(audit.entries.map((e) => e.action)).toEqual(["rule.update"]);
    expect(audit.entries[0].before).toEqual(json(original));
    expect(audit.entries[0].after).toEqual(body);
  });

  it("lets exactly one of two concurrent writers with the same ETag win", async () => {
    const etag = (await app.inject({ url: "/api/v1/rules/api-per-user" })).headers.etag as string;
    const put = (limit: number, headers: Record<string, string>) =>
      app.inject({
        method: "PUT",
        url: "/api/v1/rules/api-per-user",
        headers: { ...headers, "if-match": etag },
        payload: {
          ...DOC.rules[0],
          limits: [{ name: "per-minute", algorithm: "fixed_window", limit, period: "1m" }],
        },
      });
    const [a, b] = await Promise.all([put(20, OPS), put(30, CI)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 412]);
    expect(audit.entries).toHaveLength(1);
  });

  it("creates with PUT when absent (201), refuses a duplicate POST (409), deletes with If-Match (204)", async () => {
    const put = await app.inject({
      method: "PUT",
      url: "/api/v1/rules/search-per-ip",
      headers: OPS,
      payload: { ...NEW_RULE, id: undefined },
    });
    expect(put.statusCode).toBe(201);
    const dup = await app.inject({ method: "POST", url: "/api/v1/rules", headers: OPS, payload: NEW_RULE });
    expect(dup.statusCode).toBe(409);
    const del = await app.inject({ method: "DELETE", url: "/api/v1/rules/search-per-ip", headers: OPS });
    expect(del.statusCode).toBe(428);
    const ok = await app.inject({
      method: "DELETE",
      url: "/api/v1/rules/search-per-ip",
      headers: { ...OPS, "if-match": put.headers.etag as string },
    });
    expect(ok.statusCode).toBe(204);
    expect((await app.inject({ url: "/api/v1/rules/search-per-ip" })).statusCode).toBe(404);
    expect(
      (await app.inject({ method: "DELETE", url: "/api/v1/rules/search-per-ip", headers: OPS })).statusCode,
    ).toBe(404);
    expect(audit.entries.map((e) => [e.action, e.before === null, e.after === null])).toEqual([
      ["rule.create", true, false],
      ["rule.delete", false, true],
    ]);
  });

  it("answers a write that changes nothing as usual but writes and audits nothing", async () => {
    const got = await app.inject({ url: "/api/v1/rules/api-per-user" });
    for (let i = 0; i < 2; i++) {
      const same = await app.inject({
        method: "PUT",
        url: "/api/v1/rules/api-per-user",
        headers: { ...OPS, "if-match": got.headers.etag as string },
        payload: json(got),
      });
      expect(same.statusCode).toBe(200);
      expect(same.headers.etag).toBe(got.headers.etag);
    }
    const untiered = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user%3A9/tier",
      headers: OPS,
      payload: { tier: null },
    });
    expect(untiered.statusCode).toBe(200);
    expect(repository.updates).toBe(0);
    expect(audit.entries).toEqual([]);
    expect(logged.filter((l) => l.msg === "admin: change")).toEqual([]);
  });

  it("answers 400 naming the body's own fields, from the rule schema and from the whole-config checks", async () => {
    const post = (payload: unknown) =>
      app.inject({ method: "POST", url: "/api/v1/rules", headers: OPS, payload: payload as object });
    const structural = await post({
      ...NEW_RULE,
      limits: [{ name: "x", limit: 5, period: "1s", burst: "lots" }],
      limts: [],
    });
    expect(structural.statusCode).toBe(400);
    const errors = json(structural).errors as { field: string; message: string }[];
    expect(errors).toContainEqual({ field: "limits[0].burst", message: 'must be a number, got "lots"' });
    expect(errors).toContainEqual({ field: "limts", message: "unknown field; did you mean limits?" });
    expect(json(structural).detail).toContain("limits[0].burst: must be a number");

    // Only the whole configuration knows: the rule lands at rules[2]; the answer names limits[0].burst.
    const cross = await post({
      ...NEW_RULE,
      limits: [{ name: "w", algorithm: "fixed_window", limit: 5, period: "1s", burst: 9 }],
      tiers: { gold: [{ limit: 1, period: "1s" }] },
    });
    expect(cross.statusCode).toBe(400);
    const crossErrors = json(cross).errors as { field?: string; config?: string }[];
    expect(crossErrors.map((e) => e.field)).toEqual(
      expect.arrayContaining(["limits[0].burst", "tiers.gold"]),
    );
    expect(crossErrors.every((e) => e.config === undefined)).toBe(true);

    const notObject = await app.inject({
      method: "POST",
      url: "/api/v1/rules",
      headers: { ...OPS, "content-type": "application/json" },
      payload: JSON.stringify("not an object"),
    });
    expect(json(notObject).errors).toEqual([
      { field: "", message: 'must be a mapping, got "not an object"' },
    ]);
    const text = await app.inject({ method: "POST", url: "/api/v1/rules", headers: OPS, payload: "id: x" });
    expect(text.statusCode).toBe(415);
    const badJson = await app.inject({
      method: "POST",
      url: "/api/v1/rules",
      headers: { ...OPS, "content-type": "application/json" },
      payload: "{ nope",
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.headers["content-type"]).toMatch(/problem\+json/);
    const mismatch = await app.inject({
      method: "PUT",
      url: "/api/v1/rules/other",
      headers: OPS,
      payload: NEW_RULE,
    });
    expect(json(mismatch).errors).toEqual([
      { field: "id", message: 'must equal the id in the path ("other"), got "search-per-ip"' },
    ]);
    expect(repository.updates).toBe(0);
  });

  it("answers 409 when a deletion would leave the configuration inconsistent, naming the config path", async () => {
    const override = await app.inject({
      method: "POST",
      url: "/api/v1/users/user%3A42/override",
      headers: OPS,
      payload: { rule: "api-per-user", limits: "unlimited" },
    });
    expect(override.statusCode).toBe(201);
    const etag = (await app.inject({ url: "/api/v1/rules/api-per-user" })).headers.etag as string;
    const del = await app.inject({
      method: "DELETE",
      url: "/api/v1/rules/api-per-user",
      headers: { ...OPS, "if-match": etag },
    });
    expect(del.statusCode).toBe(409);
    expect(json(del).errors).toEqual([
      { config: "overrides[0].rule", message: 'unknown rule id "api-per-user"' },
    ]);
  });

  it("answers 409 when the configuration is read-only (envoyproxy/ratelimit format)", async () => {
    repository.failWith = new SluiceError(
      "ERR_SLUICE_UNSUPPORTED",
      "config.yaml: the envoyproxy/ratelimit format is read-only",
    );
    const res = await app.inject({ method: "POST", url: "/api/v1/rules", headers: OPS, payload: NEW_RULE });
    expect(res.statusCode).toBe(409);
    expect(json(res).detail).toContain("read-only");
  });
});

describe("admin API: identities", () => {
  it("changes a tier, seen by engine.check at once, with If-Match to change it again", async () => {
    expect(await checkUser("42")).toMatchObject({ limit: 3, source: "rule" });
    const set = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user%3A42/tier",
      headers: OPS,
      payload: { tier: "premium" },
    });
    expect(set.statusCode).toBe(200);
    expect(json(set)).toEqual({ identity: "user:42", tier: "premium" });
    expect(await checkUser("42")).toMatchObject({ limit: 10, source: "tier" });

    const again = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user:42/tier",
      headers: OPS,
      payload: { tier: "free" },
    });
    expect(again.statusCode).toBe(428);
    const remove = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user:42/tier",
      headers: { ...OPS, "if-match": set.headers.etag as string },
      payload: { tier: null },
    });
    expect(remove.statusCode).toBe(200);
    expect(await checkUser("42")).toMatchObject({ limit: 3, source: "rule" });
    expect(audit.entries.map((e) => [e.action, e.resource, e.before, e.after])).toEqual([
      [
        "tier.set",
        "users/user:42/tier",
        { identity: "user:42", tier: null },
        { identity: "user:42", tier: "premium" },
      ],
      [
        "tier.remove",
        "users/user:42/tier",
        { identity: "user:42", tier: "premium" },
        { identity: "user:42", tier: null },
      ],
    ]);
  });

  it("refuses an undeclared tier and a malformed identity, naming the field and the parameter", async () => {
    const tier = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user:42/tier",
      headers: OPS,
      payload: { tier: "gold" },
    });
    expect(tier.statusCode).toBe(400);
    expect(json(tier).errors).toEqual([
      { field: "tier", message: 'unknown tier "gold"; declared: free, premium' },
    ]);
    const id = await app.inject({
      method: "PUT",
      url: "/api/v1/users/nocolon/tier",
      headers: OPS,
      payload: { tier: "free" },
    });
    expect(json(id).errors).toMatchObject([{ parameter: "id" }]);
    const shape = await app.inject({
      method: "PUT",
      url: "/api/v1/users/user:42/tier",
      headers: OPS,
      payload: { tier: 5 },
    });
    expect(json(shape).errors).toEqual([{ field: "tier", message: "must be a string, got 5" }]);
  });

  it("applies an override until exactly expires_at, then the tier or rule limits again", async () => {
    const expiresAt = "2026-03-01T12:01:00Z";
    const res = await app.inject({
      method: "POST",
      url: "/api/v1/users/user%3A42/override",
      headers: OPS,
      payload: {
        limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 1000, period: "1m" }],
        expires_at: expiresAt,
      },
    });
    expect(res.statusCode).toBe(201);
    expect(json(res)).toEqual({
      identity: "user:42",
      overrides: [
        {
          identity: "user:42",
          limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 1000, period: "1m" }],
          expiresAt,
        },
      ],
    });
    expect(await checkUser("42")).toMatchObject({ limit: 1000, source: "override", allowed: true });
    const limits = json(await app.inject({ url: "/api/v1/users/user%3A42/limits" }));
    expect((limits.rules as unknown[])[0]).toMatchObject({
      rule: "api-per-user",
      source: "override",
      expiresAt: "2026-03-01T12:01:00.000Z",
      limits: [{ name: "per-minute", limit: 1000, periodMs: 60_000 }],
    });

    clock.set(Date.parse(expiresAt) - 1);
    expect(await checkUser("42")).toMatchObject({ limit: 1000, source: "override" });
    clock.set(Date.parse(expiresAt));
    expect(await checkUser("42")).toMatchObject({ limit: 3, source: "rule" });
    const after = json(await app.inject({ url: "/api/v1/users/user%3A42/limits" }));
    expect((after.rules as unknown[])[0]).toMatchObject({ source: "rule", expiresAt: null });
  });

  it("refuses an override that has already expired or has no timezone, naming expires_at", async () => {
    const post = (expires_at: string) =>
      app.inject({
        method: "POST",
        url: "/api/v1/users/user:42/override",
        headers: OPS,
        payload: { limits: "unlimited", expires_at },
      });
    const past = await post("2026-03-01T11:00:00Z");
    expect(json(past).errors).toMatchObject([
      { field: "expires_at", message: expect.stringContaining("must be in the future") },
    ]);
    const noZone = await post("2026-03-01T13:00:00");
    expect(json(noZone).errors).toMatchObject([
      { field: "expires_at", message: expect.stringContaining("with a timezone") },
    ]);
    const unknownRule = await app.inject({
      method: "POST",
      url: "/api/v1/users/user:42/override",
      headers: OPS,
      payload: { limits: "unlimited", rule: "nope" },
    });
    expect(json(unknownRule).errors).toEqual([{ field: "rule", message: 'unknown rule id "nope"' }]);
    // For every rule, of a key no rule identifies callers by: it would never apply.
    const noRule = await app.inject({
      method: "POST",
      url: "/api/v1/users/team:7/override",
      headers: OPS,
      payload: { limits: "unlimited" },
    });
    expect(noRule.statusCode).toBe(409);
    expect(json(noRule).errors).toEqual([
      {
        config: "overrides[0].identity",
        message:
          'no rule identifies callers by the key of "team:7", so this override never applies (rules identify callers by "user")',
      },
    ]);
    expect(repository.updates).toBe(0);
  });

  it("adds a static-only override as given, and refuses a staticOnly that is not a boolean", async () => {
    const url = "/api/v1/users/user:42/override";
    const limits = [{ name: "per-minute", algorithm: "fixed_window", limit: 9, period: "1m" }];
    const bad = await app.inject({
      method: "POST",
      url,
      headers: OPS,
      payload: { limits, staticOnly: "yes" },
    });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).errors).toEqual([{ field: "staticOnly", message: 'must be true or false, got "yes"' }]);
    const res = await app.inject({
      method: "POST",
      url,
      headers: OPS,
      payload: { limits, staticOnly: true },
    });
    expect(res.statusCode).toBe(201);
    expect(json(res).overrides).toEqual([{ identity: "user:42", limits, staticOnly: true }]);
    const view = json(await app.inject({ url: "/api/v1/users/user%3A42/limits" }));
    expect((view.rules as unknown[])[0]).toMatchObject({ source: "override", staticOnly: true });
    expect(await checkUser("42")).toMatchObject({ limit: 9, source: "override" });
  });

  it("replaces an override only with If-Match, and deletes it per rule", async () => {
    const url = "/api/v1/users/user:42/override";
    const first = await app.inject({
      method: "POST",
      url,
      headers: OPS,
      payload: { rule: "api-per-user", limits: "unlimited" },
    });
    expect(first.statusCode).toBe(201);
    const generic = await app.inject({ method: "POST", url, headers: OPS, payload: { limits: "unlimited" } });
    expect(generic.statusCode).toBe(201);
    const replace = {
      rule: "api-per-user",
      limits: [{ name: "per-minute", algorithm: "fixed_window", limit: 7, period: "1m" }],
    };
    expect((await app.inject({ method: "POST", url, headers: OPS, payload: replace })).statusCode).toBe(428);
    const etag = (await app.inject({ url })).headers.etag as string;
    const replaced = await app.inject({
      method: "POST",
      url,
      headers: { ...OPS, "if-match": etag },
      payload: replace,
    });
    expect(replaced.statusCode).toBe(200);
    expect(await checkUser("42")).toMatchObject({ limit: 7, source: "override" });
    const del = await app.inject({
      method: "DELETE",
      url: `${url}?rule=api-per-user`,
      headers: { ...OPS, "if-match": replaced.headers.etag as string },
    });
    expect(del.statusCode).toBe(204);
    expect(json(await app.inject({ url })).overrides).toEqual([{ identity: "user:42", limits: "unlimited" }]);
    expect(
      (await app.inject({ method: "DELETE", url: `${url}?rule=api-per-user`, headers: OPS })).statusCode,
    ).toBe(404);
    expect(audit.entries.map((e) => e.action)).toEqual([
      "override.create",
      "override.create",
      "override.update",
      "override.delete",
    ]);
  });

  it("replaces and deletes every override of an identity and rule when the configuration holds two", async () => {
    const perMinute = (limit: number) => [
      { name: "per-minute", algorithm: "fixed_window" as const, limit, period: "1m" },
    ];
    await app.close();
    await engine.close();
    // Two overrides of one identity and rule: the later one is in force (effective-limits.ts).
    repository = new MemoryRepository({
      ...DOC,
      overrides: [
        { identity: "user:42", rule: "api-per-user", limits: perMinute(100) },
        { identity: "user:9", limits: "unlimited" },
        { identity: "user:42", rule: "api-per-user", limits: perMinute(200) },
      ],
    });
    engine = createEngine({ config: (await repository.load()).config, clock });
    app = build();
    await app.ready();
    expect(await checkUser("42")).toMatchObject({ limit: 200, source: "override" });
    const url = "/api/v1/users/user:42/override";
    const replaced = await app.inject({
      method: "POST",
      url,
      headers: { ...OPS, "if-match": (await app.inject({ url })).headers.etag as string },
      payload: { rule: "api-per-user", limits: perMinute(5) },
    });
    expect(replaced.statusCode).toBe(200);
    expect(json(replaced).overrides).toEqual([
      { identity: "user:42", rule: "api-per-user", limits: perMinute(5) },
    ]);
    expect(await checkUser("42")).toMatchObject({ limit: 5, source: "override" });
    expect((await repository.load()).document.overrides).toEqual([
      { identity: "user:42", rule: "api-per-user", limits: perMinute(5) },
      { identity: "user:9", limits: "unlimited" },
    ]);

    await app.close();
    await engine.close();
    repository = new MemoryRepository({
      ...DOC,
      overrides: [
        { identity: "user:42", rule: "api-per-user", limits: perMinute(100) },
        { identity: "user:42", rule: "api-per-user", limits: perMinute(200) },
      ],
    });
    engine = createEngine({ config: (await repository.load()).config, clock });
    app = build();
    await app.ready();
    const del = await app.inject({
      method: "DELETE",
      url: `${url}?rule=api-per-user`,
      headers: { ...OPS, "if-match": (await app.inject({ url })).headers.etag as string },
    });
    expect(del.statusCode).toBe(204);
    expect(json(await app.inject({ url })).overrides).toEqual([]);
    expect(await checkUser("42")).toMatchObject({ limit: 3, source: "rule" });
  });

  it("shows no usage when the store is unreachable: the failure policy's numbers are not the shared counter's", async () => {
    await app.close();
    await engine.close();
    engine = createEngine({ config: (await repository.load()).config, clock, store: failingStore() });
    app = build();
    await app.ready();
    const body = json(await app.inject({ url: "/api/v1/users/user%3A7/limits" }));
    const [perUser] = body.rules as Record<string, unknown>[];
    expect(perUser).toMatchObject({ rule: "api-per-user", usage: { available: false } });
    expect((perUser.usage as { reason: string }).reason).toContain("the store is unreachable");
  });

  it("reports effective limits with usage, and why usage is not available", async () => {
    await checkUser("7");
    await checkUser("7");
    const res = await app.inject({ url: "/api/v1/users/user%3A7/limits" });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBeDefined();
    const body = json(res);
    expect(body).toMatchObject({ identity: "user:7", tier: "free", at: "2026-03-01T12:00:00.000Z" });
    const [perUser, orders] = body.rules as Record<string, unknown>[];
    expect(perUser).toMatchObject({
      rule: "api-per-user",
      domain: "api",
      source: "rule",
      tier: "free",
      usage: {
        available: true,
        policies: [{ policy: "per-minute", limit: 3, remaining: 1, used: 2, state: "normal" }],
      },
    });
    expect(orders).toMatchObject({ rule: "orders-per-user", usage: { available: false } });
    expect((orders.usage as { reason: string }).reason).toContain(
      '"endpoint" entry by the path pattern "/orders/*"',
    );
    // Peeking counted nothing.
    expect((await checkUser("7")).allowed).toBe(true);
    expect((await checkUser("7")).allowed).toBe(false);
    expect(json(await app.inject({ url: "/api/v1/users/team%3Ax/limits" })).rules).toEqual([]);
    // Any character of an identity survives URL encoding, "/" included.
    const slash = json(await app.inject({ url: "/api/v1/users/user%3Aa%2Fb%20c/limits" }));
    expect(slash.identity).toBe("user:a/b c");
  });
});

describe("admin API: audit and reset", () => {
  it("pages the audit log newest first with a next cursor", async () => {
    for (const id of ["a", "b", "c"]) {
      await app.inject({
        method: "POST",
        url: "/api/v1/rules",
        headers: OPS,
        payload: { ...NEW_RULE, id, match: [{ key: `k${id}` }] },
      });
    }
    const first = await app.inject({ url: "/api/v1/audit?limit=2" });
    const page = json(first);
    expect((page.entries as { resource: string }[]).map((e) => e.resource)).toEqual(["rules/c", "rules/b"]);
    expect((page.entries as { at: string }[])[0].at).toBe("2026-03-01T12:00:00.000Z");
    expect(first.headers.link).toBe(`</api/v1/audit?limit=2&cursor=${page.next}>; rel="next"`);
    const second = json(await app.inject({ url: `/api/v1/audit?limit=2&cursor=${page.next}` }));
    expect((second.entries as { resource: string }[]).map((e) => e.resource)).toEqual(["rules/a"]);
    expect(second.next).toBeUndefined();
    expect(json(await app.inject({ url: "/api/v1/audit?limit=0" })).errors).toMatchObject([
      { parameter: "limit" },
    ]);
  });

  it("resets an identity's counters under every rule it can be named in, audited", async () => {
    for (let i = 0; i < 3; i++) await checkUser("42");
    expect((await checkUser("42")).allowed).toBe(false);
    const res = await app.inject({
      method: "POST",
      url: "/api/v1/limits/reset",
      headers: CI,
      payload: { identity: "user:42" },
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({
      counters: 1,
      rules: ["api-per-user"],
      skipped: [{ rule: "orders-per-user" }],
    });
    expect((await checkUser("42")).allowed).toBe(true);
    expect(audit.entries[0]).toMatchObject({
      actor: "ci",
      action: "limits.reset",
      resource: "limits/user:42",
      before: null,
    });
    const byDescriptor = await app.inject({
      method: "POST",
      url: "/api/v1/limits/reset",
      headers: CI,
      payload: { domain: "api", descriptors: [[{ key: "user", value: "42" }]] },
    });
    expect(json(byDescriptor)).toMatchObject({ counters: 1 });
    const bad = await app.inject({
      method: "POST",
      url: "/api/v1/limits/reset",
      headers: CI,
      payload: { domain: "api" },
    });
    expect(json(bad).errors).toEqual([{ field: "descriptors", message: "is required" }]);
    expect(
      (await app.inject({ method: "POST", url: "/api/v1/limits/reset", payload: { identity: "user:42" } }))
        .statusCode,
    ).toBe(401);
  });
});

describe("admin API: long identities", () => {
  // The longest identity the engine can form: a 256-character key and a 1024-character value, here of characters
  // URL-encoding makes 6 or 9 characters long.
  const longest = `${"k".repeat(256)}:${"é".repeat(1000)}${"€".repeat(24)}`;
  const longUser = `user:${"é".repeat(1024)}`;
  const path = (identity: string) => `/api/v1/users/${encodeURIComponent(identity)}`;

  it("manages and audits an identity as long as the engine's longest key and value", async () => {
    const tier = await app.inject({
      method: "PUT",
      url: `${path(longest)}/tier`,
      headers: OPS,
      payload: { tier: "premium" },
    });
    expect(tier.statusCode).toBe(200);
    expect(json(await app.inject({ url: `${path(longest)}/tier` }))).toEqual({
      identity: longest,
      tier: "premium",
    });
    const override = await app.inject({
      method: "POST",
      url: `${path(longUser)}/override`,
      headers: OPS,
      payload: { rule: "api-per-user", limits: "unlimited" },
    });
    expect(override.statusCode).toBe(201);
    const reset = await app.inject({
      method: "POST",
      url: "/api/v1/limits/reset",
      headers: OPS,
      payload: { identity: longest },
    });
    expect(reset.statusCode).toBe(200);
    expect(audit.entries.map((e) => [e.action, e.resource])).toEqual([
      ["tier.set", `users/${longest}/tier`],
      ["override.create", `users/${longUser}/override/api-per-user`],
      ["limits.reset", `limits/${longest}`],
    ]);
    expect(logged.filter((l) => l.level === "error")).toEqual([]);
  });

  it("refuses an identity beyond the engine's bounds, naming the field, and changes nothing", async () => {
    const tooLong = `user:${"v".repeat(1025)}`;
    const tier = await app.inject({
      method: "PUT",
      url: `${path(tooLong)}/tier`,
      headers: OPS,
      payload: { tier: "premium" },
    });
    expect(tier.statusCode).toBe(400);
    expect(json(tier).errors).toEqual([
      {
        parameter: "id",
        message:
          'its value (after the first ":") must be at most 1024 characters, as a request\'s entry value, got 1025',
      },
    ]);
    const reset = await app.inject({
      method: "POST",
      url: "/api/v1/limits/reset",
      headers: OPS,
      payload: { identity: `${"k".repeat(257)}:1` },
    });
    expect(reset.statusCode).toBe(400);
    expect(json(reset).errors).toMatchObject([{ field: "identity" }]);
    expect(repository.updates).toBe(0);
    expect(audit.entries).toEqual([]);
  });
});

describe("admin API: reset by identity", () => {
  const RESET_DOC: NativeConfigInput = {
    version: 1,
    rules: [
      {
        id: "per-user",
        domain: "api",
        match: [{ key: "user" }],
        limits: [{ algorithm: "fixed_window", limit: 5, period: "1m" }],
      },
      {
        id: "vip-42",
        domain: "api",
        match: [{ key: "user", value: "42" }],
        limits: [{ algorithm: "fixed_window", limit: 3, period: "1m" }],
      },
      {
        id: "beta-users",
        domain: "api",
        match: [{ key: "user", prefix: "beta-" }],
        limits: [{ algorithm: "fixed_window", limit: 50, period: "1m" }],
      },
      {
        id: "search",
        domain: "api",
        match: [{ key: "user" }, { key: "endpoint", value: "/search" }],
        limits: [{ algorithm: "fixed_window", limit: 2, period: "1m" }],
      },
    ],
  };
  const reset = (identity: string) =>
    app.inject({ method: "POST", url: "/api/v1/limits/reset", headers: CI, payload: { identity } });
  const use = (user: string, endpoint?: string) =>
    engine.check({
      domain: "api",
      descriptors: [
        [{ key: "user", value: user }, ...(endpoint ? [{ key: "endpoint", value: endpoint }] : [])],
      ],
    });

  beforeEach(async () => {
    await app.close();
    await engine.close();
    repository = new MemoryRepository(RESET_DOC);
    engine = createEngine({ config: (await repository.load()).config, clock });
    app = build();
    await app.ready();
  });

  it("lists exactly the rules whose counters were reset, each counter once, the others skipped with why", async () => {
    for (let i = 0; i < 5; i++) await use("7");
    const seven = await reset("user:7");
    expect(seven.statusCode).toBe(200);
    expect(json(seven)).toEqual({
      counters: 2,
      rules: ["per-user", "search"],
      skipped: [
        { rule: "beta-users", reason: 'user:7 does not match the rule\'s "user" entry (the prefix "beta-")' },
      ],
    });
    expect((await use("7")).allowed).toBe(true);

    // user:42 is counted by the exact rule vip-42 (no identity entry), not per-user: vip-42 is what is reset.
    for (let i = 0; i < 3; i++) await use("42");
    expect((await use("42")).allowed).toBe(false);
    const vip = json(await reset("user:42"));
    expect(vip).toMatchObject({ counters: 2, rules: ["vip-42", "search"] });
    expect(vip.skipped).toEqual(
      expect.arrayContaining([
        {
          rule: "per-user",
          reason: 'requests of user:42 with this descriptor are counted by the more specific rule "vip-42"',
        },
        expect.objectContaining({ rule: "beta-users" }),
      ]),
    );
    expect((await use("42")).allowed).toBe(true);
    expect(audit.entries.at(-1)?.after).toMatchObject({ counters: 2, rules: ["vip-42", "search"] });
  });

  it("neither resets nor reports as an identity's own a counter its shared identity entry gives many", async () => {
    await app.close();
    await engine.close();
    repository = new MemoryRepository({
      version: 1,
      rules: [
        {
          id: "internal-network",
          domain: "edge",
          match: [{ key: "remote_address", prefix: "10.", shared: true }],
          limits: [{ algorithm: "fixed_window", limit: 100, period: "1h" }],
        },
      ],
    });
    engine = createEngine({ config: (await repository.load()).config, clock });
    app = build();
    await app.ready();
    const from = (address: string) =>
      engine.check({ domain: "edge", descriptors: [[{ key: "remote_address", value: address }]] });
    for (let i = 0; i < 30; i++) await from("10.9.9.9");
    const reason =
      'the rule\'s "remote_address" entry (the prefix "10.") is shared: every matching remote_address counts one counter, not remote_address:10.0.0.1 alone';
    const view = json(await app.inject({ url: "/api/v1/users/remote_address%3A10.0.0.1/limits" }));
    expect((view.rules as { usage: unknown }[])[0].usage).toEqual({ available: false, reason });
    const res = await reset("remote_address:10.0.0.1");
    expect(json(res)).toEqual({ counters: 0, rules: [], skipped: [{ rule: "internal-network", reason }] });
    // The network's count is untouched: 30 used, this check is the 31st.
    expect((await from("10.9.9.9")).decision.remaining).toBe(69);
  });

  it("audits and reports what was reset when the store fails part-way (503 naming what was not)", async () => {
    for (let i = 0; i < 5; i++) await use("7");
    await use("7", "/search");
    const real = engine.reset.bind(engine);
    let calls = 0;
    engine.reset = async (request) => {
      calls++;
      if (calls === 2) throw new StoreUnavailableError("memory", "down for the test");
      return real(request);
    };
    const res = await reset("user:7");
    expect(res.statusCode).toBe(503);
    expect(json(res)).toMatchObject({
      type: "urn:sluice:problem:unavailable",
      counters: 1,
      rules: ["per-user"],
      notReset: ["search"],
    });
    expect(audit.entries.at(-1)).toMatchObject({
      action: "limits.reset",
      after: { counters: 1, rules: ["per-user"], notReset: ["search"], error: "memory: down for the test" },
    });
    expect((await use("7")).allowed).toBe(true);
    expect((await use("7", "/search")).decision.remaining).toBe(0);
  });
});

describe("admin API: its own rate limits", () => {
  it("answers 429 with the standard headers past the reads and writes per minute, per token", async () => {
    await app.close();
    app = build({ limits: { readsPerMinute: 3, writesPerMinute: 2 } });
    const reads = [];
    for (let i = 0; i < 4; i++) reads.push(await app.inject({ url: "/api/v1/rules", headers: OPS }));
    expect(reads.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    expect(reads[0].headers["ratelimit-policy"]).toBe('"admin-reads";q=3;w=60');
    expect(reads[0].headers.ratelimit).toMatch(/^"admin-reads";r=2;t=\d+$/);
    const denied = reads[3];
    expect(denied.headers["retry-after"]).toBe("20");
    expect(denied.headers.ratelimit).toBe('"admin-reads";r=0;t=20');
    expect(json(denied)).toMatchObject({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      status: 429,
      "violated-policies": ["admin-reads"],
    });
    // Another token has its own quota; so does the anonymous client address.
    expect((await app.inject({ url: "/api/v1/rules", headers: CI })).statusCode).toBe(200);
    expect((await app.inject({ url: "/api/v1/rules" })).statusCode).toBe(200);
    // Failed authentication is limited per address, before the 401.
    const writes = [];
    for (let i = 0; i < 3; i++)
      writes.push((await app.inject({ method: "POST", url: "/api/v1/rules", payload: NEW_RULE })).statusCode);
    expect(writes).toEqual([401, 401, 429]);
    clock.advance(20_000);
    expect((await app.inject({ url: "/api/v1/rules", headers: OPS })).statusCode).toBe(200);
  });
});

describe("admin API: configuration from the repository", () => {
  it("applies every snapshot the repository reports, whoever wrote it", async () => {
    await repository.update((draft) => {
      draft.identities = { ...draft.identities, "user:99": "premium" };
    });
    expect(await checkUser("99")).toMatchObject({ limit: 10, source: "tier" });
    const status = json(await app.inject({ url: "/api/v1/status" }));
    // The repository's version, not the engine's count of updates (one here: this snapshot).
    expect(status).toMatchObject({
      config: { version: 2, reloads: 1, lastError: null },
      repository: { location: "memory:test", appliedVersion: 2, readOnly: false, readOnlyReason: null },
    });
    const user = json(await app.inject({ url: "/api/v1/users/user:99/limits", headers: OPS }));
    expect(user.configVersion).toBe(2);
  });

  it("says in GET /status when the repository is read-only, and why", async () => {
    repository.readOnlyReason = "memory:test: read-only (staged)";
    const status = json(await app.inject({ url: "/api/v1/status" }));
    expect(status.repository).toEqual({
      location: "memory:test",
      appliedVersion: 1,
      readOnly: true,
      readOnlyReason: "memory:test: read-only (staged)",
    });
  });

  it("answers an audit log whose directory cannot be written with 503 naming the file, not 500", async () => {
    await app.close();
    const failing = new MemoryAuditLog(clock);
    failing.list = () =>
      Promise.reject(
        new FileNotWritableError(
          "/ro/audit.jsonl",
          "/ro",
          "EROFS",
          "cannot take its lock /ro/audit.jsonl.lock",
        ),
      );
    app = build({ audit: failing });
    const res = await app.inject({ url: "/api/v1/audit", headers: OPS });
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toMatch(/problem\+json/);
    expect(json(res).detail).toBe(
      "/ro/audit.jsonl: cannot take its lock /ro/audit.jsonl.lock: the directory /ro cannot be written " +
        "(EROFS: read-only file system)",
    );
  });

  it("refuses a change the engine could not enforce before persisting it, naming the field", async () => {
    const limits = Array.from({ length: 8 }, (_, i) => ({ name: `l${i}`, limit: 5 + i, period: "1s" }));
    const res = await app.inject({
      method: "POST",
      url: "/api/v1/rules",
      headers: OPS,
      payload: { ...NEW_RULE, limits },
    });
    expect(res.statusCode).toBe(400);
    expect(json(res).errors).toEqual([
      { field: "limits", message: "at most 7 limits may apply to one key, got 8" },
    ]);
    expect(repository.updates).toBe(0);
  });

  it("keeps the configuration in force when the engine refuses a snapshot written elsewhere, and reports it", async () => {
    // A snapshot every check passes but the engine refuses (a writer of another version, a store the engine cannot
    // serve it on): the engine's refusal is staged here, since the loaders now refuse whatever the engine would.
    const update = engine.updateConfig.bind(engine);
    engine.updateConfig = (config) => {
      engine.updateConfig = update;
      const error = new ConfigError("ERR_SLUICE_INVALID_CONFIG", [
        { path: "rules[2].limits", message: "refused by the engine (staged)" },
      ]);
      engine.reportConfigError(error, config.source);
      throw error;
    };
    await repository.update((draft) => {
      draft.rules.push({ ...NEW_RULE, limits: [{ name: "l0", limit: 5, period: "1s" }] });
    });
    expect(engine.config.rules.map((r) => r.id)).toEqual(["api-per-user", "orders-per-user"]);
    expect(logged.some((l) => l.level === "error" && l.msg.includes("refused"))).toBe(true);
    const status = json(await app.inject({ url: "/api/v1/status" }));
    expect(status).toMatchObject({
      config: { lastError: { message: expect.stringContaining("refused by the engine") } },
      repository: { appliedVersion: 2 },
    });
  });

  it("serves stats from the tally and problem details for unknown routes", async () => {
    await app.close();
    const tally = createDecisionTally({ clock });
    app = build({ tally });
    for (let i = 0; i < 4; i++) {
      tally.record(
        "api",
        await engine.check({ domain: "api", descriptors: [[{ key: "user", value: "1" }]] }),
      );
    }
    clock.advance(1_000);
    const stats = json(await app.inject({ url: "/api/v1/stats" }));
    expect(stats).toMatchObject({
      recording: true,
      rules: [{ domain: "api", rule: "api-per-user", totals: { allowed: 3, denied: 1, shadow: 0 } }],
      topThrottled: [{ identity: "user:1", count: 1, error: 0 }],
      engine: { checks: 4, allowed: 3, denied: 1, refunded: 0 },
    });
    const missing = await app.inject({ url: "/api/v1/nothing" });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers["content-type"]).toMatch(/problem\+json/);
    expect((await app.inject({ url: "/v1/check" })).statusCode).toBe(404);
  });

  it("serves the dashboard with a strict content security policy", async () => {
    const root = await app.inject({ url: "/" });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe("/dashboard/");
    const page = await app.inject({ url: "/dashboard/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.body).toContain('<script type="module" src="dashboard.js"></script>');
    const script = await app.inject({ url: "/dashboard/dashboard.js" });
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect((await app.inject({ url: "/dashboard/dashboard.css" })).statusCode).toBe(200);
  });
});

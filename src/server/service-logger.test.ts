import { describe, expect, it } from "vitest";
import {
  censorSecrets,
  createServiceLogger,
  maskSecrets,
  maskUrlCredentials,
  REDACTED,
} from "./service-logger.js";

function capture(level: "info" | "debug" = "info") {
  const lines: string[] = [];
  const log = createServiceLogger({ level, destination: { write: (l: string) => lines.push(l) } });
  return { log, lines, text: () => lines.join("") };
}

describe("maskUrlCredentials", () => {
  it("masks the password and keeps the user, host, port and database", () => {
    expect(maskUrlCredentials("redis://app:s3cr3t@10.0.0.5:6380/2")).toBe("redis://app:***@10.0.0.5:6380/2");
    expect(maskUrlCredentials("rediss://:s3cr3t@cache.example:6379")).toBe(
      "rediss://:***@cache.example:6379",
    );
  });

  it("masks a user part without a password whole (it may be a token)", () => {
    expect(maskUrlCredentials("redis://tok_abcdef@host")).toBe("redis://***@host");
    // A raw @ in the password: the URL parser (and ioredis) split at the last @ of the authority.
    expect(new URL("redis://admin:hunter2@xyz@127.0.0.1:1").password).toBe("hunter2%40xyz");
    expect(maskUrlCredentials("redis://admin:hunter2@xyz@127.0.0.1:1/0")).toBe(
      "redis://admin:***@127.0.0.1:1/0",
    );
    expect(maskUrlCredentials("redis://a@b@c:1,redis://u:p@h")).toBe("redis://***@c:1,redis://u:***@h");
  });

  it("masks every URL in a text and leaves URLs without credentials alone", () => {
    expect(maskUrlCredentials("a redis://u:p1@h1,redis://u:p2@h2 b http://x.example/path")).toBe(
      "a redis://u:***@h1,redis://u:***@h2 b http://x.example/path",
    );
  });
});

describe("maskSecrets", () => {
  it("masks Bearer and Basic credentials", () => {
    expect(maskSecrets("Authorization: Bearer eyJhbGciOi.abc-def_1")).toBe("Authorization: Bearer ***");
    expect(maskSecrets("basic dXNlcjpwYXNz")).toBe("basic ***");
  });
});

describe("createServiceLogger", () => {
  it("never writes a Redis password, whether in a message, a field, an error or a nested object", () => {
    const { log, text } = capture();
    const url = "redis://sluice:hunter2-pw@127.0.0.1:6390/0";
    log.info({ redis: url, nested: { urls: [url, url] } }, `connecting to ${url}`);
    log.error({ err: new Error(`connect ECONNREFUSED ${url}`) }, "store failed");
    log.warn(`plain string with rediss://:hunter2-pw@host`);
    const out = text();
    expect(out).not.toContain("hunter2-pw");
    expect(out).toContain("redis://sluice:***@127.0.0.1:6390/0");
    expect(out.split("\n").filter(Boolean)).toHaveLength(3);
  });

  it("censors authorization, cookie, API key, password and token fields", () => {
    const { log, lines } = capture();
    log.info(
      {
        headers: {
          authorization: "Bearer very-secret-token",
          cookie: "sid=abc123",
          "x-api-key": "ak_live_1",
        },
        req: { headers: { authorization: "Basic Zm9vOmJhcg==" } },
        password: "pw-1",
        token: "tk-1",
        settings: { password: "pw-2" },
      },
      "request",
    );
    const out = lines.join("");
    for (const secret of ["very-secret-token", "abc123", "ak_live_1", "Zm9vOmJhcg", "pw-1", "tk-1", "pw-2"]) {
      expect(out).not.toContain(secret);
    }
    const line = JSON.parse(lines[0]) as {
      headers: Record<string, string>;
      password: string;
      settings: { password: string };
    };
    expect(line.headers.authorization).toBe(REDACTED);
    expect(line.headers["x-api-key"]).toBe(REDACTED);
    expect(line.password).toBe(REDACTED);
    expect(line.settings.password).toBe(REDACTED);
  });

  it("censors secret fields in child loggers' bindings too", () => {
    const { log, lines } = capture();
    log.child({ component: "http", headers: { Authorization: "Bearer child-secret" } }).info("hello");
    expect(lines.join("")).not.toContain("child-secret");
    expect(JSON.parse(lines[0])).toMatchObject({ component: "http", headers: { Authorization: REDACTED } });
  });

  it("writes one JSON object per line at the chosen level", () => {
    const { log, lines } = capture("info");
    log.debug("hidden");
    log.info({ endpoint: "http" }, "listening");
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { msg: string; endpoint: string; level: number; name: string };
    expect(line).toMatchObject({ msg: "listening", endpoint: "http", level: 30, name: "sluice" });
  });
});

describe("censorSecrets", () => {
  it("censors secret fields at any depth (any case), in arrays too, without touching the caller's objects", () => {
    const input = { a: 1, list: [{ token: "t1" }, { ok: true }], deep: { x: { COOKIE: "c" } } };
    const out = censorSecrets(input);
    expect(out).toEqual({
      a: 1,
      list: [{ token: REDACTED }, { ok: true }],
      deep: { x: { COOKIE: REDACTED } },
    });
    expect(input.list[0].token).toBe("t1");
    expect(input.deep.x.COOKIE).toBe("c");
  });

  it("returns an object without secrets as it is", () => {
    const input = { reqId: "req-1", nested: { n: [1, 2] } };
    expect(censorSecrets(input)).toBe(input);
    const error = new Error("x");
    expect(censorSecrets(error)).toBe(error);
  });
});

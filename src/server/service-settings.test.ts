import { Command } from "commander";
import { describe, expect, it } from "vitest";
import {
  addSettingOptions,
  attributeOf,
  describeSettings,
  parseServiceSettings,
  type RawSettingFlags,
  SERVICE_SETTINGS,
  type ServiceSettings,
} from "./service-settings.js";

const CONFIG = { config: "rules.yaml" };

/** Parses `argv` (flags after `serve`) with the generated commander options, then the settings. */
function fromArgv(argv: string[], env: Record<string, string> = {}): ServiceSettings {
  const cmd = addSettingOptions(new Command("serve")).exitOverride();
  cmd.parse(argv, { from: "user" });
  return parseServiceSettings(cmd.opts() as RawSettingFlags, env);
}

function errorOf(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected an error");
}

describe("the settings table", () => {
  it("has one row per setting, with unique flags and SLUICE_ variables derived from the flag", () => {
    const keys = SERVICE_SETTINGS.map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(SERVICE_SETTINGS.map((d) => d.flag)).size).toBe(keys.length);
    for (const d of SERVICE_SETTINGS) {
      expect(d.env).toBe(`SLUICE_${d.flag.toUpperCase().replaceAll("-", "_")}`);
      expect(d.description.length).toBeGreaterThan(10);
    }
    // Every field of the parsed settings comes from exactly one row.
    const parsed = parseServiceSettings(CONFIG, {});
    expect(Object.keys(parsed).sort()).toEqual([...keys].sort());
  });

  it("parses every default (so --help shows values that are valid)", () => {
    const s = parseServiceSettings(CONFIG, {});
    expect(s).toEqual({
      configFile: "rules.yaml",
      envoyAlgorithm: undefined,
      counting: "all_or_nothing",
      watch: true,
      store: "memory",
      redisUrls: [],
      redisCluster: false,
      redisSentinel: undefined,
      redisSentinelPassword: undefined,
      redisPrefix: "rl",
      memoryCapacity: 1_000_000,
      fallbackShare: 1,
      storeTimeoutMs: 50,
      host: "127.0.0.1",
      grpcPort: 8081,
      grpcTransport: "node-http2",
      grpcReceiveBufferBytes: 64 * 1024 * 1024,
      grpcMaxConnections: 1024,
      grpcMaxConnectionIdleMs: 300_000,
      grpcHandshakeTimeoutMs: 10_000,
      httpPort: 8080,
      defaultDomain: undefined,
      maxInflight: 1024,
      maxDelayed: 4096,
      maxBodyBytes: 65_536,
      maxBatchItems: 100,
      maxCost: 1_000_000_000,
      maxClockSkewMs: 60_000,
      drainTimeoutMs: 10_000,
      logLevel: "info",
      authDomain: undefined,
      authUserHeader: "x-user-id",
      authHeaders: "x-forwarded",
      authAddressHeader: "x-real-ip",
      authDescriptors: undefined,
      authDenyStatus: 429,
      trustedProxyHops: 0,
      legacyHeaders: false,
      envoyHeaders: true,
      admin: true,
      adminPort: 8082,
      adminReadAccess: "open",
      adminTokensFile: undefined,
      auditFile: undefined,
    });
    expect(Object.isFrozen(s)).toBe(true);
  });
});

describe("parseServiceSettings", () => {
  it("reads SLUICE_* variables, and a flag wins over its variable", () => {
    const env = { SLUICE_CONFIG: "from-env.yaml", SLUICE_GRPC_PORT: "9000", SLUICE_HTTP_PORT: "9001" };
    const s = parseServiceSettings({ httpPort: "7000" }, env);
    expect(s.configFile).toBe("from-env.yaml");
    expect(s.grpcPort).toBe(9000);
    expect(s.httpPort).toBe(7000);
  });

  it("chooses the gRPC server, the lean one by default, and refuses an unknown one naming the flag", () => {
    expect(parseServiceSettings(CONFIG, {}).grpcTransport).toBe("node-http2");
    expect(parseServiceSettings({ ...CONFIG, grpcTransport: "grpc-js" }, {}).grpcTransport).toBe("grpc-js");
    expect(parseServiceSettings(CONFIG, { SLUICE_GRPC_TRANSPORT: "grpc-js" }).grpcTransport).toBe("grpc-js");
    expect(() => parseServiceSettings({ ...CONFIG, grpcTransport: "h3" }, {})).toThrow(
      /--grpc-transport: must be one of node-http2, grpc-js, got "h3"/,
    );
  });

  it("reads the counting mode, all_or_nothing by default, and refuses another naming the flag", () => {
    expect(parseServiceSettings({ ...CONFIG, counting: "each" }, {}).counting).toBe("each");
    expect(parseServiceSettings(CONFIG, { SLUICE_COUNTING: "each" }).counting).toBe("each");
    expect(() => parseServiceSettings({ ...CONFIG, counting: "all" }, {})).toThrow(
      /--counting: must be one of all_or_nothing, each, got "all"/,
    );
  });

  it("takes a gRPC receive budget that holds the largest message, and refuses one that cannot, naming both", () => {
    const s = parseServiceSettings({ ...CONFIG, grpcReceiveBuffer: "2MiB", maxBodyBytes: "1MiB" }, {});
    expect(s.grpcReceiveBufferBytes).toBe(2 * 1024 * 1024);
    expect(() =>
      parseServiceSettings(CONFIG, { SLUICE_GRPC_RECEIVE_BUFFER: "1MiB", SLUICE_MAX_BODY_BYTES: "1MiB" }),
    ).toThrow(
      "SLUICE_GRPC_RECEIVE_BUFFER (1048576 bytes) must be at least SLUICE_MAX_BODY_BYTES (1048576 bytes) + 128KiB",
    );
  });

  it("reads the gRPC idle limit (0: never) and handshake deadline, and refuses bad ones naming the flag", () => {
    const s = parseServiceSettings(
      { ...CONFIG, grpcMaxConnectionIdle: "90s", grpcHandshakeTimeout: "2s" },
      {},
    );
    expect([s.grpcMaxConnectionIdleMs, s.grpcHandshakeTimeoutMs]).toEqual([90_000, 2000]);
    const env = { SLUICE_GRPC_MAX_CONNECTION_IDLE: "0", SLUICE_GRPC_HANDSHAKE_TIMEOUT: "500ms" };
    const e = parseServiceSettings(CONFIG, env);
    expect([e.grpcMaxConnectionIdleMs, e.grpcHandshakeTimeoutMs]).toEqual([0, 500]);
    expect(() => parseServiceSettings({ ...CONFIG, grpcHandshakeTimeout: "0" }, {})).toThrow(
      /--grpc-handshake-timeout: must be a duration from 1ms to 600000ms/,
    );
    expect(() => parseServiceSettings(CONFIG, { SLUICE_GRPC_MAX_CONNECTION_IDLE: "soon" })).toThrow(
      /SLUICE_GRPC_MAX_CONNECTION_IDLE: must be a duration from 0ms to 86400000ms/,
    );
  });

  it("refuses SLUICE_ADMIN_TOKENS and SLUICE_ADMIN_TOKENS_FILE together, naming both and echoing no token", () => {
    const both = { SLUICE_ADMIN_TOKENS: "env:tok-9f2", SLUICE_ADMIN_TOKENS_FILE: "/etc/sluice/tokens" };
    const e = errorOf(() => parseServiceSettings(CONFIG, both));
    expect(e.code).toBe("ERR_SLUICE_INVALID_ARGUMENT");
    expect(e.message).toBe(
      "SLUICE_ADMIN_TOKENS and SLUICE_ADMIN_TOKENS_FILE are both set: set one of them (the tokens, or the file that holds them)",
    );
    expect(e.message).not.toContain("tok-9f2");
    // One of them, an empty one, or the flag (which wins over both variables) is fine.
    expect(parseServiceSettings(CONFIG, { SLUICE_ADMIN_TOKENS_FILE: "/t" }).adminTokensFile).toBe("/t");
    expect(parseServiceSettings(CONFIG, { ...both, SLUICE_ADMIN_TOKENS: "" }).adminTokensFile).toBe(
      "/etc/sluice/tokens",
    );
    expect(parseServiceSettings({ ...CONFIG, adminTokensFile: "/f" }, both).adminTokensFile).toBe("/f");
  });

  it("treats an empty variable as unset", () => {
    expect(parseServiceSettings(CONFIG, { SLUICE_GRPC_PORT: "" }).grpcPort).toBe(8081);
  });

  it("parses durations, sizes and switches as documented", () => {
    const s = parseServiceSettings(
      { ...CONFIG, drainTimeout: "2.5s", storeTimeout: "20", maxBodyBytes: "1MiB", watch: false },
      { SLUICE_MAX_CLOCK_SKEW: "5m", SLUICE_LEGACY_HEADERS: "on", SLUICE_ENVOY_HEADERS: "0" },
    );
    expect(s.drainTimeoutMs).toBe(2500);
    expect(s.storeTimeoutMs).toBe(20);
    expect(s.maxBodyBytes).toBe(1_048_576);
    expect(s.maxClockSkewMs).toBe(300_000);
    expect(s.watch).toBe(false);
    expect(s.legacyHeaders).toBe(true);
    expect(s.envoyHeaders).toBe(false);
    expect(parseServiceSettings({ ...CONFIG, maxBodyBytes: "64k" }, {}).maxBodyBytes).toBe(65_536);
  });

  it("reports every problem at once, each naming the flag or the variable it came from", () => {
    const e = errorOf(() =>
      parseServiceSettings(
        { grpcPort: "70000", maxInflight: "0" },
        { SLUICE_HTTP_PORT: "http", SLUICE_DRAIN_TIMEOUT: "forever", SLUICE_LOG_LEVEL: "loud" },
      ),
    );
    expect(e.code).toBe("ERR_SLUICE_INVALID_ARGUMENT");
    const lines = e.message.split("\n");
    expect(lines).toContain('--grpc-port: must be a whole number from 0 to 65535, got "70000"');
    expect(lines).toContain('--max-inflight: must be a whole number from 1 to 1000000, got "0"');
    expect(lines).toContain('SLUICE_HTTP_PORT: must be a whole number from 0 to 65535, got "http"');
    expect(lines.some((l) => l.startsWith("SLUICE_DRAIN_TIMEOUT: must be a duration"))).toBe(true);
    expect(lines).toContain(
      'SLUICE_LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    );
    expect(lines).toContain(
      "--config (SLUICE_CONFIG) is required: the rules file to enforce, e.g. --config examples/sluice.yaml",
    );
    expect(lines).toHaveLength(6);
  });

  it("takes the Redis store when --redis is set, and checks the store options agree", () => {
    const s = parseServiceSettings(
      { ...CONFIG, redis: "redis://127.0.0.1:6390, redis://127.0.0.1:6391" },
      {},
    );
    expect(s.store).toBe("redis");
    expect(s.redisUrls).toEqual(["redis://127.0.0.1:6390", "redis://127.0.0.1:6391"]);
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, store: "redis" }, {})).message).toBe(
      "--store redis needs --redis (SLUICE_REDIS): the Redis URL(s)",
    );
    expect(
      errorOf(() => parseServiceSettings({ ...CONFIG, store: "memory" }, { SLUICE_REDIS: "redis://h" }))
        .message,
    ).toBe("SLUICE_REDIS applies only to the Redis store, but --store is memory");
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, redisCluster: true }, {})).message).toBe(
      "--redis-cluster applies only to --store redis",
    );
    expect(
      parseServiceSettings({ ...CONFIG, redisCluster: true }, { SLUICE_REDIS: "redis://a:7000" }),
    ).toMatchObject({ store: "redis", redisCluster: true, redisUrls: ["redis://a:7000"] });
  });

  it("refuses --audit-file where it would be ignored: with the Redis store (a stream) and without the admin API", () => {
    expect(
      errorOf(() =>
        parseServiceSettings({ ...CONFIG, auditFile: "/var/log/a.jsonl" }, { SLUICE_REDIS: "redis://h" }),
      ).message,
    ).toBe(
      "--audit-file applies only to the memory store: with --store redis the admin API's audit log is the Redis stream <--redis-prefix>:audit",
    );
    expect(
      errorOf(() =>
        parseServiceSettings({ ...CONFIG, admin: false }, { SLUICE_AUDIT_FILE: "/var/log/a.jsonl" }),
      ).message,
    ).toBe("SLUICE_AUDIT_FILE applies only with the admin API, which --no-admin (SLUICE_ADMIN) turns off");
    expect(parseServiceSettings({ ...CONFIG, auditFile: "/var/log/a.jsonl" }, {}).auditFile).toBe(
      "/var/log/a.jsonl",
    );
  });

  it("reads --redis-sentinel: the URLs are Sentinels, with the Redis store only and never with --redis-cluster", () => {
    const sentinels = "redis://app:pw@10.0.0.1:26379/2, redis://app:pw@10.0.0.2:26379/2";
    expect(
      parseServiceSettings({ ...CONFIG, redis: sentinels, redisSentinel: " mymaster " }, {}),
    ).toMatchObject({
      store: "redis",
      redisUrls: ["redis://app:pw@10.0.0.1:26379/2", "redis://app:pw@10.0.0.2:26379/2"],
      redisSentinel: "mymaster",
      redisSentinelPassword: undefined,
    });
    // From the environment, the Sentinels' password too; a flag wins over its variable.
    const env = {
      SLUICE_REDIS: "redis://10.0.0.1",
      SLUICE_REDIS_SENTINEL: "m1",
      SLUICE_REDIS_SENTINEL_PASSWORD: " s3nt pw ",
    };
    expect(parseServiceSettings(CONFIG, env)).toMatchObject({
      redisSentinel: "m1",
      redisSentinelPassword: " s3nt pw ", // a password is taken exactly
    });
    expect(fromArgv(["--config", "r.yaml", "--redis-sentinel", "m2"], env).redisSentinel).toBe("m2");
    // An empty variable is unset, as for every row.
    expect(parseServiceSettings(CONFIG, { SLUICE_REDIS_SENTINEL: "" }).redisSentinel).toBeUndefined();
  });

  it("refuses a bad --redis-sentinel naming the flag or variable, and never echoes a password", () => {
    const redis = "redis://h:26379";
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, redis, redisSentinel: " " }, {})).message).toBe(
      '--redis-sentinel: must be the master name the Sentinels monitor: 1 to 255 characters, no whitespace, got " "',
    );
    expect(
      errorOf(() => parseServiceSettings(CONFIG, { SLUICE_REDIS: redis, SLUICE_REDIS_SENTINEL: "my master" }))
        .message,
    ).toBe(
      'SLUICE_REDIS_SENTINEL: must be the master name the Sentinels monitor: 1 to 255 characters, no whitespace, got "my master"',
    );
    expect(
      errorOf(() => parseServiceSettings({ ...CONFIG, redis, redisSentinel: "m", redisCluster: true }, {}))
        .message,
    ).toBe(
      "--redis-sentinel and --redis-cluster exclude each other: the --redis URLs are either Sentinels or Cluster seeds",
    );
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, redisSentinel: "m" }, {})).message).toBe(
      "--redis-sentinel applies only to --store redis",
    );
    expect(
      errorOf(() => parseServiceSettings({ ...CONFIG, store: "memory" }, { SLUICE_REDIS_SENTINEL: "m" }))
        .message,
    ).toBe("SLUICE_REDIS_SENTINEL applies only to --store redis");
    expect(
      errorOf(() => parseServiceSettings({ ...CONFIG, redis }, { SLUICE_REDIS_SENTINEL_PASSWORD: "pw-7" }))
        .message,
    ).toBe("SLUICE_REDIS_SENTINEL_PASSWORD applies only with --redis-sentinel (SLUICE_REDIS_SENTINEL)");
    // The master's credentials, database and scheme come from the URLs: they must agree.
    const e = errorOf(() =>
      parseServiceSettings(
        { ...CONFIG, redis: "redis://u:pw-1@h1:26379/1,redis://u:pw-2@h2:26379/1", redisSentinel: "m" },
        {},
      ),
    );
    expect(e.message).toBe(
      "--redis: with --redis-sentinel every URL must carry the same scheme, user:password and /db (they are the master's)",
    );
    expect(e.message).not.toContain("pw-");
    expect(
      parseServiceSettings(
        { ...CONFIG, redis: "redis://h1:26379/0,redis://h2:26379", redisSentinel: "m" },
        {},
      ).redisUrls,
    ).toHaveLength(2); // "/0" and no path are the same database
  });

  it("refuses a bad Redis URL without echoing it (it may hold a password)", () => {
    const e = errorOf(() =>
      parseServiceSettings({ ...CONFIG, redis: "redis://u:pw-1@h:6379,http://u:pw-2@h" }, {}),
    );
    expect(e.message).toBe(
      "--redis: URL 2 of 2 must be redis://[user:password@]host[:port][/db] or rediss://…",
    );
    expect(e.message).not.toContain("pw-");
  });

  it("reads the forward-auth and header options", () => {
    const s = parseServiceSettings(
      {
        ...CONFIG,
        authDomain: "edge",
        authUserHeader: "X-Auth-User",
        authDescriptors: "user; user,endpoint ;header:X-Tenant",
        authAddressHeader: "",
        authDenyStatus: "403",
        authHeaders: "x-original",
        trustedProxyHops: "1",
      },
      {},
    );
    expect(s).toMatchObject({
      authDomain: "edge",
      authUserHeader: "x-auth-user",
      authHeaders: "x-original",
      authDescriptors: ["user", "user,endpoint", "header:X-Tenant"],
      authAddressHeader: "",
      authDenyStatus: 403,
      trustedProxyHops: 1,
    });
    // An empty variable turns the address header off too (Caddy passes the client's own X-Real-IP on); other
    // empty variables count as unset.
    expect(parseServiceSettings(CONFIG, { SLUICE_AUTH_ADDRESS_HEADER: "" }).authAddressHeader).toBe("");
    expect(parseServiceSettings(CONFIG, { SLUICE_AUTH_USER_HEADER: "" }).authUserHeader).toBe("x-user-id");
    // One header family for the URI and method, x-forwarded unless told (flag over variable).
    expect(parseServiceSettings(CONFIG, {}).authHeaders).toBe("x-forwarded");
    expect(parseServiceSettings(CONFIG, { SLUICE_AUTH_HEADERS: "x-original" }).authHeaders).toBe(
      "x-original",
    );
    expect(
      parseServiceSettings({ ...CONFIG, authHeaders: "x-forwarded" }, { SLUICE_AUTH_HEADERS: "x-original" })
        .authHeaders,
    ).toBe("x-forwarded");
    expect(errorOf(() => parseServiceSettings(CONFIG, { SLUICE_AUTH_HEADERS: "both" })).message).toBe(
      'SLUICE_AUTH_HEADERS: must be one of x-forwarded, x-original, got "both"',
    );
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, authDenyStatus: "401" }, {})).message).toBe(
      '--auth-deny-status: must be one of 429, 403, got "401"',
    );
    expect(
      errorOf(() => parseServiceSettings(CONFIG, { SLUICE_AUTH_DESCRIPTORS: "user;user,path" })).message,
    ).toBe(
      'SLUICE_AUTH_DESCRIPTORS: template 2 ("user,path") names "path"; attributes are remote_address, user, endpoint, method and header:<name>',
    );
    expect(errorOf(() => parseServiceSettings({ ...CONFIG, authUserHeader: "x user" }, {})).message).toBe(
      '--auth-user-header: must be an HTTP header name, got "x user"',
    );
  });
});

describe("addSettingOptions (commander)", () => {
  it("generates the options of every row, with the variable and default in the help", () => {
    const cmd = addSettingOptions(new Command("serve"));
    const help = cmd.helpInformation();
    for (const d of SERVICE_SETTINGS) {
      expect(help).toContain(d.env);
      if (d.kind === "switch")
        expect(help).toContain(d.default === "true" ? `--no-${d.flag}` : `--${d.flag}`);
      else expect(help).toContain(`--${d.flag} ${d.arg}`);
    }
    expect(help).toContain("[SLUICE_GRPC_PORT; default 8081]");
    expect(help).toContain("[SLUICE_WATCH; default on]");
  });

  it("hands commander's values to the parser: flags, both forms of a switch, and flags over variables", () => {
    const s = fromArgv(["--config", "a.yaml", "--grpc-port", "0", "--no-watch", "--legacy-headers"], {
      SLUICE_GRPC_PORT: "1234",
      SLUICE_HTTP_PORT: "4321",
    });
    expect(s).toMatchObject({
      configFile: "a.yaml",
      grpcPort: 0,
      httpPort: 4321,
      watch: false,
      legacyHeaders: true,
    });
    expect(fromArgv(["--config", "a.yaml", "--watch"], { SLUICE_WATCH: "false" }).watch).toBe(true);
    expect(
      errorOf(() => fromArgv(["--config", "a.yaml", "--no-envoy-headers", "--grpc-port", "x"])).message,
    ).toBe('--grpc-port: must be a whole number from 0 to 65535, got "x"');
  });

  it("names commander attributes after the flag", () => {
    expect(attributeOf("max-clock-skew")).toBe("maxClockSkew");
    expect(attributeOf("config")).toBe("config");
  });
});

describe("describeSettings", () => {
  it("masks the password of the Redis URLs and keeps everything else", () => {
    const s = parseServiceSettings(
      { ...CONFIG },
      { SLUICE_REDIS: "redis://app:pw-9@h1:6379,rediss://:pw-8@h2" },
    );
    const d = describeSettings(s);
    expect(d.redisUrls).toEqual(["redis://app:***@h1:6379", "rediss://:***@h2"]);
    expect(JSON.stringify(d)).not.toContain("pw-");
    expect(d.grpcPort).toBe(8081);
  });

  it("masks the Sentinels' password whole", () => {
    const s = parseServiceSettings(
      { ...CONFIG, redisSentinel: "mymaster" },
      { SLUICE_REDIS: "redis://:pw-9@h1:26379", SLUICE_REDIS_SENTINEL_PASSWORD: "pw-sentinel" },
    );
    const d = describeSettings(s);
    expect(d).toMatchObject({
      redisUrls: ["redis://:***@h1:26379"],
      redisSentinel: "mymaster",
      redisSentinelPassword: "***",
    });
    expect(JSON.stringify(d)).not.toContain("pw-");
  });
});

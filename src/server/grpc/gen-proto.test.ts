/**
 * The generated protobuf code is what the .proto files say: it is regenerated and compared with the committed
 * files (so nobody edits them by hand or forgets `npm run gen:proto`), and its codecs agree with protobufjs
 * *reflection* over the same .proto files, both ways, on messages that set every field.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { generate, PROTO_FILES } from "../../../scripts/gen-proto.mjs";
import * as gen from "./gen/protos.js";

const root = new URL("../../..", import.meta.url).pathname;
const protoDir = join(root, "proto");

/** The .proto files loaded by reflection, imports resolved under proto/ (google/protobuf/* built in). */
function reflectionRoot(): protobuf.Root {
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) =>
    target.startsWith("google/protobuf/") ? target : join(protoDir, target);
  r.loadSync([...PROTO_FILES], { keepCase: true });
  r.resolveAll();
  return r;
}

interface StaticType {
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
}

/** The generated class of a fully qualified message name. */
function staticType(name: string): StaticType {
  let t: unknown = gen;
  for (const part of name.split(".")) t = (t as Record<string, unknown>)[part];
  return t as StaticType;
}

const OBJECT_OPTIONS: protobuf.IConversionOptions = {
  longs: String,
  enums: Number,
  bytes: Array,
  oneofs: true,
};

/** One message of each type, with every field set (nested messages included). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  "envoy.service.ratelimit.v3.RateLimitRequest": {
    domain: "edge_proxy",
    descriptors: [
      {
        entries: [
          { key: "user_id", value: "user:100000" },
          { key: "path", value: "/api/v1/items" },
        ],
        limit: { requests_per_unit: 42, unit: 7 },
        hits_addend: { value: "18446744073709551615" },
      },
      { entries: [{ key: "remote_address", value: "ünïcødé ✓" }], hits_addend: { value: 0 } },
    ],
    hits_addend: 4_294_967_295,
  },
  "envoy.service.ratelimit.v3.RateLimitResponse": {
    overall_code: 2,
    statuses: [
      {
        code: 2,
        current_limit: { name: "per-second", requests_per_unit: 10, unit: 7 },
        limit_remaining: 4_294_967_295,
        duration_until_reset: { seconds: "9007199254740993", nanos: 999_999_999 },
        quota: { requests: 5, valid_until: { seconds: 1_700_000_000, nanos: 1 }, id: "q" },
      },
      { code: 1 },
    ],
    response_headers_to_add: [{ key: "RateLimit", value: '"a";r=1;t=2', raw_value: [0, 255, 1] }],
    request_headers_to_add: [{ key: "x-sluice", value: "1" }],
    raw_body: [123, 125],
    dynamic_metadata: {
      fields: {
        s: { string_value: "x" },
        n: { number_value: -1.5 },
        b: { bool_value: true },
        z: { null_value: 0 },
        l: {
          list_value: {
            values: [{ number_value: 1 }, { struct_value: { fields: { k: { string_value: "v" } } } }],
          },
        },
      },
    },
    quota: { requests: 1, id: "whole" },
  },
  "sluice.v1.CheckRequest": {
    identifier: "u1",
    dimension: "user",
    endpoint: "/orders",
    cost: 0,
    timestamp: "-1",
    domain: "api",
    descriptors: [{ entries: [{ key: "k", value: "" }] }],
    idempotency_key: "idem",
  },
  "sluice.v1.CheckResponse": {
    allowed: true,
    current_count: 1.5,
    limit: 3,
    remaining: 1.5,
    reset_at: "1767225660",
    retry_after: "-1",
    reset_at_ms: "1767225660000",
    retry_after_ms: "-1",
    delay_ms: "25",
    state: "warning",
    replayed: true,
    policies: [
      {
        name: "p",
        allowed: false,
        limit: 2,
        remaining: 0,
        window_ms: "60000",
        reset_after_ms: "1",
        retry_after_ms: "2",
        state: "throttled",
      },
    ],
    descriptors: [
      {
        code: "OVER_LIMIT",
        rule_id: "r",
        limit: 2,
        remaining: 0,
        reset_after_ms: "3",
        shadowed: true,
        delay_ms: "4",
      },
    ],
    reason: "fail_open",
  },
  "sluice.v1.CheckBatchRequest": {
    items: [{ identifier: "a", dimension: "user", cost: 2.5 }, { domain: "d" }],
  },
  "sluice.v1.CheckBatchResponse": {
    results: [
      { response: { allowed: true, limit: 1 } },
      { error: { code: 3, message: "items[1].cost ..." } },
    ],
  },
  "sluice.v1.QuotaRequest": {
    identifier: "u",
    dimension: "user",
    endpoint: "/e",
    timestamp: "1767225600000",
    domain: "api",
    descriptors: [{ entries: [{ key: "a", value: "b" }] }],
  },
  "sluice.v1.QuotaResponse": {
    allowed: false,
    current_count: 2,
    limit: 2,
    remaining: 0,
    reset_at: "1",
    retry_after: "2",
    reset_at_ms: "3",
    retry_after_ms: "4",
    delay_ms: "5",
    state: "throttled",
    replayed: false,
    policies: [{ name: "n", window_ms: "1" }],
    descriptors: [{ code: "OK" }],
    reason: "fail_closed",
  },
  "sluice.v1.ResetRequest": {
    identifier: "u",
    dimension: "user",
    endpoint: "/e",
    domain: "api",
    descriptors: [{ entries: [{ key: "a", value: "b" }] }],
  },
  "sluice.v1.ResetResponse": { counters: 4_294_967_295 },
  "grpc.health.v1.HealthCheckRequest": { service: "sluice.v1.RateLimiter" },
  "grpc.health.v1.HealthCheckResponse": { status: 3 },
};

describe("generated protobuf code", () => {
  it("is what scripts/gen-proto.mjs generates from proto/ now", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sluice-gen-proto-"));
    try {
      await generate(dir);
      for (const name of ["protos.js", "protos.d.ts"]) {
        const fresh = readFileSync(join(dir, name), "utf8");
        const committed = readFileSync(join(root, "src/server/grpc/gen", name), "utf8");
        expect(committed === fresh, `src/server/grpc/gen/${name} is stale: run npm run gen:proto`).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("covers every message of the services with a sample", () => {
    const r = reflectionRoot();
    const names = new Set<string>();
    for (const service of [
      "envoy.service.ratelimit.v3.RateLimitService",
      "sluice.v1.RateLimiter",
      "grpc.health.v1.Health",
    ]) {
      for (const m of r.lookupService(service).methodsArray) {
        names.add((m.resolvedRequestType as protobuf.Type).fullName.slice(1));
        names.add((m.resolvedResponseType as protobuf.Type).fullName.slice(1));
      }
    }
    expect([...names].sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it("sets every field of every message (google.protobuf ones aside) somewhere in the samples", () => {
    const r = reflectionRoot();
    const seen = new Set<string>();
    const reachable = new Set<protobuf.Type>();
    const walk = (t: protobuf.Type, obj: Record<string, unknown>): void => {
      reachable.add(t);
      for (const f of t.fieldsArray) {
        const v = obj[f.name];
        if (v === undefined) continue;
        seen.add(`${t.fullName}.${f.name}`);
        if (f.resolvedType instanceof protobuf.Type) {
          for (const x of f.repeated ? (v as Record<string, unknown>[]) : [v as Record<string, unknown>]) {
            walk(f.resolvedType, x);
          }
        }
      }
    };
    for (const [name, sample] of Object.entries(SAMPLES)) walk(r.lookupType(name), sample);
    const missing: string[] = [];
    for (const t of reachable) {
      if (t.fullName.startsWith(".google.protobuf.")) continue;
      for (const f of t.fieldsArray)
        if (!seen.has(`${t.fullName}.${f.name}`)) missing.push(`${t.fullName}.${f.name}`);
    }
    expect(missing).toEqual([]);
  });

  const refl = reflectionRoot();
  for (const [name, sample] of Object.entries(SAMPLES)) {
    it(`codes ${name} exactly as reflection over the .proto does, both ways`, () => {
      const R = refl.lookupType(name);
      const S = staticType(name);
      const viaReflection = R.encode(R.fromObject(sample)).finish();
      // Static decodes reflection's bytes, and its own encoding of them is byte-identical.
      const decoded = S.decode(viaReflection);
      const reencoded = S.encode(decoded).finish();
      expect(Buffer.from(reencoded).equals(Buffer.from(viaReflection))).toBe(true);
      // Reflection decodes static's bytes to the same message.
      const back = R.decode(reencoded);
      expect(R.toObject(back, OBJECT_OPTIONS)).toEqual(R.toObject(R.fromObject(sample), OBJECT_OPTIONS));
      expect(viaReflection.length).toBeGreaterThan(0);
    });
  }
});

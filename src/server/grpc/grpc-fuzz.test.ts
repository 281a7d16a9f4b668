/**
 * Fuzzing the gRPC surfaces with a raw `node:http2` client, so malformed bytes and frames really reach the
 * server: random bytes, valid messages truncated / bit-flipped / spliced, wrong wire types, huge lengths, deep
 * nesting, invalid UTF-8, absurd hits and costs, and broken gRPC framing. Inputs come from a seeded PRNG (the seed
 * is in the failure message), many calls in flight at once.
 *
 * Asserted: every reply is a well-formed gRPC answer (a `grpc-status`; OK with exactly one decodable message, or
 * INVALID_ARGUMENT / RESOURCE_EXHAUSTED with a message; broken framing may get any status, or HTTP 415 for a
 * non-gRPC content type); the server stays up and still answers a valid call correctly at the end; and nothing
 * was counted for refused requests: the engine saw exactly one check per OK answer (per OK batch item).
 */
import { type ClientHttp2Session, connect } from "node:http2";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  type GrpcHarness,
  HARNESS_START_MS,
  startGrpcHarness,
} from "../../../test/support/grpc-harness.js";
import { grpcFrame, type RawGrpcReply, rawGrpcCall } from "../../../test/support/grpc-raw.js";
import { createRandom } from "../../core/random.js";
import {
  envoyRls,
  RATE_LIMIT_SERVICE_NAME,
  RATE_LIMITER_SERVICE_NAME,
  sluiceV1,
} from "./service-definitions.js";

const SEED = 0x5eed_2026;
const PER_SURFACE = 10_000;
const BATCH_CALLS = 2_000;
const FRAMING_CALLS = 600;
const IN_FLIGHT = 96;

const YAML = `
version: 1
rules:
  - id: per-user
    domain: edge
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 5, period: 1h }]
  - id: per-path
    domain: edge
    match: [{ key: path }]
    limits: [{ name: per-minute, algorithm: gcra, limit: 50, period: 1m }]
  - id: shadow-ip
    domain: edge
    match: [{ key: ip }]
    behaviour: shadow
    limits: [{ limit: 1, period: 1m }]
  - id: banned
    domain: edge
    match: [{ key: banned }]
    blocked: true
  - id: api-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-day, algorithm: fixed_window, limit: 100, period: 1d }]
  - id: api-orders
    domain: api
    match: [{ key: user }, { key: endpoint, path: /orders/* }]
    limits: [{ name: orders, algorithm: token_bucket, limit: 10, period: 1s }]
`;

const ENVOY_PATH = `/${RATE_LIMIT_SERVICE_NAME}/ShouldRateLimit`;
const CHECK_PATH = `/${RATE_LIMITER_SERVICE_NAME}/CheckRateLimit`;
const BATCH_PATH = `/${RATE_LIMITER_SERVICE_NAME}/CheckRateLimitBatch`;

// ------------------------------------------------------------------------------------------ random inputs

const rnd = createRandom(SEED);
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
const chance = (p: number): boolean => rnd() < p;

const ALPHABET = [
  "a",
  "b",
  "z",
  "0",
  "9",
  "/",
  ":",
  "=",
  "|",
  "%",
  "*",
  " ",
  "é",
  "ß",
  "✓",
  "😀",
  "\u0000",
  "\uD800",
];

function str(max: number): string {
  const n = chance(0.02) ? max + int(3) : int(max + 1);
  let s = "";
  for (let i = 0; i < n; i++) s += pick(ALPHABET);
  return s;
}

/** How many of something: mostly 1 to 3, sometimes 0, sometimes beyond the engine's bound of 64. */
function howMany(): number {
  return chance(0.02) ? 60 + int(10) : chance(0.05) ? 0 : 1 + int(3);
}

function entries(): { key: string; value: string }[] {
  return Array.from({ length: howMany() }, () => ({
    key: chance(0.9)
      ? pick(["user", "path", "ip", "banned", "endpoint", "other"])
      : str(chance(0.05) ? 300 : 8),
    value: chance(0.7) ? pick(["1", "2", "/orders/7", "10.0.0.1", ""]) : str(chance(0.05) ? 1100 : 12),
  }));
}

const HUGE_U64 = ["18446744073709551615", "9007199254740993", "4294967296"];

function envoyRequest(): Record<string, unknown> {
  const n = howMany();
  return {
    domain: chance(0.8) ? "edge" : pick(["", "unknown", str(chance(0.1) ? 300 : 10)]),
    hits_addend: pick([0, 0, 1, 2, 3, 4_294_967_295, int(2_000_000)]),
    descriptors: Array.from({ length: n }, () => {
      const d: Record<string, unknown> = { entries: entries() };
      if (chance(0.2)) d.hits_addend = { value: pick([0, 1, 5, 1_000_001, ...HUGE_U64]) };
      if (chance(0.15)) d.limit = { requests_per_unit: pick([0, 1, 10, 4_294_967_295]), unit: int(10) };
      return d;
    }),
  };
}

function checkRequest(): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  const seed002 = chance(0.85);
  if (seed002 || chance(0.1)) r.identifier = chance(0.9) ? pick(["1", "2", "3"]) : str(20);
  if (seed002 || chance(0.1)) r.dimension = chance(0.9) ? pick(["user", "ip"]) : str(10);
  if (chance(0.4)) r.endpoint = chance(0.8) ? pick(["/orders/1", "/other"]) : str(30);
  if (chance(0.5))
    r.cost = pick([0, 1, 2, 2.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e308, 1_000_001, -0]);
  if (chance(0.3)) {
    r.timestamp = pick([
      0,
      HARNESS_START_MS,
      HARNESS_START_MS + 1000,
      1,
      "-9223372036854775808",
      "9223372036854775807",
    ]);
  }
  if (chance(0.7)) r.domain = pick(["api", "api", "edge", "", "unknown", str(10)]);
  if (chance(0.3))
    r.descriptors = Array.from({ length: chance(0.02) ? 70 : int(3) }, () => ({ entries: entries() }));
  if (chance(0.1)) r.idempotency_key = chance(0.5) ? pick(["k1", "k2"]) : str(chance(0.05) ? 300 : 10);
  return r;
}

/** Protobuf varint bytes of a non-negative integer below 2^53. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

function randomBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = int(256);
  return b;
}

/** Hand-made hostile encodings (the same shapes hit any message type). */
function hostile(): Buffer {
  const field = 1 + int(8);
  switch (int(7)) {
    case 0: {
      // A known field number with every wire type, including groups (3, 4) and reserved (6, 7).
      const wt = int(8);
      return Buffer.from([(field << 3) | wt, ...randomBytes(int(12))]);
    }
    case 1:
      // A length-delimited field declaring far more bytes than there are.
      return Buffer.from([(field << 3) | 2, ...varint(pick([0xffffffff, 2 ** 35, 2 ** 31, 1000])), 1, 2, 3]);
    case 2:
      // Invalid UTF-8 in a string field.
      return Buffer.from([(1 << 3) | 2, 4, 0xff, 0xfe, 0xc3, 0x28]);
    case 3:
      // A varint that never ends (11 continuation bytes).
      return Buffer.from([(field << 3) | 0, ...Array.from({ length: 11 }, () => 0xff)]);
    case 4: {
      // Deeply nested unknown groups.
      const depth = 50 + int(300);
      return Buffer.from([...Array.from({ length: depth }, () => (15 << 3) | 3)]);
    }
    case 5: {
      // Deeply nested length-delimited descriptors (descriptors[0].entries[0]... as messages in messages).
      let inner: number[] = [(1 << 3) | 2, 0];
      for (let i = 0; i < 40; i++) inner = [(2 << 3) | 2, ...varint(inner.length), ...inner];
      return Buffer.from(inner);
    }
    default:
      return randomBytes(int(64));
  }
}

/** A valid encoding, mutated (or not). */
function mutate(valid: Uint8Array): Buffer {
  const b = Buffer.from(valid);
  switch (chance(0.3) ? 0 : 1 + int(5)) {
    case 0:
      return b; // unmutated
    case 1:
      return b.subarray(0, int(b.length + 1)); // truncated
    case 2: {
      const c = Buffer.from(b); // bit flips
      for (let k = 0; k <= int(4) && c.length > 0; k++) c[int(c.length)] ^= 1 << int(8);
      return c;
    }
    case 3: {
      const at = int(b.length + 1); // spliced random bytes
      return Buffer.concat([b.subarray(0, at), randomBytes(1 + int(8)), b.subarray(at)]);
    }
    case 4:
      return Buffer.concat([b, hostile()]); // valid prefix, hostile tail
    default:
      return Buffer.concat([b, b]); // every field twice (last scalar wins, repeated fields doubled)
  }
}

function payload(encodeValid: () => Uint8Array): Buffer {
  const r = rnd();
  if (r < 0.08) return randomBytes(int(200));
  if (r < 0.2) return hostile();
  return mutate(encodeValid());
}

/** Runs `tasks` with at most `width` in flight. */
async function pool(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/** The single message of an OK reply's body, or an explanation of why it is not exactly one frame. */
function singleMessage(body: Buffer): Buffer | string {
  if (body.length < 5) return `body of ${body.length} bytes`;
  if (body[0] !== 0) return `compressed flag ${body[0]}`;
  const n = body.readUInt32BE(1);
  if (body.length !== 5 + n) return `frame of ${n} bytes in a body of ${body.length}`;
  return body.subarray(5);
}

// ------------------------------------------------------------------------------------------ the test

let h: GrpcHarness;
let session: ClientHttp2Session;

beforeAll(async () => {
  h = await startGrpcHarness({
    yaml: YAML,
    gateMax: 4096,
    bounds: { maxBodyBytes: 16 * 1024 },
    server: { defaultDomain: "api" },
  });
  session = connect(`http://${h.address}`);
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
});

afterAll(async () => {
  session?.close();
  await h?.close();
});

describe(`gRPC fuzz (seed ${SEED.toString(16)})`, () => {
  it("answers every hostile request well-formed, counts nothing refused, and keeps serving", async () => {
    const problems: string[] = [];
    const codes = new Map<string, number>();
    let okAnswers = 0;
    const note = (what: string, r: RawGrpcReply, input: Buffer): void => {
      if (problems.length < 20)
        problems.push(`${what}: ${JSON.stringify(r)} for ${input.toString("hex").slice(0, 200)}`);
    };
    const count = (surface: string, code: number | undefined): void => {
      const k = `${surface}:${code}`;
      codes.set(k, (codes.get(k) ?? 0) + 1);
    };

    /** Checks one message-level reply; returns the decoded OK response. */
    const judge = <T>(
      surface: string,
      r: RawGrpcReply,
      input: Buffer,
      decode: (b: Buffer) => T,
    ): T | undefined => {
      count(surface, r.grpcStatus);
      if (r.streamError !== undefined || r.httpStatus !== 200 || r.grpcStatus === undefined) {
        note(`${surface} malformed reply`, r, input);
        return undefined;
      }
      if (r.grpcStatus === status.OK) {
        const m = singleMessage(r.body);
        if (typeof m === "string") {
          note(`${surface} OK without one message (${m})`, r, input);
          return undefined;
        }
        try {
          const decoded = decode(m);
          okAnswers++;
          return decoded;
        } catch (e) {
          note(`${surface} OK with an undecodable message (${(e as Error).message})`, r, input);
          return undefined;
        }
      }
      if (r.grpcStatus !== status.INVALID_ARGUMENT && r.grpcStatus !== status.RESOURCE_EXHAUSTED) {
        note(`${surface} unexpected status`, r, input);
      } else if (!r.grpcMessage) note(`${surface} error without a message`, r, input);
      if (r.body.length !== 0) note(`${surface} error with a body`, r, input);
      return undefined;
    };

    const tasks: (() => Promise<void>)[] = [];
    const RLReq = envoyRls.RateLimitRequest;
    const RLRes = envoyRls.RateLimitResponse;
    for (let i = 0; i < PER_SURFACE; i++) {
      const input = payload(() => RLReq.encode(envoyRequest()).finish());
      tasks.push(async () => {
        const r = await rawGrpcCall(session, ENVOY_PATH, grpcFrame(input));
        const res = judge("envoy", r, input, (b) => RLRes.decode(b));
        if (res !== undefined) {
          // An OK answer has one status per descriptor of the request as the server decoded it.
          const req = RLReq.decode(input);
          if (res.statuses.length !== req.descriptors.length) note("envoy status count", r, input);
          if (res.overall_code !== RLRes.Code.OK && res.overall_code !== RLRes.Code.OVER_LIMIT) {
            note("envoy overall code", r, input);
          }
        }
      });
    }
    for (let i = 0; i < PER_SURFACE; i++) {
      const input = payload(() => sluiceV1.CheckRequest.encode(checkRequest()).finish());
      tasks.push(async () => {
        const r = await rawGrpcCall(session, CHECK_PATH, grpcFrame(input));
        judge("check", r, input, (b) => sluiceV1.CheckResponse.decode(b));
      });
    }
    let batchItemsAnswered = 0;
    for (let i = 0; i < BATCH_CALLS; i++) {
      const input = payload(() =>
        sluiceV1.CheckBatchRequest.encode({ items: Array.from({ length: int(14) }, checkRequest) }).finish(),
      );
      tasks.push(async () => {
        const r = await rawGrpcCall(session, BATCH_PATH, grpcFrame(input));
        const res = judge("batch", r, input, (b) => sluiceV1.CheckBatchResponse.decode(b));
        if (res !== undefined) {
          okAnswers--; // counted per item below
          for (const item of res.results) {
            if (item.result === "response") batchItemsAnswered++;
            else if (item.error?.code !== status.INVALID_ARGUMENT || !item.error.message) {
              note("batch item error", r, input);
            }
          }
        }
      });
    }
    // Shuffle so the surfaces interleave.
    for (let i = tasks.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [tasks[i], tasks[j]] = [tasks[j], tasks[i]];
    }
    const checksBefore = h.engine.stats.checks;
    await pool(tasks, IN_FLIGHT);

    expect(problems, `seed ${SEED}`).toEqual([]);
    // Exactly one engine check per OK answer (or OK batch item): nothing refused was counted.
    expect(h.engine.stats.checks - checksBefore).toBe(okAnswers + batchItemsAnswered);
    expect(h.ctx.gate.inflight).toBe(0);
    // The fuzz reached both the engine and the refusals on each surface.
    for (const k of ["envoy:0", "envoy:3", "check:0", "check:3", "batch:0", "batch:3"]) {
      expect(codes.get(k) ?? 0, k).toBeGreaterThan(50);
    }
  }, 120_000);

  it("survives broken gRPC framing", async () => {
    const problems: string[] = [];
    const tasks: (() => Promise<void>)[] = [];
    const valid = grpcFrame(Buffer.from(envoyRls.RateLimitRequest.encode(envoyRequest()).finish()));
    const framings: [string, () => Promise<RawGrpcReply>][] = [
      ["no message", () => rawGrpcCall(session, ENVOY_PATH, Buffer.alloc(0))],
      ["short prefix", () => rawGrpcCall(session, ENVOY_PATH, Buffer.from([0, 0, 0]))],
      [
        "declared length beyond the body",
        () => rawGrpcCall(session, CHECK_PATH, Buffer.from([0, 0, 0, 0, 50, 1, 2])),
      ],
      [
        "declared length of 4 GiB",
        () => rawGrpcCall(session, ENVOY_PATH, Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1])),
      ],
      ["two messages", () => rawGrpcCall(session, ENVOY_PATH, Buffer.concat([valid, valid]))],
      [
        "compressed flag, no encoding",
        () => rawGrpcCall(session, ENVOY_PATH, Buffer.from([1, 0, 0, 0, 2, 8, 1])),
      ],
      [
        "gzip garbage",
        () =>
          rawGrpcCall(session, CHECK_PATH, Buffer.from([1, 0, 0, 0, 4, 1, 2, 3, 4]), {
            "grpc-encoding": "gzip",
          }),
      ],
      [
        "unknown encoding",
        () => rawGrpcCall(session, CHECK_PATH, Buffer.from([1, 0, 0, 0, 1, 0]), { "grpc-encoding": "zz" }),
      ],
      ["unknown method", () => rawGrpcCall(session, "/sluice.v1.RateLimiter/Nope", valid)],
      ["not gRPC", () => rawGrpcCall(session, ENVOY_PATH, valid, { "content-type": "application/json" })],
      ["bad timeout header", () => rawGrpcCall(session, ENVOY_PATH, valid, { "grpc-timeout": "banana" })],
      ["random body", () => rawGrpcCall(session, CHECK_PATH, randomBytes(int(300)))],
    ];
    for (let i = 0; i < FRAMING_CALLS; i++) {
      const [what, run] = framings[i % framings.length];
      tasks.push(async () => {
        const r = await run();
        const ok =
          r.streamError === undefined &&
          (r.grpcStatus !== undefined || (what === "not gRPC" && r.httpStatus === 415));
        if (!ok && problems.length < 20) problems.push(`${what}: ${JSON.stringify(r)}`);
      });
    }
    await pool(tasks, IN_FLIGHT);
    expect(problems).toEqual([]);
    expect(h.ctx.gate.inflight).toBe(0);
  }, 60_000);

  it("still answers valid calls correctly afterwards", async () => {
    const envoy = await call<InstanceType<typeof envoyRls.RateLimitResponse>>(h.envoy, "ShouldRateLimit", {
      domain: "edge",
      descriptors: [{ entries: [{ key: "user", value: "after-fuzz" }] }],
    });
    expect(envoy.overall_code).toBe(envoyRls.RateLimitResponse.Code.OK);
    expect(envoy.statuses[0].limit_remaining).toBe(4);
    const own = await call<InstanceType<typeof sluiceV1.CheckResponse>>(h.sluice, "CheckRateLimit", {
      identifier: "after-fuzz",
      dimension: "user",
    });
    expect([own.allowed, own.limit, own.remaining]).toEqual([true, 100, 99]);
  });
});

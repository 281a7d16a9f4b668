/**
 * The gRPC wire, answer by answer, as a raw HTTP/2 client sees it: framing, compression, content type, unknown
 * methods, deadlines, cancellation, keepalive, idle connections and connection age. vitest.config.ts runs this
 * file over both transports (Sluice's node:http2 server and grpc-js's): they must answer alike.
 */
import { type ClientHttp2Session, connect, constants } from "node:http2";
import { connect as tcpConnect } from "node:net";
import { deflateSync, gzipSync } from "node:zlib";
import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type GrpcHarness, harnessTransport, startGrpcHarness } from "../../../test/support/grpc-harness.js";
import { grpcFrame, heldChecks, rawGrpcCall } from "../../../test/support/grpc-raw.js";
import type { Engine } from "../../engine/engine.js";
import type { GrpcServerOptions } from "./grpc-server.js";
import { envoyRls, RATE_LIMIT_SERVICE_NAME } from "./service-definitions.js";

const YAML = `
version: 1
rules:
  - id: per-user
    domain: edge
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 5, period: 1h }]
`;

const PATH = `/${RATE_LIMIT_SERVICE_NAME}/ShouldRateLimit`;
const MESSAGE = Buffer.from(
  envoyRls.RateLimitRequest.encode({
    domain: "edge",
    descriptors: [{ entries: [{ key: "user", value: "a" }] }],
  }).finish(),
);

/** One raw call of ShouldRateLimit. */
function raw(session: ClientHttp2Session, body: Buffer, headers: Record<string, string> = {}) {
  return rawGrpcCall(session, PATH, body, headers);
}

/** What an {@link unfinished} call saw of its answer, and how its stream ended. */
interface UnfinishedReply {
  readonly httpStatus: number | undefined;
  readonly grpcStatus: number | undefined;
  readonly grpcMessage: string | undefined;
  /** The stream's RST_STREAM code once it closed; "still open" when it had not closed within {@link OPEN_BOUND_MS}. */
  readonly rstCode: number | "still open";
}

/** How long a test waits for a stream (or a close) that should end at once before calling it held, ms. */
const OPEN_BOUND_MS = 10_000;

/** `promise`'s value, or `fallback` when it has not settled within {@link OPEN_BOUND_MS}. */
function within<T, F>(promise: Promise<T>, fallback: F): Promise<T | F> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), OPEN_BOUND_MS);
    void promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/**
 * A call that sends `bytes` and never ends its body; with `pour`, it then sends 1 KiB every 5 ms until its stream
 * closes (a client still uploading). `answered` resolves with the answer's headers, `ended` once the stream closed
 * (or with `rstCode: "still open"` past {@link OPEN_BOUND_MS}).
 */
function unfinished(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  bytes: Buffer,
  pour: boolean,
): { answered: Promise<void>; ended: Promise<UnfinishedReply> } {
  const req = session.request({
    ":method": "POST",
    ":path": PATH,
    "content-type": "application/grpc",
    ...headers,
  });
  req.on("error", () => {});
  let answer: Record<string, unknown> = {};
  const answered = new Promise<void>((resolve) => {
    req.on("response", (h) => {
      answer = h as Record<string, unknown>;
      resolve();
    });
  });
  req.resume();
  req.write(bytes);
  const pouring = pour
    ? setInterval(() => {
        if (!req.closed && !req.destroyed) req.write(Buffer.alloc(1024));
      }, 5)
    : undefined;
  const closed = new Promise<number>((resolve) => {
    req.on("close", () => {
      clearInterval(pouring);
      resolve(req.rstCode);
    });
  });
  const ended = within(closed, "still open" as const).then((rstCode): UnfinishedReply => {
    const grpcStatus = answer["grpc-status"];
    const grpcMessage = answer["grpc-message"];
    return {
      httpStatus: answer[":status"] === undefined ? undefined : Number(answer[":status"]),
      grpcStatus: grpcStatus === undefined ? undefined : Number(grpcStatus),
      grpcMessage: grpcMessage === undefined ? undefined : decodeURIComponent(String(grpcMessage)),
      rstCode,
    };
  });
  return { answered, ended };
}

/** The remaining quota of the single message of an OK answer. */
function remainingOf(body: Buffer): number {
  expect(body[0]).toBe(0);
  expect(body.readUInt32BE(1)).toBe(body.length - 5);
  return Number(envoyRls.RateLimitResponse.decode(body.subarray(5)).statuses[0].limit_remaining);
}

let h: GrpcHarness | undefined;
let session: ClientHttp2Session | undefined;

async function start(
  server: GrpcServerOptions = {},
  wrapEngine?: (engine: Engine) => Engine,
): Promise<{ g: GrpcHarness; s: ClientHttp2Session }> {
  const g = await startGrpcHarness({ yaml: YAML, bounds: { maxBodyBytes: 1024 }, server, wrapEngine });
  h = g;
  const s = connect(`http://${g.address}`);
  s.on("error", () => {});
  session = s;
  await new Promise<void>((resolve, reject) => {
    s.once("connect", () => resolve());
    s.once("error", reject);
  });
  return { g, s };
}

afterEach(async () => {
  session?.destroy();
  session = undefined;
  await h?.close();
  h = undefined;
});

describe(`gRPC wire (${harnessTransport()})`, () => {
  it("answers a call with headers, one message and OK trailers", async () => {
    const { s } = await start();
    const r = await raw(s, grpcFrame(MESSAGE));
    expect(r).toMatchObject({
      httpStatus: 200,
      contentType: "application/grpc+proto",
      grpcStatus: status.OK,
    });
    expect(remainingOf(r.body)).toBe(4);
  });

  it("reads gzip and deflate messages, and flagged ones without an encoding as they are", async () => {
    const { g, s } = await start();
    const gz = await raw(s, grpcFrame(gzipSync(MESSAGE), 1), { "grpc-encoding": "gzip" });
    expect(gz.grpcStatus).toBe(status.OK);
    expect(remainingOf(gz.body)).toBe(4);
    const df = await raw(s, grpcFrame(deflateSync(MESSAGE), 1), { "grpc-encoding": "deflate" });
    expect(remainingOf(df.body)).toBe(3);
    const plain = await raw(s, grpcFrame(MESSAGE, 1));
    expect(remainingOf(plain.body)).toBe(2);
    expect(g.engine.stats.checks).toBe(3);
  });

  it("refuses bad framing with the status grpc-js gives, counting nothing", async () => {
    const { g, s } = await start();
    const cases: [string, Buffer, Record<string, string>, number, RegExp][] = [
      ["no message", Buffer.alloc(0), {}, status.UNIMPLEMENTED, /^Received no request message/],
      ["short prefix", Buffer.from([0, 0, 0]), {}, status.UNIMPLEMENTED, /^Received no request message/],
      ["cut message", Buffer.from([0, 0, 0, 0, 50, 1, 2]), {}, status.UNIMPLEMENTED, /no request message/],
      [
        "two messages",
        Buffer.concat([grpcFrame(MESSAGE), grpcFrame(MESSAGE)]),
        {},
        status.UNIMPLEMENTED,
        /^Received a second request message/,
      ],
      [
        "too big",
        grpcFrame(Buffer.alloc(2000)),
        {},
        status.RESOURCE_EXHAUSTED,
        /^Received message larger than max \(2000 vs 1024\)$/,
      ],
      [
        "gzip bomb",
        grpcFrame(gzipSync(Buffer.alloc(100_000)), 1),
        { "grpc-encoding": "gzip" },
        status.RESOURCE_EXHAUSTED,
        /^Received message that decompresses to a size larger than 1024$/,
      ],
      [
        "unknown encoding",
        grpcFrame(MESSAGE, 1),
        { "grpc-encoding": "zz" },
        status.UNIMPLEMENTED,
        /^Received message compressed with unsupported encoding "zz"$/,
      ],
      [
        "bad timeout",
        grpcFrame(MESSAGE),
        { "grpc-timeout": "banana" },
        status.INTERNAL,
        /^Invalid grpc-timeout value "banana"$/,
      ],
    ];
    for (const [what, body, headers, code, message] of cases) {
      const r = await raw(s, body, headers);
      expect([what, r.httpStatus, r.grpcStatus], what).toEqual([what, 200, code]);
      expect(r.grpcMessage, what).toMatch(message);
      expect(r.body.length, what).toBe(0);
    }
    expect(g.engine.stats.checks).toBe(0);
  });

  it("refuses a second message as soon as it arrives, without waiting for the end of the body", async () => {
    const { g, s } = await start();
    const req = s.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
    req.on("error", () => {});
    const answered = new Promise<number>((resolve) => {
      const take = (h: Record<string, unknown>): void => {
        if (h["grpc-status"] !== undefined) resolve(Number(h["grpc-status"]));
      };
      req.on("response", take);
      req.on("trailers", take);
    });
    req.write(Buffer.concat([grpcFrame(MESSAGE), grpcFrame(MESSAGE)])); // and the body never ends
    expect(await answered).toBe(status.UNIMPLEMENTED);
    req.close();
    expect(g.engine.stats.checks).toBe(0);
  });

  it("answers 415 to a content type that is not gRPC, and UNIMPLEMENTED to an unknown method", async () => {
    const { s } = await start();
    const json = await raw(s, grpcFrame(MESSAGE), { "content-type": "application/json" });
    expect(json.httpStatus).toBe(415);
    expect(json.grpcStatus).toBeUndefined();
    const unknown = await raw(s, grpcFrame(MESSAGE), {
      ":path": "/envoy.service.ratelimit.v3.RateLimitService/Nope",
    });
    expect(unknown.grpcStatus).toBe(status.UNIMPLEMENTED);
    expect(unknown.grpcMessage).toBe(
      "The server does not implement the method /envoy.service.ratelimit.v3.RateLimitService/Nope",
    );
  });

  it("answers DEADLINE_EXCEEDED at the deadline and drops the late answer; a client's cancel frees the call", async () => {
    const held = heldChecks();
    const { g, s } = await start({}, held.wrap);
    const late = await raw(s, grpcFrame(MESSAGE), { "grpc-timeout": "50m" });
    expect(late.grpcStatus).toBe(status.DEADLINE_EXCEEDED);
    expect(late.body.length).toBe(0);
    // A call the client resets while it is held.
    const req = s.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
    req.on("error", () => {});
    req.end(grpcFrame(MESSAGE));
    await vi.waitFor(() => expect(held.entered).toBe(2));
    req.close();
    held.release();
    await vi.waitFor(() => expect(g.ctx.gate.inflight).toBe(0));
    // The server keeps serving on the same connection.
    const after = await raw(s, grpcFrame(MESSAGE));
    expect(after.grpcStatus).toBe(status.OK);
  });

  it("refuses a call arriving during the drain with UNAVAILABLE (retried elsewhere), not RESOURCE_EXHAUSTED", async () => {
    const { g, s } = await start();
    // Its headers go out before the drain begins, its message after (the review's SIGTERM race).
    const req = s.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
    req.on("error", () => {});
    const reply = new Promise<Record<string, unknown>>((resolve) => {
      req.on("response", (headers) => resolve(headers as Record<string, unknown>));
    });
    req.write(grpcFrame(MESSAGE).subarray(0, 3));
    expect(await g.ctx.gate.drain(1000)).toBe(true);
    req.end(grpcFrame(MESSAGE).subarray(3));
    const headers = await reply;
    expect(Number(headers["grpc-status"])).toBe(status.UNAVAILABLE);
    expect(decodeURIComponent(String(headers["grpc-message"]))).toBe(
      "the server is shutting down; retry on another instance",
    );
    expect(g.metrics.requests.at(-1)).toMatchObject({ api: "grpc_envoy", outcome: "unavailable" });
    expect(g.engine.stats.checks).toBe(0);
  });

  // The three below are bounds of Sluice's own transport, so they run on it in either pass; grpc-js's server has
  // the same gaps (a timer's overflow, no bound on the time to receive a message, unclipped messages).
  const LEAN: GrpcServerOptions = { transport: "node-http2" };

  it("takes a grpc-timeout past what a timer can hold as no deadline (node-http2)", async () => {
    const held = heldChecks();
    const { s } = await start(LEAN, held.wrap);
    const call = raw(s, grpcFrame(MESSAGE), { "grpc-timeout": "2562047H" }); // grpc-go's "no deadline"
    await held.started;
    await new Promise((resolve) => setTimeout(resolve, 20)); // longer than a clamped 1 ms timer
    held.release();
    const reply = await call;
    expect(reply.grpcStatus).toBe(status.OK);
  });

  it("answers DEADLINE_EXCEEDED to a call whose message does not arrive in time (node-http2)", async () => {
    const { g, s } = await start({ ...LEAN, receiveTimeoutMs: 100 });
    const req = s.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
    req.on("error", () => {});
    const trailers = new Promise<Record<string, unknown>>((resolve) => {
      req.on("response", (h) => resolve(h as Record<string, unknown>));
    });
    req.write(grpcFrame(MESSAGE).subarray(0, 8)); // part of the message, and never the rest
    const h2 = await trailers;
    expect(Number(h2["grpc-status"])).toBe(status.DEADLINE_EXCEEDED);
    expect(decodeURIComponent(String(h2["grpc-message"]))).toBe(
      "Received no complete request message within 100 ms",
    );
    req.close();
    expect(g.ctx.gate.inflight).toBe(0);
    expect((await raw(s, grpcFrame(MESSAGE))).grpcStatus).toBe(status.OK);
  });

  it("gives a client still sending its full early answer, then RST_STREAM(NO_ERROR), for every kind (node-http2)", async () => {
    const { g, s } = await start({ ...LEAN, receiveTimeoutMs: 200 });
    const big = Buffer.alloc(5);
    big.writeUInt32BE(100_000, 1);
    const partial = grpcFrame(MESSAGE).subarray(0, 8); // part of the message, and never the rest
    const wide = `/${"\u00ff".repeat(11_000)}`;
    const cases: [string, Record<string, string>, Buffer, boolean, Omit<UnfinishedReply, "rstCode">][] = [
      [
        "prefix over the maximum",
        {},
        big,
        true,
        {
          httpStatus: 200,
          grpcStatus: status.RESOURCE_EXHAUSTED,
          grpcMessage: "Received message larger than max (100000 vs 1024)",
        },
      ],
      [
        "second message",
        {},
        Buffer.concat([grpcFrame(MESSAGE), grpcFrame(MESSAGE)]),
        true,
        {
          httpStatus: 200,
          grpcStatus: status.UNIMPLEMENTED,
          grpcMessage: `Received a second request message for unary method ${PATH}`,
        },
      ],
      [
        "unknown method",
        { ":path": `${PATH}Nope` },
        grpcFrame(MESSAGE),
        true,
        {
          httpStatus: 200,
          grpcStatus: status.UNIMPLEMENTED,
          grpcMessage: `The server does not implement the method ${PATH}Nope`,
        },
      ],
      [
        "unknown method, message clipped",
        { ":path": wide },
        grpcFrame(MESSAGE),
        true,
        {
          httpStatus: 200,
          grpcStatus: status.UNIMPLEMENTED,
          grpcMessage: `${`The server does not implement the method ${wide}`.slice(0, 1023)}…`, // clipped
        },
      ],
      [
        "not gRPC (415)",
        { "content-type": "application/json" },
        grpcFrame(MESSAGE),
        true,
        { httpStatus: 415, grpcStatus: undefined, grpcMessage: undefined },
      ],
      [
        "deadline",
        { "grpc-timeout": "20m" },
        partial,
        false,
        { httpStatus: 200, grpcStatus: status.DEADLINE_EXCEEDED, grpcMessage: "Deadline exceeded" },
      ],
      [
        "receive timeout",
        {},
        partial,
        false,
        {
          httpStatus: 200,
          grpcStatus: status.DEADLINE_EXCEEDED,
          grpcMessage: "Received no complete request message within 200 ms",
        },
      ],
    ];
    const replies = await Promise.all(
      cases.map(([, headers, bytes, pour]) => unfinished(s, headers, bytes, pour).ended),
    );
    cases.forEach(([what, , , , expected], i) => {
      expect({ what, ...replies[i] }).toEqual({ what, ...expected, rstCode: constants.NGHTTP2_NO_ERROR });
    });
    expect(g.engine.stats.checks).toBe(0);
    expect((await raw(s, grpcFrame(MESSAGE))).grpcStatus).toBe(status.OK); // the connection serves on
  });

  it("frees the slot of a stream it answered while its client keeps sending, and does not hold the drain for it (node-http2)", async () => {
    const { g, s } = await start({ ...LEAN, maxConcurrentStreams: 1 });
    // The connection's only stream, answered UNIMPLEMENTED while its client keeps sending: the next call waits
    // for its slot, which the client gets back when the server resets the stream.
    const first = unfinished(s, { ":path": `${PATH}Nope` }, grpcFrame(MESSAGE), true);
    await first.answered;
    const next = await within(raw(s, grpcFrame(MESSAGE)), "still waiting for a slot" as const);
    expect(next === "still waiting for a slot" ? next : next.grpcStatus).toBe(status.OK);
    expect((await first.ended).rstCode).toBe(constants.NGHTTP2_NO_ERROR);
    // Another, refused at its prefix, then the SIGTERM path: close with a minute's grace. The close resolves once
    // every connection has closed, which an answered stream no longer holds.
    const big = Buffer.alloc(5);
    big.writeUInt32BE(100_000, 1);
    const last = unfinished(s, {}, big, true);
    await last.answered;
    s.close(); // the client's half of the drain: no new calls, the session ends with its last stream
    expect(await within(g.server.close(60_000), "held by the answered stream")).toBeUndefined();
    expect((await last.ended).rstCode).toBe(constants.NGHTTP2_NO_ERROR);
    expect(g.engine.stats.checks).toBe(1);
  });

  it("clips a status message that quotes the request, so the status always fits (node-http2)", async () => {
    const { s } = await start(LEAN);
    const reply = await raw(s, grpcFrame(MESSAGE), { ":path": `/${"\u00ff".repeat(11_000)}` });
    expect(reply.streamError).toBeUndefined();
    expect(reply.grpcStatus).toBe(status.UNIMPLEMENTED);
    expect(reply.grpcMessage?.length).toBe(1024);
    expect(reply.grpcMessage?.startsWith("The server does not implement the method /\u00ff")).toBe(true);
  });

  it("pings idle connections, keeps those that answer and drops those that do not", async () => {
    const { g, s } = await start({ keepaliveTimeMs: 50, keepaliveTimeoutMs: 100 });
    let pings = 0;
    s.on("ping", () => pings++);
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    expect((await raw(s, grpcFrame(MESSAGE))).grpcStatus).toBe(status.OK);
    // A peer that opens HTTP/2, acknowledges the server's SETTINGS, then never answers anything (a PING included).
    const [host, port] = g.address.split(":");
    const silent = tcpConnect(Number(port), host);
    silent.on("error", () => {});
    silent.write(
      Buffer.concat([
        Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), // SETTINGS (none)
      ]),
    );
    silent.once("data", () => silent.write(Buffer.from([0, 0, 0, 4, 1, 0, 0, 0, 0]))); // SETTINGS ACK
    let closed = false;
    silent.on("close", () => {
      closed = true;
    });
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 10_000 });
  });

  it("closes a connection with no call open for maxConnectionIdleMs (GOAWAY), never one with a call in flight", async () => {
    const held = heldChecks();
    const { g, s: busy } = await start({ maxConnectionIdleMs: 200 }, held.wrap);
    const seen: string[] = [];
    busy.once("goaway", () => seen.push("busy goaway"));
    busy.on("close", () => seen.push("busy closed"));
    const pending = raw(busy, grpcFrame(MESSAGE));
    await held.started;
    // A connection opened once `busy` has a call in flight, which opens none: closed, while `busy` is not.
    const idle = connect(`http://${g.address}`);
    idle.on("error", () => {});
    idle.once("goaway", () => seen.push("idle goaway"));
    idle.on("close", () => seen.push("idle closed"));
    try {
      await vi.waitFor(() => expect(seen).toContain("idle closed"), { timeout: 10_000 });
      expect(seen).toEqual(["idle goaway", "idle closed"]);
      // `busy` has had its call open for longer than the idle limit: it serves on, then goes once idle.
      held.release();
      expect((await pending).grpcStatus).toBe(status.OK);
      await vi.waitFor(() => expect(seen).toContain("busy closed"), { timeout: 10_000 });
      expect(seen).toEqual(["idle goaway", "idle closed", "busy goaway", "busy closed"]);
    } finally {
      idle.destroy();
    }
  });

  it("closes a connection that never speaks HTTP/2 (node-http2: the handshake deadline; grpc-js: the idle limit)", async () => {
    const { g } = await start({ handshakeTimeoutMs: 200, maxConnectionIdleMs: 400 });
    const [host, port] = g.address.split(":");
    const silent = tcpConnect(Number(port), host);
    silent.on("error", () => {});
    silent.resume();
    let closed = false;
    silent.on("close", () => {
      closed = true;
    });
    try {
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 10_000 });
    } finally {
      silent.destroy();
    }
  });

  it("sends a GOAWAY past the connection age and lets the call in flight finish within the grace", async () => {
    const held = heldChecks();
    const { s } = await start({ maxConnectionAgeMs: 300, maxConnectionAgeGraceMs: 30_000 }, held.wrap);
    let goaway = false;
    s.on("goaway", () => {
      goaway = true;
    });
    const pending = raw(s, grpcFrame(MESSAGE));
    await held.started;
    await vi.waitFor(() => expect(goaway).toBe(true), { timeout: 10_000 });
    held.release();
    const r = await pending;
    expect(r.grpcStatus).toBe(status.OK);
    expect(remainingOf(r.body)).toBe(4);
  });
});

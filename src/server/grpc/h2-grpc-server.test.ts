import { type ClientHttp2Session, connect, constants } from "node:http2";
import { connect as tcpConnect } from "node:net";
import {
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { grpcFrame, rawGrpcCall } from "../../../test/support/grpc-raw.js";
import { H2GrpcServer, RECEIVING_CALL_BYTES } from "./h2-grpc-server.js";
import { envoyRls, rateLimitServiceDefinition } from "./service-definitions.js";

let server: H2GrpcServer | undefined;
const sessions: ClientHttp2Session[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.tryShutdown(resolve) : resolve()));
  server = undefined;
});

const OPTIONS = {
  maxReceiveMessageBytes: 4096,
  keepaliveTimeMs: 60_000,
  keepaliveTimeoutMs: 20_000,
  maxConnectionAgeMs: 86_400_000,
  maxConnectionAgeGraceMs: 3_600_000,
  maxConcurrentStreams: 100,
  receiveTimeoutMs: 10_000,
  maxReceiveBufferBytes: 64 * 1024 * 1024,
  maxConnections: 1024,
  maxConnectionIdleMs: 300_000,
  handshakeTimeoutMs: 10_000,
};

describe("H2GrpcServer", () => {
  it("hands a unary handler the request, its path and its metadata (built once, on first use)", async () => {
    server = new H2GrpcServer(OPTIONS);
    const seen: unknown[] = [];
    server.addService(rateLimitServiceDefinition, {
      ShouldRateLimit: ((
        call: { request: { domain: string }; metadata: Metadata; getPath(): string },
        callback: (e: null, r: unknown) => void,
      ) => {
        const first = call.metadata;
        seen.push(call.request.domain, first.get("x-tenant"), call.getPath(), call.metadata === first);
        callback(null, { overall_code: envoyRls.RateLimitResponse.Code.OVER_LIMIT });
      }) as never,
    });
    const port = await server.listen("127.0.0.1", 0);
    const Client = makeGenericClientConstructor(rateLimitServiceDefinition as never, "RateLimitService");
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set("x-tenant", "acme");
    const answer = await new Promise<{ overall_code: number }>((resolve, reject) => {
      (client as unknown as Record<string, (...a: unknown[]) => void>).ShouldRateLimit(
        { domain: "edge" },
        metadata,
        (error: ServiceError | null, response: { overall_code: number }) =>
          error ? reject(error) : resolve(response),
      );
    });
    client.close();
    expect(answer.overall_code).toBe(envoyRls.RateLimitResponse.Code.OVER_LIMIT);
    expect(seen).toEqual([
      "edge",
      ["acme"],
      "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit",
      true,
    ]);
  });

  it("refuses a client-streaming method when it is added", () => {
    server = new H2GrpcServer(OPTIONS);
    const def = { Up: { ...rateLimitServiceDefinition.ShouldRateLimit, requestStream: true } };
    expect(() => (server as H2GrpcServer).addService(def as never, { Up: () => {} })).toThrow(
      /client streaming is not supported/,
    );
  });

  it("holds unfinished request messages within the receive budget, across connections, refusing the rest", async () => {
    const budget = 100_000;
    server = new H2GrpcServer({ ...OPTIONS, maxReceiveBufferBytes: budget });
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: answerOk as never });
    const port = await server.listen("127.0.0.1", 0);
    // Each stream declares a 4,000-byte message, sends 100 bytes of it and stops: 2 connections × 20 streams.
    const partial = Buffer.concat([grpcFrame(Buffer.alloc(4000)).subarray(0, 5), Buffer.alloc(100)]);
    const refused: string[] = [];
    const resets: number[] = [];
    let streams = 0;
    for (let c = 0; c < 2; c++) {
      const session = await open(port);
      for (let i = 0; i < 20; i++) {
        const req = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
        req.on("error", () => {});
        req.on("response", (h) =>
          refused.push(`${h["grpc-status"]} ${decodeURIComponent(String(h["grpc-message"]))}`),
        );
        req.on("close", () => resets.push(req.rstCode));
        req.write(partial);
        streams++;
      }
    }
    // A call holding its message is charged 8 KiB, its headers and 4,005 bytes: at most 8 fit in 100,000 bytes,
    // so at least 32 of the 40 are refused (which ones depends on the order the frames arrive in).
    const fit = Math.floor(budget / (RECEIVING_CALL_BYTES + 4005));
    await vi.waitFor(() => expect(refused.length).toBeGreaterThanOrEqual(streams - fit), { timeout: 5000 });
    expect(new Set(refused)).toEqual(
      new Set([
        `${status.RESOURCE_EXHAUSTED} the server is at its limit of request bytes being received (100000); retry later`,
      ]),
    );
    // The refused streams, whose clients never end them, are reset with NO_ERROR; the calls that fit stay open.
    await vi.waitFor(() => expect(resets.length).toBe(refused.length), { timeout: 5000 });
    expect(new Set(resets)).toEqual(new Set([constants.NGHTTP2_NO_ERROR]));
    expect(server.receiveBufferBytes).toBeLessThanOrEqual(budget);
    expect(server.receiveBufferBytes).toBeGreaterThan(0); // the calls that fit hold theirs, unanswered
    // The unfinished calls return their bytes when their clients leave; a whole call then fits again.
    for (const s of sessions.splice(0)) s.destroy();
    await vi.waitFor(() => expect(server?.receiveBufferBytes).toBe(0));
    const after = await rawGrpcCall(await open(port), PATH, grpcFrame(Buffer.alloc(0)));
    expect(after.grpcStatus).toBe(status.OK);
    expect(server.receiveBufferBytes).toBe(0);
  });

  it("writes an early answer before the RST_STREAM(NO_ERROR) that stops its client, frame by frame", async () => {
    server = new H2GrpcServer(OPTIONS);
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: answerOk as never });
    const port = await server.listen("127.0.0.1", 0);
    const over = Buffer.alloc(5);
    over.writeUInt32BE(100_000, 1); // above maxReceiveMessageBytes (4,096)
    const cases: [string, string, string, Buffer][] = [
      ["not gRPC (415)", PATH, "application/json", grpcFrame(Buffer.alloc(0))],
      ["unknown method", `${PATH}Nope`, "application/grpc", grpcFrame(Buffer.alloc(0))],
      ["unknown method, long status", `/${"x".repeat(5000)}`, "application/grpc", grpcFrame(Buffer.alloc(0))],
      ["prefix over the maximum", PATH, "application/grpc", over],
      ["second message", PATH, "application/grpc", Buffer.concat([grpcFrame(Buffer.alloc(0)), over])],
    ];
    for (const [what, path, contentType, first] of cases) {
      expect([what, await earlyAnswerFrames(port, path, contentType, first)]).toEqual([
        what,
        ["HEADERS END_STREAM", "RST_STREAM 0"],
      ]);
    }
  });

  it("at maxConnections, closes a new connection as accepted when every connection has a call open", async () => {
    server = new H2GrpcServer({ ...OPTIONS, maxConnections: 2 });
    const held = holdingHandler();
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: held.handler as never });
    const port = await server.listen("127.0.0.1", 0);
    const first = await open(port);
    const second = await open(port);
    const calls = [first, second].map((s) => rawGrpcCall(s, PATH, HOLD));
    await vi.waitFor(() => expect(held.waiting).toBe(2));
    const third = connect(`http://127.0.0.1:${port}`);
    third.on("error", () => {});
    sessions.push(third);
    let closed = false;
    third.on("close", () => {
      closed = true;
    });
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5000 });
    held.release();
    for (const call of calls) expect((await call).grpcStatus).toBe(status.OK);
    for (const s of [first, second]) {
      expect((await rawGrpcCall(s, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
    }
  });

  it("at maxConnections, admits a new connection by closing the one idle the longest (GOAWAY), never a busy one", async () => {
    server = new H2GrpcServer({ ...OPTIONS, maxConnections: 3 });
    const held = holdingHandler();
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: held.handler as never });
    const port = await server.listen("127.0.0.1", 0);
    // a: connected first, then a call (idle again since); busy: a call in flight; quiet: connected, never calls.
    const a = await open(port);
    const busy = await open(port);
    const busyCall = rawGrpcCall(busy, PATH, HOLD);
    await vi.waitFor(() => expect(held.waiting).toBe(1));
    const quiet = await open(port);
    expect((await rawGrpcCall(a, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
    const seen = watchClose({ a, busy, quiet });
    // The cap is full; a fourth client's call is served, and the connection idle the longest makes room for it.
    const newcomer = await open(port);
    expect((await rawGrpcCall(newcomer, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
    await vi.waitFor(() => expect(seen.closed).toEqual(["quiet"]), { timeout: 5000 });
    expect(seen.goaway).toEqual(["quiet"]);
    held.release();
    expect((await busyCall).grpcStatus).toBe(status.OK);
    expect((await rawGrpcCall(a, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
  });

  it("keeps the cap a bound under a flood of connections that never call, and a client's call still succeeds", async () => {
    server = new H2GrpcServer({ ...OPTIONS, maxConnections: 20 });
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: answerOk as never });
    const port = await server.listen("127.0.0.1", 0);
    // 40 HTTP/2 connections that open no stream (and answer PINGs, as any HTTP/2 client does): twice the cap.
    const idle: ClientHttp2Session[] = [];
    for (let i = 0; i < 40; i++) idle.push(await open(port));
    const client = await open(port);
    expect((await rawGrpcCall(client, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
    const stillOpen = (): number => idle.filter((s) => !s.closed && !s.destroyed).length;
    await vi.waitFor(() => expect(stillOpen() + 1).toBeLessThanOrEqual(20), { timeout: 5000 });
  });

  it("destroys a connection that has not sent the HTTP/2 preface and SETTINGS within handshakeTimeoutMs", async () => {
    // No idle limit: only the handshake deadline can close these.
    server = new H2GrpcServer({ ...OPTIONS, handshakeTimeoutMs: 200, maxConnectionIdleMs: 0 });
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: answerOk as never });
    const port = await server.listen("127.0.0.1", 0);
    // A client that sent its preface and SETTINGS, then no stream: open longer than the deadline by the end.
    const spoke = await open(port);
    const closed: string[] = [];
    const cases: [string, Buffer][] = [
      ["silent", Buffer.alloc(0)],
      ["half a preface", Buffer.from("PRI * HTTP/2.0\r\n")],
      ["preface, no SETTINGS", Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")],
    ];
    const sockets = cases.map(([what, bytes]) => {
      const socket = tcpConnect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.resume();
      socket.on("close", () => closed.push(what));
      if (bytes.length > 0) socket.write(bytes);
      return socket;
    });
    await vi.waitFor(() => expect(closed.length).toBe(3), { timeout: 5000 });
    for (const socket of sockets) socket.destroy();
    expect(new Set(closed)).toEqual(new Set(["silent", "half a preface", "preface, no SETTINGS"]));
    expect(spoke.closed || spoke.destroyed).toBe(false);
    expect((await rawGrpcCall(spoke, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
  });
});

const PATH = "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit";

/** A request a {@link holdingHandler} holds: its domain is `hold`. */
const HOLD = grpcFrame(envoyRls.RateLimitRequest.encode({ domain: "hold" }).finish());

/** A ShouldRateLimit handler answering OK, which holds the calls of domain `hold` until released. */
function holdingHandler(): {
  handler: (call: { request: { domain: string } }, callback: (e: null, r: unknown) => void) => void;
  readonly waiting: number;
  release(): void;
} {
  const waiting: (() => void)[] = [];
  return {
    handler: (call, callback) => {
      const answer = (): void => callback(null, { overall_code: envoyRls.RateLimitResponse.Code.OK });
      if (call.request.domain === "hold") waiting.push(answer);
      else answer();
    },
    get waiting() {
      return waiting.length;
    },
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

/**
 * Which of `named` sessions received a GOAWAY, and which closed, in order (each named once: a client may see two
 * GOAWAY frames from one `close()` of node:http2).
 */
function watchClose(named: Record<string, ClientHttp2Session>): { goaway: string[]; closed: string[] } {
  const seen = { goaway: [] as string[], closed: [] as string[] };
  for (const [name, session] of Object.entries(named)) {
    session.once("goaway", () => seen.goaway.push(name));
    session.on("close", () => seen.closed.push(name));
  }
  return seen;
}

/** A ShouldRateLimit handler answering OK. */
function answerOk(_call: unknown, callback: (e: null, r: unknown) => void): void {
  callback(null, { overall_code: envoyRls.RateLimitResponse.Code.OK });
}

/** One HTTP/2 frame: 9-byte header (24-bit length, type, flags, stream id), then `payload`. */
function h2Frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** `n` as an HPACK string length: a 7-bit-prefix integer (RFC 7541 §5.1), not Huffman coded; n < 16,511. */
function hpackLength(n: number): number[] {
  if (n < 127) return [n];
  const rest = n - 127;
  return rest < 128 ? [127, rest] : [127, (rest & 127) | 128, rest >> 7];
}

/** An HPACK "literal header field without indexing, new name" (RFC 7541 §6.2.2). */
function hpackLiteral(name: string, value: string): Buffer {
  return Buffer.concat([
    Buffer.from([0, ...hpackLength(name.length)]),
    Buffer.from(name),
    Buffer.from(hpackLength(value.length)),
    Buffer.from(value),
  ]);
}

/**
 * The frames of stream 1, as a raw TCP client reads them, of a POST of `path` (`content-type`) that sends `first`
 * then 1 KiB of DATA every 5 ms and never ends: until its RST_STREAM, or "still open" after 10 s. Each frame is
 * `TYPE` (`HEADERS END_STREAM` when it ends the stream, `RST_STREAM <code>`).
 */
function earlyAnswerFrames(
  port: number,
  path: string,
  contentType: string,
  first: Buffer,
): Promise<string[]> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    const socket = tcpConnect(port, "127.0.0.1");
    socket.on("error", () => {});
    const headerBlock = Buffer.concat([
      Buffer.from([0x83, 0x86]), // :method POST, :scheme http (static table)
      hpackLiteral(":path", path),
      hpackLiteral(":authority", "sluice"),
      hpackLiteral("content-type", contentType),
    ]);
    socket.write(
      Buffer.concat([
        Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        h2Frame(4, 0, 0, Buffer.alloc(0)), // SETTINGS
        h2Frame(1, 4, 1, headerBlock), // HEADERS, END_HEADERS
        h2Frame(0, 0, 1, first),
      ]),
    );
    const pouring = setInterval(() => socket.write(h2Frame(0, 0, 1, Buffer.alloc(1024))), 5);
    const done = (): void => {
      clearInterval(pouring);
      clearTimeout(bound);
      socket.destroy();
      resolve(frames);
    };
    const bound = setTimeout(() => {
      frames.push("still open");
      done();
    }, 10_000);
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const [type, flags] = [pending[3], pending[4]];
        const streamId = pending.readUInt32BE(5) & 0x7fffffff;
        const payload = pending.subarray(9, 9 + length);
        pending = pending.subarray(9 + length);
        if (type === 4 && (flags & 1) === 0) socket.write(h2Frame(4, 1, 0, Buffer.alloc(0))); // SETTINGS ACK
        if (streamId !== 1 || type === 8) continue; // another stream's, or a WINDOW_UPDATE
        if (type === 1) frames.push((flags & 1) === 1 ? "HEADERS END_STREAM" : "HEADERS");
        else if (type === 3) {
          frames.push(`RST_STREAM ${payload.readUInt32BE(0)}`);
          done();
          return;
        } else frames.push(`type ${type}`);
      }
    });
  });
}

/** A raw HTTP/2 connection to `port`, once connected (closed after the test). */
async function open(port: number): Promise<ClientHttp2Session> {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on("error", () => {});
  sessions.push(session);
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
  return session;
}

import { type ClientHttp2Session, connect } from "node:http2";
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
    let streams = 0;
    for (let c = 0; c < 2; c++) {
      const session = await open(port);
      for (let i = 0; i < 20; i++) {
        const req = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc" });
        req.on("error", () => {});
        req.on("response", (h) =>
          refused.push(`${h["grpc-status"]} ${decodeURIComponent(String(h["grpc-message"]))}`),
        );
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
    expect(server.receiveBufferBytes).toBeLessThanOrEqual(budget);
    expect(server.receiveBufferBytes).toBeGreaterThan(0); // the calls that fit hold theirs, unanswered
    // The unfinished calls return their bytes when their clients leave; a whole call then fits again.
    for (const s of sessions.splice(0)) s.destroy();
    await vi.waitFor(() => expect(server?.receiveBufferBytes).toBe(0));
    const after = await rawGrpcCall(await open(port), PATH, grpcFrame(Buffer.alloc(0)));
    expect(after.grpcStatus).toBe(status.OK);
    expect(server.receiveBufferBytes).toBe(0);
  });

  it("closes connections beyond maxConnections as they are accepted, and serves the others", async () => {
    server = new H2GrpcServer({ ...OPTIONS, maxConnections: 2 });
    server.addService(rateLimitServiceDefinition, { ShouldRateLimit: answerOk as never });
    const port = await server.listen("127.0.0.1", 0);
    const first = await open(port);
    const second = await open(port);
    const third = connect(`http://127.0.0.1:${port}`);
    third.on("error", () => {});
    sessions.push(third);
    let closed = false;
    third.on("close", () => {
      closed = true;
    });
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5000 });
    for (const s of [first, second]) {
      expect((await rawGrpcCall(s, PATH, grpcFrame(Buffer.alloc(0)))).grpcStatus).toBe(status.OK);
    }
  });
});

const PATH = "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit";

/** A ShouldRateLimit handler answering OK. */
function answerOk(_call: unknown, callback: (e: null, r: unknown) => void): void {
  callback(null, { overall_code: envoyRls.RateLimitResponse.Code.OK });
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

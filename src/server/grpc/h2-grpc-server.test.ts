import { credentials, Metadata, makeGenericClientConstructor, type ServiceError } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { H2GrpcServer } from "./h2-grpc-server.js";
import { envoyRls, rateLimitServiceDefinition } from "./service-definitions.js";

let server: H2GrpcServer | undefined;
afterEach(async () => {
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
});

// Real clients for end-to-end tests of `sluice serve`: promisified grpc-js clients of its three gRPC services
// (built from the generated code, the same definitions the server uses), and a temp dir for config files.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Client,
  credentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import {
  healthServiceDefinition,
  rateLimiterServiceDefinition,
  rateLimitServiceDefinition,
} from "../../src/server/grpc/service-definitions.js";
import { trackDir, untrackDir } from "./process-cleanup.js";

type Unary = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response: unknown) => void,
) => void;

/** A gRPC client whose `call(method, request)` resolves with the response or rejects with the ServiceError. */
export interface GrpcTestClient {
  call<T = Record<string, unknown>>(method: string, request: unknown, deadlineMs?: number): Promise<T>;
  close(): void;
}

function clientOf(definition: ServiceDefinition, name: string, address: string): GrpcTestClient {
  const Ctor = makeGenericClientConstructor(definition, name);
  const client = new Ctor(address, credentials.createInsecure()) as Client & Record<string, Unary>;
  return {
    call<T>(method: string, request: unknown, deadlineMs = 10_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const fn = client[method];
        if (typeof fn !== "function") throw new Error(`no method ${method} on ${name}`);
        fn.call(client, request, new Metadata(), { deadline: Date.now() + deadlineMs }, (error, response) => {
          if (error) reject(error);
          else resolve(response as T);
        });
      });
    },
    close: () => client.close(),
  };
}

/** A client of `sluice.v1.RateLimiter`. */
export function sluiceClient(address: string): GrpcTestClient {
  return clientOf(rateLimiterServiceDefinition, "RateLimiter", address);
}

/** A client of `envoy.service.ratelimit.v3.RateLimitService`. */
export function envoyClient(address: string): GrpcTestClient {
  return clientOf(rateLimitServiceDefinition, "RateLimitService", address);
}

/** A client of `grpc.health.v1.Health` (unary Check only). */
export function healthClient(address: string): GrpcTestClient {
  return clientOf(
    { Check: healthServiceDefinition.Check } as unknown as ServiceDefinition,
    "Health",
    address,
  );
}

/** A temp dir for a test's files, removed by `remove()` or at process exit. */
export function testDir(label: string): {
  dir: string;
  write(name: string, text: string): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), `sluice-e2e-${process.pid}-${label}-`));
  trackDir(dir);
  return {
    dir,
    write(name: string, text: string): string {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
      untrackDir(dir);
    },
  };
}

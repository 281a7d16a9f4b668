import { defineConfig } from "vitest/config";

/** The test files that serve gRPC through test/support/grpc-harness.ts: run once per gRPC transport. */
const GRPC_WIRE_TESTS = [
  "src/server/grpc/envoy-rls-service.test.ts",
  "src/server/grpc/grpc-fuzz.test.ts",
  "src/server/grpc/grpc-server.test.ts",
  "src/server/grpc/grpc-transport.test.ts",
  "src/server/grpc/health-service.test.ts",
  "src/server/grpc/sluice-service.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["./test/support/global-redis.ts"],
    projects: [
      // Everything, gRPC on the default transport (Sluice's node:http2 server).
      { extends: true, test: { name: "sluice", include: ["src/**/*.test.ts", "test/**/*.test.ts"] } },
      // The same gRPC wire tests over grpc-js's server: both transports must answer alike.
      {
        extends: true,
        test: { name: "grpc-js", include: GRPC_WIRE_TESTS, env: { SLUICE_TEST_GRPC_TRANSPORT: "grpc-js" } },
      },
    ],
  },
});

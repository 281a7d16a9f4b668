#!/usr/bin/env node
// Generates the static protobuf code of the gRPC service from proto/**.proto with protobufjs-cli (pbjs static
// module, ESM, field names kept in snake_case, plus the .d.ts through pbts):
//   src/server/grpc/gen/protos.js + protos.d.ts
// The output is committed, so building needs no code generation; `src/server/grpc/gen-proto.test.ts` regenerates
// into a temporary directory and fails when the committed files differ. Run `npm run gen:proto` after editing a
// .proto file; never edit the generated files by hand.
//
// Usage: node scripts/gen-proto.mjs [outDir]   (default src/server/grpc/gen)
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const require = createRequire(import.meta.url);
const { pbjs } = require("protobufjs-cli");

/** The .proto files served (their imports come along; google/protobuf/* are protobufjs's built-in copies). */
export const PROTO_FILES = [
  "envoy/service/ratelimit/v3/rls.proto",
  "sluice/v1/rate_limiter.proto",
  "grpc/health/v1/health.proto",
];

/** The pbjs arguments, without the output path. */
export function pbjsArgs() {
  return [
    "--target",
    "static-module",
    "--wrap",
    "esm", // ES module with const/let
    "--keep-case", // field names as in the .proto (snake_case), like the JSON of the HTTP API
    "--dependency",
    "protobufjs/minimal.js", // protobufjs has no exports map: ESM needs the file name
    "--root",
    "sluice", // a private protobuf.roots entry, so other static code in the process cannot collide
    "--no-verify",
    "--no-convert",
    "--no-delimited",
    "--no-service", // grpc-js service definitions are built from encode/decode in src/server/grpc/
    "--no-typeurl",
    "--path",
    join(root, "proto"),
    "--dts",
  ];
}

/** Writes protos.js and protos.d.ts into `outDir`. */
export function generate(outDir) {
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, "protos.js");
  const files = PROTO_FILES.map((f) => join(root, "proto", f));
  return new Promise((resolvePromise, reject) => {
    pbjs.main([...pbjsArgs(), "--out", out, ...files], (err) => (err ? reject(err) : resolvePromise(out)));
  });
}

if (
  process.argv[1] !== undefined &&
  resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)
) {
  const outDir = resolve(process.argv[2] ?? join(root, "src/server/grpc/gen"));
  generate(outDir).then(
    (out) => console.log(`gen-proto: wrote ${out} and its .d.ts`),
    (err) => {
      console.error(`gen-proto: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}

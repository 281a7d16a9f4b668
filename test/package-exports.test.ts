// The package's export map as a user meets it: a project of its own that depends on `sluice` imports the subpaths by
// package name, from the build output (dist/, built when stale), both at run time (Node's resolution of
// package.json "exports") and in TypeScript (their "types" conditions, under NodeNext resolution).
//
// The consumer is a temporary directory whose node_modules/sluice is a symlink to this checkout, as `npm link` or a
// workspace would make it.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt, ROOT } from "./support/dist-build.js";

const run = promisify(execFile);
let consumer: string;

beforeAll(async () => {
  await ensureDistBuilt();
  consumer = mkdtempSync(join(tmpdir(), "sluice-consumer-"));
  mkdirSync(join(consumer, "node_modules"));
  symlinkSync(ROOT, join(consumer, "node_modules", "sluice"), "dir");
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", type: "module", private: true }),
  );
});

afterAll(() => {
  if (consumer !== undefined) rmSync(consumer, { recursive: true, force: true });
});

/** An envoyproxy/ratelimit configuration: 2 requests per second per user in domain `edge`. */
const RULES =
  "domain: edge\\ndescriptors:\\n  - key: user\\n    rate_limit: { unit: second, requests_per_unit: 2 }\\n";

/** A consumer module using `sluice/engine` as the README shows it (plain JavaScript: run by Node as it is). */
const ENGINE_USE = `
import { memoryStore } from "sluice";
import { configFromValue, createEngine, loadConfigFile, NO_LIMIT_DECISION, parseConfig, watchConfigFile } from "sluice/engine";

const engine = createEngine({ config: parseConfig("${RULES}"), store: memoryStore() });
const request = { domain: "edge", descriptors: [[{ key: "user", value: "42" }]] };
const answers = [engine.checkSync(request), engine.checkSync(request), await engine.check(request)];
const none = engine.checkSync({ domain: "other", descriptors: [[{ key: "user", value: "42" }]] });
await engine.close();
console.log(JSON.stringify({
  allowed: answers.map((r) => r.allowed),
  none: none.decision === NO_LIMIT_DECISION,
  functions: [loadConfigFile, configFromValue, watchConfigFile].map((f) => typeof f),
}));
`;

/** The same use, typed: compiles only if the declarations of `sluice/engine` resolve and are typed (not `any`). */
const ENGINE_TYPES = `
import type { CheckRequest, CheckResult, Engine, EngineOptions, EngineStats, SluiceConfig } from "sluice/engine";
import { createEngine, parseConfig } from "sluice/engine";

const config: SluiceConfig = parseConfig("${RULES}");
const options: EngineOptions = { config };
const engine: Engine = createEngine(options);
const request: CheckRequest = { domain: "edge", descriptors: [[{ key: "user", value: "42" }]] };
const result: CheckResult = engine.checkSync(request);
const stats: EngineStats = engine.stats;
export const checks: number = stats.checks + result.decision.policies.length;
// @ts-expect-error: a configuration is required
createEngine({});
`;

describe("package exports", () => {
  it("every entry of package.json exports names a file the build emits, with its declarations", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; default: string }>;
    };
    expect(Object.keys(pkg.exports)).toContain("./engine");
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const files = typeof target === "string" ? [target] : [target.types, target.default];
      for (const file of files)
        expect(() => readFileSync(join(ROOT, file)), `${subpath} → ${file}`).not.toThrow();
    }
  });

  it("sluice/engine is importable by package name and runs an engine", async () => {
    writeFileSync(join(consumer, "engine-use.mjs"), ENGINE_USE);
    const { stdout } = await run(process.execPath, ["engine-use.mjs"], { cwd: consumer, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({
      allowed: [true, true, false],
      none: true,
      functions: ["function", "function", "function"],
    });
  });

  it("sluice/engine's declarations resolve under NodeNext (the exports' types condition)", async () => {
    writeFileSync(join(consumer, "engine-types.mts"), ENGINE_TYPES);
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [join(ROOT, "node_modules", "@types")],
          types: ["node"],
        },
        files: ["engine-types.mts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", ".bin", "tsc");
    const result = await run(tsc, ["-p", "tsconfig.json"], { cwd: consumer, timeout: 60_000 }).then(
      () => "",
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(result).toBe("");
  });
});

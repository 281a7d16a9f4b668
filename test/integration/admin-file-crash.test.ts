// Crash safety of the file config repository: a child process (test/support/admin-config-writer.mjs) rewrites a
// config file through fileConfigRepository in a tight loop and is SIGKILLed at a random moment (every other time
// right when a temp file appears, i.e. mid-write), 25 times in a row on the same file. After every kill the file
// must parse and validate, hold one consistent generation of the rule set (every rule of the same write, the right
// number of them), at a version no older than the last write the child reported complete; temp files left by a
// kill must not disturb the next load, which removes them.
//
// The child runs a private build of the module graph (tsc into node_modules/.cache), so it does not depend on
// dist/ or on unrelated files of the tree compiling.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfigFile } from "../../src/rules/load-config.js";
import { fileConfigRepository } from "../../src/server/admin/file-config-repository.js";
import { trackChild, untrackChild } from "../support/process-cleanup.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKER = fileURLToPath(new URL("../support/admin-config-writer.mjs", import.meta.url));
const BUILD = join(ROOT, "node_modules", ".cache", `sluice-admin-crash-${process.pid}`);
const KILLS = 25;

/** Generation `gen` of the rule set, as the worker writes it (see admin-config-writer.mjs). */
function generation(gen: number) {
  return {
    version: 1,
    rules: Array.from({ length: 40 + (gen % 40) }, (_, i) => ({
      id: `r${i}`,
      name: `gen-${gen}`,
      domain: "api",
      match: [{ key: "tenant", value: `t${i}` }],
      limits: [{ name: "per-minute", limit: gen + 1, period: "1m" }],
    })),
  };
}

/** Compiles file-config-repository.ts and its imports into BUILD/out with the project's compiler options. */
async function buildModule(): Promise<string> {
  mkdirSync(BUILD, { recursive: true });
  const tsconfig = join(BUILD, "tsconfig.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, "tsconfig.json"),
      compilerOptions: {
        rootDir: join(ROOT, "src"),
        outDir: join(BUILD, "out"),
        noEmit: false,
        declaration: false,
        sourceMap: false,
      },
      files: [join(ROOT, "src/server/admin/file-config-repository.ts")],
      include: [],
    }),
  );
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", tsconfig],
      { cwd: ROOT, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`tsc failed:\n${stdout}\n${stderr}`)) : resolve()),
    );
  });
  return join(BUILD, "out/server/admin/file-config-repository.js");
}

/** Resolves when a temp file of an atomic write appears in `dir` (or after `boundMs`). */
function tempFileAppears(dir: string, boundMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      watcher.close();
      clearTimeout(timer);
      resolve();
    };
    const watcher = watch(dir, (_event, name) => {
      if (String(name).endsWith(".sluice-tmp")) done();
    });
    const timer = setTimeout(done, boundMs);
  });
}

interface Run {
  readonly child: ChildProcess;
  /** Resolves with the version loaded once the child printed "ready". */
  readonly ready: Promise<number>;
  /** The last version the child reported written. */
  lastWritten(): number;
  /** Resolves when the child has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWriter(modulePath: string, file: string): Run {
  const child = spawn(process.execPath, [WORKER, modulePath, file], { stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid !== undefined) trackChild(child.pid);
  let buffer = "";
  let last = 0;
  let stderr = "";
  let onReady: (v: number) => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const ready = new Promise<number>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      const m = /^ready (\d+)$/.exec(line);
      if (m) {
        last = Number(m[1]);
        onReady(last);
      } else if (/^\d+$/.test(line)) last = Number(line);
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      if (child.pid !== undefined) untrackChild(child.pid);
      onFail(new Error(`the writer exited (${code ?? signal}) before it was ready:\n${stderr}`));
      resolve({ code, signal });
    });
  });
  return { child, ready, lastWritten: () => last, exited };
}

describe("fileConfigRepository under SIGKILL", () => {
  let modulePath: string;
  let dir: string;

  beforeAll(async () => {
    modulePath = await buildModule();
    dir = await mkdtemp(join(tmpdir(), "sluice-admin-crash-"));
  }, 120_000);
  afterAll(async () => {
    rmSync(BUILD, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  it(`leaves the old or the new file, never a torn one (${KILLS} kills)`, async () => {
    const file = join(dir, "sluice.yaml");
    writeFileSync(file, `# Crash test.\n\n${stringify(generation(0))}`);
    let tempFilesSeen = 0;
    let writes = 0;
    let previousVersion = 1;
    for (let kill = 0; kill < KILLS; kill++) {
      const run = startWriter(modulePath, file);
      const loaded = await run.ready;
      expect(loaded).toBe(previousVersion); // the file as the last kill left it, with its header version
      // Let it write at least once (it is warmed up), then kill it: on even rounds at a random moment of its
      // loop, on odd rounds as soon as a temp file appears (mid-write, before the rename), after a random delay.
      for (let i = 0; i < 1000 && run.lastWritten() === loaded; i++) {
        await new Promise((r) => setTimeout(r, 5));
      }
      await new Promise((r) => setTimeout(r, Math.random() * 150));
      if (kill % 2 === 1) await tempFileAppears(dir, 2000);
      run.child.kill("SIGKILL");
      const exit = await run.exited;
      expect(exit.signal).toBe("SIGKILL");
      const acknowledged = run.lastWritten();

      const names = await readdir(dir);
      tempFilesSeen += names.filter((n) => n.endsWith(".sluice-tmp")).length;

      // The file parses and validates, with the plain loader and through the repository.
      const config = await loadConfigFile(file);
      const repo = fileConfigRepository({ path: file, watch: false });
      const snapshot = await repo.load();
      await repo.close();
      expect(snapshot.version).toBeGreaterThanOrEqual(acknowledged);
      // One consistent generation: version v holds generation v - 1, exactly as written.
      expect(snapshot.document).toEqual(generation(snapshot.version - 1));
      expect(config.rules).toHaveLength(40 + ((snapshot.version - 1) % 40));
      expect(new Set(config.rules.map((r) => r.limits[0].limit))).toEqual(new Set([snapshot.version]));
      expect((await readFile(file, "utf8")).startsWith("# sluice: written by the admin API")).toBe(
        snapshot.version > 1,
      );
      expect((await readdir(dir)).filter((n) => n.endsWith(".sluice-tmp"))).toEqual([]); // stale temp files removed
      writes += snapshot.version - previousVersion;
      previousVersion = snapshot.version;
    }
    expect(writes).toBeGreaterThan(0);
    console.log(
      `admin-file-crash: ${KILLS} SIGKILLs, ${writes} completed writes, ${tempFilesSeen} temp files left by kills (removed on the next load); every file consistent`,
    );
    // 25 rounds of starting Node, waiting for a write and killing: a few seconds each on a 2-core CI machine loaded
    // by the other test files (one such run needed more than 120 s), so the bound is generous.
  }, 480_000);
});

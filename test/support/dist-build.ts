// The build output (dist/) for tests that run the library in child processes, which import plain JavaScript.
//
//   await ensureDistBuilt();   // runs `npm run build` when dist/ is missing or older than src/
//
// Stale means: some non-test `src/**/*.ts` has no `dist/**/*.js` twin, or some `src/**/*.{ts,lua}` was modified
// after its twin in dist/ was written. The build (tsc + copy-lua) rewrites every output, so after it the check
// passes until src/ changes again.
import { execFile } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");

function sources(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (
      (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")) ||
      entry.name.endsWith(".lua")
    ) {
      out.push(path);
    }
  }
  return out;
}

function mtimeMs(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Why dist/ does not reflect src/ (the first reason found), or undefined when it is up to date. */
export function distStaleness(): string | undefined {
  for (const source of sources(SRC, [])) {
    const rel = relative(SRC, source);
    const target = join(DIST, rel.endsWith(".ts") ? rel.replace(/\.ts$/, ".js") : rel);
    const built = mtimeMs(target);
    if (built === undefined) return `dist/${relative(DIST, target)} is missing`;
    if ((mtimeMs(source) ?? 0) > built) return `src/${rel} is newer than dist/${relative(DIST, target)}`;
  }
  return undefined;
}

/** Runs `npm run build` when {@link distStaleness} finds a reason; rejects with the build's output if it fails. */
export async function ensureDistBuilt(timeoutMs = 180_000): Promise<string | undefined> {
  const reason = distStaleness();
  if (reason === undefined) return undefined;
  await new Promise<void>((resolve, reject) => {
    execFile(
      "npm",
      ["run", "build", "--silent"],
      { cwd: ROOT, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`npm run build failed (${reason}): ${error.message}\n${stdout}\n${stderr}`));
        else resolve();
      },
    );
  });
  return reason;
}

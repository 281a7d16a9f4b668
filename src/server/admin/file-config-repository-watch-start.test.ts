// A hand edit made between the repository's first reading of the file and the start of its watch (a window the file
// system cannot be made to hit on demand: `readFile` is wrapped to write the file right after that reading).
import { writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { ManualClock } from "../../core/manual-clock.js";
import type { ConfigSnapshot } from "./config-repository.js";
import { fileConfigRepository } from "./file-config-repository.js";

/** Called once, with the path, after the next `readFile` of that path resolves (then cleared). */
const afterRead = vi.hoisted(() => ({ path: "", run: undefined as (() => void) | undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const readFile = (async (...args: Parameters<typeof real.readFile>) => {
    const result = await real.readFile(...args);
    if (args[0] === afterRead.path && afterRead.run !== undefined) {
      const run = afterRead.run;
      afterRead.run = undefined;
      run();
    }
    return result;
  }) as typeof real.readFile;
  return { ...real, default: { ...real, readFile }, readFile };
});

const config = (limit: number) =>
  `rules:\n  - id: per-user\n    domain: api\n    match: [{ key: user }]\n    limits: [{ limit: ${limit}, period: 1m }]\n`;

let dir = "";
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("reports a hand edit made between the first reading of the file and the start of the watch", async () => {
  dir = await mkdtemp(join(tmpdir(), "sluice-admin-watch-start-"));
  const file = join(dir, "sluice.yaml");
  await writeFile(file, config(1));
  afterRead.path = file;
  afterRead.run = () => writeFileSync(file, config(2)); // after the text is read, before the watch starts
  const repo = fileConfigRepository({ path: file, clock: new ManualClock(0), debounceMs: 5 });
  try {
    const seen: ConfigSnapshot[] = [];
    repo.watch((s) => seen.push(s));
    const first = await repo.load();
    expect(first.config.rules[0].limits[0].limit).toBe(1);
    for (let i = 0; i < 300 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.map((s) => [s.version, s.config.rules[0].limits[0].limit])).toEqual([[2, 2]]);
  } finally {
    await repo.close();
  }
});

// End to end: builds the package once, then runs the real `sluice` binary.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { RATE_ALGORITHMS } from "../../src/cli/simulation.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

function sluice(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["bin/sluice.js", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("sluice simulate (built CLI)", () => {
  beforeAll(() => {
    execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "pipe" });
  });

  it("prints a chart row and a summary row for every algorithm", () => {
    const r = sluice("simulate", "--pattern", "steady", "--rps", "5", "--limit", "10", "--duration", "2s");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^algorithm +offered +admitted +denied +admitted % +max in 1s +max\/limit$/m);
    for (const algorithm of RATE_ALGORITHMS) {
      // Well under the limit, everything passes.
      expect(r.stdout).toMatch(new RegExp(`^${algorithm} +10 +10 +0 +100\\.0%`, "m"));
    }
  });

  it("exits 2 naming the option on a bad value", () => {
    const r = sluice("simulate", "--rps", "abc");
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      'sluice: ERR_SLUICE_INVALID_ARGUMENT: --rps must be a number > 0, got "abc"',
    );
  });

  it("exits 2 on an invalid limit, with the field named and no stack trace", () => {
    const r = sluice("simulate", "--limit", "2.5");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("sluice: ERR_SLUICE_INVALID_LIMIT: --limit:");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("exits 2 on an unknown option and prints the version", () => {
    expect(sluice("simulate", "--nope").status).toBe(2);
    const v = sluice("--version");
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

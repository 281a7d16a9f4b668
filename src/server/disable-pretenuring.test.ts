import { execFile } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt, ROOT } from "../../test/support/dist-build.js";
import { disablePretenuring, NO_PRETENURING_FLAG } from "./disable-pretenuring.js";

/**
 * Runs, in a fresh Node process traced with `--trace-pretenuring-statistics`, a workload whose literal sites V8
 * considers for pretenuring (every object it makes survives a scavenge), after calling the built
 * `disablePretenuring` when `off`. Resolves with the trace lines about allocation sites.
 */
function siteDecisions(off: boolean): Promise<string[]> {
  const module = pathToFileURL(join(ROOT, "dist/server/disable-pretenuring.js")).href;
  const script = [
    `import { disablePretenuring } from ${JSON.stringify(module)};`,
    off ? "disablePretenuring();" : "",
    "const keep = [];",
    "const make = (i) => ({ a: i, b: [i] });",
    "for (let round = 0; round < 10; round++) {",
    "  for (let i = 0; i < 300000; i++) keep.push(make(i));",
    "  keep.length = 0;",
    "}",
  ].join("\n");
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--trace-pretenuring-statistics", "--input-type=module", "-e", script],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(stdout.split("\n").filter((l) => l.includes("pretenuring: AllocationSite")));
      },
    );
  });
}

describe("disablePretenuring", () => {
  beforeAll(async () => {
    await ensureDistBuilt();
  }, 200_000);

  it("stops V8 from considering any allocation site for pretenuring, from the call on", async () => {
    // The control: the same workload in a process left as it is gets its sites considered for tenuring (Node 20
    // and 24 tenure them; Node 22's V8 leaves them at "maybe tenure" on this short workload).
    const on = await siteDecisions(false);
    expect(on.length).toBeGreaterThan(0);
    expect(on.some((l) => /=> (maybe )?tenure/.test(l))).toBe(true);
    expect(await siteDecisions(true)).toEqual([]);
  }, 120_000);

  it("sets the documented V8 option, once however often it is called", () => {
    expect(NO_PRETENURING_FLAG).toBe("--no-allocation-site-pretenuring");
    disablePretenuring();
    disablePretenuring();
  });
});

// End to end: builds the package once, then runs the real `sluice validate` on the examples and on bad files.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function sluice(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["bin/sluice.js", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("sluice validate (built CLI)", () => {
  beforeAll(() => {
    execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "pipe" });
  });

  it("accepts the native example and summarises it: domains, one line per rule, tiers, identities, overrides", () => {
    const r = sluice("validate", "examples/sluice.yaml");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "examples/sluice.yaml: valid",
      "domains: api, edge, ingest",
      "rules: 12",
    ]);
    expect(lines).toContain(
      '  [api] api-per-user "Requests per user": user=<any> → per-second 10/1s gcra burst 20, per-day 10000/1d fixed_window (tiers: premium per-second 100/1s gcra burst 200, per-day 1000000/1d fixed_window; enterprise unlimited)',
    );
    expect(lines).toContain(
      "  [api] search-per-user: user=<any> endpoint=<prefix /api/v1/search> → per-second 2/1s leaky_bucket burst 4 (delay ≤2s; replaces api-per-user)",
    );
    expect(lines).toContain("  [edge] edge-banned-address: remote_address=203.0.113.9 → blocked");
    expect(lines).toContain("tiers: enterprise, free, premium");
    expect(lines).toContain("identities: 4 (enterprise 1, free 1, premium 2)");
    expect(lines).toContain("overrides: 3");
    expect(lines).toContain(
      "  user:42 on orders-per-user → per-minute 600/1m sliding_window until 2026-12-31T23:59:59.000Z",
    );
    expect(lines).toContain("  tenant:acme on every rule → unlimited");
    expect(lines).toContain(
      "  tenant:globex on ingest-bytes-per-tenant → bytes-per-second 52428800/1s token_bucket burst 104857600 (static only)",
    );
  });

  it("accepts the envoyproxy/ratelimit example, with fixed_window limits unless told otherwise", () => {
    const r = sluice("validate", "examples/envoy-ratelimit.yaml");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("domains: edge_proxy\nrules: 13\n");
    expect(r.stdout).toContain(
      "  [edge_proxy] message_type=marketing/to_number: message_type=marketing to_number=<any> → per_day 5/1d fixed_window\n",
    );
    expect(r.stdout).toContain("  [edge_proxy] remote_address=50.0.0.5: remote_address=50.0.0.5 → blocked\n");
    const gcra = sluice("validate", "--envoy-algorithm", "gcra", "examples/envoy-ratelimit.yaml");
    expect(gcra.status).toBe(0);
    expect(gcra.stdout).toContain(
      "[edge_proxy] remote_address: remote_address=<any> → per_second 10/1s gcra\n",
    );
  });

  it("prints every error of an invalid file, one per line, and exits 1", () => {
    const r = sluice("validate", "test/fixtures/config/every-error-at-once.yaml");
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const f = "test/fixtures/config/every-error-at-once.yaml";
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `${f}:7: rules[0].limits[0].limit: must be a finite number > 0`,
      `${f}:8: rules[0].tiers.gold: unknown tier "gold"; declared: free`,
      `${f}:9: rules[1].domain: is required`,
      `${f}:10: rules[1].match[0]: give at most one of value, prefix, glob, path (found prefix and glob)`,
      `${f}:11: rules[1].behaviour: must be one of reject, delay, shadow, got "slow"`,
      `${f}:14: overrides[0].identity: must be key:value, such as user:42 or tenant:acme, got "nobody"`,
    ]);
  });

  it("reports a YAML syntax error with its line, and a missing file, exiting 1", () => {
    const bad = sluice("validate", "test/fixtures/config/yaml-syntax-error.yaml");
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim()).toBe(
      "test/fixtures/config/yaml-syntax-error.yaml:5: invalid YAML: Tabs are not allowed as indentation",
    );
    const missing = sluice("validate", "examples/missing.yaml");
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^examples\/missing\.yaml: cannot read the file \(ENOENT/);
  });

  it("exits 2 on a bad option or a missing argument", () => {
    const r = sluice("validate", "--envoy-algorithm", "concurrency", "examples/envoy-ratelimit.yaml");
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^sluice: ERR_SLUICE_INVALID_ARGUMENT: --envoy-algorithm must be one of /,
    );
    expect(sluice("validate").status).toBe(2);
  });
});

describe("sluice output to a reader that went away", () => {
  it("`sluice serve --help | head -1`: no unhandled EPIPE and no stack trace, the reader gets its line", () => {
    // The pipe's reader reads one line and exits; the help's later writes meet a closed pipe.
    const r = spawnSync("sh", ["-c", `"${process.execPath}" bin/sluice.js serve --help | head -1`], {
      cwd: root,
      encoding: "utf8",
    });
    expect(r.stdout).toBe("Usage: sluice serve [options]\n");
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(r.status).toBe(0);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "./main.js";

/** Runs `main` on `args` with its output captured; the exit code and what it printed. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const code = await main(["node", "sluice", ...args]);
  vi.restoreAllMocks();
  return { code, out, err };
}

afterEach(() => vi.restoreAllMocks());

describe("sluice main", () => {
  it("an unknown command with --help is an error, not the root help with exit code 0", async () => {
    const r = await run("proxy", "--help");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("unknown command 'proxy'");
    expect(r.out).toBe("");
  });

  it("suggests the closest command", async () => {
    const r = await run("serv", "-h");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("(Did you mean serve?)");
  });

  it("the help of a known command, and the root help, still exit 0", async () => {
    const serve = await run("serve", "--help");
    expect(serve.code).toBe(0);
    expect(serve.out).toContain("Usage: sluice serve");
    const root = await run("--help");
    expect(root.code).toBe(0);
    expect(root.out).toContain("Usage: sluice");
    const help = await run("help", "validate");
    expect(help.code).toBe(0);
    expect(help.out).toContain("Usage: sluice validate");
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../core/errors.js";
import {
  adminTokens,
  loadAdminTokenFile,
  loadAdminTokens,
  parseAdminTokenFile,
  parseAdminTokens,
} from "./admin-tokens.js";

const dir = mkdtempSync(join(tmpdir(), "sluice-tokens-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("admin tokens", () => {
  it("parses the environment format and names the token that matches", () => {
    const tokens = parseAdminTokens("ops:secret1, ci:secret2");
    expect(tokens.names).toEqual(["ops", "ci"]);
    expect(tokens.verify("secret1")).toBe("ops");
    expect(tokens.verify("secret2")).toBe("ci");
    expect(tokens.verify("secret3")).toBeUndefined();
    expect(tokens.verify("")).toBeUndefined();
    expect(tokens.verify("secret1 ")).toBeUndefined();
  });

  it("keeps everything after the first colon as the token", () => {
    expect(parseAdminTokens("ops:a:b:c").verify("a:b:c")).toBe("ops");
  });

  it("names each bad entry by position and never quotes a token", () => {
    const error = errorOf(() =>
      parseAdminTokens("ops:hunter2hunter2,justatokenvalue,ops:other,bad name:x,ci:hunter2hunter2"),
    );
    expect(error.code).toBe("ERR_SLUICE_INVALID_CONFIG");
    expect(error.message).toContain("SLUICE_ADMIN_TOKENS: [1]: must be name:token");
    expect(error.message).toContain('[2]: the name "ops" is used twice');
    expect(error.message).toContain("[3]: the token name must be");
    expect(error.message).toContain('[4]: the token of "ci" is also the token of entry 1');
    expect(error.message).not.toContain("hunter2");
    expect(error.message).not.toContain("justatokenvalue");
    expect(error.message).not.toContain("other");
  });

  it("reads a token file of name:token lines with comments, naming bad lines", () => {
    const tokens = parseAdminTokenFile("# admin tokens\n\nops:secret1\n  ci:secret2  \n");
    expect(tokens.names).toEqual(["ops", "ci"]);
    expect(tokens.verify("secret2")).toBe("ci");
    const error = errorOf(() => parseAdminTokenFile("ops:secret1\nnocolon\nci:\n", "tokens.txt"));
    expect(error.issues.map((i) => i.line)).toEqual([2, 3]);
    expect(error.message).toContain("tokens.txt:2: must be name:token");
    expect(error.message).toContain('tokens.txt:3: the token of "ci" is empty');
  });

  it("reads a JSON token file, as a mapping or a list", () => {
    expect(parseAdminTokenFile('{ "ops": "secret1", "ci": "secret2" }').verify("secret1")).toBe("ops");
    expect(parseAdminTokenFile('[{ "name": "ops", "token": "secret1" }]').names).toEqual(["ops"]);
    const error = errorOf(() => parseAdminTokenFile('[{ "name": "ops" }, { "name": "ci", "token": 5 }]'));
    expect(error.issues.map((i) => i.path)).toEqual(["[0]", "[1]"]);
    const syntax = errorOf(() => parseAdminTokenFile('{ "ops": "supersecretvalue", }'));
    expect(syntax.message).toContain("invalid JSON");
    expect(syntax.message).not.toContain("supersecretvalue");
  });

  it("refuses tokens with whitespace and empty names", () => {
    const error = errorOf(() => adminTokens([{ name: "", token: "a b" }]));
    expect(error.message).toContain("the token name must be");
    expect(error.message).toContain("contains whitespace");
  });

  it("refuses at load a token the Authorization header cannot carry, naming the entry, never the token", () => {
    for (const bad of ["abc#def", "p^ss|w{r}d", 'tok"en', "pässwörd", "a?b"]) {
      const error = errorOf(() => parseAdminTokens(`ok:fine-token,ops:${bad}`));
      expect(error.message).toContain('SLUICE_ADMIN_TOKENS: [1]: the token of "ops" has characters');
      expect(error.message).not.toContain(bad);
    }
    const file = errorOf(() => parseAdminTokenFile("ops:good\nci:no#pe\n", "tokens.txt"));
    expect(file.message).toContain(
      'tokens.txt:2: the token of "ci" has characters a bearer token cannot carry',
    );
    expect(parseAdminTokens("ops:A-z0._~+/=:@!$&'*;%").verify("A-z0._~+/=:@!$&'*;%")).toBe("ops");
  });

  it("loads from a file, the file variable, or the inline variable, and refuses both variables", async () => {
    const file = join(dir, "tokens");
    writeFileSync(file, "ops:fromfile\n");
    expect((await loadAdminTokenFile(file)).verify("fromfile")).toBe("ops");
    expect((await loadAdminTokens({ env: { SLUICE_ADMIN_TOKENS_FILE: file } })).names).toEqual(["ops"]);
    expect((await loadAdminTokens({ env: { SLUICE_ADMIN_TOKENS: "ci:inline" } })).verify("inline")).toBe(
      "ci",
    );
    expect((await loadAdminTokens({ env: {} })).names).toEqual([]);
    expect((await loadAdminTokens({ file, env: { SLUICE_ADMIN_TOKENS: "ci:inline" } })).names).toEqual([
      "ops",
    ]);
    await expect(
      loadAdminTokens({ env: { SLUICE_ADMIN_TOKENS: "ci:inline", SLUICE_ADMIN_TOKENS_FILE: file } }),
    ).rejects.toThrow(/not both/);
    await expect(loadAdminTokenFile(join(dir, "missing"))).rejects.toThrow(
      /cannot read the token file \(ENOENT\)/,
    );
  });
});

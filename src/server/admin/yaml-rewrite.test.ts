import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderYaml } from "./yaml-rewrite.js";

const EXAMPLE = readFileSync(new URL("../../../examples/sluice.yaml", import.meta.url), "utf8");

/** The lines of `text` from the one starting with `start`, `count` of them. */
function linesFrom(text: string, start: string, count: number): string[] {
  const lines = text.split("\n");
  const at = lines.indexOf(start);
  expect(at).toBeGreaterThanOrEqual(0);
  return lines.slice(at, at + count);
}

const HEADER = { header: ["managed: version 2"], managedPrefixes: ["managed:"] };

describe("renderYaml", () => {
  it("prints a value afresh with the header when there is no previous text", () => {
    const text = renderYaml({ version: 1, rules: [] }, HEADER);
    expect(text.startsWith("# managed: version 2\n")).toBe(true);
    expect(parse(text)).toEqual({ version: 1, rules: [] });
  });

  it("matches list items by id, so comments follow their rule when one in the middle goes", () => {
    const previous = `# Team header

rules:
  # first rule
  - id: a
    limit: 1
  # second rule
  - id: b
    limit: 2 # two
  # third rule
  - id: c
    limit: 3
`;
    const text = renderYaml(
      {
        rules: [
          { id: "c", limit: 30 },
          { id: "a", limit: 1 },
        ],
      },
      { ...HEADER, previous },
    );
    expect(parse(text)).toEqual({
      rules: [
        { id: "c", limit: 30 },
        { id: "a", limit: 1 },
      ],
    });
    expect(text).not.toContain("second rule");
    expect(text).not.toContain("# two");
    expect(text).toContain("# Team header");
    expect(text).toContain("# first rule");
    expect(text.split("\n")[0]).toBe("# managed: version 2");
  });

  it("deletes the first rule's comment with it, keeping the banner under rules: (the example config)", () => {
    const value = parse(EXAMPLE) as { rules: unknown[] };
    value.rules.splice(0, 1);
    const text = renderYaml(value, { ...HEADER, previous: EXAMPLE });
    expect(parse(text)).toEqual(value);
    expect(text).not.toContain("Any value: one counter per distinct user");
    expect(linesFrom(text, "rules:", 6)).toEqual([
      "rules:",
      "  # ---------------------------------------------------------------------------------------------------------",
      '  # Domain "api": HTTP API limits per user and per API key.',
      "  # ---------------------------------------------------------------------------------------------------------",
      "",
      '  # A path pattern: "*" as the last segment matches the rest of the path, so every orders endpoint counts against',
    ]);
    expect(text.split("\n").filter((l) => l !== "" && l.trim() === "")).toEqual([]);
  });

  it("deletes the first override's comment with it, keeping the section's above overrides: (the example config)", () => {
    const value = parse(EXAMPLE) as { overrides: unknown[] };
    value.overrides.splice(0, 1);
    const text = renderYaml(value, { ...HEADER, previous: EXAMPLE });
    expect(parse(text)).toEqual(value);
    expect(text).not.toContain("Temporary: until the end of the year");
    expect(text).toContain(
      "# Per-identity replacements of a rule's limits; the later of two for the same identity and rule wins.\noverrides:\n",
    );
    expect(linesFrom(text, "overrides:", 4)).toEqual([
      "overrides:",
      "  # Keyed by a metadata value (seed 003's overrides): tenant acme is exempt from every rule identifying callers by",
      "  # tenant.",
      '  - identity: "tenant:acme"',
    ]);
    expect(text.split("\n").filter((l) => l !== "" && l.trim() === "")).toEqual([]);
  });

  it("moves the first item's comment with it when it moves", () => {
    const previous = "rules:\n  # the first\n  - id: a\n\n  # the second\n  - id: b\n";
    const text = renderYaml({ rules: [{ id: "b" }, { id: "a" }] }, { ...HEADER, previous });
    expect(text.slice(text.indexOf("rules:"))).toBe(
      "rules:\n  # the second\n  - id: b\n\n  # the first\n  - id: a\n",
    );
  });

  it("matches overrides by identity and rule, and keeps quoting of unchanged scalars", () => {
    const previous = `overrides:
  - identity: "user:1" # vip
    limits: unlimited
  - identity: "user:2"
    rule: r
    limits: unlimited
`;
    const value = {
      overrides: [
        { identity: "user:2", rule: "r", limits: "unlimited" },
        { identity: "user:1", limits: "unlimited" },
      ],
    };
    const text = renderYaml(value, { ...HEADER, previous });
    expect(parse(text)).toEqual(value);
    expect(text).toContain('identity: "user:1" # vip');
  });

  it("replaces the managed header lines instead of accumulating them", () => {
    const once = renderYaml({ a: 1 }, { ...HEADER, previous: "# mine\n\na: 0\n" });
    const twice = renderYaml(
      { a: 2 },
      { header: ["managed: version 3"], managedPrefixes: ["managed:"], previous: once },
    );
    expect(twice.match(/# managed:/g)).toHaveLength(1);
    expect(twice).toContain("# managed: version 3");
    expect(twice).toContain("# mine");
  });

  it("falls back to a fresh print when anchors make an in-place edit unsafe", () => {
    const previous = `base: &limits
  limit: 1
rules:
  - id: a
    limits: *limits
`;
    const value = { base: { limit: 5 }, rules: [{ id: "a", limits: { limit: 1 } }] };
    const text = renderYaml(value, { ...HEADER, previous });
    expect(parse(text)).toEqual(value);
  });

  it("keeps CRLF line endings of a previous text that has them", () => {
    const previous = "# kept on Windows\r\nrules:\r\n  # the one rule\r\n  - id: a\r\n    limit: 1\r\n";
    const text = renderYaml({ rules: [{ id: "a", limit: 2 }] }, { ...HEADER, previous });
    expect(text).toContain("# the one rule\r\n");
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    expect(parse(text)).toEqual({ rules: [{ id: "a", limit: 2 }] });
    // LF stays LF.
    expect(renderYaml({ a: 2 }, { ...HEADER, previous: "a: 1\n" })).not.toContain("\r");
  });

  it("ignores a previous text that does not parse", () => {
    const text = renderYaml({ a: 1 }, { ...HEADER, previous: "a: [unclosed\n" });
    expect(parse(text)).toEqual({ a: 1 });
  });
});

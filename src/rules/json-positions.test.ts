import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonPositions, jsonRepeatedKey, jsonSyntaxErrorOffset, MAX_JSON_DEPTH } from "./json-positions.js";

const accepts = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("jsonSyntaxErrorOffset", () => {
  it("agrees with JSON.parse on what is JSON", () => {
    const token = fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      " ",
      "\n",
      '"a"',
      '"\\u00e9"',
      '"\\x"',
      '"\t"',
      "1",
      "-0.5e+3",
      "01",
      "1.",
      "true",
      "nul",
      "null",
      '"',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const text = tokens.join("");
        expect(jsonSyntaxErrorOffset(text) === undefined, JSON.stringify(text)).toBe(accepts(text));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(jsonSyntaxErrorOffset(text)).toBeUndefined();
      }),
    );
  });

  it("points where a strict parser stops", () => {
    expect(jsonSyntaxErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonSyntaxErrorOffset('{"a": 1,}')).toBe(8);
    expect(jsonSyntaxErrorOffset("# x\n{}")).toBe(0);
    expect(jsonSyntaxErrorOffset("{} x")).toBe(3);
  });
});

describe("jsonRepeatedKey", () => {
  it("finds the first key repeated within one object, with both offsets and its path", () => {
    const text = '{"a": {"x": 1, "y": [ {"k": 1, "k": 2} ]}, "b": 1, "b": 2}';
    expect(jsonRepeatedKey(text)).toEqual({
      path: ["a", "y", 0, "k"],
      offset: text.indexOf('"k": 2'),
      firstOffset: text.indexOf('"k": 1'),
    });
    // Keys are compared by value: an escape spelling the same key repeats it.
    expect(jsonRepeatedKey('{"a": 1, "\\u0061": 2}')?.path).toEqual(["a"]);
    expect(jsonRepeatedKey('{"a": {"b": 1}, "c": {"b": 1}}')).toBeUndefined();
  });

  it("gives up silently beyond the deepest nesting it follows", () => {
    const deep = `${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    expect(jsonRepeatedKey(deep)).toBeUndefined();
  });
});

describe("JsonPositions", () => {
  const text =
    '{\n  "rules": [\n    { "id": "a", "limit": 1.10 },\n    {\n      "id": "b"\n    }\n  ],\n  "0": true\n}\n';
  const p = new JsonPositions(text);

  it("gives the line of a member's key, of an element, and of the nearest parent of a missing path", () => {
    expect(p.lineOf([])).toBe(1);
    expect(p.lineOf(["rules"])).toBe(2);
    expect(p.lineOf(["rules", 0])).toBe(3);
    expect(p.lineOf(["rules", 1])).toBe(4);
    expect(p.lineOf(["rules", 1, "id"])).toBe(5);
    expect(p.lineOf(["rules", 1, "missing"])).toBe(4);
    expect(p.lineOf(["rules", 7, "id"])).toBe(2);
    expect(p.lineOf([0])).toBe(8); // a digit key of an object
  });

  it("gives the source text of scalars, strings unquoted", () => {
    expect(p.textOf(["rules", 0, "limit"])).toBe("1.10");
    expect(p.textOf(["rules", 0, "id"])).toBe("a");
    expect(p.textOf(["0"])).toBe("true");
    expect(p.textOf(["rules", 0])).toBeUndefined();
    expect(p.textOf(["nothing"])).toBeUndefined();
  });

  it("numbers lines from 1 at each newline", () => {
    expect(p.line(0)).toBe(1);
    expect(p.line(text.indexOf('"rules"'))).toBe(2);
    expect(p.line(text.length)).toBe(10);
  });
});

import { describe, expect, it } from "vitest";
import { AdminProblem } from "./admin-problem.js";
import {
  checkIfMatch,
  etagOf,
  ifMatchMatches,
  ifNoneMatchMatches,
  parseEntityTags,
} from "./resource-etag.js";

function statusOf(fn: () => void): number | "ok" {
  try {
    fn();
    return "ok";
  } catch (error) {
    expect(error).toBeInstanceOf(AdminProblem);
    return (error as AdminProblem).status;
  }
}

describe("resource ETags", () => {
  it("are strong, stable under key order, and change with any value", () => {
    const a = etagOf({ id: "r", limits: [{ limit: 5, name: "x" }] });
    expect(a).toMatch(/^"[A-Za-z0-9_-]{24}"$/);
    expect(etagOf({ limits: [{ name: "x", limit: 5 }], id: "r" })).toBe(a);
    expect(etagOf({ id: "r", limits: [{ limit: 6, name: "x" }] })).not.toBe(a);
    expect(etagOf({ id: "r", extra: undefined, limits: [{ limit: 5, name: "x" }] })).toBe(a);
  });

  it("parses entity-tag lists", () => {
    expect(parseEntityTags(undefined)).toEqual([]);
    expect(parseEntityTags(" * ")).toEqual(["*"]);
    expect(parseEntityTags('"a", W/"b" ,"c"')).toEqual(['"a"', 'W/"b"', '"c"']);
  });

  it("compares If-Match strongly and If-None-Match weakly", () => {
    expect(ifMatchMatches('"x", "a"', '"a"')).toBe(true);
    expect(ifMatchMatches('W/"a"', '"a"')).toBe(false);
    expect(ifMatchMatches("*", '"a"')).toBe(true);
    expect(ifNoneMatchMatches('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('"b"', '"a"')).toBe(false);
  });

  it("answers 428 without If-Match, 412 when stale or when the resource is gone", () => {
    const current = { id: "r" };
    const tag = etagOf(current);
    const check = (ifMatch: string | undefined, cur: unknown, required = true) =>
      statusOf(() => checkIfMatch({ ifMatch, current: cur, required, resource: "rules/r" }));
    expect(check(undefined, current)).toBe(428);
    expect(check("", current)).toBe(428);
    expect(check(undefined, current, false)).toBe("ok");
    expect(check('"stale"', current)).toBe(412);
    expect(check(`W/${tag}`, current)).toBe(412);
    expect(check(tag, current)).toBe("ok");
    expect(check("*", current)).toBe("ok");
    expect(check(undefined, undefined)).toBe("ok");
    expect(check(tag, undefined)).toBe(412);
    expect(check("*", undefined)).toBe(412);
  });

  it("sends the current ETag with a 412", () => {
    try {
      checkIfMatch({ ifMatch: '"old"', current: { a: 1 }, required: true, resource: "rules/r" });
    } catch (error) {
      expect((error as AdminProblem).options.headers?.ETag).toBe(etagOf({ a: 1 }));
      expect((error as AdminProblem).body()).toMatchObject({
        status: 412,
        type: "urn:sluice:problem:precondition-failed",
      });
    }
  });
});

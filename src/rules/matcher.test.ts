import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRules } from "./matcher.js";
import type { Descriptor, EntryMatcher, Rule, ValuePattern } from "./rule.js";
import { any, entry, exact, glob, makeRule, makeRules, path, prefix } from "./testing-rules.js";

const d = (...pairs: [string, string][]): Descriptor => pairs.map(([key, value]) => ({ key, value }));

/** Whether a one-entry rule with `pattern` on key `k` matches `value`. */
function matches(pattern: ValuePattern, value: string): boolean {
  const c = compileRules([makeRule({ match: [entry("k", pattern)] })]);
  return c.match("default", d(["k", value])) !== undefined;
}

describe("pattern kinds", () => {
  const table: [string, ValuePattern, string, boolean][] = [
    ["exact equal", { kind: "exact", value: "42" }, "42", true],
    ["exact other", { kind: "exact", value: "42" }, "421", false],
    ["exact empty", { kind: "exact", value: "" }, "", true],
    ["any", { kind: "any" }, "whatever", true],
    ["any empty value", { kind: "any" }, "", true],
    ["prefix", { kind: "prefix", prefix: "10.0." }, "10.0.3.4", true],
    ["prefix equal to value", { kind: "prefix", prefix: "10.0." }, "10.0.", true],
    ["prefix too short", { kind: "prefix", prefix: "10.0." }, "10.0", false],
    ["prefix other", { kind: "prefix", prefix: "10.0." }, "10.1.0.1", false],
    ["empty prefix", { kind: "prefix", prefix: "" }, "x", true],
    ["glob trailing *", { kind: "glob", pattern: "value*" }, "value123", true],
    ["glob * matches empty", { kind: "glob", pattern: "value*" }, "value", true],
    ["glob mid *", { kind: "glob", pattern: "/api/*/action" }, "/api/v1/orders/action", true],
    ["glob mid * empty run", { kind: "glob", pattern: "/api/*/action" }, "/api//action", true],
    ["glob mid * mismatch", { kind: "glob", pattern: "/api/*/action" }, "/api/v1/other", false],
    ["glob leading *", { kind: "glob", pattern: "*.example.com" }, "a.b.example.com", true],
    ["glob several *", { kind: "glob", pattern: "a*b*c" }, "aXXbYYc", true],
    ["glob several * in order", { kind: "glob", pattern: "a*b*c" }, "acb", false],
    ["glob parts do not overlap", { kind: "glob", pattern: "ab*ba" }, "aba", false],
    ["glob parts back to back", { kind: "glob", pattern: "ab*ba" }, "abba", true],
    ["glob ** ", { kind: "glob", pattern: "a**" }, "a", true],
    ["glob only *", { kind: "glob", pattern: "*" }, "", true],
    ["glob without *", { kind: "glob", pattern: "abc" }, "abc", true],
    ["glob without * other", { kind: "glob", pattern: "abc" }, "abcd", false],
    ["path literal", { kind: "path", pattern: "/api/v1/orders" }, "/api/v1/orders", true],
    ["path trailing slash in value", { kind: "path", pattern: "/api/v1/orders" }, "/api/v1/orders/", true],
    ["path trailing slash in pattern", { kind: "path", pattern: "/api/v1/orders/" }, "/api/v1/orders", true],
    ["path double slash", { kind: "path", pattern: "/api/v1/orders" }, "/api//v1/orders", true],
    ["path query ignored", { kind: "path", pattern: "/api/v1/orders" }, "/api/v1/orders?page=2&x=/y", true],
    ["path query after slash", { kind: "path", pattern: "/api/v1/orders" }, "/api/v1/orders/?page=2", true],
    ["path extra segment", { kind: "path", pattern: "/api/v1/orders" }, "/api/v1/orders/7", false],
    ["path star one segment", { kind: "path", pattern: "/api/v1/orders/*" }, "/api/v1/orders/7", true],
    [
      "path star many segments",
      { kind: "path", pattern: "/api/v1/orders/*" },
      "/api/v1/orders/7/items",
      true,
    ],
    ["path star not the base", { kind: "path", pattern: "/api/v1/orders/*" }, "/api/v1/orders", false],
    ["path star not base + slash", { kind: "path", pattern: "/api/v1/orders/*" }, "/api/v1/orders/", false],
    [
      "path star not base + query",
      { kind: "path", pattern: "/api/v1/orders/*" },
      "/api/v1/orders?x=1",
      false,
    ],
    [
      "path star query ignored",
      { kind: "path", pattern: "/api/v1/orders/*" },
      "/api/v1/orders/7?x=/a/b",
      true,
    ],
    ["path star other base", { kind: "path", pattern: "/api/v1/orders/*" }, "/api/v1/ordersX/7", false],
    ["path param", { kind: "path", pattern: "/users/:id" }, "/users/42", true],
    ["path param one segment only", { kind: "path", pattern: "/users/:id" }, "/users/42/x", false],
    ["path param needs a segment", { kind: "path", pattern: "/users/:id" }, "/users", false],
    ["path param then star", { kind: "path", pattern: "/users/:id/*" }, "/users/42/posts/1", true],
    ["path param then star, star needs one", { kind: "path", pattern: "/users/:id/*" }, "/users/42", false],
    ["path mid * is one segment", { kind: "path", pattern: "/a/*/c" }, "/a/b/c", true],
    ["path mid * is one segment only", { kind: "path", pattern: "/a/*/c" }, "/a/b/b/c", false],
    ["path * inside a segment is literal", { kind: "path", pattern: "/a/b*" }, "/a/bc", false],
    ["path * inside a segment literal match", { kind: "path", pattern: "/a/b*" }, "/a/b*", true],
    ["path root", { kind: "path", pattern: "/" }, "/", true],
    ["path root with query", { kind: "path", pattern: "/" }, "/?q=1", true],
    ["path root other", { kind: "path", pattern: "/" }, "/a", false],
    ["path /* matches any non-root", { kind: "path", pattern: "/*" }, "/a/b/c", true],
    ["path /* not root", { kind: "path", pattern: "/*" }, "/", false],
    ["path no percent-decoding", { kind: "path", pattern: "/a/b c" }, "/a/b%20c", false],
  ];
  it.each(table)("%s: %j vs %j → %s", (_name, pattern, value, expected) => {
    expect(matches(pattern, value)).toBe(expected);
  });
});

/** The id of the rule chosen among `rules` (declared in order) for `desc` in domain `default`. */
function pick(rules: Rule[], desc: Descriptor): string | undefined {
  return compileRules(rules).match("default", desc)?.rule.id;
}

describe("specificity", () => {
  const kinds: [string, EntryMatcher][] = [
    ["exact", exact("k", "/api/v1/orders/7")],
    ["prefix", prefix("k", "/api")],
    ["path", path("k", "/api/v1/orders/*")],
    ["glob", glob("k", "/api/v1/orders/*")],
    ["any", any("k")],
  ];

  it("exact > prefix > path > glob > any, whatever the declaration order", () => {
    const desc = d(["k", "/api/v1/orders/7"]);
    for (let drop = 0; drop < kinds.length; drop++) {
      const present = kinds.slice(drop);
      const expected = present[0][0];
      for (const order of [present, [...present].reverse()]) {
        const rules = makeRules(order.map(([id, m]) => ({ id, match: [m] })));
        expect(pick(rules, desc), `among ${order.map((k) => k[0])}`).toBe(expected);
      }
    }
  });

  const cases: [string, EntryMatcher[], string, number][] = [
    // [name, candidates (rule i has candidates[i]), value, expected winner index]
    ["longer prefix wins", [prefix("k", "/a"), prefix("k", "/a/b"), prefix("k", "/")], "/a/b/c", 1],
    ["more literal path segments win", [path("k", "/a/*"), path("k", "/a/b/*")], "/a/b/c", 1],
    ["more literal segments beat params", [path("k", "/:x/b/c"), path("k", "/a/:y/:z")], "/a/b/c", 0],
    [":param beats a trailing *", [path("k", "/users/*"), path("k", "/users/:id")], "/users/42", 1],
    [":param/* beats *", [path("k", "/users/*"), path("k", "/users/:id/*")], "/users/42/posts", 1],
    ["two params beat one param and a star", [path("k", "/a/:x/*"), path("k", "/a/:x/:y")], "/a/b/c", 1],
    ["exact path beats params", [path("k", "/users/:id"), path("k", "/users/me")], "/users/me", 1],
    [
      "more literal glob characters win",
      [glob("k", "*"), glob("k", "/api/*"), glob("k", "/api/*/x")],
      "/api/v/x",
      2,
    ],
    ["glob literals counted, not position", [glob("k", "a*"), glob("k", "*bc")], "abc", 1],
  ];
  it.each(cases)("%s", (_name, candidates, value, winner) => {
    for (const order of [
      candidates.map((m, i) => [m, i] as const),
      candidates.map((m, i) => [m, i] as const).reverse(),
    ]) {
      const rules = makeRules(order.map(([m, i]) => ({ id: `c${i}`, match: [m] })));
      expect(pick(rules, d(["k", value]))).toBe(`c${winner}`);
    }
  });

  it("the first position decides: [exact, any] beats [any, exact]", () => {
    const rules = makeRules([
      { id: "any-exact", match: [any("user"), exact("endpoint", "/x")] },
      { id: "exact-any", match: [exact("user", "42"), any("endpoint")] },
    ]);
    expect(pick(rules, d(["user", "42"], ["endpoint", "/x"]))).toBe("exact-any");
  });

  it("equal first positions: the second decides", () => {
    const rules = makeRules([
      { id: "glob", match: [any("user"), glob("endpoint", "/x*")] },
      { id: "prefix", match: [any("user"), prefix("endpoint", "/x")] },
      { id: "any", match: [any("user"), any("endpoint")] },
    ]);
    expect(pick(rules, d(["user", "1"], ["endpoint", "/x/y"]))).toBe("prefix");
  });

  it("equally specific: higher priority wins, then earlier order", () => {
    const desc = d(["user", "1"]);
    expect(
      pick(
        makeRules([
          { id: "a", match: [any("user")] },
          { id: "b", match: [any("user")], priority: 1 },
        ]),
        desc,
      ),
    ).toBe("b");
    expect(
      pick(
        makeRules([
          { id: "a", match: [any("user")] },
          { id: "b", match: [any("user")] },
        ]),
        desc,
      ),
    ).toBe("a");
    // `order`, not the array position, is the declaration order.
    const [a, b] = [
      makeRule({ id: "a", match: [any("user")], order: 5 }),
      makeRule({ id: "b", match: [any("user")], order: 2 }),
    ];
    expect(pick([a, b], desc)).toBe("b");
    // Priority never overrides specificity.
    expect(
      pick(
        makeRules([
          { id: "any", match: [any("user")], priority: 100 },
          { id: "exact", match: [exact("user", "1")] },
        ]),
        desc,
      ),
    ).toBe("exact");
  });

  it("equally specific different patterns (glob, path) tie-break by priority then order", () => {
    const g = d(["k", "aXa"]);
    expect(
      pick(
        makeRules([
          { id: "x", match: [glob("k", "a*")] },
          { id: "y", match: [glob("k", "*a")] },
        ]),
        g,
      ),
    ).toBe("x");
    expect(
      pick(
        makeRules([
          { id: "x", match: [glob("k", "a*")] },
          { id: "y", match: [glob("k", "*a")], priority: 1 },
        ]),
        g,
      ),
    ).toBe("y");
    const p = d(["k", "/a/b"]);
    expect(
      pick(
        makeRules([
          { id: "x", match: [path("k", "/a/:p")] },
          { id: "y", match: [path("k", "/:q/b")] },
        ]),
        p,
      ),
    ).toBe("x");
    expect(
      pick(
        makeRules([
          { id: "x", match: [path("k", "/a/:p")], priority: -1 },
          { id: "y", match: [path("k", "/:q/b")] },
        ]),
        p,
      ),
    ).toBe("y");
  });

  it("a tie at one position is resolved by later positions before priority", () => {
    const rules = makeRules([
      { id: "x", match: [glob("k", "a*"), any("e")], priority: 9 },
      { id: "y", match: [glob("k", "*a"), exact("e", "1")] },
    ]);
    expect(pick(rules, d(["k", "aXa"], ["e", "1"]))).toBe("y");
  });
});

describe("structure", () => {
  it("finds domains, keys and exact values by content, whatever the strings' origin (built, literal, numeric)", () => {
    // The matcher keeps V8's internalized copy of each name (a lookup by identity when the caller's is one too);
    // strings built at run time, and integer-like names (which V8 keeps as element indices), match all the same.
    const built = (...parts: string[]) => parts.join("");
    const rules = makeRules([
      { id: "svc", domain: built("sv", "c-1"), match: [exact(built("us", "er"), built("4", "2"))] },
      { id: "num", domain: "123", match: [exact("7", "8"), any("endpoint")] },
    ]);
    const c = compileRules(rules);
    expect(c.match("svc-1", d(["user", "42"]))?.rule.id).toBe("svc");
    expect(c.match(built("svc", "-1"), d([built("u", "ser"), built("4", "2")]))?.rule.id).toBe("svc");
    expect(c.match(built("svc", "-1"), d(["user", "43"]))).toBeUndefined();
    expect(c.match(built("1", "23"), d([built("", "7"), "8"], ["endpoint", "/"]))?.rule.id).toBe("num");
    expect(c.match("123", d(["7", "8"], ["endpoint", "/"]))?.rule.id).toBe("num");
    expect(c.find("124", d(["7", "8"], ["endpoint", "/"]))).toBe(-1);
  });

  it("a descriptor with N entries matches only rules with exactly N entries", () => {
    const rules = makeRules([
      { id: "one", match: [any("user")] },
      { id: "two", match: [any("user"), any("endpoint")] },
      { id: "three", match: [any("user"), any("endpoint"), any("method")] },
    ]);
    expect(pick(rules, d(["user", "1"]))).toBe("one");
    expect(pick(rules, d(["user", "1"], ["endpoint", "/"]))).toBe("two");
    expect(pick(rules, d(["user", "1"], ["endpoint", "/"], ["method", "GET"]))).toBe("three");
    expect(pick(rules, d(["user", "1"], ["endpoint", "/"], ["method", "GET"], ["x", "y"]))).toBeUndefined();
    expect(pick(rules, [])).toBeUndefined();
    expect(pick(makeRules([{ id: "empty", match: [] }]), [])).toBe("empty");
  });

  it("entries match in order, keys must be equal", () => {
    const rules = makeRules([{ id: "r", match: [any("user"), any("endpoint")] }]);
    expect(pick(rules, d(["endpoint", "/"], ["user", "1"]))).toBeUndefined();
    expect(pick(rules, d(["user", "1"], ["path", "/"]))).toBeUndefined();
  });

  it("backtracks: a complete match down a less specific branch beats a dead end down a more specific one", () => {
    // envoyproxy/ratelimit would descend into user=42 (more specific), find no endpoint=/y below it, and stop.
    const rules = makeRules([
      { id: "vip-x", match: [exact("user", "42"), exact("endpoint", "/x")] },
      { id: "any-y", match: [prefix("user", "4"), path("endpoint", "/y")] },
      { id: "any-any", match: [any("user"), any("endpoint")] },
    ]);
    expect(pick(rules, d(["user", "42"], ["endpoint", "/x"]))).toBe("vip-x");
    expect(pick(rules, d(["user", "42"], ["endpoint", "/y"]))).toBe("any-y");
    expect(pick(rules, d(["user", "42"], ["endpoint", "/z"]))).toBe("any-any");
    expect(pick(rules, d(["user", "7"], ["endpoint", "/y"]))).toBe("any-any");
  });

  it("backtracks across every kind (prefix lengths, path and glob groups)", () => {
    const rules = makeRules([
      { id: "p-long", match: [prefix("k", "abc"), exact("e", "1")] },
      { id: "p-short", match: [prefix("k", "ab"), exact("e", "2")] },
      { id: "path", match: [path("k", "/:x"), exact("e", "3")] },
      { id: "glob", match: [glob("k", "*"), exact("e", "4")] },
    ]);
    expect(pick(rules, d(["k", "abcd"], ["e", "1"]))).toBe("p-long");
    expect(pick(rules, d(["k", "abcd"], ["e", "2"]))).toBe("p-short");
    expect(pick(rules, d(["k", "abcd"], ["e", "3"]))).toBe("path");
    expect(pick(rules, d(["k", "abcd"], ["e", "4"]))).toBe("glob");
    expect(pick(rules, d(["k", "abcd"], ["e", "5"]))).toBeUndefined();
  });

  it("isolates domains and lists them", () => {
    const rules = makeRules([
      { id: "a", domain: "api", match: [any("user")] },
      { id: "b", domain: "edge", match: [any("user")] },
      { id: "c", domain: "api", match: [exact("user", "1")] },
    ]);
    const c = compileRules(rules);
    expect(c.domains).toEqual(["api", "edge"]);
    expect(Object.isFrozen(c.domains)).toBe(true);
    expect(c.match("api", d(["user", "1"]))?.rule.id).toBe("c");
    expect(c.match("edge", d(["user", "1"]))?.rule.id).toBe("b");
    expect(c.match("other", d(["user", "1"]))).toBeUndefined();
    expect(compileRules([]).domains).toEqual([]);
  });
});

describe("counterKey and identity", () => {
  const key = (rules: Rule[], desc: Descriptor) => compileRules(rules).match("default", desc)?.counterKey;

  it("with one variable entry, is that entry's value itself: the very string passed", () => {
    const rules = makeRules([{ match: [any("user"), exact("endpoint", "/x")] }]);
    const value = ["4", "2"].join(""); // a string object of its own
    const got = key(rules, d(["user", value], ["endpoint", "/x"]));
    expect(got).toBe("42");
    expect(Object.is(got, value)).toBe(true);
  });

  it("with one variable entry, prepends % to the empty value and to values starting with %", () => {
    const rules = makeRules([{ match: [any("user")] }]);
    expect(key(rules, d(["user", ""]))).toBe("%");
    expect(key(rules, d(["user", "%"]))).toBe("%%");
    expect(key(rules, d(["user", "%41"]))).toBe("%%41");
    expect(key(rules, d(["user", "a%"]))).toBe("a%");
    expect(key(rules, d(["user", "a|b=c"]))).toBe("a|b=c");
  });

  it("with no variable entry, is the entries as key=value joined by | (one counter per rule)", () => {
    const rules = makeRules([{ match: [exact("tenant", "acme"), exact("endpoint", "/x")] }]);
    expect(key(rules, d(["tenant", "acme"], ["endpoint", "/x"]))).toBe("tenant=acme|endpoint=/x");
  });

  it("a shared entry contributes the pattern, so every matching value shares one counter", () => {
    const rules = makeRules([{ match: [any("user"), path("endpoint", "/api/v1/orders/*")] }]);
    expect(key(rules, d(["user", "1"], ["endpoint", "/api/v1/orders/7"]))).toBe("1");
    expect(key(rules, d(["user", "1"], ["endpoint", "/api/v1/orders/8/items"]))).toBe("1");
    const two = makeRules([{ match: [any("user"), any("ip"), path("endpoint", "/api/v1/orders/*")] }]);
    expect(key(two, d(["user", "1"], ["ip", "::1"], ["endpoint", "/api/v1/orders/7"]))).toBe(
      "user=1|ip=::1|endpoint=/api/v1/orders/*",
    );
    const shared = makeRules([
      { match: [glob("host", "*.example.com", true)] },
      { match: [prefix("ip", "10.", true)] },
      { match: [any("tenant", true)] },
    ]);
    expect(key(shared, d(["host", "a.example.com"]))).toBe("host=*.example.com");
    expect(key(shared, d(["ip", "10.1.2.3"]))).toBe("ip=10.*");
    expect(key(shared, d(["tenant", "acme"]))).toBe("tenant=*");
  });

  it("a non-shared entry counts each value apart; a non-shared path by its normalised path", () => {
    const rules = makeRules([
      { match: [path("endpoint", "/users/:id", false)] },
      { match: [glob("g", "a*")] },
      { match: [any("u"), path("endpoint", "/orders/:id", false)] },
    ]);
    expect(key(rules, d(["endpoint", "/users/1"]))).toBe("/users/1");
    expect(key(rules, d(["endpoint", "/users/1/?a=1"]))).toBe("/users/1");
    expect(key(rules, d(["endpoint", "//users//1"]))).toBe("/users/1");
    expect(key(rules, d(["g", "abc"]))).toBe("abc");
    expect(key(rules, d(["g", "abd"]))).toBe("abd");
    expect(key(rules, d(["u", "7"], ["endpoint", "/orders//1?x"]))).toBe("u=7|endpoint=/orders/1");
  });

  it("escapes |, = and % in joins so distinct descriptors never collide", () => {
    const rules = makeRules([
      { match: [any("a"), any("b")] },
      { match: [exact("a=b", "c")] },
      { match: [any("a"), any("b"), any("c")] },
    ]);
    expect(key(rules, d(["a", "x|b=y"], ["b", "z"]))).toBe("a=x%7Cb%3Dy|b=z");
    expect(key(rules, d(["a", "x"], ["b", "y|b=z"]))).toBe("a=x|b=y%7Cb%3Dz");
    expect(key(rules, d(["a=b", "c"]))).toBe("a%3Db=c");
    expect(key(rules, d(["a", "b=c"], ["b", ""]))).toBe("a=b%3Dc|b=");
    expect(key(rules, d(["a", "%7C"], ["b", "|"]))).toBe("a=%257C|b=%7C");
    expect(key(rules, d(["a", "plain"], ["b", "x"], ["c", "y"]))).toBe("a=plain|b=x|c=y");
  });

  it("never gives two descriptors of one rule the same key unless they share a counter", () => {
    const value = fc.string({ maxLength: 6, unit: fc.constantFrom("a", "%", "|", "=", "/", "?", "") });
    const rules = makeRules([
      { match: [any("u")] },
      { match: [any("u"), any("v")] },
      { match: [path("p", "/x/:id", false)] },
    ]);
    const compiled = compileRules(rules);
    fc.assert(
      fc.property(fc.tuple(value, value), fc.tuple(value, value), ([a1, a2], [b1, b2]) => {
        const k = (desc: Descriptor) => compiled.match("default", desc)?.counterKey;
        expect(k(d(["u", a1])) === k(d(["u", b1]))).toBe(a1 === b1);
        expect(k(d(["u", a1], ["v", a2])) === k(d(["u", b1], ["v", b2]))).toBe(a1 === b1 && a2 === b2);
        const pa = compiled.match("default", d(["p", `/x/a${a1}`]));
        const pb = compiled.match("default", d(["p", `/x/a${b1}`]));
        if (pa !== undefined && pb !== undefined) {
          const norm = (s: string) => `/${oracleSegments(s).join("/")}`;
          expect(pa.counterKey === pb.counterKey).toBe(norm(`/x/a${a1}`) === norm(`/x/a${b1}`));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("identity is identityKey:value of the identity entry (default: the first non-exact entry)", () => {
    const c = compileRules(
      makeRules([
        { id: "derived", match: [exact("tenant", "acme"), any("user"), any("endpoint")] },
        { id: "explicit", match: [any("user"), any("endpoint")], identityKey: "endpoint" },
        { id: "none", match: [exact("user", "1")] },
        { id: "missing", match: [any("ip")], identityKey: "user" },
      ]),
    );
    expect(c.match("default", d(["tenant", "acme"], ["user", "42"], ["endpoint", "/x"]))?.identity).toBe(
      "user:42",
    );
    expect(c.match("default", d(["user", "42"], ["endpoint", "/x"]))?.identity).toBe("endpoint:/x");
    expect(c.match("default", d(["user", "1"]))?.identity).toBeUndefined();
    expect(c.match("default", d(["ip", "1.2.3.4"]))?.identity).toBeUndefined();
  });
});

// -------------------------------------------------------------------------------------------------------------
// Brute force: an independent linear scan with the documented comparator, as tuples.

function oracleSegments(v: string): string[] {
  const q = v.indexOf("?");
  return (q === -1 ? v : v.slice(0, q)).split("/").filter((s) => s !== "");
}

function oraclePathMatch(pattern: string[], segs: string[]): boolean {
  if (pattern.length === 0) return segs.length === 0;
  const [p, ...rest] = pattern;
  if (p === "*" && rest.length === 0) return segs.length >= 1;
  if (segs.length === 0) return false;
  const one = p === "*" || (p.startsWith(":") && p.length > 1) || p === segs[0];
  return one && oraclePathMatch(rest, segs.slice(1));
}

function oracleMatch(p: ValuePattern, v: string): boolean {
  switch (p.kind) {
    case "any":
      return true;
    case "exact":
      return v === p.value;
    case "prefix":
      return v.startsWith(p.prefix);
    case "glob": {
      const re = new RegExp(
        `^${p.pattern
          .split("*")
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
        "s",
      );
      return re.test(v);
    }
    case "path":
      return oraclePathMatch(oracleSegments(p.pattern), oracleSegments(v));
  }
}

function oracleScore(p: ValuePattern): number[] {
  switch (p.kind) {
    case "exact":
      return [4, 0, 0, 0];
    case "prefix":
      return [3, p.prefix.length, 0, 0];
    case "path": {
      const segs = oracleSegments(p.pattern);
      const star = segs.length > 0 && segs[segs.length - 1] === "*";
      const params = segs.filter(
        (s, i) => (s === "*" && i < segs.length - 1) || (s.startsWith(":") && s.length > 1),
      ).length;
      const literals = segs.length - params - (star ? 1 : 0);
      return [2, literals, params, star ? 0 : 1];
    }
    case "glob":
      return [1, p.pattern.replaceAll("*", "").length, 0, 0];
    case "any":
      return [0, 0, 0, 0];
  }
}

/** > 0 when a beats b. */
function oracleCompare(a: { rule: Rule; index: number }, b: { rule: Rule; index: number }): number {
  for (let i = 0; i < a.rule.match.length; i++) {
    const sa = oracleScore(a.rule.match[i].value);
    const sb = oracleScore(b.rule.match[i].value);
    for (let j = 0; j < 4; j++) if (sa[j] !== sb[j]) return sa[j] - sb[j];
  }
  if (a.rule.priority !== b.rule.priority) return a.rule.priority - b.rule.priority;
  if (a.rule.order !== b.rule.order) return b.rule.order - a.rule.order;
  return b.index - a.index;
}

function oracleEscape(s: string): string {
  let out = "";
  for (const ch of s) out += ch === "%" ? "%25" : ch === "|" ? "%7C" : ch === "=" ? "%3D" : ch;
  return out;
}

function oracleKey(rule: Rule, desc: Descriptor): string {
  const variable = (m: Rule["match"][number]) => !m.shared && m.value.kind !== "exact";
  const texts = rule.match.map((m, i) => {
    const shared = m.shared && m.value.kind !== "exact";
    const v = m.value;
    return shared
      ? v.kind === "prefix"
        ? `${v.prefix}*`
        : v.kind === "any"
          ? "*"
          : v.kind === "exact"
            ? v.value
            : v.pattern
      : v.kind === "path"
        ? `/${oracleSegments(desc[i].value).join("/")}`
        : desc[i].value;
  });
  // One variable entry: its value as is ("%" prepended to "" and to values starting with "%").
  if (rule.match.filter(variable).length === 1) {
    const text = texts[rule.match.findIndex(variable)];
    return text === "" || text.startsWith("%") ? `%${text}` : text;
  }
  return rule.match.map((m, i) => `${oracleEscape(m.key)}=${oracleEscape(texts[i])}`).join("|");
}

function bruteForce(rules: readonly Rule[], domain: string, desc: Descriptor): Rule | undefined {
  let best: { rule: Rule; index: number } | undefined;
  rules.forEach((rule, index) => {
    if (rule.domain !== domain || rule.match.length !== desc.length) return;
    if (!rule.match.every((m, i) => m.key === desc[i].key && oracleMatch(m.value, desc[i].value))) return;
    const c = { rule, index };
    if (best === undefined || oracleCompare(c, best) > 0) best = c;
  });
  return best?.rule;
}

describe("path nodes with many literal children (looked up by hash)", () => {
  it("match as a linear scan does, hash collisions included", () => {
    // "Aa" and "BB" (and "AaAa", "BBBB", "AaBB") share a hash; more than 8 siblings take the hashed lookup.
    const names = ["Aa", "BB", "AaAa", "BBBB", "AaBB", ...Array.from({ length: 20 }, (_, i) => `r${i}`)];
    const patterns = [
      ...names.map((n) => `/api/${n}/:id`),
      ...names.slice(0, 6).map((n) => `/api/${n}/*`),
      "/api/:any",
      "/api/*",
    ];
    const rules = makeRules(patterns.map((p) => ({ match: [path("endpoint", p)] })));
    const compiled = compileRules(rules);
    const values = [];
    for (const n of [...names, "Ab", "BBB", "r20", "", "r1x"]) {
      for (const tail of ["", "/7", "/7/8", "//7?x=1", "?q", "/"])
        values.push(`/api/${n}${tail}`, `//api//${n}${tail}`);
    }
    let matched = 0;
    for (const v of values) {
      const desc = d(["endpoint", v]);
      const want = bruteForce(rules, "default", desc);
      expect(compiled.match("default", desc)?.rule.id, v).toBe(want?.id);
      if (want !== undefined) matched++;
    }
    expect(matched).toBeGreaterThan(values.length / 2);
  });

  it("find every child through the table's growth (children added one by one, past several doublings)", () => {
    // 2,000 siblings: the table grows from 16 to 4,096 places, and children are probed into it between growths.
    const names = Array.from({ length: 2000 }, (_, i) => (i % 3 === 0 ? `seg${i}` : `s${i}x`));
    const rules = makeRules(names.map((n) => ({ match: [path("endpoint", `/t/${n}/:id`)] })));
    const compiled = compileRules(rules);
    for (let i = 0; i < names.length; i++) {
      expect(compiled.match("default", d(["endpoint", `/t/${names[i]}/7`]))?.rule.id).toBe(rules[i].id);
    }
    expect(compiled.match("default", d(["endpoint", "/t/seg1/7"]))).toBeUndefined();
  });
});

describe("path literals told by their packed first four characters", () => {
  // A literal child is compared by length and its first four UTF-16 units packed in two integers; only longer
  // segments read the rest. Siblings alike in those four units, units of 0x8000 and more (negative when packed),
  // U+0000 (packed like a missing unit), and the hashed lookup of more than 8 siblings must all match as a scan does.
  const literals = [
    "item",
    "items",
    "itemsA",
    "itemsB",
    "itemz",
    "i",
    "\u0000",
    "\u0000\u0000",
    "\u8000\uffff",
    "\u8000\ufffe",
    "\uffff\uffff\uffff\uffffx",
    "\uffff\uffff\uffff\uffffy",
    "é",
    "ab\u0000",
    "ab",
  ];
  for (const [name, siblings] of [
    ["scanned (up to 8 siblings)", literals.slice(0, 8)],
    ["hashed (more than 8 siblings)", literals],
  ] as const) {
    it(`${name}: every value matches as a linear scan does`, () => {
      const rules = makeRules([
        ...siblings.map((n) => ({ match: [path("endpoint", `/v/${n}`)] })),
        ...siblings.slice(0, 3).map((n) => ({ match: [path("endpoint", `/v/${n}/:id`)] })),
        { match: [path("endpoint", "/v/:other/x")] },
      ]);
      const compiled = compileRules(rules);
      const values: string[] = [];
      for (const n of [...literals, "itemsC", "items\u0000", "\u8000", "\u8000\uffff\u0000", "itemsAB", ""]) {
        for (const tail of ["", "/7", "/x", "?q", "/7/8"]) values.push(`/v/${n}${tail}`);
      }
      let matched = 0;
      for (const v of values) {
        const desc = d(["endpoint", v]);
        const want = bruteForce(rules, "default", desc);
        expect(compiled.match("default", desc)?.rule.id, JSON.stringify(v)).toBe(want?.id);
        if (want !== undefined) matched++;
      }
      expect(matched).toBeGreaterThan(values.length / 3);
    });
  }
});

describe("property: match() agrees with a brute-force linear scan", () => {
  const char = fc.constantFrom("/", "/", "a", "b", "1", "?", "|", "=", "%");
  const value = fc.oneof(
    fc.array(char, { maxLength: 7 }).map((cs) => cs.join("")),
    fc
      .array(fc.constantFrom("a", "b", "1"), { maxLength: 4 })
      .chain((segs) => fc.constantFrom("", "/", "?x=1", "/?y").map((tail) => `/${segs.join("/")}${tail}`)),
  );
  const pattern: fc.Arbitrary<ValuePattern> = fc.oneof(
    value.map((v) => ({ kind: "exact", value: v }) as const),
    value.map((v) => ({ kind: "prefix", prefix: v.slice(0, 3) }) as const),
    fc
      .array(fc.constantFrom("a", "b", "/", "*", "1"), { maxLength: 6 })
      .map((cs) => ({ kind: "glob", pattern: cs.join("") }) as const),
    fc
      .array(fc.constantFrom("a", "b", "1", ":p", ":q", "*"), { maxLength: 4 })
      .chain((segs) =>
        fc.constantFrom("", "/").map((t) => ({ kind: "path", pattern: `/${segs.join("/")}${t}` }) as const),
      ),
    fc.constant({ kind: "any" } as const),
  );
  const keyName = fc.constantFrom("k", "e");
  const matcher = fc.record({ key: keyName, value: pattern, shared: fc.boolean() });
  const rule = fc.record({
    domain: fc.constantFrom("d1", "d2"),
    match: fc.array(matcher, { minLength: 0, maxLength: 3 }),
    priority: fc.integer({ min: 0, max: 2 }),
    order: fc.integer({ min: 0, max: 5 }),
  });
  const descriptor = fc.array(fc.record({ key: keyName, value }), { maxLength: 3 });

  it("picks the same rule, counter key and identity", () => {
    let matched = 0;
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.constantFrom("d1", "d2"), descriptor), { minLength: 1, maxLength: 30 }),
        (inputs, queries) => {
          const rules = inputs.map((r, i) =>
            makeRule({ id: `r${i}`, ...r, match: r.match.map((m) => entry(m.key, m.value, m.shared)) }),
          );
          const compiled = compileRules(rules);
          for (const [domain, desc] of queries) {
            const got = compiled.match(domain, desc);
            const want = bruteForce(rules, domain, desc);
            expect(got?.rule.id, JSON.stringify({ domain, desc })).toBe(want?.id);
            // find + matchAt answer the same, by position in the rules array.
            const at = compiled.find(domain, desc);
            expect(at === -1 ? undefined : rules[at]).toBe(got?.rule);
            if (at !== -1) expect(compiled.matchAt(at, desc)).toEqual(got);
            if (want !== undefined && got !== undefined) {
              matched++;
              expect(got.counterKey).toBe(oracleKey(want, desc));
              const idx =
                want.identityKey === undefined ? -1 : want.match.findIndex((m) => m.key === want.identityKey);
              // A path entry's identity is its normalised path, as its counter key.
              const value =
                idx !== -1 && want.match[idx].value.kind === "path"
                  ? `/${oracleSegments(desc[idx].value).join("/")}`
                  : desc[idx]?.value;
              expect(got.identity).toBe(idx === -1 ? undefined : `${want.identityKey}:${value}`);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(matched).toBeGreaterThan(200);
  });

  it("also when descriptors are drawn to hit the rules (built from their own patterns)", () => {
    // Queries derived from the rules' patterns make matches (and ties) frequent.
    const instantiate = (p: ValuePattern, filler: string): string => {
      switch (p.kind) {
        case "exact":
          return p.value;
        case "prefix":
          return p.prefix + filler;
        case "glob":
          return p.pattern.replaceAll("*", filler);
        case "path":
          return p.pattern.replaceAll(/:[a-z]+/g, filler || "x").replaceAll("*", `${filler || "y"}/z`);
        case "any":
          return filler;
      }
    };
    fc.assert(
      fc.property(
        fc.array(rule, { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("", "a", "b1", "/a", "?q")), {
          minLength: 1,
          maxLength: 20,
        }),
        (inputs, picks) => {
          const rules = inputs.map((r, i) =>
            makeRule({ id: `r${i}`, ...r, match: r.match.map((m) => entry(m.key, m.value, m.shared)) }),
          );
          const compiled = compileRules(rules);
          for (const [n, filler] of picks) {
            const source = rules[n % rules.length];
            const desc = source.match.map((m) => ({ key: m.key, value: instantiate(m.value, filler) }));
            const want = bruteForce(rules, source.domain, desc);
            const got = compiled.match(source.domain, desc);
            expect(got?.rule.id, JSON.stringify({ desc })).toBe(want?.id);
            if (want !== undefined) expect(got?.counterKey).toBe(oracleKey(want, desc));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("speed (printed, not asserted)", () => {
  it("matches a 2-entry descriptor among 1,000 rules and 20 path patterns", () => {
    const endpoints = Array.from({ length: 20 }, (_, j) =>
      j % 2 === 0 ? `/api/v1/resource${j}/*` : `/api/v1/resource${j}/:id/items/*`,
    );
    const inputs = [];
    for (let i = 0; i < 49; i++) {
      for (let j = 0; j < 20; j++)
        inputs.push({ match: [exact("tenant", `t${i}`), path("endpoint", endpoints[j])] });
    }
    for (let j = 0; j < 20; j++) inputs.push({ match: [any("tenant"), path("endpoint", endpoints[j])] });
    const rules = makeRules(inputs);
    expect(rules.length).toBe(1000);
    const compiled = compileRules(rules);
    const hit = d(["tenant", "t7"], ["endpoint", "/api/v1/resource13/42/items/9?page=2"]);
    const fallback = d(["tenant", "someone"], ["endpoint", "/api/v1/resource4/abc"]);
    const miss = d(["tenant", "t7"], ["endpoint", "/nothing/here"]);
    expect(compiled.match("default", hit)?.rule.id).toBe(`r${7 * 20 + 13}`);
    expect(compiled.match("default", fallback)?.rule.id).toBe(`r${49 * 20 + 4}`);
    expect(compiled.match("default", miss)).toBeUndefined();

    const N = 1_000_000;
    const results: string[] = [];
    for (const [name, desc] of [
      ["exact tenant + path", hit],
      ["any tenant + path", fallback],
      ["no match", miss],
    ] as const) {
      let sink = 0;
      for (let i = 0; i < 100_000; i++) sink += compiled.match("default", desc)?.counterKey.length ?? 0; // warm up
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i++) sink += compiled.match("default", desc)?.counterKey.length ?? 0;
      const ns = Number(process.hrtime.bigint() - t0) / N;
      results.push(`${name}: ${ns.toFixed(0)} ns/match`);
      expect(sink).toBeGreaterThanOrEqual(0);
    }
    console.log(`[matcher] 1,000 rules, 20 path patterns, 2-entry descriptor — ${results.join("; ")}`);
  });
});

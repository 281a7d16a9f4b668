import { describe, expect, it } from "vitest";
import { configFromValue } from "../../rules/load-config.js";
import { identityDescriptor } from "./identity-descriptor.js";

const config = configFromValue({
  rules: [
    { id: "alone", domain: "d", match: [{ key: "user" }], limits: [{ limit: 1, period: "1s" }] },
    {
      id: "with-exact",
      domain: "d",
      match: [{ key: "plan", value: "free" }, { key: "user" }, { key: "endpoint", value: "/search" }],
      limits: [{ limit: 1, period: "1s" }],
    },
    {
      id: "with-prefix",
      domain: "d",
      match: [{ key: "user" }, { key: "path", prefix: "/api/" }],
      limits: [{ limit: 1, period: "1s" }],
    },
  ],
});
const rule = (id: string) => config.rules.find((r) => r.id === id) as (typeof config.rules)[number];

describe("identity descriptor", () => {
  it("puts the identity's value at the identity entry and each exact pattern's value elsewhere", () => {
    expect(identityDescriptor(rule("alone"), "user:a:b")).toEqual({
      ok: true,
      descriptor: [{ key: "user", value: "a:b" }],
    });
    expect(identityDescriptor(rule("with-exact"), "user:42")).toEqual({
      ok: true,
      descriptor: [
        { key: "plan", value: "free" },
        { key: "user", value: "42" },
        { key: "endpoint", value: "/search" },
      ],
    });
  });

  it("explains why there is no single descriptor", () => {
    expect(identityDescriptor(rule("with-prefix"), "user:42")).toEqual({
      ok: false,
      reason:
        'the rule also matches the "path" entry by the prefix "/api/", so the counter depends on each request\'s path, not on the identity alone',
    });
    expect(identityDescriptor(rule("alone"), "team:1")).toEqual({
      ok: false,
      reason: 'rule "alone" identifies callers by "user", not "team"',
    });
  });
});

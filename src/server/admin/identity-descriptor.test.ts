import { describe, expect, it } from "vitest";
import { configFromValue } from "../../rules/load-config.js";
import { identityDescriptor, reachesIdentity } from "./identity-descriptor.js";

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
      id: "beta",
      domain: "d",
      match: [{ key: "user", prefix: "beta-" }],
      limits: [{ limit: 1, period: "1s" }],
    },
    {
      id: "network",
      domain: "d",
      match: [{ key: "addr", prefix: "10.", shared: true }],
      limits: [{ limit: 1, period: "1s" }],
    },
    { id: "vip", domain: "d", match: [{ key: "user", value: "42" }], limits: [{ limit: 1, period: "1s" }] },
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

  it("refuses an identity its identity entry's pattern does not match (it is counted elsewhere)", () => {
    expect(identityDescriptor(rule("beta"), "user:7")).toEqual({
      ok: false,
      reason: 'user:7 does not match the rule\'s "user" entry (the prefix "beta-")',
    });
    expect(identityDescriptor(rule("beta"), "user:beta-7")).toEqual({
      ok: true,
      descriptor: [{ key: "user", value: "beta-7" }],
    });
  });

  it("refuses an identity whose entry is shared: the counter is every matching value's, not the identity's", () => {
    expect(reachesIdentity(rule("network"), "addr:10.0.0.1")).toBe(true);
    expect(identityDescriptor(rule("network"), "addr:10.0.0.1")).toEqual({
      ok: false,
      reason:
        'the rule\'s "addr" entry (the prefix "10.") is shared: every matching addr counts one counter, not addr:10.0.0.1 alone',
    });
    // Not matched at all: that comes first.
    expect(identityDescriptor(rule("network"), "addr:192.168.0.1")).toEqual({
      ok: false,
      reason: 'addr:192.168.0.1 does not match the rule\'s "addr" entry (the prefix "10.")',
    });
  });

  it("reaches a rule without an identity entry only for the identity its exact pattern names", () => {
    expect(reachesIdentity(rule("vip"), "user:42")).toBe(true);
    expect(reachesIdentity(rule("vip"), "user:7")).toBe(false);
    expect(reachesIdentity(rule("alone"), "user:7")).toBe(true);
    expect(identityDescriptor(rule("vip"), "user:42")).toEqual({
      ok: true,
      descriptor: [{ key: "user", value: "42" }],
    });
    expect(identityDescriptor(rule("vip"), "user:7")).toMatchObject({ ok: false });
  });
});

// Every rejected native shape in test/fixtures/config, with the exact message a user sees (file:line: path: message).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/errors.js";
import { loadConfigFile, parseConfig } from "../../src/rules/load-config.js";

const dir = fileURLToPath(new URL("../fixtures/config/", import.meta.url));

const EXPECTED: Readonly<Record<string, readonly string[]>> = {
  "unknown-top-level-key.yaml": [
    "unknown-top-level-key.yaml:7: colour: unknown field; expected one of version, defaults, tiers, identities, rules, overrides",
  ],
  "lease-mode.yaml": [
    "lease-mode.yaml:7: rules[0].mode: lease (quota leased to each instance by a coordinator) is not available yet; use exact (counted in the store) or local (counted in this process)",
  ],
  "unknown-rule-key.yaml": [
    "unknown-rule-key.yaml:7: rules[0].behavior: unknown field; did you mean behaviour?",
  ],
  "duplicate-rule-ids.yaml": [
    'duplicate-rule-ids.yaml:8: rules[1].id: duplicate rule id "per-user"; first at rules[0].id (line 3)',
  ],
  "missing-limits.yaml": ["missing-limits.yaml:3: rules[0].limits: is required (or set unlimited: true)"],
  "unlimited-with-limits.yaml": [
    "unlimited-with-limits.yaml:7: rules[0].limits: must be left out when unlimited is true (the rule has no limits)",
  ],
  "bad-algorithm.yaml": [
    'bad-algorithm.yaml:8: rules[0].limits[0].algorithm: must be one of token_bucket, leaky_bucket, fixed_window, sliding_log, sliding_window, gcra, bucketed_window, concurrency, got "sliding_door"',
  ],
  "burst-on-fixed-window.yaml": [
    "burst-on-fixed-window.yaml:9: rules[0].limits[0].burst: applies only to token_bucket, leaky_bucket and gcra; fixed_window admits at most limit per period",
  ],
  "delay-with-fixed-window.yaml": [
    "delay-with-fixed-window.yaml:10: rules[0].limits[1].algorithm: behaviour delay spaces requests at the limit's rate, so it needs a rate algorithm (gcra, token_bucket or leaky_bucket); fixed_window has no rate to space them at",
  ],
  "dynamic-with-sliding-log.yaml": [
    "dynamic-with-sliding-log.yaml:8: rules[0].limits[1].algorithm: dynamic scales the limit, and sliding_log keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket",
  ],
  "dynamic-override-sliding-log.yaml": [
    'dynamic-override-sliding-log.yaml:10: overrides[0].limits[0].algorithm: dynamic (of rule "ingest") scales the limit, and sliding_log keeps a state sized by its limit, which cannot follow it; use sliding_window, fixed_window, bucketed_window, gcra, token_bucket or leaky_bucket',
  ],
  "static-only-not-boolean.yaml": [
    'static-only-not-boolean.yaml:11: overrides[0].staticOnly: must be true or false, got "yes"',
  ],
  "undeclared-tier.yaml": [
    'undeclared-tier.yaml:10: rules[0].tiers.gold: unknown tier "gold"; declared: free, premium',
  ],
  "unknown-replaces.yaml": ['unknown-replaces.yaml:11: rules[1].replaces[1]: unknown rule id "per-usr"'],
  "bad-expires-at.yaml": [
    'bad-expires-at.yaml:11: overrides[0].expiresAt: must be an ISO-8601 time with a timezone, such as "2026-12-01T00:00:00Z", got "2026-12-01 00:00"',
  ],
  "bad-path-pattern.yaml": [
    'bad-path-pattern.yaml:7: rules[0].match[1].path: must start with "/", got "api/v1/orders/*"',
  ],
  "two-value-kinds.yaml": [
    "two-value-kinds.yaml:7: rules[0].match[1]: give at most one of value, prefix, glob, path (found value and prefix)",
  ],
  "yaml-syntax-error.yaml": ["yaml-syntax-error.yaml:5: invalid YAML: Tabs are not allowed as indentation"],
  "duplicate-yaml-key.yaml": ["duplicate-yaml-key.yaml:7: invalid YAML: Map keys must be unique"],
  "negative-limit.yaml": ["negative-limit.yaml:7: rules[0].limits[0].limit: must be a finite number > 0"],
  "bad-duration.yaml": [
    'bad-duration.yaml:7: rules[0].limits[0].period: must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got "1 parsec"',
  ],
  "bad-max-delay.yaml": [
    'bad-max-delay.yaml:7: rules[0].maxDelay: must be a duration > 0 (milliseconds, or a string such as "1s", "1m", "1d"), got "forever"',
  ],
  "identity-undeclared-tier.yaml": [
    'identity-undeclared-tier.yaml:5: identities["user:7"]: unknown tier "platinum"; declared: free, premium',
  ],
  "override-unknown-rule.yaml": [
    'override-unknown-rule.yaml:8: overrides[0].rule: unknown rule id "per-usr"',
  ],
  "dynamic-out-of-range.yaml": [
    "dynamic-out-of-range.yaml:10: rules[0].dynamic.recentWeight: must be from 0 to 1, got 1.5",
    "dynamic-out-of-range.yaml:11: rules[0].dynamic.multiplier: must be > 0, got 0",
  ],
  "too-many-limits.yaml": [
    "too-many-limits.yaml:6: rules[0].limits: at most 7 limits may apply to one key, got 8",
  ],
  "delay-burst-overflow.yaml": [
    "delay-burst-overflow.yaml:9: rules[0].limits[0]: with behaviour delay, maxDelay 8640000000000 ms makes a shaping limit of burst 1000000000000 + 8640000000000 ms / 1e-9 ms per request, which is out of range (must be a finite number >= 1, got 8.640000000999999e+21); shorten maxDelay or lower the rate",
  ],
  "wrong-type.yaml": ['wrong-type.yaml:6: rules[0].limits[0].limit: must be a number, got "ten"'],
  "identity-not-in-match.yaml": [
    'identity-not-in-match.yaml:6: rules[0].identity: must be one of the match keys (user, endpoint), got "tenant"',
  ],
  "unsupported-version.yaml": ["unsupported-version.yaml:2: version: must be 1, got 2"],
  "empty.yaml": ["empty.yaml:1: must be a mapping, got null"],
  "every-error-at-once.yaml": [
    "every-error-at-once.yaml:7: rules[0].limits[0].limit: must be a finite number > 0",
    'every-error-at-once.yaml:8: rules[0].tiers.gold: unknown tier "gold"; declared: free',
    "every-error-at-once.yaml:9: rules[1].domain: is required",
    "every-error-at-once.yaml:10: rules[1].match[0]: give at most one of value, prefix, glob, path (found prefix and glob)",
    'every-error-at-once.yaml:11: rules[1].behaviour: must be one of reject, delay, shadow, got "slow"',
    'every-error-at-once.yaml:14: overrides[0].identity: must be key:value, such as user:42 or tenant:acme, got "nobody"',
  ],
};

function rejection(file: string): ConfigError {
  try {
    parseConfig(readFileSync(`${dir}${file}`, "utf8"), { source: file });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`${file} was accepted`);
}

describe("rejected native configurations (test/fixtures/config)", () => {
  it("has an expectation for every fixture, and at least 15 of them", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(files.length).toBeGreaterThanOrEqual(15);
  });

  for (const [file, lines] of Object.entries(EXPECTED)) {
    it(`${file}: ${lines[0].slice(file.length + 1)}`, () => {
      const error = rejection(file);
      expect(error.code).toBe("ERR_SLUICE_INVALID_CONFIG");
      expect(error.message).toBe(lines.join("\n"));
      expect(error.issues).toHaveLength(lines.length);
      for (const issue of error.issues) expect(issue.line).toBeGreaterThanOrEqual(1);
    });
  }

  it("loadConfigFile names the file as given, and reports an unreadable file", async () => {
    const path = `${dir}negative-limit.yaml`;
    await expect(loadConfigFile(path)).rejects.toThrow(
      `${path}:7: rules[0].limits[0].limit: must be a finite number > 0`,
    );
    await expect(loadConfigFile(`${dir}missing.yaml`)).rejects.toThrow(
      new RegExp(`^${dir}missing\\.yaml: cannot read the file \\(ENOENT: no such file or directory`),
    );
  });
});

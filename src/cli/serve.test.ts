import { describe, expect, it } from "vitest";
import { parseConfig } from "../rules/load-config.js";
import type { RunningService } from "../server/service.js";
import { parseServiceSettings } from "../server/service-settings.js";
import { exampleRequest, readyNote } from "./serve.js";

const CONFIG = parseConfig(`version: 1
rules:
  - id: by-path
    domain: api
    match: [{ key: user }, { key: endpoint, path: "/api/*" }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
  - id: banned
    domain: api
    match: [{ key: user, value: mallory }]
    blocked: true
  - id: per-user
    domain: api
    match: [{ key: user }, { key: plan, value: free }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
  - id: per-ip
    domain: edge
    match: [{ key: remote_address }]
    limits: [{ name: per-second, limit: 5, period: 1s }]
`);

function running(defaultDomain: string | undefined, host = "127.0.0.1"): RunningService {
  return {
    host,
    httpPort: 8080,
    grpcPort: 8081,
    defaultDomain,
    storeDescription: "memory, capacity 10 keys",
  } as unknown as RunningService;
}

describe("exampleRequest", () => {
  it("picks the first rule of the domain whose entries are all exact or any, not a blocked one", () => {
    expect(exampleRequest(CONFIG, "api")).toEqual({
      domain: "api",
      descriptors: [
        {
          entries: [
            { key: "user", value: "demo" },
            { key: "plan", value: "free" },
          ],
        },
      ],
    });
    expect(exampleRequest(CONFIG, "edge").descriptors[0].entries).toEqual([
      { key: "remote_address", value: "demo" },
    ]);
  });

  it("without a default domain, uses the first rule's domain", () => {
    expect(exampleRequest(CONFIG, undefined).domain).toBe("api");
  });
});

describe("readyNote", () => {
  const settings = parseServiceSettings({ config: "rules.yaml" }, {});

  it("says where each endpoint listens and gives commands to paste", () => {
    const note = readyNote(running(undefined), settings, CONFIG, "/nowhere");
    expect(note).toContain("HTTP  http://127.0.0.1:8080");
    expect(note).toContain("gRPC  127.0.0.1:8081");
    expect(note).toContain(
      `  curl -s http://127.0.0.1:8080/v1/check -H 'content-type: application/json' \\\n    -d '{"domain":"api",`,
    );
    expect(note).toContain("-H 'x-user-id: demo'");
    expect(note).toMatch(
      /grpcurl -plaintext -import-path \/\S+\/proto -proto sluice\/v1\/rate_limiter\.proto/,
    );
    expect(note).toContain("envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit");
    expect(note).toContain("in-flight requests get up to 10s to finish");
  });

  it("leaves the domain out of the check body when there is a default domain, and names loopback for 0.0.0.0", () => {
    const note = readyNote(running("api", "0.0.0.0"), settings, CONFIG);
    expect(note).toContain(`-d '{"descriptors":[`);
    expect(note).toContain("http://127.0.0.1:8080/v1/check");
    expect(note).toContain("-import-path proto -proto");
    expect(note).toContain("default api");
  });
});

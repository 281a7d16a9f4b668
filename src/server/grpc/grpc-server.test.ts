import { status } from "@grpc/grpc-js";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, type GrpcHarness, startGrpcHarness, unary } from "../../../test/support/grpc-harness.js";
import { heldChecks } from "../../../test/support/grpc-raw.js";
import { InvalidArgumentError, StoreTimeoutError, StoreUnavailableError } from "../../core/errors.js";
import type { Engine } from "../../engine/engine.js";
import { grpcErrorOf, MAX_STATUS_DETAILS } from "./grpc-call.js";

const YAML = `
version: 1
rules:
  - id: per-user
    domain: edge
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: fixed_window, limit: 3, period: 1h }]
`;

const REQUEST = { domain: "edge", descriptors: [{ entries: [{ key: "user", value: "a" }] }] };

/** An engine whose checks fail with `error` (thrown synchronously when `sync`). */
function failing(error: unknown, sync = false): (engine: Engine) => Engine {
  return (engine) =>
    new Proxy(engine, {
      get(target, prop, receiver) {
        if (prop === "check") {
          return () => {
            if (sync) throw error;
            return Promise.reject(error);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
}

let h: GrpcHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("grpcErrorOf", () => {
  const silent = { log: pino({ level: "silent" }) };

  it("maps bad input to INVALID_ARGUMENT with its message, clipped", () => {
    const e = grpcErrorOf(new InvalidArgumentError(`cost must be ${"x".repeat(5000)}`), silent, "t");
    expect(e.status.code).toBe(status.INVALID_ARGUMENT);
    expect(e.status.details.length).toBe(MAX_STATUS_DETAILS);
    expect(e.status.details.startsWith("cost must be")).toBe(true);
    expect(e.outcome).toBe("invalid");
  });

  it("maps store outages to UNAVAILABLE and anything else to a generic INTERNAL, logged", () => {
    expect(grpcErrorOf(new StoreUnavailableError("redis", "connection refused"), silent, "t")).toMatchObject({
      status: { code: status.UNAVAILABLE },
      outcome: "unavailable",
    });
    expect(grpcErrorOf(new StoreTimeoutError("redis", 50), silent, "t").status.code).toBe(status.UNAVAILABLE);
    const logged: unknown[] = [];
    const log = { error: (o: unknown) => logged.push(o) } as unknown as typeof silent.log;
    const e = grpcErrorOf(new TypeError("secret internals"), { log }, "t");
    expect(e.status).toEqual({ code: status.INTERNAL, details: "internal error" });
    expect(e.outcome).toBe("error");
    expect(logged).toHaveLength(1);
  });
});

describe("createGrpcServer", () => {
  it("answers UNAVAILABLE when the store is out and the failure escaped the engine", async () => {
    h = await startGrpcHarness({
      yaml: YAML,
      wrapEngine: failing(new StoreUnavailableError("redis", "down")),
    });
    const a = await unary(h.envoy, "ShouldRateLimit", REQUEST);
    expect(!a.ok && a.error.code).toBe(status.UNAVAILABLE);
    const b = await unary(h.sluice, "CheckRateLimit", { domain: "edge", identifier: "a", dimension: "user" });
    expect(!b.ok && b.error.code).toBe(status.UNAVAILABLE);
    expect(h.metrics.requests.map((r) => r.outcome)).toEqual(["unavailable", "unavailable"]);
    expect(h.ctx.gate.inflight).toBe(0);
  });

  it("answers INTERNAL for an unexpected error, thrown or rejected, and keeps serving", async () => {
    h = await startGrpcHarness({ yaml: YAML, wrapEngine: failing(new TypeError("boom"), true) });
    const a = await unary(h.envoy, "ShouldRateLimit", REQUEST);
    expect(!a.ok && [a.error.code, a.error.details]).toEqual([status.INTERNAL, "internal error"]);
    const batch = await call<{ results: { error?: { code: number; message: string } }[] }>(
      h.sluice,
      "CheckRateLimitBatch",
      { items: [{ domain: "edge", identifier: "a", dimension: "user" }] },
    );
    expect(batch.results[0].error).toMatchObject({ code: status.INTERNAL, message: "internal error" });
    expect(h.ctx.gate.inflight).toBe(0);
    const health = await call<{ status: number }>(h.health, "Check", { service: "" });
    expect(health.status).toBe(1);
  });

  it("listens on a free port (IPv4 and IPv6 loopback) and refuses calls after close", async () => {
    h = await startGrpcHarness({ yaml: YAML });
    const port6 = await h.server.listen("::1", 0);
    expect(port6).toBeGreaterThan(0);
    await call(h.envoy, "ShouldRateLimit", REQUEST);
    await h.server.close(1000);
    const a = await unary(h.envoy, "ShouldRateLimit", REQUEST, { deadline: new Date(Date.now() + 2000) }); // clock-lint: allow (grpc-js deadline)
    expect(a.ok).toBe(false);
  });

  it("refuses a message above maxMessageBytes before decoding it", async () => {
    h = await startGrpcHarness({ yaml: YAML, server: { maxMessageBytes: 1024 } });
    const big = { domain: "edge", descriptors: [{ entries: [{ key: "user", value: "v".repeat(2000) }] }] };
    const a = await unary(h.envoy, "ShouldRateLimit", big);
    expect(!a.ok && a.error.code).toBe(status.RESOURCE_EXHAUSTED);
    // Far beyond the flow control window: the answer comes while the client is still sending (node-http2 then
    // resets the stream with NO_ERROR), and the client still reports the status, with its message.
    const huge = {
      domain: "edge",
      descriptors: [{ entries: [{ key: "user", value: "v".repeat(1 << 20) }] }],
    };
    const b = await unary(h.envoy, "ShouldRateLimit", huge);
    expect(!b.ok && [b.error.code, b.error.details]).toEqual([
      status.RESOURCE_EXHAUSTED,
      expect.stringMatching(/^Received message larger than max \(\d+ vs 1024\)$/),
    ]);
    expect(h.engine.stats.checks).toBe(0);
    expect(await call(h.envoy, "ShouldRateLimit", REQUEST)).toMatchObject({ overall_code: 1 }); // serves on
  });

  it("refuses a receive budget that could not hold a message of the maximum size", async () => {
    await expect(
      startGrpcHarness({
        yaml: YAML,
        server: { maxMessageBytes: 1024 * 1024, maxReceiveBufferBytes: 1024 * 1024 },
      }),
    ).rejects.toThrow(
      /maxReceiveBufferBytes \(1048576\) must be at least maxMessageBytes \(1048576\) \+ 131072/,
    );
  });

  it("refuses an idle limit or a handshake deadline that is not a duration, naming the option", async () => {
    const cases: [object, RegExp][] = [
      [{ maxConnectionIdleMs: -1 }, /maxConnectionIdleMs must be a duration in ms, 0 for never, got -1/],
      [
        { maxConnectionIdleMs: Number.NaN },
        /maxConnectionIdleMs must be a duration in ms, 0 for never, got NaN/,
      ],
      [{ handshakeTimeoutMs: 0 }, /handshakeTimeoutMs must be a positive duration in ms, got 0/],
      [{ handshakeTimeoutMs: Number.NaN }, /handshakeTimeoutMs must be a positive duration in ms, got NaN/],
    ];
    for (const [server, message] of cases) {
      await expect(startGrpcHarness({ yaml: YAML, server })).rejects.toThrow(message);
    }
  });

  it("lets calls in flight finish within the close grace", async () => {
    const held = heldChecks();
    h = await startGrpcHarness({ yaml: YAML, wrapEngine: held.wrap });
    const pending = unary(h.envoy, "ShouldRateLimit", REQUEST);
    await held.started;
    const closed = h.server.close(30_000);
    let done = false;
    void closed.then(() => {
      done = true;
    });
    await vi.waitFor(() => expect(h?.ctx.gate.inflight).toBe(1));
    expect(done).toBe(false);
    held.release();
    const a = await pending;
    expect(a.ok).toBe(true);
    await closed;
  });
});

import { type ClientReadableStream, status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, type GrpcHarness, startGrpcHarness, unary } from "../../../test/support/grpc-harness.js";
import type { grpc as grpcPb } from "./gen/protos.js";
import { HealthState, MAX_HEALTH_WATCHERS } from "./health-service.js";
import { grpcHealthV1, RATE_LIMIT_SERVICE_NAME, RATE_LIMITER_SERVICE_NAME } from "./service-definitions.js";

type HealthResponse = grpcPb.health.v1.HealthCheckResponse;
const { ServingStatus } = grpcHealthV1.HealthCheckResponse;

const YAML = `
version: 1
rules:
  - id: r
    domain: d
    match: [{ key: k }]
    limits: [{ limit: 1, period: 1s }]
`;

let h: GrpcHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Opens a Watch stream and collects the statuses it receives, and whether it ended. */
function watch(g: GrpcHarness, service: string) {
  const seen: number[] = [];
  const state = { ended: false, error: undefined as number | undefined };
  const stream = (
    g.health as unknown as { Watch: (r: unknown) => ClientReadableStream<HealthResponse> }
  ).Watch({
    service,
  });
  stream.on("data", (m: HealthResponse) => seen.push(m.status));
  stream.on("end", () => {
    state.ended = true;
  });
  stream.on("error", (e: { code: number }) => {
    state.error = e.code;
  });
  return { seen, state, stream };
}

describe("grpc.health.v1", () => {
  it("answers Check for the server and each service, NOT_FOUND for others, and follows setServing", async () => {
    h = await startGrpcHarness({ yaml: YAML });
    for (const service of ["", RATE_LIMIT_SERVICE_NAME, RATE_LIMITER_SERVICE_NAME]) {
      const r = await call<HealthResponse>(h.health, "Check", { service });
      expect(r.status).toBe(ServingStatus.SERVING);
    }
    const unknown = await unary(h.health, "Check", { service: "no.such.Service" });
    expect(!unknown.ok && unknown.error.code).toBe(status.NOT_FOUND);
    h.server.setServing(false);
    expect((await call<HealthResponse>(h.health, "Check", { service: "" })).status).toBe(
      ServingStatus.NOT_SERVING,
    );
    h.server.setServing(true);
    expect((await call<HealthResponse>(h.health, "Check", { service: RATE_LIMIT_SERVICE_NAME })).status).toBe(
      ServingStatus.SERVING,
    );
  });

  it("answers health even when the in-flight gate is full", async () => {
    h = await startGrpcHarness({ yaml: YAML, gateMax: 1 });
    expect(h.ctx.gate.tryEnter()).toBe(true);
    try {
      expect((await call<HealthResponse>(h.health, "Check", { service: "" })).status).toBe(
        ServingStatus.SERVING,
      );
    } finally {
      h.ctx.gate.leave();
    }
  });

  it("streams the current status and every change on Watch, and ends the stream on close", async () => {
    h = await startGrpcHarness({ yaml: YAML, server: { serving: false } });
    const g = h;
    const w = watch(g, "");
    const other = watch(g, RATE_LIMITER_SERVICE_NAME);
    await vi.waitFor(() => expect(w.seen).toEqual([ServingStatus.NOT_SERVING]));
    g.server.setServing(true);
    await vi.waitFor(() => expect(w.seen).toEqual([ServingStatus.NOT_SERVING, ServingStatus.SERVING]));
    g.server.setServing(true); // no change, nothing sent
    g.server.setServing(false);
    await vi.waitFor(() =>
      expect(w.seen).toEqual([ServingStatus.NOT_SERVING, ServingStatus.SERVING, ServingStatus.NOT_SERVING]),
    );
    await vi.waitFor(() =>
      expect(other.seen).toEqual([
        ServingStatus.NOT_SERVING,
        ServingStatus.SERVING,
        ServingStatus.NOT_SERVING,
      ]),
    );
    await g.server.close(1000);
    await vi.waitFor(() => expect(w.state.ended).toBe(true));
    expect(w.state.error).toBeUndefined();
  });

  it("answers SERVICE_UNKNOWN on Watch of an unknown service and stops notifying a cancelled watcher", async () => {
    h = await startGrpcHarness({ yaml: YAML });
    const w = watch(h, "no.such.Service");
    await vi.waitFor(() => expect(w.seen).toEqual([ServingStatus.SERVICE_UNKNOWN]));
    const c = watch(h, "");
    await vi.waitFor(() => expect(c.seen).toEqual([ServingStatus.SERVING]));
    c.stream.cancel();
    await vi.waitFor(() => expect(c.state.error).toBe(status.CANCELLED));
    h.server.setServing(false);
    const probe = watch(h, "");
    await vi.waitFor(() => expect(probe.seen).toEqual([ServingStatus.NOT_SERVING]));
    expect(c.seen).toEqual([ServingStatus.SERVING]);
    probe.stream.cancel();
    w.stream.cancel();
  });
});

describe("HealthState", () => {
  it("caps the watchers and ends them all on close", () => {
    const state = new HealthState(["a"], true);
    let ended = 0;
    for (let i = 0; i < MAX_HEALTH_WATCHERS; i++) {
      expect(
        state.watch(
          "a",
          () => {},
          () => ended++,
        ),
      ).toBe(true);
    }
    expect(
      state.watch(
        "a",
        () => {},
        () => ended++,
      ),
    ).toBe(false);
    state.close();
    expect(ended).toBe(MAX_HEALTH_WATCHERS);
    expect(state.watchers).toBe(0);
    expect(
      state.watch(
        "a",
        () => {},
        () => {},
      ),
    ).toBe(false);
  });

  it("notifies only the watchers of a service whose status changed", () => {
    const state = new HealthState(["a"], false);
    const seen: number[] = [];
    state.watch(
      "a",
      (s) => seen.push(s),
      () => {},
    );
    state.setServing(false);
    state.setServing(true);
    expect(seen).toEqual([ServingStatus.SERVING]);
    expect(state.get("")).toBe(ServingStatus.SERVING);
    expect(state.get("b")).toBeUndefined();
  });
});

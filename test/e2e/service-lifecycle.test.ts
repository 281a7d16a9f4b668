// End to end: the lifecycle of the real `sluice serve` process — graceful shutdown with requests in flight, hot
// reload of an invalid then a fixed rules file as seen by /readyz, and overload shedding by the in-flight gate.
//
// Requests are held in flight deterministically by pausing the (private) Redis the service uses: `CLIENT PAUSE …
// WRITE` holds every store call (a script) until `CLIENT UNPAUSE`, and the service's `sluice_inflight_requests` gauge (on /metrics,
// which is never gated) says when they are all inside. No assertion depends on how long anything takes.
import { once } from "node:events";
import net from "node:net";
import { status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { type RedisProcess, sleep, startRedis } from "../support/redis-server.js";
import { respCall } from "../support/resp.js";
import { healthClient, sluiceClient, testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const rules = (limit: number): string => `version: 1
rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-hour, algorithm: token_bucket, limit: ${limit}, period: 1h }]
`;

const files = testDir("lifecycle");
let redis: RedisProcess;

beforeAll(async () => {
  await ensureDistBuilt();
  redis = await startRedis();
}, 180_000);

afterAll(async () => {
  if (redis) await respCall(redis.port, ["CLIENT", "UNPAUSE"]).catch(() => undefined);
  await redis?.stop();
  files.remove();
});

/** A service on the private Redis, with store and drain timeouts far beyond any pause of these tests. */
function startOnRedis(...extra: string[]): Promise<ServiceProcess> {
  return startServiceProcess([
    "--config",
    files.write(`rules-${extra.join("-") || "default"}.yaml`, rules(1000)),
    "--redis",
    redis.url,
    "--store-timeout",
    "60s",
    "--drain-timeout",
    "60s",
    ...extra,
  ]);
}

function check(svc: ServiceProcess, user: string): Promise<{ status: number; allowed?: boolean }> {
  return request(`${svc.httpUrl}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ identifier: user, dimension: "user" }),
  }).then(async (r) => {
    const body = (await r.body.json()) as { allowed?: boolean };
    return { status: r.statusCode, allowed: body.allowed };
  });
}

async function metric(svc: ServiceProcess, name: string): Promise<number> {
  const r = await request(`${svc.httpUrl}/metrics`);
  const line = (await r.body.text()).split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

/** Polls until `probe` is true (at most `tries` × 50 ms); returns its last answer. */
async function eventually(probe: () => Promise<boolean>, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probe()) return true;
    await sleep(50);
  }
  return probe();
}

/** Whether a new TCP connection to `port` is refused. */
async function refused(port: number): Promise<boolean> {
  const socket = net.connect({ port, host: "127.0.0.1" });
  try {
    await once(socket, "connect");
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ECONNREFUSED";
  } finally {
    socket.destroy();
  }
}

async function pauseRedis(): Promise<void> {
  // WRITE mode holds every script call (EVAL/EVALSHA) yet lets CLIENT UNPAUSE through (ALL would hold it too).
  await respCall(redis.port, ["CLIENT", "PAUSE", "120000", "WRITE"]);
}

async function unpauseRedis(): Promise<void> {
  await respCall(redis.port, ["CLIENT", "UNPAUSE"]);
}

describe("sluice serve lifecycle", () => {
  it("SIGTERM with requests in flight: they complete, new connections are refused, exit 0 after draining", async () => {
    const svc = await startOnRedis();
    const grpc = sluiceClient(svc.grpcAddress);
    const health = healthClient(svc.grpcAddress);
    try {
      expect((await check(svc, "warm")).allowed).toBe(true);
      await pauseRedis();
      const http = [check(svc, "u1"), check(svc, "u2"), check(svc, "u3")];
      const rpc = grpc.call<{ allowed: boolean }>(
        "CheckRateLimit",
        { identifier: "u4", dimension: "user" },
        120_000,
      );
      expect(await eventually(async () => (await metric(svc, "sluice_inflight_requests")) === 4)).toBe(true);

      svc.signal("SIGTERM");
      await svc.waitForLog((l) => l.msg === "shutting down: draining");
      // Both listeners close while the four requests are still held by the paused store.
      expect(await eventually(() => refused(svc.httpPort))).toBe(true);
      expect(await eventually(() => refused(svc.grpcPort))).toBe(true);
      let settled = false;
      void Promise.all([...http, rpc]).finally(() => {
        settled = true;
      });
      await sleep(100);
      expect(settled).toBe(false);

      await unpauseRedis();
      for (const r of await Promise.all(http)) expect(r).toEqual({ status: 200, allowed: true });
      expect((await rpc).allowed).toBe(true);
      expect(await svc.exited).toEqual({ code: 0, signal: null });
      expect(svc.logs.find((l) => l.msg === "stopped")).toMatchObject({ drained: true });
    } finally {
      await unpauseRedis();
      grpc.close();
      health.close();
      await svc.stop();
    }
  });

  it("past --drain-timeout, connections still busy are closed and the process exits 0, saying it did not drain", async () => {
    const svc = await startOnRedis("--drain-timeout", "300ms");
    try {
      expect((await check(svc, "warm")).allowed).toBe(true);
      await pauseRedis();
      const held = check(svc, "held").catch((e: Error) => e);
      expect(await eventually(async () => (await metric(svc, "sluice_inflight_requests")) === 1)).toBe(true);
      svc.signal("SIGTERM");
      // The store stays paused for as long as this test wants: the drain cannot finish by itself.
      expect(await svc.exited).toEqual({ code: 0, signal: null });
      expect(svc.logs.find((l) => l.msg === "stopped")).toMatchObject({ drained: false });
      expect(svc.logs.some((l) => l.msg.startsWith("drain timeout"))).toBe(true);
      expect(await held).toBeInstanceOf(Error); // its connection was closed unanswered
    } finally {
      await unpauseRedis();
      await svc.stop();
    }
  });

  it("a second signal exits at once (128 + signal), without waiting for the drain", async () => {
    const svc = await startOnRedis();
    try {
      expect((await check(svc, "warm")).allowed).toBe(true);
      await pauseRedis();
      const held = check(svc, "held").catch((e: Error) => e);
      expect(await eventually(async () => (await metric(svc, "sluice_inflight_requests")) === 1)).toBe(true);
      svc.signal("SIGTERM");
      await svc.waitForLog((l) => l.msg === "shutting down: draining");
      svc.signal("SIGINT");
      expect(await svc.exited).toEqual({ code: 130, signal: null });
      expect(svc.logs.some((l) => l.msg === "second signal: exiting without waiting")).toBe(true);
      expect(await held).toBeInstanceOf(Error);
    } finally {
      await unpauseRedis();
      await svc.stop();
    }
  });

  it("overload: with --max-inflight 1 and one request held, others are refused at once (503, RESOURCE_EXHAUSTED)", async () => {
    const svc = await startOnRedis("--max-inflight", "1");
    const grpc = sluiceClient(svc.grpcAddress);
    const health = healthClient(svc.grpcAddress);
    try {
      expect((await check(svc, "warm")).allowed).toBe(true);
      await pauseRedis();
      const held = check(svc, "holder");
      expect(await eventually(async () => (await metric(svc, "sluice_inflight_requests")) === 1)).toBe(true);

      const r = await request(`${svc.httpUrl}/v1/check`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ identifier: "other", dimension: "user" }),
      });
      expect(r.statusCode).toBe(503);
      expect(r.headers["content-type"]).toContain("application/problem+json");
      expect(r.headers["retry-after"]).toBe("1");
      await r.body.dump();
      const error = (await grpc
        .call("CheckRateLimit", { identifier: "other", dimension: "user" })
        .catch((e: ServiceError) => e)) as ServiceError;
      expect(error.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
      // Health and metrics are never gated.
      expect(await health.call<{ status: number }>("Check", { service: "" })).toMatchObject({ status: 1 });
      const text = await (await request(`${svc.httpUrl}/metrics`)).body.text();
      expect(text).toMatch(/sluice_requests_total\{[^}]*api="http_check"[^}]*code="overloaded"[^}]*\} 1/);
      expect(text).toMatch(/sluice_requests_total\{[^}]*api="grpc_check"[^}]*code="overloaded"[^}]*\} 1/);

      await unpauseRedis();
      expect(await held).toEqual({ status: 200, allowed: true });
    } finally {
      await unpauseRedis();
      grpc.close();
      health.close();
      await svc.stop();
    }
  });

  it("hot reload: an invalid rules file shows in /readyz as 503 with the error; a fixed one makes it 200 again", async () => {
    const file = files.write("reloaded.yaml", rules(2));
    const svc = await startServiceProcess(["--config", file]);
    const readyz = async (): Promise<{
      status: number;
      body: { checks: Record<string, { ok: boolean; detail?: string }> };
    }> => {
      const r = await request(`${svc.httpUrl}/readyz`);
      return {
        status: r.statusCode,
        body: (await r.body.json()) as { checks: Record<string, { ok: boolean; detail?: string }> },
      };
    };
    try {
      expect((await readyz()).status).toBe(200);
      files.write("reloaded.yaml", `${rules(2)}    behaviour: sometimes\n`);
      let r = await readyz();
      const until = async (status: number): Promise<boolean> => {
        r = await readyz();
        return r.status === status;
      };
      expect(await eventually(() => until(503))).toBe(true);
      expect(r.body.checks.config.ok).toBe(false);
      expect(r.body.checks.config.detail).toMatch(/reloaded\.yaml:7: rules\[0\]\.behaviour/);
      expect(r.body.checks.store.ok).toBe(true);
      // The previous rules stay in force: limit 2.
      expect((await check(svc, "x")).allowed).toBe(true);
      expect((await check(svc, "x")).allowed).toBe(true);
      expect((await check(svc, "x")).allowed).toBe(false);

      files.write("reloaded.yaml", rules(5));
      expect(await eventually(() => until(200))).toBe(true);
      // The admin API's version of the file: 1 as read at start, 2 for the fix (the refused edit had none).
      expect(r.body.checks.config).toMatchObject({ ok: true, detail: `version 2 from ${file}` });
      // The new limit applies to the same counter: 2 used of 5.
      expect((await check(svc, "x")).allowed).toBe(true);
      expect(svc.logs.some((l) => l.msg.startsWith("rules refused"))).toBe(true);
      expect(svc.logs.filter((l) => l.msg === "rules applied").map((l) => l.version)).toEqual([1, 2]);
    } finally {
      await svc.stop();
    }
  });
});

import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { connectionRefused, openRawConnection, type RawConnection } from "../../../test/support/raw-http.js";
import { createHttpServer, drainHttpServer, type Readiness } from "./http-server.js";
import { testServiceContext } from "./testing-http.js";

// Forward-auth requests of one address are shaped to 1 a second (waiting up to 10 s): the second is held in flight
// on the context's manual clock until a test advances it, which makes "a request in flight at SIGTERM" exact.
const CONFIG = `
version: 1
rules:
  - id: shaped
    domain: edge
    match: [{ key: remote_address }]
    behaviour: delay
    maxDelay: 10s
    limits: [{ name: per-second, algorithm: gcra, limit: 1, period: 1s, burst: 1 }]
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits: [{ name: per-minute, algorithm: fixed_window, limit: 100, period: 1m }]
`;

/** Longer than any test: the drains below end by themselves, or on the manual clock. */
const LONG_MS = 60_000;

const apps: FastifyInstance[] = [];
const connections: RawConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) c.destroy();
  while (apps.length > 0) await apps.pop()?.close();
});

const auth = (ip: string) => `GET /v1/auth HTTP/1.1\r\nHost: x\r\nX-Real-IP: ${ip}\r\n\r\n`;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const check = (id: string) => {
  const body = JSON.stringify({ identifier: id, dimension: "user" });
  return `POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};

/** Lets the event loop run until `condition` holds (bounded by the test's timeout). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setImmediate(r));
}

async function listening() {
  const t = testServiceContext(CONFIG);
  let readinessCalls = 0;
  // As the service's: not ready once the drain began.
  const readiness = async (): Promise<Readiness> => {
    readinessCalls++;
    return t.ctx.gate.draining
      ? { ready: false, checks: { shutdown: { ok: false, detail: "draining: shutting down" } } }
      : { ready: true, checks: {} };
  };
  const app = createHttpServer(t.ctx, { defaultDomain: "api", readiness, forwardAuth: { domain: "edge" } });
  apps.push(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const connect = async () => {
    const c = await openRawConnection(port);
    connections.push(c);
    return c;
  };
  const metric = async (line: string) => {
    const body = (await t.ctx.metrics.render()).body;
    const hit = body.split("\n").find((l) => l.startsWith(`${line} `));
    return hit === undefined ? 0 : Number(hit.slice(line.length + 1));
  };
  /** Sends two forward-auth requests of one address on `c`: the first is answered, the second held. */
  const holdOne = async (c: RawConnection, ip = "192.0.2.1") => {
    c.send(auth(ip));
    await c.waitForResponses(1);
    c.send(auth(ip));
    await until(() => t.ctx.gate.waiting === 1);
  };
  /** What SIGTERM does to this server: the gate drains, and so does the HTTP server. */
  const drain = (timeoutMs = LONG_MS, scheduler = t.clock) => {
    void t.ctx.gate.drain(LONG_MS);
    return drainHttpServer(app, timeoutMs, scheduler);
  };
  return { ...t, app, port, connect, metric, holdOne, drain, readinessCalls: () => readinessCalls };
}

describe("drainHttpServer", () => {
  it("answers requests pipelined during the drain behind one in flight, the last saying Connection: close", async () => {
    const { clock, connect, holdOne, drain, metric, readinessCalls } = await listening();
    const c = await connect();
    await holdOne(c);
    const drained = drain();
    c.send(get("/readyz") + auth("192.0.2.2"));
    // Both were read and answered (their answers queue behind the held one's).
    await until(
      async () =>
        readinessCalls() === 1 &&
        (await metric('sluice_requests_total{api="http_auth",code="unavailable"}')) === 1,
    );
    clock.advance(1000);
    const [first, held, readyz, refused] = await c.waitForResponses(4);
    expect(first?.headers.connection).toBe("keep-alive");
    // The held request's answer: later requests are owed answers on this connection, so it stays open for them.
    expect(held?.status).toBe(200);
    expect(held?.headers.connection).toBe("keep-alive");
    expect(readyz?.status).toBe(503);
    expect(JSON.parse(readyz?.body ?? "")).toMatchObject({
      status: "not_ready",
      checks: { shutdown: { ok: false, detail: "draining: shutting down" } },
    });
    expect(readyz?.headers.connection).toBe("keep-alive");
    expect(refused?.status).toBe(503);
    expect(refused?.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(refused?.headers["retry-after"]).toBe("1");
    expect(JSON.parse(refused?.body ?? "")).toMatchObject({
      status: 503,
      detail: "The service is shutting down; retry on another instance.",
    });
    expect(refused?.headers.connection).toBe("close");
    expect(await c.closed).toMatchObject({ byServer: true });
    expect(c.text().endsWith(refused?.body ?? "?")).toBe(true); // nothing after the last answer
    expect(await drained).toBe(true);
  });

  it("closes idle connections at once, refuses new ones, and ends a held request's connection after its answer", async () => {
    const { clock, port, connect, holdOne, drain } = await listening();
    const idle = await connect();
    idle.send(get("/healthz"));
    expect((await idle.waitForResponses(1))[0]?.headers.connection).toBe("keep-alive");
    const busy = await connect();
    await holdOne(busy);
    const drained = drain();
    expect(await idle.closed).toEqual({ byServer: true, errorCode: undefined });
    expect(idle.text().endsWith('{"status":"ok"}')).toBe(true); // no further bytes
    expect(await connectionRefused(port)).toBe(true);
    clock.advance(1000);
    const [, held] = await busy.waitForResponses(2);
    expect(held?.status).toBe(200);
    expect(held?.headers.connection).toBe("close");
    expect(await busy.closed).toMatchObject({ byServer: true });
    expect(await drained).toBe(true);
  });

  it("closes a connection whose last answer was written before the drain began, once that answer is out", async () => {
    const { clock, connect, holdOne, drain, metric } = await listening();
    const c = await connect();
    await holdOne(c);
    // Pipelined before the drain: answered at once, its answer (keep-alive) queued behind the held one.
    c.send(check("u"));
    await until(async () => (await metric('sluice_requests_total{api="http_check",code="ok"}')) === 1);
    const drained = drain();
    clock.advance(1000);
    const responses = await c.waitForResponses(3);
    expect(responses.map((r) => [r.status, r.headers.connection])).toEqual([
      [200, "keep-alive"],
      [200, "keep-alive"],
      [200, "keep-alive"],
    ]);
    // Nothing more is owed on it: closed now, not after the keep-alive timeout (72 s).
    expect(await c.closed).toMatchObject({ byServer: true });
    expect(await drained).toBe(true);
  });

  it("past its timeout, cuts the connections still open and resolves false", async () => {
    const { clock, connect, holdOne, drain } = await listening();
    const c = await connect();
    await holdOne(c);
    const drained = drain(500, clock);
    clock.advance(500); // the timeout, before the held request's delay (1 s) is over
    expect(await drained).toBe(false);
    expect(await c.closed).toMatchObject({ byServer: true });
    expect(c.text().split("HTTP/1.1 ").length - 1).toBe(1); // the held request got no answer
  });

  it("returns the same promise on every call, and refuses a server it did not make", async () => {
    const { app, drain } = await listening();
    const first = drain();
    expect(drainHttpServer(app, 0)).toBe(first);
    expect(await first).toBe(true);
    const { default: Fastify } = await import("fastify");
    expect(() => drainHttpServer(Fastify(), 0)).toThrow(/not made by createHttpServer/);
  });
});

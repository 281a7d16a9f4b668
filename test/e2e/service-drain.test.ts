// End to end: the HTTP side of `sluice serve`'s SIGTERM drain, over raw connections (node:net), which show what an
// HTTP client library hides: requests pipelined on one connection, each answer's `Connection` header, and when the
// server closes the connection.
//
// A request is held in flight by a forward-auth `delay` rule (one request per user every few seconds): the second
// request of a user waits out the rest of the period, and the drain must wait for it. The one assumption on time:
// SIGTERM and the pipelined requests reach the service within that wait (seconds, against milliseconds of work).
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDistBuilt } from "../support/dist-build.js";
import { connectionRefused, openRawConnection, type RawConnection } from "../support/raw-http.js";
import { testDir } from "../support/service-clients.js";
import { type ServiceProcess, startServiceProcess } from "../support/service-process.js";

const CONFIG = `version: 1
rules:
  - id: shaped
    domain: edge
    match: [{ key: user }]
    behaviour: delay
    maxDelay: 30s
    limits: [{ name: per-user, algorithm: gcra, limit: 1, period: 5s, burst: 1 }]
`;

const files = testDir("drain");

beforeAll(async () => {
  await ensureDistBuilt();
}, 180_000);

afterAll(() => files.remove());

const auth = (user: string) => `GET /v1/auth HTTP/1.1\r\nHost: x\r\nX-User-Id: ${user}\r\n\r\n`;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

async function metric(svc: ServiceProcess, name: string): Promise<number> {
  const r = await request(`${svc.httpUrl}/metrics`);
  const line = (await r.body.text()).split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}

/** Polls until `probe` is true (at most `tries` × 50 ms). */
async function eventually(probe: () => Promise<boolean>, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return probe();
}

describe("sluice serve: the HTTP drain on SIGTERM", () => {
  it("answers requests pipelined behind a delayed one in flight (503), the last answer saying Connection: close; idle connections close, new ones are refused", async () => {
    const svc = await startServiceProcess([
      "--config",
      files.write("rules.yaml", CONFIG),
      "--auth-domain",
      "edge",
      "--drain-timeout",
      "60s",
      "--no-admin",
    ]);
    const open: RawConnection[] = [];
    try {
      const idle = await openRawConnection(svc.httpPort);
      open.push(idle);
      idle.send(get("/healthz"));
      expect((await idle.waitForResponses(1))[0]?.headers.connection).toBe("keep-alive");

      const busy = await openRawConnection(svc.httpPort);
      open.push(busy);
      busy.send(auth("u"));
      expect((await busy.waitForResponses(1))[0]?.status).toBe(200);
      busy.send(auth("u")); // over the user's rate: waits out the rest of the period
      expect(await eventually(async () => (await metric(svc, "sluice_delayed_requests")) === 1)).toBe(true);

      svc.signal("SIGTERM");
      await svc.waitForLog((l) => l.msg === "shutting down: draining");
      busy.send(get("/readyz") + auth("z")); // pipelined behind the delayed request, during the drain

      // The idle connection is closed, with nothing sent on it; no new connection is taken.
      expect(await idle.closed).toEqual({ byServer: true, errorCode: undefined });
      expect(idle.text().endsWith('{"status":"ok"}')).toBe(true);
      expect(await connectionRefused(svc.httpPort)).toBe(true);

      const [, delayed, readyz, refused] = await busy.waitForResponses(4);
      // The delayed request finished; requests were owed answers behind it, so its connection stayed open for them.
      expect(delayed?.status).toBe(200);
      expect(delayed?.headers.connection).toBe("keep-alive");
      expect(readyz?.status).toBe(503);
      expect(JSON.parse(readyz?.body ?? "")).toMatchObject({
        status: "not_ready",
        checks: { shutdown: { ok: false, detail: expect.stringContaining("draining") } },
      });
      expect(readyz?.headers.connection).toBe("keep-alive");
      expect(refused?.status).toBe(503);
      expect(refused?.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(refused?.headers["retry-after"]).toBe("1");
      expect(JSON.parse(refused?.body ?? "")).toMatchObject({
        status: 503,
        detail: "The service is shutting down; retry on another instance.",
      });
      // The last answer says so, and the server closes the connection after it.
      expect(refused?.headers.connection).toBe("close");
      expect(await busy.closed).toMatchObject({ byServer: true });
      expect(busy.text().endsWith(refused?.body ?? "?")).toBe(true);

      expect(await svc.exited).toEqual({ code: 0, signal: null });
      expect(svc.logs.find((l) => l.msg === "stopped")).toMatchObject({ drained: true });
    } finally {
      for (const c of open) c.destroy();
      await svc.stop();
    }
  });

  it("ends the connection of a delayed request in flight with its answer, which says Connection: close", async () => {
    const svc = await startServiceProcess([
      "--config",
      files.write("rules-2.yaml", CONFIG),
      "--auth-domain",
      "edge",
      "--drain-timeout",
      "60s",
      "--no-admin",
    ]);
    const busy = await openRawConnection(svc.httpPort);
    try {
      busy.send(auth("u"));
      expect((await busy.waitForResponses(1))[0]?.status).toBe(200);
      busy.send(auth("u"));
      expect(await eventually(async () => (await metric(svc, "sluice_delayed_requests")) === 1)).toBe(true);
      svc.signal("SIGTERM");
      await svc.waitForLog((l) => l.msg === "shutting down: draining");
      const [, delayed] = await busy.waitForResponses(2);
      expect(delayed?.status).toBe(200);
      expect(delayed?.headers.connection).toBe("close");
      expect(await busy.closed).toMatchObject({ byServer: true });
      expect(await svc.exited).toEqual({ code: 0, signal: null });
      expect(svc.logs.find((l) => l.msg === "stopped")).toMatchObject({ drained: true });
    } finally {
      busy.destroy();
      await svc.stop();
    }
  });
});

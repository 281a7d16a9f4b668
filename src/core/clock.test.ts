import { once } from "node:events";
import { createConnection } from "node:net";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { systemScheduler } from "./clock.js";
import { ManualClock } from "./manual-clock.js";

/** Lets microtasks and due timers run (real time: a few ms). */
const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("Scheduler.timer", () => {
  it("systemScheduler: fires once, never synchronously; a cancelled timer never fires", async () => {
    const timer = systemScheduler.timer;
    expect(timer).toBeDefined();
    if (timer === undefined) return;
    const fired: string[] = [];
    timer(1, () => fired.push("a"));
    const cancel = timer(1, () => fired.push("b"));
    expect(fired).toEqual([]);
    cancel();
    cancel(); // idempotent
    await settle(30);
    expect(fired).toEqual(["a"]);
  });

  it("systemScheduler: a timer due during a stall fires after the I/O that arrived meanwhile", async () => {
    const timer = systemScheduler.timer;
    if (timer === undefined) throw new Error("systemScheduler.timer is missing");
    // A TCP echo server on a worker thread, which answers while this thread is blocked.
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(
      `const { workerData, parentPort } = require("node:worker_threads");
       const net = require("node:net");
       const s = workerData;
       const server = net.createServer((c) => c.on("data", (d) => c.write(d, () => {
         Atomics.store(s, 0, 1); Atomics.notify(s, 0);
       })));
       server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));`,
      { eval: true, workerData: signal },
    );
    try {
      const [port] = (await once(worker, "message")) as [number];
      const socket = createConnection(port, "127.0.0.1");
      await once(socket, "connect");
      const order: string[] = [];
      socket.on("data", () => order.push("answer"));
      timer(20, () => order.push("deadline"));
      socket.write("ping");
      // Stall this thread (no event loop) until the answer has been written, then past the 20 ms deadline.
      Atomics.wait(signal, 0, 0, 5000);
      Atomics.wait(signal, 1, 0, 60);
      await settle(30);
      expect(order).toEqual(["answer", "deadline"]);
      socket.destroy();
    } finally {
      await worker.terminate();
    }
  });

  it("ManualClock: fires on a microtask once the clock reaches it, counted in pendingSleeps until then", async () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.timer(50, () => fired.push("a"));
    const cancelB = clock.timer(50, () => fired.push("b"));
    const cancelC = clock.timer(80, () => fired.push("c"));
    expect(clock.pendingSleeps).toBe(3);
    clock.advance(49);
    await settle(0);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([]); // not synchronously within advance
    cancelB(); // cancelled after its time came but before it ran: it never runs
    await settle(0);
    expect(fired).toEqual(["a"]);
    expect(clock.pendingSleeps).toBe(1);
    cancelC();
    expect(clock.pendingSleeps).toBe(0);
    clock.advance(100);
    await settle(0);
    expect(fired).toEqual(["a"]);
    clock.timer(0, () => fired.push("now"));
    expect(fired).toEqual(["a"]);
    await settle(0);
    expect(fired).toEqual(["a", "now"]);
  });
});

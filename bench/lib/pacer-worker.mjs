// The open-loop pacer of bench/redis.mjs, run as a worker thread: call n of `total` is due at
// startMs + n * intervalMs (process.hrtime, shared by every thread of the process). The thread sleeps
// (Atomics.wait, a futex with a timeout) until the next call is due, at least `quantumMs`, then posts the
// number of calls due so far; the client's main thread issues them. So the client's event loop sleeps between
// arrivals as a server's does between requests, instead of spinning to pace the load itself — a spinning
// loop is always runnable, and on a shared CPU the kernel then runs it in slices of milliseconds, which shows
// up as latency that no server would see. Arrivals are grouped per wake-up (every `quantumMs` or so); the
// latency of each call is still measured from its own due time, so that grouping is counted, not hidden.
import { parentPort, workerData } from "node:worker_threads";

const { startMs, intervalMs, total, quantumMs } = workerData;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const cell = new Int32Array(new SharedArrayBuffer(4));
let posted = 0;
while (posted < total) {
  const now = nowMs();
  const due = Math.min(total, Math.floor((now - startMs) / intervalMs) + 1);
  if (due > posted) {
    parentPort.postMessage(due);
    posted = due;
  }
  const nextDueMs = startMs + posted * intervalMs;
  Atomics.wait(cell, 0, 0, Math.max(quantumMs, nextDueMs - nowMs()));
}

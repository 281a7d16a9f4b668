// The open-loop pacer of bench/redis.mjs, run as a worker thread of the client process, and the schedule both
// threads follow (`schedule`): call n is due at a fixed time, whatever happened to earlier calls — the rate rises
// linearly from 0 over the first `rampMs`, then stays at `perS` calls/s (ms on process.hrtime's clock,
// CLOCK_MONOTONIC, which every thread shares).
//
// The client's main thread issues every due call, in one synchronous loop, whenever it runs: when this thread
// posts to it, and after each answer it handles (as a server reads its sockets whenever it is awake). It
// publishes how many calls it has issued and how many have been answered (`shared[ISSUED]`,
// `shared[COMPLETED]`). This thread only wakes it when nothing else will soon: it sleeps (Atomics.wait, a futex
// with a timeout) until the first call not yet issued has been due for `idleLagMs` when no call is outstanding
// (the main thread is idle: nothing but this thread will wake it), or for `busyLagMs` while calls are
// outstanding (their answers will wake it; this bounds the wait should they be slow). Then it posts, at most one
// message unhandled at a time (`shared[POSTED]`, cleared by the main thread).
//
// Why not one message per due call, as this pacer first did: on this (virtualised, shared) machine a thread
// wake-up is dear, and every thread of the client shares the client's CPU. Measured here under load: ~20 µs of
// CPU per futex wake-up of this thread alone, ~35 µs per message with the main thread's wake-up (16 % of a CPU
// at 4.8 k messages/s) — and each message was its own event-loop turn. Each call's latency is still measured
// from its own due time, so a call that waits for the main thread to wake counts that wait.
import { parentPort, Worker, workerData } from "node:worker_threads";

/** Indices into the shared Int32Array: the futex word this thread sleeps on, calls issued, answered, posted. */
export const FUTEX = 0;
export const ISSUED = 1;
export const COMPLETED = 2;
export const POSTED = 3;
/** Length of the shared Int32Array. */
export const SHARED_LENGTH = 4;

/**
 * The arrival schedule from `startMs`: `dueAtMs(n)` is when call n (from 0) is due; `dueBy(t)` how many calls
 * are due at time t (those with dueAtMs(n) <= t). With a linear ramp over `rampMs`, n calls are due
 * sqrt(2 * rampMs * n / perMs) after the start while n < perMs * rampMs / 2, then at the full rate.
 */
export function schedule({ startMs, perS, rampMs }) {
  const perMs = perS / 1000;
  const rampCalls = (perMs * rampMs) / 2;
  const dueAtMs = (n) =>
    n < rampCalls
      ? startMs + Math.sqrt((2 * rampMs * n) / perMs)
      : startMs + rampMs + (n - rampCalls) / perMs;
  const dueBy = (t) => {
    const dt = t - startMs;
    if (dt < 0) return 0;
    if (dt < rampMs) return Math.min(Math.ceil(rampCalls), Math.floor((perMs * dt * dt) / (2 * rampMs)) + 1);
    return Math.floor(rampCalls + (dt - rampMs) * perMs) + 1;
  };
  return { dueAtMs, dueBy };
}

/**
 * Starts this module as the pacer thread of the calling (main) thread: `options` are the schedule
 * (`startMs`, `perS`, `rampMs`), `total` calls, the lags and the shared Int32Array. Each message it posts counts a
 * wake-up (`onWake`, after POSTED is cleared, so the pacer may post again), then the caller issues what is due.
 */
export function startPacer(options, onWake) {
  const pacer = new Worker(new URL(import.meta.url), { workerData: { pacer: true, ...options } });
  pacer.on("message", () => {
    Atomics.store(options.shared, POSTED, 0);
    onWake();
  });
  return pacer;
}

if (parentPort !== null && workerData?.pacer === true) {
  const { startMs, perS, rampMs, total, idleLagMs, busyLagMs, shared } = workerData;
  const { dueAtMs } = schedule({ startMs, perS, rampMs });
  const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
  for (;;) {
    const issued = Atomics.load(shared, ISSUED);
    if (issued >= total) break;
    const lag = Atomics.load(shared, COMPLETED) < issued ? busyLagMs : idleLagMs;
    const postAt = dueAtMs(issued) + lag;
    const now = nowMs();
    if (now < postAt) {
      Atomics.wait(shared, FUTEX, 0, postAt - now);
    } else {
      const posted = Atomics.compareExchange(shared, POSTED, 0, 1) === 0;
      if (posted) parentPort.postMessage(0);
      // The main thread is busy with an earlier message, or about to run: look again a lag later.
      Atomics.wait(shared, FUTEX, 0, posted ? idleLagMs : busyLagMs);
    }
  }
}

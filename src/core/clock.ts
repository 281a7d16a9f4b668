/**
 * Time in Sluice. Every reading of "now" goes through a {@link Clock}; nothing else in the code base may read
 * the wall clock (scripts/check-clock.mjs enforces it). Times are milliseconds since the Unix epoch and may
 * carry fractions; durations are milliseconds and carry `Ms` in their names.
 */

/** A source of the current time in milliseconds since the Unix epoch (fractions allowed). */
export interface Clock {
  /** The current time, in milliseconds since the Unix epoch. */
  nowMs(): number;
}

/**
 * The wall clock, `Date.now()`: whole milliseconds, aligned with UTC so fixed windows line up across processes.
 * It may step backwards when NTP corrects the system time; every algorithm treats that as no time passing.
 * (Measured here: `Date.now()` costs ~48 ns a call, `performance.timeOrigin + performance.now()` ~100 ns.)
 */
export const systemClock: Clock = Object.freeze({
  nowMs: (): number => Date.now(),
});

/** Cancels a {@link Scheduler.timer}: its callback will not run. Idempotent; a no-op once the timer has fired. */
export type CancelTimer = () => void;

/** Sleeps through an injectable scheduler, so waiting code can be tested without real time passing. */
export interface Scheduler {
  /** Resolves after `delayMs` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `callback` once, `delayMs` milliseconds from now (never synchronously), unless cancelled first.
   * Optional: for callers that arm and cancel a timer per call, where `sleep` with an `AbortSignal` is too dear
   * (aborting costs an `abort` event and a rejected promise: ~15 µs, against well under 1 µs for a cancelled
   * `setTimeout`). Callers fall back to `sleep` when a scheduler lacks it.
   *
   * {@link systemScheduler} runs the callback only after the event loop has read the I/O that is ready when the
   * delay has passed: a deadline that fell due while the process was stalled (a long GC pause, a busy CPU) must not
   * beat an answer that arrived meanwhile — Node runs due timers before it reads sockets.
   *
   * `dueAtMs`, when given, is when the delay was seen to have passed, before that read: on the scheduler's own
   * clock when it has `nowMs`, else on {@link monotonicClock}. The read covered what was ready then, so a caller
   * with deadlines that fell after it (the process busy in between) knows those have not had their read yet.
   */
  timer?(delayMs: number, callback: (dueAtMs?: number) => void): CancelTimer;
}

/** The real scheduler, backed by `setTimeout`. */
export const systemScheduler: Scheduler = Object.freeze({
  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, delayMs),
      );
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
  timer(delayMs: number, callback: (dueAtMs?: number) => void): CancelTimer {
    // setTimeout, then setImmediate: the check phase, which comes after the poll phase has read ready sockets.
    let immediate: NodeJS.Immediate | undefined;
    const timer = setTimeout(
      () => {
        const dueAtMs = performance.now(); // monotonicClock's time base
        immediate = setImmediate(callback, dueAtMs);
      },
      Math.max(0, delayMs),
    );
    return () => {
      clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  },
});

/**
 * A monotonic clock for measuring durations (latency histograms): milliseconds with sub-millisecond fractions
 * since an arbitrary origin, never stepping backwards. Not aligned with the epoch: never use it for limits.
 */
export const monotonicClock: Clock = Object.freeze({
  nowMs: (): number => performance.now(),
});

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
 * The process clock: `performance.timeOrigin + performance.now()`. It is monotonic within a process (it never
 * jumps back when NTP steps the system clock) and is aligned to the Unix epoch at process start, so fixed
 * windows line up with UTC boundaries across processes.
 */
export const systemClock: Clock = Object.freeze({
  nowMs: (): number => performance.timeOrigin + performance.now(),
});

/** Sleeps through an injectable scheduler, so waiting code can be tested without real time passing. */
export interface Scheduler {
  /** Resolves after `delayMs` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
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
});

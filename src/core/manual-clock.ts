import type { Clock, Scheduler } from "./clock.js";

interface Sleeper {
  readonly wakeAtMs: number;
  readonly resolve: () => void;
}

/**
 * A clock that moves only when told to, and a scheduler whose sleeps wake when the clock passes their time.
 * Tests use it instead of fake timers: `advance(ms)` moves time and wakes every sleeper that is due.
 */
export class ManualClock implements Clock, Scheduler {
  #nowMs: number;
  #sleepers: Sleeper[] = [];

  /** Starts the clock at `startMs` (default 0). */
  constructor(startMs = 0) {
    this.#nowMs = startMs;
  }

  /** The current manual time, in milliseconds. */
  nowMs(): number {
    return this.#nowMs;
  }

  /** Sets the time, backwards too (algorithms treat a backwards jump as no time passed). */
  set(nowMs: number): this {
    this.#nowMs = nowMs;
    this.#wake();
    return this;
  }

  /** Moves the time forward by `deltaMs`. */
  advance(deltaMs: number): this {
    return this.set(this.#nowMs + deltaMs);
  }

  /** Resolves once the clock has been moved to at least now + `delayMs`. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (delayMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = { wakeAtMs: this.#nowMs + delayMs, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** How many sleeps are waiting for the clock. */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  #wake(): void {
    const due = this.#sleepers.filter((s) => s.wakeAtMs <= this.#nowMs);
    if (due.length === 0) return;
    this.#sleepers = this.#sleepers.filter((s) => s.wakeAtMs > this.#nowMs);
    for (const s of due) s.resolve();
  }
}

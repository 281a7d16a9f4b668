import type { CancelTimer, Clock, Scheduler } from "./clock.js";

/** A sleep or a timer waiting for the clock: `resolve` runs when the clock reaches `wakeAtMs`. */
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

  /**
   * Calls `callback` once the clock has been moved to at least now + `delayMs` (on a microtask after that
   * `advance` / `set`, as a sleep's continuation would run), unless cancelled first; `delayMs` <= 0 fires on a
   * microtask. Counted in {@link ManualClock.pendingSleeps} until it fires or is cancelled.
   */
  timer(delayMs: number, callback: (dueAtMs?: number) => void): CancelTimer {
    let live = true;
    const fire = (): void => {
      const dueAtMs = this.#nowMs; // the time the clock was moved to
      queueMicrotask(() => {
        if (live) {
          live = false;
          callback(dueAtMs);
        }
      });
    };
    if (delayMs <= 0) {
      fire();
      return () => {
        live = false;
      };
    }
    const sleeper: Sleeper = { wakeAtMs: this.#nowMs + delayMs, resolve: fire };
    this.#sleepers.push(sleeper);
    return () => {
      live = false;
      this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
    };
  }

  /** How many sleeps and timers are waiting for the clock. */
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

/**
 * The in-flight gate shared by every API of the service (see `InflightGate` in service-context.ts): a counter
 * with a cap. `tryEnter` takes a slot or refuses at once, so overload is shed instead of queued; `drain` refuses
 * every later request and waits, on the injected scheduler, until the requests in flight have left.
 *
 * A second counter with its own cap holds the requests waiting out a delay (`tryWait` / `leaveWait`): a waiting
 * request holds a timer, not work, so it is counted there and not against `max`; the drain waits for both.
 *
 * Invariants: `0 <= inflight <= max`, `0 <= waiting <= maxWaiting`; a `leave` (`leaveWait`) without a matching
 * `tryEnter` (`tryWait`) is ignored rather than driving the count negative (a double release must not open an
 * extra slot).
 */
import { type Scheduler, systemScheduler } from "../core/clock.js";
import { InvalidArgumentError } from "../core/errors.js";
import type { InflightGate } from "./service-context.js";

/** The default cap on requests waiting out a delay ({@link InflightGate.maxWaiting}). */
export const DEFAULT_MAX_WAITING = 4096;

class Gate implements InflightGate {
  #inflight = 0;
  #waiting = 0;
  #draining = false;
  /** Resolvers of `drain` calls waiting for both counts to reach 0. */
  #idle: (() => void)[] = [];

  constructor(
    readonly max: number,
    readonly scheduler: Scheduler,
    readonly maxWaiting: number,
  ) {}

  get inflight(): number {
    return this.#inflight;
  }

  get waiting(): number {
    return this.#waiting;
  }

  get draining(): boolean {
    return this.#draining;
  }

  tryEnter(): boolean {
    if (this.#draining || this.#inflight >= this.max) return false;
    this.#inflight++;
    return true;
  }

  leave(): void {
    if (this.#inflight === 0) return;
    this.#inflight--;
    this.#wakeIfIdle();
  }

  tryWait(): boolean {
    if (this.#waiting >= this.maxWaiting) return false;
    this.#waiting++;
    return true;
  }

  leaveWait(): void {
    if (this.#waiting === 0) return;
    this.#waiting--;
    this.#wakeIfIdle();
  }

  #wakeIfIdle(): void {
    if (this.#inflight === 0 && this.#waiting === 0 && this.#idle.length > 0) {
      const waiting = this.#idle;
      this.#idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  async drain(timeoutMs: number): Promise<boolean> {
    this.#draining = true;
    if (this.#inflight === 0 && this.#waiting === 0) return true;
    const abort = new AbortController();
    let resolveIdle!: () => void;
    const idle = new Promise<true>((resolve) => {
      resolveIdle = () => resolve(true);
    });
    this.#idle.push(resolveIdle);
    const timeout = this.scheduler.sleep(Math.max(0, timeoutMs), abort.signal).then(
      () => false,
      () => false,
    );
    const drained = await Promise.race([idle, timeout]);
    abort.abort();
    this.#idle = this.#idle.filter((r) => r !== resolveIdle);
    return drained;
  }
}

/**
 * Creates an {@link InflightGate} admitting at most `max` requests at once (a whole number >= 1) and letting at most
 * `maxWaiting` wait out a delay (a whole number >= 0, default {@link DEFAULT_MAX_WAITING}); `drain` times out on
 * `scheduler` (default: the system scheduler).
 */
export function createInflightGate(
  max: number,
  scheduler: Scheduler = systemScheduler,
  maxWaiting: number = DEFAULT_MAX_WAITING,
): InflightGate {
  if (!Number.isInteger(max) || max < 1) {
    throw new InvalidArgumentError(`createInflightGate: max must be a whole number >= 1, got ${max}`);
  }
  if (!Number.isInteger(maxWaiting) || maxWaiting < 0) {
    throw new InvalidArgumentError(
      `createInflightGate: maxWaiting must be a whole number >= 0, got ${maxWaiting}`,
    );
  }
  return new Gate(max, scheduler, maxWaiting);
}

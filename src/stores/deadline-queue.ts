/**
 * Per-call timeouts for a store wrapper (resilient-store.ts): every call gets the same `timeoutMs`, so
 * deadlines fall in the order calls are issued, and one timer armed for the oldest unanswered call serves them all.
 *
 * Memory: a settled call is released at once (its `timeOut` closure, and its slot when it is the oldest), so the
 * queue holds about the calls in flight, not every call of the last `timeoutMs`.
 */
import { type CancelTimer, type Clock, monotonicClock, type Scheduler } from "../core/clock.js";

const noop = (): void => {};

/**
 * A call waiting for its answer or its deadline; the `CallTicket` the wrapper hands the store with it.
 *
 * `queued` is set by a store that holds calls in the process before sending them (`CallTicket.queued`). A call
 * that leaves such a queue once its deadline has passed is marked `leftLate`: its timeout, which runs after the
 * event loop has read the sockets (`Scheduler.timer`), may still come in the very turn it was sent, before the store
 * could have answered, so it counts as a call the store never had. The clock is read only then: when a store
 * takes a call out of its queue.
 */
export class PendingCall {
  /** Answered, failed or timed out: nothing more happens to it. */
  settled = false;
  /** Left the store's queue at or after its deadline (see the class comment). */
  leftLate = false;
  #queued: boolean | undefined = undefined;
  readonly #time: Clock;

  constructor(
    /** When it times out, on the queue's time base (ms). */
    readonly deadlineMs: number,
    /** Rejects the caller's promise with the timeout error; dropped (a no-op) once settled. */
    public timeOut: () => void,
    time: Clock,
  ) {
    this.#time = time;
  }

  /** Whether the store never had the call: still in its queue, or out of it only past the deadline. */
  get unsent(): boolean {
    return this.#queued === true || this.leftLate;
  }

  /** Still waiting in the store's own queue, in this process (see `CallTicket.queued`); undefined if never queued. */
  get queued(): boolean | undefined {
    return this.#queued;
  }

  set queued(queued: boolean | undefined) {
    if (queued === false && this.#queued === true && !this.settled && this.#time.nowMs() >= this.deadlineMs) {
      this.leftLate = true;
    }
    this.#queued = queued;
  }
}

/**
 * The deadlines of a store's calls, all `timeoutMs` long, so due in the order the calls were issued: a FIFO of
 * pending calls and at most one timer, armed for the oldest unsettled one. When it fires, that call and every
 * later one whose deadline has passed time out, and the timer is re-armed for the next unsettled call; when no
 * call is pending the timer is cancelled (nothing keeps a timer alive). Under a steady load with calls always
 * in flight that is one timer per `timeoutMs`, whatever the call rate; when the calls in flight often drop to
 * none (light load, or answers arriving in batches) it is one timer armed and cancelled per such lull, which
 * is why the timer is the scheduler's cheap {@link Scheduler.timer} when it has one (a `setTimeout` armed and
 * cleared: well under 1 µs) rather than a `sleep` aborted through an `AbortSignal` (~15 µs, more than the rest
 * of a Redis-backed check's own CPU).
 *
 * Time base: the scheduler's own time when it tells time (a `ManualClock` in tests), else the monotonic clock
 * (what `setTimeout` measures), never the wall clock, which may step. A timer is never longer than `timeoutMs`,
 * and the call it was armed for times out when it fires whatever the time base says, so a timer always ends
 * the wait of at least one call.
 */
export class DeadlineQueue {
  readonly #timeoutMs: number;
  readonly #scheduler: Scheduler;
  readonly #time: Clock;
  /**
   * Calls in issue order from `#head` (the slots before it are emptied). While a call is pending the head is the
   * oldest unsettled one; settled calls behind it are dropped as the head passes them.
   */
  #queue: (PendingCall | undefined)[] = [];
  #head = 0;
  /** Unsettled calls in the queue. */
  #pending = 0;
  /** Cancels the armed timer; undefined when none is armed. */
  #cancel: CancelTimer | undefined;

  constructor(timeoutMs: number, scheduler: Scheduler) {
    this.#timeoutMs = timeoutMs;
    this.#scheduler = scheduler;
    const tells = scheduler as Partial<Clock>;
    this.#time = typeof tells.nowMs === "function" ? (scheduler as Scheduler & Clock) : monotonicClock;
  }

  /** Calls the queue still holds a slot for (unsettled ones, and settled ones behind an older unsettled one). */
  get held(): number {
    return this.#queue.length - this.#head;
  }

  /** Calls registered and not yet settled. */
  get pending(): number {
    return this.#pending;
  }

  /** Registers a call issued now; `timeOut` runs once its deadline passes unless it is settled first. */
  add(timeOut: () => void): PendingCall {
    const call = new PendingCall(this.#time.nowMs() + this.#timeoutMs, timeOut, this.#time);
    this.#queue.push(call);
    this.#pending++;
    if (this.#cancel === undefined) this.#arm();
    return call;
  }

  /**
   * Marks `call` answered; returns false when it was already settled (timed out). What the queue keeps of a settled
   * call is released at once: its `timeOut` (whose closure holds the caller's promise, items and callbacks), and,
   * when it is the oldest (answers come in issue order on one connection), its slot with every settled one after
   * it. Under a load that never lets the calls in flight drop to none, the queue would otherwise hold every call
   * of the last `timeoutMs` until the timer fires: at 30 k calls/s and a 1 s timeout, 30 k callers' promises and
   * items, each living long enough to be promoted and leave the old generation's collector to free it.
   */
  settle(call: PendingCall): boolean {
    if (call.settled) return false;
    call.settled = true;
    call.timeOut = noop;
    if (--this.#pending === 0) {
      this.#queue = [];
      this.#head = 0;
      const cancel = this.#cancel;
      this.#cancel = undefined;
      cancel?.();
      return true;
    }
    if (this.#queue[this.#head] === call) this.#dropSettledHead();
    return true;
  }

  /**
   * Empties the slots of the settled calls at the head of the queue (compacting it now and then), so that the head
   * is again the oldest unsettled call: the queue's invariant whenever a call is pending. Called with a pending
   * call behind the head, so the walk stops inside the queue.
   */
  #dropSettledHead(): void {
    const q = this.#queue;
    let head = this.#head;
    do {
      q[head] = undefined;
      head++;
    } while ((q[head] as PendingCall).settled);
    if (head > 1024 && head * 2 > q.length) {
      this.#queue = q.slice(head);
      head = 0;
    }
    this.#head = head;
  }

  /** Arms the timer for the oldest unsettled call, the head (called only while a call is pending). */
  #arm(): void {
    const target = this.#queue[this.#head] as PendingCall;
    const delayMs = Math.min(this.#timeoutMs, Math.max(0, target.deadlineMs - this.#time.nowMs()));
    let cancel: CancelTimer;
    const fire = (dueAtMs?: number): void => {
      if (this.#cancel === cancel) {
        this.#cancel = undefined;
        this.#expire(target, dueAtMs);
      }
    };
    const scheduler = this.#scheduler;
    if (scheduler.timer !== undefined) cancel = scheduler.timer(delayMs, fire);
    else {
      // A scheduler with `sleep` only: the same timer, dearer to cancel.
      const abort = new AbortController();
      cancel = () => abort.abort();
      scheduler.sleep(delayMs, abort.signal).then(() => fire(), noop);
    }
    this.#cancel = cancel;
  }

  /**
   * Times out `target` and every unsettled call whose deadline had passed when the timer became due (`dueAtMs`, on
   * the queue's time base; now when unknown), then re-arms. A call whose deadline passed only after that, while the
   * process was busy, has not had its answer read since (the scheduler reads sockets between the two moments): it
   * waits for the next timer, armed at once, and so for the next read.
   */
  #expire(target: PendingCall, dueAtMs: number | undefined): void {
    const nowMs = this.#time.nowMs();
    const cutoffMs = dueAtMs === undefined ? nowMs : Math.min(nowMs, dueAtMs);
    for (;;) {
      const call = this.#queue[this.#head] as PendingCall; // the oldest unsettled call
      if (call !== target && call.deadlineMs > cutoffMs) break;
      const timeOut = call.timeOut; // settle drops it
      this.settle(call); // unsettled, so true; moves the head past it
      timeOut();
      if (this.#pending === 0) return; // settle emptied the queue
    }
    if (this.#cancel === undefined) this.#arm();
  }
}

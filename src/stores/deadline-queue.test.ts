import { describe, expect, it } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import { DeadlineQueue, type PendingCall } from "./deadline-queue.js";

const T0 = 1_700_000_000_000;

/** Lets the manual clock's due timers run (they fire on a microtask after `advance`). */
const fired = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A queue of `timeoutMs` on a manual clock, and the calls it timed out (by number, in order). */
function setup(timeoutMs = 1000) {
  const clock = new ManualClock(T0);
  const queue = new DeadlineQueue(timeoutMs, clock);
  const timedOut: number[] = [];
  const add = (n: number): PendingCall => queue.add(() => timedOut.push(n));
  return { clock, queue, timedOut, add };
}

describe("DeadlineQueue", () => {
  it("times out only the calls whose deadline had passed when the timer became due; later ones wait a read", () => {
    // A scheduler whose timer the test fires by hand, saying when it became due (as systemScheduler does before
    // the event loop reads its sockets).
    const clock = new ManualClock(T0);
    const fires: ((dueAtMs?: number) => void)[] = [];
    const scheduler = {
      nowMs: () => clock.nowMs(),
      sleep: () => Promise.resolve(),
      timer: (_delayMs: number, callback: (dueAtMs?: number) => void) => {
        fires.push(callback);
        return () => {};
      },
    };
    const queue = new DeadlineQueue(50, scheduler);
    const timedOut: string[] = [];
    queue.add(() => timedOut.push("a")); // due at T0 + 50
    clock.advance(5);
    const b = queue.add(() => timedOut.push("b")); // due at T0 + 55
    clock.advance(55); // T0 + 60: the timer became due at T0 + 50, then the process was busy for 10 ms
    fires.shift()?.(T0 + 50);
    expect(timedOut).toEqual(["a"]); // b's deadline passed after that: its answer may be in the socket, unread
    expect(fires).toHaveLength(1); // re-armed at once for b
    queue.settle(b); // the read found b's answer
    fires.shift()?.(T0 + 60);
    expect(timedOut).toEqual(["a"]);
    expect(queue.pending).toBe(0);
  });

  it("marks a call leftLate when a store takes it out of its queue once its deadline has passed", () => {
    const { clock, add } = setup(50);
    const early = add(0);
    const late = add(1);
    const never = add(2);
    early.queued = true;
    late.queued = true;
    clock.advance(49);
    early.queued = false; // left 1 ms before its deadline: the store had a chance
    clock.advance(1);
    late.queued = false; // left at its deadline
    never.queued = false; // was never queued: nothing to mark
    expect([early.leftLate, late.leftLate, never.leftLate]).toEqual([false, true, false]);
    expect([early.queued, late.queued, never.queued]).toEqual([false, false, false]);
  });

  it("holds about the calls in flight under a load that never drains, not every call of the timeout", async () => {
    const { clock, queue, timedOut, add } = setup(10_000);
    // 5,000 calls 1 ms apart (all inside one timeout), each answered after the next one is issued: one or two
    // are in flight at any time, never none, so the queue is never emptied by its last call settling.
    let previous = add(0);
    for (let n = 1; n < 5000; n++) {
      clock.advance(1);
      const call = add(n);
      expect(queue.settle(previous)).toBe(true);
      previous = call;
      expect(queue.pending).toBe(1);
      expect(queue.held).toBe(1);
    }
    await fired();
    expect(timedOut).toEqual([]);
    // The last one is never answered: it times out at its own deadline, and only it.
    clock.advance(9_999);
    await fired();
    expect(timedOut).toEqual([]);
    clock.advance(1);
    await fired();
    expect(timedOut).toEqual([4999]);
    expect(queue.pending).toBe(0);
    expect(queue.held).toBe(0);
  });

  it("keeps the slot of a call answered out of order until the older ones settle, and never times it out", async () => {
    const { clock, queue, timedOut, add } = setup(100);
    const a = add(0);
    clock.advance(10);
    const b = add(1);
    clock.advance(10);
    const c = add(2);
    expect(queue.settle(b)).toBe(true); // out of order: a is older and unsettled
    expect(queue.held).toBe(3);
    expect(queue.settle(b)).toBe(false);
    expect(queue.settle(a)).toBe(true); // the head moves past a and the settled b
    expect(queue.held).toBe(1);
    clock.advance(100);
    await fired();
    expect(timedOut).toEqual([2]);
    expect(queue.settle(c)).toBe(false); // timed out: a late answer is refused
  });

  it("times out every call past its deadline in issue order, after a compaction of the queue", async () => {
    const { clock, queue, timedOut, add } = setup(50);
    // 3,000 answered calls (past the compaction threshold), then 3 left unanswered, 1 ms apart.
    let previous = add(-1);
    for (let n = 0; n < 3000; n++) {
      const call = add(n);
      queue.settle(previous);
      previous = call;
    }
    queue.settle(previous);
    expect(queue.pending).toBe(0);
    add(1);
    clock.advance(1);
    const second = add(2);
    clock.advance(1);
    add(3);
    expect(queue.settle(second)).toBe(true);
    clock.advance(48);
    await fired();
    expect(timedOut).toEqual([1]);
    clock.advance(2);
    await fired();
    expect(timedOut).toEqual([1, 3]);
    expect(queue.pending).toBe(0);
  });

  it("drops a settled call's timeout callback at once", () => {
    const { queue, add } = setup(1000);
    add(0); // keeps the queue from emptying
    const call = add(1);
    const before = call.timeOut;
    expect(queue.settle(call)).toBe(true);
    expect(call.timeOut).not.toBe(before);
    expect(call.settled).toBe(true);
  });
});

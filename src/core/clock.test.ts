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

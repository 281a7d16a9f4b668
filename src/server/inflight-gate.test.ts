import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../core/errors.js";
import { ManualClock } from "../core/manual-clock.js";
import { createInflightGate } from "./inflight-gate.js";

describe("createInflightGate", () => {
  it("admits up to max at once and refuses beyond", () => {
    const gate = createInflightGate(2, new ManualClock());
    expect(gate.max).toBe(2);
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryEnter()).toBe(false);
    expect(gate.inflight).toBe(2);
    gate.leave();
    expect(gate.tryEnter()).toBe(true);
    expect(gate.inflight).toBe(2);
  });

  it("ignores a leave without an enter (never below 0, never an extra slot)", () => {
    const gate = createInflightGate(1, new ManualClock());
    gate.leave();
    expect(gate.inflight).toBe(0);
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryEnter()).toBe(false);
  });

  it("drains: refuses new requests and resolves true when in-flight reaches 0", async () => {
    const clock = new ManualClock();
    const gate = createInflightGate(4, clock);
    gate.tryEnter();
    gate.tryEnter();
    expect(gate.draining).toBe(false);
    let settled: boolean | undefined;
    const done = gate.drain(1000).then((v) => {
      settled = v;
    });
    expect(gate.tryEnter()).toBe(false);
    expect(gate.draining).toBe(true); // why it refused: draining, not the cap (2 of 4 in flight)
    gate.leave();
    await Promise.resolve();
    expect(settled).toBeUndefined();
    gate.leave();
    await done;
    expect(settled).toBe(true);
    expect(clock.pendingSleeps).toBe(0); // the timeout sleep was cancelled
  });

  it("drain resolves false after the timeout on the injected scheduler", async () => {
    const clock = new ManualClock();
    const gate = createInflightGate(4, clock);
    gate.tryEnter();
    let settled: boolean | undefined;
    const done = gate.drain(500).then((v) => {
      settled = v;
    });
    clock.advance(499);
    await Promise.resolve();
    expect(settled).toBeUndefined();
    clock.advance(1);
    await done;
    expect(settled).toBe(false);
    expect(gate.inflight).toBe(1);
    // Still draining: a later leave does not reopen the gate.
    gate.leave();
    expect(gate.tryEnter()).toBe(false);
  });

  it("drain of an idle gate resolves true at once", async () => {
    const clock = new ManualClock();
    const gate = createInflightGate(1, clock);
    await expect(gate.drain(0)).resolves.toBe(true);
    expect(gate.tryEnter()).toBe(false);
  });

  it("counts waiting requests apart from the in-flight cap, up to maxWaiting", () => {
    const gate = createInflightGate(1, new ManualClock(), 2);
    expect(gate.maxWaiting).toBe(2);
    // A request moves from work to waiting: its in-flight slot is free for another.
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryWait()).toBe(true);
    gate.leave();
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryWait()).toBe(true);
    gate.leave();
    expect([gate.inflight, gate.waiting]).toEqual([0, 2]);
    expect(gate.tryWait()).toBe(false);
    gate.leaveWait();
    expect(gate.tryWait()).toBe(true);
    // A leaveWait without a tryWait is ignored.
    gate.leaveWait();
    gate.leaveWait();
    gate.leaveWait();
    expect(gate.waiting).toBe(0);
    expect(createInflightGate(1, new ManualClock(), 0).tryWait()).toBe(false);
  });

  it("drains only once no request is in flight or waiting; a waiting one may still be taken while draining", async () => {
    const clock = new ManualClock();
    const gate = createInflightGate(4, clock, 4);
    gate.tryEnter();
    let settled: boolean | undefined;
    const done = gate.drain(1000).then((v) => {
      settled = v;
    });
    // The request in flight goes on to wait out its delay: allowed while draining, and the drain waits for it.
    expect(gate.tryWait()).toBe(true);
    gate.leave();
    await Promise.resolve();
    expect(settled).toBeUndefined();
    gate.leaveWait();
    await done;
    expect(settled).toBe(true);
  });

  it("rejects a cap that is not a whole number >= 1, and a waiting cap not >= 0", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createInflightGate(bad)).toThrow(InvalidArgumentError);
    }
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => createInflightGate(1, new ManualClock(), bad)).toThrow(InvalidArgumentError);
    }
  });
});

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../core/manual-clock.js";
import { type CheckResult, createEngine, type Engine } from "../../engine/engine.js";
import { configFromValue } from "../../rules/load-config.js";
import { createDecisionTally } from "./decision-tally.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

function setup(): { clock: ManualClock; engine: Engine } {
  const clock = new ManualClock(T0);
  const config = configFromValue({
    rules: [
      {
        id: "per-user",
        domain: "api",
        match: [{ key: "user" }],
        limits: [{ name: "per-second", algorithm: "fixed_window", limit: 2, period: "1s" }],
      },
      {
        id: "shadow-ip",
        domain: "api",
        match: [{ key: "ip" }],
        behaviour: "shadow",
        limits: [{ name: "per-second", algorithm: "fixed_window", limit: 1, period: "1s" }],
      },
      { id: "free", domain: "api", match: [{ key: "plan", value: "free" }], unlimited: true },
    ],
  });
  return { clock, engine: createEngine({ config, clock }) };
}

function check(engine: Engine, key: string, value: string): CheckResult {
  return engine.checkSync({ domain: "api", descriptors: [[{ key, value }]] });
}

describe("decision tally", () => {
  it("counts allowed, denied and shadow-denied descriptors per rule, with rates over the rate window", () => {
    const { clock, engine } = setup();
    const tally = createDecisionTally({ clock, windowMs: 10_000, rateWindowMs: 2_000 });
    for (let i = 0; i < 5; i++) tally.record("api", check(engine, "user", "42")); // 2 allowed, 3 denied
    for (let i = 0; i < 3; i++) tally.record("api", check(engine, "ip", "10.0.0.1")); // 1 allowed, 2 shadow
    tally.record("api", check(engine, "plan", "free")); // unlimited: allowed
    tally.record("api", check(engine, "nothing", "matches"));
    clock.advance(1_000);
    let s = tally.snapshot();
    expect(s.rules.map((r) => r.rule)).toEqual(["free", "per-user", "shadow-ip"]);
    const perUser = s.rules.find((r) => r.rule === "per-user");
    expect(perUser).toMatchObject({
      domain: "api",
      totals: { allowed: 2, denied: 3, shadow: 0 },
      allowedPerSec: 2, // 2 in the first second; the tally is 1 s old
      deniedPerSec: 3,
    });
    expect(s.rules.find((r) => r.rule === "shadow-ip")).toMatchObject({
      totals: { allowed: 1, denied: 0, shadow: 2 },
      shadowPerSec: 2,
    });
    expect(perUser?.series.allowed.slice(-2)).toEqual([2, 0]);
    // Rates divide by the time covered: the tally's age until it is older than the rate window.
    clock.advance(500);
    s = tally.snapshot();
    expect(s.rules.find((r) => r.rule === "per-user")).toMatchObject({
      allowedPerSec: 1.33,
      deniedPerSec: 2,
    });
    // The rate window is the current second and the one before: second 0 has left it at 2 s.
    clock.advance(500);
    expect(tally.snapshot().rules.find((r) => r.rule === "per-user")).toMatchObject({ allowedPerSec: 0 });
    // Beyond the window, rates and series are back to zero; totals stay.
    clock.advance(20_000);
    s = tally.snapshot();
    const later = s.rules.find((r) => r.rule === "per-user");
    expect(later).toMatchObject({ allowedPerSec: 0, deniedPerSec: 0, totals: { allowed: 2, denied: 3 } });
    expect(later?.series.allowed.every((v) => v === 0)).toBe(true);
    expect(later?.series.allowed).toHaveLength(10);
  });

  it("lists the most throttled identities and forgets them after two windows", () => {
    const { clock, engine } = setup();
    const tally = createDecisionTally({ clock, windowMs: 10_000, topK: 3 });
    const hit = (user: string, times: number) => {
      for (let i = 0; i < times; i++) tally.record("api", check(engine, "user", user));
    };
    hit("heavy", 12); // 10 denied
    hit("medium", 7); // 5 denied
    hit("light", 4); // 2 denied
    expect(tally.snapshot().topThrottled).toEqual([
      { identity: "user:heavy", count: 10, error: 0 },
      { identity: "user:medium", count: 5, error: 0 },
      { identity: "user:light", count: 2, error: 0 },
    ]);
    clock.advance(10_000); // a new generation: the previous one still counts
    expect(tally.snapshot().topThrottled[0]).toEqual({ identity: "user:heavy", count: 10, error: 0 });
    clock.advance(10_000);
    expect(tally.snapshot().topThrottled).toEqual([]);
  });

  it("keeps any identity denied more than N/K times in a stream of many distinct ones (space-saving)", () => {
    const { clock, engine } = setup();
    const k = 10;
    const tally = createDecisionTally({ clock, topK: k });
    // Exhaust user:hot, then interleave its denials with 300 one-off identities that are each denied once.
    for (let i = 0; i < 2; i++) check(engine, "user", "hot");
    let denials = 0;
    for (let i = 0; i < 300; i++) {
      for (let j = 0; j < 3; j++) tally.record("api", check(engine, "user", `cold-${i}`));
      denials += 1;
      if (i % 5 === 0) {
        tally.record("api", check(engine, "user", "hot"));
        denials++;
      }
    }
    const hot = 60;
    expect(hot).toBeGreaterThan(denials / k);
    const top = tally.snapshot().topThrottled;
    expect(top).toHaveLength(k);
    expect(top[0].identity).toBe("user:hot");
    expect(top[0].count - top[0].error).toBeLessThanOrEqual(hot);
    expect(top[0].count).toBeGreaterThanOrEqual(hot);
  });

  it("does not count replayed answers again and bounds the rules it tracks", () => {
    const { clock, engine } = setup();
    const tally = createDecisionTally({ clock, maxRules: 1 });
    const first = check(engine, "user", "a");
    tally.record("api", first);
    tally.record("api", { ...first, replayed: true });
    clock.advance(1_000);
    tally.record("api", check(engine, "ip", "1.1.1.1"));
    const s = tally.snapshot();
    expect(s.rules.map((r) => r.rule)).toEqual(["shadow-ip"]);
  });

  it("refuses bad options by name", () => {
    const clock = new ManualClock(T0);
    expect(() => createDecisionTally({ clock, windowMs: 1500 })).toThrow(
      /windowMs must be a whole number of seconds/,
    );
    expect(() => createDecisionTally({ clock, windowMs: 5000, rateWindowMs: 6000 })).toThrow(
      /rateWindowMs must be at most/,
    );
    expect(() => createDecisionTally({ clock, topK: 0 })).toThrow(/topK must be a whole number/);
  });
});

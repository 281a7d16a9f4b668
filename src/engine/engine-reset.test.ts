import { describe, expect, it } from "vitest";
import { parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import type { Descriptor } from "../rules/rule.js";
import { any, makeConfig, makeRule } from "../rules/testing-rules.js";
import { MemoryStore } from "../stores/memory/memory-store.js";
import { createEngine } from "./engine.js";

const T0 = 1_700_000_000_000;
const user = (id: string): Descriptor => [{ key: "user", value: id }];

function setup() {
  const clock = new ManualClock(T0);
  const config = makeConfig({
    rules: [
      makeRule({
        id: "per-user",
        domain: "api",
        match: [any("user")],
        limits: [parseLimitSpec({ limit: 2, periodMs: 60_000, algorithm: "fixed_window" })],
      }),
    ],
  });
  const engine = createEngine({ config, store: new MemoryStore({ capacity: 100 }), clock, scheduler: clock });
  return { clock, engine };
}

describe("engine.reset", () => {
  it("forgets the matched counters so the identity starts fresh, leaving others alone", async () => {
    const { engine } = setup();
    for (const id of ["a", "a", "b", "b"]) engine.checkSync({ domain: "api", descriptors: [user(id)] });
    expect(engine.checkSync({ domain: "api", descriptors: [user("a")] }).allowed).toBe(false);
    const r = await engine.reset({ domain: "api", descriptors: [user("a")] });
    expect(r.counters).toBe(1);
    const after = engine.checkSync({ domain: "api", descriptors: [user("a")] });
    expect(after.allowed).toBe(true);
    expect(after.decision.remaining).toBe(1);
    expect(engine.checkSync({ domain: "api", descriptors: [user("b")] }).allowed).toBe(false);
  });

  it("says, per descriptor, which rule's counter it forgot", async () => {
    const { engine } = setup();
    const r = await engine.reset({ domain: "api", descriptors: [[{ key: "ip", value: "1" }], user("a")] });
    expect(r.counters).toBe(1);
    expect(r.descriptors.map((d) => [d.rule?.id, d.counters])).toEqual([
      [undefined, 0],
      ["per-user", 1],
    ]);
  });

  it("counts nothing for descriptors that match no rule", async () => {
    const { engine } = setup();
    const r = await engine.reset({ domain: "api", descriptors: [[{ key: "ip", value: "1.2.3.4" }]] });
    expect(r.counters).toBe(0);
    expect((await engine.reset({ domain: "other", descriptors: [user("a")] })).counters).toBe(0);
  });

  it("rejects a malformed request naming the field", async () => {
    const { engine } = setup();
    await expect(engine.reset({ domain: "", descriptors: [] })).rejects.toThrow(/domain/);
    await expect(
      engine.reset({ domain: "api", descriptors: "x" as unknown as Descriptor[] }),
    ).rejects.toThrow(/descriptors/);
    for (const nowMs of [-1, 4_102_444_800_001]) {
      await expect(engine.reset({ domain: "api", descriptors: [user("a")], nowMs })).rejects.toMatchObject({
        code: "ERR_SLUICE_INVALID_ARGUMENT",
        message: expect.stringMatching(/^reset: nowMs must be epoch milliseconds from 0 to 4102444800000/),
      });
    }
  });
});

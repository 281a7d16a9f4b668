import { createHook } from "node:async_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { pinTickObjectShape } from "./tick-shape.js";

/** The next tick object `nextTick` builds, seen through an init hook. */
function nextTickObject(): object {
  let seen: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === "TickObject") seen ??= resource as object;
    },
  }).enable();
  process.nextTick(() => {});
  hook.disable();
  return seen as object;
}

describe("pinTickObjectShape", () => {
  it("holds one tick object, the same on every call, and leaves no hook enabled", async () => {
    const pinned = pinTickObjectShape();
    expect(pinned).toBeDefined();
    expect(typeof (pinned as { callback?: unknown }).callback).toBe("function");
    expect(pinTickObjectShape()).toBe(pinned);
    // No hook left behind: a nextTick now reaches no init hook of ours (the callback still runs).
    let ran = false;
    process.nextTick(() => {
      ran = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(true);
  });

  it("keeps new tick objects on the pinned object's map across full GCs", async () => {
    setFlagsFromString("--expose-gc");
    setFlagsFromString("--allow-natives-syntax");
    const gc = runInNewContext("gc") as () => void;
    const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
    const pinned = pinTickObjectShape() as object;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setImmediate(r));
      gc();
    }
    expect(sameMap(pinned, nextTickObject())).toBe(true);
  });
});

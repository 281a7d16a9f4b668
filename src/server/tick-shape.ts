/**
 * Keeps `process.nextTick` on its fast path for the life of the process.
 *
 * **Why.** Node 20's `nextTick` builds each tick object with one literal (`{ [async_id_symbol]: …,
 * [trigger_async_id_symbol]: …, callback, args }`), whose property stores V8 caches by the object's hidden classes
 * (maps). Those maps are reachable only from the objects that have them: a full (mark-compact) GC that runs while no
 * tick object is alive clears them, and the next `nextTick` makes new ones, which the cache counts as more shapes.
 * After about three such GCs the cache gives up (megamorphic) and every tick object is built in the runtime:
 * measured here at ~190 ns a `nextTick` instead of ~25 ns, for good. `node:http` calls `nextTick` about nine times a
 * request, so a process that had two mark-compacts while starting (the memory store's preallocation makes that
 * likely: 4 starts of 8 with the default capacity) served each `/v1/auth` ~3 µs dearer than one that had one.
 *
 * **How.** {@link pinTickObjectShape} keeps one tick object alive (taken from an `async_hooks` init hook enabled
 * around a single `nextTick`, then disabled): its map, and with it the whole chain of maps the literal goes
 * through, can then never be cleared, so the cache sees one shape forever. Nothing else changes: no hook stays
 * enabled, and the object is one small record whose callback has already run.
 */
import { createHook } from "node:async_hooks";

let pinned: object | undefined;

/**
 * Pins the shape of `nextTick`'s tick objects (see the module comment); idempotent. Returns the tick object held,
 * or undefined on a runtime whose `nextTick` reports no `TickObject` to init hooks.
 */
export function pinTickObjectShape(): object | undefined {
  if (pinned !== undefined) return pinned;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === "TickObject" && pinned === undefined) pinned = resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return pinned;
}

function noop(): void {}

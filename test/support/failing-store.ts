/**
 * A shared store whose every call fails, as a Redis refusing connections does: what tests of the failure policies
 * (`fail_open`, `fail_closed`, `fallback`) put behind the engine or the service.
 */
import type { Decision } from "../../src/core/decision.js";
import { StoreUnavailableError } from "../../src/core/errors.js";
import type { Store } from "../../src/stores/store.js";

/** A store named `down` whose `apply` always rejects with `StoreUnavailableError` (connection refused). */
export function failingStore(): Store {
  return {
    name: "down",
    shared: true,
    apply: (): Promise<Decision[]> => Promise.reject(new StoreUnavailableError("down", "connection refused")),
    release: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

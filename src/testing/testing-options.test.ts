import { describe, expect, it } from "vitest";
import { memoryStore } from "../stores/memory/memory-store.js";
import { replayTrace, runStoreConformance } from "./conformance.js";
import { randomTrace, traces } from "./traces.js";

const invalid = (message: string) =>
  expect.objectContaining({ code: "ERR_SLUICE_INVALID_ARGUMENT", message });

describe("sluice/testing options", () => {
  it("runStoreConformance refuses an unknown option, and one of a skip, registering nothing", () => {
    const registered: string[] = [];
    const test = { describe: (name: string) => registered.push(name), it: () => undefined } as never;
    const createStore = () => memoryStore();
    expect(() => runStoreConformance({ name: "m", createStore, test, shareStores: true } as never)).toThrow(
      invalid('runStoreConformance: unknown option "shareStores"; did you mean "shareStore"?'),
    );
    expect(() =>
      runStoreConformance({ name: "m", createStore, test, skip: [{ reason: "r", test: [] }] } as never),
    ).toThrow(invalid('runStoreConformance: unknown option "skip[0].test"; did you mean "skip[0].tests"?'));
    expect(registered).toEqual([]);
  });

  it("replayTrace and randomTrace refuse an unknown option", async () => {
    await expect(replayTrace(memoryStore(), traces[0], { compre: false } as never)).rejects.toEqual(
      invalid('replayTrace: unknown option "compre"; did you mean "compare"?'),
    );
    expect(() =>
      randomTrace([{ algorithm: "gcra", limit: 5, periodMs: 1000 }], { seed: 1, step: 10 } as never),
    ).toThrow(invalid('randomTrace: unknown option "step"; did you mean "steps"?'));
  });
});

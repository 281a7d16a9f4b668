import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../core/manual-clock.js";
import { loadConfigFile } from "../rules/load-config.js";
import { MAX_RETRIES, RETRY_MAX_DELAY_MS, watchConfigFile } from "./config-watcher.js";
import { createEngine, type EngineEvents } from "./engine.js";

const config = (limit: number) => `rules:
  - id: per-user
    domain: api
    match: [{ key: user }]
    limits:
      - name: per-minute
        algorithm: fixed_window
        limit: ${limit}
        period: 1m
`;

/** Polls `done` every 10 ms until it holds (or 5 s pass). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("watchConfigFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sluice-watch-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("applies valid changes, keeps the old config on invalid ones, follows atomic renames", async () => {
    const file = join(dir, "sluice.yaml");
    await writeFile(file, config(2));
    const clock = new ManualClock(1_700_000_000_000);
    const engine = createEngine({ config: await loadConfigFile(file), clock });
    const errors: EngineEvents["configError"][] = [];
    engine.on("configError", (e) => errors.push(e));
    const limitNow = () => engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: "1" }]] });
    const watcher = watchConfigFile(file, engine, { debounceMs: 10 });
    try {
      expect(engine.status).toMatchObject({ reloads: 0, configSource: file });
      expect(limitNow().decision.limit).toBe(2);

      await writeFile(file, config(5));
      await until(() => engine.status.reloads === 1, "the valid change");
      expect(limitNow().decision).toMatchObject({ limit: 5, remaining: 3 }); // counters kept across the reload

      await writeFile(file, "rules:\n  - id: per-user\n    limits: nope\n");
      await until(() => engine.status.lastError !== undefined, "the invalid change to be reported");
      expect(engine.status.reloads).toBe(1);
      expect(errors.at(-1)).toMatchObject({ source: file });
      expect(limitNow().decision.limit).toBe(5); // still the last good config

      await writeFile(file, config(7));
      await until(() => engine.status.reloads === 2, "the fix");
      expect(engine.status.lastError).toBeUndefined();
      expect(limitNow().decision.limit).toBe(7);

      // An editor's atomic save: write a temporary file, rename it over the watched one (new inode).
      for (const [limit, reloads] of [
        [9, 3],
        [11, 4],
      ] as const) {
        const tmp = join(dir, `.sluice.yaml.${limit}.tmp`);
        await writeFile(tmp, config(limit));
        await rename(tmp, file);
        await until(() => engine.status.reloads === reloads, `atomic rename ${reloads}`);
        expect(limitNow().decision.limit).toBe(limit);
      }

      // A deleted file is reported; the engine keeps enforcing.
      await rm(file);
      await until(() => engine.status.lastError !== undefined, "the deletion to be reported");
      expect(engine.status.lastError?.message).toMatch(/cannot read the file/);
      expect(limitNow().decision.limit).toBe(11);
      await writeFile(file, config(13));
      await until(() => engine.status.reloads === 5, "the file to come back");
    } finally {
      watcher.close();
    }
    // Closed: further changes are ignored.
    await writeFile(file, config(20));
    await new Promise((r) => setTimeout(r, 50));
    expect(engine.status.reloads).toBe(5);
  });

  it("applies a change made between loading the file and starting the watch", async () => {
    const file = join(dir, "sluice.yaml");
    await writeFile(file, config(3));
    const engine = createEngine({ config: await loadConfigFile(file), clock: new ManualClock(1e12) });
    await writeFile(file, config(4)); // no watch sees this event
    const watcher = watchConfigFile(file, engine, { debounceMs: 5 });
    try {
      await until(() => engine.status.reloads === 1, "the change made before the watch");
      expect(limitOf(engine)).toBe(4);
    } finally {
      watcher.close();
    }
  });

  it("retries a version whose load failed, without waiting for the file to change again", async () => {
    const file = join(dir, "sluice.yaml");
    await writeFile(file, config(1));
    const engine = createEngine({ config: await loadConfigFile(file), clock: new ManualClock(1e12) });
    const errors: EngineEvents["configError"][] = [];
    engine.on("configError", (e) => errors.push(e));
    let failures = 2; // a transient read error (too many open files), twice
    const watcher = watchConfigFile(file, engine, {
      debounceMs: 5,
      load: (p) => {
        if (failures-- > 0) throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
        return loadConfigFile(p);
      },
    });
    try {
      await writeFile(file, config(2));
      await until(() => engine.status.reloads === 1, "the retry");
      expect(limitOf(engine)).toBe(2);
      expect(engine.status.lastError).toBeUndefined();
      expect(errors).toHaveLength(1); // the second failure, the same, is not reported again
    } finally {
      watcher.close();
    }
  });

  it("retries a failed version at most MAX_RETRIES times, backing off", async () => {
    const file = join(dir, "sluice.yaml");
    await writeFile(file, config(1));
    const engine = createEngine({ config: await loadConfigFile(file), clock: new ManualClock(1e12) });
    await writeFile(file, config(2)); // seen at the start (see above): no file event is needed
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const at: number[] = [];
    let elapsed = 0;
    const watcher = watchConfigFile(file, engine, {
      debounceMs: 5,
      load: () => {
        at.push(elapsed);
        throw new Error("EACCES: permission denied");
      },
    });
    try {
      for (; elapsed < 600_000; elapsed += 100) await vi.advanceTimersByTimeAsync(100);
      expect(at).toHaveLength(1 + MAX_RETRIES);
      // 100 ms doubling, at most RETRY_MAX_DELAY_MS apart (each seen within the 100 ms step that ends past it).
      const gaps = at.slice(1).map((t, i) => t - at[i]);
      expect(gaps.slice(0, 3)).toEqual([100, 200, 400]);
      expect(Math.max(...gaps)).toBe(RETRY_MAX_DELAY_MS);
      expect(engine.status.reloads).toBe(0);
      expect(engine.status.lastError?.message).toBe("EACCES: permission denied");
    } finally {
      watcher.close();
      vi.useRealTimers();
    }
  });
});

function limitOf(engine: ReturnType<typeof createEngine>): number {
  return engine.checkSync({ domain: "api", descriptors: [[{ key: "user", value: "1" }]], cost: 0 }).decision
    .limit;
}

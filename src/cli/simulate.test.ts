import { describe, expect, it } from "vitest";
import { SluiceError } from "../core/errors.js";
import { formatDuration, parseSimulateOptions, runSimulate } from "./simulate.js";
import { RATE_ALGORITHMS } from "./simulation.js";

function errorOf(fn: () => unknown): SluiceError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SluiceError) return error;
    throw error;
  }
  throw new Error("expected a SluiceError");
}

describe("parseSimulateOptions", () => {
  it("defaults to every rate algorithm, 10 per second, bursty 20 rps for 10 s", () => {
    const c = parseSimulateOptions({});
    expect(c.algorithms).toEqual(RATE_ALGORITHMS);
    expect(c.limit).toBe(10);
    expect(c.periodMs).toBe(1_000);
    expect(c.traffic).toEqual({ pattern: "bursty", rps: 20, durationMs: 10_000, keys: 1, seed: 42 });
  });

  it("names the offending option", () => {
    const cases: [Record<string, string>, string][] = [
      [{ rps: "abc" }, '--rps must be a number > 0, got "abc"'],
      [{ limit: "abc" }, '--limit must be a number, got "abc"'],
      [{ limit: "0" }, "--limit: must be a finite number > 0"],
      [{ limit: "2.5" }, "--limit: must be a whole number for fixed_window"],
      [{ period: "soon" }, "--period: must be a duration"],
      [{ bucket: "300ms" }, "--bucket: must divide the period"],
      [{ algorithms: "gcra,nope" }, '--algorithms: unknown algorithm "nope"'],
      [{ algorithms: "concurrency" }, "--algorithms: concurrency"],
      [{ algorithms: "fixed_window", burst: "5" }, "--burst applies only to"],
      [{ pattern: "wavy" }, "--pattern must be one of"],
      [{ duration: "0s" }, "--duration must be"],
      [{ keys: "0" }, "--keys must be a whole number"],
      [{ width: "wide" }, "--width must be a whole number"],
      [{ seed: "-1" }, "--seed must be a whole number"],
      [{ rps: "100000", duration: "1h" }, "--rps × --duration offers"],
    ];
    for (const [raw, message] of cases) {
      expect(errorOf(() => parseSimulateOptions(raw)).message, JSON.stringify(raw)).toContain(message);
    }
  });

  it("passes burst and bucket only to the algorithms they apply to", () => {
    const c = parseSimulateOptions({ burst: "3", bucket: "250ms" });
    const byAlgorithm = Object.fromEntries(c.limits.map((l) => [l.algorithm, l]));
    expect(byAlgorithm.gcra.burst).toBe(3);
    expect(byAlgorithm.fixed_window.burst).toBeUndefined();
    expect(byAlgorithm.bucketed_window.bucket).toBe("250ms");
    expect(byAlgorithm.sliding_log.bucket).toBeUndefined();
  });
});

describe("runSimulate", () => {
  it("renders a chart row and a summary row per algorithm", () => {
    const out = runSimulate({ algorithms: "gcra,fixed_window", width: "20", ascii: true });
    expect(out).toMatch(/^offered {9}[ #%*+=\-:._]{20}$/m);
    expect(out).toMatch(/^gcra +[ #%*+=\-:._]{20}$/m);
    expect(out).toMatch(/^algorithm +offered +admitted +denied +admitted % +max in 1s +max\/limit$/m);
    expect(out).toMatch(/^fixed_window +200 +100 +100 +50\.0% +20 +2\.00x$/m);
    expect(out).not.toMatch(/[▁▂▃▄▅▆▇█·×]/);
  });

  it("prints JSON on request", () => {
    const out = JSON.parse(runSimulate({ algorithms: "sliding_log", json: true, duration: "2s" }));
    expect(out.results).toHaveLength(1);
    expect(out.results[0]).toMatchObject({ algorithm: "sliding_log", offered: 40, maxInSpan: 10 });
  });
});

describe("formatDuration", () => {
  it("formats compactly", () => {
    expect(formatDuration(1_000)).toBe("1s");
    expect(formatDuration(1_500)).toBe("1.5s");
    expect(formatDuration(250)).toBe("250ms");
    expect(formatDuration(120_000)).toBe("2m");
    expect(formatDuration(86_400_000)).toBe("1d");
    expect(formatDuration(10_000 / 60)).toBe("166.667ms");
  });
});

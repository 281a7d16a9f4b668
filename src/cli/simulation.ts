/**
 * The pure core of `sluice simulate`: synthetic traffic patterns, running them through limiters on a
 * {@link ManualClock}, and measuring the result (admissions per chart bucket, the most admitted in any span of
 * one period). No printing and no real time: the same inputs and seed always give the same result.
 */
import type { AlgorithmId, LimitSpec, LimitSpecInput } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { createRandom } from "../core/random.js";
import { createLimiter } from "../engine/limiter.js";

/** The algorithms `simulate` can run: every rate algorithm (concurrency limits in-flight work, not a rate). */
export const RATE_ALGORITHMS = [
  "token_bucket",
  "leaky_bucket",
  "fixed_window",
  "sliding_window",
  "sliding_log",
  "gcra",
  "bucketed_window",
] as const satisfies readonly AlgorithmId[];

/** One of {@link RATE_ALGORITHMS}. */
export type RateAlgorithmId = (typeof RATE_ALGORITHMS)[number];

/** The traffic patterns `simulate` can generate. */
export const PATTERNS = ["steady", "bursty", "poisson", "ramp", "spike"] as const;

/** One of {@link PATTERNS}. */
export type Pattern = (typeof PATTERNS)[number];

/** Length of one on/off cycle of the `bursty` pattern. */
export const BURST_CYCLE_MS = 2_000;
/** Where the burst of each `bursty` cycle starts, from the cycle's start (centres it on the odd seconds). */
export const BURST_START_MS = 750;
/** Length of the burst in each `bursty` cycle; the rate during it is `rps · cycle / burst` (4×). */
export const BURST_LENGTH_MS = 500;
/** Part of the duration the `spike` pattern spends at {@link SPIKE_FACTOR}× the rate, centred in the middle. */
export const SPIKE_FRACTION = 0.1;
/** How much faster than `rps` the `spike` pattern's spike runs. */
export const SPIKE_FACTOR = 10;

/** What traffic to generate. */
export interface TrafficOptions {
  /** The shape of the traffic. */
  readonly pattern: Pattern;
  /** Average requests per second (for `spike`: outside the spike; for `ramp`: the mean of 0 → 2·rps). */
  readonly rps: number;
  /** How long the traffic lasts, in milliseconds. */
  readonly durationMs: number;
  /** Number of distinct keys the requests are spread over (uniformly at random). @default 1 */
  readonly keys?: number;
  /** Seed of the pseudo-random choices (poisson gaps, keys). @default 42 */
  readonly seed?: number;
}

/** Generated traffic: arrival times in whole milliseconds from 0, ascending, and the key of each arrival. */
export interface Traffic {
  /** Arrival times, ascending, whole milliseconds in [0, durationMs). */
  readonly timesMs: readonly number[];
  /** Key index (0 … keys − 1) of each arrival. */
  readonly keys: readonly number[];
  /** Number of distinct keys. */
  readonly keyCount: number;
  /** How long the traffic lasts, in milliseconds. */
  readonly durationMs: number;
}

/** How many requests a pattern offers on average (exactly, up to rounding, for all but `poisson`). */
export function expectedRequests(pattern: Pattern, rps: number, durationMs: number): number {
  const base = (rps * durationMs) / 1000;
  return pattern === "spike" ? base * (1 - SPIKE_FRACTION + SPIKE_FRACTION * SPIKE_FACTOR) : base;
}

interface Segment {
  readonly startMs: number;
  readonly endMs: number;
  /** Requests per second within the segment. */
  readonly rps: number;
}

/** Arrivals of a piecewise-constant rate, evenly spaced in cumulative load: arrival i comes once i are due. */
function fromSegments(segments: readonly Segment[]): number[] {
  const out: number[] = [];
  let due = 0; // requests due by the start of the current segment
  for (const { startMs, endMs, rps } of segments) {
    if (endMs <= startMs) continue;
    if (rps > 0) {
      const gapMs = 1000 / rps;
      for (let i = Math.ceil(due - 1e-6); ; i++) {
        const t = startMs + (i - due) * gapMs;
        if (t >= endMs - 1e-6) break;
        out.push(t);
      }
    }
    due += (rps * (endMs - startMs)) / 1000;
  }
  return out;
}

function rawArrivals(pattern: Pattern, rps: number, d: number, random: () => number): number[] {
  switch (pattern) {
    case "steady":
      return fromSegments([{ startMs: 0, endMs: d, rps }]);
    case "bursty": {
      const segments: Segment[] = [];
      const burstRps = (rps * BURST_CYCLE_MS) / BURST_LENGTH_MS;
      for (let c = 0; c < d; c += BURST_CYCLE_MS) {
        const start = Math.min(c + BURST_START_MS, d);
        segments.push({ startMs: start, endMs: Math.min(start + BURST_LENGTH_MS, d), rps: burstRps });
      }
      return fromSegments(segments);
    }
    case "spike": {
      const from = (d * (1 - SPIKE_FRACTION)) / 2;
      const to = d - from;
      return fromSegments([
        { startMs: 0, endMs: from, rps },
        { startMs: from, endMs: to, rps: rps * SPIKE_FACTOR },
        { startMs: to, endMs: d, rps },
      ]);
    }
    case "ramp": {
      // rate(t) = 2·rps·t/d, so the load due by t is rps·t²/(1000·d); arrival i comes when i are due.
      const out: number[] = [];
      for (let i = 0; ; i++) {
        const t = Math.sqrt((i * 1000 * d) / rps);
        if (t >= d) break;
        out.push(t);
      }
      return out;
    }
    case "poisson": {
      const out: number[] = [];
      const meanGapMs = 1000 / rps;
      for (let t = -Math.log(1 - random()) * meanGapMs; t < d; t += -Math.log(1 - random()) * meanGapMs) {
        out.push(t);
      }
      return out;
    }
  }
}

/** Generates the traffic of a pattern: deterministic for a given seed, times rounded down to whole milliseconds. */
export function generateTraffic(options: TrafficOptions): Traffic {
  const keyCount = options.keys ?? 1;
  const seed = options.seed ?? 42;
  const d = options.durationMs;
  const raw = rawArrivals(options.pattern, options.rps, d, createRandom(seed));
  const timesMs = raw.map((t) => Math.min(Math.floor(t + 1e-6), Math.ceil(d) - 1));
  const pickKey = createRandom((seed ^ 0x9e3779b9) >>> 0);
  const keys = timesMs.map(() => (keyCount === 1 ? 0 : Math.floor(pickKey() * keyCount)));
  return { timesMs, keys, keyCount, durationMs: d };
}

/** The most entries of ascending `timesMs` inside any half-open span `[t, t + spanMs)`; exact, O(n). */
export function maxInSpan(timesMs: readonly number[], spanMs: number): number {
  let best = 0;
  let i = 0;
  for (let j = 0; j < timesMs.length; j++) {
    while (timesMs[j] - timesMs[i] >= spanMs) i++;
    if (j - i + 1 > best) best = j - i + 1;
  }
  return best;
}

/**
 * The most a limit can admit for one key in any span of one period, from each algorithm's model: L for the
 * exact sliding_log, 2L for the window approximations (boundary bursts), burst + L for the buckets and GCRA.
 */
export function spanBound(spec: LimitSpec): number {
  switch (spec.algorithm) {
    case "sliding_log":
    case "concurrency":
      return spec.limit;
    case "fixed_window":
    case "sliding_window":
    case "bucketed_window":
      return 2 * spec.limit;
    case "token_bucket":
    case "leaky_bucket":
    case "gcra":
      return Math.floor(spec.burst + spec.limit);
  }
}

/** How one algorithm fared against the traffic. */
export interface AlgorithmResult {
  /** The algorithm. */
  readonly algorithm: AlgorithmId;
  /** The parsed limit it enforced. */
  readonly spec: LimitSpec;
  /** Requests offered. */
  readonly offered: number;
  /** Requests admitted. */
  readonly admitted: number;
  /** Requests denied. */
  readonly denied: number;
  /** The most admitted for one key in any span of one period (exact, sliding). */
  readonly maxInSpan: number;
  /** {@link AlgorithmResult.maxInSpan} divided by the limit: above 1 means bursts beyond the nominal rate. */
  readonly overLimitRatio: number;
  /** Admitted requests per chart bucket. */
  readonly admittedPerBucket: readonly number[];
}

/** The outcome of {@link simulate}. */
export interface SimulationResult {
  /** Width of one chart bucket in milliseconds (duration / buckets). */
  readonly bucketMs: number;
  /** Requests offered per chart bucket. */
  readonly offeredPerBucket: readonly number[];
  /** One result per limit, in the order given. */
  readonly results: readonly AlgorithmResult[];
}

/** What {@link simulate} runs. */
export interface SimulationOptions {
  /** One limit per algorithm to compare (each runs on its own fresh store and clock). */
  readonly limits: readonly LimitSpecInput[];
  /** The traffic to offer to each. */
  readonly traffic: Traffic;
  /** Number of chart buckets the duration is cut into. */
  readonly buckets: number;
}

/** Which requests of `traffic` one limit admits, driving a {@link ManualClock} through the arrival times. */
export function admissions(
  limit: LimitSpecInput,
  traffic: Traffic,
): { spec: LimitSpec; admitted: Uint8Array } {
  const clock = new ManualClock(0);
  const limiter = createLimiter({ limits: limit, clock, name: "simulate" });
  const keyNames = Array.from({ length: traffic.keyCount }, (_, k) => `key-${k}`);
  const admitted = new Uint8Array(traffic.timesMs.length);
  for (let i = 0; i < traffic.timesMs.length; i++) {
    clock.set(traffic.timesMs[i]);
    admitted[i] = limiter.limitSync(keyNames[traffic.keys[i]]).allowed ? 1 : 0;
  }
  return { spec: limiter.limits[0], admitted };
}

/** Runs the traffic through every limit and measures each: totals, admissions per bucket and the span maximum. */
export function simulate(options: SimulationOptions): SimulationResult {
  const { traffic, buckets } = options;
  const bucketMs = traffic.durationMs / buckets;
  const bucketOf = (t: number): number => Math.min(buckets - 1, Math.floor(t / bucketMs));
  const offeredPerBucket = new Array<number>(buckets).fill(0);
  for (const t of traffic.timesMs) offeredPerBucket[bucketOf(t)]++;

  const results = options.limits.map((limit): AlgorithmResult => {
    const { spec, admitted } = admissions(limit, traffic);
    const admittedPerBucket = new Array<number>(buckets).fill(0);
    const perKey: number[][] = Array.from({ length: traffic.keyCount }, () => []);
    let total = 0;
    for (let i = 0; i < admitted.length; i++) {
      if (admitted[i] === 0) continue;
      total++;
      admittedPerBucket[bucketOf(traffic.timesMs[i])]++;
      perKey[traffic.keys[i]].push(traffic.timesMs[i]);
    }
    let max = 0;
    for (const times of perKey) max = Math.max(max, maxInSpan(times, spec.periodMs));
    return {
      algorithm: spec.algorithm,
      spec,
      offered: traffic.timesMs.length,
      admitted: total,
      denied: traffic.timesMs.length - total,
      maxInSpan: max,
      overLimitRatio: max / spec.limit,
      admittedPerBucket,
    };
  });
  return { bucketMs, offeredPerBucket, results };
}

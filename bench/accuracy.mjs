// `npm run bench -- accuracy [--seconds 600] [--seed 1] [--tick 1]`
//
// Over- and under-admission of the approximate window algorithms against the exact window (DESIGN §3, §8;
// seed 001). Each traffic pattern is generated once from a seeded PRNG (deterministic), then replayed
// request by request through the pure kernels (`algorithms[id].apply` on a private Float64Array, no store) of
// bucketed_window (w = 100, 10, 1 ms), sliding_window and, as the control, sliding_log, all at the same
// limit L per P = 1000 ms (L = 5 as in seed 001, and L = 100).
//
// Each algorithm is judged against its OWN admitted history, kept in an exact log beside it:
// - over-admission (false positive): it admits a request at t although its admissions in (t − P, t], this one
//   included, then number more than L;
// - under-admission (false negative): it denies a request at t although its admissions in (t − P, t] plus this
//   one would number at most L;
// - worst excess: max over t of its admissions in (t − P, t] divided by L (attained at an admission).
// The sliding_log control must show 0 FP, 0 FN and a worst excess ≤ 1.0; the bench fails otherwise.
//
// Timestamps are whole milliseconds by default, like `Date.now()` (Sluice's system clock); `--tick 0.125`
// replays on a 1/8 ms grid, as a sub-millisecond clock would. Ticks must be multiples of 1/1024 ms so every
// timestamp is exact in a double and no comparison depends on the kernels' 1 µs tolerance.
import { algorithms, parseLimitSpec } from "../dist/index.js";
import { Report } from "./lib/report.mjs";

const P = 1000;
const T0 = 1_600_000_000_000; // a multiple of P, so window and bucket boundaries fall on round offsets
const LIMITS = [5, 100];
const BUCKET_WIDTHS = [100, 10, 1];
/** Seed 001's claim: "for 100ms interval it's about 5%", 10 ms 0.5 %, 1 ms 0.05 % (that is, w / (2P)). */
const CLAIMED_FP_PCT = { 100: 5, 10: 0.5, 1: 0.05 };

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

// ---------------------------------------------------------------- deterministic randomness
/** FNV-1a of a string, for deriving one independent seed per (pattern, limit). */
function hash(str) {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) h = Math.imul(h ^ str.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An exponential variate of mean `mean`. */
const exp = (rand, mean) => -Math.log(1 - rand()) * mean;

/** A Poisson variate of mean `mean` (Knuth; means here are small). */
function poisson(rand, mean) {
  const l = Math.exp(-mean);
  let k = 0;
  let p = rand();
  while (p > l) {
    k++;
    p *= rand();
  }
  return k;
}

// ---------------------------------------------------------------- traffic patterns
// Each returns request times in ms from 0 (sorted, not yet quantised). `rate` is the limit rate L / P per ms.

/** Poisson arrivals at `mult` × the limit rate. */
function poissonArrivals(rand, seconds, rate, mult) {
  const out = [];
  const end = seconds * 1000;
  const mean = 1 / (rate * mult);
  for (let t = exp(rand, mean); t < end; t += exp(rand, mean)) out.push(t);
  return out;
}

/** On/off bursts: on periods (mean 250 ms) of Poisson arrivals at 10× the limit rate, off periods (mean 1 s)
 * of silence; exponential durations. Mean offered rate 2× the limit rate. */
function bursty(rand, seconds, rate) {
  const out = [];
  const end = seconds * 1000;
  const mean = 1 / (rate * 10);
  let t = exp(rand, 1000);
  while (t < end) {
    const stop = Math.min(end, t + exp(rand, 250));
    for (t += exp(rand, mean); t < stop; t += exp(rand, mean)) out.push(t);
    t = stop + exp(rand, 1000);
  }
  return out;
}

/** Adversarial boundaries: every multiple of `grid` ms gets a cluster of requests in the 2 ms right before it
 * and another in the 2 ms right after it (Poisson counts, uniform offsets), nothing in between. Mean offered
 * rate 2× the limit rate. A grid of w straddles every bucket boundary of bucketed_window with width w (a bucket
 * filled at its very end is dropped whole, w ms early, exactly when the next cluster arrives); a grid of P
 * straddles every window boundary of sliding_window (a window filled at its very end is weighted as if its
 * requests were spread over it). */
function boundary(rand, seconds, rate, grid) {
  const out = [];
  const perSide = rate * 2 * grid * 0.5;
  for (let b = grid; b < seconds * 1000; b += grid) {
    const cluster = [];
    for (let n = poisson(rand, perSide); n > 0; n--) cluster.push(b - 2 + 2 * rand());
    for (let n = poisson(rand, perSide); n > 0; n--) cluster.push(b + 2 * rand());
    cluster.sort((x, y) => x - y);
    for (const t of cluster) out.push(t);
  }
  return out;
}

const PATTERNS = [
  { name: "poisson 1x", gen: (r, s, rate) => poissonArrivals(r, s, rate, 1) },
  { name: "poisson 2x", gen: (r, s, rate) => poissonArrivals(r, s, rate, 2) },
  { name: "poisson 10x", gen: (r, s, rate) => poissonArrivals(r, s, rate, 10) },
  { name: "bursty", gen: bursty },
  { name: "boundary 1000ms", gen: (r, s, rate) => boundary(r, s, rate, 1000) },
  { name: "boundary 100ms", gen: (r, s, rate) => boundary(r, s, rate, 100) },
  { name: "boundary 10ms", gen: (r, s, rate) => boundary(r, s, rate, 10) },
];

/** Absolute, quantised, sorted timestamps for one pattern at limit `limit`. */
function makeTimes(pattern, limit, seconds, seed, tick) {
  const rand = prng(hash(`${seed}/${pattern.name}/${limit}`));
  const raw = pattern.gen(rand, seconds, limit / P);
  const times = new Float64Array(raw.length);
  for (let i = 0; i < raw.length; i++) times[i] = T0 + Math.floor(raw[i] / tick) * tick;
  times.sort();
  return times;
}

// ---------------------------------------------------------------- replay
/** Replays `times` through one kernel, judging every verdict against the exact window of its own admissions. */
function replay(spec, times) {
  const alg = algorithms[spec.algorithm];
  const state = new Float64Array(alg.width(spec));
  const out = { allowed: false, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, leaseId: 0 };
  const limit = spec.limit;
  const log = new Float64Array(times.length); // admitted timestamps; [head, tail) are inside the window
  let head = 0;
  let tail = 0;
  let admitted = 0;
  let fp = 0;
  let fn = 0;
  let worst = 0;
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    while (head < tail && log[head] <= t - P) head++;
    const inWindow = tail - head;
    alg.apply(state, 0, t, spec, 1, true, out);
    if (out.allowed) {
      admitted++;
      log[tail++] = t;
      if (inWindow + 1 > limit) fp++;
      if (inWindow + 1 > worst) worst = inWindow + 1;
    } else if (inWindow + 1 <= limit) {
      fn++;
    }
  }
  return { offered: times.length, admitted, fp, fn, worstExcess: worst / limit };
}

// ---------------------------------------------------------------- main
const seconds = arg("seconds", 600);
const seed = arg("seed", 1);
const tick = arg("tick", 1);
if (!(seconds > 0) || !(tick > 0) || !Number.isInteger(tick * 1024)) {
  console.error("usage: npm run bench -- accuracy [--seconds 600] [--seed 1] [--tick 1]  (tick: k/1024 ms)");
  process.exit(2);
}

const subjects = (limit) => [
  { label: "sliding_log", spec: parseLimitSpec({ algorithm: "sliding_log", limit, periodMs: P }) },
  { label: "sliding_window", spec: parseLimitSpec({ algorithm: "sliding_window", limit, periodMs: P }) },
  ...BUCKET_WIDTHS.map((w) => ({
    label: `bucketed_window w=${w}ms`,
    spec: parseLimitSpec({ algorithm: "bucketed_window", limit, periodMs: P, bucketMs: w }),
    claimed: CLAIMED_FP_PCT[w],
  })),
];

const report = new Report("accuracy");
const summary = [];
const failures = [];
const started = performance.now();
for (const limit of LIMITS) {
  for (const pattern of PATTERNS) {
    const times = makeTimes(pattern, limit, seconds, seed, tick);
    const caseName = `${pattern.name}, L=${limit}`;
    for (const { label, spec, claimed } of subjects(limit)) {
      const r = replay(spec, times);
      const pct = (n, d) => (d > 0 ? (100 * n) / d : 0);
      const fpOffered = pct(r.fp, r.offered);
      const extra = { seconds, seed, tick_ms: tick };
      report.add(caseName, label, "offered", r.offered, extra);
      report.add(caseName, label, "admitted", r.admitted, extra);
      report.add(caseName, label, "fp_offered_pct", fpOffered, { ...extra, count: r.fp });
      report.add(caseName, label, "fp_admitted_pct", pct(r.fp, r.admitted), { ...extra, count: r.fp });
      report.add(caseName, label, "fn_offered_pct", pct(r.fn, r.offered), { ...extra, count: r.fn });
      report.add(caseName, label, "worst_excess", r.worstExcess, extra);
      if (claimed !== undefined) {
        report.add(caseName, label, "claimed_fp_pct", claimed, { source: "seed 001" });
        report.add(`${caseName}, ${label}`, "measured/claimed", "ratio", fpOffered / claimed, {
          basis: "fp_offered_pct",
        });
      }
      summary.push({ pattern: pattern.name, limit, label, ...r, claimed });
      if (label === "sliding_log" && (r.fp !== 0 || r.fn !== 0 || r.worstExcess > 1)) {
        failures.push(
          `${caseName}: sliding_log control gave FP ${r.fp}, FN ${r.fn}, excess ${r.worstExcess}`,
        );
      }
    }
    for (const { label } of subjects(limit).slice(1))
      report.ratio(caseName, label, "sliding_log", "admitted");
    process.stderr.write(`  ${caseName}: ${times.length} requests\n`);
  }
}

// A compact one-row-per-(pattern, algorithm) view on stderr (the table on stdout is the report's).
const f = (x, d = 3) => x.toFixed(d);
process.stderr.write(
  `\n${seconds} s simulated per pattern, seed ${seed}, tick ${tick} ms, ${f((performance.now() - started) / 1000, 1)} s\n`,
);
process.stderr.write(
  "| L | pattern | algorithm | offered | admitted | FP % offered | FP % admitted | FN % offered | worst excess | claimed FP % | measured/claimed |\n",
);
process.stderr.write("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
for (const s of summary) {
  const fpo = (100 * s.fp) / s.offered;
  const fpa = s.admitted > 0 ? (100 * s.fp) / s.admitted : 0;
  const claim = s.claimed === undefined ? "" : `${s.claimed}`;
  const ratio = s.claimed === undefined ? "" : f(fpo / s.claimed, 2);
  process.stderr.write(
    `| ${s.limit} | ${s.pattern} | ${s.label} | ${s.offered} | ${s.admitted} | ${f(fpo)} | ${f(fpa)} | ${f((100 * s.fn) / s.offered)} | ${f(s.worstExcess, 2)} | ${claim} | ${ratio} |\n`,
  );
}
process.stderr.write("\n");

report.print();
if (failures.length > 0) {
  for (const m of failures) console.error(m);
  process.exitCode = 1;
}

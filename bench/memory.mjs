// `npm run bench -- memory [--rounds 3] [--seconds 2] [--keys-mem 1000000]`
//
// In-process decisions/s on one core (10,000 keys round-robin), allowed and denied regimes, for Sluice through
// its public Limiter API (gcra and token_bucket; limitSync and the async limit()), beside
// rate-limiter-flexible RateLimiterMemory, limiter's TokenBucket, and a bare hand-written GCRA over a Map that
// reads the clock on every call (the in-process limit). Then bytes per key at 1M keys for every algorithm.
// Every subject runs in its own fresh process pinned to CPU 0; rounds are interleaved so noise falls on all.
//
// Every subject answers each call with what a caller needs to act on it: 0 when admitted, otherwise the
// retry-after in milliseconds (Sluice reads it from its Decision; the bare GCRA computes it, ⌈next − now − τ⌉,
// and returns it as a plain number, the cheapest form of that answer). `bare-gcra (allowed only)` is the bare
// GCRA answering admitted or not and nothing else: a floor below what any limiter must report, shown for
// reference only.
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.mjs";
import { median, Report } from "./lib/report.mjs";

const self = fileURLToPath(import.meta.url);
const KEYS = 10_000;
const PERIOD_MS = 60_000;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

// ---------------------------------------------------------------- child: throughput of one subject
async function makeSubject(name, limit) {
  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  if (name.startsWith("sluice")) {
    const { createLimiter, memoryStore } = await import("../dist/index.js");
    const [, algorithm, mode] = name.split(":");
    const limiter = createLimiter({
      store: memoryStore({ capacity: 2 * KEYS }),
      limits: { algorithm, limit, periodMs: PERIOD_MS },
    });
    if (mode === "sync") {
      return {
        keys,
        sync: (k) => {
          const d = limiter.limitSync(k);
          return d.allowed ? 0 : d.retryAfterMs;
        },
      };
    }
    return {
      keys,
      async: async (k) => {
        const d = await limiter.limit(k);
        return d.allowed ? 0 : d.retryAfterMs;
      },
    };
  }
  if (name === "rate-limiter-flexible") {
    const { RateLimiterMemory } = await import("rate-limiter-flexible");
    const rl = new RateLimiterMemory({ points: limit, duration: PERIOD_MS / 1000 });
    return {
      keys,
      async: async (k) => {
        try {
          await rl.consume(k, 1);
          return 0;
        } catch (e) {
          return Math.max(1, e.msBeforeNext);
        }
      },
    };
  }
  if (name === "limiter") {
    const { TokenBucket } = await import("limiter");
    const buckets = new Map();
    const msPerToken = PERIOD_MS / limit;
    return {
      keys,
      sync: (k) => {
        let b = buckets.get(k);
        if (b === undefined) {
          b = new TokenBucket({ bucketSize: limit, tokensPerInterval: limit, interval: PERIOD_MS });
          b.content = limit;
          buckets.set(k, b);
        }
        return b.tryRemoveTokens(1) ? 0 : Math.max(1, Math.ceil((1 - b.content) * msPerToken));
      },
    };
  }
  if (name === "bare-gcra") {
    // The in-process limit: GCRA over a Map<string, number>, reading the clock on every call, answering with
    // the retry-after a caller needs (0 when admitted).
    const tats = new Map();
    const t = PERIOD_MS / limit;
    const tau = t * limit;
    return {
      keys,
      sync: (k) => {
        const now = Date.now();
        const tat = tats.get(k);
        const base = tat !== undefined && tat > now ? tat : now;
        const next = base + t;
        if (next - now <= tau) {
          tats.set(k, next);
          return 0;
        }
        return Math.ceil(next - now - tau);
      },
    };
  }
  if (name === "bare-gcra (allowed only)") {
    // The same GCRA answering only admitted (0) or not (1): less than a limiter must report; reference only.
    const tats = new Map();
    const t = PERIOD_MS / limit;
    const tau = t * limit;
    return {
      keys,
      sync: (k) => {
        const now = Date.now();
        const tat = tats.get(k);
        const base = tat !== undefined && tat > now ? tat : now;
        const next = base + t;
        if (next - now <= tau) {
          tats.set(k, next);
          return 0;
        }
        return 1;
      },
    };
  }
  throw new Error(`unknown subject ${name}`);
}

async function throughputChild(name, regime, seconds) {
  const limit = regime === "allowed" ? 1e9 : 10;
  const s = await makeSubject(name, limit);
  const { keys } = s;
  const run = async (ms) => {
    let ops = 0;
    let admitted = 0;
    let waitMs = 0; // sum of the retry-afters answered, so that every subject's answer is used
    const start = performance.now();
    const end = start + ms;
    let i = 0;
    if (s.sync) {
      const f = s.sync;
      for (;;) {
        for (let j = 0; j < 1024; j++) {
          const r = f(keys[i]);
          if (r === 0) admitted++;
          else waitMs += r;
          i = i + 1 === KEYS ? 0 : i + 1;
        }
        ops += 1024;
        if (performance.now() >= end) break;
      }
    } else {
      const f = s.async;
      for (;;) {
        for (let j = 0; j < 1024; j++) {
          const r = await f(keys[i]);
          if (r === 0) admitted++;
          else waitMs += r;
          i = i + 1 === KEYS ? 0 : i + 1;
        }
        ops += 1024;
        if (performance.now() >= end) break;
      }
    }
    return { ops, admitted, waitMs, ms: performance.now() - start };
  };
  await run(1000); // warm-up (and, in the denied regime, exhausts every key's 10 units)
  const r = await run(seconds * 1000);
  const denied = r.ops - r.admitted;
  return {
    opsPerS: (r.ops / r.ms) * 1000,
    admittedFrac: r.admitted / r.ops,
    // In the denied regime every key refills one unit per PERIOD_MS / 10 ms: at most this many may pass.
    refillBound: KEYS * (Math.floor(r.ms / (PERIOD_MS / 10)) + 1),
    admitted: r.admitted,
    meanRetryAfterMs: denied > 0 ? r.waitMs / denied : 0,
  };
}

// ---------------------------------------------------------------- child: bytes per key
async function memoryChild(name, n) {
  const keys = Array.from({ length: n }, (_, i) => `user:${String(i).padStart(7, "0")}`);
  const measure = () => {
    globalThis.gc();
    globalThis.gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  let consume;
  let keep;
  if (name.startsWith("sluice:")) {
    const { createLimiter, memoryStore } = await import("../dist/index.js");
    const algorithm = name.slice("sluice:".length);
    const limits = {
      algorithm,
      limit: 10,
      periodMs: PERIOD_MS,
      ...(algorithm === "bucketed_window" ? { bucketMs: 6000 } : {}),
    };
    const before = measure();
    const limiter = createLimiter({ store: memoryStore({ capacity: n }), limits });
    keep = limiter;
    if (algorithm === "concurrency") consume = (k) => limiter.acquire(k);
    else consume = (k) => limiter.limitSync(k);
    for (const k of keys) await consume(k);
    const after = measure();
    return { bytesPerKey: (after - before) / n, size: limiter.store.stats.size, keep: typeof keep };
  }
  if (name === "rate-limiter-flexible") {
    const { RateLimiterMemory } = await import("rate-limiter-flexible");
    const before = measure();
    const rl = new RateLimiterMemory({ points: 10, duration: PERIOD_MS / 1000 });
    for (const k of keys) await rl.consume(k, 1);
    const after = measure();
    keep = rl;
    return { bytesPerKey: (after - before) / n, keep: typeof keep };
  }
  if (name === "bare-gcra") {
    const before = measure();
    const m = new Map();
    const now = Date.now();
    for (const k of keys) m.set(k, now + 6000 + Math.random());
    const after = measure();
    keep = m;
    return { bytesPerKey: (after - before) / n, keep: typeof keep };
  }
  throw new Error(`unknown subject ${name}`);
}

// ---------------------------------------------------------------- parent
if (process.argv.includes("--child")) {
  const [mode, name, a, b] = process.argv.slice(process.argv.indexOf("--child") + 1);
  const result =
    mode === "throughput" ? await throughputChild(name, a, Number(b)) : await memoryChild(name, Number(a));
  console.log(JSON.stringify(result));
} else {
  const rounds = arg("rounds", 3);
  const seconds = arg("seconds", 2);
  const memKeys = arg("keys-mem", 1_000_000);
  const report = new Report("memory");
  const subjects = [
    "sluice:gcra:sync",
    "sluice:token_bucket:sync",
    "sluice:gcra:async",
    "rate-limiter-flexible",
    "limiter",
    "bare-gcra",
    "bare-gcra (allowed only)",
  ];
  for (const regime of ["allowed", "denied"]) {
    const samples = new Map(subjects.map((s) => [s, []]));
    for (let r = 0; r < rounds; r++) {
      for (const s of subjects) {
        const res = runChild(self, ["--child", "throughput", s, regime, String(seconds)]);
        // Allowed: everything passes. Denied: nothing passes but what refilled during the run (a slow round,
        // on a loaded machine, sees more of it), within 1% for the subjects that refill by window.
        const admittedOk =
          regime === "allowed"
            ? res.admittedFrac >= 0.99
            : res.admittedFrac <= 0.01 || res.admitted <= res.refillBound;
        if (!admittedOk) throw new Error(`${s} ${regime}: admitted fraction ${res.admittedFrac}`);
        if (regime === "denied" && !(res.meanRetryAfterMs >= 1))
          throw new Error(`${s} denied: mean retry-after ${res.meanRetryAfterMs} ms`);
        samples.get(s).push(res.opsPerS);
        process.stderr.write(
          `  ${regime} ${s} round ${r + 1}: ${(res.opsPerS / 1e6).toFixed(2)} M/s` +
            (regime === "denied" ? `, mean retry-after ${res.meanRetryAfterMs.toFixed(0)} ms\n` : "\n"),
        );
      }
    }
    const caseName = `10k keys, ${regime}`;
    for (const s of subjects) {
      const v = samples.get(s);
      report.add(caseName, s, "ops_per_s", median(v), { min: Math.min(...v), max: Math.max(...v), rounds });
    }
    const target = regime === "allowed" ? ">= 4" : ">= 10";
    report.ratio(caseName, "sluice:gcra:sync", "rate-limiter-flexible", "ops_per_s", target);
    report.ratio(caseName, "sluice:token_bucket:sync", "rate-limiter-flexible", "ops_per_s", target);
    report.ratio(caseName, "sluice:gcra:async", "rate-limiter-flexible");
    report.ratio(caseName, "sluice:gcra:sync", "bare-gcra", "ops_per_s", ">= 0.8");
    report.ratio(caseName, "sluice:token_bucket:sync", "bare-gcra", "ops_per_s", ">= 0.8");
    report.ratio(caseName, "sluice:gcra:sync", "limiter");
    report.ratio(caseName, "sluice:gcra:sync", "bare-gcra (allowed only)");
    report.ratio(caseName, "sluice:token_bucket:sync", "bare-gcra (allowed only)");
  }
  const algos = [
    "gcra",
    "token_bucket",
    "leaky_bucket",
    "fixed_window",
    "sliding_window",
    "bucketed_window",
    "sliding_log",
    "concurrency",
  ];
  const memSubjects = [...algos.map((a) => `sluice:${a}`), "rate-limiter-flexible", "bare-gcra"];
  const caseName = `bytes per key at ${memKeys} keys`;
  for (const s of memSubjects) {
    const res = runChild(self, ["--child", "memory", s, String(memKeys)], ["--expose-gc"]);
    process.stderr.write(`  memory ${s}: ${res.bytesPerKey.toFixed(1)} B/key\n`);
    report.add(
      caseName,
      s,
      "bytes_per_key",
      res.bytesPerKey,
      s === "sluice:gcra" || s === "sluice:token_bucket" ? { target: "<= 64" } : {},
    );
  }
  report.ratio(caseName, "sluice:gcra", "rate-limiter-flexible", "bytes_per_key");
  report.ratio(caseName, "sluice:token_bucket", "rate-limiter-flexible", "bytes_per_key");
  report.print();
}

// `npm run bench -- redis [--seconds 5] [--rounds 3] [--open-rate N] [--generator thread|spin|both] [--node-args "…"]
//   [--sweep 0.4,0.3,0.2,0.1,0.05] [--ramp-ms 500] [--pacer-idle-lag-ms 0.1] [--pacer-busy-lag-ms 0.5]`
//
// Redis-backed decisions/s from ONE Node process, following /work/shared/reference/baselines.md §2: a private
// redis-server (`--save "" --appendonly no`) pinned to CPU 1, every Node client in its own fresh process
// pinned to CPU 0, one ioredis connection with autopipelining OFF, 10,000 keys round-robin, allowed regime
// (limit 1e9 per 60 s). N workers each keep one call in flight (N = 1, 16, 64, 256), for Sluice's gcra over
// the batched store (as shipped, and with per-tick batching: `maxInFlight` 10000), the unbatched store and
// rate-limiter-flexible's RateLimiterRedis. Per
// configuration: decisions/s, p50/p99 latency (hdr-histogram), Node CPU % (process.cpuUsage) and Redis CPU %
// (/proc/<pid>/stat utime+stime; 100 % = one core), all over the timed phase after a 1 s warm-up.
//
// In the same run:
// - the one-script-per-decision ceiling: Sluice's OWN single-decision call (recorded from a real unbatched
//   `limiter.limit()`, so the script, KEYS and ARGV are exactly what the store sends) driven by a C client
//   on CPU 0: `redis-benchmark -n 200000 -c 50 -P 16 -r 10000 EVALSHA ...` when it can send the arguments.
//   The store's ARGV is binary (little-endian doubles, with NUL bytes), which redis-benchmark cannot send
//   (C strings; its -x truncates at the first NUL), so then the same 200,000 commands go as raw RESP through
//   `redis-cli --pipe`, and a "ceiling tool check" compares the two tools on rate-limiter-flexible's script,
//   which both can send;
// - a machine reference, `redis-benchmark INCR -c 50 -P 16` (1.68 M/s on a quiet machine, baselines.md §2c);
// - decisions per script call (INFO commandstats: EVALSHA + EVAL calls over the timed phase), which shows how
//   much the batched store actually coalesced;
// - the latency of Sluice batched under an open-loop load at half its best closed-loop throughput (latency
//   from each call's scheduled send time, so a stalled loop shows up in the figures instead of slowing the
//   load), for the store as shipped (adaptive batching: at most `maxInFlight` = 2 script calls in flight, the
//   rest queued for the next answer, flushed once per event-loop turn) and, in the same run, for per-tick
//   batching (`maxInFlight` 10000: every turn's calls leave at once), and for the store as shipped behind its
//   failure policy (`sluice-batched-guarded`: `failure: { onError: "fallback", timeoutMs: 50 }`, as every engine
//   and `sluice serve` run it; `policy_answered_pct` is the share of calls its timeout answered, at that latency,
//   each dropped unsent if still queued). The schedule is fixed in advance (calls
//   due at a constant rate after a linear ramp over the first half of the warm-up second). The client's main
//   thread issues every call due, in one synchronous loop, whenever it runs: after each answer it handles (as a
//   server reads its sockets whenever it is awake) and when a pacer worker thread (bench/lib/pacer-worker.mjs)
//   wakes it — which that thread does only when nothing else will: once the first call not yet issued has been
//   due for 0.1 ms with nothing outstanding, or 0.5 ms while answers are awaited (`--pacer-idle-lag-ms`,
//   `--pacer-busy-lag-ms`). So the client's event loop sleeps between arrivals as a server's does, and the
//   generator spends few wake-ups (each costs ~20 µs of CPU on this virtualised machine, on the client's own CPU)
//   (`--generator spin` paces it from the client's own loop with setImmediate instead: that loop never sleeps,
//   and on a CPU shared with other processes the kernel then runs it in slices of milliseconds;
//   `--generator both` runs both, interleaved, and compares them). So that the generator cannot hide as store
//   latency, each call's lateness (issued minus due) is reported apart, with the service time (issue to
//   answer), the event loop's delay (monitorEventLoopDelay), GC pauses (PerformanceObserver), the Node CPU (also
//   per call), how often the main thread issued calls and how often the pacer had to wake it, and how long the
//   client and redis-server waited for a CPU (/proc/<pid>/schedstat: the share of the time other load took from
//   them). A run that fell behind its offered rate is marked overloaded: its latency then measures the backlog;
// - beside each open-loop Sluice run, floor references at the same rate, with the same generator and schedule in
//   the same kind of client process, making the cheapest Redis round trip instead of a decision: "floor-ping-
//   batched", the calls coalesced by the store's own batching rule (2 commands in flight, 64 calls per command at
//   most) and one PING per batch, so every cost of a batched decision but the decision itself (the one also run in
//   the sweep below); and "floor-get-autopipelined", one GET of one missing key per call through ioredis with
//   auto-pipelining (one pipeline in flight, each turn's calls queued behind it), what a plain ioredis client
//   pays per call. A floor's p99 is what this machine, loaded as it is now, allows at that rate: each rate gets a
//   "p99 sluice-batched/<floor>" ratio (per round, then median) with both p99s, flagged "floor misses p99 <= 2 ms"
//   when the floor itself does. Every open-loop run also reports calls per socket read Redis processed (INFO stats
//   total_reads_processed): how deep the batching the server saw was, and Redis's stalls: the commands Redis took
//   over 1 ms to execute during the measured phase (SLOWLOG; the server runs with that threshold), their count,
//   the longest and their sum. A batched script call normally runs in tens to hundreds of µs; one logged here was
//   slowed inside Redis (its CPU taken from it, or Redis busy), and every call queued behind it waited as long. At
//   a load where Redis is busy a third of its time or more, such a stall leaves a backlog Redis drains only at its
//   spare rate, which is what sets Sluice's p99 there; the floors run ~1 µs commands and ride through;
// - when p99 <= 2 ms misses at 50 %, the highest offered load (as a fraction of the same best) at which it holds:
//   the fractions of `--sweep` (default 0.4, 0.3, 0.2, 0.1, 0.05; empty: none), interleaved round by round, each
//   printed with the same breakdown beside the floor at the same rate, and one "max_fraction_of_best" line with
//   every fraction's median p99 (Sluice's and the floor's), the highest fraction at which the floor held, and the
//   breakdown at 50 % and at the highest fraction that held. (On a machine shared with other load, Redis's or the
//   client's CPU may be taken at any load, so p99 need not fall with the load: every fraction is measured.)
//
// Every client uses the options the README recommends for the Redis store (no offline queue, no retries per
// request, no resend), which also keeps the store from warning about them.
// With --open-rate N only the open-loop runs are made, at N calls/s (for looking at latency alone).
// Rounds are interleaved across configurations so noise falls on all of them alike, and every ratio is taken
// per round, then summarised (median, min, max).
import { execFileSync, spawnSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.mjs";
import { COMPLETED, ISSUED, SHARED_LENGTH, schedule, startPacer } from "./lib/pacer-worker.mjs";
import {
  benchTempDir,
  clockTicks,
  contextSwitches,
  pinPrefix,
  procCpuSeconds,
  runQueueWaitSeconds,
  startRedisServer,
  which,
} from "./lib/redis-server.mjs";
import { median, Report } from "./lib/report.mjs";

const self = fileURLToPath(import.meta.url);
const STORE_DIST = fileURLToPath(new URL("../dist/stores/redis/index.js", import.meta.url));
/**
 * How long the first call not yet issued may wait, in ms, before the open-loop pacer thread wakes the client's
 * main thread for it (bench/lib/pacer-worker.mjs): when no call is outstanding, and while calls are (their
 * answers wake the main thread, which then issues what is due).
 */
const PACER_IDLE_LAG_MS = arg("pacer-idle-lag-ms", 0.1);
const PACER_BUSY_LAG_MS = arg("pacer-busy-lag-ms", 0.5);
const KEYS = 10_000;
const PERIOD_MS = 60_000;
const LIMIT = 1e9;
const WARMUP_MS = 1000;
/**
 * Open loop: the offered rate rises linearly from 0 over the first RAMP_MS of the warm-up, so the JIT warms up
 * under a load it can serve (starting cold at full rate builds a backlog whose garbage the client then never
 * catches up with).
 */
const RAMP_MS = arg("ramp-ms", 500);
/** Flags of the open-loop children that the parent passes on. */
const OPEN_FLAGS = ["ramp-ms", "pacer-idle-lag-ms", "pacer-busy-lag-ms"];
const IN_FLIGHT = [1, 16, 64, 256];
/** The ioredis options the README recommends behind a Redis store. */
const CLIENT_OPTIONS = {
  enableAutoPipelining: false,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
};
/**
 * The open loop's floor references: the same client process, generator and schedule, issuing the cheapest Redis
 * round trip instead of a decision, so that the p99 this machine allows at a given rate is measured beside
 * Sluice's. FLOOR (also in the sweep): the calls coalesced by the store's own rule (at most 2 commands in flight,
 * the others queued and sent together at the end of the turn, at most 64 per command), one PING per batch: every
 * cost of a batched decision but the decision. GET_FLOOR: one GET of one missing key per call, through ioredis with
 * auto-pipelining (one pipeline in flight, each turn's calls queued behind it), what a plain ioredis client pays.
 */
const FLOOR = "floor-ping-batched";
const GET_FLOOR = "floor-get-autopipelined";
const isFloor = (sub) => sub === FLOOR || sub === GET_FLOOR;
/** FLOOR's batching: the store's defaults (maxInFlight, maxBatch). */
const FLOOR_IN_FLIGHT = 2;
const FLOOR_BATCH = 64;
/** The key GET_FLOOR reads (never set: the reply is a nil, which its calls check). */
const FLOOR_KEY = "floor";
/**
 * Open-loop subjects at 50 %: the store as shipped, per-tick batching (every tick's calls leave at once), and the
 * two floors.
 */
const OPEN_SUBJECTS = [
  "sluice-batched",
  "sluice-batched-per-tick",
  "sluice-batched-guarded",
  FLOOR,
  GET_FLOOR,
];
/**
 * `sluice-batched-guarded`'s failure policy timeout, in ms: the store as shipped behind `failure: { onError:
 * "fallback", timeoutMs }`, as every engine and `sluice serve` runs it. A call its timeout answers is counted as
 * answered by the policy (`policy_answered_pct`) at its timeout's latency, and, still queued, is never sent: the
 * backlog a stall leaves is shed instead of feeding the GC spiral that the unguarded client can fall into at 50 %.
 */
const GUARD_TIMEOUT_MS = 50;
/** What a guarded subject's call resolves to when the failure policy answered it. */
const POLICY = "policy";
/** A Redis command executing longer than this, in µs, counts as a Redis stall (SLOWLOG threshold of the server). */
const REDIS_STALL_US = 1000;
/** SLOWLOG entries kept by the server (stalls past this many in one run are not counted). */
const SLOWLOG_MAX_LEN = 10_000;
/** Sampling interval of the open loop's event-loop delay monitor, in ms. */
const LOOP_DELAY_RESOLUTION_MS = 10;
/** The latency target at half load (issue 3 §8): p99 <= 2 ms, in µs. */
const P99_TARGET_US = 2000;
/** Fractions of best tried, interleaved, for the highest load meeting the p99 target when 50 % misses it. */
const SWEEP = argText("sweep", "0.4,0.3,0.2,0.1,0.05")
  .split(",")
  .filter((x) => x !== "")
  .map(Number);

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function argText(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// ---------------------------------------------------------------- child: one subject over one connection
async function makeSubject(name, port) {
  const { Redis } = await import("ioredis");
  const client = new Redis({
    host: "127.0.0.1",
    port,
    ...CLIENT_OPTIONS,
    ...(name === GET_FLOOR ? { enableAutoPipelining: true } : {}),
  });
  if (client.status !== "ready") await once(client, "ready"); // no offline queue: wait until it can send
  await client.ping();
  // Commands Redis has run for the subject (EVALSHA + EVAL; PING or GET for a floor), and socket reads it has
  // processed (every client's, server-wide), read over a second connection.
  const stats = new Redis({ host: "127.0.0.1", port, enableAutoPipelining: false });
  const commands =
    {
      [FLOOR]: /^cmdstat_ping:calls=(\d+)/gm,
      [GET_FLOOR]: /^cmdstat_get:calls=(\d+)/gm,
    }[name] ?? /^cmdstat_(?:evalsha|eval):calls=(\d+)/gm;
  const scriptCalls = async () => {
    const info = await stats.info("commandstats");
    let n = 0;
    for (const m of info.matchAll(commands)) n += Number(m[1]);
    return n;
  };
  const redisReads = async () => {
    const m = /^total_reads_processed:(\d+)/m.exec(await stats.info("stats"));
    return m ? Number(m[1]) : Number.NaN;
  };
  // Commands Redis took longer than REDIS_STALL_US to execute (SLOWLOG, every client's; the server is started
  // with that threshold): `since()` clears the log, `stalls()` reads what was logged since. A script call that
  // normally runs in tens of µs and is logged here was slowed inside Redis (its CPU taken, or Redis itself busy):
  // the calls queued behind it wait as long, whatever the client does.
  const slowlogSince = () => stats.slowlog("RESET");
  const stalls = async () => {
    const entries = await stats.slowlog("GET", SLOWLOG_MAX_LEN);
    let count = 0;
    let maxUs = 0;
    let totalUs = 0;
    for (const e of entries) {
      const us = Number(e[2]);
      const command = String(e[3]?.[0]).toLowerCase();
      if (command === "slowlog" || command === "info") continue; // the bench's own bookkeeping
      count++;
      totalUs += us;
      if (us > maxUs) maxUs = us;
    }
    return { count, maxUs, totalUs };
  };
  const subject = await makeCall(name, client);
  return { call: subject.call, scriptCalls, redisReads, slowlogSince, stalls };
}

async function makeCall(name, client) {
  if (name === GET_FLOOR) {
    // One GET of one missing key per call, auto-pipelined by ioredis (see GET_FLOOR).
    return { call: (_k) => client.get(FLOOR_KEY).then((v) => v === null) };
  }
  if (name === FLOOR) {
    // Calls coalesced by the store's rule, one PING per batch (see FLOOR): a whole batch leaves at once, a partial
    // one at the end of the turn while fewer than 2 are in flight, else at the end of the turn an answer comes in.
    const queue = [];
    let inFlight = 0;
    let scheduled = false;
    const schedule = () => {
      if (!scheduled && queue.length > 0 && inFlight < FLOOR_IN_FLIGHT) {
        scheduled = true;
        setImmediate(flush);
      }
    };
    const send = () => {
      const batch = queue.splice(0, FLOOR_BATCH);
      inFlight++;
      client.ping().then(
        () => {
          inFlight--;
          for (const r of batch) r.resolve(true);
          schedule();
        },
        (e) => {
          inFlight--;
          for (const r of batch) r.reject(e);
        },
      );
    };
    const flush = () => {
      scheduled = false;
      while (queue.length > 0 && inFlight < FLOOR_IN_FLIGHT) send();
    };
    return {
      call: (_k) =>
        new Promise((resolve, reject) => {
          queue.push({ resolve, reject });
          if (queue.length >= FLOOR_BATCH) send();
          else schedule();
        }),
    };
  }
  if (name.startsWith("sluice-")) {
    const { createLimiter } = await import("../dist/index.js");
    const { redisStore } = await import("../dist/stores/redis/index.js");
    const options = {
      "sluice-batched": {},
      "sluice-batched-guarded": {},
      "sluice-unbatched": { batch: false },
      "sluice-batched-per-tick": { maxInFlight: 10_000 },
    }[name];
    if (!options) throw new Error(`unknown subject ${name}`);
    const store = redisStore({
      client,
      ...options,
      onWarning: (w) => {
        throw new Error(`redisStore warned: ${w.message}`);
      },
    });
    const guarded = name === "sluice-batched-guarded";
    const limiter = createLimiter({
      store,
      limits: { algorithm: "gcra", limit: LIMIT, periodMs: PERIOD_MS },
      // The store behind its failure policy, as every engine and `sluice serve` run it: a call unanswered after
      // GUARD_TIMEOUT_MS is answered by the policy (a local limiter), and dropped unsent if still queued.
      ...(guarded ? { failure: { onError: "fallback", timeoutMs: GUARD_TIMEOUT_MS } } : {}),
    });
    return {
      call: async (k) => {
        const d = await limiter.limit(k);
        if (d.reason !== "store") {
          if (guarded && d.reason === "fallback") return POLICY;
          throw new Error(`decision not from the store: ${d.reason}`);
        }
        return d.allowed;
      },
    };
  }
  if (name === "rate-limiter-flexible") {
    const { RateLimiterRedis } = await import("rate-limiter-flexible");
    const rl = new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: false,
      points: LIMIT,
      duration: PERIOD_MS / 1000,
      keyPrefix: "rlf",
    });
    return {
      call: async (k) => {
        try {
          await rl.consume(k, 1);
          return true;
        } catch (e) {
          if (e instanceof Error) throw e; // a Redis error, not a denial
          return false;
        }
      },
    };
  }
  throw new Error(`unknown subject ${name}`);
}

/**
 * A latency histogram (µs) of hdr-histogram-js's WebAssembly build. Its JavaScript build records a value in ~170 ns
 * here (a `Math.pow` and a `Math.log2` per value, which V8 runs in C++), the WebAssembly one in ~35 ns
 * (`recordValue` of 3 million spread values, session 21): an open-loop client records three values a call, so the
 * JavaScript build took ~0.4 µs of the client's CPU per call from the store it measures (perf: `ieee754::pow` and
 * `log2` were 15 % of the client's samples at 60 k/s).
 */
async function histogram() {
  const hdr = await import("hdr-histogram-js");
  await hdr.initWebAssembly();
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: true,
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Closed loop: `inFlight` workers, each keeping one call in flight, over the keys round-robin. */
async function closedChild(name, inFlight, seconds, port, redisPid) {
  const s = await makeSubject(name, port);
  const call = s.call;
  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  const hist = await histogram();
  const tck = clockTicks();
  let i = 0;
  let phase = 0; // 0 warm-up, 1 measured, 2 stop
  let ops = 0;
  let allowed = 0;
  const worker = async () => {
    while (phase < 2) {
      const k = keys[i];
      i = i + 1 === KEYS ? 0 : i + 1;
      const t0 = performance.now();
      const ok = await call(k);
      if (phase === 1) {
        hist.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
        ops++;
        if (ok) allowed++;
      }
    }
  };
  const workers = Array.from({ length: inFlight }, worker);
  await sleep(WARMUP_MS);
  const c0 = await s.scriptCalls();
  const cpu0 = process.cpuUsage();
  const r0 = procCpuSeconds(redisPid, tck);
  const w0 = runQueueWaitSeconds();
  const rw0 = runQueueWaitSeconds(redisPid);
  const cs0 = contextSwitches();
  const rcs0 = contextSwitches(redisPid);
  const t0 = performance.now();
  phase = 1;
  await sleep(seconds * 1000);
  phase = 2;
  const t1 = performance.now();
  const r1 = procCpuSeconds(redisPid, tck);
  const w1 = runQueueWaitSeconds();
  const rw1 = runQueueWaitSeconds(redisPid);
  const cs1 = contextSwitches();
  const rcs1 = contextSwitches(redisPid);
  const cpu = process.cpuUsage(cpu0);
  const c1 = await s.scriptCalls();
  await Promise.all(workers);
  const wallS = (t1 - t0) / 1000;
  return {
    opsPerS: ops / wallS,
    decisionsPerCall: ops / Math.max(1, c1 - c0),
    p50: hist.getValueAtPercentile(50),
    p99: hist.getValueAtPercentile(99),
    nodeCpuPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100,
    redisCpuPct: ((r1 - r0) / wallS) * 100,
    nodeRunQueuePct: ((w1 - w0) / wallS) * 100,
    redisRunQueuePct: ((rw1 - rw0) / wallS) * 100,
    nodeWakeupsPerS: (cs1.voluntary - cs0.voluntary) / wallS,
    redisWakeupsPerS: (rcs1.voluntary - rcs0.voluntary) / wallS,
    allowedFrac: ops === 0 ? 0 : allowed / ops,
  };
}

/**
 * Open loop at `rate` calls/s: calls are due on a fixed schedule (`schedule` of bench/lib/pacer-worker.mjs: a
 * linear ramp over RAMP_MS, then `rate`) whatever happened to earlier ones; the latency of each is measured from
 * its due time. Calls due during the first second are the warm-up. The main thread issues what is due whenever
 * it runs (after each answer, and when the pacer thread wakes it; see the module comment). Besides latency: each
 * call's lateness (issued minus due: the generator's own delay, which it shares with the client as a server's
 * handlers would), its service time (answered minus issued), the event loop's delay over the measured phase,
 * GC pauses, Node's CPU, and how often calls were issued and the pacer had to wake the main thread.
 */
async function openChild(name, rate, seconds, port, redisPid, generator) {
  const s = await makeSubject(name, port);
  const call = s.call;
  const keys = Array.from({ length: KEYS }, (_, i) => `user:${i}`);
  const hist = await histogram();
  const lateHist = await histogram();
  const serviceHist = await histogram();
  // The event loop's delay, sampled by a timer every LOOP_DELAY_RESOLUTION_MS (a sparse timer: each wake-up costs
  // the client CPU). The histogram holds the intervals between its firings, so the resolution is taken off.
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  const delayUs = (ns) => Math.max(0, Math.round(ns / 1000 - LOOP_DELAY_RESOLUTION_MS * 1000));
  // Garbage collection pauses during the measured phase.
  let gcOn = false;
  let gcMaxMs = 0;
  let gcTotalMs = 0;
  const gc = new PerformanceObserver((list) => {
    if (!gcOn) return;
    for (const e of list.getEntries()) {
      gcTotalMs += e.duration;
      if (e.duration > gcMaxMs) gcMaxMs = e.duration;
    }
  });
  gc.observe({ entryTypes: ["gc"] });
  const tck = clockTicks();
  // The rate ramps up over RAMP_MS, then holds; the calls due from WARMUP_MS on are measured.
  const rampCalls = (rate / 1000) * (RAMP_MS / 2);
  const total = Math.round(rampCalls + ((WARMUP_MS - RAMP_MS + seconds * 1000) * rate) / 1000);
  const firstMeasured = Math.ceil(rampCalls + ((WARMUP_MS - RAMP_MS) * rate) / 1000);
  const maxOutstanding = 100_000;
  let issued = 0;
  let completed = 0;
  let measured = 0;
  let allowed = 0;
  let policy = 0;
  let skipped = 0;
  let k = 0;
  let r0;
  let w0;
  let rw0;
  let cpu0;
  let cs0;
  let rcs0;
  let t0m;
  let c0;
  let reads0;
  let slow0;
  let failure;
  let lastArrival = 0;
  let maxGap = 0; // longest gap between two arrivals of load in the measured phase (GC, a busy CPU, callbacks)
  let groups = 0; // times the main thread found calls due and issued them (one synchronous loop each)
  let posts = 0; // messages from the pacer thread (wake-ups of the main thread that only the pacer caused)
  const us = (ms) => Math.max(1, Math.round(ms * 1000));
  // One time base for both threads: process.hrtime (CLOCK_MONOTONIC), in ms. The main thread reads it through
  // performance.now() plus a fixed offset (no BigInt per read: several reads per call).
  const hrMs = () => Number(process.hrtime.bigint()) / 1e6;
  const offsetMs = hrMs() - performance.now();
  const nowMs = () => performance.now() + offsetMs;
  const start = nowMs() + 50; // room for the pacer thread to start; the first second is warm-up anyway
  const { dueAtMs, dueBy } = schedule({ startMs: start, perS: rate, rampMs: RAMP_MS });
  const shared = new Int32Array(new SharedArrayBuffer(SHARED_LENGTH * 4));
  await new Promise((resolve, reject) => {
    const settle = () => {
      if (completed === total) resolve();
    };
    /** Issues every call due by now, each timed from its own due time, in one synchronous loop. */
    const issueDue = () => {
      const now = nowMs();
      const due = Math.min(total, dueBy(now));
      if (due <= issued) return;
      groups++;
      if (issued > firstMeasured && now - lastArrival > maxGap) maxGap = now - lastArrival;
      lastArrival = now;
      while (issued < due) {
        const n = issued++;
        if (n === firstMeasured) {
          r0 = procCpuSeconds(redisPid, tck);
          w0 = runQueueWaitSeconds();
          rw0 = runQueueWaitSeconds(redisPid);
          cs0 = contextSwitches();
          rcs0 = contextSwitches(redisPid);
          cpu0 = process.cpuUsage();
          gcOn = true;
          groups = 1;
          posts = 0;
          t0m = dueAtMs(n); // its due time: a loop running late shows as a lower achieved rate
          c0 = s.scriptCalls();
          reads0 = s.redisReads();
          slow0 = s.slowlogSince();
          loopDelay.enable();
        }
        if (issued - completed > maxOutstanding) {
          skipped++;
          completed++;
          continue;
        }
        const dueAt = dueAtMs(n);
        const issuedAt = nowMs();
        if (n >= firstMeasured) lateHist.recordValue(us(issuedAt - dueAt));
        const key = keys[k];
        k = k + 1 === KEYS ? 0 : k + 1;
        call(key).then(
          (ok) => {
            if (n >= firstMeasured) {
              const doneAt = nowMs();
              hist.recordValue(us(doneAt - dueAt));
              serviceHist.recordValue(us(doneAt - issuedAt));
              measured++;
              if (ok === POLICY) policy++;
              else if (ok) allowed++;
            }
            Atomics.store(shared, COMPLETED, ++completed);
            // Awake anyway: take up the calls that fell due meanwhile, as a server reads its sockets.
            if (piggyback && issued < total) issueDue();
            settle();
          },
          (e) => {
            failure ??= e;
            Atomics.store(shared, COMPLETED, ++completed);
            settle();
          },
        );
      }
      Atomics.store(shared, ISSUED, issued);
      settle();
    };
    const piggyback = generator !== "spin";
    if (generator === "spin") {
      // The load paced by the client's own loop: setImmediate, issuing whatever is due on every turn.
      const pump = () => {
        issueDue();
        if (issued < total) setImmediate(pump);
      };
      setTimeout(pump, 50);
    } else {
      const pacer = startPacer(
        {
          startMs: start,
          perS: rate,
          rampMs: RAMP_MS,
          total,
          idleLagMs: PACER_IDLE_LAG_MS,
          busyLagMs: PACER_BUSY_LAG_MS,
          shared,
        },
        () => {
          posts++;
          issueDue();
        },
      );
      pacer.on("error", reject);
    }
  });
  loopDelay.disable();
  gcOn = false;
  gc.disconnect();
  if (failure) throw failure;
  const wallS = (nowMs() - t0m) / 1000;
  const r1 = procCpuSeconds(redisPid, tck);
  const w1 = runQueueWaitSeconds();
  const rw1 = runQueueWaitSeconds(redisPid);
  const cs1 = contextSwitches();
  const rcs1 = contextSwitches(redisPid);
  const cpu = process.cpuUsage(cpu0);
  const scriptCalls = (await s.scriptCalls()) - (await c0);
  const redisReads = (await s.redisReads()) - (await reads0);
  await slow0;
  const stalls = await s.stalls();
  return {
    rate,
    redisStalls: stalls.count,
    redisStallMaxUs: stalls.maxUs,
    redisStallTotalMs: stalls.totalUs / 1000,
    generator,
    achievedPerS: measured / wallS,
    decisionsPerCall: measured / Math.max(1, scriptCalls),
    callsPerRedisRead: measured / Math.max(1, redisReads),
    maxGapUs: Math.round(maxGap * 1000),
    issueGroupsPerS: groups / wallS,
    pacerPostsPerS: posts / wallS,
    cpuUsPerCall: (cpu.user + cpu.system) / Math.max(1, measured),
    nodeWakeupsPerS: (cs1.voluntary - cs0.voluntary) / wallS,
    nodePreemptionsPerS: (cs1.involuntary - cs0.involuntary) / wallS,
    redisWakeupsPerS: (rcs1.voluntary - rcs0.voluntary) / wallS,
    p50: hist.getValueAtPercentile(50),
    p99: hist.getValueAtPercentile(99),
    p999: hist.getValueAtPercentile(99.9),
    max: hist.maxValue,
    latenessP50: lateHist.getValueAtPercentile(50),
    latenessP99: lateHist.getValueAtPercentile(99),
    serviceP50: serviceHist.getValueAtPercentile(50),
    serviceP99: serviceHist.getValueAtPercentile(99),
    loopDelayP99Us: delayUs(loopDelay.percentile(99)),
    loopDelayMaxUs: delayUs(loopDelay.max),
    nodeCpuPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100,
    redisCpuPct: ((r1 - r0) / wallS) * 100,
    nodeRunQueuePct: ((w1 - w0) / wallS) * 100,
    redisRunQueuePct: ((rw1 - rw0) / wallS) * 100,
    gcMaxUs: Math.round(gcMaxMs * 1000),
    gcPct: (gcTotalMs / 1000 / wallS) * 100,
    allowedFrac: measured === 0 ? 0 : (allowed + policy) / measured,
    policyPct: measured === 0 ? 0 : (policy / measured) * 100,
    skipped,
  };
}

// ---------------------------------------------------------------- parent helpers
/**
 * Sluice's own single-decision gcra call, exactly as the unbatched store sends it: one real `limiter.limit()`
 * through a client wrapper that records the EVALSHA (the store's EVAL fallback on NOSCRIPT also loads the
 * script into our server). The identity is `__rand_int__`, replaced per command by the load generator.
 * Returns { sha, argv: Buffer[] } for `EVALSHA sha ...argv` (argv = numKeys, key, ARGV...).
 */
async function sluiceCeilingCall(port) {
  const { Redis } = await import("ioredis");
  const { createLimiter } = await import("../dist/index.js");
  const { redisStore } = await import(STORE_DIST);
  const client = new Redis({ host: "127.0.0.1", port, enableAutoPipelining: false });
  let sent;
  // With the Buffer forms, as the store sends with an ioredis client (apply.lua's binary reply).
  const recorder = {
    evalsha: (sha, numKeys, ...rest) => {
      sent ??= { sha, numKeys, rest };
      return client.evalsha(sha, numKeys, ...rest);
    },
    eval: (...a) => client.eval(...a),
    evalshaBuffer: (sha, numKeys, ...rest) => {
      sent ??= { sha, numKeys, rest };
      return client.evalshaBuffer(sha, numKeys, ...rest);
    },
    evalBuffer: (...a) => client.evalBuffer(...a),
  };
  try {
    const store = redisStore({ client: recorder, batch: false });
    const limiter = createLimiter({
      store,
      limits: { algorithm: "gcra", limit: LIMIT, periodMs: PERIOD_MS },
    });
    const d = await limiter.limit("__rand_int__");
    if (!d.allowed || d.reason !== "store") throw new Error(`probe decision: ${JSON.stringify(d)}`);
    if (!sent) throw new Error("the store sent no EVALSHA");
    const [exists] = await client.script("EXISTS", sent.sha);
    if (exists !== 1) throw new Error(`script ${sent.sha} is not loaded after the probe call`);
    if (sent.numKeys !== 1) throw new Error(`expected 1 key for one gcra decision, got ${sent.numKeys}`);
    return { sha: sent.sha, argv: checkLayout([sent.numKeys, ...sent.rest]) };
  } finally {
    client.disconnect();
  }
}

/** rate-limiter-flexible's own script and arguments (as RateLimiterRedis sends them), for the tool check. */
async function rlfCeilingCall(redis) {
  const { RateLimiterRedis } = await import("rate-limiter-flexible");
  const rl = new RateLimiterRedis({
    storeClient: { defineCommand() {} },
    useRedisPackage: false,
    points: LIMIT,
    duration: PERIOD_MS / 1000,
  });
  const script = rl._incrTtlLuaScript;
  if (typeof script !== "string") throw new Error("rate-limiter-flexible: no _incrTtlLuaScript");
  const sha = redis.cli("SCRIPT", "LOAD", script);
  const secs = String(PERIOD_MS / 1000);
  return { sha, argv: checkLayout([1, "rlf:__rand_int__", "1", secs, String(LIMIT), secs]) };
}

/** The arguments as Buffers; `__rand_int__` must appear once, in the (only) key. */
function checkLayout(argv) {
  const bufs = argv.map((x) => (Buffer.isBuffer(x) ? x : Buffer.from(String(x))));
  const at = bufs.map((b, i) => (b.includes("__rand_int__") ? i : -1)).filter((i) => i >= 0);
  if (at.length !== 1 || at[0] !== 1) throw new Error(`unexpected call layout: ${bufs.map(String)}`);
  return bufs;
}

/** Whether redis-benchmark can send these arguments (C strings: no NUL byte; its -x truncates at NUL too). */
const benchmarkable = (argv) => argv.every((b) => !b.includes(0));

/** Readable form of a command for the JSON lines: text as is, binary arguments as hex. */
function describe(sha, argv) {
  const text = (b) => !b.includes(0) && /^[\x20-\x7e]*$/.test(b.toString("latin1"));
  return `EVALSHA ${sha} ${argv.map((b) => (text(b) ? b.toString() : `0x${b.toString("hex")}`)).join(" ")}`;
}

const CEILING_N = 200_000;

/**
 * One `redis-benchmark -n 200000 -c 50 -P 16 -r 10000 -q EVALSHA ...` run: requests/s. The C client runs
 * pinned to CPU 0, like the Node clients.
 */
function redisBenchmark(port, sha, argv) {
  return redisBenchmarkCommand(port, ["EVALSHA", sha, ...argv.map(String)]);
}

function redisBenchmarkCommand(port, command) {
  const [cmd, ...rest] = [
    ...pinPrefix(0),
    "redis-benchmark",
    ...["-h", "127.0.0.1", "-p", String(port), "-n", String(CEILING_N), "-c", "50", "-P", "16"],
    ...["-r", String(KEYS), "-q", ...command],
  ];
  const out = execFileSync(cmd, rest, {
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const m = [...out.matchAll(/([\d.]+) requests per second/g)].pop();
  if (!m) throw new Error(`redis-benchmark printed no rate:\n${out}`);
  return Number(m[1]);
}

/**
 * The same load where redis-benchmark cannot send the arguments (binary, with NUL bytes): 200,000 EVALSHA
 * commands, each key's `__rand_int__` replaced by a random 12-digit number below 10,000 (as redis-benchmark),
 * written as raw RESP to a file and sent with `redis-cli --pipe` (one connection, pipelined without bound,
 * binary-safe), pinned to CPU 0. Requests/s over the wall time of the redis-cli process.
 */
function redisPipe(port, sha, argv, dir) {
  const file = join(dir, `pipe-${sha.slice(0, 8)}.resp`);
  if (!existsSync(file)) {
    const bulk = (b) => Buffer.concat([Buffer.from(`$${b.length}\r\n`), b, Buffer.from("\r\n")]);
    const head = Buffer.concat([
      Buffer.from(`*${argv.length + 2}\r\n`),
      bulk(Buffer.from("EVALSHA")),
      bulk(Buffer.from(sha)),
      bulk(argv[0]),
    ]);
    const tail = Buffer.concat(argv.slice(2).map(bulk));
    const [before, after] = argv[1].toString("latin1").split("__rand_int__");
    const fd = openSync(file, "w");
    try {
      const chunk = [];
      for (let i = 0; i < CEILING_N; i++) {
        const id = String(Math.floor(Math.random() * KEYS)).padStart(12, "0");
        chunk.push(head, bulk(Buffer.from(before + id + after, "latin1")), tail);
        if (chunk.length >= 3 * 4096 || i === CEILING_N - 1) {
          writeSync(fd, Buffer.concat(chunk));
          chunk.length = 0;
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  const [cmd, ...rest] = [...pinPrefix(0), "redis-cli", "-h", "127.0.0.1", "-p", String(port), "--pipe"];
  const input = openSync(file, "r");
  try {
    const t0 = performance.now();
    const r = spawnSync(cmd, rest, { stdio: [input, "pipe", "pipe"], encoding: "utf8", timeout: 120_000 });
    const ms = performance.now() - t0;
    const m = /errors: (\d+), replies: (\d+)/.exec(r.stdout);
    if (r.status !== 0 || !m || Number(m[1]) !== 0 || Number(m[2]) < CEILING_N)
      throw new Error(`redis-cli --pipe failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    return (CEILING_N / ms) * 1000;
  } finally {
    closeSync(input);
  }
}

/** Report whose table shows throughput in k/s (Redis rates are far below 1 M/s); same JSON lines. */
class RedisReport extends Report {
  print() {
    const value = (r) => {
      if (r.metric === "ops_per_s") return `${(r.value / 1e3).toFixed(1)} k/s`;
      if (r.metric === "ratio") return `${r.value.toFixed(2)}×`;
      if (r.metric === "max_fraction_of_best") return `${(r.value * 100).toFixed(1)} % of best`;
      if (r.metric.endsWith("_pct")) return `${r.value.toFixed(r.value < 10 ? 1 : 0)} %`;
      if (r.metric.endsWith("_us")) return `${Math.round(r.value)} µs`;
      if (!Number.isInteger(r.value)) return r.value.toFixed(1);
      return String(r.value);
    };
    const fmt = (r) =>
      `${value(r)}${r.target !== undefined ? `  (target ${r.target})` : ""}${r.flag ? `  [${r.flag}]` : ""}`;
    const cols = [
      ["case", (r) => r.case],
      ["subject", (r) => r.subject],
      ["metric", (r) => r.metric],
      ["value", fmt],
    ];
    const widths = cols.map(([h, f]) => Math.max(h.length, ...this.rows.map((r) => f(r).length)));
    const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
    console.log(line(cols.map(([h]) => h)));
    console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const r of this.rows) console.log(line(cols.map(([, f]) => f(r))));
    console.log("");
    for (const r of this.rows) console.log(JSON.stringify(r));
  }
}

/**
 * Runs the open-loop child for every config (at its own `rate`, else at `rate`), `rounds` times interleaved;
 * results by label.
 */
function openRuns(configs, defaultRate, rounds, child, redis) {
  const runs = new Map(configs.map((c) => [c.label, []]));
  for (let r = 0; r < rounds; r++) {
    for (const { sub, gen, label, rate: own } of configs) {
      const rate = own ?? defaultRate;
      redis.cli("FLUSHALL");
      const res = child("open", sub, rate, gen);
      if (res.allowedFrac !== 1) throw new Error(`open loop ${label}: allowed fraction ${res.allowedFrac}`);
      runs.get(label).push(res);
      progress(
        `round ${r + 1} open loop ${label} @${(rate / 1e3).toFixed(1)} k/s: achieved ` +
          `${(res.achievedPerS / 1e3).toFixed(1)} k/s p50 ${res.p50} µs p99 ${res.p99} µs p99.9 ${res.p999} µs ` +
          `(generator lateness p99 ${res.latenessP99} µs, service p99 ${res.serviceP99} µs, loop delay p99 ` +
          `${res.loopDelayP99Us} µs max ${res.loopDelayMaxUs} µs) node ${res.nodeCpuPct.toFixed(0)} % ` +
          `redis ${res.redisCpuPct.toFixed(0)} % (stalls >= ${REDIS_STALL_US / 1000} ms: ${res.redisStalls}, ` +
          `longest ${(res.redisStallMaxUs / 1e3).toFixed(1)} ms, total ${res.redisStallTotalMs.toFixed(1)} ms) ` +
          `${isFloor(sub) ? "" : `${res.decisionsPerCall.toFixed(1)} decisions/script call, `}` +
          `${res.callsPerRedisRead.toFixed(1)} calls/Redis socket read, ` +
          `GC ${res.gcPct.toFixed(1)} % (max ${res.gcMaxUs} µs), waiting for a CPU: node ` +
          `${res.nodeRunQueuePct.toFixed(1)} % redis ${res.redisRunQueuePct.toFixed(1)} %` +
          `, longest gap between arrivals ${(res.maxGapUs / 1e3).toFixed(1)} ms, ` +
          `${res.issueGroupsPerS.toFixed(0)} issue groups/s, ${res.pacerPostsPerS.toFixed(0)} pacer wake-ups/s, ` +
          `wake-ups/s: node ${res.nodeWakeupsPerS.toFixed(0)} redis ${res.redisWakeupsPerS.toFixed(0)}, node ` +
          `preempted ${res.nodePreemptionsPerS.toFixed(0)}/s` +
          `${res.skipped ? `, skipped ${res.skipped}` : ""}${overloaded(res) ? " OVERLOADED" : ""}`,
      );
    }
  }
  return runs;
}

/** Whether an open-loop run fell behind its offered rate: its latency figures then measure the backlog. */
const overloaded = (res) => res.skipped > 0 || res.achievedPerS < res.rate * 0.97;

/** The table rows of one open-loop configuration (medians over its rounds). */
function addOpenRows(report, caseName, label, list, { offered, fractionOfBest, generator, target, floor }) {
  const add = (metric, field, extra) =>
    report.add(caseName, label, metric, median(list.map((x) => x[field])), extra);
  const p99 = median(list.map((x) => x.p99));
  add("ops_per_s", "achievedPerS", {
    offered,
    ...(fractionOfBest !== undefined ? { fractionOfBest } : {}),
    rounds: list.length,
    generator,
    overloadedRounds: list.filter(overloaded).length,
    skipped: list.map((x) => x.skipped),
  });
  add("p50_us", "p50");
  add("p99_us", "p99", {
    ...(target ? { target } : {}),
    rounds: list.map((x) => x.p99),
    // The floor's own p99 against the target: above it, this rate is out of reach on this machine now.
    ...(floor
      ? p99 > P99_TARGET_US
        ? { flag: "floor misses p99 <= 2 ms here", floorMeetsTarget: false }
        : { floorMeetsTarget: true }
      : {}),
  });
  add("p999_us", "p999");
  add("generator_lateness_p50_us", "latenessP50");
  add("generator_lateness_p99_us", "latenessP99");
  add("service_p99_us", "serviceP99");
  add("loop_delay_p99_us", "loopDelayP99Us");
  add("loop_delay_max_us", "loopDelayMaxUs");
  add("max_arrival_gap_us", "maxGapUs");
  add("gc_pct", "gcPct");
  add("gc_max_us", "gcMaxUs");
  add("node_cpu_pct", "nodeCpuPct");
  add("node_cpu_us_per_call", "cpuUsPerCall");
  add("redis_cpu_pct", "redisCpuPct");
  add("redis_stalls", "redisStalls");
  add("redis_stall_max_us", "redisStallMaxUs");
  add("redis_stall_total_ms", "redisStallTotalMs");
  add("node_run_queue_pct", "nodeRunQueuePct");
  add("redis_run_queue_pct", "redisRunQueuePct");
  if (!floor) add("decisions_per_script_call", "decisionsPerCall");
  if (label.startsWith("sluice-batched-guarded")) add("policy_answered_pct", "policyPct");
  add("calls_per_redis_read", "callsPerRedisRead");
  add("issue_groups_per_s", "issueGroupsPerS");
  add("pacer_wakeups_per_s", "pacerPostsPerS");
  add("node_wakeups_per_s", "nodeWakeupsPerS");
  add("node_preemptions_per_s", "nodePreemptionsPerS");
  add("redis_wakeups_per_s", "redisWakeupsPerS");
}

/**
 * Sluice's p99 over the floor's at the same rate, taken per round (median, min, max), with both medians; flagged
 * when the floor itself misses the p99 target there (the machine, not Sluice, then rules that rate out).
 */
function floorRatio(report, caseName, sluiceLabel, sluiceP99s, floorLabel, floorP99s) {
  const perRound = sluiceP99s.map((x, i) => x / floorP99s[i]);
  const floorP99 = median(floorP99s);
  const floorMisses = floorP99 > P99_TARGET_US;
  report.add(caseName, `p99 ${sluiceLabel}/${floorLabel}`, "ratio", median(perRound), {
    min: Math.min(...perRound),
    max: Math.max(...perRound),
    rounds: perRound.length,
    sluiceP99Us: median(sluiceP99s),
    floorP99Us: floorP99,
    floorMeetsTarget: !floorMisses,
    ...(floorMisses ? { flag: `floor p99 ${floorP99} µs: misses p99 <= 2 ms at this rate` } : {}),
  });
  if (floorMisses) progress(`${caseName}: the floor itself misses p99 <= 2 ms (${floorP99} µs)`);
}

// ---------------------------------------------------------------- main
/** How many CPUs' worth of time the machine spent busy over half a second (from /proc/stat), 0 if unknown. */
async function busyCpus() {
  const sample = () => {
    try {
      const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
    } catch {
      return undefined;
    }
  };
  const a = sample();
  await new Promise((r) => setTimeout(r, 500));
  const b = sample();
  if (!a || !b || b.total === a.total) return 0;
  const cpus = availableParallelism();
  return (1 - (b.idle - a.idle) / (b.total - a.total)) * cpus;
}

function progress(line) {
  process.stderr.write(`  ${line}\n`);
}

if (process.argv.includes("--child")) {
  const [mode, name, a, b, port, pid, generator] = process.argv.slice(process.argv.indexOf("--child") + 1);
  const result =
    mode === "closed"
      ? await closedChild(name, Number(a), Number(b), Number(port), Number(pid))
      : await openChild(name, Number(a), Number(b), Number(port), Number(pid), generator);
  console.log(JSON.stringify(result));
  process.exit(0);
} else {
  const rounds = arg("rounds", 3);
  const seconds = arg("seconds", 5);
  const openRate = arg("open-rate", 0);
  const generatorArg = argText("generator", "thread");
  if (!["thread", "spin", "both"].includes(generatorArg))
    throw new Error(`--generator must be thread, spin or both, got ${generatorArg}`);
  const generators = generatorArg === "both" ? ["thread", "spin"] : [generatorArg];
  for (const bin of ["redis-server", "redis-cli", "redis-benchmark"])
    if (!which(bin)) throw new Error(`${bin} not found: apt-get install -y redis-server redis-tools`);
  const haveStore = existsSync(STORE_DIST);
  const subjects = [
    ...(haveStore ? ["sluice-batched", "sluice-batched-per-tick", "sluice-unbatched"] : []),
    "rate-limiter-flexible",
  ];
  if (!haveStore)
    progress(`${STORE_DIST} is missing (npm run build): Sluice subjects and the ceiling skipped`);
  const busy = await busyCpus();
  if (busy > 0.3)
    progress(
      `WARNING: ${busy.toFixed(1)} of the CPUs were busy before the run: other load skews these figures`,
    );
  const redis = await startRedisServer({
    cpu: 1,
    extraArgs: [
      "--slowlog-log-slower-than",
      String(REDIS_STALL_US),
      "--slowlog-max-len",
      String(SLOWLOG_MAX_LEN),
    ],
  });
  const work = benchTempDir("load");
  const report = new RedisReport("redis");
  try {
    progress(
      `redis-server pid ${redis.pid} on 127.0.0.1:${redis.port}${redis.pinned ? " (CPU 1)" : " (not pinned)"}`,
    );
    // The open-loop tuning flags, passed on to every child as given.
    const tuning = OPEN_FLAGS.flatMap((f) => (process.argv.includes(`--${f}`) ? [`--${f}`, argText(f)] : []));
    // --node-args "…": V8/Node flags for every measuring child (e.g. GC tuning), quoted in the output.
    const nodeArgs = argText("node-args", "")
      .split(" ")
      .filter((x) => x !== "");
    if (nodeArgs.length > 0) progress(`children run with node ${nodeArgs.join(" ")}`);
    const child = (mode, subject, a, generator = "thread") =>
      runChild(
        self,
        [
          "--child",
          mode,
          subject,
          String(a),
          String(seconds),
          String(redis.port),
          String(redis.pid),
          generator,
          ...tuning,
        ],
        nodeArgs,
      );

    // The one-script-per-decision ceiling: Sluice's own call, by redis-benchmark when it can send it.
    const ceiling = haveStore ? await sluiceCeilingCall(redis.port) : undefined;
    let ceilingName;
    let ceilingRun;
    if (ceiling) {
      const tool = benchmarkable(ceiling.argv) ? "redis-benchmark" : "redis-cli --pipe";
      ceilingName = `ceiling (${tool})`;
      ceilingRun = () =>
        tool === "redis-benchmark"
          ? redisBenchmark(redis.port, ceiling.sha, ceiling.argv)
          : redisPipe(redis.port, ceiling.sha, ceiling.argv, work);
      progress(`ceiling by ${tool}: ${describe(ceiling.sha, ceiling.argv)}`);
    }
    // When the ceiling needs redis-cli --pipe, compare that tool with redis-benchmark on a script both can send.
    const check = ceiling && !benchmarkable(ceiling.argv) ? await rlfCeilingCall(redis) : undefined;

    const samples = new Map();
    const push = (key, v) => {
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key).push(v);
    };
    const expectKeys = (what) => {
      const n = Number(redis.cli("DBSIZE"));
      if (n < KEYS * 0.99)
        throw new Error(`${what} left ${n} keys, expected ~${KEYS}: not every call was allowed`);
    };
    const stat = (list) => ({ median: median(list), min: Math.min(...list), max: Math.max(...list), rounds });
    const opsOf = (n, s) => samples.get(`${n}|${s}`).map((x) => x.opsPerS);
    // A ratio is taken per round (its two figures measured minutes apart at most), then summarised:
    // load from outside the benchmark then weighs on both sides of each ratio alike.
    const ratio = (caseName, a, listA, b, listB, target) => {
      if (!listA || !listB) return;
      const { median: v, ...spread } = stat(listA.map((x, i) => x / listB[i]));
      report.add(caseName, `${a}/${b}`, "ratio", v, { ...spread, ...(target ? { target } : {}) });
    };
    const has = (s) => subjects.includes(s);
    const best = new Map();
    // --open-rate N: only the open-loop runs, at N calls/s (no closed loops, ceiling or machine reference).
    for (let r = 0; r < (openRate ? 0 : rounds); r++) {
      for (const n of IN_FLIGHT) {
        for (const s of subjects) {
          redis.cli("FLUSHALL");
          const res = child("closed", s, n);
          if (res.allowedFrac !== 1) throw new Error(`${s} @${n}: allowed fraction ${res.allowedFrac}`);
          push(`${n}|${s}`, res);
          progress(
            `round ${r + 1} ${s} @${n}: ${(res.opsPerS / 1e3).toFixed(1)} k/s p50 ${res.p50} µs p99 ${res.p99} µs ` +
              `node ${res.nodeCpuPct.toFixed(0)} % redis ${res.redisCpuPct.toFixed(0)} % ` +
              `${res.decisionsPerCall.toFixed(1)} decisions/script call, waiting for a CPU: node ` +
              `${res.nodeRunQueuePct.toFixed(1)} % redis ${res.redisRunQueuePct.toFixed(1)} %, wake-ups/s: node ` +
              `${res.nodeWakeupsPerS.toFixed(0)} redis ${res.redisWakeupsPerS.toFixed(0)}`,
          );
        }
      }
      if (ceiling) {
        redis.cli("FLUSHALL");
        const v = ceilingRun();
        expectKeys(ceilingName);
        push("ceiling", v);
        progress(`round ${r + 1} ${ceilingName}: ${(v / 1e3).toFixed(1)} k/s`);
      }
      redis.cli("FLUSHALL");
      const incr = redisBenchmarkCommand(redis.port, ["INCR", "cnt:__rand_int__"]);
      push("incr", incr);
      progress(
        `round ${r + 1} machine reference, redis-benchmark INCR -P 16: ${(incr / 1e3).toFixed(1)} k/s`,
      );
      if (check) {
        redis.cli("FLUSHALL");
        const b = redisBenchmark(redis.port, check.sha, check.argv);
        expectKeys("redis-benchmark rlf");
        redis.cli("FLUSHALL");
        const p = redisPipe(redis.port, check.sha, check.argv, work);
        expectKeys("redis-cli --pipe rlf");
        push("check|redis-benchmark", b);
        push("check|redis-cli --pipe", p);
        progress(
          `round ${r + 1} rlf script: redis-benchmark ${(b / 1e3).toFixed(1)} k/s, --pipe ${(p / 1e3).toFixed(1)} k/s`,
        );
      }
    }

    if (!openRate) {
      for (const n of IN_FLIGHT) {
        const caseName = `${n} in flight`;
        for (const s of subjects) {
          const list = samples.get(`${n}|${s}`);
          const { median: ops, ...spread } = stat(list.map((x) => x.opsPerS));
          report.add(caseName, s, "ops_per_s", ops, spread);
          report.add(caseName, s, "p50_us", median(list.map((x) => x.p50)));
          report.add(caseName, s, "p99_us", median(list.map((x) => x.p99)));
          report.add(caseName, s, "node_cpu_pct", median(list.map((x) => x.nodeCpuPct)));
          report.add(caseName, s, "redis_cpu_pct", median(list.map((x) => x.redisCpuPct)));
          report.add(caseName, s, "decisions_per_script_call", median(list.map((x) => x.decisionsPerCall)));
          report.add(caseName, s, "node_run_queue_pct", median(list.map((x) => x.nodeRunQueuePct)));
          report.add(caseName, s, "redis_run_queue_pct", median(list.map((x) => x.redisRunQueuePct)));
          report.add(caseName, s, "node_wakeups_per_s", median(list.map((x) => x.nodeWakeupsPerS)));
          report.add(caseName, s, "redis_wakeups_per_s", median(list.map((x) => x.redisWakeupsPerS)));
          if (!best.has(s) || ops > best.get(s).value) best.set(s, { value: ops, inFlight: n, ...spread });
        }
        if (has("sluice-batched")) {
          const b = opsOf(n, "sluice-batched");
          ratio(
            caseName,
            "sluice-batched",
            b,
            "rate-limiter-flexible",
            opsOf(n, "rate-limiter-flexible"),
            ">= 2",
          );
          ratio(caseName, "sluice-batched", b, "sluice-unbatched", opsOf(n, "sluice-unbatched"));
          ratio(
            caseName,
            "sluice-batched",
            b,
            "sluice-batched-per-tick",
            opsOf(n, "sluice-batched-per-tick"),
          );
        }
      }

      // Best vs best: each subject at the in-flight level with its highest median, compared round by round.
      const bestCase = "best in-flight level";
      const bestOps = (s) => (has(s) ? opsOf(best.get(s).inFlight, s) : undefined);
      for (const s of subjects) {
        const { value, ...extra } = best.get(s);
        report.add(bestCase, s, "ops_per_s", value, extra);
      }
      if (ceiling) {
        const list = samples.get("ceiling");
        const { median: v, ...spread } = stat(list);
        const cmd = describe(ceiling.sha, ceiling.argv);
        report.add(bestCase, ceilingName, "ops_per_s", v, { ...spread, command: cmd, requests: CEILING_N });
        ratio(bestCase, "sluice-batched", bestOps("sluice-batched"), ceilingName, list, ">= 1.5");
        ratio(bestCase, "sluice-unbatched", bestOps("sluice-unbatched"), ceilingName, list);
        ratio(bestCase, "rate-limiter-flexible", bestOps("rate-limiter-flexible"), ceilingName, list);
      }
      const rlfBest = bestOps("rate-limiter-flexible");
      ratio(bestCase, "sluice-batched", bestOps("sluice-batched"), "rate-limiter-flexible", rlfBest, ">= 2");
      ratio(
        bestCase,
        "sluice-batched",
        bestOps("sluice-batched"),
        "sluice-batched-per-tick",
        bestOps("sluice-batched-per-tick"),
      );
      ratio(
        bestCase,
        "sluice-batched",
        bestOps("sluice-batched"),
        "sluice-unbatched",
        bestOps("sluice-unbatched"),
      );

      if (check) {
        const caseName = "ceiling tool check: rlf script";
        for (const tool of ["redis-benchmark", "redis-cli --pipe"]) {
          const { median: v, ...spread } = stat(samples.get(`check|${tool}`));
          report.add(caseName, tool, "ops_per_s", v, { ...spread, command: describe(check.sha, check.argv) });
        }
        const pipe = samples.get("check|redis-cli --pipe");
        ratio(caseName, "redis-cli --pipe", pipe, "redis-benchmark", samples.get("check|redis-benchmark"));
      }

      {
        // How fast this machine is right now: baselines.md §2c measured 1.68 M/s here on a quiet machine.
        const { median: v, ...spread } = stat(samples.get("incr"));
        report.add("machine reference", "redis-benchmark INCR -c 50 -P 16", "ops_per_s", v, {
          ...spread,
          quietMachine: 1.68e6,
        });
      }
    }

    // Latency at half load: open loop at 50% of Sluice batched's best closed-loop throughput, for the store as
    // shipped, for per-tick batching and for the floor reference, interleaved round by round.
    if (openRate || best.has("sluice-batched")) {
      const bestOps = openRate ? undefined : best.get("sluice-batched").value;
      const rate = openRate || Math.round(bestOps / 2);
      const caseName = openRate ? `open loop at ${rate} calls/s` : "open loop at 50% of best";
      // One configuration per subject and generator; labels name the generator only when several are compared.
      const configs = OPEN_SUBJECTS.flatMap((sub) =>
        generators.map((gen) => ({ sub, gen, label: generators.length > 1 ? `${sub} (${gen})` : sub })),
      );
      const runs = openRuns(configs, rate, rounds, child, redis);
      for (const { sub, gen, label } of configs) {
        addOpenRows(report, caseName, label, runs.get(label), {
          offered: rate,
          ...(bestOps ? { fractionOfBest: 0.5 } : {}),
          generator: gen,
          target: sub === "sluice-batched" && gen === "thread" ? "<= 2000" : undefined,
          floor: isFloor(sub),
        });
      }
      const p99s = (label) => runs.get(label).map((x) => x.p99);
      const labelOf = (sub, gen) => configs.find((c) => c.sub === sub && c.gen === gen).label;
      for (const gen of generators) {
        const perTick = labelOf("sluice-batched-per-tick", gen);
        const adaptive = labelOf("sluice-batched", gen);
        ratio(caseName, `p99 ${perTick}`, p99s(perTick), adaptive, p99s(adaptive));
        for (const sub of [FLOOR, GET_FLOOR]) {
          const floor = labelOf(sub, gen);
          floorRatio(report, caseName, adaptive, p99s(adaptive), floor, p99s(floor));
        }
      }
      if (generators.length > 1) {
        const spin = labelOf("sluice-batched", "spin");
        const thread = labelOf("sluice-batched", "thread");
        ratio(caseName, `p99 ${spin}`, p99s(spin), thread, p99s(thread));
      }

      // When p99 <= 2 ms misses at 50 %: the highest offered load (fraction of the same best) at which it holds,
      // over a grid of lower fractions (SWEEP), the store as shipped with the thread generator, each beside the
      // floor at the same rate. The runs are interleaved round by round, like every other comparison here, so
      // load from outside falls on all of them alike; each one's median p99 decides, and each is printed with the
      // same breakdown.
      const shipped = generators.includes("thread") ? labelOf("sluice-batched", "thread") : undefined;
      const floorAt50 = generators.includes("thread") ? labelOf(FLOOR, "thread") : undefined;
      const p99At50 = shipped ? median(p99s(shipped)) : undefined;
      if (bestOps && shipped && p99At50 > P99_TARGET_US && SWEEP.length > 0) {
        const sweepCase = "open loop: highest load with p99 <= 2 ms";
        const steps = SWEEP.flatMap((fraction) =>
          ["sluice-batched", FLOOR].map((sub) => ({
            fraction,
            sub,
            gen: "thread",
            label: `${(fraction * 100).toFixed(0)}%${sub === FLOOR ? " floor" : ""}`,
            rate: Math.round(bestOps * fraction),
          })),
        );
        const sweep = openRuns(steps, undefined, rounds, child, redis);
        const p99Of = (label) => median(sweep.get(label).map((x) => x.p99));
        const held = [];
        const floorHeld = [];
        for (const step of steps) {
          const list = sweep.get(step.label);
          const caseOf = `open loop at ${(step.fraction * 100).toFixed(0)}% of best`;
          addOpenRows(report, caseOf, step.sub, list, {
            offered: step.rate,
            fractionOfBest: step.fraction,
            generator: "thread",
            target: step.sub === FLOOR ? undefined : "<= 2000",
            floor: step.sub === FLOOR,
          });
          if (median(list.map((x) => x.p99)) <= P99_TARGET_US)
            (step.sub === FLOOR ? floorHeld : held).push(step);
          if (step.sub === FLOOR) {
            const own = steps.find((st) => st.fraction === step.fraction && st.sub !== FLOOR);
            const sluiceP99s = sweep.get(own.label).map((x) => x.p99);
            floorRatio(
              report,
              caseOf,
              "sluice-batched",
              sluiceP99s,
              FLOOR,
              list.map((x) => x.p99),
            );
          }
        }
        const highest = (list) =>
          list.length > 0 ? list.reduce((x, y) => (y.fraction > x.fraction ? y : x)) : undefined;
        const top = highest(held);
        const floorTop = highest(floorHeld);
        const at = (label, field) =>
          median((label === shipped || label === floorAt50 ? runs : sweep).get(label).map((x) => x[field]));
        const breakdown = (label, suffix) =>
          Object.fromEntries(
            ["p99", "latenessP99", "serviceP99", "loopDelayP99Us", "gcPct", "gcMaxUs", "nodeRunQueuePct"]
              .concat(["redisRunQueuePct", "nodeCpuPct", "decisionsPerCall"])
              .map((f) => [`${f}${suffix}`, at(label, f)]),
          );
        const sluiceSteps = steps.filter((st) => st.sub !== FLOOR);
        const floorSteps = steps.filter((st) => st.sub === FLOOR);
        const floorP99At50 = floorAt50 ? median(p99s(floorAt50)) : undefined;
        report.add(sweepCase, "sluice-batched", "max_fraction_of_best", top ? top.fraction : 0, {
          offered: top ? top.rate : 0,
          best: bestOps,
          p99TargetUs: P99_TARGET_US,
          tried: [0.5, ...SWEEP],
          p99ByFractionUs: Object.fromEntries([
            [0.5, p99At50],
            ...sluiceSteps.map((st) => [st.fraction, p99Of(st.label)]),
          ]),
          floorP99ByFractionUs: Object.fromEntries([
            [0.5, floorP99At50],
            ...floorSteps.map((st) => [st.fraction, p99Of(st.label)]),
          ]),
          floorMaxFractionOfBest: floorP99At50 <= P99_TARGET_US ? 0.5 : floorTop ? floorTop.fraction : 0,
          ...(top ? breakdown(top.label, "AtMax") : {}),
          ...breakdown(shipped, "At50Pct"),
          note: top
            ? `median p99 <= ${P99_TARGET_US} µs at ${held.map((st) => st.fraction).join(", ")} of best`
            : `median p99 <= ${P99_TARGET_US} µs at none of ${SWEEP.join(", ")} of best`,
        });
        progress(
          `open loop: median p99 by fraction of best (Sluice / floor): 50 %: ${p99At50} / ${floorP99At50} µs, ` +
            sluiceSteps
              .map((st, i) => `${st.label}: ${p99Of(st.label)} / ${p99Of(floorSteps[i].label)} µs`)
              .join(", ") +
            `; p99 <= ${P99_TARGET_US} µs holds up to ${top ? top.label : "none"} ` +
            `(the floor's: up to ${floorP99At50 <= P99_TARGET_US ? "50%" : floorTop ? floorTop.label : "none"})`,
        );
      }
    }
  } finally {
    redis.stop();
    rmSync(work, { recursive: true, force: true });
  }
  report.print();
}

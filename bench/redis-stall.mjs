// `npm run bench -- redis-stall [--rounds 3] [--stall-ms 60] [--fraction 0.5] [--seconds 6]`
//
// What one stall of the client's own event loop costs a Limiter on the Redis store behind its failure policy
// (`failure: { onError: "fallback", timeoutMs: 50 }`, as every engine and `sluice serve` run it), with Redis
// healthy throughout: how many decisions the local fallback answered instead of Redis.
//
// Method: a private redis-server pinned to CPU 1; each subject in a fresh Node process pinned to CPU 0, over one
// ioredis connection (the options the README recommends), 10,000 keys, gcra allowed (limit 1e9 per minute).
// First the closed-loop rate of the store as shipped (256 calls in flight, 2 s after 1 s of warm-up); then, per
// round and subject, an open loop at `--fraction` of it (calls due at a constant rate, issued by a zero-delay
// timer loop, each timed from its due time) for `--seconds`, with the main thread held busy for `--stall-ms` at
// 3 s (what a long task or a collection does). Reported per subject (median over rounds): the decisions the
// fallback answered in the 1.5 s from the stall, the breaker's openings, and the p99 latency over those 1.5 s.
//
// Subjects:
// - `shipped`: the store as shipped. Calls that time out still queued in the process (their ticket marked `queued`
//   by the store's batching) are the process's own backlog, not failures of Redis: a run of them alone opens the
//   breaker for min(openMs, timeoutMs) (resilient-store.ts, "Local overload");
// - `unmarked`: the same store behind a wrapper that hides the `queued` marks from the failure policy (its tickets
//   still shed settled calls): every timeout counts as a failure of Redis, and a run of five opens the breaker for
//   `openMs` (1 s), as before the marks existed.
// The peer is the physical floor too: `due_during_stall`, the decisions due while the loop was stalled, none of
// which could be sent in time.
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.mjs";
import { startRedisServer } from "./lib/redis-server.mjs";
import { median, Report } from "./lib/report.mjs";

const self = fileURLToPath(import.meta.url);
const KEYS = 10_000;
const LIMIT = 1e9;
const PERIOD_MS = 60_000;
const TIMEOUT_MS = 50;
const STALL_AT_MS = 3000;
const AFTER_MS = 1500;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A Limiter over the Redis store on `port`, behind the failure policy; `unmarked`: the `queued` marks hidden. */
async function makeLimiter(port, unmarked) {
  const { Redis } = await import("ioredis");
  const { createLimiter, resilientStore } = await import("../dist/index.js");
  const { redisStore } = await import("../dist/stores/redis/index.js");
  const client = new Redis({
    host: "127.0.0.1",
    port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });
  if (client.status !== "ready") await once(client, "ready");
  const redis = redisStore({ client });
  let inner = redis;
  if (unmarked) {
    // The store's calls with a ticket that passes `settled` through and drops the `queued` marks.
    inner = {
      name: redis.name,
      shared: redis.shared,
      apply: (items, op, nowMs) => redis.apply(items, op, nowMs),
      applyTo: (items, op, nowMs, onDecisions, onError, ticket) =>
        redis.applyTo(
          items,
          op,
          nowMs,
          onDecisions,
          onError,
          ticket === undefined
            ? undefined
            : {
                get settled() {
                  return ticket.settled;
                },
                set queued(_) {},
              },
        ),
      release: (...a) => redis.release(...a),
      close: () => redis.close(),
    };
  }
  let opened = 0;
  const store = resilientStore(inner, {
    onError: "fallback",
    timeoutMs: TIMEOUT_MS,
    onStateChange: (c) => {
      if (c.to === "open") opened++;
    },
  });
  const limiter = createLimiter({ store, limits: { algorithm: "gcra", limit: LIMIT, periodMs: PERIOD_MS } });
  return { limiter, store, opened: () => opened, close: () => client.disconnect() };
}

const keys = Array.from({ length: KEYS }, (_, i) => `k${i}`);

/** Closed loop: decisions/s of the store as shipped at 256 in flight. */
async function closedLoop(port) {
  const { limiter, close } = await makeLimiter(port, false);
  let n = 0;
  let stop = false;
  const worker = async (w) => {
    for (let i = w; !stop; i += 256) {
      const d = await limiter.limit(keys[i % KEYS]);
      if (d.reason !== "store") throw new Error(`closed loop: decision from ${d.reason}`);
      n++;
    }
  };
  const workers = Array.from({ length: 256 }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, 1000));
  n = 0;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 2000));
  const perS = (n * 1000) / (performance.now() - t0);
  stop = true;
  await Promise.all(workers);
  close();
  return { perS };
}

/** Open loop at `rate`/s for `seconds`, the loop stalled for `stallMs` at STALL_AT_MS. */
async function openLoop(port, unmarked, rate, seconds, stallMs) {
  const { limiter, opened, close } = await makeLimiter(port, unmarked);
  for (let i = 0; i < 2000; i++) await limiter.limit(keys[i % KEYS]); // script loaded, code warm
  const lat = [];
  let fallback = 0;
  let fallbackAll = 0;
  let openedAtStall = 0;
  let issued = 0;
  let stalled = false;
  const t0 = performance.now();
  const endMs = seconds * 1000;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now() - t0;
      if (!stalled && now >= STALL_AT_MS) {
        stalled = true;
        openedAtStall = opened();
        const until = performance.now() + stallMs;
        while (performance.now() < until);
      }
      const due = Math.min(
        Math.floor(((performance.now() - t0) * rate) / 1000),
        Math.floor((endMs * rate) / 1000),
      );
      while (issued < due) {
        const dueAt = (issued * 1000) / rate;
        const n = issued++;
        limiter.limit(keys[n % KEYS]).then((d) => {
          const inWindow = dueAt >= STALL_AT_MS && dueAt < STALL_AT_MS + AFTER_MS;
          if (d.reason === "fallback") {
            fallbackAll++;
            if (inWindow) fallback++;
          } else if (d.reason !== "store") throw new Error(`open loop: decision from ${d.reason}`);
          if (inWindow) lat.push(performance.now() - t0 - dueAt);
        });
      }
      if (now < endMs) setTimeout(tick, 0);
      else setTimeout(resolve, 300);
    };
    tick();
  });
  close();
  lat.sort((a, b) => a - b);
  return {
    fallback,
    fallbackAll,
    opened: opened() - openedAtStall,
    p99Ms: lat[Math.floor(lat.length * 0.99)] ?? Number.NaN,
    windowDecisions: lat.length,
  };
}

if (process.argv[2] === "--child") {
  const [, , , mode, port, unmarked, rate, seconds, stallMs] = process.argv;
  const result =
    mode === "closed"
      ? await closedLoop(Number(port))
      : await openLoop(Number(port), unmarked === "1", Number(rate), Number(seconds), Number(stallMs));
  console.log(JSON.stringify(result));
  process.exit(0);
} else {
  const rounds = arg("rounds", 3);
  const stallMs = arg("stall-ms", 60);
  const fraction = arg("fraction", 0.5);
  const seconds = arg("seconds", 6);
  const redis = await startRedisServer({ cpu: 1 });
  const child = async (args) => runChild(self, ["--child", ...args.map(String)]);
  try {
    const { perS } = await child(["closed", redis.port, 0, 0, 0, 0]);
    const rate = Math.round(perS * fraction);
    process.stderr.write(
      `  closed loop ${(perS / 1000).toFixed(1)} k/s; open loop at ${(rate / 1000).toFixed(1)} k/s\n`,
    );
    const subjects = ["shipped", "unmarked"];
    const results = Object.fromEntries(subjects.map((s) => [s, []]));
    for (let r = 1; r <= rounds; r++) {
      for (const s of subjects) {
        const res = await child(["open", redis.port, s === "unmarked" ? 1 : 0, rate, seconds, stallMs]);
        results[s].push(res);
        process.stderr.write(
          `  round ${r} ${s}: fallback ${res.fallback} of ${res.windowDecisions} decisions in the ${AFTER_MS} ms ` +
            `from the stall (${res.fallbackAll} in the run), breaker opened ${res.opened}×, p99 ${res.p99Ms.toFixed(1)} ms\n`,
        );
      }
    }
    const report = new Report("redis-stall");
    const caseName = `${stallMs} ms stall at ${(rate / 1000).toFixed(1)} k/s (${fraction * 100} % of closed loop)`;
    const due = Math.round((stallMs * rate) / 1000);
    report.add(caseName, "due_during_stall", "decisions", due);
    for (const s of subjects) {
      const rs = results[s];
      report.add(caseName, s, "fallback_decisions", median(rs.map((x) => x.fallback)), {
        rounds: rs.map((x) => x.fallback),
        window_ms: AFTER_MS,
      });
      report.add(caseName, s, "breaker_openings", median(rs.map((x) => x.opened)));
      report.add(caseName, s, "p99_ms", median(rs.map((x) => x.p99Ms)));
    }
    report.ratio(caseName, "shipped", "unmarked", "fallback_decisions");
    report.add(
      caseName,
      "shipped/due_during_stall",
      "ratio",
      median(results.shipped.map((x) => x.fallback)) / due,
    );
    report.print();
  } finally {
    redis.stop();
  }
}

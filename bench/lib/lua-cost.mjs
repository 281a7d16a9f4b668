// `node bench/lib/lua-cost.mjs [--scripts DIR[,DIR2...]] [--calls N] [--rounds R]
//   [--algos gcra,token_bucket,...] [--items 1,64] [--regime allow|deny] [--clock server|client]
//   [--shape groups|group] [--replies binary|array|binary,array] [--json]`
//
// Micro-harness (not a test) for the cost of the Redis store's Lua script INSIDE Redis: starts a private
// redis-server (bench/lib/redis-server.mjs, pinned to CPU 1), loads the script assembled as script.ts assembles
// it (from the `.lua` files in --scripts, default src/stores/redis/scripts, so a Lua edit needs no build; the
// ARGV comes from dist's encodeBatch, so a protocol change needs `npm run build`), and sends EVALSHA calls of 1
// and 64 consume items (one limit each, 10,000 keys round-robin) over one ioredis connection, pipelined. With
// --shape groups (the default) each item is its own group, as the batched store coalesces separate Limiter
// calls; with --shape group the items form one all-or-nothing group (one Store call of many items). The
// figure is Redis's own: INFO commandstats `usec` of evalsha (which includes the GET / SET / TIME the script
// runs) over the calls, divided by the items per call: µs per decision inside Redis. Also printed: redis-server's
// CPU time per decision (/proc utime + stime: it adds the request parsing and reply writing, and it does not
// count time the server lost to other processes, which the usec figure does on a busy machine), the nested
// redis.call count per decision and the wall-clock decisions/s (client-bound, for context only).
//
// --replies: the reply forms asked for (apply.lua's ARGV[2], see its header): binary (the store's, with a client
// that has evalshaBuffer; the default) or array (integers; the store's with other clients); both: each script is
// measured with each form, as separate variants.
//
// Several comma-separated --scripts directories (say, a copy of the `.lua` files before a change, and the
// current ones) are measured in the same run, round by round in turn, so machine noise falls on each alike;
// the reply is not decoded, so they only need to share the ARGV layout. A copy of the committed ones:
//   mkdir -p /tmp/lua-head && for f in src/stores/redis/scripts/*.lua; do
//     git show HEAD:$f > /tmp/lua-head/$(basename $f); done
//   node bench/lib/lua-cost.mjs --scripts /tmp/lua-head,src/stores/redis/scripts
//
// --algos takes algorithm ids, or ids joined by "+" for a set of several limits per item (apply.lua's
// small-state path for small-state algorithms; sliding_log, bucketed_window, concurrency take its general path).
// Regimes: allow (limit 1e9 per 60 s: every decision is allowed and writes) or deny (limit 1 per hour, the
// keys exhausted during warm-up: every decision is denied and writes nothing). Clock: server (`TIME` in the
// script, the store's default) or client (the now passed in ARGV).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { clockTicks, procCpuSeconds, startRedisServer } from "./redis-server.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const scriptDirs = arg("scripts", join(root, "src/stores/redis/scripts"))
  .split(",")
  .map((d) => resolve(d));
const CALL_DECISIONS = Number(arg("calls", "200000")); // decisions per measured round
const ROUNDS = Number(arg("rounds", "3"));
const ALGOS = arg("algos", "gcra,token_bucket,fixed_window").split(",");
const ITEMS = arg("items", "1,64").split(",").map(Number);
const REGIME = arg("regime", "allow");
const CLOCK = arg("clock", "server");
const SHAPE = arg("shape", "groups");
const REPLIES = arg("replies", "binary").split(",");
const KEYS = 10_000;
const PIPELINE = 64; // EVALSHA calls per pipeline; several pipelines in flight
const IN_FLIGHT = 4;

const { assembleScript } = await import(join(root, "dist/stores/redis/script.js"));
const { encodeBatch } = await import(join(root, "dist/stores/redis/protocol.js"));
const { createLimitSet } = await import(join(root, "dist/algorithms/limit-set.js"));
const { parseLimitSpec } = await import(join(root, "dist/core/limit-spec.js"));
const { Redis } = await import("ioredis");

// The variants: every script directory with every reply form.
const variants = scriptDirs.flatMap((dir) => REPLIES.map((reply) => ({ dir, binary: reply === "binary" })));
const sources = scriptDirs.map((dir) => assembleScript((name) => readFileSync(join(dir, name), "utf8")));
const label = (i) =>
  variants.length === 1 ? "" : ` [${variants[i].dir}, ${variants[i].binary ? "binary" : "array"} reply]`;

/** The limit set of `algorithms` ("gcra", or "gcra+fixed_window" for a set of two limits). */
function limitsOf(algorithms) {
  const specs = algorithms.split("+").map((algorithm, i) =>
    parseLimitSpec({
      name: `p${i}`,
      ...(REGIME === "deny"
        ? { algorithm, limit: 1, periodMs: 3_600_000 }
        : { algorithm, limit: 1e9, periodMs: 60_000 }),
    }),
  );
  return createLimitSet("ns", specs);
}

/** Parses INFO commandstats into { cmd: { calls, usec } }. */
function commandStats(info) {
  const out = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  }
  return out;
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const redis = await startRedisServer({ cpu: 1 });
const client = new Redis({ host: "127.0.0.1", port: redis.port, enableAutoPipelining: false });
const tck = clockTicks();
const results = [];
try {
  const loaded = [];
  for (const source of sources) loaded.push(await client.script("LOAD", source));
  const shas = variants.map((v) => loaded[scriptDirs.indexOf(v.dir)]);
  const keyOf = (set, key) => set.specs.map((spec) => `rl:{${key}}:ns:${spec.name}`);

  /** The KEYS and ARGV of one call of `items` items from key number `k` (cached with the server clock). */
  const encoded = new Map();
  function encode(set, items, k, binary) {
    const cacheKey = `${items}:${k}:${binary}`;
    let enc = CLOCK === "server" ? encoded.get(cacheKey) : undefined;
    if (enc === undefined) {
      const now = CLOCK === "client" ? Date.now() : "";
      const item = (i) => ({ limits: set, key: `user:${(k + i) % KEYS}`, cost: 1 });
      const groups =
        SHAPE === "groups"
          ? Array.from({ length: items }, (_, i) => ({ op: "consume", items: [item(i)], now }))
          : [{ op: "consume", items: Array.from({ length: items }, (_, i) => item(i)), now }];
      const e = encodeBatch(groups, keyOf, 1000, binary);
      enc = [e.keys.length, ...e.keys, ...e.args];
      if (CLOCK === "server") encoded.set(cacheKey, enc);
    }
    return enc;
  }

  /** Sends `calls` EVALSHA calls of `items` items each, keys round-robin from cursor.k. */
  async function run(sha, set, items, calls, cursor, binary) {
    let sent = 0;
    const one = () => {
      const p = client.pipeline();
      const n = Math.min(PIPELINE, calls - sent);
      for (let c = 0; c < n; c++) {
        if (binary) p.evalshaBuffer(sha, ...encode(set, items, cursor.k, true));
        else p.evalsha(sha, ...encode(set, items, cursor.k, false));
        cursor.k = (cursor.k + items) % KEYS;
      }
      sent += n;
      return p.exec().then((res) => {
        for (const [err] of res) if (err) throw err;
      });
    };
    const lanes = Array.from({ length: IN_FLIGHT }, async () => {
      while (sent < calls) await one();
    });
    await Promise.all(lanes);
  }

  for (const algorithm of ALGOS) {
    for (const items of ITEMS) {
      await client.flushall();
      encoded.clear();
      const set = limitsOf(algorithm);
      const cursor = { k: 0 };
      const calls = Math.max(1, Math.round(CALL_DECISIONS / items));
      for (let v = 0; v < shas.length; v++) {
        const warm = Math.max(Math.ceil(KEYS / items) * 2, Math.round(calls / 4));
        await run(shas[v], set, items, warm, cursor, variants[v].binary); // warm-up
      }
      const m = shas.map(() => ({ usec: [], cpu: [], nested: [], rate: [] }));
      for (let r = 0; r < ROUNDS; r++) {
        for (let v = 0; v < shas.length; v++) {
          await client.config("RESETSTAT");
          const c0 = procCpuSeconds(redis.pid, tck);
          const t0 = performance.now();
          await run(shas[v], set, items, calls, cursor, variants[v].binary);
          const wall = (performance.now() - t0) / 1000;
          const c1 = procCpuSeconds(redis.pid, tck);
          const stats = commandStats(await client.info("commandstats"));
          const ev = stats.evalsha;
          m[v].usec.push(ev.usec / ev.calls / items);
          m[v].cpu.push(((c1 - c0) * 1e6) / (calls * items));
          let inner = 0;
          for (const [cmd, s] of Object.entries(stats)) {
            if (cmd !== "evalsha" && cmd !== "config" && cmd !== "info") inner += s.calls;
          }
          m[v].nested.push(inner / (ev.calls * items));
          m[v].rate.push((calls * items) / wall);
        }
      }
      for (let v = 0; v < shas.length; v++) {
        const row = {
          script: variants[v].dir,
          reply: variants[v].binary ? "binary" : "array",
          algorithm,
          items,
          regime: REGIME,
          clock: CLOCK,
          shape: SHAPE,
          usPerDecision: median(m[v].usec),
          usPerDecisionMinMax: [Math.min(...m[v].usec), Math.max(...m[v].usec)],
          cpuUsPerDecision: median(m[v].cpu),
          redisCallsPerDecision: median(m[v].nested),
          wallDecisionsPerS: median(m[v].rate),
        };
        results.push(row);
        if (!process.argv.includes("--json")) {
          console.log(
            `${algorithm.padEnd(14)} items=${String(items).padStart(3)} ${REGIME}/${CLOCK}: ` +
              `${row.usPerDecision.toFixed(2)} µs/decision in Redis ` +
              `(min ${row.usPerDecisionMinMax[0].toFixed(2)}, max ${row.usPerDecisionMinMax[1].toFixed(2)}), ` +
              `redis CPU ${row.cpuUsPerDecision.toFixed(2)} µs/decision, ` +
              `${row.redisCallsPerDecision.toFixed(2)} redis.call/decision, ` +
              `wall ${(row.wallDecisionsPerS / 1e3).toFixed(0)} k decisions/s${label(v)}`,
          );
        }
      }
    }
  }
  if (process.argv.includes("--json")) console.log(JSON.stringify(results));
} finally {
  client.disconnect();
  redis.stop();
}

// `npm run bench -- engine [--rounds 3] [--seconds 2]`
//
// Decisions/s on one core through the whole engine, beside the raw Limiter on the same store kind, in the same run.
//
// Engine (`engine:checkSync`, `engine:check`): each call is one request `{ domain, descriptors: [[user, endpoint]] }`
// of a configuration of 1,000 rules (50 domains × 20 endpoint path patterns, `[user (any), endpoint (shared
// path)]`) and 100,000 identities in 2 tiers (10% premium, which every rule gives its own limits): validation →
// matcher (domain, entry keys, path walk) → tier lookup → the rule's (or tier's) LimitSet → memory store. Requests
// cycle through 100,000 precomputed (user, domain, endpoint) triples, one per user, so the engine holds 100,000
// counters; each counter's key is the user value string of the request (see RuleMatch.counterKey).
//
// Limiter (`limiter:limitSync`, `limiter:limit`): one limiter of the same algorithm on its own memory store of the
// same capacity, called with the very same 100,000 user value strings, in the same order: the same number of
// distinct keys, the same key strings, so the store work per call (hash lookups, state, cache misses) is the same.
// Both sides use prebuilt strings whose hashes V8 caches; `limiter:limitSync+key` builds its key per call
// (`user:${id}`, a fresh string to hash) as a caller deriving a key does. What the engine does on top (matching,
// the tier lookup, reading its larger request objects) is what the ratio measures. One asymmetry remains and is
// inherent: the limiter's loop does nothing between store calls, so the CPU overlaps the cache misses of
// consecutive calls; inside the engine the same store call pays them in full.
//
// Every subject runs in its own fresh process pinned to CPU 0; rounds are interleaved so noise falls on all; the
// table shows the median, preceded by min / median / max per subject. Measure on a quiet machine: the load
// average is printed at the start and the end.
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.mjs";
import { median, Report } from "./lib/report.mjs";

const self = fileURLToPath(import.meta.url);
const USERS = 100_000;
const DOMAINS = 50;
const PATTERNS = 20;
const PERIOD = "1m";
const LIMIT = 1e12; // the allowed regime: every check passes, so all work is done and nothing short-circuits

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Endpoint pattern k and a concrete path matching it. */
function pattern(k) {
  switch (k % 4) {
    case 0:
      return [`/api/v1/r${k}/:id`, (id) => `/api/v1/r${k}/${id}`];
    case 1:
      return [`/api/v1/r${k}/:id/items/*`, (id) => `/api/v1/r${k}/${id}/items/${id % 7}`];
    case 2:
      return [`/api/v2/r${k}`, () => `/api/v2/r${k}`];
    default:
      return [`/api/v2/r${k}/*`, (id) => `/api/v2/r${k}/x/${id % 13}`];
  }
}

/** The configuration as written (native format); validated and compiled by the real loader. */
function configValue() {
  const rules = [];
  for (let d = 0; d < DOMAINS; d++) {
    for (let k = 0; k < PATTERNS; k++) {
      rules.push({
        id: `d${d}-e${k}`,
        domain: `svc-${d}`,
        match: [{ key: "user" }, { key: "endpoint", path: pattern(k)[0] }],
        limits: [{ name: "per-minute", algorithm: "gcra", limit: LIMIT, period: PERIOD }],
        tiers: { premium: [{ name: "premium", algorithm: "gcra", limit: 2 * LIMIT, period: PERIOD }] },
      });
    }
  }
  const identities = {};
  for (let u = 0; u < USERS; u++) identities[`user:${u}`] = u % 10 === 0 ? "premium" : "free";
  return { tiers: ["free", "premium"], identities, rules };
}

// ---------------------------------------------------------------- child: throughput of one subject
async function makeSubject(name) {
  const { createLimiter, memoryStore } = await import("../dist/index.js");
  if (name.startsWith("limiter:")) {
    const limiter = createLimiter({
      store: memoryStore({ capacity: 2 * USERS }),
      limits: { algorithm: "gcra", limit: LIMIT, period: PERIOD },
    });
    if (name === "limiter:limitSync+key") {
      // The key built per call from the request's value, as a caller does (a fresh string to hash each time).
      const values = Array.from({ length: USERS }, (_, i) => String((i * 7919) % USERS));
      return { inputs: values, sync: (v) => limiter.limitSync(`user:${v}`).allowed };
    }
    // The engine's counter keys: the user value strings of its requests, in the same order.
    const keys = Array.from({ length: USERS }, (_, i) => String((i * 7919) % USERS));
    if (name === "limiter:limitSync") return { inputs: keys, sync: (k) => limiter.limitSync(k).allowed };
    return { inputs: keys, async: async (k) => (await limiter.limit(k)).allowed };
  }
  const { createEngine } = await import("../dist/engine/engine.js");
  const { configFromValue } = await import("../dist/rules/load-config.js");
  const config = configFromValue(configValue(), "bench");
  const engine = createEngine({ config, store: memoryStore({ capacity: 2 * USERS }) });
  // Users in a shuffled order, each with a domain and an endpoint: 100,000 distinct counters.
  const requests = [];
  for (let i = 0; i < USERS; i++) {
    const u = (i * 7919) % USERS;
    const [, concrete] = pattern((i * 31) % PATTERNS);
    requests.push({
      domain: `svc-${(i * 17) % DOMAINS}`,
      descriptors: [
        [
          { key: "user", value: String(u) },
          { key: "endpoint", value: concrete(u) },
        ],
      ],
    });
  }
  const probe = engine.checkSync(requests[0]);
  if (probe.descriptors[0].match === undefined) throw new Error("bench requests do not match any rule");
  if (probe.descriptors[0].match.counterKey !== requests[0].descriptors[0][0].value)
    throw new Error(
      "the engine's counter key is not the user value: the limiter side would count other keys",
    );
  if (name === "engine:checkSync") return { inputs: requests, sync: (r) => engine.checkSync(r).allowed };
  return { inputs: requests, async: async (r) => (await engine.check(r)).allowed };
}

async function throughputChild(name, seconds) {
  const s = await makeSubject(name);
  const { inputs } = s;
  const n = inputs.length;
  const run = async (ms) => {
    let ops = 0;
    let admitted = 0;
    const start = performance.now();
    const end = start + ms;
    let i = 0;
    if (s.sync) {
      const f = s.sync;
      for (;;) {
        for (let j = 0; j < 1024; j++) {
          if (f(inputs[i])) admitted++;
          i = i + 1 === n ? 0 : i + 1;
        }
        ops += 1024;
        if (performance.now() >= end) break;
      }
    } else {
      const f = s.async;
      for (;;) {
        for (let j = 0; j < 1024; j++) {
          if (await f(inputs[i])) admitted++;
          i = i + 1 === n ? 0 : i + 1;
        }
        ops += 1024;
        if (performance.now() >= end) break;
      }
    }
    return { ops, admitted, ms: performance.now() - start };
  };
  await run(1000); // warm-up: JIT, and every counter inserted
  const r = await run(seconds * 1000);
  return { opsPerS: (r.ops / r.ms) * 1000, admittedFrac: r.admitted / r.ops };
}

// ---------------------------------------------------------------- parent
if (process.argv.includes("--child")) {
  const [name, seconds] = process.argv.slice(process.argv.indexOf("--child") + 1);
  console.log(JSON.stringify(await throughputChild(name, Number(seconds))));
} else {
  const { loadavg } = await import("node:os");
  const load = () => loadavg()[0].toFixed(2);
  const rounds = arg("rounds", 3);
  const seconds = arg("seconds", 2);
  process.stderr.write(`  load average at start: ${load()}\n`);
  const report = new Report("engine");
  const subjects = [
    "engine:checkSync",
    "limiter:limitSync",
    "limiter:limitSync+key",
    "engine:check",
    "limiter:limit",
  ];
  const samples = new Map(subjects.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    for (const s of subjects) {
      const res = runChild(self, ["--child", s, String(seconds)]);
      if (Math.abs(res.admittedFrac - 1) > 0.001)
        throw new Error(`${s}: admitted fraction ${res.admittedFrac}`);
      samples.get(s).push(res.opsPerS);
      process.stderr.write(`  ${s} round ${r + 1}: ${(res.opsPerS / 1e6).toFixed(2)} M/s\n`);
    }
  }
  process.stderr.write(`  load average at end: ${load()}\n`);
  const caseName = "1000 rules, 100k identities, 20 endpoint patterns, allowed";
  for (const s of subjects) {
    const v = samples.get(s);
    report.add(caseName, s, "ops_per_s", median(v), { min: Math.min(...v), max: Math.max(...v), rounds });
  }
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync", "ops_per_s", ">= 0.5");
  report.ratio(caseName, "engine:check", "limiter:limit", "ops_per_s", ">= 0.5");
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync+key");
  const fmt = (v) => `${(v / 1e6).toFixed(2)}`;
  for (const s of subjects) {
    const v = samples.get(s);
    console.log(
      `${s.padEnd(22)} min ${fmt(Math.min(...v))} / median ${fmt(median(v))} / max ${fmt(Math.max(...v))} M/s`,
    );
  }
  console.log("");
  report.print();
}

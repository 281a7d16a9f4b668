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
// Limiter over the engine's namespaces (`limiter:limitSync@rules`, `limiter:limit@rules`): the engine counts each
// rule, and each rule's premium tier, in a namespace of its own (see engine-compile.ts), so its 100,000 counters
// are spread over one table of the store per namespace, where the limiter above keeps them in one. (The request
// triples fall on 100 (domain, endpoint) pairs, each all premium or all free users, so 100 of the 1,000 rules and
// 100 namespaces are exercised.) This peer does exactly the engine's key work: one limiter per namespace the
// engine counts in (named alike, same limits), all on one store, each call to the limiter of the namespace the
// engine counts that request in, with the same keys in the same order. It is handed the limiter to call (that
// choice is the engine's matching, which the ratio measures). Against it the ratio measures what the engine adds;
// against the single limiter, also the cost of spreading counters over one table per rule.
//
// Every subject runs in its own fresh process pinned to CPU 0; rounds are interleaved so noise falls on all; the
// table shows the median, preceded by min / median / max per subject. Throughput is per second of the process's
// CPU time, so time spent descheduled by other work does not count; cache interference does: measure on a quiet
// machine (the load average is printed at the start and the end).
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

/** The user, domain and endpoint of request `i`, one request per user. */
function requestOf(i) {
  const u = (i * 7919) % USERS;
  const d = (i * 17) % DOMAINS;
  const k = (i * 31) % PATTERNS;
  return { u, d, k, user: String(u), domain: `svc-${d}`, endpoint: pattern(k)[1](u) };
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
    if (name.endsWith("@rules")) {
      // One limiter per namespace the engine counts in (each rule's limits and its premium tier's), on one store.
      const store = memoryStore({ capacity: 2 * USERS });
      const limiters = new Map();
      const limiterOf = (ns, limit) => {
        let l = limiters.get(ns);
        if (l === undefined) {
          l = createLimiter({ store, name: ns, limits: { algorithm: "gcra", limit, period: PERIOD } });
          limiters.set(ns, l);
        }
        return l;
      };
      const inputs = keys.map((key, i) => {
        const { u, d, k } = requestOf(i);
        const premium = u % 10 === 0;
        const ns = `svc-${d}/d${d}-e${k}${premium ? "/tier:premium" : ""}`;
        return { limiter: limiterOf(ns, premium ? 2 * LIMIT : LIMIT), key };
      });
      if (name === "limiter:limitSync@rules")
        return { inputs, sync: (x) => x.limiter.limitSync(x.key).allowed };
      return { inputs, async: async (x) => (await x.limiter.limit(x.key)).allowed };
    }
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
    const r = requestOf(i);
    requests.push({
      domain: r.domain,
      descriptors: [
        [
          { key: "user", value: r.user },
          { key: "endpoint", value: r.endpoint },
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
  // Time is the process's CPU time (user + system), not the wall clock: on a machine shared with other work, the
  // time this process spends descheduled is not the subject's cost. (Cache interference from other processes
  // still counts; measure on a quiet machine.)
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const run = async (ms) => {
    let ops = 0;
    let admitted = 0;
    const start = cpuMs();
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
        if (cpuMs() >= end) break;
      }
    } else {
      const f = s.async;
      for (;;) {
        for (let j = 0; j < 1024; j++) {
          if (await f(inputs[i])) admitted++;
          i = i + 1 === n ? 0 : i + 1;
        }
        ops += 1024;
        if (cpuMs() >= end) break;
      }
    }
    return { ops, admitted, ms: cpuMs() - start };
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
    "limiter:limitSync@rules",
    "limiter:limitSync+key",
    "engine:check",
    "limiter:limit",
    "limiter:limit@rules",
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
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync@rules");
  report.ratio(caseName, "engine:check", "limiter:limit@rules");
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync+key");
  const fmt = (v) => `${(v / 1e6).toFixed(2)}`;
  for (const s of subjects) {
    const v = samples.get(s);
    console.log(
      `${s.padEnd(24)} min ${fmt(Math.min(...v))} / median ${fmt(median(v))} / max ${fmt(Math.max(...v))} M/s`,
    );
  }
  console.log("");
  report.print();
}

// `npm run bench -- engine [--turns 30] [--slice-ms 150] [--replicas 2]`
//
// Decisions/s on one core through the whole engine, beside the raw Limiter on the same store kind, in the same run.
//
// Engine (`engine:checkSync`, `engine:check`): each call is one request `{ domain, descriptors: [[user, endpoint]] }`
// of a configuration of 1,000 rules (50 domains × 20 endpoint path patterns, `[user (any), endpoint (shared
// path)]`) and 100,000 identities in 2 tiers (10% premium, which every rule gives its own limit, named as the
// rule's: `per-minute`, gcra, so of the rule's shape): validation → matcher (domain, entry keys, path walk) → tier
// lookup → the rule's (or tier's) LimitSet → memory store. Requests cycle through 100,000 precomputed (user,
// domain, endpoint) triples, one per user, so the engine holds 100,000 counters; each counter's key is the user
// value string of the request (see RuleMatch.counterKey). Request i goes to domain i mod 50 and pattern
// ⌊i / 50⌋ mod 20, so every one of the 1,000 rules gets 100 of the users, consecutive requests go to different
// rules, and a user is premium by a digit of its number (⌊u / 1000⌋ mod 10 = 0) that is independent of its rule:
// each rule sees 10 premium users among its 100.
//
// Tiers and namespaces: a tier's limits of the rule's shape count in the rule's own namespace (engine-compile.ts),
// so an identity keeps its count when its tier changes. Here both tiers of a rule therefore count in one
// namespace, `${domain}/${rule.id}`, i.e. one table of the memory store, to which two LimitSets (the rule's and
// the premium tier's) are applied in turn, as its free and premium users arrive.
//
// Limiter (`limiter:limitSync`, `limiter:limit`): one limiter of the same algorithm on its own memory store of the
// same capacity, called with the very same 100,000 user value strings, in the same order: the same number of
// distinct keys, the same key strings, so the store work per call (hash lookups, state, cache misses) is the same.
// Both sides use prebuilt strings whose hashes V8 caches; `limiter:limitSync+key` builds its key per call
// (`user:${id}`, a fresh string to hash) as a caller deriving a key does. What the engine does on top (matching,
// the tier lookup, reading its larger request objects, one namespace per rule) is what the ratio measures. One
// asymmetry remains and is inherent: the limiter's loop does nothing between store calls, so the CPU overlaps the
// cache misses of consecutive calls; inside the engine the same store call pays them in full.
//
// Limiter over the engine's namespaces (`limiter:limitSync@rules`, `limiter:limit@rules`): the engine counts each
// rule in a namespace of its own, so its 100,000 counters are spread over 1,000 tables of the store, where the
// limiter above keeps them in one. This peer does exactly the engine's key work: per rule, two limiters named
// alike (the rule's namespace), one with the rule's limit and one with the premium tier's, all on one store; each
// call goes to the limiter the engine uses for that request (the rule's namespace, the user's tier), with the same
// keys in the same order, so the store sees the same alternation of sets per namespace. It is handed the limiter
// to call (that choice is the engine's matching, which the ratio measures). Against it the ratio measures what the
// engine adds; against the single limiter, also the cost of spreading counters over one table per rule.
//
// Request objects (`engine:checkSync+build`, `engine:check+build`: the headline). A caller (the middleware, the
// service) builds the request object of a check from its incoming request just before the call, so the object is
// fresh in the CPU caches. These subjects do the same: per call, `{ domain, descriptors: [[user, endpoint]] }` is
// built around the same prebuilt strings (the same user value strings as the limiter's keys, read by request
// number from flat arrays), and the allocation is counted in the engine's time. The plain subjects
// (`engine:checkSync`, `engine:check`) instead cycle through 100,000 prebuilt nested request objects (tens of MB
// of objects, arrays and strings), each cold in the caches when its turn comes again, which no caller's fresh
// object is; they are kept, as the harder case, beside the headline. Both kinds are reported with their ratios;
// the targets (≥ 0.5× the limiter) are read on the `+build` subjects.
//
// Every subject runs in its own process pinned to CPU 0, all alive at once and measured in turns
// (bench/lib/turns.mjs): after a 1 s warm-up each, `--turns` rounds of one `--slice-ms` slice per subject, in
// rotating order, so the phases in which this shared machine's CPU runs slower fall on every subject alike.
// Throughput is calls per second of the process's CPU time over all its slices (time spent descheduled does not
// count); the table shows it with the min / median / max of the per-slice rates. Cache interference between turns
// is shared by all (each slice starts with its subject's data partly evicted by the others'); measure on a quiet
// machine (the load average is printed at the start and the end).
//
// Replicas: each subject runs in `--replicas` processes (default 2), all in the same turns, and its throughput is
// the mean of theirs. Two processes running the very same code can differ by more than their slices do (seen here:
// two copies of one build, one process per subject, read 0.93× and 1.08× of each other on two subjects in one run;
// in the first run with replicas, a subject's two processes were 1.00–1.02× apart but for one, 1.10×): the heap's
// layout, where the JIT's code and the data land in the caches and pages, is fixed per process, so one process per
// subject measures that draw with the code. The report therefore gives, beside every ratio, the ratios of every replica of one
// subject against every replica of the other (`replica_ratio_min`, `replica_ratio_max`), and per subject its
// fastest replica over its slowest (`…: replica spread`): a ratio whose replica range straddles its target is not
// met or missed by this run, whatever its mean.
import { fileURLToPath } from "node:url";
import { median, Report } from "./lib/report.mjs";
import { runInTurns, serveTurns } from "./lib/turns.mjs";

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

/**
 * `s` as a flat string, as a caller's parser hands it over. A template literal of 13 characters or more makes a V8
 * cons string (a pair of pointers to its parts); the first `charCodeAt` flattens it into a new string, but the cons
 * string stays and points to it, so every later read of its characters goes through one more object: one more cache
 * miss per check for a string cold in the caches. A request's strings come from `JSON.parse` (the service), the
 * HTTP parser (headers, the URL) or `slice` of them: flat (or a slice, read in place). `JSON.parse` makes one here.
 */
function flat(s) {
  return JSON.parse(JSON.stringify(s));
}

/**
 * The 50 domain names, one string each, shared by all requests of a domain: a caller's domain is a constant of its
 * code or configuration (the middleware's `domain` option), or a string its parser has just made (the service), so
 * it is in the CPU caches either way. Not the configuration's own strings: the engine finds a domain by content.
 */
const DOMAIN_NAMES = Array.from({ length: DOMAINS }, (_, d) => flat(`svc-${d}`));

/** Whether user `u` is premium: 10% of users, independent of the rule their request goes to (see the header). */
function isPremium(u) {
  return Math.floor(u / 1000) % 10 === 0;
}

/**
 * The user, domain and endpoint of request `i`, one request per user: domain i mod 50, pattern ⌊i / 50⌋ mod 20,
 * so the 1,000 (domain, pattern) pairs, one per rule, each get 100 users; 7919 is prime to 100,000, so `u` runs
 * over every user once per cycle.
 */
function requestOf(i) {
  const u = (i * 7919) % USERS;
  const d = i % DOMAINS;
  const k = Math.floor(i / DOMAINS) % PATTERNS;
  return { u, d, k, user: String(u), domain: DOMAIN_NAMES[d], endpoint: flat(pattern(k)[1](u)) };
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
        // The rule's shape (same name and algorithm): counted in the rule's namespace.
        tiers: { premium: [{ name: "per-minute", algorithm: "gcra", limit: 2 * LIMIT, period: PERIOD }] },
      });
    }
  }
  const identities = {};
  for (let u = 0; u < USERS; u++) identities[`user:${u}`] = isPremium(u) ? "premium" : "free";
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
      // Per rule, two limiters of the rule's namespace (its limit, the premium tier's), all on one store.
      const store = memoryStore({ capacity: 2 * USERS });
      const limiters = new Map();
      const limiterOf = (ns, premium) => {
        const id = `${ns}\u0000${premium}`;
        let l = limiters.get(id);
        if (l === undefined) {
          const limit = premium ? 2 * LIMIT : LIMIT;
          l = createLimiter({ store, name: ns, limits: { algorithm: "gcra", limit, period: PERIOD } });
          limiters.set(id, l);
        }
        return l;
      };
      const inputs = keys.map((key, i) => {
        const { u, d, k } = requestOf(i);
        return { limiter: limiterOf(`svc-${d}/d${d}-e${k}`, isPremium(u)), key };
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
  // Every rule is reached, and 10% of the requests take the premium tier's limits (one pass, before the warm-up).
  const rules = new Set();
  let tiered = 0;
  for (const r of requests) {
    const m = engine.checkSync(r).descriptors[0];
    rules.add(m.match.rule.id);
    if (m.source === "tier") tiered++;
  }
  if (rules.size !== DOMAINS * PATTERNS || tiered !== USERS / 10)
    throw new Error(`bench requests reach ${rules.size} rules, ${tiered} premium: expected 1000, 10000`);
  if (name === "engine:checkSync") return { inputs: requests, sync: (r) => engine.checkSync(r).allowed };
  if (name === "engine:check")
    return { inputs: requests, async: async (r) => (await engine.check(r)).allowed };
  // Built per call, as a caller does from its incoming request: the strings are the same prebuilt ones (as the
  // limiter's keys), read from three flat arrays by request number; the objects around them are fresh.
  const domains = requests.map((r) => r.domain);
  const users = requests.map((r) => r.descriptors[0][0].value);
  const endpoints = requests.map((r) => r.descriptors[0][1].value);
  const numbers = Array.from({ length: USERS }, (_, i) => i);
  const build = (i) => ({
    domain: domains[i],
    descriptors: [
      [
        { key: "user", value: users[i] },
        { key: "endpoint", value: endpoints[i] },
      ],
    ],
  });
  if (name === "engine:checkSync+build")
    return { inputs: numbers, sync: (i) => engine.checkSync(build(i)).allowed };
  if (name === "engine:check+build")
    return { inputs: numbers, async: async (i) => (await engine.check(build(i))).allowed };
  throw new Error(`unknown subject ${name}`);
}

// ---------------------------------------------------------------- parent
if (process.argv.includes("--child")) {
  const name = process.argv[process.argv.indexOf("--child") + 1];
  await serveTurns(await makeSubject(name));
} else {
  const { loadavg } = await import("node:os");
  const load = () => loadavg()[0].toFixed(2);
  const turns = arg("turns", 30);
  const sliceMs = arg("slice-ms", 150);
  const replicas = arg("replicas", 2);
  if (!(Number.isInteger(replicas) && replicas >= 1))
    throw new Error("--replicas must be a whole number >= 1");
  process.stderr.write(`  load average at start: ${load()}\n`);
  const report = new Report("engine");
  const subjects = [
    "engine:checkSync+build",
    "engine:checkSync",
    "limiter:limitSync",
    "limiter:limitSync@rules",
    "limiter:limitSync+key",
    "engine:check+build",
    "engine:check",
    "limiter:limit",
    "limiter:limit@rules",
  ];
  const replicaNames = (s) => Array.from({ length: replicas }, (_, r) => `${s} #${r + 1}`);
  const names = subjects.flatMap(replicaNames);
  const raw = await runInTurns(self, names, (n) => ["--child", n.slice(0, n.lastIndexOf(" #"))], {
    sliceMs,
    turns,
  });
  // Per subject: the mean of its replicas' throughputs (each ran the same CPU time), every slice of all of them.
  const results = new Map();
  for (const s of subjects) {
    const reps = replicaNames(s).map((n) => raw.get(n));
    for (const [r, res] of reps.entries()) {
      if (Math.abs(res.admittedFrac - 1) > 0.001)
        throw new Error(`${s} #${r + 1}: admitted fraction ${res.admittedFrac}`);
    }
    const rates = reps.map((res) => res.opsPerS);
    results.set(s, {
      opsPerS: rates.reduce((a, b) => a + b, 0) / rates.length,
      rates,
      slices: reps.flatMap((res) => res.slices),
    });
    process.stderr.write(`  ${s}: ${rates.map((v) => `${(v / 1e6).toFixed(2)}`).join(" / ")} M/s\n`);
  }
  process.stderr.write(`  load average at end: ${load()}\n`);
  const caseName = "1000 rules, 100k identities, 20 endpoint patterns, allowed";
  for (const s of subjects) {
    const { opsPerS, slices, rates } = results.get(s);
    const min = Math.min(...slices);
    const max = Math.max(...slices);
    report.add(caseName, s, "ops_per_s", opsPerS, {
      replicas: rates,
      slice_min: min,
      slice_median: median(slices),
      slice_max: max,
      turns,
      slice_ms: sliceMs,
    });
  }
  // Each ratio of the means also gives the range of every replica of one subject against every replica of the other.
  report.ratio(caseName, "engine:checkSync+build", "limiter:limitSync", "ops_per_s", ">= 0.5");
  report.ratio(caseName, "engine:check+build", "limiter:limit", "ops_per_s", ">= 0.5");
  report.ratio(caseName, "engine:checkSync+build", "limiter:limitSync@rules");
  report.ratio(caseName, "engine:check+build", "limiter:limit@rules");
  report.ratio(caseName, "engine:checkSync+build", "limiter:limitSync+key");
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync");
  report.ratio(caseName, "engine:check", "limiter:limit");
  report.ratio(caseName, "engine:checkSync", "limiter:limitSync@rules");
  report.ratio(caseName, "engine:check", "limiter:limit@rules");
  if (replicas > 1) {
    for (const s of subjects) {
      const { rates } = results.get(s);
      report.add(caseName, `${s}: replica spread`, "ratio", Math.max(...rates) / Math.min(...rates), {
        replicas: rates,
      });
    }
  }
  const fmt = (v) => `${(v / 1e6).toFixed(2)}`;
  for (const s of subjects) {
    const { opsPerS, slices, rates } = results.get(s);
    console.log(
      `${s.padEnd(26)} ${fmt(opsPerS)} M/s (replicas ${rates.map(fmt).join(" / ")}); per slice: min ${fmt(Math.min(...slices))} / median ${fmt(median(slices))} / max ${fmt(Math.max(...slices))}`,
    );
  }
  console.log("");
  report.print();
}

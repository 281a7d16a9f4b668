// A load generator run as a separate Node process by test/integration/redis-multiprocess.test.ts: it drives a
// Limiter over the Redis store *from the build output* (dist/, so no TypeScript loader is needed) and reports,
// per key, how many calls were admitted and denied.
//
//   node test/support/redis-load-worker.mjs '<json config>'
//
// Config: { url, prefix, name, limits, keys, inFlight, minDurationMs, maxDurationMs, deadlineMs }.
// Protocol, one JSON object per stdout line:
//   -> {"type":"ready","pid":…}              connected (PING answered), limiter built; nothing sent yet
//   <- "go\n" on stdin                         start: `inFlight` loops call limit(), round-robin over `keys`, for
//                                              minDurationMs, then on until this process has seen every key
//                                              denied at least once (the limit reached), but never past
//                                              maxDurationMs
//   -> {"type":"result","pid":…,"admitted":{key:n},"denied":{key:n},"errors":n,"firstError":…,"calls":n,"loadMs":…}
// The process exits on its own after the result, when stdin closes before "go", and in any case after
// `deadlineMs` (exit code 3), so a lost parent never leaves it running.
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { createLimiter } from "../../dist/index.js";
import { redisStore } from "../../dist/stores/redis/index.js";

const config = JSON.parse(process.argv[2] ?? "{}");

const hardDeadline = setTimeout(() => {
  process.stderr.write(
    `redis-load-worker ${process.pid}: hard deadline of ${config.deadlineMs} ms reached\n`,
  );
  process.exit(3);
}, config.deadlineMs ?? 30_000);

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

// No reconnects and no replays: a dead server must show up as errors, not as hidden retries.
const client = new Redis(config.url, {
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
  autoResendUnfulfilledCommands: false,
});
client.on("error", (error) => process.stderr.write(`redis-load-worker ${process.pid}: ${error.message}\n`));
await client.ping();

const limiter = createLimiter({
  name: config.name,
  limits: config.limits,
  store: redisStore({ client, prefix: config.prefix, clock: "redis" }),
});

const go = new Promise((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() === "go") resolve(true);
  });
  lines.on("close", () => resolve(false));
});
send({ type: "ready", pid: process.pid });
if (!(await go)) {
  client.disconnect();
  process.exit(2);
}

const keys = config.keys;
const admitted = new Array(keys.length).fill(0);
const denied = new Array(keys.length).fill(0);
let errors = 0;
let firstError;
let next = 0;
let keysDenied = 0;
const start = performance.now();
const minEnd = start + config.minDurationMs;
const maxEnd = start + config.maxDurationMs;

function running() {
  const now = performance.now();
  return now < minEnd || (now < maxEnd && keysDenied < keys.length);
}

async function loop() {
  while (running()) {
    const k = next++ % keys.length;
    try {
      const decision = await limiter.limit(keys[k]);
      if (decision.allowed) admitted[k]++;
      else if (denied[k]++ === 0) keysDenied++;
    } catch (error) {
      errors++;
      firstError ??= String(error?.stack ?? error);
    }
  }
}
await Promise.all(Array.from({ length: config.inFlight }, loop));
const loadMs = performance.now() - start;

send({
  type: "result",
  pid: process.pid,
  admitted: Object.fromEntries(keys.map((key, i) => [key, admitted[i]])),
  denied: Object.fromEntries(keys.map((key, i) => [key, denied[i]])),
  errors,
  firstError,
  calls: next,
  loadMs,
});
client.disconnect();
clearTimeout(hardDeadline);
process.exit(0);

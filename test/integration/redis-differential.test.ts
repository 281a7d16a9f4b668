// Differential test of the Lua twins: for each algorithm, a seeded random trace (mixed costs, gaps, fractional and
// backwards clocks, reconfigured limits, refunds, resets, releases) runs through the TypeScript kernel and through
// the Redis store on a real server, and every step must agree exactly: the verdict, remaining, resetAfterMs,
// retryAfterMs, the lease id, the warning state, and the stored state itself, field by field, bit for bit.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStepOut, resizeState } from "../../src/algorithms/algorithm.js";
import { algorithms } from "../../src/algorithms/index.js";
import { createLimitSet, type LimitSet } from "../../src/algorithms/limit-set.js";
import { type LimitSpec, type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";
import { limitStateOf, nextWarning } from "../../src/core/limit-state.js";
import { type RedisStore, redisStore } from "../../src/stores/redis/index.js";
import { ALGORITHM_CODES } from "../../src/stores/redis/script.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";

const T0 = 1_700_000_000_000;

let client: Redis;
beforeAll(async () => {
  client = new Redis((await getSharedRedis()).url);
});
afterAll(() => {
  client.disconnect();
});

/** mulberry32: a small seeded generator. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Per algorithm: two specs the trace switches between (same name, so the same key and state). */
const CASES: readonly { name: string; specs: readonly LimitSpecInput[]; seed: number }[] = [
  {
    name: "gcra",
    seed: 11,
    specs: [
      { algorithm: "gcra", limit: 5, periodMs: 1000, burst: 8 },
      { algorithm: "gcra", limit: 2.5, periodMs: 1000, burst: 3 },
    ],
  },
  {
    // Emission intervals off the epoch's grid (1000/7 ms, 1/3 ms): gcra rounds them up to it, in Lua too.
    name: "gcra (T off the grid)",
    seed: 19,
    specs: [
      { algorithm: "gcra", limit: 7, periodMs: 1000, burst: 9 },
      { algorithm: "gcra", limit: 3, periodMs: 1, burst: 6 },
    ],
  },
  {
    name: "token_bucket",
    seed: 12,
    specs: [
      { algorithm: "token_bucket", limit: 10, periodMs: 1000, burst: 4 },
      { algorithm: "token_bucket", limit: 1.5, periodMs: 700 },
    ],
  },
  {
    name: "leaky_bucket",
    seed: 13,
    specs: [
      { algorithm: "leaky_bucket", limit: 4, periodMs: 1000 },
      { algorithm: "leaky_bucket", limit: 3, periodMs: 900, burst: 6.5 },
    ],
  },
  {
    name: "fixed_window",
    seed: 14,
    specs: [
      { algorithm: "fixed_window", limit: 5, periodMs: 1000 },
      { algorithm: "fixed_window", limit: 3, periodMs: 1000 },
    ],
  },
  {
    name: "sliding_window",
    seed: 15,
    specs: [
      { algorithm: "sliding_window", limit: 6, periodMs: 1000 },
      { algorithm: "sliding_window", limit: 4, periodMs: 1000 },
    ],
  },
  {
    name: "sliding_log",
    seed: 16,
    specs: [
      { algorithm: "sliding_log", limit: 5, periodMs: 1000 },
      { algorithm: "sliding_log", limit: 3, periodMs: 1000 },
    ],
  },
  {
    name: "bucketed_window",
    seed: 17,
    specs: [
      { algorithm: "bucketed_window", limit: 7, periodMs: 1000, bucketMs: 250 },
      { algorithm: "bucketed_window", limit: 5, periodMs: 1000, bucketMs: 100 },
    ],
  },
  {
    name: "concurrency",
    seed: 18,
    specs: [
      { algorithm: "concurrency", limit: 3, periodMs: 1000 },
      { algorithm: "concurrency", limit: 2, periodMs: 1000 },
    ],
  },
];

const STEPS = 400;

/** The stored state of `key` decoded: flags byte, then doubles (little-endian). */
async function storedState(key: string): Promise<{ flags: number; fields: number[] } | undefined> {
  const raw = await client.getBuffer(key);
  if (raw === null) return undefined;
  const fields: number[] = [];
  for (let at = 1; at + 8 <= raw.length; at += 8) fields.push(raw.readDoubleLE(at));
  return { flags: raw[0], fields };
}

/** The fields of `s`, and the stored ones padded with zeros (bytes past the end read as 0). */
function sameFields(stored: readonly number[], s: Float64Array): boolean {
  if (stored.length > s.length) return false;
  for (let i = 0; i < s.length; i++) if (!Object.is(stored[i] ?? 0, s[i])) return false;
  return true;
}

describe("redis store: Lua twins agree with the TypeScript kernels step by step", () => {
  for (const c of CASES) {
    it(`${c.name}: ${STEPS} random steps (seed ${c.seed})`, async () => {
      const store: RedisStore = redisStore({
        client,
        clock: "client",
        prefix: uniqueKeyPrefix(`diff-${c.name}`).slice(0, -1),
        ttlMarginMs: 3_600_000,
        batch: false,
      });
      const specs = c.specs.map((s) => parseLimitSpec({ name: "p", ...s }));
      const sets = specs.map((s) => createLimitSet("ns", [s]));
      const algorithm = algorithms[specs[0].algorithm];
      const rnd = prng(c.seed);
      const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
      const whole = !["gcra", "token_bucket", "leaky_bucket"].includes(specs[0].algorithm);
      const key = "user:1";
      const redisKey = store.keysOf(sets[0], key)[0];

      let which = 0;
      let spec: LimitSpec = specs[0];
      let set: LimitSet = sets[0];
      let s = new Float64Array(algorithm.width(spec));
      let exists = false;
      let warning = false;
      let t = T0;
      const leases: number[] = [];
      const out = createStepOut();
      const failures: string[] = [];
      let lastRetry = 0;
      let lastReset = 0;

      for (let step = 0; step < STEPS && failures.length < 5; step++) {
        // Time: the edges the last answer named (retry / reset time, just before or after), the same instant,
        // small gaps, arbitrary fractions, backwards, long jumps.
        const g = rnd();
        const nudge = [0, 0, -0.25, -1, 0.0005, -0.0005, 1e-4, 0.5][int(0, 7)];
        if (g < 0.15 && Number.isFinite(lastRetry) && lastRetry > 0) t += lastRetry + nudge;
        else if (g < 0.25 && lastReset > 0) t += lastReset + nudge;
        else if (g < 0.3) t += 0;
        else if (g < 0.5) t += int(1, 250);
        else if (g < 0.65) t += rnd() * 400;
        else if (g < 0.75) t -= int(1, 1200);
        else if (g < 0.95) t += int(400, 2500);
        else t += int(10_000, 100_000_000);
        // Reconfigure now and then: same name, other numbers (a ring changes width).
        if (rnd() < 0.04) {
          which = 1 - which;
          spec = specs[which];
          set = sets[which];
          const width = algorithm.width(spec);
          if (width !== s.length) {
            const next = new Float64Array(width);
            resizeState(algorithm, s, s.length, next, 0, spec); // as the TS stores hand a state over
            s = next;
          }
        }
        const o = rnd();
        const maxCost = Math.max(spec.limit, spec.burst);
        const cost =
          o < 0.1
            ? 0
            : o < 0.15
              ? Math.ceil(maxCost) + int(0, 2)
              : !whole && o < 0.35
                ? [0.1, 0.25, 0.5, 1.5, 2.75, 1 / 3][int(0, 5)]
                : int(1, Math.max(1, Math.floor(maxCost)));
        const op = rnd();
        let label: string;
        let expected:
          | {
              allowed: boolean;
              remaining: number;
              resetAfterMs: number;
              retryAfterMs: number;
              state: string;
              lease: number;
            }
          | undefined;
        let got:
          | {
              allowed: boolean;
              remaining: number;
              resetAfterMs: number;
              retryAfterMs: number;
              state: string;
              lease: number;
            }
          | undefined;
        const view = (d: import("../../src/core/decision.js").Decision) => ({
          allowed: d.allowed,
          remaining: d.remaining,
          resetAfterMs: d.resetAfterMs,
          retryAfterMs: d.retryAfterMs,
          state: d.state,
          lease: d.leases?.p ?? 0,
        });
        const peekExpect = (askCost: number) => {
          algorithm.apply(s, 0, t, spec, askCost, false, out);
          const previous = warning && algorithm.idleAfterMs(s, 0, t, spec) > 0;
          const w = out.allowed && nextWarning(previous, out.remaining, spec.burst);
          return {
            allowed: out.allowed,
            remaining: out.remaining,
            resetAfterMs: out.resetAfterMs,
            retryAfterMs: out.allowed ? 0 : out.retryAfterMs,
            state: limitStateOf(out.allowed, w),
            lease: 0,
          };
        };
        if (op < 0.6) {
          label = `consume ${cost}`;
          if (warning && algorithm.idleAfterMs(s, 0, t, spec) <= 0) warning = false;
          algorithm.apply(s, 0, t, spec, cost, true, out);
          if (out.allowed) {
            warning = nextWarning(warning, out.remaining, spec.burst);
            exists = true;
            if (out.leaseId !== 0) leases.push(out.leaseId);
          }
          expected = {
            allowed: out.allowed,
            remaining: out.remaining,
            resetAfterMs: out.resetAfterMs,
            retryAfterMs: out.allowed ? 0 : out.retryAfterMs,
            state: limitStateOf(out.allowed, warning),
            lease: out.leaseId,
          };
          got = view((await store.apply([{ limits: set, key, cost }], "consume", t))[0]);
        } else if (op < 0.75) {
          label = `peek ${cost}`;
          expected = peekExpect(cost);
          got = view((await store.apply([{ limits: set, key, cost }], "peek", t))[0]);
        } else if (op < 0.9 && specs[0].algorithm === "concurrency" && leases.length > 0) {
          const id = rnd() < 0.8 ? leases.splice(int(0, leases.length - 1), 1)[0] : int(1, 5);
          label = `release ${id}`;
          if (exists) algorithm.release!(s, 0, t, spec, id);
          await store.release(set, key, { p: id }, t);
        } else if (op < 0.97) {
          const amount = whole ? int(1, 3) : [0.5, 1, 2, 0.3][int(0, 3)];
          label = `refund ${amount}`;
          // A state with nothing in use (never stored, or idle) is left as it is (Store.apply's `refund`).
          if (exists && algorithm.idleAfterMs(s, 0, t, spec) > 0) algorithm.refund(s, 0, t, spec, amount);
          expected = peekExpect(0);
          got = view((await store.apply([{ limits: set, key, cost: amount }], "refund", t))[0]);
        } else {
          label = "reset";
          // Forgotten, but for what the kernel keeps across a reset (a concurrency key's last lease id).
          if (!(exists && algorithm.resetKeep?.(s, 0, spec))) {
            s = new Float64Array(algorithm.width(spec));
            exists = false;
          }
          warning = false;
          leases.length = 0;
          expected = peekExpect(0);
          got = view((await store.apply([{ limits: set, key, cost: 0 }], "reset", t))[0]);
        }
        if (expected !== undefined) {
          lastRetry = expected.retryAfterMs;
          lastReset = expected.resetAfterMs;
        }
        const where = `step ${step} (${label}) at T0+${t - T0} with limit ${spec.limit}`;
        if (expected !== undefined && JSON.stringify(got) !== JSON.stringify(expected)) {
          failures.push(`${where}: redis ${JSON.stringify(got)}, kernel ${JSON.stringify(expected)}`);
        }
        const stored = await storedState(redisKey);
        if (!exists) {
          if (stored !== undefined) failures.push(`${where}: the key exists, the kernel state is fresh`);
        } else if (stored === undefined) {
          failures.push(`${where}: the key is missing`);
        } else {
          const flags = ALGORITHM_CODES[spec.algorithm] * 2 + (warning ? 1 : 0);
          if (stored.flags !== flags) failures.push(`${where}: flags ${stored.flags}, expected ${flags}`);
          if (!sameFields(stored.fields, s)) {
            failures.push(`${where}: stored [${stored.fields.join(", ")}], kernel [${[...s].join(", ")}]`);
          }
        }
      }
      await store.close();
      expect(failures).toEqual([]);
    });
  }
});

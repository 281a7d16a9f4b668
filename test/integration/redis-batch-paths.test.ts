// The paths of apply.lua over coalesced batches: many concurrent calls on a few identities (so a batch names the
// same key many times), sets of one limit of every small-state algorithm and sets of two (the fast and the
// small-state paths), with denials, warnings, backwards clocks, and some batches that mix in peeks, refunds,
// resets and other limit sets (so the fast path gives up and the general path redoes the batch). Every decision must equal the reference store's, and after
// each round the stored state must be byte for byte the one sequential unbatched calls leave, with a TTL no
// longer than the unbatched one's. A third store, over a client without Buffer replies (no `evalshaBuffer`), gets
// the script's array reply instead of its binary one: its decisions must be the same.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimitSet, type LimitSet } from "../../src/algorithms/limit-set.js";
import type { Decision } from "../../src/core/decision.js";
import { type LimitSpecInput, parseLimitSpec } from "../../src/core/limit-spec.js";
import { createRandom } from "../../src/core/random.js";
import { type RedisStore, redisStore } from "../../src/stores/redis/index.js";
import type { StoreOp } from "../../src/stores/store.js";
import { ReferenceStore } from "../../src/testing/index.js";
import { getSharedRedis, uniqueKeyPrefix } from "../support/redis-env.js";

const T0 = 1_700_000_000_000;

let client: Redis;
beforeAll(async () => {
  client = new Redis((await getSharedRedis()).url);
});
afterAll(() => {
  client.disconnect();
});

function plain(d: Decision) {
  return {
    policy: d.policy,
    allowed: d.allowed,
    remaining: d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: d.retryAfterMs,
    state: d.state,
    leases: d.leases,
    policies: d.policies.map((p) => ({ ...p })),
  };
}

const CASES: readonly { name: string; limits: LimitSpecInput[]; seed: number }[] = [
  { name: "gcra", limits: [{ algorithm: "gcra", limit: 5, periodMs: 1000, burst: 4 }], seed: 21 },
  {
    name: "token_bucket",
    limits: [{ algorithm: "token_bucket", limit: 4, periodMs: 1000, burst: 6 }],
    seed: 22,
  },
  { name: "leaky_bucket", limits: [{ algorithm: "leaky_bucket", limit: 3, periodMs: 900 }], seed: 23 },
  { name: "fixed_window", limits: [{ algorithm: "fixed_window", limit: 6, periodMs: 1000 }], seed: 24 },
  { name: "sliding_window", limits: [{ algorithm: "sliding_window", limit: 6, periodMs: 1000 }], seed: 25 },
  {
    name: "token_bucket + fixed_window",
    limits: [
      { algorithm: "token_bucket", limit: 10, periodMs: 1000, burst: 5 },
      { algorithm: "fixed_window", limit: 12, periodMs: 2000 },
    ],
    seed: 26,
  },
  {
    name: "gcra + sliding_window + leaky_bucket",
    limits: [
      { algorithm: "gcra", limit: 8, periodMs: 1000, burst: 3 },
      { algorithm: "sliding_window", limit: 10, periodMs: 1500 },
      { algorithm: "leaky_bucket", limit: 6, periodMs: 1000, burst: 4 },
    ],
    seed: 27,
  },
];

const KEYS = ["a", "b", "c"];

describe("redis store: coalesced batches take the fast or the general path with the same results", () => {
  for (const c of CASES) {
    it(`${c.name}: 60 rounds of up to 40 concurrent calls on ${KEYS.length} identities`, async () => {
      const batched: RedisStore = redisStore({
        client,
        clock: "client",
        prefix: uniqueKeyPrefix(`paths-b-${c.name}`).slice(0, -1),
        ttlMarginMs: 60_000,
      });
      const single: RedisStore = redisStore({
        client,
        clock: "client",
        batch: false,
        prefix: uniqueKeyPrefix(`paths-s-${c.name}`).slice(0, -1),
        ttlMarginMs: 60_000,
      });
      const arrays: RedisStore = redisStore({
        client: {
          evalsha: (sha, numKeys, ...args) => client.evalsha(sha, numKeys, ...args),
          eval: (script, numKeys, ...args) => client.eval(script, numKeys, ...args),
        },
        clock: "client",
        prefix: uniqueKeyPrefix(`paths-a-${c.name}`).slice(0, -1),
        ttlMarginMs: 60_000,
      });
      const reference = new ReferenceStore();
      const specs = c.limits.map((l, i) => parseLimitSpec({ name: `p${i}`, ...l }));
      const one = createLimitSet("ns", specs);
      // The first limit with another number (the same key), and the set with one more limit.
      const other = createLimitSet("ns", [
        parseLimitSpec({ name: "p0", ...c.limits[0], limit: 2 }),
        ...specs.slice(1),
      ]);
      const two = createLimitSet("ns", [
        ...specs,
        parseLimitSpec({ name: "q", algorithm: "gcra", limit: 8, periodMs: 1000 }),
      ]);
      const whole = c.limits.some(
        (l) => !["gcra", "token_bucket", "leaky_bucket"].includes(l.algorithm ?? "gcra"),
      );
      const rnd = createRandom(c.seed);
      const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
      let t = T0;

      for (let round = 0; round < 60; round++) {
        const mixed = rnd() < 0.3; // a batch the fast path hands to the general path
        const calls: { op: StoreOp; set: LimitSet; key: string; cost: number; now: number }[] = [];
        const n = int(1, 40);
        for (let i = 0; i < n; i++) {
          const g = rnd();
          if (g < 0.5) t += 0;
          else if (g < 0.8) t += rnd() * 150;
          else if (g < 0.9) t -= int(1, 300);
          else t += int(300, 1500);
          const r = rnd();
          const cost =
            r < 0.1 ? 0 : r < 0.15 ? 9 : !whole && r < 0.35 ? [0.5, 1.5, 1 / 3][int(0, 2)] : int(1, 3);
          let op: StoreOp = "consume";
          let set = one;
          if (mixed) {
            const m = rnd();
            if (m < 0.15) op = "peek";
            else if (m < 0.25) op = "refund";
            else if (m < 0.3) op = "reset";
            else if (m < 0.4) set = two;
            else if (m < 0.45) set = other;
          }
          calls.push({
            op,
            set,
            key: KEYS[int(0, KEYS.length - 1)],
            cost: op === "reset" ? 0 : cost,
            now: t,
          });
        }
        const concurrent = await Promise.all(
          calls.map((x) => batched.apply([{ limits: x.set, key: x.key, cost: x.cost }], x.op, x.now)),
        );
        const concurrentArrays = await Promise.all(
          calls.map((x) => arrays.apply([{ limits: x.set, key: x.key, cost: x.cost }], x.op, x.now)),
        );
        for (let i = 0; i < calls.length; i++) {
          const x = calls[i];
          const items = [{ limits: x.set, key: x.key, cost: x.cost }];
          const want = await reference.apply(items, x.op, x.now);
          const alone = await single.apply(items, x.op, x.now);
          const where = `round ${round} call ${i} (${x.op} ${x.cost} of ${x.key} at +${x.now - T0}, ${calls.length} calls${mixed ? ", mixed" : ""})`;
          expect(concurrent[i].map(plain), where).toEqual(want.map(plain));
          expect(concurrentArrays[i].map(plain), `${where}, array reply`).toEqual(want.map(plain));
          expect(alone.map(plain), where).toEqual(want.map(plain));
        }
        for (const key of KEYS) {
          for (const [i, k] of batched.keysOf(two, key).entries()) {
            const k2 = single.keysOf(two, key)[i];
            const [got, want] = await Promise.all([client.getBuffer(k), client.getBuffer(k2)]);
            expect(got?.toString("hex"), `round ${round}: state of ${key} (${k})`).toEqual(
              want?.toString("hex"),
            );
            if (want !== null) {
              const [ttl, ttl2] = await Promise.all([client.pttl(k), client.pttl(k2)]);
              expect(ttl, `round ${round}: TTL of ${key}`).toBeGreaterThan(0);
              expect(ttl, `round ${round}: TTL of ${key}`).toBeLessThanOrEqual(ttl2 + 50);
            }
          }
        }
      }
      await batched.close();
      await single.close();
      await arrays.close();
    });
  }
});

describe("redis store: a batch's reads", () => {
  // apply.lua reads a batch of up to 1,000 keys with one MGET (its MGET_KEYS) and a larger one key by key; both
  // must answer as the reference store, over keys fresh, stored and repeated within the batch. 600 calls of one
  // limit are 600 keys (one MGET), of two limits 1,200 (key by key), and 1,500 calls key by key either way (the
  // batches of the test above, up to 40 calls, take the MGET on both paths).
  for (const calls of [600, 1500]) {
    it(`${calls} concurrent calls in one script call, fast and small paths`, async () => {
      for (const limits of [
        [parseLimitSpec({ name: "g", algorithm: "gcra", limit: 3, periodMs: 1000 })],
        [
          parseLimitSpec({ name: "g", algorithm: "gcra", limit: 3, periodMs: 1000 }),
          parseLimitSpec({ name: "w", algorithm: "sliding_window", limit: 2, periodMs: 1000 }),
        ],
      ]) {
        const store = redisStore({
          client,
          clock: "client",
          maxBatch: 10_000,
          maxInFlight: 1,
          prefix: uniqueKeyPrefix(`reads-${calls}-${limits.length}`).slice(0, -1),
        });
        const reference = new ReferenceStore();
        const set = createLimitSet("ns", limits);
        // Two passes: the first finds most keys fresh, the second finds them stored. Key i % (calls / 3 * 2): the
        // first third of the keys is asked twice in one batch (a key the batch has already changed).
        for (const now of [T0, T0 + 10]) {
          const keys = Array.from({ length: calls }, (_, i) => `k${i % Math.floor((calls * 2) / 3)}`);
          // The first call is alone in flight (maxInFlight 1): the rest queue behind it and leave as one batch.
          const got = await Promise.all(
            keys.map((key) => store.apply([{ limits: set, key, cost: 1 }], "consume", now)),
          );
          for (const [i, key] of keys.entries()) {
            const want = await reference.apply([{ limits: set, key, cost: 1 }], "consume", now);
            expect(got[i].map(plain), `call ${i} (${key}) at +${now - T0}`).toEqual(want.map(plain));
          }
        }
        await store.close();
      }
    });
  }
});

describe("redis store: a key holding another Redis type", () => {
  // GET fails on a hash (WRONGTYPE) where MGET answers nil: the batch read must not turn such a key into a fresh
  // state and overwrite it. The call fails on every path, alone or batched, and the key is left as it was.
  for (const limits of [
    [parseLimitSpec({ name: "g", algorithm: "gcra", limit: 3, periodMs: 1000 })],
    [
      parseLimitSpec({ name: "g", algorithm: "gcra", limit: 3, periodMs: 1000 }),
      parseLimitSpec({ name: "w", algorithm: "sliding_window", limit: 2, periodMs: 1000 }),
    ],
  ]) {
    it(`fails the call and leaves the key (${limits.length} limit${limits.length > 1 ? "s" : ""})`, async () => {
      const store = redisStore({
        client,
        clock: "client",
        prefix: uniqueKeyPrefix(`wrongtype-${limits.length}`).slice(0, -1),
      });
      const set = createLimitSet("ns", limits);
      const foreign = store.keysOf(set, "taken")[0];
      await client.hset(foreign, { owner: "another application" });
      const alone = store.apply([{ limits: set, key: "taken", cost: 1 }], "consume", T0);
      await expect(alone).rejects.toMatchObject({ code: "ERR_SLUICE_STORE_UNAVAILABLE" });
      await expect(alone).rejects.toThrow(/WRONGTYPE/);
      // Batched: the other calls of the batch are fresh keys, so its read is an MGET.
      const batch = ["a", "b", "taken", "c"].map((key) =>
        store.apply([{ limits: set, key, cost: 1 }], "consume", T0),
      );
      const settled = await Promise.allSettled(batch);
      expect(settled[2]).toMatchObject({
        status: "rejected",
        reason: { code: "ERR_SLUICE_STORE_UNAVAILABLE" },
      });
      expect(await client.type(foreign)).toBe("hash");
      expect(await client.hgetall(foreign)).toEqual({ owner: "another application" });
      await store.close();
    });
  }
});

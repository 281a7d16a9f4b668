// Client-side sharding over independent Redis nodes: shardedStore over three redisStores, each on its own PRIVATE
// redis-server, then a fourth added.
//
// - Placement: every key of an identity (two limits here, so two keys) lives on exactly one server, the one
//   shardFor() names; checked by SCANning every server, both whole (each key's {identity} hash tag parsed) and
//   per identity (SCAN MATCH *{identity}*) for a sample.
// - Decisions: with calls for 2,000 identities in flight at once across the shards, each identity gets exactly its
//   limit, no more, no less.
// - Membership: adding a fourth server moves between 15% and 35% of 2,000 identities (ideally 1/4), every one of
//   them to the new server; a moved identity starts fresh there (its limit is available again, while its old
//   state stays behind on the old server); an identity that stayed is still limited.
//
// The tests run in order and share the servers: the second builds on the state the first leaves (every identity
// at its limit on its first server).
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLimiter, type Limiter } from "../../src/engine/limiter.js";
import { type RedisStore, redisStore } from "../../src/stores/redis/index.js";
import { type ShardedStore, shardedStore } from "../../src/stores/sharded-store.js";
import { type RedisProcess, startRedis } from "../support/redis-server.js";

const PREFIX = "shard";
const IDENTITIES = Array.from({ length: 2000 }, (_, i) => `user:${i}`);
/** The limit that binds (4 calls against 3) and a looser second one, so every identity has two keys. */
const LIMIT = 3;
const CALLS = 4;
const LIMITS = [
  { name: "tight", algorithm: "sliding_log" as const, limit: LIMIT, periodMs: 60_000 },
  { name: "loose", algorithm: "gcra" as const, limit: 100, periodMs: 60_000 },
];

interface Node {
  id: string;
  server: RedisProcess;
  client: Redis;
  store: RedisStore;
}

const nodes: Node[] = [];
let sharded: ShardedStore;
let limiter: Limiter;

async function startNode(id: string): Promise<Node> {
  const server = await startRedis();
  const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const node = { id, server, client, store: redisStore({ client, prefix: PREFIX }) };
  nodes.push(node);
  await client.ping();
  return node;
}

beforeAll(async () => {
  for (const id of ["r0", "r1", "r2"]) await startNode(id);
  sharded = shardedStore({ shards: nodes.map((n) => ({ id: n.id, store: n.store })) });
  limiter = createLimiter({ name: "api", limits: LIMITS, store: sharded });
});

afterAll(async () => {
  for (const n of nodes) n.client.disconnect();
  await Promise.all(nodes.map((n) => n.server.stop()));
});

/** Every key on `node`, by SCAN. */
async function scanAll(node: Node, match = "*"): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  for (let rounds = 0; rounds < 100_000; rounds++) {
    const [next, batch] = await node.client.scan(cursor, "MATCH", match, "COUNT", 1000);
    keys.push(...batch);
    cursor = next;
    if (cursor === "0") return [...new Set(keys)];
  }
  throw new Error(`SCAN of ${node.id} did not finish`);
}

/** Identity -> its keys on `node`, from the {hash tag} of each key. */
async function identitiesOn(node: Node): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const key of await scanAll(node)) {
    const tag = /^[^{]*\{([^}]*)\}/.exec(key);
    expect(tag, `key without a hash tag on ${node.id}: ${key}`).not.toBeNull();
    const identity = (tag as RegExpExecArray)[1];
    out.set(identity, [...(out.get(identity) ?? []), key]);
  }
  return out;
}

function count<T>(items: readonly T[], pick: (item: T) => boolean): number {
  return items.reduce((n, item) => n + (pick(item) ? 1 : 0), 0);
}

describe("shardedStore over three independent redis-servers, then four", () => {
  it("keeps each identity on one server and honors its limit there", { timeout: 60_000 }, async () => {
    const decisions = await Promise.all(
      IDENTITIES.map((id) => Promise.all(Array.from({ length: CALLS }, () => limiter.limit(id)))),
    );
    const admitted = decisions.map((ds) => count(ds, (d) => d.allowed));
    const reasons = new Set(decisions.flat().map((d) => d.reason));
    const owners = IDENTITIES.map((id) => sharded.shardFor(id));
    const split = nodes.map((n) => count(owners, (o) => o === n.id));
    console.log(
      `[sharded] ${IDENTITIES.length} identities x ${CALLS} concurrent calls, limit ${LIMIT}: admitted per identity ` +
        `${JSON.stringify(countValues(admitted))}; identities per server ${nodes.map((n, i) => `${n.id}=${split[i]}`).join(" ")}`,
    );
    expect(reasons).toEqual(new Set(["store"]));
    expect(admitted).toEqual(IDENTITIES.map(() => LIMIT));
    for (const ds of decisions) {
      expect(ds.filter((d) => !d.allowed).map((d) => d.policy)).toEqual(["tight"]);
    }

    // Placement, from every key on every server.
    const placed = new Map<string, string[]>();
    for (const node of nodes) {
      for (const [identity, keys] of await identitiesOn(node)) {
        expect(keys.sort(), `${identity} on ${node.id}`).toEqual([
          `${PREFIX}:{${identity}}:api:loose`,
          `${PREFIX}:{${identity}}:api:tight`,
        ]);
        placed.set(identity, [...(placed.get(identity) ?? []), node.id]);
      }
    }
    expect(placed.size).toBe(IDENTITIES.length);
    for (const [i, id] of IDENTITIES.entries()) expect(placed.get(id), id).toEqual([owners[i]]);
    // Each server holds a fair part (160 virtual nodes each: roughly a third).
    for (const n of split) expect(n / IDENTITIES.length).toBeGreaterThan(0.2);

    // The same, the way an operator would look for one identity: SCAN each server for its hash tag.
    for (const id of IDENTITIES.slice(0, 30)) {
      const found = await Promise.all(
        nodes.map(async (n) => ({ id: n.id, keys: await scanAll(n, `*{${id}}*`) })),
      );
      const holders = found.filter((f) => f.keys.length > 0);
      expect(
        holders.map((h) => h.id),
        id,
      ).toEqual([sharded.shardFor(id)]);
      expect(holders[0].keys.length).toBe(LIMITS.length);
    }
  });

  it("adding a fourth server moves about a quarter of the identities, which start fresh", {
    timeout: 60_000,
  }, async () => {
    const before = IDENTITIES.map((id) => sharded.shardFor(id));
    const fourth = await startNode("r3");
    sharded.addShard({ id: fourth.id, store: fourth.store });
    const after = IDENTITIES.map((id) => sharded.shardFor(id));
    const moved = IDENTITIES.filter((_, i) => after[i] !== before[i]);
    const fraction = moved.length / IDENTITIES.length;

    // One more call per identity: a moved identity is fresh on r3 (allowed, LIMIT - 1 left on "tight"); one that
    // stayed is still at its limit from the first test.
    const decisions = await Promise.all(IDENTITIES.map((id) => limiter.limit(id)));
    const movedSet = new Set(moved);
    const movedAllowed = count(
      IDENTITIES.map((id, i) => movedSet.has(id) && decisions[i].allowed),
      (ok) => ok,
    );
    console.log(
      `[sharded] added r3: ${moved.length} of ${IDENTITIES.length} identities moved (${(fraction * 100).toFixed(1)}%, ideal 25%), ` +
        `all to ${JSON.stringify(countValues(IDENTITIES.filter((id) => movedSet.has(id)).map((id) => sharded.shardFor(id))))}; ` +
        `moved identities admitted afresh: ${movedAllowed}/${moved.length}; stayed identities admitted: ` +
        `${count(decisions, (d) => d.allowed) - movedAllowed}/${IDENTITIES.length - moved.length}`,
    );
    expect(fraction).toBeGreaterThanOrEqual(0.15);
    expect(fraction).toBeLessThanOrEqual(0.35);
    for (const [i, id] of IDENTITIES.entries()) {
      if (after[i] !== before[i]) expect(after[i], id).toBe("r3");
    }
    IDENTITIES.forEach((id, i) => {
      const d = decisions[i];
      if (movedSet.has(id)) {
        expect(d.allowed, `${id} moved to r3: fresh`).toBe(true);
        expect(d.policies.find((p) => p.policy === "tight")?.remaining, id).toBe(LIMIT - 1);
      } else {
        expect(d.allowed, `${id} stayed on ${before[i]}: still limited`).toBe(false);
      }
    });

    // r3 holds exactly the moved identities; their old state is still on their old server, untouched.
    const onFourth = await identitiesOn(fourth);
    expect([...onFourth.keys()].sort()).toEqual([...moved].sort());
    for (const node of nodes.slice(0, 3)) {
      const held = await identitiesOn(node);
      const expected = IDENTITIES.filter((_, i) => before[i] === node.id);
      expect([...held.keys()].sort(), node.id).toEqual(expected.sort());
    }
  });
});

function countValues<T extends string | number>(values: readonly T[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

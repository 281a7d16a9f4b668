import { describe, expect, it } from "vitest";
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import type { Decision } from "../core/decision.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { MemoryStore } from "./memory/memory-store.js";
import { murmur3, type ShardedStore, shardedStore } from "./sharded-store.js";
import type { CallTicket, Store, StoreItem, StoreOp } from "./store.js";

const T0 = 1_700_000_000_000;
const setOf = (namespace: string, ...specs: LimitSpecInput[]): LimitSet =>
  createLimitSet(
    namespace,
    specs.map((s) => parseLimitSpec(s)),
  );
const perSecond = (limit: number, namespace = "s") =>
  setOf(namespace, { name: "s", algorithm: "gcra", limit, periodMs: 1000 });

/** A memory store that counts calls and can be made to fail. */
class SpyStore implements Store {
  readonly name = "spy";
  readonly inner = new MemoryStore();
  calls: { op: StoreOp; keys: string[] }[] = [];
  releases: string[] = [];
  failNext = false;
  closed = false;
  constructor(readonly shared = false) {}
  apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
    this.calls.push({ op, keys: items.map((i) => i.key) });
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error("shard down"));
    }
    return this.inner.apply(items, op, nowMs);
  }
  release(limits: LimitSet, key: string, leases: Readonly<Record<string, number>>, nowMs: number) {
    this.releases.push(key);
    return this.inner.release(limits, key, leases, nowMs);
  }
  close(): Promise<void> {
    this.closed = true;
    return this.inner.close();
  }
  remaining(limits: LimitSet, key: string): number {
    return this.inner.applySync([{ limits, key, cost: 0 }], "peek", T0)[0].remaining;
  }
}

const spies = (ids: string[]) => ids.map((id) => ({ id, store: new SpyStore() }));
const keys = (n: number, prefix = "user:") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const ownership = (s: ShardedStore, ks: string[]) => new Map(ks.map((k) => [k, s.shardFor(k)]));
const countBy = (values: Iterable<string>) => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
};
/** The first key (from `user:0` up) that `s` routes to shard `id`. */
const keyOn = (s: ShardedStore, id: string, prefix = "user:") => {
  for (let i = 0; ; i++) if (s.shardFor(`${prefix}${i}`) === id) return `${prefix}${i}`;
};

describe("murmur3 (x86_32)", () => {
  const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16));

  it("matches the published test vectors over bytes", () => {
    // Vectors collected on https://stackoverflow.com/questions/14747343 (checked against the reference C code).
    const vectors: [string, number, number][] = [
      ["", 0, 0],
      ["", 1, 0x514e28b7],
      ["", 0xffffffff, 0x81f16f39],
      ["ffffffff", 0, 0x76293b50],
      ["21436587", 0, 0xf55b516b],
      ["21436587", 0x5082edee, 0x2362f9de],
      ["214365", 0, 0x7e4a8634],
      ["2143", 0, 0xa0f7b07a],
      ["21", 0, 0x72661cf4],
      ["00000000", 0, 0x2362f9de],
      ["000000", 0, 0x85f0b427],
      ["0000", 0, 0x30f4c306],
      ["00", 0, 0x514e28b7],
    ];
    for (const [bytes, seed, expected] of vectors) expect(murmur3(hex(bytes), seed)).toBe(expected);
  });

  it("matches the published test vectors over UTF-8 strings", () => {
    const seed = 0x9747b28c;
    const vectors: [string, number, number][] = [
      ["aaaa", seed, 0x5a97808a],
      ["aaa", seed, 0x283e0130],
      ["aa", seed, 0x5d211726],
      ["a", seed, 0x7fa09ea6],
      ["abcd", seed, 0xf0478627],
      ["abc", seed, 0xc84a62dd],
      ["ab", seed, 0x74875592],
      ["Hello, world!", seed, 0x24884cba],
      ["ππππππππ", seed, 0xd58063c1],
      ["a".repeat(256), seed, 0x37405bdc],
      ["abc", 0, 0xb3dd93fa],
      ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0, 0xee925b90],
      ["The quick brown fox jumps over the lazy dog", seed, 0x2fa826cd],
    ];
    for (const [text, s, expected] of vectors) expect(murmur3(text, s)).toBe(expected);
  });

  it("passes SMHasher's verification value (0xB0F57EE3)", () => {
    const key = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hashes = new Uint8Array(256 * 4);
    const view = new DataView(hashes.buffer);
    for (let i = 0; i < 256; i++) view.setUint32(i * 4, murmur3(key.subarray(0, i), 256 - i), true);
    expect(murmur3(hashes, 0)).toBe(0xb0f57ee3);
  });

  it("hashes a string as its UTF-8 bytes, long ones included", () => {
    const text = `é🌵${"x".repeat(1000)}`;
    expect(murmur3(text)).toBe(murmur3(new TextEncoder().encode(text)));
    expect(murmur3("user:1")).not.toBe(murmur3("user:2"));
  });
});

describe("ShardedStore routing", () => {
  it("rejects bad options with clear errors", () => {
    const store = new MemoryStore();
    expect(() => shardedStore({ shards: [] })).toThrow(/at least one shard/);
    expect(() =>
      shardedStore({
        shards: [
          { id: "a", store },
          { id: "a", store },
        ],
      }),
    ).toThrow(/"a" is used twice/);
    expect(() => shardedStore({ shards: [{ id: "", store }] })).toThrow(
      /shards\[0\]\.id must be a non-empty string/,
    );
    expect(() => shardedStore({ shards: [{ id: "a", store, weight: 0 }] })).toThrow(/weight/);
    expect(() => shardedStore({ shards: [{ id: "a", store }], virtualNodes: 0 })).toThrow(/virtualNodes/);
  });

  it("routes a key to the same shard every time, whatever the order the shards were given in", () => {
    const a = shardedStore({ shards: spies(["a", "b", "c"]) });
    const b = shardedStore({ shards: spies(["c", "a", "b"]) });
    const ks = keys(2000);
    expect(ownership(a, ks)).toEqual(ownership(b, ks));
    expect(ownership(a, ks)).toEqual(ownership(a, ks));
  });

  it("spreads 30,000 keys evenly over 3 shards (each within ±20% of a third)", () => {
    const s = shardedStore({ shards: spies(["redis-a", "redis-b", "redis-c"]) });
    const counts = countBy(ownership(s, keys(30_000)).values());
    expect(counts.size).toBe(3);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(8_000);
      expect(n).toBeLessThan(12_000);
    }
  });

  it("gives a shard of weight 2 about twice the keys of a shard of weight 1", () => {
    const s = shardedStore({
      shards: [
        { id: "big", store: new MemoryStore(), weight: 2 },
        { id: "small-1", store: new MemoryStore() },
        { id: "small-2", store: new MemoryStore() },
      ],
    });
    const counts = countBy(ownership(s, keys(40_000)).values());
    expect(counts.get("big")! / 40_000).toBeGreaterThan(0.4);
    expect(counts.get("big")! / 40_000).toBeLessThan(0.6);
    for (const id of ["small-1", "small-2"]) {
      expect(counts.get(id)! / 40_000).toBeGreaterThan(0.2);
      expect(counts.get(id)! / 40_000).toBeLessThan(0.3);
    }
  });

  it("co-locates every limit of one identity on one shard, in one call", async () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards });
    const items: StoreItem[] = ["api", "login", "upload"].map((ns) => ({
      limits: perSecond(10, ns),
      key: "user:42",
      cost: 1,
    }));
    const decisions = await s.apply(items, "consume", T0);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
    const called = shards.filter((sh) => sh.store.calls.length > 0);
    expect(called.map((sh) => sh.id)).toEqual([s.shardFor("user:42")]);
    expect(called[0].store.calls).toEqual([{ op: "consume", keys: ["user:42", "user:42", "user:42"] }]);
  });

  it("passes a call's ticket to the one shard owning it (applyTo), and answers spread calls through apply", async () => {
    /** A spy whose applyTo records the ticket it was given. */
    class TicketSpy extends SpyStore {
      tickets: unknown[] = [];
      applyTo(
        items: readonly StoreItem[],
        op: StoreOp,
        nowMs: number,
        onDecisions: (d: Decision[]) => void,
        onError: (e: unknown) => void,
        ticket?: CallTicket,
      ): void {
        this.tickets.push(ticket);
        this.apply(items, op, nowMs).then(onDecisions, onError);
      }
    }
    const shards = ["a", "b", "c"].map((id) => ({ id, store: new TicketSpy() }));
    const s = shardedStore({ shards });
    const ticket: CallTicket = { settled: false };
    const key = keyOn(s, "b");
    const one = await new Promise<Decision[]>((resolve, reject) =>
      s.applyTo([{ limits: perSecond(10), key, cost: 1 }], "consume", T0, resolve, reject, ticket),
    );
    expect(one[0].allowed).toBe(true);
    expect(shards[1].store.tickets).toEqual([ticket]);
    const spread = [keyOn(s, "a"), keyOn(s, "c")].map((k) => ({ limits: perSecond(10), key: k, cost: 1 }));
    const both = await new Promise<Decision[]>((resolve, reject) =>
      s.applyTo(spread, "consume", T0, resolve, reject, ticket),
    );
    expect(both.map((d) => d.allowed)).toEqual([true, true]);
    expect(shards[0].store.tickets).toEqual([]); // through apply: every part is sent (refunds follow answers)
    expect(shards[0].store.calls.length).toBe(1);
    const bad = await new Promise<unknown>((resolve) =>
      s.applyTo([null as unknown as StoreItem], "consume", T0, () => resolve("answered"), resolve, ticket),
    );
    expect(bad).toBeInstanceOf(Error);
  });

  it("reports shared only when every shard is shared", () => {
    const all = shardedStore({
      shards: [
        { id: "a", store: new SpyStore(true) },
        { id: "b", store: new SpyStore(true) },
      ],
    });
    expect(all.shared).toBe(true);
    expect(all.name).toBe("sharded");
    all.addShard({ id: "c", store: new MemoryStore() });
    expect(all.shared).toBe(false);
  });
});

describe("ShardedStore membership", () => {
  const ks = keys(10_000);

  it("adding a 4th shard to 3 moves about a quarter of the keys, all to the new shard", () => {
    const s = shardedStore({ shards: spies(["a", "b", "c"]) });
    const before = ownership(s, ks);
    s.addShard({ id: "d", store: new SpyStore() });
    const after = ownership(s, ks);
    const moved = ks.filter((k) => before.get(k) !== after.get(k));
    const fraction = moved.length / ks.length;
    expect(fraction).toBeGreaterThan(0.15);
    expect(fraction).toBeLessThan(0.35);
    // only keys whose ring successor is now a point of the new shard move: none between two shards that stay
    for (const k of moved) expect(after.get(k)).toBe("d");
    expect([...after.values()].filter((id) => id === "d").length).toBe(moved.length);
  });

  it("removing a shard moves exactly its keys and nothing else", () => {
    const s = shardedStore({ shards: spies(["a", "b", "c", "d"]) });
    const before = ownership(s, ks);
    s.removeShard("b");
    const after = ownership(s, ks);
    for (const k of ks) {
      if (before.get(k) === "b") expect(after.get(k)).not.toBe("b");
      else expect(after.get(k)).toBe(before.get(k));
    }
    const fraction = ks.filter((k) => before.get(k) === "b").length / ks.length;
    expect(fraction).toBeGreaterThan(0.15);
    expect(fraction).toBeLessThan(0.35);
  });

  it("adding then removing a shard restores the original ownership", () => {
    const s = shardedStore({ shards: spies(["a", "b", "c"]) });
    const before = ownership(s, ks);
    s.addShard({ id: "d", store: new MemoryStore() });
    s.removeShard("d");
    expect(ownership(s, ks)).toEqual(before);
  });

  it("a moved key starts fresh on its new shard; its old state stays on the old shard", async () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards });
    const limits = perSecond(3);
    const before = ownership(s, ks);
    const d = new SpyStore();
    s.addShard({ id: "d", store: d });
    const key = ks.find((k) => s.shardFor(k) === "d")!;
    const oldShard = shards.find((sh) => sh.id === before.get(key))!.store;
    s.removeShard("d");
    await s.apply([{ limits, key, cost: 3 }], "consume", T0);
    expect(oldShard.remaining(limits, key)).toBe(0);
    s.addShard({ id: "d", store: d });
    const [fresh] = await s.apply([{ limits, key, cost: 1 }], "consume", T0);
    expect(fresh).toMatchObject({ allowed: true, remaining: 2 });
    expect(oldShard.remaining(limits, key)).toBe(0);
  });

  it("removeShard returns the store unclosed and refuses an unknown id or the last shard", async () => {
    const shards = spies(["a", "b"]);
    const s = shardedStore({ shards });
    expect(() => s.removeShard("zz")).toThrow(/no shard with id "zz"/);
    expect(s.removeShard("a")).toBe(shards[0].store);
    expect(shards[0].store.closed).toBe(false);
    expect(() => s.removeShard("b")).toThrow(/last shard/);
    expect(() => s.addShard({ id: "b", store: new MemoryStore() })).toThrow(/used twice/);
    expect(s.shards.map((sh) => sh.id)).toEqual(["b"]);
  });

  it("close() closes every current shard", async () => {
    const shards = spies(["a", "b", "c"]);
    await shardedStore({ shards }).close();
    expect(shards.every((sh) => sh.store.closed)).toBe(true);
  });
});

describe("ShardedStore.wrapShards (views)", () => {
  /** A store standing for `inner` in a view, passing every call through and counting them. */
  class Wrapper implements Store {
    readonly name = "wrapper";
    calls = 0;
    constructor(readonly inner: Store) {}
    get shared(): boolean {
      return this.inner.shared;
    }
    apply(items: readonly StoreItem[], op: StoreOp, nowMs: number): Promise<Decision[]> {
      this.calls++;
      return this.inner.apply(items, op, nowMs);
    }
    release(limits: LimitSet, key: string, leases: Readonly<Record<string, number>>, nowMs: number) {
      return this.inner.release(limits, key, leases, nowMs);
    }
    close(): Promise<void> {
      return this.inner.close();
    }
  }

  it("routes every key as its source does, through each shard's wrapper, wrapping a shard once", async () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards: [...shards.slice(0, 2), { ...shards[2], weight: 2 }] });
    const wrapped: string[] = [];
    const view = s.wrapShards((shard) => {
      wrapped.push(shard.id);
      return new Wrapper(shard.store);
    });
    expect(wrapped).toEqual(["a", "b", "c"]);
    for (const k of keys(2000)) expect(view.shardFor(k)).toBe(s.shardFor(k));
    expect(view.shards.map((sh) => [sh.id, sh.weight, sh.store instanceof Wrapper])).toEqual([
      ["a", undefined, true],
      ["b", undefined, true],
      ["c", 2, true],
    ]);
    const limits = perSecond(5);
    const ka = keyOn(s, "a");
    const kc = keyOn(s, "c");
    await view.apply(
      [
        { limits, key: ka, cost: 1 },
        { limits, key: kc, cost: 1 },
      ],
      "consume",
      T0,
    );
    expect(view.shards.map((sh) => (sh.store as Wrapper).calls)).toEqual([1, 0, 1]);
    expect(shards[0].store.remaining(limits, ka)).toBe(4);
    await view.apply([{ limits, key: ka, cost: 1 }], "consume", T0);
    expect(wrapped).toEqual(["a", "b", "c"]);
  });

  it("follows its source's membership and refuses to change its own", () => {
    const shards = spies(["a", "b"]);
    const s = shardedStore({ shards });
    const view = s.wrapShards((shard) => new Wrapper(shard.store));
    const first = view.shards[0].store;
    s.addShard({ id: "c", store: new SpyStore() });
    expect(view.shards.map((sh) => sh.id)).toEqual(["a", "b", "c"]);
    expect(view.shards[0].store).toBe(first); // not wrapped again
    for (const k of keys(2000)) expect(view.shardFor(k)).toBe(s.shardFor(k));
    s.removeShard("a");
    expect(view.shards.map((sh) => sh.id)).toEqual(["b", "c"]);
    expect(() => view.addShard({ id: "d", store: new SpyStore() })).toThrow(/view/);
    expect(() => view.removeShard("b")).toThrow(/view/);
    expect(() => s.wrapShards((sh) => sh.store, { claimWaitMs: 0 })).toThrow(/claimWaitMs/);
  });
});

describe("ShardedStore consume across shards", () => {
  const setup = () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards });
    const store = (id: string) => shards.find((sh) => sh.id === id)!.store;
    return { s, store, ka: keyOn(s, "a"), kb: keyOn(s, "b"), kc: keyOn(s, "c") };
  };

  it("admits when every shard admits, one call per shard, decisions in item order", async () => {
    const { s, store, ka, kb, kc } = setup();
    const limits = perSecond(5);
    const ka2 = keyOn(s, "a", "other:");
    const items = [kb, ka, kc, ka2].map((key, i) => ({ limits, key, cost: i + 1 }));
    const d = await s.apply(items, "consume", T0);
    expect(d.map((x) => [x.allowed, x.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
    ]);
    expect(store("a").calls).toEqual([{ op: "consume", keys: [ka, ka2] }]);
    expect(store("b").calls).toEqual([{ op: "consume", keys: [kb] }]);
  });

  it("a denial on shard B refunds shard A and denies every item (all-or-nothing)", async () => {
    const { s, store, ka, kb } = setup();
    const limits = perSecond(5);
    const d = await s.apply(
      [
        { limits, key: ka, cost: 2 },
        { limits, key: kb, cost: 6 },
      ],
      "consume",
      T0,
    );
    expect(d.map((x) => x.allowed)).toEqual([false, false]);
    expect(d[0]).toMatchObject({ state: "throttled", remaining: 5, reason: "store" });
    expect(d[0].policies.map((p) => p.allowed)).toEqual([true]); // its own limit would have passed
    expect(d[1]).toMatchObject({ allowed: false, retryAfterMs: Number.POSITIVE_INFINITY });
    expect(store("a").calls.map((c) => c.op)).toEqual(["consume", "refund"]);
    expect(store("a").remaining(limits, ka)).toBe(5);
    expect(store("b").remaining(limits, kb)).toBe(5);
    // and the next request sees the full limit
    expect((await s.apply([{ limits, key: ka, cost: 5 }], "consume", T0))[0].allowed).toBe(true);
  });

  it("refunds every limit of a multi-limit item and releases its concurrency leases", async () => {
    const { s, store, ka, kb } = setup();
    const multi = setOf(
      "multi",
      { name: "rate", algorithm: "token_bucket", limit: 10, periodMs: 1000 },
      { name: "daily", algorithm: "fixed_window", limit: 100, periodMs: 86_400_000 },
      { name: "inflight", algorithm: "concurrency", limit: 2, periodMs: 60_000 },
    );
    const tight = perSecond(1);
    const d = await s.apply(
      [
        { limits: multi, key: ka, cost: 1 },
        { limits: tight, key: kb, cost: 2 },
      ],
      "consume",
      T0,
    );
    expect(d.map((x) => x.allowed)).toEqual([false, false]);
    expect(d[0].leases).toBeUndefined();
    expect(store("a").releases).toEqual([ka]);
    const peek = store("a").inner.applySync([{ limits: multi, key: ka, cost: 0 }], "peek", T0)[0];
    expect(peek.policies.map((p) => [p.policy, p.remaining])).toEqual([
      ["rate", 10],
      ["daily", 100],
      ["inflight", 2],
    ]);
  });

  it("takes a shard that denied anything as having consumed nothing there", async () => {
    const { s, store, ka, kb } = setup();
    const multi = setOf(
      "multi",
      { name: "x", algorithm: "gcra", limit: 5, periodMs: 1000 },
      { name: "y", algorithm: "sliding_window", limit: 50, periodMs: 60_000 },
    );
    const tight = perSecond(1, "tight");
    const kb2 = keyOn(s, "b", "other:");
    const d = await s.apply(
      [
        { limits: perSecond(5), key: ka, cost: 1 },
        { limits: multi, key: kb, cost: 1 }, // would pass alone
        { limits: tight, key: kb2, cost: 2 }, // denied: shard b consumes nothing
      ],
      "consume",
      T0,
    );
    expect(d.map((x) => x.allowed)).toEqual([false, false, false]);
    expect(d[1].state).toBe("throttled");
    expect(store("b").calls.map((c) => c.op)).toEqual(["consume"]); // nothing refunded there
    const peek = store("b").inner.applySync([{ limits: multi, key: kb, cost: 0 }], "peek", T0)[0];
    expect(peek.policies.map((p) => p.remaining)).toEqual([5, 50]);
    expect(store("a").remaining(perSecond(5), ka)).toBe(5);
  });

  it("when a shard fails, refunds the shards that admitted and rethrows", async () => {
    const { s, store, ka, kb } = setup();
    const limits = perSecond(5);
    store("b").failNext = true;
    await expect(
      s.apply(
        [
          { limits, key: ka, cost: 3 },
          { limits, key: kb, cost: 1 },
        ],
        "consume",
        T0,
      ),
    ).rejects.toThrow(/shard down/);
    expect(store("a").calls.map((c) => c.op)).toEqual(["consume", "refund"]);
    expect(store("a").remaining(limits, ka)).toBe(5);
  });

  it("uses the ring of the moment the call started even if membership changes before it settles", async () => {
    const { s, store, ka, kb } = setup();
    const limits = perSecond(5);
    const pending = s.apply(
      [
        { limits, key: ka, cost: 1 },
        { limits, key: kb, cost: 9 },
      ],
      "consume",
      T0,
    );
    s.removeShard("a");
    await pending;
    expect(store("a").calls.map((c) => c.op)).toEqual(["consume", "refund"]);
    expect(store("a").remaining(limits, ka)).toBe(5);
  });
});

describe("ShardedStore other operations", () => {
  it("routes peek, refund and reset per item and returns decisions in item order", async () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards });
    const limits = perSecond(10);
    const ks = ["a", "b", "c"].map((id) => keyOn(s, id));
    await s.apply(
      ks.map((key, i) => ({ limits, key, cost: i + 2 })),
      "consume",
      T0,
    );
    const items = (cost: number) => [...ks].reverse().map((key) => ({ limits, key, cost }));
    expect((await s.apply(items(0), "peek", T0)).map((d) => d.remaining)).toEqual([6, 7, 8]);
    expect((await s.apply(items(1), "refund", T0)).map((d) => d.remaining)).toEqual([7, 8, 9]);
    expect((await s.apply(items(0), "reset", T0)).map((d) => d.remaining)).toEqual([10, 10, 10]);
    for (const sh of shards) {
      expect(sh.store.calls.map((c) => c.op)).toEqual(["consume", "peek", "refund", "reset"]);
      expect(new Set(sh.store.calls.flatMap((c) => c.keys)).size).toBe(1);
    }
  });

  it("rethrows a shard's failure on peek", async () => {
    const shards = spies(["a", "b"]);
    const s = shardedStore({ shards });
    shards[1].store.failNext = true;
    const items = [keyOn(s, "a"), keyOn(s, "b")].map((key) => ({ limits: perSecond(1), key, cost: 0 }));
    await expect(s.apply(items, "peek", T0)).rejects.toThrow(/shard down/);
  });

  it("returns no decisions for no items, calling no shard", async () => {
    const shards = spies(["a", "b"]);
    expect(await shardedStore({ shards }).apply([], "consume", T0)).toEqual([]);
    expect(shards.every((sh) => sh.store.calls.length === 0)).toBe(true);
  });

  it("releases a concurrency lease on the shard that owns the key", async () => {
    const shards = spies(["a", "b", "c"]);
    const s = shardedStore({ shards });
    const limits = setOf("c", { name: "inflight", algorithm: "concurrency", limit: 2, periodMs: 60_000 });
    const key = keyOn(s, "c");
    const [d] = await s.apply([{ limits, key, cost: 2 }], "consume", T0);
    expect((await s.apply([{ limits, key, cost: 1 }], "consume", T0))[0].allowed).toBe(false);
    await s.release(limits, key, d.leases!, T0);
    expect(shards[2].store.releases).toEqual([key]);
    expect((await s.apply([{ limits, key, cost: 2 }], "consume", T0))[0].allowed).toBe(true);
  });
});

describe("shardedStore options", () => {
  const invalid = (message: string) =>
    expect.objectContaining({ code: "ERR_SLUICE_INVALID_ARGUMENT", message });
  const store = new MemoryStore({ capacity: 10 });

  it("refuses an unknown option of the store, of a shard, of addShard's shard and of wrapShards", () => {
    expect(() => shardedStore({ shards: [{ id: "a", store }], virtualNode: 2 } as never)).toThrow(
      invalid('shardedStore: unknown option "virtualNode"; did you mean "virtualNodes"?'),
    );
    expect(() => shardedStore({ shards: [{ id: "a", store, wieght: 2 }] } as never)).toThrow(
      invalid('shardedStore: unknown option "shards[0].wieght"; did you mean "shards[0].weight"?'),
    );
    const s = shardedStore({ shards: [{ id: "a", store }] });
    expect(() => s.addShard({ id: "b", store, wieght: 2 } as never)).toThrow(
      invalid('shardedStore.addShard: unknown option "shard.wieght"; did you mean "shard.weight"?'),
    );
    expect(s.shards.map((x) => x.id)).toEqual(["a"]); // nothing added
    expect(() => s.wrapShards((x) => x.store, { claimWait: 5 } as never)).toThrow(
      invalid('shardedStore.wrapShards: unknown option "claimWait"; did you mean "claimWaitMs"?'),
    );
  });

  it("names the field of a bad shard, quoting strings", () => {
    expect(() => shardedStore({ shards: "a" } as never)).toThrow(
      invalid('shardedStore: shards must be an array of { id, store, weight? }, got "a"'),
    );
    expect(() => shardedStore({ shards: [{ id: "a", store }, { id: "b" }] } as never)).toThrow(
      invalid('shardedStore: shards[1].store (shard "b") must be a Store, got undefined'),
    );
    expect(() => shardedStore({ shards: [{ id: "a", store, weight: "2" }] } as never)).toThrow(
      invalid('shardedStore: shards[0].weight (shard "a") must be a positive number, got "2"'),
    );
    expect(() => shardedStore({ shards: [{ id: "a", store }], virtualNodes: "8" } as never)).toThrow(
      invalid('shardedStore: virtualNodes must be a whole number from 1 to 100000, got "8"'),
    );
    expect(() => shardedStore({ shards: [{ id: "a", store }], claimTtlMs: "8" } as never)).toThrow(
      invalid('shardedStore: claimTtlMs must be a whole number of ms from 1 to 3600000, got "8"'),
    );
  });
});

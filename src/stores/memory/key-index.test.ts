import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INITIAL_CELLS, KeyIndex, LONG_KEY } from "./key-index.js";

/** An index over its own slot arrays, with the bookkeeping the memory store does around it. */
function harness(capacity: number, seed?: number, initialCells?: number) {
  const keys: (string | undefined)[] = [];
  const owner = new Uint16Array(capacity);
  const index = new KeyIndex(capacity, keys, owner, seed, initialCells);
  const free = Array.from({ length: capacity }, (_, i) => capacity - 1 - i);
  return {
    index,
    keys,
    owner,
    add(table: number, key: string): number {
      const slot = free.pop() as number;
      keys[slot] = key;
      owner[slot] = table;
      index.add(table, key, slot);
      return slot;
    },
    remove(table: number, key: string): void {
      const slot = index.get(table, key);
      index.remove(table, key, slot);
      keys[slot] = undefined;
      owner[slot] = 0;
      free.push(slot);
    },
  };
}

describe("KeyIndex", () => {
  it("finds each (table, key) at its slot, and nothing else", () => {
    const h = harness(8, 1);
    const a = h.add(1, "a");
    const b = h.add(2, "a");
    const c = h.add(1, "b");
    expect(h.index.get(1, "a")).toBe(a);
    expect(h.index.get(2, "a")).toBe(b);
    expect(h.index.get(1, "b")).toBe(c);
    expect(h.index.get(2, "b")).toBe(-1);
    expect(h.index.get(3, "a")).toBe(-1);
    expect(h.index.get(1, "")).toBe(-1);
  });

  it("confirms a hash match against the slot's key: equal hashes of other keys are told apart", () => {
    const h = harness(4, 7);
    const slot = h.add(1, "alpha");
    // The cell still holds hash("alpha") → slot; the slot now holds another key (what a colliding key looks like).
    h.keys[slot] = "beta";
    expect(h.index.get(1, "alpha")).toBe(-1);
    h.keys[slot] = "alpha";
    h.owner[slot] = 2;
    expect(h.index.get(1, "alpha")).toBe(-1);
  });

  it("matches keys by value, not by string identity", () => {
    const h = harness(4, 3);
    const slot = h.add(1, ["us", "er:", 42].join(""));
    expect(h.index.get(1, `user:${40 + 2}`)).toBe(slot);
  });

  it("removing a key keeps every other key of its probe run reachable (backward shift)", () => {
    // Capacity 8 → 16 cells: 8 keys crowd the table, so runs form and wrap around its end.
    for (let seed = 0; seed < 50; seed++) {
      const h = harness(8, seed);
      const names = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"];
      for (const n of names) h.add(1, n);
      for (let i = 0; i < names.length; i++) {
        h.remove(1, names[i]);
        for (let j = 0; j < names.length; j++) {
          const found = h.index.get(1, names[j]);
          if (j <= i) expect(found).toBe(-1);
          else expect(h.keys[found]).toBe(names[j]);
        }
      }
    }
  });

  it("keeps long keys apart per table, and finds, removes and clears them like short ones", () => {
    const h = harness(8, 5);
    const long = "k".repeat(LONG_KEY + 1);
    const a = h.add(1, long);
    const b = h.add(2, long);
    const c = h.add(1, "k".repeat(LONG_KEY));
    expect(h.index.get(1, long)).toBe(a);
    expect(h.index.get(2, long)).toBe(b);
    expect(h.index.get(1, "k".repeat(LONG_KEY))).toBe(c);
    expect(h.index.get(3, long)).toBe(-1);
    h.remove(1, long);
    expect(h.index.get(1, long)).toBe(-1);
    expect(h.index.get(2, long)).toBe(b);
    h.index.clear();
    expect(h.index.get(2, long)).toBe(-1);
    expect(h.index.get(1, "k".repeat(LONG_KEY))).toBe(-1);
  });

  it("clear() forgets every key", () => {
    const h = harness(4, 9);
    h.add(1, "a");
    h.add(1, "b");
    h.index.clear();
    expect(h.index.get(1, "a")).toBe(-1);
    expect(h.index.get(1, "b")).toBe(-1);
  });

  it("stores differ in layout: the hash depends on a per-index seed", () => {
    const a = new KeyIndex(4, [], new Uint16Array(4), 1);
    const b = new KeyIndex(4, [], new Uint16Array(4), 2);
    expect(a.hashOf(1, "user:1")).not.toBe(b.hashOf(1, "user:1"));
    expect(a.hashOf(1, "user:1")).toBe(a.hashOf(1, "user:1"));
    expect(a.hashOf(1, "user:1")).not.toBe(a.hashOf(2, "user:1"));
  });

  it("starts small and doubles as keys come, never past its load of ½ nor past 2 × capacity; clear() shrinks it", () => {
    const h = harness(10_000, 5);
    expect(h.index.tableSize).toBe(INITIAL_CELLS);
    const sizes = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      h.add(1 + (i % 3), `user:${i}`);
      expect(2 * (i + 1)).toBeLessThanOrEqual(h.index.tableSize);
      sizes.add(h.index.tableSize);
    }
    expect([...sizes]).toEqual([1024, 2048, 4096, 8192, 16_384, 32_768]); // 32,768: the first power of 2 ≥ 20,000
    for (let i = 0; i < 10_000; i++) expect(h.keys[h.index.get(1 + (i % 3), `user:${i}`)]).toBe(`user:${i}`);
    for (let i = 0; i < 10_000; i += 2) h.remove(1 + (i % 3), `user:${i}`);
    for (let i = 0; i < 10_000; i++) {
      expect(h.index.get(1 + (i % 3), `user:${i}`) === -1).toBe(i % 2 === 0);
    }
    h.index.clear();
    expect(h.index.tableSize).toBe(INITIAL_CELLS);
    expect(h.index.get(2, "user:1")).toBe(-1);
    // A small store's table is its whole size from the start.
    expect(harness(100).index.tableSize).toBe(256);
  });

  it("agrees with a Map while the table grows, under any sequence of adds and removes (property)", () => {
    const names = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? `k${i}${"x".repeat(40)}` : `k${i}`));
    const op = fc.record({
      add: fc.boolean(),
      table: fc.integer({ min: 1, max: 2 }),
      key: fc.constantFrom(...names),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer(), (ops, seed) => {
        const capacity = 120;
        const h = harness(capacity, seed, 16);
        const model = new Map<string, number>();
        for (const o of ops) {
          const id = `${o.table}\u0000${o.key}`;
          if (o.add && !model.has(id)) model.set(id, h.add(o.table, o.key));
          else if (!o.add && model.has(id)) {
            h.remove(o.table, o.key);
            model.delete(id);
          }
        }
        for (const t of [1, 2]) {
          for (const k of names) expect(h.index.get(t, k)).toBe(model.get(`${t}\u0000${k}`) ?? -1);
        }
        expect(h.index.tableSize).toBeLessThanOrEqual(256);
      }),
      { numRuns: 300 },
    );
  });

  it("agrees with a Map under any sequence of adds and removes (property)", () => {
    const op = fc.record({
      add: fc.boolean(),
      table: fc.integer({ min: 1, max: 3 }),
      key: fc.constantFrom("", "a", "b", "c", "user:1", "user:2", "%", "é", "a".repeat(70)),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer(), (ops, seed) => {
        const capacity = 16;
        const h = harness(capacity, seed);
        const model = new Map<string, number>();
        for (const o of ops) {
          const id = `${o.table}\u0000${o.key}`;
          if (o.add && !model.has(id) && model.size < capacity) model.set(id, h.add(o.table, o.key));
          else if (!o.add && model.has(id)) {
            h.remove(o.table, o.key);
            model.delete(id);
          }
          for (const t of [1, 2, 3]) {
            for (const k of ["", "a", "b", "c", "user:1", "user:2", "%", "é", "a".repeat(70)]) {
              expect(h.index.get(t, k)).toBe(model.get(`${t}\u0000${k}`) ?? -1);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

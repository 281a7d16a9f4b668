/**
 * The memory store's index: (table id, key) → slot, for every key the store holds: keys of up to {@link LONG_KEY}
 * characters in one open-addressing hash table, longer keys in a `Map` per table (see "Long keys" below).
 *
 * Why not one `Map` per table (what the store used before): a `Map` lookup of a key in a large table reads its
 * bucket, then the entry the bucket points to (elsewhere in the table), then the key string of that entry (to
 * check its type and hash; V8's tables hold about two entries per bucket, so often another key's string): three
 * dependent cache misses before the slot is known, then the slot's state. Measured on the engine's benchmark
 * (100,000 keys), `Builtins_FindOrderedHashMapEntry` was 37 % of a check's time, nearly all of it in those three
 * loads. Here a probe reads one cell holding the key's 32-bit hash and its slot side by side, so a lookup costs
 * one miss for the cell, then the slot's key, owner and state, which do not depend on each other and load
 * together.
 *
 * Layout: `cells: Int32Array(2 · size)`, cell `i` = `[hash, slot + 1]` (0: empty), `size` a power of two, linear
 * probing from `hash & (size − 1)`. The owner and key of a slot live in the store's arrays (`owner[slot]`,
 * `keys[slot]`), which the index reads to confirm a hash match: two keys whose hashes collide are still told apart
 * by comparing the strings.
 *
 * Size: the table starts at {@link INITIAL_CELLS} cells and doubles whenever an add would take its load past ½, up
 * to the first power of two ≥ 2 × capacity (where the store's capacity keeps the load ≤ ½; it never shrinks but on
 * `clear`). A doubling re-places every cell by its stored hash (no key is hashed again): O(n), amortised O(1) per
 * add. Why not allocate the full size at once (what the index did before): a store sized for a million keys (the
 * service's default) holding ten thousand probed a 16 MB table at random, one TLB and cache miss per lookup. With
 * the memory store's consumer measured inside `sluice serve` under `/v1/auth` load, 10,000 keys in a store of
 * capacity 1,000,000, that lookup took 1.4 µs of the request's ~33 µs; a table sized for its keys fits the caches.
 *
 * Invariants: every held (table, key) pair is in exactly one cell, reachable from its home cell without crossing
 * an empty cell (deletion shifts later cells of the run back, so no tombstones are needed); `keys[slot]` and
 * `owner[slot]` of a held pair are set before it is added and cleared only after it is removed.
 *
 * Hash: FNV-1a over the key's UTF-16 code units, started from a per-store random seed mixed with the table id, and
 * a murmur3 finaliser. The seed makes the layout of one store unpredictable to a client choosing keys.
 *
 * Long keys: the hash is computed in JavaScript on every lookup, at ~2.2 ns a character here (`charCodeAt` in a
 * loop; 8 chars 37 ns, 36 chars 90 ns, 100 chars 306 ns), while V8 hashes a string natively and caches the hash in
 * it. Keys longer than {@link LONG_KEY} characters (UUIDs, API keys, joined descriptors) are therefore kept in a
 * `Map` per table instead, where hashing costs less than the cache miss the index saves. Hashing only part of a
 * long key would bound the cost, but keys alike in the hashed part would all collide: a client could then make
 * every lookup walk the whole table.
 */
/** Keys longer than this many characters are kept in a per-table `Map` (see the module comment). */
export const LONG_KEY = 32;

/** Cells of a new (or cleared) index's table; it doubles from there (see the module comment). */
export const INITIAL_CELLS = 1024;

/** The memory store's (table id, key) → slot index; see the module comment. */
export class KeyIndex {
  #cells: Int32Array;
  /** Long keys → slot, by table id. */
  #long: (Map<string, number> | undefined)[] = [];
  /** The table's size − 1. */
  #mask: number;
  /** Short keys held (cells in use). */
  #count = 0;
  /** The largest table: the first power of two ≥ 2 × capacity. */
  readonly #maxSize: number;
  /** The first table's size (and the size `clear` goes back to). */
  readonly #initialSize: number;
  readonly #seed: number;
  readonly #keys: (string | undefined)[];
  readonly #owner: Uint16Array;

  /**
   * An empty index for at most `capacity` keys, confirming matches against the store's `keys` and `owner`
   * arrays (indexed by slot). `seed` fixes the hash (tests); by default it is random. `initialCells`: the first
   * table's size (rounded up to a power of two ≥ 16, at most the largest), {@link INITIAL_CELLS} by default.
   */
  constructor(
    capacity: number,
    keys: (string | undefined)[],
    owner: Uint16Array,
    seed?: number,
    initialCells: number = INITIAL_CELLS,
  ) {
    let max = 16;
    while (max < 2 * capacity) max *= 2;
    this.#maxSize = max;
    let size = 16;
    while (size < initialCells && size < max) size *= 2;
    this.#initialSize = size;
    this.#cells = new Int32Array(2 * size);
    this.#mask = size - 1;
    this.#seed = seed ?? (Math.random() * 0x100000000) | 0;
    this.#keys = keys;
    this.#owner = owner;
  }

  /** The hash of `key` in table `table` (see the module comment). */
  hashOf(table: number, key: string): number {
    let h = (this.#seed ^ Math.imul(table + 1, 0x9e3779b1) ^ key.length) | 0;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return h ^ (h >>> 16);
  }

  /** The slot of `key` in table `table`, or -1 when the store does not hold it. */
  get(table: number, key: string): number {
    if (key.length > LONG_KEY) return this.#long[table]?.get(key) ?? -1;
    const h = this.hashOf(table, key);
    const cells = this.#cells;
    const mask = this.#mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = cells[2 * i + 1] - 1;
      if (s === -1) return -1;
      if (cells[2 * i] === h && this.#owner[s] === table && this.#keys[s] === key) return s;
    }
  }

  /** Adds `key` of table `table` at `slot` (not held yet; `keys[slot]` and `owner[slot]` already set). */
  add(table: number, key: string, slot: number): void {
    if (key.length > LONG_KEY) {
      let m = this.#long[table];
      if (m === undefined) {
        m = new Map();
        this.#long[table] = m;
      }
      m.set(key, slot);
      return;
    }
    if (2 * (this.#count + 1) > this.#mask + 1 && this.#mask + 1 < this.#maxSize) this.#grow();
    const h = this.hashOf(table, key);
    const cells = this.#cells;
    const mask = this.#mask;
    let i = h & mask;
    while (cells[2 * i + 1] !== 0) i = (i + 1) & mask;
    cells[2 * i] = h;
    cells[2 * i + 1] = slot + 1;
    this.#count++;
  }

  /** Cells in the table (a power of two; see the module comment). */
  get tableSize(): number {
    return this.#mask + 1;
  }

  /** Doubles the table, re-placing every cell by its stored hash. */
  #grow(): void {
    const old = this.#cells;
    const size = 2 * (this.#mask + 1);
    const cells = new Int32Array(2 * size);
    const mask = size - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let i = old[j] & mask;
      while (cells[2 * i + 1] !== 0) i = (i + 1) & mask;
      cells[2 * i] = old[j];
      cells[2 * i + 1] = old[j + 1];
    }
    this.#cells = cells;
    this.#mask = mask;
  }

  /** Removes `key` of table `table`, held at `slot` (its `keys` and `owner` entries still set). */
  remove(table: number, key: string, slot: number): void {
    if (key.length > LONG_KEY) {
      this.#long[table]?.delete(key);
      return;
    }
    const cells = this.#cells;
    const mask = this.#mask;
    let i = this.hashOf(table, key) & mask;
    while (cells[2 * i + 1] !== slot + 1) {
      if (cells[2 * i + 1] === 0) return; // not held
      i = (i + 1) & mask;
    }
    // Backward shift: move each later cell of the run whose home is not between the hole and it into the hole.
    for (let j = (i + 1) & mask; cells[2 * j + 1] !== 0; j = (j + 1) & mask) {
      const home = cells[2 * j] & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        cells[2 * i] = cells[2 * j];
        cells[2 * i + 1] = cells[2 * j + 1];
        i = j;
      }
    }
    cells[2 * i] = 0;
    cells[2 * i + 1] = 0;
    this.#count--;
  }

  /** Removes every key (the table back to its initial size). */
  clear(): void {
    const size = this.#initialSize;
    this.#cells = new Int32Array(2 * size);
    this.#mask = size - 1;
    this.#count = 0;
    this.#long = [];
  }
}

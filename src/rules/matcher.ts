/**
 * Rule matching: which rule applies to one descriptor of a domain.
 *
 * Rules are compiled once per configuration into a trie: domain → (at each depth) entry key → exact values in a
 * `Map`, prefixes grouped by length (one `Map` lookup per distinct length), path patterns in a segment trie,
 * globs in a short list sorted by specificity, and the `any` branch. A descriptor with N entries matches only
 * rules with exactly N match entries, entry by entry in order (keys equal, value pattern matches).
 *
 * **Specificity.** Among the rules that match, the most specific wins, compared position by position from the
 * first entry (the first position that differs decides):
 * - `exact` > `prefix` > `path` > `glob` > `any`;
 * - prefix: the longer prefix is more specific;
 * - path: more literal segments; then more `:param` segments; then a pattern without a trailing `*`
 *   (so `/users/:id` and `/users/:id/*` beat `/users/*`);
 * - glob: more literal (non-`*`) characters.
 * Equally specific rules are ordered by higher `priority`, then earlier `order` (then earlier position in the
 * array given to {@link compileRules}).
 *
 * **Difference from envoyproxy/ratelimit.** Envoy's service walks the descriptor tree greedily: at each level it
 * takes the most specific child (`key_value`, then wildcard, then bare `key`) and never comes back, so a request
 * that enters a more specific branch and finds a dead end below it gets no limit at all, even when a less specific
 * branch would have matched completely. Sluice backtracks: a complete match down a less specific branch wins over
 * a dead end down a more specific one. Whenever Envoy finds a match, Sluice finds the same one.
 *
 * **Path patterns** (`kind: "path"`) compare segments. The value is normalised first: everything from the first
 * `?` is dropped (query strings are ignored), empty segments are dropped (a trailing slash and `//` do not
 * matter), and nothing is percent-decoded. In the pattern, a literal segment must equal the request's segment,
 * `:name` matches exactly one segment, and a trailing `*` matches **one or more** remaining segments: as in
 * Express, `/api/v1/orders/*` matches `/api/v1/orders/7` and `/api/v1/orders/7/items` but not `/api/v1/orders`
 * itself (add a rule for `/api/v1/orders` to cover it). A `*` segment that is not the last matches exactly one
 * segment (like `:name`); a `*` inside a segment is a literal character (use a `glob` for in-segment wildcards).
 * When a path entry is not `shared`, its counter is keyed by the normalised path, so `?a=1` and `?a=2` (or an
 * added trailing slash) cannot be used to obtain a fresh counter.
 *
 * **Globs** (`kind: "glob"`) follow Envoy's wildcard values: each `*` matches any run of characters, possibly
 * empty, anywhere in the value, any number of times.
 */
import type { Descriptor, EntryMatcher, Rule, ValuePattern } from "./rule.js";

/** The rule chosen for a descriptor, with the identities the engine needs to count it. */
export interface RuleMatch {
  /** The most specific matching rule. */
  readonly rule: Rule;
  /**
   * Identity of the counter in the store, unique within the rule's namespace (`${domain}/${rule.id}`, plus the
   * tier or override suffix), so it only has to tell apart the descriptors that match this one rule. Entries
   * matched by an `exact` pattern are the same for all of them, and so is a `shared` entry (every matching value
   * shares one counter); the other entries are *variable*. By the number of variable entries:
   * - **one** (the common case, e.g. `[user (any), endpoint (shared path)]`): that entry's value itself (its
   *   normalised path for a non-shared path pattern), as the very string the caller passed, so a store that
   *   hashes it reuses the hash V8 cached on it. The empty value and values starting with `%` get one more `%` in
   *   front (`""` → `"%"`, `"%x"` → `"%%x"`), so the key is never empty and distinct values never share a key;
   * - **none**: the entries as `key=value` joined by "|", where a shared entry contributes its pattern
   *   (`endpoint=/orders/*`): one constant key per rule;
   * - **several**: the same join with each variable entry's value (`user=42|ip=10.0.0.1`).
   * In joins, `%`, `|` and `=` in keys, values and patterns are percent-encoded, so distinct descriptors never
   * produce the same key. The form depends on the rule's match list: a reload that changes a rule's entries but
   * keeps its id (and so its namespace) may find an old counter under an equal key, as it keeps counters when the
   * limits change.
   */
  readonly counterKey: string;
  /** `${identityKey}:${value}` of the rule's identity entry, or undefined when the rule has none. */
  readonly identity: string | undefined;
}

/** A configuration's rules compiled for matching; build once per configuration with {@link compileRules}. */
export interface CompiledRules {
  /** The best rule for one descriptor of `domain`, or undefined. */
  match(domain: string, descriptor: Descriptor): RuleMatch | undefined;
  /**
   * The position, in the array given to {@link compileRules}, of the best rule for one descriptor of `domain`,
   * or -1: `match` without building the answer, for callers that keep per-rule state in an array.
   */
  find(domain: string, descriptor: Descriptor): number;
  /** The {@link RuleMatch} of the rule at `index` for `descriptor`, a descriptor that {@link find} gave it. */
  matchAt(index: number, descriptor: Descriptor): RuleMatch;
  /** Every domain that has rules. */
  readonly domains: readonly string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Specificity scores: one number per (rule, position), higher is more specific. Packed as
// `class · 2^44 + detail`, where the detail is bounded below 2^44 so classes never overlap (and the sum stays a
// safe integer).

const CLASS = 2 ** 44;
const MAX_DETAIL = CLASS - 1;
const CLASS_ANY = 0;
const CLASS_GLOB = 1;
const CLASS_PATH = 2;
const CLASS_PREFIX = 3;
const CLASS_EXACT = 4;
/** Path detail: `literals · 2^23 + params · 2 + (no trailing star ? 1 : 0)`. */
const PATH_LITERAL_UNIT = 2 ** 23;
const PATH_MAX_LITERALS = 2 ** 20 - 1;
const PATH_MAX_PARAMS = 2 ** 21 - 1;

/** Segment kinds of a compiled path pattern. */
const SEG_LITERAL = 0;
const SEG_PARAM = 1;
const SEG_STAR = 2;

interface PathSegment {
  readonly kind: typeof SEG_LITERAL | typeof SEG_PARAM | typeof SEG_STAR;
  readonly text: string;
}

/** Splits a path pattern into segments (empty segments and a query string dropped). */
function parsePathPattern(pattern: string): PathSegment[] {
  const parts = splitPath(pattern);
  const out: PathSegment[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p === "*") out.push({ kind: i === parts.length - 1 ? SEG_STAR : SEG_PARAM, text: p });
    else if (p.length > 1 && p.charCodeAt(0) === 58 /* : */) out.push({ kind: SEG_PARAM, text: p });
    else out.push({ kind: SEG_LITERAL, text: p });
  }
  return out;
}

/** The non-empty `/`-separated segments of `value` before any `?`. */
function splitPath(value: string): string[] {
  const q = value.indexOf("?");
  const end = q === -1 ? value.length : q;
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= end; i++) {
    if (i === end || value.charCodeAt(i) === 47 /* / */) {
      if (i > start) out.push(value.slice(start, i));
      start = i + 1;
    }
  }
  return out;
}

/** `value` normalised as a path: `/` + its non-empty segments before any `?`; returned as is when already so. */
function normalizePath(value: string): string {
  const n = value.length;
  let clean = n > 0 && value.charCodeAt(0) === 47 && (n === 1 || value.charCodeAt(n - 1) !== 47);
  for (let i = 1; clean && i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 63 /* ? */ || (c === 47 && value.charCodeAt(i - 1) === 47)) clean = false;
  }
  return clean ? value : `/${splitPath(value).join("/")}`;
}

/** Specificity of `pattern` at one position, higher is more specific. */
function scoreOf(pattern: ValuePattern): number {
  switch (pattern.kind) {
    case "exact":
      return CLASS_EXACT * CLASS;
    case "prefix":
      return CLASS_PREFIX * CLASS + Math.min(pattern.prefix.length, MAX_DETAIL);
    case "path": {
      let literals = 0;
      let params = 0;
      let star = false;
      for (const s of parsePathPattern(pattern.pattern)) {
        if (s.kind === SEG_LITERAL) literals++;
        else if (s.kind === SEG_PARAM) params++;
        else star = true;
      }
      return (
        CLASS_PATH * CLASS +
        Math.min(literals, PATH_MAX_LITERALS) * PATH_LITERAL_UNIT +
        Math.min(params, PATH_MAX_PARAMS) * 2 +
        (star ? 0 : 1)
      );
    }
    case "glob": {
      let literals = 0;
      for (let i = 0; i < pattern.pattern.length; i++) if (pattern.pattern.charCodeAt(i) !== 42) literals++;
      return CLASS_GLOB * CLASS + Math.min(literals, MAX_DETAIL);
    }
    case "any":
      return CLASS_ANY * CLASS;
  }
}

/** The pattern's text as it appears in a counter key when the entry is shared. */
function patternText(pattern: ValuePattern): string {
  switch (pattern.kind) {
    case "exact":
      return pattern.value;
    case "prefix":
      return `${pattern.prefix}*`;
    case "path":
    case "glob":
      return pattern.pattern;
    case "any":
      return "*";
  }
}

const NEEDS_ESCAPE = /[%|=]/;
const ESCAPE_ALL = /[%|=]/g;

/** Percent-encodes `%`, `|` and `=` (the separators of a counter key, and the escape character itself). */
function escapePart(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(ESCAPE_ALL, (c) => (c === "%" ? "%25" : c === "|" ? "%7C" : "%3D"));
}

// ---------------------------------------------------------------------------------------------------------------
// Compiled rules and the trie.

interface CompiledRule {
  readonly rule: Rule;
  /** Position in the array given to compileRules: the last tie-breaker. */
  readonly index: number;
  /** Specificity per position. */
  readonly scores: readonly number[];
  /** Per position: `key=` (escaped), or for a shared entry the whole `key=pattern` part. */
  readonly parts: readonly string[];
  readonly shared: readonly boolean[];
  /** Per position: the value is keyed by its normalised path (a non-shared path pattern). */
  readonly pathValue: readonly boolean[];
  /**
   * The counter key's form (see {@link RuleMatch.counterKey}): the position of the only variable entry (its value
   * is the key), {@link KEY_CONSTANT} (no variable entry: `constantKey`), or {@link KEY_JOINED} (several).
   */
  readonly variable: number;
  /** The key of every descriptor, when no entry is variable. */
  readonly constantKey: string;
  /** Position of the identity entry, or -1. */
  readonly identityIndex: number;
  /** `${identityKey}:`. */
  readonly identityPrefix: string;
}

interface TrieNode {
  /** The best rule whose match ends at this node (all such rules have identical patterns). */
  best: CompiledRule | undefined;
  readonly keys: Map<string, KeyNode>;
  /** The only key of `keys` (the common case), compared without a `Map` lookup; undefined otherwise. */
  onlyKey: string | undefined;
  onlyKeyNode: KeyNode | undefined;
}

interface PrefixGroup {
  readonly length: number;
  readonly byPrefix: Map<string, TrieNode>;
}

interface GlobEntry {
  readonly pattern: string;
  readonly score: number;
  /** The pattern split at each `*`: `parts[0]` is a prefix, the last part a suffix. */
  readonly parts: readonly string[];
  readonly node: TrieNode;
}

interface PathTerminal {
  readonly score: number;
  readonly node: TrieNode;
}

interface LiteralChild {
  readonly text: string;
  /** `text.charCodeAt(0)`: most candidates are rejected on it without reading the text. */
  readonly first: number;
  readonly node: PathNode;
}

interface PathNode {
  readonly literals: Map<string, PathNode>;
  /** The same children as a list, scanned when short. */
  readonly literalList: LiteralChild[];
  /** `literalList.length`, read without touching the list. */
  literalCount: number;
  /**
   * The same children by {@link segmentHash} of their text, looked up when the list is long: an open hash table
   * of `literalMask + 1` buckets (a power of two, at least twice the children), each the children of that hash.
   */
  literalTable: (LiteralChild[] | undefined)[];
  literalMask: number;
  param: PathNode | undefined;
  /** Patterns ending exactly here. */
  end: PathTerminal | undefined;
  /** Patterns ending here with a trailing `*` (one or more further segments). */
  star: PathTerminal | undefined;
}

interface KeyNode {
  readonly exact: Map<string, TrieNode>;
  /** Sorted by length, longest first. */
  readonly prefixes: PrefixGroup[];
  /** Sorted by score, most specific first. */
  readonly globs: GlobEntry[];
  path: PathNode | undefined;
  any: TrieNode | undefined;
  /** Which of `exact`, `prefixes` and `globs` hold anything ({@link HAS_EXACT} …): a search skips the others unread. */
  kinds: number;
}

const HAS_EXACT = 1;
const HAS_PREFIX = 2;
const HAS_GLOB = 4;

function newTrieNode(): TrieNode {
  return { best: undefined, keys: new Map(), onlyKey: undefined, onlyKeyNode: undefined };
}

function newPathNode(): PathNode {
  return {
    literals: new Map(),
    literalList: [],
    literalCount: 0,
    literalTable: [],
    literalMask: 0,
    param: undefined,
    end: undefined,
    star: undefined,
  };
}

/** Whether rule `a` beats rule `b` (same length): position by position, then priority, order, index. */
function beats(a: CompiledRule, b: CompiledRule): boolean {
  const n = a.scores.length;
  for (let i = 0; i < n; i++) {
    const d = a.scores[i] - b.scores[i];
    if (d !== 0) return d > 0;
  }
  if (a.rule.priority !== b.rule.priority) return a.rule.priority > b.rule.priority;
  if (a.rule.order !== b.rule.order) return a.rule.order < b.rule.order;
  return a.index < b.index;
}

function globMatches(parts: readonly string[], value: string): boolean {
  const last = parts.length - 1;
  if (last === 0) return parts[0] === value;
  const first = parts[0];
  const tail = parts[last];
  if (value.length < first.length + tail.length) return false;
  if (!value.startsWith(first) || !value.endsWith(tail)) return false;
  let pos = first.length;
  const stop = value.length - tail.length;
  for (let i = 1; i < last; i++) {
    const p = parts[i];
    if (p.length === 0) continue;
    const at = value.indexOf(p, pos);
    if (at === -1 || at + p.length > stop) return false;
    pos = at + p.length;
  }
  return true;
}

/** Path terminals found for one value: `items[0..n)` (the array is reused, its length is not the count). */
interface HitList {
  n: number;
  readonly items: PathTerminal[];
}

/** Sorts `h.items[0..n)` by score, most specific first (insertion sort: n is tiny). */
function sortHits(h: HitList): void {
  const a = h.items;
  for (let i = 1; i < h.n; i++) {
    const x = a[i];
    let j = i - 1;
    for (; j >= 0 && a[j].score < x.score; j--) a[j + 1] = a[j];
    a[j + 1] = x;
  }
}

/** Literal children of a path node up to this many are scanned in place; beyond, looked up by hash. */
const LITERAL_SCAN_MAX = 8;

/** Rebuilds the hash table of `node`'s literal children (see {@link PathNode.literalTable}). */
function indexLiterals(node: PathNode): void {
  let size = 16;
  while (size < 2 * node.literalList.length) size *= 2;
  const table: (LiteralChild[] | undefined)[] = new Array(size).fill(undefined);
  for (const l of node.literalList) {
    const h = segmentHash(l.text, 0, l.text.length) & (size - 1);
    const bucket = table[h];
    if (bucket === undefined) table[h] = [l];
    else bucket.push(l);
  }
  node.literalTable = table;
  node.literalMask = size - 1;
}

/** A hash of `v[from..to)`: a small integer (the walk computes the same while it scans a segment). */
function segmentHash(v: string, from: number, to: number): number {
  let h = 0;
  for (let i = from; i < to; i++) h = (Math.imul(h, 31) + v.charCodeAt(i)) | 0;
  return h & 0x3fffffff;
}

/** Whether `v` holds `text` at `pos` from `text[from]` on (the caller checked that it fits, and `text[..from)`). */
function sameSegment(v: string, pos: number, text: string, from: number): boolean {
  for (let k = from; k < text.length; k++) if (v.charCodeAt(pos + k) !== text.charCodeAt(k)) return false;
  return true;
}

/** Whether a path segment ends at `i` of `v`: the end of `v`, a `/`, or the `?` of a query string. */
function segmentEndsAt(v: string, i: number): boolean {
  if (i >= v.length) return true;
  const c = v.charCodeAt(i);
  return c === 47 /* / */ || c === 63 /* ? */;
}

/**
 * Adds every path terminal under `node` that matches the segments of `v` from `pos` to `v`'s end or first `?`
 * to `out`. Walks the string in place with `charCodeAt` (which the JIT inlines): nothing is sliced or
 * allocated, and a literal segment is compared without first scanning for its end.
 */
function collectPath(node: PathNode, v: string, pos: number, out: HitList): void {
  const n = v.length;
  let c = 0;
  while (pos < n) {
    c = v.charCodeAt(pos);
    if (c !== 47 /* / */) break;
    pos++;
  }
  if (pos === n || c === 63 /* ? */) {
    if (node.end !== undefined) out.items[out.n++] = node.end;
    return;
  }
  if (node.star !== undefined) out.items[out.n++] = node.star;
  let segEnd = -1;
  const count = node.literalCount;
  if (count > LITERAL_SCAN_MAX) {
    let h = 0;
    let i = pos;
    for (; i < n; i++) {
      c = v.charCodeAt(i);
      if (c === 47 || c === 63) break;
      h = (Math.imul(h, 31) + c) | 0;
    }
    segEnd = i;
    const bucket = node.literalTable[h & node.literalMask];
    if (bucket !== undefined) {
      for (let k = 0; k < bucket.length; k++) {
        const l = bucket[k];
        if (l.text.length === segEnd - pos && sameSegment(v, pos, l.text, 0)) {
          collectPath(l.node, v, segEnd, out);
          break;
        }
      }
    }
  } else if (count > 0) {
    // `c` is the segment's first character (the walk stopped on it).
    const list = node.literalList;
    for (let k = 0; k < count; k++) {
      const l = list[k];
      if (l.first !== c) continue;
      const e = pos + l.text.length;
      if (e <= n && segmentEndsAt(v, e) && sameSegment(v, pos, l.text, 1)) {
        segEnd = e;
        collectPath(l.node, v, e, out);
        break;
      }
    }
  }
  if (node.param !== undefined) {
    if (segEnd === -1) {
      segEnd = pos + 1;
      while (segEnd < n) {
        const ch = v.charCodeAt(segEnd);
        if (ch === 47 || ch === 63) break;
        segEnd++;
      }
    }
    collectPath(node.param, v, segEnd, out);
  }
}

function byScoreDesc(a: { score: number }, b: { score: number }): number {
  return b.score - a.score;
}

/**
 * The best rule under `node` for `desc[d..]`, or undefined. `scratch[d]` holds depth d's path hits, reused across
 * calls of one compiled matcher: matching is synchronous and never re-entered, and search(d) only recurses into
 * depth d + 1, so depth d's list is not touched by anyone else while it is read.
 */
function search(node: TrieNode, desc: Descriptor, d: number, scratch: HitList[]): CompiledRule | undefined {
  if (d === desc.length) return node.best;
  const entry = desc[d];
  const key = entry.key;
  const only = node.onlyKey;
  const kn = only === undefined ? node.keys.get(key) : only === key ? node.onlyKeyNode : undefined;
  if (kn === undefined) return undefined;
  const value = entry.value;
  const next = d + 1;
  let found: CompiledRule | undefined;

  const kinds = kn.kinds;
  if ((kinds & HAS_EXACT) !== 0) {
    const child = kn.exact.get(value);
    if (child !== undefined) {
      found = search(child, desc, next, scratch);
      if (found !== undefined) return found;
    }
  }

  // Each prefix length is its own specificity group: at most one prefix of a given length matches.
  const prefixes = kn.prefixes;
  for (let i = 0; (kinds & HAS_PREFIX) !== 0 && i < prefixes.length; i++) {
    const g = prefixes[i];
    if (value.length < g.length) continue;
    const child = g.byPrefix.get(g.length === value.length ? value : value.slice(0, g.length));
    if (child !== undefined) {
      found = search(child, desc, next, scratch);
      if (found !== undefined) return found;
    }
  }

  if (kn.path !== undefined) {
    let hits = scratch[d];
    if (hits === undefined) {
      hits = { n: 0, items: [] };
      scratch[d] = hits;
    }
    hits.n = 0;
    collectPath(kn.path, value, 0, hits);
    if (hits.n > 1) sortHits(hits);
    const items = hits.items;
    const n = hits.n;
    for (let i = 0; i < n; ) {
      const score = items[i].score;
      for (; i < n && items[i].score === score; i++) {
        const r = search(items[i].node, desc, next, scratch);
        if (r !== undefined && (found === undefined || beats(r, found))) found = r;
      }
      if (found !== undefined) return found;
    }
  }

  const globs = kn.globs;
  for (let i = 0; (kinds & HAS_GLOB) !== 0 && i < globs.length; ) {
    const score = globs[i].score;
    for (; i < globs.length && globs[i].score === score; i++) {
      const g = globs[i];
      if (!globMatches(g.parts, value)) continue;
      const r = search(g.node, desc, next, scratch);
      if (r !== undefined && (found === undefined || beats(r, found))) found = r;
    }
    if (found !== undefined) return found;
  }

  return kn.any === undefined ? undefined : search(kn.any, desc, next, scratch);
}

function keyNodeOf(node: TrieNode, key: string): KeyNode {
  let kn = node.keys.get(key);
  if (kn === undefined) {
    kn = { exact: new Map(), prefixes: [], globs: [], path: undefined, any: undefined, kinds: 0 };
    node.keys.set(key, kn);
    const only = node.keys.size === 1;
    node.onlyKey = only ? key : undefined;
    node.onlyKeyNode = only ? kn : undefined;
  }
  return kn;
}

/** The trie node reached from `node` through `m`, created when absent. */
function childFor(node: TrieNode, m: EntryMatcher, score: number): TrieNode {
  const kn = keyNodeOf(node, m.key);
  const p = m.value;
  switch (p.kind) {
    case "exact": {
      kn.kinds |= HAS_EXACT;
      let c = kn.exact.get(p.value);
      if (c === undefined) {
        c = newTrieNode();
        kn.exact.set(p.value, c);
      }
      return c;
    }
    case "prefix": {
      kn.kinds |= HAS_PREFIX;
      let g = kn.prefixes.find((x) => x.length === p.prefix.length);
      if (g === undefined) {
        g = { length: p.prefix.length, byPrefix: new Map() };
        kn.prefixes.push(g);
        kn.prefixes.sort((a, b) => b.length - a.length);
      }
      let c = g.byPrefix.get(p.prefix);
      if (c === undefined) {
        c = newTrieNode();
        g.byPrefix.set(p.prefix, c);
      }
      return c;
    }
    case "glob": {
      kn.kinds |= HAS_GLOB;
      let e = kn.globs.find((x) => x.pattern === p.pattern);
      if (e === undefined) {
        e = { pattern: p.pattern, score, parts: p.pattern.split("*"), node: newTrieNode() };
        kn.globs.push(e);
        kn.globs.sort(byScoreDesc); // stable: equal scores keep insertion order
      }
      return e.node;
    }
    case "path": {
      if (kn.path === undefined) kn.path = newPathNode();
      let pn = kn.path;
      const segs = parsePathPattern(p.pattern);
      for (let i = 0; i < segs.length; i++) {
        const s = segs[i];
        if (s.kind === SEG_STAR) {
          if (pn.star === undefined) pn.star = { score, node: newTrieNode() };
          return pn.star.node;
        }
        if (s.kind === SEG_PARAM) {
          if (pn.param === undefined) pn.param = newPathNode();
          pn = pn.param;
        } else {
          let c = pn.literals.get(s.text);
          if (c === undefined) {
            c = newPathNode();
            pn.literals.set(s.text, c);
            pn.literalList.push({ text: s.text, first: s.text.charCodeAt(0), node: c });
            pn.literalCount = pn.literalList.length;
            if (pn.literalList.length > LITERAL_SCAN_MAX) indexLiterals(pn);
          }
          pn = c;
        }
      }
      if (pn.end === undefined) pn.end = { score, node: newTrieNode() };
      return pn.end.node;
    }
    case "any": {
      if (kn.any === undefined) kn.any = newTrieNode();
      return kn.any;
    }
  }
}

/** {@link CompiledRule.variable} of a rule without variable entries. */
const KEY_CONSTANT = -1;
/** {@link CompiledRule.variable} of a rule with several variable entries. */
const KEY_JOINED = -2;

function compileRule(rule: Rule, index: number): CompiledRule {
  const n = rule.match.length;
  const scores: number[] = new Array(n);
  const parts: string[] = new Array(n);
  const shared: boolean[] = new Array(n);
  const pathValue: boolean[] = new Array(n);
  let identityIndex = -1;
  let variable = KEY_CONSTANT;
  let constantKey = "";
  for (let i = 0; i < n; i++) {
    const m = rule.match[i];
    scores[i] = scoreOf(m.value);
    const isShared = m.shared && m.value.kind !== "exact";
    shared[i] = isShared;
    pathValue[i] = !isShared && m.value.kind === "path";
    parts[i] = isShared
      ? `${escapePart(m.key)}=${escapePart(patternText(m.value))}`
      : `${escapePart(m.key)}=`;
    if (!isShared && m.value.kind !== "exact") variable = variable === KEY_CONSTANT ? i : KEY_JOINED;
    if (identityIndex === -1 && rule.identityKey !== undefined && m.key === rule.identityKey)
      identityIndex = i;
  }
  if (variable === KEY_CONSTANT) {
    // Every entry is exact (its value is the pattern's) or shared (its part holds the pattern).
    for (let i = 0; i < n; i++) {
      const v = rule.match[i].value;
      constantKey +=
        (i > 0 ? "|" : "") + (shared[i] || v.kind !== "exact" ? parts[i] : parts[i] + escapePart(v.value));
    }
  }
  return {
    rule,
    index,
    scores,
    parts,
    shared,
    pathValue,
    variable,
    constantKey,
    identityIndex,
    identityPrefix: rule.identityKey === undefined ? "" : `${rule.identityKey}:`,
  };
}

/** The counter key of `desc` under `c`; see {@link RuleMatch.counterKey}. */
function counterKeyOf(c: CompiledRule, desc: Descriptor): string {
  const only = c.variable;
  if (only >= 0) {
    let v = desc[only].value;
    if (c.pathValue[only]) v = normalizePath(v);
    return v.length === 0 || v.charCodeAt(0) === 37 /* % */ ? `%${v}` : v;
  }
  if (only === KEY_CONSTANT) return c.constantKey;
  let key = "";
  const n = desc.length;
  for (let i = 0; i < n; i++) {
    if (i > 0) key += "|";
    if (c.shared[i]) key += c.parts[i];
    else {
      const v = desc[i].value;
      key += c.parts[i] + escapePart(c.pathValue[i] ? normalizePath(v) : v);
    }
  }
  return key;
}

/**
 * Compiles `rules` (any domains) into a matcher; call once per configuration, then {@link CompiledRules.match}
 * per descriptor.
 */
export function compileRules(rules: readonly Rule[]): CompiledRules {
  const roots = new Map<string, TrieNode>();
  const compiled: CompiledRule[] = new Array(rules.length);
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    const c = compileRule(rule, index);
    compiled[index] = c;
    let node = roots.get(rule.domain);
    if (node === undefined) {
      node = newTrieNode();
      roots.set(rule.domain, node);
    }
    for (let i = 0; i < rule.match.length; i++) node = childFor(node, rule.match[i], c.scores[i]);
    if (node.best === undefined || beats(c, node.best)) node.best = c;
  }
  const domains = Object.freeze([...roots.keys()]);
  const scratch: HitList[] = [];
  const resultOf = (c: CompiledRule, descriptor: Descriptor): RuleMatch => ({
    rule: c.rule,
    counterKey: counterKeyOf(c, descriptor),
    identity: c.identityIndex === -1 ? undefined : c.identityPrefix + descriptor[c.identityIndex].value,
  });
  return Object.freeze({
    domains,
    match(domain: string, descriptor: Descriptor): RuleMatch | undefined {
      const root = roots.get(domain);
      if (root === undefined) return undefined;
      const c = search(root, descriptor, 0, scratch);
      return c === undefined ? undefined : resultOf(c, descriptor);
    },
    find(domain: string, descriptor: Descriptor): number {
      const root = roots.get(domain);
      if (root === undefined) return -1;
      const c = search(root, descriptor, 0, scratch);
      return c === undefined ? -1 : c.index;
    },
    matchAt(index: number, descriptor: Descriptor): RuleMatch {
      return resultOf(compiled[index], descriptor);
    },
  });
}

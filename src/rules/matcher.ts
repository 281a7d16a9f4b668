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
   * Identity of the counter in the store: the descriptor's entries as `key=value` joined by "|", where an entry
   * matched by a `shared` pattern contributes the pattern instead of the value (so all matching values share one
   * counter). `%`, `|` and `=` in keys, values and patterns are percent-encoded, so distinct descriptors never
   * produce the same key.
   */
  readonly counterKey: string;
  /** `${identityKey}:${value}` of the rule's identity entry, or undefined when the rule has none. */
  readonly identity: string | undefined;
}

/** A configuration's rules compiled for matching; build once per configuration with {@link compileRules}. */
export interface CompiledRules {
  /** The best rule for one descriptor of `domain`, or undefined. */
  match(domain: string, descriptor: Descriptor): RuleMatch | undefined;
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
  /** Position of the identity entry, or -1. */
  readonly identityIndex: number;
  /** `${identityKey}:`. */
  readonly identityPrefix: string;
}

interface TrieNode {
  /** The best rule whose match ends at this node (all such rules have identical patterns). */
  best: CompiledRule | undefined;
  readonly keys: Map<string, KeyNode>;
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

interface PathNode {
  readonly literals: Map<string, PathNode>;
  /** The same children as a list, scanned when short. */
  readonly literalList: { readonly text: string; readonly node: PathNode }[];
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
}

function newTrieNode(): TrieNode {
  return { best: undefined, keys: new Map() };
}

function newPathNode(): PathNode {
  return { literals: new Map(), literalList: [], param: undefined, end: undefined, star: undefined };
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

/** Literal children of a path node up to this many are scanned in place; beyond, looked up in the `Map`. */
const LITERAL_SCAN_MAX = 8;

/**
 * Adds every path terminal under `node` that matches the segments of `v` between `pos` and `end` to `out`.
 * Walks the string in place: a segment is sliced out only to look it up among many literal children.
 */
function collectPath(node: PathNode, v: string, pos: number, end: number, out: HitList): void {
  while (pos < end && v.charCodeAt(pos) === 47 /* / */) pos++;
  if (pos >= end) {
    if (node.end !== undefined) out.items[out.n++] = node.end;
    return;
  }
  if (node.star !== undefined) out.items[out.n++] = node.star;
  let segEnd = v.indexOf("/", pos);
  if (segEnd === -1 || segEnd > end) segEnd = end;
  const list = node.literalList;
  if (list.length > LITERAL_SCAN_MAX) {
    const lit = node.literals.get(v.slice(pos, segEnd));
    if (lit !== undefined) collectPath(lit, v, segEnd, end, out);
  } else {
    const len = segEnd - pos;
    for (let i = 0; i < list.length; i++) {
      const l = list[i];
      if (l.text.length === len && v.startsWith(l.text, pos)) {
        collectPath(l.node, v, segEnd, end, out);
        break;
      }
    }
  }
  if (node.param !== undefined) collectPath(node.param, v, segEnd, end, out);
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
  const kn = node.keys.get(entry.key);
  if (kn === undefined) return undefined;
  const value = entry.value;
  const next = d + 1;
  let found: CompiledRule | undefined;

  if (kn.exact.size > 0) {
    const child = kn.exact.get(value);
    if (child !== undefined) {
      found = search(child, desc, next, scratch);
      if (found !== undefined) return found;
    }
  }

  // Each prefix length is its own specificity group: at most one prefix of a given length matches.
  const prefixes = kn.prefixes;
  for (let i = 0; i < prefixes.length; i++) {
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
    const q = value.indexOf("?");
    collectPath(kn.path, value, 0, q === -1 ? value.length : q, hits);
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
  for (let i = 0; i < globs.length; ) {
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
    kn = { exact: new Map(), prefixes: [], globs: [], path: undefined, any: undefined };
    node.keys.set(key, kn);
  }
  return kn;
}

/** The trie node reached from `node` through `m`, created when absent. */
function childFor(node: TrieNode, m: EntryMatcher, score: number): TrieNode {
  const kn = keyNodeOf(node, m.key);
  const p = m.value;
  switch (p.kind) {
    case "exact": {
      let c = kn.exact.get(p.value);
      if (c === undefined) {
        c = newTrieNode();
        kn.exact.set(p.value, c);
      }
      return c;
    }
    case "prefix": {
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
            pn.literalList.push({ text: s.text, node: c });
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

function compileRule(rule: Rule, index: number): CompiledRule {
  const n = rule.match.length;
  const scores: number[] = new Array(n);
  const parts: string[] = new Array(n);
  const shared: boolean[] = new Array(n);
  const pathValue: boolean[] = new Array(n);
  let identityIndex = -1;
  for (let i = 0; i < n; i++) {
    const m = rule.match[i];
    scores[i] = scoreOf(m.value);
    const isShared = m.shared && m.value.kind !== "exact";
    shared[i] = isShared;
    pathValue[i] = !isShared && m.value.kind === "path";
    parts[i] = isShared
      ? `${escapePart(m.key)}=${escapePart(patternText(m.value))}`
      : `${escapePart(m.key)}=`;
    if (identityIndex === -1 && rule.identityKey !== undefined && m.key === rule.identityKey)
      identityIndex = i;
  }
  return {
    rule,
    index,
    scores,
    parts,
    shared,
    pathValue,
    identityIndex,
    identityPrefix: rule.identityKey === undefined ? "" : `${rule.identityKey}:`,
  };
}

function counterKeyOf(c: CompiledRule, desc: Descriptor): string {
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
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    const c = compileRule(rule, index);
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
  return Object.freeze({
    domains,
    match(domain: string, descriptor: Descriptor): RuleMatch | undefined {
      const root = roots.get(domain);
      if (root === undefined) return undefined;
      const c = search(root, descriptor, 0, scratch);
      if (c === undefined) return undefined;
      return {
        rule: c.rule,
        counterKey: counterKeyOf(c, descriptor),
        identity: c.identityIndex === -1 ? undefined : c.identityPrefix + descriptor[c.identityIndex].value,
      };
    },
  });
}

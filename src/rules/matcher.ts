/**
 * Rule matching: which rule applies to one descriptor of a domain.
 *
 * Rules are compiled once per configuration into a trie: domain → (at each depth) entry key → exact values in a
 * `Map`, prefixes grouped by length (one `Map` lookup per distinct length), path patterns in a segment trie,
 * globs in a short list sorted by specificity, and the `any` branch. A descriptor with N entries matches only
 * rules with exactly N match entries, entry by entry in order (keys equal, value pattern matches). Domains with
 * the same patterns share one trie, whose terminals index each domain's own rules (see {@link compileRules}); a
 * node with a single key below it holds that key's patterns itself (one hop per entry).
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
 * takes the most specific child (`key_value`, then the first matching wildcard in the file's order, then bare
 * `key`) and never comes back, so a request that enters a more specific branch and finds a dead end below it (or a
 * node without a limit) gets no limit at all, even when a less specific branch would have matched completely.
 * Native configurations backtrack: a complete match down a less specific branch wins over a dead end down a more
 * specific one. The domains of an envoyproxy/ratelimit file ({@link DescriptorTree}s, passed to
 * {@link compileRules}) are matched by Envoy's walk instead (descriptor-tree.ts), so they answer as Envoy does.
 *
 * **Path patterns** (`kind: "path"`) compare segments. The value is normalised first: everything from the first
 * `?` is dropped (query strings are ignored), empty segments are dropped (a trailing slash and `//` do not
 * matter), and nothing is percent-decoded. A pattern holds no `?` (the configuration refuses one, since the query
 * it would name is never matched). In the pattern, a literal segment must equal the request's segment,
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
import { compileDescriptorTree } from "./descriptor-tree.js";
import { globMatches } from "./glob-match.js";
import type { Descriptor, DescriptorTree, EntryMatcher, Rule, ValuePattern } from "./rule.js";

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

/**
 * The {@link RuleMatch} the matcher and the engine make: its identity string is built when it is read, not when the
 * match is made. Few checks read it (an override's lookup, a denied identity's tally), and building it on every check
 * took ~3 % of a check's time on the engine's benchmark. `toJSON` gives all three fields; a spread (`{ ...m }`) copies
 * only `rule` and `counterKey`.
 */
export class LazyRuleMatch implements RuleMatch {
  readonly rule: Rule;
  readonly counterKey: string;
  /** `${identityKey}:`; "" without an identity. */
  readonly #prefix: string;
  /** The identity entry's value; undefined when the rule has no identity. */
  readonly #value: string | undefined;

  /** The match of `rule` counted under `counterKey`, whose identity is `prefix + value` (none when `value` is undefined). */
  constructor(rule: Rule, counterKey: string, prefix: string, value: string | undefined) {
    this.rule = rule;
    this.counterKey = counterKey;
    this.#prefix = prefix;
    this.#value = value;
  }

  /** `${identityKey}:${value}` of the rule's identity entry, or undefined when the rule has none. */
  get identity(): string | undefined {
    const value = this.#value;
    return value === undefined ? undefined : this.#prefix + value;
  }

  /** The identity entry's value (the identity without its `key:` prefix), or undefined when the rule has none. */
  get identityValue(): string | undefined {
    return this.#value;
  }

  /** The three fields of {@link RuleMatch}, for `JSON.stringify`. */
  toJSON(): RuleMatch {
    return { rule: this.rule, counterKey: this.counterKey, identity: this.identity };
  }
}

/**
 * How a rule's {@link RuleMatch} is formed from a descriptor it matched, when its counter key is one entry's value:
 * `{ rule, counterKey: valueKey(d[keyEntry].value), identity: identityPrefix + d[identityIndex].value }`.
 */
export interface KeyForm {
  /**
   * The only variable entry, when its value is the counter key as is (not a path) and the identity is a value as is
   * too (not a path pattern's, which is normalised): else -1 (use `matchAt`).
   */
  readonly keyEntry: number;
  /** The identity entry, or -1 (no identity). */
  readonly identityIndex: number;
  /** `${identityKey}:`, one string shared by the rules of an identity key; "" without one. */
  readonly identityPrefix: string;
}

/** The counter key of a rule whose only variable entry has `value` (see {@link RuleMatch.counterKey}). */
export function valueKey(value: string): string {
  return value.length === 0 || value.charCodeAt(0) === 37 /* % */ ? `%${value}` : value;
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
  /** How {@link matchAt} forms the answer of the rule at `index`, for callers that keep it per rule. */
  keyFormAt(index: number): KeyForm;
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

/**
 * A text equal for exactly the path patterns the matcher treats alike (they end at one node of its trie, so only one
 * of their rules can ever win): the segments as parsed (empty ones and any query dropped), each literal as written,
 * each `:name` and inner `*` as one parameter whatever its name, a trailing `*` as the rest of the path. So `/a/b`,
 * `/a/b/` and `/a//b` are alike, as are `/a/:x`, `/a/:y` and `/a/*` followed by a further segment.
 */
export function pathPatternKey(pattern: string): string {
  return JSON.stringify(parsePathPattern(pattern).map((s) => (s.kind === SEG_LITERAL ? s.text : s.kind)));
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

/**
 * The full key of `desc` in `domain`: the domain, then each entry as `key=value`, joined by "|", with `%`, `|` and
 * `=` percent-encoded in each part (as in {@link RuleMatch.counterKey}), so distinct descriptors never share a key.
 * Independent of any rule: the engine counts a request's own limits under it.
 */
export function descriptorKey(domain: string, desc: Descriptor): string {
  let key = escapePart(domain);
  for (let i = 0; i < desc.length; i++) key += `|${escapePart(desc[i].key)}=${escapePart(desc[i].value)}`;
  return key;
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
  /** Whether the only variable entry is keyed by its normalised path (`pathValue[variable]`). */
  readonly variablePath: boolean;
  /** The key of every descriptor, when no entry is variable. */
  readonly constantKey: string;
  /** Position of the identity entry, or -1. */
  readonly identityIndex: number;
  /** `${identityKey}:`. */
  readonly identityPrefix: string;
  /**
   * Whether the identity entry is a path pattern: the identity then holds the normalised path, as the counter key
   * does, so that `/users/7?x` is the identity `endpoint:/users/7` an override or a tier names.
   */
  readonly identityPath: boolean;
}

/**
 * A node of the trie: the terminal slot of the rules whose match list ends here, and the dispatch on the next
 * entry's key. With one key below it (the common case) the node is its own key node: `key` names that key and
 * the pattern fields are its own, so a search takes one hop per entry; with several keys, `keyed` holds a key
 * node per key (a `MatchNode` used only for its pattern fields). One class for both roles: one shape.
 */
class MatchNode {
  /** Terminal slot of the rules ending here (an index into a domain's `slots`), or -1. */
  slot = -1;
  /** The only key of the next entry, its patterns inline; undefined when there is none or several. */
  key: string | undefined = undefined;
  /** Key nodes by key, when several keys follow. */
  keyed: Map<string, MatchNode> | undefined = undefined;
  /** Which of `exact`, `prefixes` and `globs` hold anything ({@link HAS_EXACT} …): a search skips the others unread. */
  kinds = 0;
  exact: Map<string, MatchNode> | undefined = undefined;
  /** Sorted by length, longest first. */
  prefixes: PrefixGroup[] = NO_PREFIXES;
  /** Sorted by score, most specific first. */
  globs: GlobEntry[] = NO_GLOBS;
  path: PathNode | undefined = undefined;
  any: MatchNode | undefined = undefined;
}

interface PrefixGroup {
  readonly length: number;
  readonly byPrefix: Map<string, MatchNode>;
}

interface GlobEntry {
  readonly pattern: string;
  readonly score: number;
  /** The pattern split at each `*`: `parts[0]` is a prefix, the last part a suffix. */
  readonly parts: readonly string[];
  readonly node: MatchNode;
}

const NO_PREFIXES: PrefixGroup[] = [];
const NO_GLOBS: GlobEntry[] = [];

/**
 * A node of a path pattern trie (one per segment position). Its literal children are compared by their packed first
 * four characters ({@link packSegment}): the walk reads each character of the path once, packing the segment as it
 * finds its end, and tells a child by three integers (length and the two packed halves) rather than reading the
 * child's text, which it reads only for characters past the fourth. Up to {@link LITERAL_SCAN_MAX} children are
 * scanned in order; beyond, they are also in an open-addressing table by {@link codeHash}.
 */
class PathNode {
  /** Specificity of the patterns ending exactly here. */
  endScore = 0;
  /** The trie node after the patterns ending exactly here. */
  end: MatchNode | undefined = undefined;
  /** Specificity of the patterns ending here with a trailing `*` (one or more further segments). */
  starScore = 0;
  /** The trie node after them. */
  star: MatchNode | undefined = undefined;
  param: PathNode | undefined = undefined;
  /** Number of literal children. */
  litCount = 0;
  /** Per literal child `k < litCount`: `[length, lo, hi]` at `3k` (see {@link packSegment}); may hold spare room. */
  litCodes: Int32Array = NO_CODES;
  litTexts: string[] = [];
  litNodes: PathNode[] = [];
  /** The table's size − 1 (a power of two, at least twice the children); 0 when there is no table. */
  tableMask = 0;
  /** Literal children by {@link codeHash}, linear probing: `k + 1` per place, 0 for a free place. */
  table: Int32Array = NO_CODES;
  /** Children by text, used while building. */
  readonly byText = new Map<string, PathNode>();
}

const NO_CODES = new Int32Array(0);

const HAS_EXACT = 1;
const HAS_PREFIX = 2;
const HAS_GLOB = 4;

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

/** Path terminals found for one value: `[0..n)` of the parallel arrays (reused: their length is not the count). */
interface HitList {
  n: number;
  readonly scores: number[];
  readonly nodes: MatchNode[];
}

/** Sorts the hits by score, most specific first (insertion sort: n is tiny). */
function sortHits(h: HitList): void {
  const s = h.scores;
  const m = h.nodes;
  for (let i = 1; i < h.n; i++) {
    const xs = s[i];
    const xm = m[i];
    let j = i - 1;
    for (; j >= 0 && s[j] < xs; j--) {
      s[j + 1] = s[j];
      m[j + 1] = m[j];
    }
    s[j + 1] = xs;
    m[j + 1] = xm;
  }
}

function addHit(out: HitList, score: number, node: MatchNode): void {
  const i = out.n++;
  out.scores[i] = score;
  out.nodes[i] = node;
}

/** Literal children of a path node up to this many are scanned in place; beyond, looked up by hash. */
const LITERAL_SCAN_MAX = 8;

/**
 * The first four UTF-16 code units of a segment, two per 32-bit integer: `lo = c0 | c1 << 16`, `hi = c2 | c3 << 16`,
 * 0 for units past the segment's end (its length tells those from a real U+0000). Two segments of equal length and
 * equal halves are equal up to their fifth unit. Returns `[lo, hi]` of `text`.
 */
function packSegment(text: string): [number, number] {
  const at = (i: number) => (i < text.length ? text.charCodeAt(i) : 0);
  return [at(0) | (at(1) << 16), at(2) | (at(3) << 16)];
}

/** A hash of a packed segment (its length and halves), for the table of a node with many literal children. */
function codeHash(len: number, lo: number, hi: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1) ^ len, 0x85ebca6b);
  h ^= h >>> 15;
  return Math.imul(h, 0xc2b2ae35) ^ (h >>> 13);
}

/**
 * Adds literal child `child` with text `text` to `node`: its packed code, and the table past the scan limit. The
 * code array and the table grow by doubling (a new child is probed into a table with room), so adding n children
 * costs O(n), not O(n²): 20,000 sibling literals took 10 s to compile when both were rebuilt per child.
 */
function addLiteral(node: PathNode, text: string, child: PathNode): void {
  node.byText.set(text, child);
  node.litTexts.push(text);
  node.litNodes.push(child);
  const k = node.litTexts.length - 1;
  let codes = node.litCodes;
  if (codes.length < 3 * (k + 1)) {
    codes = new Int32Array(Math.max(12, 2 * codes.length));
    codes.set(node.litCodes);
    node.litCodes = codes;
  }
  const [lo, hi] = packSegment(text);
  codes[3 * k] = text.length;
  codes[3 * k + 1] = lo;
  codes[3 * k + 2] = hi;
  const count = k + 1;
  node.litCount = count;
  if (count <= LITERAL_SCAN_MAX) return;
  if (2 * count <= node.table.length) {
    probeInto(node.table, node.tableMask, codes, k);
    return;
  }
  let size = 16;
  while (size < 2 * count) size *= 2;
  const table = new Int32Array(size);
  const mask = size - 1;
  for (let j = 0; j < count; j++) probeInto(table, mask, codes, j);
  node.table = table;
  node.tableMask = mask;
}

/** Places child `k` (its code at `3k` of `codes`) in the first free place of `table` from its hash on. */
function probeInto(table: Int32Array, mask: number, codes: Int32Array, k: number): void {
  let i = codeHash(codes[3 * k], codes[3 * k + 1], codes[3 * k + 2]) & mask;
  while (table[i] !== 0) i = (i + 1) & mask;
  table[i] = k + 1;
}

/** Whether `v` holds `text` at `pos` from `text[from]` on (the caller checked that it fits, and `text[..from)`). */
function sameSegment(v: string, pos: number, text: string, from: number): boolean {
  for (let k = from; k < text.length; k++) if (v.charCodeAt(pos + k) !== text.charCodeAt(k)) return false;
  return true;
}

/**
 * Adds every path terminal under `node` that matches the segments of `v` from `pos` to `v`'s end or first `?`
 * to `out`. Walks the string in place with `charCodeAt` (which the JIT inlines), each character read once:
 * nothing is sliced or allocated. A segment's first four characters are packed as its end is found
 * ({@link packSegment}), and a literal child is told by its packed code. A node with one way on (a literal child or
 * a parameter, not both: most nodes) is followed in the loop; only where both match does the literal's subtree take
 * a recursive call before the loop goes on with the parameter. (Measured on the engine benchmark's 20 patterns,
 * warm: one call per node made a lookup 14–20 % slower; comparing texts character by character instead of packed
 * codes took about twice the instructions.)
 */
function collectPath(node: PathNode, v: string, pos: number, out: HitList): void {
  const n = v.length;
  for (;;) {
    let c = 0;
    while (pos < n) {
      c = v.charCodeAt(pos);
      if (c !== 47 /* / */) break;
      pos++;
    }
    if (pos === n || c === 63 /* ? */) {
      if (node.end !== undefined) addHit(out, node.endScore, node.end);
      return;
    }
    if (node.star !== undefined) addHit(out, node.starScore, node.star);
    const count = node.litCount;
    const param = node.param;
    if (count === 0 && param === undefined) return;
    // The segment [pos, end), `c` its first character: packed while its end is found (a `/`, a `?` or v's end).
    let end = pos + 1;
    let lo = c;
    let hi = 0;
    // Unrolled for the four packed units (a helper returning -1 at the end took ~7 % more instructions per find).
    if (end < n) {
      c = v.charCodeAt(end);
      if (c !== 47 && c !== 63) {
        lo |= c << 16;
        end++;
        if (end < n) {
          c = v.charCodeAt(end);
          if (c !== 47 && c !== 63) {
            hi = c;
            end++;
            if (end < n) {
              c = v.charCodeAt(end);
              if (c !== 47 && c !== 63) {
                hi |= c << 16;
                end++;
                while (end < n) {
                  c = v.charCodeAt(end);
                  if (c === 47 || c === 63) break;
                  end++;
                }
              }
            }
          }
        }
      }
    }
    const len = end - pos;
    let literal: PathNode | undefined;
    if (count > 0) {
      const codes = node.litCodes;
      if (count > LITERAL_SCAN_MAX) {
        const mask = node.tableMask;
        const table = node.table;
        for (let i = codeHash(len, lo, hi) & mask; ; i = (i + 1) & mask) {
          const k = table[i] - 1;
          if (k === -1) break; // a free place
          const at = 3 * k;
          // Equal codes: equal texts up to the fifth character (children alike that far differ after it). The same
          // test as the scan's below, written out twice: as a shared helper it cost 2–4 % more instructions per
          // find() (callgrind, warm), though the JIT inlined it.
          if (
            codes[at] === len &&
            codes[at + 1] === lo &&
            codes[at + 2] === hi &&
            (len <= 4 || sameSegment(v, pos, node.litTexts[k], 4))
          ) {
            literal = node.litNodes[k];
            break;
          }
        }
      } else {
        for (let k = 0, at = 0; k < count; k++, at += 3) {
          if (
            codes[at + 1] === lo &&
            codes[at] === len &&
            codes[at + 2] === hi &&
            (len <= 4 || sameSegment(v, pos, node.litTexts[k], 4))
          ) {
            literal = node.litNodes[k];
            break;
          }
        }
      }
    }
    if (literal !== undefined) {
      if (param === undefined) {
        node = literal;
        pos = end;
        continue;
      }
      collectPath(literal, v, end, out);
    }
    if (param === undefined) return;
    node = param;
    pos = end;
  }
}

function byScoreDesc(a: { score: number }, b: { score: number }): number {
  return b.score - a.score;
}

/**
 * The terminal slot of the best rule under `node` for `desc[d..]`, or -1; `slots` are the domain's rules by terminal
 * slot (read only to rank several matches).
 * `scratch[d]` holds depth d's path hits, reused across calls of one compiled matcher: matching is synchronous
 * and never re-entered, and search(d) only recurses into depth d + 1, so depth d's list is not touched by anyone
 * else while it is read.
 * The last way on (`any`) is followed in a loop rather than a call, and a child at the descriptor's end is read
 * rather than called: a descriptor of two entries (`any`, then one path) takes one call instead of three.
 */
function search(
  node: MatchNode,
  desc: Descriptor,
  d: number,
  scratch: HitList[],
  slots: readonly CompiledRule[],
): number {
  const length = desc.length;
  for (;;) {
    if (d === length) return node.slot;
    const entry = desc[d];
    const key = entry.key;
    let kn = node;
    if (node.key !== key) {
      const keyed = node.keyed;
      if (keyed === undefined) return -1;
      const k = keyed.get(key);
      if (k === undefined) return -1;
      kn = k;
    }
    const value = entry.value;
    const next = d + 1;
    const last = next === length;
    let found = -1;

    const kinds = kn.kinds;
    if ((kinds & HAS_EXACT) !== 0) {
      const child = (kn.exact as Map<string, MatchNode>).get(value);
      if (child !== undefined) {
        found = last ? child.slot : search(child, desc, next, scratch, slots);
        if (found !== -1) return found;
      }
    }

    // Each prefix length is its own specificity group: at most one prefix of a given length matches.
    if ((kinds & HAS_PREFIX) !== 0) {
      const prefixes = kn.prefixes;
      for (let i = 0; i < prefixes.length; i++) {
        const g = prefixes[i];
        if (value.length < g.length) continue;
        const child = g.byPrefix.get(g.length === value.length ? value : value.slice(0, g.length));
        if (child !== undefined) {
          found = last ? child.slot : search(child, desc, next, scratch, slots);
          if (found !== -1) return found;
        }
      }
    }

    if (kn.path !== undefined) {
      let hits = scratch[d];
      if (hits === undefined) {
        hits = { n: 0, scores: [], nodes: [] };
        scratch[d] = hits;
      }
      hits.n = 0;
      collectPath(kn.path, value, 0, hits);
      const n = hits.n;
      if (n === 1) {
        // The common case: one pattern matched the path.
        const child = hits.nodes[0];
        found = last ? child.slot : search(child, desc, next, scratch, slots);
        if (found !== -1) return found;
      } else if (n > 1) {
        sortHits(hits);
        const scores = hits.scores;
        const nodes = hits.nodes;
        for (let i = 0; i < n; ) {
          const score = scores[i];
          for (; i < n && scores[i] === score; i++) {
            const r = last ? nodes[i].slot : search(nodes[i], desc, next, scratch, slots);
            if (r !== -1 && (found === -1 || beats(slots[r], slots[found]))) found = r;
          }
          if (found !== -1) return found;
        }
      }
    }

    if ((kinds & HAS_GLOB) !== 0) {
      const globs = kn.globs;
      for (let i = 0; i < globs.length; ) {
        const score = globs[i].score;
        for (; i < globs.length && globs[i].score === score; i++) {
          const g = globs[i];
          if (!globMatches(g.parts, value)) continue;
          const r = last ? g.node.slot : search(g.node, desc, next, scratch, slots);
          if (r !== -1 && (found === -1 || beats(slots[r], slots[found]))) found = r;
        }
        if (found !== -1) return found;
      }
    }

    if (kn.any === undefined) return -1;
    node = kn.any;
    d = next;
  }
}

/**
 * `s` as V8's one copy of its content: property names are kept once ("internalized"), so a lookup with an equal
 * string that is internalized too (a string literal, a short string from `JSON.parse`) finds this one by identity,
 * without comparing characters. The content is the same either way: nothing but speed depends on it.
 */
function internalized(s: string): string {
  const name = Object.keys({ [s]: 0 })[0];
  return name === s ? name : s;
}

/** The key node of `key` below trie node `node`, created when absent (see {@link MatchNode}). */
function keyNodeOf(node: MatchNode, name: string): MatchNode {
  const key = internalized(name);
  let keyed = node.keyed;
  if (keyed === undefined) {
    if (node.key === undefined) {
      node.key = key; // the first key: its patterns go inline
      return node;
    }
    if (node.key === key) return node;
    // A second key: the first one's patterns move to a key node of their own.
    const first = new MatchNode();
    first.key = node.key;
    first.kinds = node.kinds;
    first.exact = node.exact;
    first.prefixes = node.prefixes;
    first.globs = node.globs;
    first.path = node.path;
    first.any = node.any;
    node.key = undefined;
    node.kinds = 0;
    node.exact = undefined;
    node.prefixes = NO_PREFIXES;
    node.globs = NO_GLOBS;
    node.path = undefined;
    node.any = undefined;
    keyed = new Map([[first.key, first]]);
    node.keyed = keyed;
  }
  let kn = keyed.get(key);
  if (kn === undefined) {
    kn = new MatchNode();
    kn.key = key;
    keyed.set(key, kn);
  }
  return kn;
}

/** The trie node reached from `node` through `m`, created when absent. */
function childFor(node: MatchNode, m: EntryMatcher, score: number): MatchNode {
  const kn = keyNodeOf(node, m.key);
  const p = m.value;
  switch (p.kind) {
    case "exact": {
      kn.kinds |= HAS_EXACT;
      kn.exact ??= new Map();
      let c = kn.exact.get(p.value);
      if (c === undefined) {
        c = new MatchNode();
        kn.exact.set(internalized(p.value), c);
      }
      return c;
    }
    case "prefix": {
      kn.kinds |= HAS_PREFIX;
      if (kn.prefixes === NO_PREFIXES) kn.prefixes = [];
      let g = kn.prefixes.find((x) => x.length === p.prefix.length);
      if (g === undefined) {
        g = { length: p.prefix.length, byPrefix: new Map() };
        kn.prefixes.push(g);
        kn.prefixes.sort((a, b) => b.length - a.length);
      }
      let c = g.byPrefix.get(p.prefix);
      if (c === undefined) {
        c = new MatchNode();
        g.byPrefix.set(p.prefix, c);
      }
      return c;
    }
    case "glob": {
      kn.kinds |= HAS_GLOB;
      if (kn.globs === NO_GLOBS) kn.globs = [];
      let e = kn.globs.find((x) => x.pattern === p.pattern);
      if (e === undefined) {
        e = { pattern: p.pattern, score, parts: p.pattern.split("*"), node: new MatchNode() };
        kn.globs.push(e);
        kn.globs.sort(byScoreDesc); // stable: equal scores keep insertion order
      }
      return e.node;
    }
    case "path": {
      kn.path ??= new PathNode();
      let pn = kn.path;
      const segs = parsePathPattern(p.pattern);
      for (let i = 0; i < segs.length; i++) {
        const s = segs[i];
        if (s.kind === SEG_STAR) {
          if (pn.star === undefined) {
            pn.star = new MatchNode();
            pn.starScore = score;
          }
          return pn.star;
        }
        if (s.kind === SEG_PARAM) {
          pn.param ??= new PathNode();
          pn = pn.param;
        } else {
          let c = pn.byText.get(s.text);
          if (c === undefined) {
            c = new PathNode();
            addLiteral(pn, s.text, c);
          }
          pn = c;
        }
      }
      if (pn.end === undefined) {
        pn.end = new MatchNode();
        pn.endScore = score;
      }
      return pn.end;
    }
    case "any": {
      kn.any ??= new MatchNode();
      return kn.any;
    }
  }
}

/** {@link CompiledRule.variable} of a rule without variable entries. */
const KEY_CONSTANT = -1;
/** {@link CompiledRule.variable} of a rule with several variable entries. */
const KEY_JOINED = -2;

/**
 * Compiles one rule for matching. `prefixes` shares one `${identityKey}:` string per identity key among the rules
 * of a configuration (each check prepends it to the identity value: one hot string rather than one per rule).
 */
function compileRule(rule: Rule, index: number, prefixes: Map<string, string>): CompiledRule {
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
    variablePath: variable >= 0 && pathValue[variable],
    constantKey,
    identityIndex,
    identityPrefix: rule.identityKey === undefined ? "" : prefixOf(prefixes, rule.identityKey),
    identityPath: identityIndex !== -1 && rule.match[identityIndex].value.kind === "path",
  };
}

/** The shared `${key}:` string of identity key `key` (see {@link compileRule}). */
function prefixOf(prefixes: Map<string, string>, key: string): string {
  let p = prefixes.get(key);
  if (p === undefined) {
    p = `${key}:`;
    prefixes.set(key, p);
  }
  return p;
}

/** The counter key of `desc` under `c`; see {@link RuleMatch.counterKey}. */
function counterKeyOf(c: CompiledRule, desc: Descriptor): string {
  const only = c.variable;
  if (only >= 0) return valueKey(c.variablePath ? normalizePath(desc[only].value) : desc[only].value);
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
 * What the trie of a rule depends on: its keys, pattern kinds and pattern texts, in order (not `shared`, which
 * only shapes the counter key). Rules with equal signatures end at the same trie node.
 */
function signatureOf(rule: Rule): string {
  return JSON.stringify(rule.match.map((m) => [m.key, m.value.kind, patternText(m.value)]));
}

/** One domain's matcher: a trie (shared by every domain with the same patterns) and its rules by terminal slot. */
interface DomainTrie {
  readonly root: MatchNode;
  /** The best rule of this domain ending at each terminal slot of the trie. */
  readonly slots: readonly CompiledRule[];
  /** The position of each slot's rule (in the array given to {@link compileRules}): `find` reads no rule. */
  readonly indexOf: Int32Array;
  /** For a domain of a {@link DescriptorTree}: its greedy walk, which decides instead of the trie. */
  readonly walk: ((descriptor: Descriptor) => number) | undefined;
}

/**
 * Compiles `rules` (any domains) into a matcher; call once per configuration, then {@link CompiledRules.match}
 * per descriptor.
 *
 * Domains whose rules have the same set of match lists (the same keys and patterns, whatever their limits) share
 * one trie: its terminals are numbered (slots) and each domain keeps its own rule per slot. A configuration that
 * repeats one set of patterns for many domains (one per tenant or service) then walks one small trie, which stays
 * in the CPU caches, instead of one per domain.
 */
export function compileRules(rules: readonly Rule[], trees: readonly DescriptorTree[] = []): CompiledRules {
  const compiled: CompiledRule[] = new Array(rules.length);
  const byDomain = new Map<string, CompiledRule[]>();
  const signatures: string[] = new Array(rules.length);
  const prefixes = new Map<string, string>();
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    const c = compileRule(rule, index, prefixes);
    compiled[index] = c;
    signatures[index] = signatureOf(rule);
    const list = byDomain.get(rule.domain);
    if (list === undefined) byDomain.set(rule.domain, [c]);
    else list.push(c);
  }
  // Tries by the domain's sorted distinct signatures; each with the slot of every signature.
  const shapes = new Map<string, { root: MatchNode; slotOf: Map<string, number>; slots: number }>();
  const roots = new Map<string, DomainTrie>();
  for (const [domain, list] of byDomain) {
    const first = new Map<string, CompiledRule>();
    for (const c of list) if (!first.has(signatures[c.index])) first.set(signatures[c.index], c);
    const distinct = [...first.keys()].sort();
    const shapeKey = distinct.join("\n");
    let shape = shapes.get(shapeKey);
    if (shape === undefined) {
      const root = new MatchNode();
      const slotOf = new Map<string, number>();
      let slots = 0;
      for (const sig of distinct) {
        const c = first.get(sig) as CompiledRule;
        let node = root;
        for (let i = 0; i < c.rule.match.length; i++) node = childFor(node, c.rule.match[i], c.scores[i]);
        if (node.slot === -1) node.slot = slots++;
        slotOf.set(sig, node.slot);
      }
      shape = { root, slotOf, slots };
      shapes.set(shapeKey, shape);
    }
    const best: (CompiledRule | undefined)[] = Array.from({ length: shape.slots }, () => undefined);
    for (const c of list) {
      const s = shape.slotOf.get(signatures[c.index]) as number;
      const b = best[s];
      if (b === undefined || beats(c, b)) best[s] = c;
    }
    // Every slot holds a rule: each was made by a signature this domain has.
    const slots = best as CompiledRule[];
    const tree = trees.find((t) => t.domain === domain);
    roots.set(internalized(domain), {
      root: shape.root,
      slots,
      indexOf: Int32Array.from(slots, (c) => c.index),
      walk:
        tree === undefined
          ? undefined
          : compileDescriptorTree(tree, new Map(list.map((c) => [c.rule.id, c.index]))),
    });
  }
  const domains = Object.freeze([...roots.keys()]);
  const scratch: HitList[] = [];
  const resultOf = (c: CompiledRule, descriptor: Descriptor): RuleMatch =>
    new LazyRuleMatch(
      c.rule,
      counterKeyOf(c, descriptor),
      c.identityPrefix,
      c.identityIndex === -1
        ? undefined
        : c.identityPath
          ? normalizePath(descriptor[c.identityIndex].value)
          : descriptor[c.identityIndex].value,
    );
  return Object.freeze({
    domains,
    match(domain: string, descriptor: Descriptor): RuleMatch | undefined {
      const t = roots.get(domain);
      if (t === undefined) return undefined;
      if (t.walk !== undefined) {
        const index = t.walk(descriptor);
        return index === -1 ? undefined : resultOf(compiled[index], descriptor);
      }
      const slot = search(t.root, descriptor, 0, scratch, t.slots);
      return slot === -1 ? undefined : resultOf(t.slots[slot], descriptor);
    },
    find(domain: string, descriptor: Descriptor): number {
      const t = roots.get(domain);
      if (t === undefined) return -1;
      if (t.walk !== undefined) return t.walk(descriptor);
      const slot = search(t.root, descriptor, 0, scratch, t.slots);
      return slot === -1 ? -1 : t.indexOf[slot];
    },
    matchAt(index: number, descriptor: Descriptor): RuleMatch {
      return resultOf(compiled[index], descriptor);
    },
    keyFormAt(index: number): KeyForm {
      const c = compiled[index];
      return {
        // A normalised identity is not the value as is: such a rule's matches come from `matchAt`.
        keyEntry: c.variable >= 0 && !c.variablePath && !c.identityPath ? c.variable : -1,
        identityIndex: c.identityIndex,
        identityPrefix: c.identityPrefix,
      };
    },
  });
}

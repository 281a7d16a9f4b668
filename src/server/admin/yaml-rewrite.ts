/**
 * Renders a configuration document as YAML text, editing the previous text in place so that an admin write
 * keeps what a person wrote around the values it does not change: comments, flow/block styles, quoting, key
 * order. The `yaml` library's Document API does the parsing and printing; this module only walks the old node
 * tree alongside the new value:
 * - a mapping keeps its pairs (and their comments) for keys still present, updates their values, drops the
 *   others and appends new keys;
 * - a list matches old items to new ones by identity — `id` (rules), `identity` + `rule` (overrides) — or, for
 *   items without one, by position, so deleting the second rule does not move its comments onto the third. The
 *   comment above the first item is the parser's comment of the list itself: its last paragraph (after the last
 *   blank line; all of it without one) is the first item's and follows that item (gone when it is deleted, moved
 *   when it moves), and the paragraphs before it (a banner under `rules:`) stay with the list, as does a comment
 *   above the key `rules:` (the section's);
 * - a scalar whose value is unchanged keeps its node; a changed one gets a new node carrying the old comments.
 * Comments attached to removed values go with them.
 *
 * The result is checked: it must parse back to exactly the new value (canonical JSON). When an in-place edit
 * cannot guarantee that (anchors and aliases shared by several places, merge keys), the document is printed
 * afresh from the value, with only the header comment kept. A previous text with CRLF line endings gets CRLF line
 * endings back (an admin write must not turn every line of a file kept on Windows into a diff).
 */
import {
  Document,
  isAlias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  parseDocument,
  type ToStringOptions,
  type YAMLSeq,
} from "yaml";
import { canonicalJson } from "./config-repository.js";

/** Printing options: no line folding, so long flow mappings (`{ name: …, limit: … }`) stay on their line. */
const PRINT: ToStringOptions = { lineWidth: 0 };

/** Options of {@link renderYaml}. */
export interface RenderYamlOptions {
  /** The file's current text, edited in place when it parses. */
  readonly previous?: string;
  /** Comment lines (without `#`) that start the file; earlier lines starting with one of `managedPrefixes` are replaced. */
  readonly header: readonly string[];
  /** Prefixes of header lines this writer owns (they are replaced, not accumulated). */
  readonly managedPrefixes: readonly string[];
}

/** `value` as YAML text, editing `options.previous` in place when given (see the module comment). */
export function renderYaml(value: unknown, options: RenderYamlOptions): string {
  const text = renderLf(value, options);
  if (options.previous === undefined || !options.previous.includes("\r\n")) return text;
  // YAML reads CRLF as a line break, inside block scalars too: the same document (checked all the same).
  const crlf = text.replace(/\r?\n/g, "\r\n");
  return parsesTo(crlf, canonicalJson(value)) ? crlf : text;
}

/** {@link renderYaml} with LF line endings. */
function renderLf(value: unknown, options: RenderYamlOptions): string {
  const expected = canonicalJson(value);
  if (options.previous !== undefined) {
    const doc = parseDocument(options.previous, { uniqueKeys: true, schema: "core" });
    if (doc.errors.length === 0) {
      doc.contents = update(doc, doc.contents, value) as typeof doc.contents;
      setHeader(doc, options);
      const text = doc.toString(PRINT);
      if (parsesTo(text, expected)) return text;
    }
  }
  const doc = new Document(value);
  const previousHeader =
    options.previous === undefined ? undefined : parseDocument(options.previous).commentBefore;
  doc.commentBefore = previousHeader ?? null;
  setHeader(doc, options);
  const text = doc.toString(PRINT);
  if (!parsesTo(text, expected))
    throw new Error("internal error: the YAML printed does not parse back to the document");
  return text;
}

/** Whether `text` parses to the value whose canonical JSON is `expected`. */
function parsesTo(text: string, expected: string): boolean {
  const doc = parseDocument(text, { uniqueKeys: true, schema: "core", merge: true }); // as the loader reads it
  return doc.errors.length === 0 && canonicalJson(doc.toJS({ maxAliasCount: 1000 })) === expected;
}

/** Puts `options.header` first in the document's leading comment, replacing earlier managed lines. */
function setHeader(doc: Document, options: RenderYamlOptions): void {
  const kept = (doc.commentBefore ?? "")
    .split("\n")
    .filter((line) => !options.managedPrefixes.some((p) => line.trimStart().startsWith(p)));
  while (kept.length > 0 && kept[0].trim() === "") kept.shift();
  const lines = [...options.header.map((l) => ` ${l}`), ...(kept.length > 0 ? kept : [])];
  doc.commentBefore = lines.join("\n");
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What identifies a list item across versions: a rule's `id`, an override's identity and rule; else undefined. */
function valueKey(v: unknown): string | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.id === "string") return `id\u0000${v.id}`;
  if (typeof v.identity === "string") return `identity\u0000${v.identity}\u0000${String(v.rule ?? "")}`;
  return undefined;
}

/** {@link valueKey} of a mapping node. */
function nodeKey(node: unknown): string | undefined {
  if (!isMap(node)) return undefined;
  const id = node.get("id");
  if (typeof id === "string") return `id\u0000${id}`;
  const identity = node.get("identity");
  if (typeof identity === "string") return `identity\u0000${identity}\u0000${String(node.get("rule") ?? "")}`;
  return undefined;
}

function pairKey(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

/** A new node for `value` that keeps the comments and spacing of `old`. */
function fresh(doc: Document, old: unknown, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  if (isNode(old)) {
    if (old.commentBefore) node.commentBefore = old.commentBefore;
    if (old.comment) node.comment = old.comment;
    if (old.spaceBefore) node.spaceBefore = old.spaceBefore;
  }
  return node;
}

/**
 * The old first item of `seq` is no longer first (`firstAt`: where it went, -1 when removed): its part of the
 * list's leading comment (the last paragraph) goes with it, the list keeps the paragraphs before (see the module
 * comment). The new first item's own comment joins the list's, after a blank line when it had one, as the parser
 * reads such a text: the printer would indent a blank line before a list's first item (a stray `  ` line).
 */
function moveFirstComment(seq: YAMLSeq, firstAt: number): void {
  const lines = (seq.commentBefore ?? "").split("\n");
  let blank = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].trim() === "") {
      blank = i;
      break;
    }
  }
  const own = lines.slice(blank + 1).join("\n");
  const kept = lines.slice(0, Math.max(0, blank));
  while (kept.length > 0 && kept[kept.length - 1].trim() === "") kept.pop();
  if (firstAt > 0) {
    const moved = seq.items[firstAt];
    if (isNode(moved)) {
      moved.commentBefore = moved.commentBefore ? `${own}\n${moved.commentBefore}` : own;
      moved.spaceBefore = true;
    }
  }
  const lead = seq.items[0];
  if (isNode(lead)) {
    if (lead.commentBefore) {
      if (kept.length > 0 && lead.spaceBefore) kept.push("");
      kept.push(lead.commentBefore);
      lead.commentBefore = null;
    }
    lead.spaceBefore = false;
  }
  seq.commentBefore = kept.length > 0 ? kept.join("\n") : null;
}

/** `node` edited in place to hold `value`, or a new node when the kinds differ (see the module comment). */
function update(doc: Document, node: unknown, value: unknown): Node {
  if (isAlias(node) || !isNode(node)) return fresh(doc, node, value);
  if (isMap(node) && isRecord(value)) {
    const items = node.items.filter((pair) => {
      const key = pairKey(pair);
      return key !== undefined && Object.hasOwn(value, key) && value[key] !== undefined;
    });
    const present = new Set<string>();
    for (const pair of items) {
      const key = pairKey(pair) as string;
      present.add(key);
      pair.value = update(doc, pair.value, value[key]);
    }
    for (const [key, v] of Object.entries(value)) {
      if (v !== undefined && !present.has(key)) items.push(doc.createPair(key, v));
    }
    node.items = items;
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    const old = node.items;
    const byKey = new Map<string, unknown>();
    for (const item of old) {
      const key = nodeKey(item);
      if (key !== undefined && !byKey.has(key)) byKey.set(key, item);
    }
    const used = new Set<unknown>();
    /** Where the old first item went, or -1 when it was removed. */
    let firstAt = -1;
    node.items = value.map((v, i) => {
      const key = valueKey(v);
      const match = key !== undefined ? byKey.get(key) : nodeKey(old[i]) === undefined ? old[i] : undefined;
      if (match !== undefined && !used.has(match)) {
        used.add(match);
        if (match === old[0]) firstAt = i;
        return update(doc, match, v);
      }
      return doc.createNode(v) as Node;
    });
    if (old.length > 0 && firstAt !== 0 && node.commentBefore) moveFirstComment(node, firstAt);
    return node;
  }
  if (isScalar(node) && (value === null || typeof value !== "object")) {
    return node.value === value ? node : fresh(doc, node, value);
  }
  return fresh(doc, node, value);
}

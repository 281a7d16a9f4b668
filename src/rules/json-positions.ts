/**
 * Positions in a JSON text, for configuration messages: where the value at a path is (its line), the source text
 * of a scalar, the first repeated key of an object, and the first syntax error. The value itself comes from
 * `JSON.parse` (fast on large documents); this module only scans the text, linearly and without building values.
 *
 * The scanner follows RFC 8259 strictly (what `JSON.parse` accepts) and is recursive, nesting at most
 * {@link MAX_JSON_DEPTH} levels; deeper documents are scanned no further (no position, no repeated-key check
 * below that depth). Offsets are UTF-16 indices into the text; lines are 1-based, counted at `\n`.
 */
import type { ConfigPath } from "./config-schema.js";

/** Deepest nesting the scanner follows (a configuration is a few levels deep). */
export const MAX_JSON_DEPTH = 512;

/** A key that appears twice in one object. */
export interface RepeatedKey {
  /** The path of the repeated key (its object's path, then the key). */
  readonly path: ConfigPath;
  /** Offset of its second occurrence. */
  readonly offset: number;
  /** Offset of its first occurrence. */
  readonly firstOffset: number;
}

/** Where one value is: the offset its line is reported at (a member's key, else the value), and its extent. */
interface Located {
  readonly at: number;
  readonly start: number;
  readonly end: number;
}

/** Thrown inside the scanner: malformed text at `offset`, or nesting beyond {@link MAX_JSON_DEPTH}. */
class ScanStop {
  constructor(
    readonly offset: number,
    readonly tooDeep: boolean,
  ) {}
}

/** Thrown inside the scanner when a repeated key is found. */
class Repeated {
  constructor(readonly key: RepeatedKey) {}
}

/** A JSON number, matched where `lastIndex` says (sticky; shared: scans are synchronous). */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** What a scan records: nothing (syntax only), repeated keys, or every value's position by path. */
interface ScanOptions {
  readonly repeated: boolean;
  readonly index: Map<string, Located> | undefined;
}

/** The index key of child `seg` of the value at index key `parent` (objects: "k" + key, arrays: "i" + index). */
function childKey(parent: string, kind: "k" | "i", seg: string | number): string {
  return `${parent}\u0000${kind}${seg}`;
}

class Scanner {
  pos = 0;
  readonly #path: (string | number)[] = [];

  constructor(
    readonly text: string,
    readonly options: ScanOptions,
  ) {}

  stop(offset = this.pos): never {
    throw new ScanStop(offset, false);
  }

  ws(): void {
    const t = this.text;
    let p = this.pos;
    for (; p < t.length; p++) {
      const c = t.charCodeAt(p);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    }
    this.pos = p;
  }

  /** Scans the whole text as one value. */
  document(): void {
    this.ws();
    this.value(0, "");
    this.ws();
    if (this.pos !== this.text.length) this.stop();
  }

  /** Scans one value at `pos` (no leading space); `key` is its index key. */
  value(depth: number, key: string): void {
    const t = this.text;
    const start = this.pos;
    const c = t.charCodeAt(start);
    if (c === 123 /* { */) this.object(depth + 1, key);
    else if (c === 91 /* [ */) this.array(depth + 1, key);
    else if (c === 34 /* " */) this.string();
    else if (c === 116 /* t */) this.word("true");
    else if (c === 102 /* f */) this.word("false");
    else if (c === 110 /* n */) this.word("null");
    else this.number();
  }

  /** Records the value at index key `key`, scanned from `start` to `pos`, reported at `at`. */
  record(key: string, at: number, start: number): void {
    this.options.index?.set(key, { at, start, end: this.pos });
  }

  object(depth: number, key: string): void {
    if (depth > MAX_JSON_DEPTH) throw new ScanStop(this.pos, true);
    const t = this.text;
    this.pos++; // {
    this.ws();
    if (t.charCodeAt(this.pos) === 125 /* } */) {
      this.pos++;
      return;
    }
    const seen = this.options.repeated ? new Map<string, number>() : undefined;
    for (;;) {
      if (t.charCodeAt(this.pos) !== 34) this.stop();
      const keyAt = this.pos;
      const name = this.string();
      if (seen !== undefined) {
        const first = seen.get(name);
        if (first !== undefined) {
          throw new Repeated({ path: [...this.#path, name], offset: keyAt, firstOffset: first });
        }
        seen.set(name, keyAt);
      }
      this.ws();
      if (t.charCodeAt(this.pos) !== 58 /* : */) this.stop();
      this.pos++;
      this.ws();
      const start = this.pos;
      const child = this.options.index === undefined ? "" : childKey(key, "k", name);
      this.#path.push(name);
      this.value(depth, child);
      this.#path.pop();
      this.record(child, keyAt, start);
      this.ws();
      const c = t.charCodeAt(this.pos);
      this.pos++;
      if (c === 125 /* } */) return;
      if (c !== 44 /* , */) this.stop(this.pos - 1);
      this.ws();
    }
  }

  array(depth: number, key: string): void {
    if (depth > MAX_JSON_DEPTH) throw new ScanStop(this.pos, true);
    const t = this.text;
    this.pos++; // [
    this.ws();
    if (t.charCodeAt(this.pos) === 93 /* ] */) {
      this.pos++;
      return;
    }
    for (let i = 0; ; i++) {
      const start = this.pos;
      const child = this.options.index === undefined ? "" : childKey(key, "i", i);
      this.#path.push(i);
      this.value(depth, child);
      this.#path.pop();
      this.record(child, start, start);
      this.ws();
      const c = t.charCodeAt(this.pos);
      this.pos++;
      if (c === 93 /* ] */) return;
      if (c !== 44 /* , */) this.stop(this.pos - 1);
      this.ws();
    }
  }

  /** Scans a string at `pos` (its opening quote); returns its value. */
  string(): string {
    const t = this.text;
    const open = this.pos;
    let p = open + 1;
    let escaped = false;
    for (;;) {
      if (p >= t.length) this.stop(p);
      const c = t.charCodeAt(p);
      if (c === 34 /* " */) break;
      if (c < 0x20) this.stop(p);
      if (c === 92 /* \ */) {
        escaped = true;
        const e = t.charCodeAt(p + 1);
        if (e === 117 /* u */) {
          if (!/^[0-9A-Fa-f]{4}$/.test(t.slice(p + 2, p + 6))) this.stop(p);
          p += 6;
          continue;
        }
        // " \ / b f n r t
        if (e !== 34 && e !== 92 && e !== 47 && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116)
          this.stop(p);
        p += 2;
        continue;
      }
      p++;
    }
    this.pos = p + 1;
    return escaped ? (JSON.parse(t.slice(open, p + 1)) as string) : t.slice(open + 1, p);
  }

  word(w: string): void {
    if (!this.text.startsWith(w, this.pos)) this.stop();
    this.pos += w.length;
  }

  number(): void {
    const re = NUMBER;
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m === null || m[0].length === 0) this.stop();
    this.pos += m[0].length;
  }
}

/** The offset of the first syntax error of `text` (where a strict JSON parser stops), or undefined when there is none. */
export function jsonSyntaxErrorOffset(text: string): number | undefined {
  const s = new Scanner(text, { repeated: false, index: undefined });
  try {
    s.document();
    return undefined;
  } catch (error) {
    if (error instanceof ScanStop) return error.tooDeep ? undefined : error.offset;
    throw error;
  }
}

/** The first key repeated within one object of well-formed JSON `text`, or undefined (none, or too deep to say). */
export function jsonRepeatedKey(text: string): RepeatedKey | undefined {
  const s = new Scanner(text, { repeated: true, index: undefined });
  try {
    s.document();
    return undefined;
  } catch (error) {
    if (error instanceof Repeated) return error.key;
    if (error instanceof ScanStop) return undefined;
    throw error;
  }
}

/**
 * Positions in a well-formed JSON text by path. The first question scans the text once and indexes every value
 * (an error path: a configuration's messages ask a few questions of one document); later ones are lookups.
 */
export class JsonPositions {
  #index: Map<string, Located> | undefined;
  #lineStarts: number[] | undefined;

  constructor(readonly text: string) {}

  /**
   * Where the value at `path` is: a member's key, an element itself; for a path that does not exist, its nearest
   * existing parent (as the YAML locator answers). Numbers address array elements, and object keys that are
   * digit strings.
   */
  #locate(path: ConfigPath): Located | undefined {
    const index = this.#indexed();
    let key = "";
    let found = index.get(key);
    for (const seg of path) {
      const k = index.get(childKey(key, "k", seg));
      if (k !== undefined) {
        key = childKey(key, "k", seg);
        found = k;
        continue;
      }
      const i = typeof seg === "number" ? index.get(childKey(key, "i", seg)) : undefined;
      if (i === undefined) break;
      key = childKey(key, "i", seg);
      found = i;
    }
    return found;
  }

  /** The 1-based line of the value at `path` (see `#locate`), or undefined when the text could not be scanned. */
  lineOf(path: ConfigPath): number | undefined {
    const at = this.#locate(path)?.at;
    return at === undefined ? undefined : this.line(at);
  }

  /** The source text of the scalar at `path` (`1.10` stays `"1.10"`), or undefined when it is not a scalar. */
  textOf(path: ConfigPath): string | undefined {
    const index = this.#indexed();
    let key = "";
    for (const seg of path) {
      const k = childKey(key, "k", seg);
      if (index.has(k)) key = k;
      else if (typeof seg === "number" && index.has(childKey(key, "i", seg))) key = childKey(key, "i", seg);
      else return undefined;
    }
    const v = index.get(key);
    if (v === undefined) return undefined;
    const c = this.text.charCodeAt(v.start);
    if (c === 123 || c === 91) return undefined; // an object or an array
    const raw = this.text.slice(v.start, v.end);
    return c === 34 ? (JSON.parse(raw) as string) : raw;
  }

  /** The 1-based line of `offset` (binary search over the line starts, computed once). */
  line(offset: number): number {
    if (this.#lineStarts === undefined) {
      const starts = [0];
      const t = this.text;
      for (let i = t.indexOf("\n"); i !== -1; i = t.indexOf("\n", i + 1)) starts.push(i + 1);
      this.#lineStarts = starts;
    }
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  #indexed(): Map<string, Located> {
    if (this.#index === undefined) {
      const index = new Map<string, Located>();
      const s = new Scanner(this.text, { repeated: false, index });
      try {
        s.ws();
        const start = s.pos;
        s.value(0, "");
        s.record("", start, start);
      } catch (error) {
        if (!(error instanceof ScanStop)) throw error;
        // Too deep to index fully: what was indexed stays usable.
      }
      this.#index = index;
    }
    return this.#index;
  }
}

/**
 * The path of a request URI as the proxy in front of Sluice and the application behind it route on it, so that
 * endpoint rules cannot be sidestepped by spelling one path another way (nginx's `X-Original-URI` is the raw
 * `$request_uri`, while nginx and the application match the decoded, normalised path):
 * - percent-encoded unreserved characters (RFC 3986 §2.3: letters, digits, `-`, `.`, `_`, `~`) are decoded, as
 *   they are equivalent to the characters themselves (`/%61pi` is `/api`); other encoded ASCII is kept, its hex
 *   digits upper-cased (`%2f` is `%2F`: an encoded `/` is not a segment boundary, nor `%3F` a query);
 * - percent-encoded octets of 0x80 and above that form valid UTF-8 are decoded to their characters (RFC 3987
 *   §3.2, URI to IRI), so `/caf%C3%A9` is `/café`, the text forward-auth reads from the raw UTF-8 spelling of the
 *   same path (nginx and applications decode both to the same bytes). Every character is decoded, not only RFC
 *   3987's `ucschar`, as the raw spelling is read whole too. Octets that form no valid UTF-8 (a lone `%E9`, a
 *   truncated sequence, an overlong form such as `%C0%AF` for `/`, a surrogate) are kept encoded, upper-cased.
 *   What is decoded is never ASCII, so no delimiter appears. (A sequence split between raw bytes and escapes,
 *   `caf\xC3%A9`, is not joined: the raw part, not valid UTF-8 alone, keeps its latin1 reading.);
 * - runs of `/` are merged into one (`//api///x` is `/api/x`), as nginx does by default (`merge_slashes on`) and
 *   as most applications route: otherwise `//api/x` would count apart from `/api/x` wherever the endpoint is part
 *   of the counter key;
 * - dot segments are removed (RFC 3986 §5.2.4: `/a/./b` is `/a/b`, `/x/../api` is `/api`, never above the root).
 * The steps run in that order, as in nginx's URI parser (which skips a repeated `/` while it resolves dot
 * segments): merging before resolving makes `/a//../b` `/b`, as nginx routes it, where resolving first would
 * give `/a/b` (`..` taking back only the empty segment between the two slashes).
 * A `%` not followed by two hex digits makes the URI invalid. The query and fragment are not part of the input.
 */

const HEX = "0123456789ABCDEF";

/** Whether `c` (a char code) is an unreserved character of RFC 3986. */
function unreserved(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2d || // -
    c === 0x2e || // .
    c === 0x5f || // _
    c === 0x7e // ~
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** Strict UTF-8: an invalid sequence (overlong, surrogate, beyond U+10FFFF) throws. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The length of the UTF-8 sequence lead byte `b` starts (2 to 4), or 0 when `b` cannot start one. */
function sequenceLength(b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/**
 * `octets` (a run of percent-encoded octets, each 0x80 or above) as text: each valid UTF-8 sequence decoded, any
 * other octet kept as `%XX` (upper case).
 */
function decodeHighOctets(octets: readonly number[]): string {
  let out = "";
  for (let k = 0; k < octets.length; ) {
    const n = sequenceLength(octets[k]);
    if (n > 0 && k + n <= octets.length) {
      try {
        out += UTF8.decode(Uint8Array.from(octets.slice(k, k + n)));
        k += n;
        continue;
      } catch {
        // not valid UTF-8: the lead octet stays encoded, the next one may start a sequence
      }
    }
    out += `%${HEX[octets[k] >> 4]}${HEX[octets[k] & 15]}`;
    k++;
  }
  return out;
}

/** Two or more `/` in a row. */
const SLASH_RUN = /\/{2,}/g;

/** `path` normalised as above, or undefined when it holds an invalid percent-encoding. */
export function normalizeUriPath(path: string): string | undefined {
  // Nothing to do: the common case.
  if (path.indexOf("%") === -1 && path.indexOf(".") === -1 && path.indexOf("//") === -1) return path;
  let decoded = "";
  let from = 0;
  // Octets of 0x80 and above from consecutive escapes, decoded together once the run ends.
  let high: number[] = [];
  for (let i = path.indexOf("%"); i !== -1; i = path.indexOf("%", i + 1)) {
    const hi = hexValue(path.charCodeAt(i + 1));
    const lo = hexValue(path.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) return undefined;
    const c = hi * 16 + lo;
    // A run ends at literal text or at an ASCII escape.
    if (high.length > 0 && (i !== from || c < 0x80)) {
      decoded += decodeHighOctets(high);
      high = [];
    }
    decoded += path.slice(from, i);
    if (c >= 0x80) high.push(c);
    else decoded += unreserved(c) ? String.fromCharCode(c) : `%${HEX[hi]}${HEX[lo]}`;
    from = i + 3;
    i += 2;
  }
  if (high.length > 0) decoded += decodeHighOctets(high);
  decoded += path.slice(from);
  // After the decoding (an encoded `/`, kept as `%2F`, never merges), before the dot segments (see above).
  if (decoded.indexOf("//") !== -1) decoded = decoded.replace(SLASH_RUN, "/");
  return removeDotSegments(decoded);
}

/** RFC 3986 §5.2.4 on a path: `.` and `..` segments resolved, never above the root. */
function removeDotSegments(path: string): string {
  if (path.indexOf(".") === -1) return path;
  const absolute = path.startsWith("/");
  const segments = path.split("/");
  const out: string[] = [];
  for (let i = absolute ? 1 : 0; i < segments.length; i++) {
    const s = segments[i];
    const last = i === segments.length - 1;
    if (s === ".") {
      if (last) out.push(""); // `/a/.` is `/a/`
    } else if (s === "..") {
      out.pop();
      if (last) out.push("");
    } else out.push(s);
  }
  return (absolute ? "/" : "") + out.join("/");
}

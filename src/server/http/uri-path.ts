/**
 * The path of a request URI as the proxy in front of Sluice and the application behind it route on it, so that
 * endpoint rules cannot be sidestepped by spelling one path another way (nginx's `X-Original-URI` is the raw
 * `$request_uri`, while nginx and the application match the decoded, normalised path):
 * - percent-encoded unreserved characters (RFC 3986 §2.3: letters, digits, `-`, `.`, `_`, `~`) are decoded, as
 *   they are equivalent to the characters themselves (`/%61pi` is `/api`); other encodings are kept, their hex
 *   digits upper-cased (`%2f` is `%2F`: an encoded `/` is not a segment boundary);
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

/** Two or more `/` in a row. */
const SLASH_RUN = /\/{2,}/g;

/** `path` normalised as above, or undefined when it holds an invalid percent-encoding. */
export function normalizeUriPath(path: string): string | undefined {
  // Nothing to do: the common case.
  if (path.indexOf("%") === -1 && path.indexOf(".") === -1 && path.indexOf("//") === -1) return path;
  let decoded = "";
  let from = 0;
  for (let i = path.indexOf("%"); i !== -1; i = path.indexOf("%", i + 1)) {
    const hi = hexValue(path.charCodeAt(i + 1));
    const lo = hexValue(path.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) return undefined;
    const c = hi * 16 + lo;
    decoded += path.slice(from, i) + (unreserved(c) ? String.fromCharCode(c) : `%${HEX[hi]}${HEX[lo]}`);
    from = i + 3;
    i += 2;
  }
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

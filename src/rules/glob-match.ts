/**
 * Envoy's wildcard values: a pattern split at each `*` (`"a*b*c".split("*")`) matches a value that starts with the
 * first part, ends with the last, and holds the parts between in order, without overlapping; each `*` stands for
 * any run of characters, possibly empty. A pattern without `*` (one part) matches only itself.
 */

/** Whether `value` matches the glob whose `*`-separated parts are `parts`. */
export function globMatches(parts: readonly string[], value: string): boolean {
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

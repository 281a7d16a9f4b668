/**
 * The client address of a forward-auth subrequest, from the headers the proxy sets.
 *
 * **Which header.** `X-Forwarded-For` entries are appended left to right, one by each proxy (nginx's
 * `$proxy_add_x_forwarded_for`, Caddy, Traefik's `trustForwardHeader`), so only the rightmost ones are
 * trustworthy: the entry `trustedHops` places from the right is the client (0 = the rightmost, the peer of the
 * proxy next to Sluice; 1 when one trusted proxy, a CDN or load balancer, sits in front of that proxy, and so on:
 * Envoy's `xff_num_trusted_hops` counts the same way). When the list is shorter than that, its leftmost entry is
 * taken (a request that bypassed the front proxies), as express's `trust proxy` does.
 * - `trustedHops` = 0: the address header (default `X-Real-IP`, which nginx is configured to set to
 *   `$remote_addr` and Traefik overwrites with the peer address unless the peer is trusted) wins when it holds a
 *   valid address; otherwise the rightmost `X-Forwarded-For` entry. Both name the proxy's own peer, so no header a
 *   client sends can choose its address.
 * - `trustedHops` > 0: `X-Forwarded-For` wins whenever it is present, the address header being read only when it
 *   is absent. The address header names the peer of the proxy next to Sluice, which here is a trusted proxy (with
 *   a CDN in front of nginx, `X-Real-IP $remote_addr` is the CDN, shared by every client): it cannot be the
 *   client. An entry that is not an address gives no address (no fall back to the header).
 * A proxy that passes a client's own `X-Real-IP` through (Caddy's `forward_auth` copies request headers) must not
 * be paired with the address header at 0 hops: overwrite it (`header_up X-Real-IP {remote_host}`) or set it to
 * `""` and rely on `X-Forwarded-For`. A proxy that already resolved the client itself (nginx's realip module,
 * whose `$remote_addr` is then the client) needs 0 hops. `Forwarded` (RFC 7239) is not read.
 *
 * **Normalisation.** The value must be an IP address, optionally with a port (`1.2.3.4:80`, `[::1]:80`) or an
 * IPv6 zone (`fe80::1%eth0`), both dropped; anything else (`unknown`, garbage) counts as no address, so
 * descriptors needing it are skipped. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes the IPv4 address. IPv6
 * addresses are masked to `ipv6PrefixLength` bits (default 64: one customer network, which a client can otherwise
 * rotate through freely) and written in RFC 5952 form with the prefix length appended (`2001:db8:1:2::/64`); 128
 * keeps the whole address without a suffix.
 */
import { isIP } from "node:net";

/** How {@link clientAddress} reads the headers. */
export interface ClientAddressOptions {
  /**
   * Header holding the client address (lower case): checked first at 0 hops, else only without `X-Forwarded-For`;
   * `""` to use `X-Forwarded-For` only.
   */
  readonly addressHeader: string;
  /**
   * Trusted proxies in front of the one next to Sluice: which `X-Forwarded-For` entry, from the right; above 0 that
   * header wins over the address header.
   */
  readonly trustedHops: number;
  /** Bits of an IPv6 address kept (0 to 128). */
  readonly ipv6PrefixLength: number;
}

/** Default prefix length IPv6 client addresses are masked to. */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/** The eight 16-bit groups of a valid IPv6 address (as `isIP` accepts it, zone removed). */
function ipv6Groups(s: string): number[] {
  let text = s;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.indexOf(".", lastColon) !== -1) {
    const v4 = text
      .slice(lastColon + 1)
      .split(".")
      .map(Number);
    tail.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    text = `${text.slice(0, lastColon + 1)}0`; // placeholder group, dropped below
  }
  const parse = (part: string): number[] =>
    part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16));
  const dbl = text.indexOf("::");
  let groups: number[];
  if (dbl === -1) groups = parse(text);
  else {
    const head = parse(text.slice(0, dbl));
    const rest = parse(text.slice(dbl + 2));
    const fill = 8 - (tail.length > 0 ? 1 : 0) - head.length - rest.length;
    groups = [...head, ...new Array(Math.max(0, fill)).fill(0), ...rest];
  }
  if (tail.length > 0) groups = [...groups.slice(0, groups.length - 1), ...tail];
  return groups;
}

/** RFC 5952 text of eight groups: lower case, no leading zeros, the longest run (>= 2) of zero groups as `::`. */
function formatIpv6(g: readonly number[]): string {
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestAt === -1) return hex.join(":");
  return `${hex.slice(0, bestAt).join(":")}::${hex.slice(bestAt + bestLen).join(":")}`;
}

/** A normalised client address (see the module comment), or undefined when `raw` is not an IP address. */
export function normalizeAddress(
  raw: string,
  ipv6PrefixLength = DEFAULT_IPV6_PREFIX_LENGTH,
): string | undefined {
  let s = raw.trim();
  if (s.length === 0 || s.length > 64) return undefined;
  if (s.startsWith("[")) {
    const end = s.indexOf("]");
    if (end === -1) return undefined;
    s = s.slice(1, end);
  } else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/.test(s)) {
    s = s.slice(0, s.lastIndexOf(":"));
  }
  const zone = s.indexOf("%");
  if (zone !== -1) s = s.slice(0, zone);
  const version = isIP(s);
  if (version === 4) return s;
  if (version !== 6) return undefined;
  const g = ipv6Groups(s);
  if (g.length !== 8 || g.some((x) => !(x >= 0 && x <= 0xffff))) return undefined;
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
  }
  const bits = Math.max(0, Math.min(128, Math.floor(ipv6PrefixLength)));
  if (bits === 128) return formatIpv6(g);
  const masked = g.map((x, i) => {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    return keep === 0 ? 0 : x & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${formatIpv6(masked)}/${bits}`;
}

/** The `X-Forwarded-For` entry `trustedHops` places from the right (the leftmost when the list is shorter). */
export function forwardedEntry(xff: string, trustedHops: number): string {
  const entries = xff.split(",");
  const i = entries.length - 1 - trustedHops;
  return (i >= 0 ? entries[i] : entries[0]).trim();
}

/** Reads one header as a string (repeated headers joined by `, `, as Node does for unknown ones). */
function headerOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/**
 * The normalised client address of a request with `headers` (lower-case names), or undefined (see the module
 * comment for which header wins).
 */
export function clientAddress(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  options: ClientAddressOptions,
): string | undefined {
  const xff = headerOf(headers, "x-forwarded-for");
  // Behind trusted proxies the address header names one of them: X-Forwarded-For, when sent, is the only source.
  if (xff !== undefined && options.trustedHops > 0) {
    return normalizeAddress(forwardedEntry(xff, options.trustedHops), options.ipv6PrefixLength);
  }
  if (options.addressHeader !== "") {
    const real = headerOf(headers, options.addressHeader);
    if (real !== undefined) {
      const a = normalizeAddress(real, options.ipv6PrefixLength);
      if (a !== undefined) return a;
    }
  }
  if (xff === undefined) return undefined;
  return normalizeAddress(forwardedEntry(xff, options.trustedHops), options.ipv6PrefixLength);
}

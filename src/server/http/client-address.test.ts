import { describe, expect, it } from "vitest";
import { clientAddress, forwardedEntry, normalizeAddress } from "./client-address.js";

const opts = { addressHeader: "x-real-ip", trustedHops: 0, ipv6PrefixLength: 64 };

describe("client address", () => {
  it("normalises IPv4, ports, brackets, zones and IPv4-mapped IPv6", () => {
    expect(normalizeAddress(" 10.0.0.1 ")).toBe("10.0.0.1");
    expect(normalizeAddress("10.0.0.1:8080")).toBe("10.0.0.1");
    expect(normalizeAddress("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(normalizeAddress("::ffff:c000:207")).toBe("192.0.2.7");
    expect(normalizeAddress("[2001:db8::1]:443", 128)).toBe("2001:db8::1");
    expect(normalizeAddress("fe80::1%eth0", 128)).toBe("fe80::1");
  });

  it("masks IPv6 to the prefix and writes RFC 5952 text", () => {
    expect(normalizeAddress("2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(normalizeAddress("2001:db8:1:2:ffff::1")).toBe("2001:db8:1:2::/64");
    expect(normalizeAddress("2001:db8:1:2ff::", 56)).toBe("2001:db8:1:200::/56");
    expect(normalizeAddress("2001:0:0:1:0:0:0:1", 128)).toBe("2001:0:0:1::1");
    expect(normalizeAddress("1:2:3:4:5:6:7:8", 128)).toBe("1:2:3:4:5:6:7:8");
    expect(normalizeAddress("::", 128)).toBe("::");
    expect(normalizeAddress("64:ff9b::192.0.2.33", 128)).toBe("64:ff9b::c000:221");
  });

  it("refuses what is not an address", () => {
    for (const bad of ["", "unknown", "1.2.3", "01.2.3.4", "1.2.3.4.5", "[::1", "x".repeat(100)]) {
      expect(normalizeAddress(bad)).toBeUndefined();
    }
  });

  it("takes the X-Forwarded-For entry trustedHops from the right", () => {
    expect(forwardedEntry("6.6.6.6, 1.1.1.1, 2.2.2.2", 0)).toBe("2.2.2.2");
    expect(forwardedEntry("6.6.6.6, 1.1.1.1, 2.2.2.2", 1)).toBe("1.1.1.1");
    expect(forwardedEntry("1.1.1.1", 3)).toBe("1.1.1.1");
  });

  it("prefers a valid address header, then X-Forwarded-For", () => {
    expect(clientAddress({ "x-real-ip": "9.9.9.9", "x-forwarded-for": "1.1.1.1" }, opts)).toBe("9.9.9.9");
    expect(clientAddress({ "x-real-ip": "garbage", "x-forwarded-for": "6.6.6.6, 1.1.1.1" }, opts)).toBe(
      "1.1.1.1",
    );
    expect(
      clientAddress({ "x-real-ip": "9.9.9.9", "x-forwarded-for": "1.1.1.1" }, { ...opts, addressHeader: "" }),
    ).toBe("1.1.1.1");
    expect(clientAddress({ "x-forwarded-for": "1.1.1.1, evil" }, opts)).toBeUndefined();
    expect(clientAddress({}, opts)).toBeUndefined();
  });

  it("takes X-Forwarded-For over the address header behind trusted hops (a CDN in front of nginx)", () => {
    const hops1 = { ...opts, trustedHops: 1 };
    // nginx: X-Real-IP $remote_addr (the CDN), X-Forwarded-For $proxy_add_x_forwarded_for ("<client>, <CDN>").
    const cdn = "198.51.100.7";
    expect(clientAddress({ "x-real-ip": cdn, "x-forwarded-for": `203.0.113.1, ${cdn}` }, hops1)).toBe(
      "203.0.113.1",
    );
    expect(clientAddress({ "x-real-ip": cdn, "x-forwarded-for": `203.0.113.2, ${cdn}` }, hops1)).toBe(
      "203.0.113.2",
    );
    // A client's own entries left of the CDN's are not read; a bad entry at the trusted position is no address.
    expect(
      clientAddress({ "x-real-ip": cdn, "x-forwarded-for": `6.6.6.6, 203.0.113.3, ${cdn}` }, hops1),
    ).toBe("203.0.113.3");
    expect(clientAddress({ "x-real-ip": cdn, "x-forwarded-for": `unknown, ${cdn}` }, hops1)).toBeUndefined();
    // Shorter than the hops (the CDN bypassed): the leftmost entry; without X-Forwarded-For, the address header.
    expect(clientAddress({ "x-real-ip": cdn, "x-forwarded-for": "203.0.113.4" }, hops1)).toBe("203.0.113.4");
    expect(clientAddress({ "x-real-ip": cdn }, hops1)).toBe(cdn);
    expect(
      clientAddress({ "x-forwarded-for": `203.0.113.5, 10.0.0.1, ${cdn}` }, { ...opts, trustedHops: 2 }),
    ).toBe("203.0.113.5");
  });

  it("at 0 hops, no header a client adds to X-Forwarded-For or X-Real-IP moves the address", () => {
    // nginx overwrites X-Real-IP with its peer and appends that peer to whatever X-Forwarded-For the client sent.
    const peer = "192.0.2.50";
    for (const forged of ["1.1.1.1", "1.1.1.1, 2.2.2.2", "garbage"]) {
      expect(clientAddress({ "x-real-ip": peer, "x-forwarded-for": `${forged}, ${peer}` }, opts)).toBe(peer);
      expect(clientAddress({ "x-forwarded-for": `${forged}, ${peer}` }, { ...opts, addressHeader: "" })).toBe(
        peer,
      );
    }
  });
});

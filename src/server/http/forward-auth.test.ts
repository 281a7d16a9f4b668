import { describe, expect, it } from "vitest";
import {
  compileTemplates,
  DEFAULT_FORWARD_AUTH_TEMPLATES,
  FORWARD_AUTH_HEADER_NAMES,
  type ForwardAuthHeaders,
  type ForwardAuthSetup,
  forwardAuthDescriptors,
  headerText,
  pathEnd,
  slotCount,
} from "./forward-auth.js";

const setupOf = (
  list: readonly (string | readonly string[])[],
  headers: ForwardAuthHeaders = "x-forwarded",
): ForwardAuthSetup => {
  const templates = compileTemplates(list);
  return {
    domain: "edge",
    templates,
    slots: slotCount(templates),
    userHeader: "x-user-id",
    uriHeader: FORWARD_AUTH_HEADER_NAMES[headers].uri,
    methodHeader: FORWARD_AUTH_HEADER_NAMES[headers].method,
    denyStatus: 429,
    address: { addressHeader: "x-real-ip", trustedHops: 0, ipv6PrefixLength: 64 },
  };
};

describe("slotCount", () => {
  it("counts the distinct attributes of the templates, a header in any case once", () => {
    expect(slotCount(compileTemplates(DEFAULT_FORWARD_AUTH_TEMPLATES))).toBe(3);
    expect(slotCount(compileTemplates(["header:X-A", "user,header:x-a", "method"]))).toBe(3);
  });
});

describe("pathEnd", () => {
  it("ends a URI's path at its first ? or #", () => {
    expect(pathEnd("/a/b")).toBe(4);
    expect(pathEnd("/a?x=1")).toBe(2);
    expect(pathEnd("/a#top")).toBe(2);
    expect(pathEnd("/a?x=1#top")).toBe(2);
    expect(pathEnd("/a#top?x=1")).toBe(2);
    expect(pathEnd("/a#b#c?d")).toBe(2);
    expect(pathEnd("?x")).toBe(0);
    expect(pathEnd("")).toBe(0);
  });
});

describe("forwardAuthDescriptors", () => {
  it("builds one descriptor per template whose attributes are all present", () => {
    const s = setupOf(DEFAULT_FORWARD_AUTH_TEMPLATES);
    expect(forwardAuthDescriptors({ "x-user-id": "u", "x-forwarded-uri": "/a?q" }, s)).toEqual([
      [{ key: "user", value: "u" }],
      [
        { key: "user", value: "u" },
        { key: "endpoint", value: "/a" },
      ],
    ]);
    expect(forwardAuthDescriptors({ "x-real-ip": "10.0.0.1" }, s)).toEqual([
      [{ key: "remote_address", value: "10.0.0.1" }],
    ]);
    expect(forwardAuthDescriptors({}, s)).toEqual([]);
  });

  it("normalises the endpoint as proxies and applications route on it, and refuses an invalid encoding", () => {
    const s = setupOf(["endpoint"]);
    const endpoint = (uri: string) => forwardAuthDescriptors({ "x-forwarded-uri": uri }, s)[0]?.[0].value;
    for (const uri of [
      "/api/x",
      "/%61pi/x",
      "/x/../api/x",
      "/%2e/api/./x?y=/../z",
      "/api/x#a/../b",
      "//api//x",
    ]) {
      expect(endpoint(uri), uri).toBe("/api/x");
    }
    expect(endpoint("/a%2fb")).toBe("/a%2Fb"); // an encoded slash stays one segment
    expect(() => forwardAuthDescriptors({ "x-forwarded-uri": "/a%zz" }, s)).toThrow(
      /^x-forwarded-uri header must be a URI whose path has no % without two hex digits after it$/,
    );
  });

  it("reads the URI and the method from the configured header family only, never falling back to the other", () => {
    const s = setupOf(["endpoint", "method"]);
    const o = setupOf(["endpoint", "method"], "x-original");
    const both = {
      "x-forwarded-uri": "/proxy-set",
      "x-forwarded-method": "delete",
      "x-original-uri": "/client-sent",
      "x-original-method": "get",
    };
    expect(forwardAuthDescriptors(both, s)).toEqual([
      [{ key: "endpoint", value: "/proxy-set" }],
      [{ key: "method", value: "DELETE" }],
    ]);
    expect(forwardAuthDescriptors(both, o)).toEqual([
      [{ key: "endpoint", value: "/client-sent" }],
      [{ key: "method", value: "GET" }],
    ]);
    // Only the other family present (the proxy set none: the client sent them): no endpoint, no method.
    expect(forwardAuthDescriptors({ "x-original-uri": "/x", "x-original-method": "GET" }, s)).toEqual([]);
    expect(forwardAuthDescriptors({ "x-forwarded-uri": "/x", "x-forwarded-method": "GET" }, o)).toEqual([]);
    // A refusal names the header read.
    expect(() => forwardAuthDescriptors({ "x-original-uri": "/a%zz" }, o)).toThrow(
      /^x-original-uri header must/,
    );
  });

  it("reads an attribute a template needs only after the attributes before it are present", () => {
    // The endpoint is too long, but no template reaches it without a user: no error.
    const s = setupOf([["user", "endpoint"], ["method"]]);
    const long = `/${"a".repeat(2000)}`;
    expect(forwardAuthDescriptors({ "x-forwarded-uri": long, "x-forwarded-method": "get" }, s)).toEqual([
      [{ key: "method", value: "GET" }],
    ]);
    expect(() => forwardAuthDescriptors({ "x-user-id": "u", "x-forwarded-uri": long }, s)).toThrow(
      /^x-forwarded-uri header must be at most 1024 characters/,
    );
  });

  it("reads a header named twice (any case) as one attribute, in each template that names it", () => {
    const s = setupOf(["header:X-Api-Key", "user,header:x-api-key", "endpoint,user"]);
    expect(forwardAuthDescriptors({ "x-api-key": "k", "x-user-id": "u" }, s)).toEqual([
      [{ key: "x-api-key", value: "k" }],
      [
        { key: "user", value: "u" },
        { key: "x-api-key", value: "k" },
      ],
    ]);
    expect(forwardAuthDescriptors({ "x-api-key": ["a", "b"] }, s)).toEqual([
      [{ key: "x-api-key", value: "a, b" }],
    ]);
  });

  it("reads header values whose bytes are valid UTF-8 as UTF-8, before normalising the endpoint", () => {
    // What Node hands over for UTF-8 bytes on the wire: one latin1 character per byte.
    const wire = (text: string) => Buffer.from(text, "utf8").toString("latin1");
    // nginx's $request_uri is the raw request line's: UTF-8 bytes as sent.
    const s = setupOf(["user", "user,endpoint", "header:x-team"], "x-original");
    expect(
      forwardAuthDescriptors(
        { "x-user-id": wire("bøb"), "x-original-uri": wire("/café//menü?q=ß"), "x-team": wire("東京") },
        s,
      ),
    ).toEqual([
      [{ key: "user", value: "bøb" }],
      [
        { key: "user", value: "bøb" },
        { key: "endpoint", value: "/café/menü" },
      ],
      [{ key: "x-team", value: "東京" }],
    ]);
  });
});

describe("headerText", () => {
  it("decodes valid UTF-8 bytes and keeps every other value as latin1", () => {
    const bytes = (...b: number[]) => Buffer.from(b).toString("latin1");
    expect(headerText("plain ascii")).toBe("plain ascii");
    expect(headerText(bytes(0x62, 0xc3, 0xb8, 0x62))).toBe("bøb");
    expect(headerText(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe("\ufeffa"); // a BOM stays a character
    expect(headerText(bytes(0xef, 0xbf, 0xbd))).toBe("\ufffd"); // a real U+FFFD
    // Not UTF-8: latin1 as before (a lone latin1 byte, overlong, surrogate, truncated).
    expect(headerText(bytes(0x62, 0xf8, 0x62))).toBe("bøb");
    expect(headerText(bytes(0xc0, 0xaf))).toBe("\u00c0\u00af");
    expect(headerText(bytes(0xed, 0xa0, 0x80))).toBe("\u00ed\u00a0\u0080");
    expect(headerText(bytes(0x61, 0xe6, 0x97))).toBe("a\u00e6\u0097");
    // Already text (app.inject): characters beyond latin1 are left alone.
    expect(headerText("東京")).toBe("東京");
  });
});

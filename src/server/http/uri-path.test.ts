import { describe, expect, it } from "vitest";
import { normalizeUriPath } from "./uri-path.js";

describe("normalizeUriPath", () => {
  it("returns a plain path as it is", () => {
    expect(normalizeUriPath("/api/v1/orders/7")).toBe("/api/v1/orders/7");
    expect(normalizeUriPath("/")).toBe("/");
  });

  it("decodes encoded unreserved characters and keeps (upper-cased) the other ASCII encodings", () => {
    expect(normalizeUriPath("/%61pi/x")).toBe("/api/x");
    expect(normalizeUriPath("/%41%7a%30-%2D%5f%7E")).toBe("/Az0--_~");
    expect(normalizeUriPath("/a%2fb/c%20d")).toBe("/a%2Fb/c%20d");
  });

  it("decodes encoded octets forming valid UTF-8 to their characters, as the raw UTF-8 spelling is read", () => {
    expect(normalizeUriPath("/menu/caf%C3%A9/1")).toBe("/menu/café/1");
    expect(normalizeUriPath("/menu/caf%c3%a9/1")).toBe("/menu/café/1");
    expect(normalizeUriPath("/%E2%82%AC/%F0%9F%98%80")).toBe("/€/😀");
    expect(normalizeUriPath("/%E6%97%A5%E6%9C%AC%E8%AA%9E")).toBe("/日本語");
    // Mixed with raw text, unreserved escapes, kept ASCII escapes and dot segments.
    expect(normalizeUriPath("/caf%C3%A9%2F%C3%A9x/%2e%2e/caf%C3%A9")).toBe("/café");
    expect(normalizeUriPath("/a/caf%C3%A9%2Fb")).toBe("/a/café%2Fb");
    expect(normalizeUriPath("/%C3%A9%41%C3%A9")).toBe("/éAé");
  });

  it("keeps encoded octets that form no valid UTF-8 encoded, so no delimiter or other spelling appears", () => {
    expect(normalizeUriPath("/caf%e9")).toBe("/caf%E9"); // latin1, not UTF-8
    expect(normalizeUriPath("/a%C3")).toBe("/a%C3"); // truncated
    expect(normalizeUriPath("/a%C3/b")).toBe("/a%C3/b"); // cut by a raw character
    expect(normalizeUriPath("/a%C3%2Fb")).toBe("/a%C3%2Fb"); // cut by an ASCII escape
    expect(normalizeUriPath("/a%C0%AFb")).toBe("/a%C0%AFb"); // overlong `/`
    expect(normalizeUriPath("/a%E0%80%AFb")).toBe("/a%E0%80%AFb"); // overlong `/`, 3 octets
    expect(normalizeUriPath("/a%ED%A0%80")).toBe("/a%ED%A0%80"); // a surrogate
    expect(normalizeUriPath("/a%F4%90%80%80")).toBe("/a%F4%90%80%80"); // beyond U+10FFFF
    expect(normalizeUriPath("/a%A9%C3%A9")).toBe("/a%A9é"); // a stray continuation, then a valid sequence
    expect(normalizeUriPath("/a%C3%C3%A9")).toBe("/a%C3é");
  });

  it("removes dot segments, encoded ones too, never above the root", () => {
    expect(normalizeUriPath("/x/../api/x")).toBe("/api/x");
    expect(normalizeUriPath("/a/./b/../c")).toBe("/a/c");
    expect(normalizeUriPath("/%2e%2e/%2E./api")).toBe("/api");
    expect(normalizeUriPath("/../../etc")).toBe("/etc");
    expect(normalizeUriPath("/a/b/..")).toBe("/a/");
    expect(normalizeUriPath("/a/.")).toBe("/a/");
    expect(normalizeUriPath("/a/..b/.c")).toBe("/a/..b/.c");
  });

  it("merges runs of slashes, after decoding and before removing dot segments (as nginx's merge_slashes)", () => {
    expect(normalizeUriPath("//api/x")).toBe("/api/x");
    expect(normalizeUriPath("/api///x//")).toBe("/api/x/");
    expect(normalizeUriPath("//")).toBe("/");
    // Merged first, `..` takes back `a`, as nginx resolves it (resolving first would give `/a/b`).
    expect(normalizeUriPath("/a//../b")).toBe("/b");
    expect(normalizeUriPath("/a/.//./b")).toBe("/a/b");
    expect(normalizeUriPath("/%61pi//x")).toBe("/api/x");
    // An encoded slash is no slash: nothing merges across it.
    expect(normalizeUriPath("/a/%2F/b")).toBe("/a/%2F/b");
    expect(normalizeUriPath("/a%2f%2Fb")).toBe("/a%2F%2Fb");
  });

  it("refuses a % without two hex digits", () => {
    expect(normalizeUriPath("/a%2")).toBeUndefined();
    expect(normalizeUriPath("/a%zz")).toBeUndefined();
    expect(normalizeUriPath("/100%")).toBeUndefined();
  });
});

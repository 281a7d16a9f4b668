import { describe, expect, it } from "vitest";
import { normalizeUriPath } from "./uri-path.js";

describe("normalizeUriPath", () => {
  it("returns a plain path as it is", () => {
    expect(normalizeUriPath("/api/v1/orders/7")).toBe("/api/v1/orders/7");
    expect(normalizeUriPath("/")).toBe("/");
  });

  it("decodes encoded unreserved characters and keeps (upper-cased) the other encodings", () => {
    expect(normalizeUriPath("/%61pi/x")).toBe("/api/x");
    expect(normalizeUriPath("/%41%7a%30-%2D%5f%7E")).toBe("/Az0--_~");
    expect(normalizeUriPath("/a%2fb/c%20d")).toBe("/a%2Fb/c%20d");
    expect(normalizeUriPath("/caf%C3%A9")).toBe("/caf%C3%A9");
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

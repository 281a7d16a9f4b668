import { describe, expect, it } from "vitest";
import { redisStore } from "./redis-store.js";

/** Enough of an ioredis client for the constructor (no connection is made). */
const client = { evalsha: () => undefined, eval: () => undefined, options: {} } as never;
const invalid = (message: string | RegExp) =>
  expect.objectContaining({
    code: "ERR_SLUICE_INVALID_ARGUMENT",
    message: typeof message === "string" ? message : expect.stringMatching(message),
  });

describe("redisStore options", () => {
  it("refuses an unknown option, naming it and the closest known one", () => {
    expect(() => redisStore({ client, prefx: "x" } as never)).toThrow(
      invalid('redisStore: unknown option "prefx"; did you mean "prefix"?'),
    );
    expect(() => redisStore({ client, pipeline: true } as never)).toThrow(
      invalid(
        'redisStore: unknown option "pipeline"; expected one of client, prefix, clock, keyOf, batch, maxBatch, maxInFlight, ttlMarginMs, clusterRetries, onWarning, claimTtlMs, scheduler',
      ),
    );
    expect(() => redisStore(undefined as never)).toThrow(invalid(/^redisStore: options must be an object/));
  });

  it("quotes a string where a number or a boolean belongs", () => {
    expect(() => redisStore({ client, maxBatch: "64" } as never)).toThrow(
      invalid('redisStore: maxBatch must be a whole number from 1 to 10000, got "64"'),
    );
    expect(() => redisStore({ client, batch: "false" } as never)).toThrow(
      invalid('redisStore: batch must be true or false, got "false"'),
    );
  });
});

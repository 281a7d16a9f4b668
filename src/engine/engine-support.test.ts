import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../core/errors.js";
import { MAX_NOW_MS } from "../core/time-math.js";
import { IdempotencyRecords, validateRequest } from "./engine-support.js";

/** The request rules as documented (engine-support.ts), written out plainly: the reference of the property below. */
function validByTheRules(req: unknown): boolean {
  if (req === null || typeof req !== "object") return false;
  const r = req as Record<string, unknown>;
  const isString = (v: unknown, min: number, max: number) =>
    typeof v === "string" && v.length >= min && v.length <= max;
  const isCost = (v: unknown) => typeof v === "number" && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
  if (!isString(r.domain, 1, 256)) return false;
  if (!Array.isArray(r.descriptors) || r.descriptors.length > 64) return false;
  for (const d of r.descriptors) {
    if (!Array.isArray(d) || d.length < 1 || d.length > 64) return false;
    for (const e of d) {
      if (e === null || typeof e !== "object") return false;
      if (!isString(e.key, 1, 256) || !isString(e.value, 0, 1024)) return false;
    }
  }
  if (r.cost !== undefined && !isCost(r.cost)) return false;
  if (r.costs !== undefined) {
    if (!Array.isArray(r.costs) || r.costs.length !== r.descriptors.length) return false;
    if (r.costs.some((c) => c !== undefined && !isCost(c))) return false;
  }
  if (r.idempotencyKey !== undefined && !isString(r.idempotencyKey, 1, 256)) return false;
  if (r.nowMs !== undefined && !(typeof r.nowMs === "number" && r.nowMs >= 0 && r.nowMs <= MAX_NOW_MS))
    return false;
  return true;
}

/** Near-valid values: mostly of the right type, around each bound. */
const text = (max: number) =>
  fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.constantFrom(0, max, max + 1).map((n) => "x".repeat(n)),
    fc.constantFrom(null, 7, [], {}),
  );
const entry = fc.oneof(
  { weight: 8, arbitrary: fc.record({ key: text(256), value: text(1024) }) },
  { weight: 1, arbitrary: fc.constantFrom(null, "k=v", 3, ["k", "v"]) },
);
const descriptor = fc.oneof(
  { weight: 8, arbitrary: fc.array(entry, { minLength: 0, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(65).map((n) => Array(n).fill({ key: "k", value: "v" })) },
  { weight: 1, arbitrary: fc.constantFrom(null, "d", { key: "k", value: "v" }) },
);
const number = fc.oneof(
  fc.constantFrom(0, 1, 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2),
  fc.constantFrom("1", null),
);
const request = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record(
      {
        domain: text(256),
        descriptors: fc.oneof(
          { weight: 8, arbitrary: fc.array(descriptor, { maxLength: 3 }) },
          { weight: 1, arbitrary: fc.constant(Array(65).fill([{ key: "k", value: "v" }])) },
          { weight: 1, arbitrary: fc.constantFrom(null, "descriptors", {}) },
        ),
        cost: number,
        costs: fc.oneof(fc.array(fc.oneof(number, fc.constant(undefined)), { maxLength: 3 }), number),
        idempotencyKey: text(256),
        nowMs: fc.oneof(
          number,
          fc.constantFrom(-0.5, -5000, MAX_NOW_MS, MAX_NOW_MS + 0.5, MAX_NOW_MS + 1000),
        ),
      },
      { requiredKeys: ["domain", "descriptors"] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 3, "request", []) },
);

describe("validateRequest", () => {
  it("refuses exactly the requests the rules refuse, always naming a field", () => {
    fc.assert(
      fc.property(request, (req) => {
        let error: unknown;
        try {
          validateRequest("check", req as never);
        } catch (e) {
          error = e;
        }
        expect(error === undefined).toBe(validByTheRules(req));
        if (error !== undefined) {
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect((error as Error).message).toMatch(
            /^check: (request|domain|descriptors|cost|idempotencyKey|nowMs)/,
          );
          expect((error as Error).message).not.toMatch(/changed while it was validated/);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses, as a whole, a request whose field reads differently the second time", () => {
    let reads = 0;
    const req = {
      descriptors: [[{ key: "k", value: "v" }]],
      get domain() {
        reads++;
        return reads === 1 ? "" : "api";
      },
    };
    expect(() => validateRequest("check", req)).toThrow("check: request changed while it was validated");
  });

  it("refuses limitOverrides with a typed error when the descriptors read differently the second time", () => {
    const request = () => {
      let reads = 0;
      return {
        domain: "api",
        limitOverrides: [undefined],
        get descriptors() {
          reads++;
          return reads === 1 ? [[{ key: "k", value: "v" }]] : undefined;
        },
      };
    };
    expect(() => validateRequest("check", request())).toThrow(InvalidArgumentError);
    expect(() => validateRequest("check", request())).toThrow(
      /limitOverrides must be an array with one entry/,
    );
  });
});

describe("IdempotencyRecords", () => {
  const T0 = 1_700_000_000_000;

  it("keeps the records' bytes within maxBytes, dropping the oldest first", () => {
    const records = new IdempotencyRecords<string>(60_000, 1000, 10_000);
    for (let i = 0; i < 50; i++) {
      records.set(`k${i}`, T0 + i, `v${i}`, 3000);
      expect(records.bytes).toBeLessThanOrEqual(10_000);
    }
    expect(records.size).toBe(3);
    expect(records.bytes).toBe(9000);
    expect(records.get("k49", T0 + 50)?.value).toBe("v49");
    expect(records.get("k47", T0 + 50)?.value).toBe("v47");
    expect(records.get("k46", T0 + 50)).toBeUndefined();
    expect(records.get("k0", T0 + 50)).toBeUndefined();
  });

  it("drops the oldest records when either bound is exceeded", () => {
    const records = new IdempotencyRecords<string>(60_000, 2, 10_000);
    records.set("a", T0, "A", 10);
    records.set("b", T0, "B", 10);
    records.set("c", T0, "C", 10); // over the count: a goes
    expect([records.size, records.bytes]).toEqual([2, 20]);
    records.set("d", T0, "D", 9_995); // over the bytes: b and c go
    expect([records.size, records.bytes]).toEqual([1, 9_995]);
    expect(records.get("d", T0)?.value).toBe("D");
  });

  it("does not keep a record larger than maxBytes on its own, nor drop others for it", () => {
    const records = new IdempotencyRecords<string>(60_000, 100, 1000);
    records.set("small", T0, "s", 100);
    records.set("huge", T0, "h", 1001);
    expect(records.get("huge", T0)).toBeUndefined();
    expect(records.get("small", T0)?.value).toBe("s");
    expect(records.bytes).toBe(100);
  });

  it("counts a pending record's bytes when it settles, and frees them when it is dropped or expires", async () => {
    const records = new IdempotencyRecords<string>(1000, 100, 1000);
    const first = Promise.resolve("first");
    records.begin("p", T0, first, 50);
    expect(records.bytes).toBe(50);
    records.settle("p", first, await first, 400);
    expect([records.size, records.bytes]).toEqual([1, 400]);
    const second = Promise.resolve("second");
    records.begin("q", T0 + 1, second, 50);
    records.settle("q", second, await second, 700); // 1100 > 1000: the oldest (p) goes
    expect(records.get("p", T0 + 1)).toBeUndefined();
    expect([records.size, records.bytes]).toEqual([1, 700]);
    const third = Promise.reject(new Error("failed"));
    third.catch(() => undefined);
    records.begin("r", T0 + 2, third, 50);
    records.drop("r", third);
    expect(records.bytes).toBe(700);
    const huge = Promise.resolve("huge");
    records.begin("h", T0 + 3, huge, 50);
    records.settle("h", huge, await huge, 5000); // alone over the bound: not kept, q stays
    expect(records.get("h", T0 + 3)).toBeUndefined();
    expect(records.get("q", T0 + 3)?.value).toBe("second");
    expect(records.get("q", T0 + 1001)).toBeUndefined(); // expired and swept
    expect([records.size, records.bytes]).toEqual([0, 0]);
  });

  it("refuses a maxBytes that is not a whole number from 1, naming it", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "64"]) {
      expect(() => new IdempotencyRecords(1000, 10, bad as number)).toThrow(
        /^createEngine: idempotency\.maxBytes must be a whole number of bytes from 1/,
      );
    }
  });
});

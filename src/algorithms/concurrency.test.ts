import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitSpec, parseLimitSpec } from "../core/limit-spec.js";
import { createStepOut, type StepOut } from "./algorithm.js";
import { concurrency } from "./concurrency.js";

const T0 = 1_700_000_000_000;
const INF = Number.POSITIVE_INFINITY;

/** The id the kernel hands out next: one past the last id, but never below ⌊now⌋·1000. */
function idAt(previousId: number, atMs: number): number {
  return Math.max(previousId + 1, Math.floor(atMs) * 1000);
}

function spec(limit: number, periodMs: number): LimitSpec {
  return parseLimitSpec({ algorithm: "concurrency", limit, periodMs });
}

type Op =
  | { at: number; cost?: number; expect: Partial<StepOut> }
  | { at: number; release: number; expect: boolean };

/** Runs acquires and releases against one state, checking each outcome; returns the state. */
function run(sp: LimitSpec, ops: Op[], start?: Float64Array): Float64Array {
  const s = start ?? new Float64Array(concurrency.width(sp));
  const out = createStepOut();
  for (const [i, op] of ops.entries()) {
    const label = `op ${i} at +${op.at - T0} ms`;
    if ("release" in op) {
      expect(concurrency.release?.(s, 0, op.at, sp, op.release), label).toBe(op.expect);
    } else {
      const before = Float64Array.from(s);
      concurrency.apply(s, 0, op.at, sp, op.cost ?? 1, true, out);
      expect(out, label).toMatchObject(op.expect);
      if (!out.allowed) expect(s, `${label}: a denial writes nothing`).toEqual(before);
    }
  }
  return s;
}

/** The stored leases in slot order, as [leaseId, expiryMs, cost]. */
function leases(s: Float64Array): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let i = 0; i < s[2]; i++) out.push([s[3 + 3 * i], s[4 + 3 * i], s[5 + 3 * i]]);
  return out;
}

describe("concurrency", () => {
  const sp = spec(2, 1000);

  it("has width 3 + 3·limit", () => {
    expect(concurrency.width(sp)).toBe(9);
    expect(concurrency.width(spec(100_000, 1000))).toBe(300_003);
  });

  it("hands out leases up to the limit, frees them on release or expiry", () => {
    const id1 = idAt(0, T0);
    const id2 = idAt(id1, T0 + 100);
    const id3 = idAt(id2, T0 + 300);
    const id4 = idAt(id3, T0 + 1100);
    const id5 = idAt(id4, T0 + 1300);
    const s = run(sp, [
      { at: T0, expect: { allowed: true, leaseId: id1, remaining: 1, resetAfterMs: 1000, retryAfterMs: 0 } },
      { at: T0 + 100, expect: { allowed: true, leaseId: id2, remaining: 0, resetAfterMs: 1000 } },
      {
        at: T0 + 200,
        expect: { allowed: false, leaseId: 0, remaining: 0, retryAfterMs: 800, resetAfterMs: 900 },
      },
      { at: T0 + 300, release: id1, expect: true },
      { at: T0 + 300, expect: { allowed: true, leaseId: id3, remaining: 0, resetAfterMs: 1000 } },
      { at: T0 + 300, release: id1, expect: false },
      // cost 2 needs leases 2 (expires +1100) and 3 (expires +1300) gone
      { at: T0 + 300, cost: 2, expect: { allowed: false, retryAfterMs: 1000, resetAfterMs: 1000 } },
      { at: T0 + 1099, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 1100, expect: { allowed: true, leaseId: id4, remaining: 0, resetAfterMs: 1000 } },
      { at: T0 + 1100, release: id2, expect: false },
      { at: T0 + 1200, release: id4, expect: true },
      { at: T0 + 1300, cost: 2, expect: { allowed: true, leaseId: id5, remaining: 0 } },
    ]);
    expect(leases(s)).toEqual([[id5, T0 + 2300, 2]]);
    expect(s[0]).toBe(2);
    expect(s[1]).toBe(id5);
  });

  it("compacts out-of-order releases by moving the last lease into the hole", () => {
    const three = spec(3, 1000);
    const id1 = idAt(0, T0);
    const id2 = idAt(id1, T0 + 1);
    const id3 = idAt(id2, T0 + 2);
    const s = run(three, [
      { at: T0, expect: { leaseId: id1 } },
      { at: T0 + 1, expect: { leaseId: id2 } },
      { at: T0 + 2, expect: { leaseId: id3 } },
      { at: T0 + 3, release: id1, expect: true },
    ]);
    expect(leases(s)).toEqual([
      [id3, T0 + 1002, 1],
      [id2, T0 + 1001, 1],
    ]);
    expect(Array.from(s.subarray(9))).toEqual([0, 0, 0]);
    run(three, [{ at: T0 + 4, release: id2, expect: true }], s);
    expect(leases(s)).toEqual([[id3, T0 + 1002, 1]]);
    expect(s[0]).toBe(1);
    run(three, [{ at: T0 + 5, release: id3, expect: true }], s);
    expect(Array.from(s)).toEqual([0, id3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("denies a cost above the limit forever, and says so", () => {
    run(sp, [
      {
        at: T0,
        cost: 3,
        expect: { allowed: false, retryAfterMs: INF, remaining: 2, resetAfterMs: 0, leaseId: 0 },
      },
      { at: T0, expect: { allowed: true, leaseId: idAt(0, T0) } },
      {
        at: T0 + 10,
        cost: 3,
        expect: { allowed: false, retryAfterMs: INF, remaining: 1, resetAfterMs: 990 },
      },
    ]);
  });

  it("admits up to the limit at zero elapsed time", () => {
    run(sp, [
      { at: T0, expect: { allowed: true, leaseId: idAt(0, T0), remaining: 1 } },
      { at: T0, expect: { allowed: true, leaseId: idAt(idAt(0, T0), T0), remaining: 0 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 1000 } },
    ]);
  });

  it("expires nothing early when the clock goes backwards", () => {
    const one = spec(1, 1000);
    const id1 = idAt(0, T0);
    const id2 = idAt(id1, T0 + 5000);
    // behind the clock that seeded id2, ids keep counting up from it
    const id3 = idAt(id2, T0 - 5000);
    const id4 = idAt(id3, T0 - 4000);
    expect([id3, id4]).toEqual([id2 + 1, id2 + 2]);
    run(one, [
      { at: T0, expect: { leaseId: id1 } },
      { at: T0 + 5000, expect: { allowed: true, leaseId: id2 } },
      { at: T0 - 5000, expect: { allowed: false, retryAfterMs: 11_000, resetAfterMs: 11_000 } },
      { at: T0 - 5000, release: id2, expect: true },
      // a lease taken now lives P ms of the caller's clock
      { at: T0 - 5000, expect: { allowed: true, leaseId: id3, resetAfterMs: 1000 } },
      { at: T0 - 4001, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 - 4000, expect: { allowed: true, leaseId: id4 } },
    ]);
  });

  it("lets every lease expire after a very long gap", () => {
    const id1 = idAt(0, T0);
    const id2 = idAt(id1, T0 + 1e12);
    const s = run(sp, [
      { at: T0, cost: 2, expect: { allowed: true, leaseId: id1 } },
      { at: T0 + 1e12, cost: 2, expect: { allowed: true, leaseId: id2, remaining: 0 } },
    ]);
    expect(leases(s)).toEqual([[id2, T0 + 1e12 + 1000, 2]]);
    expect(concurrency.idleAfterMs(s, 0, T0 + 2e12, sp)).toBe(0);
  });

  it("peeks with cost 0 and decides with commit = false without writing or taking a lease", () => {
    const s = run(sp, [{ at: T0, expect: { leaseId: idAt(0, T0) } }]);
    const before = Float64Array.from(s);
    const out = createStepOut();
    concurrency.apply(s, 0, T0 + 100, sp, 0, true, out);
    expect(out).toEqual({ allowed: true, remaining: 1, resetAfterMs: 900, retryAfterMs: 0, leaseId: 0 });
    concurrency.apply(s, 0, T0 + 100, sp, 1, false, out);
    expect(out).toEqual({ allowed: true, remaining: 0, resetAfterMs: 1000, retryAfterMs: 0, leaseId: 0 });
    concurrency.apply(s, 0, T0 + 2000, sp, 0, true, out);
    expect(out).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 0 });
    expect(s).toEqual(before);
  });

  it("refuses to release unknown leases, and refund is a no-op", () => {
    const id1 = idAt(0, T0);
    const s = run(sp, [{ at: T0, expect: { leaseId: id1 } }]);
    const before = Float64Array.from(s);
    for (const id of [0, -1, 1, id1 - 1, id1 + 1, id1 + 0.5, Number.NaN]) {
      expect(concurrency.release?.(s, 0, T0, sp, id)).toBe(false);
    }
    concurrency.refund(s, 0, T0, sp, 1);
    expect(s).toEqual(before);
  });

  it("reports idle time until the latest lease expires", () => {
    const s = run(sp, [
      { at: T0, expect: { leaseId: idAt(0, T0) } },
      { at: T0 + 300, expect: { leaseId: idAt(idAt(0, T0), T0 + 300) } },
    ]);
    expect(concurrency.idleAfterMs(s, 0, T0 + 300, sp)).toBe(1000);
    expect(concurrency.idleAfterMs(s, 0, T0 + 1299.5, sp)).toBe(0.5);
    expect(concurrency.idleAfterMs(s, 0, T0 + 1300, sp)).toBe(0);
    expect(concurrency.idleAfterMs(new Float64Array(9), 0, T0, sp)).toBe(0);
  });

  it("reuses its slots over many acquire / release cycles", () => {
    const four = spec(4, 10_000_000);
    const s = new Float64Array(concurrency.width(four));
    const out = createStepOut();
    const held: number[] = [];
    let failures = 0;
    let lastId = 0;
    for (let k = 0; k < 5_000; k++) {
      const now = T0 + k;
      concurrency.apply(s, 0, now, four, 1, true, out);
      lastId = idAt(lastId, now);
      if (!out.allowed || out.leaseId !== lastId) failures++;
      held.push(out.leaseId);
      if (held.length === 4) {
        const victim = held.splice((k * 7) % 4, 1)[0];
        if (concurrency.release?.(s, 0, now, four, victim) !== true) failures++;
      }
      if (s[2] > 3 || s[0] !== s[2]) failures++;
    }
    expect(failures).toBe(0);
    expect(
      leases(s)
        .map(([id]) => id)
        .sort(),
    ).toEqual([...held].sort());
  });

  it("keeps its leases under a raised limit and the ones it still has room for under a lowered one", () => {
    const id1 = idAt(0, T0);
    const id2 = idAt(id1, T0 + 1);
    const id3 = idAt(id2, T0 + 2);
    const id4 = idAt(id3, T0 + 3);
    const s = run(spec(3, 1000), [
      { at: T0, expect: { leaseId: id1 } },
      { at: T0 + 1, expect: { leaseId: id2 } },
      { at: T0 + 2, expect: { leaseId: id3 } },
    ]);
    const raised = spec(5, 1000);
    const grown = new Float64Array(concurrency.width(raised));
    grown.set(s);
    run(raised, [{ at: T0 + 3, cost: 2, expect: { allowed: true, leaseId: id4, remaining: 0 } }], grown);
    const lowered = spec(2, 1000);
    const cut = s.slice(0, concurrency.width(lowered));
    run(
      lowered,
      [
        { at: T0 + 3, expect: { allowed: false, remaining: 0, retryAfterMs: 997 } },
        { at: T0 + 3, release: id2, expect: true },
        { at: T0 + 3, expect: { allowed: true, leaseId: id4 } },
      ],
      cut,
    );
  });

  it("seeds lease ids from the clock: ⌊now⌋·1000, counting up within one millisecond", () => {
    const three = spec(3, 1000);
    const s = run(three, [
      { at: T0 + 0.4, expect: { allowed: true, leaseId: 1_700_000_000_000_000 } },
      { at: T0 + 0.9, expect: { allowed: true, leaseId: 1_700_000_000_000_001 } },
      { at: T0 + 1.2, expect: { allowed: true, leaseId: 1_700_000_000_001_000 } },
    ]);
    expect(s[1]).toBe(1_700_000_000_001_000);
    expect(leases(s).map(([id]) => id)).toEqual([
      1_700_000_000_000_000, 1_700_000_000_000_001, 1_700_000_000_001_000,
    ]);
    expect([idAt(0, T0 + 0.4), idAt(idAt(0, T0 + 0.4), T0 + 0.9), idAt(0, T0 + 1.2)]).toEqual([
      1_700_000_000_000_000, 1_700_000_000_000_001, 1_700_000_000_001_000,
    ]);
  });

  it("a dropped key starting fresh hands out ids above every old one, so late releases of old ids free nothing", () => {
    const old = run(sp, [
      { at: T0, expect: { allowed: true } },
      { at: T0, expect: { allowed: true } },
    ]);
    const oldIds = leases(old).map(([id]) => id);
    expect(oldIds).toEqual([idAt(0, T0), idAt(idAt(0, T0), T0)]);
    const idle = T0 + concurrency.idleAfterMs(old, 0, T0, sp);
    expect(concurrency.idleAfterMs(old, 0, idle, sp)).toBe(0);
    // every lease has expired; the key is dropped and restarts from an all-zeros state
    const fresh = new Float64Array(concurrency.width(sp));
    const newId = idAt(0, idle);
    run(sp, [{ at: idle, expect: { allowed: true, leaseId: newId, remaining: 1 } }], fresh);
    expect(newId).toBeGreaterThan(Math.max(...oldIds));
    const before = Float64Array.from(fresh);
    for (const id of oldIds) expect(concurrency.release?.(fresh, 0, idle + 1, sp, id)).toBe(false);
    expect(fresh).toEqual(before);
    expect(leases(fresh)).toEqual([[newId, idle + 1000, 1]]);
    run(
      sp,
      [
        { at: idle + 1, cost: 2, expect: { allowed: false, remaining: 1, retryAfterMs: 999 } },
        { at: idle + 1, release: newId, expect: true },
        { at: idle + 1, cost: 2, expect: { allowed: true, leaseId: idAt(newId, idle + 1), remaining: 0 } },
      ],
      fresh,
    );
  });

  describe("properties", () => {
    const arbSpec = fc.record({
      limit: fc.integer({ min: 1, max: 8 }),
      periodMs: fc.integer({ min: 1, max: 2000 }),
    });
    const arbOps = fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant("acquire" as const),
          gapMs: fc.integer({ min: -200, max: 400 }),
          cost: fc.integer({ min: 0, max: 4 }),
        }),
        fc.record({
          kind: fc.constant("release" as const),
          gapMs: fc.integer({ min: 0, max: 400 }),
          pick: fc.nat(),
        }),
      ),
      { minLength: 1, maxLength: 200 },
    );

    it("matches a reference map of leases: never more than limit in flight, release frees exactly its cost", () => {
      fc.assert(
        fc.property(arbSpec, arbOps, (p, ops) => {
          const sp = spec(p.limit, p.periodMs);
          const s = new Float64Array(concurrency.width(sp));
          const out = createStepOut();
          const model = new Map<number, { expiry: number; cost: number }>();
          let lastId = 0;
          const issued: number[] = [];
          let now = T0;
          const liveCost = (): number => {
            let sum = 0;
            for (const l of model.values()) if (l.expiry > now) sum += l.cost;
            return sum;
          };
          for (const op of ops) {
            now += op.gapMs;
            if (op.kind === "acquire") {
              const live = liveCost();
              const ok = live + op.cost <= p.limit;
              concurrency.apply(s, 0, now, sp, op.cost, true, out);
              expect(out.allowed).toBe(ok);
              expect(out.remaining).toBe(p.limit - live - (ok ? op.cost : 0));
              if (ok && op.cost > 0) {
                for (const [id, l] of model) if (l.expiry <= now) model.delete(id);
                lastId = idAt(lastId, now);
                expect(out.leaseId).toBe(lastId);
                issued.push(lastId);
                model.set(lastId, { expiry: now + p.periodMs, cost: op.cost });
              } else {
                expect(out.leaseId).toBe(0);
              }
            } else {
              const candidates = [0, ...issued, lastId + 1]; // sometimes 0 or one past the last id
              const id = candidates[op.pick % candidates.length];
              const lease = model.get(id);
              const held = lease !== undefined && lease.expiry > now;
              concurrency.apply(s, 0, now, sp, 0, false, out);
              const before = out.remaining;
              expect(concurrency.release?.(s, 0, now, sp, id)).toBe(held);
              model.delete(id);
              concurrency.apply(s, 0, now, sp, 0, false, out);
              expect(out.remaining).toBe(before + (held && lease ? lease.cost : 0));
            }
            expect(liveCost()).toBeLessThanOrEqual(p.limit);
            const stored = leases(s);
            expect(stored.length).toBeLessThanOrEqual(p.limit);
            expect(s[0]).toBe(stored.reduce((a, l) => a + l[2], 0));
          }
        }),
      );
    });

    it("a denial or a non-committing call leaves the state byte-identical; retrying after retryAfterMs passes", () => {
      fc.assert(
        fc.property(arbSpec, arbOps, (p, ops) => {
          const sp = spec(p.limit, p.periodMs);
          const s = new Float64Array(concurrency.width(sp));
          const out = createStepOut();
          let now = T0;
          let lastId = 0;
          const issued: number[] = [0];
          for (const op of ops) {
            now += op.gapMs;
            if (op.kind === "release") {
              concurrency.release?.(s, 0, now, sp, issued[op.pick % issued.length]);
              continue;
            }
            const before = Float64Array.from(s);
            concurrency.apply(s, 0, now, sp, op.cost, false, out);
            expect(s).toEqual(before);
            const peeked = { ...out };
            concurrency.apply(s, 0, now, sp, op.cost, true, out);
            if (out.leaseId > 0) {
              lastId = idAt(lastId, now);
              expect(out.leaseId).toBe(lastId);
              issued.push(lastId);
            }
            expect({ ...out, leaseId: 0 }).toEqual(peeked);
            expect(out.remaining).toBeGreaterThanOrEqual(0);
            expect(out.resetAfterMs).toBeGreaterThanOrEqual(0);
            if (!out.allowed) {
              expect(s).toEqual(before);
              expect(out.retryAfterMs).toBeGreaterThan(0);
              if (op.cost > p.limit) expect(out.retryAfterMs).toBe(INF);
              else {
                const retry = out.retryAfterMs;
                expect(Number.isFinite(retry)).toBe(true);
                const probe = Float64Array.from(s);
                concurrency.apply(probe, 0, now + retry, sp, op.cost, false, out);
                expect(out.allowed).toBe(true);
                concurrency.apply(probe, 0, now + retry - 1, sp, op.cost, false, out);
                expect(out.allowed, "retryAfterMs is the earliest whole ms").toBe(false);
              }
            } else if (op.cost === 0) {
              expect(s).toEqual(before);
            }
          }
        }),
      );
    });
  });
});

describe("concurrency: resetKeep", () => {
  it("drops every lease, keeps the last id, and says so; a fresh state keeps nothing", () => {
    const sp = spec(2, 1000);
    const fresh = new Float64Array(concurrency.width(sp));
    expect(concurrency.resetKeep?.(fresh, 0, sp)).toBe(false);
    expect([...fresh].every((v) => v === 0)).toBe(true);
    const s = run(sp, [
      { at: T0, expect: { allowed: true, leaseId: idAt(0, T0) } },
      { at: T0, expect: { allowed: true, leaseId: idAt(idAt(0, T0), T0) } },
    ]);
    expect(concurrency.resetKeep?.(s, 0, sp)).toBe(true);
    // Fresh for every decision: both leases gone; the next lease, in the same millisecond, gets a new id.
    run(
      sp,
      [
        { at: T0, expect: { allowed: true, remaining: 1, leaseId: idAt(0, T0) + 2 } },
        { at: T0, release: idAt(0, T0), expect: false },
        { at: T0, release: idAt(0, T0) + 1, expect: false },
      ],
      s,
    );
  });
});

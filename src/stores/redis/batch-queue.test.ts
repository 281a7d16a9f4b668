import { afterEach, describe, expect, it, vi } from "vitest";
import { createLimitSet } from "../../algorithms/limit-set.js";
import { parseLimitSpec } from "../../core/limit-spec.js";
import { type Batchable, BatchQueue, FULL_IN_FLIGHT, STALL_MS } from "./batch-queue.js";
import type { Group } from "./protocol.js";

const limits = createLimitSet("q", [
  parseLimitSpec({ name: "l", algorithm: "gcra", limit: 10, periodMs: 1000 }),
]);

interface Call extends Batchable {
  readonly id: string;
}

/** A ticket the test settles by hand. */
interface Ticket {
  settled: boolean;
  queued?: boolean;
}

/** A call of `items` items named `id`, with `ticket` when given. */
function call(id: string, items = 1, ticket?: Ticket): Call {
  const group: Group = {
    op: "consume",
    now: "",
    items: Array.from({ length: items }, (_, i) => ({ limits, key: `${id}.${i}`, cost: 1 })),
  };
  return { id, group, ticket };
}

/** A queue whose script calls are recorded, each answered when the test says so. */
function harness(maxBatch: number, maxInFlight: number) {
  const sent: { ids: string[]; answer: () => void }[] = [];
  const dropped: string[] = [];
  const queue = new BatchQueue<Call>({
    maxBatch,
    maxInFlight,
    send: (batch, answered) => {
      sent.push({ ids: batch.map((c) => c.id), answer: answered });
    },
    drop: (c) => {
      dropped.push(c.id);
    },
  });
  return { queue, sent, dropped, ids: () => sent.map((s) => s.ids) };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe("BatchQueue", () => {
  it("sends the calls of one event-loop turn as one script call, at the end of the turn", async () => {
    const { queue, ids } = harness(64, 1);
    queue.push(call("a"));
    queue.push(call("b"));
    await Promise.resolve();
    queue.push(call("c")); // a microtask later: still the same turn
    expect(ids()).toEqual([]);
    await tick();
    expect(ids()).toEqual([["a", "b", "c"]]);
  });

  it("sends the calls made by several callbacks of one turn together, as a server's requests of one turn", async () => {
    const { queue, sent, ids } = harness(64, 2);
    queue.push(call("a"));
    await tick();
    expect(ids()).toEqual([["a"]]); // a slot is still free: the next turn's calls leave at its end
    await new Promise<void>((resolve) => {
      // Three callbacks of one turn (as I/O callbacks of one poll), each making a call.
      setImmediate(() => queue.push(call("b")));
      setImmediate(() => queue.push(call("c")));
      setImmediate(() => {
        queue.push(call("d"));
        resolve();
      });
    });
    await tick();
    expect(ids()).toEqual([["a"], ["b", "c", "d"]]);
    expect(sent).toHaveLength(2);
  });

  it("sends what queued behind an answer together with the calls made while the answer was handled", async () => {
    const { queue, sent, ids } = harness(64, 1);
    queue.push(call("a"));
    await tick();
    queue.push(call("b"));
    await tick();
    expect(ids()).toEqual([["a"]]); // the only slot is taken: b waits
    // The answer to a: its callers go on (a microtask later) and make a new call, c, in the same turn.
    sent[0].answer();
    await Promise.resolve();
    queue.push(call("c"));
    expect(ids()).toEqual([["a"]]);
    await tick();
    expect(ids()).toEqual([["a"], ["b", "c"]]);
  });

  it("queues calls while maxInFlight script calls await their answer, and sends them together on an answer", async () => {
    const { queue, sent, ids } = harness(64, 2);
    queue.push(call("a"));
    await tick();
    queue.push(call("b"));
    await tick();
    expect(ids()).toEqual([["a"], ["b"]]);
    for (const id of ["c", "d", "e"]) {
      queue.push(call(id));
      await tick();
    }
    expect(queue.queued).toBe(3);
    expect(ids()).toHaveLength(2); // both slots taken: nothing more leaves
    sent[1].answer(); // an answer frees a slot: what queued leaves at the end of the turn, in order
    await tick();
    expect(ids()).toEqual([["a"], ["b"], ["c", "d", "e"]]);
    sent[1].answer(); // a second report of the same answer frees nothing
    queue.push(call("f"));
    await tick();
    expect(ids()).toHaveLength(3);
    sent[0].answer();
    await tick();
    expect(ids()[3]).toEqual(["f"]);
    expect(queue.inFlight).toBe(2);
  });

  it("sends a whole batch at once whatever is in flight, and splits the queue into batches of maxBatch items", async () => {
    const { queue, ids } = harness(4, 1);
    queue.push(call("a"));
    await tick();
    for (const id of ["b", "c", "d"]) queue.push(call(id));
    expect(ids()).toEqual([["a"]]);
    queue.push(call("e", 2)); // 5 items queued: the first whole batch that fits (b, c, d) leaves
    expect(ids()).toEqual([["a"], ["b", "c", "d"]]);
    queue.push(call("f", 2)); // e + f make 4: a whole batch
    expect(ids()).toEqual([["a"], ["b", "c", "d"], ["e", "f"]]);
    expect(queue.queued).toBe(0);
  });

  it("sends a call larger than maxBatch alone", async () => {
    const { queue, ids } = harness(4, 1);
    queue.push(call("a"));
    queue.push(call("big", 9));
    queue.push(call("b"));
    await tick();
    expect(ids()).toEqual([["a"], ["big"]]);
    expect(queue.queued).toBe(1);
  });

  it("frees the slot of a call unanswered for STALL_MS, and ignores its late answer", async () => {
    vi.useFakeTimers();
    const { queue, sent, ids } = harness(64, 1);
    queue.push(call("a"));
    await vi.advanceTimersByTimeAsync(0);
    queue.push(call("b"));
    await vi.advanceTimersByTimeAsync(STALL_MS - 1);
    expect(ids()).toEqual([["a"]]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ids()).toEqual([["a"], ["b"]]);
    queue.push(call("c"));
    sent[0].answer(); // the stalled call's answer: its slot was already given up
    await vi.advanceTimersByTimeAsync(0);
    expect(ids()).toEqual([["a"], ["b"]]);
    sent[1].answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(ids()).toEqual([["a"], ["b"], ["c"]]);
  });

  it("while its calls are stalled (an open but silent connection), lets one probe call leave per STALL_MS", async () => {
    vi.useFakeTimers();
    const { queue, sent } = harness(2, 1);
    // 20 whole batches in one turn: FULL_IN_FLIGHT of them leave at once, the others wait for a slot.
    for (let i = 0; i < 40; i++) queue.push(call(String(i)));
    expect(sent.length).toBe(FULL_IN_FLIGHT);
    for (let period = 1; period <= 4; period++) {
      const before = sent.length;
      await vi.advanceTimersByTimeAsync(STALL_MS);
      expect(sent.length - before, `script calls sent in stall period ${period}`).toBeLessThanOrEqual(1);
    }
    expect(sent.length).toBeGreaterThan(FULL_IN_FLIGHT); // probes did leave, one call each
    expect(sent.slice(FULL_IN_FLIGHT).every((s) => s.ids.length === 1)).toBe(true);
    const probed = sent.length;
    queue.push(call("late")); // no whole batch leaves at once on a silent connection either
    queue.push(call("later"));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.length).toBe(probed);
    // Redis answers again, in order: the rest leaves as on a healthy connection.
    for (const s of [...sent]) s.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.length).toBeGreaterThan(probed);
    for (let i = 0; i < 30 && queue.queued > 0; i++) {
      for (const s of [...sent]) s.answer();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(queue.queued).toBe(0);
    expect(sent.flatMap((s) => s.ids)).toEqual([
      ...Array.from({ length: 40 }, (_, i) => String(i)),
      "late",
      "later",
    ]);
  });

  it("sends everything queued on flushAll", async () => {
    const { queue, ids } = harness(2, 1);
    queue.push(call("a"));
    await tick();
    for (const id of ["b", "c", "d"]) queue.push(call(id));
    expect(ids()).toEqual([["a"], ["b", "c"]]);
    queue.flushAll();
    expect(ids()).toEqual([["a"], ["b", "c"], ["d"]]);
    expect(queue.queued).toBe(0);
  });

  it("keeps arrival order across many answers and refills", async () => {
    const { queue, sent } = harness(3, 2);
    const order: string[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < (round % 5) + 1; i++) queue.push(call(String(next++)));
      await tick();
      const open = sent.find((s) => !order.includes(s.ids[0]));
      if (open !== undefined && round % 2 === 0) {
        order.push(...open.ids);
        open.answer();
      }
    }
    queue.flushAll();
    const all = sent.flatMap((s) => s.ids);
    expect(all).toEqual(Array.from({ length: next }, (_, i) => String(i)));
    expect(sent.every((s) => s.ids.length <= 3)).toBe(true);
  });

  it("drops queued calls whose ticket was settled when their turn comes, never sending them", async () => {
    const { queue, sent, dropped, ids } = harness(64, 1);
    const late = { settled: false };
    queue.push(call("a"));
    await tick();
    expect(ids()).toEqual([["a"]]); // in flight: the rest waits for its answer
    queue.push(call("b", 1, late));
    queue.push(call("c", 2, late));
    queue.push(call("d", 1, { settled: false }));
    queue.push(call("e", 1));
    late.settled = true; // b and c timed out while they waited
    sent[0].answer();
    await tick();
    // b and c are dropped: d and e leave together.
    expect(dropped).toEqual(["b", "c"]);
    expect(ids()).toEqual([["a"], ["d", "e"]]);
    expect(queue.queued).toBe(0);
  });

  it("marks a ticket queued while its call waits in the queue, and not once the call has left", async () => {
    const { queue, sent } = harness(2, 1);
    const t = (): Ticket => ({ settled: false });
    const [a, b, c, d] = [t(), t(), t(), t()];
    queue.push(call("a", 1, a));
    expect(a.queued).toBe(true); // until the end of the turn
    await tick();
    expect(a.queued).toBe(false); // sent
    queue.push(call("b", 1, b));
    queue.push(call("c", 1, c));
    queue.push(call("d", 1, d)); // b + c make a whole batch: it leaves at once, d waits for a slot
    expect([b.queued, c.queued, d.queued]).toEqual([false, false, true]);
    sent[0].answer();
    sent[1].answer(); // both slots free
    await tick();
    expect(sent.map((x) => x.ids)).toEqual([["a"], ["b", "c"], ["d"]]);
    expect(d.queued).toBe(false);
  });

  it("sends nothing and holds no slot when every queued call was settled", async () => {
    const { queue, sent, dropped, ids } = harness(64, 1);
    const t = { settled: false };
    queue.push(call("a"));
    await tick();
    for (const id of ["b", "c", "d"]) queue.push(call(id, 1, t));
    t.settled = true;
    sent[0].answer();
    await tick();
    expect(dropped).toEqual(["b", "c", "d"]);
    expect(ids()).toEqual([["a"]]);
    expect(queue.inFlight).toBe(0);
    queue.push(call("e"));
    await tick();
    expect(ids()).toEqual([["a"], ["e"]]); // the slot is free: the next call leaves at the end of its turn
  });

  it("drops settled calls on flushAll and when a whole batch fills up", async () => {
    const { queue, dropped, ids } = harness(2, 1);
    const t = { settled: true };
    queue.push(call("a"));
    await tick();
    queue.push(call("b", 1, t));
    queue.push(call("c", 1)); // 2 items queued: a full batch leaves at once, without b
    expect(ids()).toEqual([["a"], ["c"]]);
    expect(dropped).toEqual(["b"]);
    queue.push(call("d", 1, t));
    queue.flushAll();
    expect(dropped).toEqual(["b", "d"]);
    expect(ids()).toEqual([["a"], ["c"]]);
    expect(queue.queued).toBe(0);
  });

  it(`sends whole batches at once only while fewer than ${FULL_IN_FLIGHT} script calls are in flight`, async () => {
    const { queue, sent, ids } = harness(2, 1);
    for (let i = 0; i < 2 * (FULL_IN_FLIGHT + 3); i++) queue.push(call(String(i)));
    // FULL_IN_FLIGHT whole batches left at once; the node is behind: the other 3 batches' calls wait.
    expect(sent.length).toBe(FULL_IN_FLIGHT);
    expect(queue.queued).toBe(6);
    await tick();
    expect(sent.length).toBe(FULL_IN_FLIGHT); // no slot free at the end of the turn either
    sent[0].answer();
    await tick();
    expect(sent.length).toBe(FULL_IN_FLIGHT + 1); // one slot freed (maxInFlight 1 is long exceeded): one batch
    expect(ids()[FULL_IN_FLIGHT]).toEqual(["16", "17"]);
  });
});

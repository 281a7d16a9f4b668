/**
 * The conformance traces: timed sequences of operations on a limiter, with hand-written expectations on the key
 * steps. Framework-free data; `conformance.ts` replays them against a store and compares every decision with
 * the {@link ReferenceStore}. Times are milliseconds after {@link T0} (or a trace's own `t0`).
 *
 * Hand-written expectations follow DESIGN §3 and each algorithm's module comment; they guard the reference
 * model as much as the stores. Every trace uses periods that divide {@link T0}, so windows start at `at: 0`.
 */
import { checkOptions } from "../core/arguments.js";
import type { AlgorithmId, LimitSpecInput } from "../core/limit-spec.js";
import type { LimitState } from "../core/limit-state.js";
import { createRandom } from "../core/random.js";

/** The default start of every trace: 2023-11-14T22:13:20Z, a multiple of every period used here but a minute. */
export const T0 = 1_700_000_000_000;

/** What a step does through the limiter. */
export type StepOp = "consume" | "peek" | "refund" | "reset" | "acquire" | "release";

/** Expected fields of one limit's status within a decision. */
export interface PolicyExpect {
  /** Whether this limit allowed. */
  readonly allowed?: boolean;
  /** Whole units left. */
  readonly remaining?: number;
  /** Milliseconds until fresh. */
  readonly resetAfterMs?: number;
  /** Milliseconds until the cost could pass (0 when allowed, Infinity when never). */
  readonly retryAfterMs?: number;
  /** normal / warning / throttled. */
  readonly state?: LimitState;
}

/** Expected fields of a step's decision; only the fields given are checked. */
export interface StepExpect extends PolicyExpect {
  /** The headline policy (the most restrictive limit). */
  readonly policy?: string;
  /** Per-policy expectations, by policy name. */
  readonly policies?: Readonly<Record<string, PolicyExpect>>;
  /** Policy names holding a lease after an acquire (sorted); `[]` when none. */
  readonly leases?: readonly string[];
}

/** One operation of a trace. */
export interface Step {
  /** Milliseconds after the trace's `t0` (fractions and going backwards allowed). */
  readonly at: number;
  /** The operation. */
  readonly op: StepOp;
  /** The key. @default "k" */
  readonly key?: string;
  /** Units: consumed (consume/acquire, default 1), asked about (peek, default 0) or given back (refund, default 1). */
  readonly cost?: number;
  /** acquire: the name to keep the lease under; release: the name of the lease to give back. */
  readonly lease?: string;
  /** Reconfigure before this step: from here on the limiter has these limits (same name, state kept). */
  readonly limits?: readonly LimitSpecInput[];
  /** Hand-written expectations on the decision (none for reset and release). */
  readonly expect?: StepExpect;
  /**
   * More items of the same store call, after the limiter's own (consume, peek, refund and reset only): one call,
   * all-or-nothing across every item, as an engine's call for a request several rules match. The call goes to the
   * store directly (`Store.apply`; a consume may count concurrency limits, as the engine's does). The step's
   * `expect` is about the limiter's item; every item's decision is compared with the reference's.
   */
  readonly with?: readonly StepItem[];
  /**
   * Sent with the step before, without waiting for its answer: a run of steps marked so, and the step before
   * them, are all called before any answer is awaited (in order), so a store that batches calls (Redis) sends
   * them in one round trip, as it does for concurrent callers. A release in such a run can only name a lease
   * acquired before the run. @default false
   */
  readonly together?: boolean;
  /** The error code the call must be refused with (then it decides nothing, and `expect` does not apply). */
  readonly throws?: string;
}

/** An item of another limit set in a step's store call (see {@link Step.with}). */
export interface StepItem {
  /** The name of the set in the trace's {@link Trace.sets}. */
  readonly set: string;
  /** The key. @default the step's key */
  readonly key?: string;
  /** Units, as the step's `cost`. @default the step's cost (consume 1, peek 0, refund 1) */
  readonly cost?: number;
  /** Hand-written expectations on this item's decision. */
  readonly expect?: StepExpect;
}

/** A named, timed sequence of steps against one set of limits. */
export interface Trace {
  /** Unique within its topic; part of the test name. */
  readonly name: string;
  /** Group in test names: the algorithm, or a cross-cutting topic. @default the limits' algorithm */
  readonly topic?: string;
  /** Absolute time of `at: 0`, in epoch ms. @default T0 */
  readonly t0?: number;
  /** The limits the limiter starts with. */
  readonly limits: readonly LimitSpecInput[];
  /**
   * Other limit sets, by name, for the steps' {@link Step.with} items; each counts in a namespace of its own, the
   * limiter's name followed by `/<set name>`.
   */
  readonly sets?: Readonly<Record<string, readonly LimitSpecInput[]>>;
  /** The steps, in order. */
  readonly steps: readonly Step[];
}

/** The topic a trace is filed under: its own, else its single algorithm, else `multi-limit`. */
export function traceTopic(trace: Trace): string {
  if (trace.topic !== undefined) return trace.topic;
  const ids = new Set(trace.limits.map((l) => l.algorithm ?? "gcra"));
  return ids.size === 1 ? [...ids][0] : "multi-limit";
}

/** The test name of a trace: `<topic>: <name>`. */
export function traceTestName(trace: Trace): string {
  return `${traceTopic(trace)}: ${trace.name}`;
}

/** The distinct keys a trace touches; a key of one of its other sets counts apart, as `<set>/<key>`. */
export function traceKeys(trace: Trace): string[] {
  const keys = new Set<string>();
  for (const s of trace.steps) {
    keys.add(s.key ?? "k");
    for (const it of s.with ?? []) keys.add(`${it.set}/${it.key ?? s.key ?? "k"}`);
  }
  return [...keys];
}

// ---------------------------------------------------------------------------------------------------------------
// Builders (private): short names keep the traces readable as tables.

type Extra = Partial<Pick<Step, "key" | "cost" | "lease" | "limits" | "with" | "together" | "throws">>;

function st(at: number, op: StepOp, expect: StepExpect | undefined, extra: Extra | undefined): Step {
  return { at, op, ...extra, ...(expect !== undefined ? { expect } : {}) };
}
const consume = (at: number, expect?: StepExpect, extra?: Extra): Step => st(at, "consume", expect, extra);
const peek = (at: number, expect?: StepExpect, extra?: Extra): Step => st(at, "peek", expect, extra);
const refund = (at: number, cost: number, expect?: StepExpect, extra?: Extra): Step =>
  st(at, "refund", expect, { ...extra, cost });
const reset = (at: number, extra?: Extra): Step => st(at, "reset", undefined, extra);
const acquire = (at: number, lease: string, expect?: StepExpect, extra?: Extra): Step =>
  st(at, "acquire", expect, { ...extra, lease });
const release = (at: number, lease: string, extra?: Extra): Step =>
  st(at, "release", undefined, { ...extra, lease });
const times = (n: number, make: (i: number) => Step): Step[] => Array.from({ length: n }, (_, i) => make(i));

/** Allowed, with `remaining` left and (when given) `resetAfterMs` until fresh and the state. */
function ok(remaining: number, resetAfterMs?: number, state?: LimitState): StepExpect {
  return {
    allowed: true,
    remaining,
    retryAfterMs: 0,
    ...(resetAfterMs !== undefined ? { resetAfterMs } : {}),
    ...(state !== undefined ? { state } : {}),
  };
}

/** Denied, retry after `retryAfterMs`; optionally `remaining` and `resetAfterMs`. */
function no(retryAfterMs: number, remaining?: number, resetAfterMs?: number): StepExpect {
  return {
    allowed: false,
    retryAfterMs,
    state: "throttled",
    ...(remaining !== undefined ? { remaining } : {}),
    ...(resetAfterMs !== undefined ? { resetAfterMs } : {}),
  };
}

const NEVER = Number.POSITIVE_INFINITY;
/** 30 days, in ms. */
const MONTH = 2_592_000_000;

const perSecond = (
  algorithm: AlgorithmId,
  limit = 5,
  extra: Partial<LimitSpecInput> = {},
): LimitSpecInput => ({
  name: "per-second",
  algorithm,
  limit,
  periodMs: 1000,
  ...(algorithm === "bucketed_window" ? { bucketMs: 100 } : {}),
  ...extra,
});

// ---------------------------------------------------------------------------------------------------------------
// gcra, token_bucket, leaky_bucket: DESIGN §3 makes them admit identically (a bucket of B refilled at L/P), and
// with an unchanged limit they report identically too. L = 5 per 1000 ms: one unit every 200 ms.

function bucketFamily(algorithm: "gcra" | "token_bucket" | "leaky_bucket"): Trace[] {
  const limits = [perSecond(algorithm)];
  return [
    {
      name: "burst then refill",
      limits,
      steps: [
        consume(0, ok(4, 200, "normal")),
        consume(0, ok(3, 400, "normal")),
        consume(0, ok(2, 600, "normal")),
        consume(0, ok(1, 800, "normal")), // 80% used: not above 80%, still normal
        consume(0, ok(0, 1000, "warning")),
        consume(0, no(200, 0, 1000)),
        consume(600, ok(2, 600, "normal")), // three units refilled, one taken; 40% used leaves warning
        consume(5000, ok(4, 200, "normal")),
        peek(5000, { ...ok(4, 200, "normal"), policy: "per-second" }),
      ],
    },
    {
      name: "denial then exact retry at retryAfterMs",
      limits,
      steps: [
        consume(0, ok(0, 1000, "warning"), { cost: 5 }),
        consume(100, no(100, 0, 900)),
        consume(199, no(1)),
        consume(200, ok(0, 1000, "warning")),
        consume(200, no(400, 0, 1000), { cost: 2 }),
        consume(600, ok(0, 1000), { cost: 2 }),
      ],
    },
    {
      name: "cost above the burst never passes",
      limits,
      steps: [
        consume(0, no(NEVER, 5, 0), { cost: 6 }),
        consume(0, ok(0, 1000), { cost: 5 }),
        consume(0, no(NEVER, 0, 1000), { cost: 6 }),
        consume(10_000, no(NEVER, 5, 0), { cost: 5.5 }),
        consume(10_000, ok(0, 1000), { cost: 5 }),
      ],
    },
    {
      name: "peek with cost 0 and as-if costs changes nothing",
      limits,
      steps: [
        peek(0, ok(5, 0, "normal")),
        consume(0, ok(2, 600), { cost: 3 }),
        peek(0, ok(2, 600, "normal")),
        peek(0, ok(0, 1000, "warning"), { cost: 2 }),
        peek(0, no(200, 2, 600), { cost: 3 }),
        consume(0, ok(1, 800, "normal")),
      ],
    },
    {
      name: "clock going backwards is no time passing",
      limits,
      steps: [
        consume(1000, ok(0, 1000), { cost: 5 }),
        consume(500, { allowed: false, remaining: 0, state: "throttled" }),
        consume(1200, ok(0, 1000)),
        consume(0, { allowed: false, remaining: 0 }),
        consume(1400, ok(0, 1000)),
        consume(3400, ok(4, 200)),
      ],
    },
    {
      // Retrying at now + retryAfterMs must pass even when the clock went back further than the burst.
      name: "retry after the clock went back past the burst includes the lag",
      limits,
      steps: [
        consume(1000, ok(0, 1000), { cost: 5 }),
        consume(500, no(700, 0, 1500)),
        consume(1199, no(1)),
        consume(1200, ok(0, 1000)),
        consume(0, no(1400, 0, 2200)),
        consume(1400, ok(0, 1000)),
      ],
    },
    {
      name: "a very long gap refills completely",
      limits,
      steps: [
        consume(0, ok(0, 1000), { cost: 5 }),
        consume(MONTH, ok(4, 200, "normal")),
        consume(1_000_000_000_000, ok(4, 200, "normal")),
      ],
    },
    {
      name: "fractional rate, costs and clock",
      limits: [{ name: "slow", algorithm, limit: 2.5, periodMs: 1000 }], // one unit per 400 ms, burst 2.5
      steps: [
        consume(0, ok(1, 400, "normal")),
        consume(0, ok(0, 800, "warning")),
        consume(0, ok(0, 1000), { cost: 0.5 }),
        consume(0, no(200, 0, 1000), { cost: 0.5 }),
        consume(100.5, ok(0, 1000), { cost: 0.25 }),
        consume(1500, ok(1, 600), { cost: 1.5 }),
        consume(1500.25, no(NEVER, 1), { cost: 2.75 }),
      ],
    },
    {
      name: "refund gives units back, never beyond full",
      limits,
      steps: [
        consume(0, ok(2, 600), { cost: 3 }),
        refund(0, 2, ok(4, 200, "normal")),
        refund(0, 10, ok(5, 0, "normal")),
        consume(0, ok(0, 1000), { cost: 5 }),
        refund(500, 1, ok(3, 300)),
        refund(500, 1, ok(5, 0), { key: "never-seen" }),
        consume(500, ok(2, 500)),
      ],
    },
    {
      name: "reset forgets the key",
      limits,
      steps: [
        consume(0, ok(0, 1000, "warning"), { cost: 5 }),
        reset(0),
        peek(0, ok(5, 0, "normal")),
        consume(0, ok(4, 200, "normal")),
        reset(100),
        reset(100, { key: "never-seen" }),
        consume(100, ok(4, 200)),
      ],
    },
    {
      name: "several keys interleaved",
      limits,
      steps: [
        consume(0, ok(0, 1000), { key: "a", cost: 5 }),
        consume(0, ok(4, 200), { key: "b" }),
        consume(0, no(200, 0, 1000), { key: "a" }),
        consume(100, ok(3, 400), { key: "c", cost: 2 }),
        consume(100, ok(3, 300), { key: "b" }),
        consume(200, ok(0, 1000), { key: "a" }),
        peek(200, ok(3, 300), { key: "c" }),
        reset(200, { key: "b" }),
        peek(200, ok(5, 0), { key: "b" }),
        consume(200, no(200, 0, 1000), { key: "a" }),
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// gcra's precision: the TAT is an epoch time, whose grid (one ulp, 2⁻¹² ms here) T is rounded up to, so that no
// rounding accumulates over the writes of a burst at one instant (gcra.ts, Precision).

const gcraPrecision: Trace[] = [
  {
    // T = 1/3 ms: each TAT rounded up by up to an ulp admitted 5 of 6, after a remaining of 3 that promised more.
    name: "an emission interval below 1 ms: the whole burst passes at one instant, remaining counting down",
    limits: [{ name: "per-ms", algorithm: "gcra", limit: 3, periodMs: 1, burst: 6 }],
    steps: [
      ...times(6, (i) => consume(0.3, ok(5 - i))),
      consume(0.3, no(1, 0, 3)), // six units of 1/3 ms (and a little: T is rounded up to the grid)
      consume(3.3, ok(5, 1)),
    ],
  },
  {
    // T = 1000/828 ms: each TAT rounded to nearest lost up to half an ulp of a hundredth's debt, and 101 passed.
    name: "fractional costs at one instant never add up to more than the burst",
    limits: [{ name: "per-second", algorithm: "gcra", limit: 828, periodMs: 1000, burst: 1 }],
    steps: [
      ...times(100, () => consume(0, undefined, { cost: 0.01 })),
      consume(0, { allowed: false, remaining: 0 }, { cost: 0.01 }),
      peek(0, { allowed: true, remaining: 0 }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// fixed_window: L = 5 per 1000 ms; windows [T0 + n·1000, T0 + (n+1)·1000).

const fixedWindow: Trace[] = [
  {
    name: "burst then rollover",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(100, ok(4, 900, "normal")),
      consume(100, ok(3, 900)),
      consume(100, ok(2, 900)),
      consume(100, ok(1, 900, "normal")),
      consume(100, ok(0, 900, "warning")),
      consume(100, no(900, 0, 900)),
      consume(999, no(1, 0, 1)),
      consume(1000, ok(4, 1000, "normal")),
      ...times(4, () => consume(1000)),
      consume(1000, no(1000, 0, 1000)),
      consume(2500, ok(4, 500)), // a whole window skipped
    ],
  },
  {
    name: "denial then exact retry at retryAfterMs",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(250, ok(0, 750), { cost: 5 }),
      consume(600, no(400, 0, 400)),
      consume(1000, ok(0, 1000), { cost: 5 }),
      consume(1000, no(1000, 0, 1000)),
      consume(2000, ok(4, 1000)),
    ],
  },
  {
    name: "cost above the limit never passes",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, no(NEVER, 5, 0), { cost: 6 }),
      consume(0, ok(0, 1000), { cost: 5 }),
      consume(0, no(NEVER, 0, 1000), { cost: 6 }),
      consume(5000, no(NEVER, 5, 0), { cost: 100 }),
    ],
  },
  {
    name: "peek with cost 0 and as-if costs changes nothing",
    limits: [perSecond("fixed_window")],
    steps: [
      peek(0, ok(5, 0, "normal")),
      consume(0, ok(2, 1000), { cost: 3 }),
      peek(0, ok(2, 1000)),
      peek(0, ok(0, 1000, "warning"), { cost: 2 }),
      peek(0, no(1000, 2, 1000), { cost: 3 }),
      consume(400, ok(1, 600, "normal")),
    ],
  },
  {
    name: "clock going backwards stays in the newest window",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(1500, ok(0, 500), { cost: 5 }),
      consume(900, no(1100, 0, 1100)),
      consume(1999, no(1)),
      consume(2000, ok(4, 1000)),
      consume(1500, ok(3, 1500)), // counted in window 2, the newest seen
    ],
  },
  {
    name: "a very long gap starts a fresh window",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, ok(0, 1000), { cost: 5 }),
      consume(MONTH, ok(4, 1000, "normal")),
      consume(MONTH + 999, ok(3, 1)),
    ],
  },
  {
    name: "fractional clock",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(100.5, ok(0, 900), { cost: 5 }),
      consume(999.5, no(1, 0, 1)),
      consume(1000.5, ok(4, 1000)),
      consume(1999.75, ok(3, 1)),
    ],
  },
  {
    name: "refund gives units back within the window",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(100, ok(2, 900), { cost: 3 }),
      refund(100, 2, ok(4, 900)),
      refund(100, 10, ok(5, 0)),
      consume(100, ok(0, 900), { cost: 5 }),
      refund(1100, 1, ok(5, 0)), // the window has rolled: nothing left to give back
      consume(1100, ok(4, 900)),
    ],
  },
  {
    name: "reset forgets the key",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, ok(0, 1000, "warning"), { cost: 5 }),
      reset(0),
      consume(0, ok(4, 1000, "normal")),
      reset(10, { key: "never-seen" }),
      peek(10, ok(4, 990)),
    ],
  },
  {
    name: "several keys interleaved",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, ok(0, 1000), { key: "a", cost: 5 }),
      consume(0, ok(4, 1000), { key: "b" }),
      consume(100, no(900), { key: "a" }),
      consume(100, ok(3, 900), { key: "b" }),
      reset(200, { key: "a" }),
      consume(200, ok(4, 800), { key: "a" }),
      consume(1000, ok(4, 1000), { key: "b" }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// sliding_window: L = 5 per 1000 ms; estimate = prev·(1 − f) + curr.

const slidingWindow: Trace[] = [
  {
    name: "burst then weighted rollover",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(100, ok(4, 1900, "normal")),
      ...times(3, () => consume(100)),
      consume(100, ok(0, 1900, "warning")),
      consume(100, no(1100, 0, 1900)), // next window, once 5·(1 − f) + 1 ≤ 5: f = 0.2
      consume(1199, no(1, 0, 801)),
      consume(1200, ok(0, 1800, "warning")),
      consume(1500, ok(0, 1500)), // 5·0.5 + 1 + 1 = 4.5
      consume(2600, ok(3, 1400, "normal")), // 2·0.4 + 1 = 1.8
    ],
  },
  {
    name: "denial then exact retry at retryAfterMs",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(0, ok(0, 2000), { cost: 5 }),
      consume(500, no(700, 0, 1500)),
      consume(1200, ok(0, 1800)),
      consume(1300, no(100)), // within this window, once 5·(1 − f) ≤ 5 − 1 − 1: f = 0.4
      consume(1400, ok(0, 1600)),
    ],
  },
  {
    name: "cost above the limit never passes",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(0, no(NEVER, 5, 0), { cost: 6 }),
      consume(0, ok(0, 2000), { cost: 5 }),
      consume(0, no(NEVER, 0, 2000), { cost: 6 }),
    ],
  },
  {
    name: "peek with cost 0 and as-if costs changes nothing",
    limits: [perSecond("sliding_window")],
    steps: [
      peek(0, ok(5, 0, "normal")),
      consume(0, ok(2, 2000), { cost: 3 }),
      peek(0, ok(2, 2000)),
      peek(0, ok(0, 2000, "warning"), { cost: 2 }),
      peek(0, { allowed: false, remaining: 2, state: "throttled" }, { cost: 3 }),
      consume(0, ok(1, 2000, "normal")),
    ],
  },
  {
    name: "clock going backwards stays in the newest window",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(1500, ok(0, 1500), { cost: 5 }),
      consume(900, no(1300, 0, 2100)),
      consume(2199, no(1)),
      consume(2200, ok(0, 1800)),
    ],
  },
  {
    name: "a very long gap forgets both windows",
    limits: [perSecond("sliding_window")],
    steps: [consume(0, ok(0, 2000), { cost: 5 }), consume(MONTH, ok(4, 2000, "normal"))],
  },
  {
    name: "fractional clock",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(0.5, ok(0, 2000), { cost: 5 }), // resetAfterMs ⌈1999.5⌉
      consume(1100.25, no(100)), // 5·0.89975 + 1 > 5; passes at f = 0.2
      consume(1200, ok(0, 1800)),
    ],
  },
  {
    name: "refund gives units back from the current window",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(100, ok(2, 1900), { cost: 3 }),
      refund(100, 2, ok(4, 1900)),
      refund(100, 10, ok(5, 0)),
      consume(100, ok(0, 1900), { cost: 5 }),
      refund(1500, 5, ok(2, 500)), // the previous window's weight (2.5) is not refundable
    ],
  },
  {
    name: "reset forgets the key",
    limits: [perSecond("sliding_window")],
    steps: [consume(0, ok(0, 2000), { cost: 5 }), reset(0), consume(0, ok(4, 2000, "normal"))],
  },
  {
    name: "several keys interleaved",
    limits: [perSecond("sliding_window")],
    steps: [
      consume(0, ok(0, 2000), { key: "a", cost: 5 }),
      consume(0, ok(4, 2000), { key: "b" }),
      consume(500, no(700), { key: "a" }),
      consume(500, ok(3, 1500), { key: "b" }),
      consume(1200, ok(0, 1800), { key: "a" }),
      consume(1200, ok(2, 1800), { key: "b" }), // 2·0.8 + 1 = 2.6
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// sliding_log: L = 5 per 1000 ms; exact over (now − 1000, now].

const slidingLog: Trace[] = [
  {
    name: "burst then refill",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(100, ok(4, 1000, "normal")),
      ...times(3, () => consume(100)),
      consume(100, ok(0, 1000, "warning")),
      consume(100, no(1000, 0, 1000)),
      consume(1099, no(1, 0, 1)),
      consume(1100, ok(4, 1000, "normal")),
    ],
  },
  {
    name: "exact sliding: each admission leaves 1000 ms later",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(0, ok(4, 1000)),
      consume(200, ok(3, 1000)),
      consume(400, ok(2, 1000)),
      consume(600, ok(1, 1000)),
      consume(800, ok(0, 1000)),
      consume(900, no(100, 0, 900)),
      consume(1000, ok(0, 1000)),
      consume(1100, no(100, 0, 900)),
      consume(1199, no(1)),
      consume(1200, ok(0, 1000)),
    ],
  },
  {
    name: "costs above one leave together",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(0, ok(2, 1000), { cost: 3 }),
      consume(500, ok(0, 1000), { cost: 2 }),
      consume(600, no(400, 0, 900)),
      consume(1000, ok(0, 1000), { cost: 3 }),
      consume(1000, no(500, 0, 1000), { cost: 2 }), // the cost-2 entry leaves at 1500
    ],
  },
  {
    name: "cost above the limit never passes",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(0, no(NEVER, 5, 0), { cost: 6 }),
      consume(0, ok(0, 1000), { cost: 5 }),
      consume(0, no(NEVER, 0, 1000), { cost: 6 }),
    ],
  },
  {
    name: "peek with cost 0 and as-if costs changes nothing",
    limits: [perSecond("sliding_log")],
    steps: [
      peek(0, ok(5, 0, "normal")),
      consume(0, ok(2, 1000), { cost: 3 }),
      peek(100, ok(2, 900)),
      peek(100, ok(0, 1000, "warning"), { cost: 2 }),
      peek(100, no(900, 2, 900), { cost: 3 }),
      consume(100, ok(1, 1000, "normal")),
    ],
  },
  {
    name: "clock going backwards lets nothing leave early",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(1000, ok(0, 1000), { cost: 5 }),
      consume(500, no(1500, 0, 1500)),
      consume(1999, no(1)),
      consume(2000, ok(4, 1000)),
      consume(1500, ok(3, 1500)), // recorded at 2000, the newest time seen
      consume(2999, ok(2, 1000)),
    ],
  },
  {
    name: "a very long gap empties the log",
    limits: [perSecond("sliding_log")],
    steps: [consume(0, ok(0, 1000), { cost: 5 }), consume(MONTH, ok(4, 1000, "normal"))],
  },
  {
    name: "fractional clock",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(0.5, ok(0, 1000), { cost: 5 }),
      consume(1000.25, no(1, 0, 1)),
      consume(1000.5, ok(4, 1000)),
    ],
  },
  {
    name: "refund takes back the newest entries",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(100, ok(4, 1000)),
      consume(200, ok(3, 1000)),
      consume(300, ok(2, 1000)),
      refund(300, 2, ok(4, 800)),
      refund(300, 10, ok(5, 0)),
      consume(300, ok(0, 1000), { cost: 5 }),
    ],
  },
  {
    name: "reset forgets the key",
    limits: [perSecond("sliding_log")],
    steps: [consume(0, ok(0, 1000), { cost: 5 }), reset(0), consume(0, ok(4, 1000, "normal"))],
  },
  {
    name: "several keys interleaved",
    limits: [perSecond("sliding_log")],
    steps: [
      consume(0, ok(0, 1000), { key: "a", cost: 5 }),
      consume(0, ok(4, 1000), { key: "b" }),
      consume(500, no(500), { key: "a" }),
      consume(500, ok(3, 1000), { key: "b" }),
      consume(1000, ok(4, 1000), { key: "a" }),
      consume(1000, ok(3, 1000), { key: "b" }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// bucketed_window: L = 5 per 1000 ms in buckets of 100 ms (seed 001).

const bucketedWindow: Trace[] = [
  {
    name: "seed 001's worked trace",
    t0: 0,
    limits: [{ name: "rps", algorithm: "bucketed_window", limit: 5, periodMs: 1000, bucketMs: 100 }],
    steps: [
      consume(1592171101900, ok(4, 1000, "normal")), // bucket 15921711019
      consume(1592171101950, ok(3, 950)), // same bucket
      consume(1592171102013, ok(2, 987)), // bucket 15921711020
      consume(1592171102810, ok(1, 990)), // bucket 15921711028
      consume(1592171102850, ok(0, 950, "warning")), // same bucket: total = 5
      consume(1592171102890, no(10, 0, 910)), // total = 5 = rps: denied, queue unchanged
      consume(1592171102980, ok(1, 920, "warning")), // bucket …19 is outdated: total 3, then 4 (80%: stays warning)
    ],
  },
  {
    name: "seed 001's false positive: a bucket leaves whole",
    t0: 0,
    limits: [{ name: "rps", algorithm: "bucketed_window", limit: 1, periodMs: 1000, bucketMs: 100 }],
    steps: [
      consume(1592171101990, ok(0, 910)),
      consume(1592171102930, ok(0, 970)), // 940 ms later, yet allowed: bucket …19 is outdated
    ],
  },
  {
    name: "burst then rollover",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(100, ok(4, 1000, "normal")),
      ...times(3, () => consume(100)),
      consume(100, ok(0, 1000, "warning")),
      consume(150, no(950, 0, 950)),
      consume(1099, no(1, 0, 1)),
      consume(1100, ok(4, 1000, "normal")),
    ],
  },
  {
    name: "denial then exact retry at retryAfterMs",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(0, ok(4, 1000)),
      consume(250, ok(3, 950)),
      consume(450, ok(2, 950)),
      consume(650, ok(1, 950)),
      consume(850, ok(0, 950)),
      consume(950, no(50, 0, 850)),
      consume(1000, ok(0, 1000)),
      consume(1000, no(200, 0, 1000)),
      consume(1200, ok(0, 1000)),
    ],
  },
  {
    name: "cost above the limit never passes",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(0, no(NEVER, 5, 0), { cost: 6 }),
      consume(0, ok(0, 1000), { cost: 5 }),
      consume(0, no(NEVER, 0, 1000), { cost: 6 }),
    ],
  },
  {
    name: "peek with cost 0 and as-if costs changes nothing",
    limits: [perSecond("bucketed_window")],
    steps: [
      peek(0, ok(5, 0, "normal")),
      consume(0, ok(2, 1000), { cost: 3 }),
      peek(50, ok(2, 950)),
      peek(50, ok(0, 950, "warning"), { cost: 2 }),
      peek(50, no(950, 2, 950), { cost: 3 }),
      consume(150, ok(1, 950, "normal")),
    ],
  },
  {
    name: "clock going backwards lets nothing leave early",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(1500, ok(0, 1000), { cost: 5 }),
      consume(500, no(2000, 0, 2000)),
      consume(2499, no(1)),
      consume(2500, ok(4, 1000)),
    ],
  },
  {
    name: "a very long gap empties the queue",
    limits: [perSecond("bucketed_window")],
    steps: [consume(0, ok(0, 1000), { cost: 5 }), consume(MONTH, ok(4, 1000, "normal"))],
  },
  {
    name: "fractional clock",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(0.5, ok(0, 1000), { cost: 5 }), // resetAfterMs ⌈999.5⌉
      consume(999.5, no(1, 0, 1)),
      consume(1000.25, ok(4, 1000)),
    ],
  },
  {
    name: "refund takes back from the newest buckets",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(100, ok(3, 1000), { cost: 2 }),
      consume(200, ok(2, 1000)),
      refund(200, 2, ok(4, 900)),
      refund(200, 10, ok(5, 0)),
      consume(200, ok(0, 1000), { cost: 5 }),
    ],
  },
  {
    name: "reset forgets the key",
    limits: [perSecond("bucketed_window")],
    steps: [consume(0, ok(0, 1000), { cost: 5 }), reset(0), consume(0, ok(4, 1000, "normal"))],
  },
  {
    name: "several keys interleaved",
    limits: [perSecond("bucketed_window")],
    steps: [
      consume(0, ok(0, 1000), { key: "a", cost: 5 }),
      consume(0, ok(4, 1000), { key: "b" }),
      consume(500, no(500), { key: "a" }),
      consume(500, ok(3, 1000), { key: "b" }),
      consume(1000, ok(4, 1000), { key: "a" }),
      consume(1000, ok(3, 1000), { key: "b" }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// concurrency: L = 2 leases in flight, each living at most 1000 ms unless released.

const lease2 = [{ name: "in-flight", algorithm: "concurrency" as const, limit: 2, periodMs: 1000 }];

const concurrency: Trace[] = [
  {
    name: "acquire, release, acquire again",
    limits: lease2,
    steps: [
      acquire(0, "a", { ...ok(1, 1000, "normal"), leases: ["in-flight"] }),
      acquire(100, "b", { ...ok(0, 1000, "warning"), leases: ["in-flight"] }),
      acquire(200, "c", { ...no(800, 0, 900), leases: [] }),
      release(300, "a"),
      peek(300, ok(1, 800)),
      acquire(300, "d", ok(0, 1000)),
      release(400, "b"),
      release(400, "d"),
      release(400, "d"), // twice: harmless
      peek(400, ok(2, 0, "normal")),
    ],
  },
  {
    name: "unreleased leases expire after the period",
    limits: lease2,
    steps: [
      acquire(0, "a", ok(1, 1000)),
      acquire(0, "b", ok(0, 1000)),
      acquire(999, "c", no(1, 0, 1)),
      acquire(1000, "d", ok(1, 1000, "normal")),
      release(1000, "a"), // already expired: gives back nothing
      peek(1000, ok(1, 1000)),
      release(1000, "d"),
      peek(1000, ok(2, 0)),
    ],
  },
  {
    name: "limit of one",
    limits: [{ name: "mutex", algorithm: "concurrency", limit: 1, periodMs: 1000 }],
    steps: [
      acquire(0, "a", { ...ok(0, 1000, "warning"), leases: ["mutex"] }),
      acquire(100, "b", no(900, 0, 900)),
      release(200, "a"),
      acquire(200, "c", { ...ok(0, 1000), leases: ["mutex"] }),
      release(300, "c"),
      peek(300, ok(1, 0, "normal")),
    ],
  },
  {
    // A reset forgets the leases but not the last lease id: the lease taken again in the same millisecond gets a
    // new id, so the late release of the dropped lease frees nothing (it used to free the new holder's lease).
    name: "reset, then acquire again in the same millisecond: the dropped lease's release frees nothing",
    limits: [{ name: "mutex", algorithm: "concurrency", limit: 1, periodMs: 1000 }],
    steps: [
      acquire(5, "a", { ...ok(0, 1000, "warning"), leases: ["mutex"] }),
      reset(5),
      acquire(5, "b", { ...ok(0, 1000), leases: ["mutex"] }),
      release(5, "a"),
      acquire(5, "c", no(1000, 0, 1000)),
      release(6, "b"),
      acquire(6, "d", { ...ok(0, 1000), leases: ["mutex"] }),
    ],
  },
  {
    name: "cost above the limit never passes; costs above one",
    limits: lease2,
    steps: [
      acquire(0, "a", no(NEVER, 2, 0), { cost: 3 }),
      acquire(0, "b", ok(0, 1000), { cost: 2 }),
      acquire(500, "c", no(500, 0, 500)),
      release(600, "b"),
      acquire(600, "d", ok(1, 1000)),
    ],
  },
  {
    name: "peek with cost 0 and as-if costs takes no lease",
    limits: lease2,
    steps: [
      peek(0, ok(2, 0, "normal")),
      acquire(0, "a", ok(1, 1000)),
      peek(100, ok(1, 900)),
      peek(100, ok(0, 1000, "warning"), { cost: 1 }),
      peek(100, no(900, 1, 900), { cost: 2 }),
      acquire(100, "b", ok(0, 1000)),
    ],
  },
  {
    name: "clock going backwards expires nothing early",
    limits: lease2,
    steps: [
      acquire(1000, "a", ok(1, 1000)),
      acquire(500, "b", ok(0, 1500)), // lives until 1500 on the caller's clock
      acquire(400, "c", no(1100, 0, 1600)),
      acquire(1500, "d", ok(0, 1000)),
    ],
  },
  {
    name: "a very long gap expires every lease",
    limits: lease2,
    steps: [
      acquire(0, "a", ok(1, 1000)),
      acquire(0, "b", ok(0, 1000)),
      acquire(MONTH, "c", ok(1, 1000, "normal")),
      acquire(MONTH, "d", ok(0, 1000)),
    ],
  },
  {
    name: "fractional clock",
    limits: lease2,
    steps: [
      acquire(0.5, "a", ok(1, 1000)),
      acquire(0.75, "b", ok(0, 1000)),
      acquire(1000.25, "c", no(1, 0, 1)), // ⌈0.25⌉: a expires at 1000.5
      acquire(1000.5, "d", ok(0, 1000)),
    ],
  },
  {
    name: "refund is a no-op (capacity comes back through release)",
    limits: lease2,
    steps: [acquire(0, "a", ok(1, 1000)), refund(0, 1, ok(1, 1000)), acquire(0, "b", ok(0, 1000))],
  },
  {
    name: "reset forgets every lease",
    limits: lease2,
    steps: [
      acquire(0, "a", ok(1, 1000)),
      acquire(0, "b", ok(0, 1000)),
      reset(100),
      peek(100, ok(2, 0)),
      acquire(100, "c", ok(1, 1000)),
    ],
  },
  {
    name: "several keys interleaved",
    limits: lease2,
    steps: [
      acquire(0, "a1", ok(1, 1000), { key: "a" }),
      acquire(0, "a2", ok(0, 1000), { key: "a" }),
      acquire(0, "b1", ok(1, 1000), { key: "b" }),
      acquire(100, "a3", no(900), { key: "a" }),
      release(200, "a1", { key: "a" }),
      acquire(200, "b2", ok(0, 1000), { key: "b" }),
      acquire(200, "a4", ok(0, 1000), { key: "a" }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Limit changes: a second limiter with the same name and a lowered limit keeps each key's state (clamped to the
// new limit on touch), where a reset would admit the full new limit.

const lowered = (algorithm: AlgorithmId, extra: Partial<LimitSpecInput> = {}): LimitSpecInput[] => [
  perSecond(algorithm, 5, extra),
];

const limitChanges: Trace[] = [
  {
    name: "lowered limit keeps state",
    limits: [perSecond("gcra", 10)],
    steps: [
      consume(0, ok(2, 800), { cost: 8 }), // 800 ms ahead of schedule
      peek(0, ok(1, 800), { limits: lowered("gcra") }), // 800 ms ahead is 4 units at the new rate
      consume(0, ok(0, 1000, "warning")),
      consume(0, no(200)),
      consume(200, ok(0, 1000)),
    ],
  },
  ...(["token_bucket", "leaky_bucket"] as const).map(
    (algorithm): Trace => ({
      name: "lowered limit keeps state: the debt above the new burst must drain first",
      limits: [perSecond(algorithm, 10)],
      steps: [
        consume(0, ok(2, 800), { cost: 8 }),
        // 8 − 2 = 6 units used, above the new burst of 5: over the limit even for a peek
        peek(400, { allowed: false, remaining: 0, resetAfterMs: 1200 }, { limits: lowered(algorithm) }),
        consume(400, { allowed: false, retryAfterMs: 400 }),
        consume(601, no(199)), // 8 − 3.005 = 4.995 in the bucket
        consume(800, ok(0, 1000)),
      ],
    }),
  ),
  {
    name: "lowered limit keeps state, clamped to the new limit",
    limits: [perSecond("fixed_window", 10)],
    steps: [
      consume(100, ok(2, 900), { cost: 8 }),
      consume(200, no(800, 0, 800), { limits: lowered("fixed_window") }),
      consume(1000, ok(4, 1000)),
    ],
  },
  {
    name: "lowered limit keeps state, clamped to the new limit",
    limits: [perSecond("sliding_window", 10)],
    steps: [
      consume(100, ok(2, 1900), { cost: 8 }),
      consume(200, no(1000, 0, 1800), { limits: lowered("sliding_window") }),
      consume(1200, ok(0, 1800)),
    ],
  },
  {
    // The newest 5 entries are kept (the one at 100 folds into the one at 200): the newest, at 600, leaves at 1600.
    name: "lowered limit keeps state (the log keeps its newest entries)",
    limits: [perSecond("sliding_log", 10)],
    steps: [
      ...times(6, (i) => consume(100 * (i + 1), ok(9 - i, 1000))),
      consume(700, no(500, 0, 900), { limits: lowered("sliding_log") }),
      consume(1200, ok(0, 1000)),
    ],
  },
  // A ring that has wrapped holds its newest entries at the front of its cells: a changed capacity must re-lay it in
  // order, not read the old cells under the new one (which took an empty cell for the newest entry).
  {
    name: "raised limit after the ring wrapped keeps every entry in order",
    limits: [perSecond("sliding_log", 3)],
    steps: [
      consume(0, ok(2, 1000)),
      consume(100, ok(1, 1000)),
      consume(200, ok(0, 1000)),
      consume(1000, ok(0, 1000)), // the entry of 0 leaves, the ring wraps: the newest entry is in the first cell
      peek(1050, ok(7, 950), { limits: [perSecond("sliding_log", 10)] }), // 100, 200 and 1000 still count
      consume(1250, ok(8, 1000)), // 100 and 200 have left; 1000 still counts
      consume(1250, ok(0, 1000), { cost: 8 }),
      consume(1250, no(750, 0, 1000)), // not a tenth: 1000 leaves at 2000
      consume(2000, ok(0, 1000)),
    ],
  },
  {
    name: "lowered and raised again after the ring wrapped: the newest entries are kept, the others still count",
    limits: [perSecond("sliding_log", 5)],
    steps: [
      ...times(5, (i) => consume(100 * i, ok(4 - i, 1000))),
      consume(1000, ok(0, 1000)), // 0 leaves, the ring wraps
      consume(1100, ok(0, 1000)), // 100 leaves: 200, 300, 400, 1000, 1100 in the window
      // Three must leave for one more to pass under 3: the third oldest, at 400, leaves at 1400.
      consume(1150, no(250, 0, 950), { limits: [perSecond("sliding_log", 3)] }),
      // Raised again at once: 200 and 300 still count (folded into the entry of 400), five in the window.
      peek(1160, ok(0, 940), { limits: [perSecond("sliding_log", 5)] }),
      consume(1400, ok(2, 1000)), // 200, 300 and 400 have left: 1000, 1100 and this one
    ],
  },
  {
    name: "lengthened period after the ring wrapped keeps every bucket in order",
    limits: [{ name: "per-second", algorithm: "bucketed_window", limit: 100, periodMs: 300, bucketMs: 100 }],
    steps: [
      consume(0, ok(90, 300), { cost: 10 }),
      consume(100, ok(80, 300), { cost: 10 }),
      consume(200, ok(70, 300), { cost: 10 }),
      consume(300, ok(70, 300), { cost: 10 }), // the bucket of 0 leaves, the ring wraps
      // N = 10 buckets: those of 100, 200 and 300 count until 1100, 1200 and 1300
      peek(350, ok(70, 950), {
        limits: [
          { name: "per-second", algorithm: "bucketed_window", limit: 100, periodMs: 1000, bucketMs: 100 },
        ],
      }),
      consume(1050, ok(0, 950), { cost: 70 }),
      consume(1050, no(50, 0, 950)),
      consume(1100, ok(9, 1000)),
    ],
  },
  {
    name: "shortened period after the ring wrapped keeps the newest buckets",
    limits: [{ name: "per-second", algorithm: "bucketed_window", limit: 100, periodMs: 500, bucketMs: 100 }],
    steps: [
      ...times(5, (i) => consume(100 * i, ok(99 - i, 500))),
      consume(500, ok(95, 500)), // the bucket of 0 leaves, the ring wraps
      consume(600, ok(95, 500)),
      // N = 3: the buckets of 400, 500 and 600 count
      peek(650, ok(97, 250), {
        limits: [
          { name: "per-second", algorithm: "bucketed_window", limit: 100, periodMs: 300, bucketMs: 100 },
        ],
      }),
    ],
  },
  {
    name: "lowered limit keeps state",
    limits: [perSecond("bucketed_window", 10)],
    steps: [
      consume(100, ok(2, 1000), { cost: 8 }),
      consume(200, no(900, 0, 900), { limits: lowered("bucketed_window") }),
      consume(1100, ok(4, 1000)),
    ],
  },
  {
    name: "lowered limit keeps the first leases",
    limits: [{ name: "in-flight", algorithm: "concurrency", limit: 4, periodMs: 1000 }],
    steps: [
      acquire(0, "a", ok(3, 1000)),
      acquire(0, "b", ok(2, 1000)),
      acquire(0, "c", ok(1, 1000)),
      peek(100, ok(0, 900), {
        limits: [{ name: "in-flight", algorithm: "concurrency", limit: 2, periodMs: 1000 }],
      }),
      acquire(100, "d", no(900, 0, 900)),
      release(200, "a"),
      acquire(200, "e", ok(0, 1000)),
    ],
  },
  {
    // A limiter reconfigured while its calls are in flight: one batch reads the key under limit 5, cuts it to the
    // first 2 leases under limit 2, and takes a lease under limit 5 again, which must be counted whole.
    name: "limit lowered, then raised, between calls sent together: the lease taken is counted",
    limits: [perSecond("concurrency", 5, { name: "in-flight" })],
    steps: [
      ...times(4, (i) => acquire(i, `l${i}`, ok(4 - i, 1000))),
      peek(10, ok(1, 993)),
      peek(10, ok(0, 991, "warning"), {
        together: true,
        limits: [perSecond("concurrency", 2, { name: "in-flight" })],
      }),
      acquire(10, "e", ok(2, 1000, "normal"), {
        together: true,
        limits: [perSecond("concurrency", 5, { name: "in-flight" })],
      }),
      acquire(20, "f", ok(1, 1000)),
      acquire(20, "g", ok(0, 1000, "warning")),
      acquire(20, "h", no(980, 0, 1000)),
    ],
  },
  // A lengthened period under the same name: window and bucket ids are counted in units of the period (bucket),
  // so the per-second id read as minutes lies millennia ahead. More than one window (a period of buckets) ahead
  // cannot be a clock gone back: the key starts fresh in the new unit rather than staying denied for centuries.
  // The new windows are minutes, and T0 is 20 s into a minute: this window ends at 40 000.
  {
    name: "lengthened period: a window id of the shorter period starts fresh",
    limits: [perSecond("fixed_window", 2)],
    steps: [
      consume(100, ok(0, 900), { cost: 2 }),
      consume(200, no(800, 0, 800)),
      consume(300, ok(4, 39_700), { limits: [perSecond("fixed_window", 5, { periodMs: 60_000 })] }),
      consume(300, ok(0, 39_700), { cost: 4 }),
      consume(400, no(39_600, 0, 39_600)),
      consume(40_000, ok(4, 60_000)),
    ],
  },
  {
    name: "lengthened period: a window id of the shorter period starts fresh",
    limits: [perSecond("sliding_window", 2)],
    steps: [
      consume(100, ok(0, 1900), { cost: 2 }),
      consume(200, no(1300, 0, 1800)), // next window, once 2·(1 − f) + 1 ≤ 2: f = 0.5
      consume(300, ok(4, 99_700), { limits: [perSecond("sliding_window", 5, { periodMs: 60_000 })] }),
      consume(300, ok(0, 99_700), { cost: 4 }),
      consume(400, no(51_600, 0, 99_600)), // next window, once 5·(1 − f) + 1 ≤ 5: f = 0.2, at 52 000
      consume(52_000, ok(0, 108_000)),
    ],
  },
  {
    name: "lengthened period: bucket ids of the narrower width start an empty queue",
    limits: [perSecond("bucketed_window", 2)],
    steps: [
      consume(100, ok(0, 1000), { cost: 2 }),
      consume(200, no(900, 0, 900)),
      // 6 s buckets (N = 10 as before): the current one started at −2000, and leaves at 58 000
      consume(300, ok(4, 57_700), {
        limits: [perSecond("bucketed_window", 5, { periodMs: 60_000, bucketMs: 6000 })],
      }),
      consume(300, ok(0, 57_700), { cost: 4 }),
      consume(400, no(57_600, 0, 57_600)),
      consume(58_000, ok(4, 60_000)),
    ],
  },
  {
    name: "lengthened periods of a fixed and a sliding window together start fresh",
    topic: "multi-limit",
    limits: [
      { name: "fixed", algorithm: "fixed_window", limit: 2, periodMs: 1000 },
      { name: "sliding", algorithm: "sliding_window", limit: 2, periodMs: 1000 },
    ],
    steps: [
      consume(100, { allowed: true, policies: { fixed: ok(0, 900), sliding: ok(0, 1900) } }, { cost: 2 }),
      consume(200, { allowed: false, policies: { fixed: no(800, 0, 800), sliding: no(1300, 0, 1800) } }),
      consume(
        300,
        { allowed: true, policies: { fixed: ok(4, 39_700), sliding: ok(4, 99_700) } },
        {
          limits: [
            { name: "fixed", algorithm: "fixed_window", limit: 5, periodMs: 60_000 },
            { name: "sliding", algorithm: "sliding_window", limit: 5, periodMs: 60_000 },
          ],
        },
      ),
      consume(400, { allowed: false, policies: { fixed: no(39_600, 4, 39_600) } }, { cost: 5 }), // 1 + 5 > 5
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// The time range the library decides in: epoch ms from 0 to MAX_NOW_MS (2100-01-01T00:00:00Z). Before 0 the
// all-zero fresh state is not fresh (a gcra key never seen was denied); after it epoch times and lease ids lose
// the exactness the algorithms rely on. A call outside is refused, at the Limiter, whatever the store.

/** MAX_NOW_MS of src/core/time-math.ts (this module imports no code). */
const LAST_MS = 4_102_444_800_000;
const refused = { throws: "ERR_SLUICE_INVALID_ARGUMENT" } as const;

const timeRange: Trace[] = [
  {
    name: "a nowMs before 1970 or after 2099 is refused; the bounds themselves are decided at",
    topic: "time range",
    t0: 0,
    limits: [
      { name: "rate", algorithm: "gcra", limit: 5, periodMs: 1000 },
      { name: "log", algorithm: "sliding_log", limit: 5, periodMs: 1000 },
    ],
    steps: [
      consume(-5000, undefined, refused), // a gcra key never seen was denied here, retry in 4100 ms
      peek(-0.5, undefined, refused),
      refund(-1, 1, undefined, refused),
      reset(-1, refused),
      consume(0, { ...ok(4, 1000), policies: { rate: ok(4, 200), log: ok(4, 1000) } }),
      consume(LAST_MS, { ...ok(4, 1000), policies: { rate: ok(4, 200), log: ok(4, 1000) } }),
      consume(LAST_MS + 0.5, undefined, refused),
      consume(LAST_MS + 86_400_000, undefined, refused),
      peek(LAST_MS, { ...ok(4, 1000), policies: { rate: ok(4, 200) } }),
    ],
  },
  {
    name: "leases near the end of the range keep distinct ids: a late release does not free a new holder",
    topic: "time range",
    t0: LAST_MS - 1000,
    limits: [{ name: "mutex", algorithm: "concurrency", limit: 1, periodMs: 60_000 }],
    steps: [
      acquire(0, "a", { ...ok(0, 60_000), leases: ["mutex"] }),
      reset(0),
      acquire(0, "b", { ...ok(0, 60_000), leases: ["mutex"] }),
      release(0, "a"), // the lease the reset dropped: must not free b's
      acquire(0, "c", { ...no(60_000, 0, 60_000), leases: [] }),
      acquire(1001, "d", undefined, refused), // past 2099: refused
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Cross-cutting traces.

const crossCutting: Trace[] = [
  {
    name: "2/s gcra + 5/min fixed_window: a denial by either consumes from neither",
    limits: [
      { name: "per-second", algorithm: "gcra", limit: 2, periodMs: 1000 },
      { name: "per-minute", algorithm: "fixed_window", limit: 5, periodMs: 60_000 }, // T0 is 20 s into a minute
    ],
    steps: [
      consume(0, {
        ...ok(1, 500),
        policy: "per-second",
        policies: { "per-second": ok(1, 500), "per-minute": ok(4, 40_000) },
      }),
      consume(0, { ...ok(0, 1000), policy: "per-second", policies: { "per-minute": ok(3, 40_000) } }),
      consume(0, {
        ...no(500, 0, 1000),
        policy: "per-second",
        policies: { "per-second": no(500, 0, 1000), "per-minute": ok(3, 40_000, "normal") },
      }),
      consume(500, { ...ok(0, 1000), policies: { "per-minute": ok(2, 39_500) } }),
      consume(1500, { ...ok(1, 38_500), policy: "per-minute", policies: { "per-second": ok(1, 500) } }),
      consume(3000, {
        ...ok(0, 37_000, "warning"),
        policy: "per-minute",
        policies: { "per-second": ok(1, 500) },
      }),
      consume(5000, {
        ...no(35_000, 0, 35_000),
        policy: "per-minute",
        policies: { "per-second": ok(2, 0, "normal"), "per-minute": no(35_000, 0, 35_000) },
      }),
      consume(5000, { allowed: false, policies: { "per-second": ok(2, 0) } }),
      consume(40_000, {
        ...ok(1, 500),
        policy: "per-second",
        policies: { "per-minute": ok(4, 60_000, "normal") },
      }),
      peek(40_000, { ...ok(1, 500), policies: { "per-minute": ok(4, 60_000) } }),
    ],
  },
  {
    name: "three limits, cost and refund apply to all",
    limits: [
      { name: "burst", algorithm: "token_bucket", limit: 10, periodMs: 1000, burst: 4 },
      { name: "log", algorithm: "sliding_log", limit: 6, periodMs: 1000 },
      { name: "window", algorithm: "sliding_window", limit: 8, periodMs: 2000 },
    ],
    steps: [
      consume(
        0,
        { ...ok(0, 400), policy: "burst", policies: { log: ok(2, 1000), window: ok(4, 4000) } },
        { cost: 4 },
      ),
      consume(50, { ...no(50), policy: "burst", policies: { log: ok(2, 950), window: ok(4, 3950) } }),
      refund(50, 2, { policies: { burst: ok(2, 150), log: ok(4, 950), window: ok(6, 3950) } }),
      consume(
        200,
        { allowed: true, policies: { burst: ok(1, 300), log: ok(1, 1000), window: ok(3, 3800) } },
        { cost: 3 },
      ),
      consume(
        300,
        { ...no(700), policy: "log", policies: { burst: { allowed: true }, window: { allowed: true } } },
        { cost: 2 },
      ),
    ],
  },
  {
    name: "concurrency + gcra: a denial takes no lease and consumes no rate",
    topic: "multi-limit",
    limits: [
      { name: "in-flight", algorithm: "concurrency", limit: 2, periodMs: 10_000 },
      { name: "rate", algorithm: "gcra", limit: 3, periodMs: 1000 },
    ],
    steps: [
      acquire(0, "a", { ...ok(1, 10_000), leases: ["in-flight"], policies: { rate: ok(2) } }),
      acquire(0, "b", { ...ok(0, 10_000), leases: ["in-flight"], policies: { rate: ok(1) } }),
      acquire(0, "c", {
        ...no(10_000),
        policy: "in-flight",
        leases: [],
        policies: { rate: ok(1) },
      }),
      release(0, "a"),
      acquire(0, "d", { allowed: true, leases: ["in-flight"], policies: { rate: ok(0, 1000) } }),
      release(0, "b"),
      release(0, "d"),
      acquire(0, "e", {
        ...no(334),
        policy: "rate",
        leases: [],
        policies: { "in-flight": ok(2, 0), rate: no(334, 0, 1000) },
      }),
      acquire(334, "f", { allowed: true, leases: ["in-flight"], policies: { "in-flight": ok(1, 10_000) } }),
      release(400, "f"),
      peek(400, { policies: { "in-flight": ok(2, 0) } }),
    ],
  },
  {
    name: "warning above 80% used, back to normal only below 70%",
    topic: "warning",
    limits: [{ name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 }],
    steps: [
      consume(0, ok(1, 900, "warning"), { cost: 9 }), // 90% used
      consume(200, ok(2, 800, "warning")), // 80%: not below 70%, stays warning
      consume(400, ok(3, 700, "warning")), // 70%: still not below
      consume(600, ok(4, 600, "normal")), // 60%: back to normal
      consume(650, ok(3, 650, "normal")), // 70%: not above 80%, stays normal
      consume(660, ok(2, 740, "normal")), // 80%: not above 80%
      consume(670, ok(1, 830, "warning")), // 90%
      peek(670, ok(1, 830, "warning")),
      consume(670, no(30, 1, 830), { cost: 2 }),
      consume(700, ok(0, 1000, "warning"), { cost: 2 }),
    ],
  },
  {
    name: "a fresh window carries no warning from the previous one",
    topic: "warning",
    limits: [{ name: "per-second", algorithm: "fixed_window", limit: 10, periodMs: 1000 }],
    steps: [
      consume(0, ok(1, 1000, "warning"), { cost: 9 }),
      peek(500, ok(1, 500, "warning")),
      consume(1000, ok(2, 1000, "normal"), { cost: 8 }), // 80% of a fresh window: not above 80%
      consume(1000, ok(1, 1000, "warning")),
      reset(1000),
      consume(1000, ok(2, 1000, "normal"), { cost: 8 }),
    ],
  },
  {
    // A denial changes no state, but a state back to fresh has no history: the flag goes at that touch, so a clock
    // then gone back into the hysteresis band (3 left: not above `leave`) reads normal, not a warning kept.
    name: "a denial of a state back to fresh drops its warning",
    topic: "warning",
    limits: [{ name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000 }],
    steps: [
      consume(1000, ok(1, 900, "warning"), { cost: 9 }),
      consume(1950, no(NEVER, 10, 0), { cost: 11 }),
      consume(1300, ok(3, 700, "normal")),
    ],
  },
  ...(["gcra", "token_bucket", "leaky_bucket"] as const).flatMap((algorithm): Trace[] => [
    {
      // Usage is against the capacity `remaining` counts down from, the burst: 1 used of a burst of 10 is 10%
      // (against the limit of 100, remaining 9 read as 91% used).
      name: `${algorithm}: a burst below the limit is the capacity`,
      topic: "warning",
      limits: [{ name: "per-second", algorithm, limit: 100, periodMs: 1000, burst: 10 }], // one unit per 10 ms
      steps: [
        consume(0, ok(9, 10, "normal")), // 10% of the burst used
        consume(0, ok(2, 80, "normal"), { cost: 7 }), // 80%: not above 80%
        consume(0, ok(1, 90, "warning")), // 90%
        consume(20, ok(2, 80, "warning")), // 80%: not below 70%, stays warning
        consume(50, ok(4, 60, "normal")), // 60%: back to normal
      ],
    },
    {
      // 95 used of a burst of 100 is 95% (against the limit of 10, remaining 5 read as nothing used).
      name: `${algorithm}: a burst above the limit is the capacity`,
      topic: "warning",
      limits: [{ name: "per-second", algorithm, limit: 10, periodMs: 1000, burst: 100 }], // one unit per 100 ms
      steps: [
        consume(0, ok(5, 9500, "warning"), { cost: 95 }), // 95% of the burst used
        consume(2500, ok(29, 7100, "warning")), // 71%: not below 70%, stays warning
        consume(2700, ok(30, 7000, "warning")), // 70%: still not below
        consume(2900, ok(31, 6900, "normal")), // 69%: back to normal
      ],
    },
  ]),
  {
    name: "README quick start: 10/s with a burst of 20 warns above 80% of the burst used",
    topic: "warning",
    limits: [{ name: "per-second", algorithm: "gcra", limit: 10, periodMs: 1000, burst: 20 }],
    steps: [
      consume(0, ok(4, 1600, "normal"), { key: "a", cost: 16 }), // 80%: not above 80%
      consume(0, ok(3, 1700, "warning"), { key: "b", cost: 17 }), // 85%
    ],
  },
  {
    // The headline is the limit with the least remaining (per-second, 5 or 9 left), but the state is the worst of
    // every limit's: per-100s has 15 or 14 of 100 left, above 80% used.
    name: "the top-level state is the worst over every limit, not the headline's",
    topic: "warning",
    limits: [
      { name: "per-second", algorithm: "fixed_window", limit: 10, periodMs: 1000 },
      { name: "per-100s", algorithm: "fixed_window", limit: 100, periodMs: 100_000 },
    ],
    steps: [
      ...times(8, (i) => consume(i * 1000, { allowed: true }, { cost: 10 })),
      consume(
        8000,
        {
          ...ok(5, 1000, "warning"),
          policy: "per-second",
          policies: { "per-second": ok(5, 1000, "normal"), "per-100s": ok(15, 92_000, "warning") },
        },
        { cost: 5 },
      ),
      consume(9000, {
        ...ok(9, 1000, "warning"),
        policy: "per-second",
        policies: { "per-second": ok(9, 1000, "normal"), "per-100s": ok(14, 91_000, "warning") },
      }),
      consume(9000, { ...no(1000), policy: "per-second" }, { cost: 10 }), // a denial is throttled, as before
    ],
  },
  {
    name: "per-policy states: one limit in warning, another normal",
    topic: "warning",
    limits: [
      { name: "small", algorithm: "fixed_window", limit: 5, periodMs: 1000 },
      { name: "large", algorithm: "fixed_window", limit: 100, periodMs: 1000 },
    ],
    steps: [
      consume(
        0,
        { ...ok(0, 1000, "warning"), policy: "small", policies: { large: ok(95, 1000, "normal") } },
        { cost: 5 },
      ),
      consume(0, {
        ...no(1000),
        policy: "small",
        policies: { small: no(1000), large: ok(95, 1000, "normal") },
      }),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// A refund gives back units in use: a key with none (never stored, e.g. only ever denied; or idle, back to fresh)
// is left as it is, in every store, whether it kept the idle state or dropped it. Were the refund applied to such a
// state, it would carry the refund's time to the steps after it: a bucket's last time, a window's id, which a
// clock that lags then sees (here a key's next consume is 50 ms, or a window, behind the refund).

const idleRefunds: Trace[] = [
  {
    name: "refund of a key never stored (its consume was denied) changes nothing",
    limits: [perSecond("token_bucket", 10, { burst: 4 })], // one unit per 100 ms
    steps: [
      consume(0, no(NEVER, 4, 0), { cost: 9 }),
      refund(100, 1, ok(4, 0)),
      consume(50, ok(0, 400, "warning"), { cost: 4 }),
      consume(150, ok(0, 400)), // one unit drained since 50
    ],
  },
  {
    name: "refund of an idle key changes nothing",
    limits: [perSecond("token_bucket", 10, { burst: 4 })],
    steps: [
      consume(0, ok(3, 100, "normal")),
      refund(1000, 1, ok(4, 0)), // idle since 100
      consume(950, ok(0, 400, "warning"), { cost: 4 }),
      consume(1050, ok(0, 400)),
    ],
  },
  {
    name: "refund of a key never stored (its consume was denied) changes nothing",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, no(NEVER, 5, 0), { cost: 9 }),
      refund(1000, 1, ok(5, 0)),
      consume(500, ok(0, 500, "warning"), { cost: 5 }), // counted in the window of 500
      consume(1000, ok(4, 1000, "normal")),
    ],
  },
  {
    name: "refund of an idle key changes nothing",
    limits: [perSecond("fixed_window")],
    steps: [
      consume(0, ok(4, 1000, "normal")),
      refund(2000, 1, ok(5, 0)), // idle since 1000
      consume(1500, ok(0, 500, "warning"), { cost: 5 }),
      consume(2000, ok(4, 1000, "normal")),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Several items in one call (an engine's call for a request several rules match), and calls sent together (which
// a batching store sends in one round trip): a denied call consumes from none of its items, whatever their state,
// and the calls after it, in its batch or later, see none of it.

const ringsAndQuota = {
  limits: [
    { name: "log", algorithm: "sliding_log" as const, limit: 5, periodMs: 1000 },
    { name: "buckets", algorithm: "bucketed_window" as const, limit: 5, periodMs: 1000, bucketMs: 100 },
  ],
  sets: {
    inflight: [{ name: "in-flight", algorithm: "concurrency" as const, limit: 5, periodMs: 1000 }],
    quota: [{ name: "per-minute", algorithm: "fixed_window" as const, limit: 3, periodMs: 60_000 }],
  },
};
/** Allowed by its own limits, in a call another item denied: reported on the unchanged state, as for cost 0. */
const own = (remaining: number): PolicyExpect => ({ allowed: true, remaining });
const rings = (e: PolicyExpect): StepExpect => ({ policies: { log: e, buckets: e } });

const severalItems: Trace[] = [
  {
    // The denied call finds the warning flags of an idle state to clear, so it writes these keys: what it writes
    // must be the states as they were.
    name: "a denied call consumes from none of its items: ring limits whose warning lapsed",
    topic: "multi-item",
    ...ringsAndQuota,
    steps: [
      consume(0, rings(ok(0, 1000, "warning")), {
        cost: 5,
        with: [{ set: "inflight", expect: { ...ok(0, 1000, "warning"), leases: ["in-flight"] } }],
      }),
      consume(
        2000,
        { allowed: false, ...rings(own(5)) },
        {
          with: [
            { set: "inflight", expect: { allowed: false, leases: [], policies: { "in-flight": own(5) } } },
            { set: "quota", cost: 9, expect: no(NEVER, 3, 0) },
          ],
        },
      ),
      peek(2000, rings(ok(5, 0, "normal")), { with: [{ set: "inflight", expect: ok(5, 0, "normal") }] }),
      consume(2000, rings(ok(4, 1000)), { with: [{ set: "inflight", expect: ok(4, 1000) }] }),
    ],
  },
  {
    name: "a denied call consumes from none of its items: calls sent with it see none of it",
    topic: "multi-item",
    ...ringsAndQuota,
    steps: [
      consume(
        0,
        { allowed: false, ...rings(own(5)) },
        { with: [{ set: "inflight" }, { set: "quota", cost: 9 }] },
      ),
      consume(0, rings(ok(4, 1000)), { together: true, with: [{ set: "inflight", expect: ok(4, 1000) }] }),
      consume(0, rings(ok(3, 1000)), { together: true, with: [{ set: "inflight", expect: ok(3, 1000) }] }),
      peek(0, rings(ok(3, 1000)), { with: [{ set: "inflight", expect: ok(3, 1000) }] }),
    ],
  },
];

/** Every hand-written trace, with expectations on the key steps. */
export const traces: readonly Trace[] = Object.freeze([
  ...bucketFamily("gcra"),
  ...bucketFamily("token_bucket"),
  ...bucketFamily("leaky_bucket"),
  ...gcraPrecision,
  ...fixedWindow,
  ...slidingWindow,
  ...slidingLog,
  ...bucketedWindow,
  ...concurrency,
  ...limitChanges,
  ...timeRange,
  ...crossCutting,
  ...idleRefunds,
  ...severalItems,
]);

// ---------------------------------------------------------------------------------------------------------------
// Seeded random traces: no expectations, compared step by step with the reference.

/** The keys {@link RandomTraceOptions} accepts. */
const RANDOM_TRACE_KEYS: readonly string[] = ["seed", "steps", "keys", "name"];

/** Options of {@link randomTrace}. */
export interface RandomTraceOptions {
  /** Seed of the generator. */
  readonly seed: number;
  /** Number of steps. @default 300 */
  readonly steps?: number;
  /** Number of distinct keys. @default 3 */
  readonly keys?: number;
  /** Trace name. @default `random (seed N)` */
  readonly name?: string;
}

/**
 * Generates a reproducible trace of mixed operations, keys, costs and gaps (small, zero, fractional, backwards,
 * long) over `limits`. Concurrency limits use acquire/release; leases are released only while still live.
 */
export function randomTrace(limits: readonly LimitSpecInput[], options: RandomTraceOptions): Trace {
  checkOptions("randomTrace", "options", options, RANDOM_TRACE_KEYS);
  const rnd = createRandom(options.seed);
  const count = options.steps ?? 300;
  const keyCount = options.keys ?? 3;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const concurrent = limits.some((l) => l.algorithm === "concurrency");
  const whole = limits.some(
    (l) => !["gcra", "token_bucket", "leaky_bucket", undefined].includes(l.algorithm),
  );
  const period = Math.min(...limits.map((l) => l.periodMs ?? 1000));
  const maxCost = Math.max(...limits.map((l) => Math.max(l.limit, l.burst ?? 0)));
  const leaseTtl = Math.min(
    ...limits.filter((l) => l.algorithm === "concurrency").map((l) => l.periodMs ?? 1000),
  );
  const cost = (): number => {
    const r = rnd();
    if (r < 0.6) return 1;
    if (r < 0.7) return 0;
    if (r < 0.75) return Math.ceil(maxCost) + int(0, 2); // never passes
    if (!whole && r < 0.85) return pick([0.25, 0.5, 1.5, 2.75]);
    return int(1, Math.max(1, Math.floor(maxCost)));
  };
  const steps: Step[] = [];
  const held = new Map<string, { key: string; expiresAt: number }>();
  let t = 0;
  let maxT = 0;
  let nextLease = 0;
  for (let i = 0; i < count; i++) {
    const g = rnd();
    if (g < 0.2) t += 0;
    else if (g < 0.6) t += int(1, Math.ceil(period / 5));
    else if (g < 0.7) t += int(0, period) + pick([0.25, 0.5, 0.75]);
    else if (g < 0.8) t = Math.max(0, t - int(1, period));
    else if (g < 0.95) t += int(Math.floor(period / 2), period * 2);
    else t += int(period * 10, period * 100_000);
    t = Math.round(t * 4) / 4;
    if (t > maxT) maxT = t;
    for (const [name, l] of held) if (maxT >= l.expiresAt - 1) held.delete(name); // may be gone: never release
    const key = `k${int(1, keyCount)}`;
    const o = rnd();
    if (concurrent) {
      if (o < 0.5) {
        const name = `l${++nextLease}`;
        const r = rnd();
        const c = r < 0.75 ? 1 : r < 0.8 ? 0 : r < 0.85 ? Math.ceil(maxCost) + 1 : int(1, Math.ceil(maxCost));
        steps.push(acquire(t, name, undefined, { key, cost: c }));
        held.set(name, { key, expiresAt: t + leaseTtl });
      } else if (o < 0.8 && held.size > 0) {
        const name = pick([...held.keys()]);
        const l = held.get(name)!;
        held.delete(name);
        steps.push(release(t, name, { key: l.key }));
      } else if (o < 0.93) {
        steps.push(peek(t, undefined, { key, cost: int(0, 2) }));
      } else if (o < 0.97) {
        steps.push(refund(t, 1, undefined, { key }));
      } else {
        steps.push(reset(t, { key }));
        for (const [name, l] of held) if (l.key === key) held.delete(name);
      }
    } else if (o < 0.65) {
      steps.push(consume(t, undefined, { key, cost: cost() }));
    } else if (o < 0.8) {
      steps.push(peek(t, undefined, { key, cost: rnd() < 0.5 ? 0 : cost() }));
    } else if (o < 0.97) {
      steps.push(refund(t, whole ? int(1, 3) : pick([0.5, 1, 2]), undefined, { key }));
    } else {
      steps.push(reset(t, { key }));
    }
  }
  return { name: options.name ?? `random (seed ${options.seed}, ${count} steps)`, limits, steps };
}

/** The random traces of the suite: per algorithm a few hundred steps, plus mixed limit sets. */
export const randomTraces: readonly Trace[] = Object.freeze([
  randomTrace([perSecond("gcra", 5, { burst: 8 })], { seed: 101 }),
  randomTrace([{ name: "slow", algorithm: "gcra", limit: 2.5, periodMs: 1000 }], { seed: 102 }),
  randomTrace([perSecond("token_bucket", 10, { burst: 4 })], { seed: 201 }),
  randomTrace([{ name: "slow", algorithm: "token_bucket", limit: 1.5, periodMs: 700 }], { seed: 202 }),
  randomTrace([perSecond("leaky_bucket", 4)], { seed: 301 }),
  randomTrace([perSecond("fixed_window", 5)], { seed: 401 }),
  randomTrace([perSecond("sliding_window", 6)], { seed: 501 }),
  randomTrace([perSecond("sliding_log", 5)], { seed: 601 }),
  randomTrace([perSecond("bucketed_window", 5)], { seed: 701 }),
  randomTrace(
    [{ name: "per-second", algorithm: "bucketed_window", limit: 7, periodMs: 1000, bucketMs: 250 }],
    {
      seed: 702,
    },
  ),
  // Large states a store may hold as a growing prefix (the memory store starts a key at 16 floats): logs, queues
  // and leases long enough to grow, wrap round and shrink back.
  randomTrace([perSecond("sliding_log", 40)], { seed: 603, steps: 600, keys: 2 }),
  randomTrace([{ name: "per-3s", algorithm: "bucketed_window", limit: 25, periodMs: 3000, bucketMs: 100 }], {
    seed: 703,
    steps: 600,
    keys: 2,
  }),
  randomTrace([{ name: "in-flight", algorithm: "concurrency", limit: 12, periodMs: 1000 }], {
    seed: 803,
    steps: 600,
    keys: 2,
  }),
  randomTrace([{ name: "in-flight", algorithm: "concurrency", limit: 3, periodMs: 1000 }], { seed: 801 }),
  randomTrace([{ name: "mutex", algorithm: "concurrency", limit: 1, periodMs: 500 }], { seed: 802 }),
  randomTrace(
    [
      { name: "per-second", algorithm: "gcra", limit: 3, periodMs: 1000 },
      { name: "per-ten", algorithm: "fixed_window", limit: 10, periodMs: 10_000 },
      { name: "log", algorithm: "sliding_log", limit: 4, periodMs: 2000 },
    ],
    { seed: 901, name: "random gcra + fixed_window + sliding_log (seed 901, 300 steps)" },
  ),
  randomTrace(
    [
      { name: "in-flight", algorithm: "concurrency", limit: 2, periodMs: 2000 },
      { name: "rate", algorithm: "token_bucket", limit: 4, periodMs: 1000 },
    ],
    { seed: 902, name: "random concurrency + token_bucket (seed 902, 300 steps)" },
  ),
  randomTrace(
    [
      { name: "log", algorithm: "sliding_log", limit: 30, periodMs: 2000 },
      { name: "in-flight", algorithm: "concurrency", limit: 9, periodMs: 1000 },
    ],
    { seed: 903, steps: 600, keys: 2, name: "random sliding_log + concurrency (seed 903, 600 steps)" },
  ),
]);

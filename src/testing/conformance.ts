/**
 * The conformance suite: replays every trace against a store through a real Limiter, step by step with
 * explicit time, and demands the same decisions as the {@link ReferenceStore} replaying the same trace, field
 * by field (allowed, remaining, resetAfterMs, retryAfterMs, state, policy, per-policy statuses, lease names),
 * plus each trace's hand-written expectations. A step with items of other limit sets (`Step.with`) is one
 * `Store.apply` call of all of them; steps sent together (`Step.together`) are all called before any answer is
 * awaited, so a batching store sends them in one round trip. Framework-agnostic: pass your test runner's
 * `describe`/`it`.
 *
 * ```ts
 * import { describe, it } from "vitest";
 * import { runStoreConformance } from "sluice/testing";
 * runStoreConformance({ name: "my store", createStore: () => myStore(), test: { describe, it } });
 * ```
 */
import { randomUUID } from "node:crypto";
import { createLimitSet, type LimitSet } from "../algorithms/limit-set.js";
import { checkOptions } from "../core/arguments.js";
import type { Decision, PolicyStatus } from "../core/decision.js";
import { type LimitSpecInput, parseLimitSpec } from "../core/limit-spec.js";
import { ManualClock } from "../core/manual-clock.js";
import { createLimiter, type Lease, type Limiter } from "../engine/limiter.js";
import type { Store, StoreItem } from "../stores/store.js";
import { ReferenceStore } from "./reference-store.js";
import {
  type PolicyExpect,
  randomTraces,
  type Step,
  T0,
  type Trace,
  traces,
  traceTestName,
} from "./traces.js";

/** A test function in the shape of vitest's / jest's / mocha's `it`, with `it.skip`. */
export interface ConformanceIt {
  /** Registers a test. */
  (name: string, fn: () => Promise<void>, timeoutMs?: number): void;
  /** Registers a skipped test (shown as skipped, never silent). */
  skip: (name: string, fn: () => Promise<void>) => void;
}

/** The test runner functions the suite registers its tests with. */
export interface ConformanceTestApi {
  /** Groups tests. */
  readonly describe: (name: string, fn: () => void) => void;
  /** Registers one test. */
  readonly it: ConformanceIt;
  /** Runs once before the group's tests (needed only with `shareStore`). */
  readonly beforeAll?: (fn: () => Promise<void>, timeoutMs?: number) => void;
  /** Runs once after the group's tests (needed only with `shareStore`). */
  readonly afterAll?: (fn: () => Promise<void>, timeoutMs?: number) => void;
}

/** Tests skipped for a stated reason; the reason is part of each skipped test's name. */
export interface ConformanceSkip {
  /** Why, e.g. "capacity 1 evicts between keys". Required and non-empty. */
  readonly reason: string;
  /** Full test names (`<topic>: <trace name>`, see {@link traceTestName}) to skip. */
  readonly tests: readonly string[];
}

/** Options of {@link runStoreConformance}. */
export interface ConformanceOptions {
  /** The store's name in the describe block: `conformance: <name>`. */
  readonly name: string;
  /** Creates the store under test: once per trace, or once for all with `shareStore`. */
  readonly createStore: () => Store | Promise<Store>;
  /** Create one store for every trace (in `beforeAll`) instead of one per trace. @default false */
  readonly shareStore?: boolean;
  /** Closes a store after use. @default store.close() */
  readonly closeStore?: (store: Store) => Promise<void>;
  /** Tests to skip, each group with its reason. Naming a test that does not exist is an error. */
  readonly skip?: readonly ConformanceSkip[];
  /** The traces to replay. @default [...traces, ...randomTraces] */
  readonly traces?: readonly Trace[];
  /**
   * Prefix of the limiter names (store namespaces): each trace gets `<prefix>:<index>`, so traces never share
   * keys even in one shared store. @default `sluice-conformance-<random>`, unique per call
   */
  readonly namespacePrefix?: string;
  /** Per-test timeout in milliseconds, passed to `it`. */
  readonly timeoutMs?: number;
  /** The test runner: `{ describe, it }` (and `beforeAll`/`afterAll` with `shareStore`). */
  readonly test: ConformanceTestApi;
}

/** Registers one test per trace (named `<topic>: <trace name>`) that replays it on a store from `createStore`. */
export function runStoreConformance(options: ConformanceOptions): void {
  checkOptions("runStoreConformance", "options", options, CONFORMANCE_KEYS);
  for (const [i, s] of (options.skip ?? []).entries()) {
    checkOptions("runStoreConformance", `skip[${i}]`, s, SKIP_KEYS);
  }
  const { test } = options;
  const list = options.traces ?? [...traces, ...randomTraces];
  const names = list.map(traceTestName);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new Error(`runStoreConformance: two traces are named "${duplicate}"`);
  const skipped = new Map<string, string>();
  for (const s of options.skip ?? []) {
    if (typeof s.reason !== "string" || s.reason.trim() === "") {
      throw new Error(
        `runStoreConformance(${options.name}): every skip needs a reason (tests: ${s.tests.join(", ")})`,
      );
    }
    for (const t of s.tests) {
      if (!names.includes(t))
        throw new Error(`runStoreConformance(${options.name}): skip names an unknown test "${t}"`);
      skipped.set(t, s.reason);
    }
  }
  if (options.shareStore && (test.beforeAll === undefined || test.afterAll === undefined)) {
    throw new Error("runStoreConformance: shareStore needs test.beforeAll and test.afterAll");
  }
  const prefix = options.namespacePrefix ?? `sluice-conformance-${randomUUID().slice(0, 8)}`;
  const close = options.closeStore ?? ((s: Store) => s.close());

  test.describe(`conformance: ${options.name}`, () => {
    let shared: Store | undefined;
    if (options.shareStore) {
      test.beforeAll!(async () => {
        shared = await options.createStore();
      });
      test.afterAll!(async () => {
        if (shared !== undefined) await close(shared);
      });
    }
    list.forEach((trace, index) => {
      const name = names[index];
      const reason = skipped.get(name);
      if (reason !== undefined) {
        test.it.skip(`${name} [skipped: ${reason}]`, async () => {});
        return;
      }
      test.it(
        name,
        async () => {
          const store = shared ?? (await options.createStore());
          try {
            const { mismatches } = await replayTrace(store, trace, { namespace: `${prefix}:${index}` });
            if (mismatches.length > 0) {
              const shown = mismatches.slice(0, 25);
              const more =
                mismatches.length > shown.length ? `\n… and ${mismatches.length - shown.length} more` : "";
              throw new Error(
                `${mismatches.length} mismatch(es) on the ${store.name} store:\n${shown.join("\n")}${more}`,
              );
            }
          } finally {
            if (shared === undefined) await close(store);
          }
        },
        options.timeoutMs,
      );
    });
  });
}

/** The keys {@link ConformanceOptions} accepts. */
const CONFORMANCE_KEYS: readonly string[] = [
  "name",
  "createStore",
  "shareStore",
  "closeStore",
  "skip",
  "traces",
  "namespacePrefix",
  "timeoutMs",
  "test",
];
/** The keys a {@link ConformanceSkip} accepts. */
const SKIP_KEYS: readonly string[] = ["reason", "tests"];
/** The keys {@link ReplayOptions} accepts. */
const REPLAY_KEYS: readonly string[] = ["namespace", "compare"];

/** Options of {@link replayTrace}. */
export interface ReplayOptions {
  /** The limiter name (store namespace); use a unique one per trace on a shared store. @default derived from the trace */
  readonly namespace?: string;
  /** Also replay on a fresh {@link ReferenceStore} and compare every decision. @default true */
  readonly compare?: boolean;
}

/** What {@link replayTrace} found: one human-readable line per difference (empty: the store conforms). */
export interface ReplayResult {
  /** Each names the trace, the step index, the time and the differing field with both values. */
  readonly mismatches: string[];
}

/**
 * Replays `trace` on `store` through a Limiter with explicit time, checking the trace's expectations and (unless
 * `compare: false`) every decision against the {@link ReferenceStore}. Does not close `store`.
 */
export async function replayTrace(
  store: Store,
  trace: Trace,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  checkOptions("replayTrace", "options", options, REPLAY_KEYS);
  const t0 = trace.t0 ?? T0;
  const testName = traceTestName(trace);
  const namespace = options.namespace ?? `sluice-conformance:${fnv1a(testName)}`;
  const clock = new ManualClock(t0 + (trace.steps[0]?.at ?? 0));
  const reference = options.compare === false ? undefined : new ReferenceStore();
  const subject = new Runner(store, namespace, clock, trace);
  const oracle = reference === undefined ? undefined : new Runner(reference, namespace, clock, trace);
  const mismatches: string[] = [];
  const steps = trace.steps;
  try {
    // A run of steps sent together (Step.together) is called whole on the store before any answer is awaited;
    // the reference then replays it step by step (it answers at once, so in the same order).
    for (let first = 0; first < steps.length; ) {
      let end = first + 1;
      while (end < steps.length && steps[end].together === true) end++;
      const calls: Promise<Outcome>[] = [];
      for (let i = first; i < end; i++) {
        const step = steps[i];
        clock.set(t0 + step.at);
        if (step.limits !== undefined) subject.reconfigure(step.limits);
        calls.push(subject.run(step, t0 + step.at));
      }
      const answers = await Promise.all(calls);
      for (let i = first; i < end; i++) {
        const step = steps[i];
        const nowMs = t0 + step.at;
        clock.set(nowMs);
        const where = `${testName} — step ${i} (${describeStep(step)}) at +${step.at} ms (${nowMs})`;
        if (step.limits !== undefined) oracle?.reconfigure(step.limits);
        const got = answers[i - first];
        const want = oracle === undefined ? undefined : await oracle.run(step, nowMs);
        if (step.throws !== undefined) {
          // A call the trace expects refused: both must throw that code, and nothing else is compared.
          for (const [who, r] of [
            [store.name, got],
            ["reference", want],
          ] as const) {
            if (r === undefined) continue;
            if (r.error === undefined)
              mismatches.push(`${where}: ${who} did not throw, expected ${step.throws}`);
            else if ((r.error as { code?: unknown }).code !== step.throws) {
              mismatches.push(`${where}: ${who} threw ${errorText(r.error)}, expected ${step.throws}`);
            }
          }
          continue;
        }
        if (got.error !== undefined) mismatches.push(`${where}: ${store.name} threw ${errorText(got.error)}`);
        if (want?.error !== undefined) mismatches.push(`${where}: reference threw ${errorText(want.error)}`);
        if (got.error !== undefined || want?.error !== undefined) continue;
        if (want !== undefined) {
          for (const d of diffDecisions(got.decision, want.decision)) mismatches.push(`${where}: ${d}`);
          (step.with ?? []).forEach((it, j) => {
            for (const d of diffDecisions(got.others?.[j], want.others?.[j]))
              mismatches.push(`${where}: with[${j}] (${it.set}): ${d}`);
          });
        }
        if (step.expect !== undefined) {
          if (got.decision === undefined) {
            mismatches.push(`${where}: the trace expects a decision, but ${step.op} returns none`);
          } else {
            for (const d of checkExpect(got.decision, step.expect))
              mismatches.push(`${where}: ${d} (hand-written)`);
          }
        }
        (step.with ?? []).forEach((it, j) => {
          const d = got.others?.[j];
          if (it.expect === undefined || d === undefined) return;
          for (const m of checkExpect(d, it.expect))
            mismatches.push(`${where}: with[${j}] (${it.set}): ${m} (hand-written)`);
        });
      }
      first = end;
    }
  } finally {
    await reference?.close();
  }
  return { mismatches };
}

/** What one step answered: the limiter's item's decision, those of its `with` items, or what it threw. */
interface Outcome {
  readonly decision?: Decision;
  readonly others?: readonly Decision[];
  readonly error?: unknown;
}

/** One limiter over a store, with the leases its acquires returned, by name, and the trace's other sets. */
class Runner {
  #limiter: Limiter;
  /** The limiter's limits as a set of its namespace, for the store calls of steps with other items. */
  #set: LimitSet;
  readonly #sets = new Map<string, LimitSet>();
  readonly #leases = new Map<string, Lease>();

  constructor(
    readonly store: Store,
    readonly namespace: string,
    readonly clock: ManualClock,
    trace: Trace,
  ) {
    this.#limiter = this.#create(trace.limits);
    this.#set = this.#setOf(namespace, trace.limits);
    for (const [name, limits] of Object.entries(trace.sets ?? {})) {
      this.#sets.set(name, this.#setOf(`${namespace}/${name}`, limits));
    }
  }

  reconfigure(limits: readonly LimitSpecInput[]): void {
    this.#limiter = this.#create(limits);
    this.#set = this.#setOf(this.namespace, limits);
  }

  /** Starts the step's call at once (before its first `await`), so that steps sent together share a batch. */
  async run(step: Step, nowMs: number): Promise<Outcome> {
    const key = step.key ?? "k";
    const limiter = this.#limiter;
    try {
      if (step.with !== undefined) return await this.#several(step, key, nowMs);
      switch (step.op) {
        case "consume":
          return { decision: await limiter.limit(key, { cost: step.cost ?? 1, nowMs }) };
        case "peek":
          return { decision: await limiter.peek(key, { cost: step.cost ?? 0, nowMs }) };
        case "refund":
          return { decision: await limiter.refund(key, step.cost ?? 1, { nowMs }) };
        case "reset":
          await limiter.reset(key, { nowMs });
          return {};
        case "acquire": {
          const lease = await limiter.acquire(key, { cost: step.cost ?? 1, nowMs });
          if (step.lease !== undefined) this.#leases.set(step.lease, lease);
          return { decision: lease.decision };
        }
        case "release": {
          const lease = step.lease === undefined ? undefined : this.#leases.get(step.lease);
          if (lease === undefined)
            throw new Error(`trace error: no lease named ${JSON.stringify(step.lease)}`);
          await lease.release(); // at the clock's time, which is this step's
          return {};
        }
        default:
          throw new Error(`trace error: unknown op ${JSON.stringify(step.op)}`);
      }
    } catch (error) {
      return { error };
    }
  }

  /** A step with `with` items: one store call of the limiter's item and theirs. */
  async #several(step: Step, key: string, nowMs: number): Promise<Outcome> {
    if (step.op !== "consume" && step.op !== "peek" && step.op !== "refund" && step.op !== "reset") {
      throw new Error(`trace error: a ${step.op} step cannot have other items`);
    }
    const cost = step.op === "reset" ? 0 : (step.cost ?? (step.op === "peek" ? 0 : 1));
    const items: StoreItem[] = [{ limits: this.#set, key, cost }];
    for (const it of step.with ?? []) {
      const limits = this.#sets.get(it.set);
      if (limits === undefined) throw new Error(`trace error: no set named ${JSON.stringify(it.set)}`);
      items.push({ limits, key: it.key ?? key, cost: step.op === "reset" ? 0 : (it.cost ?? cost) });
    }
    const [decision, ...others] = await this.store.apply(items, step.op, nowMs);
    return { decision, others };
  }

  #create(limits: readonly LimitSpecInput[]): Limiter {
    return createLimiter({ store: this.store, limits: [...limits], name: this.namespace, clock: this.clock });
  }

  #setOf(namespace: string, limits: readonly LimitSpecInput[]): LimitSet {
    return createLimitSet(
      namespace,
      limits.map((l) => parseLimitSpec(l)),
    );
  }
}

const STATUS_FIELDS = [
  "allowed",
  "remaining",
  "resetAfterMs",
  "retryAfterMs",
  "state",
  "limit",
  "periodMs",
] as const satisfies readonly (keyof PolicyStatus)[];

/** Differences between a store's decision and the reference's, as `field: store X, reference Y` lines. */
function diffDecisions(got: Decision | undefined, want: Decision | undefined): string[] {
  if (got === undefined || want === undefined) {
    return got === want
      ? []
      : [
          `decision: store ${got === undefined ? "none" : "some"}, reference ${want === undefined ? "none" : "some"}`,
        ];
  }
  const out: string[] = [];
  for (const f of ["policy", ...STATUS_FIELDS, "reason"] as const) {
    if (!Object.is(got[f], want[f])) out.push(`${f}: store ${show(got[f])}, reference ${show(want[f])}`);
  }
  const gl = leaseNames(got);
  const wl = leaseNames(want);
  if (gl !== wl) out.push(`leases: store [${gl}], reference [${wl}]`);
  if (got.policies.length !== want.policies.length) {
    out.push(`policies: store has ${got.policies.length}, reference ${want.policies.length}`);
    return out;
  }
  want.policies.forEach((w, i) => {
    const g = got.policies[i];
    if (g.policy !== w.policy)
      out.push(`policies[${i}].policy: store ${show(g.policy)}, reference ${show(w.policy)}`);
    for (const f of STATUS_FIELDS) {
      if (!Object.is(g[f], w[f]))
        out.push(`policies.${w.policy}.${f}: store ${show(g[f])}, reference ${show(w[f])}`);
    }
  });
  return out;
}

/** Differences between a decision and a trace's hand-written expectation. */
function checkExpect(d: Decision, e: Step["expect"] & object): string[] {
  const out: string[] = [];
  const check = (prefix: string, actual: PolicyStatus, expected: PolicyExpect): void => {
    for (const f of ["allowed", "remaining", "resetAfterMs", "retryAfterMs", "state"] as const) {
      if (expected[f] !== undefined && !Object.is(actual[f], expected[f])) {
        out.push(`${prefix}${f}: got ${show(actual[f])}, expected ${show(expected[f])}`);
      }
    }
  };
  check("", d, e);
  if (e.policy !== undefined && d.policy !== e.policy)
    out.push(`policy: got ${show(d.policy)}, expected ${show(e.policy)}`);
  for (const [name, pe] of Object.entries(e.policies ?? {})) {
    const s = d.policies.find((p) => p.policy === name);
    if (s === undefined) out.push(`policies.${name}: missing`);
    else check(`policies.${name}.`, s, pe);
  }
  if (e.leases !== undefined && leaseNames(d) !== [...e.leases].sort().join(",")) {
    out.push(`leases: got [${leaseNames(d)}], expected [${[...e.leases].sort().join(",")}]`);
  }
  return out;
}

/** Policy names holding a lease, sorted (ids are store-local: they may restart once a key is idle). */
function leaseNames(d: Decision): string {
  return Object.keys(d.leases ?? {})
    .sort()
    .join(",");
}

function describeStep(step: Step): string {
  const parts: string[] = [step.op, `key=${step.key ?? "k"}`];
  if (step.cost !== undefined) parts.push(`cost=${step.cost}`);
  if (step.lease !== undefined) parts.push(`lease=${step.lease}`);
  if (step.limits !== undefined) parts.push("with new limits");
  for (const it of step.with ?? []) {
    parts.push(
      `+ ${it.set} key=${it.key ?? step.key ?? "k"}${it.cost !== undefined ? ` cost=${it.cost}` : ""}`,
    );
  }
  if (step.together === true) parts.push("sent with the step before");
  if (step.throws !== undefined) parts.push(`refused with ${step.throws}`);
  return parts.join(" ");
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** 32-bit FNV-1a of `s`, in hex: a short stable namespace for a trace. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * Idempotent consumes whose items live on several independent nodes (Redis Cluster masters, shards of
 * `sharded-store.ts`): no single atomic step covers the record and every item, so a claim on the record's node
 * serializes the callers instead. Store-agnostic: the node is reached through an {@link OnceLedger}, the consume
 * through the store's own multi-node path (all-or-nothing through refunds), pauses through a {@link Scheduler}.
 *
 * The protocol, per call:
 * 1. `claim` (one atomic step on the record's node): a record present is the answer (a replay, nothing counted);
 *    another caller's unexpired claim answers "pending"; else this caller's claim is set for `claimTtlMs`;
 * 2. "pending": pause (2 ms, doubling, at most 200 ms each) and claim again, until the record appears or this
 *    caller claims an expired claim's place; after `claimTtlMs` of pauses in all, `ERR_SLUICE_IDEMPOTENCY_PENDING`
 *    (nothing counted by this caller);
 * 3. claimed: consume every item through the multi-node path, then `record` the decisions and their instant
 *    (`nowMs`) for the record's TTL in place of the claim. A consume that fails `abandon`s the claim (deleted, so
 *    a retry proceeds at once) and rethrows; a record that cannot be written leaves the claim to expire and
 *    still answers (the units are consumed). A consume answered in part by a failure policy (a node behind a
 *    failure wrapper was unreachable: some decision's reason is not `store`) is answered but not recorded: the claim
 *    is abandoned, as for a failed consume, so a retry once the node is back is decided by the store rather than
 *    replaying a made-up answer for the record's whole TTL.
 *
 * Bound: concurrent callers count once, whichever processes they run in, except when a claimer stops between its
 * consume and its record (process killed, record write lost) or takes longer than `claimTtlMs` to consume: a
 * retry after the claim expired then counts again; and except an answer a failure policy took part in (step 3),
 * which no record holds: a retry counts again on the nodes that answered, as any call answered by a failure policy
 * reaches no shared record. Nothing else can count twice. Single-node calls never take
 * this path: their record lives in the decision's own script call (one round trip).
 */
import { randomUUID } from "node:crypto";
import { isScheduler, shown } from "../core/arguments.js";
import { type Scheduler, systemScheduler } from "../core/clock.js";
import type { Decision } from "../core/decision.js";
import { InvalidArgumentError, SluiceError } from "../core/errors.js";
import type { OnceLedger, OnceResult } from "./store.js";

/** How long a claim holds an idempotency record by default, ms: the bound on a claimer's consume and record. */
export const ONCE_CLAIM_TTL_MS = 10_000;
/**
 * The claim settings of store `owner` (named in errors) from its options, defaulted and checked: `claimTtlMs` a
 * whole number of ms from 1 to 3,600,000 (default {@link ONCE_CLAIM_TTL_MS}), `scheduler` a Scheduler.
 */
export function claimSettingsOf(
  owner: string,
  options: { readonly claimTtlMs?: number; readonly scheduler?: Scheduler },
): { readonly claimTtlMs: number; readonly scheduler: Scheduler } {
  const claimTtlMs = options.claimTtlMs ?? ONCE_CLAIM_TTL_MS;
  if (!Number.isInteger(claimTtlMs) || claimTtlMs < 1 || claimTtlMs > 3_600_000) {
    throw new InvalidArgumentError(
      `${owner}: claimTtlMs must be a whole number of ms from 1 to 3600000, got ${shown(claimTtlMs)}`,
    );
  }
  const scheduler = options.scheduler ?? systemScheduler;
  if (!isScheduler(scheduler)) {
    throw new InvalidArgumentError(
      `${owner}: scheduler must be a Scheduler (with sleep), got ${shown(scheduler)}`,
    );
  }
  return { claimTtlMs, scheduler };
}

/** First pause of a caller waiting for another caller's claim, ms; doubled after each try. */
export const ONCE_WAIT_FIRST_MS = 2;
/** Longest single pause of a waiting caller, ms. */
export const ONCE_WAIT_STEP_MAX_MS = 200;

/** A waiting caller gave up: another caller's claim held the record for the whole wait, and no record came. */
export class IdempotencyPendingError extends SluiceError {
  /** Names the record and how long the caller paused, ms. */
  constructor(record: string, waitedMs: number) {
    super(
      "ERR_SLUICE_IDEMPOTENCY_PENDING",
      `idempotency record ${JSON.stringify(record)}: another caller's claim held it for ${waitedMs} ms of waiting without recording an answer; nothing was counted by this call, retry later`,
    );
  }
}

/** What one try of {@link untilSettled} answers while another caller's claim holds the record. */
export const PENDING: unique symbol = Symbol("sluice.once.pending");

/**
 * Runs `attempt` until it answers something other than {@link PENDING}, pausing on `scheduler` between tries
 * (2 ms doubling, at most 200 ms each) for at most `maxWaitMs` in all (pauses only, so the bound holds on any
 * scheduler); then throws {@link IdempotencyPendingError} naming `record`. Errors of `attempt` propagate.
 */
export async function untilSettled<T>(
  attempt: () => Promise<T | typeof PENDING>,
  scheduler: Scheduler,
  maxWaitMs: number,
  record: string,
): Promise<T> {
  let waitedMs = 0;
  let stepMs = ONCE_WAIT_FIRST_MS;
  for (;;) {
    const answer = await attempt();
    if (answer !== PENDING) return answer;
    if (waitedMs >= maxWaitMs) throw new IdempotencyPendingError(record, waitedMs);
    const pauseMs = Math.min(stepMs, maxWaitMs - waitedMs);
    await scheduler.sleep(pauseMs);
    waitedMs += pauseMs;
    stepMs = Math.min(stepMs * 2, ONCE_WAIT_STEP_MAX_MS);
  }
}

/** Options of {@link applyOnceClaimed}. */
export interface ClaimedApplyOptions {
  /** What the pauses sleep on. */
  readonly scheduler: Scheduler;
  /** How long a claim lives, ms (whole, >= 1); also the bound on the total pause of a waiting caller. */
  readonly claimTtlMs: number;
  /**
   * A tighter bound on the total pause of a waiting caller, ms (a failure wrapper's timeout: it answers a longer
   * wait by its policy). @default claimTtlMs
   */
  readonly maxWaitMs?: number;
  /** Names the record in errors. */
  readonly record: string;
}

/**
 * The claim protocol of the module comment for one call: `consume` applies the items (all-or-nothing across
 * nodes), `nowMs` is the instant recorded with its decisions.
 */
export function applyOnceClaimed(
  ledger: OnceLedger,
  nowMs: number,
  consume: () => Promise<Decision[]>,
  options: ClaimedApplyOptions,
): Promise<OnceResult> {
  const { scheduler, claimTtlMs, record } = options;
  const maxWaitMs = Math.min(claimTtlMs, options.maxWaitMs ?? claimTtlMs);
  return untilSettled<OnceResult>(
    async () => {
      const token = randomUUID();
      const found = await ledger.claim(token, claimTtlMs);
      if (found.state === "pending") return PENDING;
      if (found.state === "recorded") {
        return { decisions: found.decisions, replayed: true, decidedAtMs: found.decidedAtMs };
      }
      let decisions: Decision[];
      try {
        decisions = await consume();
      } catch (error) {
        await ledger.abandon(token).catch(() => undefined); // else the claim expires after claimTtlMs
        throw error;
      }
      if (!decisions.every(byStore)) {
        // A failure policy's answer reached no record (step 3): nothing is written, and a retry decides anew.
        await ledger.abandon(token).catch(() => undefined);
        return { decisions, replayed: false };
      }
      // Not written: the claim expires after claimTtlMs, and a retry then counts again (the module's bound).
      await ledger.record(token, decisions, nowMs).catch(() => undefined);
      return { decisions, replayed: false, decidedAtMs: nowMs };
    },
    scheduler,
    maxWaitMs,
    record,
  );
}

/** Whether `d` is the store's own answer, not a failure policy's. */
function byStore(d: Decision): boolean {
  return d.reason === "store";
}

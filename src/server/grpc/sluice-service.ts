/**
 * Sluice's own gRPC API, `sluice.v1.RateLimiter`, over the engine. Requests are validated by the shared check API
 * (`parseCheckRequest`, the same rules and messages as HTTP `POST /v1/check`) and answers are encoded by it
 * (`checkResponseOf`), so both APIs answer the same fields with the same values, `reason` included (`store`, or the
 * failure policy that stood in for an unreachable store: `fail_open`, `fallback`, `fail_closed`).
 *
 * - `CheckRateLimit`: one check, counted when allowed. Recorded in `sluice_requests_total` as HTTP `/v1/check`
 *   records it (`checkOutcome`): `ok`, `over_limit`, or `fail_closed` when denied only because the store was
 *   unreachable and its rule fails closed (no quota was used up).
 * - `CheckRateLimitBatch`: up to `bounds.maxBatchItems` independent checks, started in item order; each item gets
 *   its answer or an `ItemError` (the gRPC code it would have had alone and the message, whose field path starts
 *   with `items[i]`). An invalid item counts nothing and does not fail the others.
 * - `GetRemainingQuota`: the same check with cost 0, so nothing is counted (and no decision is recorded).
 * - `ResetLimit`: `engine.reset` of the descriptors the same check would build.
 */
import { status as GrpcStatus } from "@grpc/grpc-js";
import { InvalidArgumentError } from "../../core/errors.js";
import type { CheckResult } from "../../engine/engine.js";
import { checkOutcome, checkResponseOf, parseCheckRequest } from "../check-api.js";
import { appliedPolicies } from "../rate-limit-headers.js";
import type { ServiceContext } from "../service-context.js";
import type { sluice } from "./gen/protos.js";
import { grpcErrorOf, type UnaryLogic } from "./grpc-call.js";

type CheckRequest = sluice.v1.CheckRequest;
type CheckBatchRequest = sluice.v1.CheckBatchRequest;
type QuotaRequest = sluice.v1.QuotaRequest;
type ResetRequest = sluice.v1.ResetRequest;
/** `sluice.v1.CheckResponse` as the properties the generated encoder takes. */
export type CheckResponseProps = sluice.v1.CheckResponse.$Properties;
/** `sluice.v1.CheckBatchResponse` as the properties the generated encoder takes. */
export type CheckBatchResponseProps = sluice.v1.CheckBatchResponse.$Properties;
/** `sluice.v1.QuotaResponse` as the properties the generated encoder takes. */
export type QuotaResponseProps = sluice.v1.QuotaResponse.$Properties;
/** `sluice.v1.ResetResponse` as the properties the generated encoder takes. */
export type ResetResponseProps = sluice.v1.ResetResponse.$Properties;
type BatchResultProps = sluice.v1.CheckBatchResult.$Properties;

/** Options of the Sluice service. */
export interface SluiceServiceOptions {
  /** The domain of requests that name none; undefined: `domain` is required. */
  readonly defaultDomain: string | undefined;
}

/** The logic of the four RPCs of `sluice.v1.RateLimiter`. */
export interface SluiceServiceLogic {
  /** `CheckRateLimit`. */
  readonly check: UnaryLogic<CheckRequest, CheckResponseProps>;
  /** `CheckRateLimitBatch`. */
  readonly checkBatch: UnaryLogic<CheckBatchRequest, CheckBatchResponseProps>;
  /** `GetRemainingQuota`. */
  readonly quota: UnaryLogic<QuotaRequest, QuotaResponseProps>;
  /** `ResetLimit`. */
  readonly reset: UnaryLogic<ResetRequest, ResetResponseProps>;
}

/** Builds the logic of `sluice.v1.RateLimiter` over `ctx`. */
export function sluiceService(ctx: ServiceContext, options: SluiceServiceOptions): SluiceServiceLogic {
  const domainOf = options.defaultDomain;
  const answer = (result: CheckResult): CheckResponseProps => checkResponseOf(result, ctx.clock.nowMs());

  const checkOne = async (input: unknown, field?: string): Promise<CheckResult> => {
    const request = parseCheckRequest(input, ctx, domainOf, field);
    const result = await ctx.engine.check(request);
    ctx.metrics.recordDecision(request.domain, result);
    return result;
  };

  return {
    // Not async: the only promise is the engine's (a bad request throws at once; unaryHandler maps it).
    check(req) {
      const request = parseCheckRequest(req, ctx, domainOf);
      return ctx.engine.check(request).then((result) => {
        ctx.metrics.recordDecision(request.domain, result);
        const policies = appliedPolicies(result);
        return {
          response: checkResponseOf(result, ctx.clock.nowMs(), policies),
          outcome: checkOutcome(result, policies),
        };
      });
    },

    async checkBatch(req) {
      const items = req.items;
      const max = ctx.bounds.maxBatchItems;
      if (items.length > max) {
        throw new InvalidArgumentError(`items must hold at most ${max} items, got ${items.length}`);
      }
      const results = await Promise.all(
        items.map(async (item, i): Promise<BatchResultProps> => {
          try {
            return { response: answer(await checkOne(item, `items[${i}]`)) };
          } catch (error) {
            const e = grpcErrorOf(error, ctx, `grpc grpc_check_batch items[${i}]`);
            // The request's own checks name the item already; the engine's name a field of the request.
            const at = `items[${i}]`;
            const details = e.status.details;
            const message =
              e.status.code === GrpcStatus.INVALID_ARGUMENT && !details.startsWith(at)
                ? `${at}.${details}`
                : details;
            return { error: { code: e.status.code, message } };
          }
        }),
      );
      return { response: { results }, outcome: "ok" };
    },

    async quota(req) {
      const request = { ...parseCheckRequest(req, ctx, domainOf), cost: 0 };
      const result = await ctx.engine.check(request);
      return { response: answer(result), outcome: "ok" };
    },

    async reset(req) {
      const { domain, descriptors } = parseCheckRequest(req, ctx, domainOf);
      const { counters } = await ctx.engine.reset({ domain, descriptors });
      return { response: { counters }, outcome: "ok" };
    },
  };
}

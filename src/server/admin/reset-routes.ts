/**
 * `POST /api/v1/limits/reset` (seed 002's ResetLimit), audited as `limits.reset`:
 * - `{ "identity": "user:42" }` (optionally `"domain"` to keep to one domain): forgets the identity's counters
 *   under every rule that reaches it (`identity-descriptor.ts`: identifies callers by its key, or names it with
 *   exact patterns), each with the descriptor built from the rule's match entries. The engine forgets the counter
 *   of the rule that *counts* each descriptor (the most specific match), so several rules' descriptors may land on
 *   one counter, or on another rule's: each distinct descriptor is reset once, and a rule whose descriptor is
 *   counted elsewhere, not matched by the identity, not counted at all (unlimited, blocked), not expressible
 *   (another entry is not exact), or not the identity's own (its identity entry is `shared`: one counter for every
 *   matching value, which a reset of one identity must not wipe) goes to `skipped` with the reason;
 * - `{ "domain": "api", "descriptors": [[{ "key": "user", "value": "42" }]] }`: forgets the counters those
 *   descriptors would count.
 * Answers `{ counters, rules, skipped }`: `rules` is exactly the rules whose counters were forgotten (whatever
 * rule the request named), `counters` how many distinct counters.
 *
 * **Partial failure.** Descriptors are reset one at a time; when the store fails part-way, what was already
 * forgotten stays forgotten. It is audited (with `error` and the rules `notReset`) and the answer is 503
 * problem details carrying `counters`, `rules`, `skipped` and `notReset`, so the caller knows what happened.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { InvalidArgumentError } from "../../core/errors.js";
import { MAX_DOMAIN_LENGTH, type ResetResult } from "../../engine/engine.js";
import type { Descriptor, Rule } from "../../rules/rule.js";
import { type AdminContext, checkAuditable } from "./admin-context.js";
import { AdminProblem, invalidRequest } from "./admin-problem.js";
import { adminIdentitySchema, parseBody } from "./admin-request.js";
import { identityDescriptor, notCountedReason, reachesIdentity } from "./identity-descriptor.js";

const entrySchema = z.object({ key: z.string().min(1), value: z.string() }).strict();
// Domains and identities within the engine's bounds: every resource audited below fits the audit log's.
const domainSchema = z.string().min(1).max(MAX_DOMAIN_LENGTH);
const byIdentitySchema = z
  .object({ identity: adminIdentitySchema, domain: domainSchema.optional() })
  .strict();
const byDescriptorsSchema = z
  .object({ domain: domainSchema, descriptors: z.array(z.array(entrySchema).min(1)).min(1).max(64) })
  .strict();

/** Registers the reset route on `app` (under the `/api/v1` prefix). */
export function registerResetRoutes(app: FastifyInstance, ctx: AdminContext): void {
  app.post("/limits/reset", async (request, reply) => {
    const actor = ctx.actorOf(request);
    if (actor === undefined) throw new AdminProblem(401, "unauthorized");
    const raw = request.body;
    const byIdentity = typeof raw === "object" && raw !== null && "identity" in raw;
    let counters = 0;
    const rules: string[] = [];
    const skipped: { rule: string; reason: string }[] = [];
    /** Rule ids whose descriptors were not reset because the store failed first. */
    const notReset: string[] = [];
    let failure: unknown;
    let resource: string;
    let target: Record<string, unknown>;
    const counted = (result: ResetResult): void => {
      for (const d of result.descriptors) {
        if (d.counters > 0 && d.rule !== undefined && !rules.includes(d.rule.id)) rules.push(d.rule.id);
      }
      counters += result.counters;
    };
    try {
      if (byIdentity) {
        const body = parseBody(byIdentitySchema, raw);
        resource = `limits/${body.identity}`;
        checkAuditable(actor, "limits.reset", resource);
        target = { identity: body.identity, ...(body.domain !== undefined ? { domain: body.domain } : {}) };
        // The rules reaching the identity, grouped by the descriptor each builds (in configuration order).
        const groups = new Map<string, { domain: string; descriptor: Descriptor; rules: Rule[] }>();
        for (const rule of ctx.engine.config.rules) {
          if (!reachesIdentity(rule, body.identity)) continue;
          if (body.domain !== undefined && rule.domain !== body.domain) continue;
          const built = identityDescriptor(rule, body.identity);
          if (!built.ok) {
            skipped.push({ rule: rule.id, reason: built.reason });
            continue;
          }
          const k = JSON.stringify([rule.domain, built.descriptor]);
          const group = groups.get(k);
          if (group === undefined)
            groups.set(k, { domain: rule.domain, descriptor: built.descriptor, rules: [rule] });
          else group.rules.push(rule);
        }
        for (const group of groups.values()) {
          if (failure !== undefined) {
            for (const rule of group.rules) notReset.push(rule.id);
            continue;
          }
          let result: ResetResult;
          try {
            result = await ctx.engine.reset({ domain: group.domain, descriptors: [group.descriptor] });
          } catch (error) {
            failure = error;
            for (const rule of group.rules) notReset.push(rule.id);
            continue;
          }
          counted(result);
          const d = result.descriptors[0];
          for (const rule of group.rules) {
            const reason =
              notCountedReason(rule, body.identity, d.rule) ??
              (d.counters === 0 ? "nothing is counted under the rule (unlimited or blocked)" : undefined);
            if (reason !== undefined) skipped.push({ rule: rule.id, reason });
          }
        }
      } else {
        const body = parseBody(byDescriptorsSchema, raw);
        const descriptors: Descriptor[] = body.descriptors;
        resource = `limits/${body.domain}`;
        checkAuditable(actor, "limits.reset", resource);
        target = { domain: body.domain, descriptors };
        counted(await ctx.engine.reset({ domain: body.domain, descriptors }));
      }
    } catch (error) {
      if (error instanceof InvalidArgumentError)
        throw invalidRequest([{ field: "descriptors", message: error.message }]);
      throw error;
    }
    if (failure !== undefined && counters === 0) throw failure; // nothing changed: the error handler answers
    const error = failure === undefined ? undefined : (failure as Error).message;
    const after = {
      ...target,
      counters,
      rules,
      skipped,
      ...(error !== undefined ? { notReset, error } : {}),
    };
    try {
      await ctx.audit.append({ actor, action: "limits.reset", resource, before: null, after });
    } catch (auditError) {
      ctx.log?.error(
        { resource, actor, err: (auditError as Error).message },
        "admin: the reset could not be audited",
      );
    }
    ctx.log?.info({ action: "limits.reset", resource, actor, counters }, "admin: change");
    if (error !== undefined) {
      ctx.log?.error({ resource, actor, err: error }, "admin: the reset failed part-way");
      throw new AdminProblem(503, "unavailable", {
        detail: `the store failed after ${counters} counter(s) were reset (rules: ${rules.join(", ")}); not reset: ${notReset.join(", ")}: ${error}`,
        headers: { "Retry-After": "1" },
        extra: { counters, rules, skipped, notReset },
      });
    }
    return reply.code(200).send({ counters, rules, skipped });
  });
}

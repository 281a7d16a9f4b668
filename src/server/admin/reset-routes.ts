/**
 * `POST /api/v1/limits/reset` (seed 002's ResetLimit), audited as `limits.reset`:
 * - `{ "identity": "user:42" }` (optionally `"domain"` to keep to one domain): forgets the identity's counters
 *   under every rule identifying callers by its key, each with the descriptor built from the rule's match
 *   entries; rules whose other entries are not exact are listed in `skipped` with the reason;
 * - `{ "domain": "api", "descriptors": [[{ "key": "user", "value": "42" }]] }`: forgets the counters those
 *   descriptors would count.
 * Answers `{ counters, rules, skipped }`: how many counters were forgotten, under which rules.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { InvalidArgumentError } from "../../core/errors.js";
import { identitySchema } from "../../rules/config-schema.js";
import type { Descriptor } from "../../rules/rule.js";
import type { AdminContext } from "./admin-context.js";
import { AdminProblem, invalidRequest } from "./admin-problem.js";
import { parseBody } from "./admin-request.js";
import { identityDescriptor, splitIdentity } from "./identity-descriptor.js";

const entrySchema = z.object({ key: z.string().min(1), value: z.string() }).strict();
const byIdentitySchema = z
  .object({ identity: identitySchema, domain: z.string().min(1).optional() })
  .strict();
const byDescriptorsSchema = z
  .object({ domain: z.string().min(1), descriptors: z.array(z.array(entrySchema).min(1)).min(1).max(64) })
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
    let resource: string;
    let target: Record<string, unknown>;
    try {
      if (byIdentity) {
        const body = parseBody(byIdentitySchema, raw);
        const { key } = splitIdentity(body.identity);
        for (const rule of ctx.engine.config.rules) {
          if (rule.identityKey !== key || (body.domain !== undefined && rule.domain !== body.domain))
            continue;
          const built = identityDescriptor(rule, body.identity);
          if (!built.ok) {
            skipped.push({ rule: rule.id, reason: built.reason });
            continue;
          }
          const r = await ctx.engine.reset({ domain: rule.domain, descriptors: [built.descriptor] });
          counters += r.counters;
          rules.push(rule.id);
        }
        resource = `limits/${body.identity}`;
        target = { identity: body.identity, ...(body.domain !== undefined ? { domain: body.domain } : {}) };
      } else {
        const body = parseBody(byDescriptorsSchema, raw);
        const descriptors: Descriptor[] = body.descriptors;
        const r = await ctx.engine.reset({ domain: body.domain, descriptors });
        counters = r.counters;
        resource = `limits/${body.domain}`;
        target = { domain: body.domain, descriptors };
      }
    } catch (error) {
      if (error instanceof InvalidArgumentError)
        throw invalidRequest([{ field: "descriptors", message: error.message }]);
      throw error;
    }
    const after = { ...target, counters, rules, skipped };
    try {
      await ctx.audit.append({ actor, action: "limits.reset", resource, before: null, after });
    } catch (error) {
      ctx.log?.error(
        { resource, actor, err: (error as Error).message },
        "admin: the reset could not be audited",
      );
    }
    ctx.log?.info({ action: "limits.reset", resource, actor, counters }, "admin: change");
    return reply.code(200).send({ counters, rules, skipped });
  });
}

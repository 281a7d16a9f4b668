/**
 * `/api/v1/users/{id}/…`: one identity's view (`id` is an identity `key:value` such as `user:42`, URL-encoded).
 *
 * - `GET /users/{id}/limits` → for every rule identifying callers by the identity's key: the limits that apply
 *   now and where they come from (`override` with its `expiresAt` and `staticOnly`, `tier`, or `rule`), from the
 *   configuration the engine enforces, and the current usage: a check of cost 0 (counts nothing) with the
 *   descriptor built from the rule's match entries (`identity-descriptor.ts`), or why usage is not available;
 *   `configVersion` is that configuration's version as `GET /rules` shows it (null while the engine runs the rules
 *   file as read at start, which has none).
 * - `GET /users/{id}/tier` → `{ identity, tier }` (`tier` null when none). `PUT` with `{ "tier": "premium" }`
 *   assigns a declared tier, `{ "tier": null }` removes it; changing an existing assignment requires `If-Match`.
 * - `GET /users/{id}/override` → `{ identity, overrides }` (as in the configuration). `POST` with
 *   `{ limits, rule?, expires_at?, staticOnly? }` (`expires_at` or `expiresAt`, the configuration's name; ISO-8601
 *   with a timezone, in the future; `staticOnly` as in the configuration, written only when given) adds the override
 *   of that rule (every rule when `rule` is left out), answering 201; replacing an existing one for the same rule
 *   answers 200 and requires `If-Match` (the list's `ETag`). `DELETE` (optionally `?rule=`) removes the override of
 *   that rule (or the rule-less one) and requires `If-Match`.
 *
 * **Several overrides of one identity and rule.** The configuration may hold more than one (the later in force
 * wins: a temporary one over a permanent one, say), and the loader accepts that. The API's unit is the pair
 * (identity, rule): a POST leaves exactly the override given for it (in the place of the first, so its comments
 * stay), and a DELETE removes every one, so what the engine enforces afterwards is what the request said.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { DecisionReason } from "../../core/decision.js";
import type { LimitSpec } from "../../core/limit-spec.js";
import {
  formatPath,
  MAX_RULE_ID_LENGTH,
  type NativeConfigInput,
  overrideSchema,
  parseTimestampMs,
  tierNameSchema,
} from "../../rules/config-schema.js";
import { effectiveLimits } from "../../rules/effective-limits.js";
import type { Rule } from "../../rules/rule.js";
import { type AdminContext, copyOf } from "./admin-context.js";
import { invalidRequest } from "./admin-problem.js";
import { identityParam, isoOf, notFound, parseBody, sendResource } from "./admin-request.js";
import { identityDescriptor, notCountedReason, splitIdentity } from "./identity-descriptor.js";

type OverrideDocument = NonNullable<NativeConfigInput["overrides"]>[number];

/** The tier resource: an identity's tier, null when none. */
interface TierResource {
  readonly identity: string;
  readonly tier: string | null;
}

/** The override resource: an identity's overrides, as in the configuration. */
interface OverridesResource {
  readonly identity: string;
  readonly overrides: OverrideDocument[];
}

const tierBodySchema = z.object({ tier: tierNameSchema.nullable() }).strict();

const shape = overrideSchema.shape;
const overrideBodySchema = z
  .object({
    limits: shape.limits,
    // A rule id (at most MAX_RULE_ID_LENGTH): the override's audited resource names it.
    rule: z.string().min(1).max(MAX_RULE_ID_LENGTH).optional(),
    expires_at: shape.expiresAt,
    expiresAt: shape.expiresAt,
    staticOnly: shape.staticOnly,
  })
  .strict();

/** Usage of one rule's counter for the identity, or why it is not available. */
type Usage =
  | {
      readonly available: true;
      readonly policies: readonly {
        readonly policy: string;
        readonly limit: number;
        readonly remaining: number;
        readonly used: number;
        readonly resetAfterMs: number;
        readonly state: string;
      }[];
    }
  | { readonly available: false; readonly reason: string };

function tierOf(doc: NativeConfigInput, identity: string): string | undefined {
  const ids = doc.identities;
  return ids !== undefined && Object.hasOwn(ids, identity) ? ids[identity] : undefined;
}

function overridesOf(doc: NativeConfigInput, identity: string): OverrideDocument[] {
  return (doc.overrides ?? []).filter((o) => (o as { identity?: unknown }).identity === identity);
}

function sameRule(o: OverrideDocument, rule: string | undefined): boolean {
  return (o as { rule?: string }).rule === rule;
}

/** Whether `o` is an override of `identity` for `rule` (the rule-less one when `rule` is undefined). */
function isOverrideOf(o: OverrideDocument, identity: string, rule: string | undefined): boolean {
  return (o as { identity?: unknown }).identity === identity && sameRule(o, rule);
}

/** Registers the identity routes on `app` (under the `/api/v1` prefix). */
export function registerUserRoutes(app: FastifyInstance, ctx: AdminContext): void {
  app.get("/users/:id/limits", async (request, reply) => {
    const identity = identityParam(request);
    const config = ctx.engine.config;
    const nowMs = ctx.clock.nowMs();
    const { key } = splitIdentity(identity);
    const rules = [];
    for (const rule of config.rules) {
      if (rule.identityKey !== key) continue;
      const eff = effectiveLimits(config, rule, identity, nowMs);
      rules.push({
        rule: rule.id,
        name: rule.name,
        domain: rule.domain,
        behaviour: rule.behaviour,
        blocked: rule.blocked === true,
        source: eff.source,
        tier: eff.tier ?? null,
        expiresAt: eff.expiresAtMs === undefined ? null : isoOf(eff.expiresAtMs),
        staticOnly: eff.staticOnly,
        limits: eff.limits === "unlimited" ? "unlimited" : eff.limits.map(limitView),
        usage: await usageOf(ctx, rule, identity, eff.limits),
      });
    }
    return sendResource(request, reply, {
      identity,
      tier: config.identities.get(identity) ?? null,
      configVersion: config.version ?? null,
      at: isoOf(nowMs),
      rules,
    });
  });

  app.get("/users/:id/tier", async (request, reply) => {
    const identity = identityParam(request);
    const { document } = await ctx.repository.load();
    return sendResource(request, reply, { identity, tier: tierOf(document, identity) ?? null });
  });

  app.put("/users/:id/tier", async (request, reply) => {
    const identity = identityParam(request);
    const { tier } = parseBody(tierBodySchema, request.body);
    const { after } = await ctx.write<TierResource>(request, {
      action: tier === null ? "tier.remove" : "tier.set",
      resource: `users/${identity}/tier`,
      read: (doc) => ({ identity, tier: tierOf(doc, identity) ?? null }),
      requireIfMatch: (before) => before?.tier !== null,
      change: (draft) => {
        if (tier !== null && !(draft.tiers ?? []).includes(tier)) {
          const declared = draft.tiers ?? [];
          throw invalidRequest([
            {
              field: "tier",
              message: `unknown tier ${JSON.stringify(tier)}; ${declared.length === 0 ? "no tiers are declared" : `declared: ${declared.join(", ")}`}`,
            },
          ]);
        }
        if (tier === null) {
          if (draft.identities !== undefined) delete draft.identities[identity];
        } else {
          draft.identities ??= {};
          draft.identities[identity] = tier;
        }
        return { after: { identity, tier }, body: { at: ["identities", identity], field: () => "tier" } };
      },
    });
    return sendResource(request, reply, after);
  });

  app.get("/users/:id/override", async (request, reply) => {
    const identity = identityParam(request);
    const { document } = await ctx.repository.load();
    return sendResource(request, reply, { identity, overrides: overridesOf(document, identity) });
  });

  app.post("/users/:id/override", async (request, reply) => {
    const identity = identityParam(request);
    const body = parseBody(overrideBodySchema, request.body);
    if (body.expires_at !== undefined && body.expiresAt !== undefined) {
      throw invalidRequest([{ field: "expires_at", message: "give expires_at or expiresAt, not both" }]);
    }
    const expiresAt = body.expires_at ?? body.expiresAt;
    const expiresField = body.expires_at !== undefined ? "expires_at" : "expiresAt";
    if (expiresAt !== undefined && (parseTimestampMs(expiresAt) as number) <= ctx.clock.nowMs()) {
      throw invalidRequest([
        {
          field: expiresField,
          message: `must be in the future (now is ${isoOf(ctx.clock.nowMs())}), got ${JSON.stringify(expiresAt)}`,
        },
      ]);
    }
    const override: OverrideDocument = {
      identity,
      ...(body.rule !== undefined ? { rule: body.rule } : {}),
      limits: body.limits,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      ...(body.staticOnly !== undefined ? { staticOnly: body.staticOnly } : {}),
    };
    let replaced = false;
    const { after } = await ctx.write<OverridesResource>(request, {
      action: (before) =>
        before?.overrides.some((o) => sameRule(o, body.rule)) ? "override.update" : "override.create",
      resource: `users/${identity}/override${body.rule !== undefined ? `/${body.rule}` : ""}`,
      read: (doc) => ({ identity, overrides: overridesOf(doc, identity) }),
      requireIfMatch: (before) => before?.overrides.some((o) => sameRule(o, body.rule)) === true,
      change: (draft) => {
        // Every override of the pair goes; the one given takes the place of the first (see the module comment).
        const list = draft.overrides ?? [];
        const first = list.findIndex((o) => isOverrideOf(o, identity, body.rule));
        replaced = first !== -1;
        const kept = list.filter((o) => !isOverrideOf(o, identity, body.rule));
        const at = first === -1 ? kept.length : first;
        kept.splice(at, 0, copyOf(override));
        draft.overrides = kept;
        return {
          after: { identity, overrides: overridesOf(draft, identity) },
          body: {
            at: ["overrides", at],
            // The identity is the path's, not a body field: its issues are reported as configuration paths.
            field: (rest) =>
              rest[0] === "identity"
                ? undefined
                : formatPath(rest[0] === "expiresAt" ? [expiresField, ...rest.slice(1)] : rest),
          },
        };
      },
    });
    return sendResource(request, reply, after, replaced ? 200 : 201);
  });

  app.delete("/users/:id/override", async (request, reply) => {
    const identity = identityParam(request);
    const rule = ruleQuery(request.query);
    await ctx.write<OverridesResource>(request, {
      action: "override.delete",
      resource: `users/${identity}/override${rule !== undefined ? `/${rule}` : ""}`,
      read: (doc) => ({ identity, overrides: overridesOf(doc, identity) }),
      requireIfMatch: (before) => before?.overrides.some((o) => sameRule(o, rule)) === true,
      guard: (before) => {
        if (!before?.overrides.some((o) => sameRule(o, rule))) {
          throw notFound(
            `the override of ${identity}${rule !== undefined ? ` for rule ${JSON.stringify(rule)}` : " for every rule (no rule)"}`,
          );
        }
      },
      change: (draft) => {
        // Every override of the pair: one left behind would still be in force (see the module comment).
        draft.overrides = (draft.overrides ?? []).filter((o) => !isOverrideOf(o, identity, rule));
        return { after: { identity, overrides: overridesOf(draft, identity) } };
      },
    });
    return reply.code(204).send();
  });
}

function ruleQuery(query: unknown): string | undefined {
  const rule = (query as { rule?: unknown }).rule;
  if (rule === undefined) return undefined;
  if (typeof rule !== "string" || rule === "" || rule.length > MAX_RULE_ID_LENGTH) {
    throw invalidRequest([
      {
        parameter: "rule",
        message: `must be one rule id (at most ${MAX_RULE_ID_LENGTH} characters), given once`,
      },
    ]);
  }
  return rule;
}

/** A limit as the API shows it. */
function limitView(s: LimitSpec): Record<string, unknown> {
  return {
    name: s.name,
    algorithm: s.algorithm,
    limit: s.limit,
    periodMs: s.periodMs,
    burst: s.burst,
    ...(s.bucketMs > 0 ? { bucketMs: s.bucketMs } : {}),
  };
}

/**
 * Why a usage read answered by the rule's failure policy (the shared store unreachable) shows no usage: its numbers
 * are the policy's (a full quota nobody counted, a denial, or this process's local fallback share), not the
 * shared counter's.
 */
const UNREAD_USAGE: Partial<Record<DecisionReason, string>> = {
  fail_open: "the store is unreachable (failure policy fail_open): the shared counter could not be read",
  fail_closed: "the store is unreachable (failure policy fail_closed): the shared counter could not be read",
  fallback:
    "the store is unreachable (failure policy fallback): the shared counter could not be read; this process counts a local share meanwhile",
};

/** The usage of `rule`'s counter for `identity`: a check of cost 0 on the engine. */
async function usageOf(
  ctx: AdminContext,
  rule: Rule,
  identity: string,
  limits: readonly LimitSpec[] | "unlimited",
): Promise<Usage> {
  if (rule.blocked === true)
    return { available: false, reason: "the rule is blocked: it denies every request without counting" };
  if (limits === "unlimited") return { available: false, reason: "unlimited: nothing is counted" };
  const built = identityDescriptor(rule, identity);
  if (!built.ok) return { available: false, reason: built.reason };
  let result: Awaited<ReturnType<typeof ctx.engine.check>>;
  try {
    result = await ctx.engine.check({ domain: rule.domain, descriptors: [built.descriptor], cost: 0 });
  } catch (error) {
    return { available: false, reason: `the check failed: ${(error as Error).message}` };
  }
  const d = result.descriptors[0];
  const elsewhere = notCountedReason(rule, identity, d.match?.rule);
  if (elsewhere !== undefined) return { available: false, reason: elsewhere };
  if (d.decision === undefined) return { available: false, reason: "not counted" };
  const unread = UNREAD_USAGE[d.decision.reason];
  if (unread !== undefined) return { available: false, reason: unread };
  return {
    available: true,
    policies: d.decision.policies.map((p) => {
      const spec = limits.find((s) => s.name === p.policy);
      return {
        policy: p.policy,
        limit: p.limit,
        remaining: p.remaining,
        used: Math.max(0, (spec?.burst ?? p.limit) - p.remaining),
        resetAfterMs: p.resetAfterMs,
        state: p.state,
      };
    }),
  };
}

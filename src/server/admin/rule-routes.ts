/**
 * `/api/v1/rules`: the configuration's rules as written (the native document's form, the same schema as the
 * config file).
 *
 * - `GET /rules` → `{ version, tiers, defaults, rules, effective }`: the repository's snapshot version, the declared
 *   tiers, the defaults as applied (`algorithm`, `behaviour`, `maxDelayMs`, `failurePolicy`, `mode`: the file's
 *   `defaults` over the built-in ones), every rule as written, and per rule (same order, with its id) what it
 *   inherits resolved: `behaviour`, `maxDelayMs`, `failurePolicy`, `mode`, and `algorithm`, the one its limits
 *   fall back on when they name none. A rule that leaves a field out gets the default, not a fixed value, so a
 *   reader must not guess it from `rules`.
 * - `POST /rules` (a rule) → 201 with `Location` and `ETag`; 409 when the id exists.
 * - `GET /rules/{id}` → the rule, with its `ETag`.
 * - `PUT /rules/{id}` (a whole rule; `id` may be left out, else must equal the path's) → 200, or 201 when it
 *   creates the rule. Replacing an existing rule requires `If-Match` (428 without, 412 when stale).
 * - `DELETE /rules/{id}` → 204; requires `If-Match`. 409 when the rest of the configuration still refers to it.
 * Bodies are validated by `ruleSchema`, then the whole configuration by the repository; errors name the body's
 * own fields (`limits[0].burst`).
 */
import type { FastifyInstance } from "fastify";
import { type NativeConfigInput, ruleSchema } from "../../rules/config-schema.js";
import type { Rule, SluiceConfig } from "../../rules/rule.js";
import { type AdminContext, copyOf } from "./admin-context.js";
import { AdminProblem, invalidRequest } from "./admin-problem.js";
import { notFound, parseBody, sendResource } from "./admin-request.js";

type RuleDocument = NonNullable<NativeConfigInput["rules"]>[number];

function findRule(doc: NativeConfigInput, id: string): RuleDocument | undefined {
  return doc.rules.find((r) => (r as { id?: unknown }).id === id);
}

function ruleIdParam(params: unknown): string {
  const id = (params as { id: string }).id;
  const checked = ruleSchema.shape.id.safeParse(id);
  if (!checked.success) {
    throw invalidRequest([
      {
        parameter: "id",
        message: `must contain only letters, digits, "_", "." and "-", got ${JSON.stringify(id)}`,
      },
    ]);
  }
  return id;
}

/** What a rule inherits, resolved: its own value, else the default (see the module comment). */
function effectiveOf(config: SluiceConfig, rule: Rule): Record<string, unknown> {
  return {
    rule: rule.id,
    behaviour: rule.behaviour,
    maxDelayMs: rule.maxDelayMs,
    failurePolicy: rule.failurePolicy,
    mode: rule.mode,
    algorithm: config.defaults.algorithm,
  };
}

/** Registers the rule routes on `app` (under the `/api/v1` prefix). */
export function registerRuleRoutes(app: FastifyInstance, ctx: AdminContext): void {
  app.get("/rules", async (request, reply) => {
    const { document, version, config } = await ctx.repository.load();
    return sendResource(request, reply, {
      version,
      tiers: document.tiers ?? [],
      defaults: config.defaults,
      rules: document.rules,
      effective: config.rules.map((rule) => effectiveOf(config, rule)),
    });
  });

  app.get("/rules/:id", async (request, reply) => {
    const id = ruleIdParam(request.params);
    const rule = findRule((await ctx.repository.load()).document, id);
    if (rule === undefined) throw notFound(`rules/${id}`);
    return sendResource(request, reply, rule);
  });

  app.post("/rules", async (request, reply) => {
    const body = parseBody(ruleSchema, request.body);
    const resource = `rules/${body.id}`;
    const { after } = await ctx.write<RuleDocument>(request, {
      action: "rule.create",
      resource,
      read: (doc) => findRule(doc, body.id),
      requireIfMatch: () => false,
      guard: (before) => {
        if (before !== undefined) {
          throw new AdminProblem(409, "conflict", {
            detail: `${resource} already exists; change it with PUT and If-Match`,
          });
        }
      },
      change: (draft) => {
        draft.rules.push(copyOf(body));
        return { after: body, body: { at: ["rules", draft.rules.length - 1] } };
      },
    });
    reply.header("Location", `/api/v1/${resource}`);
    return sendResource(request, reply, after, 201);
  });

  app.put("/rules/:id", async (request, reply) => {
    const id = ruleIdParam(request.params);
    const raw = request.body;
    const withId =
      typeof raw === "object" && raw !== null && !Array.isArray(raw) && !("id" in raw) ? { id, ...raw } : raw;
    const body = parseBody(ruleSchema, withId);
    if (body.id !== id) {
      throw invalidRequest([
        {
          field: "id",
          message: `must equal the id in the path (${JSON.stringify(id)}), got ${JSON.stringify(body.id)}`,
        },
      ]);
    }
    const { before, after } = await ctx.write<RuleDocument>(request, {
      action: (b) => (b === undefined ? "rule.create" : "rule.update"),
      resource: `rules/${id}`,
      read: (doc) => findRule(doc, id),
      requireIfMatch: (b) => b !== undefined,
      change: (draft) => {
        const at = draft.rules.findIndex((r) => (r as { id?: unknown }).id === id);
        if (at === -1) draft.rules.push(copyOf(body));
        else draft.rules[at] = copyOf(body);
        return { after: body, body: { at: ["rules", at === -1 ? draft.rules.length - 1 : at] } };
      },
    });
    if (before === undefined) reply.header("Location", `/api/v1/rules/${id}`);
    return sendResource(request, reply, after, before === undefined ? 201 : 200);
  });

  app.delete("/rules/:id", async (request, reply) => {
    const id = ruleIdParam(request.params);
    await ctx.write<RuleDocument>(request, {
      action: "rule.delete",
      resource: `rules/${id}`,
      read: (doc) => findRule(doc, id),
      requireIfMatch: () => true,
      guard: (before) => {
        if (before === undefined) throw notFound(`rules/${id}`);
      },
      change: (draft) => {
        draft.rules.splice(
          draft.rules.findIndex((r) => (r as { id?: unknown }).id === id),
          1,
        );
        return { after: undefined };
      },
    });
    return reply.code(204).send();
  });
}

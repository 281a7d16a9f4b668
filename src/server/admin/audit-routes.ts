/**
 * `GET /api/v1/audit?limit=&cursor=`: who changed what and when, newest first, paged. `limit` is 1 to 200
 * (default 50); `next` (and a `Link: <…>; rel="next"` header) gives the cursor of the following, older page.
 * Each entry is `{ id, at, atMs, actor, action, resource, before, after }`.
 */
import type { FastifyInstance } from "fastify";
import { InvalidArgumentError } from "../../core/errors.js";
import type { AdminContext } from "./admin-context.js";
import { invalidRequest } from "./admin-problem.js";
import { isoOf, sendResource } from "./admin-request.js";

/** Largest page. */
export const MAX_AUDIT_PAGE = 200;
const DEFAULT_AUDIT_PAGE = 50;

/** Registers the audit route on `app` (under the `/api/v1` prefix). */
export function registerAuditRoutes(app: FastifyInstance, ctx: AdminContext): void {
  app.get("/audit", async (request, reply) => {
    const query = request.query as { limit?: unknown; cursor?: unknown };
    let limit = DEFAULT_AUDIT_PAGE;
    if (query.limit !== undefined) {
      const n =
        typeof query.limit === "string" && /^\d+$/.test(query.limit) ? Number(query.limit) : Number.NaN;
      if (!(n >= 1 && n <= MAX_AUDIT_PAGE)) {
        throw invalidRequest([
          {
            parameter: "limit",
            message: `must be a whole number from 1 to ${MAX_AUDIT_PAGE}, got ${JSON.stringify(query.limit)}`,
          },
        ]);
      }
      limit = n;
    }
    const cursor = query.cursor;
    if (cursor !== undefined && (typeof cursor !== "string" || cursor === "" || cursor.length > 512)) {
      throw invalidRequest([
        { parameter: "cursor", message: "must be the next cursor of a previous page, given once" },
      ]);
    }
    let page: Awaited<ReturnType<typeof ctx.audit.list>>;
    try {
      page = await ctx.audit.list({ limit, ...(cursor !== undefined ? { cursor } : {}) });
    } catch (error) {
      if (error instanceof InvalidArgumentError) {
        throw invalidRequest([{ parameter: "cursor", message: error.message }]);
      }
      throw error;
    }
    if (page.next !== undefined) {
      reply.header(
        "Link",
        `</api/v1/audit?limit=${limit}&cursor=${encodeURIComponent(page.next)}>; rel="next"`,
      );
    }
    return sendResource(request, reply, {
      entries: page.entries.map((e) => ({
        id: e.id,
        at: isoOf(e.atMs),
        atMs: e.atMs,
        actor: e.actor,
        action: e.action,
        resource: e.resource,
        before: e.before,
        after: e.after,
      })),
      ...(page.next !== undefined ? { next: page.next } : {}),
    });
  });
}

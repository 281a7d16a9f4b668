/**
 * `GET /api/v1/stats`: live decision rates per rule and the top throttled identities (`decision-tally.ts`),
 * plus the engine's counters; `recording: false` when no tally was given to the admin server.
 * `GET /api/v1/status`: the configuration in use (its version, the repository's as `GET /api/v1/rules` shows it, or
 * null while the engine runs the rules file as read at start; the engine's count of reloads applied since start;
 * source; when applied; the last refused update) and the repository it comes from:
 * `{ config: { version, reloads, source, loadedAt, lastError: null | { message, at } },
 *    repository: { location, appliedVersion, readOnly, readOnlyReason } }`. `readOnly`: the admin API refuses every
 * change of rules, tiers and overrides (409) because of where the rules come from (an envoyproxy/ratelimit file, a
 * rules file in a directory that cannot be written); `readOnlyReason` is then the refusal's own detail (`<file>:
 * <why and what to do>`), else null. Limits resets are not configuration changes: they work either way.
 */
import type { FastifyInstance } from "fastify";
import type { AdminContext } from "./admin-context.js";
import { isoOf, sendResource } from "./admin-request.js";

/** Registers the stats and status routes on `app` (under the `/api/v1` prefix). */
export function registerStatsRoutes(app: FastifyInstance, ctx: AdminContext): void {
  app.get("/stats", async (request, reply) => {
    const snapshot = ctx.tally?.snapshot();
    const nowMs = snapshot?.atMs ?? ctx.clock.nowMs();
    return sendResource(request, reply, {
      at: isoOf(nowMs),
      recording: snapshot !== undefined,
      rateWindowMs: snapshot?.rateWindowMs ?? null,
      rules: snapshot?.rules ?? [],
      topThrottled: snapshot?.topThrottled ?? [],
      engine: ctx.engine.stats,
    });
  });

  app.get("/status", async (request, reply) => {
    const s = ctx.engine.status;
    const readOnlyReason = ctx.repository.readOnlyReason;
    return sendResource(request, reply, {
      config: {
        version: s.configVersion ?? null,
        reloads: s.reloads,
        source: s.configSource ?? null,
        loadedAt: isoOf(s.loadedAtMs),
        lastError:
          s.lastError === undefined ? null : { message: s.lastError.message, at: isoOf(s.lastError.atMs) },
      },
      repository: {
        location: ctx.repository.location,
        appliedVersion: ctx.appliedVersion,
        readOnly: readOnlyReason !== undefined,
        readOnlyReason: readOnlyReason ?? null,
      },
    });
  });
}

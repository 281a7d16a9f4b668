/**
 * The admin server: a Fastify app for its own port (never the data plane's) with the versioned REST API under
 * `/api/v1` and the dashboard at `/dashboard/`.
 *
 * **Routes** (`rule-routes.ts`, `user-routes.ts`, `audit-routes.ts`, `reset-routes.ts`, `stats-routes.ts`):
 * rules CRUD, an identity's effective limits with usage, its tier and overrides, the audit log, counter resets,
 * live stats and status. Every write goes through `AdminContext.write` (conditional on `If-Match`, validated by
 * the configuration schema, audited with before / after) except resets, which are audited directly.
 *
 * **Configuration.** Every snapshot the repository reports (`watch`), and the one it holds when the server
 * becomes ready, is applied to the engine; a snapshot the engine refuses is logged and shows in
 * `engine.status.lastError` (and `GET /status`), and the previous configuration stays in force. A write also
 * applies its own snapshot before answering, so a check right after a `200` sees the change; a write whose result
 * the engine could not enforce is refused before it is persisted.
 *
 * **Safety.** Every `/api/v1` request first counts against the admin API's own limits (`admin-rate-limit.ts`:
 * per token, or per client address without a valid one; 429 with `RateLimit-Policy` / `RateLimit` / `Retry-After`
 * and problem details naming the violated policy), then is authenticated: writes always need
 * `Authorization: Bearer <token>`, reads only with `readAccess: "token"`; a missing or wrong token answers 401
 * with `WWW-Authenticate: Bearer`. A presented token that is wrong is refused even on open reads. Tokens are never
 * logged. Errors are problem details (`application/problem+json`): a repository or audit log that cannot be reached
 * or opened (`ERR_SLUICE_STORE_UNAVAILABLE`, `…_STORE_TIMEOUT`, `…_STORE_CLOSED`, `…_FILE_NOT_WRITABLE`) answers 503
 * with its message, which names the file or store; only an error nothing expected answers 500.
 *
 * The caller owns the engine, repository, audit log and tally: closing the server only stops watching the
 * repository and releases the admin limiter.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from "fastify";
import type { Clock } from "../../core/clock.js";
import { ConfigError, InvalidArgumentError, SluiceError } from "../../core/errors.js";
import type { Engine } from "../../engine/engine.js";
import { type AdminContext, type AdminLogger, configProblem, createAdminContext } from "./admin-context.js";
import { AdminProblem, type ProblemKind } from "./admin-problem.js";
import { type AdminLimits, createAdminRateLimiter } from "./admin-rate-limit.js";
import { MAX_IDENTITY_PARAM_LENGTH } from "./admin-request.js";
import { type AdminTokens, BEARER_TOKEN_CHARS } from "./admin-tokens.js";
import type { AuditLog } from "./audit-log.js";
import { registerAuditRoutes } from "./audit-routes.js";
import type { ConfigRepository } from "./config-repository.js";
import { registerDashboardRoutes } from "./dashboard-routes.js";
import type { DecisionTally } from "./decision-tally.js";
import { registerResetRoutes } from "./reset-routes.js";
import { registerRuleRoutes } from "./rule-routes.js";
import { registerStatsRoutes } from "./stats-routes.js";
import { registerUserRoutes } from "./user-routes.js";

/** Who may read the admin API. */
export type AdminReadAccess = "open" | "token";

/** Options of {@link createAdminServer}. */
export interface AdminServerOptions {
  /** The data plane's engine: receives every configuration snapshot; peeked for usage, reset on request. */
  readonly engine: Engine;
  /** Where the editable configuration lives (file or Redis). */
  readonly repository: ConfigRepository;
  /** Where every change is recorded. */
  readonly audit: AuditLog;
  /** The bearer tokens allowed to write (and to read, with `readAccess: "token"`). */
  readonly tokens: AdminTokens;
  /** Time for override expiries, rates and the admin limits (the engine's clock). */
  readonly clock: Clock;
  /** Reads open to anyone who can reach the port, or token-only. */
  readonly readAccess: AdminReadAccess;
  /** The admin API's own limits per client per minute. @default { readsPerMinute: 1000, writesPerMinute: 100 } */
  readonly limits?: AdminLimits;
  /** Decision counts recorded by the data plane, for `/stats` and the dashboard. */
  readonly tally?: DecisionTally;
  /** Event log (changes, refused configurations, internal errors); tokens are never passed to it. */
  readonly log?: AdminLogger;
  /** Largest request body, bytes. @default 262_144 */
  readonly bodyLimitBytes?: number;
}

/** The admin API's path prefix. */
export const ADMIN_API_PREFIX = "/api/v1";

/** `Bearer <token>`; the token's characters are the ones the token loader accepts. */
const BEARER = new RegExp(`^Bearer[ \\t]+([${BEARER_TOKEN_CHARS}]+)[ \\t]*$`, "i");

/** What the Authorization header says: no credentials, a valid token's name, or a refused one. */
type Credentials =
  | { readonly kind: "none" }
  | { readonly kind: "valid"; readonly name: string }
  | { readonly kind: "invalid" };

function credentialsOf(request: FastifyRequest, tokens: AdminTokens): Credentials {
  const header = request.headers.authorization;
  if (header === undefined || header === "") return { kind: "none" };
  const m = BEARER.exec(header);
  if (m === null) return { kind: "invalid" };
  const name = tokens.verify(m[1]);
  return name === undefined ? { kind: "invalid" } : { kind: "valid", name };
}

/** The status and kind of a Fastify error (body parsing, media type, size). */
function fastifyProblem(error: FastifyError): { status: number; kind: ProblemKind } | undefined {
  const status = error.statusCode;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  if (status === 413) return { status, kind: "payload-too-large" };
  if (status === 415) return { status, kind: "unsupported-media-type" };
  return { status, kind: "invalid-request" };
}

/**
 * Creates the admin server (not listening: call `listen` on the answer, on the admin port). See the module
 * comment; throws `ERR_SLUICE_INVALID_ARGUMENT` for bad options.
 */
export function createAdminServer(options: AdminServerOptions): FastifyInstance {
  if (options.readAccess !== "open" && options.readAccess !== "token") {
    throw new InvalidArgumentError(
      `readAccess must be "open" or "token", got ${JSON.stringify(options.readAccess)}`,
    );
  }
  const limiter = createAdminRateLimiter(options.clock, options.limits);
  const ctx: AdminContext = createAdminContext({
    engine: options.engine,
    repository: options.repository,
    audit: options.audit,
    clock: options.clock,
    ...(options.tally !== undefined ? { tally: options.tally } : {}),
    ...(options.log !== undefined ? { log: options.log } : {}),
  });
  const log = options.log;
  // Every identity the API accepts fits a path parameter URL-encoded (Fastify's default, 100, answered 414).
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? 262_144,
    routerOptions: { maxParamLength: MAX_IDENTITY_PARAM_LENGTH },
  });

  const unwatch = options.repository.watch((snapshot) => ctx.apply(snapshot));
  app.addHook("onReady", async () => {
    try {
      ctx.apply(await options.repository.load());
    } catch (error) {
      // The engine keeps its configuration; the watch delivers the repository's once it is reachable.
      log?.error({ err: (error as Error).message }, "admin: cannot load the configuration repository");
    }
  });
  app.addHook("onClose", async () => {
    unwatch();
    await limiter.close();
  });

  app.setErrorHandler((error, _request, reply) => {
    let problem: AdminProblem;
    if (error instanceof AdminProblem) problem = error;
    else if (error instanceof ConfigError) problem = configProblem(error, undefined);
    else if (error instanceof InvalidArgumentError) {
      problem = new AdminProblem(400, "invalid-request", { detail: error.message });
    } else if (error instanceof SluiceError && error.code === "ERR_SLUICE_UNSUPPORTED") {
      problem = new AdminProblem(409, "conflict", { detail: error.message });
    } else if (
      error instanceof SluiceError &&
      (error.code === "ERR_SLUICE_STORE_UNAVAILABLE" ||
        error.code === "ERR_SLUICE_STORE_TIMEOUT" ||
        error.code === "ERR_SLUICE_STORE_CLOSED")
    ) {
      log?.error({ err: error.message }, "admin: store unavailable");
      problem = new AdminProblem(503, "unavailable", {
        detail: error.message,
        headers: { "Retry-After": "1" },
      });
    } else if (error instanceof SluiceError && error.code === "ERR_SLUICE_FILE_NOT_WRITABLE") {
      // A file of the admin API (the audit log) whose directory cannot be written: no retry will fix it soon.
      log?.error({ err: error.message }, "admin: file not writable");
      problem = new AdminProblem(503, "unavailable", { detail: error.message });
    } else {
      const known = fastifyProblem(error as FastifyError);
      if (known !== undefined) {
        problem = new AdminProblem(known.status, known.kind, {
          detail: (error as Error).message,
          ...(known.kind === "invalid-request"
            ? { errors: [{ field: "", message: (error as Error).message }] }
            : {}),
        });
      } else {
        log?.error({ err: (error as Error).message, stack: (error as Error).stack }, "admin: internal error");
        problem = new AdminProblem(500, "internal", { detail: "internal error; see the server log" });
      }
    }
    if (problem.options.headers !== undefined) reply.headers(problem.options.headers);
    return reply.code(problem.status).type("application/problem+json").send(problem.body());
  });

  app.setNotFoundHandler((request, reply) => {
    const problem = new AdminProblem(404, "not-found", {
      detail: `no route ${request.method} ${request.url.split("?")[0]}`,
    });
    return reply.code(404).type("application/problem+json").send(problem.body());
  });

  registerDashboardRoutes(app);

  app.register(
    async (api) => {
      api.addHook("onRequest", async (request, reply) => {
        const kind = request.method === "GET" || request.method === "HEAD" ? "read" : "write";
        const credentials = credentialsOf(request, options.tokens);
        const client = credentials.kind === "valid" ? `token:${credentials.name}` : `ip:${request.ip}`;
        const answer = limiter.check(kind, client);
        reply.headers(answer.headers);
        if (!answer.allowed) {
          throw new AdminProblem(429, "quota-exceeded", {
            detail: `the admin API allows ${kind === "read" ? "reads" : "writes"} at a limited rate per ${credentials.kind === "valid" ? "token" : "client address"}; retry after the time in Retry-After`,
            extra: { "violated-policies": answer.violated },
          });
        }
        if (credentials.kind === "invalid") {
          throw new AdminProblem(401, "unauthorized", {
            detail: "the bearer token is not valid",
            headers: { "WWW-Authenticate": 'Bearer realm="sluice-admin", error="invalid_token"' },
          });
        }
        if (credentials.kind === "none" && (kind === "write" || options.readAccess === "token")) {
          throw new AdminProblem(401, "unauthorized", {
            detail: `${kind === "write" ? "changes" : "reads"} need Authorization: Bearer <token>`,
            headers: { "WWW-Authenticate": 'Bearer realm="sluice-admin"' },
          });
        }
        if (credentials.kind === "valid") ctx.setActor(request, credentials.name);
      });
      registerRuleRoutes(api, ctx);
      registerUserRoutes(api, ctx);
      registerAuditRoutes(api, ctx);
      registerResetRoutes(api, ctx);
      registerStatsRoutes(api, ctx);
      api.setNotFoundHandler((request, reply) => {
        const problem = new AdminProblem(404, "not-found", {
          detail: `no route ${request.method} ${request.url.split("?")[0]}`,
        });
        return reply.code(404).type("application/problem+json").send(problem.body());
      });
    },
    { prefix: ADMIN_API_PREFIX },
  );
  return app;
}

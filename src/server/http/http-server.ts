/**
 * The service's HTTP surface (fastify 5), built but not listening (`sluice serve` calls `listen`):
 *
 * | route | methods | answer |
 * |---|---|---|
 * | `/v1/check` | POST | the check API as JSON (check-route.ts) |
 * | `/v1/auth` | any | forward-auth for nginx / Caddy / Traefik (forward-auth.ts) |
 * | `/metrics` | GET, HEAD | Prometheus text (`ctx.metrics.render()`) |
 * | `/healthz` | GET, HEAD | 200 `{"status":"ok"}` while the process runs |
 * | `/readyz` | GET, HEAD | 200 when `options.readiness()` says ready, else 503; `{"status", "checks"}` |
 *
 * Every failure is an RFC 9457 `application/problem+json` body: 400 naming the field (bad JSON, bad UTF-8, a bad
 * URL and malformed HTTP included), 404 for unknown paths, 405 (with `Allow`) for other methods of known paths,
 * 413 over `bounds.maxBodyBytes`, 415 for a non-JSON check body, 503 when the in-flight gate refuses or the
 * store is unreachable, 500 for anything unexpected (logged). `/v1/check` and `/v1/auth` go through the in-flight
 * gate and are recorded in `sluice_requests_total` / `sluice_request_duration_seconds` (timed on `ctx.stopwatch`
 * from the request's arrival, body reading included); the operational routes are neither gated nor recorded,
 * so probes and scrapes still answer under overload. Request bodies are read only up to the limit (also on
 * routes that ignore them), and a request must arrive within `requestTimeoutMs`.
 *
 * **Per-request cost.** The data plane's routes carry no fastify hook: the arrival instant is stamped on the raw
 * request by the `node:http` server itself (`serverFactory`; requests injected with `app.inject`, which bypass
 * the server, are timed from their handler). fastify is given no logger instance (with one, it timestamps every
 * reply and listens to its `finish`, for request logs that are disabled anyway); the per-request logger it
 * creates is a {@link LazyRequestLogger} over the service's `http` logger, which builds the pino child (with its
 * `reqId`) only when something logs. On a store with a synchronous path (memory) the check runs synchronously
 * (`engine.checkSync`) and the answer is written in the same turn as the request's last byte: an answer sent
 * from a later microtask costs the `node:http` server measurably more per request (about 2 µs on `/v1/auth`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import { InvalidArgumentError } from "../../core/errors.js";
import type { CheckRequest, CheckResult } from "../../engine/engine.js";
import { isSyncStore } from "../../stores/store.js";
import { invalidRequestProblem, PROBLEM_CONTENT_TYPE, statusProblem } from "../problem-details.js";
import type { RateLimitHeaderOptions } from "../rate-limit-headers.js";
import type { ServiceApi, ServiceContext, ServiceOutcome } from "../service-context.js";
import { registerCheckRoute } from "./check-route.js";
import { DEFAULT_IPV6_PREFIX_LENGTH } from "./client-address.js";
import {
  compileTemplates,
  DEFAULT_FORWARD_AUTH_TEMPLATES,
  type ForwardAuthAttribute,
  type ForwardAuthSetup,
  registerForwardAuthRoute,
  slotCount,
} from "./forward-auth.js";
import { errorAnswer, type RouteKit, sendProblem } from "./http-reply.js";
import { LazyRequestLogger } from "./lazy-request-logger.js";

/** Where the `node:http` server stamps a request's arrival (`ctx.stopwatch` ms) on the raw request. */
const ARRIVAL_MS = Symbol("sluice.arrivalMs");

/** A raw request with its arrival stamp. */
type StampedRequest = IncomingMessage & { [ARRIVAL_MS]?: number };

/** What `/readyz` reports: ready or not, and each check's state. */
export interface Readiness {
  /** Whether the service should receive traffic. */
  readonly ready: boolean;
  /** Each check (e.g. `store`, `config`) by name: whether it passes, and what it found. */
  readonly checks: Readonly<Record<string, { readonly ok: boolean; readonly detail?: string }>>;
}

/**
 * The domain of forward-auth checks when none is configured (neither `forwardAuth.domain` nor a default domain):
 * `edge`, the domain of the edge proxy's per-address limits in examples/sluice.yaml.
 */
export const DEFAULT_FORWARD_AUTH_DOMAIN = "edge";

/** The default header carrying the authenticated user of a forward-auth subrequest. */
export const DEFAULT_USER_HEADER = "x-user-id";

/** The default header holding the client address (before `X-Forwarded-For`). */
export const DEFAULT_ADDRESS_HEADER = "x-real-ip";

/** The default time a whole request may take to arrive, ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** Forward-auth settings (`/v1/auth`); see forward-auth.ts and client-address.ts. */
export interface ForwardAuthOptions {
  /** The domain whose rules apply. @default DEFAULT_FORWARD_AUTH_DOMAIN ("edge") */
  readonly domain?: string;
  /** The header carrying the authenticated user (case-insensitive). @default "x-user-id" */
  readonly userHeader?: string;
  /**
   * Descriptor templates: each a list of attributes (`remote_address`, `user`, `endpoint`, `method`,
   * `header:<name>`), or one string of them separated by `,`.
   * @default [["remote_address"], ["user"], ["user", "endpoint"]]
   */
  readonly descriptors?: readonly (string | readonly ForwardAuthAttribute[] | readonly string[])[];
  /** Status of a denial: 429, or 403 for nginx `auth_request` (which passes on only 2xx, 401 and 403). @default 429 */
  readonly denyStatus?: 429 | 403;
  /** Trusted proxies in front of the one next to Sluice (which `X-Forwarded-For` entry, from the right). @default 0 */
  readonly trustedProxyHops?: number;
  /** Header holding the client address, read before `X-Forwarded-For`; `""` to skip it. @default "x-real-ip" */
  readonly addressHeader?: string;
  /** Bits of an IPv6 client address kept (the rest masked); 128 keeps it whole. @default 64 */
  readonly ipv6PrefixLength?: number;
}

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions {
  /** The domain of check requests that name none; undefined: `domain` is required. */
  readonly defaultDomain: string | undefined;
  /** What `/readyz` reports; a rejection answers 503. */
  readonly readiness: () => Promise<Readiness>;
  /** Send draft-10's `RateLimit-Policy` and `RateLimit` headers. @default true */
  readonly standardHeaders?: boolean;
  /** Send the legacy `X-RateLimit-Limit/Remaining/Reset` trio. @default false */
  readonly legacyHeaders?: boolean;
  /** Send `RateLimit-State` (normal / warning / throttled). @default true */
  readonly stateHeader?: boolean;
  /** Forward-auth settings; the domain defaults to the default domain, else {@link DEFAULT_FORWARD_AUTH_DOMAIN}. */
  readonly forwardAuth?: ForwardAuthOptions;
  /** Longest time a whole request may take to arrive, ms (0: no limit). @default 10_000 */
  readonly requestTimeoutMs?: number;
}

/** Every path with its own routes and the methods they answer (others get 405). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  "/v1/check": ["POST"],
  "/metrics": ["GET", "HEAD"],
  "/healthz": ["GET", "HEAD"],
  "/readyz": ["GET", "HEAD"],
};

/** The reason phrases `clientErrorHandler` writes. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_TIMEOUT: 408,
};

/** Answers malformed HTTP (before fastify sees a request) with a problem body, then closes the connection. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A response still owed on this connection (an earlier, pipelined request): a raw 400 now would be read as its
  // answer, so the connection is closed instead.
  const owed = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  if (error.code === "ECONNRESET" || error.code === "EPIPE" || !socket.writable || owed != null) {
    socket.destroy();
    return;
  }
  const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? 400;
  const problem = statusProblem(
    status,
    status === 400 ? "The request is not valid HTTP/1.1." : error.message,
  );
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${status} ${problem.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The forward-auth setup from the options (validated; throws `InvalidArgumentError` naming the option). */
function forwardAuthSetup(options: HttpServerOptions): ForwardAuthSetup {
  const fa = options.forwardAuth ?? {};
  const hops = fa.trustedProxyHops ?? 0;
  if (!Number.isInteger(hops) || hops < 0 || hops > 64) {
    throw new InvalidArgumentError(
      `forwardAuth.trustedProxyHops must be a whole number from 0 to 64, got ${hops}`,
    );
  }
  const prefix = fa.ipv6PrefixLength ?? DEFAULT_IPV6_PREFIX_LENGTH;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 128) {
    throw new InvalidArgumentError(
      `forwardAuth.ipv6PrefixLength must be a whole number from 0 to 128, got ${prefix}`,
    );
  }
  const denyStatus = fa.denyStatus ?? 429;
  if (denyStatus !== 429 && denyStatus !== 403) {
    throw new InvalidArgumentError(`forwardAuth.denyStatus must be 429 or 403, got ${String(denyStatus)}`);
  }
  const userHeader = (fa.userHeader ?? DEFAULT_USER_HEADER).toLowerCase();
  if (userHeader === "") throw new InvalidArgumentError("forwardAuth.userHeader must be a header name");
  const domain = fa.domain ?? options.defaultDomain ?? DEFAULT_FORWARD_AUTH_DOMAIN;
  const templates = compileTemplates(fa.descriptors ?? DEFAULT_FORWARD_AUTH_TEMPLATES);
  return {
    domain: domain === "" ? DEFAULT_FORWARD_AUTH_DOMAIN : domain,
    templates,
    slots: slotCount(templates),
    userHeader,
    denyStatus,
    address: {
      addressHeader: (fa.addressHeader ?? DEFAULT_ADDRESS_HEADER).toLowerCase(),
      trustedHops: hops,
      ipv6PrefixLength: prefix,
    },
  };
}

/** Creates the HTTP server (see the module comment); throws `InvalidArgumentError` for invalid options. */
export function createHttpServer(ctx: ServiceContext, options: HttpServerOptions): FastifyInstance {
  const auth = forwardAuthSetup(options);
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const logLevel = ctx.log.levelVal > 40 ? ctx.log.level : "warn";
  const stopwatch = ctx.stopwatch;
  // No `loggerInstance`: with one, fastify also stamps and listens to every response (for request logs, which are
  // disabled here). Requests still log fastify's own warnings, lazily, on the `http` logger.
  const httpLog = ctx.log.child({ component: "http" }, { level: logLevel });
  const app = Fastify({
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (_nullLogger, bindings, childOptions) =>
      new LazyRequestLogger(httpLog, bindings, childOptions),
    // fastify's own server (http.createServer and the same four settings), plus the arrival stamp.
    serverFactory: (handler, opts) => {
      const server = createServer((req: StampedRequest, res: ServerResponse) => {
        req[ARRIVAL_MS] = stopwatch.nowMs();
        handler(req, res);
      });
      // fastify has filled in its defaults by now.
      const o = opts as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      const perSocket = (opts as { maxRequestsPerSocket?: number }).maxRequestsPerSocket ?? 0;
      server.keepAliveTimeout = o.keepAliveTimeout;
      server.requestTimeout = o.requestTimeout;
      server.setTimeout(o.connectionTimeout);
      if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
      return server;
    },
    bodyLimit: ctx.bounds.maxBodyBytes,
    requestTimeout,
    return503OnClosing: true,
    clientErrorHandler,
    frameworkErrors: (error, _request, reply) => {
      sendProblem(reply, invalidRequestProblem(`url is not valid: ${error.message.slice(0, 200)}`, "url"));
    },
  }) as unknown as FastifyInstance;

  const record = (api: ServiceApi, outcome: ServiceOutcome, request: FastifyRequest): void => {
    const now = stopwatch.nowMs();
    ctx.metrics.recordRequest(api, outcome, now - ((request.raw as StampedRequest)[ARRIVAL_MS] ?? now));
  };
  const fail = (api: ServiceApi, request: FastifyRequest, reply: FastifyReply, error: unknown): void => {
    ctx.gate.leave();
    const answer = errorAnswer(error, ctx.log, ctx.bounds.maxBodyBytes);
    record(api, answer.outcome, request);
    sendProblem(reply, answer.problem);
  };
  const leave = ctx.gate.leave.bind(ctx.gate);
  /** Runs a gated request's `answer`; gives its gate slot back once it has sent (or its promise settled). */
  const settle = (
    api: ServiceApi,
    request: FastifyRequest,
    reply: FastifyReply,
    answer: Parameters<RouteKit["gated"]>[4],
    result: CheckResult | undefined,
    input: CheckRequest | undefined,
  ): void => {
    let done: Promise<void> | undefined;
    try {
      done = answer(result, input, request, reply);
    } catch (error) {
      fail(api, request, reply, error);
      return;
    }
    if (done === undefined) ctx.gate.leave();
    else done.then(leave, (error: unknown) => fail(api, request, reply, error));
  };
  // A store with a synchronous path (memory) is checked synchronously: see the module comment.
  const engine = ctx.engine;
  const check: RouteKit["check"] = isSyncStore(engine.store)
    ? (request) => engine.checkSync(request)
    : (request) => engine.check(request);
  const headerOptions: RateLimitHeaderOptions = {
    standard: options.standardHeaders !== false,
    legacy: options.legacyHeaders === true,
    state: options.stateHeader !== false,
  };
  const kit: RouteKit = {
    ctx,
    headerOptions,
    record,
    check,
    gated(api, request, reply, prepare, answer) {
      // Injected requests (`app.inject`, tests) bypass the server: timed from here, body reading excluded.
      (request.raw as StampedRequest)[ARRIVAL_MS] ??= stopwatch.nowMs();
      if (!ctx.gate.tryEnter()) {
        record(api, "overloaded", request);
        sendProblem(reply, statusProblem(503, "Too many requests in flight; retry shortly."), {
          "Retry-After": "1",
        });
        return;
      }
      let input: CheckRequest | undefined;
      let checked: CheckResult | Promise<CheckResult> | undefined;
      try {
        input = prepare(request);
        checked = input === undefined ? undefined : check(input);
      } catch (error) {
        fail(api, request, reply, error);
        return;
      }
      if (checked instanceof Promise) {
        const prepared = input;
        checked.then(
          (result) => settle(api, request, reply, answer, result, prepared),
          (error: unknown) => fail(api, request, reply, error),
        );
      } else settle(api, request, reply, answer, checked, input);
    },
  };

  // Bodies are read (up to the limit) and ignored everywhere but /v1/check, which parses JSON strictly.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: ctx.bounds.maxBodyBytes }, (_r, _b, done) =>
    done(null, undefined),
  );

  app.setErrorHandler((error, request, reply) => {
    const answer = errorAnswer(error, ctx.log, ctx.bounds.maxBodyBytes);
    const url = request.routeOptions.url;
    const api: ServiceApi | undefined =
      url === "/v1/check" ? "http_check" : url === "/v1/auth" ? "http_auth" : undefined;
    if (api !== undefined) record(api, answer.outcome, request);
    return sendProblem(reply, answer.problem);
  });
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(
      reply,
      statusProblem(
        404,
        "No such route; this service answers /v1/check, /v1/auth, /metrics, /healthz and /readyz.",
      ),
    ),
  );

  registerCheckRoute(app, kit, options.defaultDomain);
  registerForwardAuthRoute(app, kit, auth);

  app.get("/healthz", (_request, reply) => reply.type("application/json").send('{"status":"ok"}'));
  app.get("/readyz", async (_request, reply) => {
    let readiness: Readiness;
    try {
      readiness = await options.readiness();
    } catch (error) {
      readiness = {
        ready: false,
        checks: { readiness: { ok: false, detail: error instanceof Error ? error.message : String(error) } },
      };
    }
    const body = { status: readiness.ready ? "ready" : "not_ready", checks: readiness.checks };
    return reply
      .code(readiness.ready ? 200 : 503)
      .type("application/json")
      .send(JSON.stringify(body));
  });
  app.get("/metrics", async (_request, reply) => {
    const { contentType, body } = await ctx.metrics.render();
    return reply.type(contentType).send(body);
  });

  for (const [url, allowed] of Object.entries(ALLOWED)) {
    const others = app.supportedMethods.filter((m) => !allowed.includes(m));
    app.route({
      method: others,
      url,
      handler: (request: FastifyRequest, reply: FastifyReply) =>
        sendProblem(
          reply,
          statusProblem(405, `${url} answers ${allowed.join(", ")}, not ${request.method}.`),
          {
            Allow: allowed.join(", "),
          },
        ),
    });
  }
  return app;
}

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
 * 408 for a request that did not arrive in time, 413 over `bounds.maxBodyBytes`, 415 for a check body that is not
 * JSON or has a content coding (gzip), 431 for oversized header fields, 503 when the in-flight gate refuses or the
 * store is unreachable, 500 for anything unexpected (logged). `/v1/check` and `/v1/auth` go through the in-flight gate and are recorded in
 * `sluice_requests_total` / `sluice_request_duration_seconds` (timed on `ctx.stopwatch` from the request's
 * arrival, body reading included); the operational routes are neither gated nor recorded, so probes and scrapes
 * still answer under overload. Request bodies are read only up to the limit (also on routes that ignore them).
 *
 * **Malformed HTTP** is answered outside fastify's routes, with a problem and `Connection: close`, then the
 * connection is closed: the `node:http` server reports a bad request line or header, or a bad chunk of a chunked
 * body (its request already handed to fastify, which is reading the body), as a client error, answered by
 * `clientErrorHandler`; an HTTP/1.1 request without `Host` (RFC 9112 §3.2 requires the 400) is answered by the
 * server's request listener, Node's own check being off (it answers with an empty body). One case gets no answer:
 * bytes in error behind a complete request still being answered (pipelining), where an answer written now would
 * be read as that earlier request's; the connection is closed.
 *
 * **Drain** ({@link drainHttpServer}, the SIGTERM path; see http-drain.ts): the server stops accepting and closes
 * idle connections; a request still arriving on an open one is answered (503 from the draining gate, with
 * `Retry-After` and a detail saying the service is shutting down, where overload's says too many in flight), the
 * last answer on each connection saying `Connection: close`. Every request stamps its connection's latest request
 * for that (`HttpDrain.noteRequest`), and responses are `HttpDrain`'s `ServerResponse` subclass.
 *
 * **Request timeout.** A request must arrive whole, headers and body, within `requestTimeoutMs` of its first byte
 * (a slow client holds a connection and a parser, never a gate slot: the gate is entered once the body is in). The
 * `node:http` server enforces it with `requestTimeout` and `headersTimeout` (both set to it: Node's default gives
 * headers 60 s whatever `requestTimeout` says) on a sweep every `connectionsCheckingInterval` (Node's default is
 * 30 s, which let a 10 s timeout hold for up to 40 s): a tenth of the timeout, at most 1 s, so a stalled or
 * dripping request is answered 408 between 1× and 1.1× the timeout (at most 1 s late).
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
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import type { Scheduler } from "../../core/clock.js";
import { InvalidArgumentError } from "../../core/errors.js";
import type { CheckRequest, CheckResult } from "../../engine/engine.js";
import { isSyncStore } from "../../stores/store.js";
import {
  invalidRequestProblem,
  PROBLEM_CONTENT_TYPE,
  type ProblemDetails,
  statusProblem,
} from "../problem-details.js";
import type { RateLimitHeaderOptions } from "../rate-limit-headers.js";
import type { ServiceApi, ServiceContext, ServiceOutcome } from "../service-context.js";
import { registerCheckRoute } from "./check-route.js";
import { DEFAULT_IPV6_PREFIX_LENGTH } from "./client-address.js";
import {
  compileTemplates,
  DEFAULT_FORWARD_AUTH_TEMPLATES,
  FORWARD_AUTH_HEADER_NAMES,
  FORWARD_AUTH_HEADERS,
  type ForwardAuthAttribute,
  type ForwardAuthHeaders,
  type ForwardAuthSetup,
  registerForwardAuthRoute,
  slotCount,
} from "./forward-auth.js";
import { HttpDrain } from "./http-drain.js";
import { errorAnswer, type RouteKit, sendProblem } from "./http-reply.js";
import { LazyRequestLogger } from "./lazy-request-logger.js";

/** Where the `node:http` server stamps a request's arrival (`ctx.stopwatch` ms) on the raw request. */
const ARRIVAL_MS = Symbol("sluice.arrivalMs");

/** The drain of each server {@link createHttpServer} made, by its `node:http` server. */
const DRAINS = new WeakMap<Server, HttpDrain>();

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

/** The default header holding the client address (before `X-Forwarded-For` at 0 trusted hops). */
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
  /**
   * Trusted proxies in front of the one next to Sluice: which `X-Forwarded-For` entry, from the right, is the client;
   * above 0, that entry wins over the address header (client-address.ts). @default 0
   */
  readonly trustedProxyHops?: number;
  /**
   * Which headers carry the original URI and method: `x-forwarded` (`X-Forwarded-Uri` / `X-Forwarded-Method`:
   * Caddy, Traefik, nginx as README.md sets them) or `x-original` (`X-Original-URI` / `X-Original-Method`); the
   * other family is ignored (forward-auth.ts). @default "x-forwarded"
   */
  readonly headers?: ForwardAuthHeaders;
  /**
   * Header holding the client address, read before `X-Forwarded-For` at 0 hops, else only without it; `""` to skip
   * it. @default "x-real-ip"
   */
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

/** The status of a client error by its code (Node's own codes and llhttp's); any other is 400. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_TIMEOUT: 408,
};

/** The raw HTTP/1.1 answer of `problem`, closing the connection. */
function rawProblemResponse(problem: ProblemDetails): string {
  const body = JSON.stringify(problem);
  return (
    `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Answers malformed HTTP and requests that did not arrive in time (the server's `clientError`, before fastify
 * sees the request or while it reads its body) with a problem, then closes the connection (see the module
 * comment); `requestTimeoutMs` words the 408.
 */
function clientErrorHandler(requestTimeoutMs: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // The response Node has tied to the connection, if any: that of its oldest request not answered yet. While that
    // request is still arriving (`complete` false), the bytes in error are its own (a stalled or malformed body):
    // it is answered here, unless its answer has begun. When it is complete, they belong to a later, pipelined
    // request, and an answer now would be read as the earlier one's: the connection is closed instead.
    const owed = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    const answerable = owed == null || (!owed.req.complete && !owed.headersSent);
    if (error.code === "ECONNRESET" || error.code === "EPIPE" || !socket.writable || !answerable) {
      socket.destroy();
      return;
    }
    const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? 400;
    const detail =
      status === 408
        ? `The request did not arrive in full within ${requestTimeoutMs} ms.`
        : status === 431
          ? "The request's header fields are too large."
          : status === 413
            ? "The chunk extensions of the request body are too large."
            : "The request is not valid HTTP/1.1.";
    // Closed once the answer is flushed: a client that stalls or keeps sending must not hold the connection
    // half-open (the socket allows half-open connections, and no timeout watches it any more).
    socket.end(rawProblemResponse(statusProblem(status, detail)), () => socket.destroy());
  };
}

/**
 * The domain of forward-auth checks: `forwardAuth.domain`, else the default domain, else
 * {@link DEFAULT_FORWARD_AUTH_DOMAIN} (an empty name counts as none).
 */
export function forwardAuthDomainOf(
  options: Pick<HttpServerOptions, "defaultDomain" | "forwardAuth">,
): string {
  const domain = options.forwardAuth?.domain ?? options.defaultDomain ?? DEFAULT_FORWARD_AUTH_DOMAIN;
  return domain === "" ? DEFAULT_FORWARD_AUTH_DOMAIN : domain;
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
  const family = fa.headers ?? "x-forwarded";
  const names = Object.hasOwn(FORWARD_AUTH_HEADER_NAMES, family)
    ? FORWARD_AUTH_HEADER_NAMES[family]
    : undefined;
  if (names === undefined) {
    throw new InvalidArgumentError(
      `forwardAuth.headers must be ${FORWARD_AUTH_HEADERS.join(" or ")}, got ${JSON.stringify(family)}`,
    );
  }
  const templates = compileTemplates(fa.descriptors ?? DEFAULT_FORWARD_AUTH_TEMPLATES);
  return {
    domain: forwardAuthDomainOf(options),
    templates,
    slots: slotCount(templates),
    userHeader,
    uriHeader: names.uri,
    methodHeader: names.method,
    denyStatus,
    address: {
      addressHeader: (fa.addressHeader ?? DEFAULT_ADDRESS_HEADER).toLowerCase(),
      trustedHops: hops,
      ipv6PrefixLength: prefix,
    },
  };
}

/** The answer of an HTTP/1.1 request without `Host` (see the module comment). */
const MISSING_HOST_BODY = JSON.stringify(
  invalidRequestProblem("An HTTP/1.1 request must have a Host header.", "host"),
);

/**
 * How often the `node:http` server looks for requests past their timeout, ms, for a request timeout of
 * `requestTimeoutMs` (0: none; Node's default period then, with nothing to look for).
 */
export function connectionsCheckingIntervalOf(requestTimeoutMs: number): number {
  return requestTimeoutMs === 0 ? 30_000 : Math.max(1, Math.min(1000, Math.ceil(requestTimeoutMs / 10)));
}

/**
 * Drains `app`, a server made by {@link createHttpServer} (the SIGTERM path; see http-drain.ts): stops accepting,
 * answers what open connections are owed with `Connection: close`, closes idle ones. Resolves true once every
 * connection closed, false when `timeoutMs` (ms) passed first and the rest were destroyed. The same promise on
 * every call; throws `InvalidArgumentError` for another server.
 */
export function drainHttpServer(
  app: FastifyInstance,
  timeoutMs: number,
  scheduler?: Scheduler,
): Promise<boolean> {
  const drain = DRAINS.get(app.server);
  if (drain === undefined)
    throw new InvalidArgumentError("drainHttpServer: the server was not made by createHttpServer");
  return drain.start(app.server, timeoutMs, scheduler);
}

/** Creates the HTTP server (see the module comment); throws `InvalidArgumentError` for invalid options. */
export function createHttpServer(ctx: ServiceContext, options: HttpServerOptions): FastifyInstance {
  const auth = forwardAuthSetup(options);
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isSafeInteger(requestTimeout) || requestTimeout < 0) {
    throw new InvalidArgumentError(
      `requestTimeoutMs must be a whole number of milliseconds, 0 or more, got ${requestTimeout}`,
    );
  }
  const logLevel = ctx.log.levelVal > 40 ? ctx.log.level : "warn";
  const stopwatch = ctx.stopwatch;
  // No `loggerInstance`: with one, fastify also stamps and listens to every response (for request logs, which are
  // disabled here). Requests still log fastify's own warnings, lazily, on the `http` logger.
  const httpLog = ctx.log.child({ component: "http" }, { level: logLevel });
  const app = Fastify({
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (_nullLogger, bindings, childOptions) =>
      new LazyRequestLogger(httpLog, bindings, childOptions),
    // fastify's own server (http.createServer and the same four settings), plus the arrival stamp, the request
    // timeout on headers too, its sweep period, the Host check, and the drain's response class and mark of each
    // connection's latest request (see the module comment).
    serverFactory: (handler, opts) => {
      const drain = new HttpDrain();
      const server = createServer(
        {
          requestTimeout,
          headersTimeout: requestTimeout,
          connectionsCheckingInterval: connectionsCheckingIntervalOf(requestTimeout),
          requireHostHeader: false,
          ServerResponse: drain.ServerResponse,
        },
        (req: StampedRequest, res: ServerResponse) => {
          req[ARRIVAL_MS] = stopwatch.nowMs();
          HttpDrain.noteRequest(req);
          if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
            res.writeHead(400, {
              "Content-Type": PROBLEM_CONTENT_TYPE,
              "Content-Length": Buffer.byteLength(MISSING_HOST_BODY),
              Connection: "close",
            });
            res.end(MISSING_HOST_BODY);
            return;
          }
          handler(req, res);
        },
      );
      // fastify has filled in its defaults by now.
      const o = opts as { keepAliveTimeout: number; connectionTimeout: number };
      const perSocket = (opts as { maxRequestsPerSocket?: number }).maxRequestsPerSocket ?? 0;
      server.keepAliveTimeout = o.keepAliveTimeout;
      server.setTimeout(o.connectionTimeout);
      if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
      DRAINS.set(server, drain);
      return server;
    },
    bodyLimit: ctx.bounds.maxBodyBytes,
    requestTimeout,
    return503OnClosing: true,
    clientErrorHandler: clientErrorHandler(requestTimeout),
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
        // Draining is not overload: the refusal says this instance is going away, as gRPC's UNAVAILABLE does.
        const draining = ctx.gate.draining;
        record(api, draining ? "unavailable" : "overloaded", request);
        sendProblem(
          reply,
          statusProblem(
            503,
            draining
              ? "The service is shutting down; retry on another instance."
              : "Too many requests in flight; retry shortly.",
          ),
          { "Retry-After": "1" },
        );
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

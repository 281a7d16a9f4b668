/**
 * `sluice serve` as a library call: {@link startService} composes the service from its settings and runs it until
 * {@link RunningService.close}.
 *
 * **Start.** Tunes the process's V8 for a server (nextTick's shape pinned, allocation-site pretenuring off: see
 * `tick-shape.ts` and `disable-pretenuring.ts`), loads the rules file (a bad file fails the start, naming every
 * problem), builds the store (`service-store.ts`; for Redis it waits up to the connect timeout for the connection,
 * then serves anyway, the rules' failure policies answering until Redis is reachable), the engine (per-call store
 * timeout and fallback share from the settings), the context every adapter shares (metrics, the in-flight gate,
 * the logger, the wall clock and a monotonic stopwatch, the request bounds), then the HTTP and gRPC servers. With
 * `watch`, the rules file is reloaded on change; a refused version keeps the previous rules and makes /readyz
 * answer 503 with the error until a valid version is applied. One log line per endpoint says where it listens.
 *
 * **Readiness** (/readyz, and {@link RunningService.readiness}): `store` — a real round trip to every store node
 * (a `peek` of a private key, bounded by {@link READINESS_PROBE_TIMEOUT_MS}), its result cached for
 * {@link READINESS_CACHE_MS} (concurrent callers share one probe) so probes cannot hammer Redis; `config` — the
 * last reload was applied (no `status.lastError`), its detail naming the configuration in force by its version,
 * else its file's SHA-256 ({@link describeConfigInForce}); `forwardAuth` — the domain `/v1/auth` checks and how many
 * rules it has, never failing (see below); `shutdown` — present and failing once closing began.
 *
 * **A forward-auth domain without rules** makes `/v1/auth` allow every request without counting anything (a
 * domain without limits answers OK, as envoyproxy/ratelimit's does): the domain `edge` by default, or a typo in
 * `--auth-domain`. It is made visible rather than refused: a warning naming the domain and the rules' domains at
 * start and after every applied configuration (file reload or admin write) while it has none, and the
 * `forwardAuth` check's detail. It does not fail readiness: an empty domain can be intended while its rules are
 * being added through the admin API.
 *
 * **gRPC health** (`grpc.health.v1`) follows readiness, re-read every {@link READINESS_CACHE_MS}: NOT_SERVING while
 * the store is unreachable or a refused reload is in effect, as envoyproxy/ratelimit's health follows Redis.
 *
 * **Close** (the SIGTERM path): gRPC health turns NOT_SERVING and readiness false (`/readyz` 503, its `shutdown`
 * check saying draining); both servers stop accepting new connections and close idle ones; the in-flight gate
 * refuses new work (HTTP 503 with `Retry-After`, gRPC `UNAVAILABLE`) and waits up to `drainTimeoutMs` for
 * in-flight requests, delayed ones included, to finish. Each open connection closes once it has its answers: gRPC
 * sends GOAWAY; HTTP answers every request already received on it, even one that arrives during the drain, the
 * last answer saying `Connection: close` (see http/http-drain.ts). At `drainTimeoutMs` the connections still open
 * are closed by force (`drained: false`). Then the file watch stops, the admin API closes and the store closes,
 * each of these two within min(`drainTimeoutMs`, 1 s) per step (Redis QUIT included; past it connections are
 * dropped), so a Redis that stopped answering does not hang the shutdown. `close()` is idempotent: every call
 * returns the same promise.
 */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { type Clock, monotonicClock, type Scheduler, systemClock, systemScheduler } from "../core/clock.js";
import { InvalidArgumentError, SluiceError } from "../core/errors.js";
import { type ConfigWatcher, watchConfigFile } from "../engine/config-watcher.js";
import { type CheckResult, createEngine, type Engine } from "../engine/engine.js";
import { loadConfigFile } from "../rules/load-config.js";
import type { SluiceConfig } from "../rules/rule.js";
import { type RunningAdmin, startAdminService } from "./admin/admin-service.js";
import { loadAdminTokens } from "./admin/admin-tokens.js";
import { disablePretenuring } from "./disable-pretenuring.js";
import { createGrpcServer, type SluiceGrpcServer } from "./grpc/grpc-server.js";
import {
  createHttpServer,
  drainHttpServer,
  forwardAuthDomainOf,
  type HttpServerOptions,
  type Readiness,
} from "./http/http-server.js";
import { createInflightGate } from "./inflight-gate.js";
import type { ServiceContext } from "./service-context.js";
import { createServiceLogger } from "./service-logger.js";
import { createServiceMetrics } from "./service-metrics.js";
import { describeSettings, type ServiceSettings } from "./service-settings.js";
import { createServiceStore, type ServiceStore, within } from "./service-store.js";
import { pinTickObjectShape } from "./tick-shape.js";

/** How long a store readiness result is reused, ms (monotonic). */
export const READINESS_CACHE_MS = 1000;
/** Longest wait for each store node's answer to the readiness probe, ms. */
export const READINESS_PROBE_TIMEOUT_MS = 500;
/** Longest wait at start for Redis connections before serving anyway, ms. */
export const STORE_CONNECT_WAIT_MS = 3000;

/** What {@link startService} may be given instead of its defaults (tests). */
export interface ServiceDeps {
  /** The logger. @default createServiceLogger({ level: settings.logLevel }) */
  readonly log?: Logger;
  /** Wall clock: decisions, client timestamps, reset instants. @default systemClock */
  readonly clock?: Clock;
  /** Monotonic clock: latencies and the readiness cache. @default monotonicClock */
  readonly stopwatch?: Clock;
  /** Sleeps of the gRPC health loop (see the module comment). @default systemScheduler */
  readonly scheduler?: Scheduler;
  /** Builds the store instead of `createServiceStore` (tests). */
  readonly createStore?: (settings: ServiceSettings, log: Logger, clock: Clock) => Promise<ServiceStore>;
}

/** What {@link RunningService.close} reports. */
export interface CloseReport {
  /**
   * Whether every in-flight request finished and every connection closed within the drain timeout (false:
   * connections were cut).
   */
  readonly drained: boolean;
}

/** A started service. */
export interface RunningService {
  /** The interface both servers listen on. */
  readonly host: string;
  /** The HTTP server's bound port. */
  readonly httpPort: number;
  /** The gRPC server's bound port. */
  readonly grpcPort: number;
  /** The admin API's bound port; undefined with `--no-admin`. */
  readonly adminPort: number | undefined;
  /** The domain of requests that name none, if any. */
  readonly defaultDomain: string | undefined;
  /** The context the adapters share (engine, metrics, gate, logger, clocks, bounds). */
  readonly context: ServiceContext;
  /** The store's description (Redis passwords masked). */
  readonly storeDescription: string;
  /** Whether the service is ready to take traffic, and each check's state. */
  readiness(): Promise<Readiness>;
  /** Drains and stops; see the module comment. The same promise on every call. */
  close(): Promise<CloseReport>;
}

/** The domains the rules of `config` use, in first-seen order. */
export function domainsOf(config: SluiceConfig): string[] {
  return [...new Set(config.rules.map((r) => r.domain))];
}

/**
 * What names the configuration in force, in `/readyz` and the "rules applied" log. With a version (the admin API's
 * repository numbers every version: the rules file's managed header, or Redis's `<prefix>:config` `version`, the
 * one `GET /api/v1/rules` shows): that version. Without (a rules file read without the admin API, or while the admin
 * API waits for Redis): the SHA-256 of the file as read (what `sha256sum FILE` prints) and how many reloads the
 * engine applied since start, a count of this process's, named as such.
 */
export function configIdentity(
  config: SluiceConfig,
  reloads: number,
): { readonly version: number } | { readonly sha256: string | undefined; readonly reloads: number } {
  return config.version !== undefined
    ? { version: config.version }
    : { sha256: config.sourceSha256, reloads };
}

/** The `/readyz` detail of a configuration in force: its {@link configIdentity} and source. */
export function describeConfigInForce(config: SluiceConfig, reloads: number): string {
  const source = config.source ?? "(no file)";
  const id = configIdentity(config, reloads);
  if ("version" in id) return `version ${id.version} from ${source}`;
  return (
    `unversioned rules from ${source}${id.sha256 === undefined ? "" : ` (sha256 ${id.sha256})`}, ` +
    `${id.reloads} ${id.reloads === 1 ? "reload" : "reloads"} applied since start`
  );
}

/** The default domain: the setting, else the configuration's only domain, else none. */
export function resolveDefaultDomain(settings: ServiceSettings, config: SluiceConfig): string | undefined {
  if (settings.defaultDomain !== undefined) return settings.defaultDomain;
  const domains = domainsOf(config);
  return domains.length === 1 ? domains[0] : undefined;
}

/**
 * `/readyz`'s `forwardAuth` check: the domain `/v1/auth` checks and how many rules of `config` it has, or that it
 * has none and what the rules' domains are. Always passing (see the module comment).
 */
export function forwardAuthDomainCheck(
  domain: string,
  config: SluiceConfig,
): { readonly ok: true; readonly detail: string } {
  let rules = 0;
  for (const rule of config.rules) if (rule.domain === domain) rules++;
  if (rules > 0) return { ok: true, detail: `domain ${domain}: ${rules} rule${rules === 1 ? "" : "s"}` };
  const domains = domainsOf(config);
  return {
    ok: true,
    detail:
      `domain ${domain} has no rules: /v1/auth allows every request without counting it; ` +
      (domains.length === 0 ? "the rules name no domain" : `the rules' domains: ${domains.join(", ")}`),
  };
}

/** The HTTP server's options from the settings. */
export function httpOptionsOf(
  settings: ServiceSettings,
  defaultDomain: string | undefined,
  readiness: () => Promise<Readiness>,
): HttpServerOptions {
  return {
    defaultDomain,
    readiness,
    legacyHeaders: settings.legacyHeaders,
    forwardAuth: {
      domain: settings.authDomain ?? defaultDomain,
      userHeader: settings.authUserHeader,
      headers: settings.authHeaders,
      addressHeader: settings.authAddressHeader,
      ...(settings.authDescriptors !== undefined ? { descriptors: settings.authDescriptors } : {}),
      denyStatus: settings.authDenyStatus,
      trustedProxyHops: settings.trustedProxyHops,
    },
  };
}

/**
 * Listens, turning "address in use" and friends into an error naming the setting. Sluice's own errors pass
 * unchanged: raised before listening (the admin service's rules file held by another process, a bad document in
 * Redis), they name their own subject and are no failure to listen.
 */
async function listenOr<T>(what: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if (error instanceof SluiceError) throw error;
    // node:net sets `code`; grpc-js only names it in the message.
    const code =
      (error as NodeJS.ErrnoException).code ??
      /\b(EADDRINUSE|EADDRNOTAVAIL|EACCES)\b/.exec((error as Error).message ?? "")?.[1];
    const reason =
      code === "EADDRINUSE"
        ? "the address is in use"
        : code === "EADDRNOTAVAIL"
          ? "the address is not one of this machine's"
          : code === "EACCES"
            ? "permission denied (ports below 1024 need privileges)"
            : (error as Error).message;
    throw new InvalidArgumentError(`${what} ${port}: cannot listen on ${host}:${port}: ${reason}`);
  }
}

/** Starts the service described by `settings`; see the module comment. */
export async function startService(
  settings: ServiceSettings,
  deps: ServiceDeps = {},
): Promise<RunningService> {
  // Before the store's preallocation and the servers: see tick-shape.ts (nextTick's fast path across full GCs).
  pinTickObjectShape();
  // Before any request: see disable-pretenuring.ts (a request's objects must not be allocated as old ones).
  disablePretenuring();
  const log = deps.log ?? createServiceLogger({ level: settings.logLevel });
  const clock = deps.clock ?? systemClock;
  const stopwatch = deps.stopwatch ?? monotonicClock;
  const scheduler = deps.scheduler ?? systemScheduler;
  const loadOptions =
    settings.envoyAlgorithm !== undefined ? { envoyAlgorithm: settings.envoyAlgorithm } : {};
  const load = (path: string): Promise<SluiceConfig> => loadConfigFile(path, loadOptions);

  const config = await load(settings.configFile);
  log.info({ settings: describeSettings(settings) }, "starting");

  const storage: ServiceStore = await (deps.createStore ?? createServiceStore)(settings, log, clock);
  const cleanup: (() => Promise<void> | void)[] = [() => storage.close(settings.drainTimeoutMs)];
  const undo = async (): Promise<void> => {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch {
        // best effort while failing to start
      }
    }
  };

  try {
    // Wait for the connections, then one round trip: it loads the Redis script, so the first checks do not pay
    // for it (and risk the store timeout).
    const reachable =
      (await storage.connected(STORE_CONNECT_WAIT_MS)) && (await storage.probe(STORE_CONNECT_WAIT_MS)).ok;
    if (!reachable) {
      log.warn(
        { store: storage.description },
        "the store is not reachable yet: serving anyway, rules answer by their failure policy and /readyz reports it",
      );
    }
    const engine: Engine = createEngine({
      config,
      store: storage.store,
      clock,
      failure: { timeoutMs: settings.storeTimeoutMs, fallbackShare: settings.fallbackShare },
      counting: settings.counting,
    });
    cleanup.push(() => engine.close());
    engine.on("config", (e) =>
      log.info({ ...configIdentity(engine.config, e.reloads), source: e.source }, "rules applied"),
    );
    engine.on("configError", (e) =>
      log.error({ source: e.source, error: e.message }, "rules refused; the previous version stays in force"),
    );

    const defaultDomain = resolveDefaultDomain(settings, config);
    if (settings.defaultDomain !== undefined && !domainsOf(config).includes(settings.defaultDomain)) {
      log.warn({ defaultDomain }, "no rule uses the default domain: its requests match nothing");
    }
    const authDomain = forwardAuthDomainOf({
      defaultDomain,
      forwardAuth: { domain: settings.authDomain ?? defaultDomain },
    });

    // The admin side (its own port): the rules' source of truth from here on (file or Redis), and the tally of
    // decisions its dashboard shows, fed by the data plane's metrics.
    let admin: RunningAdmin | undefined;
    if (settings.admin) {
      const tokens = await loadAdminTokens(
        settings.adminTokensFile === undefined ? {} : { file: settings.adminTokensFile },
      );
      admin = await listenOr("--admin-port", settings.host, settings.adminPort, () =>
        startAdminService({
          engine,
          configFile: settings.configFile,
          ...loadOptions,
          ...(settings.store === "redis" ? { redis: settings } : {}),
          redisPrefix: settings.redisPrefix,
          ...(settings.auditFile === undefined ? {} : { auditFile: settings.auditFile }),
          tokens,
          readAccess: settings.adminReadAccess,
          clock,
          log,
          host: settings.host,
          port: settings.adminPort,
          watch: settings.watch,
        }),
      );
      const running = admin;
      cleanup.push(() => running.close());
    }

    // While the forward-auth domain has no rules, at start and after every applied configuration: see the module
    // comment. From here, once the admin API has applied its first version (its repository's, from the file or
    // Redis), so that the start is warned of once.
    const warnIfAuthDomainEmpty = (): void => {
      if (engine.hasDomain(authDomain)) return;
      const domains = domainsOf(engine.config);
      log.warn(
        { authDomain, domains },
        `no rule uses the forward-auth domain ${authDomain}: /v1/auth allows every request without counting it ` +
          `(the rules' domains: ${domains.length === 0 ? "none" : domains.join(", ")}; --auth-domain chooses it)`,
      );
    };
    warnIfAuthDomainEmpty();
    engine.on("config", warnIfAuthDomainEmpty);

    const gate = createInflightGate(settings.maxInflight, systemScheduler, settings.maxDelayed);
    const baseMetrics = createServiceMetrics(engine, { gate });
    const tally = admin?.tally;
    const context: ServiceContext = Object.freeze({
      engine,
      metrics:
        tally === undefined
          ? baseMetrics
          : {
              recordDecision(domain: string, result: CheckResult): void {
                baseMetrics.recordDecision(domain, result);
                tally.record(domain, result);
              },
              recordRequest: baseMetrics.recordRequest.bind(baseMetrics),
              render: baseMetrics.render.bind(baseMetrics),
            },
      gate,
      log,
      clock,
      stopwatch,
      bounds: Object.freeze({
        maxBodyBytes: settings.maxBodyBytes,
        maxBatchItems: settings.maxBatchItems,
        maxCost: settings.maxCost,
        maxClockSkewMs: settings.maxClockSkewMs,
      }),
    });

    let closing = false;
    let cached: { atMs: number; result: Promise<{ ok: boolean; detail: string }> } | undefined;
    const storeCheck = (): Promise<{ ok: boolean; detail: string }> => {
      const now = stopwatch.nowMs();
      if (cached === undefined || now - cached.atMs >= READINESS_CACHE_MS) {
        cached = { atMs: now, result: storage.probe(READINESS_PROBE_TIMEOUT_MS) };
      }
      return cached.result;
    };
    const readiness = async (): Promise<Readiness> => {
      const store = await storeCheck();
      const status = engine.status;
      const checks: Record<string, { ok: boolean; detail?: string }> = {
        store,
        config:
          status.lastError === undefined
            ? { ok: true, detail: describeConfigInForce(engine.config, status.reloads) }
            : { ok: false, detail: status.lastError.message },
        forwardAuth: forwardAuthDomainCheck(authDomain, engine.config),
      };
      if (closing) checks.shutdown = { ok: false, detail: "draining: shutting down" };
      return { ready: Object.values(checks).every((c) => c.ok), checks };
    };

    const http: FastifyInstance = createHttpServer(
      context,
      httpOptionsOf(settings, defaultDomain, readiness),
    );
    cleanup.push(() => http.close());
    await listenOr("--http-port", settings.host, settings.httpPort, () =>
      http.listen({ host: settings.host, port: settings.httpPort }),
    );
    const httpPort = (http.server.address() as AddressInfo).port;

    const grpc: SluiceGrpcServer = createGrpcServer(context, {
      transport: settings.grpcTransport,
      defaultDomain,
      maxMessageBytes: settings.maxBodyBytes,
      envoyHeaders: settings.envoyHeaders,
      maxReceiveBufferBytes: settings.grpcReceiveBufferBytes,
      maxConnections: settings.grpcMaxConnections,
      maxConnectionIdleMs: settings.grpcMaxConnectionIdleMs,
      handshakeTimeoutMs: settings.grpcHandshakeTimeoutMs,
    });
    cleanup.push(() => grpc.close(0));
    const grpcPort = await listenOr("--grpc-port", settings.host, settings.grpcPort, () =>
      grpc.listen(settings.host, settings.grpcPort),
    );
    grpc.setServing(true);
    // gRPC health follows readiness (store reachable, configuration applied), as envoyproxy/ratelimit's follows
    // Redis: re-read every READINESS_CACHE_MS (the probe's own cache), until closing turns it off for good.
    const healthStop = new AbortController();
    // The store was probed just above: the first re-read is one period on.
    void (async () => {
      for (;;) {
        await scheduler.sleep(READINESS_CACHE_MS, healthStop.signal).catch(() => undefined);
        if (closing) return;
        const ready = await readiness().then(
          (r) => r.ready,
          () => false,
        );
        if (closing) return;
        grpc.setServing(ready);
      }
    })();
    cleanup.push(() => healthStop.abort());

    let watcher: ConfigWatcher | undefined;
    // With the admin API on, its repository watches the rules file (or Redis) and applies every version.
    if (settings.watch && admin === undefined)
      watcher = watchConfigFile(settings.configFile, engine, { load });

    const hostForUrl = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
    log.info(
      { endpoint: "http", url: `http://${hostForUrl}:${httpPort}`, port: httpPort },
      "listening: HTTP /v1/check, /v1/auth, /metrics, /healthz, /readyz",
    );
    log.info(
      { endpoint: "grpc", address: `${hostForUrl}:${grpcPort}`, port: grpcPort, transport: grpc.transport },
      "listening: gRPC sluice.v1.RateLimiter, envoy.service.ratelimit.v3.RateLimitService, grpc.health.v1.Health",
    );
    if (admin !== undefined) {
      log.info(
        {
          endpoint: "admin",
          url: `http://${hostForUrl}:${admin.port}`,
          port: admin.port,
          config: admin.location,
        },
        "listening: admin /api/v1 (rules, users, audit, limits reset), dashboard /dashboard/",
      );
    }
    // The rules in force: the admin API may have replaced the file's by Redis's (Redis mode, native file).
    log.info(
      {
        store: storage.description,
        rules: engine.config.rules.length,
        domains: domainsOf(engine.config),
        defaultDomain,
        authDomain,
        // Whether edits of the rules file are applied (with the admin API on, its repository decides).
        watch: admin === undefined ? settings.watch : admin.watchesRulesFile,
      },
      "ready",
    );

    let closed: Promise<CloseReport> | undefined;
    const close = (): Promise<CloseReport> => {
      closed ??= (async (): Promise<CloseReport> => {
        closing = true;
        const drainMs = settings.drainTimeoutMs;
        log.info({ drainTimeoutMs: drainMs, inflight: context.gate.inflight }, "shutting down: draining");
        grpc.setServing(false);
        healthStop.abort();
        watcher?.close();
        // Both servers stop accepting and close each connection once its answers are out (HTTP: `Connection:
        // close`; gRPC: GOAWAY), cutting what remains at the drain timeout; the gate refuses new work meanwhile.
        const httpDrained = drainHttpServer(http, drainMs, systemScheduler);
        const grpcClosed = grpc.close(drainMs);
        const [gateDrained, httpClosed] = await Promise.all([context.gate.drain(drainMs), httpDrained]);
        const drained = gateDrained && httpClosed;
        if (!drained) {
          log.warn(
            { inflight: context.gate.inflight },
            "drain timeout: the remaining connections were closed",
          );
        }
        // fastify's own close (its hooks); its server has closed already.
        await Promise.all([http.close(), grpcClosed]);
        // Past the drain, each close step gets a bound, so a Redis that stopped answering cannot hang the shutdown.
        const closeMs = Math.min(drainMs, 1000) || 1;
        if (admin !== undefined) {
          // The admin cuts its own connections after closeMs and never rejects; the outer bound is a backstop.
          await within(admin.close(closeMs), 2 * closeMs, "admin close").catch((error: unknown) => {
            log.warn({ err: error }, "the admin API did not close in time");
          });
        }
        await engine.close();
        await storage.close(closeMs);
        log.info({ drained }, "stopped");
        return { drained };
      })();
      return closed;
    };

    return {
      host: settings.host,
      httpPort,
      grpcPort,
      adminPort: admin?.port,
      defaultDomain,
      context,
      storeDescription: storage.description,
      readiness,
      close,
    };
  } catch (error) {
    await undo();
    throw error;
  }
}

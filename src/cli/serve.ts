/**
 * `sluice serve`: runs the rate limit service (src/server/service.ts) until SIGTERM or SIGINT. Options come from
 * the settings table (src/server/service-settings.ts), so `sluice serve --help` lists every flag with its
 * `SLUICE_*` variable and default. Logs are JSON lines on stdout; once listening, a short human note on stderr
 * says where each endpoint is and gives ready-to-paste `curl` and `grpcurl` commands.
 *
 * Signals: the first SIGTERM/SIGINT drains and stops (exit 0); a second one exits at once (128 + signal number).
 * Bad settings or an invalid rules file exit 2 with one line per problem; an exception no handler caught is logged
 * (fatal) and exits 1.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { SluiceConfig } from "../rules/rule.js";
import { type RunningService, startService } from "../server/service.js";
import { createServiceLogger } from "../server/service-logger.js";
import {
  addSettingOptions,
  parseServiceSettings,
  type RawSettingFlags,
  type ServiceSettings,
} from "../server/service-settings.js";
import { CommandExit } from "./main.js";
import { formatDuration } from "./simulate.js";

/** The package's `proto/` directory (for the grpcurl example). */
const PROTO_DIR = fileURLToPath(new URL("../../proto", import.meta.url));

/** Exit codes of a second signal (128 + its number). */
const FORCED_EXIT: Readonly<Record<string, number>> = { SIGINT: 130, SIGTERM: 143 };

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A request body that exercises the configuration: a rule of the example domain with simple entries. */
export function exampleRequest(
  config: SluiceConfig,
  defaultDomain: string | undefined,
): {
  domain: string;
  descriptors: { entries: { key: string; value: string }[] }[];
} {
  const domain = defaultDomain ?? config.rules[0]?.domain ?? "default";
  const rule =
    config.rules.find(
      (r) =>
        r.domain === domain &&
        !r.blocked &&
        r.match.every((m) => m.value.kind === "any" || m.value.kind === "exact"),
    ) ?? config.rules.find((r) => r.domain === domain);
  const entries = (rule?.match ?? [{ key: "user", value: { kind: "any" } as const }]).map((m) => ({
    key: m.key,
    value:
      m.value.kind === "exact"
        ? m.value.value
        : m.value.kind === "prefix"
          ? `${m.value.prefix}example`
          : m.value.kind === "any"
            ? "demo"
            : "/example",
  }));
  return { domain, descriptors: [{ entries }] };
}

/** The note printed once the service listens: endpoints and commands to try. */
export function readyNote(
  running: RunningService,
  settings: ServiceSettings,
  config: SluiceConfig,
  cwd: string = process.cwd(),
): string {
  const host = ["0.0.0.0", "::", "[::]"].includes(running.host) ? "127.0.0.1" : running.host;
  const h = host.includes(":") ? `[${host}]` : host;
  const http = `http://${h}:${running.httpPort}`;
  const grpc = `${h}:${running.grpcPort}`;
  const body = exampleRequest(config, running.defaultDomain);
  const needsDomain = running.defaultDomain === undefined;
  const checkBody = JSON.stringify(needsDomain ? body : { descriptors: body.descriptors });
  const envoyBody = JSON.stringify({ ...body, hits_addend: 1 });
  const protoRel = relative(cwd, PROTO_DIR);
  const proto = existsSync(PROTO_DIR) ? (protoRel.startsWith("..") ? PROTO_DIR : protoRel || ".") : "proto";
  const user = body.descriptors[0].entries.find((e) => e.key === "user")?.value ?? "demo";
  const domains = [...new Set(config.rules.map((r) => r.domain))];
  return [
    `sluice serve: ready — rules ${settings.configFile} (${config.rules.length} rules; domains ${domains.join(", ") || "none"}${running.defaultDomain ? `; default ${running.defaultDomain}` : ""}), store ${running.storeDescription}`,
    `  HTTP  ${http}  POST /v1/check, GET /v1/auth (forward-auth), /metrics, /healthz, /readyz`,
    `  gRPC  ${grpc}  sluice.v1.RateLimiter, envoy.service.ratelimit.v3.RateLimitService, grpc.health.v1.Health`,
    ...(running.adminPort === undefined
      ? []
      : [
          `  Admin http://${h}:${running.adminPort}/api/v1 (bearer token for writes: SLUICE_ADMIN_TOKENS="name:secret"), dashboard http://${h}:${running.adminPort}/dashboard/`,
        ]),
    "",
    "Try it:",
    `  curl -s ${http}/v1/check -H 'content-type: application/json' \\`,
    `    -d ${shellQuote(checkBody)}`,
    `  curl -si ${http}/v1/auth -H ${shellQuote(`${settings.authAddressHeader || "x-forwarded-for"}: 192.0.2.7`)} \\`,
    `    -H ${shellQuote(`${settings.authUserHeader}: ${user}`)} -H '${settings.authHeaders}-uri: /api/v1/items'`,
    `  grpcurl -plaintext -import-path ${proto} -proto sluice/v1/rate_limiter.proto \\`,
    `    -d ${shellQuote(checkBody)} ${grpc} sluice.v1.RateLimiter/CheckRateLimit`,
    `  grpcurl -plaintext -import-path ${proto} -proto envoy/service/ratelimit/v3/rls.proto \\`,
    `    -d ${shellQuote(envoyBody)} ${grpc} envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`,
    "",
    `Stop with Ctrl-C or SIGTERM: in-flight requests get up to ${formatDuration(settings.drainTimeoutMs)} to finish.`,
  ].join("\n");
}

/** Runs the service with raw commander options until a signal stops it; resolves with the exit code. */
export async function runServe(raw: RawSettingFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const settings = parseServiceSettings(raw, env);
  const log = createServiceLogger({ level: settings.logLevel });
  // A bug that escapes every handler ends the process (a supervisor restarts it), logged as JSON like the rest.
  const die = (error: unknown, what: string): void => {
    log.fatal({ err: error }, what);
    process.exit(1);
  };
  process.on("uncaughtException", (error) => die(error, "uncaught exception"));
  process.on("unhandledRejection", (error) => die(error, "unhandled rejection"));
  const running = await startService(settings, { log });
  console.error(readyNote(running, settings, running.context.engine.config));
  return new Promise<number>((done) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      signals++;
      if (signals > 1) {
        log.warn({ signal }, "second signal: exiting without waiting");
        process.exit(FORCED_EXIT[signal] ?? 1);
      }
      log.info({ signal }, "signal received");
      running.close().then(
        () => done(0),
        (error: unknown) => {
          log.error({ err: error }, "shutdown failed");
          done(1);
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

/** Registers `sluice serve` on the program. */
export function registerServe(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "run the rate limit service: gRPC (sluice.v1 and Envoy RLS v3) and HTTP (/v1/check, forward-auth /v1/auth, /metrics, /healthz, /readyz)",
    )
    .addHelpText(
      "after",
      "\nEvery option can also be set by its SLUICE_* environment variable; a flag wins over the variable.\n" +
        "Durations: milliseconds or 250ms, 10s, 1m. Sizes: bytes or 64KiB, 1MiB.\n" +
        "Forward-auth (/v1/auth) reads the original URI and method from the one header family --auth-headers\n" +
        "names: the proxy must set those headers itself (nginx: proxy_set_header X-Forwarded-Uri $request_uri;\n" +
        "proxy_set_header X-Forwarded-Method $request_method;), as nginx passes the client's own headers on.\n" +
        "Example: sluice serve --config examples/sluice.yaml --store redis --redis redis://127.0.0.1:6379",
    );
  addSettingOptions(command);
  command.action(async (options: RawSettingFlags) => {
    const code = await runServe(options);
    // Everything is closed; if a stray handle keeps the loop alive, do not hang the shutdown.
    setTimeout(() => process.exit(code), 2000).unref();
    if (code !== 0) throw new CommandExit(code);
  });
}

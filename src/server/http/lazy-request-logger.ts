/**
 * The per-request logger of the HTTP server. fastify gives every request a child of its logger bound to the
 * request id (`reqId`); building a pino child serialises its bindings, a cost every request paid although the
 * data plane logs only failures. A {@link LazyRequestLogger} holds the parent and the bindings and builds the
 * child on the first log call, so the logs of a request are what they were (same bindings, same level).
 */
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from "pino";

/**
 * The logger fastify gives each request: the pino child with the request's bindings (`reqId`) is built on first
 * use, so requests that log nothing (all but failures) never pay for one.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  /** A logger that logs as `parent.child(bindings, options)`. */
  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, built once. */
  get logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  /** The level (of the parent until the child exists). */
  get level(): LevelWithSilentOrString {
    return (this.#child ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }

  /** Logs at `fatal`. */
  fatal: LogFn = (...args: Parameters<LogFn>) => this.logger.fatal(...args);
  /** Logs at `error`. */
  error: LogFn = (...args: Parameters<LogFn>) => this.logger.error(...args);
  /** Logs at `warn`. */
  warn: LogFn = (...args: Parameters<LogFn>) => this.logger.warn(...args);
  /** Logs at `info`. */
  info: LogFn = (...args: Parameters<LogFn>) => this.logger.info(...args);
  /** Logs at `debug`. */
  debug: LogFn = (...args: Parameters<LogFn>) => this.logger.debug(...args);
  /** Logs at `trace`. */
  trace: LogFn = (...args: Parameters<LogFn>) => this.logger.trace(...args);
  /** Logs nothing. */
  silent: LogFn = (...args: Parameters<LogFn>) => this.logger.silent(...args);

  /** A child of the request's logger. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/**
 * The per-request logger of the HTTP server. fastify gives every request a child of its logger bound to the
 * request id (`reqId`); building a pino child serialises its bindings, a cost every request paid although the
 * data plane logs only failures. A {@link LazyRequestLogger} holds the parent and the bindings and builds the
 * child on the first log call, so the logs of a request are what they were (same bindings, same level).
 *
 * **Per-request cost.** One object of three fields: the log methods live on the prototype (closures per instance
 * were seven allocations per request).
 */
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from "pino";

/** The arguments of a pino log call (any of `LogFn`'s overloads). */
type LogArgs = [unknown, ...unknown[]];

/** A log method taking any of `LogFn`'s overloads. */
type AnyLogFn = (...args: LogArgs) => void;

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
  fatal(...args: LogArgs): void {
    (this.logger.fatal as AnyLogFn)(...args);
  }

  /** Logs at `error`. */
  error(...args: LogArgs): void {
    (this.logger.error as AnyLogFn)(...args);
  }

  /** Logs at `warn`. */
  warn(...args: LogArgs): void {
    (this.logger.warn as AnyLogFn)(...args);
  }

  /** Logs at `info`. */
  info(...args: LogArgs): void {
    (this.logger.info as AnyLogFn)(...args);
  }

  /** Logs at `debug`. */
  debug(...args: LogArgs): void {
    (this.logger.debug as AnyLogFn)(...args);
  }

  /** Logs at `trace`. */
  trace(...args: LogArgs): void {
    (this.logger.trace as AnyLogFn)(...args);
  }

  /** Logs nothing. */
  silent(...args: LogArgs): void {
    (this.logger.silent as AnyLogFn)(...args);
  }

  /** A child of the request's logger. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

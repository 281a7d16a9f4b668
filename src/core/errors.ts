/**
 * Typed errors. A denial is never an error: it is a `Decision` with `allowed: false`. Errors are for bad input,
 * broken configuration and unreachable infrastructure; each carries a stable `code` (documented in
 * docs/error-codes.md) and a message that names the field, file or store concerned.
 */

/** Every error code Sluice raises. */
export type SluiceErrorCode =
  | "ERR_SLUICE_INVALID_ARGUMENT"
  | "ERR_SLUICE_INVALID_LIMIT"
  | "ERR_SLUICE_INVALID_CONFIG"
  | "ERR_SLUICE_UNKNOWN_LEASE"
  | "ERR_SLUICE_UNSUPPORTED"
  | "ERR_SLUICE_STORE_UNAVAILABLE"
  | "ERR_SLUICE_STORE_TIMEOUT"
  | "ERR_SLUICE_STORE_CLOSED"
  | "ERR_SLUICE_IDEMPOTENCY_PENDING"
  | "ERR_SLUICE_FILE_LOCKED"
  | "ERR_SLUICE_FILE_NOT_WRITABLE";

/** Base class of every Sluice error. */
export class SluiceError extends Error {
  /** Stable machine-readable code, `ERR_SLUICE_…`. */
  readonly code: SluiceErrorCode;

  /** Creates an error with a code and a message naming what is wrong. */
  constructor(code: SluiceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A caller passed a value that cannot be used (a negative cost, an empty key, …). */
export class InvalidArgumentError extends SluiceError {
  /** Creates an `ERR_SLUICE_INVALID_ARGUMENT` error naming the argument. */
  constructor(message: string) {
    super("ERR_SLUICE_INVALID_ARGUMENT", message);
  }
}

/** One problem found while parsing a limit or configuration: where it is and what is wrong. */
export interface ConfigIssue {
  /** Dotted path of the offending field, e.g. `limits[1].burst`. */
  readonly path: string;
  /** What is wrong with it. */
  readonly message: string;
  /** 1-based line in the source file, when parsed from a file. */
  readonly line?: number;
}

/** A limit specification or configuration is invalid; lists every issue found, not only the first. */
export class ConfigError extends SluiceError {
  /** Every problem found, in document order. */
  readonly issues: readonly ConfigIssue[];

  /** Creates an error listing `issues`; `source` (a file name) prefixes the message when known. */
  constructor(
    code: "ERR_SLUICE_INVALID_LIMIT" | "ERR_SLUICE_INVALID_CONFIG",
    issues: readonly ConfigIssue[],
    source?: string,
  ) {
    const where = (i: ConfigIssue): string =>
      `${source ? `${source}:${i.line !== undefined ? `${i.line}:` : ""} ` : ""}${i.path ? `${i.path}: ` : ""}`;
    super(code, issues.map((i) => `${where(i)}${i.message}`).join("\n"));
    this.issues = Object.freeze(issues.map((i) => Object.freeze({ ...i })));
  }
}

/** A store could not be reached or answered with an error; the failure policy decides what happens next. */
export class StoreUnavailableError extends SluiceError {
  /** Creates an error naming the store and the underlying cause. */
  constructor(store: string, message: string, cause?: unknown) {
    super("ERR_SLUICE_STORE_UNAVAILABLE", `${store}: ${message}`, { cause });
  }
}

/** A store call took longer than its timeout. */
export class StoreTimeoutError extends SluiceError {
  /**
   * Creates an error naming the store and the timeout that elapsed; `queued`: the call never left this process
   * (it waited in the store's own queue, see `CallTicket.queued`).
   */
  constructor(store: string, timeoutMs: number, queued = false) {
    super(
      "ERR_SLUICE_STORE_TIMEOUT",
      queued
        ? `${store}: not sent within ${timeoutMs} ms (queued in this process, which is behind; the store was not asked)`
        : `${store}: no answer within ${timeoutMs} ms`,
    );
  }
}

/** A file that takes one writer (the admin API's rules or audit file) is held by another live process. */
export class FileLockedError extends SluiceError {
  /** The file that is held. */
  readonly file: string;
  /** The lock file naming the holder. */
  readonly lockFile: string;
  /** The holder's process id. */
  readonly holderPid: number;
  /** The holder's host name. */
  readonly holderHost: string;

  /** Creates an `ERR_SLUICE_FILE_LOCKED` error naming the file, the holder's pid and host, and the lock file. */
  constructor(file: string, lockFile: string, holderPid: number, holderHost: string, use: string) {
    super(
      "ERR_SLUICE_FILE_LOCKED",
      `${file}: already in use by process ${holderPid} on ${holderHost} (lock file ${lockFile}); one process at a time may ${use}: stop the other one, use Redis mode for several instances, or delete the lock file if that process is not a sluice`,
    );
    this.file = file;
    this.lockFile = lockFile;
    this.holderPid = holderPid;
    this.holderHost = holderHost;
  }
}

/** The system error codes that say a directory cannot be written to, and what each means, in words. */
export const NOT_WRITABLE_CAUSES: Readonly<Record<string, string>> = {
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
};

/**
 * A file that takes one writer (the admin API's rules or audit file) sits in a directory this process cannot
 * create files in (its lock, its temp files): a read-only mount (a Kubernetes ConfigMap, a read-only root file
 * system) or a directory of another user.
 */
export class FileNotWritableError extends SluiceError {
  /** The file concerned. */
  readonly file: string;
  /** The directory that cannot be written. */
  readonly directory: string;
  /** The system error code that refused the write: `EROFS`, `EACCES` or `EPERM`. */
  readonly errno: string;
  /** What `errno` means, in words: `read-only file system`, `permission denied`, `operation not permitted`. */
  readonly meaning: string;
  /** What was being done, as the message says it (`cannot take its lock <path> to edit it through the admin API`). */
  readonly action: string;

  /**
   * Creates an `ERR_SLUICE_FILE_NOT_WRITABLE` error naming the file, the directory and why; `what` says what was
   * being done (`cannot take its lock <path> to edit it through the admin API`); `advice`, when given, ends the
   * message (`; <advice>`: which setting named the file, what to do).
   */
  constructor(
    file: string,
    directory: string,
    errno: string,
    what: string,
    cause?: unknown,
    advice?: string,
  ) {
    const meaning = Object.hasOwn(NOT_WRITABLE_CAUSES, errno) ? NOT_WRITABLE_CAUSES[errno] : "refused";
    super(
      "ERR_SLUICE_FILE_NOT_WRITABLE",
      `${file}: ${what}: the directory ${directory} cannot be written (${errno}: ${meaning})` +
        (advice === undefined ? "" : `; ${advice}`),
      { cause },
    );
    this.file = file;
    this.directory = directory;
    this.errno = errno;
    this.meaning = meaning;
    this.action = what;
  }
}

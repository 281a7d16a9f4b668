/**
 * The service's structured logger (pino, one JSON object per line) with credentials kept out of the output in
 * two layers:
 * 1. **By field**: the values of known secret fields (`authorization`, `cookie`, `x-api-key` headers, `password`,
 *    `token`, `secret` keys, any case) are censored wherever a log call puts them, up to five levels deep
 *    ({@link censorSecrets}); string values of those fields in a child logger's bindings are censored by the text
 *    pass below.
 * 2. **By text**: every finished line passes through {@link maskSecrets} before it is written, which censors
 *    `"<secret field>":"…"` string values, masks the password in any URL (`redis://user:pass@host` →
 *    `redis://user:***@host`; a user part without `:` may be a token and is masked whole) and `Bearer` / `Basic`
 *    credentials. This catches secrets inside messages and error strings (a Redis URL in a connection error),
 *    whatever field they sit in.
 * The service logs per event (start, reload, errors), never per request, so the text pass costs nothing that
 * matters.
 */
import pino, { type DestinationStream, type Logger } from "pino";

/** Log levels the logger accepts (pino's), quietest last. */
export type ServiceLogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

/** Options of {@link createServiceLogger}. */
export interface ServiceLoggerOptions {
  /** Least severe level written. @default "info" */
  readonly level?: ServiceLogLevel;
  /** Where lines go (each line already masked). @default stdout, written synchronously */
  readonly destination?: { write(line: string): unknown };
}

/** Field names whose values are censored wherever they appear (compared in lower case). */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "password",
  "token",
  "secret",
]);

/** A secret field with a string value in JSON text (`"token":"…"`), whatever object it is in. */
const SECRET_JSON_FIELD = new RegExp(`"(?:${[...SECRET_FIELDS].join("|")})":"`, "i");
const SECRET_JSON_FIELDS = new RegExp(`("(?:${[...SECRET_FIELDS].join("|")})":)"(?:[^"\\\\]|\\\\.)*"`, "gi");

/** How deep {@link censorSecrets} looks into nested objects and arrays. */
const MAX_DEPTH = 5;

/** What a censored field reads as. */
export const REDACTED = "[redacted]";

/**
 * Masks the password (or the whole user part, when it has no `:`) of every URL in `s`. The user part runs to the
 * authority's last `@` (a raw `@` in a password is read so by the URL parser and by ioredis), the authority ending
 * at `/`, `?`, `#`, whitespace, `"` or `,` (URL lists are comma-separated).
 */
export function maskUrlCredentials(s: string): string {
  return s.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#,"]*)@/gi, (_m, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    return colon === -1 ? `${scheme}***@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
}

/**
 * `value` with the value of every {@link SECRET_FIELDS} field replaced by {@link REDACTED}, at any depth up to
 * {@link MAX_DEPTH}; copy-on-write (the caller's objects are never changed; an object without secrets is returned
 * as is). Errors pass through: pino serialises them, and their text goes through {@link maskSecrets}.
 */
export function censorSecrets<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH || value instanceof Error)
    return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const c = censorSecrets(value[i], depth + 1);
      if (c !== value[i]) {
        out ??= value.slice();
        out[i] = c;
      }
    }
    return (out ?? value) as T;
  }
  let out: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const v = record[key];
    const c = SECRET_FIELDS.has(key.toLowerCase()) ? REDACTED : censorSecrets(v, depth + 1);
    if (c !== v) {
      out ??= { ...record };
      out[key] = c;
    }
  }
  return (out ?? value) as T;
}

/** Masks URL credentials and `Bearer` / `Basic` credentials in `s`. */
export function maskSecrets(s: string): string {
  if (!s.includes("@") && !/bearer|basic/i.test(s) && !SECRET_JSON_FIELD.test(s)) return s;
  return maskUrlCredentials(s)
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, "$1 ***")
    .replace(SECRET_JSON_FIELDS, `$1"${REDACTED}"`);
}

/** Creates the service logger; see the module comment for what it keeps out of its output. */
export function createServiceLogger(options: ServiceLoggerOptions = {}): Logger {
  const target = options.destination ?? pino.destination({ dest: 1, sync: true });
  const masked: DestinationStream = {
    write(line: string): void {
      target.write(maskSecrets(line));
    },
  };
  return pino(
    {
      name: "sluice",
      level: options.level ?? "info",
      // Not pino's `redact`: it runs on every child logger's bindings (fastify makes one per request), about 2 µs
      // each; this walk runs only for lines written. Child bindings (never formatted by pino) are covered by the
      // text pass, which censors string values of secret fields in the finished line.
      formatters: { log: censorSecrets },
    },
    masked,
  );
}

/**
 * The admin API's bearer tokens, each with a name so the audit log says who changed what.
 *
 * Sources (see {@link loadAdminTokens}):
 * - the environment variable `SLUICE_ADMIN_TOKENS`: `name:token` entries separated by commas
 *   (`ops:secret1,ci:secret2`);
 * - a file (`SLUICE_ADMIN_TOKENS_FILE` or an explicit path): one `name:token` per line, blank lines and lines
 *   starting with `#` ignored; or a JSON document, either `{ "ops": "secret1" }` or
 *   `[{ "name": "ops", "token": "secret1" }]`.
 * A name is 1–64 letters, digits, `_`, `.`, `@` or `-`; a token is everything after the first `:`, made only of
 * the characters an `Authorization: Bearer` header can carry ({@link BEARER_TOKEN_CHARS}; no commas in the
 * variable, whose separator they are). A token with any other character could never authenticate, so it is
 * refused at load, naming its entry. Names and tokens must be unique. Choose long random tokens
 * (`openssl rand -hex 32`); failed attempts are rate limited per client address by the admin server.
 *
 * Tokens are never kept in clear: only their SHA-256 digests, compared with `crypto.timingSafeEqual`, every
 * stored digest checked whatever matched, so the time taken says nothing about a token's content. Errors never
 * quote a token (an entry that is not `name:token` might be one).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { ConfigError, type ConfigIssue } from "../../core/errors.js";

/** The environment variable holding `name:token` entries. */
export const ADMIN_TOKENS_ENV = "SLUICE_ADMIN_TOKENS";
/** The environment variable naming a token file. */
export const ADMIN_TOKENS_FILE_ENV = "SLUICE_ADMIN_TOKENS_FILE";

const NAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

/**
 * The characters of a bearer token, as a regular expression character class body: RFC 6750's b64token
 * (letters, digits, `-._~+/=`) plus `:@!$&'*,;%`, which the admin server has always accepted (tokens such as
 * `a:b:c` keep working). One definition for the loader here and the server's `Authorization` parser.
 */
export const BEARER_TOKEN_CHARS = "A-Za-z0-9._~+/=:@!$&'*,;%-";

const TOKEN_PATTERN = new RegExp(`^[${BEARER_TOKEN_CHARS}]+$`);
const ALLOWED_TEXT = "letters, digits and - . _ ~ + / = : @ ! $ & ' * , ; %";

/** One named token, as configured. */
export interface AdminTokenEntry {
  /** Who holds the token (`ops`, `ci`): the audit log's actor. */
  readonly name: string;
  /** The secret. */
  readonly token: string;
}

/** A set of named bearer tokens. */
export interface AdminTokens {
  /** The token names, in declaration order. */
  readonly names: readonly string[];
  /** The name of the token equal to `presented`, or undefined; constant time in the tokens' content. */
  verify(presented: string): string | undefined;
}

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

class HashedTokens implements AdminTokens {
  readonly names: readonly string[];
  readonly #digests: readonly Buffer[];

  constructor(entries: readonly AdminTokenEntry[]) {
    this.names = Object.freeze(entries.map((e) => e.name));
    this.#digests = entries.map((e) => digest(e.token));
  }

  verify(presented: string): string | undefined {
    const d = digest(presented);
    let found = -1;
    for (let i = 0; i < this.#digests.length; i++) {
      // No early exit: every digest is compared.
      if (timingSafeEqual(d, this.#digests[i]) && found === -1) found = i;
    }
    return found === -1 ? undefined : this.names[found];
  }
}

/** Checks names and tokens (see the module comment) and pushes an issue per problem at `where(i)`. */
function check(
  entries: readonly AdminTokenEntry[],
  where: (i: number) => Pick<ConfigIssue, "path" | "line">,
  issues: ConfigIssue[],
): void {
  const names = new Map<string, number>();
  const tokens = new Map<string, number>();
  entries.forEach((e, i) => {
    if (!NAME_PATTERN.test(e.name)) {
      issues.push({
        ...where(i),
        message: `the token name must be 1 to 64 letters, digits, "_", ".", "@" or "-", got ${JSON.stringify(e.name.slice(0, 64))}`,
      });
    }
    if (e.token === "")
      issues.push({ ...where(i), message: `the token of ${JSON.stringify(e.name)} is empty` });
    else if (/\s/.test(e.token)) {
      issues.push({ ...where(i), message: `the token of ${JSON.stringify(e.name)} contains whitespace` });
    } else if (!TOKEN_PATTERN.test(e.token)) {
      // The characters are not quoted: they are part of the secret.
      issues.push({
        ...where(i),
        message: `the token of ${JSON.stringify(e.name)} has characters a bearer token cannot carry, so it could never authenticate (allowed: ${ALLOWED_TEXT})`,
      });
    }
    const sameName = names.get(e.name);
    if (sameName !== undefined) {
      issues.push({
        ...where(i),
        message: `the name ${JSON.stringify(e.name)} is used twice (also entry ${sameName + 1})`,
      });
    } else names.set(e.name, i);
    const sameToken = tokens.get(e.token);
    if (sameToken !== undefined && e.token !== "") {
      issues.push({
        ...where(i),
        message: `the token of ${JSON.stringify(e.name)} is also the token of entry ${sameToken + 1}`,
      });
    } else tokens.set(e.token, i);
  });
}

/** Creates a token set from entries; throws `ERR_SLUICE_INVALID_CONFIG` naming each bad entry (never its token). */
export function adminTokens(entries: readonly AdminTokenEntry[], source = "admin tokens"): AdminTokens {
  const issues: ConfigIssue[] = [];
  check(entries, (i) => ({ path: `[${i}]` }), issues);
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", issues, source);
  return new HashedTokens(entries);
}

/** Splits `name:token` at the first `:`; undefined when there is none. */
function splitEntry(entry: string): AdminTokenEntry | undefined {
  const at = entry.indexOf(":");
  if (at <= 0) return undefined;
  return { name: entry.slice(0, at).trim(), token: entry.slice(at + 1).trim() };
}

const NOT_AN_ENTRY = "must be name:token (the part before the first ':' names the token)";

/**
 * Parses the `SLUICE_ADMIN_TOKENS` format, `name:token` entries separated by commas; throws
 * `ERR_SLUICE_INVALID_CONFIG` naming each bad entry by position (`SLUICE_ADMIN_TOKENS: [2]: …`).
 */
export function parseAdminTokens(text: string, source = ADMIN_TOKENS_ENV): AdminTokens {
  const issues: ConfigIssue[] = [];
  const entries: AdminTokenEntry[] = [];
  const positions: number[] = [];
  text.split(",").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const e = splitEntry(raw);
    if (e === undefined) issues.push({ path: `[${i}]`, message: NOT_AN_ENTRY });
    else {
      entries.push(e);
      positions.push(i);
    }
  });
  check(entries, (k) => ({ path: `[${positions[k]}]` }), issues);
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", issues, source);
  return new HashedTokens(entries);
}

/** Parses a token file's text (lines of `name:token`, or JSON); throws naming each bad line or entry. */
export function parseAdminTokenFile(text: string, source = "admin token file"): AdminTokens {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return parseJsonTokens(trimmed, source);
  const issues: ConfigIssue[] = [];
  const entries: AdminTokenEntry[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const e = splitEntry(line);
    if (e === undefined) issues.push({ path: "", line: i + 1, message: NOT_AN_ENTRY });
    else {
      entries.push(e);
      lines.push(i + 1);
    }
  });
  check(entries, (k) => ({ path: "", line: lines[k] }), issues);
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", issues, source);
  return new HashedTokens(entries);
}

function parseJsonTokens(text: string, source: string): AdminTokens {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message may quote the text around the error, which may be a token: keep only its first clause.
    const first = (error as Error).message.split(/[,(]/)[0].replace(/ in JSON at position.*$/, "");
    throw new ConfigError(
      "ERR_SLUICE_INVALID_CONFIG",
      [{ path: "", message: `invalid JSON: ${first}` }],
      source,
    );
  }
  const issues: ConfigIssue[] = [];
  const entries: AdminTokenEntry[] = [];
  const paths: string[] = [];
  if (Array.isArray(value)) {
    value.forEach((e, i) => {
      const ok =
        typeof e === "object" && e !== null && typeof e.name === "string" && typeof e.token === "string";
      if (!ok || Object.keys(e).some((k) => k !== "name" && k !== "token")) {
        issues.push({ path: `[${i}]`, message: 'must be { "name": string, "token": string }' });
      } else {
        entries.push({ name: e.name, token: e.token });
        paths.push(`[${i}]`);
      }
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [name, token] of Object.entries(value)) {
      const path = `[${JSON.stringify(name)}]`;
      if (typeof token !== "string") issues.push({ path, message: "the token must be a string" });
      else {
        entries.push({ name, token });
        paths.push(path);
      }
    }
  } else {
    issues.push({
      path: "",
      message: 'must be a JSON object { "name": "token" } or a list of { name, token }',
    });
  }
  check(entries, (k) => ({ path: paths[k] }), issues);
  if (issues.length > 0) throw new ConfigError("ERR_SLUICE_INVALID_CONFIG", issues, source);
  return new HashedTokens(entries);
}

/** Reads and parses a token file; throws `ERR_SLUICE_INVALID_CONFIG` when it cannot be read or is invalid. */
export async function loadAdminTokenFile(path: string): Promise<AdminTokens> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      "ERR_SLUICE_INVALID_CONFIG",
      [
        {
          path: "",
          message: `cannot read the token file (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        },
      ],
      path,
    );
  }
  return parseAdminTokenFile(text, path);
}

/** Options of {@link loadAdminTokens}. */
export interface LoadAdminTokensOptions {
  /** A token file to read (wins over the environment). */
  readonly file?: string;
  /** The environment to read `SLUICE_ADMIN_TOKENS` / `SLUICE_ADMIN_TOKENS_FILE` from. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The admin tokens from `file`, else `SLUICE_ADMIN_TOKENS_FILE`, else `SLUICE_ADMIN_TOKENS`; an empty set (no
 * write can be authorised) when none is given. Setting both variables is an error.
 */
export async function loadAdminTokens(options: LoadAdminTokensOptions = {}): Promise<AdminTokens> {
  const env = options.env ?? process.env;
  if (options.file !== undefined) return loadAdminTokenFile(options.file);
  const file = env[ADMIN_TOKENS_FILE_ENV];
  const inline = env[ADMIN_TOKENS_ENV];
  if (file !== undefined && file !== "" && inline !== undefined && inline !== "") {
    throw new ConfigError(
      "ERR_SLUICE_INVALID_CONFIG",
      [{ path: "", message: `set ${ADMIN_TOKENS_ENV} or ${ADMIN_TOKENS_FILE_ENV}, not both` }],
      "environment",
    );
  }
  if (file !== undefined && file !== "") return loadAdminTokenFile(file);
  if (inline !== undefined && inline !== "") return parseAdminTokens(inline, ADMIN_TOKENS_ENV);
  return new HashedTokens([]);
}

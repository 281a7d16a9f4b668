/**
 * Request and response helpers of the admin routes: request bodies validated by the configuration's own schemas
 * (one source of truth, errors naming the body's fields), identity path parameters, and resources sent with their
 * strong `ETag` (answering a matching `If-None-Match` with 304).
 *
 * **Identities are bounded** ({@link adminIdentitySchema}): the engine forms an identity from a request's entry,
 * `key:value`, whose key is at most `MAX_ENTRY_KEY_LENGTH` (256) and value at most `MAX_VALUE_LENGTH` (1024)
 * characters, so no identity beyond those bounds can ever apply to a request. Within them every identity can be
 * named in a URL (the admin server's `maxParamLength` is {@link MAX_IDENTITY_PARAM_LENGTH}) and every change of it
 * audited (`AUDIT_MAX_RESOURCE_LENGTH` holds its longest resource).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { MAX_ENTRY_KEY_LENGTH, MAX_VALUE_LENGTH } from "../../engine/engine.js";
import { formatPath, identitySchema, zodIssuesToPathIssues } from "../../rules/config-schema.js";
import { AdminProblem, invalidRequest, type ProblemIssue } from "./admin-problem.js";
import { etagOf, ifNoneMatchMatches } from "./resource-etag.js";

/**
 * Validates `body` with `schema`; throws a 400 naming every bad field (`limits[0].burst`), with `rename` mapping a
 * schema path to the body's field name where they differ.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  rename?: (path: readonly (string | number)[]) => string,
): z.output<S> {
  if (body === undefined || body === null) {
    throw invalidRequest([{ field: "", message: "a JSON body is required" }]);
  }
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const errors: ProblemIssue[] = zodIssuesToPathIssues(result.error.issues, body, schema).map((i) => ({
    field: rename ? rename(i.path) : formatPath(i.path),
    message: i.message,
  }));
  throw invalidRequest(errors);
}

/** Longest identity the admin API accepts: the engine's longest entry key, `:`, and its longest value (1,281). */
export const MAX_IDENTITY_LENGTH = MAX_ENTRY_KEY_LENGTH + 1 + MAX_VALUE_LENGTH;

/**
 * Longest identity path parameter, URL-encoded: a UTF-16 code unit takes at most 9 characters (three `%XX`), so
 * every identity of at most {@link MAX_IDENTITY_LENGTH} fits (the admin server's `maxParamLength`).
 */
export const MAX_IDENTITY_PARAM_LENGTH = MAX_IDENTITY_LENGTH * 9;

/** Why `identity` (`key:value`) is beyond the engine's bounds, or undefined when it is within them. */
function identityLengthProblem(identity: string): string | undefined {
  const at = identity.indexOf(":");
  const key = at === -1 ? identity : identity.slice(0, at);
  const value = at === -1 ? "" : identity.slice(at + 1);
  if (key.length > MAX_ENTRY_KEY_LENGTH) {
    return `its key (before the first ":") must be at most ${MAX_ENTRY_KEY_LENGTH} characters, as a request's entry key, got ${key.length}`;
  }
  if (value.length > MAX_VALUE_LENGTH) {
    return `its value (after the first ":") must be at most ${MAX_VALUE_LENGTH} characters, as a request's entry value, got ${value.length}`;
  }
  return undefined;
}

/** An identity the admin API accepts: `key:value` within the engine's entry bounds (see the module comment). */
export const adminIdentitySchema = identitySchema.superRefine((identity, ctx) => {
  const problem = identityLengthProblem(identity);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** The identity (`user:42`) of the `id` path parameter; throws a 400 naming the parameter when it is not one. */
export function identityParam(request: FastifyRequest): string {
  const id = (request.params as { id?: unknown }).id;
  const result = identitySchema.safeParse(id);
  if (!result.success) {
    throw invalidRequest([
      {
        parameter: "id",
        message: `must be an identity key:value, such as user:42 (URL-encoded: user%3A42), got ${JSON.stringify(id)}`,
      },
    ]);
  }
  const problem = identityLengthProblem(result.data);
  if (problem !== undefined) throw invalidRequest([{ parameter: "id", message: problem }]);
  return result.data;
}

/** The identity of a path, percent-encoded for a URL (`user%3A42`). */
export function identityPath(identity: string): string {
  return encodeURIComponent(identity);
}

/** Epoch ms as an ISO-8601 UTC string. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Sends `body` as a resource with its strong `ETag`; a GET whose `If-None-Match` matches gets 304 without a body.
 * `Cache-Control: no-cache` makes browsers revalidate each time.
 */
export function sendResource(
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
  status = 200,
): FastifyReply {
  const etag = etagOf(body);
  reply.header("ETag", etag).header("Cache-Control", "no-cache");
  const method = request.method;
  if (
    (method === "GET" || method === "HEAD") &&
    ifNoneMatchMatches(headerOf(request, "if-none-match"), etag)
  ) {
    return reply.code(304).send();
  }
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}

/** A 404 for `resource`. */
export function notFound(resource: string): AdminProblem {
  return new AdminProblem(404, "not-found", { detail: `${resource} does not exist` });
}

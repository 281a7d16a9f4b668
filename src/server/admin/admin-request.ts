/**
 * Request and response helpers of the admin routes: request bodies validated by the configuration's own schemas
 * (one source of truth, errors naming the body's fields), identity path parameters, and resources sent with their
 * strong `ETag` (answering a matching `If-None-Match` with 304).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
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

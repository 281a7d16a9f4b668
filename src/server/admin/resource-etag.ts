/**
 * Optimistic concurrency for the admin API (RFC 9110 §8.8.3 and §13.1.1): every resource a GET returns carries a
 * strong `ETag`, the SHA-256 of the resource's canonical JSON (`canonicalJson` of `config-repository.ts`: object
 * keys sorted, `undefined` members dropped), so two equal resources have equal tags whatever order their keys were
 * written in, and any change gives a new one.
 *
 * A write to an existing resource must send `If-Match` with the tag it last read. {@link checkIfMatch} is meant to
 * run inside the repository's atomic edit, against the latest document, so no concurrent change can slip between
 * the check and the write:
 * - the resource exists and no `If-Match` was sent (when one is required) → 428 Precondition Required;
 * - `If-Match` names no current tag (a weak tag never matches: the comparison is strong) → 412 Precondition
 *   Failed, nothing changed;
 * - the resource does not exist and `If-Match` was sent (even `*`) → 412.
 */
import { createHash } from "node:crypto";
import { AdminProblem } from "./admin-problem.js";
import { canonicalJson } from "./config-repository.js";

/** The strong entity tag of `value`: `"` + base64url of the first 18 bytes of SHA-256(canonical JSON) + `"`. */
export function etagOf(value: unknown): string {
  const digest = createHash("sha256").update(canonicalJson(value)).digest();
  return `"${digest.subarray(0, 18).toString("base64url")}"`;
}

/**
 * The entity tags listed in an `If-Match` / `If-None-Match` field value: `"*"` alone for `*`, otherwise each tag
 * as written (`"abc"` or `W/"abc"`); an empty list for a missing or empty field.
 */
export function parseEntityTags(field: string | undefined): string[] {
  if (field === undefined) return [];
  const trimmed = field.trim();
  if (trimmed === "") return [];
  if (trimmed === "*") return ["*"];
  return trimmed.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** Whether `If-Match` `field` matches the current tag `etag` by strong comparison (weak tags never match). */
export function ifMatchMatches(field: string | undefined, etag: string): boolean {
  for (const tag of parseEntityTags(field)) {
    if (tag === "*" || tag === etag) return true;
  }
  return false;
}

/** Whether `If-None-Match` `field` matches `etag` by weak comparison (a conditional GET answers 304). */
export function ifNoneMatchMatches(field: string | undefined, etag: string): boolean {
  for (const tag of parseEntityTags(field)) {
    if (tag === "*" || tag.replace(/^W\//, "") === etag) return true;
  }
  return false;
}

/** Options of {@link checkIfMatch}. */
export interface IfMatchCheck {
  /** The request's `If-Match` field value, if any. */
  readonly ifMatch: string | undefined;
  /** The resource as it is now in the latest document, or undefined when it does not exist. */
  readonly current: unknown;
  /** Whether a write to the existing resource needs `If-Match` (428 without it). */
  readonly required: boolean;
  /** The resource's path, for messages (`rules/api-per-user`). */
  readonly resource: string;
}

/**
 * Evaluates `If-Match` against the current resource (see the module comment); throws an {@link AdminProblem}
 * (412 or 428) when the write must not happen, and returns otherwise.
 */
export function checkIfMatch(check: IfMatchCheck): void {
  const { ifMatch, current, resource } = check;
  const sent = ifMatch !== undefined && ifMatch.trim() !== "";
  if (current === undefined) {
    if (sent) {
      throw new AdminProblem(412, "precondition-failed", {
        detail: `If-Match was sent but ${resource} does not exist (any more)`,
      });
    }
    return;
  }
  const etag = etagOf(current);
  if (!sent) {
    if (!check.required) return;
    throw new AdminProblem(428, "precondition-required", {
      detail: `${resource} exists: send If-Match with the ETag you last read (GET it first) so a concurrent change is not overwritten`,
      headers: { ETag: etag },
    });
  }
  if (!ifMatchMatches(ifMatch, etag)) {
    throw new AdminProblem(412, "precondition-failed", {
      detail: `${resource} changed since the ETag in If-Match was read; GET it again and retry. Nothing was changed`,
      headers: { ETag: etag },
    });
  }
}

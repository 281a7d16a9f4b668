/**
 * Errors of the admin API as RFC 9457 problem details (`application/problem+json`): a thrown
 * {@link AdminProblem} becomes `{ type, title, status, detail, errors? }` with the status and headers it carries.
 * Validation problems list every issue in `errors`, each naming the field of the request body it is about
 * (`{ field: "limits[0].burst", message }`) or URL parameter (`{ parameter: "id", message }`), or, for a conflict with the rest of the configuration, the
 * configuration path (`{ config: "overrides[0].rule", message }`).
 */

/** The kinds of problem the admin API answers with, by type slug. */
export type ProblemKind =
  | "invalid-request"
  | "unauthorized"
  | "not-found"
  | "conflict"
  | "precondition-failed"
  | "precondition-required"
  | "quota-exceeded"
  | "unsupported-media-type"
  | "payload-too-large"
  | "unavailable"
  | "internal";

const TITLES: Readonly<Record<ProblemKind, string>> = {
  "invalid-request": "The request is invalid",
  unauthorized: "A valid bearer token is required",
  "not-found": "No such resource",
  conflict: "The change conflicts with the current configuration",
  "precondition-failed": "The resource changed since it was read",
  "precondition-required": "If-Match is required to change this resource",
  "quota-exceeded": "Request cannot be satisfied as assigned quota has been exceeded",
  "unsupported-media-type": "The request body must be application/json",
  "payload-too-large": "The request body is too large",
  unavailable: "The configuration store is unavailable",
  internal: "Internal error",
};

/**
 * One issue of an invalid request: a body field (`field`), a URL path or query parameter (`parameter`), or a path
 * of the whole configuration (`config`).
 */
export interface ProblemIssue {
  /** Path of the offending field in the request body (`limits[0].burst`), or `""` for the body itself. */
  readonly field?: string;
  /** Name of the offending URL path or query parameter (`id`, `limit`). */
  readonly parameter?: string;
  /** Path in the whole configuration, for an issue outside the body (another rule, an override). */
  readonly config?: string;
  /** What is wrong. */
  readonly message: string;
}

/** Options of an {@link AdminProblem}. */
export interface ProblemOptions {
  /** A human-readable explanation of this occurrence. */
  readonly detail?: string;
  /** Every issue, for validation problems. */
  readonly errors?: readonly ProblemIssue[];
  /** Response headers to send with it (`ETag`, `WWW-Authenticate`, `Retry-After`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** More members of the problem object (`violated-policies`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The `type` URI of a problem kind (the IANA-registered one for quota-exceeded). */
export function problemType(kind: ProblemKind): string {
  return kind === "quota-exceeded"
    ? "https://iana.org/assignments/http-problem-types#quota-exceeded"
    : `urn:sluice:problem:${kind}`;
}

/** An admin API error answered as problem details with `status`. */
export class AdminProblem extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The problem kind. */
  readonly kind: ProblemKind;
  /** The options it was created with. */
  readonly options: ProblemOptions;

  /** Creates a problem; the message is the detail (or the kind's title). */
  constructor(status: number, kind: ProblemKind, options: ProblemOptions = {}) {
    super(options.detail ?? TITLES[kind]);
    this.name = "AdminProblem";
    this.status = status;
    this.kind = kind;
    this.options = options;
  }

  /** The problem details object sent as the response body. */
  body(): Record<string, unknown> {
    const o = this.options;
    return {
      type: problemType(this.kind),
      title: TITLES[this.kind],
      status: this.status,
      ...(o.detail !== undefined ? { detail: o.detail } : {}),
      ...(o.errors !== undefined ? { errors: o.errors } : {}),
      ...o.extra,
    };
  }
}

/** The detail line of a list of issues: `field: message` joined by `; `. */
export function issuesDetail(errors: readonly ProblemIssue[]): string {
  return errors
    .map((e) => {
      const where =
        e.field !== undefined
          ? e.field
          : e.parameter !== undefined
            ? `parameter ${e.parameter}`
            : e.config !== undefined
              ? `config ${e.config}`
              : "";
      return where === "" ? e.message : `${where}: ${e.message}`;
    })
    .join("; ");
}

/** A 400 listing `errors` (each naming its field). */
export function invalidRequest(errors: readonly ProblemIssue[]): AdminProblem {
  return new AdminProblem(400, "invalid-request", { detail: issuesDetail(errors), errors });
}

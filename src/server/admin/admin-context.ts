/**
 * What every admin route is given, and the one way the admin API changes the configuration:
 * {@link AdminContext.write}, a conditional, validated, audited edit of one resource.
 *
 * A write runs the route's change inside `repository.update`'s edit function, on a mutable copy of the **latest**
 * document: it reads the resource as it is there, evaluates `If-Match` against it (`resource-etag.ts`: 428 / 412,
 * nothing written), applies the change, checks that the engine could enforce the result, and lets the repository
 * validate the whole result (a `ConfigError` is mapped to 400 naming the field of the request body, or 409 when
 * the problem lies elsewhere in the configuration). Because the check happens inside the repository's atomic update, a concurrent change cannot slip
 * between the check and the write. The new snapshot is applied to the engine before the answer is sent (so a
 * check right after sees it), then the change is appended to the audit log with its before and after.
 *
 * **Audit.** An admin change that cannot be audited is not made: the entry's actor, action and resource are checked
 * against the audit log's bounds ({@link checkAuditable}) before anything is changed (the routes bound identities,
 * rule ids and domains so that every valid one fits). Only the log's own failure to store an entry, after the
 * change, cannot be foreseen: it is logged as an error.
 *
 * A write that leaves the document as it was (a PUT of the resource as it is, removing a tier nobody has) is no
 * change: the repository writes nothing and answers the snapshot the edit was given (same version), and nothing
 * is audited or logged as a change; the route still answers as for a write (idempotent requests).
 */
import type { FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import { ConfigError, SluiceError } from "../../core/errors.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { type ConfigPath, formatPath, type NativeConfigInput, parsePath } from "../../rules/config-schema.js";
import { configFromValue } from "../../rules/load-config.js";
import type { SluiceConfig } from "../../rules/rule.js";
import { memoryStore } from "../../stores/memory/memory-store.js";
import { AdminProblem, issuesDetail, type ProblemIssue } from "./admin-problem.js";
import { AUDIT_MAX_RESOURCE_LENGTH, AUDIT_MAX_TEXT_LENGTH, type AuditLog, auditText } from "./audit-log.js";
import type { ConfigRepository, ConfigSnapshot } from "./config-repository.js";
import type { DecisionTally } from "./decision-tally.js";
import { checkIfMatch } from "./resource-etag.js";

/** The logger the admin server writes events to (never tokens). */
export type AdminLogger = Pick<Logger, "info" | "warn" | "error">;

/** Where the request body landed in the document, to name the body's own fields in errors. */
export interface BodyLocation {
  /** The body's path in the document (`["rules", 3]`). */
  readonly at: ConfigPath;
  /**
   * The body field of a path below `at` (default: the path itself, formatted); undefined reports the issue by its
   * configuration path instead (a value that came from the URL, not the body).
   */
  readonly field?: (rest: readonly (string | number)[]) => string | undefined;
}

/** What a route's change does to the draft. */
export interface ChangeResult<T> {
  /** The resource after the change; undefined when it was deleted. */
  readonly after: T | undefined;
  /** Where the body landed, when there is a body. */
  readonly body?: BodyLocation;
}

/** One conditional, audited write; see {@link AdminContext.write}. */
export interface WriteSpec<T> {
  /** The audit action (`rule.update`), or a function of the resource before the change. */
  readonly action: string | ((before: T | undefined) => string);
  /** The resource's path for the audit log and messages (`rules/api-per-user`). */
  readonly resource: string;
  /** The resource as it is in `doc`, or undefined when it does not exist. Must not return parts of `doc` it changes. */
  readonly read: (doc: NativeConfigInput) => T | undefined;
  /**
   * When `If-Match` is required (428 without it): a function of the resource before the change. Its
   * representation for `If-Match` is `read`'s value.
   */
  readonly requireIfMatch: (before: T | undefined) => boolean;
  /** Throws (an {@link AdminProblem}) to refuse, e.g. 404 or 409; runs after the precondition check. */
  readonly guard?: (before: T | undefined) => void;
  /** Changes the draft. */
  readonly change: (draft: NativeConfigInput, before: T | undefined) => ChangeResult<T>;
}

/** What a write did. */
export interface WriteOutcome<T> {
  /** The resource before. */
  readonly before: T | undefined;
  /** The resource after (undefined when deleted). */
  readonly after: T | undefined;
  /** The snapshot written (or, when nothing changed, the current one). */
  readonly snapshot: ConfigSnapshot;
  /** Whether the document changed (false: nothing was written or audited). */
  readonly changed: boolean;
}

/** Everything the admin routes share. */
export interface AdminContext {
  /** The data plane's engine (updated with every snapshot). */
  readonly engine: Engine;
  /** Where the configuration lives. */
  readonly repository: ConfigRepository;
  /** Where changes are recorded. */
  readonly audit: AuditLog;
  /** Time for expiries and audit. */
  readonly clock: Clock;
  /** Decision counts for `/stats`, when the data plane records them. */
  readonly tally: DecisionTally | undefined;
  /** Event log. */
  readonly log: AdminLogger | undefined;
  /** The version of the last snapshot applied to the engine (refused or not), or 0. */
  readonly appliedVersion: number;
  /** Applies `snapshot` to the engine when newer than the last applied; a refusal is logged (and in engine.status). */
  apply(snapshot: ConfigSnapshot): void;
  /** The token name that authenticated `request`, or undefined. */
  actorOf(request: FastifyRequest): string | undefined;
  /** Records the token name that authenticated `request`. */
  setActor(request: FastifyRequest, name: string): void;
  /** Runs a conditional, validated, audited change of one resource (see the module comment). */
  write<T>(request: FastifyRequest, spec: WriteSpec<T>): Promise<WriteOutcome<T>>;
}

/** Options of {@link createAdminContext}. */
export interface AdminContextOptions {
  readonly engine: Engine;
  readonly repository: ConfigRepository;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly tally?: DecisionTally;
  readonly log?: AdminLogger;
}

/** Maps a whole-configuration `ConfigError` to 400 (issues in the body, named by body field) or 409. */
export function configProblem(error: ConfigError, body: BodyLocation | undefined): AdminProblem {
  const errors: ProblemIssue[] = error.issues.map((issue) => {
    const path = parsePath(issue.path);
    if (body?.at.every((seg, i) => path[i] === seg)) {
      const rest = path.slice(body.at.length);
      const field = body.field ? body.field(rest) : formatPath(rest);
      if (field !== undefined) return { field, message: issue.message };
    }
    return { config: issue.path, message: issue.message };
  });
  if (errors.some((e) => e.field !== undefined)) {
    return new AdminProblem(400, "invalid-request", { detail: issuesDetail(errors), errors });
  }
  return new AdminProblem(409, "conflict", {
    detail: `the resulting configuration would be invalid: ${issuesDetail(errors)}`,
    errors,
  });
}

/**
 * Throws the engine's `ConfigError` when `draft` is a valid configuration the engine could still not enforce, so
 * such a change is refused before it is persisted (a persisted one would also stop the service from starting).
 * It compiles the draft into a throwaway engine on a tiny memory store; schema problems are left to the
 * repository's own validation, which reports them.
 */
function checkEnforceable(draft: NativeConfigInput): void {
  let config: SluiceConfig;
  try {
    config = configFromValue(copyOf(draft));
  } catch {
    return;
  }
  const probe = createEngine({ config, store: memoryStore({ capacity: 16 }) });
  void probe.close();
}

/**
 * Throws a 500 (nothing is changed) when an entry of `action` on `resource` by `actor` could not be appended to the
 * audit log: a change that cannot be audited must not be made. The routes bound what goes into a resource so that
 * this never happens; it guards that invariant.
 */
export function checkAuditable(actor: string, action: string, resource: string): void {
  try {
    auditText("actor", actor, AUDIT_MAX_TEXT_LENGTH);
    auditText("action", action, AUDIT_MAX_TEXT_LENGTH);
    auditText("resource", resource, AUDIT_MAX_RESOURCE_LENGTH);
  } catch (error) {
    throw new AdminProblem(500, "internal", {
      detail: `the change could not be audited, so it was not made: ${(error as Error).message}`,
    });
  }
}

/** The JSON copy of a value read from the (frozen) document, safe to keep while the draft changes. */
export function copyOf<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Creates the shared context of the admin routes. */
export function createAdminContext(options: AdminContextOptions): AdminContext {
  const actors = new WeakMap<FastifyRequest, string>();
  let appliedVersion = 0;
  const ctx: AdminContext = {
    engine: options.engine,
    repository: options.repository,
    audit: options.audit,
    clock: options.clock,
    tally: options.tally,
    log: options.log,
    get appliedVersion() {
      return appliedVersion;
    },
    apply(snapshot) {
      if (snapshot.version <= appliedVersion) return;
      appliedVersion = snapshot.version;
      // The engine may have been built from this very snapshot: nothing to apply.
      if (snapshot.config === options.engine.config) return;
      try {
        options.engine.updateConfig(snapshot.config);
        options.log?.info({ version: snapshot.version }, "admin: configuration applied");
      } catch (error) {
        options.log?.error(
          { version: snapshot.version, err: (error as Error).message },
          "admin: the engine refused the configuration; the previous one stays",
        );
      }
    },
    actorOf: (request) => actors.get(request),
    setActor: (request, name) => {
      actors.set(request, name);
    },
    async write<T>(request: FastifyRequest, spec: WriteSpec<T>): Promise<WriteOutcome<T>> {
      const actor = actors.get(request);
      if (actor === undefined) throw new AdminProblem(401, "unauthorized");
      // The action may depend on the resource before (its check needs only one of its short constants).
      checkAuditable(
        actor,
        typeof spec.action === "string" ? spec.action : spec.action(undefined),
        spec.resource,
      );
      const ifMatch = headerValue(request.headers["if-match"]);
      let before: T | undefined;
      let result: ChangeResult<T> | undefined;
      let snapshot: ConfigSnapshot;
      /** The snapshot the (last run of the) edit started from. */
      let base: ConfigSnapshot | undefined;
      try {
        snapshot = await options.repository.update((draft, current) => {
          base = current;
          before = copyOf(spec.read(draft));
          result = undefined;
          checkIfMatch({
            ifMatch,
            current: before,
            required: spec.requireIfMatch(before),
            resource: spec.resource,
          });
          spec.guard?.(before);
          result = spec.change(draft, before);
          checkEnforceable(draft);
        });
      } catch (error) {
        if (error instanceof ConfigError) throw configProblem(error, result?.body);
        if (error instanceof SluiceError && error.code === "ERR_SLUICE_UNSUPPORTED") {
          throw new AdminProblem(409, "conflict", { detail: error.message });
        }
        throw error;
      }
      ctx.apply(snapshot);
      const after = copyOf(result?.after);
      // The repository's contract: an unchanged document is not written, and the current snapshot comes back.
      if (base !== undefined && snapshot.version === base.version)
        return { before, after, snapshot, changed: false };
      const action = typeof spec.action === "function" ? spec.action(before) : spec.action;
      try {
        await options.audit.append({
          actor,
          action,
          resource: spec.resource,
          before: before ?? null,
          after: after ?? null,
        });
      } catch (error) {
        options.log?.error(
          { action, resource: spec.resource, actor, err: (error as Error).message },
          "admin: the change was written but could not be audited",
        );
      }
      options.log?.info(
        { action, resource: spec.resource, actor, version: snapshot.version },
        "admin: change",
      );
      return { before, after, snapshot, changed: true };
    },
  };
  return ctx;
}

/** A request header's value; a repeated field's values joined with `, ` (RFC 9110 list semantics). */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

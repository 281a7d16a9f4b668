/**
 * `/v1/auth`: forward-auth for reverse proxies — nginx `auth_request`, Caddy `forward_auth`, Traefik
 * `ForwardAuth`. The proxy sends a subrequest (any method: GET, HEAD, POST, … are treated alike; a body is read
 * within `bounds.maxBodyBytes` and ignored) carrying the original request's attributes in headers; Sluice checks
 * one unit against the forward-auth domain and answers:
 * - allowed: 200 with an empty body and the `RateLimit-Policy` / `RateLimit` / `RateLimit-State` headers (nginx
 *   can copy them onto the response with `auth_request_set $rl $upstream_http_ratelimit;`); when a `delay` rule
 *   shapes the request, the 200 is sent after its delay (at most the rule's `maxDelay`). The wait costs a timer,
 *   not work: the request gives its in-flight slot back and holds a slot of the gate's waiting pool instead
 *   (`InflightGate.tryWait`, capped by `--max-delayed`), so keys over their rate cannot fill the in-flight cap and
 *   get unrelated clients refused 503. Its `RateLimit` fields are those of the decision as left after the wait
 *   (`t` counts down from the check to the answer);
 * - delayed but the waiting pool full: denied at once like an over-limit request (429 or the deny status, a
 *   `quota-exceeded` problem naming the delayed policies), and the units its check counted are refunded
 *   (`Engine.refund`: those the store itself counted, not a failure policy's stand-in): a denied request is
 *   consumed from none, so refusals never push the client's next admission further out. Its delayed policies
 *   read as denied for as long as it would have waited: `r=0`, `t` and `Retry-After` that wait in whole seconds
 *   (rounded up, at least 1), `RateLimit-State: throttled`; it is recorded as denied (`sluice_decisions_total`)
 *   and `over_limit`, and the engine's stats count its check as `refunded`, not allowed;
 * - delayed, and the client leaves while it waits (the proxy gave up: a timeout, its own client gone): the wait
 *   ends at once, its waiting slot is given back, and its units are refunded — it was never let through. Nothing
 *   is sent; `sluice_requests_total` records it as `cancelled`, `sluice_decisions_total` not at all (no
 *   decision reached the client), and the engine's stats its check as `refunded`, not allowed;
 * - denied: 429 (or 403 when configured: nginx `auth_request` passes on only 2xx, 401 and 403), with the same
 *   headers, `Retry-After`, and a `quota-exceeded` problem body;
 * - denied only because the store is unreachable and the rule fails closed: 503 (whatever the deny status: no
 *   quota was used up, and a 403 would tell the client it is forbidden), `Retry-After` until the store is tried
 *   again, a `temporary-reduced-capacity` problem body, and no `RateLimit` fields for the policies that could not
 *   be asked. Recorded as `fail_closed` in `sluice_requests_total`. nginx `auth_request` answers a 503 with 500:
 *   a refusal either way.
 *
 * **Attributes** (see client-address.ts for the address):
 * - `remote_address`: the client address (`X-Real-IP`, else `X-Forwarded-For`; with trusted hops, the latter first);
 * - `user`: the configured user header (e.g. `X-User-Id`, set by an authentication step before);
 * - `endpoint`: the original URI's header, query string and fragment dropped, the path normalised as the proxy and
 *   the application route on it (uri-path.ts: encoded unreserved characters and UTF-8 decoded, runs of `/`
 *   merged, dot segments removed), so `/%61pi/x`, `//api/x` and `/x/../api/x` count as `/api/x`, `/caf%C3%A9` as
 *   `/café`; an invalid percent-encoding is refused with 400;
 * - `method`: the original method's header, upper-cased;
 * - `header:<name>`: any request header, under the key `<name>` (lower case).
 *
 * **Which headers carry the URI and the method** is a setting (`headers`, `--auth-headers`), one family for every
 * request, never a fallback from one to the other: `x-forwarded` (the default) reads `X-Forwarded-Uri` and
 * `X-Forwarded-Method`, which Caddy's `forward_auth` and Traefik's `ForwardAuth` set themselves (overwriting what
 * the client sent) and nginx sets with `proxy_set_header` as README.md configures it; `x-original` reads
 * `X-Original-URI` and `X-Original-Method`, for an nginx configured with those. The other family's headers are
 * ignored: nginx's `auth_request` passes every client header on, so a header the proxy does not set itself is
 * the client's to choose, and a client could pick the endpoint or method it is counted under if it were read.
 * A subrequest carrying the other family's header without the one read (a proxy set up for the other family) is
 * logged once, as a warning. Authelia does the same with an endpoint per proxy kind: its `forward-auth` reads only
 * `X-Forwarded-*`, its `auth-request` (nginx) only `X-Original-*`.
 *
 * **Header text.** Node reads header bytes as latin1 (one character per byte), while proxies pass a UTF-8 value
 * through as its bytes: a user `bøb` would arrive as `bÃ¸b`, a counter apart from the `bøb` that `/v1/check`
 * counts from its JSON. So a value whose bytes form valid UTF-8 is read as UTF-8 (before any other step: a raw
 * UTF-8 path in `X-Original-URI` too); any other value keeps its latin1 reading.
 *
 * **Descriptors** are built from templates, one descriptor per template whose attributes are all present, the
 * entry keys being the attribute names: the default `[["remote_address"], ["user"], ["user", "endpoint"]]` checks
 * the address, the user, and the user on the endpoint. A template with an absent attribute (no user header, no
 * valid address) is skipped; with none left the request is allowed without a check. An attribute longer than the
 * engine's value limit (1024 characters) is refused with 400 naming its header (never truncated: two long values
 * would share a counter).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { combineDecision, deniedDecision, type PolicyStatus } from "../../core/decision.js";
import { InvalidArgumentError } from "../../core/errors.js";
import {
  type CheckRequest,
  type CheckResult,
  type DescriptorResult,
  MAX_ENTRY_KEY_LENGTH,
  MAX_VALUE_LENGTH,
} from "../../engine/engine.js";
import type { Descriptor, DescriptorEntry } from "../../rules/rule.js";
import { delayRefusedProblem, quotaExceededProblem, reducedCapacityProblem } from "../problem-details.js";
import {
  type AppliedPolicy,
  appliedPolicies,
  deniedByUnavailableStore,
  HTTP_FIELD_NAMES,
  rateLimitHeaders,
} from "../rate-limit-headers.js";
import { type ClientAddressOptions, clientAddress } from "./client-address.js";
import { errorAnswer, type RouteKit, sendProblem } from "./http-reply.js";
import { normalizeUriPath } from "./uri-path.js";

/** Which headers carry the original request's URI and method (see the module comment). */
export const FORWARD_AUTH_HEADERS = ["x-forwarded", "x-original"] as const;
/** One of {@link FORWARD_AUTH_HEADERS}. */
export type ForwardAuthHeaders = (typeof FORWARD_AUTH_HEADERS)[number];

/** The URI and method header names (lower case) of each {@link ForwardAuthHeaders} family. */
export const FORWARD_AUTH_HEADER_NAMES: Readonly<
  Record<ForwardAuthHeaders, { readonly uri: string; readonly method: string }>
> = Object.freeze({
  "x-forwarded": Object.freeze({ uri: "x-forwarded-uri", method: "x-forwarded-method" }),
  "x-original": Object.freeze({ uri: "x-original-uri", method: "x-original-method" }),
});

/** An attribute of the original request a template may name. */
export type ForwardAuthAttribute = "remote_address" | "user" | "endpoint" | "method" | `header:${string}`;

/** The default descriptor templates: the client address, the user, the user on the endpoint. */
export const DEFAULT_FORWARD_AUTH_TEMPLATES: readonly (readonly ForwardAuthAttribute[])[] = Object.freeze([
  Object.freeze(["remote_address"] as const),
  Object.freeze(["user"] as const),
  Object.freeze(["user", "endpoint"] as const),
]);

/** One compiled template entry: the descriptor key and how to read its value. */
interface TemplateEntry {
  readonly key: string;
  readonly attribute: ForwardAuthAttribute;
  /** For `header:<name>`: the header name, lower case. */
  readonly header?: string;
  /** Index of its attribute among the distinct attributes of all templates: where a request's value is kept. */
  readonly slot: number;
}

/** What the forward-auth route needs, resolved by `createHttpServer`. */
export interface ForwardAuthSetup {
  /** The domain whose rules apply. */
  readonly domain: string;
  /** The compiled templates. */
  readonly templates: readonly (readonly TemplateEntry[])[];
  /** How many distinct attributes they read: `slotCount(templates)`. */
  readonly slots: number;
  /** The user header, lower case. */
  readonly userHeader: string;
  /** The header of the original URI (`endpoint`), lower case: that of the configured family only. */
  readonly uriHeader: string;
  /** The header of the original method (`method`), lower case: that of the configured family only. */
  readonly methodHeader: string;
  /** Status of a denial. */
  readonly denyStatus: 429 | 403;
  /** How the client address is read. */
  readonly address: ClientAddressOptions;
}

const ATTRIBUTES = new Set(["remote_address", "user", "endpoint", "method"]);
/** A header name as RFC 9110 allows it (a token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Compiles templates, each a list of attribute names or one string of names separated by `,` (the settings'
 * form, e.g. `"user,endpoint"`); throws `InvalidArgumentError` naming `forwardAuth.descriptors[i]`.
 */
export function compileTemplates(
  templates: readonly (string | readonly string[])[],
): readonly (readonly TemplateEntry[])[] {
  if (!Array.isArray(templates) || templates.length === 0 || templates.length > 64) {
    throw new InvalidArgumentError("forwardAuth.descriptors must hold 1 to 64 templates");
  }
  const slots = new Map<string, number>();
  const slotOf = (attribute: string): number => {
    let slot = slots.get(attribute);
    if (slot === undefined) {
      slot = slots.size;
      slots.set(attribute, slot);
    }
    return slot;
  };
  return templates.map((t, i) => {
    const names = (typeof t === "string" ? t.split(",") : [...t])
      .map((n) => n.trim())
      .filter((n) => n !== "");
    const where = `forwardAuth.descriptors[${i}]`;
    if (names.length === 0 || names.length > 64) {
      throw new InvalidArgumentError(`${where} must name 1 to 64 attributes, got ${JSON.stringify(t)}`);
    }
    return names.map((name): TemplateEntry => {
      if (ATTRIBUTES.has(name)) {
        return { key: name, attribute: name as ForwardAuthAttribute, slot: slotOf(name) };
      }
      if (name.startsWith("header:")) {
        const header = name.slice("header:".length).toLowerCase();
        if (TOKEN.test(header) && header.length <= MAX_ENTRY_KEY_LENGTH) {
          // Slotted by the lower-case form: `header:X-A` and `header:x-a` read the same header.
          return {
            key: header,
            attribute: name as ForwardAuthAttribute,
            header,
            slot: slotOf(`header:${header}`),
          };
        }
      }
      throw new InvalidArgumentError(
        `${where} names ${JSON.stringify(name)}; attributes are remote_address, user, endpoint, method and header:<name>`,
      );
    });
  });
}

type Headers = FastifyRequest["headers"];

/** A character of the upper half of latin1: a byte of a multi-byte UTF-8 sequence, when read as latin1. */
const HIGH_BYTE = /[\x80-\xff]/;
/** A character beyond latin1: the value did not come from bytes read as latin1 (`app.inject` hands strings over). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;
/** Strict UTF-8: an invalid sequence (overlong, surrogate, truncated) throws; a leading BOM is kept as a character. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * `value` (a header value as Node reads it: one latin1 character per byte) as the text it carries: decoded as
 * UTF-8 when its bytes are valid UTF-8, else unchanged (see the module comment). An ASCII value, the common case,
 * costs one regular expression test.
 */
export function headerText(value: string): string {
  if (!HIGH_BYTE.test(value) || BEYOND_LATIN1.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, "latin1"));
  } catch {
    return value;
  }
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v.join(", ") : v;
  return s === undefined || s === "" ? undefined : headerText(s);
}

/** Where the path of `uri` ends: at its first `?` or `#`, else its length. */
export function pathEnd(uri: string): number {
  const q = uri.indexOf("?");
  const h = uri.indexOf("#");
  if (q === -1) return h === -1 ? uri.length : h;
  return h === -1 || q < h ? q : h;
}

/** Reads one attribute, or undefined when absent; throws naming the header when it is too long. */
function attributeOf(entry: TemplateEntry, headers: Headers, setup: ForwardAuthSetup): string | undefined {
  let name: string;
  let value: string | undefined;
  switch (entry.attribute) {
    case "remote_address":
      return clientAddress(headers, setup.address);
    case "user":
      name = setup.userHeader;
      value = header(headers, name);
      break;
    case "endpoint": {
      // The configured family's header alone: the other one, if sent, is the client's (see the module comment).
      name = setup.uriHeader;
      const uri = header(headers, name);
      if (uri !== undefined) {
        const cut = pathEnd(uri);
        const path = cut === uri.length ? uri : uri.slice(0, cut);
        value = normalizeUriPath(path);
        if (value === undefined) {
          throw new InvalidArgumentError(
            `${name} header must be a URI whose path has no % without two hex digits after it`,
          );
        }
        if (value === "") value = undefined;
      }
      break;
    }
    case "method":
      name = setup.methodHeader;
      value = header(headers, name)?.toUpperCase();
      break;
    default:
      name = entry.header as string;
      value = header(headers, name);
  }
  if (value !== undefined && value.length > MAX_VALUE_LENGTH) {
    throw new InvalidArgumentError(
      `${name} header must be at most ${MAX_VALUE_LENGTH} characters, got ${value.length}`,
    );
  }
  return value;
}

/**
 * The descriptors of a subrequest: one per template whose attributes are all present. An attribute is read at most
 * once per request (kept by its slot) and only when a template needs it: a template stops at its first absent
 * attribute, so what follows it is not read (nor refused for its length).
 */
export function forwardAuthDescriptors(headers: Headers, setup: ForwardAuthSetup): Descriptor[] {
  const templates = setup.templates;
  // By slot: undefined when not read yet, null when absent. Arrays are made at their final size (a growing one
  // starts at 16 slots).
  const values = new Array<string | null | undefined>(setup.slots);
  const out = new Array<Descriptor>(templates.length);
  let n = 0;
  for (let t = 0; t < templates.length; t++) {
    const template = templates[t];
    const entries = new Array<DescriptorEntry>(template.length);
    let i = 0;
    for (; i < template.length; i++) {
      const entry = template[i];
      let v = values[entry.slot];
      if (v === undefined) {
        v = attributeOf(entry, headers, setup) ?? null;
        values[entry.slot] = v;
      }
      if (v === null) break;
      entries[i] = { key: entry.key, value: v };
    }
    if (i === template.length) out[n++] = entries;
  }
  out.length = n;
  return out;
}

/** How many distinct attributes compiled `templates` read: one slot each ({@link ForwardAuthSetup.slots}). */
export function slotCount(templates: readonly (readonly TemplateEntry[])[]): number {
  let count = 0;
  for (const template of templates) for (const entry of template) count = Math.max(count, entry.slot + 1);
  return count;
}

/**
 * A delayed admission as the client gets it when the waiting pool is full: denied, consumed from none (its units
 * are refunded). Each delayed descriptor reads as over its limit for as long as it would have waited: its policies
 * that left nothing (`remaining` 0: those that made it wait; all of them should none have) are denied with that
 * wait as their `retryAfterMs`, so `t` and `Retry-After` say the same; the other descriptors keep their numbers,
 * marked not consumed, as the engine reports the items of a denied all-or-nothing call.
 */
export function refusedDelay(result: CheckResult): CheckResult {
  const statuses: PolicyStatus[] = [];
  const descriptors = result.descriptors.map((r): DescriptorResult => {
    const d = r.decision;
    if (d === undefined) return r;
    if (r.delayMs <= 0) {
      if (!r.shadowed) statuses.push(...d.policies);
      return { ...r, decision: deniedDecision(d) };
    }
    const exhausted = d.policies.some((p) => p.remaining <= 0);
    const policies = d.policies.map(
      (p): PolicyStatus =>
        exhausted && p.remaining > 0
          ? p
          : { ...p, allowed: false, remaining: 0, retryAfterMs: r.delayMs, state: "throttled" },
    );
    statuses.push(...policies);
    return {
      ...r,
      code: "OVER_LIMIT",
      decision: combineDecision(policies, d.reason, undefined, false),
      delayMs: 0,
    };
  });
  return {
    allowed: false,
    decision: combineDecision(statuses, result.decision.reason, undefined, false),
    descriptors,
    delayMs: 0,
    replayed: result.replayed,
  };
}

/**
 * The check for a proxy that sets the other header family (see the module comment): while `watch`, a subrequest
 * carrying `other` without `read` (the URI header when a template reads the endpoint, else the method header) is
 * logged once. A proxy setting the family read overwrites it on every subrequest, so it is never absent there.
 */
function misreadFamily(setup: ForwardAuthSetup): {
  watch: boolean;
  family: ForwardAuthHeaders;
  read: string;
  other: string;
} {
  const names = FORWARD_AUTH_HEADER_NAMES;
  const family: ForwardAuthHeaders =
    setup.uriHeader === names["x-forwarded"].uri ? "x-forwarded" : "x-original";
  const reads = (a: ForwardAuthAttribute) => setup.templates.some((t) => t.some((e) => e.attribute === a));
  const uri = setup.uriHeader;
  const otherUri = uri === names["x-forwarded"].uri ? names["x-original"].uri : names["x-forwarded"].uri;
  const method = setup.methodHeader;
  const otherMethod =
    method === names["x-forwarded"].method ? names["x-original"].method : names["x-forwarded"].method;
  if (reads("endpoint")) return { watch: true, family, read: uri, other: otherUri };
  if (reads("method")) return { watch: true, family, read: method, other: otherMethod };
  return { watch: false, family, read: uri, other: otherUri };
}

/** Registers `/v1/auth` for every method, in a context that reads and ignores any body. */
export function registerForwardAuthRoute(app: FastifyInstance, kit: RouteKit, setup: ForwardAuthSetup): void {
  const { ctx } = kit;
  const domain = setup.domain;
  const misread = misreadFamily(setup);
  // With no descriptor there is nothing to check: allowed, without a call to the engine.
  const prepare = (request: FastifyRequest): CheckRequest | undefined => {
    const headers = request.headers;
    if (misread.watch && headers[misread.other] !== undefined && headers[misread.read] === undefined) {
      misread.watch = false;
      ctx.log.warn(
        { read: misread.read, sent: misread.other },
        `forward-auth reads ${misread.read} (--auth-headers ${misread.family}), but a subrequest came with ` +
          `${misread.other} instead: have the proxy set ${misread.read} on every subrequest (README.md), or read ` +
          "the headers it sets with --auth-headers; until then that attribute is absent, and a client could send " +
          `${misread.read} itself (logged once)`,
      );
    }
    const descriptors = forwardAuthDescriptors(headers, setup);
    return descriptors.length === 0 ? undefined : { domain, descriptors };
  };
  /** Gives back what `result` counted (see the module comment); a failure is logged, never thrown. */
  const refund = (input: CheckRequest, result: CheckResult, why: string): void => {
    ctx.engine.refund(input, result).catch((error: unknown) => {
      ctx.log.warn({ err: error }, `forward-auth: refunding ${why} failed; its units stay counted`);
    });
  };
  /**
   * A request a `delay` rule shapes: the proxy cannot wait on its own, so the answer waits (at most the rule's
   * maxDelay), in the waiting pool, the in-flight slot given back when this returns; refused at once when the pool
   * is full, and given up when the client leaves (see the module comment).
   */
  const delayed = (
    result: CheckResult,
    input: CheckRequest,
    policies: readonly AppliedPolicy[],
    request: FastifyRequest,
    reply: FastifyReply,
  ): undefined => {
    // When the check decided: `t` of the 200 counts down from here to the answer.
    const decidedAtMs = ctx.clock.nowMs();
    const res = reply.raw;
    if (res.destroyed) {
      // Gone while it was being checked.
      refund(input, result, "a delayed request whose client left");
      kit.record("http_auth", "cancelled", request);
      return undefined;
    }
    if (!ctx.gate.tryWait()) {
      refund(input, result, "a delayed request the waiting pool refused");
      const refused = refusedDelay(result);
      const refusedPolicies = appliedPolicies(refused);
      ctx.metrics.recordDecision(domain, refused);
      kit.record("http_auth", "over_limit", request);
      sendProblem(
        reply,
        delayRefusedProblem(result, ctx.gate.maxWaiting, setup.denyStatus, policies),
        rateLimitHeaders(refused, kit.headerOptions, refusedPolicies, HTTP_FIELD_NAMES),
      );
      return undefined;
    }
    const gone = new AbortController();
    // 'close' before the answer has ended: the connection went away (a proxy timeout, its own client gone).
    const onClose = (): void => {
      if (!res.writableEnded) gone.abort();
    };
    res.once("close", onClose);
    ctx.engine
      .waitFor(result, gone.signal)
      .then(
        () => {
          res.off("close", onClose);
          // The durations left after the wait: the check's `decidedAtMs`, as for a replay (rate-limit-headers.ts).
          const headers = rateLimitHeaders(
            result.decidedAtMs === undefined ? { ...result, decidedAtMs } : result,
            kit.headerOptions,
            policies,
            HTTP_FIELD_NAMES,
            ctx.clock.nowMs(),
          );
          ctx.metrics.recordDecision(domain, result);
          kit.record("http_auth", "ok", request);
          reply.code(200).headers(headers).send();
        },
        (error: unknown) => {
          res.off("close", onClose);
          if (gone.signal.aborted) {
            refund(input, result, "a delayed request whose client left");
            kit.record("http_auth", "cancelled", request);
            return;
          }
          throw error;
        },
      )
      .catch((error: unknown) => {
        // Out of the gated call by now: answer here, and never let a failure escape as an unhandled rejection.
        try {
          const failed = errorAnswer(error, ctx.log);
          kit.record("http_auth", failed.outcome, request);
          if (!reply.sent) sendProblem(reply, failed.problem);
        } catch (e) {
          ctx.log.error({ err: e }, "http: answering a delayed forward-auth request failed");
        }
      })
      .finally(() => ctx.gate.leaveWait());
    return undefined;
  };
  const answer = (
    result: CheckResult | undefined,
    input: CheckRequest | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> | undefined => {
    if (result === undefined) {
      kit.record("http_auth", "ok", request);
      reply.code(200).send();
      return undefined;
    }
    const policies = appliedPolicies(result);
    if (result.allowed) {
      if (result.delayMs > 0) return delayed(result, input as CheckRequest, policies, request, reply);
      ctx.metrics.recordDecision(domain, result);
      kit.record("http_auth", "ok", request);
      reply
        .code(200)
        .headers(rateLimitHeaders(result, kit.headerOptions, policies, HTTP_FIELD_NAMES))
        .send();
      return undefined;
    }
    ctx.metrics.recordDecision(domain, result);
    const headers = rateLimitHeaders(result, kit.headerOptions, policies, HTTP_FIELD_NAMES);
    if (deniedByUnavailableStore(result, policies)) {
      kit.record("http_auth", "fail_closed", request);
      sendProblem(reply, reducedCapacityProblem(result, policies), headers);
      return undefined;
    }
    kit.record("http_auth", "over_limit", request);
    sendProblem(reply, quotaExceededProblem(result, setup.denyStatus, policies), headers);
    return undefined;
  };
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: ctx.bounds.maxBodyBytes },
      (_r, _b, done) => done(null, undefined),
    );
    scope.all("/v1/auth", (request, reply) => kit.gated("http_auth", request, reply, prepare, answer));
  });
}

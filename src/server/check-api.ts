/**
 * The service's own check API (seed 002's CheckRateLimit, generalised with descriptors and an idempotency key), as
 * plain objects shared by every adapter: the HTTP `POST /v1/check` JSON body and the gRPC `sluice.v1` messages
 * (field names in snake_case are the .proto names, decoded with `--keep-case`).
 *
 * **Input validation.** {@link parseCheckRequest} accepts any untrusted value (parsed JSON or a decoded proto
 * object) and returns an engine request, or throws `InvalidArgumentError` whose message starts with the offending
 * field's path (`descriptors[2].entries[0].key must be …`). It rejects:
 * - a non-object request, and **unknown fields** at every level (a typo such as `cots` must not silently check
 *   with the default cost; decoded proto objects only carry known fields, so this costs them nothing);
 * - wrong types, NaN, ±Infinity, negative numbers, strings over the engine's length limits (`MAX_*` of
 *   `engine.ts`), strings that are not well-formed Unicode (lone surrogates), too many descriptors or entries;
 * - a cost above `bounds.maxCost`; a client `timestamp` outside 0 … MAX_NOW_MS (2100-01-01, the range the library
 *   decides in) or more than `bounds.maxClockSkewMs` away from the server clock (decisions always use the server
 *   clock; the timestamp only detects broken clients);
 * - a request with nothing to check (no descriptor and no identifier/dimension pair);
 * - a domain without rules in the current configuration (a typo would otherwise be answered "no limit").
 * `null` and absent are the same everywhere (proto3 `optional` fields decode to null), and so are `""` and absent
 * for strings and `0` and absent for `timestamp` (proto3 defaults). `cost: 0` is meaningful: check without
 * counting. Numbers may also arrive as `bigint` or protobufjs `Long` values (64-bit proto fields). Whether a
 * fractional cost is allowed depends on the matched rule's algorithm, so the engine decides that (its
 * `InvalidArgumentError` names `cost`).
 *
 * **Output encoding** ({@link checkResponseOf}): no `Infinity` or `NaN` ever reaches the wire.
 * - *No limit applied* (nothing matched, or only `unlimited` rules): `allowed: true`, `limit: 0`, `remaining: 0`,
 *   `current_count: 0`, `reset_at: 0`, `reset_at_ms: 0`, `state: "normal"` and `policies: []`. An empty
 *   `policies` list is the unambiguous test; `limit: 0` with `allowed: false` is a `blocked` rule instead.
 * - *Never* (the cost exceeds what the limit can ever admit at once, or a `blocked` rule): `retry_after` and
 *   `retry_after_ms` are {@link RETRY_NEVER} (-1), so proto fields carrying them must be signed.
 * - Durations are whole milliseconds rounded up; `reset_at` and `retry_after` are whole seconds rounded up.
 * - Instants: the decision's durations run from the instant it was taken (`result.decidedAtMs`, kept by
 *   idempotency records; else the response's `nowMs`). `reset_at_ms` is that instant plus the headline reset, so
 *   every replay of an idempotent check answers the first check's `reset_at` / `reset_at_ms` byte for byte; the
 *   relative `reset_after_ms` and `retry_after_ms` (top level, per policy and per descriptor) are what is left of
 *   the decision's durations at `nowMs` (never negative), so an answer agrees with itself
 *   (`reset_at_ms = nowMs + reset_after_ms` for whole-ms clocks). An answer without an instant (not idempotent)
 *   is taken at `nowMs`: its own durations.
 * - *Reason* (`reason`): which path decided the headline policy — `store` (the counters; also when no limit
 *   applied), or the failure policy that stood in for an unreachable store: `fail_open`, `fallback` or
 *   `fail_closed`. A `fail_closed` answer is denied because the store could not be asked, not because a quota was
 *   used up: it keeps the 200-with-decision contract (`allowed: false`, `retry_after` until the store is tried
 *   again), but its counts are unknown, so `current_count` is 0 (not the limit) and `remaining` 0 (nothing may
 *   pass now). A quota denial outranks it for the headline. A `fail_open` answer is allowed without counting:
 *   its counts are unknown too, so it reports `current_count`, `reset_at` and `reset_at_ms` 0 and `remaining` 0
 *   (top level, per policy and per descriptor; `reason: "fail_open"` tells that 0 from a used-up quota), never
 *   the full limit the engine stands in with, a quota nobody counted (the `RateLimit` headers leave such
 *   policies out; Envoy's answer leaves out their `current_limit`). A counted policy outranks it for the
 *   headline.
 * - *Shadow rules* never appear in `policies` nor in the headline, under their limit or over it (they are not
 *   enforced); their outcome is the per-descriptor `shadowed`.
 */
import { InvalidArgumentError } from "../core/errors.js";
import { ceilMs, MAX_NOW_MS } from "../core/time-math.js";
import {
  type CheckRequest,
  type CheckResult,
  MAX_DESCRIPTORS,
  MAX_DOMAIN_LENGTH,
  MAX_ENTRIES,
  MAX_ENTRY_KEY_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_VALUE_LENGTH,
} from "../engine/engine.js";
import type { Descriptor, DescriptorEntry } from "../rules/rule.js";
import {
  type AppliedPolicy,
  appliedPolicies,
  deniedByUnavailableStore,
  isUnavailable,
  isUncounted,
  mostRestrictive,
  msLeft,
} from "./rate-limit-headers.js";
import type { ServiceContext, ServiceOutcome } from "./service-context.js";

/** One descriptor entry on the wire. */
export interface ApiEntry {
  /** The entry key (`user`, `remote_address`, …): 1 to 256 characters. */
  readonly key?: string;
  /** The entry value: at most 1024 characters; may be empty. */
  readonly value?: string;
}

/** One descriptor on the wire: 1 to 64 entries. */
export interface ApiDescriptor {
  /** The entries, in order. */
  readonly entries?: readonly ApiEntry[];
}

/** A check request on the wire (seed 002's fields plus descriptors and an idempotency key). */
export interface ApiCheckRequest {
  /** The domain whose rules apply; `""` or absent → the default domain (an error naming `domain` when none). */
  readonly domain?: string;
  /** Explicit descriptors, each matched on its own. */
  readonly descriptors?: readonly ApiDescriptor[];
  /** Seed 002: with `dimension`, adds the descriptor `[dimension=identifier]`. */
  readonly identifier?: string;
  /** Seed 002: the entry key of `identifier`, e.g. `user`, `ip`, `apikey`. */
  readonly dimension?: string;
  /** Seed 002: adds a second descriptor `[dimension=identifier, endpoint=endpoint]`. */
  readonly endpoint?: string;
  /** Units every descriptor costs; absent → 1; 0 → check only (counts nothing). */
  readonly cost?: number;
  /** The client's clock, Unix ms; refused when further than `bounds.maxClockSkewMs` from the server clock. */
  readonly timestamp?: number;
  /** A retry with the same key (same domain) within the engine's TTL replays the first answer. */
  readonly idempotency_key?: string;
}

/** One named limit's status on the wire; `name` is unique within a response (as in the `RateLimit` headers). */
export interface ApiPolicyStatus {
  /** The policy name as sent in `RateLimit-Policy` (prefixed by the rule id when two rules share a name). */
  name: string;
  /** Whether this limit let the request through. */
  allowed: boolean;
  /** Units per window (0 for a `blocked` rule). */
  limit: number;
  /** Units that could still pass right now; 0 when not counted (`fail_open`: unknown). */
  remaining: number;
  /** The limit's period, ms. */
  window_ms: number;
  /** Until the key is back to its full, never-used state, ms (rounded up). */
  reset_after_ms: number;
  /** When denied: until this cost could pass, ms (rounded up); {@link RETRY_NEVER} when never; 0 when allowed. */
  retry_after_ms: number;
  /** Seed 002's state. */
  state: "normal" | "warning" | "throttled";
}

/** One request descriptor's outcome on the wire (Envoy's per-descriptor status). */
export interface ApiDescriptorStatus {
  /** `OVER_LIMIT` when this descriptor's own limits refused it. */
  code: "OK" | "OVER_LIMIT";
  /** The matched rule's id; `""` when nothing matched. */
  rule_id: string;
  /** The headline limit of the descriptor; 0 when not counted (no match, unlimited, replaced). */
  limit: number;
  /** Its remaining units; 0 when not counted (no match, unlimited, replaced, or let through by `fail_open`). */
  remaining: number;
  /** Until its key is back to full, ms (rounded up); 0 when not counted. */
  reset_after_ms: number;
  /** Over its limit, but the rule only shadows (it was allowed). */
  shadowed: boolean;
  /** For `delay` rules: how long to wait before proceeding, ms. */
  delay_ms: number;
}

/** A check answer on the wire; see the module comment for the encoding of "no limit" and "never". */
export interface ApiCheckResponse {
  /** Whether the request may proceed (after `delay_ms`). */
  allowed: boolean;
  /** `limit − remaining` of the headline policy (0 when no limit applied). */
  current_count: number;
  /** The headline policy's limit (0 when no limit applied). */
  limit: number;
  /** The headline policy's remaining units (0 when no limit applied, or when `fail_open` counted nothing). */
  remaining: number;
  /** When the headline key is back to full, Unix seconds (rounded up); 0 when no limit applied or unknown. */
  reset_at: number;
  /** When denied: seconds until the request could pass (rounded up); {@link RETRY_NEVER} when never; else 0. */
  retry_after: number;
  /** {@link ApiCheckResponse.reset_at} in Unix ms (rounded up). */
  reset_at_ms: number;
  /** {@link ApiCheckResponse.retry_after} in ms (rounded up). */
  retry_after_ms: number;
  /** How long to wait before proceeding (delay behaviour), ms; 0 when denied. */
  delay_ms: number;
  /**
   * Seed 002's state: `throttled` whenever denied, else the worst over `policies` (`warning` when any is), which
   * need not be the headline's (10/s with 9 left beside 10,000/day with 1,000 left is `warning`).
   */
  state: "normal" | "warning" | "throttled";
  /** Whether this is the stored answer of an earlier check with the same idempotency key. */
  replayed: boolean;
  /** Which path decided the headline policy ({@link CheckReason}; see the module comment). */
  reason: CheckReason;
  /** Every enforced policy that applied (shadow rules' excluded), in descriptor order. */
  policies: ApiPolicyStatus[];
  /** One status per request descriptor, in request order. */
  descriptors: ApiDescriptorStatus[];
}

/**
 * Which path decided an answer's headline policy: the store's counters, or the failure policy answering for an
 * unreachable store (`fail_closed`: denied with unknown counts).
 */
export type CheckReason = "store" | "fail_open" | "fail_closed" | "fallback";

/** The wire value of `retry_after` / `retry_after_ms` when the request can never pass. */
export const RETRY_NEVER = -1;

const REQUEST_FIELDS = new Set([
  "domain",
  "descriptors",
  "identifier",
  "dimension",
  "endpoint",
  "cost",
  "timestamp",
  "idempotency_key",
]);
const DESCRIPTOR_FIELDS = new Set(["entries"]);
const ENTRY_FIELDS = new Set(["key", "value"]);

/** A UTF-16 surrogate without its pair: not Unicode, and not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A short description of an offending value for error messages (never echoes long strings). */
function describe(v: unknown): string {
  if (typeof v === "string") return `a string of ${v.length} characters`;
  if (typeof v === "number") return String(v);
  if (typeof v === "bigint") return `${v}n`;
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

/** Builds field paths under an optional prefix (`items[3]` + `cost` → `items[3].cost`). */
function pathIn(prefix: string | undefined, name: string): string {
  if (prefix === undefined || prefix === "") return name;
  return name.startsWith("[") ? `${prefix}${name}` : `${prefix}.${name}`;
}

function fail(path: string, message: string): never {
  throw new InvalidArgumentError(`${path} ${message}`);
}

/** Whether `v` is a plain record to read fields from (not null, not an array). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first own enumerable field of `obj` not in `known` (JSON typos, `__proto__`), or undefined. */
function unknownField(obj: Record<string, unknown>, known: ReadonlySet<string>): string | undefined {
  for (const k of Object.keys(obj)) if (!known.has(k)) return k;
  return undefined;
}

/** Refuses the unknown field `k` of the object at `path`. */
function failUnknown(k: string, known: ReadonlySet<string>, path: string): never {
  const shown = k.length > 64 ? `${k.slice(0, 64)}…` : k;
  fail(pathIn(path, JSON.stringify(shown)), `is not a known field (known: ${[...known].join(", ")})`);
}

/** Rejects own enumerable fields not in `known` (JSON typos, `__proto__`). */
function rejectUnknown(obj: Record<string, unknown>, known: ReadonlySet<string>, path: string): void {
  const k = unknownField(obj, known);
  if (k !== undefined) failUnknown(k, known, path);
}

/** What is wrong with a present string field's value (not a string, too long, not well-formed), or undefined. */
function stringProblem(v: unknown, max: number): string | undefined {
  if (typeof v !== "string") return `must be a string, got ${describe(v)}`;
  if (v.length > max) return `must be at most ${max} characters, got ${v.length}`;
  if (LONE_SURROGATE.test(v)) return "must be well-formed Unicode (it holds a lone surrogate)";
  return undefined;
}

/** A string field: absent, null and `""` → undefined; else a well-formed string of at most `max` characters. */
function optString(v: unknown, path: string, max: number): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  const problem = stringProblem(v, max);
  if (problem !== undefined) fail(path, problem);
  return v as string;
}

/** A number field (JSON number, bigint or protobufjs Long); absent and null → undefined. */
function optNumber(v: unknown, path: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  let n: unknown = v;
  if (typeof v === "bigint") n = Number(v);
  else if (isRecord(v) && typeof (v as { toNumber?: unknown }).toNumber === "function") {
    n = (v as { toNumber: () => unknown }).toNumber();
  }
  if (typeof n !== "number") fail(path, `must be a number, got ${describe(v)}`);
  if (!Number.isFinite(n)) fail(path, `must be a finite number, got ${describe(n)}`);
  return n;
}

// The paths of a descriptor's fields are built only for an error message: a valid request builds none.

/** `descriptors[i]` under `field`. */
function descriptorPath(field: string | undefined, i: number): string {
  return pathIn(field, `descriptors[${i}]`);
}

/** `descriptors[i].entries` under `field`. */
function entriesPath(field: string | undefined, i: number): string {
  return pathIn(descriptorPath(field, i), "entries");
}

/** `descriptors[i].entries[j]` under `field`. */
function entryPath(field: string | undefined, i: number, j: number): string {
  return `${entriesPath(field, i)}[${j}]`;
}

/** Entry `j` of descriptor `i` of the request under `field`. */
function parseEntry(e: unknown, field: string | undefined, i: number, j: number): DescriptorEntry {
  if (!isRecord(e)) fail(entryPath(field, i, j), `must be an object { key, value }, got ${describe(e)}`);
  const unknown = unknownField(e, ENTRY_FIELDS);
  if (unknown !== undefined) failUnknown(unknown, ENTRY_FIELDS, entryPath(field, i, j));
  const key = e.key;
  if (key === undefined || key === null || key === "") {
    fail(pathIn(entryPath(field, i, j), "key"), "is required (a non-empty string)");
  }
  const keyProblem = stringProblem(key, MAX_ENTRY_KEY_LENGTH);
  if (keyProblem !== undefined) fail(pathIn(entryPath(field, i, j), "key"), keyProblem);
  let value = e.value;
  if (value === undefined || value === null) value = "";
  else if (value !== "") {
    const valueProblem = stringProblem(value, MAX_VALUE_LENGTH);
    if (valueProblem !== undefined) fail(pathIn(entryPath(field, i, j), "value"), valueProblem);
  }
  return { key: key as string, value: value as string };
}

/** Descriptor `i` of the request under `field`. */
function parseDescriptor(d: unknown, field: string | undefined, i: number): Descriptor {
  if (!isRecord(d))
    fail(descriptorPath(field, i), `must be an object { entries: [...] }, got ${describe(d)}`);
  const unknown = unknownField(d, DESCRIPTOR_FIELDS);
  if (unknown !== undefined) failUnknown(unknown, DESCRIPTOR_FIELDS, descriptorPath(field, i));
  const entries = d.entries;
  if (!Array.isArray(entries)) {
    fail(entriesPath(field, i), `must be an array of { key, value }, got ${describe(entries)}`);
  }
  if (entries.length === 0 || entries.length > MAX_ENTRIES) {
    fail(entriesPath(field, i), `must hold 1 to ${MAX_ENTRIES} entries, got ${entries.length}`);
  }
  const out: DescriptorEntry[] = new Array(entries.length);
  for (let j = 0; j < entries.length; j++) out[j] = parseEntry(entries[j], field, i, j);
  return out;
}

/**
 * Validates an untrusted check request (parsed JSON or a decoded proto object) into an engine request; throws
 * `InvalidArgumentError` whose message starts with the field path under `field` (e.g. `items[3].cost must be …`).
 * Reads `ctx.bounds` and `ctx.clock`; touches nothing. See the module comment for what is refused.
 */
export function parseCheckRequest(
  input: unknown,
  ctx: Pick<ServiceContext, "bounds" | "clock" | "engine">,
  defaultDomain: string | undefined,
  field?: string,
): CheckRequest {
  const root = field === undefined || field === "" ? "request" : field;
  if (!isRecord(input)) fail(root, `must be an object, got ${describe(input)}`);
  rejectUnknown(input, REQUEST_FIELDS, field ?? "");
  const at = (name: string): string => pathIn(field, name);

  const domain = optString(input.domain, at("domain"), MAX_DOMAIN_LENGTH) ?? defaultDomain;
  if (domain === undefined || domain === "") {
    fail(at("domain"), "is required (no default domain is configured)");
  }
  // A domain without rules would be answered "no limit", silently: most often a typo, so it is refused (the Envoy
  // API alone answers OK there, as envoyproxy/ratelimit does).
  if (!ctx.engine.hasDomain(domain)) {
    fail(
      at("domain"),
      `has no rules in the configuration, got ${JSON.stringify(domain.slice(0, 64))}${domain.length > 64 ? "…" : ""}`,
    );
  }

  const descriptors: Descriptor[] = [];
  const raw = input.descriptors;
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) fail(at("descriptors"), `must be an array, got ${describe(raw)}`);
    if (raw.length > MAX_DESCRIPTORS) {
      fail(at("descriptors"), `must hold at most ${MAX_DESCRIPTORS} descriptors, got ${raw.length}`);
    }
    for (let i = 0; i < raw.length; i++) descriptors.push(parseDescriptor(raw[i], field, i));
  }

  const identifier = optString(input.identifier, at("identifier"), MAX_VALUE_LENGTH);
  const dimension = optString(input.dimension, at("dimension"), MAX_ENTRY_KEY_LENGTH);
  const endpoint = optString(input.endpoint, at("endpoint"), MAX_VALUE_LENGTH);
  if (identifier !== undefined && dimension === undefined) {
    fail(at("dimension"), "is required with identifier (the entry key, e.g. user, ip or apikey)");
  }
  if (dimension !== undefined && identifier === undefined) {
    fail(at("identifier"), "is required with dimension");
  }
  if (endpoint !== undefined && identifier === undefined) {
    fail(at("endpoint"), "needs identifier and dimension");
  }
  if (identifier !== undefined && dimension !== undefined) {
    const id: DescriptorEntry = { key: dimension, value: identifier };
    descriptors.push([id]);
    if (endpoint !== undefined) descriptors.push([id, { key: "endpoint", value: endpoint }]);
  }
  if (descriptors.length === 0) {
    fail(at("descriptors"), "must hold at least one descriptor (or give identifier and dimension)");
  }
  if (descriptors.length > MAX_DESCRIPTORS) {
    fail(
      at("descriptors"),
      `must hold at most ${MAX_DESCRIPTORS} descriptors, identifier/endpoint included, got ${descriptors.length}`,
    );
  }

  const cost = optNumber(input.cost, at("cost"));
  const maxCost = ctx.bounds.maxCost;
  if (cost !== undefined && (cost < 0 || cost > maxCost)) {
    fail(at("cost"), `must be a number from 0 to ${maxCost}, got ${cost}`);
  }

  const timestamp = optNumber(input.timestamp, at("timestamp"));
  if (timestamp !== undefined && timestamp !== 0) {
    if (!(timestamp >= 0 && timestamp <= MAX_NOW_MS)) {
      // the range the library decides in (MAX_NOW_MS), as for a Limiter's or an Engine's nowMs
      fail(
        at("timestamp"),
        `must be Unix milliseconds from 0 to ${MAX_NOW_MS} (2100-01-01T00:00:00Z), got ${timestamp}`,
      );
    }
    const skewMs = Math.abs(timestamp - ctx.clock.nowMs());
    if (skewMs > ctx.bounds.maxClockSkewMs) {
      fail(
        at("timestamp"),
        `is ${Math.round(skewMs)} ms away from the server clock; at most ${ctx.bounds.maxClockSkewMs} ms are accepted (Unix milliseconds expected)`,
      );
    }
  }

  const idempotencyKey = optString(input.idempotency_key, at("idempotency_key"), MAX_IDEMPOTENCY_KEY_LENGTH);
  const out: { -readonly [K in keyof CheckRequest]: CheckRequest[K] } = { domain, descriptors };
  if (cost !== undefined) out.cost = cost;
  if (idempotencyKey !== undefined) out.idempotencyKey = idempotencyKey;
  return out;
}

/** A duration in ms on the wire: whole ms rounded up, {@link RETRY_NEVER} for a non-finite one. */
function wireMs(ms: number): number {
  return Number.isFinite(ms) ? ceilMs(ms) : RETRY_NEVER;
}

/**
 * What is left at `nowMs` of a duration `ms` of a decision taken at `atMs`, on the wire: whole ms rounded up,
 * never negative, {@link RETRY_NEVER} for a non-finite one; `wireMs(ms)` itself when `atMs` is `nowMs`.
 */
function leftMs(ms: number, atMs: number, nowMs: number): number {
  const left = msLeft(ms, atMs, nowMs);
  return Number.isFinite(left) ? left : RETRY_NEVER;
}

/** Seconds on the wire from wire ms: rounded up, {@link RETRY_NEVER} kept. */
function wireSeconds(ms: number): number {
  return ms === RETRY_NEVER ? RETRY_NEVER : Math.ceil(ms / 1000);
}

/**
 * Most units `p`'s limit holds at once: its burst for gcra / token_bucket / leaky_bucket (which `remaining` counts
 * against), else its limit; read from the limits of its descriptor, by name.
 */
function capacityOf(result: CheckResult, p: AppliedPolicy): number {
  const limits = result.descriptors[p.descriptorIndex]?.limits;
  const spec = Array.isArray(limits) ? limits.find((l) => l.name === p.status.policy) : undefined;
  return spec !== undefined && spec.limit === p.status.limit
    ? Math.max(spec.burst, spec.limit)
    : p.status.limit;
}

/** A count on the wire: finite or 0. */
function wireCount(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) ? n : 0;
}

/**
 * Maps an engine answer to the wire response at server time `nowMs` (epoch ms); see the module comment for the
 * encoding of "no limit applied" and "never", and for instants. Policy names are the ones {@link appliedPolicies}
 * gives, so they match the `RateLimit` headers of the same answer (`applied`: those policies, when the caller has
 * them).
 */
export function checkResponseOf(
  result: CheckResult,
  nowMs: number,
  applied: readonly AppliedPolicy[] = appliedPolicies(result),
): ApiCheckResponse {
  const atMs = result.decidedAtMs ?? nowMs;
  const policies: ApiPolicyStatus[] = applied.map((p) => {
    const s = p.status;
    return {
      name: p.name,
      allowed: s.allowed,
      limit: s.limit,
      remaining: isUncounted(p) ? 0 : s.remaining,
      window_ms: s.periodMs,
      reset_after_ms: leftMs(s.resetAfterMs, atMs, nowMs),
      retry_after_ms: s.allowed ? 0 : leftMs(s.retryAfterMs, atMs, nowMs),
      state: s.state,
    };
  });
  const descriptors: ApiDescriptorStatus[] = result.descriptors.map((d) => {
    const dec = d.decision;
    const counted = dec !== undefined && Number.isFinite(dec.limit);
    return {
      code: d.code,
      rule_id: d.match?.rule.id ?? "",
      limit: counted ? dec.limit : 0,
      remaining: counted && dec.reason !== "fail_open" ? wireCount(dec.remaining) : 0,
      reset_after_ms: counted ? leftMs(dec.resetAfterMs, atMs, nowMs) : 0,
      shadowed: d.shadowed,
      delay_ms: d.delayMs,
    };
  });
  const allowed = result.allowed;
  const head = mostRestrictive(applied);
  if (head === undefined) {
    return {
      allowed,
      current_count: 0,
      limit: 0,
      remaining: 0,
      reset_at: 0,
      retry_after: allowed ? 0 : RETRY_NEVER,
      reset_at_ms: 0,
      retry_after_ms: allowed ? 0 : RETRY_NEVER,
      delay_ms: allowed ? result.delayMs : 0,
      state: allowed ? "normal" : "throttled",
      replayed: result.replayed,
      reason: "store",
      policies,
      descriptors,
    };
  }
  const s = head.status;
  // The store could not be asked: nothing is known in use. A `fail_closed` status reports nothing remaining
  // (nothing may pass now); a `fail_open` one the full limit, back to full at once, which nobody counted: 0 on the
  // wire, remaining and reset instant alike (as when no limit applied).
  const uncounted = isUncounted(head);
  const unknown = uncounted || isUnavailable(head);
  const resetAtMs = uncounted ? 0 : Math.ceil(atMs + wireMs(s.resetAfterMs));
  const retryMs = allowed ? 0 : s.allowed ? 0 : leftMs(s.retryAfterMs, atMs, nowMs);
  return {
    allowed,
    current_count: unknown ? 0 : Math.max(0, capacityOf(result, head) - s.remaining),
    limit: s.limit,
    remaining: uncounted ? 0 : s.remaining,
    reset_at: Math.ceil(resetAtMs / 1000),
    retry_after: wireSeconds(retryMs),
    reset_at_ms: resetAtMs,
    retry_after_ms: retryMs,
    delay_ms: allowed ? result.delayMs : 0,
    state: allowed ? (anyWarning(applied) ? "warning" : "normal") : "throttled",
    replayed: result.replayed,
    reason: head.reason === "replay" ? "store" : head.reason,
    policies,
    descriptors,
  };
}

/** Whether any of `applied` is in seed 002's `warning` state (a loop: no array is built per answer). */
function anyWarning(applied: readonly AppliedPolicy[]): boolean {
  for (let i = 0; i < applied.length; i++) if (applied[i].status.state === "warning") return true;
  return false;
}

/**
 * The `sluice_requests_total` outcome of a check answer: `ok` when allowed, `fail_closed` when denied only
 * because the store was unreachable (no quota was used up: see `deniedByUnavailableStore`), else `over_limit`.
 */
export function checkOutcome(
  result: CheckResult,
  policies: readonly AppliedPolicy[] = appliedPolicies(result),
): ServiceOutcome {
  if (result.allowed) return "ok";
  return deniedByUnavailableStore(result, policies) ? "fail_closed" : "over_limit";
}

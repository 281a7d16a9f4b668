/**
 * "Rate limiting the rate limiter" (seed 002): the admin API's own limits, enforced by a private Sluice engine on
 * its own memory store (never the data plane's), so admin traffic cannot touch data-plane counters or capacity.
 *
 * Two GCRA limits per client, each spread over a minute with a burst of the whole minute's quota: reads
 * (GET/HEAD, default 1000 per minute) and writes (every other method, default 100 per minute). The client is the
 * token's name when a valid token was presented (`token:ops`), else the peer address (`ip:10.0.0.1`), so failed
 * authentication attempts are limited per address too, before the 401. The store holds at most `capacity` clients
 * (least recently used dropped first), so no number of addresses grows memory without bound.
 *
 * Answers carry the standard fields (`RateLimit-Policy`, `RateLimit`, and `Retry-After` when denied) built by the
 * data plane's own formatter (`../rate-limit-headers.ts`).
 */
import type { Clock } from "../../core/clock.js";
import { InvalidArgumentError } from "../../core/errors.js";
import { type CheckResult, createEngine, type Engine } from "../../engine/engine.js";
import { configFromValue } from "../../rules/load-config.js";
import { memoryStore } from "../../stores/memory/memory-store.js";
import { appliedPolicies, rateLimitHeaders } from "../rate-limit-headers.js";

/** The admin API's own limits, per client per minute. */
export interface AdminLimits {
  /** Reads (GET, HEAD) per client per minute. @default 1000 */
  readonly readsPerMinute?: number;
  /** Writes (every other method) per client per minute. @default 100 */
  readonly writesPerMinute?: number;
}

/** Which limit a request counts against. */
export type AdminRequestClass = "read" | "write";

/** The answer of {@link AdminRateLimiter.check}. */
export interface AdminLimitAnswer {
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /** Response fields to send (`RateLimit-Policy`, `RateLimit`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Names of the policies that denied it (problem details' `violated-policies`). */
  readonly violated: readonly string[];
}

/** The admin API's limiter. */
export interface AdminRateLimiter {
  /** Counts one request of `kind` from `client` (`token:ops`, `ip:10.0.0.1`). */
  check(kind: AdminRequestClass, client: string): AdminLimitAnswer;
  /** Releases the private store. */
  close(): Promise<void>;
}

const DOMAIN = "sluice-admin";

function perMinute(value: number | undefined, fallback: number, field: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) {
    throw new InvalidArgumentError(`limits.${field} must be a whole number >= 1, got ${String(value)}`);
  }
  return v;
}

/** Creates the admin API's limiter on a private memory store holding at most `capacity` clients. */
export function createAdminRateLimiter(
  clock: Clock,
  limits: AdminLimits = {},
  capacity = 10_000,
): AdminRateLimiter {
  const reads = perMinute(limits.readsPerMinute, 1000, "readsPerMinute");
  const writes = perMinute(limits.writesPerMinute, 100, "writesPerMinute");
  const rule = (kind: AdminRequestClass, limit: number) => ({
    id: `admin-${kind}s`,
    domain: DOMAIN,
    match: [{ key: "class", value: kind }, { key: "client" }],
    limits: [{ name: `admin-${kind}s`, algorithm: "gcra", limit, period: "1m" }],
  });
  const config = configFromValue({ rules: [rule("read", reads), rule("write", writes)] }, "admin limits");
  const store = memoryStore({ capacity });
  const engine: Engine = createEngine({ config, clock, store });
  return {
    check(kind, client) {
      const result: CheckResult = engine.checkSync({
        domain: DOMAIN,
        descriptors: [
          [
            { key: "class", value: kind },
            { key: "client", value: client },
          ],
        ],
      });
      const violated = result.allowed
        ? []
        : appliedPolicies(result)
            .filter((p) => !p.status.allowed)
            .map((p) => p.name);
      return { allowed: result.allowed, headers: rateLimitHeaders(result, { state: false }), violated };
    },
    async close() {
      await engine.close();
      await store.close();
    },
  };
}

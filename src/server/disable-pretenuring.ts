/**
 * Turns off V8's allocation-site pretenuring for the life of the service process.
 *
 * **What pretenuring does.** V8 counts, per allocation site (an object or array literal, a `new` of some
 * constructors), how many of its young objects survive a scavenge; a site whose objects nearly all survive is then
 * allocated straight in the old generation, which only a mark-compact collects.
 *
 * **Why a server is better without it.** A request's objects live for one round trip. Those in flight when a
 * scavenge runs survive it, and a site whose objects were in flight at the first scavenges under load is tenured.
 * Its objects, now in the old generation, die a few milliseconds later but stay there until the next mark-compact,
 * and every young object they pointed to is kept alive by them meanwhile (the scavenger takes old-to-young pointers
 * as roots without knowing the old object is dead). Those survive, so their own sites are tenured too: the process
 * settles into scavenges that copy and promote megabytes each time. Measured on Node 20 with the lean gRPC server
 * (`h2-grpc-server.ts`, no-op handlers, 2,000 calls/s, open loop): every scavenge kept 2.5 MB, all of it promoted
 * at the next one, scavenges paused 9-15 ms, p99 10.7 ms; with pretenuring off, 4-30 KB survived, scavenges paused
 * ~1 ms, p99 0.96 ms. `sluice serve` itself at 8,000 CheckRateLimit calls/s (half its throughput on that machine):
 * p99 148-182 ms with, 4.3-6.7 ms without. A bare `node:http2` server fell into it or not depending on the shape
 * of its per-call objects (a closure over the call object was enough), so no code change can be relied on to stay
 * clear of it; the flag can.
 *
 * **Cost.** Objects that do live long (the rules, the memory store's tables, connection state) are copied by one or
 * two scavenges more before they reach the old generation: a start-up cost, nothing per request.
 *
 * **How.** `v8.setFlagsFromString` at start. V8 reads the flag whenever it would make a pretenuring decision, so
 * turning it off at run time takes effect (checked here on Node 20 and 24: with `--trace-pretenuring-statistics`,
 * no site is considered after the call). Sites tenured before the call would stay tenured: call it before load.
 */
import { setFlagsFromString } from "node:v8";

/** The V8 option {@link disablePretenuring} sets; the same as giving it on the `node` command line. */
export const NO_PRETENURING_FLAG = "--no-allocation-site-pretenuring";

let disabled = false;

/** Turns off V8's allocation-site pretenuring in this process (see the module comment); idempotent. */
export function disablePretenuring(): void {
  if (disabled) return;
  setFlagsFromString(NO_PRETENURING_FLAG);
  disabled = true;
}

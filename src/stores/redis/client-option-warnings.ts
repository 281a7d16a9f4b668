/**
 * ioredis client options that defeat the Redis store's failure handling, found by reading the client's resolved
 * options (`client.options`, ioredis defaults included). The failure policy (`resilientStore`) answers a call
 * that fails or times out; what it cannot undo is a call that ioredis keeps and sends later, or never settles:
 *
 * - `enableOfflineQueue: true` (the ioredis default, for `Redis` and `Cluster`): while disconnected, calls wait in
 *   ioredis's offline queue instead of failing at once. The policy answers them only by its timeout, the queue
 *   grows with the outage, and every queued consume is applied once the connection is back — for requests long
 *   since answered.
 * - `maxRetriesPerRequest` other than 0 (ioredis default 20; `null` means no bound): calls in flight when the
 *   connection drops are held for that many reconnection attempts. With `autoResendUnfulfilledCommands: true`
 *   (the default) they are sent again after reconnecting (consumed late); with `false`, a reconnection within
 *   those attempts drops them without settling them at all (checked against ioredis 6: the promise stays pending).
 *   On a `Cluster` this concerns node connections only when `clusterNodeRetryStrategy` lets them reconnect (by
 *   default a lost node connection fails its calls at once).
 * - `retryDelayOnFailover` above 0 on a `Cluster` (ioredis default 100): when a node connection closes, ioredis sends
 *   every call that was in flight on it again after that delay, although Redis may have run it before the link
 *   dropped (its reply lost): a consume counted twice. The store re-routes only calls Redis provably did not run
 *   (`cluster-router.ts`).
 * - `enableAutoPipelining: true`: ioredis holds each call to its next tick to pipeline it, which the store's
 *   own batching already does; measured here with ioredis 6 it halved throughput and multiplied p99 by 5 to 10.
 *
 * A client without readable options (a wrapper, a test double) yields no warning.
 */

/** Which client option a {@link RedisClientWarning} is about. */
export type RedisClientWarningCode =
  | "SLUICE_REDIS_OFFLINE_QUEUE"
  | "SLUICE_REDIS_RETRIES_PER_REQUEST"
  | "SLUICE_REDIS_FAILOVER_RESEND"
  | "SLUICE_REDIS_AUTO_PIPELINING";

/** A client option that weakens the Redis store's failure handling or speed, and what to set instead. */
export interface RedisClientWarning {
  /** Which problem. */
  readonly code: RedisClientWarningCode;
  /** The option at fault, as ioredis names it (`redisOptions.` prefixed for a Cluster's node connections). */
  readonly option: string;
  /** What goes wrong and the setting that avoids it. */
  readonly message: string;
}

type Options = Readonly<Record<string, unknown>>;

/** The resolved options of an ioredis client, or undefined when `client` has none. */
function optionsOf(client: unknown): Options | undefined {
  if (client === null || typeof client !== "object") return undefined;
  const options = (client as { options?: unknown }).options;
  return options !== null && typeof options === "object" ? (options as Options) : undefined;
}

/** The warnings for `options.maxRetriesPerRequest` (ioredis default 20) of a connection that reconnects. */
function retriesWarning(options: Options, prefix: string): RedisClientWarning | undefined {
  const retries = options.maxRetriesPerRequest === undefined ? 20 : options.maxRetriesPerRequest;
  if (retries === 0) return undefined;
  // ioredis ignores a negative bound, as it does null: the calls are held until the connection is back.
  const bounded = typeof retries === "number" && retries >= 0;
  const resend = options.autoResendUnfulfilledCommands !== false;
  const held = bounded ? `for up to ${retries + 1} reconnection attempts` : "until the connection is back";
  const message = resend
    ? `${prefix}maxRetriesPerRequest is ${String(retries)}: calls in flight when the connection drops are held ` +
      `${held} and sent again after reconnecting, consuming for requests the failure policy has already ` +
      `answered. Set ${prefix}maxRetriesPerRequest: 0 and ${prefix}autoResendUnfulfilledCommands: false.`
    : `${prefix}maxRetriesPerRequest is ${String(retries)} with ${prefix}autoResendUnfulfilledCommands false: ` +
      `a call in flight when the connection drops never settles if ioredis reconnects ` +
      `${bounded ? `within ${retries + 1} attempts` : "at all"} (ioredis drops it). ` +
      `Set ${prefix}maxRetriesPerRequest: 0.`;
  return { code: "SLUICE_REDIS_RETRIES_PER_REQUEST", option: `${prefix}maxRetriesPerRequest`, message };
}

/** The options of `client` (an ioredis `Redis` or `Cluster`) that defeat the store's failure handling. */
export function clientOptionWarnings(client: unknown): RedisClientWarning[] {
  const options = optionsOf(client);
  if (options === undefined) return [];
  const cluster = (client as { isCluster?: unknown }).isCluster === true;
  const warnings: RedisClientWarning[] = [];
  if (options.enableOfflineQueue !== false) {
    const where = cluster ? "the cluster is unreachable" : "the connection is down";
    warnings.push({
      code: "SLUICE_REDIS_OFFLINE_QUEUE",
      option: "enableOfflineQueue",
      message:
        `enableOfflineQueue is true: while ${where}, calls wait in ioredis's offline queue instead of ` +
        "failing at once, so the failure policy answers them only by its timeout, the queue grows with the " +
        "outage, and every queued consume is applied once Redis is back. Set enableOfflineQueue: false " +
        `(and wait for the client's "ready" event before serving).`,
    });
  }
  if (!cluster) {
    const w = retriesWarning(options, "");
    if (w !== undefined) warnings.push(w);
  } else if (typeof options.clusterNodeRetryStrategy === "function") {
    const nodeOptions = optionsOf({ options: options.redisOptions }) ?? {};
    const w = retriesWarning(nodeOptions, "redisOptions.");
    if (w !== undefined) warnings.push(w);
  }
  const failoverDelay = options.retryDelayOnFailover === undefined ? 100 : options.retryDelayOnFailover;
  if (cluster && typeof failoverDelay === "number" && failoverDelay > 0) {
    warnings.push({
      code: "SLUICE_REDIS_FAILOVER_RESEND",
      option: "retryDelayOnFailover",
      message:
        `retryDelayOnFailover is ${failoverDelay}: when a node connection closes, ioredis sends the calls that ` +
        "were in flight on it again, although Redis may have run them before the link dropped, so a consume " +
        "can be counted twice. Set retryDelayOnFailover: 0 (the store re-routes the calls Redis did not run).",
    });
  }
  if (options.enableAutoPipelining === true) {
    warnings.push({
      code: "SLUICE_REDIS_AUTO_PIPELINING",
      option: "enableAutoPipelining",
      message:
        "enableAutoPipelining is true: ioredis holds each script call to its next tick to pipeline it, which " +
        "the store's own batching already does (measured with ioredis 6: half the throughput, 5 to 10 times " +
        "the p99). Set enableAutoPipelining: false.",
    });
  }
  return warnings;
}

/** Codes already emitted as process warnings, per client: the default reporter warns once per client. */
const emitted = new WeakMap<object, Set<RedisClientWarningCode>>();

/**
 * The default `onWarning`: a Node process warning (type `SluiceWarning`, with the code), once per client and
 * code however many stores share the client.
 */
export function emitProcessWarning(client: object, warning: RedisClientWarning): void {
  let codes = emitted.get(client);
  if (codes === undefined) {
    codes = new Set();
    emitted.set(client, codes);
  }
  if (codes.has(warning.code)) return;
  codes.add(warning.code);
  process.emitWarning(`redisStore: ${warning.message}`, { type: "SluiceWarning", code: warning.code });
}

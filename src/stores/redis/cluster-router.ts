/**
 * Redis Cluster routing for the Redis store: which node each call goes to, one script call per node per flush,
 * all-or-nothing across nodes, and recovery from resharding and failover.
 *
 * Slots: every key of one identity carries the identity as its hash tag (`rl:{identity}:…`), so one item is
 * always single-slot. {@link keySlot} computes the slot as Redis does (CRC16/XMODEM of the tag, mod 16384), and
 * the ioredis `Cluster`'s own slot table (`cluster.slots[slot][0]`) names the master serving it.
 *
 * One call per node: each call goes to the queue of its master (`batch-queue.ts`: at most `maxInFlight` script
 * calls in flight per master, the others queued for the next answer), and what a master's queue holds leaves as
 * one script call (at most `maxBatch` items each). Redis Cluster refuses declared KEYS of several slots
 * (CROSSSLOT), so the call declares the keys of its first key's slot — which also makes the ioredis `Cluster` route
 * it to that slot's master and follow MOVED / ASK for it — and passes the keys of other slots in ARGV. The cluster
 * variant of the script starts with `#!lua flags=allow-cross-slot-keys` and a prelude that rebuilds `KEYS` and
 * `ARGV` (see {@link loadClusterScript}), so `apply.lua` runs as on a single server but for one line: it reads key
 * by key (`MULTI_READ` false), as no single command inside the script may span slots. Redis checks each key the
 * script touches: one no longer served by that node fails the whole call ("non local key") before anything is
 * written, since the script writes only at its end.
 *
 * Every key of the first slot is declared, not only the first, for a slot being migrated: the source node answers
 * ASK only when every declared key is missing there (they have all moved: the importing node then runs the call
 * and finds them) and TRYAGAIN when some are missing (the migration is moving them). Declaring only the first key
 * made a source that had moved or expired it answer ASK, and the importing node ran the call on none of the other
 * keys: an exhausted limit read as fresh (over-admission), and its key, written there, broke the migration
 * (BUSYKEY). The keys of other slots are checked by Redis as the script reaches them ("non local key" on a node
 * not, or no longer, serving them).
 *
 * All-or-nothing: the items of one `apply` on one node are one group of one script call, atomic as on a single
 * server. A call whose items live on several masters is split into one group per master, sent in parallel; a
 * consume is then all-or-nothing but not atomic, by the rule of `sharded-store.ts`: when any node denies (or
 * fails), every node that admitted its share gets it back (`release` of its leases, then `refund`), and every item
 * is reported denied. Between a node's consume and its refund its usage is briefly too high: a concurrent call
 * may be denied early, never admitted beyond a limit. A refund that fails leaves the units consumed (again only
 * denying early, until the state expires). Calls whose items share a master (every Limiter call: one identity)
 * never take this path.
 *
 * Idempotency (`applyOnce`): a call with an idempotency record whose items and record share a master goes to it
 * as one group, its record (in the first item's slot) checked and written in the same script call. Any other (its
 * items on several masters, or a custom `keyOf` putting the record on another master than the items) is handed to
 * the store's `across` as a whole, at routing time (so also when a re-route after a resharding finds it spread):
 * the store decides it under a claim on the record's master (`../once-claim.ts`), its consume a plain call split
 * as above.
 *
 * Resharding and failover: ioredis follows MOVED / ASK / TRYAGAIN / CLUSTERDOWN for the declared keys by itself
 * (within its `maxRedirections`). When a node's call still fails, the router sends it again only when the error
 * proves Redis did not run it ({@link failureOf}): a cluster reply refusing it (MOVED, ASK, TRYAGAIN, CLUSTERDOWN,
 * "non local key", READONLY …), or a connection error for a call ioredis never wrote (no connection, offline queue
 * disabled). It then refreshes the slot table, waits a little (50, 100, 200 ms …) and routes each of that call's
 * groups again as its own script call, at most `retries` times per group: a group on a slot being migrated (the
 * source answering "non local key" for a key it no longer holds) then follows its slot (ASK) or fails alone,
 * instead of failing every group batched with it on every try. A failure after the call was written (its
 * connection closed before the reply, a `commandTimeout`) is ambiguous: Redis may have applied it, and a resend
 * would count a consume (or a refund, or a split call's share) twice. Such a call is not sent again, except its
 * groups that can be (an idempotent consume, which a resend replays from its record; a peek); the others reject with
 * `ERR_SLUICE_STORE_UNAVAILABLE`, as do the calls out of tries, and the failure policy (resilient store) decides.
 * Script and argument errors are never retried.
 */
import { createHash } from "node:crypto";
import { type Decision, deniedDecision } from "../../core/decision.js";
import { InvalidArgumentError, StoreUnavailableError } from "../../core/errors.js";
import type { StoreItem } from "../store.js";
import { BatchQueue } from "./batch-queue.js";
import {
  dropUnsent,
  type EncodedBatch,
  encodeBatch,
  type Group,
  type KeyNamer,
  type Settleable,
  settleBatch,
} from "./protocol.js";
import { assembleScript, type RedisScript, type RedisScriptClient, runScript } from "./script.js";

/** Number of hash slots of a Redis Cluster. */
export const CLUSTER_SLOTS = 16_384;

/** The surface of an ioredis `Cluster` the store needs, besides EVALSHA / EVAL. */
export interface ClusterScriptClient extends RedisScriptClient {
  /** `true` on an ioredis `Cluster`. */
  readonly isCluster: true;
  /** The slot table: per slot, the node keys (`host:port`) serving it, master first. */
  readonly slots: readonly (readonly string[] | undefined)[];
  /** Reloads the slot table (CLUSTER SLOTS) and calls back when done, with an error or without. */
  refreshSlotsCache(callback?: (error?: Error | null) => void): void;
  /** The connections to the nodes of `role`. */
  nodes(role?: "all" | "master" | "slave"): readonly unknown[];
  /** The client's state; `end` once disconnected for good. */
  readonly status?: string;
}

/** Whether `client` is an ioredis `Cluster` (its `isCluster` flag and slot table). */
export function isClusterClient(client: RedisScriptClient): client is ClusterScriptClient {
  const c = client as Partial<ClusterScriptClient>;
  return c.isCluster === true && Array.isArray(c.slots) && typeof c.refreshSlotsCache === "function";
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    table[i] = c;
  }
  return table;
})();

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** The hash slot of `key`, as Redis computes it: CRC16 of its UTF-8 bytes (of its `{tag}` if any) mod 16384. */
export function keySlot(key: string): number {
  let start = 0;
  let end = key.length;
  const open = key.indexOf("{");
  if (open !== -1) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) return slotOfBytes(key.slice(start, end));
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ c) & 0xff];
  }
  return crc & (CLUSTER_SLOTS - 1);
}

/** {@link keySlot} of a tag holding non-ASCII characters (UTF-8 encoded, lone surrogates as U+FFFD). */
function slotOfBytes(tag: string): number {
  if (scratch.length < tag.length * 3) scratch = new Uint8Array(tag.length * 3);
  const n = encoder.encodeInto(tag, scratch).written;
  let crc = 0;
  for (let i = 0; i < n; i++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ scratch[i]) & 0xff];
  return crc & (CLUSTER_SLOTS - 1);
}

/**
 * First lines of the cluster script: the flag that lets it reach keys of several slots (all on the node that
 * runs it), and a prelude turning the declared `KEYS` + `ARGV = { n, key… (n), position… (n), args… }` back into
 * the `KEYS` and `ARGV` that `apply.lua` reads (see {@link sendClusterBatch}).
 */
const CLUSTER_HEADER = `#!lua flags=allow-cross-slot-keys
-- Redis Cluster prelude (src/stores/redis/cluster-router.ts). KEYS: the batch's keys of one slot (the slot of its
-- first key), in batch order; they route the call to its node. ARGV[1]: n, the number of the batch's other keys
-- (of other slots served by the same node); ARGV[2 .. n+1]: those keys, in batch order; ARGV[n+2 .. 2n+1]: the
-- position of each in the batch (1-based, ascending); ARGV[2n+2 ..]: apply.lua's ARGV. Rebuilt here into apply.lua's
-- KEYS (every key, in batch order) and ARGV.
local KEYS, ARGV = (function(keys, argv)
  local n = tonumber(argv[1])
  local args = {}
  for i = 2 * n + 2, #argv do args[i - 2 * n - 1] = argv[i] end
  if n == 0 then return keys, args end
  local all, d, a = {}, 1, 1
  local at = tonumber(argv[n + 2])
  for i = 1, #keys + n do
    if i == at then
      all[i] = argv[a + 1]
      a = a + 1
      at = a <= n and tonumber(argv[n + 1 + a]) or -1
    else
      all[i] = keys[d]
      d = d + 1
    end
  end
  return all, args
end)(KEYS, ARGV)
`;

let clusterScript: RedisScript | undefined;

/**
 * The cluster variant of the script: flag line and prelude before `apply.lua`, which reads key by key; assembled
 * once per process.
 */
export function loadClusterScript(): RedisScript {
  if (clusterScript === undefined) {
    const source = CLUSTER_HEADER + assembleScript(undefined, { multiRead: false });
    clusterScript = Object.freeze({ source, sha: createHash("sha1").update(source).digest("hex") });
  }
  return clusterScript;
}

/**
 * Sends one encoded batch as the cluster script (see {@link CLUSTER_HEADER}): the keys of its first key's slot
 * declared, the others in ARGV with their positions; as `evalshaBuffer` when its reply is binary.
 */
export function sendClusterBatch(
  client: RedisScriptClient,
  script: RedisScript,
  batch: EncodedBatch,
): Promise<unknown> {
  const { keys, args } = batch;
  const slot = keySlot(keys[0]);
  let declared: string[] = keys;
  let others: string[] | undefined;
  let positions: number[] | undefined;
  for (let i = 1; i < keys.length; i++) {
    if (keySlot(keys[i]) === slot) {
      if (others !== undefined) declared.push(keys[i]);
      continue;
    }
    if (others === undefined) {
      declared = keys.slice(0, i);
      others = [];
      positions = [];
    }
    others.push(keys[i]);
    positions?.push(i + 1);
  }
  const n = others?.length ?? 0;
  const argv: (string | number | Buffer)[] = new Array(1 + 2 * n + args.length);
  argv[0] = n;
  for (let i = 0; i < n; i++) {
    argv[1 + i] = (others as string[])[i];
    argv[1 + n + i] = (positions as number[])[i];
  }
  for (let i = 0; i < args.length; i++) argv[1 + 2 * n + i] = args[i];
  return runScript(client, script, declared, argv, batch.binary);
}

/** Redis replies that mean "this node no longer serves that slot" or "the cluster is reconfiguring": not run. */
const CLUSTER_REPLY =
  /^(?:MOVED|ASK|TRYAGAIN|CLUSTERDOWN|LOADING|READONLY|MASTERDOWN)\b|non local key|slot not served/;

/**
 * ioredis errors of a call it never wrote to a socket (ioredis 6): no writable connection with the offline queue
 * disabled (node or cluster), or the cluster's offline queue flushed because no startup node answered.
 */
const NEVER_SENT =
  /^(?:Stream isn't writeable and enableOfflineQueue options is false|Cluster isn't ready and enableOfflineQueue options is false|None of startup nodes is available)/;

/** ioredis's error after `maxRedirections`, naming the last error it was given. */
const REDIRECTIONS = /^Too many Cluster redirections\. Last error: (?:\w*Error: )?/;

/**
 * What a failed script call tells about Redis having run it: `refused` (a cluster reply refusing it, or never
 * sent: nothing ran, worth re-routing), `final` (Redis ran it and answered an error, e.g. a script error, OOM, a bad
 * argument: the same on retry, and nothing was written, as the script writes only at its end), or `ambiguous`
 * (written, then no answer: the connection closed, a `commandTimeout`, a `MaxRetriesPerRequestError`, anything
 * else — Redis may have applied it).
 */
export function failureOf(error: unknown): "refused" | "final" | "ambiguous" {
  const message = error instanceof Error ? error.message : String(error);
  const redirected = REDIRECTIONS.exec(message);
  if (redirected !== null) {
    // ioredis gave up following redirections; what matters is the last answer (a reply, or a lost connection).
    const last = message.slice(redirected[0].length);
    return CLUSTER_REPLY.test(last) || NEVER_SENT.test(last) ? "refused" : "ambiguous";
  }
  if (NEVER_SENT.test(message)) return "refused";
  if (error instanceof Error && error.name === "ReplyError")
    return CLUSTER_REPLY.test(message) ? "refused" : "final";
  return "ambiguous";
}

/** Replies about the server's state rather than the call (a busy script, out of memory, no permission …). */
const SERVER_REPLY = /^(?:BUSY|OOM|NOAUTH|NOPERM|MISCONF|NOREPLICAS)\b/;

/**
 * Whether a script call of several groups that failed with `error` should send each group again alone: the script
 * ran and failed (`final`: it wrote nothing, as it writes only at its end) for a reason one group may have caused
 * (a key holding another type, a script error), not for the server's state, which each group alone would meet too.
 */
export function failedForOneCall(error: unknown): boolean {
  return (
    failureOf(error) === "final" && !SERVER_REPLY.test(error instanceof Error ? error.message : String(error))
  );
}

/** Whether the calls of `group` may be sent again after an ambiguous failure: a resend cannot count anything twice. */
function resendable(group: Group): boolean {
  return group.once !== undefined || group.op === "peek";
}

/** A queued store call and how to settle it. */
export type PendingGroup = Settleable;

/** Options of {@link ClusterRouter}. */
export interface ClusterRouterOptions {
  /** The ioredis `Cluster`. */
  readonly client: ClusterScriptClient;
  /** Names the keys of an item (the store's key layout). */
  readonly keysOf: KeyNamer;
  /** Check that every key of an item hashes to one slot (for a custom `keyOf`). */
  readonly checkKeys: boolean;
  /** `ttlMarginMs` of the store. */
  readonly ttlMarginMs: number;
  /** Ask for binary replies (the client has `evalshaBuffer`). */
  readonly binary: boolean;
  /** Queue calls per master (`false`: one script call per call and master). */
  readonly batch: boolean;
  /** Most items per script call. */
  readonly maxBatch: number;
  /** Script calls in flight per master before further calls queue for the next answer. */
  readonly maxInFlight: number;
  /** How many times a failed node call is re-routed. */
  readonly retries: number;
  /** Queues a follow-up call (refund, release) through the store, batched with the others. */
  readonly submit: (group: Group) => Promise<Decision[]>;
  /** Takes over a call with a record that no single master holds with all its items (see the module comment). */
  readonly across: (pending: PendingGroup) => void;
}

interface Part {
  readonly node: string;
  /** Indexes of the call's items on this node, or undefined for all of them. */
  readonly indexes: number[] | undefined;
}

/** A call (or a split call's share) on its way to one master, with the re-routings it has had. */
interface Routed extends PendingGroup {
  readonly attempt: number;
  /** Sent as its own script call, never batched (a call being re-routed: see {@link ClusterRouter}'s #failed). */
  readonly alone: boolean;
}

/** Routes the Redis store's batches over a Redis Cluster; see the module comment. */
export class ClusterRouter {
  readonly #client: ClusterScriptClient;
  readonly #keysOf: KeyNamer;
  readonly #checkKeys: boolean;
  readonly #margin: number;
  readonly #binary: boolean;
  readonly #batch: boolean;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  readonly #retries: number;
  readonly #submit: (group: Group) => Promise<Decision[]>;
  readonly #across: (pending: PendingGroup) => void;
  readonly #script = loadClusterScript();
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The queue of each master with calls queued or in flight (dropped once idle). */
  readonly #queues = new Map<string, BatchQueue<Routed>>();

  /** Creates a router over `options.client`. */
  constructor(options: ClusterRouterOptions) {
    this.#client = options.client;
    this.#keysOf = options.keysOf;
    this.#checkKeys = options.checkKeys;
    this.#margin = options.ttlMarginMs;
    this.#binary = options.binary;
    this.#batch = options.batch;
    this.#maxBatch = options.maxBatch;
    this.#maxInFlight = options.maxInFlight;
    this.#retries = options.retries;
    this.#submit = options.submit;
    this.#across = options.across;
  }

  /** Routes one store call to its master's queue, splitting a call that spans masters. */
  submit(pending: PendingGroup): void {
    this.#route(pending, 0, false);
  }

  /** Resolves once nothing sent by this router is queued or in flight (retries and rollbacks included). */
  async idle(): Promise<void> {
    for (;;) {
      for (const queue of this.#queues.values()) queue.flushAll();
      if (this.#inFlight.size === 0) return;
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  #route(p: PendingGroup, attempt: number, alone: boolean): void {
    let parts: Part[];
    try {
      parts = this.#partition(p.group.items);
    } catch (error) {
      p.reject(error);
      return;
    }
    const once = p.group.once;
    if (once !== undefined && !this.#recordWith(once.key, p.group.items[0], parts)) {
      this.#across(p);
      return;
    }
    if (parts.length === 1)
      this.#add(parts[0].node, {
        group: p.group,
        resolve: p.resolve,
        reject: p.reject,
        ticket: p.ticket,
        attempt,
        alone,
      });
    else this.#split(p, parts, attempt, alone);
  }

  /** Queues `routed` for `node` (sends it at once, alone, without batching or when it must go alone). */
  #add(node: string, routed: Routed): void {
    if (!this.#batch || routed.alone) {
      this.#send([routed]);
      return;
    }
    let queue = this.#queues.get(node);
    if (queue === undefined) {
      const q = new BatchQueue<Routed>({
        maxBatch: this.#maxBatch,
        maxInFlight: this.#maxInFlight,
        send: (batch, answered) =>
          this.#send(batch, () => {
            answered();
            if (q.queued === 0 && q.inFlight === 0 && this.#queues.get(node) === q) this.#queues.delete(node);
          }),
        drop: dropUnsent,
      });
      queue = q;
      this.#queues.set(node, q);
    }
    queue.push(routed);
  }

  /** The node key of the master serving `item` (or `slot:<n>` while the slot table has no entry for it). */
  #nodeOf(item: StoreItem): string {
    const keys = this.#keysOf(item.limits, item.key);
    const slot = keySlot(keys[0]);
    if (this.#checkKeys) {
      for (let i = 1; i < keys.length; i++) {
        if (keySlot(keys[i]) !== slot) {
          throw new InvalidArgumentError(
            `redisStore: keyOf must keep every key of one identity in one Redis Cluster slot (a {hash tag}); ${JSON.stringify(keys[0])} and ${JSON.stringify(keys[i])} are in different slots`,
          );
        }
      }
    }
    return this.#client.slots[slot]?.[0] ?? `slot:${slot}`;
  }

  /**
   * Whether the idempotency record `key` can be checked and written in the items' own script call: every item
   * and the record on one master (see the module comment).
   */
  #recordWith(key: string, first: StoreItem, parts: readonly Part[]): boolean {
    if (parts.length > 1) return false;
    if (!this.#checkKeys) return true; // the default layout: the record's tag is the first item's identity
    const slot = keySlot(key);
    if (slot === keySlot(this.#keysOf(first.limits, first.key)[0])) return true;
    const node = this.#client.slots[slot]?.[0];
    return node !== undefined && node === parts[0].node;
  }

  /** The call's items grouped by master, in first-seen order. */
  #partition(items: readonly StoreItem[]): Part[] {
    const first = this.#nodeOf(items[0]);
    if (items.length === 1) return [{ node: first, indexes: undefined }];
    const nodes = [first];
    let single = true;
    for (let i = 1; i < items.length; i++) {
      nodes.push(this.#nodeOf(items[i]));
      if (nodes[i] !== first) single = false;
    }
    if (single) return [{ node: first, indexes: undefined }];
    const parts = new Map<string, number[]>();
    nodes.forEach((node, i) => {
      const indexes = parts.get(node);
      if (indexes === undefined) parts.set(node, [i]);
      else indexes.push(i);
    });
    return [...parts].map(([node, indexes]) => ({ node, indexes }));
  }

  /** Queues one child group per master for a call spanning masters, and settles the call from theirs. */
  #split(parent: PendingGroup, parts: readonly Part[], attempt: number, alone: boolean): void {
    const { op, now, items } = parent.group;
    const children = parts.map(
      (part) =>
        new Promise<Decision[]>((resolve, reject) => {
          const group: Group = { op, now, items: (part.indexes ?? []).map((i) => items[i]) };
          this.#add(part.node, { group, resolve, reject, ticket: parent.ticket, attempt, alone });
        }),
    );
    this.#track(this.#settle(parent.group, parts, children).then(parent.resolve, parent.reject));
  }

  /** Combines the per-master answers of a split call; a consume denied anywhere is given back everywhere. */
  async #settle(
    group: Group,
    parts: readonly Part[],
    children: readonly Promise<Decision[]>[],
  ): Promise<Decision[]> {
    const settled = await Promise.allSettled(children);
    const out = new Array<Decision>(group.items.length);
    const put = (part: Part, decisions: readonly Decision[]): void => {
      (part.indexes ?? []).forEach((itemIndex, j) => {
        out[itemIndex] = decisions[j];
      });
    };
    const failure = settled.find((s) => s.status === "rejected");
    const admitted = settled.map((s) => s.status === "fulfilled" && s.value.every((d) => d.allowed));
    if (group.op !== "consume" || (failure === undefined && admitted.every(Boolean))) {
      if (failure !== undefined) throw failure.reason;
      parts.forEach((part, k) => {
        put(part, (settled[k] as PromiseFulfilledResult<Decision[]>).value);
      });
      return out;
    }
    const rollbacks = await Promise.allSettled(
      parts.map(async (part, k) => {
        const result = settled[k];
        if (result.status === "rejected") return;
        if (!admitted[k]) {
          put(part, result.value.map(deniedDecision));
          return;
        }
        const partItems = (part.indexes ?? []).map((i) => group.items[i]);
        await Promise.all(
          partItems.map((item, j) => {
            const leases = result.value[j].leases;
            return leases === undefined || Object.keys(leases).length === 0
              ? undefined
              : this.#submit({ op: "release", items: [item], now: group.now, leases });
          }),
        );
        put(
          part,
          (await this.#submit({ op: "refund", items: partItems, now: group.now })).map(deniedDecision),
        );
      }),
    );
    if (failure !== undefined) throw failure.reason;
    const rollbackFailure = rollbacks.find((r) => r.status === "rejected");
    if (rollbackFailure !== undefined) throw rollbackFailure.reason;
    return out;
  }

  /**
   * Sends one node's groups as one script call; re-routes them on a cluster or connection error. `answered` runs
   * as soon as the reply (or error) is in.
   */
  #send(pending: readonly Routed[], answered?: () => void): void {
    const groups = pending.map((p) => p.group);
    let batch: EncodedBatch;
    try {
      batch = encodeBatch(groups, this.#keysOf, this.#margin, this.#binary);
    } catch (error) {
      answered?.();
      for (const p of pending) p.reject(error);
      return;
    }
    this.#track(
      sendClusterBatch(this.#client, this.#script, batch).then(
        (reply) => {
          answered?.();
          settleBatch(reply, pending, groups);
        },
        (error: unknown) => {
          answered?.();
          return this.#failed(pending, error);
        },
      ),
    );
  }

  /**
   * Settles the groups of a failed call. After a reply error of the script (`final`), a call of several groups
   * sends each again as its own call, so that only the group at fault fails (the script writes only at its end, so
   * the failed call wrote nothing), as separate calls would. Otherwise re-routes the groups that may be sent again
   * (see the module comment) and have tries left, each as its own call, after refreshing the slot table and a short
   * wait (50 ms doubling with the tries): a group on a slot being migrated (ASK, "non local key") then fails or
   * follows its slot alone, without taking the groups batched with it along; rejects the others.
   */
  async #failed(pending: readonly Routed[], error: unknown): Promise<void> {
    const ended = this.#client.status === "end";
    if (!ended && pending.length > 1 && failedForOneCall(error)) {
      for (const p of pending) {
        if (p.ticket?.settled === true) dropUnsent(p);
        else this.#send([p]);
      }
      return;
    }
    const kind = ended ? "final" : failureOf(error);
    const again: Routed[] = [];
    let failure: StoreUnavailableError | undefined;
    for (const p of pending) {
      // A call nobody waits for any more is not retried (as it would not be sent from a queue).
      const retry = kind === "refused" || (kind === "ambiguous" && resendable(p.group));
      if (retry && p.attempt < this.#retries && p.ticket?.settled !== true) again.push(p);
      else {
        failure ??= new StoreUnavailableError(
          "redis",
          error instanceof Error ? error.message : String(error),
          error,
        );
        p.reject(failure);
      }
    }
    if (again.length === 0) return;
    const attempt = Math.min(...again.map((p) => p.attempt));
    await this.#refresh();
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    for (const p of again) this.#route(p, p.attempt + 1, true);
  }

  /** Reloads the slot table; resolves when done, failed, or after 5 s, whichever comes first. */
  #refresh(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      try {
        this.#client.refreshSlotsCache(done);
      } catch {
        done();
      }
    });
  }

  #track(promise: Promise<unknown>): void {
    this.#inFlight.add(promise);
    const forget = (): void => {
      this.#inFlight.delete(promise);
    };
    promise.then(forget, forget);
  }
}

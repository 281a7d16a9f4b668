/**
 * The Redis-mode {@link ConfigRepository}: the configuration document lives in Redis, so every instance of the
 * service shares it.
 *
 * Layout: one hash `<prefix>:config` with fields `version` (a counter, 0 when absent), `document` (the native
 * document as JSON), `stamp` (a random id of the write) and `writtenAtMs` (the writer's clock). Channel
 * `<prefix>:config:changed` carries `{"version":N}` after every write.
 *
 * Writes: `update` reads the hash, applies the edit to a copy of its document, validates the whole result, then
 * runs a Lua script that writes only if `version` is still the one read (compare-and-set), increments it in the
 * same step and PUBLISHes the new version. On a conflict (another instance wrote in between) it starts over from
 * the new document, at most `maxAttempts` times (each conflict is another writer's success, so some instance
 * always progresses); then it fails with `ERR_SLUICE_STORE_UNAVAILABLE`. Writes of this process are also
 * serialized in-process, so its own writes never conflict with each other.
 *
 * Reads: each instance keeps the latest snapshot in memory and refreshes it (one HMGET of version and stamp; the
 * document only when they changed) when the channel announces a write (a duplicate connection in subscriber
 * mode), when that connection (re)connects, and every `pollIntervalMs` (default 1 s, on the injected scheduler) as
 * a safety net for a lost message, so a change reaches every instance within about a second either way.
 *
 * Seeding and recovery: when Redis holds no document, the first instance to load writes `seed` as version 1,
 * only if there is still none (two instances starting together do not clobber each other). Without a seed the
 * repository starts from an empty document (no rules) at version 0. When Redis holds an OLDER version than this
 * instance knows (it lost its data: a restart without persistence, a failover to a lagging replica), the instance
 * writes back the latest document it knows, again only if Redis is still older; the instance that knows the
 * newest version wins, and the others adopt it. A document at the same version but from another write (a stamp
 * it does not know, after such a failover) is adopted under the next version, so versions stay increasing.
 *
 * Unreachable at start: a `load` that fails (Redis down: `ERR_SLUICE_STORE_UNAVAILABLE` to its caller, saying the
 * configuration is not loaded yet) leaves the repository unloaded, and it keeps trying by itself, every
 * `pollIntervalMs` on the scheduler, until a load succeeds or it is closed (a caller's `load` meanwhile tries at
 * once, sharing an attempt in flight). The first snapshot loaded after a failed load is delivered to the watchers
 * too (they have none yet; without a failed load, the first snapshot goes only to `load`'s callers), so a process
 * that started without Redis follows the shared configuration as soon as Redis answers, seeding it when empty.
 *
 * A document in Redis that does not validate (written by hand) is reported to `onError` once and ignored; the last
 * good snapshot stays, and the next `update` applies its edit on top of that snapshot, replacing the bad one. The
 * first refresh after that which finds a document that loads calls `onRecovered`, even when it announces no new
 * version (the previous hash restored as it was), and a bad document seen again later is reported again.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { type Clock, type Scheduler, systemClock, systemScheduler } from "../../core/clock.js";
import { ConfigError, SluiceError, StoreUnavailableError } from "../../core/errors.js";
import type { NativeConfigInput } from "../../rules/config-schema.js";
import { type RedisScript, runScript } from "../../stores/redis/script.js";
import {
  type ConfigEdit,
  type ConfigRepository,
  type ConfigSnapshot,
  canonicalJson,
  cloneDocument,
  Serializer,
  SnapshotListeners,
  snapshotOf,
  toJsonData,
} from "./config-repository.js";

/** Options of {@link redisConfigRepository}. */
export interface RedisConfigRepositoryOptions {
  /** An ioredis client, connected or connecting; the repository never closes it (it closes its own duplicate). */
  readonly client: Redis;
  /** First segment of the keys and channel (`<prefix>:config`, `<prefix>:config:changed`). @default "sluice" */
  readonly prefix?: string;
  /** The document written as version 1 when Redis holds none yet (e.g. the config file's). */
  readonly seed?: NativeConfigInput;
  /** Stamps each write's `writtenAtMs`. @default systemClock */
  readonly clock?: Clock;
  /** Sleeps between polls. @default systemScheduler */
  readonly scheduler?: Scheduler;
  /** Time between two checks of the version, ms: the bound on staleness when a notification is lost. @default 1000 */
  readonly pollIntervalMs?: number;
  /** Compare-and-set attempts of one `update` before it gives up. @default 32 */
  readonly maxAttempts?: number;
  /** Receives problems that have no caller to throw to: a refresh that failed, a bad document, a listener that throws. */
  readonly onError?: (error: unknown) => void;
  /**
   * Called with the snapshot in force when Redis holds a document that loads again after one that did not (see the
   * module comment): the error reported to `onError` no longer holds.
   */
  readonly onRecovered?: (snapshot: ConfigSnapshot) => void;
}

function script(source: string): RedisScript {
  return Object.freeze({ source, sha: createHash("sha1").update(source).digest("hex") });
}

/** Compare-and-set: KEYS[1] the hash; ARGV expected version, document, stamp, writtenAtMs, channel. Returns {written, version}. */
const WRITE = script(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
local version = current + 1
redis.call('HSET', KEYS[1], 'version', version, 'document', ARGV[2], 'stamp', ARGV[3], 'writtenAtMs', ARGV[4])
redis.call('PUBLISH', ARGV[5], '{"version":' .. version .. '}')
return {1, version}
`);

/** Write-if-older (seed, recovery): ARGV version, document, stamp, writtenAtMs, channel. Returns {written, version}. */
const RESTORE = script(`
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local version = tonumber(ARGV[1])
if current >= version then return {0, current} end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'document', ARGV[2], 'stamp', ARGV[3], 'writtenAtMs', ARGV[4])
redis.call('PUBLISH', ARGV[5], '{"version":' .. ARGV[1] .. '}')
return {1, version}
`);

/**
 * The key of the hash holding the configuration under `prefix` (see the module comment): deleting it, with every
 * instance stopped, makes the next instance to start seed Redis again.
 */
export function redisConfigKey(prefix: string): string {
  return `${prefix}:config`;
}

/** The document of a repository that has never been written and has no seed. */
const EMPTY_DOCUMENT: NativeConfigInput = { version: 1, rules: [] };

/** The hash as read: version 0 and no document when it does not exist. */
interface Raw {
  readonly version: number;
  readonly stamp: string;
  readonly document?: string | null;
}

class RedisConfigRepository implements ConfigRepository {
  readonly location: string;
  /** Redis takes every write (a Redis that does not answer fails them, 503, but is no read-only source). */
  readonly readOnlyReason = undefined;
  private readonly client: Redis;
  private readonly key: string;
  private readonly channel: string;
  private readonly seed: NativeConfigInput | undefined;
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;
  private readonly pollIntervalMs: number;
  private readonly maxAttempts: number;
  private readonly onError: (error: unknown) => void;
  private readonly onRecovered: (snapshot: ConfigSnapshot) => void;
  private readonly serial = new Serializer();
  private readonly listeners: SnapshotListeners;
  private readonly stop = new AbortController();
  private current: ConfigSnapshot | undefined;
  /** The stamp of the write {@link current} came from ("" for the empty version 0). */
  private currentStamp = "";
  /** The stamp of the last bad document reported, so it is reported once. */
  private reportedStamp: string | undefined;
  /** The last document read did not load; the next read of one that does calls `onRecovered` (see {@link loaded}). */
  private refused = false;
  private subscriber: Redis | undefined;
  private starting: Promise<ConfigSnapshot> | undefined;
  /** A load failed and none has succeeded since: the next success is delivered to the watchers. */
  private loadFailed = false;
  /** The retry loop after a failed load runs (see the module comment). */
  private catchingUp = false;
  private refreshQueued = false;
  private healthy = true;
  private closed = false;

  constructor(options: RedisConfigRepositoryOptions) {
    this.client = options.client;
    const prefix = options.prefix ?? "sluice";
    this.key = redisConfigKey(prefix);
    this.channel = `${prefix}:config:changed`;
    this.seed = options.seed;
    this.clock = options.clock ?? systemClock;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.maxAttempts = options.maxAttempts ?? 32;
    this.onError = options.onError ?? (() => {});
    this.onRecovered = options.onRecovered ?? (() => {});
    this.listeners = new SnapshotListeners(this.onError);
    const o = this.client.options;
    // A Sentinel-managed client names its master group (its address changes with failovers).
    this.location =
      o.sentinels && o.name
        ? `redis+sentinel://${o.name}/${prefix}`
        : `redis://${o.path ?? `${o.host ?? "localhost"}:${o.port ?? 6379}`}/${prefix}`;
  }

  load(): Promise<ConfigSnapshot> {
    if (this.closed) return Promise.reject(this.closedError());
    if (this.current !== undefined) return Promise.resolve(this.current);
    this.starting ??= this.start().then(
      (snapshot) => {
        if (this.loadFailed) {
          // Caught up after a failed load: the watchers have no snapshot yet (module comment). Nothing newer can
          // have been adopted since `start` resolved (a refresh needs a round trip to Redis first).
          this.loadFailed = false;
          this.listeners.emit(this.current ?? snapshot);
        }
        return snapshot;
      },
      (error: unknown) => {
        this.starting = undefined;
        this.loadFailed = true;
        void this.catchUp();
        if (!(error instanceof StoreUnavailableError)) throw error;
        const cause = error.cause ?? error.message;
        throw new StoreUnavailableError(
          this.location,
          `the configuration is not loaded yet, Redis does not answer (${cause instanceof Error ? cause.message : String(cause)}); trying again every ${this.pollIntervalMs} ms`,
          error,
        );
      },
    );
    return this.starting;
  }

  /** After a failed load: loads again every `pollIntervalMs` until it succeeds or the repository is closed. */
  private async catchUp(): Promise<void> {
    if (this.catchingUp || this.closed) return;
    this.catchingUp = true;
    try {
      while (!this.closed && this.current === undefined) {
        try {
          await this.scheduler.sleep(this.pollIntervalMs, this.stop.signal);
        } catch {
          return; // closed
        }
        // Its failure already went to the caller of the first load: retried quietly.
        await this.load().catch(() => undefined);
      }
    } finally {
      this.catchingUp = false;
    }
  }

  update(edit: ConfigEdit): Promise<ConfigSnapshot> {
    return this.load().then(() =>
      this.serial.run(async () => {
        if (this.closed) throw this.closedError();
        for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
          const raw = await this.read(true);
          const known = this.current as ConfigSnapshot;
          if (raw.version < known.version) {
            await this.restore(known, this.currentStamp);
            continue;
          }
          const base = this.baseOf(raw);
          const draft = cloneDocument(base.document);
          edit(draft, base);
          const document = toJsonData(draft, this.location);
          if (canonicalJson(document) === canonicalJson(base.document)) return this.current as ConfigSnapshot;
          const next = snapshotOf(raw.version + 1, document, this.location);
          const stamp = randomBytes(8).toString("hex");
          const [written] = await this.run(WRITE, [raw.version, JSON.stringify(document), stamp]);
          if (written === 1) {
            this.adopt(next, stamp);
            return next;
          }
        }
        throw new StoreUnavailableError(
          this.location,
          `gave up after ${this.maxAttempts} attempts, other instances kept changing the configuration`,
        );
      }),
    );
  }

  watch(listener: (snapshot: ConfigSnapshot) => void): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    await this.starting?.catch(() => undefined);
    await this.serial.idle();
    this.listeners.clear();
  }

  private closedError(): SluiceError {
    return new SluiceError("ERR_SLUICE_STORE_CLOSED", `${this.location}: the repository is closed`);
  }

  /** Subscribes, then loads (seeding when Redis is empty), then starts polling. */
  private async start(): Promise<ConfigSnapshot> {
    const subscriber = this.client.duplicate();
    this.subscriber = subscriber;
    subscriber.on("error", () => {
      // reconnects by itself; the poll reports a Redis that stays unreachable
    });
    subscriber.on("message", (channel: string) => {
      if (channel === this.channel) this.refresh();
    });
    subscriber.on("ready", () => this.refresh()); // after a reconnect: messages may have been missed
    try {
      await subscriber.subscribe(this.channel);
      const snapshot = await this.serial.run(() => this.sync());
      if (this.closed) throw this.closedError();
      void this.poll();
      return snapshot;
    } catch (error) {
      subscriber.disconnect();
      if (this.subscriber === subscriber) this.subscriber = undefined;
      throw error instanceof SluiceError
        ? error
        : new StoreUnavailableError(this.location, String(error), error);
    }
  }

  private async poll(): Promise<void> {
    while (!this.closed) {
      try {
        await this.scheduler.sleep(this.pollIntervalMs, this.stop.signal);
      } catch {
        return; // closed
      }
      this.refresh();
    }
  }

  /** Queues one refresh (coalescing requests made while one is waiting). */
  private refresh(): void {
    if (this.refreshQueued || this.closed || this.current === undefined) return;
    this.refreshQueued = true;
    void this.serial
      .run(() => {
        this.refreshQueued = false;
        return this.closed ? undefined : this.sync();
      })
      .then(
        () => {
          this.healthy = true;
        },
        (error: unknown) => {
          if (this.healthy || !(error instanceof StoreUnavailableError)) this.onError(error);
          this.healthy = !(error instanceof StoreUnavailableError);
        },
      );
  }

  /** Brings {@link current} up to date with Redis (see the module comment). Runs inside the serializer. */
  private async sync(): Promise<ConfigSnapshot> {
    for (let round = 0; round < 4; round++) {
      const head = await this.read(false);
      const known = this.current;
      if (known !== undefined && head.version === known.version && head.stamp === this.currentStamp)
        return this.loaded(known);
      if (head.version === 0 && known === undefined) {
        if (this.seed === undefined) {
          const empty = snapshotOf(0, EMPTY_DOCUMENT, this.location);
          this.adopt(empty, "");
          return this.loaded(empty);
        }
        await this.restore(snapshotOf(1, this.seed, this.location), randomBytes(8).toString("hex"));
        continue;
      }
      if (known !== undefined && head.version < known.version) {
        await this.restore(known, this.currentStamp);
        continue;
      }
      const raw = await this.read(true);
      if (raw.version !== head.version || raw.stamp !== head.stamp) continue; // moved on meanwhile
      let snapshot: ConfigSnapshot;
      try {
        snapshot = snapshotOf(raw.version, this.parse(raw.document), this.location);
      } catch (error) {
        this.refused = true;
        if (known === undefined) throw error;
        if (this.reportedStamp !== raw.stamp) {
          this.reportedStamp = raw.stamp;
          this.onError(error);
        }
        return known;
      }
      if (known !== undefined && raw.version === known.version) {
        // Same version, another write (after a failover): take it under the next version, for everyone.
        const stamp = randomBytes(8).toString("hex");
        await this.run(WRITE, [raw.version, raw.document as string, stamp]);
        continue;
      }
      this.adopt(snapshot, raw.stamp);
      return this.loaded(snapshot);
    }
    if (this.current !== undefined) return this.current;
    throw new StoreUnavailableError(
      this.location,
      "the configuration kept changing while it was being loaded",
    );
  }

  /** The snapshot an edit starts from: Redis's document, or the last good one when Redis's does not validate. */
  private baseOf(raw: Raw): ConfigSnapshot {
    const known = this.current as ConfigSnapshot;
    if (raw.version === known.version && raw.stamp === this.currentStamp) return known;
    try {
      const snapshot = snapshotOf(raw.version, this.parse(raw.document), this.location);
      if (raw.version > known.version) this.adopt(snapshot, raw.stamp);
      return snapshot;
    } catch (error) {
      if (this.reportedStamp !== raw.stamp) {
        this.reportedStamp = raw.stamp;
        this.onError(error);
      }
      this.refused = true;
      return Object.freeze({ ...known, version: raw.version });
    }
  }

  /**
   * Records that Redis held a document that loads, `snapshot` being the one in force: after a refused one, forgets
   * the reported stamp and calls `onRecovered`. Returns `snapshot`.
   */
  private loaded(snapshot: ConfigSnapshot): ConfigSnapshot {
    if (this.refused) {
      this.refused = false;
      this.reportedStamp = undefined;
      try {
        this.onRecovered(snapshot);
      } catch (error) {
        this.onError(error);
      }
    }
    return snapshot;
  }

  private parse(text: string | null | undefined): unknown {
    if (text === null || text === undefined) {
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [{ path: "", message: "has no document" }],
        this.key,
      );
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigError(
        "ERR_SLUICE_INVALID_CONFIG",
        [{ path: "", message: `the document is not JSON (${(error as Error).message})` }],
        this.key,
      );
    }
  }

  /** Reads the hash: version and stamp, and the document when `withDocument`. */
  private async read(withDocument: boolean): Promise<Raw> {
    try {
      const fields = withDocument ? ["version", "stamp", "document"] : ["version", "stamp"];
      const [version, stamp, document] = await this.client.hmget(this.key, ...fields);
      return { version: Number(version ?? 0), stamp: stamp ?? "", document };
    } catch (error) {
      throw new StoreUnavailableError(this.location, (error as Error).message, error);
    }
  }

  /** Writes `snapshot` at its version if Redis holds an older one (seed, recovery); adopts it when written. */
  private async restore(snapshot: ConfigSnapshot, stamp: string): Promise<void> {
    const [written] = await this.run(RESTORE, [snapshot.version, JSON.stringify(snapshot.document), stamp]);
    if (written === 1) this.adopt(snapshot, stamp);
  }

  /** Runs a write script with KEYS = [hash] and ARGV = `args` + writtenAtMs + channel. */
  private async run(s: RedisScript, args: (string | number)[]): Promise<[number, number]> {
    try {
      const result = (await runScript(
        this.client,
        s,
        [this.key],
        [...args, Math.floor(this.clock.nowMs()), this.channel],
      )) as [number, number];
      return result;
    } catch (error) {
      throw new StoreUnavailableError(this.location, (error as Error).message, error);
    }
  }

  /** Makes `snapshot` current when it is newer (or the first), and tells the listeners. */
  private adopt(snapshot: ConfigSnapshot, stamp: string): void {
    const previous = this.current;
    if (previous !== undefined && snapshot.version <= previous.version) return;
    this.current = snapshot;
    this.currentStamp = stamp;
    if (previous !== undefined) this.listeners.emit(snapshot);
  }
}

/**
 * The Redis-mode configuration repository: the document in Redis, compare-and-set writes, pub/sub notification
 * and polling (see the module comment). Call `close()` to stop its subscriber connection and poll.
 */
export function redisConfigRepository(options: RedisConfigRepositoryOptions): ConfigRepository {
  return new RedisConfigRepository(options);
}

/**
 * Where the editable configuration lives, for the admin API: a {@link ConfigRepository} holds the native
 * configuration document (version, defaults, tiers, identities, rules, overrides) and hands out immutable
 * {@link ConfigSnapshot}s, each with its compiled {@link SluiceConfig}. Two implementations:
 * - `file-config-repository.ts` — the embedded default: the config file is the source of truth, rewritten
 *   atomically on every admin write;
 * - `redis-config-repository.ts` — Redis mode: the document lives in Redis, versioned, every write published to
 *   every instance.
 *
 * Invariants every implementation keeps:
 * - a snapshot's `version` strictly increases per repository, and `config` is the compiled `document`, carrying that
 *   version (`SluiceConfig.version`, see {@link versioned});
 * - `update` applies its edit to a deep copy of the latest document, validates the WHOLE result with the config
 *   schema (a {@link ConfigError} naming each field), and only then persists it; an edit that throws, or a result
 *   that does not validate, writes nothing;
 * - documents are plain JSON data (no `undefined` members, no class instances), deep-frozen in snapshots.
 *
 * This module also holds the helpers both implementations share: JSON normalisation, canonical JSON,
 * snapshot building, an in-process serializer and a listener set.
 */
import { ConfigError } from "../../core/errors.js";
import { deepFreeze, type NativeConfigInput } from "../../rules/config-schema.js";
import { configFromValue } from "../../rules/load-config.js";
import type { SluiceConfig } from "../../rules/rule.js";

/** One version of the editable configuration: the native document as written (plain JSON data, deep-frozen) and its compiled form. */
export interface ConfigSnapshot {
  /** Strictly increasing per repository (file: bumped per write; Redis: incremented in the same atomic write). */
  readonly version: number;
  /** The native format (version/defaults/tiers/identities/rules/overrides). */
  readonly document: NativeConfigInput;
  /** `configFromValue(document)`: the compiled, frozen configuration the engine runs; its `version` is this one's. */
  readonly config: SluiceConfig;
}

/**
 * A function that edits a mutable deep copy of the latest document; it may throw to abort (nothing is written).
 * It must depend only on its arguments: a repository may call it more than once (Redis: once per compare-and-set
 * attempt, each time on a fresh copy of the then-latest document).
 */
export type ConfigEdit = (draft: NativeConfigInput, current: ConfigSnapshot) => void;

/** The editable configuration of one deployment (see the module comment). */
export interface ConfigRepository {
  /** Where it lives, for logs/status ("file:/path" or "redis://host:port/prefix", no credentials). */
  readonly location: string;
  /**
   * Why every `update` is refused, in the words of the refusal (`ERR_SLUICE_UNSUPPORTED`'s message, `<file>: <why>`),
   * for `GET /api/v1/status`; undefined while the repository takes writes. It may change as the source does (a file
   * edited out of the envoyproxy/ratelimit format becomes writable).
   */
  readonly readOnlyReason: string | undefined;
  /** The latest snapshot (loads it on first call). */
  load(): Promise<ConfigSnapshot>;
  /**
   * Applies `edit` to the latest document atomically (serialized in-process; CAS on version in Redis, retried),
   * validates the WHOLE result with the config schema (ConfigError naming the field → the admin API answers 400),
   * persists it, notifies watchers, and returns the new snapshot. An edit that throws writes nothing and rethrows.
   * An edit that leaves the document unchanged writes nothing and returns the current snapshot.
   */
  update(edit: ConfigEdit): Promise<ConfigSnapshot>;
  /** Calls `listener` with every newer snapshot, whoever wrote it (this process, another instance, a hand edit of the file). */
  watch(listener: (snapshot: ConfigSnapshot) => void): () => void;
  /** Stops watching and waits for a write in progress; the repository cannot be used afterwards. */
  close(): Promise<void>;
}

/**
 * `value` as plain JSON data (a JSON round trip: `undefined` members dropped, `NaN` becomes `null`, class
 * instances become plain objects); throws a {@link ConfigError} when it cannot be serialised (a cycle, a BigInt).
 */
export function toJsonData<T>(value: T, source?: string): T {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ConfigError(
      "ERR_SLUICE_INVALID_CONFIG",
      [{ path: "", message: `must be JSON data (${(error as Error).message})` }],
      source,
    );
  }
  return (text === undefined ? null : JSON.parse(text)) as T;
}

/** A mutable deep copy of a (possibly frozen) document. */
export function cloneDocument(document: NativeConfigInput): NativeConfigInput {
  return JSON.parse(JSON.stringify(document)) as NativeConfigInput;
}

/** `value` as JSON with object keys sorted at every level and `undefined` members dropped: equal data, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * Validates and compiles `document` into a frozen snapshot at `version`; throws the schema's
 * `ERR_SLUICE_INVALID_CONFIG` {@link ConfigError} (every issue, each naming its field) when it is invalid.
 */
export function snapshotOf(version: number, document: unknown, source?: string): ConfigSnapshot {
  const data = toJsonData(document, source);
  const config = versioned(configFromValue(data, source), version);
  return Object.freeze({ version, document: deepFreeze(data as NativeConfigInput), config });
}

/**
 * `config` carrying `version` (`SluiceConfig.version`), so that the engine running it reports the repository's
 * version, the one `GET /api/v1/rules` shows, rather than a count of its own.
 */
export function versioned(config: SluiceConfig, version: number): SluiceConfig {
  return Object.freeze({ ...config, version });
}

/** Runs async tasks one at a time, in call order: each starts after the previous one settled. */
export class Serializer {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled; resolves or rejects with its result. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}

/** Snapshot listeners; a listener that throws is reported to `onError` and does not stop the others. */
export class SnapshotListeners {
  private readonly listeners = new Set<(snapshot: ConfigSnapshot) => void>();

  /** Creates the set; `onError` receives what a listener throws. */
  constructor(private readonly onError: (error: unknown) => void) {}

  /** Adds `listener`; returns a function that removes it. */
  add(listener: (snapshot: ConfigSnapshot) => void): () => void {
    const own = (snapshot: ConfigSnapshot): void => listener(snapshot);
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  /** Calls every listener with `snapshot`. */
  emit(snapshot: ConfigSnapshot): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.listeners.clear();
  }
}

/**
 * The Redis scripts: `apply.lua`, assembled once from the `.lua` sources that ship next to this module
 * (`scripts/`, copied to `dist/stores/redis/scripts/` by `scripts/copy-lua.mjs` at build), and `once.lua` (claims
 * on idempotency records), each identified by its SHA1 computed here, and run with EVALSHA, falling back to EVAL
 * (which also caches it) when the server answers NOSCRIPT (after a restart or a `SCRIPT FLUSH`). The `.lua` files
 * are the source of truth; nothing here is generated.
 *
 * Assembly: `apply.lua` is the script; its `--[[@kernels]]` line becomes `local function kernel(code)`, whose
 * branch `code == n` holds the sources of algorithm n (token and leaky bucket each get `drain.lua` first, as their
 * TS steps share `drain.ts`). Each branch ends by returning the algorithm's table, so a call only instantiates the
 * algorithms it uses. With `multiRead: false` (the Redis Cluster variant), its `MULTI_READ` line is switched off.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AlgorithmId } from "../../core/limit-spec.js";

/** The algorithm codes the script understands (ARGV), by algorithm id. */
export const ALGORITHM_CODES: Readonly<Record<AlgorithmId, number>> = Object.freeze({
  gcra: 1,
  token_bucket: 2,
  leaky_bucket: 3,
  fixed_window: 4,
  sliding_window: 5,
  sliding_log: 6,
  bucketed_window: 7,
  concurrency: 8,
});

/** The `.lua` files of each algorithm code, in the order they are pasted into its `kernel(code)` branch. */
const KERNEL_FILES: readonly (readonly [number, readonly string[]])[] = [
  [1, ["gcra.lua"]],
  [2, ["drain.lua", "token-bucket.lua"]],
  [3, ["drain.lua", "leaky-bucket.lua"]],
  [4, ["fixed-window.lua"]],
  [5, ["sliding-window.lua"]],
  [6, ["sliding-log.lua"]],
  [7, ["bucketed-window.lua"]],
  [8, ["concurrency.lua"]],
];

const KERNELS_MARK = "--[[@kernels]]";

/** The line of `apply.lua` that lets its fast and small paths read a batch's keys with one MGET, and its off form. */
const MULTI_READ_LINE = "local MULTI_READ = true -- @multi-read";
const SINGLE_READS_LINE = "local MULTI_READ = false -- @multi-read";

/** Options of {@link assembleScript}. */
export interface AssembleOptions {
  /**
   * Whether the fast and small paths read a batch's keys with one MGET (`apply.lua`'s "Reads"). False for Redis
   * Cluster, which refuses a multi-key command over several slots even in a script allowed to cross them.
   * @default true
   */
  readonly multiRead?: boolean;
}

/** A loaded script: its source and the SHA1 that EVALSHA names it by. */
export interface RedisScript {
  /** The full Lua source sent by EVAL. */
  readonly source: string;
  /** Lower-case hex SHA1 of {@link RedisScript.source}. */
  readonly sha: string;
}

/** The minimal client surface the Redis store needs; ioredis `Redis` (and `Cluster`) provide it. */
export interface RedisScriptClient {
  /** `EVALSHA sha numKeys key… arg…`. */
  evalsha(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** `EVAL script numKeys key… arg…`. */
  eval(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /**
   * `EVALSHA`, bulk strings answered as Buffers (ioredis `evalshaBuffer`). Optional: with it and
   * {@link RedisScriptClient.evalBuffer}, the store asks `apply.lua` for its binary reply.
   */
  evalshaBuffer?(sha: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** `EVAL`, bulk strings answered as Buffers (ioredis `evalBuffer`); see {@link RedisScriptClient.evalshaBuffer}. */
  evalBuffer?(script: string, numKeys: number, ...args: (string | number | Buffer)[]): Promise<unknown>;
}

/** Whether `client` can answer bulk strings as Buffers (both `evalshaBuffer` and `evalBuffer`). */
export function hasBufferReplies(client: RedisScriptClient): boolean {
  return typeof client.evalshaBuffer === "function" && typeof client.evalBuffer === "function";
}

/** Reads one `.lua` file shipped next to this module. */
function readLua(name: string): string {
  return readFileSync(new URL(`./scripts/${name}`, import.meta.url), "utf8");
}

/** Assembles `apply.lua` with every algorithm pasted into `kernel(code)` (see the module comment). */
export function assembleScript(
  read: (name: string) => string = readLua,
  options: AssembleOptions = {},
): string {
  let main = read("apply.lua");
  if (options.multiRead === false) {
    if (!main.includes(MULTI_READ_LINE)) throw new Error(`apply.lua has no "${MULTI_READ_LINE}" line`);
    main = main.replace(MULTI_READ_LINE, SINGLE_READS_LINE);
  }
  const at = main.indexOf(KERNELS_MARK);
  if (at === -1) throw new Error(`apply.lua has no ${KERNELS_MARK} line`);
  let kernels = "local function kernel(code)\n";
  KERNEL_FILES.forEach(([code, files], i) => {
    kernels += `${i === 0 ? "if" : "elseif"} code == ${code} then\n`;
    for (const f of files) kernels += `-- ${f}\n${read(f).trimEnd()}\n`;
  });
  kernels += 'end\nerror("sluice: unknown algorithm code " .. tostring(code))\nend';
  return main.slice(0, at) + kernels + main.slice(at + KERNELS_MARK.length);
}

let loaded: RedisScript | undefined;

/** The script, assembled and hashed on first use (once per process). */
export function loadScript(): RedisScript {
  if (loaded === undefined) {
    const source = assembleScript();
    loaded = Object.freeze({ source, sha: createHash("sha1").update(source).digest("hex") });
  }
  return loaded;
}

let onceLoaded: RedisScript | undefined;

/**
 * `once.lua`, the claim on an idempotency record for calls spread over several nodes (`../once-claim.ts`), loaded
 * and hashed on first use (once per process). One key, so a Redis Cluster client routes it by that key itself.
 */
export function loadOnceScript(): RedisScript {
  if (onceLoaded === undefined) {
    const source = readLua("once.lua");
    onceLoaded = Object.freeze({ source, sha: createHash("sha1").update(source).digest("hex") });
  }
  return onceLoaded;
}

/** Whether `error` is Redis's answer to EVALSHA of a script it does not have. */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/**
 * Runs `script` with `keys` and `args` on `client`: EVALSHA, and EVAL when the server has lost the script
 * (NOSCRIPT). The two are separate from encoding so a Cluster store can send each node its own batch. With
 * `buffers` (the client must have them: {@link hasBufferReplies}), `evalshaBuffer` / `evalBuffer`: bulk strings
 * of the reply arrive as Buffers.
 */
export async function runScript(
  client: RedisScriptClient,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
  buffers = false,
): Promise<unknown> {
  try {
    return await (buffers && client.evalshaBuffer !== undefined
      ? client.evalshaBuffer(script.sha, keys.length, ...keys, ...args)
      : client.evalsha(script.sha, keys.length, ...keys, ...args));
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return buffers && client.evalBuffer !== undefined
      ? client.evalBuffer(script.source, keys.length, ...keys, ...args)
      : client.eval(script.source, keys.length, ...keys, ...args);
  }
}

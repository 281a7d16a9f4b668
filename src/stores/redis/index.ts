/** `sluice/redis`: the Redis store (ioredis is a peer dependency of this subpath). */
export type { RedisClientWarning, RedisClientWarningCode } from "./client-option-warnings.js";
export { clientOptionWarnings } from "./client-option-warnings.js";
export type { EncodedBatch, Group, GroupOnce, GroupOp, KeyNamer, OnceAnswer } from "./protocol.js";
export {
  decodeBatch,
  decodeRecord,
  encodeBatch,
  encodeRecord,
  IdempotencyMismatchError,
  sendBatch,
} from "./protocol.js";
export type { RedisStoreOptions } from "./redis-store.js";
export {
  MAX_KEY_LENGTH,
  MAX_ONCE_KEY_LENGTH,
  MAX_ONCE_TTL_MS,
  RedisStore,
  redisStore,
} from "./redis-store.js";
export type { RedisScript, RedisScriptClient } from "./script.js";
export { ALGORITHM_CODES, assembleScript, loadOnceScript, loadScript, runScript } from "./script.js";

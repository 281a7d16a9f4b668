/** `sluice/memory`: the in-process store. */
export type { MemoryStoreOptions, MemoryStoreStats } from "./memory-store.js";
export { MemoryStore, memoryStore, SMALL_STATE_MAX_WIDTH } from "./memory-store.js";

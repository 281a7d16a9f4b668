/**
 * Checking what callers pass to the library's functions: options objects and the values in them. Every failure is an
 * {@link InvalidArgumentError} (`ERR_SLUICE_INVALID_ARGUMENT`) whose message starts with the method the caller
 * called (`memoryStore: …`, `limit: …`) and names the field, so a typo or a wrong type never goes unnoticed: an
 * unknown key is refused, not ignored. Pure: no I/O, no time.
 */
import type { Clock, Scheduler } from "./clock.js";
import { InvalidArgumentError } from "./errors.js";

/** Longest part of a string value an error message quotes, in UTF-16 code units (the rest is elided: `…`). */
const SHOWN_STRING_MAX = 64;

/**
 * How an error message shows a value the caller passed: a string quoted as JSON (`"2"`, so that it cannot be
 * mistaken for the number 2; cut at 64 characters), a number, boolean, bigint, null or undefined as written, and
 * anything else by its kind (`an array`, `an object`, `a function`, `a symbol`).
 */
export function shown(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value.length > SHOWN_STRING_MAX
        ? `${JSON.stringify(value.slice(0, SHOWN_STRING_MAX))}… (${value.length} characters)`
        : JSON.stringify(value);
    case "number":
    case "boolean":
    case "undefined":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default:
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  }
}

/** Closest of `candidates` to `word` when it is a likely typo (edit distance ≤ 2, ignoring case), else undefined. */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance between `a` and `b` (insertions, deletions and substitutions of UTF-16 code units). */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = next;
    }
  }
  return row[b.length];
}

/**
 * The error for option `key` of `method`, under `prefix` (`failure.`, `shards[0].`, or empty), which is not one of
 * `known`: `createLimiter: unknown option "stor"; did you mean "store"?`, or the list of the known ones.
 */
export function unknownOptionError(
  method: string,
  key: string,
  known: readonly string[],
  prefix = "",
): InvalidArgumentError {
  const close = closestName(key, known);
  return new InvalidArgumentError(
    close === undefined
      ? `${method}: unknown option ${JSON.stringify(prefix + key)}; expected one of ${known.map((k) => prefix + k).join(", ")}`
      : `${method}: unknown option ${JSON.stringify(prefix + key)}; did you mean ${JSON.stringify(prefix + close)}?`,
  );
}

/**
 * Checks the options object of `method` (named `field` in messages: `options`, `failure`, `shards[0]`): throws
 * unless it is a non-array object whose own enumerable keys are all in `known` (a key set to undefined counts too:
 * it is still a typo). Off the hot path: for constructors and other calls made once.
 */
export function checkOptions(
  method: string,
  field: string,
  options: unknown,
  known: readonly string[],
): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidArgumentError(
      `${method}: ${field} must be an object of options (${known.join(", ")}), got ${shown(options)}`,
    );
  }
  const prefix = field === "options" ? "" : `${field}.`;
  for (const key of Object.keys(options as object)) {
    if (!known.includes(key)) throw unknownOptionError(method, key, known, prefix);
  }
}

/** Whether `clock` can serve as a {@link import("./clock.js").Clock}: an object with a `nowMs` method. */
export function isClock(clock: unknown): boolean {
  return (
    clock !== null && typeof clock === "object" && typeof (clock as { nowMs?: unknown }).nowMs === "function"
  );
}

/** Whether `scheduler` can serve as a {@link import("./clock.js").Scheduler}: an object with a `sleep` method. */
export function isScheduler(scheduler: unknown): boolean {
  return (
    scheduler !== null &&
    typeof scheduler === "object" &&
    typeof (scheduler as { sleep?: unknown }).sleep === "function"
  );
}

/** Throws `ERR_SLUICE_INVALID_ARGUMENT` (`owner: field must be a Clock …, got …`) unless `value` is a Clock. */
export function checkClock(owner: string, field: string, value: unknown): asserts value is Clock {
  if (!isClock(value)) {
    throw new InvalidArgumentError(
      `${owner}: ${field} must be a Clock (an object with nowMs()), got ${shown(value)}`,
    );
  }
}

/** Throws `ERR_SLUICE_INVALID_ARGUMENT` (`owner: field must be a Scheduler …, got …`) unless `value` is one. */
export function checkScheduler(owner: string, field: string, value: unknown): asserts value is Scheduler {
  if (!isScheduler(value)) {
    throw new InvalidArgumentError(
      `${owner}: ${field} must be a Scheduler (an object with sleep()), got ${shown(value)}`,
    );
  }
}

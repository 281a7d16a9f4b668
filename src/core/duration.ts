import { InvalidArgumentError } from "./errors.js";

/** A duration at the public edge: milliseconds as a number, or a string such as `"250ms"`, `"10s"`, `"1.5h"`, `"1d"`. */
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`;

/** The units a duration string may use. */
export type DurationUnit = "ms" | "s" | "m" | "h" | "d" | "w";

const unitMs: Readonly<Record<DurationUnit, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const pattern = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d|w)\s*$/;

/**
 * Parses a duration into milliseconds, or returns `undefined` when `value` is not a valid duration.
 * Numbers are taken as milliseconds and must be finite and non-negative.
 */
export function tryParseDurationMs(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = pattern.exec(value);
  if (!m) return undefined;
  const ms = Number(m[1]) * unitMs[m[2] as DurationUnit];
  return Number.isFinite(ms) ? ms : undefined;
}

/** Parses a duration into milliseconds; throws `ERR_SLUICE_INVALID_ARGUMENT` naming `field` when it is not one. */
export function parseDurationMs(value: Duration | string, field: string): number {
  const ms = tryParseDurationMs(value);
  if (ms === undefined) {
    throw new InvalidArgumentError(
      `${field}: expected milliseconds or a duration such as "500ms", "10s", "5m", "1h", "1d", got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

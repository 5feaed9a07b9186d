/**
 * The one parser of every numeric CLI flag and numeric environment variable (issue 31). A flag's text is a number only
 * when all of
 * it spells one in decimal: no empty text (Number("") is 0), no hex or binary (Number("0x10") is
 * 16), no digits beyond what a double holds exactly (9007199254740993 would silently become ...992),
 * and every value has bounds. Each command passes its flag name, its bounds and, where it already
 * had one, its own wording of what is expected; the checks themselves live only here. It lives in
 * packages/core/src/ so that packages/core/src/settings.ts parses environment variables (RETRACE_SHARP_CONCURRENCY) with it;
 * experiments/commands/numeric-flags.ts re-exports it for the commands.
 */
import { ConfigError } from "./errors.ts";

/** Quoted text shortened for a one-line message. */
const clip = (s: string, max = 120): string =>
  s.length <= max ? s : `${s.slice(0, max)}... (${s.length - max} more characters)`;

/** Bounds and wording of one numeric flag. */
export interface NumericFlagOptions {
  /** Smallest accepted value. @default Number.MIN_SAFE_INTEGER for integers, -Infinity otherwise */
  min?: number;
  /** Largest accepted value. @default Number.MAX_SAFE_INTEGER for integers, Infinity otherwise */
  max?: number;
  /** Whether `min` itself is refused (a positive amount: `min: 0, exclusiveMin: true`). @default false */
  exclusiveMin?: boolean;
  /** What the message says is expected, e.g. "expected an integer from 1 to 64". @default built from the bounds */
  expect?: string;
  /** The config field the ConfigError names. @default the flag without its dashes */
  field?: string;
}

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** `--workers` for "workers"; an environment variable's name (RETRACE_SHARP_CONCURRENCY) stays as it is. */
const flagName = (flag: string) => (flag.startsWith("-") || /^[A-Z][A-Z0-9_]*$/.test(flag) ? flag : `--${flag}`);

function refuse(flag: string, text: string, expect: string, field: string | undefined, why?: string): never {
  throw new ConfigError(`${flagName(flag)}: ${expect}, got "${clip(String(text))}"${why ? ` (${why})` : ""}`, {
    field: field ?? flagName(flag).replace(/^-+/, ""),
  });
}

/** Parse an integer flag (`--workers`, `--seed`, ...) or throw a one-line ConfigError naming it. */
export function parseIntFlag(flag: string, text: string, options: NumericFlagOptions = {}): number {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const expect =
    options.expect ??
    (max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : `expected an integer from ${min} to ${max}`);
  const t = String(text).trim();
  if (!INTEGER.test(t)) refuse(flag, text, expect, options.field, t === "" ? "empty" : undefined);
  const n = Number(t);
  if (!Number.isSafeInteger(n))
    refuse(flag, text, expect, options.field, `not a safe integer: it would be read as ${n}`);
  if (n < min || n > max || (options.exclusiveMin && n === min)) refuse(flag, text, expect, options.field);
  return n;
}

/** Parse a decimal flag (`--intent-threshold`, `--max-cost-usd`, a probability) or throw. */
export function parseNumberFlag(flag: string, text: string, options: NumericFlagOptions = {}): number {
  const min = options.min ?? -Infinity;
  const max = options.max ?? Infinity;
  const expect = options.expect ?? `expected a number from ${min} to ${max}`;
  const t = String(text).trim();
  if (!DECIMAL.test(t)) refuse(flag, text, expect, options.field, t === "" ? "empty" : undefined);
  const n = Number(t);
  if (!Number.isFinite(n) || n < min || n > max || (options.exclusiveMin && n === min))
    refuse(flag, text, expect, options.field);
  return n;
}

/** An optional integer flag: undefined stays undefined. */
export function optionalIntFlag(
  flag: string,
  text: string | undefined,
  options: NumericFlagOptions = {},
): number | undefined {
  return text === undefined ? undefined : parseIntFlag(flag, text, options);
}

/** An optional decimal flag: undefined stays undefined. */
export function optionalNumberFlag(
  flag: string,
  text: string | undefined,
  options: NumericFlagOptions = {},
): number | undefined {
  return text === undefined ? undefined : parseNumberFlag(flag, text, options);
}

/** A comma-separated list of integers ("1,5"), each checked like `parseIntFlag`. */
export function parseIntListFlag(flag: string, text: string, options: NumericFlagOptions = {}): number[] {
  const expect = options.expect ?? `expected comma-separated integers like "1,5"`;
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length === 0 || parts.every((p) => p === "")) refuse(flag, text, expect, options.field, "empty");
  return parts
    .filter((p) => p !== "")
    .map((p) => {
      try {
        return parseIntFlag(flag, p, options);
      } catch {
        return refuse(flag, text, expect, options.field);
      }
    });
}

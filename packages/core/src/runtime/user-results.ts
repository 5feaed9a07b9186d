/**
 * Typed checks on what user functions return (issue 41, item 6): an Environment's
 * `reset()`/`step()`/`observe()`/`restore()`, a detector's `detect()`, a restore routine. One
 * helper, {@link checkUserResult}, gives every refusal the same one line naming the function, what
 * it returned and what it must return:
 *
 *   detector.detect() returned null: return { isError: boolean, errorStep: number | null, reason: string, confidence:
 * number in [0, 1] }
 *
 * What a refusal means is decided per function (docs/reliability.md, "Typed checks on user
 * functions"): a detector's bad result is a counted detector failure (no recovery; detectors are
 * often models, their output is data), a restore routine's is a refused recovery, and an
 * environment's is a {@link ConfigError} (the user's environment code is wrong; inside an episode
 * it ends the step as an environment error with this message).
 */
import { z } from "zod";
import type { Environment, StepOutcome } from "../environment.ts";
import { ConfigError } from "../errors.ts";
import type { Observation } from "../observation.ts";

/** A checked result, or the one-line reason it was refused. */
export type UserResultCheck<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A short, safe description of a returned value for an error line (never its full contents). */
export function describeReturned(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  if (typeof value === "string")
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Check `raw`, the result of the user function `fn` (e.g. "detector.detect()"), against `schema`.
 * `shape` is what the function must return, as written in the error line.
 */
export function checkUserResult<T>(fn: string, raw: unknown, schema: z.ZodType<T>, shape: string): UserResultCheck<T> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { ok: false, reason: `${fn} returned ${describeReturned(raw)}: return ${shape}` };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue.path.map(String);
  let got: unknown = raw;
  for (const k of path) got = got && typeof got === "object" ? (got as Record<string, unknown>)[k] : undefined;
  return {
    ok: false,
    reason: `${fn} returned a malformed result, "${path.join(".") || "result"}" is ${describeReturned(got)} (${issue.message.replace(/^Invalid input: /, "")}): return ${shape}`,
  };
}

const ObservationSchema = z
  .object({
    screenshot: z
      .string({ message: "must be a blob reference (string)" })
      .min(1, { message: "must be a blob reference, not empty" }),
    width: z.number({ message: "must be a positive number" }).positive({ message: "must be a positive number" }),
    height: z.number({ message: "must be a positive number" }).positive({ message: "must be a positive number" }),
    text: z.string().optional(),
    axTree: z.object({}).passthrough().optional(),
  })
  .passthrough();

const OBSERVATION_SHAPE = "{ screenshot: <blob ref from blobs.put(png)>, width: number, height: number, ... }";

/** Check an Environment's observation (from `fn`, e.g. "environment.observe()"); a bad one throws a ConfigError. */
export function checkObservation(raw: unknown, fn: string): Observation {
  const c = checkUserResult(fn, raw, ObservationSchema, OBSERVATION_SHAPE);
  if (!c.ok) throw new ConfigError(c.reason, { field: fn });
  return raw as Observation;
}

/** Check an Environment's `step()` outcome; a bad one throws a ConfigError. */
export function checkStepOutcome(raw: unknown, fn = "environment.step()"): StepOutcome {
  const shape = `{ observation: ${OBSERVATION_SHAPE}, info: {} }`;
  const c = checkUserResult(
    fn,
    raw,
    z
      .object({
        observation: z.object({}, { message: "must be an observation object" }).passthrough(),
        info: z.object({}).passthrough().optional(),
      })
      .passthrough(),
    shape,
  );
  if (!c.ok) throw new ConfigError(c.reason, { field: fn });
  const r = raw as StepOutcome;
  checkObservation(r.observation, `${fn}.observation`);
  return r;
}

const CHECKED = new WeakSet<object>();

/**
 * `env` with the results of its `reset`, `step`, `observe` and `restore` checked (a malformed one
 * throws a ConfigError naming the function). Idempotent: a checked environment is returned as is.
 */
export function checkedEnvironment(env: Environment): Environment {
  if (CHECKED.has(env)) return env;
  const wrapped = new Proxy(env, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== "function") return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      if (key === "step") return async (...args: unknown[]) => checkStepOutcome(await call(...args));
      if (key === "observe" || key === "reset" || key === "restore")
        return async (...args: unknown[]) => checkObservation(await call(...args), `environment.${key}()`);
      return call;
    },
  });
  CHECKED.add(wrapped);
  return wrapped;
}

/** The image kinds a screenshot's blob may hold, by their magic numbers. */
const IMAGE_MAGIC: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP)
];

/**
 * Check the bytes of a screenshot the environment function `fn` produced (blob `ref`) before they
 * are sent to a model as an image: 0 bytes, or bytes that are no PNG, JPEG, GIF or WebP image,
 * throw a ConfigError naming the function (issue 41: they were sent on and the run reported ok).
 */
export function checkScreenshotBytes(bytes: Uint8Array | undefined, ref: string, fn: string): Uint8Array {
  const shape = `return { screenshot: <blob ref from blobs.put(png)>, ... } whose blob holds a PNG, JPEG, GIF or WebP image`;
  const blob = `blob ${ref.slice(0, 12)}`;
  if (!bytes || bytes.length === 0)
    throw new ConfigError(`${fn} returned a screenshot of 0 bytes (${blob}): ${shape}`, { field: fn });
  if (!IMAGE_MAGIC.some((m) => m.every((b, i) => bytes[i] === b))) {
    const head = Buffer.from(bytes.subarray(0, 8))
      .toString("hex")
      .replace(/(..)(?=.)/g, "$1 ");
    throw new ConfigError(
      `${fn} returned a screenshot that is not an image (${blob}: ${bytes.length} bytes starting ${head}): ${shape}`,
      { field: fn },
    );
  }
  return bytes;
}

/**
 * Zod checks of the SDK integrations' plain-value options (issue 41): each bad value is one
 * ConfigError line naming the option and what it takes. `telemetry: true` (the AI SDK takes an
 * object), `displayWidthPx: "1280"` (a string is not a size) and a `baseURL` without a scheme (the
 * SDKs would resolve it as a relative path, or fail later with a generic fetch error) used to be
 * accepted silently.
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";

function check<T>(where: string, field: string, schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new ConfigError(`${where}: option "${field}" ${r.error.issues[0].message} (got ${shown(value)})`, { field });
}

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

const Telemetry = z
  .object(
    {
      isEnabled: z.boolean({ message: "isEnabled must be a boolean" }).optional(),
      tracer: z
        .custom<object>((v) => !!v && typeof (v as { startSpan?: unknown }).startSpan === "function", {
          message: "tracer must be an OpenTelemetry Tracer (with startSpan)",
        })
        .optional(),
      functionId: z.string({ message: "functionId must be a string" }).optional(),
    },
    {
      message:
        "must be an object like the AI SDK's experimental_telemetry ({ isEnabled: true, tracer }), not a boolean",
    },
  )
  .passthrough()
  .optional();

/** The `telemetry` option: undefined or `{ isEnabled?, tracer?, functionId? }`. */
export function checkTelemetry<T>(where: string, value: T): T {
  check(where, "telemetry", Telemetry, value);
  return value;
}

const Pixels = z
  .number({ message: "must be a number of pixels (an integer from 1 to 16384)" })
  .int({ message: "must be a number of pixels (an integer from 1 to 16384)" })
  .min(1, { message: "must be a number of pixels (an integer from 1 to 16384)" })
  .max(16384, { message: "must be a number of pixels (an integer from 1 to 16384)" });

/** A display size option (`displayWidthPx`, `displayHeightPx`): undefined or an integer from 1 to 16384. */
export function checkPixels(where: string, field: string, value: unknown): number | undefined {
  return check(where, field, Pixels.optional(), value);
}

/** A `[width, height]` option (`dimensions`). */
export function checkDimensions(where: string, field: string, value: unknown): [number, number] | undefined {
  return check(
    where,
    field,
    z.tuple([Pixels, Pixels], { message: "must be [width, height] in pixels (integers from 1 to 16384)" }).optional(),
    value,
  );
}

const HttpUrl = z.string({ message: "must be an http:// or https:// URL" }).refine(
  (s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      return false;
    }
  },
  { message: "must be an http:// or https:// URL with a host, e.g. https://api.openai.com/v1" },
);

/** A `baseURL` option: undefined or an absolute http(s) URL. */
export function checkBaseURL(where: string, field: string, value: unknown): string | undefined {
  return check(where, field, HttpUrl.optional(), value);
}

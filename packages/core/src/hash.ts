/** Hashing helpers: sha256 of bytes and a canonical JSON form so equal values hash equally. */
import { createHash } from "node:crypto";

/** Hex sha256 of a buffer or string. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** JSON with object keys sorted recursively; `undefined` fields are dropped as JSON.stringify does. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** sha256 of the canonical JSON of a value. */
export function hashValue(value: unknown): string {
  return sha256Hex(stableStringify(value));
}

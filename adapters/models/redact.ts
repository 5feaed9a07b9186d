/**
 * Secret hygiene for everything a model backend writes or throws: API keys are replaced by
 * `[redacted]` in error messages and anything else that may reach logs, traces or results.
 */

const KEY_PATTERNS = [/\bsk-[A-Za-z0-9_-]{6,}/g, /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/gi, /\b(x-api-key|api[_-]?key)(["':=\s]+)[A-Za-z0-9._-]{6,}/gi];

/** Remove the given secrets and anything that looks like an API key or bearer token from `text`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  out = out.replace(KEY_PATTERNS[0], "[redacted]").replace(KEY_PATTERNS[1], "Bearer [redacted]");
  return out.replace(KEY_PATTERNS[2], (_m, name: string, sep: string) => `${name}${sep}[redacted]`);
}

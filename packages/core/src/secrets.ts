/**
 * Secret hygiene for everything retrace writes. Model clients register the keys they hold
 * ({@link registerSecret}); every write point (traj.jsonl, trajectory.json, results.jsonl,
 * model-cache entries, run.json, datasets) passes its text through {@link redactText}, so a key a
 * server echoes into a model's answer never reaches disk in clear. Anything that looks like an
 * API key or bearer token is redacted too, registered or not.
 */

/**
 * The password of a URL (`postgres://user:PASSWORD@host/db`), found in text even when the URL does
 * not parse (a password holding `/` or `#`): everything from the first `:` after the user name to
 * the last `@` before the next space or quote.
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s"'`[\]]*:)[^\s"'`]*@/gi;

const KEY_PATTERNS = [
  /\bsk-[A-Za-z0-9_-]{6,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b(x-api-key|api[_-]?key)(["':=\s\\]+)[A-Za-z0-9._-]{6,}/gi,
];

/** Placeholders clients use when a local server needs no key; never treated as secrets. */
const PLACEHOLDERS = new Set(["no-key", "none", "EMPTY", "dummy", "test"]);

/** Shortest registered secret (shorter strings would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

const registered = new Set<string>();
/** The base64 forms of the registered secrets (counted apart: registeredSecretCount counts secrets). */
const derived = new Set<string>();

/**
 * Remember a secret (an API key, an auth header value) so that every later write redacts it. Ignores placeholders and
 * short strings.
 */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < MIN_SECRET_LENGTH || PLACEHOLDERS.has(value)) return;
  registered.add(value);
  // Derived forms too (issue 41): an error body echoing the key can reach a file base64-encoded.
  for (const form of base64Forms(value)) derived.add(form);
}

/**
 * The base64 (and base64url) text a secret leaves inside any longer base64 string, whatever its
 * byte offset there (0, 1 or 2 mod 3): the characters whose bits all come from the secret.
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64");
    const part = b64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    if (part.length >= MIN_SECRET_LENGTH) {
      out.add(part);
      out.add(part.replace(/\+/g, "-").replace(/\//g, "_"));
    }
  }
  return [...out];
}

/** How many secrets are registered in this process (for tests and diagnostics; never the values). */
export function registeredSecretCount(): number {
  return registered.size;
}

/**
 * Remove the given and the registered secrets, and anything that looks like an API key or bearer
 * token, from `text`. JSON stays valid: replacements contain no quotes or backslashes.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 4) continue;
    out = out.split(s).join("[redacted]");
    for (const form of s.length >= MIN_SECRET_LENGTH ? base64Forms(s) : [])
      if (out.includes(form)) out = out.split(form).join("[redacted]");
  }
  for (const s of registered) if (out.includes(s)) out = out.split(s).join("[redacted]");
  for (const s of derived) if (out.includes(s)) out = out.split(s).join("[redacted]");
  out = out.replace(URL_PASSWORD, "$1[redacted]@");
  out = out.replace(KEY_PATTERNS[0], "[redacted]").replace(KEY_PATTERNS[1], "Bearer [redacted]");
  return out.replace(KEY_PATTERNS[2], (_m, name: string, sep: string) => `${name}${sep}[redacted]`);
}

/** {@link redactSecrets} with only the registered secrets and key patterns: what every write point calls. */
export function redactText(text: string): string {
  return redactSecrets(text);
}

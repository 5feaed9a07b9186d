/**
 * The viewer's cap on one text's length: longer texts are cut with a notice naming the file that keeps them whole.
 */

/**
 * The most characters of one text the viewer shows (a typed action, a response, a prompt part, an
 * accessibility tree): a browser lays out a long unbroken line in time that grows faster than its
 * length (a 100 KB typed action took 14 s, 1 MB did not load in 60 s), so longer text is cut here,
 * with a notice naming the file that keeps it whole.
 */
export const VIEWER_TEXT_LIMIT = 8 * 1024;

/** `text` cut to {@link VIEWER_TEXT_LIMIT} characters with a notice naming `source`, or unchanged when shorter. */
export function capText(text: string, source: string, limit = VIEWER_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  // never split a surrogate pair
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1]) ? limit - 1 : limit;
  return `${text.slice(0, end)}… (truncated: ${end.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters shown, full text in ${source})`;
}

/** Every string in `v` (an episode as the viewer shows it) cut by {@link capText}, in place. */
export function capStrings<T>(v: T, source: string): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === "string") return capText(x, source);
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) x[i] = walk(x[i]);
      return x;
    }
    if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      for (const k of Object.keys(o)) o[k] = walk(o[k]);
    }
    return x;
  };
  return walk(v) as T;
}

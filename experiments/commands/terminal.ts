/**
 * Text from configs, result files and servers, made safe to print: control characters (ANSI
 * escape sequences that retitle the window or clear the screen, carriage returns that overwrite
 * a line, bidi overrides that reorder it) are shown escaped, as `\x1b`, and very long names are
 * shortened, so one bad name cannot flood the terminal or take it over. The CLI's own colours and
 * progress bars are written separately and are not touched.
 */

/** C0/C1 controls, DEL, and the Unicode format characters that reorder or hide text. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_WITH_NEWLINES = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const escapeChar = (c: string): string => {
  const n = c.charCodeAt(0);
  if (c === "\n") return "\\n";
  if (c === "\t") return "\\t";
  if (c === "\r") return "\\r";
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
};

/** `s` with every control and invisible format character escaped (newlines and tabs too). */
export function printable(s: string): string {
  return String(s).replace(UNSAFE_WITH_NEWLINES, escapeChar);
}

/** `s` shortened to `max` characters, saying how much was left out. */
export function clip(s: string, max = 120): string {
  const str = String(s);
  return str.length <= max ? str : `${str.slice(0, max)}... (${str.length - max} more characters)`;
}

/** A name for the terminal: escaped, then shortened. */
export function safeName(s: string, max = 120): string {
  return clip(printable(s), max);
}

/**
 * An error message for the terminal's one line: control characters escaped (newlines kept for
 * the caller to fold) and every run of more than `maxRun` non-space characters (a 100,000-character
 * name echoed back) shortened in the middle.
 */
export function terminalText(message: string, maxRun = 200): string {
  const escaped = String(message).replace(UNSAFE, escapeChar);
  return escaped.replace(
    new RegExp(`\\S{${maxRun + 1},}`, "g"),
    (run) => `${run.slice(0, maxRun / 2)}...(${run.length - maxRun} characters left out)...${run.slice(-maxRun / 2)}`,
  );
}

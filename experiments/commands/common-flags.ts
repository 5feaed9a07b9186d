/**
 * The flags several commands share, spelled one way: `-o, --out`, `-s, --seed`, `-q, --quiet`.
 * Each command still says what the flag means for it, and parses the value itself.
 */
import { Option } from "commander";

/** `-o, --out <dir>` (or `<file>`): where the command writes; `fallback` is the default shown in help. */
export function outFlag(what: string, fallback?: string, arg: "dir" | "file" = "dir"): Option {
  const flag = new Option(`-o, --out <${arg}>`, what);
  return fallback === undefined ? flag : flag.default(fallback);
}

/** `-s, --seed <n>`, default "0". */
export function seedFlag(what: string): Option {
  return new Option("-s, --seed <n>", what).default("0");
}

/** `-q, --quiet`: less output, as `what` says. */
export function quietFlag(what: string): Option {
  return new Option("-q, --quiet", what);
}

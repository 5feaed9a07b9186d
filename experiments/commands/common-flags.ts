/**
 * The flags several commands share, spelled one way: `-o, --out`, `-s, --seed`, `-q, --quiet`.
 * Each command still says what the flag means for it, and parses the value itself.
 */
import { Option } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";

/**
 * A parser for a flag that names a path or a name: empty text (`--out ""`) is refused with one
 * line, never read as "the current folder" or handed on to a library with its own message.
 */
export function nonEmpty(flag: string, example: string): (value: string) => string {
  return (value: string) => {
    if (value.trim() === "")
      throw new ConfigError(`${flag}: give ${example} (got an empty string)`, { field: flag.replace(/^-+/, "") });
    return value;
  };
}

/** `-o, --out <dir>` (or `<file>`): where the command writes; `fallback` is the default shown in help. */
export function outFlag(what: string, fallback?: string, arg: "dir" | "file" = "dir"): Option {
  const flag = new Option(`-o, --out <${arg}>`, what).argParser(
    nonEmpty("--out", arg === "dir" ? "a folder path" : "a file path"),
  );
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

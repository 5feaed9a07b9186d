/**
 * Old names of knobs (issue 42: one name per knob from API to CLI flag to report column). An old
 * name still works for one release; the first use of each old name in a process writes one
 * warning line naming the old and the new name. Library code warns through the logger
 * (packages/core/src/logger.ts); the CLI routes the same line to stderr as plain text (experiments/cli-program.ts).
 */
import { ConfigError } from "./errors.ts";
import { logger } from "./logger.ts";

/** Where a deprecation warning goes: the one-line message and its fields. */
export type DeprecationSink = (message: string, fields: { deprecated: string; use: string; where: string }) => void;

const toLogger: DeprecationSink = (message, fields) => logger.warn(fields, message);
let sink: DeprecationSink = toLogger;
const warned = new Set<string>();

/** Send deprecation warnings to `next` (the CLI: stderr); no argument = back to the logger. */
export function setDeprecationSink(next?: DeprecationSink): void {
  sink = next ?? toLogger;
}

/**
 * Warn that `oldName` is deprecated in favour of `newName`, once per process per old name;
 * `where` names the API, config field or command that received it.
 */
export function warnDeprecated(where: string, oldName: string, newName: string): void {
  const key = `${oldName}\u0000${newName}`;
  if (warned.has(key)) return;
  warned.add(key);
  sink(`${where}: "${oldName}" is deprecated, use "${newName}" (the old name is accepted until the next release)`, {
    deprecated: oldName,
    use: newName,
    where,
  });
}

/** Forget which names have warned (tests only: each test sees its own first use). */
export function resetDeprecationWarnings(): void {
  warned.clear();
}

/**
 * An object with its deprecated keys moved to their new names (`renames`: old -> new), warning
 * once per old name; the input is not changed. Giving both names is a ConfigError (which one
 * was meant is unclear). Not an object (null, a list, a number): returned as is, for the
 * schema that follows to reject.
 */
export function renameDeprecatedKeys<T>(where: string, value: T, renames: Readonly<Record<string, string>>): T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [oldName, newName] of Object.entries(renames)) {
    if (!Object.hasOwn(value, oldName)) continue;
    const v = value as Record<string, unknown>;
    if (Object.hasOwn(value, newName))
      throw new ConfigError(`${where}: give "${newName}" only ("${oldName}" is its deprecated name; both were given)`, {
        field: oldName,
      });
    warnDeprecated(where, oldName, newName);
    out ??= { ...v };
    out[newName] = out[oldName];
    delete out[oldName];
  }
  return (out ?? value) as T;
}

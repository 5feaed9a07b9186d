/**
 * Resolving recovery options: validate once at the boundary with zod, fill defaults, and turn
 * the first problem into a ConfigError that names the field ("recoveryBudget: must be >= 1").
 */
import { ConfigError } from "../errors.ts";
import { RecoveryOptionsSchema, type RecoveryOptions, type RecoveryOptionsInput } from "../episode.ts";

/** Recovery options validated with every default filled in: what the runtime passes down. */
export type ResolvedRecoveryOptions = RecoveryOptions;

/** Objects this resolver returned: handing one back is a no-op (options are resolved once, then passed down). */
const resolved = new WeakSet<object>();

/** Validate user options and resolve every default; throws a ConfigError naming the bad field. Already-resolved options are returned as they are. */
export function resolveRecoveryOptions(input: RecoveryOptionsInput | ResolvedRecoveryOptions | undefined = {}): ResolvedRecoveryOptions {
  if (input && typeof input === "object" && resolved.has(input)) return input as ResolvedRecoveryOptions;
  const out = parse(input);
  resolved.add(out);
  return out;
}

function parse(input: RecoveryOptionsInput | undefined): RecoveryOptions {
  if (input !== undefined && (input === null || typeof input !== "object" || Array.isArray(input))) {
    throw new ConfigError("recovery options: expected an object such as { freezeWindow: 5 }");
  }
  const parsed = RecoveryOptionsSchema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    const name = keys[0] ?? field;
    throw new ConfigError(`${name}: unknown recovery option (known: ${Object.keys(RecoveryOptionsSchema.shape).join(", ")})`, { field: name });
  }
  throw new ConfigError(`${field || "options"}: ${describeIssue(issue)}`, { field: field || undefined });
}

function describeIssue(issue: { code: string; message: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean; values?: unknown[] }): string {
  if (issue.code === "too_small" && issue.minimum !== undefined) return `must be ${issue.inclusive === false ? ">" : ">="} ${String(issue.minimum)}`;
  if (issue.code === "too_big" && issue.maximum !== undefined) return `must be ${issue.inclusive === false ? "<" : "<="} ${String(issue.maximum)}`;
  if (issue.code === "invalid_value" && Array.isArray(issue.values)) return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  if (issue.code === "invalid_type" && /expected int/.test(issue.message)) return "must be an integer";
  return issue.message.replace(/^Invalid input: /, "");
}

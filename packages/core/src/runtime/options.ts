/**
 * Resolving recovery options, once, for every path: the LangGraph runtime (withRecovery,
 * runEpisode, createRecoveryGraph), the built-in restore routine (recoverWithPolicy), the
 * LangChain middleware and the SDK wrappers. One zod schema (packages/core/src/episode.ts), one pass that fills
 * the defaults, one formatter that turns the first problem into a one-line ConfigError naming the
 * call and the field: `withRecovery: option "recoveryBudget" must be >= 1`. A path that takes only
 * some of the knobs picks them (`knobs`) and layers its own fields on top (`extras`); the knobs'
 * bounds, defaults and messages stay the runtime's.
 */
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { RecoveryOptionsSchema, type RecoveryOptions, type RecoveryOptionsInput } from "../episode.ts";

/** Recovery options validated with every default filled in: what the runtime passes down. */
export type ResolvedRecoveryOptions = RecoveryOptions;

/** One runtime knob's name. */
export type RecoveryKnobName = keyof RecoveryOptions;

/**
 * How one path resolves its options: who is asking (the message prefix), which knobs it takes, and its own extra
 * fields.
 */
export interface ResolveOptionsSpec<K extends RecoveryKnobName, X extends z.ZodRawShape> {
  /** The call the user made, first in every message. @default "recovery options" */
  where?: string;
  /** The runtime knobs this path accepts (the others are unknown options there). @default all */
  knobs?: readonly K[];
  /** The path's own fields (functions, objects, narrower enums), validated in the same pass. */
  extras?: X;
  /**
   * Defaults above the runtime's, below the caller's own fields: a detection preset's recovery
   * recipe (packages/core/src/runtime/preset-recovery.ts). Only the knobs this path takes are used. @default none
   */
  defaults?: Partial<RecoveryOptions>;
}

/** Objects this resolver returned: handing one back is a no-op (options are resolved once, then passed down). */
const resolved = new WeakSet<object>();

/**
 * Validate user options and resolve every default; throws a ConfigError naming the bad field. Already-resolved options
 * are returned as they are.
 */
export function resolveRecoveryOptions(
  input?: RecoveryOptionsInput | ResolvedRecoveryOptions,
  where?: string | { where?: string; defaults?: Partial<RecoveryOptions> },
): ResolvedRecoveryOptions;
/** A path's subset of the knobs plus its own fields, in one pass with the runtime's bounds, defaults and messages. */
export function resolveRecoveryOptions<K extends RecoveryKnobName, X extends z.ZodRawShape>(
  input: unknown,
  spec: ResolveOptionsSpec<K, X>,
): Pick<ResolvedRecoveryOptions, K> & z.output<z.ZodObject<X>>;
export function resolveRecoveryOptions(
  input: unknown = {},
  spec: string | ResolveOptionsSpec<RecoveryKnobName, z.ZodRawShape> = {},
): unknown {
  const s = typeof spec === "string" ? { where: spec } : spec;
  const full = !s.knobs && !s.extras;
  if (full && input && typeof input === "object" && resolved.has(input)) return input;
  const out = parse(s.where ?? "recovery options", withDefaults(input, s.defaults, s.knobs), s.knobs, s.extras);
  if (full) resolved.add(out as object);
  return out;
}

/** `input` over `defaults` (only the knobs the path takes; a field given as undefined is not given). */
function withDefaults(
  input: unknown,
  defaults: Partial<RecoveryOptions> | undefined,
  knobs: readonly RecoveryKnobName[] | undefined,
): unknown {
  if (!defaults || (input !== undefined && (input === null || typeof input !== "object" || Array.isArray(input))))
    return input;
  const own = Object.fromEntries(
    Object.entries((input ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined),
  );
  const taken = Object.fromEntries(
    Object.entries(defaults).filter(([k, v]) => v !== undefined && (!knobs || knobs.includes(k as RecoveryKnobName))),
  );
  return { ...taken, ...own };
}

function parse(
  where: string,
  input: unknown,
  knobs: readonly RecoveryKnobName[] | undefined,
  extras: z.ZodRawShape | undefined,
): unknown {
  if (input !== undefined && (input === null || typeof input !== "object" || Array.isArray(input))) {
    throw new ConfigError(`${where}: expected an options object such as { freezeWindow: 5 }`);
  }
  const picked = knobs
    ? Object.fromEntries(knobs.map((k) => [k, RecoveryOptionsSchema.shape[k]]))
    : RecoveryOptionsSchema.shape;
  const schema = z.object({ ...picked, ...(extras ?? {}) }).strict();
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw optionError(where, parsed.error.issues[0], Object.keys(schema.shape));
}

/** The one-line ConfigError of a zod issue: `<where>: option "<field>" <what is wrong>`. */
export function optionError(where: string, issue: z.core.$ZodIssue, known?: readonly string[]): ConfigError {
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const name = (issue as { keys?: string[] }).keys?.[0] ?? field;
    return new ConfigError(`${where}: unknown option "${name}"${known ? ` (known: ${known.join(", ")})` : ""}`, {
      field: name,
    });
  }
  return new ConfigError(`${where}: option "${field || "options"}" ${describeIssue(issue as never)}`, {
    field: field || undefined,
  });
}

function describeIssue(issue: {
  code: string;
  message: string;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  values?: unknown[];
  origin?: string;
}): string {
  const custom = !/^(Invalid|Too (small|big))/.test(issue.message);
  if (custom && issue.code !== "invalid_type") return issue.message;
  if (issue.code === "too_small" && issue.minimum !== undefined)
    return `must be ${issue.inclusive === false ? ">" : ">="} ${String(issue.minimum)}`;
  if (issue.code === "too_big" && issue.maximum !== undefined)
    return `must be ${issue.inclusive === false ? "<" : "<="} ${String(issue.maximum)}`;
  if (issue.code === "invalid_value" && Array.isArray(issue.values))
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  if (issue.code === "invalid_type" && /expected int/.test(issue.message)) return "must be an integer";
  return issue.message.replace(/^Invalid input: /, "");
}

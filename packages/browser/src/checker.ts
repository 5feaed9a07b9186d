/**
 * Running a task's checker: a built-in one by name over the apps' server state, or a user's
 * checker module. A user checker is `export function check(ctx)` (or the default export) taking
 * {@link CheckerContext} and returning a boolean, a score in [0, 1] or `{ score, detail }`,
 * possibly as a promise. It should read the app's own state (its API, database or the state
 * endpoint), never the screen.
 */
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import type { AppsState } from "./apps/state.ts";
import { BROWSER_CHECKS } from "./tasks/index.ts";
import type { BrowserEvaluator } from "./tasks/types.ts";

/** What a checker module's function receives. */
export interface CheckerContext {
  task: Task;
  /** The page's URL when the episode ended. */
  url: string;
  /** The app's server state from its state endpoint (undefined when the task names none). */
  state: unknown;
  /** Cookies and localStorage of the episode's browser context. */
  storage: {
    cookies: Array<{ name: string; value: string; domain: string; path: string }>;
    origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
  };
}

/** A user's checker function. */
export type BrowserChecker = (
  ctx: CheckerContext,
) => boolean | number | Evaluation | Promise<boolean | number | Evaluation>;

const modules = new Map<string, Promise<Record<string, unknown>>>();

/** Load a checker function from a module (absolute path or file: URL); a ConfigError says what is wrong. */
export async function loadChecker(module: string, exportName: string): Promise<BrowserChecker> {
  if (!isAbsolute(module) && !module.startsWith("file:"))
    throw new ConfigError(
      `checker module "${module}" must be an absolute path (task files resolve it against their folder)`,
      { field: "evaluator.module" },
    );
  const href = module.startsWith("file:") ? module : pathToFileURL(module).href;
  let loading = modules.get(href);
  if (!loading) modules.set(href, (loading = import(href) as Promise<Record<string, unknown>>));
  let mod: Record<string, unknown>;
  try {
    mod = await loading;
  } catch (err) {
    modules.delete(href);
    throw new ConfigError(
      `checker module ${module} does not load: ${err instanceof Error ? err.message : String(err)}`,
      { field: "evaluator.module" },
    );
  }
  const fn = mod[exportName];
  if (typeof fn !== "function")
    throw new ConfigError(
      `checker module ${module} has no function export "${exportName}" (exports: ${Object.keys(mod).join(", ") || "none"})`,
      { field: "evaluator.export" },
    );
  return fn as BrowserChecker;
}

/**
 * Load the checker module of every task that names one, before the first episode: a module that
 * does not load or lacks its named export is the task file's mistake (a ConfigError naming the
 * task, the file and the export), not an environment error found at the end of every episode.
 */
export async function checkTaskCheckers(tasks: readonly Task[]): Promise<void> {
  for (const task of tasks) {
    const evaluator = task.evaluator as Partial<BrowserEvaluator> | undefined;
    if (!evaluator || typeof evaluator !== "object" || !("module" in evaluator) || typeof evaluator.module !== "string")
      continue;
    try {
      await loadChecker(evaluator.module, evaluator.export ?? "default");
    } catch (err) {
      if (err instanceof ConfigError)
        throw new ConfigError(`task ${task.id}: ${err.message}`, { field: err.field, cause: err });
      throw err;
    }
  }
}

/** A checker's return value for a message: JSON where it is JSON, else its type (a BigInt, a function...). */
function describeValue(value: unknown): string {
  if (typeof value === "bigint") return `the BigInt ${value}n`;
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text.length > 200 ? `${text.slice(0, 200)}...` : text;
  } catch {
    // a BigInt inside, a cycle: fall through to the type
  }
  return `a value of type ${typeof value}${value !== null && typeof value === "object" ? ` (${value.constructor?.name ?? "Object"})` : ""}`;
}

/** Normalise what a checker returned. */
export function toEvaluation(result: unknown, who: string): Evaluation {
  if (typeof result === "boolean") return { score: result ? 1 : 0, detail: `${who} returned ${result}` };
  if (typeof result === "number" && result >= 0 && result <= 1)
    return { score: result, detail: `${who} returned ${result}` };
  const r = result as Partial<Evaluation> | null;
  if (r && typeof r === "object" && typeof r.score === "number" && r.score >= 0 && r.score <= 1)
    return { score: r.score, ...(typeof r.detail === "string" ? { detail: r.detail } : {}) };
  throw new EnvironmentError(
    `${who} returned ${describeValue(result)}; a checker returns a boolean, a score in [0, 1] or { score, detail }`,
    { retryable: false },
  );
}

/** Run a task's checker. */
export async function runChecker(evaluator: BrowserEvaluator, ctx: CheckerContext): Promise<Evaluation> {
  if ("check" in evaluator) {
    const check = BROWSER_CHECKS.get(evaluator.check);
    if (!check)
      throw new ConfigError(`task ${ctx.task.id}: no built-in checker "${evaluator.check}"`, {
        field: "evaluator.check",
      });
    return check(ctx.state as AppsState);
  }
  const fn = await loadChecker(evaluator.module, evaluator.export);
  return toEvaluation(await fn(ctx), `checker ${evaluator.module}#${evaluator.export}`);
}

/**
 * Browser tasks. Built-in tasks run on the apps this package serves (`setup.fixture` names their
 * initial server state, `setup.path` the first page) and are judged by a named checker that reads
 * the apps' server-side state (`evaluator.check`). Tasks for a user's own web app (tasks/file.ts)
 * start at `setup.url` and are judged by a checker module (`evaluator.module` + `export`).
 */
import { z } from "zod";
import type { MistakeSpec } from "@retrace-cua/core/ground-truth";
import { parseTaskParts, type PlannedTask } from "@retrace-cua/core/parse-task";
import type { Action } from "@retrace-cua/core/action";
import type { Evaluation, Task } from "@retrace-cua/core/task";
import { centre } from "../apps/layout.ts";
import { FIXTURES, type AppsState } from "../apps/state.ts";
import type { Rect } from "../apps/ui.ts";

/**
 * An http(s) URL: the only scheme a browser task may start at or read state from. A file:, data: or
 * javascript: URL would put the host's files (file:///etc/passwd) into the run's screens and blobs.
 */
export const HttpUrlSchema = z
  .string()
  .url()
  .refine((u) => URL.canParse(u) && /^https?:$/i.test(new URL(u).protocol), {
    message: "expected an http:// or https:// URL (file:, data: and other schemes are refused)",
  });

/** How a user's app exposes its server state (GET returns JSON, PUT puts it back). */
export const StateEndpointSchema = z
  .object({
    /** The endpoint's URL. */
    url: HttpUrlSchema,
    /** Headers sent with every state request (e.g. a token). @default {} */
    headers: z.record(z.string(), z.string()).default({}),
    /** State PUT at every reset (omitted: the app's state is not reset). */
    initial: z.unknown().optional(),
  })
  .strict();

/** Where an episode starts. */
export const BrowserSetupSchema = z.union([
  z.object({ fixture: z.enum(FIXTURES).default("default"), path: z.string().startsWith("/") }).strict(),
  z.object({ url: HttpUrlSchema, state: StateEndpointSchema.optional() }).strict(),
]);

/** How success is judged: a built-in checker by name, or a user's checker module. */
export const BrowserEvaluatorSchema = z.union([
  z.object({ check: z.string().min(1) }).strict(),
  z.object({ module: z.string().min(1), export: z.string().min(1).default("default") }).strict(),
]);

export type BrowserSetup = z.output<typeof BrowserSetupSchema>;
export type BrowserEvaluator = z.output<typeof BrowserEvaluatorSchema>;

/** A plausible mistake at a plan step: SimDesk's MistakeSpec, so simulated policies read it the same way. */
export type BrowserMistake = MistakeSpec;

/** A browser task with a reference plan and its plausible mistakes. */
export type BrowserTask = PlannedTask<"browser", BrowserSetup, BrowserEvaluator>;

/** A built-in checker: reads the apps' server state, never the screen. */
export type AppsCheck = (state: AppsState) => Evaluation;

/** Validate a task's setup and evaluator; a ConfigError names the field. */
export function parseBrowserTask(task: Task): { setup: BrowserSetup; evaluator: BrowserEvaluator } {
  return parseTaskParts(task, { setup: BrowserSetupSchema, evaluator: BrowserEvaluatorSchema });
}

/** Plan building blocks. */
export const act = {
  click: (r: Rect): Action => ({ type: "CLICK", ...centre(r), button: "left", numClicks: 1 }),
  type: (text: string): Action => ({ type: "TYPING", text }),
  hot: (...keys: string[]): Action => ({ type: "HOTKEY", keys }),
  press: (key: string): Action => ({ type: "PRESS", key }),
  done: { type: "DONE" } as Action,
};

/** A passing or failing evaluation from a list of (condition, what was wrong) pairs. */
export function verdict(checks: Array<[boolean, string]>): Evaluation {
  const failed = checks.filter(([ok]) => !ok).map(([, why]) => why);
  return failed.length ? { score: 0, detail: failed.join("; ") } : { score: 1, detail: "all checks passed" };
}

/** Build a built-in task. */
export function defineBrowserTask(t: {
  id: string;
  instruction: string;
  app: string;
  fixture?: (typeof FIXTURES)[number];
  path: string;
  plan: Action[];
  mistakes: BrowserMistake[];
  tags?: string[];
}): BrowserTask {
  const n = t.plan.length;
  return {
    id: t.id,
    instruction: t.instruction,
    env: "browser",
    apps: [t.app],
    setup: { fixture: t.fixture ?? "default", path: t.path },
    evaluator: { check: t.id },
    plan: t.plan,
    mistakes: t.mistakes,
    horizon: n <= 4 ? "short" : n <= 8 ? "medium" : "long",
    tags: t.tags ?? [],
  };
}

/**
 * Tasks for real desktop apps (X11 on the host or in a container). Same shape as SimDesk tasks:
 * a core `Task` whose `setup` says which files the user has and which apps are open, whose
 * `evaluator` is an oracle over files on disk or the apps' accessibility tree, and a reference
 * `plan` of Actions that solves it from the initial state.
 */
import { z } from "zod";
import type { MistakeSpec } from "@retrace-cua/core/ground-truth";
import { parseTaskParts, type PlannedTask } from "@retrace-cua/core/parse-task";
import type { Action } from "@retrace-cua/core/action";
import type { Task } from "@retrace-cua/core/task";

/** The apps the desktops know how to launch and wait for. */
export const DESKTOP_APPS = ["mousepad", "galculator", "gnumeric"] as const;
export type DesktopApp = (typeof DESKTOP_APPS)[number];

const relPath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith("/") && !p.split("/").includes(".."),
    "must be a path inside the user's home (relative, no ..)",
  );

/** Initial state: files in the user's home and apps launched in order (cwd = home). */
export const DesktopSetupSchema = z
  .object({
    /** Home-relative path -> UTF-8 content. Restored from this pristine copy on every reset. */
    files: z.record(relPath, z.string()).default({}),
    /** Apps to start, each waited for until its window shows. */
    launch: z.array(z.object({ app: z.enum(DESKTOP_APPS), args: z.array(z.string()).default([]) }).strict()).min(1),
  })
  .strict();

/** One oracle check. All checks of a task must pass for score 1. */
export const DesktopCheckSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("file-text"),
    path: relPath,
    /** Exact content (after trimming trailing whitespace when `trimEnd`). */
    equals: z.string().optional(),
    includes: z.array(z.string()).default([]),
    excludes: z.array(z.string()).default([]),
    /** @default true */
    trimEnd: z.boolean().default(true),
  }),
  z.object({ type: z.literal("file-missing"), path: relPath }),
  z.object({
    type: z.literal("sheet-cells"),
    /** A spreadsheet gnumeric's `ssconvert` reads (.gnumeric, .csv, .xlsx). */
    path: relPath,
    /** Cell (A1 notation) -> expected text as ssconvert writes it to CSV. */
    cells: z.record(z.string().regex(/^[A-Z]{1,2}[1-9][0-9]*$/), z.string()),
  }),
  z.object({
    type: z.literal("ax-text"),
    /** Only nodes of this role ("label", "text"). */
    role: z.string().optional(),
    /** Some node's name or text value must equal this (after trimming). */
    equals: z.string(),
    /** Only nodes inside the app with this name ("galculator"). */
    app: z.string().optional(),
  }),
]);
export type DesktopCheck = z.infer<typeof DesktopCheckSchema>;

export const DesktopEvaluatorSchema = z.object({ checks: z.array(DesktopCheckSchema).min(1) }).strict();

export type DesktopSetup = z.output<typeof DesktopSetupSchema>;
export type DesktopEvaluator = z.output<typeof DesktopEvaluatorSchema>;

/** A plausible mistake at a plan step: SimDesk's MistakeSpec, so simulated policies read it the same way. */
export type DesktopMistake = MistakeSpec;

/** A task for a real desktop app. */
export type DesktopTask = PlannedTask<"x11", DesktopSetup, DesktopEvaluator>;

/** Validate a task's setup and evaluator; throws a ConfigError naming the field. */
export function parseDesktopTask(task: Task): { setup: DesktopSetup; evaluator: DesktopEvaluator } {
  return parseTaskParts(task, { setup: DesktopSetupSchema, evaluator: DesktopEvaluatorSchema });
}

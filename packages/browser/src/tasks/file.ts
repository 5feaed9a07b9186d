/**
 * Task files for a user's own web apps (YAML or JSON):
 *
 *     tasks:
 *       - id: notes-add
 *         instruction: Add a note saying 'call Ana'.
 *         url: http://127.0.0.1:3000/notes          # where the episode starts
 *         checker: ./check-notes.mjs                # relative to this file
 *         export: check                             # @default "default"
 *         state:                                    # optional: the app's state endpoint
 *           url: http://127.0.0.1:3000/__state      # GET -> JSON, PUT <- JSON
 *           headers: { x-token: secret }
 *           initial: { notes: [] }                  # PUT at every reset
 *         plan: [{ type: CLICK, x: 100, y: 200 }]   # optional reference plan
 *
 * With a state endpoint the environment resets the app, snapshots and restores its state, probes
 * it and hashes it; without one, only the browser side (cookies, localStorage, URL, forms) is.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ActionSchema } from "@retrace-cua/core/action";
import { ConfigError } from "@retrace-cua/core/errors";
import { HttpUrlSchema, StateEndpointSchema, type BrowserTask } from "./types.ts";
import { checkNesting, checkYamlNesting } from "@retrace-cua/core/bounds";

const TaskEntrySchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]+$/, "use letters, digits, '.', '-' and '_'"),
    instruction: z.string().min(1),
    url: HttpUrlSchema,
    checker: z.string().min(1),
    export: z.string().min(1).default("default"),
    state: StateEndpointSchema.optional(),
    plan: z.array(ActionSchema).optional(),
    tags: z.array(z.string()).default([]),
  })
  .strict();

const TaskFileSchema = z.object({ tasks: z.array(TaskEntrySchema).min(1) }).strict();

/** Load a task file; every problem is a ConfigError naming the file and the field. */
export function loadBrowserTaskFile(path: string): BrowserTask[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(
      `browser task file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      { field: "env.tasksFile" },
    );
  }
  let raw: unknown;
  try {
    if (!path.endsWith(".json")) checkYamlNesting(text, `browser task file ${path}`);
    raw = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(
      `browser task file ${path}: not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
      { field: "env.tasksFile" },
    );
  }
  checkNesting(raw, `browser task file ${path}`, "env.tasksFile");
  const parsed = TaskFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.map(String).join(".");
    throw new ConfigError(`browser task file ${path}: ${field || "(top)"}: ${issue.message}`, {
      field: `env.tasksFile:${field}`,
    });
  }
  const ids = new Set<string>();
  return parsed.data.tasks.map((t) => {
    if (ids.has(t.id))
      throw new ConfigError(`browser task file ${path}: task id "${t.id}" appears twice`, { field: "env.tasksFile" });
    ids.add(t.id);
    const plan = t.plan ?? [];
    return {
      id: t.id,
      instruction: t.instruction,
      env: "browser",
      apps: [new URL(t.url).host],
      setup: { url: t.url, ...(t.state ? { state: t.state } : {}) },
      evaluator: {
        module: isAbsolute(t.checker) ? t.checker : resolve(dirname(resolve(path)), t.checker),
        export: t.export,
      },
      plan,
      mistakes: [],
      horizon: plan.length <= 4 ? "short" : plan.length <= 8 ? "medium" : "long",
      tags: t.tags,
    } satisfies BrowserTask;
  });
}

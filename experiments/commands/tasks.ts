/** `retrace tasks [--env simdesk|browser]`: list a built-in task suite (id, apps, plan steps, horizon, tags). */
import { Option, type Command } from "commander";
import { tasksForEnvironment } from "../../adapters/environments/registry.ts";
import type { Task } from "../../src/task.ts";
import { textTable } from "./run-options.ts";

type SuiteTask = Task & { plan: NonNullable<Task["plan"]>; horizon?: string; mistakes?: unknown[] };

const suite = (env: string) => tasksForEnvironment(env) as readonly SuiteTask[];

/** Rows of the task table (exported for tests). */
export function taskRows(env = "simdesk"): string[][] {
  return suite(env).map((t) => [t.id, (t.apps ?? []).join(","), String(t.plan.length), t.horizon ?? "", (t.tags ?? []).join(",")]);
}

export function register(program: Command): void {
  program
    .command("tasks")
    .description("list the SimDesk tasks (--env browser: the browser web-app tasks)")
    .addOption(new Option("--env <kind>", "which suite").choices(["simdesk", "browser"]).default("simdesk"))
    .option("--json", "print JSON (id, instruction, apps, steps, horizon, tags, mistakes)")
    .action((flags: { json?: boolean; env: string }) => {
      const tasks = suite(flags.env);
      if (flags.json) {
        const out = tasks.map((t) => ({ id: t.id, instruction: t.instruction, apps: t.apps, steps: t.plan.length, horizon: t.horizon, tags: t.tags, mistakes: t.mistakes?.length ?? 0 }));
        process.stdout.write(JSON.stringify(out, null, 2) + "\n");
        return;
      }
      process.stdout.write(textTable(["id", "apps", "steps", "horizon", "tags"], taskRows(flags.env)) + "\n");
      process.stdout.write(`${tasks.length} tasks\n`);
    });
}

/** `retrace tasks`: list the SimDesk task suite (id, apps, plan steps, horizon, tags). */
import type { Command } from "commander";
import { SIMDESK_TASKS } from "../../adapters/environments/simdesk/index.ts";
import { textTable } from "./run-options.ts";

/** Rows of the task table (exported for tests). */
export function taskRows(): string[][] {
  return SIMDESK_TASKS.map((t) => [t.id, (t.apps ?? []).join(","), String(t.plan.length), t.horizon, (t.tags ?? []).join(",")]);
}

export function register(program: Command): void {
  program
    .command("tasks")
    .description("list the SimDesk tasks")
    .option("--json", "print JSON (id, instruction, apps, steps, horizon, tags, mistakes)")
    .action((flags: { json?: boolean }) => {
      if (flags.json) {
        const out = SIMDESK_TASKS.map((t) => ({ id: t.id, instruction: t.instruction, apps: t.apps, steps: t.plan.length, horizon: t.horizon, tags: t.tags, mistakes: t.mistakes.length }));
        process.stdout.write(JSON.stringify(out, null, 2) + "\n");
        return;
      }
      process.stdout.write(textTable(["id", "apps", "steps", "horizon", "tags"], taskRows()) + "\n");
      process.stdout.write(`${SIMDESK_TASKS.length} tasks\n`);
    });
}

/**
 * `retrace tasks [--env simdesk|browser]`: list a built-in task suite (id, apps, plan steps, horizon,
 * tags). `--env docker`: the shared OSWorld tasks, each with whether it runs fully offline on a
 * retrace container desktop and what stops it otherwise.
 */
import { Option, type Command } from "commander";
import { tasksForEnvironment } from "@retrace-cua/environments/registry";
import type { Task } from "@retrace-cua/core/task";
import { textTable } from "./run-options.ts";
import { DEFAULT_OSWORLD_TASKS } from "../runtime/osworld.ts";
import { desktopImagePrograms, offlineListing } from "../runtime/osworld-check.ts";
import { DEFAULT_DESKTOP_IMAGE } from "@retrace-cua/desktops/docker/container-backend";
import { APPS_DESKTOP_IMAGE } from "@retrace-cua/desktops/docker/image-programs";
import { createDockerClient } from "@retrace-cua/desktops/docker/engine";
import { runtimeSettings } from "@retrace-cua/core/settings";

type SuiteTask = Task & { plan: NonNullable<Task["plan"]>; horizon?: string; mistakes?: unknown[] };

const suite = (env: string) => tasksForEnvironment(env) as readonly SuiteTask[];

/** Rows of the task table (exported for tests). */
export function taskRows(env = "simdesk"): string[][] {
  return suite(env).map((t) => [
    t.id,
    (t.apps ?? []).join(","),
    String(t.plan.length),
    t.horizon ?? "",
    (t.tags ?? []).join(","),
  ]);
}

export function register(program: Command): void {
  program
    .command("tasks")
    .description(
      "list the SimDesk tasks (--env browser: the browser web-app tasks; --env docker: the shared OSWorld tasks and whether each runs offline on a container desktop)",
    )
    .addOption(new Option("--env <kind>", "which suite").choices(["simdesk", "browser", "docker"]).default("simdesk"))
    .option("--tasks <dir>", "with --env docker: the OSWorld evaluation_examples folder", DEFAULT_OSWORLD_TASKS)
    .option(
      "--image <name>",
      `with --env docker: the desktop image whose programs count (${APPS_DESKTOP_IMAGE}: the apps image)`,
      DEFAULT_DESKTOP_IMAGE,
    )
    .option("--json", "print JSON (id, instruction, apps, steps, horizon, tags, mistakes)")
    .action(async (flags: { json?: boolean; env: string; tasks: string; image: string }) => {
      if (flags.env === "docker") {
        const docker = async () => {
          const d = createDockerClient(runtimeSettings().dockerHost);
          return (await d.ping().then(
            () => true,
            () => false,
          ))
            ? d
            : undefined;
        };
        const rows = await offlineListing(flags.tasks, false, await desktopImagePrograms(flags.image, docker));
        if (flags.json) {
          process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
          return;
        }
        process.stdout.write(
          textTable(
            ["id", "domain", "offline", "why not"],
            rows.map((r) => [r.id, r.domain, r.offline ? "yes" : "no", r.blockers.join("; ")]),
          ) + "\n",
        );
        process.stdout.write(
          `${rows.length} OSWorld tasks, ${rows.filter((r) => r.offline).length} run fully offline on a container desktop of ${flags.image} (npx retrace osworld-check runs them)\n`,
        );
        return;
      }
      const tasks = suite(flags.env);
      if (flags.json) {
        const out = tasks.map((t) => ({
          id: t.id,
          instruction: t.instruction,
          apps: t.apps,
          steps: t.plan.length,
          horizon: t.horizon,
          tags: t.tags,
          mistakes: t.mistakes?.length ?? 0,
        }));
        process.stdout.write(JSON.stringify(out, null, 2) + "\n");
        return;
      }
      process.stdout.write(textTable(["id", "apps", "steps", "horizon", "tags"], taskRows(flags.env)) + "\n");
      process.stdout.write(`${tasks.length} tasks\n`);
    });
}

/**
 * `retrace osworld-check --env docker`: OSWorld without a VM. For each shared OSWorld task that runs
 * fully offline on a container desktop, run its own set-up through the control API, then its
 * evaluator on the resulting state; print the counts (ran, scored 1, scored 0, set-up failed,
 * crashed, and why the other tasks cannot run here).
 */
import { Option, type Command } from "commander";
import { resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { createDockerDesktop } from "@retrace-cua/desktops/docker/create";
import { createDockerClient } from "@retrace-cua/desktops/docker/engine";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_OSWORLD_TASKS } from "../runtime/osworld.ts";
import { checkOsworldTasks, desktopImagePrograms, type OsworldCheckReport } from "../runtime/osworld-check.ts";
import { DEFAULT_DESKTOP_IMAGE } from "@retrace-cua/desktops/docker/container-backend";
import { APPS_DESKTOP_IMAGE } from "@retrace-cua/desktops/docker/image-programs";
import { intFlag } from "./dataset.ts";

/** The closing lines of a check (exported for tests and the docs). */
export function checkSummary(r: OsworldCheckReport): string[] {
  const scored = r.checked.filter((c) => c.outcome === "scored");
  const lines = [
    `${r.tasks} OSWorld tasks; ${r.offline} run fully offline on a container desktop${r.image ? ` of ${r.image}` : ""}; ${r.checked.length} checked`,
    `checked: ${scored.length} scored (${scored.filter((c) => c.score === 1).length} score 1, ${scored.filter((c) => c.score === 0).length} score 0), ${r.checked.filter((c) => c.outcome === "setup-failed").length} set-up failed, ${r.checked.filter((c) => c.outcome === "getter-none").length} getter gave None, ${r.checked.filter((c) => c.outcome === "crashed").length} crashed`,
    `not offline here (a task may have several reasons): ${Object.entries(r.blocked)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}`,
  ];
  return lines;
}

export function register(program: Command): void {
  program
    .command("osworld-check")
    .description(
      "run each offline OSWorld task's own set-up and evaluator on a container desktop (OSWorld without a VM)",
    )
    .addOption(new Option("--env <kind>", "desktop kind").choices(["docker"]).default("docker"))
    .option("--tasks <dir>", "OSWorld evaluation_examples folder", DEFAULT_OSWORLD_TASKS)
    .option("--sample <n>", "check only n offline tasks, drawn with --seed")
    .option("--seed <n>", "seed of the sample", "0")
    .option(
      "--osworld-path <dir>",
      "an OSWorld checkout: its Python code scores the metrics retrace lacks, and with its full requirements runs the set-up steps and getters retrace lacks",
    )
    .option(
      "--image <name>",
      `the desktop image (${APPS_DESKTOP_IMAGE}: the opt-in apps image, built by RETRACE_DESKTOP_APPS=1 experiments/docker/build-image.sh)`,
      DEFAULT_DESKTOP_IMAGE,
    )
    .option("--json", "print the report as JSON")
    .action(
      async (flags: {
        tasks: string;
        sample?: string;
        seed: string;
        osworldPath?: string;
        json?: boolean;
        image: string;
      }) => {
        const sample = intFlag("sample", flags.sample, 1);
        const seed = intFlag("seed", flags.seed, 0)!;
        const settings = runtimeSettings();
        const docker = createDockerClient(settings.dockerHost);
        if (
          !(await docker.ping().then(
            () => true,
            () => false,
          ))
        )
          throw new ConfigError(
            `no Docker engine at DOCKER_HOST=${settings.dockerHost ?? "(default socket)"}: start one (podman: . .ci/podman-setup.sh)`,
          );
        const programs = await desktopImagePrograms(flags.image, async () => docker);
        const dir = mkdtempSync(join(tmpdir(), "retrace-oswcheck-blobs-"));
        try {
          const blobs = new BlobStore({ dir });
          const report = await checkOsworldTasks({
            image: flags.image,
            dir: resolve(flags.tasks),
            sample,
            seed,
            osworldPath: flags.osworldPath ? resolve(flags.osworldPath) : undefined,
            programs,
            desktop: () =>
              createDockerDesktop({ blobs, docker, image: flags.image, settle: { quietMs: 300, maxMs: 5000 } }),
            onTask: flags.json
              ? undefined
              : (c) =>
                  process.stdout.write(
                    `${c.outcome === "scored" ? `score ${c.score}` : c.outcome.padEnd(7)}  ${c.domain}/${c.id}  ${(c.ms / 1000).toFixed(1)} s  ${c.detail.split("\n")[0].slice(0, 160)}\n`,
                  ),
          });
          if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
          else process.stdout.write(checkSummary(report).join("\n") + "\n");
          if (report.checked.some((c) => c.outcome === "crashed" || c.outcome === "getter-none")) process.exitCode = 1;
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
}

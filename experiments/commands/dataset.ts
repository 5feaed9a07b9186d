/**
 * `retrace dataset build`: build a recovery evaluation set (paper Section 5.2 / Appendix A.1),
 * printing the count after every filtering stage (Table 6). Without `--config`: SimDesk with the
 * seeded simulated forward and perturbation policies, labelled simulated. With `--config` (a
 * `kind: recovery-eval` file): the config's model agents on `--env simdesk|x11|docker|osworld`.
 */
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { SIM_PROFILES, type SimForwardProfileName } from "@retrace-cua/simdesk/agents/index";
import { buildSimDeskDataset } from "../recovery-eval/run.ts";
import { buildConfiguredDataset } from "../recovery-eval/models.ts";
import type { RecoveryDatasetManifest } from "@retrace-cua/evaluation/dataset/types";
import {
  addModelEvalFlags,
  cacheFromFlags,
  configFromFlags,
  usageLines,
  type ModelEvalFlags,
} from "./recovery-eval-models.ts";
import { outFlag, quietFlag, seedFlag } from "./common-flags.ts";
import { optionalNumberFlag, parseIntFlag, parseIntListFlag } from "./numeric-flags.ts";

/** Parse a non-negative/positive integer flag or throw a ConfigError naming it. */
export function intFlag(name: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  return parseIntFlag(name, value, { min });
}

/** Parse a comma-separated list of positive integers ("1,5"). */
export function intListFlag(name: string, value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  return parseIntListFlag(name, value, { min: 1, expect: `expected comma-separated positive integers like "1,5"` });
}

interface BuildFlags extends ModelEvalFlags {
  out: string;
  tasks?: string;
  limit?: string;
  seed: string;
  rollouts: string;
  replays: string;
  seedSteps: string;
  distances: string;
  maxSamples?: string;
  maxSteps: string;
  forward: string;
  noise?: boolean;
  width?: string;
  height?: string;
  verify: string;
  flaky?: string;
  quiet?: boolean;
}

export function register(program: Command): void {
  const dataset = program.command("dataset").description("Recovery evaluation sets (paper Section 5.2).");
  const build = dataset
    .command("build")
    .description(
      "Build a transition-consistent recovery evaluation set: rollouts, N-replay filtering, seed steps, perturbation (d steps), genuine-error, near-identical and duplicate filters. Default: SimDesk with simulated policies (SIMULATED); --config: the config's model agents on --env simdesk|x11|docker|osworld (the config sets the build settings).",
    )
    .addOption(outFlag("dataset folder (dataset.json, tasks.json, samples.jsonl, blobs/)", "runs/recovery-dataset"))
    .option("--tasks <ids>", "comma-separated SimDesk task ids (default: all)")
    .option("--limit <n>", "use only the first n tasks")
    .addOption(seedFlag("seed of every draw"))
    .option("--rollouts <n>", "on-policy rollouts per task", "1")
    .option("--replays <n>", "N of transition-consistent filtering", "3")
    .option("--seed-steps <n>", "seed steps (targets) drawn per kept trajectory", "2")
    .option("--distances <list>", "perturbation lengths d (1 = short horizon, 5 = long)", "1,5")
    .option("--max-samples <n>", "keep a seeded random subset of at most n samples per distance")
    .option("--max-steps <n>", "forward step budget of a rollout", "30")
    .option(
      "--forward <profile>",
      `simulated forward profile (${Object.keys(SIM_PROFILES.forward).join(", ")})`,
      "default",
    )
    .option("--noise", "SimDesk noise on: seeded pop-ups and a ticking clock")
    .option("--width <px>", "screen width", "1280")
    .option("--height <px>", "screen height", "800")
    .option(
      "--verify <how>",
      "confirm replayed targets by auto (ground-truth state hash), state-hash or ssim (>= 0.99)",
      "auto",
    )
    .option(
      "--flaky <p>",
      "lose each state-changing action with probability p (a flaky desktop; shows N-replay filtering at work)",
    )
    .addOption(quietFlag("print only the summary"));
  addModelEvalFlags(build).action(async (flags: BuildFlags) => {
    const onProgress = flags.quiet ? undefined : (m: string) => process.stderr.write(`${m}\n`);
    const config = configFromFlags(flags);
    if (config) {
      const skipped: string[] = [];
      const { manifest, usage } = await buildConfiguredDataset({
        config,
        out: flags.out,
        ...cacheFromFlags(flags),
        onProgress,
        onSkipped: (task, reason) => skipped.push(`  ${task}: ${reason}`),
      });
      const skippedLines = skipped.length
        ? [`skipped ${skipped.length} task(s) that cannot run here:`, ...skipped]
        : [];
      process.stdout.write(
        [...skippedLines, ...summaryLines(manifest, flags.out, config.env.kind), ...usageLines(usage)].join("\n") +
          "\n",
      );
      return;
    }
    if (!["auto", "state-hash", "ssim"].includes(flags.verify))
      throw new ConfigError(`--verify: expected auto, state-hash or ssim, got "${flags.verify}"`, { field: "verify" });
    const flaky = optionalNumberFlag("flaky", flags.flaky, { min: 0, max: 1, expect: "expected a share from 0 to 1" });
    if (flaky !== undefined && !(flaky >= 0 && flaky < 1))
      throw new ConfigError(`--flaky: expected a probability in [0, 1), got "${flags.flaky}"`, { field: "flaky" });
    if (!(flags.forward in SIM_PROFILES.forward))
      throw new ConfigError(
        `--forward: unknown profile "${flags.forward}" (one of ${Object.keys(SIM_PROFILES.forward).join(", ")})`,
        { field: "forward" },
      );
    const seed = intFlag("seed", flags.seed, Number.MIN_SAFE_INTEGER)!;
    const m = await buildSimDeskDataset({
      out: flags.out,
      tasks: flags.tasks
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
      limit: intFlag("limit", flags.limit),
      seed,
      rolloutsPerTask: intFlag("rollouts", flags.rollouts),
      replays: intFlag("replays", flags.replays),
      seedStepsPerTrajectory: intFlag("seed-steps", flags.seedSteps),
      distances: intListFlag("distances", flags.distances),
      maxSamplesPerDistance: intFlag("max-samples", flags.maxSamples),
      maxSteps: intFlag("max-steps", flags.maxSteps),
      forward: flags.forward as SimForwardProfileName,
      noise: flags.noise === true,
      noiseSeed: seed,
      width: intFlag("width", flags.width),
      height: intFlag("height", flags.height),
      verify: flags.verify as "auto" | "state-hash" | "ssim",
      flakyRate: flaky,
      onProgress,
    });
    process.stdout.write(summaryLines(m, flags.out, "simdesk").join("\n") + "\n");
  });
}

/** The stage counts of a built dataset, one line per stage. */
function summaryLines(m: RecoveryDatasetManifest, out: string, env: string): string[] {
  const t = m.trajectories;
  return [
    m.simulated
      ? `SIMULATED dataset ${m.version} on ${env} (${m.simulatedLabel})`
      : `dataset ${m.version} on ${env} (model agents, simulated: false)`,
    `trajectories: ${t.rollouts} rollouts -> ${t.successful} successful -> ${t.wellFormed} well-formed -> ${t.transitionConsistent} transition-consistent (retention ${(100 * m.retention).toFixed(1)}%)`,
    ...m.stages.map(
      (s) =>
        `d=${s.distance}: ${s.seedSteps} seed steps -> ${s.targetReproduced} target reproduced -> ${s.perturbed} perturbed -> ${s.perturbationWellFormed} well-formed -> ${s.genuineError} genuine error -> ${s.notNearIdentical} not near-identical -> ${s.deduplicated} unique -> ${s.final} final`,
    ),
    `samples: ${m.samples} in ${out}`,
  ];
}

/**
 * `retrace eval-recovery`: run the recovery evaluation (paper Section 5) on a dataset from
 * `retrace dataset build` and write recovery-eval.json (and, with --agreement,
 * oracle-agreement.json) for `retrace report`. Without `--config`: the simulated implicit and
 * explicit recovery policies on SimDesk. With `--config`: the config's implicit (forward agent)
 * and explicit (model recoverers x contexts) variants on the dataset's environment.
 * `--agreement --labels FILE` compares every oracle (and the config's LLM judge) with human labels
 * of runs instead; `retrace label-sample` writes the sheet people label.
 */
import { join } from "node:path";
import { Option, type Command } from "commander";
import { warnDeprecated } from "@retrace-cua/core/deprecation";
import { ConfigError } from "@retrace-cua/core/errors";
import { runOracleAgreement, runSimDeskRecoveryEval } from "../recovery-eval/run.ts";
import { intFlag, intListFlag } from "./dataset.ts";
import { optionalNumberFlag } from "./numeric-flags.ts";
import { createOpenAIEmbeddings } from "@retrace-cua/models/models/openai-embeddings";
import type { RationaleScorer } from "@retrace-cua/evaluation/eval/rationale";
import { runConfiguredRecoveryEval } from "../recovery-eval/models.ts";
import type { RecoveryEvalReport } from "../recovery-eval/report-data.ts";
import { runLabelAgreement, type LabelAgreementReport } from "../recovery-eval/label-agreement.ts";
import { writeLabelSample } from "../recovery-eval/label-sample.ts";
import {
  addModelEvalFlags,
  cacheFromFlags,
  configFromFlags,
  usageLines,
  type ModelEvalFlags,
} from "./recovery-eval-models.ts";
import { outFlag, quietFlag, seedFlag } from "./common-flags.ts";

interface EvalFlags extends ModelEvalFlags {
  dataset?: string;
  out: string;
  recoveryBudget?: string;
  /** @deprecated `--budgets`, the old name of `--recovery-budget`. */
  budgets?: string;
  seed: string;
  contexts: boolean;
  agreement?: boolean;
  labels?: string;
  limit?: string;
  rollouts: string;
  seedSteps: string;
  quiet?: boolean;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  intentThreshold?: string;
}

export function register(program: Command): void {
  registerLabelSample(program);
  const cmd = program
    .command("eval-recovery")
    .description(
      "Evaluate recovery on a dataset: reconstruct each error state by verified replay, run implicit and explicit (simulated) recovery policies for r steps, judge with R_O (SSIM >= 0.99) and R_TC (goal-oriented replay). Writes recovery-eval.json; --agreement --labels FILE measures every oracle and join (and the config's LLM judge) against human labels of runs (Cohen's kappa, TP/FP/TN/FN; `retrace label-sample` writes the sheet); --agreement alone measures the oracle against SimDesk ground truth with noise off/on (oracle-agreement.json). Default: simulated policies on SimDesk (SIMULATED); --config: the config's model forward agent (implicit) and model recoverers x contexts (explicit) on the dataset's environment.",
    )
    .option("-d, --dataset <dir>", "dataset folder from `retrace dataset build`")
    .addOption(outFlag("output folder", "runs/recovery-eval"))
    .option(
      "--recovery-budget <list>",
      "recovery budgets r to evaluate (recovery steps per attempt), e.g. 1,3,10 (default: 1,3,10)",
    )
    .addOption(new Option("--budgets <list>", "deprecated: use --recovery-budget").hideHelp())
    .addOption(seedFlag("seed of the recovery policies"))
    .option("--no-contexts", "explicit recoverer with context 0-E only (skip 0-R, none, contextualized)")
    .option(
      "--agreement",
      "also measure the oracles' agreement: with --labels, against human labels of this evaluation's runs (every oracle and join, plus the config's eval.judge); without, against SimDesk's ground truth on noise-off/noise-on sets it builds (simulated only). Writes oracle-agreement.json",
    )
    .option(
      "--labels <file>",
      'with --agreement: human labels, JSONL {"run": "<run id>", "restored": true|false} (`retrace label-sample` writes the sheet); without --dataset, the evaluation already in --out is used',
    )
    .option("--limit <n>", "tasks for the --agreement sets (first n SimDesk tasks)")
    .option("--rollouts <n>", "rollouts per task for the --agreement sets", "1")
    .option("--seed-steps <n>", "seed steps per trajectory for the --agreement sets", "2")
    .option(
      "--embeddings-url <url>",
      "rationale analysis with an embedding model at this OpenAI-compatible base URL (ending in /v1); default: TF-IDF offline",
    )
    .option("--embeddings-model <name>", "embedding model name for --embeddings-url")
    .option(
      "--intent-threshold <x>",
      "similarity at or above which a rationale counts as restorative (default 0.09 TF-IDF, calibrated on SimDesk; 0.5 embeddings, uncalibrated)",
    )
    .addOption(quietFlag("print only the summary"));
  addModelEvalFlags(cmd).action(async (flags: EvalFlags) => {
    if (flags.labels && !flags.agreement)
      throw new ConfigError("--labels: add --agreement (the labels are compared with the oracles' verdicts)", {
        field: "labels",
      });
    if (!flags.dataset && !flags.agreement)
      throw new ConfigError("eval-recovery: give --dataset <dir> (from `retrace dataset build`) and/or --agreement", {
        field: "dataset",
      });
    const recoveryBudget = intListFlag("recovery-budget", recoveryBudgetFlag(flags));
    const seed = intFlag("seed", flags.seed, Number.MIN_SAFE_INTEGER)!;
    const onProgress = flags.quiet ? undefined : (m: string) => process.stderr.write(`${m}\n`);
    const out: string[] = [];
    const rationale = rationaleScorer(flags);
    const config = configFromFlags(flags);
    if (config) {
      if (flags.agreement && !flags.labels)
        throw new ConfigError(
          "--agreement with --config: give --labels FILE (human labels of this evaluation's runs; `retrace label-sample` writes the sheet); agreement with SimDesk's ground truth runs without --config",
          { field: "agreement" },
        );
      if (!flags.dataset && !flags.labels)
        throw new ConfigError(
          "eval-recovery: --config needs --dataset <dir> (from `retrace dataset build --config ...`)",
          { field: "dataset" },
        );
      if (flags.dataset) {
        const { report, usage } = await runConfiguredRecoveryEval({
          config,
          dataset: flags.dataset,
          out: flags.out,
          rationale,
          ...cacheFromFlags(flags),
          onProgress,
        });
        out.push(...reportLines(report, flags.out), ...usageLines(usage));
      }
    } else if (flags.dataset) {
      const { report } = await runSimDeskRecoveryEval({
        dataset: flags.dataset,
        out: flags.out,
        recoveryBudget,
        seed,
        contexts: flags.contexts,
        rationale,
        onProgress,
      });
      out.push(...reportLines(report, flags.out));
    }
    if (flags.agreement && flags.labels) {
      const { report, judgeUsage } = await runLabelAgreement({
        evalDir: flags.out,
        labels: flags.labels,
        config,
        ...cacheFromFlags(flags),
        onProgress,
      });
      out.push(
        ...labelAgreementLines(report, join(flags.out, "oracle-agreement.json")),
        ...(judgeUsage ? usageLines(judgeUsage) : []),
      );
    } else if (flags.agreement) {
      const a = await runOracleAgreement({
        out: flags.out,
        seed,
        recoveryBudget,
        limit: intFlag("limit", flags.limit),
        rolloutsPerTask: intFlag("rollouts", flags.rollouts),
        seedStepsPerTrajectory: intFlag("seed-steps", flags.seedSteps),
        onProgress,
      });
      out.push("oracle agreement with SimDesk ground truth:");
      for (const r of a.agreement)
        out.push(
          `  noise ${r.noise.padEnd(3)} ${r.oracle.padEnd(26)} agreement ${r.agreementCi}  kappa ${r.kappaCi}  FPR ${r.fprCi}  FNR ${r.fnrCi}`,
        );
      out.push(`oracle-agreement.json: ${join(flags.out, "oracle-agreement.json")}`);
    }
    process.stdout.write(out.join("\n") + "\n");
  });
}

/** `--recovery-budget`, or its deprecated name `--budgets` (warned once), else the default 1,3,10. */
export function recoveryBudgetFlag(flags: Pick<EvalFlags, "recoveryBudget" | "budgets">): string {
  if (flags.budgets === undefined) return flags.recoveryBudget ?? "1,3,10";
  if (flags.recoveryBudget !== undefined)
    throw new ConfigError(
      "eval-recovery: give --recovery-budget only (--budgets is its deprecated name; both were given)",
      { field: "recovery-budget" },
    );
  warnDeprecated("retrace eval-recovery", "--budgets", "--recovery-budget");
  return flags.budgets;
}

/** The label-agreement table, one line per oracle. */
function labelAgreementLines(r: LabelAgreementReport, file: string): string[] {
  const lines = [
    `oracle agreement with human labels (${r.matched} labelled run(s), ${r.restored} restored)${r.simulated ? " [SIMULATED recoverers]" : ""}:`,
  ];
  if (r.unknownRuns.length)
    lines.push(
      `  ${r.unknownRuns.length} label(s) name no run of this evaluation, left out: ${r.unknownRuns.slice(0, 3).join(", ")}${r.unknownRuns.length > 3 ? ", ..." : ""}`,
    );
  if (r.notJudgedRuns.length)
    lines.push(
      `  ${r.notJudgedRuns.length} labelled run(s) were not judged (no verdict), left out: ${r.notJudgedRuns.slice(0, 3).join(", ")}${r.notJudgedRuns.length > 3 ? ", ..." : ""}`,
    );
  lines.push(
    `  ${"oracle".padEnd(26)} ${"n".padStart(4)}  ${"agreement [95% CI]".padEnd(30)}  ${"kappa [95% CI]".padEnd(26)}  TP FP TN FN`,
  );
  for (const a of r.agreement) {
    lines.push(
      `  ${a.oracle.padEnd(26)} ${String(a.n).padStart(4)}  ${a.agreementCi.replace(/ \(n=\d+\)$/, "").padEnd(30)}  ${a.kappaCi.padEnd(26)}  ${[a.tp, a.fp, a.tn, a.fn].join(" ")}`,
    );
  }
  const versus = r.winRates.filter((w) => w.disagreements > 0);
  if (versus.length) {
    lines.push("  where R_O AND R_TC and another oracle disagree, the labels side with R_O AND R_TC (paper Table 1):");
    for (const w of versus)
      lines.push(
        `    vs ${w.baseline.padEnd(26)} ${w.oracleWins}/${w.disagreements}  win rate ${w.winRateCi.replace(/ \(n=\d+\)$/, "")}`,
      );
  }
  if (r.judgeAbstained)
    lines.push(`  the LLM judge gave no usable answer on ${r.judgeAbstained} run(s) (left out of its row)`);
  lines.push(`oracle-agreement.json: ${file}`);
  return lines;
}

/** `retrace label-sample`: the sheet of runs people label for `--agreement --labels`. */
function registerLabelSample(program: Command): void {
  program
    .command("label-sample")
    .description(
      'Write a labelling sheet for the oracle study: a seeded random sample of judged runs of a recovery evaluation, one JSONL line each with the run id, the task, the actions up to the error and of the recovery, and the paths of the TARGET, ERROR and RECOVERED screenshots. Set each line\'s "restored" to true or false, then run `retrace eval-recovery --agreement --labels <file> --out <eval dir>`.',
    )
    .argument("<eval-dir>", "folder of a finished `retrace eval-recovery` (runs.jsonl, recovery-eval.json)")
    .addOption(outFlag("output JSONL file", "label-sample.jsonl", "file"))
    .option("-n, --n <n>", "runs to draw (the paper labels 50 per oracle variant)", "50")
    .addOption(seedFlag("seed of the draw"))
    .option("--disagreements", "only runs where R_O and R_TC disagree (the cases the paper's study drew from)")
    .action((dir: string, flags: { out: string; n: string; seed: string; disagreements?: boolean }) => {
      const lines = writeLabelSample({
        evalDir: dir,
        out: flags.out,
        n: intFlag("n", flags.n, 1),
        seed: intFlag("seed", flags.seed, Number.MIN_SAFE_INTEGER),
        disagreements: flags.disagreements,
      });
      process.stdout.write(
        `${lines.length} run(s) to label: ${flags.out} (set "restored" to true or false on every line)\n`,
      );
    });
}

/** Summary lines of a recovery-eval report. */
function reportLines(report: RecoveryEvalReport, out: string): string[] {
  const lines = [
    report.simulated
      ? report.note
      : `model agents (simulated: false), dataset ${report.datasetVersion}, ${report.samples} sample(s)`,
  ];
  if (report.implicitVsExplicit.length) {
    lines.push("implicit vs explicit (0-E) recovery success [95% Wilson CI]:");
    for (const r of report.implicitVsExplicit)
      lines.push(
        `  d=${r.d} r=${r.r}: implicit ${r.implicit}  explicit ${r.explicit}  gain ${(100 * r.gain).toFixed(1)} pts`,
      );
  }
  if (!report.simulated) {
    lines.push("recovery success per variant (R = R_TC AND R_O) [95% Wilson CI]:");
    for (const r of report.table)
      lines.push(
        `  ${r.variant} d=${r.d} r=${r.r}: ${r.successCi}  R_O ${r.ro.toFixed(3)}  R_TC ${r.rtc.toFixed(3)}${r.excluded ? `  (${r.excluded} excluded)` : ""}`,
      );
  }
  if (report.rationaleMethod) lines.push(`rationale analysis: ${report.rationaleMethod}`);
  lines.push(`recovery-eval.json: ${join(out, "recovery-eval.json")}`);
  return lines;
}

/** The rationale scorer the flags ask for: an embedding model when --embeddings-url is given, else TF-IDF. */
function rationaleScorer(flags: EvalFlags): RationaleScorer {
  const threshold = optionalNumberFlag("--intent-threshold", flags.intentThreshold, {
    min: -1,
    max: 1,
    expect: "expected a cosine similarity in [-1, 1]",
  });
  if (!flags.embeddingsUrl && flags.embeddingsModel)
    throw new ConfigError("--embeddings-model needs --embeddings-url (the OpenAI-compatible base URL ending in /v1)", {
      field: "embeddings-url",
    });
  if (!flags.embeddingsUrl) return { kind: "tfidf", threshold };
  if (!flags.embeddingsModel)
    throw new ConfigError("--embeddings-url needs --embeddings-model (the embedding model name the server expects)", {
      field: "embeddings-model",
    });
  return {
    kind: "embedding",
    embedder: createOpenAIEmbeddings({ model: flags.embeddingsModel, baseURL: flags.embeddingsUrl }),
    threshold,
  };
}

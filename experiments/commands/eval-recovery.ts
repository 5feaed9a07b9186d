/**
 * `retrace eval-recovery`: run the recovery evaluation (paper Section 5) on a dataset from
 * `retrace dataset build` and write recovery-eval.json (and, with --agreement,
 * oracle-agreement.json) for `retrace report`. Without `--config`: the simulated implicit and
 * explicit recovery policies on SimDesk. With `--config`: the config's implicit (forward agent)
 * and explicit (model recoverers x contexts) variants on the dataset's environment.
 */
import { join } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "../../src/errors.ts";
import { runOracleAgreement, runSimDeskRecoveryEval } from "../recovery-eval/run.ts";
import { intFlag, intListFlag } from "./dataset.ts";
import { createOpenAIEmbeddings } from "../../adapters/models/openai-embeddings.ts";
import type { RationaleScorer } from "../../src/eval/rationale.ts";
import { runConfiguredRecoveryEval } from "../recovery-eval/models.ts";
import type { RecoveryEvalReport } from "../recovery-eval/report-data.ts";
import { addModelEvalFlags, cacheFromFlags, configFromFlags, usageLines, type ModelEvalFlags } from "./recovery-eval-models.ts";

interface EvalFlags extends ModelEvalFlags {
  dataset?: string;
  out: string;
  budgets: string;
  seed: string;
  contexts: boolean;
  agreement?: boolean;
  limit?: string;
  rollouts: string;
  seedSteps: string;
  quiet?: boolean;
  embeddingsUrl?: string;
  embeddingsModel?: string;
  intentThreshold?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command("eval-recovery")
    .description("Evaluate recovery on a dataset: reconstruct each error state by verified replay, run implicit and explicit (simulated) recovery policies for r steps, judge with R_O (SSIM >= 0.99) and R_TC (goal-oriented replay). Writes recovery-eval.json; --agreement also measures the oracle against SimDesk ground truth with noise off/on (oracle-agreement.json). Default: simulated policies on SimDesk (SIMULATED); --config: the config's model forward agent (implicit) and model recoverers x contexts (explicit) on the dataset's environment.")
    .option("-d, --dataset <dir>", "dataset folder from `retrace dataset build`")
    .option("-o, --out <dir>", "output folder", "runs/recovery-eval")
    .option("--budgets <list>", "recovery step budgets r", "1,3,10")
    .option("-s, --seed <n>", "seed of the recovery policies", "0")
    .option("--no-contexts", "explicit recoverer with context 0-E only (skip 0-R, none, contextualized)")
    .option("--agreement", "also build noise-off/noise-on SimDesk sets and write oracle-agreement.json")
    .option("--limit <n>", "tasks for the --agreement sets (first n SimDesk tasks)")
    .option("--rollouts <n>", "rollouts per task for the --agreement sets", "1")
    .option("--seed-steps <n>", "seed steps per trajectory for the --agreement sets", "2")
    .option("--embeddings-url <url>", "rationale analysis with an embedding model at this OpenAI-compatible base URL (ending in /v1); default: TF-IDF offline")
    .option("--embeddings-model <name>", "embedding model name for --embeddings-url")
    .option("--intent-threshold <x>", "similarity at or above which a rationale counts as restorative (default 0.09 TF-IDF, calibrated on SimDesk; 0.5 embeddings, uncalibrated)")
    .option("-q, --quiet", "print only the summary");
  addModelEvalFlags(cmd).action(async (flags: EvalFlags) => {
    if (!flags.dataset && !flags.agreement) throw new ConfigError("eval-recovery: give --dataset <dir> (from `retrace dataset build`) and/or --agreement", { field: "dataset" });
    const budgets = intListFlag("budgets", flags.budgets);
    const seed = intFlag("seed", flags.seed, Number.MIN_SAFE_INTEGER)!;
    const onProgress = flags.quiet ? undefined : (m: string) => process.stderr.write(`${m}\n`);
    const out: string[] = [];
    const rationale = rationaleScorer(flags);
    const config = configFromFlags(flags);
    if (config) {
      if (!flags.dataset) throw new ConfigError("eval-recovery: --config needs --dataset <dir> (from `retrace dataset build --config ...`)", { field: "dataset" });
      if (flags.agreement) throw new ConfigError("--agreement: the oracle agreement needs SimDesk's ground truth and simulated recoverers; run it without --config", { field: "agreement" });
      const { report, usage } = await runConfiguredRecoveryEval({ config, dataset: flags.dataset, out: flags.out, rationale, ...cacheFromFlags(flags), onProgress });
      out.push(...reportLines(report, flags.out), ...usageLines(usage));
    } else if (flags.dataset) {
      const { report } = await runSimDeskRecoveryEval({ dataset: flags.dataset, out: flags.out, budgets, seed, contexts: flags.contexts, rationale, onProgress });
      out.push(...reportLines(report, flags.out));
    }
    if (flags.agreement) {
      const a = await runOracleAgreement({ out: flags.out, seed, budgets, limit: intFlag("limit", flags.limit), rolloutsPerTask: intFlag("rollouts", flags.rollouts), seedStepsPerTrajectory: intFlag("seed-steps", flags.seedSteps), onProgress });
      out.push("oracle agreement with SimDesk ground truth:");
      for (const r of a.agreement) out.push(`  noise ${r.noise.padEnd(3)} ${r.oracle.padEnd(26)} agreement ${r.agreementCi}  FPR ${r.fprCi}  FNR ${r.fnrCi}`);
      out.push(`oracle-agreement.json: ${join(flags.out, "oracle-agreement.json")}`);
    }
    process.stdout.write(out.join("\n") + "\n");
  });
}

/** Summary lines of a recovery-eval report. */
function reportLines(report: RecoveryEvalReport, out: string): string[] {
  const lines = [report.simulated ? report.note : `model agents (simulated: false), dataset ${report.datasetVersion}, ${report.samples} sample(s)`];
  if (report.implicitVsExplicit.length) {
    lines.push("implicit vs explicit (0-E) recovery success [95% Wilson CI]:");
    for (const r of report.implicitVsExplicit) lines.push(`  d=${r.d} r=${r.r}: implicit ${r.implicit}  explicit ${r.explicit}  gain ${(100 * r.gain).toFixed(1)} pts`);
  }
  if (!report.simulated) {
    lines.push("recovery success per variant (R = R_TC AND R_O) [95% Wilson CI]:");
    for (const r of report.table) lines.push(`  ${r.variant} d=${r.d} r=${r.r}: ${r.successCi}  R_O ${r.ro.toFixed(3)}  R_TC ${r.rtc.toFixed(3)}${r.excluded ? `  (${r.excluded} excluded)` : ""}`);
  }
  if (report.rationaleMethod) lines.push(`rationale analysis: ${report.rationaleMethod}`);
  lines.push(`recovery-eval.json: ${join(out, "recovery-eval.json")}`);
  return lines;
}

/** The rationale scorer the flags ask for: an embedding model when --embeddings-url is given, else TF-IDF. */
function rationaleScorer(flags: EvalFlags): RationaleScorer {
  const threshold = flags.intentThreshold === undefined ? undefined : Number(flags.intentThreshold);
  if (threshold !== undefined && !(threshold >= -1 && threshold <= 1)) throw new ConfigError(`--intent-threshold: "${flags.intentThreshold}" is not a cosine similarity in [-1, 1]`, { field: "intent-threshold" });
  if (!flags.embeddingsUrl && flags.embeddingsModel) throw new ConfigError("--embeddings-model needs --embeddings-url (the OpenAI-compatible base URL ending in /v1)", { field: "embeddings-url" });
  if (!flags.embeddingsUrl) return { kind: "tfidf", threshold };
  if (!flags.embeddingsModel) throw new ConfigError("--embeddings-url needs --embeddings-model (the embedding model name the server expects)", { field: "embeddings-model" });
  return { kind: "embedding", embedder: createOpenAIEmbeddings({ model: flags.embeddingsModel, baseURL: flags.embeddingsUrl }), threshold };
}

/**
 * Oracle agreement with human labels (paper Section 5.4, Table 1): after a recovery evaluation
 * (simulated or model-backed, any environment), compare what each oracle and join said about
 * the labelled runs (R_O, R_TC, R_O AND R_TC, and R_Om, R_Om AND R_TC where the dataset learned
 * masks) with what people said, plus the LLM-judge baseline (`eval.judge` of the config), each
 * with raw agreement, Cohen's kappa, n and TP/FP/TN/FN. Writes `oracle-agreement.json`
 * ({@link LabelAgreementReport}) and `judgements.jsonl` (per labelled run: the label, each
 * oracle's verdict, the judge's answer and reason) into the evaluation folder.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { formatAction } from "@retrace-cua/core/action";
import { loadRecoveryDataset } from "@retrace-cua/evaluation/dataset/store";
import type { RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { agreementOf, oraclesFor, type OracleAgreement } from "@retrace-cua/evaluation/eval/summary";
import { wilsonInterval } from "@retrace-cua/evaluation/metrics/wilson";
import type { RecoveryJudgeInput, RecoveryJudgement } from "@retrace-cua/models/llm/judge";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import { createEvalAgents } from "./agents.ts";
import type { RecoveryEvalConfig } from "./config.ts";
import { loadLabels, matchLabels, runIdOf } from "./labels.ts";
import { evalEndpoints } from "./eval-endpoints.ts";
import { usageFile, type ModelUsageFile } from "./model-usage.ts";
import { LayeredBlobStore } from "./simdesk.ts";
import { preflightEndpoints } from "../agents/index.ts";
import { ci, kappaCi, SIMULATED_RECOVERY_NOTE, type AgreementCounts, type RecoveryEvalReport } from "./report-data.ts";
import { DrawScope } from "@retrace-cua/models/models/draws";

/** Name of the LLM-judge row. */
export const JUDGE_ORACLE = "LLM judge";

/** One row of the label-agreement table. */
export type LabelAgreementJsonRow = AgreementCounts;

/**
 * The paper's Table 1 comparison: on the labelled runs where retrace's oracle (R_O AND R_TC) and a
 * baseline disagree, how often the people sided with retrace's oracle.
 */
export interface WinRateJsonRow {
  baseline: string;
  /** Labelled runs where the two disagree (where the baseline answered). */
  disagreements: number;
  /** ... of which the label agrees with R_O AND R_TC. */
  oracleWins: number;
  /** oracleWins / disagreements with a Wilson interval ("n/a" without disagreements). */
  winRate: number | null;
  winRateCi: string;
}

/** `oracle-agreement.json` of a labelled evaluation. */
export interface LabelAgreementReport {
  kind: "oracle-agreement";
  simulated: boolean;
  note: string;
  truth: string;
  labels: string;
  /** Label lines read, labels that matched a judged run, of those labelled restored. */
  labelled: number;
  matched: number;
  restored: number;
  /** Label ids naming no run of the evaluation. */
  unknownRuns: string[];
  /** Labelled runs the evaluation did not judge (no verdict to compare). */
  notJudgedRuns: string[];
  /** The judge's model and prompt, and how often it gave no usable answer (those runs are left out of its row). */
  judge: string;
  judgeAbstained: number;
  /** The judge's model calls (absent without a judge). */
  judgeUsage?: ModelUsageFile;
  agreement: LabelAgreementJsonRow[];
  /** Win rate of R_O AND R_TC against each other oracle and the judge where they disagree (paper Table 1). */
  winRates: WinRateJsonRow[];
}

/** Options of {@link runLabelAgreement}. */
export interface LabelAgreementOptions {
  /** Folder of a finished recovery evaluation: runs.jsonl, recovery-eval.json (naming its dataset), blobs/. */
  evalDir: string;
  /** The labels file (JSONL `{ "run": "<run id>", "restored": true|false }`). */
  labels: string;
  /** The config; its `eval.judge` (when given) is the LLM-judge baseline. */
  config?: RecoveryEvalConfig;
  /** Record/replay cache of the judge's calls. @default "off" */
  cache?: CacheMode;
  /** @default <evalDir>/model-cache */
  cacheDir?: string;
  processEnv?: NodeJS.ProcessEnv;
  /** Ask the judge's endpoint once (GET /models) before the first call. @default true, except with cache "read" */
  preflight?: boolean;
  onProgress?: (message: string) => void;
}

/** The runs and dataset of a finished evaluation folder. */
function loadEvaluation(evalDir: string): { runs: RecoveryRun[]; report: RecoveryEvalReport } {
  const runsFile = join(evalDir, "runs.jsonl");
  const reportFile = join(evalDir, "recovery-eval.json");
  if (!existsSync(runsFile) || !existsSync(reportFile))
    throw new ConfigError(
      `--agreement --labels: ${evalDir} holds no recovery evaluation (runs.jsonl and recovery-eval.json); run \`retrace eval-recovery --dataset DIR --out ${evalDir}\` first, or pass --dataset`,
      { field: "out" },
    );
  const runs = readFileSync(runsFile, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RecoveryRun);
  return { runs, report: JSON.parse(readFileSync(reportFile, "utf8")) as RecoveryEvalReport };
}

/** What the judge sees about a run: the history to the error (erroneous steps marked) and the recovery steps. */
export function judgeInput(
  run: RecoveryRun,
  sample: RecoverySample,
  instruction: string,
): Omit<RecoveryJudgeInput, "signal"> {
  const history = [
    ...sample.trajectory.steps
      .slice(0, sample.targetStep)
      .map((s, i) => `${i}. ${s.actions.map(formatAction).join("; ") || "(no action)"}`),
    ...sample.perturbation.map(
      (s, i) =>
        `${sample.targetStep + i}. ${s.actions.map(formatAction).join("; ") || "(no action)"}  <- after the TARGET state (erroneous)`,
    ),
  ];
  const recovery = run.actions.map(
    (a, i) =>
      `${i + 1}. ${a || "(no action)"}${run.rationales[i] ? `  (rationale: ${run.rationales[i]!.replace(/\s+/g, " ").slice(0, 300)})` : ""}`,
  );
  const target = sample.target.observation;
  return {
    instruction,
    history,
    recovery,
    target,
    error: sample.error.observation,
    recovered: { screenshot: run.recovered!, width: target.width, height: target.height },
  };
}

/**
 * Win rates of R_O AND R_TC against each baseline on the labelled runs where they disagree (a null verdict = no answer,
 * left out).
 */
export function oracleWinRates(
  labelled: readonly RecoveryRun[],
  baselines: ReadonlyArray<readonly [string, (r: RecoveryRun) => boolean | null]>,
): WinRateJsonRow[] {
  return baselines.map(([baseline, says]) => {
    const split = labelled.filter((r) => {
      const b = says(r);
      return b !== null && b !== r.verdict!.success;
    });
    const wins = split.filter((r) => r.verdict!.success === r.truth).length;
    const p = wilsonInterval(wins, split.length);
    return {
      baseline,
      disagreements: split.length,
      oracleWins: wins,
      winRate: split.length ? p.rate : null,
      winRateCi: split.length ? ci(p) : "n/a (no disagreements)",
    };
  });
}

function row(a: OracleAgreement): LabelAgreementJsonRow {
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    oracle: a.oracle,
    n: a.n,
    agreement: a.agreement.rate,
    agreementCi: ci(a.agreement),
    kappa: a.kappa === null ? null : r3(a.kappa),
    kappaCi: kappaCi(a),
    tp: a.truePositive,
    fp: a.falsePositive,
    tn: a.trueNegative,
    fn: a.falseNegative,
    falsePositiveRate: a.falsePositiveRate.rate,
    falseNegativeRate: a.falseNegativeRate.rate,
  };
}

/** Compare every oracle (and the judge) with the labels; writes oracle-agreement.json and judgements.jsonl. */
export async function runLabelAgreement(
  options: LabelAgreementOptions,
): Promise<{ report: LabelAgreementReport; judgeUsage?: ModelUsageFile }> {
  const evalDir = resolve(options.evalDir);
  const labels = loadLabels(options.labels);
  const { runs, report: evalReport } = loadEvaluation(evalDir);
  const matched = matchLabels(runs, labels);
  if (matched.labelled.length === 0) {
    const example = runs.find((r) => r.status === "judged");
    throw new ConfigError(
      `${options.labels}: none of the ${labels.length} label(s) names a judged run of ${evalDir} (${matched.unknown.length} unknown, ${matched.notJudged.length} not judged, e.g. "${labels[0].run}")${example ? `; run ids look like "${runIdOf(example)}" (\`retrace label-sample ${options.evalDir}\` writes them)` : ""}`,
      { field: "labels" },
    );
  }
  const oracles = oraclesFor(matched.labelled);
  const rows = oracles.map(([name, says]) => agreementOf(name, matched.labelled, says));

  const judgements = new Map<string, RecoveryJudgement>();
  let judgeUsage: ModelUsageFile | undefined;
  const spec = options.config?.eval.judge;
  if (spec) {
    if (options.preflight !== false && options.cache !== "read")
      await preflightEndpoints(evalEndpoints([["eval.judge", spec]], options.processEnv), {});
    const ds = loadRecoveryDataset(evalReport.dataset);
    const samples = new Map(ds.samples.map((s) => [s.id, s]));
    const blobs = new LayeredBlobStore(join(evalDir, "blobs"), new BlobStore({ dir: join(ds.dir, "blobs") }));
    const agents = createEvalAgents({
      blobs,
      cache: options.cache,
      cacheDir: options.cacheDir ?? join(evalDir, "model-cache"),
      env: options.processEnv,
    });
    for (const run of matched.labelled) {
      // Each judged run is its own draw: (the config's seed, sample, the run's id) is its identity.
      const judge = agents.judge(
        spec,
        new DrawScope({ seed: options.config?.seed ?? 0, task: run.sampleId, condition: `judge/${runIdOf(run)}` }),
      );
      const sample = samples.get(run.sampleId);
      if (!sample)
        throw new ConfigError(
          `${evalDir}/runs.jsonl: run ${runIdOf(run)} names sample ${run.sampleId}, which dataset ${ds.dir} does not hold`,
          { field: "dataset" },
        );
      judgements.set(
        runIdOf(run),
        await judge.judge(judgeInput(run, sample, ds.tasks.get(run.taskId)?.instruction ?? "")),
      );
      options.onProgress?.(`judged ${runIdOf(run)}`);
    }
    judgeUsage = usageFile(agents.usage(), false);
    const answered = matched.labelled.filter((r) => judgements.get(runIdOf(r))!.restored !== null);
    rows.push(agreementOf(JUDGE_ORACLE, answered, (r) => judgements.get(runIdOf(r))!.restored === true));
  }
  const winRates = oracleWinRates(matched.labelled, [
    ...oracles.filter(([name]) => name !== "R_O AND R_TC"),
    ...(spec
      ? [
          [JUDGE_ORACLE, (r: RecoveryRun) => judgements.get(runIdOf(r))?.restored ?? null] as [
            string,
            (r: RecoveryRun) => boolean | null,
          ],
        ]
      : []),
  ]);
  const abstained = [...judgements.values()].filter((j) => j.restored === null).length;
  const simulated = matched.labelled.some((r) => r.simulated) || evalReport.simulated;
  const report: LabelAgreementReport = {
    kind: "oracle-agreement",
    simulated,
    note: simulated ? SIMULATED_RECOVERY_NOTE : "",
    truth: "human labels: restored = the recovered state is the target state, as a person judged it",
    labels: resolve(options.labels),
    labelled: labels.length,
    matched: matched.labelled.length,
    restored: matched.labelled.filter((r) => r.truth).length,
    unknownRuns: matched.unknown,
    notJudgedRuns: matched.notJudged,
    judge: spec
      ? `${spec.model} (${[...judgements.values()][0]?.prompt ?? "recovery-judge"})`
      : "none (give eval.judge in the config)",
    judgeAbstained: abstained,
    ...(judgeUsage && { judgeUsage }),
    agreement: rows.map(row),
    winRates,
  };
  writeTextAtomic(join(evalDir, "oracle-agreement.json"), JSON.stringify(report, null, 2) + "\n");
  const lines = matched.labelled.map((r) => {
    const id = runIdOf(r);
    const j = judgements.get(id);
    return JSON.stringify({
      run: id,
      restored: r.truth,
      oracles: Object.fromEntries(oracles.map(([name, says]) => [name, says(r)])),
      ...(j && { judge: { restored: j.restored, reason: j.reason, ...(j.failure && { failure: j.failure }) } }),
    });
  });
  writeTextAtomic(join(evalDir, "judgements.jsonl"), lines.join("\n") + "\n");
  return { report, judgeUsage };
}

/**
 * The JSON files the HTML report (`retrace report <dir>`) includes from a recovery evaluation:
 * `recovery-eval.json` ({@link RecoveryEvalReport}) and `oracle-agreement.json`
 * ({@link OracleAgreementReport}). Both are flat: top-level scalars, then arrays of flat rows
 * (numbers as fractions in [0, 1]; "...Ci" fields hold a "rate [lo, hi]" string for display).
 */
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import type { RecoveryDatasetManifest } from "@retrace-cua/evaluation/dataset/types";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import {
  oracleAgreement,
  recoveryTable,
  type OracleAgreement,
  type SampleSelection,
} from "@retrace-cua/evaluation/eval/summary";
import { settleFor, type SettleChoice } from "../runner/settle.ts";

/** Banner text for simulated results. */
export const SIMULATED_RECOVERY_NOTE =
  "SIMULATED: these numbers come from simulated components on SimDesk (seeded simulated policies, or a model server that declared itself a stand-in), not from models.";
/** The note of a model evaluation on a dataset that simulated policies built. */
export const SIMULATED_DATASET_NOTE =
  "model agents evaluated on a SIMULATED dataset: its trajectories and errors come from seeded simulated policies on SimDesk; the recoveries are the config's models.";

/** One row of the recovery table (paper Figs 4/5/7): a variant at budget r and distance d. */
export interface RecoveryTableJsonRow {
  policy: "implicit" | "explicit";
  variant: string;
  context: string;
  r: number;
  d: number;
  n: number;
  success: number;
  successCi: string;
  successLo: number;
  successHi: number;
  /** R_O and R_TC pass rates (the verdict is their conjunction). */
  ro: number;
  rtc: number;
  /** Keyword baseline: share of episodes with a restorative rationale, among those with a judged rationale. */
  restorativeIntent: number;
  intentCi: string;
  intentN: number;
  /** Mean best similarity of the rationales to the ground-truth recovery instruction (see `rationaleMethod`). */
  rationaleSimilarity: number | null;
  /** Share of episodes whose best similarity reaches the threshold (the paper's restorative intent). */
  similarityIntent: number;
  similarityIntentCi: string;
  meanSteps: number;
  /**
   * Runs not counted: not judged (reconstruction failed, environment error) or, with samples "common", of a sample
   * another variant could not judge.
   */
  excluded: number;
}

/** Implicit vs the explicit recoverer with context 0-E (the skilled simulated one, else the first), per (d, r). */
export interface ImplicitVsExplicitRow {
  d: number;
  r: number;
  n: number;
  implicit: string;
  explicit: string;
  /** explicit - implicit success rate. */
  gain: number;
}

/** `recovery-eval.json`. */
export interface RecoveryEvalReport {
  kind: "recovery-eval";
  /**
   * Screenshots of the 0-E history the implicit policy saw (config `eval.implicitHistoryImages`; null for simulated
   * agents, absent without implicit recovery or in older files).
   */
  implicitHistoryImages?: number | null;
  simulated: boolean;
  note: string;
  label: string;
  dataset: string;
  datasetVersion: string;
  samples: number;
  /**
   * Which runs the table counts: "common" (samples judged in every variant, the paper's) or "per-row"; with a note.
   * Absent in reports written before it existed (those were per-row).
   */
  sampleSelection?: SampleSelection;
  sampleSelectionNote?: string;
  /** The recovery budgets r evaluated, e.g. "1,3,10" (named `budgets` in files written before the rename). */
  recoveryBudget: string;
  threshold: number;
  /** How rationales were compared with the ground-truth recovery instruction, and the intent threshold. */
  rationaleMethod: string;
  table: RecoveryTableJsonRow[];
  implicitVsExplicit: ImplicitVsExplicitRow[];
  /** Trajectory-level filter counts and retention of transition-consistent filtering. */
  trajectoryStages: Array<{ stage: string; count: number }>;
  /** Sample-level filter counts per distance (the paper's Table 6). */
  datasetStages: RecoveryDatasetManifest["stages"];
  /**
   * The settle wait after each executed step of the evaluation (ms; the dataset's own is in its dataset.json settings).
   */
  settleMs?: number;
  /** Where `settleMs` comes from: "config" or "environment default". */
  settleSource?: SettleChoice["source"];
}

/** What each sample selection means, for the report. */
export const SAMPLE_SELECTION_NOTES: Record<SampleSelection, string> = {
  common:
    "Every row counts only the samples judged in every variant and budget at its distance (the paper's selection, App. A.2, Recovery Verification); `excluded` counts the rest.",
  "per-row":
    "Each row counts its own judged runs (samples: per-row); rows of one distance may count different samples.",
};

/** "rate [lo, hi] (n=..)" for a proportion with its Wilson interval. */
export function ci(p: Proportion): string {
  return `${p.rate.toFixed(3)} [${p.lo.toFixed(3)}, ${p.hi.toFixed(3)}] (n=${p.n})`;
}

/** "kappa [lo, hi]" of an agreement row, or "undefined" when kappa is. */
export function kappaCi(a: Pick<OracleAgreement, "kappa" | "kappaCi">): string {
  return a.kappa === null || !a.kappaCi
    ? "undefined"
    : `${a.kappa.toFixed(3)} [${a.kappaCi.lo.toFixed(3)}, ${a.kappaCi.hi.toFixed(3)}]`;
}

/** Build `recovery-eval.json` from the runs. */
export function recoveryEvalReport(input: {
  runs: readonly RecoveryRun[];
  manifest: RecoveryDatasetManifest;
  dataset: string;
  label: string;
  recoveryBudget: readonly number[];
  threshold?: number;
  samples?: SampleSelection;
  settle?: SettleChoice;
  simulated?: boolean;
}): RecoveryEvalReport {
  const sampleSelection = input.samples ?? "common";
  const rows = recoveryTable(input.runs, { samples: sampleSelection });
  const table: RecoveryTableJsonRow[] = rows.map((r) => ({
    policy: r.policyKind,
    variant: r.variant,
    context: r.context,
    r: r.budget,
    d: r.distance,
    n: r.n,
    success: r.success.rate,
    successCi: ci(r.success),
    successLo: r.success.lo,
    successHi: r.success.hi,
    ro: r.ro.rate,
    rtc: r.rtc.rate,
    restorativeIntent: r.intent.rate,
    intentCi: ci(r.intent),
    intentN: r.intent.n,
    rationaleSimilarity: r.similarity === null ? null : Math.round(r.similarity * 1000) / 1000,
    similarityIntent: r.similarityIntent.rate,
    similarityIntentCi: ci(r.similarityIntent),
    meanSteps: r.meanSteps,
    excluded: r.excluded,
  }));
  const implicitVsExplicit: ImplicitVsExplicitRow[] = [];
  for (const imp of rows.filter((r) => r.policyKind === "implicit")) {
    // the skilled simulated recoverer, else (model runs) the first explicit recoverer with 0-E
    const same = rows.filter(
      (r) =>
        r.policyKind === "explicit" && r.context === "0-E" && r.budget === imp.budget && r.distance === imp.distance,
    );
    const exp = same.find((r) => r.variant.includes("skilled")) ?? same[0];
    if (!exp) continue;
    implicitVsExplicit.push({
      d: imp.distance,
      r: imp.budget,
      n: imp.n,
      implicit: ci(imp.success),
      explicit: ci(exp.success),
      gain: exp.success.rate - imp.success.rate,
    });
  }
  const t = input.manifest.trajectories;
  // A stand-in model server (input.simulated) or simulated runs: the numbers are simulated. Model
  // agents on a dataset that simulated policies built: say which part is simulated.
  const simulatedRuns = input.simulated === true || input.runs.some((r) => r.simulated);
  const simulated = simulatedRuns || input.manifest.simulated;
  const note = simulatedRuns ? SIMULATED_RECOVERY_NOTE : simulated ? SIMULATED_DATASET_NOTE : "";
  return {
    kind: "recovery-eval",
    simulated,
    note,
    label: input.label,
    dataset: input.dataset,
    datasetVersion: input.manifest.version,
    samples: input.manifest.samples,
    sampleSelection,
    sampleSelectionNote: SAMPLE_SELECTION_NOTES[sampleSelection],
    recoveryBudget: input.recoveryBudget.join(","),
    threshold: input.threshold ?? 0.99,
    rationaleMethod: rationaleMethod(input.runs),
    table,
    implicitVsExplicit,
    trajectoryStages: [
      { stage: "rollouts", count: t.rollouts },
      { stage: "successful", count: t.successful },
      { stage: "well-formed", count: t.wellFormed },
      { stage: "transition-consistent (N replays)", count: t.transitionConsistent },
      { stage: "retention (consistent / well-formed, %)", count: Math.round(input.manifest.retention * 1000) / 10 },
      { stage: "environment errors", count: t.envErrors },
    ],
    datasetStages: input.manifest.stages,
    ...settleFields(input.settle ?? settleFor(String(input.manifest.config.env ?? "simdesk"), undefined)),
  };
}

function settleFields(s: SettleChoice): Pick<RecoveryEvalReport, "settleMs" | "settleSource"> {
  return { settleMs: s.settleMs, settleSource: s.source };
}

function rationaleMethod(runs: readonly RecoveryRun[]): string {
  const r = runs.find((x) => x.rationale)?.rationale;
  return r
    ? `${r.method}, restorative when the best similarity >= ${r.threshold}; keyword classifier as the baseline (restorativeIntent)`
    : "keyword classifier only";
}

/**
 * What every oracle-agreement row holds: agreement with its interval, Cohen's kappa, the confusion counts and rates.
 */
export interface AgreementCounts {
  oracle: string;
  n: number;
  agreement: number;
  agreementCi: string;
  kappa: number | null;
  /** "kappa [lo, hi]" (Cohen's large-sample 95% interval), or "undefined" when kappa is. */
  kappaCi: string;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  falsePositiveRate: number;
  falseNegativeRate: number;
}

/** One row of the agreement table. */
export interface AgreementJsonRow extends AgreementCounts {
  noise: "off" | "on";
  fprCi: string;
  fnrCi: string;
}

/** `oracle-agreement.json`. */
export interface OracleAgreementReport {
  kind: "oracle-agreement";
  simulated: boolean;
  note: string;
  label: string;
  truth: string;
  agreement: AgreementJsonRow[];
  /** How many judged runs were truly recovered, per noise setting. */
  outcomes: Array<{
    noise: "off" | "on";
    runs: number;
    trulyRecovered: number;
    roPass: number;
    rtcPass: number;
    romPass: number | null;
  }>;
  /** How R_Om's masks were learned (empty when the runs carry no masked verdicts). */
  masks: string;
}

/** How R_Om's masks are learned, for the report. */
export const MASK_NOTE =
  "R_Om = SSIM >= 0.99 over the SSIM windows that touch no dynamic pixel, and no 4 x 4 tile of those windows averaging below 0.2 (the local floor; R_Om (mean only) drops it); dynamic pixels = pixels that differ across captures of the same state (the N transition-consistency replays and 5 WAIT re-captures of each target), dilated by 8 px and united per task. Beyond the paper; R_O and R_O AND R_TC are the paper's.";

/** Build `oracle-agreement.json` from runs with truth, per noise setting. */
export function agreementReport(
  settings: ReadonlyArray<{ noise: boolean; runs: readonly RecoveryRun[]; label: string }>,
): OracleAgreementReport {
  const agreement: AgreementJsonRow[] = [];
  const outcomes: OracleAgreementReport["outcomes"] = [];
  for (const s of settings) {
    const noise = s.noise ? "on" : "off";
    for (const a of oracleAgreement(s.runs)) {
      agreement.push({
        noise,
        oracle: a.oracle,
        n: a.n,
        agreement: a.agreement.rate,
        agreementCi: ci(a.agreement),
        falsePositiveRate: a.falsePositiveRate.rate,
        fprCi: ci(a.falsePositiveRate),
        falseNegativeRate: a.falseNegativeRate.rate,
        fnrCi: ci(a.falseNegativeRate),
        kappa: a.kappa === null ? null : Math.round(a.kappa * 1000) / 1000,
        kappaCi: kappaCi(a),
        tp: a.truePositive,
        fp: a.falsePositive,
        tn: a.trueNegative,
        fn: a.falseNegative,
      });
    }
    const judged = s.runs.filter((r) => r.status === "judged" && r.verdict && r.truth !== undefined);
    const masked = judged.length > 0 && judged.every((r) => r.verdict!.rom);
    outcomes.push({
      noise,
      runs: judged.length,
      trulyRecovered: judged.filter((r) => r.truth).length,
      roPass: judged.filter((r) => r.verdict!.ro.pass).length,
      rtcPass: judged.filter((r) => r.verdict!.rtc.pass).length,
      romPass: masked ? judged.filter((r) => r.verdict!.rom!.pass).length : null,
    });
  }
  return {
    kind: "oracle-agreement",
    simulated: true,
    note: SIMULATED_RECOVERY_NOTE,
    label: settings[0]?.label ?? "",
    truth:
      "truly recovered = SimDesk's semantic state (files, Trash, settings, clipboard, windows, dialogs, menus; not pointer, noise or undo history) equals the target's",
    agreement,
    outcomes,
    masks: settings.some((s) => s.runs.some((r) => r.verdict?.rom)) ? MASK_NOTE : "",
  };
}

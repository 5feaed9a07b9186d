/**
 * The local-floor report of `mask-candidates.ts --floor`: re-judge every run of a finished
 * `retrace eval-recovery --agreement --out DIR` from its recorded screenshots with the stored task
 * mask, choose R_Om's local floor on the tuning half of the tasks (./local-floor.ts) and print
 * markdown tables: the held-out and all-runs rows per noise setting, and a sweep of tau.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import type { RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import { maskedObservationOracle } from "@retrace-cua/evaluation/oracle/recovery-oracle";
import { ci } from "./report-data.ts";
import {
  chooseFloor,
  crossValidate,
  FLOOR_GRID,
  floorRow,
  jointWithFloor,
  paperJoint,
  splitTasks,
  type FloorRecord,
  type FloorRow,
} from "./local-floor.ts";
import { DataError } from "@retrace-cua/core/errors";

/** Local regions tried: one SSIM window (33 px at 1280x800), tiles of 4 and 11 window positions. */
export const FLOOR_BLOCKS: readonly number[] = [1, 4, 11];

/** The samples and the judged runs (with a verdict and ground truth) of one agreement setting folder. */
export function judgedRuns(setting: string): { samples: Map<string, RecoverySample>; runs: RecoveryRun[] } {
  const samples = new Map<string, RecoverySample>(
    readFileSync(join(setting, "dataset", "samples.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RecoverySample)
      .map((s) => [s.id, s]),
  );
  const runs = readFileSync(join(setting, "runs.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as RecoveryRun)
    .filter((r) => r.status === "judged" && r.verdict && r.truth !== undefined);
  return { samples, runs };
}

/** Re-judge the runs under `dir` (noise-off and noise-on) into floor records. */
export async function floorRecords(dir: string, readerFor: (setting: string) => BlobReader): Promise<FloorRecord[]> {
  const records: FloorRecord[] = [];
  for (const noise of ["off", "on"]) {
    const setting = join(dir, `noise-${noise}`);
    if (!existsSync(join(setting, "runs.jsonl"))) continue;
    const blobs = readerFor(setting);
    const { samples, runs } = judgedRuns(setting);
    for (const r of runs) {
      const s = samples.get(r.sampleId);
      if (!s || !r.recovered)
        throw new DataError(
          `run ${r.sampleId} ${r.variant} r=${r.budget}: no sample or no recovered screenshot (re-run the agreement with this code)`,
        );
      const local: Record<number, number> = {};
      let meanPass = false;
      for (const block of FLOOR_BLOCKS) {
        // A floor of -1 never rejects (SSIM >= -1) but makes the oracle report the local minimum.
        const v = await maskedObservationOracle(
          { screenshot: r.recovered } as never,
          s.target.observation,
          blobs,
          s.masks?.task ?? null,
          r.verdict!.ro.threshold,
          undefined,
          undefined,
          { floor: -1, block },
        );
        local[block] = v.localSsim!;
        meanPass = v.meanPass;
      }
      records.push({
        run: `${noise} ${r.sampleId} ${r.variant} r=${r.budget}`,
        taskId: r.taskId,
        noise,
        truth: r.truth!,
        rtc: r.verdict!.rtc.pass,
        ro: r.verdict!.ro.pass,
        meanPass,
        local,
      });
    }
  }
  return records;
}

const fmt = (x: FloorRow) =>
  `${ci(x.agreement)} | ${x.fp}/${x.fp + x.tn} = ${ci(x.fpr)} | ${x.fn}/${x.fn + x.tp} = ${ci(x.fnr)}`;
const tauText = (t: number) => (t === -Infinity ? "none" : String(t));

/** The markdown report and its JSON. */
export async function floorReport(
  dir: string,
  readerFor: (setting: string) => BlobReader,
): Promise<{ text: string; json: unknown }> {
  const records = await floorRecords(dir, readerFor);
  const { tune, heldOut } = splitTasks(records.map((r) => r.taskId));
  const tuneRecs = records.filter((r) => tune.has(r.taskId));
  let text = `${records.length} judged runs; tuning tasks (even positions): ${[...tune].join(", ")}\nheld-out tasks: ${[...heldOut].join(", ")}\n\n`;
  const json: { blocks: unknown[]; records: FloorRecord[]; cv: unknown[]; chosenBlock?: number } = {
    blocks: [],
    records,
    cv: [],
  };
  text +=
    "two-fold cross-validation of the local region (tau chosen on one half, judged on the other; R_Om AND R_TC, both noise settings):\n\n| region | tau (even -> odd) | tau (odd -> even) | held-out agreements | FP | FN |\n|---|---|---|---|---|---|\n";
  let bestCv = { block: FLOOR_BLOCKS[0], agree: -1 };
  for (const block of FLOOR_BLOCKS) {
    const cv = crossValidate(records, block);
    const fp = cv.folds.reduce((s, f) => s + f.heldOut.fp, 0);
    const fn = cv.folds.reduce((s, f) => s + f.heldOut.fn, 0);
    text += `| ${block} x ${block} | ${tauText(cv.folds[0].tau)} | ${tauText(cv.folds[1].tau)} | ${cv.agree}/${cv.n} = ${(cv.agree / cv.n).toFixed(4)} | ${fp} | ${fn} |\n`;
    json.cv.push({ block, taus: cv.folds.map((f) => tauText(f.tau)), agree: cv.agree, n: cv.n, fp, fn });
    if (cv.agree > bestCv.agree) bestCv = { block, agree: cv.agree };
  }
  json.chosenBlock = bestCv.block;
  text += `\nregion chosen by cross-validation: ${bestCv.block} x ${bestCv.block} window positions\n\n`;
  for (const block of FLOOR_BLOCKS) {
    const chosen = chooseFloor(tuneRecs, block);
    text += `### local region: ${block === 1 ? "one SSIM window" : `tiles of ${block} x ${block} window positions`}; tau chosen on the tuning half = ${tauText(chosen.tau)} (tuning agreement ${chosen.agreement.toFixed(4)})\n\n`;
    text +=
      "| noise | runs | oracle | agreement | FP / truly not recovered = FPR | FN / truly recovered = FNR |\n|---|---|---|---|---|---|\n";
    const rows: unknown[] = [];
    for (const noise of ["off", "on"]) {
      for (const [part, recs] of [
        ["tuning", tuneRecs],
        ["held-out", records.filter((r) => heldOut.has(r.taskId))],
        ["all", records],
      ] as const) {
        const sub = recs.filter((r) => r.noise === noise);
        if (sub.length === 0) continue;
        for (const [name, says] of [
          ["R_O AND R_TC (paper)", paperJoint],
          ["R_Om (mean only) AND R_TC", jointWithFloor(-Infinity, block)],
          [`R_Om (floor ${tauText(chosen.tau)}) AND R_TC`, jointWithFloor(chosen.tau, block)],
        ] as const) {
          const row = floorRow(sub, says);
          text += `| ${noise} | ${part} | ${name} | ${fmt(row)} |\n`;
          rows.push({ noise, part, oracle: name, ...row });
        }
      }
    }
    text += `\nsweep of tau (all runs, R_Om AND R_TC):\n\n| tau | noise off: agreement, FP, FN | noise on: agreement, FP, FN |\n|---|---|---|\n`;
    const sweep: unknown[] = [];
    for (const tau of FLOOR_GRID) {
      const cells = ["off", "on"].map((noise) =>
        floorRow(
          records.filter((r) => r.noise === noise),
          jointWithFloor(tau, block),
        ),
      );
      text += `| ${tauText(tau)} | ${cells.map((c) => `${c.agreement.rate.toFixed(4)}, ${c.fp}, ${c.fn}`).join(" | ")} |\n`;
      sweep.push({ tau: tauText(tau), off: cells[0], on: cells[1] });
    }
    text += "\n";
    json.blocks.push({ block, tau: tauText(chosen.tau), tuningAgreement: chosen.agreement, rows, sweep });
  }
  return { text, json };
}

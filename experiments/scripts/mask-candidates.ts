/**
 * Which R_Om variant agrees best with ground truth? Re-judges the runs of a finished
 * `retrace eval-recovery --agreement --out DIR` (each run records its recovered screenshot) under
 * several mask choices, with R_TC and the truth taken from the runs as they were measured, and
 * prints one agreement row per (noise, variant) beside the paper's R_O AND R_TC:
 *
 * - scope: the per-task union of dynamic masks (`task`) or the target state's own (`state`);
 * - dilation: the stored masks are dilated by 8 px; `state` masks are re-learned from the target's
 *   stored captures at 4, 2 and 0 px;
 * - capture check: masked windows must also match one of the target's observed captures.
 *
 * With `--floor`, instead: R_Om's local floor (experiments/recovery-eval/local-floor.ts). Every run
 * is re-judged with the stored task mask, recording the masked mean and the lowest local masked
 * SSIM (single windows and tiles of 4 and 11 window positions); tau is chosen on the even-position
 * tasks and reported on the odd ones and on all runs, beside the paper's R_O AND R_TC and the
 * mean-only R_Om AND R_TC, with a sweep table of tau.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/mask-candidates.ts DIR [--json out.json] [--floor]
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BlobStore, type BlobReader, type BlobRef } from "@retrace-cua/core/blob-store";
import { sha256Hex } from "@retrace-cua/core/hash";
import { learnDynamicMask, saveMask } from "@retrace-cua/evaluation/oracle/dynamic-mask";
import { maskedObservationOracle } from "@retrace-cua/evaluation/oracle/recovery-oracle";
import { oracleAgreement } from "@retrace-cua/evaluation/eval/summary";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import type { RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import { ci as wilsonText } from "../recovery-eval/report-data.ts";
import { floorReport, judgedRuns } from "../recovery-eval/local-floor-report.ts";
import { DataError } from "@retrace-cua/core/errors";

interface Candidate {
  id: string;
  mask: (s: RecoverySample) => Promise<BlobRef | null | undefined>;
  captures: boolean;
}

const dir = process.argv[2];
if (!dir || !existsSync(join(dir, "oracle-agreement.json"))) {
  process.stderr.write("usage: mask-candidates.ts DIR (a finished `retrace eval-recovery --agreement --out DIR`)\n");
  process.exit(2);
}
const jsonOut = process.argv.indexOf("--json") > 0 ? process.argv[process.argv.indexOf("--json") + 1] : undefined;

/** Blob reader over the eval's and the dataset's stores plus masks re-learned in memory. */
function readerFor(setting: string): BlobReader & { put(bytes: Uint8Array): Promise<BlobRef> } {
  const stores = [
    new BlobStore({ dir: join(setting, "blobs") }),
    new BlobStore({ dir: join(setting, "dataset", "blobs") }),
  ];
  const memory = new Map<string, Uint8Array>();
  return {
    async get(ref: BlobRef): Promise<Uint8Array> {
      const m = memory.get(ref);
      if (m) return m;
      for (const s of stores) if (await s.has(ref)) return s.get(ref);
      throw new DataError(`blob ${ref} not found under ${setting}`);
    },
    async put(bytes: Uint8Array): Promise<BlobRef> {
      const ref = sha256Hex(bytes);
      memory.set(ref, bytes);
      return ref;
    },
  } as BlobReader & { put(bytes: Uint8Array): Promise<BlobRef> };
}

if (process.argv.includes("--floor")) {
  const out = await floorReport(dir, readerFor);
  process.stdout.write(out.text);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(out.json, null, 2) + "\n");
  process.exit(0);
}

const rows: unknown[] = [];
for (const noise of ["off", "on"] as const) {
  const setting = join(dir, `noise-${noise}`);
  if (!existsSync(join(setting, "runs.jsonl"))) continue;
  const blobs = readerFor(setting);
  const { samples, runs } = judgedRuns(setting);
  const relearned = new Map<string, Promise<BlobRef | null>>();
  const stateAt = (dilate: number) => (s: RecoverySample) => {
    const key = `${s.id}@${dilate}`;
    let p = relearned.get(key);
    if (!p) {
      p = (async () => {
        const caps = s.masks?.captures ?? [];
        const mask =
          caps.length < 2 ? null : await learnDynamicMask(await Promise.all(caps.map((c) => blobs.get(c))), dilate);
        return mask ? saveMask(mask, blobs) : null;
      })();
      relearned.set(key, p);
    }
    return p;
  };
  const candidates: Candidate[] = [
    { id: "task, 8 px (stored)", mask: async (s) => s.masks?.task, captures: false },
    { id: "state, 8 px (stored)", mask: async (s) => s.masks?.state, captures: false },
    { id: "state, 4 px", mask: stateAt(4), captures: false },
    { id: "state, 2 px", mask: stateAt(2), captures: false },
    { id: "state, 0 px", mask: stateAt(0), captures: false },
    { id: "task, 8 px + capture check", mask: async (s) => s.masks?.task, captures: true },
    { id: "state, 8 px + capture check", mask: async (s) => s.masks?.state, captures: true },
  ];
  const paper = oracleAgreement(runs).find((a) => a.oracle === "R_O AND R_TC")!;
  process.stdout.write(
    `noise ${noise}: ${runs.length} judged runs; paper R_O AND R_TC agreement ${wilsonText(paper.agreement)} FP ${paper.falsePositive}/${paper.falsePositive + paper.trueNegative} FN ${paper.falseNegative}/${paper.falseNegative + paper.truePositive}\n`,
  );
  rows.push({ noise, candidate: "paper: R_O AND R_TC", ...counts(paper) });
  for (const c of candidates) {
    const rejudged: RecoveryRun[] = [];
    const fps: string[] = [];
    for (const r of runs) {
      const s = samples.get(r.sampleId);
      if (!s || !r.recovered)
        throw new DataError(
          `run ${r.sampleId} ${r.variant} r=${r.budget}: no sample or no recovered screenshot (re-run the agreement with this code)`,
        );
      const mask = await c.mask(s);
      const rom = await maskedObservationOracle(
        { screenshot: r.recovered } as never,
        s.target.observation,
        blobs,
        mask ?? null,
        r.verdict!.ro.threshold,
        undefined,
        c.captures ? s.masks?.captures : undefined,
        {},
      );
      const maskedSuccess = rom.pass && r.verdict!.rtc.pass;
      if (maskedSuccess && !r.truth)
        fps.push(
          `${r.sampleId} ${r.variant} r=${r.budget} (R_O ${r.verdict!.ro.ssim.toFixed(3)}, R_Om ${rom.ssim.toFixed(3)}, ${(100 * rom.maskedWindows).toFixed(1)}% masked${rom.captureSsim === undefined ? "" : `, capture ${rom.captureSsim.toFixed(3)}`})`,
        );
      rejudged.push({ ...r, verdict: { ...r.verdict!, rom, maskedSuccess } });
    }
    const agreement = oracleAgreement(rejudged);
    for (const oracle of ["R_Om", "R_Om AND R_TC"] as const) {
      const a = agreement.find((x) => x.oracle === oracle)!;
      process.stdout.write(
        `  ${c.id.padEnd(30)} ${oracle.padEnd(14)} agreement ${wilsonText(a.agreement)}  FPR ${wilsonText(a.falsePositiveRate)} (${a.falsePositive}/${a.falsePositive + a.trueNegative})  FNR ${wilsonText(a.falseNegativeRate)} (${a.falseNegative}/${a.falseNegative + a.truePositive})\n`,
      );
      rows.push({ noise, candidate: c.id, oracle, ...counts(a) });
    }
    for (const f of fps) process.stdout.write(`      false positive: ${f}\n`);
  }
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 2) + "\n");

function counts(a: ReturnType<typeof oracleAgreement>[number]) {
  return {
    n: a.n,
    agreement: wilsonText(a.agreement),
    fpr: wilsonText(a.falsePositiveRate),
    fnr: wilsonText(a.falseNegativeRate),
    tp: a.truePositive,
    fp: a.falsePositive,
    tn: a.trueNegative,
    fn: a.falseNegative,
  };
}

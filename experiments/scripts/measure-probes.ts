/**
 * What do screenshot SSIM and state probes each see after a restoration on the real apps?
 * Runs the scripted restorations of experiments/probes/x11-scenarios.ts on the local X11 desktop
 * (Xvfb + mousepad/galculator/gnumeric, probes recorded with every observation), then prints one
 * line per scenario and the 2x2 count table of README's recovery-evaluation section: SSIM says
 * restored (>= 0.99) or not, against the probe verifier's match or mismatch.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/measure-probes.ts [--only <id prefix>] [--out probes-x11.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { withProbes } from "@retrace-cua/evaluation/probes/with-probes";
import { createX11Desktop } from "@retrace-cua/desktops/x11/create";
import { X11_PROBE_SCENARIOS, runProbeScenario, type ProbeScenarioResult } from "../probes/x11-scenarios.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = arg("--only");
const outFile = arg("--out");
const dir = mkdtempSync(join(tmpdir(), "retrace-probes-"));
const blobs = new BlobStore({ dir: join(dir, "blobs") });
const env = withProbes(createX11Desktop({ blobs }), { blobs });
const results: ProbeScenarioResult[] = [];
try {
  for (const s of X11_PROBE_SCENARIOS) {
    if (only && !s.id.startsWith(only)) continue;
    const r = await runProbeScenario(env, blobs, s);
    results.push(r);
    const diffs = r.probe.comparison?.differed.map((d) => d.key).join(", ") || "-";
    process.stdout.write(
      `| ${r.app} | ${r.id} | ${r.restored ? "yes" : "no"}: ${r.note} | ${r.ssim.toFixed(4)} ${r.ssimRestored ? "restored" : "not"} | ${r.probe.verdict} | ${diffs} |\n`,
    );
  }
} finally {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
}
const count = (rs: ProbeScenarioResult[], ssim: boolean, verdict: string) =>
  rs.filter((r) => r.ssimRestored === ssim && r.probe.verdict === verdict).length;
process.stdout.write(
  "\n| app | runs | SSIM right | probes right | SSIM restored, probes differ | probes match, SSIM not restored | both say restored | both say not |\n|---|---|---|---|---|---|---|---|\n",
);
for (const app of [...new Set(results.map((r) => r.app)), "all"]) {
  const rs = app === "all" ? results : results.filter((r) => r.app === app);
  const ssimRight = rs.filter((r) => r.ssimRestored === r.restored).length;
  const probesRight = rs.filter(
    (r) => (r.probe.verdict === "match") === r.restored && r.probe.verdict !== "abstain",
  ).length;
  process.stdout.write(
    `| ${app} | ${rs.length} | ${ssimRight} | ${probesRight} | ${count(rs, true, "mismatch")} | ${count(rs, false, "match")} | ${count(rs, true, "match")} | ${count(rs, false, "mismatch")} |\n`,
  );
}
if (outFile)
  writeFileSync(
    outFile,
    JSON.stringify(
      results.map((r) => ({
        id: r.id,
        app: r.app,
        restored: r.restored,
        note: r.note,
        ssim: r.ssim,
        ssimRestored: r.ssimRestored,
        probe: r.probe.verdict,
        differed: r.probe.comparison?.differed ?? [],
      })),
      null,
      2,
    ) + "\n",
  );

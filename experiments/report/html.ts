/**
 * The report page: server-rendered tables (every string escaped), chart canvases, the trajectory
 * viewer's skeleton, and the inlined chart.js plus the page script. One self-contained file.
 */
import type { ExperimentSummary } from "../runner/summary.ts";
import type { ChartSpec } from "./charts.ts";
import type { ExtraFile, RunData, ViewerEpisode } from "./data.ts";
import { verdictLabel, type Finding } from "./findings-verdict.ts";
export type { Finding };

/** Escape text for HTML element and attribute content. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

/** JSON safe to place inside a <script type="application/json"> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * A finding's verdict as printed everywhere (demo, CLI, report): "HOLDS (p=0.003)", "direction
 * only (p=0.240)", "not in the paper's direction (p=0.410)", "DOES NOT HOLD (p=0.010)",
 * "cannot tell (n too small: ...)", or "UNDECIDED" when it cannot be judged.
 */
export function findingVerdict(f: Finding): string {
  return verdictLabel(f);
}

/** The verdict rule in one sentence (report, demo). */
export const VERDICT_RULE =
  "Conditions share tasks and seeds, so each claim is tested on paired outcomes (McNemar's exact test on the (task, seed) units both conditions ran): HOLDS only at p < 0.05 in the paper's direction, DOES NOT HOLD only when the opposite direction is significant, \"direction only\" or \"not in the paper's direction\" otherwise, and \"cannot tell\" with fewer than 6 discordant pairs (no outcome could reach p < 0.05). Recovery-evaluation findings use an unpaired two-proportion test (at least 10 runs a side).";

const pct = (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? "-" : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? "-" : x.toFixed(d));
const usd = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `$${x.toFixed(4)}`);

function table(head: string[], rows: Array<Array<string | number>>, cls = ""): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

function conditionTable(s: ExperimentSummary): string {
  return table(
    ["condition", "params", "episodes", "env errors (excluded)", "success", "95% CI", "recovery attempts/ep", "recovery steps/ep", "forward steps/ep", "steps/ep", "steps/success", "cost/ep", "cost/success", "tokens/ep"],
    s.conditions.map((c) => [
      c.condition, Object.entries(c.params).map(([k, v]) => `${k}=${v}`).join(" "), c.episodes, c.envErrors,
      `${pct(c.success.rate)} (${c.success.successes}/${c.success.n})`, `${pct(c.success.lo)} - ${pct(c.success.hi)}`,
      num(c.meanRecoveryAttempts), num(c.meanRecoverySteps), num(c.meanForwardSteps), num(c.stepsPerEpisode, 1), num(c.stepsPerSuccess, 1),
      usd(c.costPerEpisode), usd(c.costPerSuccess), num(c.tokensPerEpisode, 0),
    ]),
  );
}

/** Model calls per condition and role: calls, errors, tokens, list-price cost, and the condition's cost per success. */
function modelTable(s: ExperimentSummary): string {
  const rows: Array<Array<string | number>> = [];
  for (const c of s.conditions)
    for (const [role, m] of Object.entries(c.models ?? {}))
      if (m) rows.push([c.condition, role, m.calls, m.errors, m.inputTokens, m.outputTokens, usd(m.costUsd), usd(c.success.successes ? m.costUsd / c.success.successes : null)]);
  if (!rows.length) return "";
  const notes = [
    s.allModelCallsFailed ? "Every model call of this run failed: its success rates say nothing about the agents." : "",
    s.stopped ? `Stopped early: ${s.stopped.reason}; ${s.stopped.notRun} episode(s) not run.` : "",
  ].filter(Boolean);
  return `<h3>Model calls per role</h3>${notes.map((n) => `<div class="banner">${escapeHtml(n)}</div>`).join("")}<p class="meta">Cost at the prices in the model specs, cached calls included (list price).</p>${table(["condition", "role", "calls", "errors", "input tokens", "output tokens", "cost", "cost/success"], rows)}`;
}

function skippedList(s: ExperimentSummary): string {
  if (!s.skipped?.length) return "";
  return `<h3>Skipped tasks (${s.skipped.length}, not scored)</h3>${table(["task", "reason"], s.skipped.map((k) => [k.task, k.reason]))}`;
}

function stabilityTable(s: ExperimentSummary): string {
  return table(
    ["condition", "label source", "trajectories", "deviation rate", "loop incidence", "loop burden (looping runs)", "recovery ability (runs that deviated)", "avg recovery length (steps)"],
    s.conditions.map((c) => [
      c.condition, c.stability.sources.join(" + ") || "-", c.stability.trajectories, pct(c.stability.deviationRate), pct(c.stability.loopIncidence),
      pct(c.stability.loopBurden), `${pct(c.stability.recoveryAbility)} (n=${c.stability.eligibleForRecovery})`, num(c.stability.avgRecoveryLength),
    ]),
  );
}

function successAtKTable(s: ExperimentSummary): string {
  if (!s.successAtK?.length) return "";
  const k = Math.max(...s.successAtK.map((c) => c.curve.length));
  return table(
    ["recovery step", "instances", "mean R", ...Array.from({ length: k }, (_, i) => `Success@${i + 1} [95% CI]`)],
    s.successAtK.map((c) => [c.condition, c.instances, num(c.meanRecoveryStep, 1), ...c.curve.map((p) => `${pct(p.rate)} [${pct(p.lo)}-${pct(p.hi)}]`)]),
  );
}

/** Render any JSON value as tables (arrays of objects) or key/value lists; everything escaped. */
export function jsonTables(value: unknown, depth = 0): string {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const cols = [...new Set(value.flatMap((v) => Object.keys(v as object)))];
      return table(cols, value.map((v) => cols.map((c) => cell((v as Record<string, unknown>)[c]))));
    }
    return `<p>${escapeHtml(value.map(cell).join(", "))}</p>`;
  }
  if (value && typeof value === "object") {
    if (depth > 2) return `<pre>${escapeHtml(JSON.stringify(value, null, 1))}</pre>`;
    const entries = Object.entries(value as Record<string, unknown>);
    const scalars = entries.filter(([, v]) => v === null || typeof v !== "object");
    const nested = entries.filter(([, v]) => v !== null && typeof v === "object");
    return (
      (scalars.length ? table(["field", "value"], scalars.map(([k, v]) => [k, cell(v)]), "kv") : "") +
      nested.map(([k, v]) => `<h5>${escapeHtml(k)}</h5>${jsonTables(v, depth + 1)}`).join("")
    );
  }
  return `<p>${escapeHtml(cell(value))}</p>`;
}

function cell(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(4);
  if (v === null || v === undefined) return "-";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"DejaVu Sans",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:16px 28px}header h1{margin:0 0 4px;font-size:22px}
main{padding:10px 28px 40px;max-width:1500px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:14px 18px;margin:16px 0}
h2{font-size:18px;margin:4px 0 10px}h3{font-size:15px;margin:14px 0 6px}h5{margin:10px 0 4px}
.banner{background:#fff3cd;border:1px solid #e0c36a;color:#5a4500;padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0}
table{border-collapse:collapse;margin:6px 0 10px;font-size:12.5px;display:block;overflow-x:auto;max-width:100%}th,td{border:1px solid #dde1e7;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#eef1f5}tr:nth-child(even) td{background:#fafbfc}
.meta{color:#5b6475;font-size:12.5px}.chart{position:relative;height:280px;margin:8px 0 14px}
.finding.yes{color:#1e7a44}.finding.no{color:#b3261e}.finding.na{color:#7a6a00}
#viewer{display:grid;grid-template-columns:minmax(300px,600px) 1fr;gap:14px}
#viewer-lanes{overflow-x:auto;white-space:nowrap;padding:6px 0;grid-column:1/3}
.lane{display:flex;align-items:center;gap:3px;margin:3px 0}.lane-label{width:120px;flex:none;font-size:12px;color:#5b6475}
.chip{min-width:34px;height:24px;border:1px solid #9aa5b8;border-radius:4px;background:#e9eef7;font-size:11px;cursor:pointer;flex:none}
.chip.gap{visibility:hidden}.chip.recovery{background:#fde7cf;border-color:#d9771f}.chip.replay{background:#e4f3ea;border-color:#2e9d5b}
.chip.flagged{border:2px solid #b3261e}.chip.frozen{opacity:.6}.chip.current{outline:3px solid #1d2330}
.mark{width:18px;flex:none;text-align:center;color:#b3261e;font-weight:700}.mark.gap{visibility:hidden}
#viewer-shot{width:100%;border:1px solid #c8ced8;background:#fff;min-height:120px}
dl{display:grid;grid-template-columns:120px 1fr;gap:3px 10px;margin:0}dt{color:#5b6475}dd{margin:0;overflow-wrap:anywhere}
dd.pre{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px}.good{color:#1e7a44}.bad{color:#b3261e}
.instr{color:#5b6475;margin-top:4px}button.nav{padding:3px 10px;margin-right:6px}
`;

/** The whole page. */
export function renderPage(input: { title: string; runs: RunData[]; charts: ChartSpec[]; extras: ExtraFile[]; findings?: Finding[]; episodes: ViewerEpisode[]; images: string[]; chartJs: string; clientJs: string; generatedFrom: string }): string {
  const simulated = input.runs.some((r) => r.summary.simulated) || input.extras.some((e) => (e.data as { simulated?: unknown } | null)?.simulated === true);
  const chartsFor = (r: RunData) => input.charts.filter((c) => c.id.startsWith(`c-${slug(r.rel || r.summary.experiment)}-`));
  const runSections = input.runs
    .map((r) => {
      const s = r.summary;
      const m = r.manifest;
      return `<section class="run" id="run-${escapeHtml(slug(r.rel || s.experiment))}">
<h2>${escapeHtml(s.experiment)} <span class="meta">(${escapeHtml(s.kind)}${r.rel ? `, ${escapeHtml(r.rel)}/` : ""})</span></h2>
${s.simulated ? `<div class="banner">${escapeHtml(s.note)}</div>` : ""}
<p class="meta">${m ? `commit ${escapeHtml(m.gitCommit.slice(0, 12))}, retrace ${escapeHtml(m.packageVersion)}, config ${escapeHtml(m.configHash.slice(0, 12))}, ${m.tasks.length} tasks, seeds ${escapeHtml(m.seeds.join(","))}. ` : ""}${s.episodes} episodes, ${s.envErrors} environment errors (excluded from success rates).</p>
${s.recommendation ? `<h3>Recommendation</h3><p>${escapeHtml(s.recommendation.text)}</p>` : ""}
<h3>Conditions</h3>${conditionTable(s)}
${modelTable(s)}${skippedList(s)}
${s.successAtK?.length ? `<h3>Success@K</h3>${successAtKTable(s)}` : ""}
${chartsFor(r).map((c) => `<h3>${escapeHtml(c.title)}</h3><div class="chart"><canvas id="${escapeHtml(c.id)}"></canvas></div>`).join("\n")}
<h3>Process stability</h3>
<p class="meta">After GraceBench: deviation rate = share of steps off track; loop burden = share of steps repeating a state transition (over runs that loop); recovery ability = share of deviations that came back on track (over runs that deviated); recovery length = off-track steps before coming back. Labels: <b>ground-truth</b> = SimDesk's reference path; <b>detector</b> = the error detector's own verdicts (weaker evidence).</p>
${stabilityTable(s)}
</section>`;
    })
    .join("\n");
  const extras = input.extras.length
    ? `<section id="recovery-eval"><h2>Recovery evaluation</h2>${input.extras.map((e) => `<h3>${escapeHtml(e.rel)}</h3>${jsonTables(e.data)}`).join("")}</section>`
    : "";
  const findings = input.findings?.length
    ? `<section id="findings"><h2>Do the paper's findings hold here?</h2><p class="meta">${escapeHtml(VERDICT_RULE)}</p>${simulated ? `<div class="banner">Checked on simulated policies: evidence about the simulation, not about any model.</div>` : ""}<ul>${input.findings
        .map((f) => `<li class="finding ${f.holds === null ? "na" : f.holds ? "yes" : "no"}"><b>${escapeHtml(findingVerdict(f))}</b>: ${escapeHtml(f.claim)} <span class="meta">${escapeHtml(f.evidence)}</span></li>`)
        .join("")}</ul></section>`
    : "";
  const viewer = `<section id="trajectory-viewer"><h2>Trajectory viewer</h2>
<p class="meta">Pick an episode; step with the buttons or the arrow keys. Top lane: forward steps (red border = detector flagged an error). Bottom lane: the recovery branch (orange) and replayed prefix steps (green). Markers: &#x21b6; recovery start, &#x21b7; recovery end, &#x2702; history truncated to the recovery boundary.</p>
${input.episodes.length === 0 ? "<p>No episodes with a trajectory record in this folder.</p>" : `<select id="episode-select"></select>
<div id="viewer"><div id="viewer-lanes"></div>
<div><div><button class="nav" id="viewer-prev">&larr; prev</button><button class="nav" id="viewer-next">next &rarr;</button><button class="nav" id="viewer-toggle">before/after</button> <span id="viewer-which" class="meta"></span></div><img id="viewer-shot" alt=""></div>
<div><div id="viewer-result"></div><h3>Step</h3><div id="viewer-info"></div></div></div>`}
</section>`;
  const data = { charts: input.charts.map((c) => ({ id: c.id, config: c.config })), episodes: input.episodes, images: input.images };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(input.title)}</title><style>${CSS}</style></head>
<body>
<header><h1>${escapeHtml(input.title)}</h1><div>${escapeHtml(input.generatedFrom)}${simulated ? " &middot; <b>SIMULATED POLICIES</b>" : ""}</div></header>
<main>
${simulated ? `<div class="banner">All results in this report come from seeded simulated policies on SimDesk (labelled "simulated"), not from models.</div>` : ""}
${findings}
${runSections}
${extras}
${viewer}
</main>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${input.chartJs.replace(/<\/script/gi, "<\\/script")}</script>
<script>${input.clientJs.replace(/<\/script/gi, "<\\/script")}</script>
</body></html>
`;
}

/** Id-safe slug. */
export function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "run";
}

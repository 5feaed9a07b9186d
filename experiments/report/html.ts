/**
 * The report page: server-rendered tables (every string escaped), chart canvases, the trajectory
 * viewer's skeleton, and the inlined chart.js plus the page script. The viewer's episodes, calls and
 * screens load from the `<report>-files/` folder beside it: keep the two together.
 */
import { usdText } from "@retrace-cua/core/usage";
import type { ConditionSummary, ExperimentSummary, RoleTokens } from "../runner/summary.ts";
import { annotationFailuresText } from "../ideal/facts.ts";
import type { ChartSpec } from "./charts.ts";
import type { ExtraFile, RunData } from "./data.ts";
import { verdictLabel, type Finding } from "./findings-verdict.ts";
export type { Finding };
import { conditionLabel, headerLabel, labelConditionsIn, paramLabel } from "./labels.ts";
import { appBreakdown, baselineOf, isBaseline, pairedRows, type PairedRow } from "./paired.ts";
import { VIEWER_CSS, viewerSection } from "./viewer-html.ts";
import { TOC_CSS, sectionLink, tableOfContents } from "./toc.ts";

/** Escape text for HTML element and attribute content. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

/** JSON safe to place inside a <script type="application/json"> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
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
  'Conditions share tasks and seeds, so each claim is tested on paired outcomes and decided at the cluster level (a sign test over tasks, or trajectories for recovery-evaluation samples, of the units\' summed differences; McNemar\'s exact test on the (task, seed) units is shown beside it, labelled unit level): HOLDS only at p < 0.05 in the paper\'s direction, DOES NOT HOLD only when the opposite direction is significant, "direction only" or "not in the paper\'s direction" otherwise, and "cannot tell" with fewer than 6 discordant pairs (no outcome could reach p < 0.05). Recovery-evaluation findings are paired over distinct target states from runs.jsonl (a target state sampled at several distances counts once). Where a finding searches several comparisons (the weak recoverer\'s caps) or gives one verdict per pair, p-values are Holm-adjusted and the verdict says so.';

const pct = (x: number | null | undefined) =>
  x === null || x === undefined || Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(1)}%`;
const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? "n/a" : x.toFixed(d));
const usd = usdText;
/** Cost and tokens mean nothing for a condition that called no model (simulated policies): "n/a". */
const calledModels = (c: ConditionSummary) =>
  !c.simulated || Object.keys(c.models ?? {}).length > 0 || c.tokensPerEpisode > 0;

function table(head: string[], rows: Array<Array<string | number>>, cls = ""): string {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

function conditionTable(s: ExperimentSummary): string {
  return (
    table(
      [
        "condition",
        "settings",
        "episodes",
        "environment errors (excluded)",
        "success (solved/n)",
        "success 95% CI",
        "recovery attempts per episode",
        "recovery steps per episode",
        "forward steps per episode",
        "steps per episode",
        "steps per success",
        "cost per episode (USD)",
        "cost per success (USD)",
        "tokens per episode",
      ],
      s.conditions.map((c) => {
        const m = calledModels(c);
        return [
          conditionLabel(c.condition),
          Object.entries(c.params)
            .map(([k, v]) => paramLabel(k, v))
            .join(", ") || "-",
          c.episodes,
          c.envErrors,
          `${pct(c.success.rate)} (${c.success.successes}/${c.success.n})`,
          `${pct(c.success.lo)} - ${pct(c.success.hi)}`,
          num(c.meanRecoveryAttempts),
          num(c.meanRecoverySteps),
          num(c.meanForwardSteps),
          num(c.stepsPerEpisode, 1),
          num(c.stepsPerSuccess, 1),
          m ? usd(c.costPerEpisode) : "n/a",
          m ? usd(c.costPerSuccess) : "n/a",
          m ? num(c.tokensPerEpisode, 0) : "n/a",
        ];
      }),
    ) +
    `<p class="note">Success = share of scored episodes the task checker marked solved (95% Wilson interval). Steps per success = all executed steps (forward, recovery, replay) divided by solved episodes: the cost proxy when no model is called. Cost and tokens are n/a for simulated policies, which call no model.</p>` +
    countsNote(s)
  );
}

const prefixed = (text: string) => (text ? ` ${text}` : "");
const incompleteText = (i: NonNullable<ExperimentSummary["ideal"]>) =>
  i.incompleteInstances === "score-available"
    ? "; a run with fewer than K usable continuations is scored on those it has (incompleteInstances: score-available, not the paper's rule)"
    : i.exclusions.incomplete
      ? `; ${i.exclusions.incomplete.runs} failed runs with fewer than K usable continuations in some strategy left out of every strategy's curve (the paper's rule)`
      : "";

/**
 * Counted departures from the plain path: selector fallbacks per condition, and ideal recovery's exclusions by reason.
 */
function countsNote(s: ExperimentSummary): string {
  const parts: string[] = [];
  const fb = s.conditions.filter((c) => c.selectorFallbacks);
  if (fb.length)
    parts.push(
      `Selector fallbacks (the selector failed and R fell back to E-1): ${fb.map((c) => `${conditionLabel(c.condition)} ${c.selectorFallbacks!.fallbacks} of ${c.selectorFallbacks!.attempts} recovery attempts`).join("; ")}.`,
    );
  const i = s.ideal;
  if (i)
    parts.push(
      `Failed runs: ${i.failedRuns}, continued: ${i.continued}. Without a detected error: ${i.exclusions.noErrorFound.runs} (${i.noErrorFound === "last-step" ? "continued from E = their last step, the paper's rule" : `${i.exclusions.noErrorFound.excluded} left out`}). ` +
        `Left out of Success@K: ${i.exclusions.replayFailed.continuations} continuations whose replay failed (${i.exclusions.replayFailed.runs} failed runs), ${i.exclusions.envErrors.continuations} lost to other environment errors${incompleteText(i)}. ` +
        `Continuation budget: ${i.continuationBudget === "from-restore" ? `${i.maxForwardSteps} forward steps after R` : `${i.maxForwardSteps} steps in all, the replayed prefix included`}.` +
        prefixed(annotationFailuresText(i, s.successAtK?.find((c) => c.strategy === "llm")?.condition)),
    );
  return parts.length ? `<p class="note">${escapeHtml(parts.join(" "))}</p>` : "";
}

/** Which tasks recovery fixed or broke, per condition against no recovery (same task and seed). */
function pairedTable(rows: readonly PairedRow[]): string {
  if (rows.length === 0) return "";
  const tasks = [
    ...new Set(rows.flatMap((r) => [...r.byTask.entries()].filter(([, t]) => t[0] + t[1] > 0).map(([k]) => k))),
  ].sort();
  const head = ["task", ...rows.map((r) => `${conditionLabel(r.condition)} vs ${conditionLabel(r.baseline)}`)];
  const body = tasks
    .map(
      (t) =>
        `<tr><td>${escapeHtml(t)}</td>${rows
          .map((r) => {
            const c = r.byTask.get(t);
            if (!c) return "<td>n/a</td>";
            const txt =
              [c[0] ? `+${c[0]} fixed` : "", c[1] ? `-${c[1]} broken` : ""].filter(Boolean).join(", ") || "same";
            return `<td class="${c[0] > c[1] ? "ok" : c[1] > c[0] ? "err" : ""}" title="${escapeHtml(`${c[2]} paired episodes`)}">${escapeHtml(txt)}</td>`;
          })
          .join("")}</tr>`,
    )
    .join("");
  const total = `<tr><th>all tasks</th>${rows.map((r) => `<th>${escapeHtml(`+${r.fixed} / -${r.broken} (n=${r.pairs})`)}</th>`).join("")}</tr>`;
  return `<h3>Tasks recovery fixed or broke</h3><p class="note">Each cell pairs a condition's episodes with its no-recovery baseline's episodes of the same task and seed (a pair's own baseline, or the one the pairs share): +fixed = failed without recovery, solved with it; -broken = the reverse. Only tasks where something changed are listed.</p>${tasks.length ? `<table class="matrix"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${body}${total}</tbody></table>` : "<p>No task changed outcome.</p>"}`;
}

/** Success per app and condition. */
function appTable(s: RunData): string {
  const b = appBreakdown(s.lines);
  if (b.apps.length < 2) return "";
  return `<h3>Success per app</h3>${table(
    ["app", ...b.conditions.map(conditionLabel)],
    b.apps.map((a, i) => [a, ...b.cells[i].map((p) => (p ? `${pct(p.rate)} (${p.successes}/${p.n})` : "n/a"))]),
  )}`;
}

/** Model calls per condition and role: calls, errors, tokens, list-price cost, and the condition's cost per success. */
function modelTable(s: ExperimentSummary): string {
  const rows: Array<Array<string | number>> = [];
  for (const c of s.conditions)
    for (const [role, m] of Object.entries(c.models ?? {}))
      if (m)
        rows.push([
          conditionLabel(c.condition),
          role,
          m.calls,
          m.errors,
          m.inputTokens,
          m.outputTokens,
          usd(m.costUsd),
          usd(c.success.successes ? m.costUsd / c.success.successes : null),
        ]);
  if (!rows.length) return "";
  const notes = [
    s.allModelCallsFailed ? "Every model call of this run failed: its success rates say nothing about the agents." : "",
    s.stopped ? `Stopped early: ${s.stopped.reason}; ${s.stopped.notRun} episode(s) not run.` : "",
  ].filter(Boolean);
  return `<h3>Model calls per role</h3>${notes.map((n) => `<div class="banner">${escapeHtml(n)}</div>`).join("")}<p class="meta">Cost at the prices in the model specs, cached calls included (list price).</p>${table(["condition", "role", "calls", "errors", "input tokens", "output tokens", "cost", "cost/success"], rows)}`;
}

/**
 * Tokens per condition and role as the servers reported them, per scored episode, split the way
 * providers bill them (uncached, cached and cache-write input; billed-equivalent tokens: packages/core/src/usage.ts
 * tokenSplit), and the overhead of each recovery condition: its tokens and its billed tokens per
 * episode over its pair's no-recovery baseline. A summary written before the split existed reads
 * as "no cache reported" (cached 0, billed = tokens).
 */
function tokensTable(s: ExperimentSummary): string {
  const rows: Array<Array<string | number>> = [];
  // The baseline a condition is paired with, as in the fixed/broke table (paired.ts baselineOf).
  const baselines = s.conditions.map((c) => c.condition).filter(isBaseline);
  const baseOf = (condition: string) =>
    isBaseline(condition) ? undefined : s.conditions.find((c) => c.condition === baselineOf(condition, baselines));
  const cached = (r: RoleTokens) => r.cachedInputTokens ?? 0;
  const writes = (r: RoleTokens) => r.cacheWriteInputTokens ?? 0;
  const uncached = (r: RoleTokens) => r.uncachedInputTokens ?? r.inputTokens - cached(r) - writes(r);
  const billedPer = (r: RoleTokens) => r.billedPerEpisode ?? r.perEpisode;
  const anyWrites = s.conditions.some((c) => Object.values(c.tokens?.roles ?? {}).some((r) => r && writes(r) > 0));
  const anyCache = s.conditions.some((c) => c.tokens?.promptCache);
  const ratio = (a: number, b: number | undefined) => (b !== undefined && b > 0 ? `x${(a / b).toFixed(2)}` : "-");
  const cells = (label: string, role: string, r: RoleTokens, overhead: string[]) => [
    label,
    role,
    r.calls,
    r.inputTokens,
    uncached(r),
    cached(r),
    ...(anyWrites ? [writes(r)] : []),
    r.outputTokens,
    r.billedTokens ?? r.totalTokens,
    num(r.perEpisode, 0),
    num(billedPer(r), 0),
    ...overhead,
  ];
  for (const c of s.conditions) {
    const t = c.tokens;
    if (!t) continue;
    const base = baseOf(c.condition)?.tokens;
    for (const [role, r] of Object.entries(t.roles))
      if (r) rows.push(cells(conditionLabel(c.condition), role, r, ["", ""]));
    rows.push(
      cells(conditionLabel(c.condition), "all roles", t.total, [
        ratio(t.total.perEpisode, base?.total.perEpisode),
        ratio(billedPer(t.total), base && billedPer(base.total)),
      ]),
    );
  }
  if (!rows.length) return "";
  const note = anyCache
    ? "Cached: prompt tokens the server served from its prompt cache; billed: uncached + cached and cache writes at their price ratio to uncached input (the price table's, else the provider's) + output."
    : "No server reported prompt-cache tokens in this run: cached is 0 and billed = tokens (nothing is assumed cached).";
  return `<h3>Tokens per condition and role</h3><p class="meta">As the model servers reported them (input and output tokens), over scored episodes. ${escapeHtml(note)} Overhead: tokens (and billed tokens) per episode of a recovery condition over its pair's no-recovery baseline.</p>${table(["condition", "role", "calls", "input tokens", "uncached input", "cached input", ...(anyWrites ? ["cache writes"] : []), "output tokens", "billed tokens", "tokens/episode", "billed/episode", "overhead vs no recovery", "billed overhead"], rows)}`;
}

function skippedList(s: ExperimentSummary): string {
  if (!s.skipped?.length) return "";
  return `<h3>Skipped tasks (${s.skipped.length}, not scored)</h3>${table(
    ["task", "reason"],
    s.skipped.map((k) => [k.task, k.reason]),
  )}`;
}

function stabilityTable(s: ExperimentSummary): string {
  return table(
    [
      "condition",
      "label source",
      "trajectories",
      "deviation rate (% of steps)",
      "loop incidence (% of runs)",
      "loop burden (% of steps, looping runs)",
      "recovery ability (runs that deviated)",
      "average recovery length (steps)",
    ],
    s.conditions.map((c) => [
      conditionLabel(c.condition),
      c.stability.sources.join(" + ") || "-",
      c.stability.trajectories,
      pct(c.stability.deviationRate),
      pct(c.stability.loopIncidence),
      pct(c.stability.loopBurden),
      `${pct(c.stability.recoveryAbility)} (n=${c.stability.eligibleForRecovery})`,
      num(c.stability.avgRecoveryLength),
    ]),
  );
}

function successAtKTable(s: ExperimentSummary): string {
  if (!s.successAtK?.length) return "";
  const k = Math.max(...s.successAtK.map((c) => c.curve.length));
  return table(
    [
      "recovery step",
      "failed runs (n)",
      "mean recovery step R",
      ...Array.from({ length: k }, (_, i) => `Success@${i + 1} [95% CI]`),
    ],
    s.successAtK.map((c) => [
      conditionLabel(c.condition),
      c.instances,
      num(c.meanRecoveryStep, 1),
      ...c.curve.map((p) => `${pct(p.rate)} [${pct(p.lo)}-${pct(p.hi)}]`),
    ]),
  );
}

/** Render any JSON value as tables (arrays of objects) or key/value lists; everything escaped. */
export function jsonTables(value: unknown, depth = 0): string {
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const cols = [...new Set(value.flatMap((v) => Object.keys(v as object)))];
      return table(
        cols.map(headerLabel),
        value.map((v) => cols.map((c) => cell((v as Record<string, unknown>)[c]))),
      );
    }
    return `<p>${escapeHtml(value.map(cell).join(", "))}</p>`;
  }
  if (value && typeof value === "object") {
    if (depth > 2) return `<pre>${escapeHtml(JSON.stringify(value, null, 1))}</pre>`;
    const entries = Object.entries(value as Record<string, unknown>);
    const scalars = entries.filter(([, v]) => v === null || typeof v !== "object");
    const nested = entries.filter(([, v]) => v !== null && typeof v === "object");
    return (
      (scalars.length
        ? table(
            ["field", "value"],
            scalars.map(([k, v]) => [headerLabel(k), cell(v)]),
            "kv",
          )
        : "") + nested.map(([k, v]) => `<h5>${escapeHtml(headerLabel(k))}</h5>${jsonTables(v, depth + 1)}`).join("")
    );
  }
  return `<p>${escapeHtml(cell(value))}</p>`;
}

function cell(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(4);
  if (v === null || v === undefined) return "n/a";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"DejaVu Sans",sans-serif;margin:0;color:#1d2330;background:#f6f7f9;overflow-x:hidden}
header{background:#1d2330;color:#fff;padding:16px 28px}header h1{margin:0 0 4px;font-size:22px;overflow-wrap:anywhere}
main{padding:10px 28px 40px;max-width:1500px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:14px 18px;margin:16px 0;min-width:0}
h2{font-size:18px;margin:4px 0 10px}h3{font-size:15px;margin:14px 0 6px}h4{font-size:14px;margin:10px 0 4px}h5{margin:10px 0 4px}
.banner{background:#fff3cd;border:1px solid #e0c36a;color:#5a4500;padding:10px 14px;border-radius:6px;font-weight:600;margin:12px 0}
table{border-collapse:collapse;margin:6px 0 10px;font-size:12.5px;display:block;overflow-x:auto;max-width:100%}th,td{border:1px solid #dde1e7;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#eef1f5}tr:nth-child(even) td{background:#fafbfc}td.ok{background:#e4f3ea!important}td.err{background:#fbe3e1!important}
.meta{color:#5b6475;font-size:12.5px}.note{color:#5b6475;font-size:12.5px;margin:-8px 0 12px}.chart{position:relative;height:300px;margin:8px 0 14px}
.cms{display:flex;flex-wrap:wrap;gap:10px 24px}.cm{flex:0 1 320px;min-width:0}.cm table{display:table}
.finding.yes{color:#1e7a44}.finding.no{color:#b3261e}.finding.na{color:#7a6a00}
.filters{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:center;margin:6px 0}.filters select{max-width:260px}
#episode-select{width:100%;max-width:100%}
#viewer{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:14px;margin-top:8px}
#viewer-lanes{grid-column:1/-1;min-width:0}
.seg{display:inline-block;vertical-align:top;margin:0 10px 8px 0;padding:4px 6px;border:1px solid #dde1e7;border-radius:6px;max-width:100%}
.seg-title{font-size:11.5px;color:#5b6475;margin-bottom:3px}.seg-chips{display:flex;flex-wrap:wrap;gap:3px}
.seg.recovery{background:#fff7ef;border-color:#e8b98a}.seg.replay{background:#f1faf4;border-color:#9fd3b2}
.chip{min-width:30px;height:26px;border:1px solid #9aa5b8;border-radius:4px;background:#e9eef7;font-size:11px;cursor:pointer;position:relative;padding:0 4px}
.chip.recovery{background:#fde7cf;border-color:#d9771f}.chip.replay{background:#e4f3ea;border-color:#2e9d5b}
.chip.flagged{border:2px solid #b3261e}.chip.frozen{opacity:.6}.chip.offtrack{box-shadow:inset 0 -4px 0 #b3261e}.link-notice:not(:empty){margin:6px 0;font-weight:600}.chip.current{outline:3px solid #1d2330}
.flag{position:absolute;top:-8px;right:-6px;font-size:9px;font-weight:700;color:#fff;border-radius:3px;padding:0 2px}.flag.E{background:#b3261e}.flag.R{background:#2f6fdb}
.evt{font-size:12.5px;margin:2px 0;padding:2px 6px;border-left:3px solid #d9771f;background:#fffaf4;overflow-wrap:anywhere}
.shotbox{position:relative;overflow:auto;max-height:80vh;border:1px solid #c8ced8;background:#fff}
.shotbox img{display:block;width:100%}.shotbox.zoom img{width:auto;max-width:none}.shotbox svg{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
.shotbox.zoom svg{width:auto}
.pair{display:grid;grid-template-columns:1fr 1fr 1fr;gap:8px}.pair img,.pair canvas.heat{width:100%;border:1px solid #c8ced8;image-rendering:pixelated;aspect-ratio:1280/800}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:3px 10px;margin:0}dt{color:#5b6475;white-space:nowrap}dd{margin:0;overflow-wrap:anywhere}
dd.pre{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px}.good{color:#1e7a44}.bad{color:#b3261e}
.instr{color:#5b6475;margin-top:4px;overflow-wrap:anywhere}button.nav{padding:3px 10px;margin:0 6px 4px 0}
pre.call-text{white-space:pre-wrap;overflow-wrap:anywhere;max-height:300px;overflow:auto;background:#f6f7f9;padding:6px;font-size:11.5px;margin:2px 0 6px}
#compare{margin-top:10px}#compare .row{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:3px 0}
@media (max-width:1000px){main{padding:8px 10px 30px}#viewer{grid-template-columns:minmax(0,1fr)}section{padding:10px}}
`;

/** The whole page. */
export function renderPage(input: {
  title: string;
  runs: RunData[];
  charts: ChartSpec[];
  extras: ExtraFile[];
  recoveryHtml: string;
  raceHtml?: string;
  findings?: Finding[];
  viewer: { index: unknown[]; chunkDir: string };
  chartJs: string;
  clientJs: string;
  generatedFrom: string;
}): string {
  const simulated =
    input.runs.some((r) => r.summary.simulated) ||
    input.extras.some((e) => (e.data as { simulated?: unknown } | null)?.simulated === true);
  const chartsFor = (r: RunData) =>
    input.charts.filter((c) => c.id.startsWith(`c-${slug(r.rel || r.summary.experiment)}-`));
  const chartHtml = (c: ChartSpec) =>
    `<h3>${escapeHtml(c.title)}</h3><div class="chart"><canvas id="${escapeHtml(c.id)}"></canvas></div>${c.note ? `<p class="note">${escapeHtml(c.note)}</p>` : ""}`;
  const runSections = input.runs
    .map((r) => {
      const s = r.summary;
      const m = r.manifest;
      const id = `run-${slug(r.rel || s.experiment)}`;
      return `<section class="run" id="${escapeHtml(id)}">
<h2>${escapeHtml(s.experiment)} <span class="meta">(${escapeHtml(s.kind)}${r.rel ? `, ${escapeHtml(r.rel)}/` : ""})</span>${sectionLink(id)}</h2>
${s.simulated ? `<div class="banner">${escapeHtml(s.note)}</div>` : ""}
<p class="meta">${m ? `commit ${escapeHtml(m.gitCommit.slice(0, 12))}, retrace ${escapeHtml(m.packageVersion)}, config ${escapeHtml(m.configHash.slice(0, 12))}, ${m.tasks.length} tasks, seeds ${escapeHtml(m.seeds.join(","))}. ` : ""}${s.episodes} episodes, ${s.envErrors} environment errors (excluded from success rates).</p>
${
  s.recommendation
    ? `<h3>Recommendation</h3><p>${escapeHtml(
        labelConditionsIn(
          s.recommendation.text,
          s.conditions.map((c) => c.condition),
        ),
      )}</p>`
    : ""
}
<h3 id="${escapeHtml(id)}-conditions">Conditions${sectionLink(`${id}-conditions`)}</h3>${conditionTable(s)}
${modelTable(s)}${tokensTable(s)}${skippedList(s)}
${s.successAtK?.length ? `<h3>Success@K</h3>${successAtKTable(s)}` : ""}
${chartsFor(r).map(chartHtml).join("\n")}
${pairedTable(pairedRows(r.lines))}
${appTable(r)}
<h3 id="${escapeHtml(id)}-stability">Process stability${sectionLink(`${id}-stability`)}</h3>
<p class="note">After GraceBench: deviation rate = share of steps off track; loop incidence = share of runs that repeat a state transition (recovery adds such repeats by design: undoing and redoing a step revisits states); loop burden = share of steps repeating a transition (over runs that loop); recovery ability = share of deviations that came back on track (over runs that deviated); recovery length = off-track steps before coming back. Labels: <b>ground-truth</b> = SimDesk's reference path; <b>detector</b> = the error detector's own verdicts (weaker evidence).</p>
${stabilityTable(s)}
</section>`;
    })
    .join("\n");
  const extras = input.extras.length
    ? `<section id="recovery-eval"><h2>Recovery evaluation${sectionLink("recovery-eval")}</h2>${input.recoveryHtml}</section>`
    : "";
  const findings = input.findings?.length
    ? `<section id="findings"><h2>Do the paper's findings hold here?${sectionLink("findings")}</h2><p class="meta">${escapeHtml(VERDICT_RULE)}</p>${simulated ? `<div class="banner">Checked on simulated components (simulated policies or a stand-in model server): evidence about the simulation, not about any model.</div>` : ""}<ul>${input.findings
        .map(
          (f) =>
            `<li class="finding ${f.holds === null ? "na" : f.holds ? "yes" : "no"}"><b>${escapeHtml(findingVerdict(f))}</b>: ${escapeHtml(f.claim)} <span class="meta">${escapeHtml(f.evidence)}</span></li>`,
        )
        .join("")}</ul></section>`
    : "";
  const n = input.viewer.index.length;
  const viewer = viewerSection(input.viewer.index.length);
  const data = { charts: input.charts.map((c) => ({ id: c.id, config: c.config })), viewer: input.viewer };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(input.title)}</title><style>${CSS}${VIEWER_CSS}${TOC_CSS}</style></head>
<body>
<header><h1>${escapeHtml(input.title)}</h1><div>${escapeHtml(input.generatedFrom)}${simulated ? " &middot; <b>SIMULATED</b>" : ""}</div></header>
<main>
${simulated ? `<div class="banner">All results in this report come from simulated components (labelled "simulated": seeded simulated policies, or a model server that declared itself a stand-in), not from models.</div>` : ""}
${tableOfContents({ findings: !!findings, runs: input.runs.map((r) => ({ id: `run-${slug(r.rel || r.summary.experiment)}`, title: r.summary.experiment, kind: r.summary.kind })), recoveryEval: !!extras, viewer: true, race: !!input.raceHtml })}
${findings}
${input.raceHtml ?? ""}
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

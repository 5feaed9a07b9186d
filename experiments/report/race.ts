/**
 * The report's "race" section for a `retrace tune` folder (its race.json): the decision in words,
 * when each candidate was eliminated and on what p-value, success and cost per candidate with
 * intervals, and a success-vs-cost chart with the Pareto front (the candidates no other beats on
 * both success and cost).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { objectiveText, RATIO_BOOTSTRAP } from "@retrace-cua/evaluation/tune/objective";
import { eliminationText, type RaceResult } from "@retrace-cua/evaluation/tune/race-result";
import { settingText } from "@retrace-cua/evaluation/tune/space";
import { COLORS, type ChartSpec } from "./charts.ts";
import { escapeHtml } from "./html.ts";

type RaceFile = RaceResult & { costUnit?: string; simulated?: boolean; objectiveKind?: string };

/** The race of `root`, when it holds a race.json (a race folder) or race/race.json (the demo's). */
export function readRace(root: string): RaceFile | undefined {
  const file = [join(root, "race.json"), join(root, "race", "race.json")].find((f) => existsSync(f));
  return file ? readJsonFile<RaceFile>(file, { what: "race file", prefix: "report: " }) : undefined;
}

/** Candidates on the Pareto front: no other has at least their success at at most their cost, better in one. */
export function paretoFront(r: RaceResult): string[] {
  return r.candidates
    .filter(
      (a) =>
        !r.candidates.some(
          (b) =>
            b !== a &&
            b.success.rate >= a.success.rate &&
            b.cost.mean <= a.cost.mean &&
            (b.success.rate > a.success.rate || b.cost.mean < a.cost.mean),
        ),
    )
    .map((c) => c.id);
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The success-vs-cost chart. */
export function raceChart(r: RaceFile): ChartSpec {
  const unit = r.costUnit === "usd" ? "USD" : "tokens";
  const front = new Set(paretoFront(r));
  const point = (c: RaceResult["candidates"][number]) => ({
    x: c.cost.mean,
    y: Math.round(1000 * c.success.rate) / 10,
  });
  const frontPoints = r.candidates
    .filter((c) => front.has(c.id))
    .sort((a, b) => a.cost.mean - b.cost.mean)
    .map(point);
  return {
    id: "c-race-pareto",
    title: `${r.candidates.length} candidates: success against cost per episode`,
    note: `Each point = one candidate (success over the paired units of its last batch; hover for its 95% interval and fate); the line joins the Pareto front (no other candidate has more success at less cost)${r.costLimit !== undefined ? `; the dashed vertical line is the cost cap (${r.costLimit} ${unit} per episode)` : ""}.${r.candidates.every((c) => c.cost.mean === 0) ? " Cost is n/a here (simulated agents): every point sits at 0." : ""}`,
    config: {
      type: "scatter",
      data: {
        datasets: [
          {
            label: "candidates",
            data: r.candidates.map(point),
            whiskers: r.candidates.map((c) => [
              Math.round(1000 * c.success.lo) / 10,
              Math.round(1000 * c.success.hi) / 10,
            ]),
            tips: r.candidates.map(
              (c) =>
                `${c.id} ${settingText(c.setting)}: ${pct(c.success.rate)} (95% CI ${pct(c.success.lo)}-${pct(c.success.hi)}, n=${c.success.n}), ${c.cost.mean.toFixed(unit === "USD" ? 4 : 0)} ${unit}/episode`,
            ),
            backgroundColor: COLORS[0],
            borderColor: COLORS[0],
          },
          {
            label: "Pareto front",
            type: "line",
            data: frontPoints,
            borderColor: COLORS[1],
            backgroundColor: COLORS[1],
            showLine: true,
            fill: false,
          },
          ...(r.costLimit !== undefined
            ? [
                {
                  label: `cost cap (${r.costLimit} ${unit}/episode)`,
                  type: "line",
                  data: [
                    { x: r.costLimit, y: 0 },
                    { x: r.costLimit, y: 100 },
                  ],
                  borderColor: COLORS[3],
                  backgroundColor: COLORS[3],
                  borderDash: [6, 4],
                  pointRadius: 0,
                  showLine: true,
                  fill: false,
                },
              ]
            : []),
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { title: { display: true, text: `cost per episode (${unit})` } },
          y: { min: 0, max: 100, title: { display: true, text: "success (%)" } },
        },
      },
    },
  };
}

/** The section's HTML (the chart's canvas included). */
export function raceHtml(r: RaceFile, chart: ChartSpec): string {
  const unit = r.costUnit === "usd" ? "USD" : "tokens";
  const priced = r.candidates.some((c) => c.cost.mean > 0);
  const rows = [...r.candidates]
    .sort((a, b) => (a.eliminated ? 1 : 0) - (b.eliminated ? 1 : 0) || b.success.rate - a.success.rate)
    .map((c) => {
      const e = c.eliminated;
      const fate = !e
        ? c.id === r.winner
          ? "winner"
          : r.survivors.includes(c.id)
            ? "survivor (tied)"
            : ""
        : eliminationText(e);
      return `<tr><td>${escapeHtml(c.id)}</td><td>${escapeHtml(settingText(c.setting))}</td><td>${pct(c.success.rate)} (${c.success.successes}/${c.success.n})</td><td>${pct(c.success.lo)}-${pct(c.success.hi)}</td><td>${priced ? `${c.cost.mean.toFixed(unit === "USD" ? 4 : 0)} (${c.cost.low.toFixed(unit === "USD" ? 4 : 0)}-${c.cost.high.toFixed(unit === "USD" ? 4 : 0)})` : "n/a"}</td><td>${c.episodes}</td><td>${escapeHtml(fate)}</td></tr>`;
    });
  return `<section id="race"><h2>Race <span class="meta">(retrace tune)</span> <a class="sec-link" href="#race" title="link to this section">#</a></h2>
${r.simulated ? `<div class="banner">Simulated components: evidence about the simulation, not about any model.</div>` : ""}
<p><b>Objective:</b> ${escapeHtml(objectiveText({ objective: r.objective ?? "success", costLimit: r.costLimit }, r.costUnit ?? "tokens", r.objectiveKind))}</p>
<p><b>Decision:</b> ${escapeHtml(r.decision)}</p>
<p class="meta">${r.episodes} episodes; a grid of the same ${r.candidates.length} candidates at the same confidence: ${r.gridEpisodes} (${(r.episodes / Math.max(1, r.gridEpisodes)).toFixed(2)} of it). Eliminations: ${r.objective === "success-per-cost" ? `a paired bootstrap (${RATIO_BOOTSTRAP} resamples) of success per cost` : "McNemar's exact test"} against each round's best on shared (task, seed) units, Holm-adjusted over the round, alpha ${r.alpha}; ties within ${pct(r.tieMargin)} at 95%.</p>
<table><thead><tr><th>candidate</th><th>setting</th><th>success (successes/n)</th><th>95% CI</th><th>cost per episode, ${unit} (95% CI)</th><th>episodes run</th><th>fate</th></tr></thead><tbody>${rows.join("")}</tbody></table>
<h3>${escapeHtml(chart.title)}</h3><div class="chart"><canvas id="${escapeHtml(chart.id)}"></canvas></div>${chart.note ? `<p class="note">${escapeHtml(chart.note)}</p>` : ""}
</section>`;
}

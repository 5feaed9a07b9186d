/**
 * Chart.js configurations (plain JSON, rendered in the page by the inlined chart.js and the page
 * script's small plugins, see client.ts): success rates with 95% Wilson whiskers drawn on the bars
 * (`whiskers`), Success@K curves with their 95% bands (`band` datasets), sweep curves per retry
 * cap, stability rates, and the per-app breakdown. Labels are words (labels.ts), tooltips say n.
 */
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import type { ExperimentSummary } from "../runner/summary.ts";
import { conditionLabel } from "./labels.ts";

/** A chart for one canvas. */
export interface ChartSpec {
  id: string;
  title: string;
  /** One line under the chart saying how to read it. */
  note?: string;
  config: Record<string, unknown>;
}

export const COLORS = ["#2f6fdb", "#d9771f", "#2e9d5b", "#b8336a", "#7b5ea7", "#8a8a8a", "#c9a400", "#1b998b"];
const pct = (x: number) => Math.round(1000 * x) / 10;

/** "45.8% (11/24), 95% CI 27.9-64.9%". */
export function proportionText(p: Proportion): string {
  return `${pct(p.rate)}% (${p.successes}/${p.n}), 95% CI ${pct(p.lo)}-${pct(p.hi)}%`;
}

/** Axis options that keep category labels horizontal (multi-line labels wrap instead). */
export const FLAT_X = { ticks: { maxRotation: 0, minRotation: 0, autoSkip: false } };

/** Split a label into lines of at most ~18 characters at spaces/commas, for horizontal x labels. */
export function wrapLabel(text: string, width = 18): string[] {
  const out: string[] = [];
  let line = "";
  for (const w of text.split(/(?<=[, ])/)) {
    if (line && (line + w).trim().length > width) {
      out.push(line.trim());
      line = "";
    }
    line += w;
  }
  if (line.trim()) out.push(line.trim());
  return out;
}

/** Bars of proportions with their 95% intervals as whiskers on each bar. */
export function proportionBars(input: {
  id: string;
  title: string;
  note?: string;
  labels: string[];
  series: Array<{ label: string; values: Array<Proportion | null>; color?: string }>;
  yTitle?: string;
}): ChartSpec {
  return {
    id: input.id,
    title: input.title,
    ...(input.note ? { note: input.note } : {}),
    config: {
      type: "bar",
      data: {
        labels: input.labels.map((l) => wrapLabel(l)),
        datasets: input.series.map((s, i) => ({
          label: s.label,
          data: s.values.map((p) => (p && p.n > 0 ? pct(p.rate) : null)),
          whiskers: s.values.map((p) => (p && p.n > 0 ? [pct(p.lo), pct(p.hi)] : null)),
          tips: s.values.map((p) =>
            p && p.n > 0 ? `${s.label}: ${proportionText(p)}` : `${s.label}: n/a (no episodes)`,
          ),
          backgroundColor: s.color ?? COLORS[i % COLORS.length],
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: input.series.length > 1 } },
        scales: { x: FLAT_X, y: { min: 0, max: 100, title: { display: true, text: input.yTitle ?? "success (%)" } } },
      },
    },
  };
}

/** Success rate per condition, the 95% Wilson interval as a whisker on each bar. */
export function successChart(id: string, s: ExperimentSummary): ChartSpec {
  const conds = s.conditions.filter((c) => c.success.n > 0);
  return proportionBars({
    id,
    title: `${s.experiment}: success rate per condition`,
    note: "Bar = share of episodes the task checker scored as solved; whisker = 95% Wilson interval; n = scored episodes (environment errors excluded). Hover for counts.",
    labels: conds.map((c) => `${conditionLabel(c.condition)} (n=${c.success.n})`),
    series: [{ label: "success", values: conds.map((c) => c.success) }],
  });
}

/** Success@K curves, one line per recovery-step strategy, each with its 95% band. */
export function successAtKChart(id: string, s: ExperimentSummary): ChartSpec | undefined {
  if (!s.successAtK || s.successAtK.length === 0) return undefined;
  const k = Math.max(...s.successAtK.map((c) => c.curve.length));
  const datasets: Record<string, unknown>[] = [];
  s.successAtK.forEach((c, i) => {
    const color = COLORS[i % COLORS.length];
    const line = datasets.length;
    datasets.push({
      label: `${c.condition} (n=${c.instances} failed runs)`,
      data: c.curve.map((p) => pct(p.rate)),
      tips: c.curve.map((p, j) => `${c.condition}, Success@${j + 1}: ${proportionText(p)}`),
      borderColor: color,
      backgroundColor: color,
      tension: 0.1,
    });
    datasets.push({
      label: "",
      band: true,
      data: c.curve.map((p) => pct(p.lo)),
      borderWidth: 0,
      pointRadius: 0,
      backgroundColor: "transparent",
      fill: false,
    });
    datasets.push({
      label: "",
      band: true,
      data: c.curve.map((p) => pct(p.hi)),
      borderWidth: 0,
      pointRadius: 0,
      backgroundColor: `${color}33`,
      fill: { target: line + 1 },
    });
  });
  return {
    id,
    title: `${s.experiment}: Success@K per recovery step`,
    note: "Success@K = share of failed forward runs that succeed in at least one of K continuations resumed from the recovery step; band = 95% Wilson interval; n = failed runs.",
    config: {
      type: "line",
      data: { labels: Array.from({ length: k }, (_, i) => `K = ${i + 1}`), datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: FLAT_X, y: { min: 0, max: 100, title: { display: true, text: "Success@K (%)" } } },
      },
    },
  };
}

/** Sweep: success rate against the swept setting, one line per setting of max recovery iterations, baseline dashed. */
export function sweepChart(id: string, s: ExperimentSummary): ChartSpec | undefined {
  if (s.kind !== "sweep") return undefined;
  const rows = s.conditions.filter((c) => c.condition !== "no-recovery");
  const settingOf = (p: Record<string, unknown>) =>
    Object.entries(p)
      .filter(([k]) => k !== "maxRecoveryIterations")
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
  const settings = [...new Set(rows.map((c) => settingOf(c.params)))];
  const caps = [...new Set(rows.map((c) => String(c.params.maxRecoveryIterations)))];
  const base = s.conditions.find((c) => c.condition === "no-recovery");
  const datasets: Record<string, unknown>[] = caps.map((cap, i) => {
    const cs = settings.map((st) =>
      rows.find((r) => settingOf(r.params) === st && String(r.params.maxRecoveryIterations) === cap),
    );
    return {
      label: `max recovery iterations ${cap}`,
      data: cs.map((c) => (c ? pct(c.success.rate) : null)),
      whiskers: cs.map((c) => (c ? [pct(c.success.lo), pct(c.success.hi)] : null)),
      tips: cs.map((c) => (c ? `max recovery iterations ${cap}: ${proportionText(c.success)}` : "n/a")),
      borderColor: COLORS[i % COLORS.length],
      backgroundColor: COLORS[i % COLORS.length],
    };
  });
  if (base)
    datasets.push({
      label: `no recovery (${proportionText(base.success)})`,
      data: settings.map(() => pct(base.success.rate)),
      borderColor: "#888",
      borderDash: [6, 4],
      pointRadius: 0,
    });
  return {
    id,
    title: `${s.experiment}: success rate across the sweep`,
    note: "Each point = success rate of one setting (whisker = 95% Wilson interval); dashed = the no-recovery baseline.",
    config: {
      type: "line",
      data: { labels: settings.map((st) => wrapLabel(conditionLabel(st))), datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: FLAT_X, y: { min: 0, max: 100, title: { display: true, text: "success (%)" } } },
      },
    },
  };
}

/** Stability metrics per condition as grouped bars (rates in %). */
export function stabilityChart(id: string, s: ExperimentSummary): ChartSpec {
  const conds = s.conditions.filter((c) => c.stability.trajectories > 0);
  const ds = (label: string, f: (c: (typeof conds)[number]) => number | null, color: string) => ({
    label,
    data: conds.map((c) => {
      const v = f(c);
      return v === null ? null : pct(v);
    }),
    backgroundColor: color,
  });
  return {
    id,
    title: `${s.experiment}: process stability (labels from ${[...new Set(conds.flatMap((c) => c.stability.sources))].join(" + ") || "n/a"})`,
    note: "Deviation rate = share of steps off the reference path; loop incidence = share of runs that repeat a state transition; recovery ability = share of deviations that came back on track.",
    config: {
      type: "bar",
      data: {
        labels: conds.map((c) => wrapLabel(`${conditionLabel(c.condition)} (n=${c.stability.trajectories})`)),
        datasets: [
          ds("deviation rate (% of steps)", (c) => c.stability.deviationRate, "#d9771f"),
          ds("loop incidence (% of runs)", (c) => c.stability.loopIncidence, "#7b5ea7"),
          ds("recovery ability (% of deviations)", (c) => c.stability.recoveryAbility, "#2e9d5b"),
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { x: FLAT_X, y: { min: 0, max: 100, title: { display: true, text: "%" } } },
      },
    },
  };
}

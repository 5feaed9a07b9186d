/**
 * Chart.js configurations (plain JSON, rendered in the page by the inlined chart.js): success
 * rates with 95% intervals, Success@K curves, sweep curves per retry cap.
 */
import type { ExperimentSummary } from "../runner/summary.ts";

/** A chart for one canvas. */
export interface ChartSpec {
  id: string;
  title: string;
  config: Record<string, unknown>;
}

const COLORS = ["#2f6fdb", "#d9771f", "#2e9d5b", "#b8336a", "#7b5ea7", "#8a8a8a", "#c9a400", "#1b998b"];
const pct = (x: number) => Math.round(1000 * x) / 10;

/** Bar chart of success rate per condition with a floating 95% CI bar beside it. */
export function successChart(id: string, s: ExperimentSummary): ChartSpec {
  const conds = s.conditions.filter((c) => c.success.n > 0);
  return {
    id,
    title: `${s.experiment}: success rate per condition (95% Wilson CI)`,
    config: {
      type: "bar",
      data: {
        labels: conds.map((c) => c.condition),
        datasets: [
          { label: "success rate %", data: conds.map((c) => pct(c.success.rate)), backgroundColor: "#2f6fdb" },
          { label: "95% CI %", data: conds.map((c) => [pct(c.success.lo), pct(c.success.hi)]), backgroundColor: "rgba(217,119,31,0.45)" },
        ],
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100, title: { display: true, text: "%" } } } },
    },
  };
}

/** Success@K curves, one line per recovery-step strategy. */
export function successAtKChart(id: string, s: ExperimentSummary): ChartSpec | undefined {
  if (!s.successAtK || s.successAtK.length === 0) return undefined;
  const k = Math.max(...s.successAtK.map((c) => c.curve.length));
  return {
    id,
    title: `${s.experiment}: Success@K per recovery step (failed forward runs)`,
    config: {
      type: "line",
      data: {
        labels: Array.from({ length: k }, (_, i) => `K=${i + 1}`),
        datasets: s.successAtK.map((c, i) => ({ label: `${c.condition} (n=${c.instances})`, data: c.curve.map((p) => pct(p.rate)), borderColor: COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length], tension: 0.1 })),
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100, title: { display: true, text: "Success@K %" } } } },
    },
  };
}

/** Sweep: success rate against the swept setting, one line per retry cap, baseline dashed. */
export function sweepChart(id: string, s: ExperimentSummary): ChartSpec | undefined {
  if (s.kind !== "sweep") return undefined;
  const rows = s.conditions.filter((c) => c.condition !== "no-recovery");
  const settingOf = (p: Record<string, unknown>) => Object.entries(p).filter(([k]) => k !== "maxRecoveryIterations").map(([k, v]) => `${k}=${v}`).join(", ");
  const settings = [...new Set(rows.map((c) => settingOf(c.params)))];
  const caps = [...new Set(rows.map((c) => String(c.params.maxRecoveryIterations)))];
  const base = s.conditions.find((c) => c.condition === "no-recovery");
  const datasets: Record<string, unknown>[] = caps.map((cap, i) => ({
    label: `retry cap ${cap}`,
    data: settings.map((st) => {
      const c = rows.find((r) => settingOf(r.params) === st && String(r.params.maxRecoveryIterations) === cap);
      return c ? pct(c.success.rate) : null;
    }),
    borderColor: COLORS[i % COLORS.length],
    backgroundColor: COLORS[i % COLORS.length],
  }));
  if (base) datasets.push({ label: "no recovery", data: settings.map(() => pct(base.success.rate)), borderColor: "#888", borderDash: [6, 4], pointRadius: 0 });
  return {
    id,
    title: `${s.experiment}: success rate across the sweep`,
    config: {
      type: "line",
      data: { labels: settings, datasets },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100, title: { display: true, text: "success %" } } } },
    },
  };
}

/** Stability metrics per condition as grouped bars (rates in %). */
export function stabilityChart(id: string, s: ExperimentSummary): ChartSpec {
  const conds = s.conditions.filter((c) => c.stability.trajectories > 0);
  const ds = (label: string, f: (c: (typeof conds)[number]) => number | null, color: string) => ({ label, data: conds.map((c) => { const v = f(c); return v === null ? null : pct(v); }), backgroundColor: color });
  return {
    id,
    title: `${s.experiment}: process stability (GraceBench-style; labels from ${[...new Set(conds.flatMap((c) => c.stability.sources))].join(" + ") || "n/a"})`,
    config: {
      type: "bar",
      data: {
        labels: conds.map((c) => c.condition),
        datasets: [
          ds("deviation rate %", (c) => c.stability.deviationRate, "#d9771f"),
          ds("loop incidence %", (c) => c.stability.loopIncidence, "#7b5ea7"),
          ds("recovery ability %", (c) => c.stability.recoveryAbility, "#2e9d5b"),
        ],
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { y: { min: 0, max: 100 } } },
    },
  };
}

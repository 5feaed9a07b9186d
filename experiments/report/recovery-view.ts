/**
 * The recovery-evaluation files as charts and labelled tables: recovery success by context x
 * distance d x budget r (whiskers = 95% CI), implicit vs explicit recovery, and oracle agreement
 * as one confusion matrix per oracle with Cohen's kappa. Other files fall back to generic tables
 * with worded headers. Returns HTML (every string escaped) and chart specs.
 */
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { proportionBars, type ChartSpec } from "./charts.ts";
import type { ExtraFile } from "./data.ts";
import { escapeHtml, jsonTables } from "./html.ts";

/** "0.667 [0.354, 0.879] (n=9)" -> a proportion (null when the text is not one). */
export function parseCi(text: unknown): Proportion | null {
  const m = typeof text === "string" ? /^(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\](?: \(n=(\d+)\))?/.exec(text) : null;
  if (!m) return null;
  const n = m[4] ? Number(m[4]) : 0;
  const rate = Number(m[1]);
  return { rate, lo: Number(m[2]), hi: Number(m[3]), n, successes: Math.round(rate * n) };
}

const pct = (p: Proportion | null) =>
  p && p.n > 0
    ? `${(100 * p.rate).toFixed(1)}% [${(100 * p.lo).toFixed(0)}-${(100 * p.hi).toFixed(0)}%] (n=${p.n})`
    : "n/a";
const th = (cells: string[]) => `<tr>${cells.map((c) => `<th>${escapeHtml(c)}</th>`).join("")}</tr>`;
const td = (cells: Array<string | number>) => `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`;

interface TableRow {
  policy: string;
  variant: string;
  context: string;
  r: number;
  d: number;
  n: number;
  successCi: string;
  ro: number;
  rtc: number;
  meanSteps: number;
  excluded: number;
  intentCi?: string;
  similarityIntentCi?: string;
}
interface IvERow {
  d: number;
  r: number;
  n: number;
  implicit: string;
  explicit: string;
  gain: number;
}
interface AgreementRow {
  noise: string;
  oracle: string;
  n: number;
  agreementCi: string;
  fprCi: string;
  fnrCi: string;
  kappa: number | null;
  kappaCi: string | null;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

function recoveryEval(e: ExtraFile, id: string): { html: string; charts: ChartSpec[] } {
  const d = e.data as {
    table?: TableRow[];
    implicitVsExplicit?: IvERow[];
    label?: string;
    threshold?: number;
    trajectoryStages?: unknown;
    datasetStages?: unknown;
  };
  const rows = d.table ?? [];
  const charts: ChartSpec[] = [];
  const cells = [...new Set(rows.map((r) => `d=${r.d}, r=${r.r}`))];
  const variants = [...new Set(rows.map((r) => r.variant))];
  if (rows.length) {
    charts.push(
      proportionBars({
        id: `${id}-ctx`,
        title: "Recovery success by context, distance d and recovery budget r",
        note: "Success = the restored screen matches the target (R_O: SSIM at or above the threshold) AND the next step behaves as from the target (R_TC). d = steps between the target and the error; r = recovery steps allowed. Whisker = 95% Wilson interval.",
        labels: cells.map((c) => c.replace("d=", "distance ").replace("r=", "budget ")),
        series: variants.map((v) => ({
          label: v,
          values: cells.map((c) => parseCi(rows.find((r) => r.variant === v && `d=${r.d}, r=${r.r}` === c)?.successCi)),
        })),
      }),
    );
  }
  const ive = d.implicitVsExplicit ?? [];
  if (ive.length) {
    charts.push(
      proportionBars({
        id: `${id}-ive`,
        title: "Implicit vs explicit recovery",
        note: "Implicit = the forward agent itself, told nothing; explicit = a recovery agent told to restore the target (context 0-E). Whisker = 95% Wilson interval.",
        labels: ive.map((r) => `distance ${r.d}, budget ${r.r}`),
        series: [
          { label: "implicit", values: ive.map((r) => parseCi(r.implicit)) },
          { label: "explicit", values: ive.map((r) => parseCi(r.explicit)) },
        ],
      }),
    );
  }
  const table = rows.length
    ? `<table>${th(["recoverer", "context", "distance d (steps)", "recovery budget r (steps)", "success (95% CI)", "R_O passes (%)", "R_TC passes (%)", "mean recovery steps", "not judged (runs)"])}${rows
        .map((r) =>
          td([
            r.policy,
            r.context,
            r.d,
            r.r,
            pct(parseCi(r.successCi)),
            `${(100 * r.ro).toFixed(0)}%`,
            `${(100 * r.rtc).toFixed(0)}%`,
            r.meanSteps.toFixed(1),
            r.excluded,
          ]),
        )
        .join("")}</table>`
    : "";
  return {
    html: `${d.label ? `<p class="meta">${escapeHtml(d.label)}</p>` : ""}${charts.map(canvas).join("")}<details><summary>All cells</summary>${table}</details>${d.trajectoryStages || d.datasetStages ? `<details><summary>How the dataset was built (trajectory and sample funnel)</summary>${d.trajectoryStages ? jsonTables(d.trajectoryStages) : ""}${d.datasetStages ? jsonTables(d.datasetStages) : ""}</details>` : ""}`,
    charts,
  };
}

function oracleAgreement(e: ExtraFile): string {
  const d = e.data as {
    agreement?: AgreementRow[];
    truth?: string;
    masks?: string;
    winRates?: Array<{ baseline: string; disagreements: number; oracleWins: number; winRateCi: string }>;
  };
  const rows = d.agreement ?? [];
  const matrices = rows
    .map(
      (
        r,
      ) => `<div class="cm"><h4>${escapeHtml(r.oracle)} <span class="meta">(screen noise ${escapeHtml(r.noise)}, n=${r.n})</span></h4>
<table class="matrix"><tr><th></th><th>truly recovered</th><th>not recovered</th></tr>
<tr><th>oracle: recovered</th><td class="ok">${r.tp}</td><td class="err">${r.fp}</td></tr>
<tr><th>oracle: failed</th><td class="err">${r.fn}</td><td class="ok">${r.tn}</td></tr></table>
<p class="meta">Cohen's kappa ${escapeHtml(r.kappa === null ? "n/a" : (r.kappaCi ?? String(r.kappa)))}; agreement ${escapeHtml(pct(parseCi(r.agreementCi)))}; false-positive rate ${escapeHtml(pct(parseCi(r.fprCi)))}</p></div>`,
    )
    .join("");
  // Human labels only (paper Table 1): where R_O AND R_TC and another oracle disagree, whose side the labels take.
  const wins = d.winRates?.length
    ? `<h4>Win rates of R_O AND R_TC where it disagrees with another oracle (paper Table 1)</h4><table><thead><tr><th>other oracle</th><th>disagreements (runs)</th><th>labels side with R_O AND R_TC (runs)</th><th>win rate (95% CI)</th></tr></thead><tbody>${d.winRates
        .map(
          (w) =>
            `<tr><td>${escapeHtml(w.baseline)}</td><td>${w.disagreements}</td><td>${w.oracleWins}</td><td>${escapeHtml(w.disagreements ? w.winRateCi : "n/a")}</td></tr>`,
        )
        .join("")}</tbody></table>`
    : "";
  return `<p class="meta">Each matrix counts recovery runs by what the oracle said and what was true. ${escapeHtml(d.truth ?? "")} Kappa: agreement beyond chance (0 = chance, 1 = perfect; 95% interval).</p><div class="cms">${matrices}</div>${wins}${d.masks ? `<p class="meta">${escapeHtml(d.masks)}</p>` : ""}`;
}

function canvas(c: ChartSpec): string {
  return `<h4>${escapeHtml(c.title)}</h4><div class="chart"><canvas id="${escapeHtml(c.id)}"></canvas></div>${c.note ? `<p class="note">${escapeHtml(c.note)}</p>` : ""}`;
}

/** HTML and charts for the recovery-evaluation files. */
export function recoveryEvalView(extras: readonly ExtraFile[]): { html: string; charts: ChartSpec[] } {
  const charts: ChartSpec[] = [];
  const parts = extras.map((e, i) => {
    const kind = (e.data as { kind?: unknown } | null)?.kind;
    let body: string;
    if (kind === "recovery-eval") {
      const v = recoveryEval(e, `re-${i}`);
      charts.push(...v.charts);
      body = v.html;
    } else if (kind === "oracle-agreement") body = oracleAgreement(e);
    else body = jsonTables(e.data);
    return `<h3>${escapeHtml(kind === "recovery-eval" ? "Recovery success" : kind === "oracle-agreement" ? "Oracle agreement with the truth" : e.name)} <span class="meta">${escapeHtml(e.rel)}</span></h3>${body}`;
  });
  return { html: parts.join(""), charts };
}

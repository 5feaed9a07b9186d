/**
 * The report's table of contents, at the top of the page: the findings, each run (with links to
 * its conditions table and stability metrics), the recovery evaluation and the trajectory viewer.
 * Every section heading also carries its own "#" link (html.ts), so any part can be linked to.
 */
const escapeHtml = (v: string) =>
  v.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

/** The sections a report has. */
export interface TocInput {
  findings: boolean;
  runs: Array<{ id: string; title: string; kind: string }>;
  recoveryEval: boolean;
  viewer: boolean;
  /** A `retrace tune` folder's race section. */
  race?: boolean;
}

/** The `<nav>` listing the report's sections. */
export function tableOfContents(t: TocInput): string {
  const item = (href: string, text: string, sub = "") =>
    `<li><a href="#${escapeHtml(href)}">${escapeHtml(text)}</a>${sub}</li>`;
  const runs = t.runs.map((r) =>
    item(
      r.id,
      `${r.title} (${r.kind})`,
      `<span class="toc-sub"> <a href="#${escapeHtml(r.id)}-conditions">conditions</a> &middot; <a href="#${escapeHtml(r.id)}-stability">stability</a></span>`,
    ),
  );
  return `<nav id="toc" aria-label="contents"><b>Contents</b><ul>${[
    t.viewer ? item("trajectory-viewer", "Trajectory viewer") : "",
    t.findings ? item("findings", "Do the paper's findings hold here?") : "",
    t.race ? item("race", "Race (retrace tune)") : "",
    ...runs,
    t.recoveryEval ? item("recovery-eval", "Recovery evaluation") : "",
  ].join("")}</ul></nav>`;
}

/** A heading's own link ("#"), placed after its text. */
export function sectionLink(id: string): string {
  return ` <a class="sec-link" href="#${escapeHtml(id)}" title="link to this section">#</a>`;
}

/** The styles of the contents and section links. */
export const TOC_CSS = `
#toc{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:8px 18px;margin:12px 0}#toc ul{margin:4px 0;padding-left:18px;columns:2 320px}#toc li{margin:1px 0;break-inside:avoid}
.toc-sub{font-size:12px;color:#5b6475}a.sec-link{color:#9aa5b8;text-decoration:none;font-weight:400}a.sec-link:hover{color:#2f6fdb}
`;

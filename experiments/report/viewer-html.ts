/**
 * The trajectory viewer's skeleton (filled in by the page script, client.ts and
 * client-panels.ts): filters with a text search and a seed filter, the legend of everything drawn
 * (numbering, chip colours, frozen chips, E/R badges), the step panels (the step, the context
 * after a cut, its model calls, the accessibility tree) and the events. Static text only.
 */

/** The legend: one numbering, stated once, and every mark the viewer draws. */
export const VIEWER_LEGEND = `<div class="legend" id="viewer-legend">
<div><b>Step numbers</b> count every step of an episode from 0 in the order it ran (forward, recovery and replay steps alike, never restarting after a restoration). Chips, the step panel, badges, events, model calls and deep links all use these numbers; the first error E and the recovery step R are shown as the steps they point to.</div>
<div class="legend-items">
<span><button class="chip forward" tabindex="-1"><span class="n">4</span></button> forward step</span>
<span><button class="chip recovery" tabindex="-1"><span class="n">5</span></button> recovery step</span>
<span><button class="chip replay" tabindex="-1"><span class="n">6</span></button> replayed step</span>
<span><button class="chip forward flagged" tabindex="-1"><span class="n">7</span></button> the detector said off track here</span>
<span><button class="chip forward offtrack" tabindex="-1"><span class="n">3</span></button> underlined red: went off track here, by the environment's ground truth (SimDesk only; failed episodes)</span>
<span><button class="chip forward frozen" tabindex="-1"><span class="n">8</span></button> greyed: detector not consulted (freeze window after a recovery)</span>
<span><button class="chip forward after-cut" tabindex="-1"><span class="n">9</span></button> first step after a history cut (its context is shown)</span>
<span><button class="chip forward" tabindex="-1"><span class="n">2</span><span class="flags"><span class="flag E">E1</span><span class="flag R">R1</span></span></button> E<i>n</i> = first error found by recovery attempt <i>n</i>; R<i>n</i> = the step it went back to (target: the screen before it)</span>
<span><span class="swatch current"></span> step shown</span>
</div>
<div>On the screenshot: circle = click, dashed line = drag, dark box = typed text or keys. Events of the step shown are highlighted.</div>
</div>`;

/** The viewer's section. */
export function viewerSection(n: number): string {
  return `<section id="trajectory-viewer"><h2>Trajectory viewer <span class="meta">(${n} episodes)</span> <a class="sec-link" href="#trajectory-viewer" title="link to this section">#</a></h2>
<p class="note">Filter or search, then pick an episode; step with the buttons or the arrow keys; click the screenshot to zoom. The address bar links to the episode and step shown (#run/condition/task/seed/step).</p>
${VIEWER_LEGEND}
${
  n === 0
    ? "<p>No episodes with a trajectory record in this folder.</p>"
    : `<div class="filters">
<label>search <input id="f-search" type="search" placeholder="words of a task, instruction, action, reason or reply"></label>
<label>run <select id="f-run"></select></label><label>condition <select id="f-condition"></select></label><label>task <select id="f-task"></select></label><label>seed <select id="f-seed"></select></label>
<label>outcome <select id="f-outcome"><option value="">any</option><option value="success">solved</option><option value="failure">failed</option></select></label>
<label>recovery <select id="f-recovery"><option value="">any</option><option value="yes">had a recovery</option><option value="no">no recovery</option></select></label>
<span id="f-count" class="meta"></span></div>
<select id="episode-select" aria-label="episode"></select>
<div id="viewer"><div id="viewer-lanes"></div>
<div><div><button class="nav" id="viewer-prev">&larr; prev</button><button class="nav" id="viewer-next">next &rarr;</button><button class="nav" id="viewer-toggle">show before</button> <span id="viewer-which" class="meta"></span></div><div class="shotbox" id="viewer-box"><img id="viewer-shot" alt=""><svg id="viewer-marks"></svg></div><div id="viewer-a11y"></div></div>
<div><div id="viewer-result"></div><h3>Step</h3><div id="viewer-info"></div><div id="viewer-context"></div><div id="viewer-calls"></div><h3>Events</h3><div id="viewer-events"></div><div id="viewer-restore"></div></div></div>
<div id="compare"></div>`
}
</section>`;
}

/** The viewer's styles (appended to the page's). */
export const VIEWER_CSS = `
.legend{font-size:12.5px;color:#3b4352;background:#f6f7f9;border:1px solid #dde1e7;border-radius:6px;padding:6px 10px;margin:6px 0}
.legend-items{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0;align-items:center}.legend .chip{cursor:default}
.swatch{display:inline-block;width:22px;height:16px;vertical-align:middle;border-radius:3px}.swatch.current{outline:3px solid #1d2330;background:#e9eef7}
.chip{display:inline-flex;align-items:center;gap:2px;flex-wrap:nowrap}.chip .flags{display:inline-flex;gap:1px;margin-left:2px}
.chip .flag{position:static;font-size:9px;line-height:12px}.chip.frozen{opacity:1;background:#eceff3;color:#8a93a3;border-style:dashed}
.chip.after-cut{box-shadow:inset 0 -3px 0 #2e9d5b}
.evt.here{border-left-color:#1d2330;background:#e9eef7;font-weight:600}
.msg{border-left:3px solid #c8ced8;padding:2px 6px;margin:3px 0}.msg.system{border-color:#7b5ea7}.msg.assistant{border-color:#2e9d5b}.msg.user{border-color:#2f6fdb}
.msg-role{font-size:11px;color:#5b6475}img.thumb{max-width:160px;border:1px solid #c8ced8;cursor:zoom-in;display:block;margin:2px 0}img.thumb.big{max-width:100%;cursor:zoom-out}
ul.ctx{margin:4px 0;padding-left:18px;font-size:12.5px}ul.ctx li.dropped{color:#b3261e;text-decoration:line-through}ul.ctx li.added{color:#1e7a44;font-weight:600}
pre.diff-text .del{color:#b3261e;background:#fbe3e1;display:block}pre.diff-text .ins{color:#1e7a44;background:#e4f3ea;display:block}pre.diff-text .same{color:#5b6475;display:block}
.instr.pre{white-space:pre-wrap}.instr.about{color:#1d2330}a.deeplink{font-size:12px}
#viewer-calls details.call{margin:3px 0;border:1px solid #dde1e7;border-radius:4px;padding:2px 6px}#viewer-calls summary{cursor:pointer;overflow-wrap:anywhere}
#f-search{width:220px;max-width:100%}
`;

/**
 * The report page's own script (runs in the browser): draws the charts with the inlined chart.js
 * and drives the trajectory viewer. All text reaches the DOM through textContent, never innerHTML,
 * so model output cannot inject markup.
 */
export const CLIENT_JS = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // Charts
  var drawn = 0;
  (data.charts || []).forEach(function (spec) {
    var canvas = document.getElementById(spec.id);
    if (!canvas || typeof Chart === "undefined") return;
    new Chart(canvas, spec.config);
    drawn++;
  });
  document.body.setAttribute("data-charts", String(drawn));

  // Trajectory viewer
  var episodes = data.episodes || [];
  var images = data.images || [];
  var select = document.getElementById("episode-select");
  var lanes = document.getElementById("viewer-lanes");
  var shot = document.getElementById("viewer-shot");
  var info = document.getElementById("viewer-info");
  var result = document.getElementById("viewer-result");
  var which = document.getElementById("viewer-which");
  if (!select || episodes.length === 0) return;
  var ep = null, cur = 0, showBefore = false;
  episodes.forEach(function (e, i) {
    var o = el("option", null, e.label);
    o.value = String(i);
    select.appendChild(o);
  });
  function eventsAfter(seq) {
    return ep.events.filter(function (e) { return e.afterSeq === seq; });
  }
  function drawLanes() {
    lanes.textContent = "";
    var rows = { forward: el("div", "lane"), branch: el("div", "lane branch") };
    rows.forward.appendChild(el("span", "lane-label", "forward"));
    rows.branch.appendChild(el("span", "lane-label", "recovery / replay"));
    ep.steps.forEach(function (s, i) {
      var isFwd = s.role === "forward";
      var chip = el("button", "chip " + s.role + (s.detection && s.detection.isError ? " flagged" : "") + (s.frozen ? " frozen" : "") + (i === cur ? " current" : ""), (isFwd ? "t" : s.role === "replay" ? "r" : "a") + s.step);
      chip.title = s.role + " step " + s.step + ": " + s.actions.join(" ");
      chip.setAttribute("data-index", String(i));
      chip.onclick = function () { show(i); };
      var gap = el("span", "chip gap", "");
      (isFwd ? rows.forward : rows.branch).appendChild(chip);
      (isFwd ? rows.branch : rows.forward).appendChild(gap);
      eventsAfter(s.seq).forEach(function (e) {
        var mark = el("span", "mark " + e.kind, e.kind === "truncate" ? "\u2702" : e.kind === "recovery-start" ? "\u21b6" : e.kind === "recovery-end" ? "\u21b7" : "\u21ba");
        mark.title = e.kind + " " + e.detail;
        rows.forward.appendChild(mark);
        rows.branch.appendChild(el("span", "mark gap", ""));
      });
    });
    lanes.appendChild(rows.forward);
    lanes.appendChild(rows.branch);
  }
  function row(dl, k, v) {
    dl.appendChild(el("dt", null, k));
    var dd = el("dd", null, v);
    dl.appendChild(dd);
    return dd;
  }
  function show(i) {
    cur = Math.max(0, Math.min(ep.steps.length - 1, i));
    var s = ep.steps[cur];
    var img = images[showBefore ? s.before : s.after];
    shot.src = img || "";
    shot.alt = img ? (showBefore ? "before" : "after") + " step " + s.step : "screenshot not available";
    which.textContent = (showBefore ? "before" : "after") + " " + s.role + " step " + s.step + " (" + (cur + 1) + "/" + ep.steps.length + ")";
    info.textContent = "";
    var dl = el("dl");
    row(dl, "role", s.role + (s.attempt ? " (attempt " + s.attempt + ")" : ""));
    row(dl, "step", String(s.step));
    row(dl, "actions", s.actions.join("  ") || "(none)");
    if (s.response !== undefined) row(dl, "response", s.response).className = "pre";
    if (s.failure) row(dl, "policy failure", s.failure);
    if (s.frozen) row(dl, "detector", "frozen (not consulted)");
    else if (s.detection) {
      var d = s.detection;
      row(dl, "detector", d.failure ? "failed: " + d.failure : d.isError ? "OFF TRACK from step " + d.errorStep + " (confidence " + d.confidence + ")" : "on track (confidence " + d.confidence + ")").className = d.isError ? "bad" : "good";
      row(dl, "reason", d.reason);
    }
    eventsAfter(s.seq).forEach(function (e) { row(dl, e.kind, e.detail); });
    info.appendChild(dl);
    Array.prototype.forEach.call(lanes.querySelectorAll(".chip[data-index]"), function (c) {
      c.classList.toggle("current", c.getAttribute("data-index") === String(cur));
    });
  }
  function open(i) {
    ep = episodes[i];
    cur = 0;
    drawLanes();
    result.textContent = "";
    result.appendChild(el("strong", ep.success ? "good" : "bad", ep.success ? "SUCCESS" : "FAILURE"));
    result.appendChild(el("span", null, " oracle score " + ep.score + ", stopped: " + ep.stopReason + (ep.detail ? " - " + ep.detail : "") + (ep.simulated ? " [simulated]" : "")));
    result.appendChild(el("div", "instr", "Task: " + ep.instruction));
    if (ep.extra) result.appendChild(el("div", "instr", JSON.stringify(ep.extra)));
    show(0);
  }
  select.onchange = function () { open(Number(select.value)); };
  document.getElementById("viewer-prev").onclick = function () { show(cur - 1); };
  document.getElementById("viewer-next").onclick = function () { show(cur + 1); };
  document.getElementById("viewer-toggle").onclick = function () { showBefore = !showBefore; show(cur); };
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") show(cur + 1);
    if (e.key === "ArrowLeft") show(cur - 1);
  });
  open(0);
  document.body.setAttribute("data-viewer", "ready");
})();
`;

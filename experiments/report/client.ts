/**
 * The report page's own script (runs in the browser): draws the charts with the inlined chart.js
 * (plus two small plugins: 95% whiskers on bars and points, and legends that hide CI bands) and
 * drives the trajectory viewer: filters over the index of every episode, episodes loaded on demand
 * from their chunk file, segments per forward run / recovery attempt / replay, screenshots with the
 * action drawn on them, events as sentences, the same task across conditions. All text reaches the
 * DOM through textContent, never innerHTML, so model output cannot inject markup.
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
  // Charts: whiskers = dataset.whiskers[i] = [lo, hi] in data units, drawn over each bar or point.
  var whiskers = 0;
  var whiskerPlugin = {
    id: "retraceWhiskers",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, y = chart.scales.y;
      chart.data.datasets.forEach(function (ds, di) {
        if (!ds.whiskers || !chart.isDatasetVisible(di)) return;
        chart.getDatasetMeta(di).data.forEach(function (elm, i) {
          var w = ds.whiskers[i];
          if (!w || !elm) return;
          var x = elm.x, lo = y.getPixelForValue(w[0]), hi = y.getPixelForValue(w[1]);
          var cap = Math.max(3, Math.min(8, (elm.width || 12) / 4));
          ctx.save();
          ctx.strokeStyle = "#1d2330";
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(x, lo); ctx.lineTo(x, hi);
          ctx.moveTo(x - cap, lo); ctx.lineTo(x + cap, lo);
          ctx.moveTo(x - cap, hi); ctx.lineTo(x + cap, hi);
          ctx.stroke();
          ctx.restore();
          whiskers++;
        });
      });
      document.body.setAttribute("data-whiskers", String(whiskers));
    },
  };
  var drawn = 0;
  (data.charts || []).forEach(function (spec) {
    var canvas = document.getElementById(spec.id);
    if (!canvas || typeof Chart === "undefined") return;
    var cfg = spec.config;
    cfg.options = cfg.options || {};
    var plugins = (cfg.options.plugins = cfg.options.plugins || {});
    plugins.legend = plugins.legend || {};
    plugins.legend.labels = { filter: function (item, d) { return !d.datasets[item.datasetIndex].band; } };
    plugins.tooltip = {
      filter: function (item) { return !item.dataset.band; },
      callbacks: { label: function (c) { var t = c.dataset.tips; return t && t[c.dataIndex] ? t[c.dataIndex] : c.dataset.label + ": " + c.formattedValue; } },
    };
    cfg.plugins = [whiskerPlugin];
    new Chart(canvas, cfg);
    drawn++;
  });
  document.body.setAttribute("data-charts", String(drawn));

  // Trajectory viewer
  var viewer = data.viewer || { index: [], chunkDir: "" };
  var index = viewer.index;
  var select = document.getElementById("episode-select");
  if (!select || index.length === 0) return;
  var $ = function (id) { return document.getElementById(id); };
  var lanes = $("viewer-lanes"), shot = $("viewer-shot"), box = $("viewer-box"), svg = $("viewer-marks"), info = $("viewer-info");
  var result = $("viewer-result"), which = $("viewer-which"), events = $("viewer-events"), restore = $("viewer-restore"), compare = $("compare");
  var chunks = {}, waiting = {};
  window.__retraceChunk = function (n, eps) {
    // a chunk leaves out a step's "before" when it is the previous step's "after"
    eps.forEach(function (e) { e.steps.forEach(function (s, i) { if (s.before === undefined && i > 0) s.before = e.steps[i - 1].after; }); });
    chunks[n] = eps;
    (waiting[n] || []).forEach(function (f) { f(eps); });
    delete waiting[n];
  };
  function loadChunk(n) {
    return new Promise(function (resolve, reject) {
      if (chunks[n]) return resolve(chunks[n]);
      if (waiting[n]) return waiting[n].push(resolve);
      waiting[n] = [resolve];
      var s = document.createElement("script");
      s.src = viewer.chunkDir + "/chunk-" + n + ".js";
      s.onerror = function () { delete waiting[n]; reject(new Error("could not load " + s.src + ": keep the report's -files folder beside it")); };
      document.head.appendChild(s);
    });
  }
  // Screens the run keeps as gzipped SVG ("screen:<ref>") come from screen packs (script files,
  // so a page opened from disk can load them), unzipped on first use and shown as SVG.
  var packs = {}, packWaiting = {}, screenUrls = {};
  window.__retraceScreens = function (prefix, m) {
    packs[prefix] = m;
    (packWaiting[prefix] || []).forEach(function (f) { f[0](m); });
    delete packWaiting[prefix];
  };
  function loadPack(prefix) {
    return new Promise(function (resolve, reject) {
      if (packs[prefix]) return resolve(packs[prefix]);
      if (packWaiting[prefix]) return packWaiting[prefix].push([resolve, reject]);
      packWaiting[prefix] = [[resolve, reject]];
      var s = document.createElement("script");
      s.src = viewer.chunkDir + "/screens/" + prefix + ".js";
      s.onerror = function () {
        var w = packWaiting[prefix] || [];
        delete packWaiting[prefix];
        w.forEach(function (f) { f[1](new Error("could not load " + s.src + ": keep the report's -files folder beside it")); });
      };
      document.head.appendChild(s);
    });
  }
  function screenUrl(src) {
    if (src.indexOf("screen:") !== 0) return Promise.resolve(src);
    var ref = src.slice(7);
    if (!screenUrls[ref]) {
      screenUrls[ref] = loadPack(ref.slice(0, 2)).then(function (m) {
        if (!m[ref]) throw new Error("screen " + ref.slice(0, 8) + " is missing from its pack");
        var bin = atob(m[ref]), bytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
      }).then(function (svgText) { return URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" })); });
    }
    return screenUrls[ref];
  }
  // data-src keeps the screenshot's name (blob path or screen:<ref>); src is set once it is ready.
  function setImage(img, src) {
    img.setAttribute("data-src", src || "");
    if (!src) { img.removeAttribute("src"); return; }
    screenUrl(src).then(function (u) { if (img.getAttribute("data-src") === src) img.src = u; }, function (err) { img.removeAttribute("src"); img.alt = String(err.message || err); });
  }
  // Filters
  var filters = { run: $("f-run"), condition: $("f-condition"), task: $("f-task"), outcome: $("f-outcome"), recovery: $("f-recovery") };
  ["run", "condition", "task"].forEach(function (k) {
    var values = [];
    index.forEach(function (r) { if (values.indexOf(r[k]) < 0) values.push(r[k]); });
    var any = el("option", null, "any (" + values.length + ")");
    any.value = "";
    filters[k].appendChild(any);
    values.sort().forEach(function (v) { var o = el("option", null, v); o.value = v; filters[k].appendChild(o); });
  });
  var shown = [];
  function labelOf(r) {
    return r.run + " | " + r.condition + " | " + r.task + " #" + r.seed + " | " + (r.success ? "solved" : "failed") + (r.recoveries ? ", " + r.recoveries + " recover" + (r.recoveries > 1 ? "ies" : "y") : "") + ", " + r.steps + " steps";
  }
  function applyFilters() {
    var f = {}; Object.keys(filters).forEach(function (k) { f[k] = filters[k].value; });
    shown = index.filter(function (r) {
      return (!f.run || r.run === f.run) && (!f.condition || r.condition === f.condition) && (!f.task || r.task === f.task) &&
        (!f.outcome || (f.outcome === "success") === r.success) && (!f.recovery || (f.recovery === "yes") === r.recoveries > 0);
    });
    select.textContent = "";
    shown.forEach(function (r, i) { var o = el("option", null, labelOf(r)); o.value = String(i); select.appendChild(o); });
    $("f-count").textContent = shown.length + " of " + index.length + " episodes";
    if (shown.length) openRow(shown[0]);
  }
  Object.keys(filters).forEach(function (k) { filters[k].onchange = applyFilters; });
  select.onchange = function () { openRow(shown[Number(select.value)]); };

  var row = null, ep = null, cur = 0, showBefore = false;
  function segTitle(s, afterRestore) {
    if (s.role === "recovery") return "recovery attempt " + (s.attempt || "?");
    if (s.role === "replay") return "replay" + (s.attempt ? " (attempt " + s.attempt + ")" : "");
    return afterRestore ? "forward (after restore" + (s.attempt ? " " + s.attempt : "") + ")" : "forward";
  }
  function drawLanes(target, episode, onPick, current) {
    target.textContent = "";
    var seg = null, lastKey = null, afterRestore = false;
    var cut = {};
    episode.events.forEach(function (e) { if (e.kind === "truncate" || e.kind === "recovery-end") cut[e.afterSeq] = true; });
    episode.steps.forEach(function (s, i) {
      var key = s.role + ":" + (s.role === "forward" ? "" : s.attempt);
      if (key !== lastKey || !seg) {
        seg = el("div", "seg " + s.role);
        seg.appendChild(el("div", "seg-title", segTitle(s, afterRestore)));
        seg.chips = el("div", "seg-chips");
        seg.appendChild(seg.chips);
        target.appendChild(seg);
        lastKey = key;
      }
      var chip = el("button", "chip " + s.role + (s.detection && s.detection.isError ? " flagged" : "") + (s.frozen ? " frozen" : "") + (i === current ? " current" : ""), s.n);
      chip.title = "episode step " + s.n + ": " + s.role + (s.role === "forward" ? " step " + s.step : " attempt " + s.attempt + ", step " + (s.step + 1)) + " - " + s.actions.join(" ");
      chip.setAttribute("data-index", String(i));
      (s.flags || []).forEach(function (f, j) { var b = el("span", "flag " + f.charAt(0), f); b.style.right = (-6 + 16 * j) + "px"; chip.appendChild(b); });
      if (onPick) chip.onclick = function () { onPick(i); };
      seg.chips.appendChild(chip);
      if (cut[s.seq]) { lastKey = null; afterRestore = true; }
    });
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function drawMarks(s) {
    svg.textContent = "";
    var w = shot.naturalWidth, h = shot.naturalHeight;
    if (!w || !h) return;
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("preserveAspectRatio", "none");
    if (box.classList.contains("zoom")) { svg.style.width = w + "px"; svg.style.height = h + "px"; } else { svg.style.width = ""; svg.style.height = ""; }
    s.marks.forEach(function (m) {
      if (m.t === "click") {
        svg.appendChild(svgEl("circle", { cx: m.x, cy: m.y, r: 14, fill: "rgba(179,38,30,0.25)", stroke: "#b3261e", "stroke-width": 3 }));
        svg.appendChild(svgEl("circle", { cx: m.x, cy: m.y, r: 3, fill: "#b3261e" }));
      } else if (m.t === "drag") {
        svg.appendChild(svgEl("line", { x1: m.x, y1: m.y, x2: m.x2, y2: m.y2, stroke: "#b3261e", "stroke-width": 4, "stroke-dasharray": "10 6" }));
        svg.appendChild(svgEl("circle", { cx: m.x2, cy: m.y2, r: 8, fill: "#b3261e" }));
      } else if (m.t === "text") {
        var x = m.x !== undefined ? m.x + 18 : 20, y = m.y !== undefined ? m.y + 28 : h - 40;
        var t = svgEl("text", { x: x + 8, y: y + 22, "font-size": 22, "font-family": "monospace", fill: "#fff" });
        t.textContent = m.text.length > 60 ? m.text.slice(0, 57) + "..." : m.text;
        var bg = svgEl("rect", { x: x, y: y, width: Math.min(w - x, 14 * Math.min(60, m.text.length) + 16), height: 32, rx: 4, fill: "rgba(29,35,48,0.85)" });
        svg.appendChild(bg);
        svg.appendChild(t);
      }
    });
  }
  function dlRow(dl, k, v) {
    dl.appendChild(el("dt", null, k));
    var dd = el("dd", null, v);
    dl.appendChild(dd);
    return dd;
  }
  function show(i) {
    if (!ep || !ep.steps.length) return;
    cur = Math.max(0, Math.min(ep.steps.length - 1, i));
    var s = ep.steps[cur];
    var src = showBefore ? s.before : s.after;
    shot.onload = function () { drawMarks(s); };
    setImage(shot, src);
    shot.alt = src ? (showBefore ? "screen before" : "screen after") + " episode step " + s.n : "screenshot not available";
    which.textContent = (showBefore ? "before" : "after") + " episode step " + s.n + " of " + ep.steps.length;
    $("viewer-toggle").textContent = showBefore ? "show after" : "show before";
    info.textContent = "";
    var dl = el("dl");
    dlRow(dl, "episode step", s.n + " of " + ep.steps.length);
    dlRow(dl, "role", s.role === "forward" ? "forward (task step " + s.step + ")" : s.role + " (attempt " + s.attempt + ", its step " + (s.step + 1) + ")");
    if (s.flags) dlRow(dl, "marked", s.flags.map(function (f) { return (f.charAt(0) === "E" ? "first error E of attempt " : "recovery step R of attempt ") + f.slice(1); }).join("; "));
    dlRow(dl, "actions", s.actions.join("  ") || "(none)");
    if (s.response !== undefined) dlRow(dl, "response", s.response).className = "pre";
    if (s.failure) dlRow(dl, "policy failure", s.failure);
    if (s.frozen) dlRow(dl, "detector", "frozen (not consulted)");
    else if (s.detection) {
      var d = s.detection;
      dlRow(dl, "detector", d.failure ? "failed: " + d.failure : d.isError ? "off track, first error at task step " + d.errorStep + " (confidence " + d.confidence + ")" : "on track (confidence " + d.confidence + ")").className = d.isError ? "bad" : "good";
      dlRow(dl, "reason", d.reason);
    }
    (s.calls || []).forEach(function (c, j) {
      var d = el("details", "call");
      d.appendChild(el("summary", null, "model call " + (j + 1) + ": " + c.role + (c.model ? " (" + c.model + ")" : "") + " - " + c.inputTokens + " in / " + c.outputTokens + " out tokens, " + (c.latencyMs === undefined ? "latency n/a" : c.latencyMs < 1000 ? Math.round(c.latencyMs) + " ms" : (c.latencyMs / 1000).toFixed(2) + " s") + ", " + (c.costUsd === undefined ? "cost n/a" : "$" + (c.costUsd >= 0.01 || c.costUsd === 0 ? c.costUsd.toFixed(4) : c.costUsd.toPrecision(2))) + (c.prompt ? ", prompt " + c.prompt : "")));
      d.appendChild(el("div", "meta", "prompt"));
      d.appendChild(el("pre", "call-text", c.request));
      d.appendChild(el("div", "meta", "reply"));
      d.appendChild(el("pre", "call-text", c.reply));
      dl.appendChild(el("dt", null, j === 0 ? "model calls" : ""));
      var dd = el("dd");
      dd.appendChild(d);
      dl.appendChild(dd);
    });
    info.appendChild(dl);
    Array.prototype.forEach.call(lanes.querySelectorAll(".chip[data-index]"), function (c) { c.classList.toggle("current", c.getAttribute("data-index") === String(cur)); });
  }
  function drawEvents() {
    events.textContent = "";
    restore.textContent = "";
    ep.events.forEach(function (e) {
      var d = el("div", "evt", e.text);
      var at = ep.steps.findIndex(function (s) { return s.seq === e.afterSeq; });
      if (at >= 0) { d.style.cursor = "pointer"; d.onclick = function () { show(at); }; }
      events.appendChild(d);
      if (e.target && e.restored) {
        restore.appendChild(el("h4", null, e.text.split(":")[0] + ": target vs restored screen"));
        var pair = el("div", "pair");
        [["target (the screen at the recovery step R)", e.target], ["restored (after the recovery attempt)", e.restored]].forEach(function (p) {
          var f = el("figure"); f.style.margin = "0";
          var img = el("img"); img.alt = p[0]; img.loading = "lazy"; setImage(img, p[1]);
          f.appendChild(img); f.appendChild(el("figcaption", "meta", p[0]));
          pair.appendChild(f);
        });
        if (e.ssimMap) {
          var f2 = el("figure"); f2.style.margin = "0";
          var cv = document.createElement("canvas");
          cv.width = 20; cv.height = 12; cv.className = "heat";
          var g = cv.getContext("2d");
          var lowest = 1;
          e.ssimMap.forEach(function (v, k) {
            lowest = Math.min(lowest, v);
            var bad = Math.round(255 * (1 - v));
            g.fillStyle = "rgb(255," + (255 - bad) + "," + (255 - bad) + ")";
            g.fillRect(k % 20, Math.floor(k / 20), 1, 1);
          });
          f2.appendChild(cv);
          f2.appendChild(el("figcaption", "meta", "SSIM heat map per 8 x 8 block of a 160 x 96 thumbnail (white = same, red = different; lowest block " + lowest.toFixed(3) + ")"));
          pair.appendChild(f2);
        }
        restore.appendChild(pair);
      }
    });
    if (!ep.events.length) events.appendChild(el("div", "meta", "no events"));
  }
  function drawCompare() {
    compare.textContent = "";
    var same = index.filter(function (r) { return r.run === row.run && r.task === row.task && r.seed === row.seed; });
    if (same.length < 2) return;
    compare.appendChild(el("h3", null, "Same task and seed across conditions (" + row.task + " #" + row.seed + ")"));
    same.forEach(function (r) {
      var line = el("div", "row");
      var b = el("button", "nav", r.condition);
      b.onclick = function () { openRow(r); };
      line.appendChild(b);
      line.appendChild(el("strong", r.success ? "good" : "bad", r.success ? "solved" : "failed"));
      line.appendChild(el("span", "meta", r.recoveries + " recoveries, " + r.steps + " steps"));
      var mini = el("div");
      line.appendChild(mini);
      compare.appendChild(line);
      loadChunk(r.chunk).then(function (eps) {
        var e2 = eps.find(function (x) { return x.key === r.key; });
        if (e2) drawLanes(mini, e2, null, -1);
      }, function () {});
    });
  }
  function openRow(r) {
    row = r;
    return loadChunk(r.chunk).then(function (eps) {
      if (row !== r) return;
      ep = eps.find(function (x) { return x.key === r.key; }) || null;
      result.textContent = "";
      if (!ep) { result.appendChild(el("strong", "bad", "episode " + r.key + " is missing from its chunk file")); return; }
      cur = 0;
      drawLanes(lanes, ep, show, 0);
      result.appendChild(el("strong", r.success ? "good" : "bad", r.success ? "SUCCESS" : "FAILURE"));
      result.appendChild(el("span", null, " " + r.condition + ", task " + r.task + " seed " + r.seed + "; checker score " + ep.score + ", stopped: " + ep.stopReason + (ep.detail ? " - " + ep.detail : "") + (ep.simulated ? " [simulated]" : "")));
      result.appendChild(el("div", "instr", "Task: " + ep.instruction));
      if (ep.extra) result.appendChild(el("div", "instr", JSON.stringify(ep.extra)));
      drawEvents();
      drawCompare();
      show(0);
      document.body.setAttribute("data-episode", r.key);
      document.body.setAttribute("data-viewer", "ready");
    }, function (err) {
      result.textContent = "";
      result.appendChild(el("strong", "bad", String(err.message || err)));
    });
  }
  box.onclick = function () { box.classList.toggle("zoom"); if (ep) drawMarks(ep.steps[cur]); };
  $("viewer-prev").onclick = function () { show(cur - 1); };
  $("viewer-next").onclick = function () { show(cur + 1); };
  $("viewer-toggle").onclick = function () { showBefore = !showBefore; show(cur); };
  document.addEventListener("keydown", function (e) {
    if (e.target && /^(SELECT|INPUT|TEXTAREA)$/.test(e.target.tagName)) return;
    if (e.key === "ArrowRight") show(cur + 1);
    if (e.key === "ArrowLeft") show(cur - 1);
  });
  applyFilters();
})();
`;

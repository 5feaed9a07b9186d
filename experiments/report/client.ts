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
    // Narrow pages: smaller x labels that may tilt, so category labels never overlap.
    var x = cfg.options.scales && cfg.options.scales.x;
    if (x && canvas.parentElement && canvas.parentElement.clientWidth < 1000) {
      x.ticks = x.ticks || {};
      x.ticks.font = { size: 10 };
      x.ticks.maxRotation = 60;
      x.ticks.autoSkip = false;
    }
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
  // An episode's model calls (and accessibility trees) come from its own file, loaded when it is opened.
  var callFiles = {}, callWaiting = {};
  window.__retraceCalls = function (key, payload) {
    callFiles[key] = payload;
    (callWaiting[key] || []).forEach(function (f) { f[0](payload); });
    delete callWaiting[key];
  };
  function loadCalls(episode) {
    var key = episode.callsFile;
    return new Promise(function (resolve, reject) {
      if (!key || episode.callsLoaded) return resolve(episode);
      var attach = function (payload) {
        Object.keys(payload).forEach(function (i) { var s = episode.steps[Number(i)]; if (s) { s.calls = payload[i].calls; s.a11y = payload[i].a11y; } });
        episode.callsLoaded = true;
        resolve(episode);
      };
      if (callFiles[key]) return attach(callFiles[key]);
      if (callWaiting[key]) return callWaiting[key].push([attach, reject]);
      callWaiting[key] = [[attach, reject]];
      var s = document.createElement("script");
      s.src = viewer.chunkDir + "/calls-" + key + ".js";
      s.onerror = function () {
        var w = callWaiting[key] || [];
        delete callWaiting[key];
        w.forEach(function (f) { f[1](new Error("could not load " + s.src + ": keep the report's -files folder beside it")); });
      };
      document.head.appendChild(s);
    });
  }
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
  var panels = window.__retracePanels;
  var plural = panels.plural;
  var filters = { run: $("f-run"), condition: $("f-condition"), task: $("f-task"), seed: $("f-seed"), outcome: $("f-outcome"), recovery: $("f-recovery") };
  // Conditions are listed by their display name (the same as in the tables and charts).
  var labelOfCondition = {};
  index.forEach(function (r) { labelOfCondition[r.condition] = r.label || r.condition; });
  ["run", "condition", "task", "seed"].forEach(function (k) {
    var values = [];
    index.forEach(function (r) { if (values.indexOf(r[k]) < 0) values.push(r[k]); });
    var any = el("option", null, "any (" + values.length + ")");
    any.value = "";
    filters[k].appendChild(any);
    values.sort(function (a, b) { return k === "seed" ? a - b : k === "condition" ? (labelOfCondition[a] < labelOfCondition[b] ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0; });
    values.forEach(function (v) { var o = el("option", null, k === "condition" ? labelOfCondition[v] : v); o.value = String(v); filters[k].appendChild(o); });
  });
  var search = $("f-search");
  var shown = [];
  function labelOf(r) {
    return r.run + " | " + (r.label || r.condition) + " | " + r.task + " #" + r.seed + (r.k ? " k" + r.k : "") + " | " + (r.success ? "solved" : "failed") + (r.recoveryAttempts ? ", " + plural(r.recoveryAttempts, "recovery attempt") : "") + ", " + plural(r.steps, "step");
  }
  function applyFilters(keep) {
    var f = {}; Object.keys(filters).forEach(function (k) { f[k] = filters[k].value; });
    // Split as the index's words are (viewer-search.ts SEARCH_SPLIT): "PRESS(esc)" looks for "press" and "esc".
    var words = (search.value || "").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    shown = index.filter(function (r) {
      var hay = (r.task + " " + (r.label || r.condition) + " " + (r.instruction || "") + " " + (r.words || "")).toLowerCase();
      return (!f.run || r.run === f.run) && (!f.condition || r.condition === f.condition) && (!f.task || r.task === f.task) && (!f.seed || String(r.seed) === f.seed) &&
        (!f.outcome || (f.outcome === "success") === r.success) && (!f.recovery || (f.recovery === "yes") === r.recoveryAttempts > 0) &&
        words.every(function (w) { return hay.indexOf(w) >= 0; });
    });
    select.textContent = "";
    shown.forEach(function (r, i) { var o = el("option", null, labelOf(r)); o.value = String(i); select.appendChild(o); });
    $("f-count").textContent = shown.length + " of " + plural(index.length, "episode");
    if (keep && shown.indexOf(keep) >= 0) { select.value = String(shown.indexOf(keep)); return; }
    if (shown.length) openRow(shown[0]);
  }
  Object.keys(filters).forEach(function (k) { filters[k].onchange = function () { applyFilters(); }; });
  search.oninput = function () { applyFilters(); };
  select.onchange = function () { openRow(shown[Number(select.value)]); };

  var row = null, ep = null, cur = 0, showBefore = false;
  function segTitle(s, afterRestore) {
    if (s.role === "recovery") return "recovery attempt " + (s.attempt || "?");
    if (s.role === "replay") return s.attempt ? "replay of recovery attempt " + s.attempt : "replayed prefix";
    return afterRestore ? "forward (after restoration" + (s.attempt ? " " + s.attempt : "") + ")" : "forward";
  }
  // What a step is, in words (never "undefined"): forward, or the k-th action of a recovery attempt or replay.
  function roleText(s) {
    if (s.role === "forward") return "forward";
    var nth = "its action " + (s.step + 1);
    if (s.role === "recovery") return "recovery attempt " + (s.attempt === undefined ? "?" : s.attempt) + ", " + nth;
    if (s.role === "replay") return (s.attempt === undefined ? "replay of the prefix" : "replay for recovery attempt " + s.attempt) + ", replaying forward step " + s.step;
    return s.role;
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
      var chip = el("button", "chip " + s.role + (s.detection && s.detection.isError ? " flagged" : "") + (s.frozen || s.detectorOff !== undefined ? " frozen" : "") + (s.offTrack ? " offtrack" : "") + (s.context ? " after-cut" : "") + (i === current ? " current" : ""));
      chip.appendChild(el("span", "n", s.n));
      chip.title = "step " + s.n + (s.role === "forward" ? " (the models' step " + s.step + ")" : "") + ": " + roleText(s) + (s.frozen ? " (detector frozen)" : s.detectorOff !== undefined ? " (detector off: retry cap spent)" : "") + (s.offTrack ? " (went off track here)" : "") + (s.callCount ? ", " + plural(s.callCount, "model call") : "") + " - " + s.actions.join(" ");
      chip.setAttribute("data-index", String(i));
      chip.setAttribute("data-n", String(s.n));
      if (s.flags && s.flags.length) {
        var badges = el("span", "flags");
        s.flags.forEach(function (f) { badges.appendChild(el("span", "flag " + f.charAt(0), f)); });
        chip.appendChild(badges);
      }
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
    shot.alt = src ? (showBefore ? "screen before" : "screen after") + " step " + s.n : "screenshot not available";
    which.textContent = "screen " + (showBefore ? "before" : "after") + " step " + s.n + " (steps 0-" + (ep.steps.length - 1) + ")";
    $("viewer-toggle").textContent = showBefore ? "show after" : "show before";
    info.textContent = "";
    var dl = el("dl");
    dlRow(dl, "step", s.n + " (of steps 0-" + (ep.steps.length - 1) + ")" + (s.role === "forward" ? "; the models' step " + s.step + " (the forward-history number the policy, detector and selector are shown and quote)" : ""));
    dlRow(dl, "role", roleText(s));
    if (s.flags) dlRow(dl, "marked", s.flags.map(function (f) { return (f.charAt(0) === "E" ? "the first error (E) found by recovery attempt " : "the recovery step (R) recovery attempt " + f.slice(1) + " went back to; its target is the screen before this step") + (f.charAt(0) === "E" ? f.slice(1) : ""); }).join("; "));
    dlRow(dl, "actions", s.actions.join("  ") || "(none)");
    if (s.response !== undefined) dlRow(dl, "response", s.response).className = "pre";
    if (s.failure) dlRow(dl, "policy failure", s.failure);
    if (s.offTrack) dlRow(dl, "ground truth", s.offTrack).className = "bad";
    if (s.frozen) dlRow(dl, "detector", "frozen (not consulted)");
    else if (s.detectorOff !== undefined) dlRow(dl, "detector", "off: the retry cap of " + plural(s.detectorOff, "recovery attempt") + " is spent, so the detector is no longer consulted");
    else if (s.detection) {
      var d = s.detection;
      var flagged = d.isError ? errorStepN(s, d.errorStep) : undefined;
      dlRow(dl, "detector", d.failure ? "failed: " + d.failure : d.isError ? "off track: first error at " + (flagged === undefined ? "the models' step " + d.errorStep + ", before this record" : "step " + flagged + " (the models' step " + d.errorStep + ")") + " (confidence " + d.confidence + ")" : "on track (confidence " + d.confidence + ")").className = d.isError ? "bad" : "good";
      dlRow(dl, "reason", d.reason);
    }
    info.appendChild(dl);
    panels.context($("viewer-context"), s);
    panels.calls($("viewer-calls"), s, setImage);
    panels.a11y($("viewer-a11y"), s);
    Array.prototype.forEach.call(lanes.querySelectorAll(".chip[data-index]"), function (c) { c.classList.toggle("current", c.getAttribute("data-index") === String(cur)); });
    Array.prototype.forEach.call(events.querySelectorAll(".evt"), function (e) { e.classList.toggle("here", e.getAttribute("data-after") === String(s.seq)); });
    document.body.setAttribute("data-step", String(s.n));
    document.body.setAttribute("data-seq", String(s.seq));
    setHash(row, s.n);
  }
  // The step number (as the chips show it) of the forward step with task index t at or before step s.
  function errorStepN(s, t) {
    for (var i = ep.steps.indexOf(s); i >= 0; i--) if (ep.steps[i].role === "forward" && ep.steps[i].step === t) return ep.steps[i].n;
    return undefined;
  }
  function drawEvents() {
    events.textContent = "";
    restore.textContent = "";
    ep.events.forEach(function (e) {
      var d = el("div", "evt", e.text);
      d.setAttribute("data-after", String(e.afterSeq));
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
    var same = index.filter(function (r) { return r.run === row.run && r.task === row.task && r.seed === row.seed && r !== row; });
    if (same.length < 1) return;
    same.unshift(row);
    if (same.length < 2) return;
    compare.appendChild(el("h3", null, "Same task and seed across conditions (" + row.task + " #" + row.seed + ")"));
    same.forEach(function (r) {
      var line = el("div", "row");
      var b = el("button", "nav", (r.label || r.condition) + (r.k ? ", continuation k = " + r.k : ""));
      b.onclick = function () { openRow(r); };
      line.appendChild(b);
      line.appendChild(el("strong", r.success ? "good" : "bad", r.success ? "solved" : "failed"));
      line.appendChild(el("span", "meta", plural(r.recoveryAttempts, "recovery attempt") + ", " + plural(r.steps, "step")));
      var mini = el("div");
      line.appendChild(mini);
      compare.appendChild(line);
      loadChunk(r.chunk).then(function (eps) {
        var e2 = eps.find(function (x) { return x.key === r.key; });
        if (e2) drawLanes(mini, e2, function (i) { openRow(r, e2.steps[i].n); }, -1);
      }, function () {});
    });
  }
  function openRow(r, step) {
    row = r;
    if (shown.indexOf(r) < 0) { Object.keys(filters).forEach(function (k) { filters[k].value = ""; }); search.value = ""; applyFilters(r); }
    if (shown.indexOf(r) >= 0) select.value = String(shown.indexOf(r));
    return loadChunk(r.chunk).then(function (eps) {
      var found = eps.find(function (x) { return x.key === r.key; });
      return found ? loadCalls(found).then(function () { return eps; }) : eps;
    }).then(function (eps) {
      if (row !== r) return;
      ep = eps.find(function (x) { return x.key === r.key; }) || null;
      result.textContent = "";
      if (!ep) { result.appendChild(el("strong", "bad", "episode " + r.key + " is missing from its chunk file")); return; }
      cur = 0;
      var start = 0;
      if (step !== undefined) ep.steps.forEach(function (s, i) { if (s.n === step) start = i; });
      drawLanes(lanes, ep, show, start);
      result.appendChild(el("strong", r.success ? "good" : "bad", r.success ? "SUCCESS" : "FAILURE"));
      result.appendChild(el("span", null, " " + (r.label || r.condition) + ", task " + r.task + " seed " + r.seed + "; checker score " + ep.score + ", stopped: " + ep.stopReason + (ep.simulated ? " [simulated]" : "")));
      if (ep.detail) result.appendChild(el("div", "instr pre", "Checker: " + ep.detail));
      result.appendChild(el("div", "instr", "Task: " + ep.instruction));
      if (ep.about) result.appendChild(el("div", "instr about", ep.about));
      var link = el("a", "deeplink", "link to this episode");
      link.href = "#" + hashOf(r);
      result.appendChild(el("span", null, " "));
      result.appendChild(link);
      drawEvents();
      drawCompare();
      show(start);
      document.body.setAttribute("data-episode", r.key);
      document.body.setAttribute("data-viewer", "ready");
    }, function (err) {
      result.textContent = "";
      result.appendChild(el("strong", "bad", String(err.message || err)));
    });
  }
  // Deep links: #run/condition/task/seed[/kN]/step, every part URI-encoded (the episode key is condition/task/seed[/kN]).
  function hashOf(r, step) {
    return [r.run].concat(r.key.split("/")).map(encodeURIComponent).join("/") + (step !== undefined ? "/" + step : "");
  }
  function setHash(r, step) {
    if (!r) return;
    var h = "#" + hashOf(r, step);
    if (location.hash !== h) history.replaceState(null, "", h);
  }
  // A link names an episode (its run and key) and optionally a step: "#run/condition/task/seed[/kN][/step]".
  // The parts are compared whole against every episode's, so a seed is never read as a step.
  var notice = el("div", "bad link-notice");
  result.parentNode.insertBefore(notice, result);
  function openHash() {
    var raw = location.hash.replace(/^#/, "");
    if (!raw) return false;
    var parts = raw.split("/").map(function (p) { try { return decodeURIComponent(p); } catch (e) { return p; } });
    var hit = null, step;
    index.forEach(function (r) {
      var own = [r.run].concat(r.key.split("/"));
      var same = own.every(function (p, i) { return parts[i] === p; });
      if (!same) return;
      if (parts.length === own.length) { hit = r; step = undefined; }
      else if (parts.length === own.length + 1 && /^\d+$/.test(parts[own.length]) && (!hit || step !== undefined)) { hit = r; step = Number(parts[own.length]); }
    });
    if (!hit) {
      notice.textContent = "The link #" + parts.join("/") + " names no episode of this report (it may come from another report, or the episode was left out); showing the first episode instead.";
      document.body.setAttribute("data-link", "unknown");
      return false;
    }
    notice.textContent = "";
    document.body.setAttribute("data-link", "found");
    if (hit === row && ep && ep.key === hit.key) {
      if (step !== undefined) ep.steps.forEach(function (s, i) { if (s.n === step) show(i); });
      return true;
    }
    openRow(hit, step);
    return true;
  }
  window.addEventListener("hashchange", function () { if (!openHash()) applyFilters(); });
  box.onclick = function () { box.classList.toggle("zoom"); if (ep) drawMarks(ep.steps[cur]); };
  $("viewer-prev").onclick = function () { show(cur - 1); };
  $("viewer-next").onclick = function () { show(cur + 1); };
  $("viewer-toggle").onclick = function () { showBefore = !showBefore; show(cur); };
  document.addEventListener("keydown", function (e) {
    if (e.target && /^(SELECT|INPUT|TEXTAREA)$/.test(e.target.tagName)) return;
    if (e.key === "ArrowRight") show(cur + 1);
    if (e.key === "ArrowLeft") show(cur - 1);
  });
  // A followed deep link opens its step and brings the viewer into sight (no element has the link's id).
  if (openHash()) { var tv = $("trajectory-viewer"); if (tv) tv.scrollIntoView(); } else applyFilters();
})();
`;

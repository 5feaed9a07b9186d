/**
 * The viewer's step panels (browser script, prepended to client.ts's): the step's own model calls
 * grouped by what they were for (policy, detector, selector, summarizer, recoverer, verifier) with
 * the prompt as messages (screenshots as thumbnails), reply, latency, tokens and cost; the context
 * after a cut (history kept and dropped, the transition string, a line diff against the previous
 * step's messages); and the accessibility-tree pane. They define `window.__retracePanels`, which
 * the viewer calls with the step and a function that loads a screenshot into an <img>. All text
 * reaches the DOM through textContent, never innerHTML.
 */
export const PANELS_JS = String.raw`
(function () {
  "use strict";
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many || one + "s"); }
  function latency(ms) { return ms === undefined ? "latency n/a" : ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s"; }
  function cost(usd) { return usd === undefined ? "cost n/a" : "$" + (usd >= 0.01 || usd === 0 ? usd.toFixed(4) : usd.toPrecision(2)); }
  var PHASE_WORDS = {
    policy: "policy call that proposed this step",
    detector: "detector call that judged this step",
    selector: "selector call of recovery attempt",
    summarizer: "summarizer call of recovery attempt",
    recoverer: "recoverer call of recovery attempt",
    verifier: "verifier call of recovery attempt",
  };
  function phaseText(c) {
    var w = PHASE_WORDS[c.phase] || c.phase + " call";
    if (c.discarded) return "speculative policy call for the next step, discarded because the detector fired";
    return /attempt$/.test(w) ? w + " " + (c.attempt === undefined ? "?" : c.attempt) : w;
  }
  function callBlock(c, step, loadImage) {
    var d = el("details", "call");
    d.setAttribute("data-phase", c.phase);
    d.setAttribute("data-seq", String(c.seq));
    var sum = phaseText(c) + " - " + c.role + (c.model ? " (" + c.model + ")" : "") + ": " + c.inputTokens + " in / " + c.outputTokens + " out tokens, " + latency(c.latencyMs) + ", " + cost(c.costUsd) + (c.cached ? ", from the cache" : "") + (c.error ? ", FAILED" : "");
    // A one-line preview of the reply, so the list reads without opening each call.
    var preview = (c.error ? "" : (c.reply || "(empty reply)")).replace(/\s+/g, " ").trim();
    // The viewer's words and the model's (data) in separate spans.
    var head = el("summary");
    head.appendChild(el("span", "own", (c.order !== undefined ? "#" + (c.order + 1) + " " : "") + sum + (preview ? " - reply: " : "")));
    if (preview) head.appendChild(el("span", "reply-preview", preview.length > 110 ? preview.slice(0, 107) + "..." : preview));
    d.appendChild(head);
    var meta = [];
    if (c.draw) meta.push("drawn for task " + c.draw.task + " seed " + c.draw.seed + (c.draw.k !== undefined ? " continuation k = " + c.draw.k : "") + (c.draw.ordinal ? ", repeat " + c.draw.ordinal + " of this request" : ""));
    meta.push("recorded in trajectory.json at seq " + c.seq + " (shown on step " + step + ")" + (c.order !== undefined ? ", call " + (c.order + 1) + " of the episode in the order asked" : ""));
    if (c.prompt) meta.push("prompt " + c.prompt);
    d.appendChild(el("div", "meta", meta.join("; ")));
    if (c.error) d.appendChild(el("div", "bad", "error: " + c.error));
    d.appendChild(el("div", "meta", "prompt (" + plural(c.messages.length, "message") + ")"));
    c.messages.forEach(function (m) {
      var box = el("div", "msg " + m.role);
      box.appendChild(el("div", "msg-role", m.role));
      m.parts.forEach(function (p) {
        if (p.img !== undefined) {
          var img = el("img", "thumb");
          img.alt = "screenshot sent to the model";
          img.loading = "lazy";
          img.title = "click to enlarge";
          img.onclick = function () { img.classList.toggle("big"); };
          loadImage(img, p.img);
          box.appendChild(img);
        } else box.appendChild(el("pre", "call-text", p.text));
      });
      d.appendChild(box);
    });
    d.appendChild(el("div", "meta", "reply"));
    d.appendChild(el("pre", "call-text", c.reply || "(empty)"));
    return d;
  }
  function callsPanel(target, s, loadImage) {
    target.textContent = "";
    var calls = s.calls || [];
    target.appendChild(el("h4", null, calls.length ? "Model calls of this step (" + calls.length + ")" : "Model calls of this step"));
    if (!calls.length) {
      target.appendChild(el("div", "meta", "none recorded for this step (simulated components call no model)"));
      return;
    }
    var tokens = 0, ms = 0;
    calls.forEach(function (c) { tokens += c.inputTokens + c.outputTokens; ms += c.latencyMs || 0; });
    target.appendChild(el("div", "meta", plural(tokens, "token") + " and " + latency(ms) + " in all"));
    calls.forEach(function (c) { target.appendChild(callBlock(c, s.n, loadImage)); });
  }
  function contextPanel(target, s) {
    target.textContent = "";
    var c = s.context;
    if (!c) return;
    target.appendChild(el("h4", null, "Context after the cut (recovery attempt " + c.attempt + ")"));
    target.appendChild(el("div", "meta", "After step " + c.cutAfter + " the policy's history was cut from " + plural(c.from, "forward step") + " to " + c.to + " (" + (c.confirmation || (c.restored ? "restored (confirmation not recorded)" : "restoration not confirmed")) + "); this is the first step the policy proposed after it. History entries carry the models' step numbers (as the policy saw them) and the viewer's."));
    var list = el("ul", "ctx");
    c.kept.forEach(function (t) { list.appendChild(el("li", "kept", t)); });
    c.dropped.forEach(function (t) { list.appendChild(el("li", "dropped", t + " (dropped by the cut)")); });
    if (c.transition) list.appendChild(el("li", "added", "transition string: " + c.transition + " (the models' numbering" + (c.transitionStep !== undefined ? ": their step " + c.to + " is viewer step " + c.transitionStep : "") + ")"));
    target.appendChild(list);
    if (c.diff) {
      var det = el("details", "diff");
      det.open = true;
      var removed = 0, added = 0;
      c.diff.forEach(function (l) { if (l.op === "-") removed++; if (l.op === "+") added++; });
      det.appendChild(el("summary", null, "messages sent, against the previous forward step's: " + plural(removed, "line") + " dropped, " + plural(added, "line") + " added"));
      var pre = el("pre", "call-text diff-text");
      var same = 0;
      function flush() { if (same > 0) { pre.appendChild(el("span", "same", "  ... " + plural(same, "unchanged line") + "\u000a")); same = 0; } }
      c.diff.forEach(function (l, i) {
        var near = c.diff.slice(Math.max(0, i - 2), i + 3).some(function (x) { return x.op !== " "; });
        if (l.op === " " && !near) { same++; return; }
        flush();
        pre.appendChild(el("span", l.op === "-" ? "del" : l.op === "+" ? "ins" : "same", l.op + " " + l.text + "\u000a"));
      });
      flush();
      det.appendChild(pre);
      target.appendChild(det);
    }
  }
  function a11yPanel(target, s) {
    target.textContent = "";
    if (!s.a11y) return;
    var d = el("details", "a11y");
    d.appendChild(el("summary", null, "Accessibility tree the model received with this screen"));
    d.appendChild(el("pre", "call-text", s.a11y));
    target.appendChild(d);
  }
  window.__retracePanels = { calls: callsPanel, context: contextPanel, a11y: a11yPanel, plural: plural };
})();
`;

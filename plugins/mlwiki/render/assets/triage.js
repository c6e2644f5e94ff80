/* mlwiki "Triage a log" page: paste a log or drop files; a Web Worker (mlwiki-triage-worker.js)
 * runs the same matcher as the query CLI and this page shows the ranked pages with the matched
 * lines. The log never leaves the browser: the worker loads the site's own index when the page
 * opens and makes no request while it triages. Strings from logs and pages are set as text,
 * never as HTML. */
(function () {
  "use strict";

  var script = document.currentScript;
  var root = script ? new URL("..", script.src) : new URL("/", location.href);
  var STASH = "mlwiki-triage-text";
  var LABEL = { shape: "signature shape", guess: "best guess: no signature matched" };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function mb(n) { return (n / 1e6).toFixed(n < 1e7 ? 2 : 1) + " MB"; }

  function markLine(pre, ev) {
    var line = el("span", "mlw-triage-line");
    line.appendChild(el("span", "mlw-triage-ln", ev.file + ":" + ev.line));
    var text = ev.text || "", at = 0;
    (ev.marks || []).forEach(function (m) {
      if (m[0] > at) line.appendChild(document.createTextNode(text.slice(at, m[0])));
      line.appendChild(el("mark", null, text.slice(m[0], m[1])));
      at = m[1];
    });
    line.appendChild(document.createTextNode(text.slice(at)));
    pre.appendChild(line);
    pre.appendChild(document.createTextNode("\n"));
  }

  function renderResult(list, r) {
    var li = el("li", "mlw-triage-hit mlw-match-" + r.match);
    li.setAttribute("data-id", r.id);
    var head = el("div", "mlw-triage-head");
    head.appendChild(el("span", "mlw-badge mlw-type-" + r.type, r.type));
    var a = el("a", "mlw-triage-title", r.title);
    a.href = new URL(r.url, root).toString();
    head.appendChild(a);
    head.appendChild(el("span", "mlw-triage-kind", r.weak ? "signature shape several pages share" : LABEL[r.match]));
    li.appendChild(head);
    var f = r.first_seen || {}, meta = [];
    if (f.file) meta.push("first at " + f.file + ":" + f.line + (f.timestamp ? " (" + f.timestamp + ")" : ""));
    if (r.count) meta.push(r.count + " matching line" + (r.count === 1 ? "" : "s"));
    if (r.worker_count) meta.push("on " + r.worker_count + " worker" + (r.worker_count === 1 ? "" : "s") + ": " + r.workers.slice(0, 8).join(", ") + (r.worker_count > 8 ? ", …" : ""));
    li.appendChild(el("p", "mlw-triage-meta", meta.join(" · ")));
    var pre = el("pre", "mlw-triage-evidence");
    (r.evidence && r.evidence.length ? r.evidence : [f]).forEach(function (ev) { if (ev && ev.text !== undefined) markLine(pre, ev); });
    li.appendChild(pre);
    if (r.next) {
      var p = el("p", "mlw-triage-next");
      p.appendChild(document.createTextNode("Next: "));
      p.appendChild(el("code", null, r.next));
      li.appendChild(p);
    }
    li.appendChild(el("p", "mlw-triage-why", r.why));
    list.appendChild(li);
  }

  function render(box, res, ms) {
    var list = box.querySelector(".mlw-triage-results"), extra = box.querySelector(".mlw-triage-extra");
    list.textContent = "";
    extra.textContent = "";
    var read = res.read;
    var status = "Read " + mb(read.bytes_read) + ", " + read.lines_read + " lines from " + read.files.length + " source" + (read.files.length === 1 ? "" : "s") + " in " + (ms / 1000).toFixed(2) + " s.";
    box.querySelector(".mlw-triage-status").textContent = status;
    read.problems.forEach(function (p) { extra.appendChild(el("p", "mlw-triage-problem", "Note: " + p)); });
    if (!res.results.length) {
      list.appendChild(el("li", "mlw-triage-none", "No signature matched and no error-looking line was found. Paste the first error by hand into the search box."));
    }
    res.results.forEach(function (r) { renderResult(list, r); });
    if (res.unmatched_errors.length) {
      var d = el("details", "mlw-triage-unmatched");
      d.appendChild(el("summary", null, "Error-looking lines no signature matched (" + res.unmatched_errors.length + ")"));
      var pre = el("pre");
      res.unmatched_errors.forEach(function (u) {
        markLine(pre, { file: u.first_seen.file, line: u.first_seen.line, text: u.text + (u.count > 1 ? "   (×" + u.count + ")" : "") });
      });
      d.appendChild(pre);
      extra.appendChild(d);
    }
    box.setAttribute("data-state", "done");
    box.setAttribute("data-ms", String(ms));
  }

  function mount() {
    var box = document.getElementById("mlw-triage");
    if (!box || box.getAttribute("data-mounted")) return;
    box.setAttribute("data-mounted", "1");
    box.textContent = "";
    var ta = el("textarea", "mlw-triage-text");
    ta.rows = 10;
    ta.placeholder = "Paste a log here, or drop log files (.log, .txt, .gz) anywhere in this box…";
    ta.setAttribute("aria-label", "Log text to triage");
    ta.spellcheck = false;
    var controls = el("div", "mlw-triage-controls");
    var run = el("button", "md-button md-button--primary mlw-triage-run", "Triage");
    run.type = "button";
    var pick = el("label", "md-button mlw-triage-pick", "Choose files…");
    var input = el("input");
    input.type = "file";
    input.multiple = true;
    input.className = "mlw-triage-files";
    pick.appendChild(input);
    var status = el("span", "mlw-triage-status", "Loading the index…");
    status.setAttribute("role", "status");
    controls.appendChild(run);
    controls.appendChild(pick);
    controls.appendChild(status);
    box.appendChild(ta);
    box.appendChild(controls);
    box.appendChild(el("p", "mlw-triage-privacy", "Your log stays in this browser tab: it is matched here, by a worker that makes no network request."));
    box.appendChild(el("div", "mlw-triage-extra"));
    box.appendChild(el("ol", "mlw-triage-results"));

    var indexUrl = new URL("search/mlwiki-index.json", root).toString();
    var worker = new Worker(new URL("assets/mlwiki-triage-worker.js", root).toString());
    var seq = 0, files = [];
    worker.postMessage({ type: "load", indexUrl: indexUrl });
    worker.onmessage = function (ev) {
      var m = ev.data;
      if (m.type === "ready") { box.setAttribute("data-ready", "1"); if (box.getAttribute("data-state") !== "running") status.textContent = "Ready."; return; }
      if (m.id !== null && m.id !== seq) return;
      if (m.type === "progress") status.textContent = "Reading… " + mb(m.bytes) + " of " + mb(m.total);
      else if (m.type === "result") render(box, m.result, m.ms);
      else if (m.type === "error") { status.textContent = "Triage failed: " + m.message; box.setAttribute("data-state", "error"); }
    };

    function start() {
      var sources = files.map(function (f) { return { name: f.name, file: f }; });
      if (ta.value.trim()) sources.unshift({ name: "pasted", text: ta.value });
      if (!sources.length) { status.textContent = "Paste a log or choose files first."; return; }
      seq++;
      box.setAttribute("data-state", "running");
      status.textContent = "Triaging…";
      worker.postMessage({ type: "run", id: seq, indexUrl: indexUrl, sources: sources, k: 5 });
    }
    function setFiles(list) {
      files = Array.prototype.slice.call(list || []);
      if (files.length) start();
    }
    run.addEventListener("click", start);
    input.addEventListener("change", function () { setFiles(input.files); });
    box.addEventListener("dragover", function (ev) { ev.preventDefault(); box.classList.add("mlw-drop"); });
    box.addEventListener("dragleave", function () { box.classList.remove("mlw-drop"); });
    box.addEventListener("drop", function (ev) {
      ev.preventDefault();
      box.classList.remove("mlw-drop");
      if (ev.dataTransfer && ev.dataTransfer.files.length) setFiles(ev.dataTransfer.files);
    });
    var stashed = null;
    try { stashed = sessionStorage.getItem(STASH); sessionStorage.removeItem(STASH); } catch (e) { stashed = null; }
    if (stashed) { ta.value = stashed; start(); }
  }

  /* The header search offers triage when a multi-line text is pasted into it. */
  window.mlwikiTriage = {
    offer: function (text) {
      try { sessionStorage.setItem(STASH, text); } catch (e) { return null; }
      return new URL("triage/", root).toString();
    }
  };

  function boot() { mount(); }
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) window.document$.subscribe(boot);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();

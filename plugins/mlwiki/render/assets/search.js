/* mlwiki search box: the header search over the shipped index, ranked by search-core.js (the
 * browser half of mlwiki.core.search). It fetches the fragment manifest, then for each query only
 * the fragments that query needs (core/search/fragments.py). No network beyond this site. */
(function () {
  "use strict";

  var core = window.MlwikiSearchCore;

  /* ---- loading ------------------------------------------------------------------------- */

  var script = document.currentScript;
  var root = script ? new URL("..", script.src) : new URL("/", location.href);
  var loading = null;

  function getJson(path, reload) {
    return fetch(new URL(path, root).toString(), reload ? { cache: "reload" } : {}).then(function (r) {
      if (!r.ok) {
        var e = new Error("search index: HTTP " + r.status + " for " + path);
        e.status = r.status;
        throw e;
      }
      return r.json();
    });
  }

  /* The fragment store: the manifest now, each fragment when a query needs it. A failed fetch
   * is forgotten, so the next query tries again. */
  function load(reload) {
    if (loading && !reload) return loading;
    loading = getJson("search/fragments/manifest.json", reload).then(function (manifest) {
      return core.makeStore(manifest, function (name) { return getJson("search/fragments/" + name); });
    });
    loading.catch(function () { loading = null; });
    return loading;
  }

  /* A fragment that is gone (404) means the site was deployed again since the manifest was
   * read: the fragments live under a new name. Read the manifest again, past the cache, once. */
  function search(store, q, k, kind) {
    return core.searchFragments(store, q, k, kind).catch(function (e) {
      if (e.status !== 404) throw e;
      return load(true).then(function (fresh) { return core.searchFragments(fresh, q, k, kind); });
    });
  }

  /* ---- the header search box ----------------------------------------------------------- */

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function highlight(container, text, query) {
    /* Show the matched signature; mark the part of it that appears in the query. */
    var qn = query.toLowerCase(), tn = text.toLowerCase(), at = qn.length >= 3 ? tn.indexOf(qn.trim()) : -1;
    if (at < 0) { container.appendChild(el("mark", null, text)); return; }
    container.appendChild(document.createTextNode(text.slice(0, at)));
    container.appendChild(el("mark", null, text.slice(at, at + qn.trim().length)));
    container.appendChild(document.createTextNode(text.slice(at + qn.trim().length)));
  }

  // The same words as the query CLI (core/search/rank.py TIER_WORDS), shorter for a phone.
  var TIER_WORDS = { 3: "signature match", 2: "near signature", 1: "name match", 0: "text match" };

  var TRIAGE_LINES = 4;  /* as the query CLI: more lines than this is a log to triage */

  function offerTriage(box, text, lines) {
    var list = box.querySelector(".mlw-search-results");
    if (list.querySelector(".mlw-search-triage")) return;
    var li = el("li", "mlw-search-hit mlw-search-triage");
    li.setAttribute("role", "option");
    var a = el("a");
    a.href = new URL("triage/", root).toString();
    a.appendChild(el("span", "mlw-badge mlw-type-triage", "log"));
    a.appendChild(el("span", "mlw-search-title", "Triage this log (" + lines + " lines): find the first real error"));
    a.addEventListener("click", function (ev) {
      var url = window.mlwikiTriage.offer(text);
      if (url) { ev.preventDefault(); box.classList.remove("mlw-open"); location.href = url; }
    });
    li.appendChild(a);
    list.insertBefore(li, list.firstChild);
    box.classList.add("mlw-open");
    box.querySelector("input").setAttribute("aria-expanded", "true");
    select(box, 0);
  }

  function render(box, hits, query) {
    var list = box.querySelector(".mlw-search-results");
    list.textContent = "";
    box.setAttribute("data-count", String(hits.length));
    if (!hits.length) {
      list.appendChild(el("li", "mlw-search-empty", query.trim() ? "No page matches. Try a shorter, distinctive part of the error." : ""));
      return;
    }
    // Below a confident match (no signature, name or near-signature tier), say so and show
    // only the closest few instead of filling the list with guesses.
    if (hits[0].tier === 0) {
      list.appendChild(el("li", "mlw-search-empty mlw-search-weak", "No confident match; closest pages:"));
      hits = hits.slice(0, 3);
    }
    hits.forEach(function (h, i) {
      var li = el("li", "mlw-search-hit");
      li.id = "mlw-hit-" + i;
      li.setAttribute("role", "option");
      var a = el("a");
      a.href = new URL(h.url, root).toString();
      a.appendChild(el("span", "mlw-badge mlw-type-" + h.type, h.type));
      a.appendChild(el("span", "mlw-search-title", h.title));
      a.appendChild(el("span", "mlw-search-tier mlw-tier-" + h.tier, TIER_WORDS[h.tier] || "text match"));
      if (h.signature && h.tier >= 2) {
        var sig = el("code", "mlw-search-sig");
        highlight(sig, h.signature, query);
        a.appendChild(sig);
      }
      li.appendChild(a);
      list.appendChild(li);
    });
    select(box, 0);
  }

  function select(box, i) {
    var items = box.querySelectorAll(".mlw-search-hit");
    if (!items.length) return;
    i = (i + items.length) % items.length;
    items.forEach(function (it, j) { it.classList.toggle("mlw-active", j === i); it.setAttribute("aria-selected", j === i ? "true" : "false"); });
    box.setAttribute("data-active", String(i));
    box.querySelector("input").setAttribute("aria-activedescendant", "mlw-hit-" + i);
  }

  function mount() {
    var header = document.querySelector(".md-header__inner");
    if (!header || header.querySelector(".mlw-search")) return;
    var box = el("div", "mlw-search");
    box.setAttribute("role", "search");
    var input = el("input");
    input.type = "search";
    input.placeholder = "Paste an error…  ( / )";
    input.setAttribute("aria-label", "Search the wiki: paste an error");
    input.setAttribute("autocomplete", "off");
    input.setAttribute("spellcheck", "false");
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", "mlw-search-list");
    var list = el("ul", "mlw-search-results");
    list.id = "mlw-search-list";
    list.setAttribute("role", "listbox");
    box.appendChild(input);
    box.appendChild(list);
    var before = header.querySelector(".md-header__option, .md-header__source");
    header.insertBefore(box, before || null);

    var timer = null, seq = 0, pasted = null;
    function run() {
      var q = input.value, mine = ++seq;
      if (!q.trim()) { box.classList.remove("mlw-open"); input.setAttribute("aria-expanded", "false"); return; }
      var t0 = performance.now();
      load().then(function (s) { return search(s, q, 8); }).then(function (hits) {
        if (mine !== seq) return;
        box.setAttribute("data-ms", String(Math.round(performance.now() - t0)));
        render(box, hits, q);
        if (box.getAttribute("data-log") && pasted !== null) offerTriage(box, pasted, +box.getAttribute("data-log"));
        box.classList.add("mlw-open");
        input.setAttribute("aria-expanded", "true");
      }).catch(function (e) {
        if (mine !== seq) return;
        list.textContent = "";
        list.appendChild(el("li", "mlw-search-empty", "Search is unavailable: " + e.message));
        box.classList.add("mlw-open");
      });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 60); });
    // A pasted log (more than a few lines) is offered to the triage page; the input field itself
    // would flatten it to one line. The text goes through sessionStorage: no request.
    input.addEventListener("paste", function (ev) {
      var text = ev.clipboardData ? ev.clipboardData.getData("text") : "";
      var lines = text.split("\n").filter(function (l) { return l.trim(); }).length;
      if (lines <= TRIAGE_LINES || !window.mlwikiTriage) { box.removeAttribute("data-log"); return; }
      box.setAttribute("data-log", String(lines));
      pasted = text;
      setTimeout(function () { offerTriage(box, text, lines); }, 0);
    });
    input.addEventListener("focus", function () { load(); if (input.value.trim()) box.classList.add("mlw-open"); });
    input.addEventListener("keydown", function (ev) {
      var active = parseInt(box.getAttribute("data-active") || "0", 10);
      if (ev.key === "ArrowDown") { select(box, active + 1); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { select(box, active - 1); ev.preventDefault(); }
      else if (ev.key === "Enter") {
        var a = box.querySelector(".mlw-search-hit.mlw-active a");
        if (a) { ev.preventDefault(); box.classList.remove("mlw-open"); a.click(); }
      } else if (ev.key === "Escape") { box.classList.remove("mlw-open"); input.blur(); }
    });
    document.addEventListener("click", function (ev) { if (!box.contains(ev.target)) box.classList.remove("mlw-open"); });
    box.addEventListener("click", function (ev) {
      if (ev.target.closest && ev.target.closest("a")) box.classList.remove("mlw-open");
    });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    var input = document.querySelector(".mlw-search input");
    if (input) { ev.preventDefault(); input.focus(); }
  });

  window.mlwikiSearch = { tokenize: core.tokenize, search: function (q, k, kind) { return load().then(function (s) { return search(s, q, k, kind); }); }, load: load };

  /* The manifest is a few KB: read it at once, so a pasted error needs only the fragments. */
  function boot() {
    mount();
    load().catch(function () {});
  }
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) window.document$.subscribe(boot);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();

/* mlwiki search: the browser half of mlwiki.core.search. The tokenizer, query construction and
 * ranking below mirror plugins/mlwiki/core/search/{tokenize,rank}.py rule for rule; a test runs
 * both on the evaluation set and compares the top results. No network beyond this site. */
(function () {
  "use strict";

  var WORD = "0-9A-Za-z\u00c0-\u1fff\u2c00-\ud7ff";
  var RAW = new RegExp("[" + WORD + "]+(?:[_.:/\\-][" + WORD + "]+)*", "g");
  var JOINERS = /[_.:/\-]/;
  var CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
  var MAX_TOKEN = 64, MAX_INPUT = 200000, LONG_CHARS = 1500, LONG_LINES = 15, MAX_TERMS = 40;
  var ERRORISH = /error|exception|fatal|fail|timeout|timed out|abort|killed|oom|exhausted|xid|nccl|panic|denied|refused|unavailable|deadline|backoff|evicted|hang|corrupt|mismatch|invalid|cannot|unable/i;
  var TYPE_ORDER = { symptom: 0, playbook: 1, workflow: 2, action: 3, concept: 4, entity: 5, tool: 6, doc: 7 };
  var STOP = {};

  function expand(raw) {
    var out = [];
    function add(t) {
      t = t.toLowerCase();
      if (t.length > 1 && t.length <= MAX_TOKEN && !STOP[t] && out.indexOf(t) < 0) out.push(t);
    }
    add(raw);
    var parts = raw.split(/[_.:/\-]/);
    parts.forEach(function (part) {
      if (parts.length > 1) add(part);
      var pieces = part.match(CAMEL) || [];
      if (pieces.length > 1 && pieces.join("") === part) pieces.forEach(add);
    });
    return out;
  }

  function tokenize(text) {
    var out = [];
    var raws = text.match(RAW) || [];
    raws.forEach(function (r) { Array.prototype.push.apply(out, expand(r)); });
    return out;
  }

  function normalise(text) {
    return text.toLowerCase().replace(/[0-9]+/g, "0").replace(/\s+/g, " ").trim();
  }

  function reduceInput(text) {
    text = text.slice(0, MAX_INPUT);
    var lines = text.split("\n");
    if (text.length <= LONG_CHARS && lines.length <= LONG_LINES) return [text, false];
    var hits = lines.filter(function (l) { return ERRORISH.test(l); });
    if (!hits.length) hits = lines;
    if (hits.length > 40) hits = hits.slice(0, 20).concat(hits.slice(-20));
    return [hits.join("\n"), true];
  }

  function docFrequency(index, term) {
    var posting = index.invertedIndex[term];
    if (!posting) return 0;
    var refs = {};
    Object.keys(posting).forEach(function (f) {
      if (f !== "_index") Object.keys(posting[f]).forEach(function (r) { refs[r] = 1; });
    });
    return Object.keys(refs).length;
  }

  function queryTerms(index, text) {
    var red = reduceInput(text), seen = [];
    tokenize(red[0]).forEach(function (t) { if (seen.indexOf(t) < 0) seen.push(t); });
    var df = {};
    seen.forEach(function (t) { df[t] = docFrequency(index, t); });
    var known = seen.filter(function (t) { return df[t] > 0; });
    var prefixOk = text ? (!red[1] && text.slice(-1).trim() !== "") : false;
    var last = (seen.length && prefixOk && seen[seen.length - 1].length >= 3) ? seen[seen.length - 1] : null;
    if (last && known.indexOf(last) < 0) known.push(last);
    if (known.length > MAX_TERMS) {
      var order = {};
      known.forEach(function (t, i) { order[t] = i; });
      known = known.slice().sort(function (a, b) { return (df[a] - df[b]) || (order[a] - order[b]); })
        .slice(0, MAX_TERMS).sort(function (a, b) { return order[a] - order[b]; });
    }
    return [known, !!(last && known.indexOf(last) >= 0)];
  }

  function tiers(docs, text) {
    var cut = text.slice(0, MAX_INPUT), qn = normalise(cut), qt = {};
    tokenize(cut).forEach(function (t) { qt[t] = 1; });
    var out = {};
    docs.forEach(function (d) {
      var best = [0, 0, ""];
      (d.signatures || []).forEach(function (sig) {
        var sn = normalise(sig), cand = null;
        if ((sn.length >= 10 && qn.indexOf(sn) >= 0) || (qn.length >= 12 && sn.indexOf(qn) >= 0)) {
          cand = [3, Math.min(sn.length, qn.length), sig];
        } else {
          var st = {}, n = 0, hit = 0;
          tokenize(sig).forEach(function (t) { if (!st[t]) { st[t] = 1; n++; if (qt[t]) hit++; } });
          if (n < 3) return;
          var cover = hit / n;
          if (cover < 0.7) return;
          cand = [2, cover, sig];
        }
        if (cand[0] > best[0] || (cand[0] === best[0] && cand[1] > best[1])) best = cand;
      });
      if (best[0] === 0 && qn) {
        var names = [d.title, d.ref].concat(d.aliases || []).map(normalise);
        if (names.indexOf(qn) >= 0) best = [1, 100, ""];
        else if (d.type === "symptom") {
          var tt = {}, tn = 0, all = true;
          tokenize(d.title).forEach(function (t) { if (!tt[t]) { tt[t] = 1; tn++; if (!qt[t]) all = false; } });
          if (tn >= 3 && all) best = [1, tn, ""];
        }
      }
      if (best[0]) out[d.ref] = best;
    });
    return out;
  }

  function round6(x) { return Math.round(x * 1e6) / 1e6; }

  function search(state, text, k, kind) {
    if (typeof text !== "string" || !text.trim()) return [];
    var qt = queryTerms(state.index, text), terms = qt[0], lastIsPrefix = qt[1], scores = {};
    if (terms.length) {
      var results = state.index.query(function (q) {
        terms.forEach(function (t, i) {
          q.term(t, {
            boost: JOINERS.test(t) ? 2 : 1, usePipeline: false,
            wildcard: (lastIsPrefix && i === terms.length - 1) ? lunr.Query.wildcard.TRAILING : lunr.Query.wildcard.NONE
          });
        });
      });
      results.forEach(function (r) { scores[r.ref] = round6(r.score); });
    }
    var tier = tiers(state.docs, text), refs = {};
    Object.keys(scores).forEach(function (r) { refs[r] = 1; });
    Object.keys(tier).forEach(function (r) { refs[r] = 1; });
    var hits = Object.keys(refs).filter(function (r) {
      return state.byRef[r] && (!kind || state.byRef[r].type === kind);
    }).map(function (r) {
      var d = state.byRef[r], t = tier[r] || [0, 0, ""];
      return { ref: r, type: d.type, title: d.title, url: d.url, score: scores[r] || 0, tier: t[0], strength: t[1], signature: t[2] };
    });
    hits.sort(function (a, b) {
      return (b.tier - a.tier) || (b.strength - a.strength) || (b.score - a.score) ||
        ((TYPE_ORDER[a.type] === undefined ? 99 : TYPE_ORDER[a.type]) - (TYPE_ORDER[b.type] === undefined ? 99 : TYPE_ORDER[b.type])) ||
        (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);
    });
    return hits.slice(0, k || 10);
  }

  /* ---- loading ------------------------------------------------------------------------- */

  var script = document.currentScript;
  var root = script ? new URL("..", script.src) : new URL("/", location.href);
  var state = null, loading = null;

  function load() {
    if (loading) return loading;
    loading = fetch(new URL("search/mlwiki-index.json", root).toString())
      .then(function (r) { if (!r.ok) throw new Error("search index: HTTP " + r.status); return r.json(); })
      .then(function (payload) {
        STOP = {};
        (payload.stopwords || []).forEach(function (w) { STOP[w] = 1; });
        var byRef = {};
        payload.docs.forEach(function (d) { byRef[d.ref] = d; });
        state = { index: lunr.Index.load(payload.index), docs: payload.docs, byRef: byRef };
        return state;
      });
    return loading;
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

    var timer = null, seq = 0;
    function run() {
      var q = input.value, mine = ++seq;
      if (!q.trim()) { box.classList.remove("mlw-open"); input.setAttribute("aria-expanded", "false"); return; }
      load().then(function (s) {
        if (mine !== seq) return;
        var t0 = performance.now();
        var hits = search(s, q, 8);
        box.setAttribute("data-ms", String(Math.round(performance.now() - t0)));
        render(box, hits, q);
        box.classList.add("mlw-open");
        input.setAttribute("aria-expanded", "true");
      }).catch(function (e) {
        list.textContent = "";
        list.appendChild(el("li", "mlw-search-empty", "Search is unavailable: " + e.message));
        box.classList.add("mlw-open");
      });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 60); });
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

  window.mlwikiSearch = { tokenize: tokenize, search: function (q, k, kind) { return load().then(function (s) { return search(s, q, k, kind); }); }, load: load };

  function boot() {
    mount();
    var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 300); };
    idle(function () { load().catch(function () {}); });
  }
  if (typeof window.document$ !== "undefined" && window.document$.subscribe) window.document$.subscribe(boot);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();

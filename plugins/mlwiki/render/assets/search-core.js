/* mlwiki search core: tokenizer, query construction and ranking, mirroring
 * plugins/mlwiki/core/search/{tokenize,rank}.py rule for rule (tests run both on the evaluation
 * set and compare the top results, in Node and in Chromium). No DOM: it runs in the page, in the
 * triage Web Worker and in Node, and needs no other script. */
(function (root, factory) {
  var api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.MlwikiSearchCore = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  /* Every constant and pattern comes from the payload's "ranking" (core/search/rank.py,
   * ranking_spec): this file holds no copy of them. configure() runs in makeState. */
  var RAW, JOINERS, CAMEL, SCRIPT, COMMON_SHARE, MAX_TOKEN, MAX_INPUT, LONG_CHARS, LONG_LINES, MAX_TERMS,
    REDUCED_KEEP, PREFIX_MIN, PREFIX_BOOST, EXACT_MIN_SIGNATURE, EXACT_MIN_INPUT, EXACT_MIN_INPUT_TOKENS, NEAR_MIN_TOKENS, NEAR_COVER,
    NAME_MIN_TOKENS, ALIAS_MIN_TOKENS, SHORT_QUERY_TOKENS, ERRORISH, TYPE_ORDER = Object.create(null), N_TYPES = 0;

  function configure(r) {
    RAW = new RegExp("[" + r.word + "]+(?:" + r.joiners + "[" + r.word + "]+)*", "g");
    JOINERS = new RegExp(r.joiners);
    CAMEL = new RegExp(r.camel, "g");
    SCRIPT = new RegExp(r.script, "g");
    MAX_TOKEN = r.max_token; MAX_INPUT = r.max_input; LONG_CHARS = r.long_chars; LONG_LINES = r.long_lines;
    MAX_TERMS = r.max_terms; REDUCED_KEEP = r.reduced_keep; PREFIX_MIN = r.prefix_min; PREFIX_BOOST = r.prefix_boost;
    COMMON_SHARE = r.common_share; EXACT_MIN_SIGNATURE = r.exact_min_signature; EXACT_MIN_INPUT = r.exact_min_input;
    EXACT_MIN_INPUT_TOKENS = r.exact_min_input_tokens;
    NEAR_MIN_TOKENS = r.near_min_tokens; NEAR_COVER = r.near_cover; NAME_MIN_TOKENS = r.name_min_tokens;
    ALIAS_MIN_TOKENS = r.alias_min_tokens; SHORT_QUERY_TOKENS = r.short_query_tokens;
    ERRORISH = new RegExp(r.errorish, "i");  /* Python compiles it re.I | re.ASCII: same folding */
    TYPE_ORDER = Object.create(null);
    r.type_order.forEach(function (t, i) { TYPE_ORDER[t] = i; });
    N_TYPES = r.type_order.length;
  }

  function typeOrder(t) { return t in TYPE_ORDER ? TYPE_ORDER[t] : N_TYPES - 1; }
  var STOP = Object.create(null);

  function expand(raw) {
    var out = [];
    function add(t) {
      t = t.toLowerCase();
      if (t.length > 1 && t.length <= MAX_TOKEN && !STOP[t] && out.indexOf(t) < 0) out.push(t);
    }
    add(raw);
    var parts = raw.split(JOINERS);
    parts.forEach(function (part) {
      if (parts.length > 1) add(part);
      var runs = part.match(SCRIPT) || [];  /* "NCCL超时" is "NCCL" and "超时" (tokenize.py) */
      runs.forEach(function (run) {
        if (runs.length > 1) add(run);
        var pieces = run.match(CAMEL) || [];
        if (pieces.length > 1 && pieces.join("") === run) pieces.forEach(add);
      });
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
    if (hits.length > 2 * REDUCED_KEEP) hits = hits.slice(0, REDUCED_KEEP).concat(hits.slice(-REDUCED_KEEP));
    return [hits.join("\n"), true];
  }

  /* Documents holding term (rank.py TermIndex.df). */
  function docFrequency(index, term) {
    var post = index.postings[term];
    return post ? post.length / 2 : 0;
  }

  function queryTerms(index, text) {
    var red = reduceInput(text), seen = [];
    tokenize(red[0]).forEach(function (t) { if (seen.indexOf(t) < 0) seen.push(t); });
    var df = Object.create(null);
    seen.forEach(function (t) { df[t] = docFrequency(index, t); });
    var known = seen.filter(function (t) { return df[t] > 0; });
    var prefixOk = text ? (!red[1] && text.slice(-1).trim() !== "") : false;
    var last = (seen.length && prefixOk && seen[seen.length - 1].length >= PREFIX_MIN) ? seen[seen.length - 1] : null;
    if (last && known.indexOf(last) < 0) known.push(last);
    if (known.length > MAX_TERMS) {
      var order = Object.create(null);
      known.forEach(function (t, i) { order[t] = i; });
      known = known.slice().sort(function (a, b) { return (df[a] - df[b]) || (order[a] - order[b]); })
        .slice(0, MAX_TERMS).sort(function (a, b) { return order[a] - order[b]; });
    }
    return [known, !!(last && known.indexOf(last) >= 0)];
  }

  /* df: documents holding a term, or null. With it, tier 2 also needs 70% of the signature's
   * distinctive tokens (held by at most COMMON_SHARE of the documents), as rank.py. */
  function tiers(docs, text, df) {
    var cut = text.slice(0, MAX_INPUT), qn = normalise(cut), qt = Object.create(null), commonAbove = COMMON_SHARE * docs.length;
    tokenize(cut).forEach(function (t) { qt[t] = 1; });
    var nq = Object.keys(qt).length, out = Object.create(null);
    docs.forEach(function (d) {
      var best = [0, 0, ""];
      (d.signatures || []).forEach(function (sig) {
        var sn = normalise(sig), cand = null;
        if ((sn.length >= EXACT_MIN_SIGNATURE && qn.indexOf(sn) >= 0) || (qn.length >= EXACT_MIN_INPUT && nq >= EXACT_MIN_INPUT_TOKENS && sn.indexOf(qn) >= 0)) {
          cand = [3, Math.min(sn.length, qn.length), sig];
        } else {
          var st = Object.create(null), n = 0, hit = 0;
          tokenize(sig).forEach(function (t) { if (!st[t]) { st[t] = 1; n++; if (qt[t]) hit++; } });
          if (n < NEAR_MIN_TOKENS) return;
          var cover = hit / n;
          if (cover < NEAR_COVER) return;
          if (df) {
            var rare = Object.keys(st).filter(function (t) { return df(t) <= commonAbove; });
            if (!rare.length || rare.filter(function (t) { return qt[t]; }).length / rare.length < NEAR_COVER) return;
          }
          cand = [2, cover, sig];
        }
        if (cand[0] > best[0] || (cand[0] === best[0] && cand[1] > best[1])) best = cand;
      });
      if (best[0] === 0 && qn) {
        var names = [d.title, d.ref].concat(d.aliases || []).map(normalise);
        if (names.indexOf(qn) >= 0) best = [1, 100, ""];
        else if (d.type === "symptom") {
          var tt = Object.create(null), tn = 0, all = true;
          tokenize(d.title).forEach(function (t) { if (!tt[t]) { tt[t] = 1; tn++; if (!qt[t]) all = false; } });
          if (tn >= NAME_MIN_TOKENS && all) best = [1, tn, ""];
        }
        if (best[0] === 0 && nq <= SHORT_QUERY_TOKENS) {
          /* a short typed query that is mostly an alias: every word of it, half of the query's (rank.py) */
          var most = 0;
          (d.aliases || []).forEach(function (a) {
            var at = Object.create(null), an = 0, all = true;
            tokenize(a).forEach(function (t) { if (!at[t]) { at[t] = 1; an++; if (!qt[t]) all = false; } });
            if (an >= ALIAS_MIN_TOKENS && all && 2 * an >= nq && an > most) most = an;
          });
          if (most) best = [1, most, ""];
        }
      }
      if (best[0]) out[d.ref] = best;
    });
    return out;
  }

  function round6(x) { return Math.round(x * 1e6) / 1e6; }

  /* The index's terms starting with prefix, sorted (rank.py completions): bisection in the sorted
   * vocabulary. */
  function completions(index, prefix) {
    var v = index.vocabulary, lo = 0, hi = v.length, out = [];
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (v[mid] < prefix) lo = mid + 1; else hi = mid; }
    for (var i = lo; i < v.length && v[i].lastIndexOf(prefix, 0) === 0; i++) out.push(v[i]);
    return out;
  }

  /* The query's [term, boost] pairs, each term once, in query order (rank.py weighted_terms). */
  function weightedTerms(index, terms, lastIsPrefix) {
    var boosts = new Map();
    terms.forEach(function (t, i) {
      var boost = JOINERS.test(t) ? 2 : 1, clauses = [[t, boost]];
      if (lastIsPrefix && i === terms.length - 1) {
        completions(index, t).forEach(function (c) { clauses.push([c, boost * PREFIX_BOOST]); });
      }
      clauses.forEach(function (c) {
        if (index.postings[c[0]]) boosts.set(c[0], (boosts.has(c[0]) ? boosts.get(c[0]) : 0) + c[1]);
      });
    });
    return Array.from(boosts.entries());
  }

  /* Scores times the share of the query's terms a document holds (rank.py raw_scores, _query):
   * the same operations in the same order, so the doubles are the same. */
  function query(index, terms, lastIsPrefix) {
    var weighted = weightedTerms(index, terms, lastIsPrefix);
    if (!weighted.length) return [];
    var norm = Math.sqrt(weighted.reduce(function (s, tb) { return s + tb[1] * tb[1]; }, 0));
    var acc = new Map(), held = new Map(), last = terms[terms.length - 1];
    weighted.forEach(function (tb) {
      var post = index.postings[tb[0]], b = tb[1];
      for (var k = 0; k < post.length; k += 2) {
        var d = post[k];
        acc.set(d, (acc.has(d) ? acc.get(d) : 0) + b * post[k + 1]);
        if (!held.has(d)) held.set(d, new Set());
        held.get(d).add(tb[0]);
      }
    });
    var out = [];
    acc.forEach(function (v, d) {
      var has = held.get(d), found = 0, score = v / 1000 / norm;
      terms.forEach(function (t) { if (has.has(t)) found++; });
      if (lastIsPrefix && !has.has(last) && Array.from(has).some(function (m) { return m.lastIndexOf(last, 0) === 0; })) found++;
      out.push({ ref: index.refs[d], score: score * found / terms.length });
    });
    return out;
  }

  function search(state, text, k, kind) {
    if (typeof text !== "string" || !text.trim()) return [];
    var qt = queryTerms(state.index, text), terms = qt[0], lastIsPrefix = qt[1], scores = Object.create(null);
    if (terms.length) {
      var results;
      results = query(state.index, terms, lastIsPrefix);
      results.forEach(function (r) { scores[r.ref] = round6(r.score); });
    }
    if (!state.df) {
      var memo = Object.create(null);
      state.df = function (t) { if (!(t in memo)) memo[t] = docFrequency(state.index, t); return memo[t]; };
    }
    var tier = tiers(state.docs, text, state.df), refs = Object.create(null);
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
        (typeOrder(a.type) - typeOrder(b.type)) ||
        (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);
    });
    return hits.slice(0, k || 10);
  }

  /* The index from its serialised form (rank.py TermIndex.load): terms are sorted in the payload,
   * so the vocabulary needs no sort here. */
  function loadIndex(serialized) {
    var postings = Object.create(null);
    serialized.terms.forEach(function (t, i) { postings[t] = serialized.postings[i]; });
    return { refs: serialized.refs, postings: postings, vocabulary: serialized.terms };
  }

  /* A search state from the payload (search/mlwiki-index.json): the index, the documents
   * and the stop words. */
  function makeState(payload) {
    configure(payload.ranking);
    STOP = Object.create(null);
    (payload.stopwords || []).forEach(function (w) { STOP[w] = 1; });
    var byRef = Object.create(null);
    payload.docs.forEach(function (d) { byRef[d.ref] = d; });
    return { index: loadIndex(payload.index), docs: payload.docs, byRef: byRef };
  }

  return { tokenize: tokenize, normalise: normalise, search: search, makeState: makeState, completions: completions };
});

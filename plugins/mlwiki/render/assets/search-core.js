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
  var RAW, WORDCH, JOINERS, CAMEL, SCRIPT, COMMON_SHARE, MAX_TOKEN, MAX_INPUT, LONG_CHARS, LONG_LINES, MAX_TERMS,
    REDUCED_KEEP, PREFIX_MIN, PREFIX_BOOST, EXACT_MIN_SIGNATURE, EXACT_MIN_INPUT, EXACT_MIN_INPUT_TOKENS, NEAR_MIN_TOKENS, NEAR_COVER,
    NAME_MIN_TOKENS, ALIAS_MIN_TOKENS, SHORT_QUERY_TOKENS, ERRORISH, TYPE_ORDER = Object.create(null), N_TYPES = 0;

  function configure(r) {
    RAW = new RegExp("[" + r.word + "]+(?:" + r.joiners + "[" + r.word + "]+)*", "g");
    WORDCH = new RegExp("[" + r.word + "]");
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

  function keep(t) { return t.length > 1 && t.length <= MAX_TOKEN && !STOP[t]; }

  function expand(raw) {
    var out = [];
    function add(t) {
      t = t.toLowerCase();
      if (keep(t) && out.indexOf(t) < 0) out.push(t);
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

  /* Length in code points, as Python's len() (a surrogate pair is one character). */
  function cpLen(text) {
    var pairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g);
    return text.length - (pairs ? pairs.length : 0);
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

  /* The distinct tokens of the searched input and its typed prefix, or null (rank.py query_words). */
  function queryWords(text) {
    var red = reduceInput(text), seen = [];
    tokenize(red[0]).forEach(function (t) { if (seen.indexOf(t) < 0) seen.push(t); });
    var prefixOk = text ? (!red[1] && text.slice(-1).trim() !== "") : false;
    return [seen, (seen.length && prefixOk && seen[seen.length - 1].length >= PREFIX_MIN) ? seen[seen.length - 1] : null];
  }

  /* Whether an input inside a signature can be tier 3 (rank.py inside_can_count). */
  function insideCanCount(norm, distinctTokens, cut) {
    return cpLen(norm) >= EXACT_MIN_INPUT && distinctTokens >= EXACT_MIN_INPUT_TOKENS && stableParts(cut, true).length > 0;
  }

  function queryTerms(index, text) {
    var qw = queryWords(text), seen = qw[0], last = qw[1];
    var df = Object.create(null);
    seen.forEach(function (t) { df[t] = docFrequency(index, t); });
    var known = seen.filter(function (t) { return df[t] > 0; });
    if (last && known.indexOf(last) < 0) known.push(last);
    if (known.length > MAX_TERMS) {
      var order = Object.create(null);
      known.forEach(function (t, i) { order[t] = i; });
      known = known.slice().sort(function (a, b) { return (df[a] - df[b]) || (order[a] - order[b]); })
        .slice(0, MAX_TERMS).sort(function (a, b) { return order[a] - order[b]; });
    }
    return [known, !!(last && known.indexOf(last) >= 0)];
  }

  /* Whether part occurs in text without cutting a word of text (rank.py contains_words). */
  function containsWords(text, part) {
    var i = text.indexOf(part);
    if (i < 0 || !part) return i >= 0;
    var head = WORDCH.test(part[0]), tail = WORDCH.test(part[part.length - 1]);
    while (i >= 0) {
      var j = i + part.length;
      if (!(head && i > 0 && WORDCH.test(text[i - 1])) && !(tail && j < text.length && WORDCH.test(text[j]))) return true;
      i = text.indexOf(part, i + 1);
    }
    return false;
  }

  /* The words any text containing this one has as tokens too (rank.py stable_parts); with
   * inner false, the edges count (the words of any text equal to it). */
  function stableParts(text, inner) {
    var n = normalise(text.slice(0, MAX_INPUT)), out = [], m;
    RAW.lastIndex = 0;
    while ((m = RAW.exec(n)) !== null) {
      var start = m.index, parts = m[0].split(JOINERS);
      for (var i = 0; i < parts.length; i++) {
        var part = parts[i], end = start + part.length;
        var inside = !inner || (start > 0 && end < n.length);
        if (inside && !/[0-9]/.test(part) && keep(part) && out.indexOf(part) < 0) out.push(part);
        start = end + 1;
      }
    }
    return out;
  }

  /* Best [tier, strength, signature] per document number over [number, document] pairs
   * (rank.py tiers). isCommon: a token held by more than COMMON_SHARE of the documents; tier 2
   * also needs 70% of the signature's other (distinctive) tokens. */
  function tiers(docs, text, isCommon) {
    var cut = text.slice(0, MAX_INPUT), qn = normalise(cut), qt = Object.create(null);
    tokenize(cut).forEach(function (t) { qt[t] = 1; });
    var nq = Object.keys(qt).length, out = new Map();
    var qLen = cpLen(qn), containedOk = insideCanCount(qn, nq, cut);
    docs.forEach(function (pair) {
      var num = pair[0], d = pair[1], best = [0, 0, ""];
      (d.signatures || []).forEach(function (sig) {
        var sn = normalise(sig), sLen = cpLen(sn), cand = null;
        if ((sLen >= EXACT_MIN_SIGNATURE && containsWords(qn, sn)) || (containedOk && sn.indexOf(qn) >= 0)) {
          cand = [3, Math.min(sLen, qLen), sig];
        } else {
          var st = Object.create(null), n = 0, hit = 0;
          tokenize(sig).forEach(function (t) { if (!st[t]) { st[t] = 1; n++; if (qt[t]) hit++; } });
          if (n < NEAR_MIN_TOKENS) return;
          var cover = hit / n;
          if (cover < NEAR_COVER) return;
          if (isCommon) {
            var rare = Object.keys(st).filter(function (t) { return !isCommon(t); });
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
      if (best[0]) out.set(num, best);
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
    if (!weighted.length) return new Map();
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
    var out = new Map();
    acc.forEach(function (v, d) {
      var has = held.get(d), found = 0, score = v / 1000 / norm;
      terms.forEach(function (t) { if (has.has(t)) found++; });
      if (lastIsPrefix && !has.has(last) && Array.from(has).some(function (m) { return m.lastIndexOf(last, 0) === 0; })) found++;
      out.set(d, score * found / terms.length);
    });
    return out;
  }

  /* Every document with a score or a tier, best first, as [number, tier, strength, score,
   * signature] (rank.py rank): candidates are the [number, document] pairs tiers are tested on,
   * typeOf gives any document's type; numbers follow the ids' order. */
  function rank(index, text, candidates, typeOf, isCommon, kind) {
    if (typeof text !== "string" || !text.trim()) return [];
    var qt = queryTerms(index, text), terms = qt[0], scores = new Map();
    if (terms.length) query(index, terms, qt[1]).forEach(function (v, d) { scores.set(d, round6(v)); });
    var tier = tiers(candidates, text, isCommon), seen = new Set(), out = [];
    function consider(d) {
      if (seen.has(d)) return;
      seen.add(d);
      var t = typeOf(d);
      if (kind && t !== kind) return;
      var ti = tier.get(d) || [0, 0, ""];
      out.push([typeOrder(t), d, ti[0], ti[1], scores.has(d) ? scores.get(d) : 0, ti[2]]);
    }
    scores.forEach(function (v, d) { consider(d); });
    tier.forEach(function (v, d) { consider(d); });
    out.sort(function (a, b) { return (b[2] - a[2]) || (b[3] - a[3]) || (b[4] - a[4]) || (a[0] - b[0]) || (a[1] - b[1]); });
    return out.map(function (r) { return r.slice(1); });
  }

  function hit(d, r) {
    return { ref: d.ref, type: d.type, title: d.title, url: d.url, score: r[3], tier: r[1], strength: r[2], signature: r[4] };
  }

  /* Whole-payload search (rank.py search): state from makeState. */
  function search(state, text, k, kind) {
    var docs = state.docs, above = COMMON_SHARE * docs.length, index = state.index;
    var ranked = rank(index, text, docs.map(function (d, i) { return [i, d]; }), function (i) { return docs[i].type; },
      function (t) { return docFrequency(index, t) > above; }, kind);
    return ranked.slice(0, k || 10).map(function (r) { return hit(docs[r[0]], r); });
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
  function setUp(ranking, stopwords) {
    configure(ranking);
    STOP = Object.create(null);
    (stopwords || []).forEach(function (w) { STOP[w] = 1; });
  }

  function makeState(payload) {
    setUp(payload.ranking, payload.stopwords);
    return { index: loadIndex(payload.index), docs: payload.docs };
  }

  /* ---- fragmented search (core/search/fragments.py, step for step) ---------------------- */

  /* 32-bit FNV-1a over the code points (fragments.py fnv1a). */
  function fnv1a(text) {
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) {
      var c = text.codePointAt(i);
      if (c > 0xffff) i++;
      h = Math.imul(h ^ c, 0x01000193) >>> 0;
    }
    return h;
  }

  var CONTAINED = 0, NEAR = 1, KEY_WIDTH = [2, 2, 3];

  function bisectLeft(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function unique(a) { return a.filter(function (x, i) { return a.indexOf(x) === i; }); }

  /* A fragment store over the manifest: load(names) resolves when those files are in files. */
  function makeStore(manifest, fetchJson) {
    setUp(manifest.ranking, manifest.stopwords);
    var files = Object.create(null), pending = Object.create(null), common = Object.create(null);
    manifest.common.forEach(function (t) { common[t] = 1; });
    /* One fetch per file however many queries want it at once; a failed fetch is forgotten so
     * the next query tries again. */
    function get(n) {
      if (!pending[n]) {
        pending[n] = Promise.resolve(fetchJson(n)).then(function (body) {
          files[n] = body;
          store.fetched.push(n);
        }, function (e) { delete pending[n]; throw e; });
      }
      return pending[n];
    }
    var store = {
      manifest: manifest, files: files, fetched: [],
      load: function (names) { return Promise.all(unique(names).map(get)); },
      isCommon: function (t) { return common[t] === 1; },
      typeOf: function (d) { return manifest.types[manifest.doc_types.charCodeAt(d) - 97]; }
    };
    return store;
  }

  function termFiles(m, terms, prefix) {
    var out = [];
    terms.forEach(function (t) {
      var i = bisectLeft(m.heavy, t);
      out.push(m.dir + "/" + (i < m.heavy.length && m.heavy[i] === t ? "t" + i : "s" + (fnv1a(t.slice(0, m.shard_prefix)) % m.shards)) + ".json");
    });
    if (prefix !== null) {  /* the completions of a typed prefix: its shard, and the heavy ones */
      out.push(m.dir + "/s" + (fnv1a(prefix.slice(0, m.shard_prefix)) % m.shards) + ".json");
      for (var i = bisectLeft(m.heavy, prefix); i < m.heavy.length && m.heavy[i].lastIndexOf(prefix, 0) === 0; i++) out.push(m.dir + "/t" + i + ".json");
    }
    return unique(out);
  }

  function nameFile(m, norm) {
    var len = cpLen(norm);
    return len > 0 && len <= m.longest_name ? m.dir + "/n" + (fnv1a(norm) % m.name_shards) + ".json" : null;
  }

  function chunkFile(m, d) { return m.dir + "/c" + Math.floor(d / m.chunk_size) + ".json"; }

  function chunkFiles(m, nums) {
    return unique(nums.slice().sort(function (a, b) { return a - b; }).map(function (d) { return chunkFile(m, d); }));
  }

  function docOf(store, d) { return store.files[chunkFile(store.manifest, d)][d % store.manifest.chunk_size]; }

  /* What a query needs before any file (fragments.py plan). */
  function plan(text) {
    var cut = text.slice(0, MAX_INPUT), tokens = unique(tokenize(cut)), norm = normalise(cut);
    return { tokens: tokens, prefix: queryWords(text)[1], norm: norm, stable: stableParts(cut, true),
      contained: insideCanCount(norm, tokens.length, cut) };
  }

  /* The part of the index in files: postings decoded to [document, weight, ...]. */
  function loadedIndex(store, names) {
    var postings = Object.create(null), vocab = [];
    names.forEach(function (name) {
      var body = store.files[name];
      body.terms.forEach(function (term, i) {
        var enc = body.entries[i][0], out = new Array(enc.length), d = 0;
        for (var k = 0; k < enc.length; k += 2) { d += enc[k]; out[k] = d; out[k + 1] = Math.floor(enc[k + 1] / 2); }
        if (!(term in postings)) vocab.push(term);
        postings[term] = out;
      });
    });
    vocab.sort();
    return { postings: postings, vocabulary: vocab };
  }

  /* The documents whose tiers a query must test (fragments.py candidates), ascending. */
  function candidates(store, names, q) {
    var m = store.manifest, wanted = Object.create(null), n = q.tokens.length, chars = cpLen(q.norm), out = new Set(m.always);
    q.tokens.forEach(function (t) { wanted[t] = 1; });
    var nf = nameFile(m, q.norm);
    if (nf !== null) {
      var nb = store.files[nf], at = bisectLeft(nb.terms, q.norm);
      if (at < nb.terms.length && nb.terms[at] === q.norm) nb.entries[at].forEach(function (d) { out.add(d); });
    }
    var inside = Object.create(null);
    names.forEach(function (name) {
      var body = store.files[name];
      body.terms.forEach(function (term, i) {
        if (!wanted[term]) return;
        var entry = body.entries[i];
        for (var kind = 0; kind + 1 < entry.length; kind++) {
          var ks = entry[kind + 1], w = KEY_WIDTH[kind], d = 0;
          for (var k = 0; k < ks.length; k += w) {
            d += ks[k];
            var fits = kind === CONTAINED ? ks[k + 1] <= chars : kind === NEAR ? ks[k + 1] <= n : (ks[k + 1] <= n && (ks[k + 2] === 0 || n <= ks[k + 2]));
            if (fits) out.add(d);
          }
        }
        if (q.contained && q.stable.indexOf(term) >= 0) {
          var enc = entry[0], have = new Set(), e = 0;
          for (var j = 0; j < enc.length; j += 2) { e += enc[j]; if (enc[j + 1] % 2 === 1) have.add(e); }
          inside[term] = have;
        }
      });
    });
    if (q.contained) {
      var common = null;
      q.stable.forEach(function (t) {
        var have = inside[t] || new Set();
        common = common === null ? have : new Set(Array.from(common).filter(function (d) { return have.has(d); }));
      });
      (common || new Set()).forEach(function (d) { out.add(d); });
    }
    return Array.from(out).sort(function (a, b) { return a - b; });
  }

  /* The n documents with the best scores (rounded, ties by number), tiers aside. */
  function bestScored(index, text, n) {
    var qt = queryTerms(index, text);
    if (!qt[0].length) return [];
    var scores = [];
    query(index, qt[0], qt[1]).forEach(function (v, d) { scores.push([round6(v), d]); });
    scores.sort(function (a, b) { return (b[0] - a[0]) || (a[1] - b[1]); });
    return scores.slice(0, n).map(function (x) { return x[1]; });
  }

  /* search() reading only the fragments the query needs: resolves to the hits. */
  function searchFragments(store, text, k, kind) {
    if (typeof text !== "string" || !text.trim()) return Promise.resolve([]);
    var m = store.manifest, q = plan(text), names = termFiles(m, q.tokens, q.prefix), nf = nameFile(m, q.norm), index, cands;
    return store.load(nf === null ? names : names.concat([nf])).then(function () {
      index = loadedIndex(store, names);
      cands = candidates(store, names, q);
      /* with the candidates, the chunks of the best-scored pages (fragments.py best_scored) */
      return store.load(chunkFiles(m, cands.concat(bestScored(index, text, m.prefetch * (k || 10)))));
    }).then(function () {
      var pairs = cands.map(function (d) { return [d, docOf(store, d)]; });
      var ranked = rank(index, text, pairs, store.typeOf, store.isCommon, kind).slice(0, k || 10);
      return store.load(chunkFiles(m, ranked.map(function (r) { return r[0]; }))).then(function () {
        return ranked.map(function (r) { return hit(docOf(store, r[0]), r); });
      });
    });
  }

  return {
    tokenize: tokenize, normalise: normalise, search: search, makeState: makeState, completions: completions,
    makeStore: makeStore, searchFragments: searchFragments
  };
});

/* mlwiki triage core: the browser half of plugins/mlwiki/core/triage.py. Both read one
 * specification (core/triage_spec.json, shipped in the search payload as "triage"): the token,
 * error and timestamp patterns, the common words and every limit. A test runs this file in Node
 * and in Chromium on the same logs as the Python engine and compares the results field by field.
 * No DOM and no network: it runs in a Web Worker, in the page and in Node. Ranking of guesses
 * uses search-core.js (MlwikiSearchCore). */
(function (root, factory) {
  var api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.MlwikiTriageCore = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var SURROGATE = /[\uD800-\uDFFF]/;
  var WORD_CHAR = /[A-Za-z0-9_]/;
  var CANDIDATE = 1, FRAME_LINE = 2;  /* flags of a found line (triage.py) */
  var EDGE_JUNK = /^[\x00 \t]+|[\x00 \t]+$/g;
  var ASCII_SPACE = /[ \t\n\r\f\v]+/;
  var UPPER = /[A-Z]+/g;

  /* The first n code points of s (Python slicing), fast when s is short or has no surrogates. */
  function cut(s, n) {
    if (s.length <= n) return s;
    var head = s.slice(0, n);
    if (!SURROGATE.test(head)) return head;
    return Array.from(s).slice(0, n).join("");
  }

  function asciiLower(s) { return s.replace(UPPER, function (m) { return m.toLowerCase(); }); }

  var DIGIT_RUNS = /[0-9]+/g;
  /* The line's numbers, all and in order, are numbers of the signature (triage.py _numbers_within). */
  function numbersWithin(line, sig) {
    if (!line.length || line.length > sig.length) return false;
    for (var i = 0; i + line.length <= sig.length; i++) {
      var j = 0;
      while (j < line.length && sig[i + j] === line[j]) j++;
      if (j === line.length) return true;
    }
    return false;
  }
  function squash(s) { return asciiLower(s).split(ASCII_SPACE).filter(Boolean).join(" "); }

  function pyRegex(src, flags) { return new RegExp(src.replace(/\(\?P</g, "(?<"), flags || ""); }

  function escapeRe(ch) { return ch.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&"); }

  function triePattern(words) {
    var trie = Object.create(null);
    words.forEach(function (w) {
      var node = trie;
      for (var i = 0; i < w.length; i++) node = node[w[i]] || (node[w[i]] = Object.create(null));
      node[""] = Object.create(null);
    });
    function build(node) {
      var keys = Object.keys(node).sort(), alts = [];
      keys.forEach(function (ch) { if (ch) alts.push(escapeRe(ch) + build(node[ch])); });
      if (!alts.length) return "";
      var body = alts.length === 1 ? alts[0] : "(?:" + alts.join("|") + ")";
      return ("" in node) ? "(?:" + body + ")?" : body;
    }
    return build(trie);
  }

  function contains(hay, needle) {
    var n = needle.length;
    if (n === 0 || n > hay.length) return false;
    outer: for (var i = 0; i <= hay.length - n; i++) {
      if (hay[i] !== needle[0]) continue;
      for (var j = 1; j < n; j++) if (hay[i + j] !== needle[j]) continue outer;
      return true;
    }
    return false;
  }

  /* Order of occurrences: [hasTimestamp, timestamp tuple, reading order], as Python tuples. */
  function cmpKey(a, b) {
    if (a[0] !== b[0]) return a[0] - b[0];
    var ta = a[1], tb = b[1];
    for (var i = 0; i < Math.min(ta.length, tb.length); i++) if (ta[i] !== tb[i]) return ta[i] - tb[i];
    if (ta.length !== tb.length) return ta.length - tb.length;
    return a[2] - b[2];
  }

  function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }

  function Triage(payload) {
    var spec = payload.triage, self = this;
    this.spec = spec;
    this.docs = payload.docs;
    this.byRef = Object.create(null);
    payload.docs.forEach(function (d) { self.byRef[d.ref] = d; });
    this.TOKEN = new RegExp(spec.token, "g");
    this.ANSI = new RegExp(spec.ansi, "g");
    this.ERRORISH = pyRegex(spec.errorish);
    this.TIMESTAMPS = spec.timestamps.map(function (p) { return pyRegex(p); });
    this.WORKER = pyRegex(spec.worker);
    this.QUALIFIED = pyRegex(spec.qualified);
    this.COMMON = Object.create(null);
    spec.common_words.forEach(function (w) { self.COMMON[w] = 1; });
    this.ERROR_SET = Object.create(null);
    spec.error_words.forEach(function (w) { self.ERROR_SET[w] = 1; });
    this.shapes = this.compileShapes(payload.docs);
    this.byAnchor = Object.create(null);
    this.shapes.forEach(function (s, i) {
      s.anchors.forEach(function (a) { (self.byAnchor[a] || (self.byAnchor[a] = [])).push(i); });
    });
    var words = Object.create(null);
    Object.keys(this.byAnchor).forEach(function (w) { words[w] = 1; });
    spec.error_words.forEach(function (w) { words[w] = 1; });
    words[spec.frame_prefix] = 1;
    this.FRAME = pyRegex(spec.frame);
    // ASCII-case-insensitive (no "u" flag: a non-ASCII letter never folds to an ASCII one),
    // as Python matches on bytes.lower().
    this.prefilter = new RegExp(triePattern(Object.keys(words).sort()), "gi");
    this.echoOf = Object.create(null);
    payload.docs.forEach(function (d) { self.echoOf[d.ref] = d.echo_of || []; });
  }

  Triage.prototype.shapeTokens = function (text) {
    var out = [], m, VAR = null;
    this.TOKEN.lastIndex = 0;
    while ((m = this.TOKEN.exec(text)) !== null) {
      var tok = m[0];
      if (/[0-9]/.test(tok) || tok.indexOf("/") >= 0) {
        if (!out.length || out[out.length - 1] !== VAR) out.push(VAR);
      } else {
        var q = this.QUALIFIED.exec(tok);  /* a qualified exception name is its class (triage.py) */
        out.push((q ? q[1] : tok).toLowerCase());
      }
    }
    return out;
  };

  Triage.prototype.lineWords = function (text) {
    return this.shapeTokens(text).filter(function (t) { return t !== null; });
  };

  Triage.prototype.compileShapes = function (docs) {
    var spec = this.spec, self = this, shapes = [], owners = Object.create(null);
    docs.forEach(function (doc) {
      (doc.signatures || []).forEach(function (text) {
        var words = self.lineWords(text);
        if (!words.length || (words.length < 2 && words[0].length < spec.single_word_shape_min_length)) return;
        var pool = Object.create(null), any = false;
        words.forEach(function (w) { if (!self.COMMON[w] && w.length >= spec.anchor_min_length) { pool[w] = 1; any = true; } });
        if (!any) words.forEach(function (w) { if (w.length >= spec.anchor_fallback_min_length) pool[w] = 1; });
        var anchors = Object.keys(pool).sort(function (a, b) { return (b.length - a.length) || (a < b ? -1 : a > b ? 1 : 0); })
          .slice(0, spec.anchors_per_shape).sort();
        if (!anchors.length) return;
        var key = words.join("\u0001");
        (owners[key] || (owners[key] = Object.create(null)))[doc.ref] = 1;
        shapes.push({ page: doc.ref, text: text, words: words, anchors: anchors, key: key, digits: squash(text), numbers: text.match(DIGIT_RUNS) || [] });
      });
    });
    // Generic shapes are weak too (see compile_shapes in triage.py).
    var pagesOf = Object.create(null);
    shapes.forEach(function (s) {
      s.words.forEach(function (w) { (pagesOf[w] || (pagesOf[w] = Object.create(null)))[s.page] = 1; });
    });
    function generic(words) {
      return words.length <= spec.generic_shape_max_words &&
        words.every(function (w) { return Object.keys(pagesOf[w]).length >= spec.generic_word_min_pages; });
    }
    shapes.forEach(function (s) { s.weak = Object.keys(owners[s.key]).length > 1 || generic(s.words); });
    return shapes;
  };

  /* [start, end] of each token of text that is a constant word of signature (for display). */
  Triage.prototype.marks = function (text, signature) {
    var want = Object.create(null), out = [], m;
    this.lineWords(signature || "").forEach(function (w) { want[w] = 1; });
    var rx = new RegExp(this.spec.token, "g");
    while ((m = rx.exec(text)) !== null) if (want[m[0].toLowerCase()]) out.push([m.index, m.index + m[0].length]);
    return out;
  };

  Triage.prototype.matches = function (shape, words) {
    return contains(words, shape.words) || (words.length >= this.spec.min_fragment && contains(shape.words, words));
  };

  /* [newlines in the chunk, found lines]: every line a shape matches or that is a candidate for
   * a guess or that is a traceback frame, as [line index in the chunk, text, shape indexes,
   * CANDIDATE | FRAME_LINE flags]. */
  Triage.prototype.scanChunk = function (text) {
    var spec = this.spec, found = [], lastEnd = -1, line = 0, countedTo = 0, m;
    var pre = this.prefilter;
    pre.lastIndex = 0;
    while ((m = pre.exec(text)) !== null) {
      var a = m.index, b = a + m[0].length;
      if (b === a) { pre.lastIndex++; continue; }
      /* Inside a longer word: a word character on both sides of an edge of the hit. */
      if (((a && WORD_CHAR.test(text[a - 1]) && WORD_CHAR.test(text[a])) ||
           (b < text.length && WORD_CHAR.test(text[b]) && WORD_CHAR.test(text[b - 1]))) && !this.ERROR_SET[m[0].toLowerCase()]) continue;
      var start = text.lastIndexOf("\n", a - 1) + 1;
      if (a === 0) start = 0;
      if (start < lastEnd) continue;
      var end = text.indexOf("\n", b);
      if (end < 0) end = text.length;
      for (var i = countedTo; i < start; i++) if (text.charCodeAt(i) === 10) line++;
      countedTo = start;
      if (end - start > spec.max_line) {
        start = Math.max(start, a - Math.floor(spec.max_line / 2));
        end = start + spec.max_line;
      }
      lastEnd = end;
      var clean = text.slice(start, end).replace(this.ANSI, "").split("\r").join("").replace(EDGE_JUNK, "");
      var words = this.lineWords(clean), present = Object.create(null), anyPresent = false, hits = Object.create(null), strong = false, self = this;
      words.forEach(function (w) { if (self.byAnchor[w]) { present[w] = 1; anyPresent = true; } });
      Object.keys(present).forEach(function (w) {
        self.byAnchor[w].forEach(function (si) { if (!hits[si] && self.matches(self.shapes[si], words)) hits[si] = 1; });
      });
      var hitList = Object.keys(hits).map(Number).sort(function (x, y) { return x - y; });
      hitList.forEach(function (si) { if (!self.shapes[si].weak) strong = true; });
      var candidate = !strong && (anyPresent || this.ERRORISH.test(clean));
      var flags = (candidate ? CANDIDATE : 0) | (this.FRAME.test(clean) ? FRAME_LINE : 0);
      if (hitList.length || flags) found.push([line, clean, hitList, flags]);
    }
    var nl = 0;
    for (var j = 0; j < text.length; j++) if (text.charCodeAt(j) === 10) nl++;
    return [nl, found];
  };

  Triage.prototype.timestamp = function (line) {
    var head = cut(line, this.spec.timestamp_window);
    for (var i = 0; i < this.TIMESTAMPS.length; i++) {
      var m = this.TIMESTAMPS[i].exec(head);
      if (m) {
        var g = m.groups, frac = (g.f || "0").slice(0, 6);
        while (frac.length < 6) frac += "0";
        return [parseInt(g.y || "0", 10), +g.mo, +g.d, +g.h, +g.mi, +g.s, parseInt(frac, 10)];
      }
    }
    return null;
  };

  Triage.prototype.worker = function (line, source, many) {
    var m = this.WORKER.exec(cut(line, this.spec.worker_window));
    if (m) {
      var g = m.groups;
      if (g.rank) return "rank " + g.rank;
      if (g.rank2) return "rank " + g.rank2;
      if (g.pod) return g.pod;
      if (g.worker) return g.worker;
      if (g.host) return g.host;
    }
    if (!many) return "";
    var name = source.replace(/\\/g, "/").split("/").pop();
    this.spec.worker_file_suffixes.forEach(function (suf) {
      if (name.length > suf.length && name.slice(-suf.length) === suf) name = name.slice(0, -suf.length);
    });
    return name;
  };

  function where(name, lineno, ts) {
    var out = { file: name, line: lineno };
    if (ts) {
      out.timestamp = (ts[0] ? pad(ts[0], 4) + "-" : "") + pad(ts[1], 2) + "-" + pad(ts[2], 2) + " " +
        pad(ts[3], 2) + ":" + pad(ts[4], 2) + ":" + pad(ts[5], 2) + "." + pad(ts[6], 6);
    }
    return out;
  }

  /* A run over several sources, fed chunk by chunk (each chunk ends at a newline, or is a cut of
   * a very long line), in reading order. */
  function Run(tri, nSources) {
    this.tri = tri;
    this.many = nSources > 1;
    this.hits = Object.create(null);
    this.hitOrder = [];
    this.cands = Object.create(null);
    this.candList = [];
    this.seq = 0;
    this.bytesRead = 0;
    this.linesRead = 0;
    this.files = [];
    this.problems = [];
    this.base = 1;
    this.name = "";
    this.frame = [null, 0, ""];  /* the last traceback frame line seen: file, line, text */
  }

  Run.prototype.beginFile = function (name) { this.files.push(name); this.name = name; this.base = 1; };

  Run.prototype.addChunk = function (text) {
    var res = this.tri.scanChunk(text), self = this;
    res[1].forEach(function (f) { self.seq++; self.take(self.base + f[0], f[1], f[2], f[3]); });
    this.base += res[0];
    this.linesRead += res[0];
  };

  Run.prototype.take = function (lineno, clean, hits, flags) {
    var tri = this.tri, spec = tri.spec, ts = tri.timestamp(clean);
    var key = [ts ? 1 : 0, ts || [], this.seq], self = this;
    hits.forEach(function (si) { self.record(tri.shapes[si], lineno, clean, key, ts); });
    if (flags & CANDIDATE) {
      var norm = cut(tri.shapeTokens(clean).map(function (t) { return t === null ? "#" : t; }).join(" "), 300);
      var u = this.cands[norm];
      if (!u) {
        if (this.candList.length < spec.max_candidates) {
          var context = this.frame[0] === this.name && this.frame[1] === lineno - 1 ? this.frame[2] : "";
          u = { line: cut(clean, spec.evidence_chars), count: 1, first: where(this.name, lineno, ts), firstKey: key, context: context };
          this.cands[norm] = u;
          this.candList.push(u);
        }
      } else u.count++;
    }
    if (flags & FRAME_LINE) this.frame = [this.name, lineno, cut(clean, spec.evidence_chars)];
  };

  /* What a guess searches: the line, after the frame that names its file and function. */
  function query(u) { return u.context ? u.context + "\n" + u.line : u.line; }

  Run.prototype.record = function (shape, lineno, line, key, ts) {
    var spec = this.tri.spec, hit = this.hits[shape.page];
    if (!hit) {
      hit = this.hits[shape.page] = { page: shape.page, count: 0, first: null, firstKey: null, exact: false, words: 0, weak: true, workers: Object.create(null), nWorkers: 0, evidence: [] };
      this.hitOrder.push(shape.page);
    }
    hit.count++;
    hit.weak = hit.weak && shape.weak;
    var w = this.tri.worker(line, this.name, this.many);
    if (w && hit.nWorkers < spec.max_workers_kept && !hit.workers[w]) { hit.workers[w] = 1; hit.nWorkers++; }
    var ev = where(this.name, lineno, ts);
    ev.text = cut(line, spec.evidence_chars);
    ev.signature = shape.text;
    var exact = squash(line).indexOf(shape.digits) >= 0 || numbersWithin(line.match(DIGIT_RUNS) || [], shape.numbers),
      c = hit.first ? cmpKey(key, hit.firstKey) : -1;
    if (!hit.first || c < 0 || (c === 0 && (exact > hit.exact || (exact === hit.exact && shape.words.length > hit.words)))) {
      hit.first = ev; hit.firstKey = key; hit.exact = exact; hit.words = shape.words.length;
    }
    var name = this.name;
    if (hit.evidence.length < spec.max_evidence && hit.evidence.every(function (e) { return e.line !== lineno || e.file !== name; })) hit.evidence.push(ev);
  };

  /* A result ranked by search, not by a signature shape (triage.py _guess). */
  function guess(h, why, count, firstSeen) {
    return {
      id: h.ref, type: h.type, title: h.title, url: h.url, match: "guess",
      why: why + (h.signature ? " (signature text match: " + cut(h.signature, 80) + ")" : ""),
      score: h.score, tier: h.tier, count: count, first_seen: firstSeen
    };
  }

  function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  Run.prototype.ranked = function () {
    var tri = this.tri, hits = this.hits;
    var list = Object.keys(hits).map(function (k) { return hits[k]; });
    list.forEach(function (h) { h.echo = (tri.echoOf[h.page] || []).some(function (o) { return !!hits[o]; }); });
    return list.sort(function (a, b) {
      return (a.echo - b.echo) || cmpKey(a.firstKey, b.firstKey) || ((!a.exact) - (!b.exact)) ||
        (b.words - a.words) || (b.count - a.count) || cmpStr(a.page, b.page);
    });
  };

  Run.prototype.unmatched = function () {
    return this.candList.slice().sort(function (a, b) { return cmpKey(a.firstKey, b.firstKey); }).slice(0, this.tri.spec.max_unmatched);
  };

  /* [search hit, candidate] pairs, best first (see guesses() in triage.py). */
  Run.prototype.guesses = function (state) {
    var spec = this.tri.spec, search = (typeof MlwikiSearchCore !== "undefined" ? MlwikiSearchCore : require("./search-core.js")).search;
    var lines = this.candList.slice().sort(function (a, b) { return (a.count - b.count) || cmpKey(a.firstKey, b.firstKey); }).slice(0, spec.guess_lines);
    if (!lines.length) return [];
    var byPlace = lines.slice().sort(function (a, b) { return cmpStr(a.first.file, b.first.file) || (a.first.line - b.first.line); });
    var run = [byPlace[0]], extra = [];
    byPlace.slice(1).concat([null]).forEach(function (u) {
      var last = run[run.length - 1];
      if (u && u.first.file === last.first.file && u.first.line - last.first.line <= spec.group_gap) { run.push(u); return; }
      if (run.length > 1) {
        var key = run.reduce(function (m, x) { return cmpKey(x.firstKey, m) < 0 ? x.firstKey : m; }, run[0].firstKey);
        extra.push({ line: run.map(query).join("\n"), count: Math.min.apply(null, run.map(function (x) { return x.count; })), first: run[0].first, firstKey: key });
      }
      if (u) run = [u];
    });
    lines = lines.concat(extra);
    var pairs = [], best = [];  /* per line: the score of its best hit (how much the line says) */
    lines.forEach(function (u, n) {
      best[n] = 0;
      search(state, query(u), 3).filter(function (h) { return h.type !== "doc"; }).forEach(function (h, r) {
        pairs.push([h, u, n, r]); best[n] = Math.max(best[n], h.score);
      });
    });
    pairs.sort(function (p, q) {
      return (q[0].tier - p[0].tier) || (q[0].strength - p[0].strength) || (p[1].count - q[1].count) ||
        (p[3] - q[3]) || (best[q[2]] - best[p[2]]) || cmpKey(p[1].firstKey, q[1].firstKey) || (q[0].score - p[0].score) ||
        cmpStr(p[0].ref, q[0].ref);
    });
    var seen = Object.create(null), out = [];
    pairs.forEach(function (p) { if (!seen[p[0].ref]) { seen[p[0].ref] = 1; out.push(p); } });
    return out;
  };

  /* The result document: the same fields as triage.results() in Python. */
  Run.prototype.results = function (state, k) {
    var tri = this.tri, spec = tri.spec, self = this;
    k = k || 5;
    var shaped = this.ranked().map(function (h) {
      var doc = tri.byRef[h.page], first = h.first || {};
      var echo = (tri.echoOf[h.page] || []).filter(function (o) { return !!self.hits[o]; });
      var workers = Object.keys(h.workers).sort();
      return {
        id: h.page, type: doc.type, title: doc.title, url: doc.url, match: "shape",
        why: (echo.length ? "echo of " + echo.join(", ") + ", which also matched; " : "") +
          (h.weak ? "a shape several pages share; " : "") +
          "signature shape matched " + h.count + " line" + (h.count !== 1 ? "s" : "") + ", first at " + first.file + ":" + first.line,
        count: h.count, first_seen: h.first, workers: workers.slice(0, spec.max_workers_listed), worker_count: workers.length,
        evidence: h.evidence, weak: h.weak
      };
    });
    var strong = shaped.filter(function (r) { return !r.weak; }), weak = shaped.filter(function (r) { return r.weak; });
    var near = [], other = [], firstLine = [];
    var search = (typeof MlwikiSearchCore !== "undefined" ? MlwikiSearchCore : require("./search-core.js")).search;
    var decisive = strong[0];
    if (decisive && strong.length < k && state) {
      // The decisive line (of the top strong shape page) searched alone (see triage.py).
      var top = decisive.first_seen, taken = Object.create(null), nTaken = 0;
      shaped.forEach(function (r) { taken[r.id] = 1; nTaken++; });
      search(state, top.text, spec.first_line_guesses + nTaken).forEach(function (h) {
        if (taken[h.ref] || h.type === "doc" || firstLine.length >= spec.first_line_guesses) return;
        taken[h.ref] = 1;
        firstLine.push(guess(h, "the first matching line (" + top.file + ":" + top.line + ") searched alone", decisive.count, top));
      });
    }
    if (strong.length < k && state) {
      var seen = Object.create(null);
      shaped.forEach(function (r) { seen[r.id] = 1; });
      firstLine.forEach(function (r) { seen[r.id] = 1; });
      this.guesses(state).forEach(function (p) {
        var h = p[0], u = p[1];
        if (seen[h.ref]) return;
        var first = {};
        Object.keys(u.first).forEach(function (f) { first[f] = u.first[f]; });
        first.text = u.line;
        (h.tier >= 2 ? near : other).push(guess(h, "no signature shape matched this line; best guess by the search ranking", u.count, first));
      });
    }
    return {
      results: strong.concat(firstLine, near, weak, other).slice(0, k),
      unmatched_errors: this.unmatched().slice(0, spec.guess_lines).map(function (u) { return { text: u.line, count: u.count, first_seen: u.first }; }),
      read: { bytes_read: this.bytesRead, lines_read: this.linesRead, files: this.files, problems: this.problems }
    };
  };

  /* ---- reading bytes: the same blocks as triage.py's _blocks -------------------------------- */

  function looksBinary(probe, decoder, spec) {
    var TEXT_BYTE = new Uint8Array(256), odd = 0;
    spec.text_byte_ranges.forEach(function (r) { for (var b = r[0]; b <= r[1]; b++) TEXT_BYTE[b] = 1; });
    for (var i = 0; i < probe.length; i++) if (!TEXT_BYTE[probe[i]]) odd++;
    var text = decoder.decode(probe);
    for (var j = 0; j < text.length; j++) if (text.charCodeAt(j) === 0xfffd) odd++;
    return odd > Math.floor(probe.length / 10) + 4;
  }

  function lastNewline(buf) {
    for (var i = buf.length - 1; i >= 0; i--) if (buf[i] === 10) return i;
    return -1;
  }

  function concat(a, b) {
    if (!a.length) return b;
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  /* Feeds one source to the run. next() returns a Promise of the next Uint8Array of at most
   * block_bytes (or an empty one at the end); it may reject with {truncated: true} for a .gz
   * that ends early, or with another error. Resolves when the source is read. */
  function feedSource(runObj, name, next, progress) {
    var spec = runObj.tri.spec, BLOCK = spec.block_bytes, MAXL = spec.max_line;
    var TD = typeof TextDecoder !== "undefined" ? TextDecoder : require("util").TextDecoder;
    var decoder = new TD("utf-8"), carry = new Uint8Array(0), first = true;
    runObj.beginFile(name);
    function emit(bytes) { runObj.addChunk(decoder.decode(bytes)); }
    function step() {
      return next().then(function (block) { return handle(block); }, function (err) {
        if (err && err.truncated) runObj.problems.push(name + ": compressed stream ends early (truncated .gz); read what was there");
        else runObj.problems.push(name + ": read error after " + runObj.bytesRead + " bytes: " + (err && err.message ? err.message : String(err)));
        return handle(new Uint8Array(0));
      });
    }
    function handle(block) {
      if (first) {
        first = false;
        if (looksBinary(block.subarray(0, spec.binary_probe), decoder, spec)) { runObj.problems.push(name + ": looks binary; skipped"); return null; }
        if (!block.length) { runObj.problems.push(name + ": empty"); return null; }
      }
      runObj.bytesRead += block.length;
      if (progress) progress(runObj.bytesRead);
      var data = concat(carry, block);
      if (!block.length) { if (data.length) emit(data); return null; }
      var c = lastNewline(data) + 1;
      if (c === 0) {
        if (data.length < BLOCK) { carry = data; return step(); }
        c = data.length - MAXL;
      }
      carry = data.slice(c);
      emit(data.subarray(0, c));
      return step();
    }
    return step();
  }

  return { Triage: Triage, Run: Run, feedSource: feedSource, cmpKey: cmpKey, squash: squash, cut: cut };
});

/* mlwiki triage worker: runs triage-core.js off the page's thread. It fetches the site's own
 * search payload once (same origin) when it starts; a log given to it is never sent anywhere:
 * the worker makes no request while it triages. Messages in: {type: "run", id, sources: [{name,
 * file} | {name, text}], k}. Messages out: {type: "ready"} | {type: "progress", id, bytes, total}
 * | {type: "result", id, result, ms} | {type: "error", id, message}. */
/* global importScripts, MlwikiSearchCore, MlwikiTriageCore */
importScripts("mlwiki-search-core.js", "mlwiki-triage-core.js");

var loaded = null;

function load(indexUrl) {
  if (!loaded) {
    loaded = fetch(indexUrl).then(function (r) {
      if (!r.ok) throw new Error("search index: HTTP " + r.status);
      return r.json();
    }).then(function (payload) {
      return { state: MlwikiSearchCore.makeState(payload), tri: new MlwikiTriageCore.Triage(payload) };
    });
  }
  return loaded;
}

/* next() for a byte array: slices of block_bytes. */
function bytesReader(bytes, block) {
  var off = 0;
  return function () {
    var out = bytes.subarray(off, Math.min(off + block, bytes.length));
    off += out.length;
    return Promise.resolve(out);
  };
}

/* next() for a File: exact slices of block_bytes, read one at a time (memory stays flat). */
function fileReader(file, block) {
  var off = 0;
  return function () {
    var end = Math.min(off + block, file.size), piece = file.slice(off, end);
    off = end;
    return piece.arrayBuffer().then(function (buf) { return new Uint8Array(buf); });
  };
}

/* next() for a .gz File: decompressed as it is read and re-cut into blocks of block_bytes. A
 * stream that ends before its end marker rejects with {truncated: true} after handing over
 * everything it could decompress. */
function gzipReader(file, block) {
  var reader = file.stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  var parts = [], have = 0, done = false, failed = null, got = 0;
  function take() {
    var size = Math.min(block, have), out = new Uint8Array(size), at = 0;
    while (at < size) {
      var p = parts[0], n = Math.min(p.length, size - at);
      out.set(p.subarray(0, n), at);
      at += n;
      if (n === p.length) parts.shift(); else parts[0] = p.subarray(n);
    }
    have -= size;
    return out;
  }
  function next() {
    if (have >= block || ((done || failed) && have)) return Promise.resolve(take());
    if (failed) { var f = failed; failed = null; done = true; return Promise.reject(f); }
    if (done) return Promise.resolve(new Uint8Array(0));
    return reader.read().then(function (r) {
      if (r.done) done = true;
      else { parts.push(r.value); have += r.value.length; got += r.value.length; }
      return next();
    }, function (e) {
      failed = got ? { truncated: true } : new Error("not a valid gzip stream (" + (e && e.message ? e.message : e) + ")");
      return next();
    });
  }
  return next;
}

self.onmessage = function (ev) {
  var msg = ev.data;
  if (msg.type === "load") { load(msg.indexUrl).then(function () { self.postMessage({ type: "ready" }); }, function (e) { self.postMessage({ type: "error", id: null, message: e.message }); }); return; }
  if (msg.type !== "run") return;
  var t0 = Date.now();
  load(msg.indexUrl).then(function (ctx) {
    var tri = ctx.tri, block = tri.spec.block_bytes, run = new MlwikiTriageCore.Run(tri, msg.sources.length);
    var total = msg.sources.reduce(function (n, s) { return n + (s.file ? s.file.size : s.text.length); }, 0);
    var lastPost = 0, done = 0;
    function progress(bytes) {
      var now = Date.now();
      if (now - lastPost > 150) { lastPost = now; self.postMessage({ type: "progress", id: msg.id, bytes: done + bytes, total: total }); }
    }
    var chain = Promise.resolve();
    msg.sources.forEach(function (src) {
      chain = chain.then(function () {
        var next;
        if (src.file) next = /\.gz$/i.test(src.name) ? gzipReader(src.file, block) : fileReader(src.file, block);
        else next = bytesReader(new TextEncoder().encode(src.text), block);
        var before = run.bytesRead;
        return MlwikiTriageCore.feedSource(run, src.name, next, function (b) { progress(b - before); }).then(function () {
          done += src.file ? src.file.size : src.text.length;
        });
      });
    });
    return chain.then(function () {
      var result = run.results(ctx.state, msg.k || 5);
      result.results.forEach(function (r) {
        (r.evidence || []).forEach(function (ev) { ev.marks = tri.marks(ev.text, ev.signature); });
        var wfs = (tri.byRef[r.id] || {}).workflows || [];
        if (wfs.length) r.next = "python3 scripts/python_glue_runner.py --workflow " + wfs[0] + " '{}' --dry-run";
      });
      self.postMessage({ type: "result", id: msg.id, result: result, ms: Date.now() - t0 });
    });
  }).catch(function (e) {
    self.postMessage({ type: "error", id: msg.id, message: e && e.message ? e.message : String(e) });
  });
};

/* Runs the site's triage (triage-core.js + search-core.js, the files the site ships) in
 * Node over the cases of a manifest and prints their results as JSON, for test_agreement.py to
 * compare with the Python engine.
 *
 *   node agree.js ASSETS_DIR PAYLOAD_JSON MANIFEST_JSON
 *
 * MANIFEST: [{"case": NAME, "sources": [[DISPLAY_NAME, PATH], ...]}, ...]. A PATH ending in .gz
 * is decompressed (a truncated stream yields what it holds, then the same note as Python). */
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const [assets, payloadPath, manifestPath] = process.argv.slice(2);
globalThis.MlwikiSearchCore = require(path.resolve(assets, "mlwiki-search-core.js"));
const T = require(path.resolve(assets, "mlwiki-triage-core.js"));

const payload = JSON.parse(fs.readFileSync(payloadPath, "utf8"));
const state = MlwikiSearchCore.makeState(payload);
const tri = new T.Triage(payload);
const BLOCK = tri.spec.block_bytes;

function reader(file) {
  let bytes, truncated = false;
  if (file.endsWith(".gz")) {
    const raw = fs.readFileSync(file);
    try {
      bytes = zlib.gunzipSync(raw);
    } catch (e) {
      bytes = zlib.gunzipSync(raw, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      truncated = true;
    }
  } else {
    // Plain files are read in blocks, as the browser reads File slices: memory stays flat.
    const fd = fs.openSync(file, "r");
    return function next() {
      const buf = Buffer.allocUnsafe(BLOCK);
      const n = fs.readSync(fd, buf, 0, BLOCK, null);
      if (n === 0) fs.closeSync(fd);
      return Promise.resolve(new Uint8Array(buf.buffer, buf.byteOffset, n));
    };
  }
  let off = 0;
  return function next() {
    if (off >= bytes.length && truncated) { truncated = false; return Promise.reject({ truncated: true }); }
    const out = bytes.subarray(off, Math.min(off + BLOCK, bytes.length));
    off += out.length;
    return Promise.resolve(out);
  };
}

async function main() {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
  const out = [];
  for (const c of manifest) {
    const run = new T.Run(tri, c.sources.length);
    for (const [name, file] of c.sources) await T.feedSource(run, name, reader(file));
    out.push({ case: c.case, result: run.results(state, 5) });
  }
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => { console.error(e && e.stack ? e.stack : e); process.exit(1); });

"""Python and JavaScript triage agree: the engine in mlwiki/core/triage.py and the site's
triage-core.js (run in Node on the files the site ships, with the shipped search payload) give
the same results, field by field, on a corpus of 280+ logs: every real log of real_logs.yml,
every pasted error of the search evaluation set buried in realistic noise (some gzipped, some
CRLF, some with ANSI colours), several workers' logs at once, and the awkward inputs (invalid
UTF-8, NUL bytes, binary, empty, truncated .gz, a 200 KB single line, non-ASCII text)."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from mlwiki.core.triage import Triage, _opener, results
from noise import noise_lines
from wikifix import REPO

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")


def _noise(rng: random.Random, size: int) -> list[str]:
    out, total = [], 0
    for line in noise_lines(rng.randrange(10**6)):
        out.append(line)
        total += len(line) + 1
        if total >= size:
            return out
    return out


def build_corpus(root: Path) -> list[tuple[str, list[tuple[str, Path]]]]:
    """(case name, [(display name, path)]) for every log of the agreement corpus."""
    rng = random.Random(11)
    cases: list[tuple[str, list[tuple[str, Path]]]] = []

    def add(name: str, data: bytes, gz: bool = False) -> None:
        path = root / (name + (".log.gz" if gz else ".log"))
        path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
        cases.append((name, [(path.name, path)]))

    for i, case in enumerate(yaml.safe_load((HERE / "real_logs.yml").read_text(encoding="utf-8"))):
        add(f"real-{i:03d}", case["log"].encode("utf-8"))
    evals = yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
    for i, case in enumerate(evals):
        lines = _noise(rng, rng.randrange(5_000, 60_000))
        at = rng.randrange(len(lines) + 1)
        text = "\n".join([*lines[:at], *case["query"].splitlines(), *lines[at:]]) + "\n"
        if i % 11 == 3:
            text = text.replace("\n", "\r\n")
        if i % 13 == 5:
            text = text.replace("Error", "\x1b[31mError\x1b[0m")
        add(f"buried-{i:03d}", text.encode("utf-8"), gz=i % 7 == 2)
    # Several workers at once: the worked example's per-worker logs.
    example = sorted((HERE / "examples" / "ddp-ib-failure").glob("*.log"))
    cases.append(("example-ddp-ib", [(p.name, p) for p in example]))
    err = "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error"
    add("invalid-utf8", b"ok \xff\xfe line\n" + err.encode() + b" \xc3(\n")
    add("nul-bytes", b"\x00\x00" + err.encode() + b"\x00\nE0101 00:00:00.0 1 a.cc:1] Check failed: x\n")
    add("binary", bytes(range(256)) * 300)
    add("empty", b"")
    full = gzip.compress(("\n".join(_noise(rng, 80_000)) + "\n" + err + "\n").encode(), mtime=0)
    trunc = root / "truncated.log.gz"
    trunc.write_bytes(full[: len(full) // 2])
    cases.append(("truncated-gz", [(trunc.name, trunc)]))
    add("long-line", (("x=1 " * 25_000) + err + (" y=2" * 25_000) + "\n").encode())
    add("non-ascii", ("café ünïcode 中文 😀 line\n" + "😀" * 10 + " " + err + "\nERROR: ошибка 😀😀\n").encode())
    add("crlf-only", (err + "\r\n").encode() * 3)
    # Traceback frames: the line after a frame is searched with it; not across files; "profile \"".
    frames = "".join(f'  File "/src/pkg/mod{i}.py", line {i}, in call_{i}\n    helper_{i}(deadline)\n' for i in range(30))
    rdzv = ('  File "/usr/lib/python3/dist-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", '
            "line 1024, in next_rendezvous\n    self._op_executor.run(join_op, deadline)\n")
    add("frames", ("\n".join(_noise(rng, 30_000)) + "\nTraceback (most recent call last):\n" + frames + rdzv
                   + 'profile "x", line 1, in f\n    raise TimeoutError()\n').encode())
    tail, head = root / "frames-a.log", root / "frames-b.log"
    tail.write_bytes(("\n".join(_noise(rng, 5_000)) + "\n" + rdzv.splitlines()[0] + "\n").encode())
    head.write_bytes((rdzv.splitlines()[1] + "\n" + "\n".join(_noise(rng, 5_000)) + "\n").encode())
    cases.append(("frames-two-files", [(tail.name, tail), (head.name, head)]))
    # Words that are also JavaScript object-prototype names, in a signature and around it.
    add("prototype-words", b"constructor __proto__ toString hasOwnProperty valueOf error: x\n"
        b"W tensorflow/core/framework/op_kernel.cc:1] Not found: Unsuccessful TensorSliceReader constructor: "
        b"Failed to find any matching files for ckpt-1\nconstructor failed __proto__\n")
    return cases


def python_results(payload: dict[str, Any], corpus: list[tuple[str, list[tuple[str, Path]]]]) -> list[Any]:
    from mlwiki.core.search.rank import load_index

    tri = Triage(payload["docs"])
    index = load_index(payload["index"])
    out = []
    for name, sources in corpus:
        report = tri.run([(disp, _opener(path)) for disp, path in sources], workers=1)
        out.append({"case": name, "result": results(report, tri, index, k=5)})
    return out


@pytest.fixture(scope="module")
def both(shipped: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[Any], int]:
    if NODE is None:
        pytest.fail("node is not installed: bash .ci/run installs it (Debian package 'nodejs')")
    root = tmp_path_factory.mktemp("agree")
    corpus = build_corpus(root)
    payload_path = shipped.site / "search" / "mlwiki-index.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps([{"case": n, "sources": [[d, str(p)] for d, p in s]} for n, s in corpus]))
    proc = subprocess.run(
        [NODE, str(HERE / "agree.js"), str(shipped.site / "assets"), str(payload_path), str(manifest)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    py = json.loads(json.dumps(python_results(payload, corpus), ensure_ascii=False))
    return py, js, len(corpus)


def test_corpus_is_large_enough(both: tuple[list[Any], list[Any], int]) -> None:
    py, js, n = both
    assert n >= 200 and len(py) == len(js) == n


def test_python_and_javascript_give_the_same_results(both: tuple[list[Any], list[Any], int]) -> None:
    py, js, _ = both
    differ = [p["case"] for p, j in zip(py, js) if p != j]
    if differ:
        first = differ[0]
        p = next(x for x in py if x["case"] == first)["result"]
        j = next(x for x in js if x["case"] == first)["result"]
        detail = json.dumps({"python": p, "javascript": j}, indent=1, ensure_ascii=False)[:6000]
        pytest.fail(f"{len(differ)} of {len(py)} cases differ: {differ[:10]}\nfirst:\n{detail}")


def test_the_corpus_exercises_every_kind_of_result(both: tuple[list[Any], list[Any], int]) -> None:
    py, _, _ = both
    matches = {r["match"] for c in py for r in c["result"]["results"]}
    problems = " ".join(p for c in py for p in c["result"]["read"]["problems"])
    assert matches == {"shape", "guess"}
    assert "looks binary" in problems and "empty" in problems and "truncated .gz" in problems
    assert any(r.get("weak") for c in py for r in c["result"]["results"])
    assert any(r.get("worker_count", 0) > 1 for c in py for r in c["result"]["results"])


def test_javascript_and_python_complete_a_prefix_the_same(shipped: Any) -> None:
    """search-core.js completions() and rank.py completions() give the same terms for the same
    prefixes (every 3-character prefix of the vocabulary and some longer ones)."""
    from mlwiki.core.search.rank import completions, load_index

    if NODE is None:
        pytest.fail("node is not installed")
    payload_path = shipped.site / "search" / "mlwiki-index.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    index = load_index(payload["index"])
    vocab = sorted(index.postings)
    prefixes = sorted({t[:3] for t in vocab if len(t) >= 3}) + ["block", "500", "checkpoint-", "timeo", "zzzz"]
    assets = shipped.site / "assets"
    script = f"""
const core = require({json.dumps(str(assets / "mlwiki-search-core.js"))});
const payload = require({json.dumps(str(payload_path))});
const state = core.makeState(payload);
console.log(JSON.stringify({json.dumps(prefixes)}.map(p => core.completions(state.index, p))));
"""
    proc = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    assert len(prefixes) > 500
    assert js == [completions(index, p) for p in prefixes]

def test_javascript_and_python_tokenize_the_same(shipped: Any, tmp_path: Path) -> None:
    """search-core.js tokenize() and tokenize.py give the same tokens, in order, for every pasted
    error, typed query and signature, mixed-script text ("NCCL超时"), accented and Cyrillic words,
    emoji and random strings over ASCII, Latin-1, Greek, Cyrillic, CJK and astral characters."""
    from mlwiki.core.search.tokenize import tokenize

    if NODE is None:
        pytest.fail("node is not installed")
    payload_path = shipped.site / "search" / "mlwiki-index.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    texts = [c["query"] for c in yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))]
    texts += [c["query"] for c in yaml.safe_load((REPO / "tests" / "search" / "typed_queries.yml").read_text(encoding="utf-8"))]
    texts += [sig for d in payload["docs"] for sig in d.get("signatures", [])]
    texts += ["NCCL超时", "CUDA错误: out of memory", "NCCLError超时ProcessGroupNCCL.cpp:1333", "Müller café ÆØÅ",
              "Барьер тайм-аут Timeout", "😀NCCL😀 x😀y", "ｆｕｌｌｗｉｄｔｈ ＮＣＣＬ", "İstanbul ǅ ß ẞ", "a\u0301b"]  # fmt: skip
    rng = random.Random(3)
    alphabet = "aZ09_.:/- \n\té中文ΩЖ😀ǅİßﬁ-" + "".join(chr(c) for c in range(0x2c00, 0x2c10))
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60))) for _ in range(500)]
    tfile = tmp_path / "texts.json"
    tfile.write_text(json.dumps(texts))
    script = f"""
const core = require({json.dumps(str(shipped.site / "assets" / "mlwiki-search-core.js"))});
const payload = require({json.dumps(str(payload_path))});
core.makeState(payload);
console.log(JSON.stringify(require({json.dumps(str(tfile))}).map(t => core.tokenize(t))));
"""
    p = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    js = json.loads(p.stdout)
    differ = [(t, a, b) for t, a, b in zip(texts, [tokenize(t) for t in texts], js) if a != b]
    assert len(texts) > 1500 and differ == [], differ[:3]


def _agreement_queries(payload: dict[str, Any]) -> list[str]:
    """Every pasted error of the evaluation set, every signature of the wiki, every typed query
    and the same typed half a word short (completed as prefixes), fragments of them, names and
    names in capitals, training-log lines, random word salads, hostile strings and words that
    are JavaScript object-prototype names."""
    evals = yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
    queries = [c["query"] for c in evals]
    typed = yaml.safe_load((REPO / "tests" / "search" / "typed_queries.yml").read_text(encoding="utf-8"))
    queries += [c["query"] for c in typed] + [c["query"][: max(1, len(c["query"]) - 2)] for c in typed]
    sigs = [s for d in payload["docs"] for s in d.get("signatures", [])]
    queries += sigs + [s[: len(s) // 2] for s in sigs[::3]]
    names = [n for d in payload["docs"] for n in [d["title"], d["ref"], *d.get("aliases", [])]]
    queries += names[::4] + [n.upper() for n in names[1::8]]
    queries += ["constructor", "__proto__ toString", "hasOwnProperty valueOf error", "TensorSliceReader constructor",
                "nccl timeout", "Xid 79", "+ - ~ ^ * :", "out of memory", "", "   ", "\u0000\u0001", "a" * 5000,
                "ERROR " * 400, "😀 ошибка 中文 café", "[[x]] <script>alert(1)</script>", "-- --help", "\\x1b[31mError"]  # fmt: skip
    rng = random.Random(5)
    noise = [line for line, _ in zip(noise_lines(9), range(400))]
    queries += noise + ["\n".join(rng.sample(noise, 20)) for _ in range(40)]
    words = " ".join(queries[:300]).split()
    queries += [" ".join(rng.sample(words, rng.randrange(1, 12))) for _ in range(300)]
    return queries


def _run_node(script: str) -> Any:
    if NODE is None:
        pytest.fail("node is not installed")
    p = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_javascript_and_python_search_rank_the_same(shipped: Any, tmp_path: Path) -> None:
    """search-core.js in Node and rank.py on 2,000+ queries (_agreement_queries) give the same
    top 10 with the same tiers, strengths and scores (to 6 places), over the whole payload (as
    the triage page searches)."""
    from mlwiki.core.search import search
    from mlwiki.core.search.rank import load_index

    payload_path = shipped.site / "search" / "mlwiki-index.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    queries = _agreement_queries(payload)
    qfile = tmp_path / "queries.json"
    qfile.write_text(json.dumps(queries))
    assets = shipped.site / "assets"
    js = _run_node(f"""
const core = require({json.dumps(str(assets / "mlwiki-search-core.js"))});
const payload = require({json.dumps(str(payload_path))});
const qs = require({json.dumps(str(qfile))});
const state = core.makeState(payload);
console.log(JSON.stringify(qs.map(q => core.search(state, q, 10).map(h => [h.ref, h.tier, h.strength, h.score]))));
""")
    index = load_index(payload["index"])
    py = [[[h.ref, h.tier, h.strength, h.score] for h in search(index, payload["docs"], q, k=10)] for q in queries]
    assert len(queries) >= 2000
    differ = [(q[:80], a, b) for q, a, b in zip(queries, py, js) if a != b]
    assert differ == [], f"{len(differ)} of {len(queries)} differ; first: {differ[:3]}"


def test_fragmented_search_in_node_and_python_ranks_as_the_whole_payload(shipped: Any, tmp_path: Path) -> None:
    """The search box's path: search-core.js searchFragments in Node, reading the fragment files
    the site ships (search/fragments/), and fragments.py search_fragments in Python, both give
    exactly the whole-payload ranking (top 10, tiers, strengths, scores) on 2,000+ queries,
    reading the same files. And no query reads every fragment: half the pasted errors of the
    evaluation set read under a quarter of them."""
    from mlwiki.core.search import search
    from mlwiki.core.search.fragments import FragmentStore, search_fragments
    from mlwiki.core.search.rank import load_index

    payload = json.loads((shipped.site / "search" / "mlwiki-index.json").read_text(encoding="utf-8"))
    frag_dir = shipped.site / "search" / "fragments"
    queries = _agreement_queries(payload)
    qfile = tmp_path / "queries.json"
    qfile.write_text(json.dumps(queries))
    js = _run_node(f"""
const fs = require("fs"), path = require("path");
const core = require({json.dumps(str(shipped.site / "assets" / "mlwiki-search-core.js"))});
const dir = {json.dumps(str(frag_dir))};
const read = name => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
const qs = require({json.dumps(str(qfile))});
(async () => {{
  const out = [];
  for (const q of qs) {{
    const store = core.makeStore(read("manifest.json"), name => Promise.resolve(read(name)));
    const hits = await core.searchFragments(store, q, 10);
    out.push([hits.map(h => [h.ref, h.tier, h.strength, h.score]), store.fetched.slice().sort()]);
  }}
  console.log(JSON.stringify(out));
}})();
""")
    index = load_index(payload["index"])
    whole = [[[h.ref, h.tier, h.strength, h.score] for h in search(index, payload["docs"], q, k=10)] for q in queries]
    py, py_fetched = [], []
    for q in queries:
        store = FragmentStore.from_dir(frag_dir)
        py.append([[h.ref, h.tier, h.strength, h.score] for h in search_fragments(store, q, k=10)])
        py_fetched.append(sorted(store.fetched[1:]))  # the manifest is read when the store opens
    assert len(queries) >= 2000
    differ = [(q[:80], a, b) for q, a, b in zip(queries, whole, py) if a != b]
    assert differ == [], f"Python fragments: {len(differ)} of {len(queries)} differ; first: {differ[:3]}"
    differ = [(q[:80], a, b[0]) for q, a, b in zip(queries, whole, js) if a != b[0]]
    assert differ == [], f"Node fragments: {len(differ)} of {len(queries)} differ; first: {differ[:3]}"
    assert [b[1] for b in js] == py_fetched  # the same files
    total = sum(1 for _ in frag_dir.rglob("*.json"))
    counts = [len(f) for f in py_fetched]
    pasted = sorted(counts[: len(yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8")))])
    assert max(counts) < total and pasted[len(pasted) // 2] < total / 4, (max(counts), pasted[len(pasted) // 2], total)

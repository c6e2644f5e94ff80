"""Search over the shipped wiki: ranking rules, hostile input, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlwiki.core import load
from mlwiki.core.search import build_payload, search
from mlwiki.core.search.build import build_index
from wikifix import REPO

WIKI = load(REPO / "wiki")
PAYLOAD = build_payload(WIKI)
INDEX = build_index(WIKI)
DOCS = PAYLOAD["docs"]


def top(text: str, k: int = 3, kind: str | None = None) -> list[str]:
    return [h.ref for h in search(INDEX, DOCS, text, k=k, kind=kind)]


def test_signature_match_comes_first() -> None:
    hits = search(
        INDEX,
        DOCS,
        "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 12.1G of 16.00G hbm.",
    )
    assert hits[0].ref == "tpu-hbm-oom-compile"
    assert hits[0].tier == 3
    assert hits[0].signature


def test_numbers_in_signatures_are_normalised() -> None:
    sig = next(s.text for s in WIKI.symptoms["nccl-watchdog-timeout"].signatures if "Timeout(ms)" in s.text)
    changed = sig.replace("600000", "1800000").replace("Rank 0", "Rank 7")
    assert top(changed, 1) == ["nccl-watchdog-timeout"]


def test_type_filter() -> None:
    assert all(WIKI.pages[r].kind == "playbook" for r in top("NCCL timeout", 5, "playbook"))


def test_stack_trace_is_reduced() -> None:
    noise = "\n".join(f'  File "/usr/lib/python3/site-packages/pkg{i}/mod.py", line {i}, in f{i}' for i in range(200))
    text = noise + "\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
    started = time.perf_counter()
    hits = search(INDEX, DOCS, text)
    assert time.perf_counter() - started < 5
    assert hits[0].ref == "pytorch-cuda-oom"


HOSTILE = [
    "",
    "   ",
    "!!!???...",
    "+ - ~ ^ * :",
    "title:foo",
    "foo~2",
    "foo^10",
    "*",
    "-",
    "+required -prohibited",
    '"unbalanced',
    "'''",
    "\x00\x01\x02\xff binary",
    "Барьер тайм-аут 超时 エラー",
    "(((((",
    "]]]][[[[",
    "a" * 10_000,
    "x " * 50_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(text: str) -> None:
    hits = search(INDEX, DOCS, text)
    assert isinstance(hits, list)


def test_one_megabyte_log() -> None:
    line = "2026-11-29T10:01:50Z I1129 worker.py:42] step 4200 loss 2.31 lr 3e-4 tokens/s 123456\n"
    text = (
        line * (1_000_000 // len(line))
    ) + "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer\n"
    started = time.perf_counter()
    hits = search(INDEX, DOCS, text)
    assert time.perf_counter() - started < 10
    assert isinstance(hits, list)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_a_list(text: str) -> None:
    assert isinstance(search(INDEX, DOCS, text, k=5), list)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "+",
                "-",
                "~",
                "^",
                "*",
                ":",
                '"',
                "'",
                "(",
                ")",
                "[",
                "]",
                "{",
                "}",
                "\\",
                "nccl",
                "OOM",
                "Xid",
                " ",
                "\n",
            ]
        ),
        max_size=60,
    )
)
def test_operator_soup(parts: list[str]) -> None:
    assert isinstance(search(INDEX, DOCS, "".join(parts)), list)


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPO / "scripts" / "query_interface.py"), *args], input=stdin,
                          capture_output=True, text=True, check=False, cwd=REPO)  # fmt: skip


def test_cli_json() -> None:
    proc = cli("ImagePullBackOff", "-k", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["results"][0]["id"] == "image-pull-backoff"
    assert set(data["results"][0]) == {"id", "type", "title", "url", "score", "tier", "match", "matched_signature"}
    assert data["verdict"] in ("signature", "near signature", "name", "text only")
    assert set(data["margin"]) == {"tiers", "score"}
    assert len(data["results"]) == 2


def test_cli_reads_stdin() -> None:
    proc = cli(
        "-",
        "-k",
        "1",
        stdin="some log\nE1206 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600061 milliseconds before timing out.\n",
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("1. nccl-watchdog-timeout")


def test_cli_no_match_message() -> None:
    proc = cli("+++")
    assert proc.returncode == 1
    assert "no page matches" in proc.stderr


def test_cli_says_the_tier_in_words() -> None:
    proc = cli(
        "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=5, NumelOut=5, Timeout(ms)=600000) ran for 600099 milliseconds before timing out.",
        "-k",
        "1",
    )
    assert proc.returncode == 0
    assert "(signature match (digits and whitespace ignored))" in proc.stdout
    text = cli("slow training steps", "-k", "1", "--json")
    assert json.loads(text.stdout)["results"][0]["match"] in ("text match", "name match")


def test_cli_bad_k() -> None:
    proc = cli("x", "-k", "0")
    assert proc.returncode == 2
    assert "-k must be at least 1" in proc.stderr


def test_cli_same_as_core() -> None:
    query = "Failed to initialize NVML: Driver/library version mismatch"
    proc = cli(query, "-k", "3", "--json")
    assert [r["id"] for r in json.loads(proc.stdout)["results"]] == top(query)


def test_cache_key_covers_code_and_content(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from mlwiki.core.search import cache

    wiki = tmp_path / "wiki"
    shutil.copytree(REPO / "wiki", wiki)
    key = cache.fingerprint(wiki)
    assert cache.fingerprint(wiki) == key
    (wiki / "symptoms" / "tpu-device-busy.md").write_text("changed", encoding="utf-8")
    assert cache.fingerprint(wiki) != key
    changed = cache.fingerprint(wiki)
    monkeypatch.setattr(cache, "CODE_VERSION", "other")
    assert cache.fingerprint(wiki) != changed


def test_cli_verdict_says_when_nothing_fits() -> None:
    strong = json.loads(
        cli(
            "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=5, NumelOut=5, Timeout(ms)=600000) ran for 600099 milliseconds before timing out.",
            "--json",
        ).stdout
    )
    assert strong["verdict"] == "signature" and strong["margin"]["tiers"] >= 0
    weak = json.loads(cli("zebra giraffe lemon sunshine", "--json").stdout or "{}")
    assert weak.get("verdict") in ("text only", "none", None)
    none = cli("+++", "--json")
    assert none.returncode == 1 and json.loads(none.stdout)["verdict"] == "none"


def test_a_typed_prefix_completes_to_exactly_the_terms_that_start_with_it() -> None:
    """Completions come from the sorted vocabulary: every term with the prefix, nothing else, in
    order."""
    from mlwiki.core.search.rank import completions, load_index

    index = load_index(PAYLOAD["index"])
    vocab = sorted(index.postings)
    for prefix in ["tim", "block", "500", "nccl", "zzzz", "watchdo", "checkpoint-"]:
        assert completions(index, prefix) == [t for t in vocab if t.startswith(prefix)], prefix
    assert "timeout" in completions(index, "timeo")
    hits = search(index, PAYLOAD["docs"], "NCCL watchdog caught collective operation timeo", k=3)
    assert hits and hits[0].ref == "nccl-watchdog-timeout"

def test_every_term_of_the_index_finds_exactly_the_pages_that_hold_it() -> None:
    """The index built in this process and the one loaded from the payload's JSON are the same,
    and a one-term query finds exactly the pages of that term's postings (for every term: lunr's
    token set, used before, lost terms such as ``.../nllloss2d.cu:103``)."""
    from mlwiki.core.search.rank import _query, load_index

    loaded = load_index(json.loads(json.dumps(PAYLOAD["index"])))
    assert loaded.serialize() == INDEX.serialize() and len(loaded.postings) > 5000
    lost = []
    for term, post in loaded.postings.items():
        held = {loaded.refs[d] for d in post[::2]}
        if {loaded.refs[d] for d in _query(loaded, [term], False)} != held:
            lost.append(term)
    assert lost == []


def test_scores_are_lunrs_sum_of_per_field_cosines() -> None:
    """The postings' weight (BM25 per field, each share rounded to 3 places, summed) scores a query
    as lunr 2.3 does: per field, the dot product of the query's boosts with the document's field
    vector over the query vector's norm, added up over the fields. Checked against that formula
    computed field by field on a small index."""
    import math
    from collections import Counter

    from mlwiki.core.search.build import FIELDS, index_terms
    from mlwiki.core.search.rank import raw_scores

    docs = {
        "a": {"title": ["nccl", "timeout"], "body": ["nccl", "watchdog", "timeout", "timeout", "rank"]},
        "b": {"signatures": ["watchdog", "caught", "collective", "timeout"], "body": ["nccl"] * 4},
        "c": {"tags": ["tpu"], "summary": ["hbm", "oom", "tpu"], "body": ["compile", "oom"]},
    }
    index = index_terms(docs.items())
    n, k1, b = len(docs), 1.2, 0.75
    names = [f for f, _ in FIELDS]
    avg = {f: (sum(len(d.get(f, [])) for d in docs.values()) / n) or 1 for f in names}
    pairs = Counter(t for d in docs.values() for f in names for t in set(d.get(f, [])))
    query = [("timeout", 1.0), ("nccl", 2.0), ("oom", 1.1)]
    norm = math.sqrt(sum(w * w for _, w in query))
    want = {}
    for ref, d in docs.items():
        total = 0.0
        for f, boost in FIELDS:
            tf = Counter(d.get(f, []))
            length_norm = k1 * (1 - b + b * len(d.get(f, [])) / avg[f])
            for term, w in query:
                if tf[term]:
                    idf = math.log(1 + abs((n - pairs[term] + 0.5) / (pairs[term] + 0.5)))
                    total += w * round(idf * (k1 + 1) * tf[term] / (length_norm + tf[term]) * boost, 3) / norm
        want[ref] = total
    got = {index.refs[d]: v for d, v in raw_scores(index, query).items()}
    assert set(got) == set(want) and all(abs(got[r] - want[r]) < 1e-9 for r in want)


def _tiny_index(docs: dict[str, str]) -> Any:
    from mlwiki.core.search.build import index_terms
    from mlwiki.core.search.tokenize import tokenize

    return index_terms((ref, {"title": tokenize(text)}) for ref, text in docs.items())


def test_a_page_holding_every_query_term_beats_one_repeating_one_term() -> None:
    """Coordination: BM25 alone ranks a page saying "oom" five times above the page saying
    "tpu" and "oom"; the share of query terms held puts the second first."""
    from mlwiki.core.search.rank import _query, raw_scores, weighted_terms

    index: Any = _tiny_index({"many": "oom oom oom", "both": "tpu oom hbm runtime compile program buffer allocation",
                              "t1": "tpu slice", "t2": "tpu pod", "t3": "tpu vm", "x": "unrelated words"})  # fmt: skip
    plain = raw_scores(index, weighted_terms(index, ["tpu", "oom"], False))
    assert [index.refs[d] for d in sorted(plain, key=lambda d: -plain[d])][:2] == ["many", "both"]  # BM25 alone
    scores = _query(index, ["tpu", "oom"], False)
    assert [index.refs[d] for d in sorted(scores, key=lambda d: -scores[d])][:2] == ["both", "many"]


def test_a_typed_word_counts_whole_and_its_completions_weigh_less() -> None:
    """The last typed word is both itself and a prefix: a page holding the word itself ranks
    above a page holding only longer words that start with it."""
    from mlwiki.core.search.rank import PREFIX_BOOST, _query

    assert 0 < PREFIX_BOOST < 1
    index = _tiny_index({"exact": "memory limit", "longer": "memory_space memory_stats memoryview limit",
                         "x": "unrelated words only", "y": "more filler text here"})  # fmt: skip
    scores = _query(index, ["limit", "memory"], True)
    assert index.refs[max(scores, key=lambda d: scores[d])] == "exact"
    partial = {index.refs[d] for d in _query(index, ["limit", "memo"], True)}
    assert {"exact", "longer"} <= partial  # an unfinished word still finds its completions


def test_a_short_query_that_is_mostly_an_alias_names_the_page() -> None:
    """"avoid OOM on TPU" holds every word of the alias "TPU OOM" (2 of its 3 words): tier 1.
    A half-typed message that merely contains an alias's two words is not an alias query."""
    from mlwiki.core.search.rank import tiers

    docs = [{"ref": "hbm", "type": "symptom", "title": "HBM out of memory at run time", "aliases": ["TPU OOM"]},
            {"ref": "other", "type": "concept", "title": "Something else", "aliases": ["watchdog"]}]  # fmt: skip
    pairs = list(enumerate(docs))
    assert tiers(pairs, "Avoid OOM on TPU")[0][:2] == (1, 2.0)
    assert 0 not in tiers(pairs, "TPU OOM while compiling the model for a slice")
    assert tiers(pairs, "watchdog")[1][:2] == (1, 100.0)  # a one-word alias: only the exact-name rule
    assert 1 not in tiers(pairs, "watchdog timeout")


def test_a_two_word_input_inside_a_signature_is_not_a_signature_match() -> None:
    """"Status: Failed" occurs inside many messages; an input of fewer than three distinct words
    inside a signature is not tier 3 (three or more still is)."""
    from mlwiki.core.search.rank import EXACT_MIN_INPUT_TOKENS, tiers

    assert EXACT_MIN_INPUT_TOKENS == 3
    docs = [{"ref": "cuda", "type": "symptom", "title": "CUDA illegal address", "aliases": [],
             "signatures": ["Error polling for event status: failed to query event: CUDA_ERROR_ILLEGAL_ADDRESS"]}]  # fmt: skip
    pairs = list(enumerate(docs))
    assert tiers(pairs, "Status:              Failed").get(0, (0,))[0] != 3
    assert tiers(pairs, "event status: failed to query")[0][0] == 3


def test_a_signature_matches_only_at_word_boundaries_and_an_inside_input_needs_an_inner_word() -> None:
    """Tier 3 never cuts a word: "CUDA error: out of memory" is inside "CUDA error: out of
    memory (allocated ...)", not inside "XCUDA error: out of memoryview". An input inside a
    signature needs a whole word inside it (stable_parts): its first and last may be cut."""
    from mlwiki.core.search.rank import contains_words, stable_parts, tiers

    sig = "CUDA error: out of memory"
    docs = [(0, {"ref": "oom", "type": "symptom", "title": "GPU OOM", "aliases": [], "signatures": [sig]})]
    assert tiers(docs, "RuntimeError: CUDA error: out of memory (allocated 3 GiB)")[0][0] == 3
    assert tiers(docs, "XCUDA error: out of memoryview").get(0, (0,))[0] != 3
    assert contains_words("a-cuda error", "cuda error") and not contains_words("acuda error", "cuda error")
    assert contains_words("x: 0 y", ": 0 y") and contains_words("cuda error", "cuda error")
    assert stable_parts("rror: out of mem") == ["out"]  # "rror" and "mem" may be cut, "of" is a stop word
    assert stable_parts("torch.distributed.elastic") == ["distributed"]
    assert stable_parts("port 1234 refused now") == ["refused"]  # digits may differ
    assert stable_parts("Xid 79", inner=False) == ["xid"]
    assert tiers(docs, "rror: out of mem")[0][0] == 3  # an inside input with an inner word
    num = [(0, {"ref": "x", "type": "symptom", "title": "X", "aliases": [], "signatures": ["CUDA error 700 in memory"]})]
    assert tiers(num, "error 700 in mem").get(0, (0,))[0] != 3  # inside, three words, but no inner word
    assert tiers(num, "CUDA error 12 in memory copy")[0][0] == 3  # the signature inside the input (digits ignored)

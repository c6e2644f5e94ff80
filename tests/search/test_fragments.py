"""The search payload in fragments (core/search/fragments.py): deterministic files, every term in
exactly one place, names that change with the content, keys that are exact, and a store that
reads only what a query needs. Agreement with the whole-payload ranking, in Python and in Node, on
2,000+ queries is in tests/triage/test_agreement.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.core import load
from mlwiki.core.search import build_payload, search
from mlwiki.core.search.fragments import (
    MANIFEST,
    FragmentStore,
    build_fragments,
    fnv1a,
    near_keys,
    search_fragments,
    shard_of,
)
from mlwiki.core.search.rank import NEAR_COVER, load_index
from wikifix import REPO

PAYLOAD = build_payload(load(REPO / "wiki"))
FILES = build_fragments(PAYLOAD)
MANIFEST_BODY = json.loads(FILES[MANIFEST])


def test_the_same_payload_gives_byte_identical_files() -> None:
    again = build_fragments(json.loads(json.dumps(PAYLOAD)))
    assert again == FILES and list(again) == list(FILES)


def test_every_term_is_in_exactly_one_file_with_its_postings() -> None:
    """Each term of the index sits in its heavy file or in the shard its first 3 characters hash
    to, with the same postings (decoded from gaps), and nowhere else."""
    m, index = MANIFEST_BODY, load_index(PAYLOAD["index"])
    seen: dict[str, str] = {}
    for name, text in FILES.items():
        if name == MANIFEST or name.split("/")[-1][0] not in "st":
            continue
        body = json.loads(text)
        assert body["terms"] == sorted(body["terms"])
        for term, entry in zip(body["terms"], body["entries"]):
            assert term not in seen, (term, name, seen[term])
            seen[term] = name
            d, post = 0, []
            for k in range(0, len(entry[0]), 2):
                d += entry[0][k]
                post += [d, entry[0][k + 1] >> 1]
            assert post == index.postings[term]
            heavy = term in m["heavy"]
            want = f"t{m['heavy'].index(term)}.json" if heavy else f"s{shard_of(term, m['shards'])}.json"
            assert name == f"{m['dir']}/{want}"
    assert set(seen) == set(index.postings)


def test_file_names_change_with_the_content() -> None:
    """The directory is a hash of every file, so a deploy never serves old fragments under a
    name browsers cached forever."""
    docs = [dict(d) for d in PAYLOAD["docs"]]
    docs[0]["title"] = docs[0]["title"] + " (edited)"
    other = build_fragments({**PAYLOAD, "docs": docs})
    changed = json.loads(other[MANIFEST])["dir"]
    assert changed != MANIFEST_BODY["dir"] and len(changed) == 16
    assert all(name == MANIFEST or name.startswith(changed + "/") for name in other)


def test_documents_and_index_out_of_order_are_refused() -> None:
    docs = list(reversed(PAYLOAD["docs"]))
    with pytest.raises(ValueError, match="documents and index are not in the same order"):
        build_fragments({**PAYLOAD, "docs": docs})


def test_near_keys_are_enough_and_no_more() -> None:
    """A signature with r distinctive tokens is keyed under near_keys(r) of them: an input missing
    all keys holds less than NEAR_COVER of them; missing one fewer may still be near."""
    for r in range(1, 60):
        k = near_keys(r)
        assert (r - k) / r < NEAR_COVER
        assert k == 1 or (r - (k - 1)) / r >= NEAR_COVER


def test_fnv1a_is_the_reference_hash() -> None:
    assert fnv1a("") == 0x811C9DC5 and fnv1a("a") == 0xE40C292C and fnv1a("foobar") == 0xBF9CF968


def test_a_query_reads_only_what_it_needs() -> None:
    """A pasted error reads a few shards and chunks, not the index: and finds its page."""
    store = FragmentStore.from_files(FILES)
    hits = search_fragments(
        store, "NCCL watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout"
    )
    assert hits and hits[0].ref == "nccl-watchdog-timeout"
    assert 1 < len(store.fetched) < len(FILES) / 5, store.fetched
    assert search_fragments(FragmentStore.from_files(FILES), "   ") == []


def test_the_query_cli_reads_the_fragments(tmp_path: Path) -> None:
    """query_interface.py ranks through the same fragment files the site ships (cached with the
    payload), so its answer is the site's."""
    from mlwiki.cli.query import load_search

    payload, fragments = load_search(REPO / "wiki")
    assert fragments == FILES and payload == json.loads(json.dumps(PAYLOAD))
    index = load_index(payload["index"])
    for q in ["Xid 79", "ImagePullBackOff", "RESOURCE_EXHAUSTED hbm", "cuda out of mem"]:
        whole: Any = [(h.ref, h.tier, h.score) for h in search(index, payload["docs"], q)]
        assert [(h.ref, h.tier, h.score) for h in search_fragments(FragmentStore.from_files(fragments), q)] == whole


def test_heavy_terms_and_their_completions_rank_as_the_whole_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a low threshold most common terms get files of their own: a typed prefix whose word
    is heavy still finds its small completions in the prefix's shard, and every query ranks as
    the whole payload does (the shipped wiki alone has no heavy term at the default threshold)."""
    from mlwiki.core.search import fragments

    monkeypatch.setattr(fragments, "HEAVY_BYTES", 200)
    files = build_fragments(PAYLOAD)
    heavy = json.loads(files[MANIFEST])["heavy"]
    assert len(heavy) > 300
    index = load_index(PAYLOAD["index"])
    queries = ["Root Cause (first observed failure)", "NCCL error: unhandled system err", "cuda out of mem", "fail",
               "RuntimeError: CUDA error: an illegal memory access was encountered", "tpu", "pod pend", "Xid 79"]  # fmt: skip
    queries += [t[:-1] for t in heavy[::25]] + [f"error {t}" for t in heavy[::40]]
    for q in queries:
        whole = [(h.ref, h.tier, h.strength, h.score) for h in search(index, PAYLOAD["docs"], q)]
        got = [(h.ref, h.tier, h.strength, h.score) for h in search_fragments(FragmentStore.from_files(files), q)]
        assert got == whole, q


def test_a_pasted_error_needs_two_rounds_of_requests_not_three() -> None:
    """The chunks of the k best-scored pages come with the candidates' chunks, so the results'
    own chunks are already there for (nearly) every query of the evaluation sets: no third round
    of requests before the first result."""
    import yaml

    from mlwiki.core.search import fragments

    queries = [
        c["query"] for c in yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
    ]
    queries += [
        c["query"]
        for c in yaml.safe_load((REPO / "tests" / "search" / "typed_queries.yml").read_text(encoding="utf-8"))
    ]
    refs = [d["ref"] for d in PAYLOAD["docs"]]
    third = []
    for q in queries:
        store = FragmentStore.from_files(FILES)
        plan = fragments.plan(q)
        names = store.term_files(plan.tokens, plan.prefix)
        index = fragments.loaded_index(store, names)
        first = fragments.candidates(store, names, q, plan) + fragments.best_scored(index, q, fragments.PREFETCH * 8)
        results = {store.chunk_file(refs.index(h.ref)) for h in search_fragments(store, q, k=8)}
        if results - set(store.chunk_files(first)):
            third.append(q)
    assert len(third) <= len(queries) // 50, third[:5]

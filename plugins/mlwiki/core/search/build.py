"""Build the search payload: documents plus an index of our own tokens (postings of BM25 weights,
see :class:`~mlwiki.core.search.rank.TermIndex`).

No stemmer, stop-word filter or trimmer runs after our tokenizer: it already did all text
processing, identically in Python and JavaScript.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Set
from pathlib import Path
from typing import Any

from mlwiki.core.model import Page, Wiki
from mlwiki.core.search.rank import TermIndex
from mlwiki.core.search.tokenize import STOPWORDS, tokenize
from mlwiki.core.urls import page_url

FIELDS = (("title", 8), ("signatures", 10), ("tags", 2), ("summary", 3), ("body", 1))
BODY_CHARS = 2500
PAYLOAD_VERSION = 3  # 2: triage specification and ranking constants; 3: our own index (postings), not lunr's


Exclusions = Mapping[str, Set[str]]


def document(wiki: Wiki, page: Page, exclude: Exclusions | None = None) -> dict[str, Any]:
    held = (exclude or {}).get(page.id, set())
    sigs = [s.text for s in wiki.signatures(page.id) if s.text not in held]
    return {
        "ref": page.id,
        "type": page.kind,
        "title": page.title,
        "url": page_url(page),
        "summary": page.summary,
        "aliases": list(page.aliases),
        "signatures": sigs,
        **_symptom_fields(wiki, page.id),
    }


def _symptom_fields(wiki: Wiki, page_id: str) -> dict[str, Any]:
    """What triage needs of a symptom beyond its signatures: its echoes and its workflows."""
    sym = wiki.symptoms.get(page_id)
    if sym is None:
        return {}
    out: dict[str, Any] = {"workflows": list(sym.workflows)}
    if sym.echo_of:
        out["echo_of"] = list(sym.echo_of)
    return out


def _fields(wiki: Wiki, page: Page, exclude: Exclusions | None = None) -> dict[str, list[str]]:
    """Token lists per field. ``exclude`` hides signatures (and their copies in the body) for
    held-out evaluation."""
    held = (exclude or {}).get(page.id, set())
    title = " ".join([page.title, page.id, *page.aliases])
    body = page.body
    for text in held:
        body = body.replace(text, " ")
    return {
        "title": tokenize(title),
        "signatures": tokenize("\n".join(s.text for s in wiki.signatures(page.id) if s.text not in held)),
        "tags": tokenize(" ".join(page.tags)),
        "summary": tokenize(page.summary),
        "body": tokenize(body[:BODY_CHARS]),
    }


K1 = 1.2  # BM25 term-frequency saturation (lunr's default)
B = 0.75  # BM25 length normalisation (lunr's default)


def index_terms(documents: Iterable[tuple[str, Mapping[str, list[str]]]]) -> TermIndex:
    """The index over ``(ref, {field: terms})`` pairs: per term, each document's BM25 weight
    summed over the fields (see :class:`~mlwiki.core.search.rank.TermIndex`). The arithmetic is
    lunr 2.3's: idf counts (document, field) pairs holding the term; each field's share is
    rounded to 3 places before the fields are added (in thousandths, so the sum is exact)."""
    docs = sorted(documents, key=lambda d: d[0])
    n = len(docs)
    names = [name for name, _ in FIELDS]
    counts = [[Counter(fields.get(name, [])) for name in names] for _, fields in docs]
    lengths = [[len(fields.get(name, [])) for name in names] for _, fields in docs]
    avg = [(sum(row[f] for row in lengths) / n if n else 0) or 1 for f in range(len(names))]
    pairs: Counter[str] = Counter()
    for per_field in counts:
        for c in per_field:
            pairs.update(c.keys())
    idf = {t: math.log(1 + abs((n - m + 0.5) / (m + 0.5))) for t, m in pairs.items()}
    postings: dict[str, list[int]] = {}
    for d, per_field in enumerate(counts):
        weights: dict[str, int] = {}
        for f, (c, (_, boost)) in enumerate(zip(per_field, FIELDS)):
            norm = K1 * (1 - B + B * (lengths[d][f] / avg[f]))
            for term, tf in c.items():
                share = round(idf[term] * ((K1 + 1) * tf) / (norm + tf) * boost, 3)
                weights[term] = weights.get(term, 0) + round(share * 1000)
        for term, w in weights.items():
            postings.setdefault(term, []).extend((d, w))
    return TermIndex([ref for ref, _ in docs], postings)


def build_index(wiki: Wiki, exclude: Exclusions | None = None) -> TermIndex:
    # INDEX.md, the generated list of every page, is left out: it would match everything.
    return index_terms((p.id, _fields(wiki, p, exclude)) for p in wiki.pages.values() if p.id != "index")


def ranking_spec() -> dict[str, Any]:
    """The ranking's constants and patterns (core/search/rank.py), shipped for search-core.js."""
    from mlwiki.core.search.rank import ranking_spec as spec

    return spec()


def triage_spec() -> dict[str, Any]:
    """The triage specification (core/triage_spec.json), shipped so the site's triage matches."""
    path = Path(__file__).resolve().parent.parent / "triage_spec.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def build_payload(wiki: Wiki, exclude: Exclusions | None = None) -> dict[str, Any]:
    index = build_index(wiki, exclude)
    docs = [document(wiki, p, exclude) for p in wiki.pages.values() if p.id != "index"]
    return {
        "version": PAYLOAD_VERSION,
        "stopwords": list(STOPWORDS),
        "docs": sorted(docs, key=lambda d: d["ref"]),
        "index": index.serialize(),
        "triage": triage_spec(),
        "ranking": ranking_spec(),
    }


def payload_json(payload: dict[str, Any]) -> str:
    """Deterministic, compact JSON (sorted keys) for the site."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

"""Build the search payload: documents plus a lunr index over our own tokens.

The lunr pipeline is emptied (no stemmer, stop-word filter or trimmer) on both sides: our
tokenizer already did all text processing, identically in Python and JavaScript.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Set
from pathlib import Path
from typing import Any

from lunr.builder import Builder
from lunr.field_ref import FieldRef
from lunr.idf import idf as lunr_idf
from lunr.index import Index
from lunr.vector import Vector

from mlwiki.core.model import Page, Wiki
from mlwiki.core.search.rank import ExactTerms
from mlwiki.core.search.tokenize import STOPWORDS, tokenize
from mlwiki.core.urls import page_url

FIELDS = (("title", 8), ("signatures", 10), ("tags", 2), ("summary", 3), ("body", 1))
BODY_CHARS = 2500
PAYLOAD_VERSION = 2  # 2: the payload carries the triage specification and the ranking constants


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


class TermBuilder(Builder):  # type: ignore[misc]
    """lunr's builder fed with our term lists directly.

    Same inverted index, field lengths and BM25 field vectors as ``lunr.Builder`` (so lunr.js
    loads and scores it identically), without re-tokenising each term into a Token with
    deep-copied metadata, and with each field vector built already sorted. The Python token set
    (needed only for prefix queries in Python) is built only when asked for.
    """

    def add_terms(self, ref: str, fields: Mapping[str, list[str]]) -> None:
        self._documents[ref] = {}
        self.document_count += 1
        for field_name in self._fields:
            terms = fields.get(field_name, [])
            field_ref = str(FieldRef(ref, field_name))
            freqs: dict[str, int] = {}
            for term in terms:
                freqs[term] = freqs.get(term, 0) + 1
                posting = self.inverted_index.get(term)
                if posting is None:
                    posting = {name: {} for name in self._fields}
                    posting["_index"] = self.term_index
                    self.term_index += 1
                    self.inverted_index[term] = posting
                if ref not in posting[field_name]:
                    posting[field_name][ref] = {}
            self.field_term_frequencies[field_ref] = freqs
            self.field_lengths[field_ref] = len(terms)

    def _create_field_vectors(self) -> None:
        vectors = {}
        idf_cache: dict[str, float] = {}
        k1, b = self._k1, self._b
        for field_ref, freqs in self.field_term_frequencies.items():
            parsed = FieldRef.from_string(field_ref)
            name = parsed.field_name
            # An empty field in every document (a one-page wiki) has average length 0: lunr.js
            # divides the same way, and no term of that field exists to score, so 1 is safe.
            avg = self.average_field_length[name] or 1
            norm = k1 * (1 - b + b * (self.field_lengths[field_ref] / avg))
            boost = self._fields[name].boost * self._documents[parsed.doc_ref].get("boost", 1)
            pairs = []
            for term, tf in freqs.items():
                posting = self.inverted_index[term]
                if term not in idf_cache:
                    idf_cache[term] = lunr_idf(posting, self.document_count)
                score = idf_cache[term] * ((k1 + 1) * tf) / (norm + tf) * boost
                pairs.append((posting["_index"], round(score, 3)))
            pairs.sort()
            vectors[field_ref] = Vector([x for pair in pairs for x in pair])
        self.field_vectors = vectors

    def build_index(self) -> Any:
        self._calculate_average_field_lengths()
        self._create_field_vectors()
        return Index(
            inverted_index=self.inverted_index,
            field_vectors=self.field_vectors,
            token_set=ExactTerms(self.inverted_index),
            fields=list(self._fields.keys()),
            pipeline=self.search_pipeline,
        )


def index_terms(documents: Iterable[tuple[str, Mapping[str, list[str]]]]) -> Any:
    """A lunr index over ``(ref, {field: terms})`` pairs, with our fields and an empty pipeline."""
    builder = TermBuilder()
    builder.pipeline.reset()
    builder.search_pipeline.reset()
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost)
    for ref, fields in documents:
        builder.add_terms(ref, fields)
    return builder.build_index()


def build_index(wiki: Wiki, exclude: Exclusions | None = None) -> Any:
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

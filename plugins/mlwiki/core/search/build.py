"""Build the search payload: documents plus a lunr index over our own tokens.

The lunr pipeline is emptied (no stemmer, stop-word filter or trimmer) on both sides: our
tokenizer already did all text processing, identically in Python and JavaScript.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Set
from typing import Any

from lunr.builder import Builder

from mlwiki.core.model import Page, Wiki
from mlwiki.core.search.tokenize import STOPWORDS, tokenize

FIELDS = (("title", 8), ("signatures", 10), ("tags", 2), ("summary", 3), ("body", 1))
BODY_CHARS = 6000
PAYLOAD_VERSION = 1


def page_url(page: Page) -> str:
    from mlwiki.render.urls import dest_url, src_uri

    return dest_url(src_uri(page))


Exclusions = Mapping[str, Set[str]]


def document(page: Page, exclude: Exclusions | None = None) -> dict[str, Any]:
    held = (exclude or {}).get(page.id, set())
    sigs = [s.text for s in page.signatures if s.text not in held]
    return {
        "ref": page.id,
        "type": page.kind,
        "title": page.title,
        "url": page_url(page),
        "summary": page.summary,
        "aliases": [a for a in page.aliases if isinstance(a, str)],
        "signatures": sigs,
    }


def _fields(page: Page, exclude: Exclusions | None = None) -> dict[str, list[str]]:
    """Token lists per field. ``exclude`` hides signatures (and their copies in the body) for
    held-out evaluation."""
    held = (exclude or {}).get(page.id, set())
    title = " ".join([page.title, page.id, *[a for a in page.aliases if isinstance(a, str)]])
    body = page.body
    for text in held:
        body = body.replace(text, " ")
    return {
        "title": tokenize(title),
        "signatures": tokenize("\n".join(s.text for s in page.signatures if s.text not in held)),
        "tags": tokenize(" ".join(page.tags)),
        "summary": tokenize(page.summary),
        "body": tokenize(body[:BODY_CHARS]),
    }


def build_index(wiki: Wiki, exclude: Exclusions | None = None) -> Any:
    builder = Builder()
    builder.pipeline.reset()
    builder.search_pipeline.reset()
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost)
    for page in wiki.pages.values():
        if page.id == "index":
            continue  # the generated list of every page: it would match everything
        builder.add({"ref": page.id, **_fields(page, exclude)})
    return builder.build()


def build_payload(wiki: Wiki, exclude: Exclusions | None = None) -> dict[str, Any]:
    index = build_index(wiki, exclude)
    docs = [document(p, exclude) for p in wiki.pages.values() if p.id != "index"]
    return {
        "version": PAYLOAD_VERSION,
        "stopwords": list(STOPWORDS),
        "docs": sorted(docs, key=lambda d: d["ref"]),
        "index": index.serialize(),
    }


def payload_json(payload: dict[str, Any]) -> str:
    """Deterministic, compact JSON (sorted keys) for the site."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

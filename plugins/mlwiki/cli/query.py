"""The query CLI: ``python3 scripts/query_interface.py "QUERY" [-k N] [--type TYPE] [--json]``.

The same index and ranking as the site's search box. QUERY ``-`` reads stdin (pipe a log in).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lunr.index import Index

from mlwiki.cli.common import default_wiki_dir
from mlwiki.core.registry import type_names
from mlwiki.core.search import build_payload, payload_json, search
from mlwiki.core.search.cache import fingerprint, read_cached, write_cached


def load_payload(wiki_dir: Path) -> dict[str, Any]:
    """The search payload for ``wiki_dir``: from the cache when the wiki is unchanged."""
    from mlwiki.core import load

    key = fingerprint(wiki_dir)
    cached = read_cached(key)
    if cached is not None:
        return cached
    payload = build_payload(load(wiki_dir))
    write_cached(key, payload_json(payload))
    return payload


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="query_interface.py", description="Find the wiki page for an error message.")
    p.add_argument("query", help="the error text; '-' reads it from stdin")
    p.add_argument("-k", type=int, default=5, help="number of results (default 5)")
    p.add_argument("--type", choices=(*type_names(), "doc"), help="only pages of this type")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--wiki", help="wiki directory (default: ./wiki)")
    p.add_argument("--base-url", default="", help="prefix for page URLs (e.g. your site's address)")
    args = p.parse_args(argv)
    if args.k < 1:
        p.error("-k must be at least 1")
    text = args.query
    if text == "-":
        text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    wiki_dir = Path(args.wiki) if args.wiki else default_wiki_dir()
    if not wiki_dir.is_dir():
        print(f"query_interface.py: error: wiki directory '{wiki_dir}' does not exist", file=sys.stderr)
        return 2
    started = time.perf_counter()
    payload = load_payload(wiki_dir)
    index = Index.load(payload["index"])
    hits = search(index, payload["docs"], text, k=args.k, kind=args.type)
    elapsed = time.perf_counter() - started
    if args.json:
        out = [{**h.as_json(), "url": args.base_url + h.url} for h in hits]
        print(
            json.dumps(
                {"query": text[:500], "results": out, "seconds": round(elapsed, 3)}, indent=2, ensure_ascii=False
            )
        )
        return 0
    if not hits:
        print("no page matches; try a shorter, distinctive part of the error", file=sys.stderr)
        return 0
    for i, h in enumerate(hits, 1):
        tier = {3: "signature", 2: "near signature", 1: "name"}.get(h.tier, "text")
        print(f"{i}. {h.ref}  [{h.type}]  {h.title}")
        print(f"   score {h.score:.3f} ({tier} match)  {args.base_url}{h.url}")
        if h.signature:
            print(f"   matched: {h.signature}")
    return 0

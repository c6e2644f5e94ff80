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

from mlwiki.cli.common import default_wiki_dir
from mlwiki.core.registry import type_names
from mlwiki.core.search import build_payload
from mlwiki.core.search.cache import fingerprint, search_data
from mlwiki.core.search.fragments import FragmentStore, search_fragments
from mlwiki.core.search.rank import load_index

VERDICTS = {3: "signature", 2: "near signature", 1: "name", 0: "text only"}


def verdict(hits: Sequence[Any]) -> dict[str, Any]:
    """How much the top result rests on: ``signature`` (a signature of the page is in the input,
    digits and whitespace ignored), ``near signature``, ``name``, ``text only`` (no signature
    matched: the page is the closest, not a fit) or ``none``; and the margin to the runner-up
    (in tiers when they differ, else in score)."""
    if not hits:
        return {"verdict": "none", "margin": None}
    top = hits[0]
    if len(hits) == 1:
        margin: dict[str, Any] = {"tiers": top.tier, "score": round(top.score, 3)}
    else:
        second = hits[1]
        margin = {"tiers": top.tier - second.tier, "score": round(top.score - second.score, 3)}
    return {"verdict": VERDICTS.get(top.tier, "text only"), "margin": margin}


def load_search(wiki_dir: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The search payload for ``wiki_dir`` and the fragment files the site ships: from the cache
    when the wiki is unchanged."""
    from mlwiki.core import load

    return search_data(fingerprint(wiki_dir), lambda: build_payload(load(wiki_dir)))


def load_payload(wiki_dir: Path) -> dict[str, Any]:
    return load_search(wiki_dir)[0]


TRIAGE_LINES = 4  # stdin with more lines than this is a log: triage it
MAX_QUERY_BYTES = 200_000


class _Chained:
    """The block already read from stdin, then the rest of stdin, as one stream."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self.head, self.rest = head, rest

    def read(self, n: int = -1) -> bytes:
        if self.head:
            out, self.head = self.head[:n] if n >= 0 else self.head, self.head[n:] if n >= 0 else b""
            return out
        return bytes(self.rest.read(n))

    def __enter__(self) -> _Chained:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _progress() -> Any:
    """Progress on stderr every 50 MB for inputs past a few MB (never on the result stream)."""
    state = {"next": 50_000_000}

    def report(n: int) -> None:
        if n >= state["next"]:
            state["next"] += 50_000_000
            print(f"query_interface.py: read {n / 1e6:.0f} MB...", file=sys.stderr)

    return report


def triage_main(args: Any, payload: dict[str, Any], paths: list[str], stdin_text: bytes | None) -> int:
    from mlwiki.core.triage import InputError, Triage, list_inputs, results

    problems: list[str] = []
    try:
        sources = list_inputs(paths, problems)
    except InputError as exc:
        print(f"query_interface.py: error: {exc}", file=sys.stderr)
        return 2
    if stdin_text is not None:
        head = stdin_text
        sources = [("<stdin>", lambda: _Chained(head, sys.stdin.buffer))]
    started = time.perf_counter()
    tri = Triage(payload["docs"])
    report = tri.run(sources, progress=_progress(), problems=problems)
    out = results(report, tri, lambda: load_index(payload["index"]), k=args.k)
    elapsed = time.perf_counter() - started
    for r in out["results"]:
        r["url"] = args.base_url + r["url"]
        wf = _workflow_hint(payload, r["id"])
        if wf:
            r["next"] = wf
    if args.json:
        print(json.dumps({**out, "seconds": round(elapsed, 3)}, indent=2, ensure_ascii=False))
        return 0 if out["results"] else 1
    read = out["read"]
    print(
        f"read {read['bytes_read'] / 1e6:.1f} MB, {read['lines_read']} lines from {len(read['files'])} "
        f"file{'s' if len(read['files']) != 1 else ''} in {elapsed:.1f} s",
        file=sys.stderr,
    )
    for p in read["problems"]:
        print(f"  note: {p}", file=sys.stderr)
    if not out["results"]:
        print("no signature matched and no error-looking line was found; paste the first error by hand", file=sys.stderr)
        return 1
    for i, r in enumerate(out["results"], 1):
        label = "signature shape" if r["match"] == "shape" else "best guess by the search ranking"
        print(f"{i}. {r['id']}  [{r['type']}]  {r['title']}  -- {label}")
        print(f"   {r['url']}")
        first = r.get("first_seen") or {}
        if r["match"] == "shape":
            where = f"{first.get('file')}:{first.get('line')}" + (f" at {first['timestamp']}" if first.get("timestamp") else "")
            print(f"   first at {where}; {r['count']} matching line{'s' if r['count'] != 1 else ''}"
                  + (f" on {r['worker_count']} worker{'s' if r['worker_count'] != 1 else ''}" if r.get("worker_count") else ""))  # fmt: skip
            print(f"   > {first.get('text', '')[:300]}")
        else:
            print(f"   why: {r['why']}")
        if r.get("next"):
            print(f"   next: {r['next']}")
    if out["unmatched_errors"] and out["results"][0]["match"] == "guess":
        u = out["unmatched_errors"][0]
        print(f"first error-looking line: {u['first_seen']['file']}:{u['first_seen']['line']}: {u['text'][:300]}")
    return 0


def _workflow_hint(payload: dict[str, Any], page_id: str) -> str:
    """The first workflow of a symptom page, as a dry-run command (from the payload)."""
    wfs = {d["ref"]: d.get("workflows") or [] for d in payload["docs"]}.get(page_id) or []
    if not wfs:
        return ""
    return f"python3 scripts/python_glue_runner.py --workflow {wfs[0]} '{{}}' --dry-run"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="query_interface.py", description="Find the wiki page for an error message.")
    p.add_argument("query", nargs="?", help="the error text; '-' reads it from stdin (more than a few lines: triage)")
    p.add_argument("--log", nargs="+", metavar="PATH", help="triage log files or directories (.gz too; '-' for stdin)")
    p.add_argument("-k", type=int, default=5, help="number of results (default 5)")
    p.add_argument("--type", choices=(*type_names(), "doc"), help="only pages of this type")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--wiki", help="wiki directory (default: ./wiki)")
    p.add_argument("--base-url", default="", help="prefix for page URLs (e.g. your site's address)")
    args = p.parse_args(argv)
    if args.k < 1:
        p.error("-k must be at least 1")
    if args.query is None and not args.log:
        p.error("give the error text, '-' to read stdin, or --log PATH...")
    text = args.query or ""
    stdin_head: bytes | None = None
    if text == "-":
        # Read a first block to decide: a line or two is a query, more is a log to triage
        # (streamed from here on, never held whole in memory).
        stdin_head = sys.stdin.buffer.read(65536)
        text = stdin_head.decode("utf-8", errors="replace")
        if text.count("\n") <= TRIAGE_LINES and len(stdin_head) == 65536:
            stdin_head += sys.stdin.buffer.read(MAX_QUERY_BYTES)
            text = stdin_head.decode("utf-8", errors="replace")
    wiki_dir = Path(args.wiki) if args.wiki else default_wiki_dir()
    if not wiki_dir.is_dir():
        print(f"query_interface.py: error: wiki directory '{wiki_dir}' does not exist", file=sys.stderr)
        return 2
    payload, fragments = load_search(wiki_dir)
    if args.log or text.count("\n") > TRIAGE_LINES:
        return triage_main(args, payload, list(args.log or []), stdin_head if not args.log else None)
    started = time.perf_counter()
    # The files the site's search box reads, read the same way: one ranking, one set of files.
    hits = search_fragments(FragmentStore.from_files(fragments), text, k=args.k, kind=args.type)
    elapsed = time.perf_counter() - started
    if args.json:
        out = [{**h.as_json(), "url": args.base_url + h.url} for h in hits]
        print(
            json.dumps(
                {"query": text[:500], **verdict(hits), "results": out, "seconds": round(elapsed, 3)},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0 if out else 1
    if not hits:
        print("no page matches; try a shorter, distinctive part of the error", file=sys.stderr)
        return 1
    for i, h in enumerate(hits, 1):
        print(f"{i}. {h.ref}  [{h.type}]  {h.title}")
        print(f"   score {h.score:.3f} ({h.match})  {args.base_url}{h.url}")
        if h.signature:
            print(f"   matched: {h.signature}")
    return 0

"""The linter: ``python3 scripts/wiki_linter.py`` prints a JSON report and exits 0 (PASS) or 1 (FAIL).

Options: ``--format text|github|json``, ``--wiki DIR``, ``--write-index`` (regenerate INDEX.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence

from mlwiki.cli.common import default_wiki_dir
from mlwiki.core import check, load
from mlwiki.core.diagnostics import Diagnostic
from mlwiki.core.index_md import render_index
from mlwiki.core.loader import WikiDirError
from mlwiki.core.model import Wiki
from mlwiki.core.registry import type_names


def _github(d: Diagnostic) -> str:
    level = "error" if d.severity.value == "error" else "warning"
    msg = d.full_message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    loc = d.location
    return f"::{level} file={loc.file},line={loc.line},col={loc.column},title={d.code}::{msg}"


def _count(n: object, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def stats_of(wiki: Wiki, diags: list[Diagnostic], seconds: float) -> dict[str, object]:
    by_type = {t: len(wiki.by_type(t)) for t in type_names()}
    return {
        "pages": sum(by_type.values()),
        "by_type": by_type,
        "links": len(wiki.links),
        "signatures": sum(len(s.signatures) for s in wiki.symptoms.values()),
        "errors": sum(1 for d in diags if d.severity.value == "error"),
        "warnings": sum(1 for d in diags if d.severity.value == "warning"),
        "by_code": dict(sorted(Counter(d.code for d in diags).items())),
        "seconds": round(seconds, 3),
    }


def write_index(wiki: Wiki) -> bool:
    """Rewrite INDEX.md atomically if it changed; True when the file was written."""
    import os
    import tempfile

    text = render_index(wiki)
    target = wiki.root / "INDEX.md"
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    fd, tmp = tempfile.mkstemp(dir=wiki.root, prefix=".INDEX.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, target)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wiki_linter.py", description="Check the wiki and report every problem.")
    parser.add_argument("--wiki", help="wiki directory (default: ./wiki)")
    parser.add_argument("--format", choices=("json", "text", "github"), default="json")
    parser.add_argument("--write-index", action="store_true", help="regenerate wiki/INDEX.md, then lint")
    args = parser.parse_args(argv)
    wiki_dir = args.wiki or default_wiki_dir()
    started = time.perf_counter()
    try:
        wiki = load(wiki_dir)
        if args.write_index and write_index(wiki):
            wiki = load(wiki_dir)
            print(f"wrote {wiki.root / 'INDEX.md'}", file=sys.stderr)
    except WikiDirError as exc:
        print(f"wiki_linter.py: error: {exc}", file=sys.stderr)
        return 2
    diags = check(wiki)
    seconds = time.perf_counter() - started
    status = "FAIL" if diags else "PASS"
    if args.format == "json":
        report = {
            "status": status,
            "issues": [d.as_json() for d in diags],
            "stats": stats_of(wiki, diags, seconds),
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        fmt = _github if args.format == "github" else Diagnostic.format_text
        for d in diags:
            print(fmt(d))
        st = stats_of(wiki, diags, seconds)
        print(f"{status}: {st['pages']} pages, {_count(st['errors'], 'error')}, {_count(st['warnings'], 'warning')}"
              + (" (warnings fail the lint too)" if status == "FAIL" and not st["errors"] else ""), file=sys.stderr)  # fmt: skip
    return 1 if diags else 0

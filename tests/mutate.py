"""One-field mutations of the shipped wiki's pages, for the property tests.

A mutation takes one page of the real wiki (any type), one field of it (top-level or nested:
a mapping key or a list item, at any depth), and replaces its value by a value of another type
or by a hostile string. The mutated page is written into a small wiki together with the pages
it references (so workflows meet their actions), with the real schema and tags.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import yaml
from hypothesis import strategies as st

from mlwiki.core.loader import split_frontmatter
from mlwiki.core.registry import page_type
from wikifix import REPO, write_wiki

PathKey = tuple[Union[str, int], ...]

HOSTILE_STRINGS = [
    "",
    "x" * 200_000,
    "\x00",
    "a\x00b",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{namespace}",
    "{missing_param}",
    "{step-1.field}",
    "../../../etc/passwd",
    "-rf",
    "--kubeconfig=/tmp/x",
    "$(id)",
    "`id`",
    "; rm -rf /",
    "\u202eevil",
    "[[no-such-page]]",
    "[[disk-full#no-anchor]]",
    "(?P<x>[",
    "\n\n# Heading\n",
    "---",
    "\ud7ff\ue000",
]
WRONG_TYPES: list[Any] = [None, True, False, 0, -1, 10**12, 3.5, [], ["a", 1], {}, {"a": {"b": []}}]
VALUES = WRONG_TYPES + HOSTILE_STRINGS


@dataclass(frozen=True)
class Source:
    rel: str  # path under wiki/
    kind: str
    data: dict[str, Any]
    body: str
    refs: tuple[str, ...]


def _walk(value: Any, path: PathKey = ()) -> list[PathKey]:
    out: list[PathKey] = [path] if path else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _walk(v, (*path, i))
    return out


def shipped_sources() -> list[Source]:
    """Every typed page of the shipped wiki, parsed once (tracked files only under CI)."""
    from mlwiki.core import load

    wiki = load(REPO / "wiki")
    out = []
    for page in wiki.pages.values():
        ptype = page_type(page.kind)
        if ptype is None or not page.valid:
            continue
        text = (REPO / page.rel).read_text(encoding="utf-8")
        if ptype.fmt == "json":
            data, body = json.loads(text), ""
        else:
            fm, body, _ = split_frontmatter(text)
            data = yaml.safe_load(fm or "")
        refs = tuple(sorted({r.target for r in page.refs} | {link.target for link in page.links}))
        out.append(Source(page.rel.split("/", 1)[1], page.kind, data, body, refs))
    return out


def fields_of(src: Source) -> list[PathKey]:
    return _walk(src.data)


def mutated(data: dict[str, Any], path: PathKey, value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copy


def render(src: Source, data: dict[str, Any]) -> str:
    if page_type(src.kind) and page_type(src.kind).fmt == "json":  # type: ignore[union-attr]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + "---\n" + src.body


@st.composite
def mutations(draw: st.DrawFn, sources: list[Source], kinds: tuple[str, ...] = ()) -> tuple[Source, PathKey, Any]:
    pool = [s for s in sources if not kinds or s.kind in kinds]
    src = draw(st.sampled_from(pool))
    path = draw(st.sampled_from(fields_of(src)))
    value = draw(st.sampled_from(VALUES))
    return src, path, value


def write_mutated_wiki(root: Path, sources: list[Source], src: Source, path: PathKey, value: Any) -> Path:
    """A wiki holding the mutated page and the pages it references, with a fresh INDEX.md when
    the wiki loads (a contributor runs --write-index); returns the wiki directory."""
    by_id = {Path(s.rel).stem: s for s in sources}
    files: dict[str, str | bytes] = {src.rel: render(src, mutated(src.data, path, value))}
    for ref in src.refs:
        other = by_id.get(ref)
        if other is not None and other.rel != src.rel:
            files[other.rel] = render(other, other.data)
            for second in other.refs:  # a workflow's actions, a symptom's workflow's actions
                third = by_id.get(second)
                if third is not None and third.kind in ("action", "workflow") and third.rel not in files:
                    files[third.rel] = render(third, third.data)
    return write_wiki(root, files)

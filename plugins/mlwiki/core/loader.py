"""Load every wiki file exactly once into :class:`Page` records and resolve the link graph.

wiki dir -> read_source -> frontmatter/JSON parse (with positions) -> Page -> Action/Workflow
views -> wikilinks and frontmatter references resolved -> backlinks. Syntax problems become
diagnostics here; everything semantic is in :mod:`mlwiki.core.checks`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from mlwiki.core.diagnostics import Diagnostic, Location
from mlwiki.core.markdown import WikiLink, find_headings, find_wikilinks, mask_code
from mlwiki.core.model import (
    DOC_FILES,
    FOLDERS,
    JSON_TYPES,
    MARKDOWN_TYPES,
    Action,
    Page,
    ResolvedLink,
    Wiki,
    Workflow,
)
from mlwiki.core.positions import ParseError, Positions, parse_json, parse_yaml
from mlwiki.core.source import read_source

FRONTMATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$", re.M)
# Frontmatter keys whose values are page ids: they count as links for backlinks and orphans.
REFERENCE_KEYS = ("related", "workflows", "playbooks", "verify")


class WikiDirError(Exception):
    """The wiki directory itself is unusable (missing, not a directory)."""


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Return (frontmatter text or None, body, 1-based line where the body starts)."""
    if not text.startswith("---"):
        return None, text, 1
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return None, text, 1
    m = FRONTMATTER_END.search(text, first_nl + 1)
    if not m:
        return None, text, 1
    fm = text[first_nl + 1 : m.start()]
    body_start = m.end() + 1
    body_line = text.count("\n", 0, min(body_start, len(text))) + 1
    return fm, text[body_start:], body_line


def _page(
    rel: str, kind: str, page_id: str, meta: dict[str, Any], positions: Positions, body: str, body_line: int
) -> Page:
    masked = mask_code(body)
    return Page(
        id=page_id,
        kind=kind,
        rel=rel,
        title=str(meta.get("title") or page_id),
        summary=str(meta.get("summary") or ""),
        meta=meta,
        body=body,
        body_line=body_line,
        headings=tuple(find_headings(body, masked, body_line)),
        links=tuple(find_wikilinks(masked, body_line)),
        positions=positions,
        masked_body=masked,
    )


def _first_heading_title(body: str, fallback: str) -> str:
    m = re.search(r"^#[ \t]+(.+?)[ \t]*$", body, re.M)
    return m.group(1) if m else fallback


def load_file(path: Path, rel: str, kind: str) -> Page | Diagnostic:
    """Parse one file of a known kind into a Page, or return the diagnostic that stops it."""
    src = read_source(path, rel)
    if isinstance(src, Diagnostic):
        return src
    page_id = path.stem if kind != "doc" else DOC_FILES[path.name]
    if kind in JSON_TYPES:
        try:
            meta, positions = parse_json(src.text)
        except ParseError as exc:
            return Diagnostic("MLW003", f"invalid JSON: {exc.message}", Location(rel, exc.line, exc.column))
        if not isinstance(meta, dict):
            return Diagnostic("MLW003", "a JSON page must be one object", Location(rel, 1, 1))
        desc = meta.get("description")
        body = desc if isinstance(desc, str) else ""
        line = positions.get(("description",), (1, 1))[0]
        return _page(rel, kind, page_id, meta, positions, body, line)
    fm, body, body_line = split_frontmatter(src.text)
    if fm is None:
        if kind == "doc":
            return _page(rel, kind, page_id, {"title": _first_heading_title(body, page_id)}, {(): (1, 1)}, body, 1)
        return Diagnostic(
            "MLW002",
            "missing YAML frontmatter: the file must start with a '---' line and close it with another",
            Location(rel, 1, 1),
        )
    try:
        meta, positions = parse_yaml(fm, line_offset=1)
    except ParseError as exc:
        return Diagnostic("MLW002", exc.message, Location(rel, exc.line, exc.column))
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return Diagnostic("MLW002", "frontmatter must be a YAML mapping of keys to values", Location(rel, 2, 1))
    if kind == "doc":
        meta.setdefault("title", _first_heading_title(body, page_id))
    return _page(rel, kind, page_id, meta, positions, body, body_line)


def _wiki_files(root: Path) -> Iterator[tuple[Path, str]]:
    """(path, kind) for every page file, sorted; kind 'doc' for the four top-level documents."""
    for name in sorted(DOC_FILES):
        if (root / name).is_file():
            yield root / name, "doc"
    for kind in MARKDOWN_TYPES + JSON_TYPES:
        folder = root / FOLDERS[kind]
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if p.is_file() and not p.name.startswith("."):
                    yield p, kind


def load_tags(root: Path) -> tuple[dict[str, dict[str, str]], list[Diagnostic]]:
    path = root / "schema" / "tags.yml"
    rel = _rel(root, path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError:
        return {}, [Diagnostic("MLW001", "tag vocabulary is missing", Location(rel))]
    except yaml.YAMLError as exc:
        return {}, [Diagnostic("MLW002", f"tag vocabulary is not valid YAML: {exc}", Location(rel))]
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        return {}, [Diagnostic("MLW004", "tag vocabulary must map group -> {tag: description}", Location(rel))]
    return {str(g): {str(t): str(d) for t, d in v.items()} for g, v in data.items()}, []


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root.parent).as_posix()


def load(root: Path | str) -> Wiki:
    """Load the wiki under ``root``. Raises :class:`WikiDirError` only if ``root`` is unusable."""
    root = Path(root)
    if not root.exists():
        raise WikiDirError(f"wiki directory '{root}' does not exist")
    if not root.is_dir():
        raise WikiDirError(f"wiki path '{root}' is not a directory")
    root = root.resolve()
    diagnostics: list[Diagnostic] = []
    pages: dict[str, Page] = {}
    duplicates: list[Page] = []
    broken: set[str] = set()
    for path, kind in _wiki_files(root):
        rel = _rel(root, path)
        expected = ".json" if kind in JSON_TYPES else ".md"
        if path.suffix != expected:
            diagnostics.append(
                Diagnostic(
                    "MLW005",
                    f"'{path.name}' is in {FOLDERS.get(kind, '')}/ but {kind} pages are {expected} files",
                    Location(rel),
                )
            )
            continue
        result = load_file(path, rel, kind)
        if isinstance(result, Diagnostic):
            diagnostics.append(result)
            broken.add(path.stem)
            continue
        if result.id in pages:
            duplicates.append(result)
            continue
        pages[result.id] = result
    for dup in duplicates:
        first = pages[dup.id]
        diagnostics.append(
            Diagnostic("MLW006", f"id '{dup.id}' is not unique: also used by {first.rel}", dup.loc(("id",)))
        )
    pages = dict(sorted(pages.items()))
    tags, tag_diags = load_tags(root)
    diagnostics.extend(tag_diags)
    actions = {p.id: Action.from_page(p) for p in pages.values() if p.kind == "action"}
    workflows = {p.id: Workflow.from_page(p) for p in pages.values() if p.kind == "workflow"}
    aliases: dict[str, list[str]] = {}
    for p in pages.values():
        for a in p.aliases:
            if isinstance(a, str):
                aliases.setdefault(a.casefold(), []).append(p.id)
    wiki = Wiki(
        root=root,
        pages=pages,
        actions=actions,
        workflows=workflows,
        tags=tags,
        links=[],
        backlinks={},
        diagnostics=diagnostics,
        aliases=aliases,
        broken_ids=broken,
    )
    _resolve_links(wiki)
    return wiki


def references(page: Page) -> Iterator[tuple[str, tuple[str | int, ...]]]:
    """Ids a page refers to outside its body: frontmatter lists and workflow step actions."""
    for key in REFERENCE_KEYS:
        values = page.meta.get(key)
        if isinstance(values, list):
            for i, v in enumerate(values):
                if isinstance(v, str):
                    yield v, (key, i)
    if page.kind == "workflow":
        for i, step in enumerate(page.meta.get("steps") or ()):
            if isinstance(step, dict) and isinstance(step.get("action"), str):
                yield step["action"], ("steps", i, "action")


def _resolve_links(wiki: Wiki) -> None:
    back: dict[str, set[str]] = {}
    for page in wiki.pages.values():
        for link in page.links:
            target, _ = wiki.resolve(link.target)
            wiki.links.append(ResolvedLink(page.id, link, target))
            # INDEX.md links every page by construction: it must not hide orphans.
            if target and target != page.id and not (page.kind == "doc" and page.id == "index"):
                back.setdefault(target, set()).add(page.id)
        for ref, _path in references(page):
            if ref in wiki.pages and ref != page.id:
                back.setdefault(ref, set()).add(page.id)
    wiki.backlinks = {k: sorted(v) for k, v in sorted(back.items())}


__all__ = ["WikiDirError", "WikiLink", "load", "load_file", "references", "split_frontmatter"]

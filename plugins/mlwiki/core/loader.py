"""Load every wiki file exactly once into :class:`Page` records and resolve the link graph.

wiki dir -> read_source -> frontmatter/JSON parse (with positions) -> schema validation ->
Page + typed record (only for pages that passed) -> wikilinks and references resolved ->
backlinks. Syntax and schema problems become diagnostics here (carried on the failed Page and
in ``wiki.diagnostics``); everything semantic is in :mod:`mlwiki.core.checks`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

import mlwiki.core.types  # noqa: F401  (registers the built-in page types)
from mlwiki.core.diagnostics import Diagnostic, Location
from mlwiki.core.markdown import WikiLink, find_headings, find_wikilinks, mask_code
from mlwiki.core.model import DOC_FILES, Page, Ref, ResolvedLink, Wiki
from mlwiki.core.positions import ParseError, PathKey, Positions, parse_json, parse_yaml
from mlwiki.core.registry import PageType, page_type, page_types, type_names
from mlwiki.core.schema import SchemaSet, schema_set
from mlwiki.core.source import MAX_BYTES, MAX_INDEX_BYTES, read_source

FRONTMATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$", re.M)


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


def _strs(value: Any) -> tuple[str, ...]:
    """The strings of a list (used only for pages that failed their schema)."""
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _refs(ptype: PageType, meta: Mapping[str, Any]) -> Iterator[Ref]:
    for key, want in ptype.references.items():
        values = meta.get(key)
        if not isinstance(values, list):
            continue
        for i, v in enumerate(values):
            if isinstance(v, str):
                yield Ref(key, (key, i), v, (want,) if want else ())


def _page(
    rel: str,
    kind: str,
    page_id: str,
    meta: Mapping[str, Any],
    positions: Positions,
    body: str,
    body_line: int,
    errors: tuple[Diagnostic, ...] = (),
) -> Page:
    """A Page from parsed data. When ``errors`` is empty the data passed its schema; otherwise
    every field is taken only if it has the right type (the page exists to carry its errors)."""
    masked = mask_code(body)
    ptype = page_type(kind)
    return Page(
        id=page_id,
        kind=kind,
        rel=rel,
        title=_text(meta.get("title"), page_id) or page_id,
        summary=_text(meta.get("summary")),
        body=body,
        body_line=body_line,
        headings=tuple(find_headings(body, masked, body_line)),
        links=tuple(find_wikilinks(masked, body_line)),
        positions=positions,
        masked_body=masked,
        is_json=ptype is not None and ptype.fmt == "json",
        tags=_strs(meta.get("tags")),
        aliases=_strs(meta.get("aliases")),
        platforms=_strs(meta.get("platforms")),
        sources=_strs(meta.get("sources")),
        related=_strs(meta.get("related")),
        refs=tuple(_refs(ptype, meta)) if ptype else (),
        declared_id=meta.get("id") if isinstance(meta.get("id"), str) else None,
        declared_type=meta.get("type") if isinstance(meta.get("type"), str) else None,
        errors=errors,
    )


def _broken(rel: str, kind: str, page_id: str, diag: Diagnostic) -> Page:
    """The page of a file that could not be read or parsed: it carries only its error."""
    return _page(rel, kind, page_id, {}, {(): (1, 1)}, "", 1, (diag,))


def _first_heading_title(body: str, fallback: str) -> str:
    m = re.search(r"^#[ \t]+(.+?)[ \t]*$", body, re.M)
    return m.group(1) if m else fallback


def parse_file(
    path: Path, rel: str, kind: str, limit: int = MAX_BYTES
) -> tuple[dict[str, Any], Positions, str, int] | Diagnostic:
    """Read and parse one file: (data, positions, body, body line), or the diagnostic that stops it."""
    src = read_source(path, rel, limit)
    if isinstance(src, Diagnostic):
        return src
    ptype = page_type(kind)
    if ptype is not None and ptype.fmt == "json":
        try:
            meta, positions = parse_json(src.text)
        except ParseError as exc:
            return Diagnostic("MLW003", f"invalid JSON: {exc.message}", Location(rel, exc.line, exc.column))
        if not isinstance(meta, dict):
            return Diagnostic("MLW003", "a JSON page must be one object", Location(rel, 1, 1))
        line = positions.get(("description",), (1, 1))[0]
        return meta, positions, _text(meta.get("description")), line
    fm, body, body_line = split_frontmatter(src.text)
    if fm is None:
        if kind == "doc":
            return {"title": _first_heading_title(body, path.stem)}, {(): (1, 1)}, body, 1
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
        meta.setdefault("title", _first_heading_title(body, path.stem))
    return meta, positions, body, body_line


def load_file(path: Path, rel: str, kind: str, schemas: SchemaSet) -> tuple[Page, Any]:
    """Parse, validate, then type one file: (page, typed record or None).

    A file that cannot be parsed or fails its schema still gives a Page, whose ``errors`` say
    why; only a page that passed its schema gets a typed record.
    """
    page_id = path.stem if kind != "doc" else DOC_FILES[path.name]
    # INDEX.md is generated, one line per page: it may grow past the limit for a written page.
    parsed = parse_file(path, rel, kind, MAX_INDEX_BYTES if page_id == "index" and kind == "doc" else MAX_BYTES)
    if isinstance(parsed, Diagnostic):
        return _broken(rel, kind, page_id, parsed), None
    meta, positions, body, body_line = parsed
    if kind == "doc":
        return _page(rel, kind, page_id, meta, positions, body, body_line), None
    errors = tuple(schemas.validate(kind, meta, rel, positions))
    if errors:
        return _page(rel, kind, page_id, meta, positions, body, body_line, errors), None
    page = _page(rel, kind, page_id, meta, positions, body, body_line)
    ptype = page_type(kind)
    record = ptype.record(page, meta) if ptype and ptype.record else None
    if record is not None and hasattr(record, "refs"):
        page = replace(page, refs=page.refs + tuple(record.refs()))
        record = replace(record, page=page)
    return page, record


def _wiki_files(root: Path) -> Iterator[tuple[Path, str]]:
    """(path, kind) for every page file, sorted; kind 'doc' for the four top-level documents."""
    for name in sorted(DOC_FILES):
        if (root / name).is_file():
            yield root / name, "doc"
    for ptype in page_types():
        folder = root / ptype.folder
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if p.is_file() and not p.name.startswith("."):
                    yield p, ptype.name


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
    schemas = schema_set(root / "schema")
    diagnostics: list[Diagnostic] = list(schemas.diagnostics)
    pages: dict[str, Page] = {}
    records: dict[str, dict[str, Any]] = {t: {} for t in type_names()}
    duplicates: list[Page] = []
    for path, kind in _wiki_files(root):
        rel = _rel(root, path)
        ptype = page_type(kind)
        if ptype is not None and path.suffix != ptype.suffix:
            diagnostics.append(
                Diagnostic(
                    "MLW005",
                    f"'{path.name}' is in {ptype.folder}/ but {kind} pages are {ptype.suffix} files",
                    Location(rel),
                )
            )
            continue
        page, record = load_file(path, rel, kind, schemas)
        if page.id in pages:
            duplicates.append(page)
            continue
        pages[page.id] = page
        diagnostics.extend(page.errors)
        if record is not None:
            records[kind][page.id] = record
    for dup in duplicates:
        first = pages[dup.id]
        diagnostics.append(
            Diagnostic("MLW006", f"id '{dup.id}' is not unique: also used by {first.rel}", dup.loc(("id",)))
        )
    pages = dict(sorted(pages.items()))
    tags, tag_diags = load_tags(root)
    diagnostics.extend(tag_diags)
    aliases: dict[str, list[str]] = {}
    for p in pages.values():
        for a in p.aliases:
            aliases.setdefault(a.casefold(), []).append(p.id)
    wiki = Wiki(
        root=root,
        pages=pages,
        records={k: dict(sorted(v.items())) for k, v in records.items()},
        tags=tags,
        links=[],
        backlinks={},
        diagnostics=diagnostics,
        aliases=aliases,
        broken_ids={p.id for p in pages.values() if not p.valid},
    )
    _resolve_links(wiki)
    return wiki


def references(page: Page) -> Iterator[tuple[str, PathKey]]:
    """Ids a page refers to outside its body: frontmatter lists, workflow steps, causes."""
    for ref in page.refs:
        yield ref.target, ref.path


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

"""One registry of page types: each type declared once, with everything the tools need to know.

A page type is its folder, its file format, its schema (``wiki/schema/<name>.json``), its plural
title and blurb for listings, the frontmatter keys that reference other pages (and which type
they must point at), the function that builds its typed record from validated data, and the
renderer that turns it into a site page. The loader, the checks, INDEX.md, the site's type
indexes and the search index all read this table; nothing else keeps a list of types.

The renderer is named by a dotted path (``module:function``), so the core never imports the
render layer; the render layer resolves the name when it renders.

Adding a type: call :func:`register` with a :class:`PageType` (see ``wiki/SCHEMA.md``,
"Adding a page type"), add its JSON Schema, write its renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

# (page, validated data) -> typed record, or None for types whose Page is the whole record.
RecordBuilder = Callable[[Any, Mapping[str, Any]], Any]


@dataclass(frozen=True)
class PageType:
    name: str
    folder: str
    fmt: str  # "md" (Markdown with YAML frontmatter) or "json" (one JSON object)
    title: str  # plural heading in listings, e.g. "Symptoms"
    blurb: str  # one sentence shown on the type's index page
    renderer: str  # "module:function" that renders a page of this type (resolved by render/)
    record: RecordBuilder | None = None
    references: Mapping[str, str | None] = field(default_factory=dict)  # key -> target type

    @property
    def suffix(self) -> str:
        return ".json" if self.fmt == "json" else ".md"


_REGISTRY: dict[str, PageType] = {}


def register(ptype: PageType) -> PageType:
    """Declare a page type. Re-registering a name replaces it (tests use this for fixtures)."""
    if ptype.fmt not in ("md", "json"):
        raise ValueError(f"page type '{ptype.name}': fmt must be 'md' or 'json', not {ptype.fmt!r}")
    _REGISTRY[ptype.name] = ptype
    return ptype


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def page_types() -> tuple[PageType, ...]:
    """Every registered type, in listing order (the order of registration)."""
    return tuple(_REGISTRY.values())


def page_type(name: str) -> PageType | None:
    return _REGISTRY.get(name)


def type_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def type_order(name: str) -> int:
    """Sort key of a page kind in listings; documents ('doc') and unknown kinds sort last."""
    names = type_names()
    return names.index(name) if name in names else len(names)

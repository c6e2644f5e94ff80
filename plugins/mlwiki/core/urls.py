"""Where each wiki page lives on the site, and relative links between site pages.

In the core because the search index and the query CLI need page URLs too."""

from __future__ import annotations

import posixpath

from mlwiki.core.model import Page
from mlwiki.core.registry import page_type

DOC_SRC = {
    "tutorial": "wiki/tutorial.md",
    "schema": "wiki/schema.md",
    "log": "wiki/log.md",
    "index": "wiki/index.md",
}


def src_uri(page: Page) -> str:
    """The docs-relative source path a wiki page is published under."""
    if page.kind == "doc":
        return DOC_SRC[page.id]
    return f"{type_src_dir(page.kind)}/{page.id}.md"


def type_src_dir(kind: str) -> str:
    ptype = page_type(kind)
    if ptype is None:
        raise KeyError(f"unknown page type '{kind}'")
    return ptype.folder


def type_src(kind: str) -> str:
    """The source path of a page type's index page."""
    return f"{type_src_dir(kind)}/index.md"


def tag_src(tag: str) -> str:
    return f"tags/{tag}.md"


def page_url(page: Page) -> str:
    """The page's URL relative to the site root."""
    return dest_url(src_uri(page))


def dest_url(src: str) -> str:
    """The directory-style URL MkDocs gives a Markdown source path (``use_directory_urls``)."""
    stem = src[:-3] if src.endswith(".md") else src
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def relative_url(from_src: str, to_src: str, anchor: str = "") -> str:
    """Relative URL from the page built from ``from_src`` to the page built from ``to_src``."""
    base = dest_url(from_src)
    target = dest_url(to_src)
    rel = posixpath.relpath(target or ".", base.rstrip("/") or ".")
    rel = "./" if rel == "." else rel + "/"
    return rel + (f"#{anchor}" if anchor else "")


def relative_src(from_src: str, to_src: str) -> str:
    """Relative Markdown link between two source files, for MkDocs to resolve and validate."""
    return posixpath.relpath(to_src, posixpath.dirname(from_src) or ".")

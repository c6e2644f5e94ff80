"""Where each wiki page lives on the site, and relative links between site pages."""

from __future__ import annotations

import posixpath

from mlwiki.core.model import FOLDERS, Page

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
    return f"{FOLDERS[page.kind]}/{page.id}.md"


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

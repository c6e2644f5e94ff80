"""The shared pieces of every generated site page, and the one dispatcher to the renderers.

Page record + SiteMap -> Markdown text (author Markdown with wikilinks rewritten to relative
``.md`` links, so MkDocs validates them; generated parts as escaped HTML blocks). Which
renderer a page type uses is declared in the core's type registry; the renderers themselves
are in :mod:`mlwiki.render.types`.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from mlwiki.core.diagnostics import Diagnostic
from mlwiki.core.model import Page, Wiki
from mlwiki.core.registry import page_type, type_order
from mlwiki.core.urls import relative_src, relative_url, src_uri, tag_src, type_src
from mlwiki.render.html import attrs, esc


@dataclass(frozen=True)
class SiteMap:
    """Where everything is published, so renderers can link without knowing MkDocs; and, when
    the site is built despite errors (``serve``, ``on_error: warn``), the errors to show."""

    wiki: Wiki
    problems: Sequence[Diagnostic] = ()

    def src(self, page_id: str) -> str:
        return src_uri(self.wiki.pages[page_id])

    def href(self, from_src: str, page_id: str, anchor: str = "") -> str:
        return relative_url(from_src, self.src(page_id), anchor)

    def problems_of(self, page: Page) -> list[Diagnostic]:
        return [d for d in self.problems if d.location.file == page.rel]


def frontmatter(title: str, description: str) -> str:
    """Page metadata for the theme. The theme prints ``title`` and ``description`` unescaped into
    HTML (Jinja autoescape is off in MkDocs), so they are HTML-escaped here; JSON strings are
    valid YAML scalars, so no title can break the frontmatter."""
    return f"---\ntitle: {json.dumps(esc(title))}\ndescription: {json.dumps(esc(description))}\n---\n\n"


def rewrite_wikilinks(page: Page, text: str, masked: str, offset_line: int, site: SiteMap, here: str) -> str:
    """Replace each wikilink outside code by a relative Markdown link (MkDocs then validates it)."""
    from mlwiki.core.markdown import find_wikilinks

    out = []
    pos = 0
    for link in find_wikilinks(masked, offset_line):
        target, _ = site.wiki.resolve(link.target)
        out.append(text[pos : link.start])
        if target is None:
            label = link.label or link.target
            out.append(f'<span class="mlw-broken">{esc(label)}</span>')
        else:
            tpage = site.wiki.pages[target]
            label = link.label or tpage.title
            label = label.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
            dest = relative_src(here, site.src(target)) + (f"#{link.anchor}" if link.anchor else "")
            out.append(f"[{esc(label)}]({dest})")
        pos = link.end
    out.append(text[pos:])
    return "".join(out)


def meta_block(page: Page, site: SiteMap, here: str) -> str:
    kind = page.kind
    type_link = (
        f'<a class="mlw-badge mlw-type-{esc(kind)}" href="{esc(relative_url(here, type_src(kind)))}">{esc(kind)}</a>'
    )
    tags = " ".join(f'<a class="mlw-tag" href="{esc(relative_url(here, tag_src(t)))}">{esc(t)}</a>' for t in page.tags)
    plats = ""
    if page.platforms:
        plats = '<span class="mlw-platforms">on ' + ", ".join(esc(p) for p in page.platforms) + "</span>"
    aliases = ""
    if page.aliases:
        aliases = (
            '<p class="mlw-aliases">Also known as: ' + ", ".join(f"<em>{esc(a)}</em>" for a in page.aliases) + "</p>"
        )
    return (
        f'<div class="mlw-meta"><p class="mlw-chips">{type_link} {tags} {plats}</p>'
        f'<p class="mlw-summary">{esc(page.summary)}</p>{aliases}</div>\n\n'
    )


def id_links(ids: list[str] | tuple[str, ...], site: SiteMap, here: str) -> str:
    items = []
    for i in ids:
        if i in site.wiki.pages:
            p = site.wiki.pages[i]
            items.append(f'<a href="{esc(site.href(here, i))}">{esc(p.title)}</a>')
        else:
            items.append(f'<span class="mlw-broken">{esc(i)}</span>')
    return ", ".join(items)


def source_link(source: str) -> str:
    """A source is a URL (shown as text, not fetched: the site makes no outside request on load)."""
    if source.startswith("https://") or source.startswith("http://"):
        return f'<a class="mlw-ext" href="{esc(source)}" rel="noopener noreferrer">{esc(source)}</a>'
    return f"<code>{esc(source)}</code>"


def sources_block(page: Page) -> str:
    if not page.sources:
        return ""
    items = "".join(f"<li>{source_link(s)}</li>" for s in page.sources)
    return f'## Sources {{#mlw-sources}}\n\n<ul class="mlw-sources">{items}</ul>\n\n'


def backlinks_block(page: Page, site: SiteMap, here: str) -> str:
    refs = site.wiki.backlinks.get(page.id, [])
    if not refs:
        return ""
    by_type: dict[str, list[Page]] = {}
    for r in refs:
        p = site.wiki.pages[r]
        by_type.setdefault(p.kind, []).append(p)
    groups = []
    for kind in sorted(by_type, key=type_order):
        ptype = page_type(kind)
        title = ptype.title if ptype else "Documents"
        links = "".join(
            f'<li><a href="{esc(site.href(here, p.id))}">{esc(p.title)}</a></li>'
            for p in sorted(by_type[kind], key=lambda p: p.title)
        )
        groups.append(f'<div class="mlw-bl-group"><h3>{esc(title)}</h3><ul>{links}</ul></div>')
    return '## Referenced by {#mlw-backlinks}\n\n<div class="mlw-backlinks">' + "".join(groups) + "</div>\n\n"


def pre(text: str, cls: str = "", data: str | None = None) -> str:
    data_attr = f" {attrs(data_mlw_cmd=data)}" if data else ""
    return f'<div class="highlight mlw-cmd {cls}"><pre><code{data_attr}>{pre_text(text)}</code></pre></div>'


def pre_text(text: str) -> str:
    """Escaped text for a <pre>, newlines as character references so the block is one paragraph."""
    return esc(text).replace("\n", "&#10;")


def author_markdown(text: str, page: Page, site: SiteMap, here: str, line: int = 1) -> str:
    from mlwiki.core.markdown import mask_code

    return rewrite_wikilinks(page, text, mask_code(text), line, site, here)


class Author(str):
    """A part of a page written by an author (Markdown that must go through Markdown)."""


BLOCK_START = re.compile(r"<(?:div|ul|ol|table|p|figure|form|pre|section|svg|details)\b")


@dataclass
class Rendered:
    """A page's Markdown with generated HTML blocks replaced by ``<!--mlw-frag-N-->`` comments.

    Python-Markdown passes those comments through untouched and the plugin puts the HTML back
    after conversion: the generated HTML (already escaped) skips Markdown's slow raw-HTML parser.
    """

    markdown: str
    fragments: dict[str, str]

    def inline(self) -> str:
        text = self.markdown
        for key, html_text in self.fragments.items():
            text = text.replace(f"<!--{key}-->", html_text)
        return text


def assemble(parts: list[str]) -> Rendered:
    fragments: dict[str, str] = {}
    out = []
    for part in parts:
        if isinstance(part, Author):
            out.append(str(part))
            continue
        lines = part.split("\n")
        for i, line in enumerate(lines):
            # Generated HTML blocks are always one line; each becomes a comment standing alone
            # between blank lines, so Markdown around it (a heading on the next line) stays Markdown.
            if BLOCK_START.match(line):
                key = f"mlw-frag-{len(fragments)}"
                fragments[key] = line
                lines[i] = f"\n<!--{key}-->\n"
        out.append("\n".join(lines))
    return Rendered("".join(out).rstrip("\n") + "\n", fragments)


def _error_list(errors: Sequence[Diagnostic]) -> str:
    return "".join(
        f"<li><code>{esc(d.location)}</code> <strong>{esc(d.code)}</strong> {esc(d.full_message)}</li>" for d in errors
    )


def error_stub(page: Page, errors: Sequence[Diagnostic]) -> list[str]:
    """What the site shows for a page that failed its schema or could not be parsed (under
    ``serve``; a build stops on these errors): the errors, where they are, and no content."""
    return [
        '<div class="admonition failure mlw-page-errors"><p class="admonition-title">This page has errors and is not shown</p>'
        f"<p>Fix these in <code>{esc(page.rel)}</code>; the page reappears when the file is valid.</p>"
        f"<ul>{_error_list(errors)}</ul></div>\n\n"
    ]


def error_banner(page: Page, errors: Sequence[Diagnostic]) -> str:
    """Errors of a page that still renders (a broken link, a bad reference), above its content."""
    return (
        '<div class="admonition failure mlw-page-errors"><p class="admonition-title">'
        f"This page has {len(errors)} error{'s' if len(errors) != 1 else ''}</p>"
        f"<ul>{_error_list(errors)}</ul></div>\n\n"
    )


Renderer = Callable[[Page, Any, SiteMap, str], list[str]]
_RENDERERS: dict[str, Renderer] = {}


def renderer_for(kind: str) -> Renderer:
    """The renderer the registry names for a page type, imported once."""
    ptype = page_type(kind)
    if ptype is None:
        raise KeyError(f"no renderer: unknown page type '{kind}'")
    found = _RENDERERS.get(ptype.renderer)
    if found is None:
        module, _, name = ptype.renderer.partition(":")
        found = getattr(importlib.import_module(module), name)
        _RENDERERS[ptype.renderer] = found
    return found


def page_source(page: Page, site: SiteMap) -> Rendered:
    """The site page for one wiki file: Markdown plus the generated HTML fragments."""
    here = src_uri(page)
    if page.kind == "doc":
        body = rewrite_wikilinks(page, page.body, page.masked_body, page.body_line, site, here)
        return assemble([frontmatter(page.title, page.summary or page.title), Author(body.rstrip("\n") + "\n")])
    out: list[str] = [frontmatter(page.title, page.summary or page.title), f"# {esc(page.title)}\n\n"]
    problems = site.problems_of(page)
    if not page.valid:
        out.extend(error_stub(page, problems or page.errors))
        return assemble(out)
    if problems:
        out.append(error_banner(page, problems))
    out.append(meta_block(page, site, here))
    record = site.wiki.records.get(page.kind, {}).get(page.id)
    out.extend(renderer_for(page.kind)(page, record, site, here))
    out.append(sources_block(page))
    out.append(backlinks_block(page, site, here))
    return assemble(out)


def page_markdown(page: Page, site: SiteMap) -> str:
    """The full Markdown source of one wiki page, with the generated HTML inline."""
    return page_source(page, site).inline()

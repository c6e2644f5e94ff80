"""Generated listing pages: one per page type, one per tag, the tag overview, the signature index."""

from __future__ import annotations

from mlwiki.core.model import Page, Wiki
from mlwiki.core.registry import page_type, page_types
from mlwiki.core.urls import relative_url, src_uri, tag_src, type_src
from mlwiki.render.html import esc
from mlwiki.render.page import frontmatter

SIGNATURES_SRC = "signatures.md"
TAGS_SRC = "tags/index.md"


def _row(p: Page, here: str, extra: str = "") -> str:
    tags = " ".join(f'<a class="mlw-tag" href="{esc(relative_url(here, tag_src(t)))}">{esc(t)}</a>' for t in p.tags)
    return (
        f'<li class="mlw-item"><a class="mlw-item-title" href="{esc(relative_url(here, src_uri(p)))}">{esc(p.title)}</a>'
        f' <span class="mlw-item-id">{esc(p.id)}</span><br><span class="mlw-item-summary">{esc(p.summary)}</span>'
        f"{extra}<br>{tags}</li>"
    )


def type_index(wiki: Wiki, kind: str) -> str:
    here = type_src(kind)
    pages = sorted(wiki.by_type(kind), key=lambda p: p.title.casefold())
    items = []
    for p in pages:
        extra = ""
        sigs = wiki.signatures(p.id)
        if sigs:
            extra = f'<br><code class="mlw-item-sig">{esc(sigs[0].text)}</code>'
        items.append(_row(p, here, extra))
    ptype = page_type(kind)
    assert ptype is not None
    title, blurb = ptype.title, ptype.blurb
    return (
        frontmatter(title, blurb)
        + f"# {esc(title)}\n\n<p>{esc(blurb)} {len(pages)} pages.</p>\n\n"
        + '<ul class="mlw-list">'
        + "".join(items)
        + "</ul>\n"
    )


def tag_page(wiki: Wiki, group: str, tag: str, description: str) -> str:
    here = tag_src(tag)
    pages = sorted((p for p in wiki.pages.values() if tag in p.tags), key=lambda p: (p.kind, p.title.casefold()))
    sections = []
    for ptype in page_types():
        group_pages = [p for p in pages if p.kind == ptype.name]
        if group_pages:
            sections.append(
                f"## {esc(ptype.title)}\n\n"
                + '<ul class="mlw-list">'
                + "".join(_row(p, here) for p in group_pages)
                + "</ul>\n\n"
            )
    body = "".join(sections) or "<p>No page carries this tag yet.</p>\n"
    return (
        frontmatter(f"Tag: {tag}", description)
        + f"# Tag: {esc(tag)}\n\n<p>{esc(description)} ({esc(group)} tag, {len(pages)} pages). "
        + f'<a href="{esc(relative_url(here, TAGS_SRC))}">All tags</a></p>\n\n'
        + body
    )


def tags_overview(wiki: Wiki) -> str:
    parts = [frontmatter("Tags", "Every tag of the controlled vocabulary, by group."), "# Tags\n\n"]
    for group, tags in wiki.tags.items():
        items = []
        for tag, desc in tags.items():
            n = sum(1 for p in wiki.pages.values() if tag in p.tags)
            items.append(
                f'<li><a class="mlw-tag" href="{esc(relative_url(TAGS_SRC, tag_src(tag)))}">{esc(tag)}</a> '
                f'{esc(desc)} <span class="mlw-count">({n})</span></li>'
            )
        parts.append(f'## {esc(group.capitalize())}\n\n<ul class="mlw-tags">{"".join(items)}</ul>\n\n')
    return "".join(parts)


def signature_index(wiki: Wiki) -> str:
    here = SIGNATURES_SRC
    symptoms = sorted(wiki.symptoms.values(), key=lambda s: s.page.title.casefold())
    total = sum(len(s.signatures) for s in symptoms)
    parts = [
        frontmatter("Signature index", "Every log signature in the wiki, verbatim, with its symptom page."),
        "# Signature index\n\n",
        f"<p>All {total} log signatures in the wiki, verbatim, each linking to its symptom page. "
        "Use your browser's find (Ctrl-F) with a fragment of your error, or paste it into the search box.</p>\n\n",
    ]
    for sym in symptoms:
        p = sym.page
        if not sym.signatures:
            continue
        link = f'<a href="{esc(relative_url(here, src_uri(p)))}">{esc(p.title)}</a>'
        sigs = "".join(
            f'<li><a class="mlw-sig-link" href="{esc(relative_url(here, src_uri(p), f"sig-{s.index + 1}"))}"><code>{esc(s.text)}</code></a>'
            f' <span class="mlw-sig-kind">{esc(s.kind)}</span></li>'
            for s in sym.signatures
        )
        parts.append(f'<section class="mlw-sig-group"><h2 id="{esc(p.id)}">{link}</h2><ul>{sigs}</ul></section>\n\n')
    return "".join(parts)

"""Link checks: body wikilinks (target, anchor, ambiguity), frontmatter references, orphans."""

from __future__ import annotations

from collections.abc import Iterator

from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic, Location, Severity, did_you_mean
from mlwiki.core.model import Wiki


def check_wikilinks(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for rl in wiki.links:
        link = rl.link
        page = wiki.pages[rl.source]
        loc = Location(page.rel, link.line, link.column)
        if not link.target:
            yield Diagnostic("MLW010", "empty wikilink target", loc)
            continue
        if rl.target is None:
            _, candidates = wiki.resolve(link.target)
            if candidates:
                yield Diagnostic(
                    "MLW012",
                    f"wikilink target '{link.target}' is ambiguous: it is an alias of "
                    + ", ".join(f"'{c}'" for c in candidates),
                    loc,
                    hint="link by id instead",
                )
                continue
            if link.target in wiki.broken_ids:
                continue
            yield Diagnostic(
                "MLW010",
                f"unknown wikilink target '{link.target}'",
                loc,
                hint=did_you_mean(link.target, ctx.names),
            )
            continue
        if link.anchor:
            target = wiki.pages[rl.target]
            if link.anchor not in target.anchors:
                yield Diagnostic(
                    "MLW011",
                    f"unknown anchor '#{link.anchor}' on page '{target.id}'",
                    loc,
                    hint=did_you_mean(link.anchor, target.anchors)
                    or ("it has no headings" if not target.anchors else ""),
                )


def check_references(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in wiki.pages.values():
        for ref in page.refs:
            if ref.target in wiki.broken_ids:
                continue
            target = wiki.pages.get(ref.target)
            wanted = " or ".join(ref.want)
            if target is None:
                if ref.key == "steps":
                    continue  # reported by the workflow checks (MLW031)
                pool = [p.id for p in wiki.pages.values() if not ref.want or p.kind in ref.want]
                yield Diagnostic(
                    "MLW010",
                    f"unknown page '{ref.target}' in '{ref.key}'",
                    page.loc(ref.path),
                    hint=did_you_mean(ref.target, pool),
                )
            elif ref.want and target.kind not in ref.want:
                yield Diagnostic(
                    "MLW010",
                    f"'{ref.key}' must name {wanted} pages, but '{ref.target}' is a {target.kind}",
                    page.loc(ref.path),
                )


def check_orphans(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in wiki.pages.values():
        if page.kind == "doc" or not page.valid:
            continue
        if not wiki.backlinks.get(page.id):
            yield Diagnostic(
                "MLW013",
                f"orphaned page: no other page links to '{page.id}'",
                page.loc(("id",)),
                severity=Severity.WARNING,
                hint="link it from a related page",
            )

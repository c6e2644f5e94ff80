"""Content checks: symptoms carry signatures and a workflow, no raw active HTML, INDEX.md fresh."""

from __future__ import annotations

from collections.abc import Iterator

from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic, Location
from mlwiki.core.index_md import render_index
from mlwiki.core.markdown import find_unsafe_html, mask_code
from mlwiki.core.model import Wiki


def check_symptoms(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for sym in wiki.symptoms.values():
        page = sym.page
        sigs = sym.signatures
        if not sigs:
            yield Diagnostic(
                "MLW040",
                "symptom has no signature",
                page.loc(("signatures",)),
                hint="add the verbatim log line, event or condition an engineer sees",
            )
        elif len(sigs) == 1 and not sym.verify:
            yield Diagnostic(
                "MLW042",
                "symptom has one signature and no verify action",
                page.loc(("signatures",)),
                hint="add a second verbatim signature or a 'verify' action",
            )
        for c in sym.causes:
            if c.next is None and not c.no_workflow:
                yield Diagnostic(
                    "MLW044",
                    f"cause '{c.cause[:60]}' names no next step",
                    page.loc(("causes", c.index)),
                    hint="add 'next: <action or workflow id>' that checks or fixes it, or 'no_workflow: <why>'",
                )
        texts = [(("signatures", s.index, f), getattr(s, f)) for s in sigs for f in ("where", "tell_apart")]
        texts += [(("causes", c.index, f), getattr(c, f)) for c in sym.causes for f in ("cause", "tell", "no_workflow")]
        for path, text in texts:
            if "[[" in text:
                yield Diagnostic(
                    "MLW045",
                    f"'[[' in {path[0][:-1]} {path[2]} is shown as plain text, not a link",
                    page.loc(path),
                    hint="name the page in the body, 'related' or 'next'; quote a log's own brackets in the body's code block",
                )
        if not sym.workflows:
            yield Diagnostic(
                "MLW041",
                "symptom links no workflow",
                page.loc(("workflows",)),
                hint="add 'workflows: [wf-...]' to the frontmatter",
            )


def _norm(text: str) -> str:
    return " ".join(text.split())


def check_shared_signatures(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    """A signature text on two symptom pages routes one log line to two pages: an error unless
    each page lists the other in that signature's ``shared_with`` (with a ``tell_apart``)."""
    owners: dict[str, list[tuple[str, int]]] = {}
    for sym in wiki.symptoms.values():
        for s in sym.signatures:
            owners.setdefault(_norm(s.text), []).append((sym.id, s.index))
    for text, where in owners.items():
        ids = sorted({i for i, _ in where})
        if len(ids) < 2:
            continue
        for sym_id, index in where:
            sym = wiki.symptoms[sym_id]
            sig = sym.signatures[index]
            others = [i for i in ids if i != sym_id]
            missing = [i for i in others if i not in sig.shared_with]
            if missing:
                yield Diagnostic(
                    "MLW043",
                    f"signature '{text[:80]}' is also on " + ", ".join(f"'{i}'" for i in missing),
                    sym.page.loc(("signatures", index, "text")),
                    hint="keep it on one page, or list the other page in 'shared_with' with a 'tell_apart'",
                )


def check_unsafe_html(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in wiki.pages.values():
        for line, col, what in find_unsafe_html(page.masked_body, page.body_line):
            loc = page.loc(("description",)) if page.is_json else Location(page.rel, line, col)
            yield Diagnostic("MLW050", f"{what} in page content; active HTML is not allowed", loc)
    for action in wiki.actions.values():
        for key, text in (("instructions", action.instructions), ("prompt", action.prompt)):
            for _l, _c, what in find_unsafe_html(mask_code(text)):
                yield Diagnostic("MLW050", f"{what} in '{key}'; active HTML is not allowed", action.page.loc((key,)))


def check_index(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    index = wiki.pages.get("index")
    expected = render_index(wiki)
    rel = f"{wiki.root.name}/INDEX.md"
    if index is None:
        yield Diagnostic(
            "MLW060",
            "wiki/INDEX.md is missing",
            Location(rel),
            hint="run 'python3 scripts/wiki_linter.py --write-index'",
        )
        return
    current = (wiki.root / "INDEX.md").read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    if current != expected:
        a, b = current.split("\n"), expected.split("\n")
        line = next((i + 1 for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        yield Diagnostic(
            "MLW060",
            "wiki/INDEX.md is out of date",
            Location(index.rel, line, 1),
            hint="run 'python3 scripts/wiki_linter.py --write-index'",
        )

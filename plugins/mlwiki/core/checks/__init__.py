"""Every check over a loaded wiki. Each check is a function ``(wiki, ctx) -> Iterable[Diagnostic]``.

Schema validation is not here: the loader validates each page before typing it, so its
diagnostics arrive in ``wiki.diagnostics`` and every check reads only typed, valid records.

``check(wiki)`` runs them all and returns every diagnostic, sorted by file and line, so one run
reports every problem. The linter and the MkDocs plugin both call this and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Callable

from mlwiki.core.checks import actions, content, links, structure, workflows
from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic
from mlwiki.core.model import Wiki

Check = Callable[[Wiki, CheckContext], Iterable[Diagnostic]]

CHECKS: tuple[Check, ...] = (
    structure.check_ids,
    structure.check_prefixes,
    structure.check_tags,
    links.check_wikilinks,
    links.check_references,
    links.check_orphans,
    actions.check_placeholders,
    actions.check_parameters,
    actions.check_duplicates,
    actions.check_approval,
    workflows.check_steps,
    content.check_symptoms,
    content.check_shared_signatures,
    content.check_unsafe_html,
    content.check_index,
)


def check(wiki: Wiki, ctx: CheckContext | None = None) -> list[Diagnostic]:
    """Load-time diagnostics plus every check's, deduplicated and sorted."""
    ctx = ctx or CheckContext.for_wiki(wiki)
    found: list[Diagnostic] = list(wiki.diagnostics)
    for fn in CHECKS:
        found.extend(fn(wiki, ctx))
    unique = {(d.sort_key(), d.severity, d.hint): d for d in found}
    return sorted(unique.values(), key=Diagnostic.sort_key)


__all__ = ["CHECKS", "CheckContext", "check"]

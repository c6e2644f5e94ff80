"""Checks on each page on its own: schema, id and folder, file-name prefixes, tags."""

from __future__ import annotations

from collections.abc import Iterator

from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic, Severity, did_you_mean
from mlwiki.core.model import Wiki

FAILURE_GROUP = "failure"
SCOPE_GROUPS = ("platform", "component")


def check_ids(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in wiki.pages.values():
        if page.kind == "doc":
            continue
        declared = page.declared_id
        if declared is not None and declared != page.id:
            yield Diagnostic(
                "MLW005",
                f"id '{declared}' does not match the file name '{page.rel.rsplit('/', 1)[-1]}'",
                page.loc(("id",)),
                hint=f"use id '{page.id}' or rename the file",
            )
        declared_type = page.declared_type
        if declared_type is not None and declared_type != page.kind:
            yield Diagnostic(
                "MLW005",
                f"type '{declared_type}' does not match the folder, which holds {page.kind} pages",
                page.loc(("type",)),
            )


def check_prefixes(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in wiki.pages.values():
        if page.kind == "doc":
            continue
        if page.kind == "workflow" and not page.id.startswith("wf-"):
            yield Diagnostic("MLW007", f"workflow id '{page.id}' must start with 'wf-'", page.loc(("id",)))
        if page.kind != "workflow" and page.id.startswith("wf-"):
            yield Diagnostic(
                "MLW007",
                f"only workflows may start with 'wf-' ('{page.id}' is a {page.kind})",
                page.loc(("id",)),
            )
        action = wiki.actions.get(page.id)
        if action is None:
            continue
        mode = action.execution_mode
        for prefix, wanted in (("ai-", "ai"), ("manual-", "manual")):
            has = page.id.startswith(prefix)
            if has and mode != wanted:
                yield Diagnostic(
                    "MLW007",
                    f"file name starts with '{prefix}' but execution_mode is '{mode}', not '{wanted}'",
                    page.loc(("execution_mode",)),
                )
            elif not has and mode == wanted:
                yield Diagnostic(
                    "MLW007",
                    f"execution_mode is '{wanted}' but the file name does not start with '{prefix}'",
                    page.loc(("execution_mode",)),
                    hint=f"rename to '{prefix}{page.id}.json'",
                )


def check_tags(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    if not wiki.tags:
        return
    group_of = {t: g for g, tags in wiki.tags.items() for t in tags}
    for page in wiki.pages.values():
        if page.kind == "doc" or not page.valid:
            continue
        groups = []
        for i, tag in enumerate(page.tags):
            if tag not in group_of:
                yield Diagnostic(
                    "MLW020",
                    f"tag '{tag}' is not in the vocabulary (wiki/schema/tags.yml)",
                    page.loc(("tags", i)),
                    hint=did_you_mean(tag, group_of),
                )
                continue
            groups.append(group_of[tag])
        if groups and not any(g in SCOPE_GROUPS for g in groups):
            yield Diagnostic(
                "MLW020",
                "a page needs at least one platform or component tag",
                page.loc(("tags",)),
                severity=Severity.ERROR,
            )
        if page.kind == "symptom":
            n = groups.count(FAILURE_GROUP)
            if not 1 <= n <= 2:
                yield Diagnostic(
                    "MLW020",
                    f"a symptom carries one or two failure-class tags, this one has {n}",
                    page.loc(("tags",)),
                )

"""Workflow checks: steps name real actions, map exactly the parameters they should, and every
template, branch and jump refers to something that exists earlier (or later, for jumps)."""

from __future__ import annotations

from collections.abc import Iterator

from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic, Location, did_you_mean
from mlwiki.core.model import Wiki, Workflow
from mlwiki.core.params import STEP_TEMPLATE


def _fields_of(wiki: Wiki, wf: Workflow, step_id: str) -> set[str]:
    step = wf.step(step_id)
    action = wiki.actions.get(step.action) if step else None
    return {f.name for f in action.summary_fields} if action else set()


def _has_action(wiki: Wiki, wf: Workflow, step_id: str) -> bool:
    step = wf.step(step_id)
    return step is not None and step.action in wiki.actions


def check_steps(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for wf in wiki.workflows.values():
        yield from _check_workflow(wiki, wf)


def _check_workflow(wiki: Wiki, wf: Workflow) -> Iterator[Diagnostic]:
    page = wf.page
    order = {s.id: s.index for s in wf.steps}
    used_params: set[str] = set()
    seen_ids: set[str] = set()
    for step in wf.steps:
        base = ("steps", step.index)
        if step.id in seen_ids:
            yield Diagnostic("MLW036", f"step id '{step.id}' is used twice", page.loc((*base, "id")))
        seen_ids.add(step.id)
        action = wiki.actions.get(step.action)
        if action is None:
            if step.action not in wiki.broken_ids:
                yield Diagnostic(
                    "MLW031",
                    f"step '{step.id}' names unknown action '{step.action}'",
                    page.loc((*base, "action")),
                    hint=did_you_mean(step.action, wiki.actions),
                )
        else:
            for name in step.with_:
                if name not in action.parameters:
                    yield Diagnostic(
                        "MLW032",
                        f"step '{step.id}' maps '{name}', which action '{action.id}' does not declare",
                        page.loc((*base, "with", name)),
                        hint=did_you_mean(name, action.parameters),
                    )
            for name, p in action.parameters.items():
                if p.required and p.default is None and name not in step.with_:
                    yield Diagnostic(
                        "MLW033",
                        f"step '{step.id}' omits required parameter '{name}' of action '{action.id}'",
                        page.loc((*base, "with")) if step.with_ else page.loc((*base, "action")),
                    )
        earlier = [s.id for s in wf.steps if s.index < step.index]
        for name, template in step.with_.items():
            if not isinstance(template, str):
                continue
            for m in STEP_TEMPLATE.finditer(template):
                ref_step, ref_name = m.group(1), m.group(2)
                loc = page.loc((*base, "with", name))
                if ref_step is None:
                    used_params.add(ref_name)
                    if ref_name not in wf.parameters:
                        yield Diagnostic(
                            "MLW036",
                            f"step '{step.id}' uses '{{{ref_name}}}', which is not a workflow parameter",
                            loc,
                            hint=did_you_mean(ref_name, wf.parameters),
                        )
                elif ref_step not in earlier:
                    yield Diagnostic(
                        "MLW036",
                        f"step '{step.id}' uses '{{{ref_step}.{ref_name}}}' but '{ref_step}' is not an earlier step",
                        loc,
                    )
                elif ref_name not in _fields_of(wiki, wf, ref_step):
                    yield Diagnostic(
                        "MLW036",
                        f"step '{step.id}' uses '{{{ref_step}.{ref_name}}}' but that step has no summary field '{ref_name}'",
                        loc,
                        hint=did_you_mean(ref_name, _fields_of(wiki, wf, ref_step)),
                    )
        for bi, branch in enumerate(step.branches):
            bpath = (*base, "branches", bi)
            ref_step, _, ref_field = branch.when.field.partition(".")
            if ref_step not in earlier and ref_step != step.id:
                yield Diagnostic(
                    "MLW036",
                    f"branch of step '{step.id}' tests '{branch.when.field}' but '{ref_step}' is not this or an earlier step",
                    page.loc((*bpath, "when", "field")),
                )
            elif ref_field not in _fields_of(wiki, wf, ref_step) and _has_action(wiki, wf, ref_step):
                yield Diagnostic(
                    "MLW036",
                    f"branch of step '{step.id}' tests unknown summary field '{branch.when.field}'",
                    page.loc((*bpath, "when", "field")),
                    hint=did_you_mean(ref_field, _fields_of(wiki, wf, ref_step)),
                )
            yield from _check_jump(page.loc((*bpath, "goto")), step.id, step.index, branch.goto, order)
        if step.next is not None:
            yield from _check_jump(page.loc((*base, "next")), step.id, step.index, step.next, order)
    for name in wf.parameters:
        if name not in used_params:
            yield Diagnostic(
                "MLW035",
                f"workflow parameter '{name}' is declared but no step uses it",
                page.loc(("parameters", name)),
            )


def _check_jump(loc: Location, step_id: str, index: int, target: str, order: dict[str, int]) -> Iterator[Diagnostic]:
    if target == "end":
        return
    if target not in order:
        yield Diagnostic(
            "MLW036",
            f"step '{step_id}' jumps to unknown step '{target}'",
            loc,
            hint=did_you_mean(target, order),
        )
    elif order[target] <= index:
        yield Diagnostic("MLW036", f"step '{step_id}' jumps back to '{target}'; jumps may only go forward", loc)

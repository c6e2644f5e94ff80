"""Action checks: placeholders vs parameters, parameter rules, duplicate commands."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mlwiki.core.approval import state_change
from mlwiki.core.checks.context import CheckContext
from mlwiki.core.diagnostics import Diagnostic, did_you_mean
from mlwiki.core.jsonpath import PathError
from mlwiki.core.jsonpath import parse as parse_path
from mlwiki.core.model import Page, Parameter, Wiki
from mlwiki.core.params import PLACEHOLDER, ParameterError, check_value


def check_placeholders(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for action in wiki.actions.values():
        used: set[str] = set()
        for path, text in action.texts():
            for m in PLACEHOLDER.finditer(text):
                name = m.group(1)
                used.add(name)
                if name not in action.parameters:
                    yield Diagnostic(
                        "MLW034",
                        f"placeholder '{{{name}}}' is not a declared parameter",
                        action.page.loc(path),
                        hint=did_you_mean(name, action.parameters),
                    )
        for name in action.parameters:
            if name not in used:
                yield Diagnostic(
                    "MLW035",
                    f"parameter '{name}' is declared but never used in the "
                    + {"ai": "prompt", "manual": "instructions"}.get(action.execution_mode, "command"),
                    action.page.loc(("parameters", name)),
                )


def check_parameter_specs(page: Page, params: dict[str, Parameter]) -> Iterator[Diagnostic]:
    """Regexes compile, and defaults and examples obey their own parameter's rules."""
    for name, p in params.items():
        if p.pattern is not None:
            try:
                re.compile(p.pattern)
            except re.error as exc:
                yield Diagnostic(
                    "MLW037",
                    f"parameter '{name}' has an invalid pattern: {exc}",
                    page.loc(("parameters", name, "pattern")),
                )
                continue
        for key in ("default", "example"):
            value = getattr(p, key)
            if value is None:
                continue
            try:
                check_value(p, value)
            except ParameterError as exc:
                yield Diagnostic(
                    "MLW037",
                    f"{key} of parameter '{name}' breaks its own rule: {exc.rule}",
                    page.loc(("parameters", name, key)),
                )


def check_parameters(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    for action in wiki.actions.values():
        yield from check_parameter_specs(action.page, dict(action.parameters))
        for i, f in enumerate(action.summary_fields):
            if f.json_path is not None:
                try:
                    parse_path(f.json_path)
                except PathError as exc:
                    yield Diagnostic(
                        "MLW037",
                        f"summary field '{f.name}' has an invalid json_path: {exc}",
                        action.page.loc(("summary_fields", i, "json_path")),
                    )
            if f.regex is None:
                continue
            try:
                re.compile(f.regex)
            except re.error as exc:
                yield Diagnostic(
                    "MLW037",
                    f"summary field '{f.name}' has an invalid regex: {exc}",
                    action.page.loc(("summary_fields", i, "regex")),
                )
    for wf in wiki.workflows.values():
        yield from check_parameter_specs(wf.page, dict(wf.parameters))


def check_approval(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    """A command that changes state by rule must declare approval (MLW039)."""
    for action in wiki.actions.values():
        if action.execution_mode != "command" or action.requires_approval:
            continue
        found = state_change(action.command)
        if found is None:
            continue
        yield Diagnostic(
            "MLW039",
            f"`{found.executable} {found.verb}` changes state ({found.rule}) but the action does not set "
            "requires_approval: true with 'changes' and 'undo'",
            action.page.loc(("requires_approval",)),
            hint="set requires_approval: true and say what it changes and how to undo it; the runner gates it anyway",
        )


def normalised_command(argv: tuple[str, ...]) -> str:
    """The command with whitespace collapsed and every placeholder name replaced by ``{}``."""
    return " ".join(" ".join(PLACEHOLDER.sub("{}", a).split()) for a in argv)


def check_duplicates(wiki: Wiki, ctx: CheckContext) -> Iterator[Diagnostic]:
    seen: dict[str, str] = {}
    for action in wiki.actions.values():
        if not action.command:
            continue
        key = normalised_command(action.command)
        if key in seen:
            yield Diagnostic(
                "MLW030",
                f"action duplicates '{seen[key]}': both run `{key}`",
                action.page.loc(("command",)),
                hint=f"reuse '{seen[key]}' instead",
            )
        else:
            seen[key] = action.id

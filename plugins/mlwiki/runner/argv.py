"""Fill an action's argv template with validated values. No shell is ever involved.

Each ``{name}`` fills part of one argument; a value can never split into several arguments.
An argument whose placeholders are all unset optional parameters is dropped (``--tail={lines}``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mlwiki.core.model import Action, Parameter
from mlwiki.core.params import PLACEHOLDER, ParameterError, resolve_values

SHELL_META = re.compile(r"[;|&$`<>\\]|\$\(")


def check_no_shell_syntax(p: Parameter, text: str) -> None:
    """Values without a pattern may not carry shell syntax: inert here, but never intended."""
    if p.pattern is None and SHELL_META.search(text):
        raise ParameterError(
            p.name,
            text,
            "must not contain shell syntax (; | & $ ` < > \\) unless the parameter declares a pattern",
        )


def validate(action: Action, given: Mapping[str, Any]) -> dict[str, str]:
    return validate_with(action, action.parameters, given)


def validate_with(action: Action, params: Mapping[str, Parameter], given: Mapping[str, Any]) -> dict[str, str]:
    text_input = action.execution_mode != "command"
    values = resolve_values(params, given, text_input=text_input)
    if text_input:
        return values
    for name, text in values.items():
        check_no_shell_syntax(action.parameters[name], text)
    return values


def fill(template: str, values: Mapping[str, str]) -> str | None:
    """One argument with its placeholders filled; None if it refers only to unset parameters."""
    names = PLACEHOLDER.findall(template)
    if names and all(n not in values for n in names):
        return None
    missing = [n for n in names if n not in values]
    if missing:
        raise ParameterError(missing[0], None, "is needed by the command but has no value")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def build_argv(action: Action, values: Mapping[str, str]) -> list[str]:
    argv = []
    for template in action.command:
        arg = fill(template, values)
        if arg is not None:
            argv.append(arg)
    return argv


def fill_text(text: str, values: Mapping[str, str]) -> str:
    """Prompts and instructions: fill known placeholders, leave the rest visible."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

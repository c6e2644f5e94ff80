"""Parameter values against their declared rules; shared by the checks, the runner and the site.

value -> check_value(param, value) -> the value as one argv-ready string, or ParameterError
naming the parameter, the value and the rule it broke.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mlwiki.core.model import Parameter

# A {name} placeholder in a command, prompt or instructions template.
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
# A workflow step's template: {name} (a workflow parameter) or {step-id.field} (an earlier
# step's summary field). The one pattern for the checks, the runner and the site.
STEP_TEMPLATE = re.compile(r"\{(?:([a-z0-9][a-z0-9-]*)\.)?([a-z][a-z0-9_]*)\}")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_VALUE_LEN = 4096
# ai and manual actions never build an argv: their inputs may be long, multi-line text (logs).
MAX_TEXT_LEN = 256_000


class ParameterError(ValueError):
    def __init__(self, name: str, value: Any, rule: str) -> None:
        self.name = name
        self.value = value
        self.rule = rule
        shown = json.dumps(value) if not isinstance(value, str) or len(value) < 200 else json.dumps(value[:200] + "...")
        super().__init__(f"parameter '{name}' = {shown}: {rule}")


class MissingParameters(ParameterError):
    """Every required parameter that was not given, reported at once."""

    def __init__(self, names: list[str], message: str) -> None:
        self.names = names
        ValueError.__init__(self, message)
        self.name, self.value, self.rule = names[0], None, "is required"


def as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_value(p: Parameter, value: Any, text_input: bool = False) -> str:
    """Validate one value; return it as text. Raises :class:`ParameterError`.

    ``text_input`` relaxes length and newlines for values that only fill a prompt, never an argv.
    """
    if p.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterError(p.name, value, "must be an integer")
        if p.minimum is not None and value < p.minimum:
            raise ParameterError(p.name, value, f"must be at least {p.minimum}")
        if p.maximum is not None and value > p.maximum:
            raise ParameterError(p.name, value, f"must be at most {p.maximum}")
    elif p.type == "boolean":
        if not isinstance(value, bool):
            raise ParameterError(p.name, value, "must be true or false")
    else:
        if not isinstance(value, str):
            raise ParameterError(p.name, value, "must be a string")
        if value == "":
            raise ParameterError(p.name, value, "must not be empty")
        limit = MAX_TEXT_LEN if text_input else MAX_VALUE_LEN
        if len(value) > limit:
            raise ParameterError(p.name, value, f"must be at most {limit} characters")
        bad = CONTROL.search(value.replace("\n", "").replace("\t", "") if text_input else value)
        if bad:
            raise ParameterError(p.name, value, "must not contain newlines or control characters")
        if value.startswith("-") and not p.allow_leading_dash:
            raise ParameterError(p.name, value, "must not start with '-' (it would be read as an option)")
    if p.enum is not None and value not in p.enum:
        raise ParameterError(p.name, value, "must be one of " + ", ".join(json.dumps(e) for e in p.enum))
    text = as_text(value)
    if p.pattern is not None and re.fullmatch(p.pattern, text, re.S if text_input else 0) is None:
        raise ParameterError(p.name, value, f"must match the pattern {p.pattern}")
    return text


def resolve_values(
    params: Mapping[str, Parameter], given: Mapping[str, Any], text_input: bool = False
) -> dict[str, str]:
    """Check a whole parameter set: unknown names, missing required ones, every rule.

    Raises the first :class:`ParameterError` in parameter order (unknown names first).
    """
    for name in sorted(given):
        if name not in params:
            known = ", ".join(sorted(params)) or "none"
            raise ParameterError(name, given[name], f"is not a parameter of this action (known: {known})")
    missing = [n for n, p in params.items() if n not in given and p.default is None and p.required]
    if missing:
        described = "; ".join(f"{n} ({params[n].description.rstrip('.')})" for n in missing)
        raise MissingParameters(missing, f"missing required parameter{'s' if len(missing) > 1 else ''}: {described}")
    out: dict[str, str] = {}
    for name, p in params.items():
        if name in given:
            out[name] = check_value(p, given[name], text_input)
        elif p.default is not None:
            out[name] = check_value(p, p.default)
    return out

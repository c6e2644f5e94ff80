"""Runner command lines, built in one place for the site, the runner's own messages and agents.

The same quoting is re-implemented in ``render/assets/mlwiki.js`` for live filling from the
page's form; a test keeps the two in step.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Union

from mlwiki.core.model import Parameter

RUNNER = "python3 scripts/python_glue_runner.py"
Value = Union[str, int, bool]


def params_json(values: Mapping[str, object]) -> str:
    """Parameters as one JSON object, in the order given (the order of declaration)."""
    return json.dumps(dict(values), ensure_ascii=False)


def runner_prefix(kind: str, page_id: str) -> str:
    """``python3 scripts/python_glue_runner.py ID`` or ``... --workflow ID``."""
    return f"{RUNNER} --workflow {page_id}" if kind == "workflow" else f"{RUNNER} {page_id}"


def runner_command(
    kind: str,
    page_id: str,
    values: Mapping[str, object],
    *,
    from_step: str | None = None,
    extra: Sequence[str] = (),
) -> str:
    """The full command: prefix, the parameters as one shell-quoted JSON argument, then
    ``--from STEP`` and any extra options, in that order."""
    parts = [runner_prefix(kind, page_id), shlex.quote(params_json(values))]
    if from_step:
        parts += ["--from", from_step]
    parts += [e for e in extra if e]
    return " ".join(parts)


def required_names(params: Mapping[str, Parameter]) -> list[str]:
    """Parameters a run cannot do without: required and with no default."""
    return [n for n, p in params.items() if p.required and p.default is None]


def hole_names(params: Mapping[str, Parameter], given: Mapping[str, object]) -> list[str]:
    """Parameters a dry run shows as ``<name>`` holes: given as that very hole, or required and
    missing (the site's unfilled form sends the first, an agent collecting values the second)."""
    required = set(required_names(params))
    return [n for n in params if given.get(n) == f"<{n}>" or (n not in given and n in required)]


def sample_values(params: Mapping[str, Parameter], only_required: bool = False) -> dict[str, Value]:
    """Example values for every parameter that has one (required ones first in declaration order)."""
    out: dict[str, Value] = {}
    for name, p in params.items():
        if only_required and not p.required:
            continue
        if p.required or p.example is not None:
            value = p.sample
            if value is not None:
                out[name] = value
    return out

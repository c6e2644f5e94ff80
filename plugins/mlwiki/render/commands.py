"""Runner command lines exactly as the site shows them and an engineer pastes them.

The same quoting is re-implemented in ``docs_src/assets/mlwiki.js`` for live filling; a test
keeps the two in step.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Union

from mlwiki.core.model import Action, Parameter, Workflow

RUNNER = "python3 scripts/python_glue_runner.py"
Value = Union[str, int, bool]


def params_json(values: Mapping[str, Value]) -> str:
    """Parameters as one JSON object, in the order given (the order of declaration)."""
    return json.dumps(dict(values), ensure_ascii=False)


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


def action_command(action: Action, values: Mapping[str, Value], extra: str = "") -> str:
    cmd = f"{RUNNER} {action.id} {shlex.quote(params_json(values))}"
    return f"{cmd} {extra}".rstrip()


def workflow_command(wf: Workflow, values: Mapping[str, Value], from_step: str | None = None) -> str:
    cmd = f"{RUNNER} --workflow {wf.id} {shlex.quote(params_json(values))}"
    if from_step:
        cmd += f" --from {from_step}"
    return cmd

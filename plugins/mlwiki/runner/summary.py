"""Pull an action's ``summary_fields`` out of its output (JSON paths, or regex named groups)."""

from __future__ import annotations

import json
import re
from typing import Any

from mlwiki.core.jsonpath import PathError, parse, select
from mlwiki.core.model import Action, SummaryField


class OutputError(ValueError):
    """The output is not what the action declared (e.g. not JSON)."""


def _regex_values(rx: re.Pattern[str], texts: list[str]) -> list[Any]:
    out: list[Any] = []
    for text in texts:
        for m in rx.finditer(text):
            groups = m.groupdict()
            if len(groups) == 1:
                out.append(next(iter(groups.values())))
            elif groups:
                out.append({k: v for k, v in groups.items() if v is not None})
            else:
                out.append(m.group(0))
    return out


def _select(values: list[Any], how: str) -> Any:
    if how == "first":
        return values[0] if values else None
    if how == "count":
        return len(values)
    if how == "unique":
        seen: list[Any] = []
        for v in values:
            if v not in seen:
                seen.append(v)
        return seen
    return values


def extract(action: Action, output: str) -> dict[str, Any]:
    """Summary of ``output``; raises :class:`OutputError` when JSON output does not parse."""
    data: Any = None
    if action.output == "json" and any(f.json_path for f in action.summary_fields):
        try:
            data = json.loads(output) if output.strip() else None
        except json.JSONDecodeError as exc:
            first = output.strip().splitlines()[0][:120] if output.strip() else ""
            raise OutputError(
                f"action '{action.id}' expected JSON output but got text ({exc.msg} at line {exc.lineno}); "
                f"first line: {first!r}"
            ) from None
    return {f.name: extract_field(f, data, output) for f in action.summary_fields}


def extract_field(f: SummaryField, data: Any, output: str) -> Any:
    if f.json_path:
        try:
            values = select(data, parse(f.json_path))
        except PathError as exc:
            raise OutputError(str(exc)) from None
        if f.regex:
            values = _regex_values(
                re.compile(f.regex, re.M), [v if isinstance(v, str) else json.dumps(v) for v in values]
            )
    elif f.regex:
        values = _regex_values(re.compile(f.regex, re.M), [output])
    else:
        values = []
    return _select(values, f.select)

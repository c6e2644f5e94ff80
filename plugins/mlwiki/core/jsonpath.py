"""A small, safe JSON path: ``a.b[*].c``, ``x[0]``, ``labels["cloud.google.com/gke-nodepool"]``,
``items[?status.phase=Running].metadata.name`` (filter on a dotted field's string value).

Paths are parsed once (``parse``) and evaluated against decoded JSON (``select``); no eval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union


@dataclass(frozen=True)
class Key:
    name: str


@dataclass(frozen=True)
class Index:
    n: int


@dataclass(frozen=True)
class Wild:
    pass


@dataclass(frozen=True)
class Filter:
    path: tuple[Segment, ...]
    value: str
    negate: bool


Segment = Union[Key, Index, Wild, Filter]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class PathError(ValueError):
    pass


def parse(path: str) -> tuple[Segment, ...]:
    """Parse a path; raise :class:`PathError` with the offending position."""
    segs: list[Segment] = []
    i = 0
    n = len(path)
    while i < n:
        ch = path[i]
        if ch == ".":
            i += 1
            continue
        if ch == "[":
            end = _close(path, i)
            inner = path[i + 1 : end].strip()
            if inner == "*":
                segs.append(Wild())
            elif inner.lstrip("-").isdigit():
                segs.append(Index(int(inner)))
            elif inner[:1] in "\"'" and inner[-1:] == inner[:1] and len(inner) >= 2:
                segs.append(Key(inner[1:-1]))
            elif inner.startswith("?"):
                m = re.fullmatch(r"\?\s*([^=!]+?)\s*(!?=)\s*(.*)", inner)
                if not m:
                    raise PathError(f"bad filter '[{inner}]' in '{path}': use [?field=value]")
                value = m.group(3).strip()
                if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
                    value = value[1:-1]
                segs.append(Filter(parse(m.group(1)), value, m.group(2) == "!="))
            else:
                raise PathError(f"bad segment '[{inner}]' in '{path}' at {i}")
            i = end + 1
            continue
        m = _NAME.match(path, i)
        if not m:
            raise PathError(f"unexpected '{ch}' in '{path}' at {i}")
        segs.append(Key(m.group(0)))
        i = m.end()
    return tuple(segs)


def _close(path: str, start: int) -> int:
    quote = None
    depth = 0
    for j in range(start + 1, len(path)):
        c = path[j]
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            if depth == 0:
                return j
            depth -= 1
    raise PathError(f"unclosed '[' in '{path}' at {start}")


def _as_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def select(data: Any, segs: tuple[Segment, ...]) -> list[Any]:
    """Every value the path reaches (missing keys simply yield nothing)."""
    current = [data]
    for seg in segs:
        nxt: list[Any] = []
        for v in current:
            if isinstance(seg, Key):
                if isinstance(v, dict) and seg.name in v:
                    nxt.append(v[seg.name])
            elif isinstance(seg, Index):
                if isinstance(v, list) and -len(v) <= seg.n < len(v):
                    nxt.append(v[seg.n])
            elif isinstance(seg, Wild):
                if isinstance(v, list):
                    nxt.extend(v)
                elif isinstance(v, dict):
                    nxt.extend(v.values())
            else:
                items = v if isinstance(v, list) else list(v.values()) if isinstance(v, dict) else []
                for item in items:
                    hit = any(_as_text(x) == seg.value for x in select(item, seg.path))
                    if hit != seg.negate:
                        nxt.append(item)
        current = nxt
    return current

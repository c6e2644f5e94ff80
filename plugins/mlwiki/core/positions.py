"""Parse JSON and YAML while remembering where every key and item starts.

text -> (value, Positions) where Positions maps a path such as ``("steps", 2, "action")``
to the 1-based (line, column) of that key (or list item) in the file. Schema errors and
cross-reference checks use it to point at the exact line.
"""

from __future__ import annotations

import json
import re
from typing import Any, Union

import yaml

PathKey = tuple[Union[str, int], ...]
Positions = dict[PathKey, tuple[int, int]]


class ParseError(Exception):
    """A syntax error with a 1-based line and column inside the parsed text."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


# --- JSON -------------------------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        import bisect

        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1


def _duplicate_key_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key '{key}'")
        out[key] = value
    return out


def parse_json(text: str) -> tuple[Any, Positions]:
    """Parse a JSON document; raise :class:`ParseError` with line and column on bad syntax."""
    try:
        value = json.loads(text, object_pairs_hook=_duplicate_key_hook)
    except json.JSONDecodeError as exc:
        raise ParseError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise ParseError(str(exc), 1, 1) from None
    index = _LineIndex(text)
    positions: Positions = {}
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        m = _WS.match(text, i)
        return m.end() if m else i

    def walk(i: int, path: PathKey) -> int:
        i = skip(i)
        ch = text[i]
        if ch == "{":
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            while True:
                i = skip(i)
                key_pos = i
                key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                positions[path + (key,)] = index.at(key_pos)
                i = skip(i)
                i = walk(i + 1, path + (key,))  # skip ':'
                i = skip(i)
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        if ch == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            n = 0
            while True:
                i = skip(i)
                positions[path + (n,)] = index.at(i)
                i = walk(i, path + (n,))
                i = skip(i)
                n += 1
                if text[i] == ",":
                    i += 1
                    continue
                return i + 1
        if ch == '"':
            _, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            return int(end)
        m = _NUMBER.match(text, i)
        if m and m.end() > i:
            return m.end()
        _, end = decoder.raw_decode(text, i)
        return int(end)

    positions[()] = (1, 1)
    walk(0, ())
    return value, positions


# --- YAML -------------------------------------------------------------------------------


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster


class _UniqueKeyLoader(_BaseLoader):  # type: ignore[misc]
    """Safe loader that rejects duplicate keys instead of silently keeping the last one."""


def _construct_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_yaml(text: str, line_offset: int = 0) -> tuple[Any, Positions]:
    """Parse a YAML mapping; lines are reported ``line_offset`` lines further down the file."""
    try:
        loader = _UniqueKeyLoader(text)
        try:
            node = loader.get_single_node()
            value = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 if mark else 1) + line_offset
        col = mark.column + 1 if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.problem and exc.context and exc.context_mark is not None:
            problem += f" ({exc.context} started at line {exc.context_mark.line + 1 + line_offset})"
        raise ParseError(f"invalid YAML: {problem}", line, col) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}", 1 + line_offset, 1) from None
    positions: Positions = {(): (1 + line_offset, 1)}

    def walk(n: yaml.Node, path: PathKey) -> None:
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else str(k)
                positions[path + (key,)] = (k.start_mark.line + 1 + line_offset, k.start_mark.column + 1)
                walk(v, path + (key,))
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                positions[path + (i,)] = (item.start_mark.line + 1 + line_offset, item.start_mark.column + 1)
                walk(item, path + (i,))

    if node is not None:
        walk(node, ())
    return value, positions


def position_of(positions: Positions, path: PathKey) -> tuple[int, int]:
    """Position of ``path``, or of its nearest ancestor that has one."""
    p = tuple(path)
    while p:
        if p in positions:
            return positions[p]
        p = p[:-1]
    return positions.get((), (1, 1))

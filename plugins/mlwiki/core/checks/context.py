"""Shared, computed-once inputs of the checks (schemas; placeholders of every action)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlwiki.core.model import Action, Wiki
from mlwiki.core.schema import SchemaSet

TEMPLATE_REF = re.compile(r"\{(?:([a-z0-9][a-z0-9-]*)\.)?([a-z][a-z0-9_]*)\}")


def action_texts(action: Action) -> list[tuple[tuple[str | int, ...], str]]:
    """(position path, text) of every string of an action that may hold ``{placeholders}``."""
    out: list[tuple[tuple[str | int, ...], str]] = [(("command", i), a) for i, a in enumerate(action.command)]
    if action.prompt:
        out.append((("prompt",), action.prompt))
    if action.instructions:
        out.append((("instructions",), action.instructions))
    return out


@dataclass
class CheckContext:
    schemas: SchemaSet

    @staticmethod
    def for_wiki(wiki: Wiki) -> CheckContext:
        return CheckContext(schemas=SchemaSet(wiki.root / "schema"))

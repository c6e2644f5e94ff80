"""Small HTML helpers: escaping and attribute building."""

from __future__ import annotations

import html


def esc(value: object) -> str:
    """Escape any value for HTML text or a double-quoted attribute."""
    return html.escape(str(value), quote=True)


def attrs(**values: object) -> str:
    """``key="value"`` pairs, escaped; ``data_x`` becomes ``data-x``; None is skipped."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        parts.append(f'{name}="{esc(value)}"')
    return " ".join(parts)

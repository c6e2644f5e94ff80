"""Diagnostics are data: checks yield them, only adapters print or log them."""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Location:
    """A place in a wiki file: path relative to the wiki's parent, 1-based line and column."""

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    location: Location
    severity: Severity = Severity.ERROR
    hint: str = ""

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.code, self.message)

    @property
    def full_message(self) -> str:
        return f"{self.message}; {self.hint}" if self.hint else self.message

    def format_text(self) -> str:
        """One format everywhere: ``file:line:col: CODE message``."""
        return f"{self.location}: {self.code} {self.full_message}"

    def as_json(self) -> dict[str, object]:
        return {
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.full_message,
        }


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return a ``did you mean 'x'?`` hint, or an empty string."""
    pool = sorted(candidates)
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""

"""Pure-Python core: load the wiki once into typed objects, check it, index it.

Never imports mkdocs or markdown. Adapters (linter CLI, MkDocs plugin, runner, query CLI)
call :func:`load` and :func:`check`.
"""

from __future__ import annotations

from mlwiki.core.checks import check
from mlwiki.core.diagnostics import Diagnostic, Location, Severity
from mlwiki.core.loader import load
from mlwiki.core.model import Action, Page, Signature, Step, Symptom, Wiki, Workflow

__all__ = [
    "Action",
    "Diagnostic",
    "Location",
    "Page",
    "Severity",
    "Signature",
    "Step",
    "Symptom",
    "Wiki",
    "Workflow",
    "check",
    "load",
]

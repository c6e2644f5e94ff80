"""What every run shares: exit codes, errors, options, and finding an action or workflow."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

from mlwiki.core.checks import check
from mlwiki.core.diagnostics import Diagnostic, Severity, did_you_mean
from mlwiki.core.model import Action, Wiki, Workflow
from mlwiki.runner.target import Target

T = TypeVar("T")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")

# Exit codes, documented in the runner's --help.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_APPROVAL, EXIT_MISSING, EXIT_TIMEOUT, EXIT_STOPPED = (
    0,
    1,
    2,
    3,
    4,
    5,
    10,
)


class MissingInput(Exception):
    """A step needs a value an earlier step did not produce: the workflow stops there."""

    def __init__(self, step: str, param: str, ref: str) -> None:
        super().__init__(f"step '{step}' needs '{ref}' for parameter '{param}', but no earlier step produced it")
        self.step, self.param, self.ref = step, param, ref


class RunnerError(Exception):
    """A problem the user must fix before anything runs; exit code 2."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Options:
    dry_run: bool = False
    approve: bool = False
    ask: Callable[[str], bool] | None = None
    runs_dir: Path | None = None
    out: Callable[[str], None] = field(default=lambda s: print(s))
    target: Target | None = None  # resolved once per run; None in library use without a CLI
    expected_cluster: str | None = None  # --cluster, or the run's cluster_name parameter
    # No access (--offline): never run a command; stop at each command step with the exact
    # command for the user to run, and read its saved output (--output STEP=FILE) on resume.
    offline: bool = False
    given_outputs: Mapping[str, str] = field(default_factory=dict)


def check_id(kind: str, value: str) -> None:
    if not ID_RE.match(value):
        raise RunnerError(
            f"{kind} id {json.dumps(value)} is not valid: ids are lower-case letters, digits and '-' only"
        )


def _find(wiki: Wiki, kind: str, table: Mapping[str, T], page_id: str) -> T:
    """Look up an action or workflow by id: the id is checked before anything is read. A page
    of that id that failed its schema has no typed record: its errors are the answer."""
    check_id(kind, page_id)
    found = table.get(page_id)
    if found is None:
        page = wiki.pages.get(page_id)
        if page is not None and page.kind == kind and page.errors:
            _refuse(page.rel, list(page.errors))
        hint = did_you_mean(page_id, table)
        raise RunnerError(f"unknown {kind} '{page_id}'" + (f"; {hint}" if hint else ""))
    return found


def find_action(wiki: Wiki, action_id: str) -> Action:
    return _find(wiki, "action", wiki.actions, action_id)


def _refuse(rel: str, errors: list[Diagnostic]) -> None:
    listed = "\n  ".join(d.format_text() for d in errors[:10])
    raise RunnerError(f"{rel} has lint errors; fix them before running it:\n  {listed}")


def refuse_if_invalid(wiki: Wiki, rel: str) -> None:
    errors = [d for d in check(wiki) if d.location.file == rel and d.severity == Severity.ERROR]
    if errors:
        _refuse(rel, errors)


def quote_argv(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)



def find_workflow(wiki: Wiki, wf_id: str) -> Workflow:
    return _find(wiki, "workflow", wiki.workflows, wf_id)

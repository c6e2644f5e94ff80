"""Run one action or a whole workflow: the logic behind ``python_glue_runner.py``.

Action (:mod:`.actions`): id check -> lookup -> lint errors of that file refuse -> parameters
validated -> mode: command (right cluster, approval gate, dry run, run, summary) | ai (prompt
package) | manual (instructions). Workflow (:mod:`.workflows`): parameters -> steps in order,
each step's ``with`` filled from workflow parameters and earlier summaries -> branches -> stop at
ai/manual/approval steps with the exact resume command. Shared pieces: :mod:`.common`.
"""

from __future__ import annotations

import sys
from typing import Callable

from mlwiki.runner.actions import Outcome, approval_texts, prompt_package, run_action
from mlwiki.runner.common import (
    EXIT_APPROVAL,
    EXIT_FAILED,
    EXIT_MISSING,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    MissingInput,
    Options,
    RunnerError,
    check_id,
    find_action,
    find_workflow,
    quote_argv,
    refuse_if_invalid,
)
from mlwiki.runner.workflows import read_given_output, resume_command, run_workflow, state_path, step_values


def default_ask() -> Callable[[str], bool] | None:
    """Interactive yes/no on a terminal; None when not on a TTY (approval then needs --approve)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        sys.stderr.write(question + " [y/N] ")
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return ask


__all__ = [
    "EXIT_APPROVAL",
    "EXIT_FAILED",
    "EXIT_MISSING",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_TIMEOUT",
    "EXIT_USAGE",
    "MissingInput",
    "Options",
    "Outcome",
    "RunnerError",
    "approval_texts",
    "check_id",
    "default_ask",
    "find_action",
    "find_workflow",
    "prompt_package",
    "quote_argv",
    "read_given_output",
    "refuse_if_invalid",
    "resume_command",
    "run_action",
    "run_workflow",
    "state_path",
    "step_values",
]

"""Run one action: parameters (with dry-run holes), mode, the approval gate and the right
cluster, the run itself and its audit record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mlwiki.core.approval import needs_approval, state_change
from mlwiki.core.commands import hole_names, runner_command
from mlwiki.core.model import Action, Wiki
from mlwiki.core.params import ParameterError
from mlwiki.runner.argv import build_argv, fill_text, validate, validate_with
from mlwiki.runner.audit import RunLog
from mlwiki.runner.common import (
    EXIT_APPROVAL,
    EXIT_FAILED,
    EXIT_MISSING,
    EXIT_OK,
    EXIT_TIMEOUT,
    Options,
    RunnerError,
    quote_argv,
)
from mlwiki.runner.execute import run_argv
from mlwiki.runner.target import cluster_mismatch, with_target


def prompt_package(action: Action, values: Mapping[str, str], context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "action": action.id,
        "mode": "ai",
        "prompt": fill_text(action.prompt, values),
        "parameters": dict(values),
        "context": dict(context),
        "return_fields": [{"name": f.name, "description": f.description} for f in action.summary_fields],
    }


def _partial(action: Action, given: Mapping[str, Any], holes: list[str]) -> dict[str, str]:
    """Validate the values a dry run was given; each hole fills as ``<name>`` (never run)."""
    relaxed = {n: (replace(p, required=False) if n in holes else p) for n, p in action.parameters.items()}
    values = validate_with(action, relaxed, {k: v for k, v in given.items() if k not in holes})
    return {**values, **{n: f"<{n}>" for n in holes}}


def approval_texts(action: Action) -> tuple[str, str]:
    """What the action changes and how to undo it; for a command gated by rule although its page
    says otherwise, the rule's own words (the page's are missing or cannot be trusted)."""
    if action.requires_approval:
        return action.changes, action.undo
    found = state_change(action.command)
    why = found.describe() if found else "state-changing command"
    return (
        f"{why} (gated by the runner's rule although the page does not declare requires_approval)",
        "unknown: the page does not say; fix the page (lint reports MLW039)",
    )


@dataclass
class Outcome:
    code: int
    record: dict[str, Any]


def run_action(
    wiki: Wiki,
    action: Action,
    given: Mapping[str, Any],
    opts: Options,
    context: Mapping[str, Any] | None = None,
    approved: bool | None = None,
) -> Outcome:
    """Run one action; never raises for a failed command, only for bad input (RunnerError).

    A dry run accepts missing required values and ``<name>`` holes (what the site's form shows
    before it is filled): they stay visible as ``<name>`` in the printed command, and the record
    lists them under ``missing``, so one dry run shows everything still to collect."""
    holes = hole_names(action.parameters, given) if opts.dry_run else []
    try:
        values = _partial(action, given, holes) if holes else validate(action, given)
    except ParameterError as exc:
        raise RunnerError(f"{action.id}: {exc}") from None
    approved = opts.approve if approved is None else approved
    if action.execution_mode == "ai":
        pkg = prompt_package(action, values, context or {})
        return Outcome(EXIT_OK, {"status": "ai", **pkg})
    if action.execution_mode == "manual":
        text = fill_text(action.instructions, values)
        return Outcome(EXIT_OK, {"status": "manual", "action": action.id, "instructions": text, "parameters": values})
    argv = build_argv(action, values)
    if opts.target is not None:
        argv = with_target(argv, opts.target)
    record: dict[str, Any] = {
        "action": action.id,
        "argv": argv,
        "command": quote_argv(argv),
        "parameters": values,
    }
    gated = needs_approval(action)
    if opts.dry_run:
        return Outcome(EXIT_OK, {"status": "dry-run", **record, "requires_approval": gated, "missing": holes})
    if gated and opts.target is not None:
        wrong = cluster_mismatch(opts.target, {"cluster_name": opts.expected_cluster, **dict(given)})
        if wrong:
            return Outcome(
                EXIT_APPROVAL,
                {"status": "wrong-context", **record, "message": f"NOTHING WAS RUN: {wrong}"},
            )
    if gated and not approved:
        changes, undo = approval_texts(action)
        where = f"\n{opts.target.describe()}" if opts.target is not None else ""
        question = f"{action.id} changes state: {changes}{where}\nRun `{quote_argv(argv)}`?"
        if not (opts.ask and opts.ask(question)):
            again = runner_command("action", action.id, given, extra=["--approve"])
            return Outcome(
                EXIT_APPROVAL,
                {
                    "status": "needs-approval",
                    **record,
                    "changes": changes,
                    "undo": undo,
                    "message": f"NOTHING WAS RUN: '{action.id}' changes state and needs approval. "
                    f"Check the command above, then re-run with --approve: {again}",
                },
            )
    log = RunLog(opts.runs_dir) if opts.runs_dir else None
    if log is None:
        from mlwiki.runner.audit import default_runs_dir

        log = RunLog(default_runs_dir())
    run_id = log.new_run_id(action.id)
    out_path = log.output_path(run_id)
    target = opts.target.as_json() if opts.target is not None else None
    log.append("started", run_id, action=action.id, argv=argv, parameters=values, target=target)
    try:
        result = run_argv(action, argv, out_path, float(action.timeout_s))
    except KeyboardInterrupt:
        log.append("interrupted", run_id, action=action.id, argv=argv, parameters=values, output_path=str(out_path))
        raise
    log.append(
        "finished",
        run_id,
        action=action.id,
        argv=argv,
        parameters=values,
        exit_code=result.exit_code,
        duration_s=round(result.duration_s, 3),
        status=result.status,
        summary=result.summary,
        output_path=result.output_path,
        message=result.message,
    )
    code = {"ok": EXIT_OK, "missing-executable": EXIT_MISSING, "timeout": EXIT_TIMEOUT}.get(result.status, EXIT_FAILED)
    return Outcome(code, {**result.as_json(), "command": quote_argv(argv), "run_id": run_id, "parameters": values})


# --- workflows ----------------------------------------------------------------------------

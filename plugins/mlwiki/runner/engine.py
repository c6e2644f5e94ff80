"""Run one action or a whole workflow: the logic behind ``python_glue_runner.py``.

Action: id check -> lookup -> lint errors of that file refuse -> parameters validated -> mode:
command (approval gate, dry run, run, summary) | ai (prompt package) | manual (instructions).
Workflow: parameters -> steps in order, each step's ``with`` filled from workflow parameters and
earlier summaries -> branches -> stop at ai/manual/approval steps with the exact resume command.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, TypeVar

from mlwiki.core.approval import needs_approval, state_change
from mlwiki.core.checks import check
from mlwiki.core.commands import runner_command
from mlwiki.core.diagnostics import Diagnostic, Severity, did_you_mean
from mlwiki.core.model import Action, Parameter, Step, Wiki, Workflow
from mlwiki.core.params import STEP_TEMPLATE, ParameterError, check_value, resolve_values
from mlwiki.runner.argv import build_argv, fill_text, validate, validate_with
from mlwiki.runner.audit import RunLog
from mlwiki.runner.execute import run_argv
from mlwiki.runner.target import Target, cluster_mismatch, with_target

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


def prompt_package(action: Action, values: Mapping[str, str], context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "action": action.id,
        "mode": "ai",
        "prompt": fill_text(action.prompt, values),
        "parameters": dict(values),
        "context": dict(context),
        "return_fields": [{"name": f.name, "description": f.description} for f in action.summary_fields],
    }


def _holes(action: Action, given: Mapping[str, Any]) -> list[str]:
    """Parameters a dry run shows as ``<name>``: given as that very hole, or required and missing."""
    return [
        n
        for n, p in action.parameters.items()
        if given.get(n) == f"<{n}>" or (n not in given and p.required and p.default is None)
    ]


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
    holes = _holes(action, given) if opts.dry_run else []
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


def find_workflow(wiki: Wiki, wf_id: str) -> Workflow:
    return _find(wiki, "workflow", wiki.workflows, wf_id)


def _coerce(p: Parameter | None, value: Any) -> Any:
    if isinstance(value, list):
        value = value[0] if value else None
    if p is None or value is None:
        return value
    if p.type == "integer" and isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    if p.type == "boolean" and isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if p.type == "string" and not isinstance(value, str):
        return (
            json.dumps(value)
            if isinstance(value, (dict, list))
            else ("true" if value is True else "false" if value is False else str(value))
        )
    return value


def step_values(
    step: Step,
    action: Action | None,
    params: Mapping[str, str],
    outputs: Mapping[str, Any],
    placeholder: bool,
) -> dict[str, Any]:
    """Fill a step's ``with`` templates. Unknown outputs raise, or show as <step.field> in dry runs."""
    out: dict[str, Any] = {}
    for name, template in step.with_.items():
        if not isinstance(template, str):
            out[name] = template
            continue
        whole = STEP_TEMPLATE.fullmatch(template)
        missing: list[str] = []

        def lookup(ref_step: str | None, ref: str) -> Any:
            if ref_step is None:
                return params.get(ref)
            return outputs.get(ref_step, {}).get(ref)

        if whole:
            value = lookup(whole.group(1), whole.group(2))
            if value is None or value == []:
                missing.append(template.strip("{}"))
        else:
            parts: list[str] = []
            pos = 0
            for m in STEP_TEMPLATE.finditer(template):
                v = lookup(m.group(1), m.group(2))
                parts.append(template[pos : m.start()])
                if v is None or v == []:
                    missing.append(m.group(0).strip("{}"))
                    parts.append(m.group(0))
                else:
                    parts.append(str(v[0] if isinstance(v, list) else v))
                pos = m.end()
            parts.append(template[pos:])
            value = "".join(parts)
        if missing:
            if placeholder:
                out[name] = f"<{missing[0]}>"
                continue
            param = action.parameters.get(name) if action else None
            if param is None or not param.required or param.default is not None:
                continue  # optional: leave it out and let the action's default apply
            if action and action.execution_mode != "command" and whole and whole.group(1):
                ref_step = whole.group(1)
                out[name] = f"(no value: step '{ref_step}' returned nothing for '{whole.group(2)}')"
                continue
            raise MissingInput(step.id, name, missing[0])
        if action and action.execution_mode != "command" and isinstance(value, list):
            value = "\n".join(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in value)
        out[name] = _coerce(action.parameters.get(name) if action else None, value)
    return out


def _cond(outputs: Mapping[str, Any], field_ref: str, op: str, want: Any) -> bool:
    step_id, _, name = field_ref.partition(".")
    value = outputs.get(step_id, {}).get(name)
    if op == "empty":
        return value in (None, "", [], {}, 0)
    if op == "not_empty":
        return value not in (None, "", [], {}, 0)
    if op == "contains":
        if isinstance(value, list):
            return any(str(want) in str(v) for v in value)
        return str(want) in str(value or "")
    if op in ("greater_than", "less_than"):
        try:
            a = float(len(value) if isinstance(value, list) else value)
            b = float(want)
        except (TypeError, ValueError):
            return False
        return a > b if op == "greater_than" else a < b
    text = str(value[0] if isinstance(value, list) and len(value) == 1 else value)
    if isinstance(value, bool):
        text = "true" if value else "false"
    return (text == str(want)) if op == "equals" else (text != str(want))


def state_path(runs_dir: Path, wf: Workflow, params: Mapping[str, str]) -> Path:
    digest = hashlib.sha256(json.dumps(dict(params), sort_keys=True).encode()).hexdigest()[:12]
    return runs_dir / "workflow-state" / f"{wf.id}-{digest}.json"


def _save_state(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def resume_command(wf: Workflow, given: Mapping[str, Any], step_id: str, extra: str = "") -> str:
    return runner_command("workflow", wf.id, given, from_step=step_id, extra=[extra])


def run_workflow(
    wiki: Wiki,
    wf: Workflow,
    given: Mapping[str, Any],
    opts: Options,
    from_step: str | None = None,
    sets: Mapping[str, str] | None = None,
) -> Outcome:
    holes: list[str] = []
    if opts.dry_run:
        # A dry run shows missing values as <name> holes instead of stopping at the first one.
        holes = [
            n
            for n, p in wf.parameters.items()
            if given.get(n) == f"<{n}>" or (n not in given and p.required and p.default is None)
        ]
    try:
        relaxed = {n: (replace(p, required=False) if n in holes else p) for n, p in wf.parameters.items()}
        params = resolve_values(relaxed, {k: v for k, v in given.items() if k not in holes})
    except ParameterError as exc:
        raise RunnerError(f"{wf.id}: {exc}") from None
    params.update({n: f"<{n}>" for n in holes})
    from mlwiki.runner.audit import default_runs_dir

    runs_dir = opts.runs_dir or default_runs_dir()
    spath = state_path(runs_dir, wf, params)
    outputs: dict[str, Any] = {}
    start = 0
    if from_step is not None:
        step = wf.step(from_step)
        if step is None:
            hint = did_you_mean(from_step, [s.id for s in wf.steps])
            raise RunnerError(f"workflow '{wf.id}' has no step '{from_step}'" + (f"; {hint}" if hint else ""))
        start = step.index
        if spath.is_file():
            outputs = json.loads(spath.read_text(encoding="utf-8")).get("outputs", {})
    for ref, value in (sets or {}).items():
        sid, _, fname = ref.partition(".")
        if not fname or wf.step(sid) is None:
            raise RunnerError(f"--set {ref}=...: expected STEP.FIELD with a step of '{wf.id}'")
        outputs.setdefault(sid, {})[fname] = value
    records: list[dict[str, Any]] = []
    i = start
    code = EXIT_OK
    stop: dict[str, Any] | None = None
    while i < len(wf.steps):
        step = wf.steps[i]
        action = wiki.actions.get(step.action)
        if action is None:
            raise RunnerError(f"step '{step.id}' names unknown action '{step.action}'")
        try:
            values = step_values(step, action, params, outputs, placeholder=opts.dry_run)
        except MissingInput as exc:
            stop = {
                "at": step.id,
                "reason": "missing-input",
                "message": str(exc),
                "continue": resume_command(wf, given, step.id, f"--set {exc.ref}=VALUE"),
            }
            code = EXIT_STOPPED
            break
        first = i == start
        if opts.dry_run:
            rec = _dry_step(wiki, action, values, opts.target)
            records.append({"step": step.id, **rec})
            i += 1
            continue
        if action.execution_mode in ("ai", "manual"):
            if first and from_step == step.id and sets and step.id in {k.partition(".")[0] for k in sets}:
                # Resuming with the answer of this ai/manual step: it is done; branch on its answer.
                records.append(
                    {"step": step.id, "action": action.id, "status": "answered", "summary": outputs[step.id]}
                )
                _save_state(spath, {"workflow": wf.id, "parameters": params, "outputs": outputs})
                i = _next_index(wf, step, outputs)
                continue
            outcome = run_action(wiki, action, values, opts, context=outputs)
            records.append({"step": step.id, **outcome.record})
            fields = " ".join(f"--set {step.id}.{f.name}=VALUE" for f in action.summary_fields)
            if fields:
                cont = resume_command(wf, given, step.id, fields)
            else:
                nxt = _next_index(wf, step, outputs)
                cont = resume_command(wf, given, wf.steps[nxt].id) if nxt < len(wf.steps) else ""
            stop = {"at": step.id, "reason": action.execution_mode, "continue": cont}
            code = EXIT_STOPPED
            break
        outcome = run_action(wiki, action, values, opts, approved=opts.approve and first)
        records.append({"step": step.id, **outcome.record})
        if outcome.record.get("status") == "wrong-context":
            stop = {"at": step.id, "reason": "wrong-context", "message": outcome.record["message"]}
            code = EXIT_STOPPED
            break
        if outcome.code == EXIT_APPROVAL:
            stop = {
                "at": step.id,
                "reason": "approval",
                "continue": resume_command(wf, given, step.id, "--approve"),
            }
            code = EXIT_STOPPED
            break
        if outcome.code != EXIT_OK:
            nxt = step.index + 1
            stop = {
                "at": step.id,
                "reason": "failed",
                "continue": resume_command(wf, given, step.id),
                "skip": resume_command(wf, given, wf.steps[nxt].id) if nxt < len(wf.steps) else "",
            }
            code = outcome.code
            break
        outputs[step.id] = outcome.record.get("summary", {})
        _save_state(spath, {"workflow": wf.id, "parameters": params, "outputs": outputs})
        i = _next_index(wf, step, outputs)
    _save_state(spath, {"workflow": wf.id, "parameters": params, "outputs": outputs}) if not opts.dry_run else None
    return Outcome(
        code,
        {
            "workflow": wf.id,
            "parameters": params,
            "steps": records,
            "stopped": stop,
            "status": "dry-run" if opts.dry_run else ("stopped" if stop else "complete"),
            "missing": holes,
        },
    )


def _next_index(wf: Workflow, step: Step, outputs: Mapping[str, Any]) -> int:
    order = {s.id: s.index for s in wf.steps}
    for b in step.branches:
        if _cond(outputs, b.when.field, b.when.op, b.when.value):
            return len(wf.steps) if b.goto == "end" else order[b.goto]
    if step.next == "end":
        return len(wf.steps)
    if step.next:
        return order[step.next]
    return step.index + 1


def _dry_step(wiki: Wiki, action: Action, values: Mapping[str, Any], target: Target | None = None) -> dict[str, Any]:
    """Dry-run view of a step: placeholders for values only a real run would know."""
    if action.execution_mode != "command":
        return {"action": action.id, "status": f"{action.execution_mode} step (runs nothing)"}
    shown = {k: v for k, v in values.items() if not (isinstance(v, str) and v.startswith("<"))}
    pending = {k: v for k, v in values.items() if k not in shown}
    checked: dict[str, str] = {}
    for name, value in shown.items():
        p = action.parameters.get(name)
        if p is None:
            raise RunnerError(f"{action.id}: parameter '{name}' is not a parameter of this action")
        try:
            checked[name] = check_value(p, value)
        except ParameterError as exc:
            raise RunnerError(f"{action.id}: {exc}") from None
    merged = {**{k: str(v) for k, v in pending.items()}, **checked}
    for name, p in action.parameters.items():
        if name not in merged and p.default is not None:
            merged[name] = str(p.default)
    from mlwiki.runner.argv import fill

    argv = []
    for t in action.command:
        try:
            a = fill(t, merged)
        except ParameterError:
            a = t  # partly filled: shown as its template
        if a is not None:
            argv.append(a)
    if target is not None:
        argv = with_target(argv, target)
    return {
        "action": action.id,
        "status": "dry-run",
        "argv": argv,
        "command": quote_argv(argv),
        "requires_approval": needs_approval(action),
    }


def default_ask() -> Callable[[str], bool] | None:
    """Interactive yes/no on a terminal; None when not on a TTY (approval then needs --approve)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        sys.stderr.write(question + " [y/N] ")
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return ask

"""Walk a workflow: fill each step's parameters from the workflow's and earlier steps' results,
branch, stop at ai/manual/approval steps with the exact resume command, and resume."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from mlwiki.core.approval import needs_approval
from mlwiki.core.commands import hole_names, runner_command
from mlwiki.core.diagnostics import did_you_mean
from mlwiki.core.model import Action, Parameter, Step, Wiki, Workflow
from mlwiki.core.params import STEP_TEMPLATE, ParameterError, check_value, resolve_values
from mlwiki.runner.actions import Outcome, run_action
from mlwiki.runner.common import (
    EXIT_APPROVAL,
    EXIT_OK,
    EXIT_STOPPED,
    MissingInput,
    Options,
    RunnerError,
    quote_argv,
)
from mlwiki.runner.summary import OutputError, extract
from mlwiki.runner.target import Target, with_target


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
    # A dry run shows missing values as <name> holes instead of stopping at the first one.
    holes = hole_names(wf.parameters, given) if opts.dry_run else []
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
        if opts.offline:
            # No access: the user runs the command and hands back its output; nothing runs here.
            view = _dry_step(wiki, action, values, opts.target)
            path = opts.given_outputs.get(step.id)
            if path is None:
                gated = needs_approval(action)
                records.append({"step": step.id, **view, "status": "needs-output", "requires_approval": gated})
                stop = {
                    "at": step.id,
                    "reason": "needs-output",
                    "message": f"Run this yourself and save what it prints to a file:\n  {view['command']}"
                    + (f"\nIt CHANGES STATE ({action.changes}); run it only if you mean to. Undo: {action.undo}" if gated else ""),
                    "continue": resume_command(wf, given, step.id, f"--output {step.id}=FILE"),
                }
                code = EXIT_STOPPED
                break
            summary = read_given_output(action, step.id, path)
            records.append({"step": step.id, "action": action.id, "status": "given", "command": view["command"],
                            "output_path": path, "summary": summary})  # fmt: skip
            outputs[step.id] = summary
            _save_state(spath, {"workflow": wf.id, "parameters": params, "outputs": outputs})
            i = _next_index(wf, step, outputs)
            continue
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
    if stop and opts.offline and stop.get("continue"):
        stop["continue"] += " --offline"
        if stop.get("skip"):
            stop["skip"] += " --offline"
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


def read_given_output(action: Action, step_id: str, path: str) -> dict[str, Any]:
    """The summary of a command's output that the user ran by hand and saved to ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RunnerError(f"--output {step_id}={path}: cannot read it ({exc.strerror or exc})") from None
    try:
        return extract(action, text)
    except OutputError as exc:
        raise RunnerError(f"--output {step_id}={path}: {exc}") from None


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

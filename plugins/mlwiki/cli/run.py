"""The glue runner CLI (``scripts/python_glue_runner.py``).

    python3 scripts/python_glue_runner.py ACTION '{"param": "value"}' [--dry-run] [--approve] [--json]
    python3 scripts/python_glue_runner.py --workflow WF '{"param": "value"}' [--from STEP] [--set STEP.FIELD=V]
    python3 scripts/python_glue_runner.py --list

Exit codes: 0 ok, 1 the command failed, 2 bad input, 3 approval needed, 4 executable missing,
5 timeout, 10 workflow stopped at an ai, manual or approval step, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mlwiki.cli.common import default_wiki_dir
from mlwiki.core import load
from mlwiki.core.approval import needs_approval
from mlwiki.core.commands import required_names, runner_command
from mlwiki.core.loader import WikiDirError
from mlwiki.core.model import Parameter
from mlwiki.core.window import DEFAULT_MARGIN, WindowError, window
from mlwiki.runner.engine import (
    EXIT_STOPPED,
    EXIT_USAGE,
    Options,
    RunnerError,
    default_ask,
    find_action,
    find_workflow,
    read_given_output,
    refuse_if_invalid,
    run_action,
    run_workflow,
)
from mlwiki.runner.target import TargetError, resolve_target


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python_glue_runner.py",
        description="Run a wiki action or workflow safely: typed parameters, no shell, timeouts, approval gate.",
        epilog="Exit codes: 0 ok, 1 command failed, 2 bad input, 3 approval needed, 4 executable missing, "
        "5 timeout, 10 workflow stopped at an ai/manual/approval step, 130 interrupted.",
    )
    p.add_argument("action", nargs="?", help="action id (wiki/actions/ID.json)")
    p.add_argument("params", nargs="?", default=None, help="parameters as one JSON object")
    p.add_argument("--workflow", metavar="WF", help="run workflow WF instead of a single action")
    p.add_argument("--from", dest="from_step", metavar="STEP", help="resume the workflow at STEP")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="STEP.FIELD=VALUE",
        help="provide a summary field of an ai or manual step when resuming (repeatable)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the exact argv, shell-quoted; run nothing")
    p.add_argument(
        "--offline",
        action="store_true",
        help="no access to the cluster or project: run nothing; stop at each command step with the exact "
        "command for you to run, then resume with --from STEP --output STEP=FILE",
    )
    p.add_argument(
        "--output",
        dest="outputs",
        action="append",
        default=[],
        metavar="STEP=FILE",
        help="with --offline: the saved output of STEP's command (for a single action: FILE), read instead of running it (repeatable)",
    )
    p.add_argument(
        "--evidence-time",
        metavar="TIME",
        help="when the echo was printed (RFC 3339 with a zone): with --timeout, sets start_time/end_time to "
        "[TIME - timeout - margin, TIME + margin]",
    )
    p.add_argument("--timeout", metavar="DURATION", help="the timeout the echo printed, e.g. 600000ms or 30m")
    p.add_argument("--margin", metavar="DURATION", default=None, help="added on both sides of the window (default 10m)")
    p.add_argument("--approve", action="store_true", help="allow an action that changes state to run")
    p.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    p.add_argument("--list", action="store_true", help="list actions and workflows")
    p.add_argument(
        "--context",
        metavar="KUBE_CONTEXT",
        help="kube context for every kubectl step (default: the kubeconfig's current context; "
        'also accepted as "kube_context" in the parameters); printed before the first step',
    )
    p.add_argument(
        "--cluster",
        metavar="NAME",
        help="the cluster you mean to act on: approval-gated steps refuse to run when the kube context "
        "is for another cluster (a workflow's cluster_name parameter counts too)",
    )
    p.add_argument("--wiki", help="wiki directory (default: ./wiki)")
    p.add_argument("--runs-dir", help="runs log directory (default: $MLWIKI_RUNS_DIR or ~/.local/state/mlwiki/runs)")
    return p


def parse_params(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise RunnerError(f'parameters must be one JSON object, e.g. \'{{"namespace": "default"}}\': {exc}') from None
    if not isinstance(value, dict):
        raise RunnerError('parameters must be one JSON object, e.g. \'{"namespace": "default"}\'')
    return value


def _print_record(rec: dict[str, Any], out: Any) -> None:
    status = rec.get("status")
    if status == "dry-run":
        out(f"would run: {rec['command']}")
        if rec.get("missing"):
            out(f"  (still to fill in before a real run: {', '.join(rec['missing'])})")
        if rec.get("requires_approval"):
            out("  (this action changes state: it needs --approve to run)")
    elif status == "ai":
        out(f"AI step '{rec['action']}': runs nothing. Give this prompt package to an agent:")
        out(json.dumps({k: v for k, v in rec.items() if k != "status"}, indent=2, ensure_ascii=False))
    elif status == "manual":
        out(f"Manual step '{rec['action']}': do this by hand, then record what you found:")
        out(rec["instructions"])
    elif status == "needs-approval":
        out(f"NOT RUN (needs --approve): {rec['command']}")
        out(f"changes: {rec.get('changes', '')}")
        out(f"undo: {rec.get('undo', '')}")
        print(rec["message"], file=sys.stderr)
    elif status == "wrong-context":
        out(f"NOT RUN (wrong cluster): {rec['command']}")
        print(rec["message"], file=sys.stderr)
    elif status == "needs-output":
        out(f"NOT RUN (offline): {rec['command']}")
    elif status == "given":
        out(f"$ {rec['command']}")
        out(f"  (output read from {rec['output_path']}, not run here)")
        for name, value in (rec.get("summary") or {}).items():
            out(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    elif status == "answered":
        out(f"{rec['action']}: answered with --set: {json.dumps(rec.get('summary', {}), ensure_ascii=False)}")
    elif status and str(status).endswith("(runs nothing)"):
        out(f"{rec['action']}: {status}")
    else:
        out(f"$ {rec.get('command', '')}")
        code = rec.get("exit_code")
        out(f"status {status}, exit {code}, {rec.get('duration_s', 0)} s")
        if rec.get("message"):
            print(f"{rec['action']}: {rec['message']}", file=sys.stderr)
        for name, value in (rec.get("summary") or {}).items():
            out(f"  {name}: {json.dumps(value, ensure_ascii=False)}")


def _target(
    opts: Options, wiki: Any, action_ids: list[str], params: Mapping[str, Any], named: str | None, cluster: str | None
) -> None:
    """Resolve what this run acts on, once, and say it before anything runs (on stderr, so
    --json output stays one object)."""
    commands = [wiki.actions[a].command for a in action_ids if a in wiki.actions and wiki.actions[a].command]
    if not commands and not named:
        return  # ai and manual steps only: nothing acts on a cluster
    try:
        opts.target = resolve_target(
            named,
            params,
            needs_kubectl=any(c[:1] == ("kubectl",) for c in commands),
            needs_gcloud=any(c[:1] == ("gcloud",) for c in commands),
        )
    except TargetError as exc:
        raise RunnerError(str(exc)) from None
    opts.expected_cluster = cluster or (params.get("cluster_name") if isinstance(params.get("cluster_name"), str) else None)
    print(opts.target.describe(), file=sys.stderr)


def _window(args: Any, params: dict[str, Any], declared: Mapping[str, Parameter]) -> None:
    """--evidence-time and --timeout: derive start_time/end_time from the echo, not a clock."""
    if args.evidence_time is None and args.timeout is None:
        if args.margin is not None:
            raise RunnerError("--margin applies only with --evidence-time and --timeout")
        return
    if args.evidence_time is None or args.timeout is None:
        raise RunnerError("--evidence-time and --timeout go together: the window is TIME - timeout - margin .. TIME + margin")
    if not {"start_time", "end_time"} <= set(declared):
        raise RunnerError("--evidence-time: this action or workflow has no start_time/end_time parameters")
    for name in ("start_time", "end_time"):
        if name in params:
            raise RunnerError(f"--evidence-time derives {name}; do not also give it in the parameters")
    try:
        start, end = window(args.evidence_time, args.timeout, args.margin or DEFAULT_MARGIN)
    except WindowError as exc:
        raise RunnerError(str(exc)) from None
    params["start_time"], params["end_time"] = start, end
    print(
        f"window {start} .. {end}: evidence {args.evidence_time} minus timeout {args.timeout} minus margin "
        f"{args.margin or DEFAULT_MARGIN}, to evidence plus margin",
        file=sys.stderr,
    )


def _offline_action(
    wiki: Any, action: Any, params: Mapping[str, Any], opts: Options, outputs: list[str], as_json: bool, out: Any
) -> int:
    """One action without access: the exact command to run by hand; with --output FILE, what
    its saved output says (the action's summary fields)."""
    if len(outputs) > 1 or (outputs and "=" in outputs[0] and not Path(outputs[0]).exists()):
        raise RunnerError("--output for a single action is one FILE (STEP=FILE is for workflows)")
    dry = run_action(wiki, action, params, Options(dry_run=True, target=opts.target))
    if dry.record.get("missing"):
        raise RunnerError(f"{action.id}: missing required parameter(s): {', '.join(dry.record['missing'])}")
    rec: dict[str, Any] = {"action": action.id, "command": dry.record["command"], "requires_approval": needs_approval(action)}
    if outputs:
        rec.update(status="given", output_path=outputs[0], summary=read_given_output(action, "output", outputs[0]))
    else:
        again = runner_command("action", action.id, params, extra=["--offline", "--output", "FILE"])
        rec.update(status="needs-output", message=f"Run this yourself, save what it prints, then: {again}")
    if as_json:
        out(json.dumps(rec, indent=2, ensure_ascii=False, default=str))
    else:
        _print_record(rec, out)
        if rec.get("message"):
            out(rec["message"])
    return 0 if outputs else EXIT_STOPPED


def _required(params: Mapping[str, Parameter]) -> str:
    return ", ".join(required_names(params)) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `--list | head`: the reader went away; say nothing more and exit like other CLI tools.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = print
    try:
        if args.workflow and args.action and args.params is None:
            args.params, args.action = args.action, None
        if not args.list and not args.workflow and not args.action:
            _parser().print_usage(sys.stderr)
            print("python_glue_runner.py: error: give an ACTION id, --workflow WF, or --list", file=sys.stderr)
            return EXIT_USAGE
        try:
            wiki = load(args.wiki or default_wiki_dir())
        except WikiDirError as exc:
            raise RunnerError(str(exc)) from None
        if args.list:
            for a in wiki.actions.values():
                flag = " [needs --approve]" if needs_approval(a) else ""
                out(f"action   {a.id}: {a.page.title} ({a.execution_mode}){flag}")
                out(f"         required: {_required(a.parameters)}")
            for w in wiki.workflows.values():
                out(f"workflow {w.id}: {w.page.title} ({len(w.steps)} steps)")
                out(f"         required: {_required(w.parameters)}")
            return 0
        if args.offline and (args.dry_run or args.approve):
            raise RunnerError("--offline runs nothing: it cannot be combined with --dry-run or --approve")
        if args.outputs and not args.offline:
            raise RunnerError("--output is read only with --offline (you ran the command yourself)")
        opts = Options(
            dry_run=args.dry_run,
            approve=args.approve,
            ask=None if args.json else default_ask(),
            runs_dir=Path(args.runs_dir) if args.runs_dir else None,
            offline=args.offline,
        )
        params = parse_params(args.params)
        page = find_workflow(wiki, args.workflow) if args.workflow else find_action(wiki, args.action)
        _window(args, params, page.parameters)
        named = params.pop("kube_context", None)
        if named is not None and not isinstance(named, str):
            raise RunnerError("parameter 'kube_context' must be a string (a context name from kubectl config get-contexts)")
        named = args.context or named
        if args.workflow:
            wf = find_workflow(wiki, args.workflow)
            refuse_if_invalid(wiki, wf.page.rel)
            _target(opts, wiki, [s.action for s in wf.steps], params, named, args.cluster)
            given_outputs = {}
            for item in args.outputs:
                step, sep, path = item.partition("=")
                if not sep or not step or not path or wf.step(step) is None:
                    raise RunnerError(f"--output {item!r}: expected STEP=FILE with a step of '{wf.id}'")
                given_outputs[step] = path
            opts.given_outputs = given_outputs
            sets = {}
            for item in args.sets:
                key, sep, value = item.partition("=")
                if not sep:
                    raise RunnerError(f"--set {item!r}: expected STEP.FIELD=VALUE")
                sets[key] = value
            outcome = run_workflow(wiki, wf, params, opts, from_step=args.from_step, sets=sets)
            outcome.record["target"] = opts.target.as_json() if opts.target else None
            if args.json:
                out(json.dumps(outcome.record, indent=2, ensure_ascii=False, default=str))
            else:
                for rec in outcome.record["steps"]:
                    out(f"== step {rec['step']}: {rec.get('action')}")
                    _print_record(rec, out)
                stop = outcome.record.get("stopped")
                if stop:
                    out(f"== stopped at step '{stop['at']}' ({stop['reason']}).")
                    if stop.get("message"):
                        out(stop["message"])
                    if stop.get("continue") and stop.get("reason") == "failed":
                        out(f"Retry this step after fixing the cause:\n  {stop['continue']}")
                        if stop.get("skip"):
                            out(f"Or skip it and go on with the next step:\n  {stop['skip']}")
                    elif stop.get("continue"):
                        out(f"Continue with:\n  {stop['continue']}")
                elif not args.dry_run:
                    out("== workflow complete")
                if args.dry_run and outcome.record.get("missing"):
                    out("== still to fill in before a real run: " + ", ".join(outcome.record["missing"]))
            return outcome.code
        if args.from_step or args.sets:
            raise RunnerError("--from and --set only apply with --workflow")
        action = find_action(wiki, args.action)
        refuse_if_invalid(wiki, action.page.rel)
        _target(opts, wiki, [action.id], params, named, args.cluster)
        if args.offline:
            return _offline_action(wiki, action, params, opts, args.outputs, args.json, out)
        outcome = run_action(wiki, action, params, opts)
        outcome.record["target"] = opts.target.as_json() if opts.target else None
        if args.json:
            out(json.dumps(outcome.record, indent=2, ensure_ascii=False, default=str))
        else:
            _print_record(outcome.record, out)
        return outcome.code
    except RunnerError as exc:
        print(f"python_glue_runner.py: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print(
            "python_glue_runner.py: interrupted; the process group was killed and the run recorded",
            file=sys.stderr,
        )
        return 130

"""Every shipped action dry-runs, every shipped workflow dry-runs and runs end to end against
fake binaries, and every command the site renders is accepted by the runner."""

from __future__ import annotations

import html
import re
import shlex
from pathlib import Path

import pytest

from conftest import fake_calls
from mlwiki.cli.run import main
from mlwiki.core import load
from mlwiki.core.commands import sample_values
from mlwiki.render.page import SiteMap, page_markdown
from mlwiki.runner.engine import EXIT_OK, EXIT_STOPPED, Options, run_workflow
from wikifix import REPO

WIKI = load(REPO / "wiki")


def _json(values: dict[str, object]) -> str:
    import json

    return json.dumps(values)


@pytest.mark.parametrize("action_id", sorted(WIKI.actions))
def test_action_dry_runs_with_examples(action_id: str, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    action = WIKI.actions[action_id]
    code = main([action_id, _json(sample_values(action.parameters)), "--dry-run", "--wiki", str(REPO / "wiki")])
    out = capsys.readouterr()
    assert code == 0, out.err
    if action.execution_mode == "command":
        assert out.out.startswith("would run: ")


@pytest.mark.parametrize("wf_id", sorted(WIKI.workflows))
def test_workflow_dry_runs(wf_id: str, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wf = WIKI.workflows[wf_id]
    code = main(["--workflow", wf_id, _json(sample_values(wf.parameters)), "--dry-run", "--wiki", str(REPO / "wiki")])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize("wf_id", sorted(WIKI.workflows))
def test_workflow_runs_end_to_end(wf_id: str, fake_env: Path) -> None:
    """Drive the workflow as an engineer would: approve approval steps, answer ai/manual steps."""
    wf = WIKI.workflows[wf_id]
    params = sample_values(wf.parameters)
    opts = Options(runs_dir=fake_env / "runs")
    outcome = run_workflow(WIKI, wf, params, opts)
    visited = [r["step"] for r in outcome.record["steps"]]
    for _ in range(len(wf.steps) * 2):
        stop = outcome.record["stopped"]
        if stop is None:
            break
        assert outcome.code == EXIT_STOPPED, outcome.record
        step = wf.step(stop["at"])
        assert step is not None
        action = WIKI.actions[step.action]
        if stop["reason"] == "missing-input":
            # An earlier step found nothing to feed this one (as a real cluster might): supply it.
            ref = re.search(r"--set (\S+)=VALUE", stop["continue"])
            assert ref, stop
            outcome = run_workflow(WIKI, wf, params, opts, from_step=step.id, sets={ref.group(1): "example-value"})
        elif stop["reason"] == "approval":
            opts = Options(runs_dir=fake_env / "runs", approve=True)
            outcome = run_workflow(WIKI, wf, params, opts, from_step=step.id)
        else:
            assert stop["reason"] in ("ai", "manual"), stop
            assert f"--from {step.id}" in stop["continue"]
            sets = {f"{step.id}.{f.name}": "example" for f in action.summary_fields}
            outcome = run_workflow(WIKI, wf, params, Options(runs_dir=fake_env / "runs"), from_step=step.id, sets=sets)
        visited += [r["step"] for r in outcome.record["steps"]]
    assert outcome.code in (EXIT_OK, EXIT_STOPPED), outcome.record
    assert visited, "no step ran"
    assert visited[-1] in (wf.steps[-1].id, *[s.id for s in wf.steps if s.next == "end" or s.branches])


def _site_commands() -> list[str]:
    site = SiteMap(WIKI)
    out = []
    for page in WIKI.pages.values():
        if page.kind not in ("action", "workflow"):
            continue
        md = page_markdown(page, site)
        out += [html.unescape(m) for m in re.findall(r"<code data-mlw-cmd=\"[^\"]*\">([^<]*)</code>", md)]
    return out


SITE_COMMANDS = _site_commands()


def test_site_renders_commands() -> None:
    assert len(SITE_COMMANDS) >= 2 * (len(WIKI.actions) + len(WIKI.workflows))


@pytest.mark.parametrize("command", SITE_COMMANDS)
def test_site_command_dry_runs(command: str, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["python3", "scripts/python_glue_runner.py"]
    args = [a for a in argv[2:] if a != "--approve"]
    if "--dry-run" not in args:
        args.append("--dry-run")
    code = main([*args, "--wiki", str(REPO / "wiki")])
    assert code == 0, capsys.readouterr().err
    # A dry run runs no step; it only reads the local kubeconfig/gcloud config to name its target.
    assert fake_calls(fake_env) == []

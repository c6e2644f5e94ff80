"""Approval cannot be forgotten: state-changing command shapes are gated by rule (MLW039), in the
linter and in the runner, whatever the page's own ``requires_approval`` says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mlwiki.cli.run import main as run_main
from mlwiki.core import check, load
from mlwiki.core.approval import GCLOUD_STATE_CHANGING, KUBECTL_STATE_CHANGING, state_change
from mlwiki.runner.engine import EXIT_APPROVAL, EXIT_STOPPED, Options, run_action, run_workflow
from wikifix import ACTION, REPO, WORKFLOW, base_files, write_wiki

SHIPPED = load(REPO / "wiki")
GATED = sorted(a.id for a in SHIPPED.actions.values() if a.requires_approval and a.execution_mode == "command")
OPEN = sorted(a.id for a in SHIPPED.actions.values() if not a.requires_approval and a.execution_mode == "command")


def _strip_approval(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    out["requires_approval"] = False
    out.pop("changes", None)
    out.pop("undo", None)
    return out


def _shipped_files(action_id: str, data: dict[str, Any]) -> dict[str, str | bytes]:
    """The base fixture plus one shipped action (as given) and the actions it needs for lint."""
    files: dict[str, str | bytes] = dict(base_files())
    files[f"actions/{action_id}.json"] = json.dumps(data, indent=2) + "\n"
    files["concepts/links.md"] = (
        "---\nid: links\ntype: concept\ntitle: Links\nsummary: Links every page of this fixture.\n"
        "tags: [gke]\nplatforms: [gke]\nsources: [https://example.org/x]\n---\n\n"
        f"[[{action_id}]] [[disk-full]]\n"
    )
    return files


def test_there_are_gated_and_open_shipped_actions() -> None:
    assert len(GATED) >= 10 and len(OPEN) >= 30


@pytest.mark.parametrize("action_id", GATED)
def test_removing_approval_from_a_shipped_action_fails_lint(tmp_path: Path, action_id: str) -> None:
    rel = f"actions/{action_id}.json"
    data = _strip_approval(json.loads((REPO / "wiki" / rel).read_text(encoding="utf-8")))
    text = json.dumps(data, indent=2) + "\n"
    wiki = load(write_wiki(tmp_path, _shipped_files(action_id, data)))
    found = [d for d in check(wiki) if d.code == "MLW039"]
    line = next(i + 1 for i, t in enumerate(text.split("\n")) if '"requires_approval"' in t)
    assert [(d.location.file, d.location.line) for d in found] == [(f"wiki/{rel}", line)], found
    assert "changes state" in found[0].message


@pytest.mark.parametrize("action_id", GATED)
def test_runner_refuses_a_shipped_action_without_its_flag(tmp_path: Path, action_id: str) -> None:
    """Lint skipped: the engine itself still refuses to run it without approval."""
    data = _strip_approval(json.loads((REPO / "wiki" / "actions" / f"{action_id}.json").read_text(encoding="utf-8")))
    wiki = load(write_wiki(tmp_path, _shipped_files(action_id, data)))
    action = wiki.actions[action_id]
    assert action.requires_approval is False
    given = {n: p.sample for n, p in action.parameters.items() if p.sample is not None}
    outcome = run_action(wiki, action, given, Options(runs_dir=tmp_path / "runs"))
    assert outcome.code == EXIT_APPROVAL
    assert outcome.record["status"] == "needs-approval"
    assert outcome.record["message"].startswith("NOTHING WAS RUN")
    assert not (tmp_path / "runs").exists()


def test_cli_refuses_it_with_the_code_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _strip_approval(json.loads((REPO / "wiki" / "actions" / "kubectl-delete-pod.json").read_text("utf-8")))
    wiki_dir = write_wiki(tmp_path, _shipped_files("kubectl-delete-pod", data))
    code = run_main(["kubectl-delete-pod", '{"pod_name": "w-0", "namespace": "ml"}', "--wiki", str(wiki_dir)])
    err = capsys.readouterr().err
    assert code == 2
    assert "wiki/actions/kubectl-delete-pod.json:" in err and "MLW039" in err


def _planted(verb_tokens: list[str]) -> dict[str, Any]:
    return {**ACTION, "id": "planted", "command": verb_tokens, "parameters": {}, "summary_fields": ACTION["summary_fields"]}


KUBECTL_CASES = [v for v in KUBECTL_STATE_CHANGING if v not in ("exec",)]
GCLOUD_CASES = [v.replace("*", "metadata") for v in GCLOUD_STATE_CHANGING]


@pytest.mark.parametrize("verb", KUBECTL_CASES)
def test_planted_kubectl_verb_fails_lint(tmp_path: Path, verb: str) -> None:
    cmd = ["kubectl", "--context", "prod", "-n", "ml", verb, "thing"]
    _assert_planted_fails(tmp_path, cmd, f"kubectl {verb}")


@pytest.mark.parametrize("verb", GCLOUD_CASES)
def test_planted_gcloud_verb_fails_lint(tmp_path: Path, verb: str) -> None:
    cmd = ["gcloud", "compute", "instances", verb, "vm-1", "--zone=us-central1-a", "--project", "p"]
    _assert_planted_fails(tmp_path, cmd, f"gcloud {verb}")


@pytest.mark.parametrize(
    "cmd",
    [
        ["kubectl", "exec", "-n", "ml", "w-0", "--", "rm", "-rf", "/data"],
        ["kubectl", "exec", "-n", "ml", "w-0", "--", "nvidia-smi", "-r"],
        ["kubectl", "exec", "w-0"],
        ["kubectl", "rollout", "restart", "deployment/x"],
        ["kubectl", "config", "use-context", "prod"],
        ["kubectl", "frobnicate", "x"],
        ["kubectl"],
        ["gcloud", "compute", "tpus", "tpu-vm", "frobnicate", "x"],
        ["gcloud", "{group}", "list"],
        ["gcloud", "container", "clusters", "get-credentials", "c"],
    ],
)
def test_unknown_or_unreviewed_shapes_are_gated(tmp_path: Path, cmd: list[str]) -> None:
    _assert_planted_fails(tmp_path, cmd, cmd[0])


def _assert_planted_fails(tmp_path: Path, cmd: list[str], words: str) -> None:
    assert state_change(tuple(cmd)) is not None
    files: dict[str, str | bytes] = dict(base_files())
    files["actions/check-disk.json"] = json.dumps({**ACTION, "command": cmd, "parameters": {}}, indent=2) + "\n"
    files["workflows/wf-disk-check.json"] = json.dumps({**WORKFLOW, "steps": [{**WORKFLOW["steps"][0], "with": {}}]}, indent=2)
    found = [d for d in check(load(write_wiki(tmp_path, files))) if d.code == "MLW039"]
    assert len(found) == 1, found
    assert found[0].location.file == "wiki/actions/check-disk.json"
    assert words in found[0].message


@pytest.mark.parametrize(
    "cmd",
    [
        ["kubectl", "get", "pods", "-n", "{namespace}", "-o", "json"],
        ["kubectl", "--context", "{kube_context}", "describe", "node", "{node_name}"],
        ["kubectl", "logs", "{pod}", "--previous"],
        ["kubectl", "rollout", "status", "deployment/x"],
        ["kubectl", "auth", "can-i", "delete", "pods"],
        ["kubectl", "exec", "-n", "ml", "w-0", "-c", "main", "--", "nvidia-smi", "-q"],
        ["kubectl", "exec", "-n", "ml", "w-0", "--", "py-spy", "dump", "--pid", "{pid}"],
        ["gcloud", "logging", "read", "filter", "--project={project_id}"],
        ["gcloud", "compute", "tpus", "tpu-vm", "describe", "{tpu}", "--zone", "z"],
        ["gcloud", "container", "node-pools", "list", "--cluster=c"],
        ["gcloud", "--project", "delete", "compute", "instances", "list"],
    ],
)
def test_read_only_shapes_stay_ungated(cmd: list[str]) -> None:
    assert state_change(tuple(cmd)) is None


@pytest.mark.parametrize("action_id", OPEN)
def test_every_open_shipped_action_is_read_only_by_rule(action_id: str) -> None:
    assert state_change(SHIPPED.actions[action_id].command) is None


def test_a_workflow_step_stops_at_a_rule_gated_action(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["actions/check-disk.json"] = json.dumps(
        {**ACTION, "command": ["kubectl", "delete", "pod", "{pod_name}", "-n", "{namespace}"]}, indent=2
    )
    wiki = load(write_wiki(tmp_path, files))
    outcome = run_workflow(wiki, wiki.workflows["wf-disk-check"], {"pod_name": "w-0"}, Options(runs_dir=tmp_path / "r"))
    assert outcome.code == EXIT_STOPPED, outcome.record
    assert outcome.record["steps"][0]["status"] == "needs-approval"
    assert outcome.record["stopped"]["continue"].endswith("--from df --approve")
    assert not (tmp_path / "r" / "runs.jsonl").exists() or "started" not in (tmp_path / "r" / "runs.jsonl").read_text()

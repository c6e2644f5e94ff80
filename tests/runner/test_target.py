"""The right cluster: every kubectl step names its context, the target is printed and logged
before anything runs, and an approval step refuses a context for another cluster. Run against
the real kubectl (1.32) with a kubeconfig holding two contexts; no cluster is contacted except
by the one step allowed to run, which fails to connect to 127.0.0.1:1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlwiki.cli.run import main
from wikifix import REPO

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed here")

KUBECONFIG = """\
apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: gke_proj_us-central2_alpha
  cluster: {server: "https://127.0.0.1:1"}
- name: gke_proj_us-central2_beta
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: "not-a-real-token"}
contexts:
- name: ctx-a
  context: {cluster: gke_proj_us-central2_alpha, user: u}
- name: ctx-b
  context: {cluster: gke_proj_us-central2_beta, user: u}
"""


@pytest.fixture
def kube(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = tmp_path / "kubeconfig"
    cfg.write_text(KUBECONFIG, encoding="utf-8")
    monkeypatch.setenv("KUBECONFIG", str(cfg))
    monkeypatch.setenv("MLWIKI_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def _run(args: list[str]) -> int:
    return main([*args, "--wiki", str(REPO / "wiki")])


def test_current_context_is_named_in_the_command_and_printed(kube: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["kubectl-describe-pod", '{"pod_name": "w-0", "namespace": "ml"}', "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert "would run: kubectl --context=ctx-a describe pod w-0 -n ml" in out
    assert "target: kube context 'ctx-a' (current; cluster gke_proj_us-central2_alpha, user u)" in err


@pytest.mark.parametrize("how", ["flag", "param"])
def test_named_context_is_used(kube: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    params = {"pod_name": "w-0", "namespace": "ml"}
    extra = ["--context", "ctx-b"] if how == "flag" else []
    if how == "param":
        params["kube_context"] = "ctx-b"
    assert _run(["kubectl-describe-pod", json.dumps(params), "--dry-run", *extra]) == 0
    out, err = capsys.readouterr()
    assert "kubectl --context=ctx-b describe pod" in out
    assert "kube context 'ctx-b' (named; cluster gke_proj_us-central2_beta" in err


def test_unknown_context_is_refused(kube: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["kubectl-get-node", '{"node_name": "n1"}', "--context", "ctx-z", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "kube context 'ctx-z' cannot be used" in err and "kubectl config get-contexts" in err


def test_approval_step_refuses_a_context_for_another_cluster(kube: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(["kubectl-cordon-node", '{"node_name": "n1"}', "--cluster", "beta", "--approve"])
    out, err = capsys.readouterr()
    assert code == 3
    assert "NOT RUN (wrong cluster): kubectl --context=ctx-a cordon n1" in out
    assert "NOTHING WAS RUN" in err and "not at 'beta'" in err
    assert "gcloud container clusters get-credentials beta" in err
    assert not (kube / "runs" / "runs.jsonl").exists()


def test_matching_context_runs_and_the_log_names_it(kube: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(["kubectl-cordon-node", '{"node_name": "n1"}', "--cluster", "beta", "--context", "ctx-b", "--approve"])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)  # it ran: the fake server refuses the connection
    assert "$ kubectl --context=ctx-b cordon n1" in out
    assert "first error:" in err and "stderr: " in err
    assert "fix: kubectl cannot reach the cluster" in err
    events = [json.loads(x) for x in (kube / "runs" / "runs.jsonl").read_text().splitlines()]
    started = next(e for e in events if e["event"] == "started")
    assert started["target"]["kube_context"] == "ctx-b"
    assert started["target"]["cluster"] == "gke_proj_us-central2_beta"
    assert started["argv"][:2] == ["kubectl", "--context=ctx-b"]


def test_a_workflow_stops_at_a_gated_step_on_the_wrong_cluster(kube: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wf = json.loads((REPO / "wiki" / "workflows" / "wf-quarantine-faulty-node.json").read_text(encoding="utf-8"))
    params = {k: v["example"] for k, v in wf["parameters"].items() if "example" in v}
    code = _run(["--workflow", "wf-quarantine-faulty-node", json.dumps(params), "--from", "suspend", "--cluster", "beta", "--approve"])
    out, _err = capsys.readouterr()
    assert code == 10
    assert "wrong-context" in out
    events = (kube / "runs" / "runs.jsonl").read_text() if (kube / "runs" / "runs.jsonl").exists() else ""
    assert "suspend-jobset" not in events and "cordon" not in events

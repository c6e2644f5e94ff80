"""The runner's safety rules, each fault class against fake binaries: validation, injection,
option injection, path traversal, approval, timeout with process-group kill, missing executable,
non-JSON output, summaries, workflow chaining and resume, and the audit trail."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import fake_calls
from mlwiki.cli.run import main
from wikifix import base_files, write_wiki

PATTERN_K8S = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


def action(action_id: str, command: list[str], params: dict[str, Any], **extra: Any) -> str:
    data = {
        "id": action_id,
        "type": "action",
        "title": f"Test action {action_id}",
        "summary": "An action used by the runner tests.",
        "tags": ["gke"],
        "platforms": ["gke"],
        "sources": ["https://example.org/test"],
        "execution_mode": "command",
        "requires_approval": False,
        "verified": True,
        "parameters": params,
        "command": command,
        "output": "json",
        "summary_fields": [],
        **extra,
    }
    return json.dumps(data, indent=2)


P_NAME = {
    "type": "string",
    "description": "A Kubernetes name.",
    "required": True,
    "pattern": PATTERN_K8S,
    "example": "x",
}
P_FREE = {"type": "string", "description": "Free text, no pattern.", "required": True, "example": "hello"}
P_ANY = {"type": "string", "description": "Anything.", "required": True, "pattern": ".*", "example": "a"}

EXTRA_ACTIONS = {
    "actions/get-pods.json": action(
        "get-pods",
        ["kubectl", "get", "pods", "-n", "{namespace}", "-o", "json"],
        {"namespace": P_NAME},
        summary_fields=[
            {"name": "pods", "description": "Pod names.", "json_path": "items[*].metadata.name"},
            {"name": "first_node", "description": "Node.", "json_path": "items[*].spec.nodeName", "select": "first"},
            {
                "name": "oom",
                "description": "OOM pods.",
                "json_path": "items[?status.containerStatuses[*].lastState.terminated.reason=OOMKilled].metadata.name",
            },
        ],
    ),
    "actions/echo-free.json": action("echo-free", ["kubectl", "get", "{text}"], {"text": P_FREE}),
    "actions/echo-any.json": action("echo-any", ["kubectl", "describe", "{text}"], {"text": P_ANY}),
    "actions/get-node.json": action(
        "get-node",
        ["kubectl", "get", "node", "{node}", "--chunk-size={tail}", "-o", "json"],
        {
            "node": {**P_NAME, "required": True},
            "tail": {"type": "integer", "description": "Lines.", "minimum": 1, "maximum": 100},
        },
        summary_fields=[
            {
                "name": "ready",
                "description": "Ready.",
                "json_path": "status.conditions[?type=Ready].status",
                "select": "first",
            }
        ],
    ),
    "actions/cordon.json": action(
        "cordon",
        ["kubectl", "cordon", "{node}"],
        {"node": P_NAME},
        requires_approval=True,
        changes="Marks the node unschedulable.",
        undo="kubectl uncordon NODE",
        output="text",
    ),
    "actions/slow.json": action("slow", ["kubectl", "wait"], {}, timeout_s=1, output="text"),
    "actions/missing-tool.json": action("missing-tool", ["gcloud", "version"], {}, output="text"),
}


AI_ACTION = json.dumps(
    {
        "id": "ai-judge",
        "type": "action",
        "title": "Judge the node",
        "summary": "An ai step that decides.",
        "tags": ["gke"],
        "platforms": ["gke"],
        "sources": ["https://example.org/test"],
        "execution_mode": "ai",
        "requires_approval": False,
        "verified": True,
        "parameters": {
            "node": {"type": "string", "description": "Node.", "required": True, "pattern": "(?s).+", "example": "n"}
        },
        "prompt": "Decide whether node {node} is broken; answer with verdict.",
        "summary_fields": [{"name": "verdict", "description": "broken or fine"}],
    }
)


def make_workflow(wf_id: str, title: str, summary: str, steps: list[dict[str, Any]]) -> str:
    return json.dumps(
        {
            "id": wf_id,
            "type": "workflow",
            "title": title,
            "summary": summary,
            "tags": ["gke"],
            "platforms": ["gke"],
            "sources": ["https://example.org/test"],
            "parameters": {"namespace": P_NAME},
            "steps": steps,
        },
        indent=2,
    )


def ai_workflow() -> str:
    return make_workflow(
        "wf-judge",
        "Judge",
        "Pods, an ai verdict, maybe cordon.",
        [
            {"id": "pods", "action": "get-pods", "with": {"namespace": "{namespace}"}},
            {
                "id": "judge",
                "action": "ai-judge",
                "with": {"node": "{pods.first_node}"},
                "branches": [{"when": {"field": "judge.verdict", "op": "equals", "value": "fine"}, "goto": "end"}],
            },
            {"id": "cordon", "action": "cordon", "with": {"node": "{pods.first_node}"}},
        ],
    )


def workflow() -> str:
    return make_workflow(
        "wf-chain",
        "Chain",
        "Pods, then their node, then cordon.",
        [
            {"id": "pods", "action": "get-pods", "with": {"namespace": "{namespace}"}},
            {
                "id": "node",
                "action": "get-node",
                "with": {"node": "{pods.first_node}"},
                "branches": [
                    {
                        "when": {"field": "node.ready", "op": "equals", "value": "True"},
                        "goto": "end",
                        "label": "healthy",
                    }
                ],
            },
            {"id": "cordon", "action": "cordon", "with": {"node": "{pods.first_node}"}},
        ],
    )


@pytest.fixture
def wiki(fake_env: Path) -> Path:
    files: dict[str, str | bytes] = dict(base_files())
    files.update(EXTRA_ACTIONS)
    files["workflows/wf-chain.json"] = workflow()
    files["actions/ai-judge.json"] = AI_ACTION
    files["workflows/wf-judge.json"] = ai_workflow()
    return write_wiki(fake_env / "w", files)


def run(wiki: Path, *args: str) -> int:
    return main([*args, "--wiki", str(wiki)])


def test_summary_extraction(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "get-pods", '{"namespace": "default"}', "--json") == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["argv"] == ["kubectl", "get", "pods", "-n", "default", "-o", "json"]
    assert rec["summary"] == {
        "pods": ["my-job-slice-0-0-abcde", "my-job-slice-0-1-fghij"],
        "first_node": "gke-tpu-pool-1a2b3c4d-w0",
        "oom": ["my-job-slice-0-0-abcde"],
    }
    assert fake_calls(fake_env) == [["kubectl", "get", "pods", "-n", "default", "-o", "json"]]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ('{"namespace": "Bad_NS"}', "parameter 'namespace' = \"Bad_NS\": must match the pattern " + PATTERN_K8S),
        ("{}", "missing required parameter: namespace (A Kubernetes name)"),
        ('{"namespace": 5}', "parameter 'namespace' = 5: must be a string"),
        (
            '{"namespace": "a", "extra": 1}',
            "parameter 'extra' = 1: is not a parameter of this action (known: namespace)",
        ),
        ("[1]", 'parameters must be one JSON object, e.g. \'{"namespace": "default"}\''),
        ("{not json", "parameters must be one JSON object"),
    ],
)
def test_parameter_validation(
    wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str], params: str, message: str
) -> None:
    assert run(wiki, "get-pods", params) == 2
    assert message in capsys.readouterr().err
    assert fake_calls(fake_env) == []


def test_integer_rules(wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "get-node", '{"node": "n1", "tail": 0}', "--dry-run") == 2
    assert "parameter 'tail' = 0: must be at least 1" in capsys.readouterr().err
    assert run(wiki, "get-node", '{"node": "n1", "tail": "5"}', "--dry-run") == 2
    assert "parameter 'tail' = \"5\": must be an integer" in capsys.readouterr().err


@pytest.mark.parametrize(
    "payload", ["; touch {f}", "$(touch {f})", "`touch {f}`", "| touch {f}", "x && touch {f}", "x\ntouch {f}"]
)
def test_shell_injection_never_runs(
    wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str], payload: str
) -> None:
    target = fake_env / "pwned"
    value = payload.format(f=target)
    assert run(wiki, "echo-free", json.dumps({"text": value})) == 2
    err = capsys.readouterr().err
    assert "must not contain" in err
    assert not target.exists()
    assert fake_calls(fake_env) == []


def test_value_is_one_literal_argument(wiki: Path, fake_env: Path) -> None:
    """Where a pattern allows shell characters, they still reach the tool as one inert argument."""
    target = fake_env / "pwned"
    value = f"; touch {target}; $(touch {target}) `touch {target}` | cat"
    assert run(wiki, "echo-any", json.dumps({"text": value})) == 0
    assert fake_calls(fake_env) == [["kubectl", "describe", value]]
    assert not target.exists()


@pytest.mark.parametrize("value", ["-rf", "--kubeconfig=/tmp/evil", "-n=kube-system"])
def test_option_injection_refused(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert run(wiki, "echo-any", json.dumps({"text": value})) == 2
    assert "must not start with '-' (it would be read as an option)" in capsys.readouterr().err
    assert fake_calls(fake_env) == []


@pytest.mark.parametrize("bad_id", ["../x", "/etc/passwd", "actions/../../x", "Get-Pods", "a b", ""])
def test_path_traversal_in_id(wiki: Path, capsys: pytest.CaptureFixture[str], bad_id: str) -> None:
    code = run(wiki, bad_id, "{}")
    err = capsys.readouterr().err
    assert code == 2
    assert ("is not valid: ids are lower-case letters, digits and '-' only" in err) or ("give an ACTION id" in err)


def test_unknown_action_did_you_mean(wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "get-pod", "{}") == 2
    assert "unknown action 'get-pod'; did you mean 'get-pods'?" in capsys.readouterr().err


def test_approval_refused_without_flag(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "cordon", '{"node": "n1"}') == 3
    out = capsys.readouterr()
    assert "NOTHING WAS RUN: 'cordon' changes state and needs approval" in out.err
    assert "changes: Marks the node unschedulable." in out.out
    assert fake_calls(fake_env) == []


def test_approval_with_flag_runs(wiki: Path, fake_env: Path) -> None:
    assert run(wiki, "cordon", '{"node": "n1"}', "--approve") == 0
    assert fake_calls(fake_env) == [["kubectl", "cordon", "n1"]]


def test_dry_run_runs_nothing(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "echo-any", '{"text": "a b\'c"}', "--dry-run") == 0
    assert capsys.readouterr().out.strip() == "would run: kubectl describe 'a b'\"'\"'c'"
    assert fake_calls(fake_env) == []


def test_timeout_kills_process_group(
    wiki: Path, fake_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pidfile = fake_env / "child.pid"
    monkeypatch.setenv("FAKE_SLEEP", "60")
    monkeypatch.setenv("FAKE_CHILD_PIDFILE", str(pidfile))
    started = time.monotonic()
    assert run(wiki, "slow", "{}") == 5
    assert time.monotonic() - started < 30
    assert "timed out after 1 s; the process group was killed" in capsys.readouterr().err
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the grandchild survived the timeout")


def test_missing_executable(wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert run(wiki, "missing-tool", "{}") == 4
    assert "'gcloud' was not found on PATH: install the Google Cloud CLI (gcloud)" in capsys.readouterr().err


def test_executable_outside_allowlist_is_refused(fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["actions/rm-all.json"] = action("rm-all", ["rm", "-rf", "{path}"], {"path": P_ANY})
    wiki = write_wiki(fake_env / "w3", files)
    assert main(["rm-all", '{"path": "x"}', "--wiki", str(wiki)]) == 2
    err = capsys.readouterr().err
    assert "wiki/actions/rm-all.json has lint errors" in err
    assert '\'command[0]\' is "rm"; allowed: "kubectl", "gcloud"' in err


def test_missing_kubectl_says_what_to_install(
    wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert run(wiki, "get-pods", '{"namespace": "a"}') == 4
    assert (
        "'kubectl' was not found on PATH: install kubectl (for example 'gcloud components install kubectl')"
        in capsys.readouterr().err
    )


def test_non_json_output(wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FAKE_TEXT", 'error: the server doesn\'t have a resource type "pods"')
    assert run(wiki, "get-pods", '{"namespace": "a"}') == 1
    assert "action 'get-pods' expected JSON output but got text" in capsys.readouterr().err


def test_failed_command_exit_code(
    wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_EXIT", "7")
    assert run(wiki, "get-pods", '{"namespace": "a"}') == 1
    assert "exited with code 7" in capsys.readouterr().err


def test_audit_trail(wiki: Path, fake_env: Path) -> None:
    assert run(wiki, "get-pods", '{"namespace": "default"}') == 0
    lines = [json.loads(x) for x in (fake_env / "runs" / "runs.jsonl").read_text().splitlines()]
    assert [x["event"] for x in lines] == ["started", "finished"]
    fin = lines[1]
    assert fin["action"] == "get-pods" and fin["exit_code"] == 0 and fin["parameters"] == {"namespace": "default"}
    assert fin["argv"][0] == "kubectl" and "user" in fin and "duration_s" in fin
    assert Path(fin["output_path"]).read_text().startswith("{")


def test_workflow_chaining_and_resume(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(wiki, "--workflow", "wf-chain", '{"namespace": "default"}')
    out = capsys.readouterr().out
    assert code == 10
    # step 2 received step 1's summary field; the node is NotReady, so the branch did not end it
    assert ["kubectl", "get", "node", "gke-tpu-pool-1a2b3c4d-w0", "-o", "json"] in fake_calls(fake_env)
    assert "== stopped at step 'cordon' (approval)." in out
    resume = (
        'python3 scripts/python_glue_runner.py --workflow wf-chain \'{"namespace": "default"}\' --from cordon --approve'
    )
    assert resume in out
    assert ["kubectl", "cordon", "gke-tpu-pool-1a2b3c4d-w0"] not in fake_calls(fake_env)
    assert run(wiki, "--workflow", "wf-chain", '{"namespace": "default"}', "--from", "cordon", "--approve") == 0
    assert fake_calls(fake_env)[-1] == ["kubectl", "cordon", "gke-tpu-pool-1a2b3c4d-w0"]


def test_workflow_branch_to_end(wiki: Path, fake_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = json.loads((Path(__file__).parent / "recorded" / "kubectl-get-node.json").read_text())
    node["status"]["conditions"][-1]["status"] = "True"
    monkeypatch.setenv("FAKE_TEXT", json.dumps(node))
    # FAKE_TEXT answers every call; pods output is then the node object (no items): set the node directly
    code = run(
        wiki, "--workflow", "wf-chain", '{"namespace": "default"}', "--from", "node", "--set", "pods.first_node=n1"
    )
    assert code == 0
    assert fake_calls(fake_env) == [["kubectl", "get", "node", "n1", "-o", "json"]]


def test_workflow_unknown_step(wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "--workflow", "wf-chain", '{"namespace": "a"}', "--from", "nodes") == 2
    assert "workflow 'wf-chain' has no step 'nodes'; did you mean 'node'?" in capsys.readouterr().err


def test_refuses_action_with_lint_errors(fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["actions/broken.json"] = action("broken", ["kubectl", "{oops}"], {})
    wiki = write_wiki(fake_env / "w2", files)
    assert main(["broken", "{}", "--wiki", str(wiki)]) == 2
    assert "wiki/actions/broken.json has lint errors; fix them before running it" in capsys.readouterr().err


def test_ai_step_answer_drives_branch(wiki: Path, fake_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(wiki, "--workflow", "wf-judge", '{"namespace": "default"}') == 10
    out = capsys.readouterr().out
    assert "AI step 'ai-judge': runs nothing." in out
    assert "Decide whether node gke-tpu-pool-1a2b3c4d-w0 is broken" in out
    assert "--from judge --set judge.verdict=VALUE" in out
    code = run(
        wiki, "--workflow", "wf-judge", '{"namespace": "default"}', "--from", "judge", "--set", "judge.verdict=fine"
    )
    assert code == 0
    assert ["kubectl", "cordon", "gke-tpu-pool-1a2b3c4d-w0"] not in fake_calls(fake_env)
    code = run(
        wiki, "--workflow", "wf-judge", '{"namespace": "default"}', "--from", "judge", "--set", "judge.verdict=broken"
    )
    assert code == 10
    assert "== stopped at step 'cordon' (approval)." in capsys.readouterr().out


def test_ctrl_c_kills_group_and_keeps_the_record(wiki: Path, fake_env: Path) -> None:
    import signal
    import subprocess

    pidfile = fake_env / "child.pid"
    env = {**os.environ, "FAKE_SLEEP": "60", "FAKE_CHILD_PIDFILE": str(pidfile)}
    runner = Path(__file__).resolve().parents[2] / "scripts" / "python_glue_runner.py"
    proc = subprocess.Popen([sys.executable, str(runner), "get-pods", '{"namespace": "a"}', "--wiki", str(wiki)],
                            env=env, stderr=subprocess.PIPE, text=True)  # fmt: skip
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "interrupted; the process group was killed and the run recorded" in err
    events = [json.loads(x)["event"] for x in (fake_env / "runs" / "runs.jsonl").read_text().splitlines()]
    assert events == ["started", "interrupted"]
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the grandchild survived Ctrl-C")


def test_interactive_yes_and_no(wiki: Path, fake_env: Path) -> None:
    from mlwiki.core import load
    from mlwiki.runner.engine import EXIT_APPROVAL, Options, run_action

    w = load(wiki)
    asked: list[str] = []
    no = Options(runs_dir=fake_env / "runs", ask=lambda q: asked.append(q) or False)
    assert run_action(w, w.actions["cordon"], {"node": "n1"}, no).code == EXIT_APPROVAL
    assert fake_calls(fake_env) == []
    assert "cordon changes state: Marks the node unschedulable." in asked[0]
    yes = Options(runs_dir=fake_env / "runs", ask=lambda q: True)
    assert run_action(w, w.actions["cordon"], {"node": "n1"}, yes).code == 0
    assert fake_calls(fake_env) == [["kubectl", "cordon", "n1"]]

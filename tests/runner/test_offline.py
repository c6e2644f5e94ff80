"""No access and windows from the evidence: --offline runs nothing and stops at each command
step with the exact command; --output feeds back what the user ran; --evidence-time/--timeout
derive start_time/end_time from the echo instead of a clock."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fake_calls
from mlwiki.core.window import WindowError, parse_duration, parse_time, window
from wikifix import REPO

RUNNER = [sys.executable, str(REPO / "scripts" / "python_glue_runner.py")]
PARAMS = {
    "project_id": "my-ml-project",
    "cluster_name": "tpu-cluster-prod",
    "namespace": "default",
    "workload_name": "llama3",
    "container": "jax-tpu",
    "node_name": "gke-tpu-cluster-tpu-pool-1a2b3c4d-x7k2",
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUNNER, *args], capture_output=True, text=True, cwd=REPO, timeout=120)


def test_window_is_echo_minus_timeout_minus_margin() -> None:
    assert window("2026-05-20T08:00:00Z", "600000ms", "5m") == ("2026-05-20T07:45:00Z", "2026-05-20T08:05:00Z")
    assert window("2026-05-20 10:00:00+02:00", "1h30m") == ("2026-05-20T06:20:00Z", "2026-05-20T08:10:00Z")
    assert window("2026-05-20T08:00:00.250Z", "30s", "0s") == ("2026-05-20T07:59:30.25Z", "2026-05-20T08:00:00.25Z")


@pytest.mark.parametrize(
    ("func", "value", "words"),
    [
        (parse_duration, "600000", "write a number with a unit"),
        (parse_duration, "10 minutes", "is not a duration"),
        (parse_duration, "", "is not a duration"),
        (parse_time, "2026-05-20T08:00:00", "with a zone"),
        (parse_time, "yesterday", "is not an RFC 3339 time"),
        (parse_time, "2026-02-30T08:00:00Z", "is not a valid time"),
    ],
)
def test_bad_times_and_durations_say_the_rule(func: object, value: str, words: str) -> None:
    with pytest.raises(WindowError, match=words):
        func(value)  # type: ignore[operator]


def test_runner_derives_the_window_and_says_how(fake_env: Path) -> None:
    p = run("--workflow", "wf-nccl-timeout", json.dumps(PARAMS), "--dry-run", "--json",
            "--evidence-time", "2026-05-20T08:00:00Z", "--timeout", "30m")  # fmt: skip
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["parameters"]["start_time"] == "2026-05-20T07:20:00Z"
    assert rec["parameters"]["end_time"] == "2026-05-20T08:10:00Z"
    assert 'timestamp>="2026-05-20T07:20:00Z"' in rec["steps"][0]["command"]
    assert "minus timeout 30m minus margin 10m" in p.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--evidence-time", "2026-05-20T08:00:00Z"], "--evidence-time and --timeout go together"),
        (["--margin", "5m"], "--margin applies only with --evidence-time and --timeout"),
        (["--evidence-time", "2026-05-20T08:00:00Z", "--timeout", "600000"], "write a number with a unit"),
        (["--offline", "--dry-run"], "cannot be combined with --dry-run or --approve"),
        (["--output", "worker-logs=x.json"], "--output is read only with --offline"),
        (["--offline", "--output", "nope=x.json"], "expected STEP=FILE with a step of 'wf-nccl-timeout'"),
        (["--offline", "--from", "worker-logs", "--output", "worker-logs=/nonexistent/out.json"], "cannot read it"),
    ],
)
def test_bad_window_and_offline_options(fake_env: Path, extra: list[str], message: str) -> None:
    p = run("--workflow", "wf-nccl-timeout", json.dumps({**PARAMS, "start_time": "2026-05-20T07:00:00Z",
            "end_time": "2026-05-20T09:00:00Z"} if "--evidence-time" not in extra else PARAMS), *extra)  # fmt: skip
    assert p.returncode == 2, p.stdout + p.stderr
    assert message in p.stderr
    assert fake_calls(fake_env) == []


def test_window_refuses_a_page_without_time_parameters_and_a_clash(fake_env: Path) -> None:
    p = run("kubectl-get-node", "{}", "--dry-run", "--evidence-time", "2026-05-20T08:00:00Z", "--timeout", "5m")
    assert p.returncode == 2 and "has no start_time/end_time parameters" in p.stderr
    both = {**PARAMS, "start_time": "2026-05-20T07:00:00Z"}
    p = run("--workflow", "wf-nccl-timeout", json.dumps(both), "--dry-run",
            "--evidence-time", "2026-05-20T08:00:00Z", "--timeout", "5m")  # fmt: skip
    assert p.returncode == 2 and "derives start_time; do not also give it" in p.stderr


def test_offline_workflow_stops_with_the_command_and_resumes_from_the_saved_output(fake_env: Path) -> None:
    args = ["--workflow", "wf-nccl-timeout", json.dumps(PARAMS), "--offline",
            "--evidence-time", "2026-05-20T08:00:00Z", "--timeout", "600000ms"]  # fmt: skip
    p = run(*args, "--json")
    assert p.returncode == 10, p.stderr
    rec = json.loads(p.stdout)
    stop = rec["stopped"]
    assert stop["reason"] == "needs-output" and stop["at"] == "worker-logs"
    assert "gcloud logging read" in stop["message"]
    assert stop["continue"].endswith("--from worker-logs --output worker-logs=FILE --offline")
    assert fake_calls(fake_env) == []  # nothing ran
    saved = fake_env / "worker-logs.json"
    entry = {"timestamp": "2026-05-20T07:49:58Z", "textPayload": "RuntimeError: boom",
             "resource": {"labels": {"pod_name": "llama3-worker-0-3"}}}  # fmt: skip
    saved.write_text(json.dumps([entry]))
    cont = stop["continue"].replace("FILE", str(saved))
    resumed = subprocess.run(cont.replace("python3 scripts/python_glue_runner.py", " ".join(RUNNER)) + " --json",
                             shell=True, capture_output=True, text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert resumed.returncode == 10, resumed.stderr
    rec = json.loads(resumed.stdout)
    given = rec["steps"][0]
    assert given["status"] == "given" and given["output_path"] == str(saved)
    assert rec["stopped"]["at"] == "first-failure" and rec["stopped"]["continue"].endswith("--offline")
    assert fake_calls(fake_env) == []


def test_offline_output_that_is_not_what_the_action_prints(fake_env: Path) -> None:
    bad = fake_env / "out.txt"
    bad.write_text("ERROR: (gcloud.logging.read) You do not currently have an active account selected.\n")
    p = run("--workflow", "wf-nccl-timeout", json.dumps({**PARAMS, "start_time": "2026-05-20T07:00:00Z",
            "end_time": "2026-05-20T09:00:00Z"}), "--offline", "--from", "worker-logs", "--output", f"worker-logs={bad}")  # fmt: skip
    assert p.returncode == 2
    assert f"--output worker-logs={bad}: action 'logs-jobset-worker-containers' expected JSON output" in p.stderr


def test_offline_single_action(fake_env: Path, tmp_path: Path) -> None:
    params = json.dumps({"namespace": "default", "pod_name": "llama3-worker-0-3"})
    p = run("kubectl-describe-pod", params, "--offline")
    assert p.returncode == 10
    assert "NOT RUN (offline): kubectl describe pod" in p.stdout and "--offline --output FILE" in p.stdout
    out = tmp_path / "describe.txt"
    out.write_text("Name: llama3-worker-0-3\nStatus: Failed\n    Reason:       OOMKilled\n    Exit Code:    137\n")
    p = run("kubectl-describe-pod", params, "--offline", "--output", str(out), "--json")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["status"] == "given" and rec["summary"]
    missing = run("kubectl-describe-pod", "{}", "--offline")
    assert missing.returncode == 2 and "missing required parameter(s): pod_name, namespace" in missing.stderr
    assert fake_calls(fake_env) == []


WINDOW_CASES = [
    ("2026-05-20T08:00:00Z", "600000ms", "5m"),
    ("2026-05-20 10:00:00+02:00", "1h30m", ""),
    ("2026-05-20T08:00:00.250Z", "30s", "0s"),
    ("2026-12-31T23:59:59.999999-0530", "1d", "90s"),
    ("2026-03-01T00:10:00Z", "15m", "1m"),
]


def test_the_site_form_derives_the_same_window_as_the_runner() -> None:
    """mlwiki.js (the form's 'Window from the evidence') in Node, beside core/window.py."""
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: bash .ci/run installs it")
    js = REPO / "plugins" / "mlwiki" / "render" / "assets" / "mlwiki.js"
    script = (
        "global.window = {}; global.document = {readyState: 'complete', querySelector: () => null};\n"
        f"require({json.dumps(str(js))});\n"
        f"const cases = {json.dumps(WINDOW_CASES + [('2026-05-20T08:00:00', '5m', ''), ('2026-05-20T08:00:00Z', '600000', '')])};\n"
        "console.log(JSON.stringify(cases.map(c => { try { return window.mlwiki.evidenceWindow(c[0], c[1], c[2]); }"
        " catch (e) { return 'error: ' + e.message; } })));"
    )
    p = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    want = [list(window(t, d, m or "10m")) for t, d, m in WINDOW_CASES]
    assert got[: len(want)] == want
    assert "with a zone" in got[-2] and "write a number with a unit" in got[-1]

"""Run one argv with a timeout in its own process group; raw output to files, then summary.

argv -> Popen(no shell, new session) -> wait(timeout) -> kill the whole group on timeout or
Ctrl-C -> read stdout -> summary fields.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mlwiki.core.model import Action
from mlwiki.runner.summary import OutputError, extract

INSTALL_HINTS = {
    "kubectl": "install kubectl (for example 'gcloud components install kubectl') and make sure it is on PATH",
    "gcloud": "install the Google Cloud CLI (gcloud) and make sure it is on PATH",
    "tpu-info": "tpu-info runs inside the TPU VM or pod: 'pip install tpu-info' there",
    "nvidia-smi": "nvidia-smi ships with the NVIDIA driver; run it on a GPU node or pod",
    "dcgmi": "dcgmi ships with NVIDIA DCGM; run it where DCGM is installed",
    "py-spy": "install py-spy ('pip install py-spy') where the Python process runs",
}
MAX_SUMMARY_BYTES = 64_000_000
KILL_GRACE_S = 3.0


@dataclass
class RunResult:
    action: str
    argv: list[str]
    status: str
    exit_code: int | None = None
    duration_s: float = 0.0
    summary: dict[str, Any] = field(default_factory=dict)
    output_path: str | None = None
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "argv": self.argv,
            "status": self.status,
            "exit_code": self.exit_code,
            "duration_s": round(self.duration_s, 3),
            "summary": self.summary,
            "output_path": self.output_path,
            "message": self.message,
        }


# Failures every on-call meets, matched on stderr, each with the one-line fix. Patterns are the
# tools' own wording (kubectl 1.32, gcloud 528 on this machine with no cluster and no account).
KNOWN_FAILURES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"You do not currently have an active account selected", re.I), "log in: gcloud auth login (or gcloud config set account ACCOUNT)"),
    (re.compile(r"Reauthentication failed|There was a problem refreshing your current auth tokens|invalid_grant", re.I), "credentials expired: gcloud auth login"),
    (re.compile(r"The connection to the server .* was refused", re.I), "kubectl cannot reach the cluster: check the context (kubectl config current-context) and fetch credentials with gcloud container clusters get-credentials CLUSTER --location LOCATION --project PROJECT"),
    (re.compile(r"Unable to connect to the server", re.I), "kubectl cannot reach the API server: check the network/VPN and the context (kubectl config current-context)"),
    (re.compile(r"\(Forbidden\)|\bis forbidden\b|PERMISSION_DENIED|does not have .*permission", re.I), "your identity lacks the permission named above: ask for the role, or run as an account that has it"),
    (re.compile(r"\(NotFound\)|\bnot found\b|NOT_FOUND", re.I), "the object named above does not exist here: check the name, the namespace (-n) and the context or project"),
    (re.compile(r"The project property is set to the empty string|project .* not found or deleted|The project property must be set", re.I), "wrong or missing project: pass project_id, or gcloud config set project PROJECT"),
    (re.compile(r"context was not found for specified context|cannot locate context", re.I), "no such kube context: kubectl config get-contexts lists the ones you have"),
)
CONTEXT_LINES = 3


def explain_failure(exit_code: int | None, stderr: str, out_path: Path, err_path: Path) -> str:
    """The first error line of stderr with a few lines after it, the files that hold the whole
    output, and the fix for a failure we know."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    first = next((i for i, ln in enumerate(lines) if re.search(r"error|fatal|denied|refused|not found|invalid", ln, re.I)), 0)
    shown = lines[first : first + 1 + CONTEXT_LINES]
    parts = [f"exited with code {exit_code}"]
    if shown:
        parts.append("first error:\n    " + "\n    ".join(shown))
    fix = next((fix for rx, fix in KNOWN_FAILURES if rx.search(stderr)), None)
    if fix:
        parts.append(f"fix: {fix}")
    parts.append(f"stdout: {out_path}\n  stderr: {err_path}")
    return "\n  ".join(parts)


def missing_executable(argv0: str) -> str:
    hint = INSTALL_HINTS.get(os.path.basename(argv0), f"install '{argv0}' and make sure it is on PATH")
    return f"'{argv0}' was not found on PATH: {hint}"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_argv(action: Action, argv: list[str], out_path: Path, timeout_s: float) -> RunResult:
    """Run and summarise. Ctrl-C kills the group and re-raises KeyboardInterrupt."""
    result = RunResult(action=action.id, argv=argv, status="failed", output_path=str(out_path))
    if shutil.which(argv[0]) is None:
        result.status = "missing-executable"
        result.message = missing_executable(argv[0])
        return result
    err_path = out_path.with_suffix(".stderr.log")
    started = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True, shell=False
        )
        try:
            result.exit_code = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            result.duration_s = time.monotonic() - started
            result.status = "timeout"
            result.exit_code = proc.returncode
            result.message = f"timed out after {timeout_s:g} s; the process group was killed"
            return result
        except KeyboardInterrupt:
            _kill_group(proc)
            raise
    result.duration_s = time.monotonic() - started
    with open(out_path, "rb") as f:
        stdout = f.read(MAX_SUMMARY_BYTES).decode("utf-8", errors="replace")
    if result.exit_code != 0:
        head = err_path.read_bytes()[:20000].decode("utf-8", errors="replace")
        result.message = explain_failure(result.exit_code, head, out_path, err_path)
        return result
    try:
        result.summary = extract(action, stdout)
    except OutputError as exc:
        result.status = "bad-output"
        result.message = str(exc)
        return result
    result.status = "ok"
    return result

"""Every command action parses with the real kubectl and gcloud on this machine.

No cluster and no credentials are configured (an empty kubeconfig, an empty gcloud config
folder), so no command can reach anything: a connection or authentication error means the
tool accepted the arguments; "unknown flag", "unrecognized arguments" or "Invalid choice"
means the page is wrong. Skipped, saying so, where a binary is missing (CI installs neither
by default; this machine has both).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mlwiki.core import load
from mlwiki.core.commands import sample_values
from mlwiki.runner.argv import build_argv
from wikifix import REPO

WIKI = load(REPO / "wiki")
COMMANDS = sorted(a.id for a in WIKI.actions.values() if a.execution_mode == "command")
REJECTED = (
    "unknown flag",
    "unknown shorthand flag",
    "unknown command",
    "unrecognized arguments",
    "invalid choice",
    "invalid argument",
    "flag needs an argument",
    "argument --",  # gcloud: "argument --zone: expected one argument"
    "is not a valid",
)
PARSED = (
    "connection to the server",
    "refused",
    "no configuration has been provided",
    "you do not currently have an active account",
    "there was a problem refreshing",
    "could not find default credentials",
    "gcloud auth login",
    "unable to connect",
    "dial tcp",
    "was not found",
    "not found",
    "does not exist",  # kubectl replace -f PATH: the flags parsed, the manifest is not here
    "current-context must exist",  # kubectl config view --minify with the empty kubeconfig here
)


def _argv(action_id: str) -> list[str]:
    action = WIKI.actions[action_id]
    values = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in sample_values(action.parameters).items()}
    for name, p in action.parameters.items():
        values.setdefault(name, str(p.sample) if p.sample is not None else f"example-{name.replace('_', '-')}")
    return build_argv(action, values)


def test_every_command_action_is_checked() -> None:
    assert len(COMMANDS) >= 50


@pytest.mark.parametrize("action_id", COMMANDS)
def test_command_parses_with_the_real_tool(action_id: str, tmp_path: Path) -> None:
    argv = _argv(action_id)
    exe = shutil.which(argv[0])
    if exe is None:
        pytest.skip(f"{argv[0]} is not installed here: this check runs where it is")
    (tmp_path / "kubeconfig").write_text("apiVersion: v1\nkind: Config\n", encoding="utf-8")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "KUBECONFIG": str(tmp_path / "kubeconfig"),
        "CLOUDSDK_CONFIG": str(tmp_path / "gcloud"),
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
    }
    try:
        proc = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, env=env, timeout=90, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{action_id}: {argv[0]} did not finish in 90 s")
    out = (proc.stdout + proc.stderr).lower()
    assert not any(r in out for r in REJECTED), f"{action_id}: {' '.join(argv)}\n{out[-1500:]}"
    # A command that reads only the local kubeconfig ("kubectl config ...") may succeed here, or stop
    # at the empty kubeconfig: both mean the arguments parsed.
    local = argv[:2] == ["kubectl", "config"]
    assert (local and proc.returncode == 0) or (proc.returncode != 0 and any(p in out for p in PARSED)), (
        f"{action_id}: expected a connection or credentials error (arguments parsed), got exit {proc.returncode}:\n{out[-1500:]}"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["kubectl", "get", "pods", "--no-such-flag"],
        ["kubectl", "logs", "p", "--tail-lines=5"],
        ["gcloud", "compute", "tpus", "tpu-vm", "describe", "x", "--zone=z", "--no-such-flag"],
        ["gcloud", "compute", "tpus", "tpu-vm", "frobnicate", "x"],
    ],
)
def test_an_invented_flag_or_verb_is_caught(argv: list[str], tmp_path: Path) -> None:
    """The check above can fail: the real tools reject invented flags and verbs this way."""
    exe = shutil.which(argv[0])
    if exe is None:
        pytest.skip(f"{argv[0]} is not installed here")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), "CLOUDSDK_CONFIG": str(tmp_path / "g")}
    proc = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, env=env, timeout=90, check=False)
    assert any(r in (proc.stdout + proc.stderr).lower() for r in REJECTED), proc.stderr

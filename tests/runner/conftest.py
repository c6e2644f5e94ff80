from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

FAKEBIN = Path(__file__).resolve().parent / "fakebin"


@pytest.fixture
def fake_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Fake kubectl/gcloud first on PATH; argv log and runs dir under tmp_path."""
    monkeypatch.setenv("PATH", f"{FAKEBIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_ARGV_LOG", str(tmp_path / "argv.jsonl"))
    monkeypatch.setenv("MLWIKI_RUNS_DIR", str(tmp_path / "runs"))
    for var in ("FAKE_SLEEP", "FAKE_EXIT", "FAKE_TEXT", "FAKE_CHILD_PIDFILE"):
        monkeypatch.delenv(var, raising=False)
    yield tmp_path


def fake_calls(tmp_path: Path) -> list[list[str]]:
    import json

    log = tmp_path / "argv.jsonl"
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    # The runner's target lookups (kubectl config view, gcloud config list) are not steps.
    return [c for c in calls if c[1:2] != ["config"]]

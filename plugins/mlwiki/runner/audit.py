"""The runs log: one JSON line per run event, raw output in a file beside it.

A ``started`` line is written (and flushed) before the process starts, so a crash or Ctrl-C
still leaves a record; ``finished`` follows with exit code, duration and summary.
Location: ``--runs-dir``, else ``$MLWIKI_RUNS_DIR``, else ``$XDG_STATE_HOME/mlwiki/runs``
(``~/.local/state/mlwiki/runs``): outside the repository.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import secrets
from pathlib import Path
from typing import Any


def default_runs_dir() -> Path:
    env = os.environ.get("MLWIKI_RUNS_DIR")
    if env:
        return Path(env)
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "mlwiki" / "runs"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid()) if hasattr(os, "getuid") else "unknown"


class RunLog:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "runs.jsonl"

    def new_run_id(self, action_id: str) -> str:
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        return f"{stamp}-{action_id}-{secrets.token_hex(3)}"

    def output_path(self, run_id: str) -> Path:
        out = self.dir / "output"
        out.mkdir(exist_ok=True)
        return out / f"{run_id}.log"

    def append(self, event: str, run_id: str, **fields: Any) -> None:
        record = {
            "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
            "event": event,
            "run_id": run_id,
            "user": _user(),
            **fields,
        }
        line = json.dumps(record, ensure_ascii=False, sort_keys=True, default=str) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

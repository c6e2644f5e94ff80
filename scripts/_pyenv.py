"""Shared by the thin entry scripts: put the package on sys.path and, when the system Python
lacks the dependencies, re-run the script with the project's .venv Python (made by ./scripts/test
or ./scripts/serve), so ``python3 scripts/...`` works from any shell."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def prepare(modules: tuple[str, ...] = ("yaml", "jsonschema")) -> None:
    sys.path.insert(0, str(ROOT / "plugins"))
    try:
        for name in modules:
            __import__(name)
    except ImportError as exc:
        venv_python = ROOT / ".venv" / "bin" / "python"
        if venv_python.exists() and Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
            os.execv(str(venv_python), [str(venv_python), *sys.argv])
        script = Path(sys.argv[0]).name
        sys.stderr.write(
            f"{script}: missing Python package '{exc.name}'. Run ./scripts/test once (it creates .venv "
            "with everything), or: pip install -e .\n"
        )
        sys.exit(2)

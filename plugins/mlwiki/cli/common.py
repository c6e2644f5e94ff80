"""Helpers shared by the command-line adapters: where the wiki is."""

from __future__ import annotations

import os
from pathlib import Path


def default_wiki_dir() -> Path:
    """``$MLWIKI_DIR``, else ``wiki/`` in the current directory, else the repository's ``wiki/``."""
    env = os.environ.get("MLWIKI_DIR")
    if env:
        return Path(env)
    here = Path.cwd() / "wiki"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[3] / "wiki"

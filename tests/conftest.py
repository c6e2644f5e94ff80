from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins"))
sys.path.insert(0, str(ROOT / "tests"))

# Tests never read or write the user's search-index cache.
import os  # noqa: E402
import tempfile  # noqa: E402

os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="mlwiki-test-cache-")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def shipped(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The shipped wiki built once per test session with --strict."""
    from sitefix import build

    result = build(ROOT, tmp_path_factory.mktemp("shipped") / "site")
    assert result.code == 0, result.log
    return result

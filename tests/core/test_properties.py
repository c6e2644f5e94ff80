"""Property tests over the real wiki: any one field of any shipped page replaced by a value of
the wrong type or a hostile string gives a diagnostic with a code and ``file:line`` (exit 1),
or exit 0 when the value happens to be valid, and never a traceback: in the linter, in
``mkdocs build``, in the runner and in the query CLI.

Fixed seed (``derandomize``). The full counts (1,000 linter, 50 build, 200 runner, 200 query)
run by default; CI (``CI=true``) runs the faster profile, a fifth of each.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from mlwiki.cli import lint as lint_cli
from mlwiki.cli import query as query_cli
from mlwiki.cli import run as run_cli
from mlwiki.core import check, load
from mutate import HOSTILE_STRINGS, PathKey, Source, mutations, shipped_sources, write_mutated_wiki
from sitefix import MKDOCS_YML
from wikifix import REPO

FAST = os.environ.get("CI", "").lower() == "true" or os.environ.get("MLWIKI_FAST_PROPERTIES") == "1"
SCALE = 5 if FAST else 1
SOURCES = shipped_sources()


def _settings(n: int) -> Any:
    return settings(
        max_examples=max(1, n // SCALE),
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _call(fn: Any, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8", "surrogatepass")), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = fn(argv)
            except SystemExit as exc:  # argparse usage errors exit 2 with a message
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin = old_stdin
    return int(code), out.getvalue(), err.getvalue()


def test_the_mutation_space_is_the_whole_wiki() -> None:
    kinds = {s.kind for s in SOURCES}
    assert kinds == {"symptom", "playbook", "workflow", "action", "concept", "entity", "tool"}
    nested = [p for s in SOURCES for p in _fields(s) if len(p) >= 3]
    assert len(SOURCES) >= 250 and len(nested) > 1000


def _fields(s: Source) -> list[PathKey]:
    from mutate import fields_of

    return fields_of(s)


@_settings(1000)
@given(mutations(SOURCES))
def test_linter_never_crashes(m: tuple[Source, PathKey, Any]) -> None:
    src, path, value = m
    with tempfile.TemporaryDirectory() as tmp:
        wiki_dir = write_mutated_wiki(Path(tmp), SOURCES, src, path, value)
        code, out, err = _call(lint_cli.main, ["--wiki", str(wiki_dir), "--format", "json"])
        assert err == "" or "Traceback" not in err, err
        report = json.loads(out)
        diags = report["issues"]
        assert code == (1 if diags else 0), report
        for d in diags:
            assert d["code"].startswith("MLW") and d["file"].startswith("wiki/") and d["line"] >= 1, d
        # The value is not silently dropped: a wrong type in the mutated file is reported there.
        if not isinstance(value, str) and code == 0:
            assert _valid_anyway(wiki_dir, src), (src.rel, path, value)


def _valid_anyway(wiki_dir: Path, src: Source) -> bool:
    """True when the mutated page still passed its schema (e.g. a list item became a list)."""
    page = load(wiki_dir).pages.get(Path(src.rel).stem)
    return page is not None and page.valid


def _site(root: Path) -> Path:
    docs = root / "docs_src"
    (docs / "overrides").mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS_YML.replace("validation:", "not_in_nav: |\n  /**\nvalidation:"), "utf-8")
    return root


@_settings(50)
@given(mutations(SOURCES))
def test_build_never_crashes(m: tuple[Source, PathKey, Any]) -> None:
    src, path, value = m
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        wiki_dir = write_mutated_wiki(root, SOURCES, src, path, value)
        errors = [d for d in check(load(wiki_dir)) if d.severity.value == "error"]
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO / "plugins")}
        proc = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(_site(root) / "mkdocs.yml")],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        log = proc.stdout + proc.stderr
        assert "Traceback" not in log, log[-3000:]
        if errors:
            assert proc.returncode != 0 and "the site was not built" in log, log[-2000:]
            assert errors[0].format_text() in log
        else:
            assert proc.returncode == 0, log[-2000:]


@_settings(200)
@given(mutations(SOURCES, kinds=("action", "workflow")))
def test_runner_never_crashes(m: tuple[Source, PathKey, Any]) -> None:
    src, path, value = m
    page_id = Path(src.rel).stem
    with tempfile.TemporaryDirectory() as tmp:
        wiki_dir = write_mutated_wiki(Path(tmp), SOURCES, src, path, value)
        given_params = {k: v.get("example", "x") for k, v in (src.data.get("parameters") or {}).items()}
        target = ["--workflow", page_id] if src.kind == "workflow" else [page_id]
        env_before = os.environ.get("MLWIKI_RUNS_DIR")
        os.environ["MLWIKI_RUNS_DIR"] = str(Path(tmp) / "runs")
        try:
            code, _out, err = _call(
                run_cli.main, [*target, json.dumps(given_params), "--dry-run", "--wiki", str(wiki_dir)]
            )
        finally:
            if env_before is None:
                os.environ.pop("MLWIKI_RUNS_DIR", None)
            else:
                os.environ["MLWIKI_RUNS_DIR"] = env_before
        assert "Traceback" not in err, err
        assert code in (0, 1, 2, 3, 4, 5, 10), (code, err)
        if code == 2:
            assert "error" in err, err


@_settings(200)
@given(mutations(SOURCES), __import__("hypothesis").strategies.sampled_from(HOSTILE_STRINGS + ["NCCL timeout"]))
def test_query_cli_never_crashes(m: tuple[Source, PathKey, Any], query: str) -> None:
    src, path, value = m
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        try:
            wiki_dir = write_mutated_wiki(Path(tmp), SOURCES, src, path, value)
            argv = ["-", "--json", "--wiki", str(wiki_dir)]
            code, out, err = _call(query_cli.main, argv, stdin=query)
        finally:
            os.environ.pop("XDG_CACHE_HOME", None)
        assert "Traceback" not in err, err
        assert code in (0, 1, 2), (code, err)
        if code == 0:
            assert isinstance(json.loads(out)["results"], list)


@pytest.mark.parametrize("value", [None, "ten", 3.5, [1], {"a": 1}])
def test_timeout_s_of_the_wrong_type_is_a_diagnostic(tmp_path: Path, value: Any) -> None:
    """The crash that started this: ``"timeout_s": "ten"`` in an action."""
    src = next(s for s in SOURCES if s.kind == "action" and "timeout_s" in s.data)
    wiki_dir = write_mutated_wiki(tmp_path, SOURCES, src, ("timeout_s",), value)
    found = [d for d in check(load(wiki_dir)) if d.code == "MLW004"]
    assert any("'timeout_s' must be an integer" in d.message for d in found), found

"""Fixture sites build with --strict; each build-failure class fails naming file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from sitefix import build, make_site
from wikifix import CONCEPT, SYMPTOM, base_files


def test_fixture_site_builds_strict(tmp_path: Path) -> None:
    result = build(make_site(tmp_path, dict(base_files())))
    assert result.code == 0, result.log
    assert (result.site / "symptoms" / "disk-full" / "index.html").is_file()


@pytest.mark.parametrize(
    ("name", "changes", "expected"),
    [
        (
            "broken-wikilink",
            {"concepts/disk-basics.md": CONCEPT.replace("[[disk-full]]", "[[disk-fulll]]")},
            "wiki/concepts/disk-basics.md:11:17: MLW010 unknown wikilink target 'disk-fulll'; did you mean 'disk-full'?",
        ),
        (
            "schema-error",
            {"concepts/disk-basics.md": CONCEPT.replace("platforms: [gke]", "platforms: [gke]\ncolour: red")},
            "wiki/concepts/disk-basics.md:8:1: MLW004 unknown key 'colour'",
        ),
        (
            "bad-anchor",
            {"symptoms/disk-full.md": SYMPTOM.replace("#how-disks-fill", "#how-disks-filled")},
            "wiki/symptoms/disk-full.md:22:",
        ),
        (
            "bad-yaml",
            {"concepts/disk-basics.md": CONCEPT.replace("title: Disk basics", "title: [oops")},
            "wiki/concepts/disk-basics.md:5:",
        ),
    ],
)
@pytest.mark.parametrize(("strict", "flags"), [(False, ()), (False, ("-q",)), (True, ("-q",)), (True, ("-v",))])
def test_build_fails_with_location(
    tmp_path: Path, name: str, changes: dict[str, str], expected: str, strict: bool, flags: tuple[str, ...]
) -> None:
    """A wiki error stops the build whatever the flags: plain, -q, --strict -q, --strict -v."""
    files: dict[str, str | bytes] = dict(base_files())
    files.update(changes)
    result = build(make_site(tmp_path, files), strict=strict, flags=flags)
    assert result.code != 0, result.log
    assert expected in result.log, result.log
    assert "Traceback" not in result.log, result.log
    assert "the site was not built" in result.log
    assert not (result.site / "index.html").exists()


def test_docs_page_wikilink_errors_fail_the_build(tmp_path: Path) -> None:
    home = "# Home\n\nSee [[disk-fulll]] and [[disk-basics#no-such-heading]].\n"
    result = build(make_site(tmp_path, dict(base_files()), home=home), strict=False, flags=("-q",))
    assert result.code != 0, result.log
    assert "docs_src/index.md:3:5: MLW010 unknown wikilink target 'disk-fulll'; did you mean 'disk-full'?" in result.log
    assert "docs_src/index.md:3:24: MLW011 unknown anchor '#no-such-heading' on page 'disk-basics'" in result.log


def test_on_error_warn_builds_and_shows_errors_on_the_page(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["concepts/disk-basics.md"] = CONCEPT.replace("platforms: [gke]", "platforms: [gke]\ncolour: red")
    files["symptoms/disk-full.md"] = SYMPTOM.replace("#how-disks-fill", "#how-disks-filled")
    project = make_site(tmp_path, files)
    yml = project / "mkdocs.yml"
    yml.write_text(yml.read_text(encoding="utf-8").replace("  - mlwiki\n", "  - mlwiki:\n      on_error: warn\n"))
    result = build(project, strict=False)
    assert result.code == 0, result.log
    assert "MLW004 unknown key 'colour'" in result.log
    stub = (result.site / "concepts" / "disk-basics" / "index.html").read_text(encoding="utf-8")
    assert "This page has errors and is not shown" in stub
    assert "unknown key &#x27;colour&#x27;" in stub or "unknown key &#39;colour&#39;" in stub or "unknown key 'colour'" in stub
    page = (result.site / "symptoms" / "disk-full" / "index.html").read_text(encoding="utf-8")
    assert "This page has 1 error" in page and "MLW011" in page


def test_bad_anchor_reports_code(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["symptoms/disk-full.md"] = SYMPTOM.replace("#how-disks-fill", "#how-disks-filled")
    result = build(make_site(tmp_path, files))
    assert (
        "MLW011 unknown anchor '#how-disks-filled' on page 'disk-basics'; did you mean 'how-disks-fill'?" in result.log
    )


def test_all_problems_in_one_build(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["concepts/disk-basics.md"] = CONCEPT.replace("[[disk-full]]", "[[nope]]").replace(
        "tags: [gke]", "tags: [gke, zzz]"
    )
    result = build(make_site(tmp_path, files))
    assert "MLW010 unknown wikilink target 'nope'" in result.log
    assert "MLW020 tag 'zzz' is not in the vocabulary" in result.log


def test_missing_wiki_dir_is_a_plugin_error(tmp_path: Path) -> None:
    project = make_site(tmp_path, dict(base_files()))
    import shutil

    shutil.rmtree(project / "wiki")
    result = build(project)
    assert result.code != 0
    assert "mlwiki: wiki directory" in result.log and "does not exist" in result.log
    assert "Traceback" not in result.log


def test_unknown_wikilink_in_docs_page(tmp_path: Path) -> None:
    result = build(make_site(tmp_path, dict(base_files()), home="# Home\n\nSee [[no-such-page]].\n"))
    assert result.code != 0
    assert "docs_src/index.md:3:5: MLW010 unknown wikilink target 'no-such-page'" in result.log


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=5) as r:
        return str(r.read().decode("utf-8"))


def _wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if predicate():
                return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


def test_serve_keeps_serving_shows_errors_and_recovers(tmp_path: Path) -> None:
    """Under serve a wiki error is logged and shown on its page, the server stays up, and the
    page is clean again once the file is fixed; serve writes nothing into the wiki."""
    import os
    import subprocess
    import sys

    from wikifix import REPO

    files: dict[str, str | bytes] = dict(base_files())
    files["symptoms/disk-full.md"] = SYMPTOM.replace("#how-disks-fill", "#how-disks-filled")
    project = make_site(tmp_path, files)
    before = {p: p.read_bytes() for p in (project / "wiki").rglob("*") if p.is_file()}
    port = _free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO / "plugins")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml"), "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/symptoms/disk-full/"
    try:
        assert _wait_for(lambda: "MLW011" in _get(url), 60), "serve did not show the error on the page"
        (project / "wiki" / "symptoms" / "disk-full.md").write_text(SYMPTOM, encoding="utf-8")
        assert _wait_for(lambda: "MLW011" not in _get(url) and "Disk" in _get(url), 60), "serve did not recover"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert "wiki/symptoms/disk-full.md:22:" in out and "MLW011" in out, out
    assert "Traceback" not in out, out
    after = {p: p.read_bytes() for p in (project / "wiki").rglob("*") if p.is_file()}
    changed = sorted(str(p) for p in set(before) | set(after) if before.get(p) != after.get(p))
    assert changed == [str(project / "wiki" / "symptoms" / "disk-full.md")]

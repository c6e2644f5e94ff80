"""The linter's command-line interface: JSON report, text and GitHub formats, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from wikifix import CONCEPT, REPO, base_files, write_wiki


def lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "wiki_linter.py"), *args], capture_output=True, text=True, check=False
    )


def broken(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = dict(base_files())
    files["concepts/disk-basics.md"] = CONCEPT.replace("[[disk-full]]", "[[disk-ful]]")
    return write_wiki(tmp_path, files)


def test_default_is_a_json_report(tmp_path: Path) -> None:
    proc = lint("--wiki", str(write_wiki(tmp_path, dict(base_files()))))
    report = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert report["status"] == "PASS" and report["issues"] == []
    assert report["stats"]["pages"] == 4 and report["stats"]["by_type"]["symptom"] == 1


def test_fail_report_fields(tmp_path: Path) -> None:
    proc = lint("--wiki", str(broken(tmp_path)))
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and report["status"] == "FAIL"
    issue = next(i for i in report["issues"] if i["code"] == "MLW010")
    assert issue == {"file": "wiki/concepts/disk-basics.md", "line": 11, "column": 17, "code": "MLW010",
                     "severity": "error", "message": "unknown wikilink target 'disk-ful'; did you mean 'disk-full'?"}  # fmt: skip


def test_text_format(tmp_path: Path) -> None:
    proc = lint("--wiki", str(broken(tmp_path)), "--format", "text")
    assert (
        "wiki/concepts/disk-basics.md:11:17: MLW010 unknown wikilink target 'disk-ful'; did you mean 'disk-full'?"
        in proc.stdout
    )
    assert proc.stderr.strip().startswith("FAIL: 4 pages, ")


def test_github_format(tmp_path: Path) -> None:
    proc = lint("--wiki", str(broken(tmp_path)), "--format", "github")
    assert (
        "::error file=wiki/concepts/disk-basics.md,line=11,col=17,title=MLW010::unknown wikilink target 'disk-ful'"
        in proc.stdout
    )


def test_missing_wiki_dir(tmp_path: Path) -> None:
    proc = lint("--wiki", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert f"wiki_linter.py: error: wiki directory '{tmp_path / 'nope'}' does not exist" in proc.stderr


def test_write_index(tmp_path: Path) -> None:
    wiki = write_wiki(tmp_path, dict(base_files()), index=False)
    proc = lint("--wiki", str(wiki), "--write-index")
    assert proc.returncode == 0
    assert (wiki / "INDEX.md").read_text().startswith("# Index of the wiki")


def test_shipped_wiki_passes() -> None:
    proc = lint()
    report = json.loads(proc.stdout)
    assert report["status"] == "PASS", report["issues"][:5]
    assert report["stats"]["pages"] >= 250

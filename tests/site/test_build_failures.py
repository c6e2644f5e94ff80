"""Fixture sites build with --strict; each build-failure class fails naming file and line."""

from __future__ import annotations

from pathlib import Path

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
def test_build_fails_with_location(tmp_path: Path, name: str, changes: dict[str, str], expected: str) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files.update(changes)
    result = build(make_site(tmp_path, files))
    assert result.code != 0
    assert expected in result.log, result.log


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

"""Unreadable or odd files get a clear diagnostic or are handled; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlwiki.core import check, load
from wikifix import CONCEPT, base_files, write_wiki

CON = "concepts/disk-basics.md"


def diags(tmp_path: Path, content: str | bytes) -> list[tuple[str, str, int, str]]:
    files: dict[str, str | bytes] = dict(base_files())
    files[CON] = content
    wiki = write_wiki(tmp_path, files)
    return [(d.code, d.location.file, d.location.line, d.message) for d in check(load(wiki))]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "file looks binary (contains NUL bytes)"),
        (b"", "file is empty"),
        (b"   \n\n", "file is empty"),
        (
            CONCEPT.encode("utf-8").replace(b"Disk basics", b"Disk b\xe4sics", 1),
            "file is not valid UTF-8 (byte 0xe4 at offset 47)",
        ),
        (CONCEPT.encode("utf-8") + b"x" * 5_000_000, "file is 5.0 MB, over the 1 MB limit for a wiki page"),
    ],
    ids=["binary", "empty", "blank", "latin1", "5mb"],
)
def test_unreadable_file(tmp_path: Path, content: bytes, message: str) -> None:
    found = diags(tmp_path, content)
    assert any(c == "MLW001" and f == f"wiki/{CON}" and m == message for c, f, _, m in found), found


def test_non_utf8_points_at_the_line(tmp_path: Path) -> None:
    content = CONCEPT.encode("utf-8").replace(b"Logs and checkpoints.", b"Logs \xff checkpoints.")
    found = diags(tmp_path, content)
    assert ("MLW001", f"wiki/{CON}", 15) in [(c, f, ln) for c, f, ln, _ in found]


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    content = b"\xef\xbb\xbf" + CONCEPT.replace("\n", "\r\n").encode("utf-8")
    assert diags(tmp_path, content) == []


def test_crlf_keeps_line_numbers(tmp_path: Path) -> None:
    bad = CONCEPT.replace("Disks fill; see [[disk-full]].", "See [[nope]].").replace("\n", "\r\n")
    found = diags(tmp_path, bad.encode("utf-8"))
    assert ("MLW010", f"wiki/{CON}", 11) in [(c, f, ln) for c, f, ln, _ in found]


def test_wrong_extension_in_type_folder(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["symptoms/notes.txt"] = "hello"
    wiki = write_wiki(tmp_path, files)
    msgs = [d.message for d in check(load(wiki)) if d.code == "MLW005"]
    assert msgs == ["'notes.txt' is in symptoms/ but symptom pages are .md files"]


def test_json_must_be_an_object(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = dict(base_files())
    files["actions/check-disk.json"] = "[1, 2]\n"
    wiki = write_wiki(tmp_path, files)
    assert ("MLW003", "a JSON page must be one object") in [(d.code, d.message) for d in check(load(wiki))]


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    found = diags(tmp_path, CONCEPT.replace("platforms: [gke]", "platforms: [gke]\ntitle: Again"))
    assert ("MLW002", f"wiki/{CON}", 8, "invalid YAML: duplicate key 'title'") in found


def test_the_generated_index_may_pass_1_mb_but_not_50(tmp_path: Path) -> None:
    """INDEX.md lists every page, so a 10,000-page wiki's is ~2.5 MB: read, not refused; a
    runaway one is refused with the command that regenerates it."""
    from mlwiki.core.source import MAX_INDEX_BYTES, read_source

    files: dict[str, str | bytes] = dict(base_files())
    files["INDEX.md"] = "# Index\n\n" + "- [[disk-basics]] a page about disks and how they fill up\n" * 40_000
    wiki = write_wiki(tmp_path, files)
    assert (wiki / "INDEX.md").stat().st_size > 2_000_000
    assert [d for d in check(load(wiki)) if d.code == "MLW001"] == []
    index = tmp_path / "INDEX.md"
    index.write_bytes(b"x" * 50_000_001)
    diag = read_source(index, "wiki/INDEX.md", MAX_INDEX_BYTES)
    assert getattr(diag, "message", "") == "file is 50.0 MB, over the 50 MB limit for the generated index"
    assert "--write-index" in getattr(diag, "hint", "")
    other = tmp_path / "big.md"
    other.write_bytes(b"x" * 2_500_000)
    assert getattr(read_source(other, "wiki/concepts/big.md"), "message", "").endswith("over the 1 MB limit for a wiki page")

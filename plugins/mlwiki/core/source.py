"""Read one wiki file as text, turning every way a file can be unreadable into a diagnostic.

bytes -> (text with LF line endings, no BOM) | Diagnostic(MLW001)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlwiki.core.diagnostics import Diagnostic, Location

MAX_BYTES = 1_000_000
# INDEX.md is generated: one line per page, so it grows with the wiki (about 2.5 MB at 10,000 pages).
MAX_INDEX_BYTES = 50_000_000


@dataclass(frozen=True)
class SourceText:
    rel: str
    text: str


def read_source(path: Path, rel: str, limit: int = MAX_BYTES) -> SourceText | Diagnostic:
    """Decode ``path`` as UTF-8 (BOM and CRLF accepted); anything else is an MLW001 diagnostic.
    ``limit`` is MAX_INDEX_BYTES for the generated INDEX.md, MAX_BYTES for every other file."""
    loc = Location(rel, 1, 1)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Diagnostic("MLW001", f"cannot read file: {exc.strerror or exc}", loc)
    index = limit == MAX_INDEX_BYTES
    if len(data) > limit:
        mb = len(data) / 1_000_000
        what = "the generated index" if index else "a wiki page"
        return Diagnostic(
            "MLW001",
            f"file is {mb:.1f} MB, over the {limit // 1_000_000} MB limit for {what}",
            loc,
            hint="regenerate it: python3 scripts/wiki_linter.py --write-index" if index else "split it into several pages",
        )
    if b"\x00" in data:
        return Diagnostic("MLW001", "file looks binary (contains NUL bytes)", loc)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return Diagnostic(
            "MLW001",
            f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            Location(rel, line, col),
            hint="save it as UTF-8",
        )
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return Diagnostic("MLW001", "file is empty", loc)
    return SourceText(rel, text)

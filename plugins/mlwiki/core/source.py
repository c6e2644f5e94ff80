"""Read one wiki file as text, turning every way a file can be unreadable into a diagnostic.

bytes -> (text with LF line endings, no BOM) | Diagnostic(MLW001)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlwiki.core.diagnostics import Diagnostic, Location

MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class SourceText:
    rel: str
    text: str


def read_source(path: Path, rel: str) -> SourceText | Diagnostic:
    """Decode ``path`` as UTF-8 (BOM and CRLF accepted); anything else is an MLW001 diagnostic."""
    loc = Location(rel, 1, 1)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Diagnostic("MLW001", f"cannot read file: {exc.strerror or exc}", loc)
    if len(data) > MAX_BYTES:
        mb = len(data) / 1_000_000
        return Diagnostic(
            "MLW001",
            f"file is {mb:.1f} MB, over the {MAX_BYTES // 1_000_000} MB limit for a wiki page",
            loc,
            hint="split it into several pages",
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

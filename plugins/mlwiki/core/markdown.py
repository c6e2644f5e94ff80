"""Scan Markdown text without rendering it: code masking, headings and their anchors, wikilinks.

body text -> masked text (code replaced by spaces, offsets kept) -> headings, wikilinks,
unsafe-HTML findings. The MkDocs plugin rewrites wikilinks using the same spans, so the site
and the linter always agree on what is a link.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NEWLINE = re.compile("\n")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# A code span may wrap onto the next line of its paragraph (CommonMark), never past a blank line.
CODE_SPAN = re.compile(r"(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))+?)(?<!`)\1(?!`)")
WIKILINK = re.compile(r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
ATTR_ID = re.compile(r"\s*\{[^}]*#([\w-]+)[^}]*\}\s*$")
UNSAFE = (
    (re.compile(r"<\s*script\b", re.I), "raw <script> tag"),
    (re.compile(r"<\s*iframe\b", re.I), "raw <iframe> tag"),
    (re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I), "inline on* event handler"),
    (re.compile(r"javascript\s*:", re.I), "javascript: URL"),
)


@dataclass(frozen=True)
class WikiLink:
    """``[[target#anchor|label]]`` found at ``offset`` (into the body) with its 1-based position."""

    target: str
    anchor: str
    label: str
    start: int
    end: int
    line: int
    column: int


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str
    line: int


def mask_code(text: str) -> str:
    """Replace fenced code blocks and inline code spans with spaces, keeping every offset and
    newline (a code span may wrap onto the next line of its paragraph)."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if prose:
            chunk = CODE_SPAN.sub(lambda s: re.sub(r"[^\n]", " ", s.group(0)), "\n".join(prose))
            out.extend(chunk.split("\n"))
            prose.clear()

    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence is None and m:
            flush()
            fence = m.group(1)
            out.append(" " * len(line))
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end() :].strip():
                fence = None
            out.append(" " * len(line))
            continue
        prose.append(line)
    flush()
    return "\n".join(out)


def slugify(value: str) -> str:
    """Heading anchor exactly as Python-Markdown's toc extension makes it by default."""
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def heading_text(raw: str) -> str:
    """The visible text of a heading's inline Markdown (what the toc extension slugifies)."""
    text = WIKILINK.sub(lambda m: (m.group(3) or m.group(1)).strip(), raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"(`+)(.+?)\1", r"\2", text)
    text = re.sub(r"(\*\*|__|\*|_)(\S.*?\S|\S)\1", r"\2", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.strip()


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def at(self, offset: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


def find_headings(text: str, masked: str, first_line: int = 1) -> list[Heading]:
    """ATX headings outside code, with unique anchors (``x``, ``x_1``, ...) as toc makes them."""
    seen: dict[str, int] = {}
    headings: list[Heading] = []
    lines = text.split("\n")
    for n, mline in enumerate(masked.split("\n")):
        m = HEADING.match(mline)
        if not m:
            continue
        raw = lines[n][m.start(2) : m.end(2)]
        attr = ATTR_ID.search(raw)
        if attr:
            anchor = attr.group(1)
            raw = raw[: attr.start()]
        else:
            anchor = slugify(heading_text(raw))
        if anchor in seen:
            seen[anchor] += 1
            anchor = f"{anchor}_{seen[anchor]}"
        else:
            seen[anchor] = 0
        headings.append(Heading(len(m.group(1)), heading_text(raw), anchor, first_line + n))
    return headings


def find_wikilinks(masked: str, first_line: int = 1) -> list[WikiLink]:
    links: list[WikiLink] = []
    if "[[" not in masked:
        return links
    lines = _Lines(masked)
    for m in WIKILINK.finditer(masked):
        line, col = lines.at(m.start())
        links.append(
            WikiLink(
                target=m.group(1).strip(),
                anchor=(m.group(2) or "").strip(),
                label=(m.group(3) or "").strip(),
                start=m.start(),
                end=m.end(),
                line=first_line + line - 1,
                column=col,
            )
        )
    return links


def find_unsafe_html(masked: str, first_line: int = 1) -> list[tuple[int, int, str]]:
    """(line, column, what) for each raw script/iframe/on*=/javascript: outside code."""
    found: list[tuple[int, int, str]] = []
    lines: _Lines | None = None
    for pattern, what in UNSAFE:
        for m in pattern.finditer(masked):
            lines = lines or _Lines(masked)
            line, col = lines.at(m.start())
            found.append((first_line + line - 1, col, what))
    return sorted(found)

"""The tokenizer, specified so the JavaScript port can match it exactly.

A raw token is a run of word characters (ASCII letters and digits, and the letters of other
scripts in U+00C0..U+1FFF and U+2C00..U+D7FF) possibly joined by ``_ . : / -``. Each raw token
yields: itself (lower-cased), its parts split at the joiners, the runs of ASCII and of other
scripts of each part ("NCCL超时" yields "nccl" and "超时"), and the camelCase pieces of each run.
Tokens of one character, stop words and tokens longer than 64 characters are dropped.
Trailing punctuation never sticks to a token, because it is not a word character.
"""

from __future__ import annotations

import functools
import re

WORD = "0-9A-Za-z\u00c0-\u1fff\u2c00-\ud7ff"
RAW = re.compile(f"[{WORD}]+(?:[_.:/\\-][{WORD}]+)*")
JOINERS = re.compile(r"[_.:/\-]")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
SCRIPT = re.compile(r"[0-9A-Za-z]+|[^0-9A-Za-z]+")  # ASCII runs and runs of other scripts
STOPWORDS = (
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it",
    "of", "on", "or", "that", "the", "this", "to", "was", "were", "with",
)  # fmt: skip
_STOP = frozenset(STOPWORDS)
MAX_TOKEN = 64


def keep(tok: str) -> bool:
    return 1 < len(tok) <= MAX_TOKEN and tok not in _STOP


def raw_tokens(text: str) -> list[str]:
    return RAW.findall(text)


@functools.lru_cache(maxsize=200_000)
def _expand(raw: str) -> tuple[str, ...]:
    return tuple(expand(raw))


def expand(raw: str) -> list[str]:
    """The index terms of one raw token, whole first, in a fixed order, without repeats."""
    out: list[str] = []

    def add(t: str) -> None:
        t = t.lower()
        if keep(t) and t not in out:
            out.append(t)

    add(raw)
    parts = JOINERS.split(raw)
    for part in parts:
        if len(parts) > 1:
            add(part)
        runs = SCRIPT.findall(part)  # "NCCL超时" is "NCCL" and "超时": no space between scripts
        for run in runs:
            if len(runs) > 1:
                add(run)
            pieces = CAMEL.findall(run)
            if len(pieces) > 1 and "".join(pieces) == run:
                for piece in pieces:
                    add(piece)
    return out


def tokenize(text: str) -> list[str]:
    """Every term of ``text`` in order (repeats kept: term frequency counts when indexing)."""
    out: list[str] = []
    for raw in raw_tokens(text):
        out.extend(_expand(raw))
    return out


def is_compound(token: str) -> bool:
    return JOINERS.search(token) is not None

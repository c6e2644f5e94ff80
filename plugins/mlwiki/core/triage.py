"""Triage a whole log: stream megabytes from many workers, find the lines that match a symptom's
signatures as message shapes, tell the first failure from its echoes, and route it.

Built once from the search payload (the same documents the site and the query CLI rank):

    payload docs -> Shape per signature (constant words in order; numbers, hex, sizes, ranks,
    pids, IPs, host/pod names, paths and timestamps are variable on both sides)
    -> one prefilter regex (a trie of each shape's rarest constant word, lower case)
    -> streamed input in 1 MiB blocks: prefilter hits -> their lines -> exact shape check
    -> per page: first occurrence (file, line, timestamp), count, workers, matched lines
    -> error-looking lines that match no shape: kept (first, count) and ranked by search
    -> ranking: pages that are echoes (``echo_of`` another matched page) below the pages they
       echo; then earliest first occurrence; then count.

Memory stays constant: only counts, first occurrences and a few example lines are kept, and a
line longer than ``MAX_LINE`` is examined in windows around its prefilter hits.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

SPEC_PATH = Path(__file__).with_name("triage_spec.json")
SPEC: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
"""The one specification of shapes and ranking, shared with the site's triage.js."""

BLOCK: int = SPEC["block_bytes"]
MAX_LINE: int = SPEC["max_line"]
MIN_FRAGMENT: int = SPEC["min_fragment"]
ANCHORS_PER_SHAPE: int = SPEC["anchors_per_shape"]
MAX_EVIDENCE: int = SPEC["max_evidence"]
MAX_UNMATCHED: int = SPEC["max_unmatched"]
MAX_CANDIDATES: int = SPEC["max_candidates"]
GUESS_LINES: int = SPEC["guess_lines"]
GROUP_GAP: int = SPEC["group_gap"]
EVIDENCE_CHARS: int = SPEC["evidence_chars"]
BINARY_PROBE: int = SPEC["binary_probe"]
_WORDBYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
# Bytes of text: printable ASCII, tab, newline, carriage return, escape (ANSI colours), UTF-8.
TEXT_BYTES = bytes(b for lo, hi in SPEC["text_byte_ranges"] for b in range(lo, hi + 1))

# Tokens: runs of word characters with inner . - / or a single : (so "ProcessGroupNCCL.cpp",
# "10.0.0.1:8476", "gke-tpu-abc-x7k2", "/tmp/libtpu_lockfile" are one token each, while "::" of C++
# names separates). ASCII mode everywhere, as in JS.
TOKEN = re.compile(SPEC["token"], re.ASCII)
ANSI = re.compile(SPEC["ansi"], re.ASCII)
VAR = "\x00"
# Words too common in ordinary logs to anchor a prefilter on.
COMMON = frozenset(SPEC["common_words"])
ERRORISH = re.compile(SPEC["errorish"], re.ASCII)
ERROR_WORDS: tuple[str, ...] = tuple(SPEC["error_words"])
_ERROR_SET = frozenset(w.encode("ascii") for w in ERROR_WORDS)
TIMESTAMPS = tuple(re.compile(p, re.ASCII) for p in SPEC["timestamps"])
WORKER = re.compile(SPEC["worker"], re.ASCII)
FRAME = re.compile(SPEC["frame"], re.ASCII)
QUALIFIED = re.compile(SPEC["qualified"], re.ASCII)
FRAME_PREFIX: str = SPEC["frame_prefix"]
CANDIDATE, FRAME_LINE = 1, 2  # flags of a found line


_VARIABLE = re.compile(r"[0-9/]").search  # a token that differs between runs: a digit, or a path
_DIGITS = re.compile(r"[0-9]+")
_SHAPE_CACHE: dict[str, list[str]] = {}
_SHAPE_CACHE_MAX = 4096


def shape_tokens(text: str) -> list[str]:
    """Lower-case constant words of ``text``, with one ``VAR`` marker per run of variable tokens;
    a qualified exception name is its class alone ("torch.cuda.OutOfMemoryError" is
    "outofmemoryerror", as loggers that print only the class write it). Memoised on the text with digit runs masked (a digit run only ever makes its token variable,
    so lines that differ in numbers alone have the same shape): log lines repeat."""
    key = _DIGITS.sub("0", text)
    cached = _SHAPE_CACHE.get(key)
    if cached is not None:
        return cached
    out: list[str] = []
    for tok in TOKEN.findall(key):
        if _VARIABLE(tok) is not None:
            if not out or out[-1] != VAR:
                out.append(VAR)
        else:
            q = QUALIFIED.match(tok)
            out.append((q.group(1) if q else tok).lower())
    if len(_SHAPE_CACHE) >= _SHAPE_CACHE_MAX:
        _SHAPE_CACHE.clear()
    _SHAPE_CACHE[key] = out
    return out


@dataclass(frozen=True)
class Shape:
    page: str
    text: str  # the signature as written
    words: tuple[str, ...]  # its constant words, in order (variable tokens dropped)
    anchors: tuple[str, ...]  # its uncommon words: a line holding one is examined
    weak: bool = False  # the same word sequence belongs to two or more pages
    digits: str = ""  # the signature lower-cased with whitespace collapsed: exact-digit tiebreak
    numbers: tuple[str, ...] = ()  # its digit runs in order (error codes: "(30)" is not "(35)")

    def matches(self, line_words: Sequence[str]) -> bool:
        """The signature's constant words occur contiguously, in order, in the line's; or the
        line (at least ``MIN_FRAGMENT`` words) is a contiguous part of the signature, as when
        a log wraps or truncates a long message."""
        return _contains(line_words, self.words) or (
            len(line_words) >= MIN_FRAGMENT and _contains(self.words, line_words)
        )


def _numbers_within(line: Sequence[str], sig: Sequence[str]) -> bool:
    """The line's numbers, all of them and in order, are numbers of the signature: a truncated
    or re-spaced line ("RuntimeError :cuda runtime error (30)") carries the same error code."""
    return bool(line) and _contains(sig, line)


def _contains(hay: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    if n == 0 or n > len(hay):
        return False
    first = needle[0]
    needle_t = tuple(needle)
    return any(hay[i] == first and tuple(hay[i : i + n]) == needle_t for i in range(len(hay) - n + 1))


def line_words(text: str) -> list[str]:
    """The constant words of a line, lower case, in order."""
    return [t for t in shape_tokens(text) if t != VAR]


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def compile_shapes(docs: Iterable[Mapping[str, Any]]) -> list[Shape]:
    """One Shape per signature specific enough to match a line by itself: at least two constant
    words, or one constant word of 12+ characters (``scale.up.error.quota.exceeded``)."""
    shapes = []
    owners: dict[tuple[str, ...], set[str]] = {}
    for doc in docs:
        for text in doc.get("signatures") or ():
            words = [t for t in shape_tokens(text) if t != VAR]
            if not words or (len(words) < 2 and len(words[0]) < SPEC["single_word_shape_min_length"]):
                continue
            # Anchors: the uncommon words (identifiers such as processgroupnccl.cpp or
            # ncclinternalerror are rare in ordinary log lines); a fragment of the message that
            # lacks the rarest one is still examined through another.
            pool = {w for w in words if w not in COMMON and len(w) >= SPEC["anchor_min_length"]} or {
                w for w in words if len(w) >= SPEC["anchor_fallback_min_length"]
            }
            anchors = sorted(sorted(pool, key=lambda w: (-len(w), w))[:ANCHORS_PER_SHAPE])
            if not anchors:
                continue
            owners.setdefault(tuple(words), set()).add(doc["ref"])
            shapes.append(
                Shape(doc["ref"], text, tuple(words), tuple(anchors), False, _squash(text), tuple(_DIGITS.findall(text)))
            )
    # Generic shapes are weak too: a few words that shapes of many pages use ("connect ...
    # Connection refused", "Exit Code: 139") say little about which page a line belongs to.
    pages_of: dict[str, set[str]] = {}
    for s in shapes:
        for w in s.words:
            pages_of.setdefault(w, set()).add(s.page)

    def generic(words: tuple[str, ...]) -> bool:
        return len(words) <= SPEC["generic_shape_max_words"] and all(
            len(pages_of[w]) >= SPEC["generic_word_min_pages"] for w in words
        )

    return [
        Shape(s.page, s.text, s.words, s.anchors, len(owners[s.words]) > 1 or generic(s.words), s.digits, s.numbers)
        for s in shapes
    ]


def _trie_pattern(words: Iterable[str]) -> str:
    trie: dict[str, Any] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


@dataclass
class PageHit:
    page: str
    count: int = 0
    first: dict[str, Any] | None = None
    first_key: tuple[Any, ...] = ()
    exact: bool = False  # the signature's digits are exactly those of the first line
    words: int = 0  # constant words of the shape that matched the first line
    weak: bool = True  # every shape that matched is weak
    workers: set[str] = field(default_factory=set)
    evidence: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Unmatched:
    line: str
    count: int
    first: dict[str, Any]
    first_key: tuple[Any, ...]
    context: str = ""  # the traceback frame line just before the first occurrence, if any

    @property
    def query(self) -> str:
        """What the guess searches: the line, after the frame that names its file and function."""
        return f"{self.context}\n{self.line}" if self.context else self.line


@dataclass
class Report:
    hits: dict[str, PageHit]
    unmatched: list[Unmatched]
    bytes_read: int
    lines_read: int
    files: list[str]
    problems: list[str]
    candidates: list[Unmatched] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "bytes_read": self.bytes_read,
            "lines_read": self.lines_read,
            "files": self.files,
            "problems": self.problems,
        }


def _timestamp(line: str) -> tuple[int, ...] | None:
    for rx in TIMESTAMPS:
        m = rx.search(line[: SPEC["timestamp_window"]])
        if m:
            g = m.groupdict()
            frac = (g.get("f") or "0")[:6].ljust(6, "0")
            return (int(g.get("y") or 0), int(g["mo"]), int(g["d"]), int(g["h"]), int(g["mi"]), int(g["s"]), int(frac))
    return None


def _worker(line: str, source: str, many_files: bool) -> str:
    m = WORKER.search(line[: SPEC["worker_window"]])
    if m:
        for key in ("rank", "rank2"):
            if m.group(key):
                return f"rank {m.group(key)}"
        for key in ("pod", "worker", "host"):
            if m.group(key):
                return str(m.group(key))
    if not many_files:
        return ""
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in SPEC["worker_file_suffixes"]:
        name = name[: -len(suffix)] if name.endswith(suffix) and len(name) > len(suffix) else name
    return name


# A scanned line: (line number within its block, 0-based; text; indexes of the shapes it
# matched; whether it is a candidate for a guess)
Found = tuple[int, str, tuple[int, ...], int]  # line, text, shapes, CANDIDATE | FRAME_LINE
_WORKER_TRIAGE: Triage | None = None


def _init_worker(docs: Sequence[Mapping[str, Any]]) -> None:
    global _WORKER_TRIAGE
    _WORKER_TRIAGE = Triage(docs)


def _scan_in_worker(block: bytes) -> tuple[int, list[Found]]:
    assert _WORKER_TRIAGE is not None
    return _WORKER_TRIAGE.scan_block(block)


class Triage:
    """The matcher, built once per payload; :meth:`run` may be called many times."""

    def __init__(self, docs: Sequence[Mapping[str, Any]]) -> None:
        self.doc_list = list(docs)
        self.docs = {d["ref"]: d for d in docs}
        self.shapes = compile_shapes(docs)
        self.by_anchor: dict[str, list[int]] = {}
        for i, s in enumerate(self.shapes):
            for a in s.anchors:
                self.by_anchor.setdefault(a, []).append(i)
        words = sorted(set(self.by_anchor) | set(ERROR_WORDS) | {FRAME_PREFIX})
        # Matched on the ASCII-lower-cased bytes of a block: bytes.lower() folds ASCII only, as
        # the JavaScript side's case-insensitive match does, and offsets stay those of the input.
        self.prefilter = re.compile(_trie_pattern(words).encode("ascii"))
        self.echo_of = {d["ref"]: tuple(d.get("echo_of") or ()) for d in docs}

    def scan_block(self, block: bytes) -> tuple[int, list[Found]]:
        """(newlines in the block, every line that a shape matches, that is a candidate for a
        guess or that is a traceback frame). Whole lines, or a window around the hit in a very
        long one. Pure: runs in a worker process as well."""
        low = block.lower()
        found: list[Found] = []
        last_end = -1
        line = 0
        counted_to = 0
        search = self.prefilter.search
        size = len(low)
        pos = 0
        while True:
            m = search(low, pos)
            if m is None:
                break
            a, b = m.span()
            pos = b
            # Inside a longer word: a word byte on both sides of an edge of the hit.
            inside = (a and low[a - 1] in _WORDBYTES and low[a] in _WORDBYTES) or (
                b < size and low[b] in _WORDBYTES and low[b - 1] in _WORDBYTES
            )
            if inside and m.group(0) not in _ERROR_SET:
                continue  # a signature word inside a longer word ("check" in "checkpoint")
            start = low.rfind(b"\n", 0, a) + 1
            if start < last_end:
                continue
            end = low.find(b"\n", b)
            end = size if end < 0 else end
            pos = max(pos, end)  # the rest of this line (or window) needs no more hits
            line += block.count(b"\n", counted_to, start)
            counted_to = start
            if end - start > MAX_LINE:
                start = max(start, a - MAX_LINE // 2)
                end = start + MAX_LINE
            last_end = end
            text = block[start:end].decode("utf-8", errors="replace")
            clean = ANSI.sub("", text).replace("\r", "").strip("\x00 \t")
            words = line_words(clean)
            present = {w for w in words if w in self.by_anchor}
            hits = {i for a_ in present for i in self.by_anchor[a_] if self.shapes[i].matches(words)}
            # Candidates for the best guess (ranked by search): lines that match no strong shape
            # and look like errors or hold a signature's uncommon word.
            strong = any(not self.shapes[i].weak for i in hits)
            candidate = not strong and (bool(present) or bool(ERRORISH.search(clean)))
            flags = (CANDIDATE if candidate else 0) | (FRAME_LINE if FRAME.match(clean) else 0)
            if hits or flags:
                found.append((line, clean, tuple(sorted(hits)), flags))
        return block.count(b"\n"), found

    def run(
        self,
        sources: Sequence[tuple[str, Opener]],
        progress: Callable[[int], None] | None = None,
        problems: Sequence[str] = (),
        workers: int | None = None,
    ) -> Report:
        """Read every source once, in order (each opened only when its turn comes). Past the
        first block of a source, blocks are scanned by ``workers`` processes (default: up to 4,
        the CPU count); results come back in order, so line numbers and "first" are exact."""
        report = Report({}, [], 0, 0, [], list(problems))
        unmatched: dict[str, Unmatched] = {}
        frame: list[Any] = [None, 0, ""]  # the last traceback frame line seen: file, line, text
        many = len(sources) > 1
        seq = 0
        pool: Any = None
        nproc = workers if workers is not None else min(os.cpu_count() or 1, 4)
        try:
            for name, opener in sources:
                report.files.append(name)
                try:
                    stream = opener()
                except OSError as exc:
                    report.problems.append(f"{name}: cannot open ({exc.strerror or exc}); skipped")
                    continue
                with stream:
                    blocks = _blocks(name, stream, report, progress)
                    head = list(itertools.islice(blocks, 2))
                    if len(head) == 2 and nproc > 1 and pool is None:
                        import multiprocessing

                        ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
                        pool = ctx.Pool(nproc, _init_worker, (self.doc_list,))
                    feed = itertools.chain(head, blocks)
                    scanned = _bounded(pool, feed, 2 * nproc) if pool is not None else map(self.scan_block, feed)
                    base = 1
                    for nl, found in scanned:
                        for rel, clean, hits, flags in found:
                            seq += 1
                            self._take(report, unmatched, frame, name, base + rel, clean, hits, flags, seq, many)
                        base += nl
                        report.lines_read += nl
        finally:
            if pool is not None:
                pool.close()
                pool.join()
        report.candidates = list(unmatched.values())
        report.unmatched = sorted(report.candidates, key=lambda u: u.first_key)[:MAX_UNMATCHED]
        return report

    def _take(
        self, report: Report, unmatched: dict[str, Unmatched], frame: list[Any], name: str, lineno: int,
        clean: str, hits: tuple[int, ...], flags: int, seq: int, many: bool,
    ) -> None:  # fmt: skip
        ts = _timestamp(clean)
        key = (0 if ts is None else 1, ts or (), seq)
        for i in hits:
            self._record(report, self.shapes[i], name, lineno, clean, key, ts, many)
        if flags & CANDIDATE:
            norm = " ".join("#" if t == VAR else t for t in shape_tokens(clean))[:300]
            u = unmatched.get(norm)
            if u is None:
                if len(unmatched) < MAX_CANDIDATES:
                    context = frame[2] if frame[0] == name and frame[1] == lineno - 1 else ""
                    unmatched[norm] = Unmatched(clean[:EVIDENCE_CHARS], 1, _where(name, lineno, ts), key, context)
            else:
                u.count += 1
        if flags & FRAME_LINE:
            frame[:] = [name, lineno, clean[:EVIDENCE_CHARS]]

    def _record(
        self, report: Report, shape: Shape, name: str, lineno: int, line: str, key: tuple[Any, ...],
        ts: tuple[int, ...] | None, many: bool,
    ) -> None:  # fmt: skip
        hit = report.hits.get(shape.page)
        if hit is None:
            hit = report.hits[shape.page] = PageHit(shape.page)
        hit.count += 1
        hit.weak = hit.weak and shape.weak
        worker = _worker(line, name, many)
        if worker and len(hit.workers) < SPEC["max_workers_kept"]:
            hit.workers.add(worker)
        ev = {**_where(name, lineno, ts), "text": line[:EVIDENCE_CHARS], "signature": shape.text}
        exact = shape.digits in _squash(line) or _numbers_within(_DIGITS.findall(line), shape.numbers)
        if (
            hit.first is None
            or key < hit.first_key
            or (key == hit.first_key and (exact, len(shape.words)) > (hit.exact, hit.words))
        ):
            hit.first, hit.first_key, hit.exact, hit.words = ev, key, exact, len(shape.words)
        if len(hit.evidence) < MAX_EVIDENCE and all(e["line"] != lineno or e["file"] != name for e in hit.evidence):
            hit.evidence.append(ev)


def _bounded(pool: Any, blocks: Iterator[bytes], ahead: int) -> Iterator[tuple[int, list[Found]]]:
    """Results of the blocks in order, with at most ``ahead`` blocks read but not yet scanned:
    reading never runs ahead of the workers, so memory does not grow with the log."""
    pending: collections.deque[Any] = collections.deque()
    for block in blocks:
        pending.append(pool.apply_async(_scan_in_worker, (block,)))
        if len(pending) >= ahead:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def _blocks(name: str, stream: ByteStream, report: Report, progress: Callable[[int], None] | None) -> Iterator[bytes]:
    """The stream in blocks that end at a newline (a line longer than a block is cut, and then
    examined in windows around its hits), with the read problems recorded in the report."""
    carry = b""
    first = True
    while True:
        try:
            block = stream.read(BLOCK)
        except EOFError:
            report.problems.append(f"{name}: compressed stream ends early (truncated .gz); read what was there")
            block = b""
        except OSError as exc:
            report.problems.append(f"{name}: read error after {report.bytes_read} bytes: {exc}")
            block = b""
        if first:
            first = False
            probe = block[:BINARY_PROBE]
            odd = len(probe.translate(None, TEXT_BYTES)) + probe.decode("utf-8", "replace").count("\ufffd")
            if odd > len(probe) // 10 + 4:
                report.problems.append(f"{name}: looks binary; skipped")
                return
            if not block:
                report.problems.append(f"{name}: empty")
                return
        report.bytes_read += len(block)
        if progress:
            progress(report.bytes_read)
        data = carry + block
        if not block:
            if data:
                yield data
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) < BLOCK:
                carry = data
                continue
            cut = len(data) - MAX_LINE  # no newline in a whole block: a very long line
        carry = data[cut:]
        yield data[:cut]


def _where(name: str, lineno: int, ts: tuple[int, ...] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"file": name, "line": lineno}
    if ts is not None:
        y, mo, d, h, mi, sec, f = ts
        out["timestamp"] = (f"{y:04d}-" if y else "") + f"{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{sec:02d}.{f:06d}"
    return out


def rank(report: Report, triage: Triage) -> list[PageHit]:
    """Root causes first: a page that is an echo of another matched page ranks below it; then
    the earliest first occurrence; on the same first line, the signature whose digits are those
    of the line, then the longer shape; then the most frequent."""
    matched = set(report.hits)

    def key(h: PageHit) -> tuple[Any, ...]:
        echo = any(o in matched for o in triage.echo_of.get(h.page, ()))
        return (echo, h.first_key, not h.exact, -h.words, -h.count, h.page)

    return sorted(report.hits.values(), key=key)


# --- inputs -----------------------------------------------------------------------------


class ByteStream(Protocol):
    def read(self, n: int = ..., /) -> bytes: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: Any) -> Any: ...


Opener = Callable[[], ByteStream]


class InputError(Exception):
    """An input that cannot be read at all (a missing path); other problems go in the report."""


def list_inputs(paths: Sequence[str], problems: list[str], max_files: int = 100_000) -> list[tuple[str, Opener]]:
    """(name, opener) for each input: files (``.gz`` decompressed as they are read), directories
    walked in sorted order without following symlinked directories (so a symlink loop cannot
    recurse), each file once even when reached twice, ``-`` for stdin."""
    seen: set[tuple[int, int]] = set()
    out: list[tuple[str, Opener]] = []
    for p in paths:
        if p == "-":
            out.append(("<stdin>", lambda: _Unclosed(sys.stdin.buffer)))
            continue
        path = Path(p)
        if not path.exists():
            raise InputError(
                f"{p}: no such file or directory" + (" (a broken or looping symlink)" if path.is_symlink() else "")
            )
        files: list[Path] = []
        if path.is_dir():
            for root, dirs, names in os.walk(path, followlinks=False):
                dirs.sort()
                files.extend(Path(root) / n for n in sorted(names))
        else:
            files.append(path)
        for f in files:
            try:
                st = f.stat()
            except OSError as exc:
                problems.append(f"{f}: cannot read ({exc.strerror or exc}); skipped")
                continue
            if (st.st_dev, st.st_ino) in seen or not f.is_file():
                continue
            seen.add((st.st_dev, st.st_ino))
            if len(out) >= max_files:
                problems.append(f"more than {max_files} files; the rest were not read")
                return out
            out.append((str(f), _opener(f)))
    return out


def _opener(f: Path) -> Opener:
    if f.suffix == ".gz":
        return lambda: _Gunzip(open(f, "rb"))
    return lambda: open(f, "rb")


class _Gunzip:
    """Streaming gunzip that hands over every byte it could decompress before a truncation
    (``gzip.GzipFile.read`` drops its last partial read), then raises EOFError; handles
    concatenated members."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.truncated = False
        self.started = False

    def read(self, n: int = -1) -> bytes:
        if self.truncated:
            raise EOFError("compressed stream ended before its end-of-stream marker")
        out = []
        size = 0
        while n < 0 or size < n:
            chunk = self.raw.read(262144)
            if not chunk:
                if self.started and not self.z.eof:
                    self.truncated = True
                break
            self.started = True
            try:
                data = self.z.decompress(chunk)
                while self.z.eof and self.z.unused_data:
                    rest = self.z.unused_data
                    self.z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    data += self.z.decompress(rest)
            except zlib.error as exc:
                raise OSError(f"not a valid gzip stream ({exc})") from None
            out.append(data)
            size += len(data)
        return b"".join(out)

    def __enter__(self) -> _Gunzip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.raw.close()


class _Unclosed:
    """stdin as a context manager that does not close it."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def read(self, n: int = -1) -> bytes:
        return bytes(self.raw.read(n))

    def __enter__(self) -> _Unclosed:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


# --- results ----------------------------------------------------------------------------


def guesses(report: Report, tri: Triage, index: Any) -> list[tuple[Any, Unmatched]]:
    """(search hit, candidate line) pairs, best first: the ``GUESS_LINES`` rarest candidate
    lines (fewest occurrences, then earliest), each searched alone (and adjacent ones together);
    every pair is ordered by tier and strength, then the rarer line, then its place in its line's
    results (each line's best hit before any line's second), then the line whose best hit
    scores higher (a "Traceback (most recent call last):" line says little), then the earlier
    line, then score, then id; a page once."""
    from mlwiki.core.search import search

    lines = sorted(report.candidates, key=lambda u: (u.count, u.first_key))[:GUESS_LINES]
    if not lines:
        return []
    # A message printed over several lines (a traceback, "terminate called" then "what():") is
    # searched whole as well: picked lines at most GROUP_GAP lines apart in one file are joined.
    by_place = sorted(lines, key=lambda u: (u.first["file"], u.first["line"]))
    run = [by_place[0]]
    for u in [*by_place[1:], None]:
        if (
            u is not None
            and u.first["file"] == run[-1].first["file"]
            and u.first["line"] - run[-1].first["line"] <= GROUP_GAP
        ):
            run.append(u)
            continue
        if len(run) > 1:
            lines.append(
                Unmatched(
                    "\n".join(x.query for x in run),
                    min(x.count for x in run),
                    run[0].first,
                    min(x.first_key for x in run),
                )
            )
        if u is not None:
            run = [u]
    loaded = index() if callable(index) else index
    pairs = []
    best: dict[int, float] = {}  # per line: the score of its best hit (how much the line says)
    for n, u in enumerate(lines):
        for place, hit in enumerate(h for h in search(loaded, tri.doc_list, u.query, k=3) if h.type != "doc"):
            pairs.append((hit, u, n, place))
            best[n] = max(best.get(n, 0.0), hit.score)
    pairs.sort(
        key=lambda p: (-p[0].tier, -p[0].strength, p[1].count, p[3], -best[p[2]], p[1].first_key, -p[0].score, p[0].ref)
    )
    seen: set[str] = set()
    out = []
    for hit, u, _, _ in pairs:
        if hit.ref not in seen:
            seen.add(hit.ref)
            out.append((hit, u))
    return out


def _guess(hit: Any, why: str, count: int, first_seen: dict[str, Any]) -> dict[str, Any]:
    """A result ranked by search, not by a signature shape."""
    return {
        "id": hit.ref,
        "type": hit.type,
        "title": hit.title,
        "url": hit.url,
        "match": "guess",
        "why": why + (f" (signature text match: {hit.signature[:80]})" if hit.signature else ""),
        "score": hit.score,
        "tier": hit.tier,
        "count": count,
        "first_seen": first_seen,
    }


def results(report: Report, tri: Triage, index: Any, k: int = 5) -> dict[str, Any]:
    """The ranked pages with their evidence: pages whose signature shape matched a line
    (root causes before their echoes); then best guesses by the search ranking over candidate
    lines no strong shape matched, marked ``"match": "guess"`` (a near-signature guess ranks
    above pages matched only by a weak shape, one that several pages share). ``index`` is the
    search index, or a function returning it (loaded only when a guess is needed)."""
    shaped = []
    for h in rank(report, tri):
        doc = tri.docs[h.page]
        echo = [o for o in tri.echo_of.get(h.page, ()) if o in report.hits]
        first = h.first or {}
        shaped.append(
            {
                "id": h.page,
                "type": doc["type"],
                "title": doc["title"],
                "url": doc["url"],
                "match": "shape",
                "why": (f"echo of {', '.join(echo)}, which also matched; " if echo else "")
                + ("a shape several pages share; " if h.weak else "")
                + f"signature shape matched {h.count} line{'s' if h.count != 1 else ''}, "
                f"first at {first.get('file')}:{first.get('line')}",
                "count": h.count,
                "first_seen": h.first,
                "workers": sorted(h.workers)[: SPEC["max_workers_listed"]],
                "worker_count": len(h.workers),
                "evidence": h.evidence,
                "weak": h.weak,
            }
        )
    strong = [r for r in shaped if not r["weak"]]
    weak = [r for r in shaped if r["weak"]]
    near: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    first_line: list[dict[str, Any]] = []
    decisive = strong[:1]
    if decisive and len(strong) < k:
        # The decisive line (of the top strong shape page) searched alone: the pages a person
        # reaches by pasting it. (Not a weak shape's line: a wrapper such as "terminate called
        # after throwing ..." says nothing alone; the lines around it are searched as a group.)
        from mlwiki.core.search import search

        top = decisive[0]["first_seen"]
        loaded = index() if callable(index) else index
        taken = {r["id"] for r in shaped}
        for hit in search(loaded, tri.doc_list, top["text"], k=SPEC["first_line_guesses"] + len(taken)):
            if hit.ref in taken or hit.type == "doc" or len(first_line) >= SPEC["first_line_guesses"]:
                continue
            taken.add(hit.ref)
            why = f"the first matching line ({top['file']}:{top['line']}) searched alone"
            first_line.append(_guess(hit, why, decisive[0]["count"], top))
    if len(strong) < k:
        seen = {r["id"] for r in shaped} | {r["id"] for r in first_line}
        for hit, u in guesses(report, tri, index):
            if hit.ref in seen:
                continue
            why = "no signature shape matched this line; best guess by the search ranking"
            (near if hit.tier >= 2 else other).append(_guess(hit, why, u.count, {**u.first, "text": u.line}))
    ordered = strong + first_line + near + weak + other
    return {
        "results": ordered[:k],
        "unmatched_errors": [
            {"text": u.line, "count": u.count, "first_seen": u.first} for u in report.unmatched[:GUESS_LINES]
        ],
        "read": report.as_json(),
    }

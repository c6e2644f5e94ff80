"""The search index built beside the page rendering: a forked process computes the payload and
its fragments while MkDocs renders pages (MkDocs renders on one core), and the plugin writes the
files after the build. Where fork is unavailable or there is one core, the work runs in place.

The child writes the cache (core/search/cache.py) and a result file; a failure in it stops the
build with its message, never a half-written index.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

from mlwiki.core.search.build import payload_json
from mlwiki.core.search.cache import read_cached, search_data

SearchFiles = tuple[str, dict[str, str]]  # the payload's JSON text, the fragment files


def _compute(key: str, build: Callable[[], dict[str, Any]]) -> SearchFiles:
    payload, fragments = search_data(key, build)
    return payload_json(payload), fragments


def _child(key: str, build: Callable[[], dict[str, Any]], out: str, err: str) -> None:
    try:
        text, fragments = _compute(key, build)
        with open(out + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"payload_text": text, "fragments": fragments}, f)
        os.replace(out + ".tmp", out)
    except BaseException:  # the parent reports it; nothing else may escape a forked child
        with open(err, "w", encoding="utf-8") as f:
            f.write(traceback.format_exc())
        os._exit(1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods() and (os.cpu_count() or 1) > 1


class SearchJob:
    """The search files for wiki fingerprint ``key``: from the cache, or built by ``build``
    (returning the payload) in a forked process started now and joined by :meth:`result`."""

    def __init__(self, key: str, build: Callable[[], dict[str, Any]], background: bool | None = None) -> None:
        self.key = key
        self._done: SearchFiles | None = None
        self._proc: Any = None
        self._dir: str | None = None
        cached = read_cached(key)
        if cached is not None:
            self._done = (payload_json(cached["payload"]), cached["fragments"])
        elif background if background is not None else can_fork():
            self._dir = tempfile.mkdtemp(prefix="mlwiki-search-")
            ctx = multiprocessing.get_context("fork")
            self._proc = ctx.Process(target=_child, args=(key, build, self._out, self._err), daemon=True)
            self._proc.start()
        else:
            try:
                self._done = _compute(key, build)
            except Exception as exc:
                raise PluginError(f"mlwiki: building the search index failed: {type(exc).__name__}: {exc}") from exc

    @property
    def _out(self) -> str:
        return os.path.join(self._dir or "", "result.json")

    @property
    def _err(self) -> str:
        return os.path.join(self._dir or "", "error.txt")

    def result(self) -> SearchFiles:
        """The payload text and fragments; raises PluginError if the build of them failed."""
        if self._done is not None:
            return self._done
        assert self._proc is not None
        self._proc.join()
        try:
            if self._proc.exitcode != 0 or not os.path.isfile(self._out):
                detail = Path(self._err).read_text(encoding="utf-8").strip() if os.path.isfile(self._err) else ""
                last = detail.splitlines()[-1] if detail else f"the process ended with exit code {self._proc.exitcode}"
                raise PluginError(f"mlwiki: building the search index failed: {last}")
            with open(self._out, encoding="utf-8") as f:
                data = json.load(f)
            self._done = (data["payload_text"], data["fragments"])
            return self._done
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop the child (a failed build) and remove its files."""
        if self._proc is not None and self._proc.is_alive():
            self._proc.terminate()
            self._proc.join()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

"""The search files built beside the page rendering (mkdocs_plugin/search_job.py): the same
files as built in place, a failure stops the build with its message, a cancelled job leaves
nothing behind."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from typing import Any

import pytest
from mkdocs.exceptions import PluginError

from mlwiki.core import load
from mlwiki.core.search import build_payload
from mlwiki.core.search.fragments import build_fragments
from mlwiki.mkdocs_plugin.search_job import SearchJob
from wikifix import REPO

WIKI = load(REPO / "wiki")
FORK = "fork" in multiprocessing.get_all_start_methods()  # Linux, where CI runs


def _payload() -> dict[str, Any]:
    return build_payload(WIKI)


def _fails() -> dict[str, Any]:
    raise ValueError("the wiki moved away")


def _slow() -> dict[str, Any]:
    time.sleep(60)
    return _payload()


@pytest.mark.skipif(not FORK, reason="needs fork (Linux, where CI runs)")
def test_built_in_the_background_as_in_place_and_cached() -> None:
    background = SearchJob("k1" * 32, _payload, background=True).result()
    in_place = SearchJob("k2" * 32, _payload, background=False).result()
    assert background == in_place
    text, fragments = background
    assert json.loads(text)["docs"] and fragments == build_fragments(json.loads(text))
    assert SearchJob("k1" * 32, _fails).result() == background  # the child filled the cache


@pytest.mark.parametrize("background", [True, False])
def test_a_failure_stops_the_build_with_its_message(background: bool) -> None:
    if background and not FORK:
        pytest.skip("needs fork (Linux, where CI runs)")
    with pytest.raises(PluginError, match="mlwiki: building the search index failed: ValueError: the wiki moved away"):
        SearchJob(f"fail{background}" * 16, _fails, background=background).result()


@pytest.mark.skipif(not FORK, reason="needs fork (Linux, where CI runs)")
def test_a_cancelled_job_stops_its_process_and_leaves_no_files() -> None:
    job = SearchJob("slow" * 16, _slow, background=True)
    tmp = job._dir
    assert tmp is not None and os.path.isdir(tmp)
    job.cancel()
    assert not os.path.exists(tmp) and not job._proc.is_alive()

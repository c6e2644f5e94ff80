"""Adding a page type is one registry declaration, one JSON Schema and one renderer.

This fixture adds a throwaway type, ``runbook``, touching nothing else, and checks that the
loader, the linter, INDEX.md, the type index and the site page all pick it up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mlwiki.core import check, load
from mlwiki.core.index_md import render_index
from mlwiki.core.model import Page
from mlwiki.core.registry import PageType, register, unregister
from mlwiki.core.urls import src_uri
from wikifix import CONCEPT, base_files, write_wiki

RUNBOOK = """\
---
id: disk-runbook
type: runbook
title: Disk runbook
summary: What the on-call does when a worker disk fills up.
tags: [gke]
platforms: [gke]
sources: [https://example.org/disk]
owner: storage-oncall
---

Page [[disk-full]] first.
"""

RUNBOOK_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "mlwiki:runbook",
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "type", "title", "summary", "tags", "platforms", "sources", "owner"],
    "properties": {
        "id": {"$ref": "mlwiki:defs#/$defs/id"},
        "type": {"const": "runbook"},
        "title": {"$ref": "mlwiki:defs#/$defs/title"},
        "summary": {"$ref": "mlwiki:defs#/$defs/summary"},
        "tags": {"$ref": "mlwiki:defs#/$defs/tags"},
        "platforms": {"$ref": "mlwiki:defs#/$defs/platforms"},
        "sources": {"$ref": "mlwiki:defs#/$defs/sources"},
        "owner": {"type": "string", "pattern": "^[a-z-]+$"},
    },
}


class Runbook:
    def __init__(self, page: Page, owner: str) -> None:
        self.page, self.owner = page, owner

    @staticmethod
    def from_data(page: Page, data: Any) -> Runbook:
        return Runbook(page, data["owner"])


def render_runbook(page: Page, record: Runbook, site: Any, here: str) -> list[str]:
    """The one renderer: the owner, then the author's Markdown."""
    from mlwiki.render.html import esc
    from mlwiki.render.types import render_markdown_page

    return [f'<p class="runbook-owner">Owner: {esc(record.owner)}</p>\n\n', *render_markdown_page(page, record, site, here)]


@pytest.fixture
def runbook_type() -> Iterator[None]:
    register(
        PageType(
            name="runbook",
            folder="runbooks",
            fmt="md",
            title="Runbooks",
            blurb="What the on-call does, step by step.",
            renderer=f"{__name__}:render_runbook",
            record=Runbook.from_data,
        )
    )
    yield
    unregister("runbook")


def _wiki(tmp_path: Path, runbook: str = RUNBOOK) -> Path:
    files: dict[str, str | bytes] = dict(base_files())
    files["runbooks/disk-runbook.md"] = runbook
    files["concepts/disk-basics.md"] = CONCEPT + "\nThe on-call runbook: [[disk-runbook]].\n"
    root = write_wiki(tmp_path, files, index=False)
    (root / "schema" / "runbook.json").write_text(json.dumps(RUNBOOK_SCHEMA), encoding="utf-8")
    (root / "INDEX.md").write_text(render_index(load(root)), encoding="utf-8")
    return root


def test_new_type_is_loaded_typed_and_linted(tmp_path: Path, runbook_type: None) -> None:
    wiki = load(_wiki(tmp_path))
    assert wiki.records["runbook"]["disk-runbook"].owner == "storage-oncall"
    assert check(wiki) == []
    assert "## Runbooks" in render_index(wiki) and "[[disk-runbook]]" in render_index(wiki)
    assert "disk-runbook" in wiki.backlinks["disk-full"]
    assert src_uri(wiki.pages["disk-runbook"]) == "runbooks/disk-runbook.md"


def test_new_type_schema_errors_are_diagnostics(tmp_path: Path, runbook_type: None) -> None:
    wiki = load(_wiki(tmp_path, RUNBOOK.replace("owner: storage-oncall", "owner: 42")))
    found = [(d.code, d.location.file, d.location.line) for d in check(wiki)]
    assert ("MLW004", "wiki/runbooks/disk-runbook.md", 9) in found
    assert "disk-runbook" not in wiki.records["runbook"]


def test_new_type_renders_on_the_site(tmp_path: Path, runbook_type: None) -> None:
    from mlwiki.render.indexes import type_index
    from mlwiki.render.page import SiteMap, page_markdown

    wiki = load(_wiki(tmp_path))
    text = page_markdown(wiki.pages["disk-runbook"], SiteMap(wiki))
    assert '<p class="runbook-owner">Owner: storage-oncall</p>' in text
    assert "[Disk full on a worker](../symptoms/disk-full.md)" in text
    assert "Disk runbook" in type_index(wiki, "runbook")


def test_without_the_declaration_the_folder_is_not_a_page_type(tmp_path: Path) -> None:
    wiki = load(_wiki(tmp_path))
    assert "disk-runbook" not in wiki.pages

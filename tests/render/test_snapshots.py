"""Snapshot tests for the renderers. Regenerate with ``UPDATE_SNAPSHOTS=1 pytest tests/render``.

A failure shows a unified diff of expected vs actual output.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from mlwiki.core import load
from mlwiki.render.diagram import render_diagram, render_fallback
from mlwiki.render.page import SiteMap, backlinks_block, page_markdown
from wikifix import ACTION, WORKFLOW, base_files, write_wiki

SNAPSHOTS = Path(__file__).parent / "snapshots"


def assert_snapshot(name: str, actual: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or (not path.exists() and os.environ.get("CI") != "true"):
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if expected != actual:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual"))
        pytest.fail(f"snapshot {name} differs (UPDATE_SNAPSHOTS=1 to accept):\n{diff}")


@pytest.fixture
def wiki(tmp_path: Path):  # type: ignore[no-untyped-def]
    files: dict[str, str | bytes] = dict(base_files())
    approve = {
        **ACTION,
        "id": "drain",
        "title": "Drain the node",
        "requires_approval": True,
        "changes": "Evicts every pod from the node.",
        "undo": "kubectl uncordon NODE",
        "command": ["kubectl", "drain", "{pod_name}", "-n", "{namespace}"],
        "verified": False,
    }
    files["actions/drain.json"] = json.dumps(approve, indent=2)
    wf = {
        **WORKFLOW,
        "id": "wf-branchy",
        "title": "Branchy",
        "steps": [
            {
                "id": "df",
                "action": "check-disk",
                "title": "Disk usage",
                "with": {"pod_name": "{pod_name}"},
                "branches": [
                    {
                        "when": {"field": "df.use", "op": "greater_than", "value": 90},
                        "goto": "drain",
                        "label": "disk > 90%",
                    }
                ],
            },
            {
                "id": "df-again",
                "action": "check-disk",
                "title": "Check again",
                "with": {"pod_name": "{pod_name}"},
                "next": "end",
            },
            {"id": "drain", "action": "drain", "title": "Drain it", "with": {"pod_name": "{pod_name}"}},
        ],
    }
    files["workflows/wf-branchy.json"] = json.dumps(wf, indent=2)
    files["concepts/disk-basics.md"] = str(files["concepts/disk-basics.md"]) + "\nRun [[wf-branchy]] or [[drain]].\n"
    return load(write_wiki(tmp_path, files))


def test_diagram_svg(wiki) -> None:  # type: ignore[no-untyped-def]
    wf = wiki.workflows["wf-branchy"]
    hrefs = {a: f"../../actions/{a}/" for a in wiki.actions}
    assert_snapshot("diagram-branchy.svg", render_diagram(wf, wiki.actions, hrefs) + "\n")
    assert_snapshot("diagram-branchy-fallback.html", render_fallback(wf, wiki.actions, hrefs) + "\n")


def test_action_page(wiki) -> None:  # type: ignore[no-untyped-def]
    assert_snapshot("action-drain.md", page_markdown(wiki.pages["drain"], SiteMap(wiki)))


def test_workflow_page(wiki) -> None:  # type: ignore[no-untyped-def]
    assert_snapshot("workflow-branchy.md", page_markdown(wiki.pages["wf-branchy"], SiteMap(wiki)))


def test_symptom_page(wiki) -> None:  # type: ignore[no-untyped-def]
    assert_snapshot("symptom-disk-full.md", page_markdown(wiki.pages["disk-full"], SiteMap(wiki)))


def test_backlinks(wiki) -> None:  # type: ignore[no-untyped-def]
    page = wiki.pages["check-disk"]
    assert_snapshot("backlinks-check-disk.html", backlinks_block(page, SiteMap(wiki), "actions/check-disk.md"))

"""Tiny fixture wikis written from a ``{path: text}`` dict, with the real schema and tags."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "wiki" / "schema"

SYMPTOM = """\
---
id: disk-full
type: symptom
title: Disk full on a worker
summary: The worker's disk filled up and writes fail with ENOSPC.
tags: [gke, crash]
aliases: [no space left]
platforms: [gke]
sources: [https://example.org/disk]
signatures:
  - text: "OSError: [Errno 28] No space left on device"
    kind: log
    where: stderr of the training process
    source: https://example.org/disk
  - text: "FreeDiskSpaceFailed"
    kind: event
    where: node events
    source: https://example.org/disk
workflows: [wf-disk-check]
---

A worker ran out of disk. See [[disk-basics]] and [[disk-basics#how-disks-fill|how disks fill]].

## What you see

The write fails.
"""

CONCEPT = """\
---
id: disk-basics
type: concept
title: Disk basics
summary: How node disks fill up and what to look at first.
tags: [gke]
platforms: [gke]
sources: [https://example.org/disk]
---

Disks fill; see [[disk-full]].

## How disks fill

Logs and checkpoints.
"""

ACTION = {
    "id": "check-disk",
    "type": "action",
    "title": "Check disk usage",
    "summary": "Shows the disk usage of a pod's filesystem.",
    "tags": ["gke"],
    "platforms": ["gke"],
    "sources": ["https://example.org/df"],
    "execution_mode": "command",
    "requires_approval": False,
    "verified": True,
    "parameters": {
        "pod_name": {
            "type": "string",
            "description": "Pod to inspect.",
            "required": True,
            "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "example": "worker-0",
        },
        "namespace": {
            "type": "string",
            "description": "Namespace.",
            "default": "default",
            "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        },
    },
    "command": ["kubectl", "exec", "-n", "{namespace}", "{pod_name}", "--", "df", "-h"],
    "output": "text",
    "summary_fields": [{"name": "use", "description": "Use percent", "regex": "(?P<use>[0-9]+)%"}],
}

WORKFLOW = {
    "id": "wf-disk-check",
    "type": "workflow",
    "title": "Disk check",
    "summary": "Checks whether a worker's disk is full.",
    "description": "Use it for [[disk-full]].",
    "tags": ["gke"],
    "platforms": ["gke"],
    "sources": ["https://example.org/df"],
    "parameters": {
        "pod_name": {"type": "string", "description": "Pod.", "required": True, "example": "worker-0"},
    },
    "steps": [
        {"id": "df", "action": "check-disk", "title": "Disk usage", "with": {"pod_name": "{pod_name}"}},
    ],
}


def base_files() -> dict[str, str]:
    return {
        "symptoms/disk-full.md": SYMPTOM,
        "concepts/disk-basics.md": CONCEPT,
        "actions/check-disk.json": json.dumps(ACTION, indent=2) + "\n",
        "workflows/wf-disk-check.json": json.dumps(WORKFLOW, indent=2) + "\n",
    }


def write_wiki(root: Path, files: dict[str, str | bytes], index: bool = True) -> Path:
    """Write a wiki under ``root/wiki`` and, by default, a fresh INDEX.md."""
    wiki = root / "wiki"
    if wiki.exists():
        shutil.rmtree(wiki)
    shutil.copytree(SCHEMA_DIR, wiki / "schema")
    for rel, text in files.items():
        path = wiki / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    if index and "INDEX.md" not in files:
        from mlwiki.core import load
        from mlwiki.core.index_md import render_index

        (wiki / "INDEX.md").write_text(render_index(load(wiki)), encoding="utf-8")
    return wiki

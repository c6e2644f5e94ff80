"""Generate a synthetic but valid wiki of N pages for benchmarks (deterministic for a seed).

Pages are ~100-line Markdown documents with frontmatter, wikilinks to neighbours (so nothing is
orphaned), verbatim-looking signatures on symptoms, and a few actions and workflows.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

# The one parameter every synthetic action and workflow takes.
PARAMS = {
    "namespace": {
        "type": "string",
        "description": "Namespace.",
        "required": True,
        "pattern": "^[a-z0-9-]+$",
        "example": "default",
    }
}
WORDS = [
    "worker",
    "host",
    "slice",
    "chip",
    "collective",
    "timeout",
    "barrier",
    "coordinator",
    "heartbeat",
    "checkpoint",
    "node",
    "pool",
    "pod",
    "restart",
    "signal",
    "memory",
    "buffer",
    "allocation",
    "compile",
    "program",
    "device",
    "driver",
    "kernel",
    "network",
    "socket",
    "rank",
    "gradient",
    "step",
    "batch",
    "shard",
    "replica",
    "topology",
    "process",
    "queue",
    "quota",
    "capacity",
    "image",
    "container",
    "event",
]


def _para(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(root: Path, n: int, schema_dir: Path, seed: int = 7) -> Path:
    """Write a wiki of ``n`` pages under ``root/wiki`` and return it."""
    rng = random.Random(seed)
    wiki = root / "wiki"
    if wiki.exists():
        shutil.rmtree(wiki)
    shutil.copytree(schema_dir, wiki / "schema")
    n_actions = max(2, n // 25)
    n_workflows = max(1, n // 50)
    n_md = n - n_actions - n_workflows
    kinds = ["symptom", "concept", "playbook", "tool", "entity"]
    folders = {
        "symptom": "symptoms",
        "concept": "concepts",
        "playbook": "playbooks",
        "tool": "tools",
        "entity": "entities",
    }
    md_ids = [f"{kinds[i % len(kinds)]}-{i:05d}" for i in range(n_md)]
    action_ids = [f"act-{i:05d}" for i in range(n_actions)]
    wf_ids = [f"wf-{i:05d}" for i in range(n_workflows)]
    for i, pid in enumerate(md_ids):
        kind = kinds[i % len(kinds)]
        prev_id, next_id = md_ids[i - 1], md_ids[(i + 1) % n_md]
        body = [f"Overview of {pid}: see [[{next_id}]] and [[{prev_id}|the previous page]].", ""]
        for s in range(6):
            body += [f"## Section {s} about {rng.choice(WORDS)}", ""]
            body += [_para(rng, 40) for _ in range(3)]
            body += ["", "```text", f"E1129 10:0{s}:00 worker.py:{rng.randint(1, 999)}] {_para(rng, 8)}", "```", ""]
        body += [f"Related: [[{next_id}]]"]
        if i < n_actions:
            body += ["", f"Run [[{action_ids[i]}]] to check."]
        fm = [
            "---",
            f"id: {pid}",
            f"type: {kind}",
            f"title: Synthetic {kind} {i}",
            f"summary: A synthetic {kind} page number {i} used to measure the build.",
            "tags: [gke, crash]" if kind == "symptom" else "tags: [gke]",
            "platforms: [gke]",
            "sources: [https://example.org/synthetic]",
        ]
        if kind == "symptom":
            fm += [
                "signatures:",
                f'  - text: "SyntheticError: {i} {_para(rng, 6)}"',
                "    kind: log",
                "    where: stderr",
                "    source: https://example.org/synthetic",
                f'  - text: "E{i:05d} {_para(rng, 5)}"',
                "    kind: log",
                "    where: stderr",
                "    source: https://example.org/synthetic",
                f"workflows: [{wf_ids[i % n_workflows]}]",
            ]
        fm.append("---")
        path = wiki / folders[kind] / f"{pid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(fm) + "\n\n" + "\n".join(body) + "\n", encoding="utf-8")
    for i, aid in enumerate(action_ids):
        action = {
            "id": aid,
            "type": "action",
            "title": f"Synthetic action {i}",
            "summary": "A synthetic read-only action.",
            "description": f"Used by [[{wf_ids[i % n_workflows]}]] and [[{md_ids[i % n_md]}]].",
            "tags": ["gke"],
            "platforms": ["gke"],
            "sources": ["https://example.org/synthetic"],
            "execution_mode": "command",
            "requires_approval": False,
            "verified": True,
            "parameters": PARAMS,
            "command": ["kubectl", "get", f"res{i}", "-n", "{namespace}", "-o", "json"],
            "output": "json",
            "summary_fields": [{"name": "names", "description": "Names.", "json_path": "items[*].metadata.name"}],
        }
        (wiki / "actions").mkdir(exist_ok=True)
        (wiki / "actions" / f"{aid}.json").write_text(json.dumps(action, indent=2) + "\n", encoding="utf-8")
    for i, wid in enumerate(wf_ids):
        steps = [
            {"id": f"s{j}", "action": action_ids[(i + j) % n_actions], "with": {"namespace": "{namespace}"}}
            for j in range(3)
        ]
        wf = {
            "id": wid,
            "type": "workflow",
            "title": f"Synthetic workflow {i}",
            "summary": "A synthetic workflow.",
            "description": f"See [[{md_ids[(i * 7) % n_md]}]].",
            "tags": ["gke"],
            "platforms": ["gke"],
            "sources": ["https://example.org/synthetic"],
            "parameters": PARAMS,
            "steps": steps,
        }
        (wiki / "workflows").mkdir(exist_ok=True)
        (wiki / "workflows" / f"{wid}.json").write_text(json.dumps(wf, indent=2) + "\n", encoding="utf-8")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plugins"))
    from mlwiki.core import load
    from mlwiki.core.index_md import render_index

    (wiki / "INDEX.md").write_text(render_index(load(wiki)), encoding="utf-8")
    return wiki

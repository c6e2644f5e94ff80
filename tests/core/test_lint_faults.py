"""Every fault class planted in a copy of a valid wiki gives FAIL with the right code, file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlwiki.core import check, load
from wikifix import ACTION, CONCEPT, SYMPTOM, WORKFLOW, base_files, write_wiki


def lint(tmp_path: Path, files: dict[str, str | bytes]) -> list[tuple[str, str, int]]:
    wiki = write_wiki(tmp_path, files)
    return [(d.code, d.location.file, d.location.line) for d in check(load(wiki))]


def with_changes(**changes: str | bytes) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = dict(base_files())
    for key, text in changes.items():
        files[key.replace("__", "/").replace("_DOT_", ".")] = text
    return files


def action(**over: object) -> str:
    data = {**ACTION, **over}
    return json.dumps({k: v for k, v in data.items() if v is not None}, indent=2) + "\n"


def workflow(**over: object) -> str:
    data = {**WORKFLOW, **over}
    return json.dumps(data, indent=2) + "\n"


def test_base_wiki_passes(tmp_path: Path) -> None:
    assert lint(tmp_path, dict(base_files())) == []


SYM = "symptoms/disk-full.md"
CON = "concepts/disk-basics.md"
ACT = "actions/check-disk.json"
WF = "workflows/wf-disk-check.json"

CASES = [
    # (name, files to change, expected code, file, line)
    (
        "bad-yaml",
        {SYM: SYMPTOM.replace("title: Disk full on a worker", "title: [unclosed")},
        "MLW002",
        SYM,
        5,
    ),
    ("no-frontmatter", {CON: "# Disk basics\n\nText.\n"}, "MLW002", CON, 1),
    ("bad-json", {ACT: '{\n  "id": "check-disk",\n  "type": "action",,\n}\n'}, "MLW003", ACT, 3),
    (
        "unknown-key",
        {CON: CONCEPT.replace("platforms: [gke]", "platforms: [gke]\ncolour: red")},
        "MLW004",
        CON,
        "colour: red",
    ),
    (
        "missing-field",
        {CON: CONCEPT.replace("summary: How node disks fill up and what to look at first.\n", "")},
        "MLW004",
        CON,
        2,
    ),
    ("wrong-type", {SYM: SYMPTOM.replace("tags: [gke, crash]", "tags: gke")}, "MLW004", SYM, 6),
    ("id-mismatch", {CON: CONCEPT.replace("id: disk-basics", "id: disk-basic")}, "MLW005", CON, 2),
    ("type-mismatch", {CON: CONCEPT.replace("type: concept", "type: tool")}, "MLW005", CON, 3),
    (
        "duplicate-id",
        {"tools/disk-basics.md": CONCEPT.replace("type: concept", "type: tool")},
        "MLW006",
        "tools/disk-basics.md",
        2,
    ),
    (
        "unknown-link",
        {CON: CONCEPT.replace("Disks fill; see [[disk-full]].", "Disks fill; see [[disk-ful]].")},
        "MLW010",
        CON,
        "[[disk-ful]]",
    ),
    (
        "unknown-anchor",
        {SYM: SYMPTOM.replace("#how-disks-fill", "#how-disk-fill")},
        "MLW011",
        SYM,
        "#how-disk-fill",
    ),
    (
        "ambiguous",
        {
            CON: CONCEPT.replace("platforms: [gke]", "platforms: [gke]\naliases: [no space left]")
            + "\nSee [[no space left]].\n"
        },
        "MLW012",
        CON,
        "See [[no space left]]",
    ),
    (
        "orphan",
        {"tools/lonely.md": CONCEPT.replace("disk-basics", "lonely").replace("type: concept", "type: tool")},
        "MLW013",
        "tools/lonely.md",
        2,
    ),
    (
        "unknown-tag",
        {CON: CONCEPT.replace("tags: [gke]", "tags: [gke, gpuu]")},
        "MLW020",
        CON,
        "tags: [gke, gpuu]",
    ),
    (
        "duplicate-action",
        {
            "actions/check-disk-2.json": action(
                id="check-disk-2",
                parameters={
                    "pod": {**ACTION["parameters"]["pod_name"]},
                    "ns": {**ACTION["parameters"]["namespace"]},
                },
                command=["kubectl", "exec", "-n", "{ns}", "{pod}", "--", "df", "-h"],
            )
        },
        "MLW030",
        "actions/check-disk-2.json",
        '"command": [',
    ),
    (
        "step-unknown-action",
        {WF: workflow(steps=[{"id": "df", "action": "check-disc", "with": {}}])},
        "MLW031",
        WF,
        "check-disc",
    ),
    (
        "step-undeclared-param",
        {
            WF: workflow(
                steps=[{"id": "df", "action": "check-disk", "with": {"pod_name": "{pod_name}", "podname": "x"}}]
            )
        },
        "MLW032",
        WF,
        '"podname"',
    ),
    (
        "step-missing-param",
        {WF: workflow(steps=[{"id": "df", "action": "check-disk", "with": {"namespace": "x"}}])},
        "MLW033",
        WF,
        '"with"',
    ),
    (
        "undeclared-placeholder",
        {ACT: action(command=["kubectl", "exec", "-n", "{namespace}", "{pod_name}", "--", "df", "{flags}"])},
        "MLW034",
        ACT,
        "{flags}",
    ),
    (
        "unused-param",
        {ACT: action(command=["kubectl", "exec", "{pod_name}", "--", "df", "-h"])},
        "MLW035",
        ACT,
        '"namespace": {',
    ),
    (
        "ai-prefix",
        {"actions/ai-read.json": action(id="ai-read", execution_mode="command")},
        "MLW007",
        "actions/ai-read.json",
        '"execution_mode"',
    ),
    (
        "ai-mode-no-prefix",
        {
            "actions/read.json": action(
                id="read",
                execution_mode="ai",
                command=None,
                output=None,
                prompt="Read the disk usage of {pod_name} in {namespace}.",
            )
        },
        "MLW007",
        "actions/read.json",
        '"execution_mode"',
    ),
    (
        "symptom-no-signature",
        {
            SYM: SYMPTOM.split("signatures:")[0]
            + "signatures: []\nworkflows: [wf-disk-check]\n---\n"
            + SYMPTOM.split("---\n", 2)[2]
        },
        "MLW040",
        SYM,
        "signatures: []",
    ),
    (
        "symptom-no-workflow",
        {SYM: SYMPTOM.replace("workflows: [wf-disk-check]\n", "")},
        "MLW041",
        SYM,
        "id: disk-full",
    ),
    ("script-tag", {CON: CONCEPT + "\n<script>alert(1)</script>\n"}, "MLW050", CON, "<script>"),
    ("iframe", {CON: CONCEPT + "\n<iframe src=x></iframe>\n"}, "MLW050", CON, "<iframe"),
    ("onerror", {CON: CONCEPT + '\n<img src=x onerror="alert(1)">\n'}, "MLW050", CON, "onerror"),
    ("javascript-url", {CON: CONCEPT + "\n[click](javascript:alert(1))\n"}, "MLW050", CON, "javascript:"),
    (
        "wikilink-in-a-signature-note",
        {SYM: SYMPTOM.replace("    where: node events", "    where: node events, see [[disk-basics]]")},
        "MLW045",
        SYM,
        "see [[disk-basics]]",
    ),
    (
        "cause-without-next-step",
        {SYM: SYMPTOM.replace("workflows: [wf-disk-check]", "causes:\n  - cause: The disk is too small\n    likelihood: high\n    tell: df shows 100%\nworkflows: [wf-disk-check]")},
        "MLW044",
        SYM,
        "  - cause: The disk",
    ),
    (
        "cause-with-both-next-and-no-workflow",
        {SYM: SYMPTOM.replace("workflows: [wf-disk-check]", "causes:\n  - cause: The disk is too small\n    likelihood: high\n    next: wf-disk-check\n    no_workflow: grow the disk by hand\nworkflows: [wf-disk-check]")},
        "MLW004",
        SYM,
        "    no_workflow:",
    ),
    (
        "cause-next-is-not-a-workflow-or-action",
        {SYM: SYMPTOM.replace("workflows: [wf-disk-check]", "causes:\n  - cause: The disk is too small\n    likelihood: high\n    next: disk-basics\nworkflows: [wf-disk-check]")},
        "MLW010",
        SYM,
        "    next: disk-basics",
    ),
    (
        "signature-on-two-pages",
        {"symptoms/disk-full-2.md": SYMPTOM.replace("id: disk-full", "id: disk-full-2").replace("aliases: [no space left]", "").replace("[[disk-basics]] and", "[[disk-full]] and")},
        "MLW043",
        "symptoms/disk-full-2.md",
        "  - text: \"OSError",
    ),
    (
        "bad-regex",
        {ACT: action(summary_fields=[{"name": "use", "description": "use percent", "regex": "(?P<use>[0-9+"}])},
        "MLW037",
        ACT,
        '"regex"',
    ),
    (
        "default-breaks-pattern",
        {
            ACT: action(
                parameters={
                    "pod_name": ACTION["parameters"]["pod_name"],
                    "namespace": {**ACTION["parameters"]["namespace"], "default": "Bad_NS"},
                }
            )
        },
        "MLW037",
        ACT,
        "Bad_NS",
    ),
    (
        "backward-jump",
        {
            WF: workflow(
                steps=[
                    {"id": "df", "action": "check-disk", "with": {"pod_name": "{pod_name}"}},
                    {"id": "df2", "action": "check-disk", "with": {"pod_name": "{pod_name}"}, "next": "df"},
                ]
            )
        },
        "MLW036",
        WF,
        '"next"',
    ),
    (
        "unknown-step-field",
        {
            WF: workflow(
                steps=[
                    {"id": "df", "action": "check-disk", "with": {"pod_name": "{pod_name}"}},
                    {"id": "df2", "action": "check-disk", "with": {"pod_name": "{df.usage}"}},
                ]
            )
        },
        "MLW036",
        WF,
        "{df.usage}",
    ),
]


@pytest.mark.parametrize(("name", "changes", "code", "file", "line"), CASES, ids=[c[0] for c in CASES])
def test_fault_is_reported(
    tmp_path: Path, name: str, changes: dict[str, str], code: str, file: str, line: int | str
) -> None:
    """``line`` is a number, or a marker: the 1-based line of its first occurrence in the file."""
    files: dict[str, str | bytes] = dict(base_files())
    files.update(changes)
    if isinstance(line, str):
        text = str(files[file])
        line = next(i + 1 for i, t in enumerate(text.split("\n")) if line in t)
    found = lint(tmp_path, files)
    assert (code, f"wiki/{file}", line) in found, found


def test_all_faults_in_one_run(tmp_path: Path) -> None:
    """Faults in different files are all reported by one run, not just the first."""
    files: dict[str, str | bytes] = dict(base_files())
    picked = [c for c in CASES if c[0] in ("unknown-tag", "bad-json", "symptom-no-workflow", "step-unknown-action")]
    for c in picked:
        files.update(c[1])
    found = {(code, f) for code, f, _ in lint(tmp_path, files)}
    for c in picked:
        assert (c[2], f"wiki/{c[3]}") in found


def test_stale_index(tmp_path: Path) -> None:
    wiki = write_wiki(tmp_path, dict(base_files()))
    (wiki / "INDEX.md").write_text("# Index of the wiki\n\nold\n", encoding="utf-8")
    found = [(d.code, d.location.file, d.location.line) for d in check(load(wiki))]
    assert ("MLW060", "wiki/INDEX.md", 3) in found

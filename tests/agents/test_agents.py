"""The two harnesses' agent definitions stay in step, and every command they name runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from wikifix import REPO

NAMES = {"router", "practitioner", "advisor", "reviewer", "maintainer"}
FOLDERS = [REPO / ".claude" / "agents", REPO / "_agents" / "agents"]


def parse(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    assert m, f"{path}: no frontmatter"
    meta = yaml.safe_load(m.group(1))
    body = m.group(2)
    commands = re.search(r"## Commands\n.*?```bash\n(.*?)```", body, re.S)
    rules = re.search(r"## Grounding rules\n\n(.*)", body, re.S)
    assert commands and rules, f"{path}: missing Commands or Grounding rules section"
    return {
        "name": meta["name"],
        "description": meta["description"],
        "tools": [t.strip() for t in str(meta["tools"]).split(",")],
        "commands": commands.group(1).strip().splitlines(),
        "rules": rules.group(1).strip(),
        "role": body.split("## Commands")[0].strip(),
    }


def load_folder(folder: Path) -> dict[str, dict[str, object]]:
    return {p.stem: parse(p) for p in sorted(folder.glob("*.md"))}


def test_both_harnesses_have_the_five_agents() -> None:
    for folder in FOLDERS:
        assert set(load_folder(folder)) == NAMES, folder


def test_harnesses_do_not_drift() -> None:
    a, b = (load_folder(f) for f in FOLDERS)
    for name in NAMES:
        for key in ("name", "description", "commands", "rules", "role"):
            assert a[name][key] == b[name][key], f"{name}: '{key}' differs between the harnesses"
        assert len(a[name]["tools"]) == len(b[name]["tools"]), f"{name}: tool sets differ"  # type: ignore[arg-type]


def test_grounding_rules_are_word_for_word_everywhere() -> None:
    spec = yaml.safe_load((REPO / "agents" / "agents.yml").read_text(encoding="utf-8"))
    expected = "\n".join(f"- {r}" for r in spec["grounding_rules"])
    for folder in FOLDERS:
        for name, agent in load_folder(folder).items():
            assert agent["rules"] == expected, f"{folder.name}/{name}"
    assert expected in (REPO / ".claude" / "commands" / "troubleshoot.md").read_text(encoding="utf-8")


def test_generated_files_are_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_agents.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


COMMANDS = sorted({c for a in load_folder(FOLDERS[0]).values() for c in a["commands"]})  # type: ignore[attr-defined]
TROUBLESHOOT = (REPO / ".claude" / "commands" / "troubleshoot.md").read_text(encoding="utf-8")
COMMANDS += [c for c in re.findall(r"`(python3 scripts/[^`]*)`", TROUBLESHOOT) if "<" not in c]


def test_never_approves_on_its_own() -> None:
    assert not any("--approve" in c for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_named_command_runs(command: str, tmp_path: Path) -> None:
    if "<" in command.replace("< /dev/null", ""):
        pytest.fail(f"placeholder left in a command: {command}")
    shell = command.replace("python3 ", f"{sys.executable} ", 1)
    proc = subprocess.run(["bash", "-c", shell], cwd=REPO, capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin", "MLWIKI_RUNS_DIR": str(tmp_path), "HOME": str(tmp_path)})  # fmt: skip
    # --offline runs nothing and stops at the first command step for the user to run it (exit 10).
    expected = 10 if "--offline" in command else 0
    assert proc.returncode == expected, f"{command}\n{proc.stderr[-2000:]}"
    if expected == 10:
        assert "NOT RUN (offline)" in proc.stdout and "--output" in proc.stdout


def test_site_page_carries_the_same_rules() -> None:
    spec = yaml.safe_load((REPO / "agents" / "agents.yml").read_text(encoding="utf-8"))
    page = (REPO / "docs_src" / "agents.md").read_text(encoding="utf-8")
    assert "\n".join(f"- {r}" for r in spec["grounding_rules"]) in page

"""The CI entry points are valid and run the README's test command."""

from __future__ import annotations

import re

import yaml

from wikifix import REPO


def test_github_workflow_is_valid() -> None:
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "push" in triggers and "pull_request" in triggers
    steps = wf["jobs"]["test"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "bash .ci/run" in runs
    assert "--format github" in runs
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/upload-artifact") for u in uses)
    assert any(u.startswith("actions/upload-pages-artifact") for u in uses)
    assert wf["jobs"]["deploy"]["needs"] == "test"
    for job in wf["jobs"].values():
        assert job["runs-on"] and job["steps"]


def test_ci_run_calls_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^(\./scripts/\S+)", quick, re.M)
    assert commands == ["./scripts/serve", "./scripts/test"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^exec \./scripts/test\b", ci, re.M)


def test_readme_commands_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every runnable example in the README (queries and dry runs) succeeds."""
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [ln for ln in re.findall(r"^(python3 scripts/\S+\.py .*)$", readme, re.M)
             if ("--dry-run" in ln or "query_interface" in ln) and "|" not in ln]  # fmt: skip
    assert len(lines) >= 2
    for line in lines:
        proc = subprocess.run(["bash", "-c", line.replace("python3 ", f"{sys.executable} ", 1)], cwd=REPO,
                              capture_output=True, text=True, check=False,
                              env={"PATH": "/usr/bin:/bin", "MLWIKI_RUNS_DIR": str(tmp_path), "HOME": str(tmp_path)})  # fmt: skip
        assert proc.returncode == 0, f"{line}\n{proc.stderr}"


def test_tutorial_runner_commands_dry_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every complete runner command in the tutorial is accepted by the runner (dry run)."""
    import subprocess
    import sys

    text = (REPO / "wiki" / "TUTORIAL.md").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in re.findall(r"^\s*(python3 scripts/python_glue_runner\.py .*)$", text, re.M)]
    lines = [ln for ln in lines if "{...}" not in ln and "<" not in ln]
    assert len(lines) >= 3
    for line in lines:
        cmd = line.replace("python3 ", f"{sys.executable} ", 1)
        if "--dry-run" not in cmd and "--help" not in cmd and "--list" not in cmd:
            cmd += " --dry-run"
        proc = subprocess.run(["bash", "-c", cmd], cwd=REPO, capture_output=True, text=True, check=False,
                              env={"PATH": "/usr/bin:/bin", "MLWIKI_RUNS_DIR": str(tmp_path), "HOME": str(tmp_path)})  # fmt: skip
        assert proc.returncode == 0, f"{line}\n{proc.stderr}"


def test_no_package_registry_host_names_in_the_project() -> None:
    """The project never names a package registry's host (sources cite project repositories
    and documentation instead); the names are assembled here so this file does not hold them."""
    import subprocess

    hosts = ["pypi" + ".org", "files." + "pythonhosted" + ".org", "registry." + "npmjs" + ".org", "npmjs" + ".com"]
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    offenders = []
    for name in filter(None, tracked.decode().split("\0")):
        path = REPO / name
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace").lower()
        offenders += [f"{name}: {h}" for h in hosts if h in text]
    assert offenders == []

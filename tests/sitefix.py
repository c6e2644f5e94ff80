"""Build fixture sites (and the shipped site) with ``mkdocs build --strict`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from wikifix import REPO, write_wiki

MKDOCS_YML = """\
site_name: Fixture wiki
docs_dir: docs_src
site_dir: site
theme:
  name: material
  custom_dir: docs_src/overrides
  font: false
  features: [content.code.copy, navigation.instant]
plugins:
  - mlwiki
markdown_extensions: [attr_list, md_in_html, tables, admonition, toc, pymdownx.superfences]
extra:
  generator: false
validation:
  nav: {omitted_files: info, not_found: warn}
  links: {not_found: warn, anchors: warn, unrecognized_links: warn}
"""


@dataclass
class Build:
    code: int
    log: str
    site: Path


def make_site(root: Path, files: dict[str, str | bytes], home: str = "# Home\n\nSee [[disk-full]].\n") -> Path:
    """A fixture project: mkdocs.yml, docs_src (home page + our assets) and a wiki."""
    write_wiki(root, files)
    docs = root / "docs_src"
    docs.mkdir(parents=True, exist_ok=True)
    overrides = REPO / "docs_src" / "overrides"
    if overrides.is_dir():
        import shutil

        shutil.copytree(overrides, docs / "overrides", dirs_exist_ok=True)
    else:
        (docs / "overrides").mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text(home, encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    return root


def build(project: Path, site_dir: Path | None = None, strict: bool = True, flags: tuple[str, ...] = ()) -> Build:
    site = site_dir or project / "site"
    cmd = [sys.executable, "-m", "mkdocs", "build", "-f", str(project / "mkdocs.yml"), "-d", str(site), *flags]
    if strict:
        cmd.append("--strict")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO / "plugins")}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=project, check=False)
    return Build(proc.returncode, proc.stdout + proc.stderr, site)

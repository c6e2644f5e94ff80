"""The core imports nothing above it: not render, mkdocs_plugin, runner or cli (nor MkDocs)."""

from __future__ import annotations

import ast
from pathlib import Path

from wikifix import REPO

PACKAGE = REPO / "plugins" / "mlwiki"
FORBIDDEN_IN_CORE = ("mlwiki.render", "mlwiki.mkdocs_plugin", "mlwiki.runner", "mlwiki.cli", "mkdocs", "markdown")


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (absolute names; relative imports resolved), at any depth
    of the file: top level, inside functions, under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    rel_pkg = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(rel_pkg[: len(rel_pkg) - node.level + 1])
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
    return out


def test_core_imports_nothing_above_it() -> None:
    core_files = sorted((PACKAGE / "core").rglob("*.py"))
    assert len(core_files) > 10
    bad = [
        f"{f.relative_to(REPO)}:{line}: imports {name}"
        for f in core_files
        for line, name in imports_of(f)
        if any(name == p or name.startswith(p + ".") for p in FORBIDDEN_IN_CORE)
    ]
    assert bad == []


def test_the_walker_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The test above could pass by seeing nothing: check it finds nested and relative imports."""
    sample = PACKAGE / "core" / "_layering_probe.py"
    sample.write_text(
        "import os\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mlwiki.render import page\n"
        "def f():\n    from ..runner import engine\n    import mkdocs.plugins\n",
        encoding="utf-8",
    )
    try:
        names = [n for _, n in imports_of(sample)]
    finally:
        sample.unlink()
    assert "mlwiki.render.page" in names
    assert "mlwiki.runner.engine" in names
    assert "mkdocs.plugins" in names


def test_render_does_not_import_the_runner_or_plugin() -> None:
    bad = [
        f"{f.relative_to(REPO)}:{line}: imports {name}"
        for f in sorted((PACKAGE / "render").rglob("*.py"))
        for line, name in imports_of(f)
        if name.startswith(("mlwiki.runner", "mlwiki.mkdocs_plugin", "mlwiki.cli"))
    ]
    assert bad == []

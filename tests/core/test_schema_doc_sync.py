"""SCHEMA.md and the JSON Schemas name the same fields, type by type."""

from __future__ import annotations

import json
import re

import pytest

from mlwiki.core.registry import type_names
from wikifix import REPO

SCHEMA_MD = (REPO / "wiki" / "SCHEMA.md").read_text(encoding="utf-8")
COMMON_DOC = re.search(r"## Common fields.*?\n\n(\|.*?)\n\n", SCHEMA_MD, re.S)


def doc_fields(section: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.M))


def type_section(kind: str) -> str:
    m = re.search(rf"### Fields: {kind}\n(.*?)(?=\n## |\n### |\Z)", SCHEMA_MD, re.S)
    assert m, f"SCHEMA.md has no '### Fields: {kind}' section"
    return m.group(1)


@pytest.mark.parametrize("kind", type_names())
def test_fields_match(kind: str) -> None:
    schema = json.loads((REPO / "wiki" / "schema" / f"{kind}.json").read_text(encoding="utf-8"))
    in_schema = set(schema["properties"])
    assert COMMON_DOC
    in_doc = doc_fields(COMMON_DOC.group(1)) | doc_fields(type_section(kind))
    assert in_schema - in_doc == set(), f"{kind}: in the JSON Schema but not in SCHEMA.md"
    assert in_doc - in_schema == set(), f"{kind}: in SCHEMA.md but not in the JSON Schema"


def test_every_code_is_documented() -> None:
    import mlwiki.core.checks as checks_pkg

    src = "".join(p.read_text(encoding="utf-8") for p in (REPO / "plugins" / "mlwiki" / "core").rglob("*.py"))
    used = set(re.findall(r'"(MLW\d{3})"', src))
    documented = set(re.findall(r"^\| `(MLW\d{3})` \|", SCHEMA_MD, re.M))
    assert used - documented == set()
    assert documented - used == set()
    assert checks_pkg.CHECKS

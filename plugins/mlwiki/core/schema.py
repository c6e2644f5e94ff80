"""Validate frontmatter and JSON pages against the JSON Schemas in ``wiki/schema/``.

Schemas are loaded into one ``referencing`` registry (so ``mlwiki:defs`` refs resolve) and
each jsonschema error becomes an MLW004 diagnostic at the offending key's line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

from mlwiki.core.diagnostics import Diagnostic, Location, did_you_mean
from mlwiki.core.positions import Positions, position_of
from mlwiki.core.registry import type_names

_JSON_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "number": "a number",
    "null": "null",
}


class SchemaSet:
    """The validators for every page type, built once per wiki."""

    def __init__(self, schema_dir: Path) -> None:
        self.dir = schema_dir
        self.validators: dict[str, jsonschema.Draft202012Validator] = {}
        self.diagnostics: list[Diagnostic] = []
        schemas: dict[str, dict[str, Any]] = {}
        for path in sorted(schema_dir.glob("*.json")):
            rel = path.relative_to(schema_dir.parent.parent).as_posix()
            try:
                schemas[path.stem] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                self.diagnostics.append(Diagnostic("MLW003", f"schema file unreadable: {exc}", Location(rel)))
        registry: Registry[Any] = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values() if "$id" in s
        )
        for kind in type_names():
            if kind in schemas:
                # $refs inlined once: validation then never resolves a reference (5x faster).
                schema = _inline_refs(schemas[kind], schemas)
                self.validators[kind] = jsonschema.Draft202012Validator(schema, registry=registry)
            else:
                self.diagnostics.append(
                    Diagnostic(
                        "MLW004",
                        f"no schema for page type '{kind}'",
                        Location(f"{schema_dir.name}/{kind}.json"),
                    )
                )

    def properties(self, kind: str) -> set[str]:
        v = self.validators.get(kind)
        schema = v.schema if v else {}
        return set(schema.get("properties", {})) if isinstance(schema, dict) else set()

    def validate(self, kind: str, data: Any, rel: str, positions: Positions) -> Iterator[Diagnostic]:
        """Every schema violation of one page's data, at the line of the offending key."""
        validator = self.validators.get(kind)
        if validator is None:
            return
        errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        seen: set[tuple[str, Location]] = set()
        for err in errors:
            for msg, path in _explain(err):
                loc = Location(rel, *position_of(positions, path))
                if (msg, loc) in seen:
                    continue
                seen.add((msg, loc))
                yield Diagnostic("MLW004", msg, loc)


_CACHE: dict[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]], SchemaSet] = {}


def schema_set(schema_dir: Path) -> SchemaSet:
    """The SchemaSet of a schema folder, compiled once per content of its files and per set of
    registered types (property tests and ``serve`` load the same wiki many times)."""
    import hashlib

    try:
        stamp = tuple(
            (p.name, hashlib.sha256(p.read_bytes()).hexdigest()) for p in sorted(schema_dir.glob("*.json"))
        )
    except OSError:
        stamp = ()
    key = (schema_dir.name, stamp, type_names())
    found = _CACHE.get(key)
    if found is None:
        found = SchemaSet(schema_dir)
        _CACHE.clear()
        _CACHE[key] = found
    return found


def _inline_refs(node: Any, schemas: dict[str, dict[str, Any]], base: str = "") -> Any:
    """Replace ``{"$ref": "mlwiki:defs#/$defs/x"}`` (and local ``#/$defs/x``) by the definition."""
    if isinstance(node, list):
        return [_inline_refs(x, schemas, base) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) == 1:
        doc_id, _, pointer = ref.partition("#")
        doc_id = doc_id or base
        target = next((sc for sc in schemas.values() if sc.get("$id") == doc_id), None)
        if target is not None and pointer.startswith("/"):
            resolved: Any = target
            for part in pointer.strip("/").split("/"):
                resolved = resolved[part]
            return _inline_refs(resolved, schemas, doc_id)
    return {k: _inline_refs(v, schemas, base) for k, v in node.items()}


def _where(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _explain(err: jsonschema.ValidationError) -> Iterator[tuple[str, tuple[Any, ...]]]:
    path = tuple(err.absolute_path)
    field = _where(path)
    at = f" in '{field}'" if field else ""
    v = err.validator
    if v == "additionalProperties":
        extra = re.findall(r"'([^']+)'", err.message.split("were unexpected")[0].split("was unexpected")[0])
        allowed = sorted(err.schema.get("properties", {})) if isinstance(err.schema, dict) else []
        for key in extra:
            hint = did_you_mean(key, allowed)
            yield f"unknown key '{key}'{at}" + (f"; {hint}" if hint else ""), (*path, key)
        return
    if v == "required":
        m = re.match(r"'([^']+)' is a required property", err.message)
        name = m.group(1) if m else err.message
        yield f"missing required field '{name}'{at}", path
        return
    if v == "type":
        want: Any = err.validator_value
        wants = [want] if isinstance(want, str) else list(want)
        yield (
            f"'{field}' must be "
            + " or ".join(_JSON_TYPES.get(w, w) for w in wants)
            + f", not {_describe(err.instance)}",
            path,
        )
        return
    if v in ("enum", "const"):
        options: Any = err.validator_value if v == "enum" else [err.validator_value]
        yield (
            f"'{field}' is {json.dumps(err.instance)}; allowed: " + ", ".join(json.dumps(o) for o in options),
            path,
        )
        return
    if v == "pattern":
        yield (
            f"'{field}' value {json.dumps(err.instance)} does not match the pattern {err.validator_value}",
            path,
        )
        return
    if v in ("minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "uniqueItems"):
        yield f"'{field or 'page'}' breaks {v}={json.dumps(err.validator_value)}: {err.message}", path
        return
    if v == "not" and isinstance(err.instance, dict) and "execution_mode" in err.instance:
        mode = err.instance.get("execution_mode")
        own = {"command": "command", "ai": "prompt", "manual": "instructions"}.get(str(mode))
        for key in ("command", "prompt", "instructions"):
            if key in err.instance and key != own:
                yield f"'{key}' is not allowed when execution_mode is {json.dumps(mode)}", (*path, key)
        return
    if v == "not" and isinstance(err.instance, dict) and "next" in err.instance and "no_workflow" in err.instance:
        yield f"'{field}' has both 'next' and 'no_workflow'; give one", (*path, "no_workflow")
        return
    if v == "dependentRequired":
        m = re.match(r"'([^']+)' is a dependency of '([^']+)'", err.message)
        if m:
            yield f"'{m.group(2)}' needs '{m.group(1)}' beside it{at}", path
            return
    yield f"{err.message}{at}", path


def _describe(value: Any) -> str:
    for t, name in (
        ("bool", "true or false"),
        ("int", "an integer"),
        ("str", "a string"),
        ("list", "a list"),
        ("dict", "a mapping"),
        ("float", "a number"),
        ("NoneType", "empty"),
    ):
        if type(value).__name__ == t:
            return name
    return type(value).__name__

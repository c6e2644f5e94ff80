"""Content-addressed cache of the search payload and its fragments (``{"payload": ...,
"fragments": {name: text}}``), so repeated builds and CLI queries skip the index build when the
wiki has not changed. Key: sha256 of every wiki file's path and bytes,
plus the source of the code that builds the payload (so a code change never serves a stale
index)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from mlwiki.core.search.build import PAYLOAD_VERSION

CODE_VERSION = f"{PAYLOAD_VERSION}.3"  # .3: the fragments cached with the payload


def _code_digest() -> bytes:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(CODE_VERSION.encode())
    for name in ("build.py", "tokenize.py", "rank.py", "fragments.py"):
        h.update((here / name).read_bytes())
    for name in ("model.py", "urls.py", "loader.py", "registry.py", "types.py", "triage_spec.json"):
        h.update((here.parent / name).read_bytes())
    return h.digest()


def fingerprint(root: Path) -> str:
    h = hashlib.sha256(_code_digest())
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel == "INDEX.md" or any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        h.update(rel.encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mlwiki"


def read_cached(key: str) -> dict[str, Any] | None:
    path = cache_dir() / f"search-{key[:32]}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("payload"), dict) or not isinstance(data.get("fragments"), dict):
        return None  # written by another version, or damaged: rebuild
    return data


def search_data(key: str, build: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    """The payload and its fragment files for a wiki fingerprint: cached, or built and cached."""
    from mlwiki.core.search.build import payload_json
    from mlwiki.core.search.fragments import build_fragments

    cached = read_cached(key)
    if cached is not None:
        return cached["payload"], cached["fragments"]
    payload = build()
    fragments = build_fragments(payload)
    write_cached(key, '{"fragments":' + json.dumps(fragments, sort_keys=True) + ',"payload":' + payload_json(payload) + "}")
    return payload, fragments


def write_cached(key: str, text: str) -> None:
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, d / f"search-{key[:32]}.json")
    except OSError:
        pass  # a cache that cannot be written only costs time

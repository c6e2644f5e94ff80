"""Typed configuration of the ``mlwiki`` MkDocs plugin."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class MlwikiConfig(base.Config):  # type: ignore[no-untyped-call]
    enabled = c.Type(bool, default=True)
    wiki_dir = c.Type(str, default="wiki")
    """Wiki directory, relative to mkdocs.yml."""

"""Typed configuration of the ``mlwiki`` MkDocs plugin."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class MlwikiConfig(base.Config):  # type: ignore[no-untyped-call]
    enabled = c.Type(bool, default=True)
    wiki_dir = c.Type(str, default="wiki")
    """Wiki directory, relative to mkdocs.yml."""
    on_error = c.Choice(("fail", "warn"), default="fail")
    """What a wiki error (a linter error: schema, link, anchor, YAML...) does to ``mkdocs build``:
    ``fail`` stops the build with the list of errors, whatever ``--strict``/``-q`` say; ``warn``
    logs them and builds, showing each error on its page. ``mkdocs serve`` always warns, so the
    preview keeps running while you fix the file."""

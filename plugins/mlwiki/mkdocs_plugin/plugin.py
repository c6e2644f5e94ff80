"""The ``mlwiki`` MkDocs plugin: hooks only, delegating to the core and the renderers.

on_startup: note whether this is ``serve``. on_config: find the wiki. on_files: load and check
it once; on a linter error stop the build with the list (``on_error: fail``, the default: the
build fails whatever ``--strict``, ``-q`` or ``-v`` say), or, under ``serve`` or with
``on_error: warn``, log each error and show it on its page; add one generated file per wiki
page plus the index pages. on_page_markdown: resolve wikilinks in hand-written docs pages
(their problems use the linter's codes and fail the build the same way, in on_env).
on_serve: watch ``wiki/`` so edits rebuild the site.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page as MkPage

from mlwiki.core import check, load
from mlwiki.core.diagnostics import Diagnostic, Location, Severity, did_you_mean
from mlwiki.core.loader import WikiDirError
from mlwiki.core.markdown import mask_code
from mlwiki.core.model import Wiki
from mlwiki.core.registry import type_names
from mlwiki.core.search import build_payload
from mlwiki.core.search.cache import fingerprint
from mlwiki.core.search.fragments import FRAGMENTS_DIR
from mlwiki.core.urls import src_uri, tag_src, type_src
from mlwiki.mkdocs_plugin.config import MlwikiConfig
from mlwiki.mkdocs_plugin.search_job import SearchJob
from mlwiki.render.indexes import (
    SIGNATURES_SRC,
    TAGS_SRC,
    signature_index,
    tag_page,
    tags_overview,
    type_index,
)
from mlwiki.render.page import Rendered, SiteMap, assemble, page_source, rewrite_wikilinks

ASSET_CSS = "assets/mlwiki.css"
ASSET_JS = "assets/mlwiki.js"
ASSET_SEARCH = "assets/mlwiki-search.js"
ASSET_SEARCH_CORE = "assets/mlwiki-search-core.js"
ASSET_TRIAGE_CORE = "assets/mlwiki-triage-core.js"
ASSET_TRIAGE = "assets/mlwiki-triage.js"
ASSET_TRIAGE_WORKER = "assets/mlwiki-triage-worker.js"
SEARCH_INDEX = "search/mlwiki-index.json"


def static_assets() -> dict[str, bytes]:
    """Site assets, all from the package (never a CDN)."""
    own = Path(__file__).resolve().parent.parent / "render" / "assets"
    return {
        ASSET_CSS: (own / "mlwiki.css").read_bytes(),
        ASSET_JS: (own / "mlwiki.js").read_bytes(),
        ASSET_SEARCH: (own / "search.js").read_bytes(),
        ASSET_SEARCH_CORE: (own / "search-core.js").read_bytes(),
        ASSET_TRIAGE_CORE: (own / "triage-core.js").read_bytes(),
        ASSET_TRIAGE: (own / "triage.js").read_bytes(),
        ASSET_TRIAGE_WORKER: (own / "triage-worker.js").read_bytes(),
    }


log = get_plugin_logger(__name__)


class MlwikiPlugin(BasePlugin[MlwikiConfig]):  # type: ignore[no-untyped-call]
    def __init__(self) -> None:
        self.wiki: Wiki | None = None
        self.wiki_dir: Path | None = None
        self._search_cache: tuple[str, str, dict[str, str]] | None = None
        self._search_job: SearchJob | None = None
        self.fragments: dict[str, dict[str, str]] = {}
        self.serving = False
        self.doc_errors: list[Diagnostic] = []

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    @property
    def failing(self) -> bool:
        """True when wiki errors must stop the build (not under serve, not with on_error: warn)."""
        return self.config.on_error == "fail" and not self.serving

    def _fail(self, errors: list[Diagnostic]) -> None:
        listed = "\n".join(d.format_text() for d in errors)
        n = len(errors)
        raise PluginError(
            f"mlwiki: the wiki has {n} error{'s' if n != 1 else ''}; the site was not built:\n{listed}\n"
            "Fix them (python3 scripts/wiki_linter.py --format text lists the same), or set "
            "'on_error: warn' for the mlwiki plugin in mkdocs.yml to build anyway."
        )

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        base = Path(os.path.dirname(config.config_file_path or "."))
        self.wiki_dir = (base / self.config.wiki_dir).resolve()
        if self.config.enabled:
            # Our assets ship inside the package.
            config.extra_css.append(ASSET_CSS)
            for js in (ASSET_JS, ASSET_SEARCH_CORE, ASSET_TRIAGE_CORE, ASSET_SEARCH, ASSET_TRIAGE):
                config.extra_javascript.append(js)
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files | None:
        if not self.config.enabled:
            return files
        assert self.wiki_dir is not None
        try:
            wiki = load(self.wiki_dir)
        except WikiDirError as exc:
            raise PluginError(f"mlwiki: {exc} (set 'wiki_dir' of the mlwiki plugin in mkdocs.yml)") from None
        except OSError as exc:
            raise PluginError(f"mlwiki: cannot read the wiki directory '{self.wiki_dir}': {exc}") from None
        self.wiki = wiki
        self.doc_errors = []
        diagnostics = check(wiki)
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        if errors and self.failing:
            self._fail(errors)
        for d in diagnostics:
            log.warning(d.format_text())
        site = SiteMap(wiki, problems=errors)
        rendered: dict[str, Rendered] = {}
        for page in wiki.pages.values():
            rendered[src_uri(page)] = page_source(page, site)
        for kind in type_names():
            rendered[type_src(kind)] = assemble([type_index(wiki, kind)])
        for group, tags in wiki.tags.items():
            for tag, desc in tags.items():
                rendered[tag_src(tag)] = assemble([tag_page(wiki, group, tag, desc)])
        rendered[TAGS_SRC] = assemble([tags_overview(wiki)])
        rendered[SIGNATURES_SRC] = assemble([signature_index(wiki)])
        self.fragments = {uri: r.fragments for uri, r in rendered.items()}
        generated = {uri: r.markdown for uri, r in rendered.items()}
        assets = static_assets()
        self._start_search(wiki)
        in_nav = _nav_sources(config.nav)
        for uri in sorted(generated):
            existing = files.get_file_from_path(uri)
            if existing is not None:
                raise PluginError(f"mlwiki: docs_dir file '{uri}' clashes with a generated wiki page of the same path")
            # Generated pages reached from the type and tag indexes are ours, not missing from the
            # nav: marking them keeps MkDocs from listing hundreds of "not included" lines.
            inclusion = InclusionLevel.UNDEFINED if uri in in_nav else InclusionLevel.NOT_IN_NAV
            files.append(File.generated(config, uri, content=generated[uri], inclusion=inclusion))
        for uri in sorted(assets):
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, content=assets[uri]))
        return files

    def _start_search(self, wiki: Wiki) -> None:
        """Start the search files (the payload for triage, its fragments for the search box):
        kept from the last build or the cache when the wiki's content is unchanged, otherwise
        built beside the page rendering (search_job.py) and written after the build."""
        key = fingerprint(wiki.root)
        if self._search_cache is not None and self._search_cache[0] == key:
            self._search_job = None
        else:
            self._search_job = SearchJob(key, lambda: build_payload(wiki))

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.config.enabled or self.wiki is None:
            return
        if self._search_job is not None:
            text, fragments = self._search_job.result()
            self._search_cache = (self._search_job.key, text, fragments)
            self._search_job = None
        assert self._search_cache is not None
        _, text, fragments = self._search_cache
        site = Path(config.site_dir)
        _write(site / SEARCH_INDEX, text)
        for name in sorted(fragments):
            _write(site / FRAGMENTS_DIR / name, fragments[name])

    def on_build_error(self, *, error: Exception) -> None:
        if self._search_job is not None:
            self._search_job.cancel()
            self._search_job = None

    def on_page_markdown(self, markdown: str, /, *, page: MkPage, config: MkDocsConfig, files: Files) -> str | None:
        if self.wiki is None or page.file.generated_by is not None or "[[" not in markdown:
            return markdown
        rel = os.path.relpath(os.path.join(config.docs_dir, page.file.src_uri), os.path.dirname(self.wiki.root))
        problems = doc_link_problems(markdown, Path(rel).as_posix(), self.wiki)
        for d in problems:
            log.warning(d.format_text())
        self.doc_errors.extend(problems)
        return rewrite_wikilinks_in_doc(markdown, page.file.src_uri, self.wiki)

    def on_env(self, env: Any, /, *, config: MkDocsConfig, files: Files) -> Any:
        """Every page's Markdown has been read by now: wikilink errors in docs pages stop the build."""
        if self.doc_errors and self.failing:
            self._fail(sorted(self.doc_errors, key=Diagnostic.sort_key))
        return env

    def on_page_content(self, html: str, /, *, page: MkPage, config: MkDocsConfig, files: Files) -> str | None:
        """Put the generated (already escaped) HTML fragments back in place of their comments."""
        fragments = self.fragments.get(page.file.src_uri)
        if not fragments:
            return html
        for key, fragment in fragments.items():
            html = html.replace(f"<!--{key}-->", fragment, 1)
        return html

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        if self.wiki_dir is not None and self.wiki_dir.is_dir():
            server.watch(str(self.wiki_dir))
        return server


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _nav_sources(nav: Any) -> set[str]:
    """Every Markdown source path named in the ``nav`` config, at any depth."""
    found: set[str] = set()
    stack = [nav]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def doc_link_problems(markdown: str, rel: str, wiki: Wiki) -> list[Diagnostic]:
    """Wikilink problems of a hand-written docs page, with the linter's codes and messages."""
    from mlwiki.core.markdown import find_wikilinks

    out = []
    for link in find_wikilinks(mask_code(markdown)):
        loc = Location(rel, link.line, link.column)
        target, candidates = wiki.resolve(link.target)
        if target is None and candidates:
            out.append(
                Diagnostic(
                    "MLW012",
                    f"wikilink target '{link.target}' is ambiguous: it is an alias of "
                    + ", ".join(f"'{c}'" for c in candidates),
                    loc,
                )
            )
        elif target is None:
            hint = did_you_mean(link.target, list(wiki.pages))
            out.append(Diagnostic("MLW010", f"unknown wikilink target '{link.target}'", loc, hint=hint))
        elif link.anchor and link.anchor not in wiki.pages[target].anchors:
            anchors = wiki.pages[target].anchors
            out.append(
                Diagnostic(
                    "MLW011",
                    f"unknown anchor '#{link.anchor}' on page '{target}'",
                    loc,
                    hint=did_you_mean(link.anchor, anchors),
                )
            )
    return out


def rewrite_wikilinks_in_doc(markdown: str, here: str, wiki: Wiki) -> str:
    """Wikilinks in a hand-written docs_src page become relative links (broken ones a marked span)."""
    masked = mask_code(markdown)
    dummy = next(iter(wiki.pages.values()))
    return rewrite_wikilinks(dummy, markdown, masked, 1, SiteMap(wiki), here)

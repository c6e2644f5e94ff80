"""Properties of built sites: one page per wiki file, no raw wikilinks, nothing fetched from
another origin, every planted attack string escaped, byte-identical rebuilds."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mlwiki.core import load
from mlwiki.core.registry import page_types
from sitefix import Build, build, make_site
from wikifix import ACTION, REPO, SYMPTOM, WORKFLOW, base_files

# Resource loads: src/srcset/poster/data attributes, <link href>, CSS url() and @import.
RESOURCE_ATTR = re.compile(
    r"""<(?:img|script|iframe|source|video|audio|embed|object|track|input)\b[^>]*\s(?:src|srcset|poster|data)\s*=\s*["']?([^"'\s>]+)""",
    re.I,
)
LINK_HREF = re.compile(r"""<link\b[^>]*\shref\s*=\s*["']?([^"'\s>]+)""", re.I)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)""", re.I)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*["']?([^"');\s]+)""", re.I)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)


def outside_code(html: str) -> str:
    html = re.sub(r"<pre\b.*?</pre>", "", html, flags=re.S | re.I)
    return re.sub(r"<code\b.*?</code>", "", html, flags=re.S | re.I)


def external_resources(site: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in (".html", ".css", ".js", ".svg") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        patterns = [RESOURCE_ATTR, LINK_HREF] if path.suffix == ".html" else []
        patterns += [CSS_URL, CSS_IMPORT] if path.suffix in (".css", ".html") else []
        for rx in patterns:
            for url in rx.findall(text):
                if EXTERNAL.match(url) and not url.startswith("data:"):
                    found.append((str(path.relative_to(site)), url))
    return found


def test_one_page_per_wiki_file(shipped: Build) -> None:
    wiki = load(REPO / "wiki")
    for kind, folder in ((t.name, t.folder) for t in page_types()):
        ids = {p.id for p in wiki.by_type(kind)}
        built = {p.parent.name for p in (shipped.site / folder).glob("*/index.html")}
        assert built == ids, kind
    for doc in ("tutorial", "schema", "log", "index"):
        assert (shipped.site / "wiki" / doc / "index.html").is_file() or (
            doc == "index" and (shipped.site / "wiki" / "index.html").is_file()
        )


def test_no_raw_wikilinks(shipped: Build) -> None:
    offenders = [str(p) for p in shipped.site.rglob("*.html") if "[[" in outside_code(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_generated_headings_render(shipped: Build) -> None:
    """Every generated heading is a real heading, never literal Markdown."""
    offenders = [str(p) for p in shipped.site.rglob("*.html") if "{#mlw-" in p.read_text(encoding="utf-8")]
    assert offenders == []
    page = (shipped.site / "symptoms" / "tpu-device-busy" / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="mlw-signatures">' in page and '<h2 id="mlw-backlinks">' in page


def test_no_request_to_another_origin(shipped: Build) -> None:
    assert external_resources(shipped.site) == []


def test_detector_catches_external_resources(tmp_path: Path) -> None:
    """The origin check itself can fail."""
    (tmp_path / "a.html").write_text('<img src="https://cdn.example/x.png"><link href="//fonts.example/css">')
    (tmp_path / "b.css").write_text(
        "@import url(https://x.example/a.css); body{background:url('http://x.example/b.png')}"
    )
    assert {u for _, u in external_resources(tmp_path)} == {
        "https://cdn.example/x.png",
        "//fonts.example/css",
        "https://x.example/a.css",
        "http://x.example/b.png",
    }


def test_signature_index_lists_every_signature(shipped: Build) -> None:
    import html

    text = html.unescape((shipped.site / "signatures" / "index.html").read_text(encoding="utf-8"))
    for sym in load(REPO / "wiki").symptoms.values():
        for sig in sym.signatures:
            assert sig.text in text, (sym.id, sig.text)


ATTACKS = ["<img src=x onerror=alert(1)>", '"><script>alert(1)</script>']


def test_attack_strings_are_escaped(tmp_path: Path) -> None:
    a, b = ATTACKS
    files: dict[str, str | bytes] = dict(base_files())
    files["symptoms/disk-full.md"] = SYMPTOM.replace("title: Disk full on a worker", f"title: '{a}{b}'").replace(
        "summary: The worker's disk filled up and writes fail with ENOSPC.", f"summary: '{b} worker disk {a}'"
    )
    act = dict(ACTION)
    act["title"] = f"Check {a}"
    act["description"] = "Plain description."
    act["summary"] = f"Summary {b}"
    params = json.loads(json.dumps(ACTION["parameters"]))
    params["namespace"]["default"] = "default"
    params["namespace"]["description"] = f"NS {a}"
    params["pod_name"]["pattern"] = ".*"
    params["pod_name"]["example"] = b
    act["parameters"] = params
    files["actions/check-disk.json"] = json.dumps(act, indent=2)
    wf = dict(WORKFLOW)
    wf["steps"] = [
        {
            "id": "df",
            "action": "check-disk",
            "title": f"Step {a}",
            "why": f"Why {b}",
            "with": {"pod_name": "{pod_name}"},
        }
    ]
    wf["parameters"] = {
        "pod_name": {"type": "string", "description": f"Pod {b}", "required": True, "pattern": ".*", "example": a}
    }
    files["workflows/wf-disk-check.json"] = json.dumps(wf, indent=2)
    result = build(make_site(tmp_path, files))
    assert result.code == 0, result.log
    for page in (
        "symptoms/disk-full",
        "actions/check-disk",
        "workflows/wf-disk-check",
        "symptoms",
        "signatures",
        "tags/gke",
    ):
        html_text = (result.site / page / "index.html").read_text(encoding="utf-8")
        assert "<img src=x onerror" not in html_text, page
        assert "<script>alert(1)" not in html_text, page
        assert "&lt;img src=x onerror=alert(1)&gt;" in html_text or page in ("tags/gke",), page


def test_rebuild_is_byte_identical(tmp_path: Path) -> None:
    project = make_site(tmp_path / "p", dict(base_files()))
    first = build(project, tmp_path / "one")
    second = build(project, tmp_path / "two")
    assert first.code == 0 and second.code == 0
    a = {p.relative_to(first.site): p.read_bytes() for p in first.site.rglob("*") if p.is_file()}
    b = {p.relative_to(second.site): p.read_bytes() for p in second.site.rglob("*") if p.is_file()}
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_shipped_build_log_shows_only_what_needs_attention(shipped: Build) -> None:
    """Generated pages are the plugin's own: MkDocs never lists them as missing from the nav."""
    assert "not included in the" not in shipped.log
    assert "WARNING" not in shipped.log, shipped.log[-2000:]

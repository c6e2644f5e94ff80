"""The site as an on-call engineer uses it, in Chromium, on a desktop and a 375 px phone."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from conftest import WIDTHS, assert_clean, new_page, screenshot
from mlwiki.core import load
from mlwiki.core.search import build_payload, search
from mlwiki.core.search.build import build_index
from wikifix import REPO

EVAL = yaml.safe_load((REPO / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
PASTES = [
    (
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 4242",
        "tpu-device-busy",
    ),
    (EVAL[0]["query"], EVAL[0]["expect"][0]),
    ("Failed to initialize NVML: Driver/library version mismatch", "cuda-driver-version-mismatch"),
]


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize(("error", "expected"), PASTES, ids=["tpu-busy", "nccl-watchdog", "nvml"])
def test_paste_error_into_header_search(browser: Any, site_url: str, viewport: str, error: str, expected: str) -> None:
    ctx, page, watch = new_page(browser, site_url, viewport)
    page.goto(site_url + "/")
    page.keyboard.press("/")
    page.keyboard.insert_text(error)
    page.wait_for_selector(".mlw-search.mlw-open .mlw-search-hit", timeout=15_000)
    href = page.get_attribute(".mlw-search-hit >> nth=0 >> a", "href") or ""
    assert f"/symptoms/{expected}/" in href
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(f"/symptoms/{expected}/"))
    if expected == "tpu-device-busy":
        screenshot(page, f"symptom-{viewport}")
    assert_clean(watch)
    ctx.close()


def test_home_page(browser: Any, site_url: str) -> None:
    for viewport in ("desktop", "phone"):
        ctx, page, watch = new_page(browser, site_url, viewport)
        page.goto(site_url + "/")
        assert page.locator("h1").first.inner_text().rstrip("¶") == "What are you seeing?"
        screenshot(page, f"home-{viewport}")
        if viewport == "phone":
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, f"horizontal overflow on a phone: {width}px"
        assert_clean(watch)
        ctx.close()


def test_diagram_without_javascript(browser: Any, site_url: str) -> None:
    wf = load(REPO / "wiki").workflows["wf-tpu-workload-hang"]
    ctx, page, watch = new_page(browser, site_url, js=False)
    page.goto(site_url + "/workflows/wf-tpu-workload-hang/")
    svg = page.locator("svg.mlw-diagram")
    assert svg.is_visible()
    assert svg.locator("a.mlw-dg-step").count() == len(wf.steps)
    box = svg.bounding_box()
    assert box and box["height"] > 200
    assert page.locator(".mlw-dg-fallback li").count() == len(wf.steps)
    svg.locator("a.mlw-dg-step").first.click()
    page.wait_for_url(re.compile(f"/actions/{wf.steps[0].action}/"))
    assert_clean(watch)
    ctx.close()


def _commands(page: Any) -> list[str]:
    return [t for t in page.locator("code[data-mlw-cmd]").all_inner_texts()]


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_form_fills_commands_url_and_clipboard(browser: Any, site_url: str, viewport: str, tmp_path: Path) -> None:
    ctx, page, watch = new_page(browser, site_url, viewport)
    url = site_url + "/workflows/wf-tpu-workload-hang/"
    page.goto(url)
    field = page.locator("form[data-mlw-form] input[name=workload_name]")
    field.fill("llama-train")
    before = _commands(page)
    assert before and all('"workload_name": "llama-train"' in c for c in before)
    assert parse_qs(urlparse(page.url).query)["workload_name"] == ["llama-train"]
    screenshot(page, f"workflow-{viewport}")
    page.reload()
    assert page.locator("form[data-mlw-form] input[name=workload_name]").input_value() == "llama-train"
    assert _commands(page) == before
    # the copy button copies exactly the displayed command
    block = page.locator(".mlw-runner").first
    block.hover()
    block.locator("button.md-clipboard, button.md-code__button").first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == before[0]
    argv = shlex.split(copied)
    assert argv[:2] == ["python3", "scripts/python_glue_runner.py"]
    proc = subprocess.run([sys.executable, *argv[1:], "--dry-run"], cwd=REPO, capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin", "MLWIKI_RUNS_DIR": str(tmp_path)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "llama-train" in proc.stdout
    assert_clean(watch)
    ctx.close()


def test_hostile_value_reaches_runner_intact(browser: Any, site_url: str, tmp_path: Path) -> None:
    """Quotes, spaces and $ survive the shell quoting: the runner sees the exact value (and
    refuses it by the parameter's pattern, quoting it back)."""
    value = 'it\'s a "$HOME" `x` $(y) ; z'
    ctx, page, watch = new_page(browser, site_url)
    page.goto(site_url + "/actions/kubectl-get-jobset-pods/")
    page.locator("form[data-mlw-form] input[name=workload_name]").fill(value)
    cmd = _commands(page)[0]
    proc = subprocess.run(["bash", "-c", cmd.replace("python3 ", f"{sys.executable} ", 1) + " --dry-run"], cwd=REPO,
                          capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin", "MLWIKI_RUNS_DIR": str(tmp_path)})  # fmt: skip
    assert proc.returncode == 2
    assert json.dumps(value) in proc.stderr
    assert_clean(watch)
    ctx.close()


def test_follow_wikilinks_and_backlinks(browser: Any, site_url: str) -> None:
    ctx, page, watch = new_page(browser, site_url)
    page.goto(site_url + "/symptoms/jax-peer-task-died/")
    assert page.locator("#mlw-backlinks").count() == 1
    links = page.locator("article a[href]:not(.headerlink):not(.mlw-ext)")
    hrefs = sorted({h for h in links.evaluate_all("els => els.map(e => e.href)") if h.startswith(site_url)})
    assert len(hrefs) > 10
    for href in hrefs:
        response = page.goto(href)
        assert response is not None and response.status == 200, href
        assert page.title() and "404" not in page.title()
    assert_clean(watch)
    ctx.close()


def test_js_and_python_rank_the_same(browser: Any, site_url: str) -> None:
    wiki = load(REPO / "wiki")
    payload = build_payload(wiki)
    index = build_index(wiki)
    queries = [e["query"] for e in EVAL]
    queries += [s.signatures[0].text for s in wiki.symptoms.values() if s.signatures][:60]
    queries += ["Xid 79", "ImagePullBackOff", "OOMKilled", "RESOURCE_EXHAUSTED hbm", "nccl timeout", "+ - ~ ^ * :"]
    ctx, page, watch = new_page(browser, site_url)
    page.goto(site_url + "/")
    js = page.evaluate(
        "qs => Promise.all(qs.map(q => mlwikiSearch.search(q, 3).then(h => h.map(x => x.ref))))", queries
    )
    py = [[h.ref for h in search(index, payload["docs"], q, k=3)] for q in queries]
    mismatches = [(q[:80], a, b) for q, a, b in zip(queries, js, py) if a != b]
    assert mismatches == []
    assert_clean(watch)
    ctx.close()


APPROVAL_PAGES = ["kubectl-cordon-node", "kubectl-drain-node", "kubectl-force-delete-pod", "gcloud-report-host-faulty"]


@pytest.mark.parametrize("viewport", WIDTHS)
def test_approval_page_shows_the_dry_run_first_and_hides_approve(browser: Any, site_url: str, viewport: str) -> None:
    """No --approve command is visible (or copyable) before the reader makes the explicit choice."""
    ctx, page, watch = new_page(browser, site_url, viewport)
    for action in APPROVAL_PAGES:
        page.goto(f"{site_url}/actions/{action}/")
        visible = [c for c in page.locator("code[data-mlw-cmd]").all() if c.is_visible()]
        assert visible and "--dry-run" in visible[0].inner_text()
        assert all("--approve" not in c.inner_text() for c in visible), action
        page.locator("details.mlw-approve > summary").click()
        shown = [c.inner_text() for c in page.locator("code[data-mlw-cmd]").all() if c.is_visible()]
        assert any(t.endswith("--approve") for t in shown), action
    screenshot(page, f"approval-{viewport}")
    assert_clean(watch)
    ctx.close()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_forms_start_empty_and_check_patterns_live(browser: Any, site_url: str, viewport: str) -> None:
    ctx, page, watch = new_page(browser, site_url, viewport)
    page.goto(site_url + "/workflows/wf-container-crash/")
    inputs = page.locator("form[data-mlw-form] input").all()
    assert inputs and all(i.input_value() == "" for i in inputs)
    ns = page.locator("form[data-mlw-form] input[name=namespace]")
    assert ns.get_attribute("placeholder", timeout=2000)
    assert all("<namespace>" in c for c in _commands(page))
    ns.fill("Bad_NS")
    error = page.locator('[data-mlw-error="namespace"]')
    assert error.is_visible() and "the runner will refuse it" in error.inner_text()
    assert ns.get_attribute("aria-invalid") == "true"
    ns.fill("ml-team")
    assert not error.is_visible()
    assert all('"namespace": "ml-team"' in c for c in _commands(page))
    assert_clean(watch)
    ctx.close()


@pytest.mark.parametrize("width", [320, 375, 768, 1400])
def test_search_dropdown_fits_the_viewport(browser: Any, site_url: str, width: int) -> None:
    ctx = browser.new_context(viewport={"width": width, "height": 800})
    page = ctx.new_page()
    page.goto(site_url + "/")
    box = page.locator(".mlw-search input")
    box.fill("RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 4242")
    page.wait_for_selector(".mlw-search.mlw-open .mlw-search-hit")
    rect = page.locator(".mlw-search-results").bounding_box()
    assert rect is not None
    assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width, (width, rect)
    first = page.locator(".mlw-search-hit").first.inner_text()
    assert "signature match" in first
    screenshot(page, f"search-{width}")
    ctx.close()


def test_weak_matches_say_so(browser: Any, site_url: str) -> None:
    ctx, page, watch = new_page(browser, site_url)
    page.goto(site_url + "/")
    page.locator(".mlw-search input").fill("zebra giraffe lemon")
    page.wait_for_selector(".mlw-search.mlw-open")
    text = page.locator(".mlw-search-results").inner_text()
    assert "No confident match" in text or "No page matches" in text
    assert page.locator(".mlw-search-hit").count() <= 3
    assert "signature match" not in text
    assert_clean(watch)
    ctx.close()


def test_search_reads_only_the_fragments_a_query_needs(browser: Any, site_url: str) -> None:
    """The page fetches the small manifest, then for a pasted error a few fragments: never the
    whole payload (search/mlwiki-index.json is the triage page's)."""
    ctx, page, watch = new_page(browser, site_url)
    page.goto(site_url + "/")
    page.locator(".mlw-search input").fill(PASTES[0][0])
    page.wait_for_selector(".mlw-search.mlw-open .mlw-search-hit")
    fetched = [u for u in watch.requests if "/search/" in u]
    assert any(u.endswith("/search/fragments/manifest.json") for u in fetched)
    assert not any("mlwiki-index.json" in u for u in fetched)
    assert 1 < len(fetched) < 40, fetched
    assert_clean(watch)
    ctx.close()


def test_search_after_a_new_deploy_reads_the_manifest_again(browser: Any, site_url: str) -> None:
    """A manifest read before a deploy names fragments that are gone (404): the search box reads
    the manifest again, past the cache, and answers."""
    ctx, page, watch = new_page(browser, site_url)
    served: list[int] = []

    def stale(route: Any) -> None:
        served.append(1)
        if len(served) > 1:
            route.continue_()
            return
        body = json.loads(route.fetch().text())
        body["dir"] = "0000000000000000"
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/search/fragments/manifest.json", stale)
    page.goto(site_url + "/")
    page.locator(".mlw-search input").fill(PASTES[0][0])
    page.wait_for_selector(".mlw-search.mlw-open .mlw-search-hit")
    assert f"/symptoms/{PASTES[0][1]}/" in (page.get_attribute(".mlw-search-hit >> nth=0 >> a", "href") or "")
    assert len(served) == 2 and any("/0000000000000000/" in u for u in watch.requests)
    assert watch.foreign == []
    ctx.close()


def test_search_says_when_its_index_cannot_be_read(browser: Any, site_url: str) -> None:
    ctx, page, watch = new_page(browser, site_url)
    page.route("**/search/fragments/manifest.json", lambda route: route.fulfill(status=503, body="down"))
    page.goto(site_url + "/")
    page.locator(".mlw-search input").fill("NCCL watchdog timeout")
    page.wait_for_selector(".mlw-search.mlw-open .mlw-search-empty")
    text = page.locator(".mlw-search-results").inner_text()
    assert "Search is unavailable: search index: HTTP 503 for search/fragments/manifest.json" in text
    assert watch.foreign == []
    ctx.close()


def test_workflow_reads_on_a_phone_and_branches_are_written_out(browser: Any, site_url: str) -> None:
    ctx, page, watch = new_page(browser, site_url, "phone")
    page.goto(site_url + "/workflows/wf-tpu-workload-hang/")
    assert not page.locator(".mlw-figure").is_visible()
    steps = page.locator(".mlw-steps-list")
    assert steps.is_visible() and steps.locator("li").count() >= 5
    branches = page.locator(".mlw-branches li").all_inner_texts()
    assert any(t.startswith("if ") and "→" in t for t in branches), branches
    screenshot(page, "workflow-steps-phone")
    assert_clean(watch)
    ctx.close()
    ctx, page, watch = new_page(browser, site_url, "w1400")
    page.goto(site_url + "/workflows/wf-tpu-workload-hang/")
    labels = page.locator(".mlw-figure .mlw-dg-label").all_text_contents()
    assert labels and not any(t.endswith("…") for t in labels), labels
    ctx.close()

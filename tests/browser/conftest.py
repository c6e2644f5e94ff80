"""Real-browser tests: Playwright driving Debian's Chromium at /usr/bin/chromium (never a
downloaded browser) against the shipped site served on 127.0.0.1. Every request is recorded;
any request to another origin, and any console error, fails the test."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's 'chromium' package (bash .ci/run does) to run browser tests",
        allow_module_level=True,
    )


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def site_url(shipped: Any) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(shipped.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@dataclass
class Watch:
    requests: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


VIEWPORTS = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 375, "height": 740},
    "w320": {"width": 320, "height": 640},
    "w375": {"width": 375, "height": 740},
    "w768": {"width": 768, "height": 1000},
    "w1400": {"width": 1400, "height": 900},
}
WIDTHS = ["w320", "w375", "w768", "w1400"]


def new_page(browser: Any, site_url: str, viewport: str = "desktop", js: bool = True) -> tuple[Any, Any, Watch]:
    ctx = browser.new_context(viewport=VIEWPORTS[viewport], java_script_enabled=js, is_mobile=viewport in ("phone", "w320", "w375"),
                              has_touch=viewport in ("phone", "w320", "w375"), permissions=["clipboard-read", "clipboard-write"])  # fmt: skip
    watch = Watch()

    def route(r: Any) -> None:
        url = r.request.url
        watch.requests.append(url)
        if url.startswith(site_url) or url.startswith("data:"):
            r.continue_()
        else:
            watch.foreign.append(url)
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: watch.errors.append(str(e)))
    return ctx, page, watch


def assert_clean(watch: Watch) -> None:
    assert watch.foreign == [], f"requests left 127.0.0.1: {watch.foreign}"
    assert watch.errors == [], f"console errors: {watch.errors}"


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)

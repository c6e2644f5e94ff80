#!/usr/bin/env python3
"""Benchmarks, measured side by side in one run (figures, not timed tests):

- lint time: shipped wiki and generated wikis;
- full build: our site vs a plain Material build of the same Markdown pages (wikilinks left as
  text, no plugin, Material's own search), seconds, peak memory and the ratio;
- ``mkdocs serve``-style rebuild after editing one page;
- search: index size raw and gzipped, page load to first result in Chromium, per-query time in
  the browser, CLI query latency;
- page weight of a workflow page (every resource it loads, gzipped).

Writes docs_src/benchmarks.md (a page of the site) and prints the figures as JSON.
Usage: python3 scripts/bench.py [--sizes 1000,5000] [--no-browser] [--out PATH]
"""

from __future__ import annotations

import _pyenv

_pyenv.prepare(("yaml", "jsonschema", "mkdocs"))

import argparse
import datetime as dt
import gzip
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchgen import generate

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "plugins")}
BUILD_SNIPPET = """
import sys, time, logging
from mkdocs.config import load_config
from mkdocs.commands.build import build
logging.disable(logging.WARNING)
cfg = load_config(sys.argv[1], site_dir=sys.argv[2])
t = time.perf_counter(); build(cfg); t = time.perf_counter() - t
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(t, hwm)
"""
OURS_YML = """site_name: Bench wiki
docs_dir: docs_src
theme: {name: material, font: false, features: [content.code.copy, navigation.instant]}
plugins: [mlwiki]
markdown_extensions: [attr_list, md_in_html, tables, admonition, toc, pymdownx.superfences]
extra: {generator: false}
nav: [{Home: index.md}, {Symptoms: symptoms/index.md}, {Concepts: concepts/index.md}, {Actions: actions/index.md}, {Workflows: workflows/index.md}]
validation: {nav: {omitted_files: info}}
"""
PLAIN_YML = """site_name: Bench wiki (plain Material)
docs_dir: docs
theme: {name: material, font: false, features: [content.code.copy, navigation.instant]}
plugins: [search]
markdown_extensions: [attr_list, md_in_html, tables, admonition, toc, pymdownx.superfences]
extra: {generator: false}
nav: [{Home: index.md}]
validation: {nav: {omitted_files: info}}
"""


def run_build(config: Path, site: Path) -> tuple[float, float]:
    """(seconds, peak MiB) of one build in a fresh process."""
    with tempfile.TemporaryDirectory() as cache:  # a cold search-index cache: measure the real build
        out = subprocess.run([sys.executable, "-c", BUILD_SNIPPET, str(config), str(site)], capture_output=True, text=True,
                             env={**ENV, "XDG_CACHE_HOME": cache}, check=True).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1]) / 1024


def lint_seconds(wiki: Path, repeat: int) -> float:
    from mlwiki.core import check, load

    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        check(load(wiki))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def projects(base: Path, wiki: Path) -> tuple[Path, Path]:
    """Our project and the plain-Material project over the same Markdown pages."""
    ours = base / "ours"
    plain = base / "plain"
    for p in (ours, plain):
        if p.exists():
            shutil.rmtree(p)
    (ours / "docs_src").mkdir(parents=True)
    shutil.copytree(wiki, ours / "wiki")
    (ours / "docs_src" / "index.md").write_text("# Home\n\nBenchmark wiki.\n", encoding="utf-8")
    (ours / "mkdocs.yml").write_text(OURS_YML, encoding="utf-8")
    docs = plain / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nBenchmark wiki.\n", encoding="utf-8")
    for md in sorted(wiki.rglob("*.md")):
        rel = md.relative_to(wiki)
        if rel.parts[0] == "schema":
            continue
        target = docs / ("wiki-docs" if len(rel.parts) == 1 else rel.parts[0]) / rel.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(md.read_bytes())
    (plain / "mkdocs.yml").write_text(PLAIN_YML, encoding="utf-8")
    return ours, plain


def build_pair(base: Path, wiki: Path, ours_config: Path | None = None) -> dict[str, Any]:
    ours, plain = projects(base, wiki)
    cfg = ours_config or ours / "mkdocs.yml"
    o_s, o_m = run_build(cfg, base / "site-ours")
    p_s, p_m = run_build(plain / "mkdocs.yml", base / "site-plain")
    return {"ours_s": round(o_s, 2), "ours_mib": round(o_m), "plain_s": round(p_s, 2), "plain_mib": round(p_m),
            "ratio": round(o_s / p_s, 2), "pages_ours": sum(1 for _ in (base / "site-ours").rglob("index.html")),
            "pages_plain": sum(1 for _ in (base / "site-plain").rglob("index.html"))}  # fmt: skip


def serve_rebuild(base: Path) -> dict[str, float]:
    """Two builds in one process (as mkdocs serve does), editing one wiki page in between."""
    project = base / "serve"
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(
        ROOT, project, ignore=shutil.ignore_patterns(".git", ".venv", "site", "test-artifacts", "__pycache__")
    )
    code = f"""
import logging, sys, time
from pathlib import Path
from mkdocs.config import load_config
from mkdocs.commands.build import build
logging.disable(logging.WARNING)
cfg = load_config("{project / "mkdocs.yml"}", site_dir="{base / "serve-site"}")
t = time.perf_counter(); build(cfg); first = time.perf_counter() - t
page = Path("{project / "wiki" / "symptoms" / "tpu-device-busy.md"}")
page.write_text(page.read_text() + "\\nEdited for the benchmark.\\n")
cfg = load_config("{project / "mkdocs.yml"}", site_dir="{base / "serve-site"}")
cfg.plugins = cfg.plugins  # noqa
t = time.perf_counter(); build(cfg, dirty=False); second = time.perf_counter() - t
print(first, second)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, check=True
    ).stdout.split()
    return {"first_build_s": round(float(out[0]), 2), "rebuild_after_edit_s": round(float(out[1]), 2)}


def _record_url(seen: list[str], request: Any) -> None:
    seen.append(request.url)


TRIAGE_ERROR = ("[rank3]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=17, OpType=ALLREDUCE, NumelIn=5, NumelOut=5, Timeout(ms)=600000) ran for 600099 "
                "milliseconds before timing out.")  # fmt: skip


def browser_figures(site: Path, base: Path) -> dict[str, Any]:
    import functools
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    query = (
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 4242"
    )
    first, per_query = [], []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=args)
        for _ in range(3):
            ctx = b.new_context()
            page = ctx.new_page()
            t = time.perf_counter()
            page.goto(url + "/")
            page.fill(".mlw-search input", query)
            page.wait_for_selector(".mlw-search-hit")
            first.append(time.perf_counter() - t)
            ms = [page.evaluate("q => { const t = performance.now(); return mlwikiSearch.search(q, 8).then(() => performance.now() - t); }", q)
                  for q in (query, "NCCL watchdog timeout", "Xid 79", "ImagePullBackOff", "RESOURCE_EXHAUSTED hbm")]  # fmt: skip
            per_query.append(statistics.median(ms))
            ctx.close()
        # The "Triage a log" page: a 20 MB log (noise, one real error at 90%) chosen as a file;
        # time from choosing it to the first result, and requests made meanwhile (must be none).
        sys.path.insert(0, str(ROOT / "tests" / "triage"))
        from noise import bury  # type: ignore[import-not-found]

        log = base / "triage-20mb.log"
        with open(log, "w", encoding="utf-8") as fh:
            for line in bury(TRIAGE_ERROR, 20_000_000, 0.9, seed=20):
                fh.write(line + "\n")
        triage_s, triage_requests, triage_top = [], 0, None
        for _ in range(3):
            ctx = b.new_context()
            page = ctx.new_page()
            seen: list[str] = []
            page.on("request", functools.partial(_record_url, seen))
            page.goto(url + "/triage/")
            page.wait_for_selector("#mlw-triage[data-ready='1']")
            before = len(seen)
            t = time.perf_counter()
            page.set_input_files(".mlw-triage-files", str(log))
            page.wait_for_selector("#mlw-triage[data-state='done']", timeout=60000)
            triage_s.append(time.perf_counter() - t)
            triage_requests += len(seen) - before
            triage_top = page.locator(".mlw-triage-hit").first.get_attribute("data-id")
            ctx.close()
        log.unlink()
        ctx = b.new_context()
        page = ctx.new_page()
        loaded: list[str] = []
        page.on("requestfinished", lambda r: loaded.append(r.url))
        page.goto(url + "/workflows/wf-tpu-workload-hang/")
        page.wait_for_load_state("networkidle")
        weight = 0
        for u in sorted(set(loaded)):
            rel = u[len(url) :].split("?")[0].split("#")[0].lstrip("/")
            f = site / rel
            if f.is_dir() or rel == "" or rel.endswith("/"):
                f = f / "index.html"
            if f.is_file():
                weight += len(gzip.compress(f.read_bytes(), 6))
        ctx.close()
        b.close()
    server.shutdown()
    return {"load_to_first_result_s": round(statistics.median(first), 2),
            "query_ms_after_load": round(statistics.median(per_query), 1),
            "workflow_page_gzip_kb_all_resources": round(weight / 1024), "workflow_page_requests": len(set(loaded)),
            "triage_20mb_s": round(statistics.median(triage_s), 2), "triage_requests_while_running": triage_requests,
            "triage_20mb_top": triage_top}  # fmt: skip


def cli_latency() -> float:
    cmd = [sys.executable, str(ROOT / "scripts" / "query_interface.py"), "NCCL watchdog timeout", "-k", "3"]
    subprocess.run(cmd, env=ENV, capture_output=True, check=True)  # warm the cache
    times = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(cmd, env=ENV, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 2)


def machine() -> dict[str, str]:
    import material
    import mkdocs

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "wiki", "plugins", "scripts"],
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    return {"date": dt.date.today().isoformat(), "cpu": cpu, "cores": str(os.cpu_count()),
            "commit": (commit.stdout.strip() or "unknown") + (" with uncommitted changes" if dirty else ""),
            "python": platform.python_version(), "mkdocs": mkdocs.__version__,
            "material": getattr(material, "__version__", "?"), "os": platform.platform()}  # fmt: skip


def _tree_rss_kib(pid: int) -> int:
    """Proportional set size (PSS) of a process and all its descendants (the triage worker
    pool), in KiB: pages the forked workers share with their parent are counted once, split
    between them, instead of once per process as summed RSS would."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
            total += next((int(x.split()[1]) for x in rollup.splitlines() if x.startswith("Pss:")), 0)
            for task in Path(f"/proc/{p}/task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def triage_figures(base: Path, sizes_mb: list[int], site: Path | None = None) -> dict[str, Any]:
    """Triage of a log of N MB (realistic noise, one real error at 90%) beside the floor:
    ``grep -c -F -f`` of every signature line on the same file; and the site's JavaScript engine
    in Node on the same file when ``site`` (a built site) is given and node is installed."""
    import shutil

    node = shutil.which("node")
    sys.path.insert(0, str(ROOT / "tests" / "triage"))
    from mlwiki.core import load
    from mlwiki.core.search import build_payload
    from noise import bury  # type: ignore[import-not-found]

    docs = build_payload(load(ROOT / "wiki"))["docs"]
    sigs = base / "signatures.txt"
    sigs.write_text(
        "\n".join(s for d in docs for s in d.get("signatures", []) if "\n" not in s) + "\n", encoding="utf-8"
    )
    error = TRIAGE_ERROR
    out: dict[str, Any] = {}
    for mb in sizes_mb:
        log = base / f"triage-{mb}mb.log"
        with open(log, "w", encoding="utf-8") as f:
            for line in bury(error, mb * 1_000_000, 0.9, seed=mb):
                f.write(line + "\n")
        t = time.perf_counter()
        subprocess.run(["grep", "-c", "-F", "-f", str(sigs), str(log)], capture_output=True, check=False)
        grep_s = time.perf_counter() - t
        cmd = [sys.executable, str(ROOT / "scripts" / "query_interface.py"), "--log", str(log), "--json", "-k", "3"]
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, _tree_rss_kib(proc.pid))
            time.sleep(0.05)
        stdout = proc.stdout.read() if proc.stdout else b""
        seconds = time.perf_counter() - t
        top = json.loads(stdout)["results"][0]["id"] if stdout else None
        out[f"{mb} MB"] = {"seconds": round(seconds, 2), "grep_floor_s": round(grep_s, 2),
                           "peak_pss_mib_all_processes": round(peak / 1024), "top_result": top}  # fmt: skip
        if node and site is not None:
            # The site's engine (triage-core.js) in Node, one thread, on the same file.
            manifest = base / "manifest.json"
            manifest.write_text(json.dumps([{"case": "bench", "sources": [[log.name, str(log)]]}]), encoding="utf-8")
            t = time.perf_counter()
            res = subprocess.run([node, str(ROOT / "tests" / "triage" / "agree.js"), str(site / "assets"),
                                  str(site / "search" / "mlwiki-index.json"), str(manifest)], capture_output=True, check=True)  # fmt: skip
            out[f"{mb} MB"]["node_seconds"] = round(time.perf_counter() - t, 2)
            out[f"{mb} MB"]["node_top_result"] = json.loads(res.stdout)[0]["result"]["results"][0]["id"]
        print(f"triage {mb} MB: {out[f'{mb} MB']}", file=sys.stderr)
        log.unlink()
    return out


def by_size(rows: dict[str, Any]) -> list[tuple[str, Any]]:
    """Table rows in wiki-size order (shipped, then generated by page count), whatever order the
    JSON beside the page kept them in."""
    def size(name: str) -> tuple[int, int]:
        digits = "".join(c for c in name if c.isdigit())
        return (0, 0) if name == "shipped" or not digits else (1, int(digits))

    return sorted(rows.items(), key=lambda kv: size(kv[0]))


def write_page(path: Path, r: dict[str, Any]) -> None:
    m = r["machine"]
    measured = r.get("measured", {})

    def when(*parts: str) -> list[str]:
        marks = sorted({f"commit {measured[p]['commit']} on {measured[p]['date']}" for p in parts if p in measured})
        return [f"Measured at {' and '.join(marks)}.", ""] if marks else []

    lines = [
        "---",
        "title: Benchmarks",
        "description: Build, lint, search, triage and routing figures measured by scripts/bench.py.",
        "---",
        "",
        "# Benchmarks",
        "",
        "Measured by `python3 scripts/bench.py`, the figures of each section side by side in one run on one "
        "machine (`--only PART` measures one section again; each section names its commit). Machines here are "
        "shared and noisy: read the ratios, not the absolute seconds.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores; {m['os']}; Python {m['python']}, MkDocs {m['mkdocs']}, "
        f"Material {m['material']}.",
    ]
    if "build" in r:
        lines += ["", "## Full build: this site vs plain Material", "", *when("build"),
                  "Plain Material builds the same Markdown pages (wikilinks left as text) with Material's own search and "
                  "no plugin; ours also renders the JSON actions and workflows, the index pages, and the prebuilt search index.",
                  "", "| wiki | pages (ours / plain) | ours | plain Material | ratio | peak memory (ours / plain) |",
                  "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
        for name, b in by_size(r["build"]):
            lines.append(f"| {name} | {b['pages_ours']} / {b['pages_plain']} | {b['ours_s']} s | {b['plain_s']} s | "
                         f"{b['ratio']}x | {b['ours_mib']} / {b['plain_mib']} MiB |")  # fmt: skip
    if "serve" in r:
        s = r["serve"]
        lines += ["", "## Rebuild under `mkdocs serve`", "", *when("serve"),
                  f"First build {s['first_build_s']} s; rebuild after editing one wiki page {s['rebuild_after_edit_s']} s "
                  "(the search index is rebuilt because the content changed)."]  # fmt: skip
    if "lint" in r:
        lines += ["", "## Lint", "", *when("lint"), "| wiki | pages | lint time |", "| --- | --- | --- |"]
        for name, lt in by_size(r["lint"]):
            lines.append(f"| {name} | {lt['pages']} | {lt['seconds']} s |")
    if "search" in r:
        sr = r["search"]
        lines += ["", "## Search", "", *when("search", "browser"),
                  *([f"- Search box index, in fragments: {sr['fragments_kb']} KB raw, {sr['fragments_gzip_kb']} KB gzipped in "
                     f"{sr['fragment_files']} files; a query fetches the manifest ({sr['manifest_gzip_kb']} KB gzipped) and "
                     "only the fragments it needs."] if "fragments_kb" in sr else []),
                  f"- Whole payload (the triage page reads it all): {sr['index_kb']} KB raw, {sr['index_gzip_kb']} KB gzipped "
                  f"({sr['docs']} documents).",
                  f"- Query CLI latency (warm cache, whole process): {sr['cli_s']} s."]  # fmt: skip
    if "browser" in r:
        br = r["browser"]
        lines += [f"- Chromium, page load to first result for a pasted error (the fragments it needs fetched on the way): "
                  f"{br['load_to_first_result_s']} s (median of 3).",
                  f"- Chromium, one more query on the same page: {br['query_ms_after_load']} ms (median).", "",
                  "## Page weight", "", *when("browser"),
                  f"A workflow page with everything it loads (HTML, CSS, JavaScript, fonts: none, the search manifest): "
                  f"{br['workflow_page_gzip_kb_all_resources']} KB gzipped in {br['workflow_page_requests']} requests."]  # fmt: skip
    if "search_scale" in r:
        lines += ["", "## Search at scale, beside Pagefind", "", *when("search_scale"),
                  "Each built site indexed by Pagefind too (`pagefind-bin`, a benchmark-only dependency). The pasted "
                  f"error is `{PASTED}`. Bytes are what a server that gzips its responses sends (Pagefind's fragments "
                  "are stored compressed and sent as they are), from navigation to the first result in Chromium "
                  "(median of 5 for the time); \"search\" counts the search engine's own files. Hit@3 is on the "
                  "curated evaluation set of pasted errors, shipped wiki only. Our index on disk is the search box's "
                  "fragments (the triage page's whole payload is extra).", "",
                  "| wiki | index on disk (ours / Pagefind) | transferred to first result, all (ours / Pagefind) | "
                  "of it search (ours / Pagefind) | time to first result (ours / Pagefind) | top result (ours / Pagefind) |",
                  "| --- | --- | --- | --- | --- | --- |"]  # fmt: skip
        def both(x: dict[str, Any], a: str, b: str, unit: str) -> str:
            return f"{x[a]}{unit} / {x[b]}{unit}" if b in x else f"{x[a]}{unit} / -"

        for name, x in by_size(r["search_scale"]):
            lines.append(f"| {name} | {both(x, 'ours_index_disk_kb', 'pagefind_index_disk_kb', ' KB')} | "
                         f"{both(x, 'ours_transfer_kb', 'pagefind_transfer_kb', ' KB')} | "
                         f"{both(x, 'ours_search_transfer_kb', 'pagefind_search_transfer_kb', ' KB')} | "
                         f"{both(x, 'ours_first_result_s', 'pagefind_first_result_s', ' s')} | "
                         f"`{x['ours_first_result']}` / `{x.get('pagefind_first_result', '-')}` |")  # fmt: skip
        shipped = r["search_scale"].get("shipped", {})
        if "pagefind_curated_hit3" in shipped:
            lines += ["", f"Hit@3 on the {shipped.get('curated_n', 238)} curated pasted errors: Pagefind "
                      f"{shipped['pagefind_curated_hit3']}; ours in the routing-quality figures below."]  # fmt: skip
    if "triage" in r:
        lines += ["", "## Log triage", "", *when("triage"),
                  "`query_interface.py --log FILE` on a log of realistic training noise with one real error at 90% "
                  "of its length, beside `grep -c -F -f` of every signature line on the same file (the floor: one "
                  "literal pass in C). Peak memory is the proportional set size (PSS) summed over the process and its scan workers.", "",
                  "| log | triage | grep floor | peak memory | top result |", "| --- | --- | --- | --- | --- |"]  # fmt: skip
        for name, tr in r["triage"].items():
            lines.append(f"| {name} | {tr['seconds']} s | {tr['grep_floor_s']} s | {tr['peak_pss_mib_all_processes']} MiB | "
                         f"`{tr['top_result']}` |")  # fmt: skip
        node_rows = [(n, tr) for n, tr in r["triage"].items() if "node_seconds" in tr]
        if node_rows:
            lines += ["", "The site's engine (`triage-core.js`, the same specification) in Node, one thread, on the same files:", "",
                      "| log | JavaScript in Node | top result |", "| --- | --- | --- |"]  # fmt: skip
            lines += [f"| {n} | {tr['node_seconds']} s | `{tr['node_top_result']}` |" for n, tr in node_rows]
    if "browser" in r and "triage_20mb_s" in r["browser"]:
        br = r["browser"]
        lines += ["", "## Triage in the browser", "", *when("browser"),
                  f"The **Triage a log** page, a 20 MB log (noise, one real error at 90%) chosen as a file in Chromium: "
                  f"{br['triage_20mb_s']} s from choosing the file to the first result (median of 3), top result "
                  f"`{br['triage_20mb_top']}`, {br['triage_requests_while_running']} requests made while it ran."]  # fmt: skip
    if "routing" in r:
        from mlwiki.cli.evaluate import summary_lines

        lines += ["", "## Routing quality (`scripts/search_eval.py`)", "", *when("routing"), "```",
                  *summary_lines(r["routing"]), "```", "", *ROUTING_NOTES]  # fmt: skip
    lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


ROUTING_NOTES = [
    "- curated: errors pasted in public issue threads (tests/search/eval_set.yml).",
    "- typed queries: few-word queries an engineer types instead of pasting an error "
    "(tests/search/typed_queries.yml), each with the pages a reader would accept.",
    "- held-out signatures: every signature searched for with itself removed from the index (5 folds).",
    "- triage real logs: multi-line logs pasted in issue threads (tests/triage/real_logs.yml).",
    "- triage buried: each curated error at a random depth in generated training noise of that size "
    "(the 10 MB and 100 MB sets are random draws), beside the same errors searched alone.",
    "- coverage samples: real failure reports from neutral queries, judged COVERED / PARTIAL / NOT_COVERED "
    "by readers other than the pages' writers (tests/coverage/); hit@3 counts a covered report when its "
    "judged page is in the search top 3 for the report's own text. The first sample (sample.yml) and the "
    "fresh one (fresh.yml) had content written to their gaps afterwards, so they overstate coverage; "
    "round5.yml and round6.yml were each drawn after the content before them and judged by two readers "
    "before any content was written for them (round 6a is that figure; later rounds re-judge).",
]


PASTED = "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 4242"
PF_TIMEOUT_S = 180  # Pagefind's time to a first result for the pasted error grows with the site
PF_HARNESS = """<!doctype html><meta charset="utf-8"><title>Pagefind bench</title><body><script type="module">
const pagefind = await import("/pagefind/pagefind.js");
window.pfTop = async (q, k) => {
  const r = await pagefind.search(q);
  return Promise.all(r.results.slice(0, k).map(x => x.data().then(d => d.url)));
};
const q = new URLSearchParams(location.search).get("q");
if (q) { const top = await window.pfTop(q, 1); document.body.dataset.first = top[0] || ""; }
document.body.dataset.done = "1";
</script></body>
"""


def _wire_bytes(site: Path, url: str, urls: Sequence[str]) -> int:
    """What a server that gzips its responses sends for these files (a file stored compressed,
    as Pagefind's fragments are, is sent as it is)."""
    total = 0
    for u in sorted(set(urls)):
        rel = u[len(url) :].split("?")[0].split("#")[0].lstrip("/")
        f = site / rel
        if f.is_dir() or rel == "" or rel.endswith("/"):
            f = f / "index.html"
        if f.is_file():
            raw = f.read_bytes()
            total += min(len(raw), len(gzip.compress(raw, 6)))
    return total


def fragment_sizes(site: Path) -> dict[str, Any]:
    """The search box's fragments (search/fragments/): on disk, gzipped, the manifest, the count."""
    files = sorted(f for f in (site / "search" / "fragments").rglob("*.json") if f.is_file())
    raw = [f.read_bytes() for f in files]
    manifest = (site / "search" / "fragments" / "manifest.json").read_bytes()
    return {"disk_kb": round(sum(map(len, raw)) / 1024), "gzip_kb": round(sum(len(gzip.compress(b, 6)) for b in raw) / 1024),
            "manifest_gzip_kb": round(len(gzip.compress(manifest, 6)) / 1024, 1), "files": len(files)}  # fmt: skip


def _is_search(rel: str, engine: str) -> bool:
    if engine == "pagefind":
        return rel.startswith("pagefind/")
    return rel.startswith("search/") or "search" in rel.rsplit("/", 1)[-1]


def search_scale(sites: dict[str, Path], eval_queries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Ours beside Pagefind (pagefind-bin, a benchmark-only dependency) on the same built sites:
    index size on disk, bytes transferred from navigation to the first result for a pasted error
    (all of them, and the search engine's own), time to that result in Chromium (median of 5),
    and, on the shipped wiki, hit@3 of each engine on the curated evaluation set."""
    import functools
    import http.server
    import importlib
    import threading
    import urllib.parse

    from playwright.sync_api import sync_playwright

    pagefind_bin: Any
    try:
        pagefind_bin = importlib.import_module("pagefind_bin")
    except ImportError:
        print("search scale: pagefind-bin is not installed (pip install 'pagefind-bin>=1.5,<2'); Pagefind skipped",
              file=sys.stderr)  # fmt: skip
        pagefind_bin = None

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

    out: dict[str, Any] = {}
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=args)
        for name, site in sites.items():
            row: dict[str, Any] = {}
            frag = fragment_sizes(site)
            row["ours_index_disk_kb"], row["ours_index_gzip_kb"] = frag["disk_kb"], frag["gzip_kb"]
            row["ours_manifest_gzip_kb"], row["ours_files"] = frag["manifest_gzip_kb"], frag["files"]
            if pagefind_bin is not None:
                t = time.perf_counter()
                subprocess.run([str(pagefind_bin.get_executable()), "--site", str(site), "--output-subdir", "pagefind",
                                "--silent"], check=True)  # fmt: skip
                row["pagefind_index_s"] = round(time.perf_counter() - t, 2)
                row["pagefind_index_disk_kb"] = round(sum(f.stat().st_size for f in (site / "pagefind").rglob("*") if f.is_file()) / 1024)
                (site / "pf-bench").mkdir(exist_ok=True)
                (site / "pf-bench" / "index.html").write_text(PF_HARNESS, encoding="utf-8")
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            url = f"http://127.0.0.1:{server.server_address[1]}"
            engines = ["ours"] + (["pagefind"] if pagefind_bin is not None else [])
            for engine in engines:
                times, total, own, first = [], 0, 0, ""
                for _ in range(5):
                    ctx = b.new_context()
                    page = ctx.new_page()
                    loaded: list[str] = []
                    page.on("requestfinished", functools.partial(_record_url, loaded))
                    t = time.perf_counter()
                    if engine == "ours":
                        page.goto(url + "/")
                        page.fill(".mlw-search input", PASTED)
                        page.wait_for_selector(".mlw-search-hit")
                        times.append(time.perf_counter() - t)
                        first = page.locator(".mlw-search-hit a").first.get_attribute("href") or ""
                    else:
                        page.goto(url + "/pf-bench/?q=" + urllib.parse.quote(PASTED))
                        try:
                            page.wait_for_selector("body[data-done='1']", state="attached", timeout=PF_TIMEOUT_S * 1000)
                        except Exception:  # playwright's TimeoutError: Pagefind gave no result in time
                            times.append(float("inf"))
                            loaded.clear()
                            ctx.close()
                            break
                        times.append(time.perf_counter() - t)
                        first = page.evaluate("document.body.dataset.first") or ""
                    total = _wire_bytes(site, url, loaded)
                    own = _wire_bytes(site, url, [u for u in loaded if _is_search(u[len(url):].lstrip("/"), engine)])
                    ctx.close()
                slow = float("inf") in times
                row[f"{engine}_first_result_s"] = f"> {PF_TIMEOUT_S}" if slow else round(statistics.median(times), 2)
                row[f"{engine}_transfer_kb"] = "-" if slow else round(total / 1024)
                row[f"{engine}_search_transfer_kb"] = "-" if slow else round(own / 1024)
                row[f"{engine}_first_result"] = first.rstrip("/").rsplit("/", 1)[-1]
            if name == "shipped" and pagefind_bin is not None and eval_queries:
                ctx = b.new_context()
                page = ctx.new_page()
                page.goto(url + "/pf-bench/")
                page.wait_for_selector("body[data-done='1']", state="attached")
                hits = 0
                for case in eval_queries:
                    urls = page.evaluate("q => window.pfTop(q, 3)", case["query"])
                    ids = [u.rstrip("/").rsplit("/", 1)[-1] for u in urls]
                    hits += any(i in case["expect"] for i in ids)
                row["pagefind_curated_hit3"] = round(hits / len(eval_queries), 3)
                row["curated_n"] = len(eval_queries)
                ctx.close()
            server.shutdown()
            out[name] = row
            print(f"search scale {name}: {row}", file=sys.stderr)
        b.close()
    return out


def search_scale_only(sizes: Sequence[int]) -> int:
    import yaml

    with tempfile.TemporaryDirectory(prefix="mlwiki-bench-") as tmp:
        base = Path(tmp)
        shipped = ROOT / "wiki"
        sites = {}
        for name, n in [("shipped", 0), *[(f"generated {n}", n) for n in sizes]]:
            wiki = shipped if n == 0 else generate(base / f"gen{n}", n, shipped / "schema")
            ours, _ = projects(base / name.replace(" ", "-"), wiki)
            sites[name] = base / name.replace(" ", "-") / "site-ours"
            secs, _ = run_build(ours / "mkdocs.yml", sites[name])
            print(f"built {name} in {secs:.1f} s", file=sys.stderr)
        curated = yaml.safe_load((ROOT / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
        print(json.dumps(search_scale(sites, curated), indent=2))
    return 0


PARTS = ("lint", "build", "serve", "search", "browser", "search_scale", "triage", "routing")


def routing_figures() -> dict[str, Any]:
    """scripts/search_eval.py as it runs for a reader (its JSON), with buried errors at 2, 10 and
    100 MB."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "search_eval.py"), "--json", "--triage", "2:238,10:60,100:12"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"bench: search_eval.py failed:\n{proc.stderr}")
    return dict(json.loads(proc.stdout))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--triage-mb", default="100,1000", help="log sizes for the triage benchmark ('' skips it)")
    ap.add_argument("--out", default=str(ROOT / "docs_src" / "benchmarks.md"))
    ap.add_argument("--only", default="",
                    help=f"measure only these parts again ({', '.join(PARTS)}), keeping the others' figures "
                    "from the JSON beside the page; each section says the commit it was measured at")  # fmt: skip
    ap.add_argument("--search-scale-only", action="store_true",
                    help="only build our sites and compare search with Pagefind (prints JSON; writes no page)")  # fmt: skip
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    if args.search_scale_only:
        return search_scale_only(sizes)
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = [x for x in only if x not in PARTS]
    if unknown:
        ap.error(f"--only: unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    parts = set(only or PARTS)
    if "search_scale" in parts:
        parts.add("build")  # it measures the sites the build part makes
    if args.no_browser:
        parts -= {"browser", "search_scale"}
    if not Path(os.environ.get("CHROMIUM", "/usr/bin/chromium")).exists():
        parts -= {"browser", "search_scale"}
    out = Path(args.out)
    saved = out.with_suffix(".json")
    result: dict[str, Any] = {}
    if only and saved.is_file():
        result = json.loads(saved.read_text(encoding="utf-8"))
    here = machine()
    result["machine"] = here
    measured = result.setdefault("measured", {})
    from mlwiki.core import load

    with tempfile.TemporaryDirectory(prefix="mlwiki-bench-") as tmp:
        base = Path(tmp)
        shipped = ROOT / "wiki"
        wikis = {"shipped": shipped}
        if parts & {"lint", "build"}:
            for n in sizes:
                wikis[f"generated {n}"] = generate(base / f"gen{n}", n, shipped / "schema")
        if "lint" in parts:
            result["lint"] = {"shipped": {"pages": len(load(shipped).pages), "seconds": round(lint_seconds(shipped, 5), 3)}}
            for n in sizes:
                result["lint"][f"generated {n}"] = {"pages": n, "seconds": round(lint_seconds(wikis[f"generated {n}"], 1), 3)}
                print(f"lint {n}: {result['lint'][f'generated {n}']}", file=sys.stderr)
        if "build" in parts:
            result["build"] = {}
            for name, wiki in wikis.items():
                result["build"][name] = build_pair(base / name.replace(" ", "-"), wiki)
                print(f"build {name}: {result['build'][name]}", file=sys.stderr)
        if "serve" in parts:
            result["serve"] = serve_rebuild(base)
        if "search" in parts:
            site = base / "shipped" / "site-ours"
            if not site.is_dir():
                run_build(projects(base / "shipped", shipped)[0] / "mkdocs.yml", site)
            index = (site / "search" / "mlwiki-index.json").read_bytes()
            frag = fragment_sizes(site)
            result["search"] = {"index_kb": round(len(index) / 1024), "index_gzip_kb": round(len(gzip.compress(index, 6)) / 1024),
                                "fragments_kb": frag["disk_kb"], "fragments_gzip_kb": frag["gzip_kb"],
                                "manifest_gzip_kb": frag["manifest_gzip_kb"], "fragment_files": frag["files"],
                                "docs": len(json.loads(index)["docs"]), "cli_s": cli_latency()}  # fmt: skip
        shipped_site = base / "shipped-full"
        triage_sizes = [int(x) for x in args.triage_mb.split(",") if x]
        if "browser" in parts or ("triage" in parts and triage_sizes):
            run_build(ROOT / "mkdocs.yml", shipped_site)
        if "browser" in parts:
            result["browser"] = browser_figures(shipped_site, base)
        if "search_scale" in parts:
            import yaml

            curated = yaml.safe_load((ROOT / "tests" / "search" / "eval_set.yml").read_text(encoding="utf-8"))
            result["search_scale"] = search_scale(
                {name: base / name.replace(" ", "-") / "site-ours" for name in wikis}, curated
            )
        if "triage" in parts and triage_sizes:
            result["triage"] = triage_figures(base, triage_sizes, shipped_site)
        if "routing" in parts:
            result["routing"] = routing_figures()
    for part in parts:
        if part in result:
            measured[part] = {"commit": here["commit"], "date": here["date"]}
    saved.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write_page(out, result)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

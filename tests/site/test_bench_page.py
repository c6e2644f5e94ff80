"""scripts/bench.py: the page it writes from partial figures, and its one user error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from wikifix import REPO

sys.path.insert(0, str(REPO / "scripts"))


def _routing() -> dict[str, Any]:
    s = {"n": 10, "hit@1": 0.9, "hit@3": 1.0, "mrr": 0.95}
    cov = {"n": 4, "covered": 2, "partial": 1, "not_covered": 1, "covered_share": 0.5,
           "at_least_partial_share": 0.75, "hit@3_covered": 1.0, "hits_covered": 2}  # fmt: skip
    return {"curated": s, "held_out_signatures": s, "triage": {"buried_2MB": {**s, "alone": s, "seconds_per_log": 0.2}},
            "coverage_round5": cov}  # fmt: skip


def test_a_partial_run_writes_only_its_sections_each_with_its_commit(tmp_path: Path) -> None:
    import bench  # type: ignore[import-not-found]

    machine = {"cpu": "cpu", "cores": "2", "os": "linux", "python": "3.11", "mkdocs": "1.6.1", "material": "9.7",
               "date": "2026-11-30", "commit": "abc1234"}  # fmt: skip
    result = {
        "machine": machine,
        "measured": {"routing": {"commit": "abc1234", "date": "2026-11-30"}, "triage": {"commit": "0ld0ld0", "date": "2026-11-29"}},
        "routing": _routing(),
        "triage": {"100 MB": {"seconds": 4.1, "grep_floor_s": 0.8, "peak_pss_mib_all_processes": 150, "top_result": "x"}},
    }  # fmt: skip
    page = tmp_path / "benchmarks.md"
    bench.write_page(page, result)
    text = page.read_text(encoding="utf-8")
    assert "## Full build" not in text and "## Lint" not in text  # not measured: no section
    assert "## Log triage\n\nMeasured at commit 0ld0ld0 on 2026-11-29." in text
    assert "## Routing quality (`scripts/search_eval.py`)\n\nMeasured at commit abc1234 on 2026-11-30." in text
    assert "round 5 coverage sample  n=   4  COVERED=2 (50%)" in text
    assert "triage buried 2MB" in text


def test_an_unknown_part_is_named_with_the_parts_there_are() -> None:
    p = subprocess.run([sys.executable, str(REPO / "scripts" / "bench.py"), "--only", "triage,bogus"],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert p.returncode == 2
    assert "--only: unknown part(s) bogus; the parts are lint, build, serve, search, browser" in p.stderr


def test_tables_list_wikis_by_size_whatever_order_the_json_kept() -> None:
    """The JSON beside the page keeps its keys sorted as strings ("generated 10000" before
    "generated 5000"): the page lists shipped first, then by page count."""
    import bench

    rows = {"generated 10000": 3, "generated 1000": 1, "shipped": 0, "generated 5000": 2}
    assert [name for name, _ in bench.by_size(rows)] == ["shipped", "generated 1000", "generated 5000", "generated 10000"]

"""search_eval.py reports the coverage sample: the judged shares and search hit@3 on the
covered reports, measured against the wiki as it is."""

from __future__ import annotations

import yaml

from mlwiki.cli.evaluate import coverage
from mlwiki.core import load
from wikifix import REPO


def test_coverage_figures_add_up_and_are_measured() -> None:
    sample = yaml.safe_load((REPO / "tests" / "coverage" / "sample.yml").read_text(encoding="utf-8"))
    entries = sample["entries"]
    report = coverage(REPO / "wiki", load(REPO / "wiki"))
    assert report is not None
    assert report["n"] == len(entries) >= 80
    assert report["covered"] + report["partial"] + report["not_covered"] == report["n"]
    assert report["covered"] == sum(e["verdict"] == "COVERED" for e in entries)
    assert 0 <= report["hits_covered"] <= report["covered"]
    assert report["hit@3_covered"] == round(report["hits_covered"] / report["covered"], 3)


def test_every_judged_page_exists() -> None:
    wiki = load(REPO / "wiki")
    sample = yaml.safe_load((REPO / "tests" / "coverage" / "sample.yml").read_text(encoding="utf-8"))
    missing = [(e["source"], e["page"]) for e in sample["entries"] if e.get("page") and e["page"] not in wiki.pages]
    assert missing == []

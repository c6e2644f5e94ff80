"""search_eval.py reports the coverage sample: the judged shares and search hit@3 on the
covered reports, measured against the wiki as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mlwiki.cli.evaluate import coverage
from mlwiki.core import load
from wikifix import REPO


@pytest.mark.parametrize(("name", "least"), [("sample.yml", 80), ("fresh.yml", 40), ("round5.yml", 40), ("round6.yml", 40)])
def test_coverage_figures_add_up_and_are_measured(name: str, least: int) -> None:
    sample = yaml.safe_load((REPO / "tests" / "coverage" / name).read_text(encoding="utf-8"))
    entries = sample["entries"]
    report = coverage(REPO / "wiki", load(REPO / "wiki"), name)
    assert report is not None
    assert report["n"] == len(entries) >= least
    assert report["covered"] + report["partial"] + report["not_covered"] == report["n"]
    assert report["covered"] == sum(e["verdict"] == "COVERED" for e in entries)
    assert 0 <= report["hits_covered"] <= report["covered"]
    assert report["hit@3_covered"] == round(report["hits_covered"] / report["covered"], 3)


@pytest.mark.parametrize("name", ["sample.yml", "fresh.yml", "round5.yml", "round6.yml"])
def test_every_judged_page_exists(name: str) -> None:
    wiki = load(REPO / "wiki")
    sample = yaml.safe_load((REPO / "tests" / "coverage" / name).read_text(encoding="utf-8"))
    missing = [(e["source"], e["page"]) for e in sample["entries"] if e.get("page") and e["page"] not in wiki.pages]
    assert missing == []


@pytest.mark.parametrize("name", ["sample.yml", "fresh.yml", "round5.yml", "round6.yml"])
def test_no_page_cites_a_sampled_thread(name: str) -> None:
    """No page is written to a test case: no page cites a thread the coverage sample judged
    (as owner/repo#N or as its issue or pull-request URL)."""
    import re

    sample = yaml.safe_load((REPO / "tests" / "coverage" / name).read_text(encoding="utf-8"))
    threads = {e["source"].lower() for e in sample["entries"]}
    cited: set[str] = set()
    for path in (REPO / "wiki").rglob("*"):
        if path.suffix not in (".md", ".json"):
            continue
        text = path.read_text(encoding="utf-8").lower()
        cited.update(re.findall(r"\b([\w.-]+/[\w.-]+#\d+)\b", text))
        cited.update(f"{o}/{r}#{n}" for o, r, n in re.findall(r"github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull)/(\d+)", text))
    assert sorted(threads & cited) == []


@pytest.mark.parametrize("name", ["eval_set.yml", "typed_queries.yml"])
def test_every_expected_page_of_an_evaluation_set_exists(name: str) -> None:
    """A renamed or removed page must not silently turn into misses of search_eval.py."""
    wiki = load(REPO / "wiki")
    cases = yaml.safe_load((REPO / "tests" / "search" / name).read_text(encoding="utf-8"))
    missing = sorted({(c["query"][:40], p) for c in cases for p in c["expect"] if p not in wiki.pages})
    assert len(cases) >= 50
    assert missing == []


def test_a_sample_not_judged_yet_reports_nothing(tmp_path: Path) -> None:
    """A sample drawn but not judged (no verdicts) gives no figures rather than 0% covered."""
    (tmp_path / "tests" / "coverage").mkdir(parents=True)
    (tmp_path / "tests" / "coverage" / "new.yml").write_text(
        "entries:\n- {source: a/b#1, query: q, rank: 1, error: 'RuntimeError: x', context: c}\n", encoding="utf-8"
    )
    assert coverage(tmp_path / "wiki", load(REPO / "wiki"), "new.yml") is None

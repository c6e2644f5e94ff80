"""Score search on the evaluation set: ``python3 scripts/search_eval.py [--json]``.

With the same index and ranking as the site and the query CLI:
- curated: real pasted errors from public issue threads (tests/search/eval_set.yml), each
  labelled with the page(s) that should come first;
- typed queries: the few words an engineer types instead of pasting an error
  (tests/search/typed_queries.yml), each with the pages a reader would accept;
- held-out signatures: every verbatim signature of every symptom, searched for with that
  signature (and its copies in the page body) removed from the index, in 5 folds, so the page
  must be found through everything else it says.
Reports hit@1, hit@3 and MRR. A benchmark figure, not a test threshold.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from mlwiki.cli.common import default_wiki_dir
from mlwiki.core import load
from mlwiki.core.model import Wiki
from mlwiki.core.search import build_payload, search
from mlwiki.core.search.build import build_index

FOLDS = 5
MIN_SIGNATURE = 15


def score(ranks: list[int | None]) -> dict[str, Any]:
    n = len(ranks)
    if n == 0:
        return {"n": 0, "hit@1": 0.0, "hit@3": 0.0, "mrr": 0.0}
    return {
        "n": n,
        "hit@1": round(sum(1 for r in ranks if r == 1) / n, 3),
        "hit@3": round(sum(1 for r in ranks if r is not None and r <= 3) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def rank_of(hits: list[Any], expect: Sequence[str]) -> int | None:
    for i, h in enumerate(hits, 1):
        if h.ref in expect:
            return i
    return None


def curated(wiki: Wiki, path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    payload = build_payload(wiki)
    index = build_index(wiki)
    misses, ranks = [], []
    for e in entries:
        hits = search(index, payload["docs"], e["query"], k=10)
        r = rank_of(hits, e["expect"])
        ranks.append(r)
        if r != 1:
            misses.append(
                {"query": e["query"][:120], "expect": e["expect"], "got": [h.ref for h in hits[:3]], "rank": r}
            )
    return score(ranks), misses


def held_out(wiki: Wiki) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    cases = [(y.id, s.text) for y in wiki.symptoms.values() for s in y.signatures if len(s.text) >= MIN_SIGNATURE]
    ranks: list[int | None] = []
    misses = []
    for fold in range(FOLDS):
        chosen = [c for i, c in enumerate(cases) if i % FOLDS == fold]
        exclude: dict[str, set[str]] = {}
        for page_id, text in chosen:
            exclude.setdefault(page_id, set()).add(text)
        payload = build_payload(wiki, exclude)
        index = build_index(wiki, exclude)
        for page_id, text in chosen:
            hits = search(index, payload["docs"], text, k=10)
            r = rank_of(hits, [page_id])
            ranks.append(r)
            if r is None or r > 3:
                misses.append({"query": text[:120], "expect": [page_id], "got": [h.ref for h in hits[:3]], "rank": r})
    return score(ranks), misses


class _Concat:
    """noise[:cut] + error + noise[cut:] as one stream, without copying the noise."""

    def __init__(self, parts: list[memoryview | bytes]) -> None:
        self.parts = parts
        self.i = 0
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        out = []
        want = n if n >= 0 else 1 << 62
        while want > 0 and self.i < len(self.parts):
            part = self.parts[self.i]
            chunk = bytes(part[self.pos : self.pos + want])
            out.append(chunk)
            want -= len(chunk)
            self.pos += len(chunk)
            if self.pos >= len(part):
                self.i, self.pos = self.i + 1, 0
        return b"".join(out)

    def __enter__(self) -> _Concat:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _top(tri: Any, index: Any, sources: list[Any], workers: int) -> list[str]:
    from mlwiki.core.triage import results

    report = tri.run(sources, workers=workers)
    return [r["id"] for r in results(report, tri, index, k=3)["results"]]


def triage_eval(wiki_dir: Path, payload: dict[str, Any], sizes: Sequence[tuple[int, int]], seed: int = 7) -> dict[str, Any]:
    """hit@1/hit@3 of triage for (a) real logs pasted in issue threads (tests/triage/real_logs.yml)
    and (b) each curated pasted error buried at a random depth in ``size`` bytes of noise
    (tests/triage/noise.py), beside the same errors searched alone."""
    import random

    from mlwiki.core.search.rank import load_index
    from mlwiki.core.triage import Triage

    tests = wiki_dir.parent / "tests"
    sys.path.insert(0, str(tests / "triage"))
    from noise import noise_lines  # type: ignore[import-not-found]

    tri = Triage(payload["docs"])
    index = load_index(payload["index"])
    out: dict[str, Any] = {}
    real_path = tests / "triage" / "real_logs.yml"
    if real_path.is_file():
        real = yaml.safe_load(real_path.read_text(encoding="utf-8")) or []
        ranks = []
        for case in real:
            data = case["log"].encode("utf-8")
            ids = _top(tri, index, [("real.log", lambda d=data: _Concat([d]))], workers=1)
            ranks.append(next((i + 1 for i, r in enumerate(ids) if r in case["expect"]), None))
        out["real_logs"] = score(ranks)
    cases = yaml.safe_load((tests / "search" / "eval_set.yml").read_text(encoding="utf-8")) or []
    rng = random.Random(seed)
    for size, limit in sizes:
        lines = []
        total = 0
        for line in noise_lines(seed):
            lines.append(line)
            total += len(line) + 1
            if total >= size:
                break
        noise = memoryview(("\n".join(lines) + "\n").encode("utf-8"))
        chosen = rng.sample(cases, min(limit, len(cases)))
        buried, alone = [], []
        started = time.perf_counter()
        for case in chosen:
            depth = rng.random()
            cut = bytes(noise[: int(depth * len(noise))]).rfind(b"\n") + 1 if depth else 0
            err = case["query"].encode("utf-8") + b"\n"
            parts: list[memoryview | bytes] = [noise[:cut], err, noise[cut:]]
            ids = _top(tri, index, [("buried.log", lambda p=parts: _Concat(list(p)))], workers=1 if size <= 2_000_000 else 2)
            buried.append(next((i + 1 for i, r in enumerate(ids) if r in case["expect"]), None))
            hits = search(index, payload["docs"], case["query"], k=3)
            alone.append(rank_of(hits, case["expect"]))
        out[f"buried_{size // 1_000_000}MB"] = {
            **score(buried),
            "alone": score(alone),
            "seconds_per_log": round((time.perf_counter() - started) / max(1, len(chosen)), 2),
        }
    return out


def coverage(wiki_dir: Path, wiki: Wiki, name: str = "sample.yml") -> dict[str, Any] | None:
    """A coverage sample (tests/coverage/sample.yml, or fresh.yml, round5.yml and round6.yml drawn later from
    new queries: real failure reports judged COVERED, PARTIAL or NOT_COVERED by a reader; None
    while none is judged): the shares, and
    search hit@3 on the covered ones, measured now (the judged page among the top 3 for the
    report's error text)."""
    path = wiki_dir.parent / "tests" / "coverage" / name
    if not path.is_file():
        return None
    entries = [e for e in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("entries") or [] if e.get("verdict")]
    if not entries:
        return None  # sampled, not judged yet
    verdicts = [e.get("verdict") for e in entries]
    n = len(entries)
    index = build_index(wiki)
    docs = build_payload(wiki)["docs"]
    covered = [e for e in entries if e.get("verdict") == "COVERED"]
    hits = sum(1 for e in covered if e.get("page") in [h.ref for h in search(index, docs, e["error"], k=3)])
    return {
        "n": n,
        "covered": verdicts.count("COVERED"),
        "partial": verdicts.count("PARTIAL"),
        "not_covered": verdicts.count("NOT_COVERED"),
        "covered_share": round(verdicts.count("COVERED") / n, 3) if n else 0.0,
        "at_least_partial_share": round((verdicts.count("COVERED") + verdicts.count("PARTIAL")) / n, 3) if n else 0.0,
        "hit@3_covered": round(hits / len(covered), 3) if covered else 0.0,
        "hits_covered": hits,
    }


COVERAGE_SAMPLES = (
    ("coverage", "coverage sample", "sample.yml"),
    ("coverage_fresh", "fresh coverage sample", "fresh.yml"),
    ("coverage_round5", "round 5 coverage sample", "round5.yml"),
    ("coverage_round6", "round 6 coverage sample", "round6.yml"),
)


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The report as the lines ``search_eval.py`` prints (also on the benchmarks page)."""
    rows = [("curated pasted errors", report["curated"]), ("held-out signatures", report["held_out_signatures"])]
    if "typed_queries" in report:
        rows.insert(1, ("typed queries", report["typed_queries"]))
    for key, s in (report.get("triage") or {}).items():
        rows.append((f"triage {key.replace('_', ' ')}", s))
    out = []
    for name, s in rows:
        line = f"{name:24} n={s['n']:4}  hit@1={s['hit@1']:.3f}  hit@3={s['hit@3']:.3f}  MRR={s['mrr']:.3f}"
        if "alone" in s:
            a = s["alone"]
            line += f"   (same errors alone: hit@1={a['hit@1']:.3f} hit@3={a['hit@3']:.3f}; {s['seconds_per_log']} s/log)"
        out.append(line)
    for key, label, _ in COVERAGE_SAMPLES:
        c = report.get(key)
        if c is not None and c["n"]:
            out.append(
                f"{label:24} n={c['n']:4}  COVERED={c['covered']} ({c['covered_share']:.0%})  "
                f"PARTIAL={c['partial']}  NOT={c['not_covered']}  at least partial={c['at_least_partial_share']:.0%}  "
                f"search hit@3 on covered={c['hits_covered']}/{c['covered']} ({c['hit@3_covered']:.3f})"
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="search_eval.py", description="Score search: hit@1, hit@3, MRR.")
    p.add_argument("--set", default=None, help="evaluation set (default tests/search/eval_set.yml)")
    p.add_argument("--wiki", help="wiki directory (default: ./wiki)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--misses", action="store_true", help="list the queries that missed")
    p.add_argument(
        "--triage",
        default="1:238,10:60,100:12",
        help="triage evaluation: SIZE_MB:CASES,... of buried errors (default 1:238,10:60,100:12; 'none' skips)",
    )
    args = p.parse_args(argv)
    wiki_dir = Path(args.wiki) if args.wiki else default_wiki_dir()
    eval_path = Path(args.set) if args.set else wiki_dir.parent / "tests" / "search" / "eval_set.yml"
    started = time.perf_counter()
    wiki = load(wiki_dir)
    cur, cur_misses = curated(wiki, eval_path)
    held, held_misses = held_out(wiki)
    report: dict[str, Any] = {"curated": cur, "held_out_signatures": held}
    typed_path = wiki_dir.parent / "tests" / "search" / "typed_queries.yml"
    typed_misses: list[dict[str, Any]] = []
    if args.set is None and typed_path.is_file():
        report["typed_queries"], typed_misses = curated(wiki, typed_path)
    for key, _, name in COVERAGE_SAMPLES:
        cov = coverage(wiki_dir, wiki, name)
        if cov is not None:
            report[key] = cov
    if args.triage != "none":
        sizes = [(int(float(a) * 1_000_000), int(b)) for a, b in (x.split(":") for x in args.triage.split(","))]
        report["triage"] = triage_eval(wiki_dir, build_payload(wiki), sizes)
    report["seconds"] = round(time.perf_counter() - started, 1)
    if args.misses:
        report["misses"] = {"curated": cur_misses, "typed_queries": typed_misses, "held_out_signatures": held_misses}
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print("\n".join(summary_lines(report)))
        if args.misses:
            for group, items in report["misses"].items():
                for m in items:
                    print(
                        f"  miss [{group}] rank={m['rank']} expect={m['expect']} got={m['got']}: {m['query']!r}",
                        file=sys.stderr,
                    )
    return 0

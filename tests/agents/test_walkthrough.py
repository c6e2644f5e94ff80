"""The router's rules followed mechanically for every symptom: route each signature, take each
cause's next step, collect the required parameters from the workflow or action itself, dry-run.

Every path must end in a successful dry run (missing values shown as <name> holes) or an explicit
"no workflow" reason, and a cause that is not about hardware never reaches an approval-gated
action that takes hardware out of service.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mlwiki.core import load
from mlwiki.core.search import build_payload, search
from mlwiki.core.search.build import build_index
from mlwiki.runner.engine import EXIT_OK, Options, run_action, run_workflow
from wikifix import REPO

WIKI = load(REPO / "wiki")
PAYLOAD = build_payload(WIKI)
INDEX = build_index(WIKI)
# Approval-gated actions that take a node or host out of service, or stress it.
HARDWARE_GATED = {"kubectl-cordon-node", "kubectl-drain-node", "gcloud-report-host-faulty", "dcgmi-diag-run"}
HARDWARE_WORDS = re.compile(
    r"hardware|faulty|chip|host\b|node\b|gpu|xid|ecc|nvlink|link\b|nic\b|hbm|board|row|remap|thermal|bus\b|fabric|infiniband|\bib\b|maintenance|defect|failing",
    re.I,
)


def _steps_of(target: str) -> list[str]:
    if target in WIKI.workflows:
        return [s.action for s in WIKI.workflows[target].steps]
    return [target]


def test_every_symptom_has_causes_with_a_way_forward() -> None:
    missing = [s.id for s in WIKI.symptoms.values() if not s.causes]
    assert len(missing) <= len(WIKI.symptoms) // 10, missing


@pytest.mark.parametrize("sym_id", sorted(WIKI.symptoms))
def test_walkthrough(sym_id: str, tmp_path: Path) -> None:
    sym = WIKI.symptoms[sym_id]
    # 1. Route: each signature lands on this page or a page that lists it as shared.
    for sig in sym.signatures:
        if len(sig.text) < 15:
            continue
        hits = [h.ref for h in search(INDEX, PAYLOAD["docs"], sig.text, k=3)]
        assert sym_id in hits or any(o in hits for o in sig.shared_with), (sig.text, hits)
    # 2. Each cause: a next step that dry-runs with nothing invented, or a stated reason.
    for cause in sym.causes:
        if cause.next is None:
            assert len(cause.no_workflow) >= 10, cause
            continue
        opts = Options(dry_run=True, runs_dir=tmp_path / "runs")
        if cause.next in WIKI.workflows:
            outcome = run_workflow(WIKI, WIKI.workflows[cause.next], {}, opts)
        else:
            outcome = run_action(WIKI, WIKI.actions[cause.next], {}, opts)
        assert outcome.code == EXIT_OK, (cause.cause, cause.next, outcome.record)
        # 3. Software and configuration causes never reach hardware-removing actions.
        reached = HARDWARE_GATED & set(_steps_of(cause.next))
        if reached:
            assert HARDWARE_WORDS.search(cause.cause + " " + cause.tell), (
                f"{sym_id}: cause '{cause.cause}' is not about hardware but leads to {sorted(reached)}"
            )

"""Write tests/triage/examples/ddp-ib-failure/: four worker logs of a DDP job whose rank on
worker 0 lost its InfiniBand connection, while the other workers' NCCL watchdogs time out.

The error lines are verbatim from public threads (worker 0: NVIDIA/nccl#1405; workers 1-3: the
watchdog lines of XPixelGroup/BasicSR#737); the lines around them are generated noise
(tests/triage/noise.py). Run it again to regenerate the files byte for byte."""

from __future__ import annotations

from pathlib import Path

import yaml

from noise import bury

HERE = Path(__file__).resolve().parent
OUT = HERE / "examples" / "ddp-ib-failure"


def main() -> None:
    real = {c["source"]: c for c in yaml.safe_load((HERE / "real_logs.yml").read_text(encoding="utf-8"))}
    ib = real["NVIDIA/nccl#1405"]["log"]
    evals = yaml.safe_load((HERE.parent / "search" / "eval_set.yml").read_text(encoding="utf-8"))
    watchdog = next(e["query"] for e in evals if e["source"] == "XPixelGroup/BasicSR#737")
    lines = watchdog.splitlines()
    OUT.mkdir(parents=True, exist_ok=True)
    logs = {"worker-0.log": ib, "worker-1.log": lines[0], "worker-2.log": lines[2], "worker-3.log": lines[4]}
    for i, (name, error) in enumerate(sorted(logs.items())):
        text = "\n".join(bury(error, 60_000, 0.8 + i * 0.03, seed=100 + i)) + "\n"
        (OUT / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

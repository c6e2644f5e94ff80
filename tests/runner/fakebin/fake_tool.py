#!/usr/bin/env python3
"""Stand-in for kubectl/gcloud/...: records its argv, prints a recorded real-shaped output.

Environment: FAKE_ARGV_LOG (append one JSON line per call), FAKE_SLEEP (seconds to sleep
first, with a child process to test process-group kill), FAKE_EXIT (exit code), FAKE_TEXT
(print this instead of the recorded output).
"""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

RECORDED = Path(__file__).resolve().parent.parent / "recorded"
RULES = [
    (r"^kubectl .*\bget pods?\b.*-o json", "kubectl-get-pods.json"),
    (r"^kubectl .*\bget jobsets?\b", "kubectl-get-jobset.json"),
    (r"^kubectl .*\bget jobs\b", "kubectl-get-jobs.json"),
    (r"^kubectl .*\bget nodes? \S+ -o json", "kubectl-get-node.json"),
    (r"^kubectl .*\bget nodes\b.*-o json", "kubectl-get-nodes.json"),
    (r"^kubectl .*\bget nodes\b", "kubectl-get-nodes.txt"),
    (r"^kubectl .*\bget events\b", "kubectl-get-events.json"),
    (r"^kubectl .*\bget workloads\b", "kubectl-get-workloads.json"),
    (r"^kubectl .*\blogs\b", "kubectl-logs.txt"),
    (r"^kubectl .*\bdescribe pod\b", "kubectl-describe-pod.txt"),
    (r"^kubectl .*\bdescribe node\b", "kubectl-describe-node.txt"),
    (r"^kubectl .*\bexec\b.*\btpu-info\b", "tpu-info.txt"),
    (r"^kubectl .*\bexec\b.*\bnvidia-smi nvlink\b", "nvidia-smi-nvlink.txt"),
    (r"^kubectl .*\bexec\b.*\bnvidia-smi\b", "nvidia-smi-q.txt"),
    (r"^kubectl .*\bexec\b.*\bpy-spy\b", "py-spy-dump.txt"),
    (r"^kubectl .*\bexec\b.*\bdcgmi\b", "dcgmi-diag.txt"),
    (r"^kubectl .*\bdebug node/", "dmesg-xid.txt"),
    (r"^gcloud logging read .*(Megascale|HANG)", "logging-megascale.json"),
    (r"^gcloud logging read", "logging-entries.json"),
    (r"^gcloud compute tpus tpu-vm describe", "gcloud-tpu-vm.json"),
    (r"^gcloud compute tpus queued-resources describe", "gcloud-queued-resource.json"),
    (r"^gcloud .*--format=json", "empty-object.json"),
]


def main() -> int:
    argv = [Path(sys.argv[0]).name, *sys.argv[1:]]
    log = os.environ.get("FAKE_ARGV_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(argv) + "\n")
    if len(argv) > 1 and argv[1] == "config":
        # The runner's target lookup (kubectl config view / gcloud config list): no kubeconfig
        # and no gcloud account here, like a fresh machine.
        print("{}")
        return 0
    if os.environ.get("FAKE_SLEEP"):
        # A grandchild in the same process group: the runner must kill the whole group.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        pidfile = os.environ.get("FAKE_CHILD_PIDFILE")
        if pidfile:
            Path(pidfile).write_text(str(child.pid))
        time.sleep(float(os.environ["FAKE_SLEEP"]))
    if "FAKE_TEXT" in os.environ:
        print(os.environ["FAKE_TEXT"])
    else:
        joined = " ".join(argv)
        for pattern, name in RULES:
            if re.search(pattern, joined):
                sys.stdout.write((RECORDED / name).read_text(encoding="utf-8"))
                break
    return int(os.environ.get("FAKE_EXIT", "0"))


if __name__ == "__main__":
    sys.exit(main())

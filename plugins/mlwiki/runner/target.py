"""What a run acts on: the kube context (and its cluster and user), the gcloud account and project.

Resolved once per run, before the first step, printed and written to the runs log, so nobody has
to guess which cluster a ``kubectl`` step touched:

- the kube context is the one named (``--context`` or the ``kube_context`` parameter), else the
  kubeconfig's current context, read with ``kubectl config`` (no cluster contact);
- every kubectl step then runs with an explicit ``--context=NAME`` and every gcloud step with an
  explicit ``--project`` (the step's own, or the project resolved here);
- an approval-gated step refuses to run when the workflow was given a ``cluster_name`` that the
  context's cluster does not name, and prints the command that switches to the right one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CONTEXT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,252}$")
PROJECT_RE = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
LOOKUP_TIMEOUT_S = 20


class TargetError(Exception):
    """The named context or project cannot be used; nothing ran."""


@dataclass(frozen=True)
class Target:
    kube_context: str | None
    cluster: str | None
    user: str | None
    account: str | None
    project: str | None
    source: str  # where the context came from: "named", "current", "none"
    gcloud_checked: bool = False

    def describe(self) -> str:
        ctx = (
            f"kube context '{self.kube_context}' ({self.source}; cluster {self.cluster or '?'}, user {self.user or '?'})"
            if self.kube_context
            else "no kube context (kubectl steps will use whatever kubectl finds)"
        )
        if not self.gcloud_checked:
            return f"target: {ctx}"
        gc = f"gcloud account {self.account or '(none: gcloud auth login)'}, project {self.project or '(none)'}"
        return f"target: {ctx}; {gc}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kube_context": self.kube_context,
            "cluster": self.cluster,
            "user": self.user,
            "account": self.account,
            "project": self.project,
            "context_source": self.source,
        }


def _run(argv: list[str]) -> tuple[int, str, str]:
    if shutil.which(argv[0]) is None:
        return 127, "", f"{argv[0]} not found on PATH"
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=LOOKUP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, "", str(exc)
    return proc.returncode, proc.stdout, proc.stderr


def resolve_target(named_context: str | None, params: Mapping[str, Any], needs_kubectl: bool, needs_gcloud: bool) -> Target:
    """Look the target up with the real tools (offline: kubeconfig and gcloud config only)."""
    context, cluster, user, source = None, None, None, "none"
    if named_context is not None and not CONTEXT_RE.match(named_context):
        raise TargetError(f"kube context {json.dumps(named_context)} is not a valid context name")
    if needs_kubectl or named_context:
        argv = ["kubectl", "config", "view", "--minify", "-o", "json"]
        if named_context:
            argv[3:3] = ["--context", named_context]
        code, out, err = _run(argv)
        if code == 0:
            try:
                cfg = json.loads(out or "{}")
            except ValueError:
                cfg = {}
            ctxs = cfg.get("contexts") or []
            if ctxs and isinstance(ctxs[0], dict):
                context = str(ctxs[0].get("name") or "") or None
                inner = ctxs[0].get("context") or {}
                cluster = inner.get("cluster") if isinstance(inner, dict) else None
                user = inner.get("user") if isinstance(inner, dict) else None
                source = "named" if named_context else "current"
        elif named_context:
            first = (err.strip().splitlines() or ["kubectl failed"])[0]
            raise TargetError(
                f"kube context '{named_context}' cannot be used: {first}\n"
                "  list the contexts you have with: kubectl config get-contexts"
            )
    account, project = None, None
    given_project = params.get("project_id")
    if needs_gcloud:
        code, out, _err = _run(["gcloud", "config", "list", "--format=json"])
        if code == 0:
            try:
                core = (json.loads(out or "{}") or {}).get("core") or {}
            except ValueError:
                core = {}
            account = core.get("account")
            project = core.get("project")
    if isinstance(given_project, str) and given_project:
        project = given_project
    return Target(context, cluster, user, account, project, source, gcloud_checked=needs_gcloud)


def with_target(argv: list[str], target: Target) -> list[str]:
    """The argv with an explicit ``--context`` (kubectl) or ``--project`` (gcloud) added when the
    template did not set one. Inserted right after the executable, as one ``--flag=value``
    argument, so it can never be read as a positional."""
    if not argv:
        return argv
    if argv[0] == "kubectl" and target.kube_context and not any(
        a == "--context" or a.startswith("--context=") for a in argv
    ):
        return [argv[0], f"--context={target.kube_context}", *argv[1:]]
    if argv[0] == "gcloud" and target.project and PROJECT_RE.match(target.project) and not any(
        a == "--project" or a.startswith("--project=") for a in argv
    ):
        return [argv[0], *argv[1:], f"--project={target.project}"]
    return argv


def cluster_mismatch(target: Target, params: Mapping[str, Any]) -> str | None:
    """Why a state-changing step must not run on this context, or None when it may."""
    wanted = params.get("cluster_name")
    if not isinstance(wanted, str) or not wanted:
        return None
    if not target.kube_context:
        return f"no kube context is selected, so nothing proves the step would act on cluster '{wanted}'"
    names = " ".join(x for x in (target.kube_context, target.cluster or "") if x)
    # GKE contexts and clusters are named gke_PROJECT_LOCATION_CLUSTER; others usually carry the name.
    if re.search(rf"(^|[_/.:@-]){re.escape(wanted)}($|[_/.:@-])", names) or names.split()[0] == wanted:
        return None
    location = params.get("location") or "LOCATION"
    project = params.get("project_id") or "PROJECT"
    return (
        f"the kube context '{target.kube_context}' points at cluster '{target.cluster or '?'}', "
        f"not at '{wanted}', the cluster this run was given. Switch first:\n"
        f"  gcloud container clusters get-credentials {wanted} --location {location} --project {project}\n"
        f"  (or: kubectl config use-context CONTEXT, or pass --context CONTEXT)"
    )

"""Which commands change state: one rule for the linter, the runner and the site.

An action needs ``--approve`` when its page says so (``requires_approval: true``) *or* when its
command template matches a state-changing shape in the tables below. The linter fails an action
that matches a shape without declaring approval (MLW039); the runner applies the same rule at
run time, so a page that skipped lint still cannot run without ``--approve``.

The rule reads the command *template* (``{placeholders}`` unfilled): parameter values can never
turn a read-only shape into a state-changing one or back, because a value fills exactly one
argument and is never a verb. Anything the tables do not know is treated as state-changing.

Sources: ``kubectl --help`` (v1.32) and the kubectl reference
(https://kubernetes.io/docs/reference/kubectl/generated/), the gcloud reference
(https://cloud.google.com/sdk/gcloud/reference) and ``gcloud help`` on this machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlwiki.core.model import Action

# --- kubectl ----------------------------------------------------------------------------

# Verbs that only read (kubectl --help: "Basic", "Troubleshooting", "Other" commands that do
# not write to the API server or the kubeconfig).
KUBECTL_READ_ONLY = frozenset(
    {"get", "describe", "logs", "top", "explain", "api-resources", "api-versions", "version", "cluster-info", "events", "wait", "diff"}
)
# Verbs whose read-only-ness depends on the sub-command.
KUBECTL_READ_ONLY_SUB = {
    "rollout": frozenset({"status", "history"}),
    "auth": frozenset({"can-i", "whoami"}),
    "config": frozenset({"view", "get-contexts", "current-context", "get-clusters", "get-users"}),
}
# Documented state-changing verbs (the table in wiki/SCHEMA.md); any other verb is unknown and
# gated the same way.
KUBECTL_STATE_CHANGING = {
    "delete": "deletes objects",
    "drain": "evicts every pod from a node and cordons it",
    "cordon": "marks a node unschedulable",
    "uncordon": "marks a node schedulable",
    "taint": "changes a node's taints",
    "label": "changes labels",
    "annotate": "changes annotations",
    "patch": "changes an object",
    "replace": "replaces an object (with --force: deletes and recreates it)",
    "apply": "creates or changes objects",
    "create": "creates objects",
    "edit": "changes an object",
    "scale": "changes replica counts",
    "set": "changes fields of objects",
    "rollout": "restarts, pauses, resumes or undoes a rollout (status and history only read)",
    "debug": "creates a pod (node debugging runs it privileged on the host)",
    "exec": "runs a command inside a container (read-only only for the reviewed commands)",
    "cp": "copies files into or out of a container",
    "run": "creates a pod",
    "expose": "creates a service",
    "autoscale": "creates an autoscaler",
    "certificate": "approves or denies certificate requests",
    "attach": "attaches to a running process's stdin",
    "port-forward": "opens a tunnel into the cluster",
    "proxy": "opens a proxy to the API server",
    "auth": "reconciles RBAC objects (can-i and whoami only read)",
    "config": "changes the kubeconfig, e.g. the current context (view and get-* only read)",
}
# kubectl flags that take a separate value (so the value is not mistaken for the verb).
KUBECTL_VALUE_FLAGS = frozenset(
    {
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "--cluster",
        "--user",
        "-s",
        "--server",
        "--token",
        "--as",
        "--as-group",
        "--as-uid",
        "--request-timeout",
        "-v",
        "--v",
        "--cache-dir",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--tls-server-name",
        "--profile",
        "--profile-output",
        "--username",
        "--password",
        "-c",
        "--container",
    }
)
# Commands run through ``kubectl exec ... -- CMD`` that only read, reviewed one by one. An entry
# ending in "*" allows any further arguments (the tool has no state-changing option); other
# entries must match exactly. A placeholder never matches a literal here.
EXEC_READ_ONLY: tuple[tuple[str, ...], ...] = (
    ("nvidia-smi", "-q"),
    ("nvidia-smi", "-q", "-d", "ECC"),
    ("nvidia-smi", "nvlink", "-e"),
    ("nvidia-smi", "nvlink", "-s"),
    ("tpu-info", "*"),
    ("df", "*"),
    ("py-spy", "dump", "*"),
    ("ray", "status", "*"),
    ("ray", "list", "*"),
    ("python3", "-m", "pip", "list", "*"),
    ("python3", "-c", "import jax; jax.print_environment_info()"),
    (
        "python3",
        "-c",
        "import torch; print('torch', torch.__version__); print('cuda', torch.version.cuda); "
        "print('cudnn', torch.backends.cudnn.version()); print('available', torch.cuda.is_available()); "
        "print('device_count', torch.cuda.device_count()); print('arch_list', torch.cuda.get_arch_list()); "
        "print('capability', torch.cuda.get_device_capability() if torch.cuda.is_available() else None)",
    ),
)

# --- gcloud -----------------------------------------------------------------------------

GCLOUD_READ_ONLY = frozenset(
    {"list", "describe", "read", "tail", "get-serial-port-output", "get-iam-policy", "get-server-config", "ls", "cat", "du", "version", "info"}
)
GCLOUD_READ_ONLY_PREFIXES = ("list-", "describe-")
GCLOUD_STATE_CHANGING = {
    "create": "creates a resource",
    "delete": "deletes a resource",
    "update": "changes a resource",
    "set-*": "changes a setting of a resource",
    "add-*": "adds to a resource",
    "remove-*": "removes from a resource",
    "reset": "hard-resets a VM",
    "stop": "stops a VM",
    "start": "starts a VM",
    "resize": "changes a node pool or group size",
    "report-host-as-faulty": "reports a host as faulty: the VM is moved off it (cannot be undone)",
    "simulate-maintenance-event": "triggers a maintenance event on a VM",
    "ssh": "runs commands on hosts",
    "scp": "copies files to or from hosts",
    "perform-maintenance": "starts pending maintenance",
    "import": "imports data into a resource",
    "deploy": "deploys code",
    "get-credentials": "rewrites the local kubeconfig and its current context",
    "set": "changes gcloud configuration (gcloud config set)",
    "cp": "copies objects",
    "mv": "moves objects",
    "rm": "deletes objects",
    "rsync": "copies and may delete objects",
}
GCLOUD_VALUE_FLAGS = frozenset({"--project", "--account", "--configuration", "--verbosity", "--impersonate-service-account"})

PLACEHOLDER_TOKEN = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class StateChange:
    """Why a command needs approval: the executable, the verb found and the rule it matched."""

    executable: str
    verb: str
    rule: str
    position: int  # index in the command of the token that decided

    def describe(self) -> str:
        return f"{self.executable} {self.verb}: {self.rule}"


def _positionals(argv: tuple[str, ...], value_flags: frozenset[str]) -> list[tuple[int, str]]:
    """(index, token) of the non-option tokens after the executable, up to ``--``."""
    out = []
    skip = False
    for i, tok in enumerate(argv[1:], start=1):
        if skip:
            skip = False
            continue
        if tok == "--":
            break
        if tok.startswith("-"):
            skip = "=" not in tok and tok in value_flags
            continue
        out.append((i, tok))
    return out


def _exec_read_only(rest: tuple[str, ...]) -> bool:
    for entry in EXEC_READ_ONLY:
        if entry and entry[-1] == "*":
            head = entry[:-1]
            if rest[: len(head)] == head:
                return True
        elif rest == entry:
            return True
    return False


def _kubectl(argv: tuple[str, ...]) -> StateChange | None:
    pos = _positionals(argv, KUBECTL_VALUE_FLAGS)
    if not pos:
        return StateChange("kubectl", "(none)", "no verb found; an unknown command is treated as state-changing", 0)
    i, verb = pos[0]
    if verb in KUBECTL_READ_ONLY:
        return None
    if verb in KUBECTL_READ_ONLY_SUB:
        sub = pos[1][1] if len(pos) > 1 else ""
        if sub in KUBECTL_READ_ONLY_SUB[verb]:
            return None
    if verb == "exec":
        rest = argv[argv.index("--") + 1 :] if "--" in argv else ()
        if rest and _exec_read_only(tuple(rest)):
            return None
        shown = " ".join(rest) or "(no command after --)"
        return StateChange("kubectl", "exec", f"runs `{shown}`, which is not on the reviewed read-only list", i)
    rule = KUBECTL_STATE_CHANGING.get(verb)
    if rule is None:
        return StateChange("kubectl", verb, "unknown verb; treated as state-changing", i)
    return StateChange("kubectl", verb, rule, i)


def _gcloud_rule(token: str) -> str | None:
    if token in GCLOUD_STATE_CHANGING:
        return GCLOUD_STATE_CHANGING[token]
    for pattern, rule in GCLOUD_STATE_CHANGING.items():
        if pattern.endswith("*") and token.startswith(pattern[:-1]):
            return rule
    return None


def _gcloud(argv: tuple[str, ...]) -> StateChange | None:
    for i, tok in _positionals(argv, GCLOUD_VALUE_FLAGS):
        if PLACEHOLDER_TOKEN.search(tok):
            return StateChange("gcloud", tok, "a parameter where the command verb should be; treated as state-changing", i)
        if tok in GCLOUD_READ_ONLY or tok.startswith(GCLOUD_READ_ONLY_PREFIXES):
            return None
        rule = _gcloud_rule(tok)
        if rule is not None:
            return StateChange("gcloud", tok, rule, i)
    return StateChange("gcloud", "(none)", "no known verb found; treated as state-changing", 0)


def state_change(command: tuple[str, ...]) -> StateChange | None:
    """The state-changing shape a command template matches, or None when it only reads."""
    if not command:
        return None
    exe = command[0]
    if exe == "kubectl":
        return _kubectl(command)
    if exe == "gcloud":
        return _gcloud(command)
    return StateChange(exe, exe, "not a reviewed executable", 0)


def needs_approval(action: Action) -> bool:
    """The one gate: declared approval, or a command that changes state by rule."""
    if action.requires_approval:
        return True
    return action.execution_mode == "command" and state_change(action.command) is not None

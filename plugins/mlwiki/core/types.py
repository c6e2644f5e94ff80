"""The seven built-in page types, declared in the registry (listing order = declaration order)."""

from __future__ import annotations

from mlwiki.core.model import Action, Playbook, Symptom, Workflow
from mlwiki.core.registry import PageType, register

RENDER = "mlwiki.render.types"
# Frontmatter keys every type may carry that name other pages (target type, None = any).
COMMON_REFS: dict[str, str | None] = {"related": None}

register(
    PageType(
        name="symptom",
        folder="symptoms",
        fmt="md",
        title="Symptoms",
        blurb="What you see: each page carries the verbatim log lines, events and conditions, and links the workflow that diagnoses it.",
        renderer=f"{RENDER}:render_symptom",
        record=Symptom.from_data,
        references={**COMMON_REFS, "workflows": "workflow", "playbooks": "playbook", "verify": "action", "echo_of": "symptom"},
    )
)
register(
    PageType(
        name="playbook",
        folder="playbooks",
        fmt="md",
        title="Playbooks",
        blurb="Narrative reasoning for when the picture is unclear: what evidence to freeze first and which hypotheses to rule out.",
        renderer=f"{RENDER}:render_markdown_page",
        record=Playbook.from_data,
        references={**COMMON_REFS, "workflows": "workflow"},
    )
)
register(
    PageType(
        name="workflow",
        folder="workflows",
        fmt="json",
        title="Workflows",
        blurb="Ordered diagnostic steps you can run with the glue runner, with a step diagram and commands to copy.",
        renderer=f"{RENDER}:render_workflow",
        record=Workflow.from_data,
        references=COMMON_REFS,
    )
)
register(
    PageType(
        name="action",
        folder="actions",
        fmt="json",
        title="Actions",
        blurb="Atomic diagnostic steps: one command, prompt or instruction each, with typed parameters.",
        renderer=f"{RENDER}:render_action",
        record=Action.from_data,
        references=COMMON_REFS,
    )
)
for _name, _folder, _title, _blurb in (
    ("concept", "concepts", "Concepts", "The ideas you need to reason about a failure."),
    ("entity", "entities", "Entities", "Chips, products, libraries and components, and how each one fails."),
    ("tool", "tools", "Tools", "Command-line tools, APIs and query languages used to diagnose, with exact syntax."),
):
    register(
        PageType(
            name=_name,
            folder=_folder,
            fmt="md",
            title=_title,
            blurb=_blurb,
            renderer=f"{RENDER}:render_markdown_page",
            references=COMMON_REFS,
        )
    )

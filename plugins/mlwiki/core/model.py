"""The typed model: one record per wiki file, plus typed views of actions and workflows.

Built once by :mod:`mlwiki.core.loader`; everything downstream (checks, renderers, the search
index, the runner) reads these records and never re-parses a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from mlwiki.core.diagnostics import Diagnostic, Location
from mlwiki.core.markdown import Heading, WikiLink
from mlwiki.core.positions import PathKey, Positions, position_of

MARKDOWN_TYPES = ("concept", "symptom", "playbook", "entity", "tool")
JSON_TYPES = ("workflow", "action")
PAGE_TYPES = MARKDOWN_TYPES + JSON_TYPES
FOLDERS = {t: ("entities" if t == "entity" else t + "s") for t in PAGE_TYPES}
DOC_FILES = {"SCHEMA.md": "schema", "INDEX.md": "index", "LOG.md": "log", "TUTORIAL.md": "tutorial"}
# Plural headings, in the order listings show the types.
TYPE_TITLES = {
    "symptom": "Symptoms",
    "playbook": "Playbooks",
    "workflow": "Workflows",
    "action": "Actions",
    "concept": "Concepts",
    "entity": "Entities",
    "tool": "Tools",
}
TYPE_ORDER = {
    "symptom": 0,
    "playbook": 1,
    "workflow": 2,
    "action": 3,
    "concept": 4,
    "entity": 5,
    "tool": 6,
    "doc": 7,
}

Scalar = Union[str, int, bool]


@dataclass(frozen=True, eq=False)
class Page:
    """One wiki file. ``kind`` is a page type or ``doc`` for SCHEMA/INDEX/LOG/TUTORIAL."""

    id: str
    kind: str
    rel: str
    title: str
    summary: str
    meta: Mapping[str, Any]
    body: str
    body_line: int
    headings: tuple[Heading, ...]
    links: tuple[WikiLink, ...]
    positions: Positions = field(repr=False)
    masked_body: str = field(repr=False, default="")

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.meta.get("tags") or ())

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(self.meta.get("aliases") or ())

    @property
    def platforms(self) -> tuple[str, ...]:
        return tuple(self.meta.get("platforms") or ())

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(self.meta.get("sources") or ())

    @property
    def related(self) -> tuple[str, ...]:
        return tuple(self.meta.get("related") or ())

    @property
    def is_json(self) -> bool:
        return self.kind in JSON_TYPES

    @property
    def anchors(self) -> frozenset[str]:
        return frozenset(h.anchor for h in self.headings)

    def loc(self, path: PathKey = ()) -> Location:
        line, col = position_of(self.positions, path)
        return Location(self.rel, line, col)

    @property
    def signatures(self) -> tuple[Signature, ...]:
        out = []
        for i, s in enumerate(self.meta.get("signatures") or ()):
            if isinstance(s, Mapping) and isinstance(s.get("text"), str):
                out.append(
                    Signature(
                        text=s["text"],
                        kind=str(s.get("kind", "")),
                        where=str(s.get("where", "")),
                        source=str(s.get("source", "")),
                        index=i,
                    )
                )
        return tuple(out)


@dataclass(frozen=True)
class Signature:
    text: str
    kind: str
    where: str
    source: str
    index: int


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    description: str
    required: bool
    default: Scalar | None
    pattern: str | None
    enum: tuple[Scalar, ...] | None
    minimum: int | None
    maximum: int | None
    example: Scalar | None
    allow_leading_dash: bool

    @property
    def sample(self) -> Scalar | None:
        """A value for dry runs and the site's sample command: example, default, first enum."""
        if self.example is not None:
            return self.example
        if self.default is not None:
            return self.default
        if self.enum:
            return self.enum[0]
        return None

    @staticmethod
    def from_meta(name: str, spec: Mapping[str, Any]) -> Parameter:
        enum = spec.get("enum")
        return Parameter(
            name=name,
            type=str(spec.get("type", "string")),
            description=str(spec.get("description", "")),
            required=bool(spec.get("required", False)),
            default=spec.get("default"),
            pattern=spec.get("pattern"),
            enum=tuple(enum) if isinstance(enum, list) else None,
            minimum=spec.get("minimum"),
            maximum=spec.get("maximum"),
            example=spec.get("example"),
            allow_leading_dash=bool(spec.get("allow_leading_dash", False)),
        )


def parameters_of(meta: Mapping[str, Any]) -> dict[str, Parameter]:
    raw = meta.get("parameters")
    if not isinstance(raw, Mapping):
        return {}
    return {n: Parameter.from_meta(n, s) for n, s in raw.items() if isinstance(s, Mapping)}


@dataclass(frozen=True)
class SummaryField:
    name: str
    description: str
    json_path: str | None
    regex: str | None
    select: str


@dataclass(frozen=True)
class Action:
    page: Page
    execution_mode: str
    requires_approval: bool
    verified: bool
    parameters: Mapping[str, Parameter]
    command: tuple[str, ...]
    output: str
    timeout_s: int
    summary_fields: tuple[SummaryField, ...]
    prompt: str
    instructions: str
    changes: str
    undo: str

    @property
    def id(self) -> str:
        return self.page.id

    @staticmethod
    def from_page(page: Page) -> Action:
        m = page.meta
        fields = tuple(
            SummaryField(
                name=str(f.get("name", "")),
                description=str(f.get("description", "")),
                json_path=f.get("json_path"),
                regex=f.get("regex"),
                select=str(f.get("select", "all")),
            )
            for f in (m.get("summary_fields") or ())
            if isinstance(f, Mapping)
        )
        return Action(
            page=page,
            execution_mode=str(m.get("execution_mode", "command")),
            requires_approval=bool(m.get("requires_approval", True)),
            verified=bool(m.get("verified", False)),
            parameters=parameters_of(m),
            command=tuple(str(a) for a in (m.get("command") or ())),
            output=str(m.get("output", "text")),
            timeout_s=int(m.get("timeout_s", DEFAULT_TIMEOUT_S)),
            summary_fields=fields,
            prompt=str(m.get("prompt", "")),
            instructions=str(m.get("instructions", "")),
            changes=str(m.get("changes", "")),
            undo=str(m.get("undo", "")),
        )


DEFAULT_TIMEOUT_S = 120


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: Scalar | None


@dataclass(frozen=True)
class Branch:
    when: Condition
    goto: str
    label: str


@dataclass(frozen=True)
class Step:
    id: str
    action: str
    title: str
    why: str
    with_: Mapping[str, Scalar]
    branches: tuple[Branch, ...]
    next: str | None
    index: int


@dataclass(frozen=True)
class Workflow:
    page: Page
    parameters: Mapping[str, Parameter]
    steps: tuple[Step, ...]

    @property
    def id(self) -> str:
        return self.page.id

    def step(self, step_id: str) -> Step | None:
        return next((s for s in self.steps if s.id == step_id), None)

    @staticmethod
    def from_page(page: Page) -> Workflow:
        steps = []
        for i, s in enumerate(page.meta.get("steps") or ()):
            if not isinstance(s, Mapping):
                continue
            branches = tuple(
                Branch(
                    when=Condition(
                        field=str(b.get("when", {}).get("field", "")),
                        op=str(b.get("when", {}).get("op", "")),
                        value=b.get("when", {}).get("value"),
                    ),
                    goto=str(b.get("goto", "")),
                    label=str(b.get("label", "")),
                )
                for b in (s.get("branches") or ())
                if isinstance(b, Mapping) and isinstance(b.get("when", {}), Mapping)
            )
            steps.append(
                Step(
                    id=str(s.get("id", f"step-{i + 1}")),
                    action=str(s.get("action", "")),
                    title=str(s.get("title", "")),
                    why=str(s.get("why", "")),
                    with_=dict(s.get("with") or {}),
                    branches=branches,
                    next=s.get("next"),
                    index=i,
                )
            )
        return Workflow(page=page, parameters=parameters_of(page.meta), steps=tuple(steps))


@dataclass(frozen=True)
class ResolvedLink:
    source: str
    link: WikiLink
    target: str | None


@dataclass
class Wiki:
    """Everything the adapters need, built once by :func:`mlwiki.core.load`."""

    root: Path
    pages: dict[str, Page]
    actions: dict[str, Action]
    workflows: dict[str, Workflow]
    tags: dict[str, dict[str, str]]
    links: list[ResolvedLink]
    backlinks: dict[str, list[str]]
    diagnostics: list[Diagnostic]
    aliases: dict[str, list[str]]
    broken_ids: set[str] = field(default_factory=set)

    def by_type(self, kind: str) -> list[Page]:
        return [p for p in self.pages.values() if p.kind == kind]

    def resolve(self, name: str) -> tuple[str | None, list[str]]:
        """Resolve a link target: id first, then aliases (case-insensitive).

        Returns (page id or None, candidate ids when ambiguous).
        """
        if name in self.pages:
            return name, []
        hits = self.aliases.get(name.casefold(), [])
        if len(hits) == 1:
            return hits[0], []
        return None, sorted(hits)

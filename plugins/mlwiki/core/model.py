"""The typed model: one :class:`Page` per wiki file, plus a typed record per page type.

Built once by :mod:`mlwiki.core.loader`, which validates every page against its JSON Schema
*before* building any record: the record builders here (``from_data``) only ever see data that
passed its schema, and everything downstream (checks, renderers, the search index, the runner)
reads these records, never a raw mapping. A page that failed validation is still a
:class:`Page` (so links to it resolve and the site can show its errors) but carries its
diagnostics in ``errors`` and has no typed record.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from mlwiki.core.diagnostics import Diagnostic, Location
from mlwiki.core.markdown import Heading, WikiLink
from mlwiki.core.positions import PathKey, Positions, position_of

DOC_FILES = {"SCHEMA.md": "schema", "INDEX.md": "index", "LOG.md": "log", "TUTORIAL.md": "tutorial"}
DEFAULT_TIMEOUT_S = 120

Scalar = Union[str, int, bool]


@dataclass(frozen=True)
class Ref:
    """A reference to another page from outside the body (frontmatter list, step, cause)."""

    key: str  # the frontmatter key, for messages ("workflows", "steps", "causes")
    path: PathKey  # where it is written, for the diagnostic's line
    target: str
    want: tuple[str, ...] = ()  # page types it must point at; empty = any


@dataclass(frozen=True, eq=False)
class Page:
    """One wiki file. ``kind`` is a registered page type or ``doc`` for SCHEMA/INDEX/LOG/TUTORIAL."""

    id: str
    kind: str
    rel: str
    title: str
    summary: str
    body: str
    body_line: int
    headings: tuple[Heading, ...]
    links: tuple[WikiLink, ...]
    positions: Positions = field(repr=False)
    masked_body: str = field(repr=False, default="")
    is_json: bool = False
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    refs: tuple[Ref, ...] = ()
    declared_id: str | None = None
    declared_type: str | None = None
    # Non-empty when the file failed its schema (or could not be parsed): no typed record exists.
    errors: tuple[Diagnostic, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def anchors(self) -> frozenset[str]:
        return frozenset(h.anchor for h in self.headings)

    def loc(self, path: PathKey = ()) -> Location:
        line, col = position_of(self.positions, path)
        return Location(self.rel, line, col)


# --- symptom ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Signature:
    text: str
    kind: str
    where: str
    source: str
    index: int
    versions: str = ""
    shared_with: tuple[str, ...] = ()
    tell_apart: str = ""


@dataclass(frozen=True)
class Cause:
    cause: str
    likelihood: str
    tell: str
    next: str | None
    no_workflow: str
    index: int


@dataclass(frozen=True)
class Symptom:
    page: Page
    signatures: tuple[Signature, ...]
    causes: tuple[Cause, ...]
    workflows: tuple[str, ...]
    playbooks: tuple[str, ...]
    verify: tuple[str, ...]
    echo_of: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.page.id

    @staticmethod
    def from_data(page: Page, m: Mapping[str, Any]) -> Symptom:
        sigs = tuple(
            Signature(
                text=s["text"],
                kind=s["kind"],
                where=s["where"],
                source=s["source"],
                index=i,
                versions=s.get("versions", ""),
                shared_with=tuple(s.get("shared_with", ())),
                tell_apart=s.get("tell_apart", ""),
            )
            for i, s in enumerate(m["signatures"])
        )
        causes = tuple(
            Cause(
                cause=c["cause"],
                likelihood=c["likelihood"],
                tell=c.get("tell", ""),
                next=c.get("next"),
                no_workflow=c.get("no_workflow", ""),
                index=i,
            )
            for i, c in enumerate(m.get("causes", ()))
        )
        return Symptom(
            page=page,
            signatures=sigs,
            causes=causes,
            workflows=tuple(m.get("workflows", ())),
            playbooks=tuple(m.get("playbooks", ())),
            verify=tuple(m.get("verify", ())),
            echo_of=tuple(m.get("echo_of", ())),
        )

    def refs(self) -> Iterator[Ref]:
        for c in self.causes:
            if c.next is not None:
                yield Ref("causes", ("causes", c.index, "next"), c.next, ("action", "workflow"))
        for s in self.signatures:
            for i, other in enumerate(s.shared_with):
                yield Ref("shared_with", ("signatures", s.index, "shared_with", i), other, ("symptom",))


@dataclass(frozen=True)
class Playbook:
    page: Page
    workflows: tuple[str, ...]

    @staticmethod
    def from_data(page: Page, m: Mapping[str, Any]) -> Playbook:
        return Playbook(page=page, workflows=tuple(m.get("workflows", ())))


# --- action -----------------------------------------------------------------------------


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
    def from_data(name: str, spec: Mapping[str, Any]) -> Parameter:
        enum = spec.get("enum")
        return Parameter(
            name=name,
            type=spec["type"],
            description=spec["description"],
            required=spec.get("required", False),
            default=spec.get("default"),
            pattern=spec.get("pattern"),
            enum=tuple(enum) if enum is not None else None,
            minimum=spec.get("minimum"),
            maximum=spec.get("maximum"),
            example=spec.get("example"),
            allow_leading_dash=spec.get("allow_leading_dash", False),
        )


def parameters_from(m: Mapping[str, Any]) -> dict[str, Parameter]:
    return {n: Parameter.from_data(n, s) for n, s in m.get("parameters", {}).items()}


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
    def from_data(page: Page, m: Mapping[str, Any]) -> Action:
        fields = tuple(
            SummaryField(
                name=f["name"],
                description=f["description"],
                json_path=f.get("json_path"),
                regex=f.get("regex"),
                select=f.get("select", "all"),
            )
            for f in m["summary_fields"]
        )
        return Action(
            page=page,
            execution_mode=m["execution_mode"],
            requires_approval=m["requires_approval"],
            verified=m["verified"],
            parameters=parameters_from(m),
            command=tuple(m.get("command", ())),
            output=m.get("output", "text"),
            timeout_s=m.get("timeout_s", DEFAULT_TIMEOUT_S),
            summary_fields=fields,
            prompt=m.get("prompt", ""),
            instructions=m.get("instructions", ""),
            changes=m.get("changes", ""),
            undo=m.get("undo", ""),
        )

    def texts(self) -> list[tuple[PathKey, str]]:
        """(position path, text) of every string that may hold ``{placeholders}``."""
        out: list[tuple[PathKey, str]] = [(("command", i), a) for i, a in enumerate(self.command)]
        if self.prompt:
            out.append((("prompt",), self.prompt))
        if self.instructions:
            out.append((("instructions",), self.instructions))
        return out


# --- workflow ---------------------------------------------------------------------------


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
    def from_data(page: Page, m: Mapping[str, Any]) -> Workflow:
        steps = tuple(
            Step(
                id=s["id"],
                action=s["action"],
                title=s.get("title", ""),
                why=s.get("why", ""),
                with_=dict(s.get("with", {})),
                branches=tuple(
                    Branch(
                        when=Condition(field=b["when"]["field"], op=b["when"]["op"], value=b["when"].get("value")),
                        goto=b["goto"],
                        label=b.get("label", ""),
                    )
                    for b in s.get("branches", ())
                ),
                next=s.get("next"),
                index=i,
            )
            for i, s in enumerate(m["steps"])
        )
        return Workflow(page=page, parameters=parameters_from(m), steps=steps)

    def refs(self) -> Iterator[Ref]:
        for s in self.steps:
            yield Ref("steps", ("steps", s.index, "action"), s.action, ("action",))


# --- the whole wiki ---------------------------------------------------------------------


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
    records: dict[str, dict[str, Any]]  # page type -> id -> typed record (valid pages only)
    tags: dict[str, dict[str, str]]
    links: list[ResolvedLink]
    backlinks: dict[str, list[str]]
    diagnostics: list[Diagnostic]
    aliases: dict[str, list[str]]
    broken_ids: set[str] = field(default_factory=set)

    @property
    def actions(self) -> dict[str, Action]:
        return self.records.setdefault("action", {})

    @property
    def workflows(self) -> dict[str, Workflow]:
        return self.records.setdefault("workflow", {})

    @property
    def symptoms(self) -> dict[str, Symptom]:
        return self.records.setdefault("symptom", {})

    @property
    def playbooks(self) -> dict[str, Playbook]:
        return self.records.setdefault("playbook", {})

    def signatures(self, page_id: str) -> tuple[Signature, ...]:
        sym = self.symptoms.get(page_id)
        return sym.signatures if sym else ()

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

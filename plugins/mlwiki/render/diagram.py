"""Workflow step diagram as inline SVG, built at build time (no JavaScript, no Mermaid).

Workflow -> vertical boxes (one per step, each a link to its action page) joined by arrows;
branches and ``next`` jumps are drawn as labelled arcs in lanes on the right. An ordered list
fallback is rendered next to it for screen readers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

from mlwiki.core.approval import needs_approval
from mlwiki.core.model import Action, Step, Workflow
from mlwiki.render.html import esc

BOX_W = 440
BOX_H = 54
GAP = 30
TOP = 16
LEFT = 16
LANE = 18
MODE_LABEL = {"command": "command", "ai": "ai step", "manual": "manual step"}


LABEL_CHARS = 34
LABEL_W = 240
LINE_H = 12


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _jumps(wf: Workflow) -> list[tuple[int, int, str]]:
    """(from index, to index, label) for every non-sequential edge; ``to`` = len(steps) is End."""
    order = {s.id: s.index for s in wf.steps}
    end = len(wf.steps)
    out = []
    for s in wf.steps:
        for b in s.branches:
            target = end if b.goto == "end" else order.get(b.goto)
            if target is not None:
                label = (
                    b.label
                    or f"{b.when.field} {b.when.op.replace('_', ' ')} {'' if b.when.value is None else b.when.value}"
                )
                out.append((s.index, target, label.strip()))
        if s.next is not None:
            target = end if s.next == "end" else order.get(s.next)
            if target is not None and target != s.index + 1:
                out.append((s.index, target, "then"))
    return out


def render_diagram(wf: Workflow, actions: Mapping[str, Action], href_of: Mapping[str, str]) -> str:
    """The SVG markup. ``href_of`` maps action id -> relative URL of its page."""
    steps = wf.steps
    n = len(steps)
    jumps = _jumps(wf)
    has_end_jump = any(t == n for _, t, _ in jumps) or any(s.next == "end" for s in steps)
    rows = n + (1 if has_end_jump or n else 0)
    width = LEFT + BOX_W + LANE * (len(jumps) + 1) + LABEL_W
    height = TOP * 2 + rows * BOX_H + (rows - 1) * GAP
    y_of = [TOP + i * (BOX_H + GAP) for i in range(rows)]
    title = f"Step diagram of workflow {wf.id}"
    parts = [
        f'<svg class="mlw-diagram" role="img" aria-labelledby="mlw-dg-title" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">',
        f'<title id="mlw-dg-title">{esc(title)}</title>',
        '<defs><marker id="mlw-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="mlw-dg-head"/></marker></defs>',
    ]
    cx = LEFT + BOX_W // 2
    for i, step in enumerate(steps):
        falls_through = step.next is None or (step.next != "end" and _index(wf, step.next) == i + 1)
        if falls_through and i + 1 < rows:
            y1 = y_of[i] + BOX_H
            parts.append(
                f'<line class="mlw-dg-edge" x1="{cx}" y1="{y1}" x2="{cx}" y2="{y_of[i + 1] - 2}" marker-end="url(#mlw-arrow)"/>'
            )
    label_x = LEFT + BOX_W + LANE * (len(jumps) + 1) + 6
    free_y: dict[int, int] = {}
    for lane, (src, dst, label) in enumerate(jumps):
        x0 = LEFT + BOX_W
        xl = x0 + LANE * (lane + 1)
        y0 = y_of[src] + BOX_H // 2 - 8 + (lane % 3) * 8
        y1 = y_of[dst] + BOX_H // 2
        parts.append(
            f'<path class="mlw-dg-jump" d="M{x0},{y0} H{xl} V{y1} H{x0 + 2}" fill="none" marker-end="url(#mlw-arrow)"/>'
        )
        # The whole condition, wrapped, at the row where its arc leaves the step, joined to the
        # arc's corner by a dotted leader: each label sits on its own arrow.
        lines = textwrap.wrap(label, LABEL_CHARS) or [label]
        ly = max(y0, free_y.get(src, 0))
        free_y[src] = ly + LINE_H * len(lines) + 4
        parts.append(f'<line class="mlw-dg-leader" x1="{xl}" y1="{y0}" x2="{label_x - 2}" y2="{ly - 4}"/>')
        spans = "".join(
            f'<tspan x="{label_x}" dy="{0 if i == 0 else LINE_H}">{esc(line)}</tspan>' for i, line in enumerate(lines)
        )
        parts.append(f'<text class="mlw-dg-label" x="{label_x}" y="{ly}">{spans}</text>')
    for i, step in enumerate(steps):
        parts.append(_box(step, actions.get(step.action), href_of.get(step.action), y_of[i], i + 1))
    if rows > n:
        y = y_of[n]
        parts.append(
            f'<g class="mlw-dg-end"><rect x="{cx - 50}" y="{y + 8}" width="100" height="{BOX_H - 16}" rx="19"/>'
            f'<text x="{cx}" y="{y + BOX_H // 2 + 5}" text-anchor="middle">End</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _index(wf: Workflow, step_id: str) -> int:
    s = wf.step(step_id)
    return s.index if s else -1


def _box(step: Step, action: Action | None, href: str | None, y: int, number: int) -> str:
    mode = action.execution_mode if action else "command"
    approval = bool(action and needs_approval(action))
    cls = f"mlw-dg-step mlw-dg-{mode}" + (" mlw-dg-approval" if approval else "")
    title = step.title or (action.page.title if action else step.action)
    sub = (
        step.action
        + (" · needs approval" if approval else "")
        + (f" · {MODE_LABEL[mode]}" if mode != "command" else "")
    )
    inner = (
        f'<rect x="{LEFT}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="8"/>'
        f'<text class="mlw-dg-num" x="{LEFT + 14}" y="{y + 33}">{number}</text>'
        f'<text class="mlw-dg-title" x="{LEFT + 44}" y="{y + 23}">{esc(_clip(title, 52))}</text>'
        f'<text class="mlw-dg-sub" x="{LEFT + 44}" y="{y + 42}">{esc(_clip(sub, 60))}</text>'
        f"<title>{esc(title)}: {esc(step.action)}</title>"
    )
    if href:
        # xlink:href, not href: Material's instant navigation rewrites a[href] and SVG links'
        # href is read-only; browsers follow xlink:href the same way, with or without JS.
        return f'<a class="{cls}" xlink:href="{esc(href)}">{inner}</a>'
    return f'<g class="{cls}">{inner}</g>'


def render_fallback(wf: Workflow, actions: Mapping[str, Action], href_of: Mapping[str, str]) -> str:
    """Ordered-list version of the diagram, for screen readers and text browsers."""
    items = []
    for step in wf.steps:
        action = actions.get(step.action)
        title = step.title or (action.page.title if action else step.action)
        link = (
            f'<a href="{esc(href_of[step.action])}">{esc(step.action)}</a>'
            if step.action in href_of
            else esc(step.action)
        )
        extra = []
        for b in step.branches:
            extra.append(
                f"if {esc(b.when.field)} {esc(b.when.op.replace('_', ' '))}"
                + (f" {esc(b.when.value)}" if b.when.value is not None else "")
                + f", go to step {esc(b.goto)}"
            )
        if step.next:
            extra.append(f"then {'stop' if step.next == 'end' else 'go to step ' + esc(step.next)}")
        tail = f" ({'; '.join(extra)})" if extra else ""
        items.append(f"<li>{esc(title)}: {link}{tail}</li>")
    return '<ol class="mlw-dg-fallback">' + "".join(items) + "</ol>"

"""One renderer per page type (named in the core's type registry).

Each takes (page, typed record, site map, this page's source path) and returns the parts of the
page between its header and its sources: author Markdown (wrapped in :class:`Author`) and
generated, escaped HTML blocks.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

from mlwiki.core.approval import needs_approval
from mlwiki.core.commands import required_names, runner_command, runner_prefix
from mlwiki.core.model import Action, Cause, Page, Parameter, Symptom, Workflow
from mlwiki.render.diagram import render_diagram, render_fallback
from mlwiki.render.html import attrs, esc
from mlwiki.render.page import Author, SiteMap, author_markdown, id_links, pre, pre_text, rewrite_wikilinks, source_link


def render_markdown_page(page: Page, record: Any, site: SiteMap, here: str) -> list[str]:
    """Concepts, entities, tools, playbooks: the author's Markdown with wikilinks resolved."""
    body = rewrite_wikilinks(page, page.body, page.masked_body, page.body_line, site, here)
    return [Author(body.strip("\n") + "\n\n")]


def render_symptom(page: Page, record: Symptom, site: SiteMap, here: str) -> list[str]:
    return [symptom_block(record, site, here), *render_markdown_page(page, record, site, here)]


def render_action(page: Page, record: Action, site: SiteMap, here: str) -> list[str]:
    return [*_description(page, site, here), *action_body(record, site, here)]


def render_workflow(page: Page, record: Workflow, site: SiteMap, here: str) -> list[str]:
    return [*_description(page, site, here), workflow_body(record, site, here)]


def _description(page: Page, site: SiteMap, here: str) -> list[str]:
    return [Author(author_markdown(page.body, page, site, here) + "\n\n")] if page.body else []


def symptom_block(sym: Symptom, site: SiteMap, here: str) -> str:
    parts = []
    wfs, pbs, ver = sym.workflows, sym.playbooks, sym.verify
    if wfs or pbs or ver:
        rows = []
        if wfs:
            rows.append(f"<li><strong>Run:</strong> {id_links(wfs, site, here)}</li>")
        if ver:
            rows.append(f"<li><strong>Verify with:</strong> {id_links(ver, site, here)}</li>")
        if pbs:
            rows.append(f"<li><strong>Read:</strong> {id_links(pbs, site, here)}</li>")
        parts.append('<ul class="mlw-next">' + "".join(rows) + "</ul>\n\n")
    sigs = sym.signatures
    if sigs:
        parts.append("## Log signatures {#mlw-signatures}\n\n")
        items = []
        for s in sigs:
            src = source_link(s.source)
            items.append(
                f'<li class="mlw-sig" id="sig-{s.index + 1}"><pre class="mlw-sig-text"><code>{esc(s.text)}</code></pre>'
                f'<p class="mlw-sig-meta"><span class="mlw-sig-kind">{esc(s.kind)}</span> {esc(s.where)} · source: {src}</p></li>'
            )
        parts.append('<ul class="mlw-sigs">' + "".join(items) + "</ul>\n\n")
    causes = sym.causes
    if causes:
        parts.append("## Likely causes at a glance {#mlw-causes}\n\n")
        cause_rows = "".join(
            f"<tr><td>{esc(c.cause)}</td><td>{esc(c.likelihood)}</td><td>{esc(c.tell)}</td><td>{_next_step(c, site, here)}</td></tr>"
            for c in causes
        )
        parts.append(
            '<table class="mlw-causes"><thead><tr><th>Cause</th><th>Likelihood</th><th>How to tell</th><th>Next step</th></tr></thead>'
            f"<tbody>{cause_rows}</tbody></table>\n\n"
        )
    return "".join(parts)


def _next_step(c: Cause, site: SiteMap, here: str) -> str:
    if c.next is not None:
        return id_links([c.next], site, here)
    if c.no_workflow:
        return f'<span class="mlw-no-workflow">No workflow: {esc(c.no_workflow)}</span>'
    return ""


def _param_table(params: dict[str, object] | None, action: Action | Workflow) -> str:
    rows = []
    for name, p in action.parameters.items():
        req = "yes" if p.required and p.default is None else "no"
        rule = []
        if p.enum:
            rule.append("one of " + ", ".join(esc(json.dumps(e)) for e in p.enum))
        if p.pattern:
            rule.append(f"<code>{esc(p.pattern)}</code>")
        if p.minimum is not None or p.maximum is not None:
            rule.append(
                f"{esc(p.minimum if p.minimum is not None else '')}..{esc(p.maximum if p.maximum is not None else '')}"
            )
        if p.allow_leading_dash:
            rule.append("may start with -")
        default = "" if p.default is None else f"<code>{esc(json.dumps(p.default))}</code>"
        rows.append(
            f"<tr><td><code>{esc(name)}</code></td><td>{esc(p.type)}</td><td>{req}</td><td>{default}</td>"
            f"<td>{'<br>'.join(rule)}</td><td>{esc(p.description)}</td></tr>"
        )
    if not rows:
        return "<p>No parameters.</p>\n\n"
    return (
        '<table class="mlw-params"><thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Default</th>'
        f"<th>Rule</th><th>Description</th></tr></thead><tbody>{''.join(rows)}</tbody></table>\n\n"
    )


def _form(action: Action | Workflow) -> str:
    """Parameter form; mlwiki.js fills every command on the page and keeps values in the URL."""
    fields = []
    for name, p in action.parameters.items():
        required = p.required and p.default is None
        label = f"{name}{' *' if required else ''}"
        # The example is a hint, never a value: a half-filled form must not copy a believable command.
        hint = f"e.g. {p.example}" if p.example is not None else (f"default: {p.default}" if p.default is not None else None)
        if p.enum:
            options = "".join(f"<option {attrs(value=e)}>{esc(e)}</option>" for e in p.enum)
            blank = f'<option value="">{"(choose)" if required else "(default)"}</option>'
            control = f"<select {attrs(name=name, data_type=p.type, required='required' if required else None)}>{blank}{options}</select>"
        else:
            control = (
                f"<input {attrs(name=name, type='text', data_type=p.type, placeholder=hint, data_pattern=p.pattern, aria_describedby=f'mlw-d-{name}', required='required' if required else None, autocomplete='off', spellcheck='false')}>"
            )
        desc = f'<small class="mlw-field-desc" id="mlw-d-{esc(name)}">{esc(p.description)}</small>'
        error = f'<small class="mlw-field-error" data-mlw-error="{esc(name)}" hidden></small>'
        fields.append(f'<label class="mlw-field"><span>{esc(label)}</span>{control}{desc}{error}</label>')
    if not fields:
        return ""
    return (
        '<form class="mlw-form" data-mlw-form="1" action="#">'
        '<p class="mlw-form-help">Fill in your values (* required): every command on this page updates, and the URL keeps them '
        "so you can share the link. Until a field is filled, commands show it as a <code>&lt;name&gt;</code> hole; a dry run shows what is still missing.</p>"
        + "".join(fields)
        + (WINDOW_HELPER if {"start_time", "end_time"} <= set(action.parameters) else "")
        + "</form>\n\n"
    )


# Windows from the evidence (core/window.py; the runner's --evidence-time/--timeout/--margin).
# The inputs have no name: they are not parameters and never reach a command or the URL.
WINDOW_HELPER = (
    '<fieldset class="mlw-window" data-mlw-window="1"><legend>Window from the evidence</legend>'
    '<p class="mlw-form-help">An echo (a watchdog timeout, a barrier timeout) is printed when its timeout expires, so what '
    "it echoes happened at least that long before. Give the echo's time and the timeout it printed: start_time and "
    "end_time become echo &minus; timeout &minus; margin to echo + margin (the runner's <code>--evidence-time</code>, "
    "<code>--timeout</code>, <code>--margin</code>).</p>"
    '<label class="mlw-field"><span>echo time</span><input type="text" data-mlw-w="evidence" autocomplete="off" '
    'spellcheck="false" placeholder="e.g. 2026-05-20T08:00:00Z"></label>'
    '<label class="mlw-field"><span>timeout it printed</span><input type="text" data-mlw-w="timeout" autocomplete="off" '
    'spellcheck="false" placeholder="e.g. 600000ms or 30m"></label>'
    '<label class="mlw-field"><span>margin</span><input type="text" data-mlw-w="margin" autocomplete="off" '
    'spellcheck="false" placeholder="default 10m"></label>'
    '<button type="button" class="md-button" data-mlw-w="fill">Set start_time and end_time</button> '
    '<small class="mlw-window-msg" data-mlw-w="msg" role="status"></small></fieldset>'
)


def hole_values(params: Mapping[str, Parameter]) -> dict[str, object]:
    """What an unfilled form shows: a ``<name>`` hole for every required parameter."""
    return {n: f"<{n}>" for n in required_names(params)}


def _cmd_spec(prefix: str, spec: Mapping[str, object], suffix: str = "") -> str:
    """What mlwiki.js needs to rebuild a command from the form (holes for empty required fields)."""
    return json.dumps({"prefix": prefix, **spec, "suffix": suffix}, sort_keys=True)


def action_body(action: Action, site: SiteMap, here: str) -> list[str]:
    parts: list[str] = []
    mode_text = {
        "command": "runs a command",
        "ai": "an AI step: prints a prompt for an agent, runs nothing",
        "manual": "a manual step: prints instructions for a person",
    }[action.execution_mode]
    if needs_approval(action):
        parts.append(
            '<div class="admonition danger mlw-danger"><p class="admonition-title">Changes state: the runner refuses without --approve</p>'
            f"<p><strong>What it changes:</strong> {esc(action.changes)}</p><p><strong>How to undo:</strong> {esc(action.undo)}</p></div>\n\n"
        )
    if not action.verified:
        parts.append(
            '<div class="admonition warning mlw-unverified"><p class="admonition-title">Unverified command shape</p>'
            "<p>This command's exact shape could not be confirmed in a source. Run it with <code>--dry-run</code> first and check it against your tool's help.</p></div>\n\n"
        )
    parts.append(
        f'<p class="mlw-mode">Mode: <strong>{esc(action.execution_mode)}</strong> ({esc(mode_text)}) · timeout {esc(action.timeout_s)} s</p>\n\n'
    )
    parts.append("## Run it {#mlw-run}\n\n")
    parts.append(_form(action))
    holes = hole_values(action.parameters)
    types = {n: p.type for n, p in action.parameters.items()}
    prefix = runner_prefix("action", action.id)
    spec = {"params": list(action.parameters), "types": types, "required": required_names(action.parameters)}
    dry = runner_command("action", action.id, holes, extra=["--dry-run"])
    if needs_approval(action):
        parts.append("<p>First, preview the exact command; nothing runs:</p>\n\n")
        parts.append(pre(dry, "mlw-runner", _cmd_spec(prefix, spec, "--dry-run")))
        parts.append(
            '\n\n<details class="mlw-approve"><summary><span class="mlw-approve-box" aria-hidden="true"></span> '
            f"I have checked the dry run and want the command that changes state: {esc(action.changes)}</summary>"
            + pre(runner_command("action", action.id, holes, extra=["--approve"]), "mlw-runner mlw-approve-cmd", _cmd_spec(prefix, spec, "--approve"))
            + f'<p class="mlw-undo"><strong>Undo:</strong> {esc(action.undo)}</p></details>\n\n'
        )
    else:
        parts.append(pre(runner_command("action", action.id, holes), "mlw-runner", _cmd_spec(prefix, spec)))
        parts.append("\n\n<p>Preview the exact command without running anything:</p>\n\n")
        parts.append(pre(dry, "mlw-runner", _cmd_spec(prefix, spec, "--dry-run")))
    parts.append("\n\n## Parameters {#mlw-parameters}\n\n")
    parts.append(_param_table(None, action))
    if action.execution_mode == "command":
        parts.append(
            "## Command template {#mlw-command}\n\n<p>The runner fills each <code>{placeholder}</code> into one argument; no shell is involved.</p>\n\n"
        )
        parts.append(pre(" ".join(shlex.quote(a) if a != "" else "''" for a in action.command), "mlw-template"))
        parts.append(f'\n\n<p class="mlw-output">Output parsed as <strong>{esc(action.output)}</strong>.</p>\n\n')
    if action.execution_mode == "ai":
        parts.append("## Prompt {#mlw-prompt}\n\n")
        parts.append(f'<div class="mlw-prompt"><pre><code>{pre_text(action.prompt)}</code></pre></div>\n\n')
    if action.execution_mode == "manual":
        parts.append("## Instructions {#mlw-instructions}\n\n")
        parts.append(Author(author_markdown(action.instructions, action.page, site, here) + "\n\n"))
    if action.summary_fields:
        parts.append("## Summary fields {#mlw-summary-fields}\n\n")
        rows = "".join(
            f"<tr><td><code>{esc(f.name)}</code></td><td>{'<code>' + esc(f.json_path) + '</code>' if f.json_path else ''}"
            f"{'<br>' if f.json_path and f.regex else ''}{'<code>' + esc(f.regex) + '</code>' if f.regex else ''}</td>"
            f"<td>{esc(f.select)}</td><td>{esc(f.description)}</td></tr>"
            for f in action.summary_fields
        )
        parts.append(
            '<table class="mlw-fields"><thead><tr><th>Field</th><th>Extracted by</th><th>Select</th><th>Meaning</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>\n\n"
        )
    return parts


def workflow_body(wf: Workflow, site: SiteMap, here: str) -> str:
    wiki = site.wiki
    href_of = {s.action: site.href(here, s.action) for s in wf.steps if s.action in wiki.pages}
    samples = hole_values(wf.parameters)
    types = {n: p.type for n, p in wf.parameters.items()}
    prefix = runner_prefix("workflow", wf.id)
    spec = {"params": list(wf.parameters), "types": types, "required": required_names(wf.parameters)}
    parts = ["## Run it {#mlw-run}\n\n", _form(wf)]
    parts.append("<p>First, preview every step's exact command; nothing runs:</p>\n\n")
    parts.append(pre(runner_command("workflow", wf.id, samples, extra=["--dry-run"]), "mlw-runner", _cmd_spec(prefix, spec, "--dry-run")))
    parts.append("\n\n<p>Then run it. Steps that change state stop and print the command to approve them:</p>\n\n")
    parts.append(pre(runner_command("workflow", wf.id, samples), "mlw-runner", _cmd_spec(prefix, spec)))
    parts.append("\n\n## Steps {#mlw-steps}\n\n")
    parts.append('<figure class="mlw-figure">' + render_diagram(wf, wiki.actions, href_of) + "</figure>\n\n")
    parts.append('<div class="mlw-sr-only mlw-steps-list">' + render_fallback(wf, wiki.actions, href_of) + "</div>\n\n")
    rows = []
    for step in wf.steps:
        action = wiki.actions.get(step.action)
        mode = action.execution_mode if action else "?"
        flags = []
        if action and needs_approval(action):
            flags.append('<span class="mlw-flag mlw-flag-danger">needs --approve</span>')
        if action and not action.verified:
            flags.append('<span class="mlw-flag">unverified</span>')
        mapping = "<br>".join(f"<code>{esc(k)}</code> ← <code>{esc(v)}</code>" for k, v in step.with_.items())
        link = (
            f'<a href="{esc(href_of[step.action])}">{esc(step.action)}</a>'
            if step.action in href_of
            else esc(step.action)
        )
        resume = runner_command("workflow", wf.id, samples, from_step=step.id) if step.index > 0 else ""
        resume_html = (
            pre(
                resume,
                "mlw-runner mlw-resume",
                _cmd_spec(prefix, spec, f"--from {step.id}"),
            )
            if resume
            else ""
        )
        why = f'<p class="mlw-why">{esc(step.why)}</p>' if step.why else ""
        conds = [
            f"<li>if <code>{esc(b.when.field)}</code> {esc(b.when.op.replace('_', ' '))}"
            + ("" if b.when.value is None else f" <code>{esc(b.when.value)}</code>")
            + f" → {esc('End' if b.goto == 'end' else b.goto)}"
            + (f" ({esc(b.label)})" if b.label else "")
            + "</li>"
            for b in step.branches
        ]
        if step.next is not None:
            conds.append(f"<li>then → {esc('End' if step.next == 'end' else step.next)}</li>")
        if conds:
            why += '<ul class="mlw-branches">' + "".join(conds) + '</ul>'
        rows.append(
            f'<tr id="step-{esc(step.id)}"><td>{step.index + 1}</td><td><strong>{esc(step.title or step.id)}</strong>{why}'
            f"{resume_html}</td><td>{link}<br>{esc(mode)} {' '.join(flags)}</td><td>{mapping}</td></tr>"
        )
    parts.append(
        '<table class="mlw-steps"><thead><tr><th>#</th><th>Step</th><th>Action</th><th>Parameters</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>\n\n"
    )
    parts.append("## Parameters {#mlw-parameters}\n\n")
    parts.append(_param_table(None, wf))
    return "".join(parts)



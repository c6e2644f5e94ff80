"""Markdown for every generated site page: wiki pages, per-type and per-tag indexes, signatures.

Page record + SiteMap -> Markdown text (author Markdown with wikilinks rewritten to relative
``.md`` links, so MkDocs validates them; generated parts as escaped HTML blocks).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

from mlwiki.core.model import FOLDERS, TYPE_ORDER, TYPE_TITLES, Action, Page, Wiki, Workflow
from mlwiki.render.commands import action_command, sample_values, workflow_command
from mlwiki.render.diagram import render_diagram, render_fallback
from mlwiki.render.html import attrs, esc
from mlwiki.render.urls import relative_src, relative_url, src_uri

TYPE_BLURBS = {
    "symptom": "What you see: each page carries the verbatim log lines, events and conditions, and links the workflow that diagnoses it.",
    "playbook": "Narrative reasoning for when the picture is unclear: what evidence to freeze first and which hypotheses to rule out.",
    "workflow": "Ordered diagnostic steps you can run with the glue runner, with a step diagram and commands to copy.",
    "action": "Atomic diagnostic steps: one command, prompt or instruction each, with typed parameters.",
    "concept": "The ideas you need to reason about a failure.",
    "entity": "Chips, products, libraries and components, and how each one fails.",
    "tool": "Command-line tools, APIs and query languages used to diagnose, with exact syntax.",
}


@dataclass(frozen=True)
class SiteMap:
    """Where everything is published, so renderers can link without knowing MkDocs."""

    wiki: Wiki

    def src(self, page_id: str) -> str:
        return src_uri(self.wiki.pages[page_id])

    def href(self, from_src: str, page_id: str, anchor: str = "") -> str:
        return relative_url(from_src, self.src(page_id), anchor)


def tag_src(tag: str) -> str:
    return f"tags/{tag}.md"


def type_src(kind: str) -> str:
    return f"{FOLDERS[kind]}/index.md"


def frontmatter(title: str, description: str) -> str:
    """Page metadata for the theme. The theme prints ``title`` and ``description`` unescaped into
    HTML (Jinja autoescape is off in MkDocs), so they are HTML-escaped here; JSON strings are
    valid YAML scalars, so no title can break the frontmatter."""
    return f"---\ntitle: {json.dumps(esc(title))}\ndescription: {json.dumps(esc(description))}\n---\n\n"


def rewrite_wikilinks(page: Page, text: str, masked: str, offset_line: int, site: SiteMap, here: str) -> str:
    """Replace each wikilink outside code by a relative Markdown link (MkDocs then validates it)."""
    from mlwiki.core.markdown import find_wikilinks

    out = []
    pos = 0
    for link in find_wikilinks(masked, offset_line):
        target, _ = site.wiki.resolve(link.target)
        out.append(text[pos : link.start])
        if target is None:
            label = link.label or link.target
            out.append(f'<span class="mlw-broken">{esc(label)}</span>')
        else:
            tpage = site.wiki.pages[target]
            label = link.label or tpage.title
            label = label.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
            dest = relative_src(here, site.src(target)) + (f"#{link.anchor}" if link.anchor else "")
            out.append(f"[{esc(label)}]({dest})")
        pos = link.end
    out.append(text[pos:])
    return "".join(out)


def meta_block(page: Page, site: SiteMap, here: str) -> str:
    kind = page.kind
    type_link = (
        f'<a class="mlw-badge mlw-type-{esc(kind)}" href="{esc(relative_url(here, type_src(kind)))}">{esc(kind)}</a>'
    )
    tags = " ".join(f'<a class="mlw-tag" href="{esc(relative_url(here, tag_src(t)))}">{esc(t)}</a>' for t in page.tags)
    plats = ""
    if page.platforms:
        plats = '<span class="mlw-platforms">on ' + ", ".join(esc(p) for p in page.platforms) + "</span>"
    aliases = ""
    if page.aliases:
        aliases = (
            '<p class="mlw-aliases">Also known as: ' + ", ".join(f"<em>{esc(a)}</em>" for a in page.aliases) + "</p>"
        )
    return (
        f'<div class="mlw-meta"><p class="mlw-chips">{type_link} {tags} {plats}</p>'
        f'<p class="mlw-summary">{esc(page.summary)}</p>{aliases}</div>\n\n'
    )


def _id_links(ids: list[str] | tuple[str, ...], site: SiteMap, here: str) -> str:
    items = []
    for i in ids:
        if i in site.wiki.pages:
            p = site.wiki.pages[i]
            items.append(f'<a href="{esc(site.href(here, i))}">{esc(p.title)}</a>')
        else:
            items.append(f'<span class="mlw-broken">{esc(i)}</span>')
    return ", ".join(items)


def symptom_block(page: Page, site: SiteMap, here: str) -> str:
    parts = []
    wfs = page.meta.get("workflows") or []
    pbs = page.meta.get("playbooks") or []
    ver = page.meta.get("verify") or []
    if wfs or pbs or ver:
        rows = []
        if wfs:
            rows.append(f"<li><strong>Run:</strong> {_id_links(wfs, site, here)}</li>")
        if ver:
            rows.append(f"<li><strong>Verify with:</strong> {_id_links(ver, site, here)}</li>")
        if pbs:
            rows.append(f"<li><strong>Read:</strong> {_id_links(pbs, site, here)}</li>")
        parts.append('<ul class="mlw-next">' + "".join(rows) + "</ul>\n\n")
    sigs = page.signatures
    if sigs:
        parts.append("## Log signatures {#mlw-signatures}\n\n")
        items = []
        for s in sigs:
            src = _source_link(s.source)
            items.append(
                f'<li class="mlw-sig" id="sig-{s.index + 1}"><pre class="mlw-sig-text"><code>{esc(s.text)}</code></pre>'
                f'<p class="mlw-sig-meta"><span class="mlw-sig-kind">{esc(s.kind)}</span> {esc(s.where)} · source: {src}</p></li>'
            )
        parts.append('<ul class="mlw-sigs">' + "".join(items) + "</ul>\n\n")
    causes = page.meta.get("causes") or []
    if causes:
        parts.append("## Likely causes at a glance {#mlw-causes}\n\n")
        cause_rows = "".join(
            f"<tr><td>{esc(c.get('cause', ''))}</td><td>{esc(c.get('likelihood', ''))}</td><td>{esc(c.get('tell', ''))}</td></tr>"
            for c in causes
            if isinstance(c, dict)
        )
        parts.append(
            '<table class="mlw-causes"><thead><tr><th>Cause</th><th>Likelihood</th><th>How to tell</th></tr></thead>'
            f"<tbody>{cause_rows}</tbody></table>\n\n"
        )
    return "".join(parts)


def _source_link(source: str) -> str:
    """A source is a URL (shown as text, not fetched: the site makes no outside request on load)."""
    if source.startswith("https://") or source.startswith("http://"):
        return f'<a class="mlw-ext" href="{esc(source)}" rel="noopener noreferrer">{esc(source)}</a>'
    return f"<code>{esc(source)}</code>"


def sources_block(page: Page) -> str:
    if not page.sources:
        return ""
    items = "".join(f"<li>{_source_link(s)}</li>" for s in page.sources)
    return f'## Sources {{#mlw-sources}}\n\n<ul class="mlw-sources">{items}</ul>\n\n'


def backlinks_block(page: Page, site: SiteMap, here: str) -> str:
    refs = site.wiki.backlinks.get(page.id, [])
    if not refs:
        return ""
    by_type: dict[str, list[Page]] = {}
    for r in refs:
        p = site.wiki.pages[r]
        by_type.setdefault(p.kind, []).append(p)
    groups = []
    for kind in sorted(by_type, key=lambda k: TYPE_ORDER.get(k, 99)):
        title = TYPE_TITLES.get(kind, "Documents")
        links = "".join(
            f'<li><a href="{esc(site.href(here, p.id))}">{esc(p.title)}</a></li>'
            for p in sorted(by_type[kind], key=lambda p: p.title)
        )
        groups.append(f'<div class="mlw-bl-group"><h3>{esc(title)}</h3><ul>{links}</ul></div>')
    return '## Referenced by {#mlw-backlinks}\n\n<div class="mlw-backlinks">' + "".join(groups) + "</div>\n\n"


def _pre(text: str, cls: str = "", data: str | None = None) -> str:
    data_attr = f" {attrs(data_mlw_cmd=data)}" if data else ""
    return f'<div class="highlight mlw-cmd {cls}"><pre><code{data_attr}>{_pre_text(text)}</code></pre></div>'


def _pre_text(text: str) -> str:
    """Escaped text for a <pre>, newlines as character references so the block is one paragraph."""
    return esc(text).replace("\n", "&#10;")


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
    samples = sample_values(action.parameters)
    for name, p in action.parameters.items():
        value = samples.get(name)
        label = f"{name}{' *' if p.required and p.default is None else ''}"
        placeholder = None if p.default is None else f"default {p.default}"
        if p.enum:
            options = "".join(
                f"<option {attrs(value=e, selected='selected' if e == value else None)}>{esc(e)}</option>"
                for e in p.enum
            )
            blank = "" if value is not None else '<option value="">(default)</option>'
            control = f"<select {attrs(name=name, data_type=p.type)}>{blank}{options}</select>"
        else:
            control = f"<input {attrs(name=name, type='text', data_type=p.type, value=value, placeholder=placeholder, title=p.description, autocomplete='off', spellcheck='false')}>"
        fields.append(f'<label class="mlw-field"><span>{esc(label)}</span>{control}</label>')
    if not fields:
        return ""
    return (
        '<form class="mlw-form" data-mlw-form="1" action="#">'
        '<p class="mlw-form-help">Fill in your values: every command on this page updates, and the URL keeps them so you can share the link.</p>'
        + "".join(fields)
        + "</form>\n\n"
    )


def _cmd_spec(
    prefix: str,
    names: list[str],
    types: dict[str, str],
    suffix: str = "",
    base: dict[str, object] | None = None,
) -> str:
    return json.dumps(
        {"prefix": prefix, "params": names, "types": types, "suffix": suffix, "base": base or {}},
        sort_keys=True,
    )


def action_body(action: Action, site: SiteMap, here: str) -> list[str]:
    parts: list[str] = []
    mode_text = {
        "command": "runs a command",
        "ai": "an AI step: prints a prompt for an agent, runs nothing",
        "manual": "a manual step: prints instructions for a person",
    }[action.execution_mode]
    if action.requires_approval:
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
    samples = sample_values(action.parameters)
    types = {n: p.type for n, p in action.parameters.items()}
    prefix = f"python3 scripts/python_glue_runner.py {action.id}"
    suffix = "--approve" if action.requires_approval else ""
    parts.append(
        _pre(
            action_command(action, samples, suffix),
            "mlw-runner",
            _cmd_spec(prefix, list(action.parameters), types, suffix),
        )
    )
    parts.append("\n\n")
    dry = action_command(action, samples, "--dry-run")
    parts.append("<p>Preview the exact command without running anything:</p>\n\n")
    parts.append(_pre(dry, "mlw-runner", _cmd_spec(prefix, list(action.parameters), types, "--dry-run")))
    parts.append("\n\n## Parameters {#mlw-parameters}\n\n")
    parts.append(_param_table(None, action))
    if action.execution_mode == "command":
        parts.append(
            "## Command template {#mlw-command}\n\n<p>The runner fills each <code>{placeholder}</code> into one argument; no shell is involved.</p>\n\n"
        )
        parts.append(_pre(" ".join(shlex.quote(a) if a != "" else "''" for a in action.command), "mlw-template"))
        parts.append(f'\n\n<p class="mlw-output">Output parsed as <strong>{esc(action.output)}</strong>.</p>\n\n')
    if action.execution_mode == "ai":
        parts.append("## Prompt {#mlw-prompt}\n\n")
        parts.append(f'<div class="mlw-prompt"><pre><code>{_pre_text(action.prompt)}</code></pre></div>\n\n')
    if action.execution_mode == "manual":
        parts.append("## Instructions {#mlw-instructions}\n\n")
        parts.append(Author(_markdown(action.instructions, action.page, site, here) + "\n\n"))
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
    samples = sample_values(wf.parameters)
    types = {n: p.type for n, p in wf.parameters.items()}
    prefix = f"python3 scripts/python_glue_runner.py --workflow {wf.id}"
    parts = ["## Run it {#mlw-run}\n\n", _form(wf)]
    parts.append(_pre(workflow_command(wf, samples), "mlw-runner", _cmd_spec(prefix, list(wf.parameters), types)))
    parts.append("\n\n<p>Preview every step's exact command first:</p>\n\n")
    parts.append(
        _pre(
            workflow_command(wf, samples) + " --dry-run",
            "mlw-runner",
            _cmd_spec(prefix, list(wf.parameters), types, "--dry-run"),
        )
    )
    parts.append("\n\n## Steps {#mlw-steps}\n\n")
    parts.append('<figure class="mlw-figure">' + render_diagram(wf, wiki.actions, href_of) + "</figure>\n\n")
    parts.append('<div class="mlw-sr-only">' + render_fallback(wf, wiki.actions, href_of) + "</div>\n\n")
    rows = []
    for step in wf.steps:
        action = wiki.actions.get(step.action)
        mode = action.execution_mode if action else "?"
        flags = []
        if action and action.requires_approval:
            flags.append('<span class="mlw-flag mlw-flag-danger">needs --approve</span>')
        if action and not action.verified:
            flags.append('<span class="mlw-flag">unverified</span>')
        mapping = "<br>".join(f"<code>{esc(k)}</code> ← <code>{esc(v)}</code>" for k, v in step.with_.items())
        link = (
            f'<a href="{esc(href_of[step.action])}">{esc(step.action)}</a>'
            if step.action in href_of
            else esc(step.action)
        )
        resume = workflow_command(wf, samples, step.id) if step.index > 0 else ""
        resume_html = (
            _pre(
                resume,
                "mlw-runner mlw-resume",
                _cmd_spec(prefix, list(wf.parameters), types, f"--from {step.id}"),
            )
            if resume
            else ""
        )
        why = f'<p class="mlw-why">{esc(step.why)}</p>' if step.why else ""
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


def _markdown(text: str, page: Page, site: SiteMap, here: str, line: int = 1) -> str:
    from mlwiki.core.markdown import mask_code

    return rewrite_wikilinks(page, text, mask_code(text), line, site, here)


class Author(str):
    """A part of a page written by an author (Markdown that must go through Markdown)."""


BLOCK_START = re.compile(r"<(?:div|ul|ol|table|p|figure|form|pre|section|svg)\b")


@dataclass
class Rendered:
    """A page's Markdown with generated HTML blocks replaced by ``<!--mlw-frag-N-->`` comments.

    Python-Markdown passes those comments through untouched and the plugin puts the HTML back
    after conversion: the generated HTML (already escaped) skips Markdown's slow raw-HTML parser.
    """

    markdown: str
    fragments: dict[str, str]

    def inline(self) -> str:
        text = self.markdown
        for key, html_text in self.fragments.items():
            text = text.replace(f"<!--{key}-->", html_text)
        return text


def assemble(parts: list[str]) -> Rendered:
    fragments: dict[str, str] = {}
    out = []
    for part in parts:
        if isinstance(part, Author):
            out.append(str(part))
            continue
        lines = part.split("\n")
        for i, line in enumerate(lines):
            # Generated HTML blocks are always one line; each becomes a comment standing alone
            # between blank lines, so Markdown around it (a heading on the next line) stays Markdown.
            if BLOCK_START.match(line):
                key = f"mlw-frag-{len(fragments)}"
                fragments[key] = line
                lines[i] = f"\n<!--{key}-->\n"
        out.append("\n".join(lines))
    return Rendered("".join(out).rstrip("\n") + "\n", fragments)


def page_source(page: Page, site: SiteMap) -> Rendered:
    """The site page for one wiki file: Markdown plus the generated HTML fragments."""
    here = src_uri(page)
    if page.kind == "doc":
        body = rewrite_wikilinks(page, page.body, page.masked_body, page.body_line, site, here)
        return assemble([frontmatter(page.title, page.summary or page.title), Author(body.rstrip("\n") + "\n")])
    out: list[str] = [frontmatter(page.title, page.summary), f"# {esc(page.title)}\n\n", meta_block(page, site, here)]
    if page.kind == "symptom":
        out.append(symptom_block(page, site, here))
    if page.is_json:
        if page.body:
            out.append(Author(_markdown(page.body, page, site, here) + "\n\n"))
        if page.kind == "action":
            out.extend(action_body(wiki_action(site, page), site, here))
        else:
            out.append(workflow_body(site.wiki.workflows[page.id], site, here))
    else:
        body = rewrite_wikilinks(page, page.body, page.masked_body, page.body_line, site, here)
        out.append(Author(body.strip("\n") + "\n\n"))
    out.append(sources_block(page))
    out.append(backlinks_block(page, site, here))
    return assemble(out)


def page_markdown(page: Page, site: SiteMap) -> str:
    """The full Markdown source of one wiki page, with the generated HTML inline."""
    return page_source(page, site).inline()


def wiki_action(site: SiteMap, page: Page) -> Action:
    return site.wiki.actions[page.id]

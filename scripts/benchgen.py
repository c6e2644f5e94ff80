"""Generate a synthetic but valid wiki of N pages for benchmarks (deterministic for a seed).

The pages are made from the shipped wiki's own text so that term frequencies look like a real
wiki's, not like a 40-word vocabulary:

- each generated Markdown page of kind K (symptom, concept, playbook, tool, entity, in the
  shipped wiki's proportions) starts from a shipped page of kind K (a seeded rotation) and keeps
  its intro and sections, some replaced by sections of one or two other shipped pages of that
  kind, with a few of their prose paragraphs mixed in;
- a fraction of the identifier-like tokens (words with ``_ . : / -``, camelCase or digits) is
  renamed per page (a part replaced by a made-up word, digits varied), so the vocabulary keeps
  growing as the wiki does, the way real wikis keep adding product names, flags and error codes;
  ordinary English words are kept;
- symptoms carry 2-5 signatures derived from shipped ones (unique across pages), ``kind: log``
  and the source https://example.org/synthetic; every URL in the copied text points there too,
  so nothing generated looks like a real citation;
- every wikilink in the copied text is mapped to a generated page (or dropped to plain words),
  every page links its neighbours (nothing is orphaned), and a few actions and workflows are
  added, so the result lints clean.
"""

from __future__ import annotations

import functools
import json
import random
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Union

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "wiki"
SYNTHETIC = "https://example.org/synthetic"

# The one parameter every synthetic action and workflow takes.
PARAMS = {
    "namespace": {
        "type": "string",
        "description": "Namespace.",
        "required": True,
        "pattern": "^[a-z0-9-]+$",
        "example": "default",
    }
}
KINDS = ("symptom", "concept", "playbook", "tool", "entity")
FOLDERS = {
    "symptom": "symptoms",
    "concept": "concepts",
    "playbook": "playbooks",
    "tool": "tools",
    "entity": "entities",
}

RENAME = 0.35  # share of a page's distinct identifiers given a per-page variant
REPLACE_SECTION = 0.3  # chance a section of the base page is swapped for a donor's
EXTRA_SECTION = 0.15  # chance a donor section is inserted after a section
EXTRA_PARAGRAPH = 0.2  # chance a donor paragraph is appended to a section

# Made-up words: consonant-vowel syllables, at least two per word.
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]

WORD = "0-9A-Za-z\u00c0-\u1fff\u2c00-\ud7ff"  # as mlwiki.core.search.tokenize
RAW = f"[{WORD}]+(?:[_.:/\\-][{WORD}]+)*"
SCAN = re.compile(
    r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]"  # wikilink (as mlwiki.core.markdown)
    r"|(https?://[^\s)\]>`\"'|]+)"  # URL
    f"|({RAW})"  # word
)
URL_PATH = re.compile(r"https?://[^/]+(.*)", re.S)
PARTS = re.compile(r"([_.:/\-])")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
DIGITS = re.compile(r"[0-9]+")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
CLAUSE = re.compile(r"(?<=[;,])\s+")
INNER_CAPS = re.compile(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]")


@dataclass(frozen=True)
class Ident:
    """An identifier-like token of shipped text, renamed per page."""

    token: str


@dataclass(frozen=True)
class Link:
    """A wikilink of shipped text: the page it resolves to ("" if none), its label ("" if none),
    and the plain words that replace it when no generated page stands in for that page."""

    target: str
    label: str
    words: str


# A template is shipped text cut into literal text, identifiers and links: cut once, rendered
# for every generated page made from it.
Item = Union[str, Ident, Link]
Template = tuple[Item, ...]


def pseudo(k: int) -> str:
    """The k-th made-up word (distinct for distinct k)."""
    k += len(SYLLABLES)
    out = []
    while k:
        k, r = divmod(k, len(SYLLABLES))
        out.append(SYLLABLES[r])
    return "".join(out)


def is_identifier(tok: str) -> bool:
    """Identifier-like: digits (not a lone digit), joiners (not an English compound or 'e.g'), camelCase."""
    if tok.isdigit():
        return len(tok) > 1
    if any(c.isdigit() for c in tok):
        return True
    parts = PARTS.split(tok)[::2]
    if len(parts) > 1:
        if all(len(p) <= 1 for p in parts):
            return False
        return not (len(parts) == 2 and "-" in tok and tok.replace("-", "").isalpha() and tok.islower())
    return INNER_CAPS.search(tok) is not None


def template(text: str, resolve: dict[str, str]) -> Template:
    out: list[Item] = []
    lit: list[str] = []
    pos = 0
    for m in SCAN.finditer(text):
        target, _anchor, label, url, word = m.groups()
        if word is not None and not is_identifier(word):
            continue
        lit.append(text[pos : m.start()])
        pos = m.end()
        if url is not None:
            path = URL_PATH.match(url)
            lit.append(SYNTHETIC + (path.group(1) if path else ""))
            continue
        if lit:
            out.append("".join(lit))
            lit = []
        if word is not None:
            out.append(Ident(word))
        else:
            target = target.strip()
            label = (label or "").strip()
            out.append(Link(resolve.get(target, ""), label, label or target.replace("-", " ")))
    lit.append(text[pos:])
    out.append("".join(lit))
    return tuple(x for x in out if x != "")


@dataclass(frozen=True)
class Source:
    """One shipped page, cut into templates."""

    id: str
    kind: str
    title: Template
    summary: Template
    tags: tuple[str, ...]
    platforms: tuple[str, ...]
    aliases: tuple[Template, ...]
    related: tuple[str, ...]
    intro: Template
    sections: tuple[Template, ...]
    paragraphs: tuple[Template, ...]
    signatures: tuple[tuple[Template, Template], ...]  # (text, where)


@dataclass(frozen=True)
class Material:
    by_kind: dict[str, tuple[Source, ...]]
    actions: tuple[str, ...]
    workflows: tuple[str, ...]


def split_body(body: str) -> tuple[str, list[str], list[str]]:
    """(intro, level-2 sections, prose paragraphs) of a Markdown body, never cutting a code fence."""
    chunks: list[list[str]] = [[]]
    paragraphs: list[str] = []
    para: list[str] = []
    fence: str | None = None

    def end_para() -> None:
        text = "\n".join(para).strip()
        if len(text) >= 80 and text[0].isalpha() and "|" not in text and "```" not in text:
            paragraphs.append(text)
        para.clear()

    for line in body.split("\n"):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            para.append(line)
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end() :].strip():
                fence = None
            para.append(line)
        elif line.startswith("## "):
            end_para()
            chunks.append([])
        elif not line.strip():
            end_para()
        else:
            para.append(line)
        chunks[-1].append(line)
    end_para()
    texts = ["\n".join(c).strip("\n") for c in chunks]
    return texts[0], [t for t in texts[1:] if t], paragraphs


@functools.lru_cache(maxsize=2)
def material(shipped: Path = SHIPPED) -> Material:
    """The shipped wiki's pages cut into templates (loaded once per process)."""
    sys.path.insert(0, str(ROOT / "plugins"))
    from mlwiki.core import load

    wiki = load(shipped)
    resolve: dict[str, str] = {}
    for rl in wiki.links:
        if rl.target is not None:
            resolve[rl.link.target.strip()] = rl.target
    for pid in wiki.pages:
        resolve[pid] = pid
    by_kind: dict[str, list[Source]] = {k: [] for k in KINDS}
    for pid in sorted(wiki.pages):
        page = wiki.pages[pid]
        if page.kind not in by_kind or not page.valid:
            continue
        intro, sections, paragraphs = split_body(page.body)
        sym = wiki.symptoms.get(pid)
        sigs = tuple((template(s.text, resolve), template(s.where, resolve)) for s in (sym.signatures if sym else ()))
        by_kind[page.kind].append(
            Source(
                id=pid,
                kind=page.kind,
                title=template(page.title, resolve),
                summary=template(page.summary, resolve),
                tags=page.tags,
                platforms=page.platforms,
                aliases=tuple(template(a, resolve) for a in page.aliases),
                related=page.related,
                intro=template(intro, resolve),
                sections=tuple(template(s, resolve) for s in sections),
                paragraphs=tuple(template(p, resolve) for p in paragraphs),
                signatures=sigs,
            )
        )
    return Material(
        by_kind={k: tuple(v) for k, v in by_kind.items() if v},
        actions=tuple(sorted(wiki.actions)),
        workflows=tuple(sorted(wiki.workflows)),
    )


def _cased(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word.capitalize()
    return word


def _digits(run: str, rng: random.Random) -> str:
    n = len(run)
    if run[0] == "0" or n == 1:
        return str(rng.randrange(10**n)).zfill(n)
    return str(rng.randrange(10 ** (n - 1), 10**n))


class Renamer:
    """A page's identifier variants: each distinct identifier keeps one spelling on the page."""

    def __init__(self, rng: random.Random, pool: int, share: float = RENAME) -> None:
        self.rng = rng
        self.pool = pool
        self.share = share
        self.seen: dict[str, str] = {}

    def word(self) -> str:
        """A made-up word, Zipf-like: low numbers are drawn far more often than high ones."""
        return pseudo(int(self.pool * self.rng.random() ** 3))

    def __call__(self, tok: str) -> str:
        got = self.seen.get(tok)
        if got is None:
            got = self.variant(tok) if self.rng.random() < self.share else tok
            self.seen[tok] = got
        return got

    def variant(self, tok: str) -> str:
        rng = self.rng
        if tok.isdigit():
            return _digits(tok, rng)
        parts = PARTS.split(tok)
        words = [i for i in range(0, len(parts), 2) if len(parts[i]) >= 3 and parts[i].isalpha()]
        has_digits = any(c.isdigit() for c in tok)
        if has_digits and (not words or rng.random() < 0.5):
            return DIGITS.sub(lambda m: _digits(m.group(0), rng), tok)
        if len(parts) > 1:
            if words:
                i = rng.choice(words)
                parts[i] = _cased(self.word(), parts[i])
                return "".join(parts)
            return tok + parts[1] + self.word()
        pieces = CAMEL.findall(tok)
        camel = [i for i, p in enumerate(pieces) if len(p) >= 3 and p.isalpha()]
        if len(pieces) > 1 and "".join(pieces) == tok and camel:
            i = rng.choice(camel)
            pieces[i] = _cased(self.word(), pieces[i])
            return "".join(pieces)
        return tok + self.word().capitalize()


def render(tpl: Template, rename: Callable[[str], str], link: Callable[[Link], str]) -> str:
    out = []
    for it in tpl:
        if isinstance(it, str):
            out.append(it)
        elif isinstance(it, Ident):
            out.append(rename(it.token))
        else:
            out.append(link(it))
    return "".join(out)


def plain(link: Link) -> str:
    """A link as plain words (titles, summaries, aliases and signatures carry no links)."""
    return link.words


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _flow(items: Iterable[str]) -> str:
    return "[" + ", ".join(_q(x) for x in items) + "]"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def mix_clauses(first: str, second: str) -> str:
    """``first`` with its last clause replaced by the last clause of ``second``."""
    a, b = CLAUSE.split(first.rstrip(".")), CLAUSE.split(second.rstrip("."))
    head = " ".join(a[:-1]) if len(a) > 1 else a[0] + ";"
    tail = b[-1]
    return f"{head} {tail[:1].lower() if tail[1:2].islower() else tail[:1]}{tail[1:]}."


def _kind_sequence(n: int, weights: dict[str, int]) -> list[str]:
    """``n`` kinds in the given proportions, interleaved (smooth weighted round-robin)."""
    total = sum(weights.values())
    done = dict.fromkeys(weights, 0)
    out = []
    for i in range(n):
        kind = max(weights, key=lambda k: (i + 1) * weights[k] / total - done[k])
        done[kind] += 1
        out.append(kind)
    return out


@dataclass(frozen=True)
class Plan:
    id: str
    kind: str
    base: Source
    round: int


def _plan(n_md: int, mat: Material, rng: random.Random) -> list[Plan]:
    weights = {k: len(v) for k, v in mat.by_kind.items()}
    order = {k: rng.sample(list(v), len(v)) for k, v in mat.by_kind.items()}
    seen = dict.fromkeys(weights, 0)
    plans = []
    for i, kind in enumerate(_kind_sequence(n_md, weights)):
        j = seen[kind]
        seen[kind] += 1
        base = order[kind][j % len(order[kind])]
        rnd = j // len(order[kind])
        pid = base.id if rnd == 0 else f"{base.id[:68]}-{pseudo((i * 40503 + 17) % (1 << 20))}"
        plans.append(Plan(pid, kind, base, rnd))
    if len({p.id for p in plans}) != len(plans):  # two made-up suffixes met on one base id
        plans = [p if p.round == 0 else Plan(f"{p.id}-{i}", p.kind, p.base, p.round) for i, p in enumerate(plans)]
    return plans


def generate(root: Path, n: int, schema_dir: Path, seed: int = 7) -> Path:
    """Write a wiki of ``n`` pages under ``root/wiki`` and return it."""
    rng = random.Random(seed)
    mat = material(SHIPPED)
    wiki = root / "wiki"
    if wiki.exists():
        shutil.rmtree(wiki)
    shutil.copytree(schema_dir, wiki / "schema")
    n_actions = max(2, n // 25)
    n_workflows = max(1, n // 50)
    n_md = max(2, n - n_actions - n_workflows)
    action_ids = [f"act-{i:05d}" for i in range(n_actions)]
    wf_ids = [f"wf-{i:05d}" for i in range(n_workflows)]
    plans = _plan(n_md, mat, rng)
    md_ids = [p.id for p in plans]
    copies: dict[str, list[str]] = {}
    for p in plans:
        copies.setdefault(p.base.id, []).append(p.id)
    shipped_action = {a: action_ids[i % n_actions] for i, a in enumerate(mat.actions)}
    shipped_wf = {w: wf_ids[i % n_workflows] for i, w in enumerate(mat.workflows)}
    seen_sigs: set[str] = set()
    for folder in FOLDERS.values():
        (wiki / folder).mkdir(parents=True, exist_ok=True)

    for i, plan in enumerate(plans):
        prng = random.Random(f"{seed}:{i}")
        rename = Renamer(prng, pool=400 + int(12 * (i + 1) ** 0.85))

        def target(shipped_id: str, plan: Plan = plan) -> str | None:
            got = copies.get(shipped_id)
            if got:
                return got[plan.round % len(got)]
            return shipped_action.get(shipped_id) or shipped_wf.get(shipped_id)

        def link(it: Link) -> str:
            t = target(it.target)
            if not t:
                return it.words
            return f"[[{t}|{it.label}]]" if it.label else f"[[{t}]]"

        base = plan.base
        donors = [s for s in mat.by_kind[plan.kind] if s.id != base.id]
        donors = prng.sample(donors, min(len(donors), prng.randint(1, 2)))
        donor_sections = [s for d in donors for s in d.sections]
        donor_paragraphs = [p for d in donors for p in d.paragraphs]
        parts: list[Template] = [base.intro]
        for sec in base.sections:
            if donor_sections and prng.random() < REPLACE_SECTION:
                sec = prng.choice(donor_sections)
            parts.append(sec)
            if donor_paragraphs and prng.random() < EXTRA_PARAGRAPH:
                parts.append(prng.choice(donor_paragraphs))
            if donor_sections and prng.random() < EXTRA_SECTION:
                parts.append(prng.choice(donor_sections))
        body = [render(t, rename, link) for t in parts]
        prev_p, next_p = plans[i - 1], plans[(i + 1) % n_md]
        body.append(f"See also [[{prev_p.id}|the previous page]] and [[{next_p.id}]].")
        if i < n_actions:
            body.append(f"Run [[{action_ids[i]}]] to check.")
        title = render(base.title, rename, plain)
        if plan.round:
            title = f"{_clip(title, 100)} ({plan.id.rsplit('-', 1)[-1].capitalize()})"
        summary = render(base.summary, rename, plain)
        if plan.round and donors:  # copies of one page differ: its last clause comes from a donor
            summary = mix_clauses(summary, render(prng.choice(donors).summary, rename, plain))
        aliases = list(dict.fromkeys(render(a, rename, plain) for a in base.aliases[:6]))
        related = [t for t in dict.fromkeys(target(r) for r in base.related) if t and t != plan.id]
        fm = [
            "---",
            f"id: {plan.id}",
            f"type: {plan.kind}",
            f"title: {_q(_clip(title, 120))}",
            f"summary: {_q(_clip(summary, 300))}",
            f"tags: {_flow(base.tags)}",
        ]
        if aliases:
            fm.append(f"aliases: {_flow(a for a in aliases if len(a) >= 2)}")
        fm += [f"platforms: {_flow(base.platforms)}", f"sources: [{SYNTHETIC}]"]
        if related:
            fm.append(f"related: {_flow(related)}")
        if plan.kind == "symptom":
            fm.append("signatures:")
            for text, where in _signatures(base, donors, prng, rename, seen_sigs):
                fm += [
                    f"  - text: {_q(text)}",
                    "    kind: log",
                    f"    where: {_q(where)}",
                    f"    source: {SYNTHETIC}",
                ]
            fm.append(f"workflows: [{wf_ids[i % n_workflows]}]")
        fm.append("---")
        path = wiki / FOLDERS[plan.kind] / f"{plan.id}.md"
        path.write_text("\n".join(fm) + "\n\n" + "\n\n".join(body) + "\n", encoding="utf-8")

    (wiki / "actions").mkdir(exist_ok=True)
    for i, aid in enumerate(action_ids):
        action = {
            "id": aid,
            "type": "action",
            "title": f"Synthetic action {i}",
            "summary": "A synthetic read-only action.",
            "description": f"Used by [[{wf_ids[i % n_workflows]}]] and [[{md_ids[i % n_md]}]].",
            "tags": ["gke"],
            "platforms": ["gke"],
            "sources": [SYNTHETIC],
            "execution_mode": "command",
            "requires_approval": False,
            "verified": True,
            "parameters": PARAMS,
            "command": ["kubectl", "get", f"res{i}", "-n", "{namespace}", "-o", "json"],
            "output": "json",
            "summary_fields": [{"name": "names", "description": "Names.", "json_path": "items[*].metadata.name"}],
        }
        (wiki / "actions" / f"{aid}.json").write_text(json.dumps(action, indent=2) + "\n", encoding="utf-8")
    (wiki / "workflows").mkdir(exist_ok=True)
    for i, wid in enumerate(wf_ids):
        steps = [
            {"id": f"s{j}", "action": action_ids[(i + j) % n_actions], "with": {"namespace": "{namespace}"}}
            for j in range(3)
        ]
        wf = {
            "id": wid,
            "type": "workflow",
            "title": f"Synthetic workflow {i}",
            "summary": "A synthetic workflow.",
            "description": f"See [[{md_ids[(i * 7) % n_md]}]].",
            "tags": ["gke"],
            "platforms": ["gke"],
            "sources": [SYNTHETIC],
            "parameters": PARAMS,
            "steps": steps,
        }
        (wiki / "workflows" / f"{wid}.json").write_text(json.dumps(wf, indent=2) + "\n", encoding="utf-8")

    from mlwiki.core import load
    from mlwiki.core.index_md import render_index

    (wiki / "INDEX.md").write_text(render_index(load(wiki)), encoding="utf-8")
    return wiki


def _signatures(
    base: Source, donors: Sequence[Source], rng: random.Random, rename: Renamer, seen: set[str]
) -> list[tuple[str, str]]:
    """2-5 signatures from the base page's (then the donors'), each text new to the whole wiki."""
    pool = list(base.signatures) + [s for d in donors for s in d.signatures]
    want = min(rng.randint(2, 5), max(2, len(pool)))
    out = []
    for j in range(want):
        text_tpl, where_tpl = pool[j % len(pool)]
        text = render(text_tpl, rename, plain)[:600].strip()
        tries = 0
        while " ".join(text.split()) in seen:  # as the linter compares them
            tries += 1
            if tries <= 3:  # every identifier renamed afresh
                text = render(text_tpl, Renamer(rng, rename.pool, share=1.0), plain)[:600].strip()
            else:  # nothing left to rename: add a made-up resource name, as log lines do
                text = f"{text[:580]} [{rename.word()}-{rng.randrange(100, 100000)}]"
        seen.add(" ".join(text.split()))
        out.append((text, _clip(render(where_tpl, rename, plain), 500) or "log"))
    return out

"""Query construction and ranking, specified so the JavaScript port can match it exactly.

1. Input is cut to 200,000 characters. Input longer than 1,500 characters or 15 lines is
   reduced to its error-looking lines (at most the first 20 and last 20 of them).
2. Query terms: distinct tokens in order of first appearance; terms absent from the index are
   dropped; if more than 40 remain, the 40 with the fewest documents win (ties: earlier first).
   Compound terms (with ``_ . : / -``) get boost 2. The last term of short input not ending in
   whitespace also matches as a prefix.
3. Tier from signatures (and names): 3 = a signature, normalised (lower case, digit runs -> 0,
   whitespace collapsed), is inside the normalised input without cutting a word of it, or the
   input (3 or more distinct tokens, one whole word inside it: stable_parts) is inside a signature;
   2 = at least 70% of a signature's distinct tokens (3 or more) are in the input, and at least
   70% of its distinctive ones (tokens held by at most a tenth of the documents; a signature
   with none is never near);
   1 = the input equals a page's title, id or alias, or holds every token (3 or more) of a
   symptom's title. Strength within a tier: the length of the shorter of signature and input
   (tier 3), the share of tokens present (tier 2), or the number of title tokens (tier 1;
   an exact name counts 100).
4. Score: BM25 over the fields (see :class:`TermIndex`), times the share of the query's terms
   the page holds. Order: tier, strength, score (rounded to 6 places), page type, id.

Every rule of step 3 needs some word of the page's text in the input, or the input's text in a
name: that is what lets the site fetch only the fragments a query needs (fragments.py).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from mlwiki.core.registry import type_order
from mlwiki.core.search.tokenize import JOINERS, RAW, WORD, is_compound, keep, tokenize

MAX_INPUT = 200_000
LONG_CHARS = 1_500
LONG_LINES = 15
MAX_TERMS = 40
COMMON_SHARE = 0.1  # a token in more than this share of the documents is not distinctive
REDUCED_KEEP = 20  # a reduced input keeps the first and last this many error-looking lines
PREFIX_MIN = 3  # the last term of short input is also a prefix when it has this many characters
PREFIX_BOOST = 0.1  # the words that prefix completes weigh this much of the word itself
EXACT_MIN_SIGNATURE = 10  # tier 3: a contained signature, normalised, has at least this length
EXACT_MIN_INPUT = 12  # tier 3: an input contained in a signature has at least this length
EXACT_MIN_INPUT_TOKENS = 3  # ... and this many distinct tokens ("Status: Failed" is in many messages)
NEAR_MIN_TOKENS = 3  # tier 2: a signature of at least this many distinct tokens
NEAR_COVER = 0.7  # tier 2: this share of them (and of its distinctive ones) in the input
NAME_MIN_TOKENS = 3  # tier 1: a symptom title of at least this many tokens, all in the input
ALIAS_MIN_TOKENS = 2  # tier 1: an alias of at least this many tokens, all in a short input (and half of it)
SHORT_QUERY_TOKENS = 8  # an input of at most this many distinct tokens is short (typed, not pasted)
DIGIT = re.compile(r"[0-9]")
WORDCH = re.compile(f"[{WORD}]")
ERRORISH = re.compile(
    r"error|exception|fatal|fail|timeout|timed out|abort|killed|oom|exhausted|xid|nccl|panic|denied|"
    r"refused|unavailable|deadline|backoff|evicted|hang|corrupt|mismatch|invalid|cannot|unable",
    re.I | re.ASCII,
)


TIER_WORDS = {
    3: "signature match (digits and whitespace ignored)",
    2: "near signature (most of a signature's words)",
    1: "name match",
    0: "text match",
}


@dataclass(frozen=True)
class Hit:
    ref: str
    type: str
    title: str
    url: str
    score: float
    tier: int
    signature: str
    strength: float = 0.0

    @property
    def match(self) -> str:
        """The tier in words: only tier 3 may be called a signature match."""
        return TIER_WORDS.get(self.tier, "text match")

    def as_json(self) -> dict[str, Any]:
        return {"id": self.ref, "type": self.type, "title": self.title, "url": self.url, "score": self.score,
                "tier": self.tier, "match": self.match, "matched_signature": self.signature}  # fmt: skip


def ranking_spec() -> dict[str, Any]:
    """Every constant, pattern and order of the ranking and tokenizer, shipped in the search
    payload: the site's search-core.js takes them from there and holds no copy."""
    from mlwiki.core.registry import type_names
    from mlwiki.core.search import tokenize as tk

    return {
        "word": tk.WORD,
        "joiners": tk.JOINERS.pattern,
        "camel": tk.CAMEL.pattern,
        "script": tk.SCRIPT.pattern,
        "max_token": tk.MAX_TOKEN,
        "max_input": MAX_INPUT,
        "long_chars": LONG_CHARS,
        "long_lines": LONG_LINES,
        "max_terms": MAX_TERMS,
        "reduced_keep": REDUCED_KEEP,
        "prefix_min": PREFIX_MIN,
        "prefix_boost": PREFIX_BOOST,
        "common_share": COMMON_SHARE,
        "exact_min_signature": EXACT_MIN_SIGNATURE,
        "exact_min_input": EXACT_MIN_INPUT,
        "exact_min_input_tokens": EXACT_MIN_INPUT_TOKENS,
        "near_min_tokens": NEAR_MIN_TOKENS,
        "near_cover": NEAR_COVER,
        "name_min_tokens": NAME_MIN_TOKENS,
        "alias_min_tokens": ALIAS_MIN_TOKENS,
        "short_query_tokens": SHORT_QUERY_TOKENS,
        "errorish": ERRORISH.pattern,
        "type_order": [*type_names(), "doc"],
    }


def round6(x: float) -> float:
    """Round half up to 6 places, exactly as the JavaScript side (Math.round) does."""
    return math.floor(x * 1e6 + 0.5) / 1e6


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[0-9]+", "0", text.lower())).strip()


@functools.lru_cache(maxsize=1 << 16)
def _page_text(text: str) -> tuple[str, frozenset[str]]:
    """A signature's or name's normal form and tokens (page texts repeat across queries)."""
    return normalise(text), frozenset(tokenize(text))


def reduce_input(text: str) -> tuple[str, bool]:
    """The part of the input worth searching, and whether it was reduced."""
    text = text[:MAX_INPUT]
    lines = text.split("\n")
    if len(text) <= LONG_CHARS and len(lines) <= LONG_LINES:
        return text, False
    hits = [ln for ln in lines if ERRORISH.search(ln)]
    if not hits:
        hits = lines
    if len(hits) > 2 * REDUCED_KEEP:
        hits = hits[:REDUCED_KEEP] + hits[-REDUCED_KEEP:]
    return "\n".join(hits), True


class TermIndex:
    """The search index: for each term, its postings as one flat list ``[doc, weight, doc,
    weight, ...]`` (documents by number, ascending; weight in thousandths).

    A document's weight for a term is its BM25 weight summed over the fields (title 8,
    signatures 10, tags 2, summary 3, body 1; k1 1.2, b 0.75; each field's share rounded to 3
    places, as lunr 2.3 builds its field vectors). Scoring a query by these sums gives lunr's
    score (its per-field cosine with an unnormalised document side adds up to the same sum),
    with one posting list per term instead of an inverted index plus field vectors: a third
    of the bytes, nothing to build at load, and a shape that shards by term."""

    def __init__(self, refs: Sequence[str], postings: Mapping[str, list[int]]) -> None:
        self.refs = list(refs)
        self.postings = dict(postings)
        self._vocab: list[str] | None = None

    @classmethod
    def load(cls, serialized: Mapping[str, Any]) -> TermIndex:
        return cls(serialized["refs"], dict(zip(serialized["terms"], serialized["postings"])))

    def serialize(self) -> dict[str, Any]:
        terms = sorted(self.postings)
        return {"refs": self.refs, "terms": terms, "postings": [self.postings[t] for t in terms]}

    def df(self, term: str) -> int:
        """Documents holding ``term``."""
        return len(self.postings.get(term, ())) // 2

    @property
    def vocabulary(self) -> list[str]:
        if self._vocab is None:
            self._vocab = sorted(self.postings)
        return self._vocab


def load_index(serialized: Mapping[str, Any]) -> TermIndex:
    """The index from its serialised form (the payload's ``index``)."""
    return TermIndex.load(serialized)


def query_words(text: str) -> tuple[list[str], str | None]:
    """The distinct tokens of the searched (possibly reduced) input, in order, and the last one if
    it is a typed prefix (short input not ending in whitespace, ``PREFIX_MIN`` characters)."""
    reduced, was_reduced = reduce_input(text)
    seen = list(dict.fromkeys(tokenize(reduced)))
    prefix_ok = not was_reduced and text[-1:].strip() != "" if text else False
    return seen, (seen[-1] if seen and prefix_ok and len(seen[-1]) >= PREFIX_MIN else None)


def inside_can_count(norm: str, distinct_tokens: int, cut: str) -> bool:
    """Whether an input (its normal form, its number of distinct tokens, the input itself) inside
    a signature can be tier 3: long enough, enough tokens, one whole inner word (stable_parts)."""
    return len(norm) >= EXACT_MIN_INPUT and distinct_tokens >= EXACT_MIN_INPUT_TOKENS and bool(stable_parts(cut))


def query_terms(index: TermIndex, text: str) -> tuple[list[str], bool]:
    seen, last = query_words(text)
    df = {t: index.df(t) for t in seen}
    known = [t for t in seen if df[t] > 0]
    if last and last not in known:
        known.append(last)
    if len(known) > MAX_TERMS:
        order = {t: i for i, t in enumerate(known)}
        known = sorted(sorted(known, key=lambda t: (df[t], order[t]))[:MAX_TERMS], key=lambda t: order[t])
    return known, bool(last and last in known)


def tiers(
    docs: Iterable[tuple[int, Mapping[str, Any]]], text: str, is_common: Callable[[str], bool] | None = None
) -> dict[int, tuple[int, float, str]]:
    """Best (tier, strength, signature) per document number, over ``(number, document)`` pairs.
    Strength orders documents within a tier: the length of the contained signature (tier 3: the
    more specific match wins) or the share of a signature's tokens present in the input (tier 2).
    With ``is_common`` (a token held by more than ``COMMON_SHARE`` of the documents), tier 2 also
    needs 70% of the signature's distinctive tokens: "CUDA error: initialization error" is not
    near an input that only shares "runtimeerror", "cuda" and "error" with it."""
    cut = text[:MAX_INPUT]
    q_norm = normalise(cut)
    q_tokens = set(tokenize(cut))
    # An input inside a signature counts only with enough distinct tokens and one whole word
    # inside it (see stable_parts): "Status: Failed" is inside many messages.
    contained_ok = inside_can_count(q_norm, len(q_tokens), cut)
    out: dict[int, tuple[int, float, str]] = {}
    for num, d in docs:
        best: tuple[int, float, str] = (0, 0.0, "")
        for sig in d.get("signatures", []):
            s_norm, s_tokens = _page_text(sig)
            if (len(s_norm) >= EXACT_MIN_SIGNATURE and contains_words(q_norm, s_norm)) or (contained_ok and q_norm in s_norm):
                cand = (3, float(min(len(s_norm), len(q_norm))), sig)
            else:
                if len(s_tokens) < NEAR_MIN_TOKENS:
                    continue
                cover = len(s_tokens & q_tokens) / len(s_tokens)
                if cover < NEAR_COVER:
                    continue
                if is_common is not None:
                    rare = [t for t in s_tokens if not is_common(t)]
                    if not rare or sum(t in q_tokens for t in rare) / len(rare) < NEAR_COVER:
                        continue
                cand = (2, cover, sig)
            if cand[:2] > best[:2]:
                best = cand
        if best[0] == 0 and q_norm:
            if q_norm in {_page_text(n)[0] for n in [d["title"], d["ref"], *d.get("aliases", [])]}:
                best = (1, 100.0, "")
            elif d["type"] == "symptom":
                t_tokens = _page_text(d["title"])[1]
                if len(t_tokens) >= NAME_MIN_TOKENS and t_tokens <= q_tokens:
                    best = (1, float(len(t_tokens)), "")
            if best[0] == 0 and len(q_tokens) <= SHORT_QUERY_TOKENS:
                # A short typed query that is mostly a name people use for the page: it holds every
                # word of an alias, and those words are at least half of its own ("avoid OOM on TPU"
                # holds the alias "TPU OOM"; a half-typed error message is not an alias).
                names = (_page_text(x)[1] for x in d.get("aliases", []))
                held = [len(a) for a in names if len(a) >= ALIAS_MIN_TOKENS and a <= q_tokens and 2 * len(a) >= len(q_tokens)]
                if held:
                    best = (1, float(max(held)), "")
        if best[0]:
            out[num] = best
    return out


def contains_words(text: str, part: str) -> bool:
    """Whether ``part`` occurs in ``text`` without cutting a word of ``text``: a word character at
    an end of ``part`` has no word character next to it in ``text`` ("cuda error" is in "CUDA
    error: x", not in "xcuda errors")."""
    i = text.find(part)
    if i < 0 or not part:
        return i >= 0
    head, tail = WORDCH.match(part[0]) is not None, WORDCH.match(part[-1]) is not None
    while i >= 0:
        j = i + len(part)
        if not (head and i > 0 and WORDCH.match(text[i - 1])) and not (tail and j < len(text) and WORDCH.match(text[j])):
            return True
        i = text.find(part, i + 1)
    return False


def stable_parts(text: str, inner: bool = True) -> list[str]:
    """The words of ``text`` that any text containing it (digits and whitespace ignored, as tier 3
    compares) has as tokens too: each part of a raw token (split at ``_ . : / -``) with a
    character on both sides inside the normalised text and no digit, kept by the tokenizer. The
    first and last words may be cut ("rror" of "Error"), and digits may differ ("port 0").
    With ``inner=False``, the edges count too: the words of any text equal to it. Fragmented
    search keys signatures and names under these (core/search/fragments.py)."""
    n = normalise(text[:MAX_INPUT])
    out: list[str] = []
    for m in RAW.finditer(n):
        start = m.start()
        for part in JOINERS.split(m.group()):
            end = start + len(part)
            inside = not inner or (start > 0 and end < len(n))
            if inside and not DIGIT.search(part) and keep(part) and part not in out:
                out.append(part)
            start = end + 1
    return out


def completions(index: TermIndex, prefix: str) -> list[str]:
    """The index's terms that start with ``prefix`` (itself included), in sorted order, found by
    bisection in the sorted vocabulary."""
    vocab = index.vocabulary
    out = []
    for i in range(bisect.bisect_left(vocab, prefix), len(vocab)):
        if not vocab[i].startswith(prefix):
            break
        out.append(vocab[i])
    return out


def weighted_terms(index: TermIndex, terms: Sequence[str], last_is_prefix: bool) -> list[tuple[str, float]]:
    """The query's (term, boost) pairs, each term once, in query order: compound terms boost 2;
    the last term of typed input also brings its completions at ``PREFIX_BOOST`` of its boost
    (the term itself, a completion of itself, adds both)."""
    boosts: dict[str, float] = {}
    for i, t in enumerate(terms):
        boost = 2.0 if is_compound(t) else 1.0
        clauses = [(t, boost)]
        if last_is_prefix and i == len(terms) - 1:
            clauses += [(c, boost * PREFIX_BOOST) for c in completions(index, t)]
        for term, b in clauses:
            if term in index.postings:
                boosts[term] = boosts.get(term, 0.0) + b
    return list(boosts.items())


def raw_scores(index: TermIndex, weighted: Sequence[tuple[str, float]]) -> dict[int, float]:
    """Per document: sum of boost x weight over the query's terms, over the query's norm (lunr's
    cosine with an unnormalised document side), in thousandths undone."""
    norm = math.sqrt(sum(b * b for _, b in weighted))
    acc: dict[int, float] = {}
    for term, b in weighted:
        post = index.postings[term]
        for k in range(0, len(post), 2):
            d = post[k]
            acc[d] = acc.get(d, 0.0) + b * post[k + 1]
    return {d: v / 1000 / norm for d, v in acc.items()}


def _query(index: TermIndex, terms: Sequence[str], last_is_prefix: bool) -> dict[int, float]:
    """Per document number: its score times the share of the query's terms it holds
    (coordination, as in Lucene's classic scoring: a page holding "tpu" and "oom" beats one
    holding "oom" many times). The last term of typed input counts whole, and its completions at
    ``PREFIX_BOOST``."""
    weighted = weighted_terms(index, terms, last_is_prefix)
    if not weighted:
        return {}
    scores = raw_scores(index, weighted)
    held: dict[int, set[str]] = {}
    for term, _ in weighted:
        post = index.postings[term]
        for k in range(0, len(post), 2):
            held.setdefault(post[k], set()).add(term)
    out = {}
    for d, score in scores.items():
        has = held[d]
        found = sum(1 for t in terms if t in has)
        if last_is_prefix and terms[-1] not in has and any(m.startswith(terms[-1]) for m in has):
            found += 1
        out[d] = score * found / len(terms)
    return out


Ranked = tuple[int, int, float, float, str]  # document number, tier, strength, score, signature


def rank(
    index: TermIndex,
    text: str,
    candidates: Iterable[tuple[int, Mapping[str, Any]]],
    type_of: Callable[[int], str],
    is_common: Callable[[str], bool],
    kind: str | None = None,
) -> list[Ranked]:
    """Every document with a score or a tier, best first. ``candidates`` are the documents tiers
    are tested on (all of them, or those fragmented search fetched because a key of theirs is in
    the input); ``type_of`` gives any document's type. Document numbers follow the ids' order,
    so the last key is the id."""
    if not isinstance(text, str) or not text.strip():
        return []
    terms, last_is_prefix = query_terms(index, text)
    scores = {d: round6(float(v)) for d, v in _query(index, terms, last_is_prefix).items()} if terms else {}
    tier = tiers(candidates, text, is_common)
    out = []
    for d in set(scores) | set(tier):
        t = type_of(d)
        if kind is not None and t != kind:
            continue
        level, strength, sig = tier.get(d, (0, 0.0, ""))
        out.append((type_order(t), d, level, strength, scores.get(d, 0.0), sig))
    out.sort(key=lambda r: (-r[2], -r[3], -r[4], r[0], r[1]))
    return [r[1:] for r in out]


def common_terms(index: TermIndex) -> Callable[[str], bool]:
    """Whether a term is held by more than ``COMMON_SHARE`` of the documents (not distinctive)."""
    above = COMMON_SHARE * len(index.refs)
    return lambda t: index.df(t) > above


def search(
    index: TermIndex, docs: Sequence[Mapping[str, Any]], text: str, k: int = 10, kind: str | None = None
) -> list[Hit]:
    """Rank documents for ``text`` (``docs`` in the index's order, as the payload has them).
    Never raises for any input string."""
    ranked = rank(index, text, enumerate(docs), lambda d: docs[d]["type"], common_terms(index), kind)
    return [hit(docs[r[0]], r) for r in ranked[:k]]


def hit(doc: Mapping[str, Any], r: Ranked) -> Hit:
    _, level, strength, score, sig = r
    return Hit(doc["ref"], doc["type"], doc["title"], doc["url"], score, level, sig, strength)

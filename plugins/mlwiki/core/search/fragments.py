"""The search payload in fragments, so a query fetches only what it needs (the site's search box
reads these; ``search/mlwiki-index.json``, the whole payload, stays for triage).

A manifest (``search/fragments/manifest.json``, small, fetched first) says where the rest is;
the rest is cacheable forever.

All but the manifest sit in a directory named by a hash of their contents, so any change makes
new names. Inside it:

- **term shards** (``s{i}.json``): every term's entry: its postings ``[doc delta, weight * 2 +
  in signature, ...]`` (document numbers as gaps from the previous one; the low bit says the
  term is in one of the document's signatures) and, when some document is keyed under the term,
  its keys ``[doc delta, fewest tokens, most tokens, ...]`` (see :func:`keys`). A term lives in
  shard ``fnv1a(term[:3]) % shards``, so the completions of a typed prefix of 3 or more
  characters are all in one shard. A term whose postings are long has a file of its own
  (``t{i}.json``, the i-th of the manifest's ``heavy`` terms), so a rare term does not bring a
  common one's postings along.
- **document chunks** (``c{i}.json``): ``chunk_size`` documents each, in id order, as the payload has them
  (title, url, signatures, aliases, ...).
- the manifest itself: the ranking spec, each document's type, the common terms, the documents
  every query must test (``always``), the names with no word in them (``names``: normal form ->
  documents, for "A100" or "E1000") and the file names.

Ranking tests tiers only on documents a query could match, found through keys that are exact,
not heuristics (see :func:`keys`): the candidates of a query are the documents keyed under one of
its tokens (with bounds that fit its number of distinct tokens), those whose signatures hold every
:func:`~mlwiki.core.search.rank.stable_parts` word of the input (an input inside a signature),
the documents with a name equal to the input that has no word, and ``always``. Python (here) and
JavaScript (search-core.js) follow the same steps, and a test checks the result equals the
whole-payload search on thousands of queries.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlwiki.core.search.rank import (
    ALIAS_MIN_TOKENS,
    COMMON_SHARE,
    EXACT_MIN_SIGNATURE,
    MAX_INPUT,
    NAME_MIN_TOKENS,
    NEAR_COVER,
    NEAR_MIN_TOKENS,
    SHORT_QUERY_TOKENS,
    Hit,
    TermIndex,
    _query,
    hit,
    inside_can_count,
    normalise,
    query_terms,
    query_words,
    rank,
    round6,
    stable_parts,
)
from mlwiki.core.search.tokenize import tokenize

FRAGMENTS_DIR = "search/fragments"
MANIFEST = "manifest.json"
FRAGMENTS_VERSION = 1
SHARD_PREFIX = 3  # terms sharing their first 3 characters share a shard (prefix completion)
SHARD_BYTES = 12_000  # aim for term shards of about this many bytes of JSON
HEAVY_BYTES = 2_000  # a term whose postings take more than this has a file of its own
CHUNK_SIZE = 16  # documents per chunk
PREFETCH = 1  # with the candidates' chunks, fetch those of the k best-scored documents (PREFETCH x k)
CHUNK_FIELDS = ("ref", "type", "title", "url", "aliases", "signatures")  # what ranking and the results show

Json = Any


def fnv1a(text: str) -> int:
    """32-bit FNV-1a over the code points (search-core.js walks code points too)."""
    h = 0x811C9DC5
    for ch in text:
        h = ((h ^ ord(ch)) * 0x01000193) & 0xFFFFFFFF
    return h


def shard_of(term: str, shards: int) -> int:
    return fnv1a(term[:SHARD_PREFIX]) % shards


def dumps(obj: Json) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _rarest(tokens: Iterable[str], df: Callable[[str], int], n: int = 1) -> list[str]:
    return sorted(set(tokens), key=lambda t: (df(t), t))[:n]


def near_keys(rare: int) -> int:
    """How many of a signature's rare tokens must key it so that any input holding NEAR_COVER of
    them holds one of the keys: one more than the most that may be missing."""
    missing = 0
    while missing + 1 < rare and (rare - missing - 1) / rare >= NEAR_COVER:
        missing += 1
    return missing + 1


def _need(share: float, n: int) -> int:
    """The fewest of ``n`` tokens that make at least ``share`` of them (as the rule computes it)."""
    m = 0
    while m < n and m / n < share:
        m += 1
    return m


# Key kinds, each a list [doc delta, bound(s), ...] in a term's entry (after its postings):
CONTAINED = 0  # a signature inside the input: [doc delta, fewest characters of the input]
NEAR = 1  # a near signature: [doc delta, fewest distinct tokens of the input]
WORDS = 2  # every word of a title or alias: [doc delta, fewest, most (0: any) distinct tokens]
KEY_WIDTH = (2, 2, 3)


class Keys:
    """Where each document is keyed (see :func:`doc_keys`), merged over its rules."""

    def __init__(self) -> None:
        self.by_term: dict[str, list[dict[int, tuple[int, ...]]]] = {}

    def add(self, kind: int, terms: Iterable[str], num: int, bound: tuple[int, ...]) -> None:
        for t in terms:
            per = self.by_term.setdefault(t, [{}, {}, {}])[kind]
            old = per.get(num)
            if old is None:
                per[num] = bound
            elif kind == WORDS:  # the widest bounds
                per[num] = (min(old[0], bound[0]), 0 if 0 in (old[1], bound[1]) else max(old[1], bound[1]))
            else:
                per[num] = (min(old[0], bound[0]),)

    def encoded(self, term: str) -> list[list[int]]:
        out = []
        for per in self.by_term.get(term, [{}, {}, {}]):
            flat, prev = [], 0
            for num in sorted(per):
                flat += [num - prev, *per[num]]
                prev = num
            out.append(flat)
        while out and not out[-1]:
            out.pop()
        return out


def doc_keys(
    keys: Keys, num: int, doc: Mapping[str, Any], df: Callable[[str], int], is_common: Callable[[str], bool]
) -> bool:
    """Key document ``num`` under the terms a query must hold for a tier rule (rank.tiers) to
    fire, with bounds on the input, and return whether a signature of it has no key (then every
    query tests it). Each key is a necessary condition:

    - a signature inside the input, at word boundaries (tier 3): its rarest word (stable_parts,
      edges included: the match cannot cut a word); the input is at least as long;
    - a near signature (tier 2): enough of its rarest distinctive tokens that an input holding 70%
      of them holds one (near_keys); the input holds 70% of the signature's tokens;
    - every word of a symptom's title (tier 1): its rarest token; or of an alias, in a short input
      at most twice as long as the alias: its rarest token.

    A name equal to the input (tier 1) is looked up by its normal form (name shards), and an input
    inside a signature (tier 3) through the in-signature bit of the postings."""
    unkeyed = False
    for sig in doc.get("signatures", []):
        norm = normalise(sig)
        if len(norm) >= EXACT_MIN_SIGNATURE:
            words = stable_parts(sig, inner=False)
            keys.add(CONTAINED, _rarest(words, df), num, (len(norm),))
            unkeyed = unkeyed or not words
        toks = set(tokenize(sig))
        if len(toks) >= NEAR_MIN_TOKENS:
            rare = [t for t in toks if not is_common(t)]
            if rare:
                keys.add(NEAR, _rarest(rare, df, near_keys(len(rare))), num, (_need(NEAR_COVER, len(toks)),))
    title = set(tokenize(doc["title"]))
    if doc["type"] == "symptom" and len(title) >= NAME_MIN_TOKENS:
        keys.add(WORDS, _rarest(title, df), num, (len(title), 0))
    for alias in doc.get("aliases", []):
        alias_words = set(tokenize(alias))
        if len(alias_words) >= ALIAS_MIN_TOKENS:
            bound = (len(alias_words), min(SHORT_QUERY_TOKENS, 2 * len(alias_words)))
            keys.add(WORDS, _rarest(alias_words, df), num, bound)
    return unkeyed


def _file(terms: Sequence[str], entries: Sequence[str]) -> str:
    """A shard's JSON from its terms and its entries already serialised (as dumps would write it)."""
    return '{"entries":[' + ",".join(entries) + '],"terms":' + dumps(list(terms)) + "}"


def _sharded(items: Mapping[str, str], bucket: Callable[[str, int], int], prefix: str) -> tuple[int, dict[str, str]]:
    """``items`` (key -> serialised entry) spread over a power of two of files of about
    SHARD_BYTES each."""
    total = sum(len(k) + len(v) + 4 for k, v in items.items())
    count = 1
    while total / count > SHARD_BYTES:
        count *= 2
    grouped: list[list[str]] = [[] for _ in range(count)]
    for k in sorted(items):
        grouped[bucket(k, count)].append(k)
    return count, {f"{prefix}{i}.json": _file(g, [items[k] for k in g]) for i, g in enumerate(grouped)}


def build_fragments(payload: Mapping[str, Any]) -> dict[str, str]:
    """The fragment files (name -> JSON text, deterministic) for a search payload."""
    index = TermIndex.load(payload["index"])
    docs = payload["docs"]
    if [d["ref"] for d in docs] != index.refs:
        raise ValueError("search payload: documents and index are not in the same order")
    df = {t: len(p) // 2 for t, p in index.postings.items()}
    above = COMMON_SHARE * len(docs)
    common = {t for t, n in df.items() if n > above}
    insig: dict[str, set[int]] = {}
    keys = Keys()
    always = []
    names: dict[str, list[int]] = {}
    for num, doc in enumerate(docs):
        if doc_keys(keys, num, doc, df.__getitem__, common.__contains__):
            always.append(num)
        for name in [doc["title"], doc["ref"], *doc.get("aliases", [])]:
            norm = normalise(name)
            if norm and num not in names.setdefault(norm, []):
                names[norm].append(num)
        for t in set(tokenize("\n".join(doc.get("signatures", [])))):
            insig.setdefault(t, set()).add(num)
    files: dict[str, str] = {}
    heavy: list[str] = []
    small: dict[str, str] = {}
    for term in index.vocabulary:
        post, held = index.postings[term], insig.get(term, set())
        nums = post[0::2]
        gaps = [d - p for d, p in zip(nums, [0, *nums[:-1]])]
        weights = [w * 2 + (d in held) for d, w in zip(nums, post[1::2])]
        flat = [x for pair in zip(gaps, weights) for x in pair]
        entry = dumps([flat, *keys.encoded(term)])
        if len(entry) > HEAVY_BYTES:
            files[f"t{len(heavy)}.json"] = _file([term], [entry])
            heavy.append(term)
        else:
            small[term] = entry
    shards, shard_files = _sharded(small, shard_of, "s")
    name_shards, name_files = _sharded({k: dumps(v) for k, v in names.items()}, lambda k, n: fnv1a(k) % n, "n")
    files.update(shard_files)
    files.update(name_files)
    for i, start in enumerate(range(0, len(docs), CHUNK_SIZE)):
        chunk = [{k: d[k] for k in CHUNK_FIELDS if k in d} for d in docs[start : start + CHUNK_SIZE]]
        files[f"c{i}.json"] = dumps(chunk)
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + files[name].encode("utf-8") + b"\0")
    types = sorted({d["type"] for d in docs})
    manifest = {
        "version": FRAGMENTS_VERSION,
        "payload_version": payload["version"],
        "stopwords": payload["stopwords"],
        "ranking": payload["ranking"],
        "dir": digest.hexdigest()[:16],
        "documents": len(docs),
        "types": types,
        "doc_types": "".join(chr(ord("a") + types.index(d["type"])) for d in docs),
        "common": sorted(common),
        "always": always,
        "shard_prefix": SHARD_PREFIX,
        "shards": shards,
        "heavy": heavy,
        "name_shards": name_shards,
        "longest_name": max((len(n) for n in names), default=0),
        "chunk_size": CHUNK_SIZE,
        "prefetch": PREFETCH,
        "chunks": -(-len(docs) // CHUNK_SIZE),
    }
    out = {f"{manifest['dir']}/{name}": body for name, body in sorted(files.items())}
    out[MANIFEST] = dumps(manifest)
    return out


class FragmentStore:
    """Fragments read on demand (from a dict of parsed files, or a directory), as the browser
    fetches them; ``fetched`` lists the files read, in order."""

    def __init__(self, read: Callable[[str], Json]) -> None:
        self._read = read
        self._cache: dict[str, Json] = {}
        self.fetched: list[str] = []
        self.manifest = self.get(MANIFEST)
        self._common = frozenset(self.manifest["common"])

    @classmethod
    def from_files(cls, files: Mapping[str, str]) -> FragmentStore:
        return cls(lambda name: json.loads(files[name]))

    @classmethod
    def from_dir(cls, path: Path) -> FragmentStore:
        return cls(lambda name: json.loads((path / name).read_text(encoding="utf-8")))

    def get(self, name: str) -> Json:
        if name not in self._cache:
            self._cache[name] = self._read(name)
            self.fetched.append(name)
        return self._cache[name]

    def is_common(self, term: str) -> bool:
        return term in self._common

    def type_of(self, num: int) -> str:
        m = self.manifest
        return str(m["types"][ord(m["doc_types"][num]) - ord("a")])

    def term_files(self, terms: Iterable[str], prefix: str | None) -> list[str]:
        """The files holding ``terms`` (and every completion of ``prefix``), each once, in order."""
        m = self.manifest
        out: list[str] = []

        def add(name: str) -> None:
            out.append(f"{m['dir']}/{name}")

        for t in terms:
            i = bisect.bisect_left(m["heavy"], t)
            add(f"t{i}.json" if i < len(m["heavy"]) and m["heavy"][i] == t else f"s{shard_of(t, m['shards'])}.json")
        if prefix is not None:  # the completions of a typed prefix: its shard, and the heavy ones
            add(f"s{shard_of(prefix, m['shards'])}.json")
            for i in range(bisect.bisect_left(m["heavy"], prefix), len(m["heavy"])):
                if not m["heavy"][i].startswith(prefix):
                    break
                add(f"t{i}.json")
        return list(dict.fromkeys(out))

    def name_file(self, norm: str) -> str | None:
        """The name shard that would hold ``norm``, if any name is that long."""
        m = self.manifest
        return f"{m['dir']}/n{fnv1a(norm) % m['name_shards']}.json" if 0 < len(norm) <= m["longest_name"] else None

    def chunk_file(self, num: int) -> str:
        return f"{self.manifest['dir']}/c{num // self.manifest['chunk_size']}.json"

    def chunk_files(self, nums: Iterable[int]) -> list[str]:
        return list(dict.fromkeys(self.chunk_file(n) for n in sorted(nums)))

    def doc(self, num: int) -> Mapping[str, Any]:
        return self.get(self.chunk_file(num))[num % self.manifest["chunk_size"]]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Plan:
    """What a query needs before any file: its distinct tokens (the tiers see the whole input;
    scoring sees its reduced form, a subset), the typed prefix whose completions count, the
    input's normal form and stable words, and whether an input inside a signature can count."""

    tokens: list[str]
    prefix: str | None
    norm: str
    stable: list[str]
    contained: bool


def plan(text: str) -> Plan:
    cut = text[:MAX_INPUT]
    tokens = list(dict.fromkeys(tokenize(cut)))
    norm = normalise(cut)
    return Plan(tokens, query_words(text)[1], norm, stable_parts(cut), inside_can_count(norm, len(tokens), cut))


def loaded_index(store: FragmentStore, files: Sequence[str]) -> TermIndex:
    """The part of the index in ``files``: postings decoded to (document, weight)."""
    postings: dict[str, list[int]] = {}
    for name in files:
        body = store.get(name)
        for term, entry in zip(body["terms"], body["entries"]):
            enc, out, d = entry[0], [], 0
            for k in range(0, len(enc), 2):
                d += enc[k]
                out += [d, enc[k + 1] >> 1]
            postings[term] = out
    index = TermIndex([""] * store.manifest["documents"], postings)
    return index


def candidates(store: FragmentStore, files: Sequence[str], text: str, q: Plan) -> list[int]:
    """The documents whose tiers a query must test (see the module docstring), ascending."""
    wanted, n, chars = set(q.tokens), len(q.tokens), len(q.norm)
    out = set(store.manifest["always"])
    name_file = store.name_file(q.norm)
    if name_file is not None:
        body = store.get(name_file)
        i = bisect.bisect_left(body["terms"], q.norm)
        if i < len(body["terms"]) and body["terms"][i] == q.norm:
            out.update(body["entries"][i])
    inside: dict[str, set[int]] = {}
    for name in files:
        body = store.get(name)
        for term, entry in zip(body["terms"], body["entries"]):
            if term not in wanted:
                continue
            for kind, ks in enumerate(entry[1:]):
                d, width = 0, KEY_WIDTH[kind]
                for k in range(0, len(ks), width):
                    d += ks[k]
                    if kind == CONTAINED:
                        fits = ks[k + 1] <= chars
                    elif kind == NEAR:
                        fits = ks[k + 1] <= n
                    else:
                        fits = ks[k + 1] <= n and (ks[k + 2] == 0 or n <= ks[k + 2])
                    if fits:
                        out.add(d)
            if q.contained and term in q.stable:
                enc, d, have = entry[0], 0, set()
                for k in range(0, len(enc), 2):
                    d += enc[k]
                    if enc[k + 1] & 1:
                        have.add(d)
                inside[term] = have
    if q.contained:
        common: set[int] | None = None
        for t in q.stable:
            have = inside.get(t, set())
            common = have if common is None else common & have
        out.update(common or ())
    return sorted(out)


def best_scored(index: TermIndex, text: str, n: int) -> list[int]:
    """The ``n`` documents with the best scores (rounded, ties by number), tiers aside."""
    terms, last_is_prefix = query_terms(index, text)
    if not terms:
        return []
    scores = {d: round6(v) for d, v in _query(index, terms, last_is_prefix).items()}
    return sorted(scores, key=lambda d: (-scores[d], d))[:n]


def search_fragments(store: FragmentStore, text: str, k: int = 10, kind: str | None = None) -> list[Hit]:
    """:func:`mlwiki.core.search.rank.search`, reading only the fragments the query needs."""
    if not isinstance(text, str) or not text.strip():
        return []
    q = plan(text)
    files = store.term_files(q.tokens, q.prefix)
    index = loaded_index(store, files)
    cands = candidates(store, files, text, q)
    # With the candidates, the chunks of the best-scored pages (likely results without a tier),
    # so most queries need no third round of requests.
    for name in store.chunk_files([*cands, *best_scored(index, text, PREFETCH * k)]):
        store.get(name)
    ranked = rank(index, text, ((d, store.doc(d)) for d in cands), store.type_of, store.is_common, kind)[:k]
    for name in store.chunk_files(r[0] for r in ranked):
        store.get(name)
    return [hit(store.doc(r[0]), r) for r in ranked]


__all__ = ["FRAGMENTS_DIR", "MANIFEST", "FragmentStore", "build_fragments", "query_terms", "search_fragments"]

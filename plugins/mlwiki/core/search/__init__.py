"""Search built for pasted errors: one tokenizer, one index, one ranking, in Python and in the
browser (``mlwiki/render/assets/search.js`` mirrors :mod:`.tokenize` and :mod:`.rank` exactly).

wiki -> documents (title+aliases, signatures, tags, summary, body) -> our tokens -> postings of BM25 weights
-> serialised payload (site) | in-process index (query CLI) -> same query construction and ranking.
"""

from mlwiki.core.search.build import build_payload, payload_json
from mlwiki.core.search.rank import Hit, search

__all__ = ["Hit", "build_payload", "payload_json", "search"]

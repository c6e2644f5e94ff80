"""Shared inputs of the checks, computed once per check run."""

from __future__ import annotations

from dataclasses import dataclass

from mlwiki.core.model import Wiki


@dataclass
class CheckContext:
    """What several checks need and should not each recompute (kept small on purpose)."""

    names: list[str]

    @staticmethod
    def for_wiki(wiki: Wiki) -> CheckContext:
        """Every id and alias, for did-you-mean hints."""
        return CheckContext(names=list(wiki.pages) + [a for p in wiki.pages.values() for a in p.aliases])

"""Code masking for wikilinks and headings: a code span may wrap onto the next line of its
paragraph (CommonMark), so a wikilink after it is a link, and one inside it is not."""

from __future__ import annotations

from mlwiki.core.markdown import find_wikilinks, mask_code


def test_a_code_span_wrapping_a_line_hides_only_its_own_text() -> None:
    text = "see `a long\nerror message` ([[real-link]]) and `[[not-a-link]]`\n\n`unclosed\n\nspan` [[after-blank]]"
    masked = mask_code(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    targets = [w.target for w in find_wikilinks(masked)]
    assert targets == ["real-link", "after-blank"]


def test_fenced_code_is_masked_and_lines_keep_their_numbers() -> None:
    text = "[[one]]\n```\n[[hidden]] `x\n```\n`y\nz` [[two]]"
    links = find_wikilinks(mask_code(text))
    assert [(w.target, w.line) for w in links] == [("one", 1), ("two", 6)]

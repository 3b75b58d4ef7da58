"""`whole_words.spans` against the pattern it stands for (retrieval/text/whole_words.py): the same matches, left
to right, for any word, text and extra boundary marks, the empty word included."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.text import whole_words

#: Letters, digits, "_" and the marks the entity filters bound names with, a non-ASCII letter and digit among them.
_CHARS = st.sampled_from(list("ab A_1'’-.é٣"))


def _pattern(word: str, text: str, before: str, after: str) -> list[tuple[int, int]]:
    found = re.finditer(rf"(?<![\w{re.escape(before)}]){re.escape(word)}(?![\w{re.escape(after)}])", text)
    return [(m.start(), m.end()) for m in found]


@settings(max_examples=400, deadline=None)
@given(
    word=st.text(_CHARS, max_size=3),
    text=st.text(_CHARS, max_size=30),
    before=st.sampled_from(["", "'’-", "'’"]),
    after=st.sampled_from(["", "'’-", "'’", "-"]),
)
def test_spans_are_the_patterns_matches(word: str, text: str, before: str, after: str) -> None:
    assert whole_words.spans(word, text, before=before, after=after) == _pattern(word, text, before, after)
    assert whole_words.occurs(word, text) == (re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None)


def test_a_name_beside_a_joining_mark_or_inside_a_word_is_not_whole() -> None:
    text = "Gates, Gates's book, Gatesian ideas, Bill-Gates and (Gates)"
    assert whole_words.spans("Gates", text, before="'’-", after="'’-") == [(0, 5), (53, 58)]
    assert whole_words.spans("Gates", text, after="-") == [(0, 5), (7, 12), (42, 47), (53, 58)]

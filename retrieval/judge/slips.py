"""Typing slips in a question: an asked-about word the documents lack only because it was mistyped.

Why: `exists` and `complete` ask whether the documents hold every asked-about word, and one missing word can be the
whole question ("What did Bill Gates say about Netflix?"). A mistyped word is missing too: on the HotpotQA tune half
the only two right answers with `complete` 0 were "Whiich genus has more species, ...?" and "... a reserach center
...", scored 0.10 and 0.28 and answered "no passage of these documents mentions “whiich”" (docs/benchmarks.md, branch
wt133). Only the two slips of a typing hand are read, a key struck twice ("whiich") and two keys swapped
("reserach"): one letter changed or dropped turns real words into other real words ("sport" and "spot", "painted"
and "printed", "Pablo" and "Palo"), and on the demo questions such a rule took unanswerable questions for answered.
"""

from __future__ import annotations

from collections.abc import Collection

#: Shortest word read as a slip: under five letters a swap makes another word too often ("form", "from").
MIN_LETTERS = 5


def slip_of(term: str, words: Collection[str]) -> str | None:
    """The word of `words` that `term` is a typing slip of (one doubled letter too many, or two adjacent letters
    swapped), or None; `term` itself being one of `words` is no slip."""
    if len(term) < MIN_LETTERS or term in words:
        return None
    doubled = (term[:i] + term[i + 1 :] for i in range(1, len(term)) if term[i] == term[i - 1])
    swapped = (term[:i] + term[i + 1] + term[i] + term[i + 2 :] for i in range(len(term) - 1) if term[i] != term[i + 1])
    return next((word for word in (*doubled, *swapped) if word in words), None)

"""`terms` is cached per text: a caller changing the list it got must not change what the next caller gets."""

from __future__ import annotations

from retrieval.store.text_query import terms


def test_terms_are_a_fresh_list_each_call() -> None:
    first = terms("Who founded the Who? who")
    assert first == ["who", "founded", "the"]
    first.append("changed")
    assert terms("Who founded the Who? who") == ["who", "founded", "the"]
    assert terms("Who founded the Who? who", max_terms=2) == ["who", "founded"]

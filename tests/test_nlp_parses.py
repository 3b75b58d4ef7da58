"""`parses` hands spaCy its texts in batches of PARSE_BATCH, not spaCy's default 1,000 (half the CPU on MuSiQue's
sentences), and the parse is the same either way: what the title step reads of it (tags, parts of speech,
dependencies, heads, noun chunks) must not move with the batch."""

from __future__ import annotations

from typing import Any

import pytest

from retrieval.text import nlp as nlp_module
from retrieval.text.nlp import PARSE_BATCH, nlp, parses

SENTENCES = [
    "Alan Turing was a British mathematician and computer scientist.",
    "The Amazon river flows through Brazil, Peru and Colombia.",
    "Marie Curie won two Nobel Prizes for her research on radioactivity.",
    "Hard Times is a 1991 album by the American rapper Run-D.M.C.",
    "The village lies on the left bank of the river, near the old stone bridge.",
    "He said it was, um, pretty interesting stuff.",
    "Tokyo",
    "",
]


def _read(doc: Any) -> list[Any]:
    """What the title step reads of a parse."""
    return [[(t.text, t.tag_, t.pos_, t.dep_, t.head.i) for t in doc], [(c.start, c.end) for c in doc.noun_chunks]]


def test_the_parse_is_the_same_as_in_one_batch_of_spacys_default() -> None:
    texts = [f"{s} {n}" if s else s for n in range(3 * PARSE_BATCH // len(SENTENCES) + 1) for s in SENTENCES]
    assert len(texts) > 2 * PARSE_BATCH  # several batches, the last one short
    whole = [_read(doc) for doc in nlp().pipe(texts, disable=["ner"], batch_size=1000)]
    assert [_read(doc) for doc in parses(texts)] == whole


def test_spacy_is_handed_batches_of_parse_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []

    class Pipeline:
        def pipe(self, texts: Any, **options: Any) -> Any:
            asked.append(options)
            return iter(texts)

    monkeypatch.setattr(nlp_module, "nlp", Pipeline)
    assert list(parses(["a", "b"])) == ["a", "b"]
    assert asked == [{"disable": ["ner"], "batch_size": PARSE_BATCH}]
    assert 32 <= PARSE_BATCH <= 256  # the range measured cheapest (docs/benchmarks.md, branch wt264)

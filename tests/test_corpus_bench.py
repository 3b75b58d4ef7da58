"""`benchmarks/corpus.py --small`'s joined corpus is the small corpus's very text: every passage once, in order,
none split, in documents of about the same size; otherwise "small / joined" would not read one text two ways."""

from __future__ import annotations

from pathlib import Path

from benchmarks.corpus import write_joined, write_passages


def test_joined_documents_hold_every_passage_once_in_order(tmp_path: Path) -> None:
    small, joined = tmp_path / "small", tmp_path / "joined"
    small.mkdir()
    joined.mkdir()
    words = write_passages(small)
    assert write_joined(joined, 15) == words
    passages = [p.read_text(encoding="utf-8") for p in sorted(small.glob("*.txt"))]
    documents = [d.read_text(encoding="utf-8") for d in sorted(joined.glob("*.txt"))]
    assert len(documents) == 15
    assert "\n".join(documents) == "\n".join(passages)
    sizes = [len(d.split()) for d in documents]
    assert max(sizes) - min(sizes) < 2 * max(len(p.split()) for p in passages)

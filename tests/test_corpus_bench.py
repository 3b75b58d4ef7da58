"""`benchmarks/corpus.py --small`'s joined corpus is the small corpus's very text: every passage once, in order,
none split, in documents of about the same size; otherwise "small / joined" would not read one text two ways.

The passages are written here in MuSiQue's corpus format (title and text per row), so the test reads no data
outside the repository."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.corpus import write_joined, write_passages


def test_joined_documents_hold_every_passage_once_in_order(tmp_path: Path) -> None:
    source = tmp_path / "corpus.json"
    rows = [
        {"title": f"Title {i}", "text": " ".join(f"w{i}x{j}" for j in range(20 + (i * 37) % 90))} for i in range(120)
    ]
    source.write_text(json.dumps(rows), encoding="utf-8")
    small, joined = tmp_path / "small", tmp_path / "joined"
    small.mkdir()
    joined.mkdir()
    words = write_passages(small, source)
    assert words == sum(len(row["title"].split()) + len(row["text"].split()) for row in rows)
    assert write_joined(joined, 15, source) == words
    passages = [p.read_text(encoding="utf-8") for p in sorted(small.glob("*.txt"))]
    documents = [d.read_text(encoding="utf-8") for d in sorted(joined.glob("*.txt"))]
    assert len(passages) == 120 and len(documents) == 15
    assert "\n".join(documents) == "\n".join(passages)
    sizes = [len(d.split()) for d in documents]
    assert max(sizes) - min(sizes) < 2 * max(len(p.split()) for p in passages)

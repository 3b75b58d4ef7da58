"""Many small documents: the indexer writes them in batches, so the write statements do not grow per document.

Why a count, not a time: each statement is its own write transaction (on Neo4j a commit), and ~10 per document
made a corpus of thousands of short passages several times slower per word than long documents. The figure
lives in benchmarks/corpus.py --small; this checks the shape that gives it, on both backends.
"""

from __future__ import annotations

from pathlib import Path

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.store import GraphStore

WORDS = "Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage in London"


def _corpus(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"passage-{i:03d}.txt").write_text(f"Passage {i}. {WORDS} in the year {1830 + i}.\n", "utf-8")
    return folder


def _writes(store: GraphStore, settings: Settings, embedder: Embedder, folder: Path, project: str) -> int:
    sent: list[str] = []
    query = store.query

    def counted(cypher: str, params: object = None) -> object:
        sent.append(cypher)
        return query(cypher, params)  # type: ignore[arg-type]

    store.query = counted  # type: ignore[method-assign]
    try:
        report = run_index(settings, store, embedder, [folder], project=project)
    finally:
        del store.query  # the instance attribute goes; the method is back
    assert report.added and not report.issues
    return len(sent)


def test_writes_do_not_grow_with_the_number_of_small_documents(
    store: GraphStore, settings: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    few = _writes(store, settings, embedder, _corpus(tmp_path / "few", 4), "few")
    many = _writes(store, settings, embedder, _corpus(tmp_path / "many", 40), "many")
    # Per document each of begin, clear, chunks, mentions and finish used to be a statement: 36 more documents
    # cost 300+ more. Batched, what grows is the derived graph's few row batches.
    assert many - few < 36, (few, many)
    assert store.read("MATCH (d:__Document__ {projectId: 'many'}) WHERE d.content_hash IS NULL RETURN d") == []

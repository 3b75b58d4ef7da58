"""Many small documents: the indexer writes them in batches, so the write statements do not grow per document.

Why a count, not a time: each statement is its own write transaction (on Neo4j a commit), and ~10 per document
made a corpus of thousands of short passages several times slower per word than long documents. The figure
lives in benchmarks/corpus.py --small; this checks the shape that gives it, on both backends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

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

    def counted(cypher: str, params: object = None, **kwargs: Any) -> object:
        sent.append(cypher)
        return query(cypher, params, **kwargs)  # type: ignore[arg-type]

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


#: What clears a document before it is written again: its old chunks, symbols, tools and servers, links, references.
CLEARING = ("DETACH DELETE c", "DETACH DELETE s", "DETACH DELETE t", "(:URL) DELETE r", "SET d.references = null")


def _cleared(store: GraphStore, settings: Settings, embedder: Embedder, folder: Path) -> list[list[str]]:
    """The document ids each clearing statement of one indexing run of `folder` was sent for."""
    cleared: list[list[str]] = []
    write_batch = store.write_batch  # every row batch goes through it (FalkorDB's does not call `query`)

    def counted(cypher: str, rows: Sequence[Mapping[str, Any]], batch_size: int = 500, **kwargs: Any) -> int:
        if any(clause in cypher for clause in CLEARING):
            cleared.append([row["id"] for row in rows])
        return write_batch(cypher, rows, batch_size, **kwargs)

    store.write_batch = counted  # type: ignore[method-assign]
    try:
        report = run_index(settings, store, embedder, [folder], project="p")
    finally:
        del store.write_batch
    assert not report.issues
    return cleared


def test_a_cold_load_sends_no_clearing_statements_and_a_rewrite_clears_only_its_document(
    store: GraphStore, settings: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    folder = _corpus(tmp_path / "docs", 6)
    # Documents the graph did not hold own nothing: no statement clears them (one per kind and batch did).
    assert _cleared(store, settings, embedder, folder) == []
    (folder / "passage-002.txt").write_text("Passage two. Grace Hopper wrote a compiler at Remington Rand.\n", "utf-8")
    cleared = _cleared(store, settings, embedder, folder)
    edited = store.read(
        "MATCH (d:__Document__ {projectId: 'p'}) WHERE d.path ENDS WITH 'passage-002.txt' RETURN d.id AS id"
    )
    assert len(cleared) == len(CLEARING) + 1 and all(ids == [edited[0]["id"]] for ids in cleared), cleared
    texts = store.read("MATCH (c:__Chunk__ {projectId: 'p'}) RETURN c.text AS text")
    assert len(texts) == 6 and sum("Grace Hopper" in row["text"] for row in texts) == 1, texts  # the old chunk is gone

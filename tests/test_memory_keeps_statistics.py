"""A conversation's memory write keeps the keyword statistics the searches cached for other labels.

Why: every write dropped every label's statistics (size, sample and, on Neo4j, the table of the fulltext index's
terms, `doc_freq`), and a conversation stores each turn as memory, so the next question re-read the chunks' and the
entities' though the turn changed neither. A write that names the one label it writes (`GraphStore.query`'s
`writes`) drops that label's only; any other write still drops all of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.conversation.memory import MemoryMessage, MemoryStore, Scope
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore
from tests.conftest import count_reads
from tests.curie_corpus import written

PROJECT = "kept"
DOCUMENTS = {
    "river.txt": "The Vistula flows through Warsaw, Kraków and Gdańsk. Its delta was drained by Mennonites.",
    "lab.txt": "India's National Physical Laboratory is in New Delhi. Its scientists study metrology.",
}


def _statistics_reads(reads: list[str]) -> list[str]:
    """The statements `bm25.LabelStats.read` sends: a label's size and its sample."""
    return [r for r in reads if r.startswith("MATCH (n:") and ("RETURN count(n) AS n" in r or r.endswith(" AS text"))]


def test_a_memory_write_keeps_the_searched_labels_statistics(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    *,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_index(settings, store, embedder, [written(tmp_path, DOCUMENTS)], project=PROJECT)
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    memory = MemoryStore(store, settings, embedder)
    scope = Scope(user_id="analyst", thread_id="t1")
    memory.add(scope, [MemoryMessage(text="Where does the Vistula flow?", role="user")])  # its schema, once
    retrieve(ctx, "Where does the Vistula flow?", params, walk=False)  # the labels' statistics read and cached

    memory.add(scope, [MemoryMessage(text="Where is the National Physical Laboratory?", role="user")])
    reads = count_reads(store, monkeypatch)
    retrieve(ctx, "Where is the National Physical Laboratory?", params, walk=False)
    monkeypatch.undo()
    assert reads and not _statistics_reads(reads), reads

    store.query(f"MATCH (c:{settings.chunk_label}) WITH c LIMIT 1 SET c.seen = true")  # names no label: drops all
    reads = count_reads(store, monkeypatch)
    retrieve(ctx, "Who drained the delta?", params, walk=False)
    monkeypatch.undo()
    assert _statistics_reads(reads), reads

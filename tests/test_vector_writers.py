"""Every writer of embedder vectors outside the indexing pipeline (re-embedding, the importers, the memory store)
sends the embedder's float32 rows as the pipeline does (tests/test_vector_rows.py), and the graph holds each row's
very bits, on both backends. Why: one form in, so no writer's vectors can drift from another's by a rounding."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from retrieval.config import Settings
from retrieval.conversation.memory import MemoryMessage, MemoryStore, Scope
from retrieval.embed import Embedder
from retrieval.indexing.reembed import reembed
from retrieval.store import GraphStore

TEXTS = ["Marie Curie was born in Warsaw.", "The Vistula flows through Warsaw.", "Sourdough bakes at 220 degrees."]


def _sent_vectors(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The vectors (`v` or `embedding` of a row) of every `write_batch` from now on, as they were sent."""
    sent: list[object] = []
    write_batch = store.write_batch

    def spied(cypher: str, rows: Sequence[Mapping[str, Any]], *args: Any, **kwargs: Any) -> int:
        sent.extend(row[key] for row in rows for key in ("v", "embedding") if key in row)
        return write_batch(cypher, rows, *args, **kwargs)

    monkeypatch.setattr(store, "write_batch", spied)
    return sent


def _assert_rows(sent: list[object], count: int) -> None:
    assert len(sent) == count
    assert all(isinstance(v, np.ndarray) and v.dtype == np.float32 and v.ndim == 1 for v in sent), sent


def _assert_bits(store: GraphStore, label: str, text_property: str, embedder: Embedder) -> None:
    """Each `label` node's stored vector is its text's embedder row, bit for bit (-0.0 apart from 0.0)."""
    rows = store.read(
        f"MATCH (n:`{label}`) RETURN n.`{text_property}` AS text, n.`{store.settings.embedding_property}` AS v"
    )
    assert sorted(str(row["text"]) for row in rows) == sorted(TEXTS)
    stored = np.array([row["v"] for row in rows], dtype=np.float32)
    expected = np.vstack([embedder.embed([str(row["text"])]) for row in rows])
    assert np.array_equal(stored.view(np.uint32), expected.view(np.uint32))


def test_memories_are_stored_as_the_embedders_rows(
    store: GraphStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = MemoryStore(store, store.settings, embedder)
    sent = _sent_vectors(store, monkeypatch)
    memory.add(Scope(user_id="u"), [MemoryMessage(text=text, role="user") for text in TEXTS])
    _assert_rows(sent, len(TEXTS))
    _assert_bits(store, store.settings.memory_label, "text", embedder)


def test_reembedded_nodes_are_stored_as_the_embedders_rows(
    settings: Settings, store: GraphStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph another tool wrote (chunks without vectors) re-embedded (`reembed`)."""
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{settings.chunk_label}` {{id: row.id, `{settings.text_property}`: row.text}})",
        [{"id": f"c{i}", "text": text} for i, text in enumerate(TEXTS)],
    )
    sent = _sent_vectors(store, monkeypatch)
    assert reembed(settings, store, embedder).embedded[settings.chunk_label] == len(TEXTS)
    _assert_rows(sent, len(TEXTS))
    _assert_bits(store, settings.chunk_label, settings.text_property, embedder)

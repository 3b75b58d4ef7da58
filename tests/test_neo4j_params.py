"""Vectors reach the Neo4j driver as `Vector`s: packed as lists, never turned into text by its debug line."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from neo4j._codec.packstream.v1 import _rust_pack

from retrieval.embed import Embedder
from retrieval.store import GraphStore
from retrieval.store.neo4j_params import Vector, quiet


def test_float_lists_and_arrays_become_vectors_with_a_short_repr() -> None:
    vector = [0.25] * 384
    rows = [{"id": "c1", "v": np.full(384, 0.5, dtype=np.float32)}, {"id": "c2", "v": vector}]
    sent = quiet({"q": vector, "rows": rows, "m": np.ones((2, 3)), "ids": ["a", "b"], "k": 3, "none": []})
    assert isinstance(sent["q"], Vector) and sent["q"] == vector
    assert [type(row["v"]) for row in sent["rows"]] == [Vector, Vector]
    assert sent["rows"][0]["v"] == [0.5] * 384 and sent["rows"][0]["id"] == "c1"
    assert sent["m"] == [[1.0] * 3] * 2 and isinstance(sent["m"][0], Vector)
    assert sent["ids"] == ["a", "b"] and not isinstance(sent["ids"], Vector)
    assert sent["k"] == 3 and sent["none"] == []
    assert repr(sent["q"]) == "<vector of 384 floats>"
    assert len(repr(sent)) < 400


def test_the_driver_packs_with_its_rust_extension() -> None:
    """`neo4j-rust-ext` is a runtime dependency: without it each 384-float vector costs ~2 ms to pack."""
    assert _rust_pack is not None


@pytest.mark.neo4j_only
@pytest.mark.usefixtures("backend")
def test_a_search_sends_its_vector_without_printing_it(
    search_store: GraphStore, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """The driver's "C: RUN" line holds the parameters: the vector shows as one short mark, not its floats."""
    vector = embedder.embed_query("What did the guest say about chiplets?")
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        assert search_store.vector_search(search_store.settings.chunk_label, vector, 3)
    runs = [r.getMessage() for r in caplog.records if "C: RUN" in r.getMessage()]
    assert runs, "the driver logged no RUN line"
    assert any(f"<vector of {len(vector)} floats>" in line for line in runs)
    assert not any(repr(vector[0]) in line or repr(vector[-1]) in line for line in runs)

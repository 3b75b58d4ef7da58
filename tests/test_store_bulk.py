"""Bulk writes on both backends: every parameter arrives exactly as sent, in every batch, whatever its type."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.errors import QueryError
from retrieval.store import GraphStore

DIM = 8
AWKWARD = ['say "hi"', "back\\slash", "new\nline", "tab\there", "unicode: é ü 中文 🙂", "", "it's", "`tick`"]


def _rows() -> list[dict[str, object]]:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(len(AWKWARD), DIM)).astype(np.float32)
    return [
        {
            "id": f"n{i}",
            "text": text,
            "n": i,
            "big": 2**53 + i,
            "ratio": 1 / (i + 3),
            "flag": i % 2 == 0,
            "none": None,
            "tags": [text, "x"],
            "meta": {"when": f"2026-0{i % 9 + 1}-01", "scores": [0.5, i]},
            # float32 arrays (the cheap way in) and Python floats (what the indexer sends) both stay exact
            "v": vectors[i] if i % 2 else vectors[i].astype(np.float64).tolist(),
            "expected": vectors[i],
        }
        for i, text in enumerate(AWKWARD)
    ]


def test_every_parameter_arrives_exactly_in_every_batch(store: GraphStore) -> None:
    label = store.settings.chunk_label
    rows = _rows()
    sent = store.write_batch(
        f"UNWIND $rows AS row CREATE (c:`{label}` {{id: row.id, text: row.text, n: row.n, big: row.big, "
        "ratio: row.ratio, flag: row.flag, none: row.none, tags: row.tags, when: row.meta.when, "
        f"scores: row.meta.scores}}) SET c.embedding = {store.vec('row.v')}",
        [{k: v for k, v in row.items() if k != "expected"} for row in rows],
        batch_size=3,  # three batches: the next one is encoded while the last is stored
    )
    assert sent == len(rows)
    stored = {
        r["id"]: r
        for r in store.read(
            f"MATCH (c:`{label}`) RETURN c.id AS id, c.text AS text, c.n AS n, c.big AS big, c.ratio AS ratio, "
            "c.flag AS flag, c.none AS none, c.tags AS tags, c.when AS when, c.scores AS scores, "
            "c.embedding AS embedding"
        )
    }
    assert len(stored) == len(rows)
    for row in rows:
        got = stored[str(row["id"])]
        assert (got["text"], got["n"], got["big"]) == (row["text"], row["n"], row["big"])
        assert got["ratio"] == pytest.approx(row["ratio"], rel=1e-14)  # FalkorDB replies with 15 digits
        assert (got["flag"], got["none"], got["tags"]) == (row["flag"], None, row["tags"])
        assert (got["when"], got["scores"]) == (row["meta"]["when"], row["meta"]["scores"])  # type: ignore[index]
        assert np.array_equal(np.asarray(got["embedding"], dtype=np.float32), row["expected"])


def test_a_failing_batch_stops_the_write_with_the_database_error(store: GraphStore) -> None:
    label = store.settings.chunk_label
    rows = [{"id": f"n{i}", "d": 1 if i != 4 else 0} for i in range(8)]
    with pytest.raises(QueryError):
        store.write_batch(f"UNWIND $rows AS row CREATE (:`{label}` {{id: row.id, x: 1 / row.d}})", rows, batch_size=2)
    ids = {r["id"] for r in store.read(f"MATCH (c:`{label}`) RETURN c.id AS id")}
    assert ids == {"n0", "n1", "n2", "n3"}  # the batches before the failing one, none after it

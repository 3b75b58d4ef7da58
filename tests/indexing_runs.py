"""What the indexing tests share: a three-document corpus, a fresh graph per test on each backend to index it into,
a dump of a graph to compare two runs by, an embedder that records what a run embedded, and the error a test kills
a run with. The embedder fixture is conftest's (the process's one memoised local model)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.store import GraphStore, open_store
from tests.backends import Occupant
from tests.conftest import make_settings

DOCS = {
    "gates.txt": (
        "Bill Gates founded Microsoft with Paul Allen in Albuquerque. Gates later led the Gates Foundation, "
        "which works on malaria and polio vaccines. Microsoft built Windows and Office.\n\n"
        "Paul Allen loved guitars and started the Allen Institute in Seattle. Gates and Allen met at Lakeside School."
    ),
    "su.txt": (
        "Lisa Su is the chief executive of AMD in Santa Clara. AMD designs processors and graphics chips. "
        "Lisa Su studied electrical engineering at MIT.\n\n"
        "Under Lisa Su, AMD competed with Intel and Nvidia in data centers. TSMC manufactures AMD chips in Taiwan."
    ),
    "murati.txt": (
        "Mira Murati worked at Tesla on the Model X before joining OpenAI in San Francisco. "
        "At OpenAI she led the teams behind ChatGPT and DALL-E.\n\n"
        "Mira Murati grew up in Albania and studied mechanical engineering at Dartmouth College."
    ),
}


def write_corpus(folder: Path, docs: dict[str, str] = DOCS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


@pytest.fixture
def graph(tmp_path: Path, backend: str) -> Iterator[tuple[Settings, GraphStore]]:
    settings = make_settings(tmp_path / "db", backend, chunk_tokens=48, max_community_size=4)
    (tmp_path / "db").mkdir()
    with open_store(settings) as store:
        Occupant.own(store)
        yield settings, store
        Occupant.release(store)


#: Properties that legitimately differ between two runs over the same input.
VOLATILE = frozenset({"updated_at", "ingested_at", "indexed_at", "last_run"})


Dump = tuple[list[Any], list[Any], dict[str, np.ndarray]]


def dump(store: GraphStore) -> Dump:
    """Every node and relationship with its properties, and the vectors by node id as float32 rows (compared bit for
    bit: `assert_same_graph`)."""
    vectors: dict[str, np.ndarray] = {}

    def clean(props: dict[str, Any]) -> str:
        if "embedding" in props:
            vectors[props["id"]] = np.asarray(props["embedding"], dtype=np.float32)
        kept = {k: v for k, v in props.items() if k not in VOLATILE and k != "embedding"}
        return json.dumps(kept, sort_keys=True, default=str)

    nodes = store.query("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
    rels = store.query("MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS props")
    return (
        sorted((str(r["labels"]), clean(r["props"])) for r in nodes),
        sorted((r["a"], r["t"], r["b"], clean(r["props"])) for r in rels),
        vectors,
    )


def assert_same_graph(a: Dump, b: Dump) -> None:
    nodes_a, rels_a, vectors_a = a
    nodes_b, rels_b, vectors_b = b
    assert nodes_a == nodes_b
    assert rels_a == rels_b
    assert sorted(vectors_a) == sorted(vectors_b)
    # Bit for bit: the stored vectors are the embedder's float32 rows (tests/test_vector_rows.py), and the suite's
    # embedder gives a text one row per process (tests/model_memo.py), whatever batch it comes in (the model alone
    # may move a row's last bits with its batch: tests/test_embed.py). So a vector that moved moved for a cause.
    for key, vector in vectors_a.items():
        assert vector.tobytes() == vectors_b[key].tobytes(), key


def ids(store: GraphStore, label: str) -> list[str]:
    return sorted(r["id"] for r in store.query(f"MATCH (n:{label}) RETURN n.id AS id"))


class RecordingEmbedder(Embedder):
    """The real embedder, keeping every text it was given: which chunks, entities and communities a run embedded."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts: list[str] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)


class KilledError(Exception):
    pass

"""Same answers on both backends: one corpus indexed into embedded FalkorDB and into Neo4j.

Hybrid search must return the same top-5 chunks (or a difference the keyword index explains), every label and
relationship type the same count, and `stats --json` the same document. Both stores score keywords with the same
BM25 (retrieval/store/bm25.py) and vectors by exact cosine on a graph this small.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.cli import main
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, open_store
from tests.backends import FALKORDB, Occupant
from tests.conftest import CAROL, backend_env, make_settings

pytestmark = [pytest.mark.neo4j_only, pytest.mark.usefixtures("backend")]
PROJECT = "agree"
QUESTIONS = (
    "Who was Marley and when did he die?",
    "What did Scrooge say about Christmas?",
    "Bob Cratchit's fire in the counting-house",
    "the nephew's invitation to dinner",
    "Scrooge buys the prize turkey",
)
SHARED_GRAPHS = ("both",)

Pair = tuple[tuple[Settings, GraphStore], tuple[Settings, GraphStore]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("agree-docs")
    lines = CAROL.read_text(encoding="utf-8").splitlines()
    (folder / "stave-one.txt").write_text("\n".join(lines[194:420]), encoding="utf-8")
    (folder / "stave-five.txt").write_text("\n".join(lines[3279:3420]), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def both(
    tmp_path_factory: pytest.TempPathFactory, backend: str, corpus: Path, embedder: Embedder
) -> Iterator[tuple[Pair, GraphStore]]:
    """The corpus indexed into an embedded graph and into `backend` (Neo4j); the Neo4j store second."""
    stores: list[tuple[Settings, GraphStore]] = []
    for name in (FALKORDB, backend):
        settings = make_settings(tmp_path_factory.mktemp(f"agree-{name}"), name, project=PROJECT)
        stores.append((settings, open_store(settings)))
    try:
        for settings, store in stores:
            Occupant.own(store, lambda g, s=settings: run_index(s, g, embedder, [corpus], project=PROJECT))
        yield (stores[0], stores[1]), stores[1][1]
    finally:
        for _settings, store in stores:
            Occupant.release(store)
            store.close()


def test_hybrid_search_returns_the_same_top_5(both: tuple[Pair, GraphStore], embedder: Embedder) -> None:
    """Equal top 5, or a difference the keyword arm explains: the vector arm must agree exactly.

    Both stores re-score keyword candidates with the same BM25, but each counts a term's documents with its own
    index: RediSearch stems with Snowball, Neo4j's English analyser with Porter, so a stemmed term ("invitation",
    "counting") can get another document frequency and the fused order of near-ties can change.
    """
    (embedded, neo4j), _ = both
    unexplained, differing = [], 0
    for question in QUESTIONS:
        found, vector_arm, keyword_arm = [], [], []
        for settings, store in (embedded, neo4j):
            ctx = Context(settings, store, embedder, None, PROJECT)
            params = QueryParams.from_settings(settings, top_k=5, search_type="hybrid")
            found.append([hit.id for hit in retrieve(ctx, question, params, walk=False).chunks])
            query = [float(x) for x in embedder.embed_query(question)]
            vector_arm.append([(h.id, round(h.score, 4)) for h in store.vector_search(settings.chunk_label, query, 10)])
            keyword_arm.append([h.id for h in store.fulltext_search(settings.chunk_label, question, 10)])
        assert vector_arm[0] == vector_arm[1], f"{question!r}: the vector arms differ"
        if found[0] != found[1]:
            differing += 1
            assert len(set(found[0]) & set(found[1])) >= 3, f"{question!r}: {found[0]} vs {found[1]}"
            if keyword_arm[0] == keyword_arm[1]:
                unexplained.append(f"{question!r}: falkordb {found[0]} != neo4j {found[1]}, same keyword arm")
    assert not unexplained, "\n".join(unexplained)
    assert differing <= len(QUESTIONS) // 2, f"{differing} of {len(QUESTIONS)} questions rank differently"


def test_counts_per_label_and_relationship_type_agree(both: tuple[Pair, GraphStore]) -> None:
    (embedded, neo4j), _ = both

    def shape(store: GraphStore) -> tuple[dict[str, int], dict[str, int]]:
        labels = {r["l"]: r["n"] for r in store.read("MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS n")}
        types = {r["t"]: r["n"] for r in store.read("MATCH ()-[r]->() RETURN type(r) AS t, count(r) AS n")}
        return labels, types

    assert shape(embedded[1]) == shape(neo4j[1])
    assert embedded[1].counts() == neo4j[1].counts()


def test_stats_json_is_identical(
    both: tuple[Pair, GraphStore], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (embedded, neo4j), _ = both
    documents = []
    for settings, _store in (embedded, neo4j):
        for name, value in backend_env(settings).items():
            monkeypatch.setenv(name, value)
        assert main(["stats", "--graph", str(settings.embedded_graph_path), "--project", PROJECT, "--json"]) == 0
        documents.append(json.loads(capsys.readouterr().out))
    assert documents[0] == documents[1]
    assert documents[0]["chunks"] > 10 and documents[0]["entities"] > 10

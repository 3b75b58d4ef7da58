"""Indexing with Qdrant (local mode) as the vector store: the graph and Qdrant never disagree on which chunks,
entities and communities exist, through edits, deletes and a killed run; search works unchanged on top."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.cli import main
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.errors import IndexMissing
from retrieval.indexing import IndexReport, StageProgress, pipeline, remove_document, run_index
from retrieval.models import QueryParams
from retrieval.search.communities import search_communities
from retrieval.search.hybrid import search_chunks
from retrieval.search.ranking import missing_data, retrieve
from retrieval.store import GraphStore, open_store
from retrieval.store.qdrant import QdrantVectors
from tests.indexing_runs import KilledError, write_corpus

PROJECT = "q"


@pytest.fixture
def qdrant_settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(
        update={
            "vector_store": "qdrant",
            "qdrant_path": tmp_path / "qdrant",
            "chunk_tokens": 48,
            "max_community_size": 4,
        }
    )


@pytest.fixture
def qstore(qdrant_settings: Settings) -> Iterator[GraphStore]:
    with open_store(qdrant_settings) as store:
        yield store


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


def assert_clean(report: IndexReport) -> None:
    """A run that was not killed deletes every point itself: the safety net at its end finds nothing."""
    assert report.written["vectors_dropped"] == 0


def assert_agree(store: GraphStore) -> None:
    """Same ids (hence the same count) per label in the graph and in Qdrant, and no vectors left in the graph."""
    s, vectors = store.settings, store.vectors
    assert isinstance(vectors, QdrantVectors)
    for label in (s.chunk_label, s.entity_label, s.community_label):
        graph_ids = {
            r["id"] for r in store.read(f"MATCH (n:`{label}` {{projectId: $p}}) RETURN n.id AS id", {"p": PROJECT})
        }
        assert graph_ids, label
        assert vectors.ids(label, PROJECT) == graph_ids, label
        assert vectors.client.count(vectors.collection(label), exact=True).count == len(graph_ids), label
    in_graph = store.read(
        f"MATCH (n) WHERE n.{s.embedding_property} IS NOT NULL AND n.projectId = $p RETURN n.id AS id", {"p": PROJECT}
    )
    assert in_graph == []


def test_graph_and_qdrant_agree_through_edits_and_deletes(qdrant_settings, qstore, corpus, embedder) -> None:
    run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    assert_agree(qstore)
    (corpus / "murati.txt").write_text(
        "Mira Murati founded Thinking Machines Lab after leaving OpenAI.", encoding="utf-8"
    )
    report = run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    assert report.updated == ["corpus/murati.txt"]
    assert_clean(report)
    assert_agree(qstore)
    (corpus / "su.txt").unlink()
    report = run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    assert report.deleted == ["corpus/su.txt"]
    assert_clean(report)
    assert_agree(qstore)
    assert_clean(remove_document(qdrant_settings, qstore, embedder, "corpus/murati.txt", project=PROJECT))
    assert_agree(qstore)
    chunks = qstore.vectors.ids(qdrant_settings.chunk_label, PROJECT)
    assert chunks and all(c.startswith(_doc_id(qstore, "corpus/gates.txt")) for c in chunks)


@pytest.mark.parametrize(("stage", "at"), [("write", 1), ("describe", 0), ("summaries", 1)])
def test_graph_and_qdrant_agree_after_a_killed_run(qstore, corpus, embedder, stage, at, monkeypatch) -> None:  # noqa: PLR0917
    """Documents are written in batches and the write stage ticks per batch: one document per batch here, so the
    write-stage kill lands between two written documents."""
    monkeypatch.setattr(pipeline, "WRITE_BATCH_CHUNKS", 1)
    qdrant_settings = qstore.settings

    def kill(event: StageProgress) -> None:
        if event.stage == stage and event.done == at:
            raise KilledError(stage)

    run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    (corpus / "murati.txt").write_text("Mira Murati founded Thinking Machines Lab in San Francisco.", encoding="utf-8")
    (corpus / "su.txt").unlink()
    write_corpus(corpus, {"huang.txt": "Jensen Huang co-founded Nvidia in Santa Clara. Nvidia makes GPUs."})
    with pytest.raises(KilledError):
        run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT, on_progress=kill)
    run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    assert_agree(qstore)


def test_orphan_points_of_a_run_killed_between_the_two_deletes_are_dropped(qdrant_settings, qstore, corpus, embedder):
    """The graph delete happens first; a run killed before the Qdrant delete leaves points the next run drops."""
    run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    s = qdrant_settings
    qstore.query(f"MATCH (e:`{s.entity_label}` {{id: $id}}) DETACH DELETE e", {"id": f"{PROJECT}:amd"})
    qstore.query(f"MATCH (p:`{s.project_label}` {{id: $p}}) SET p.communities_dirty = true", {"p": PROJECT})
    assert f"{PROJECT}:amd" in qstore.vectors.ids(s.entity_label, PROJECT)
    report = run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    assert report.written["vectors_dropped"] >= 1
    assert_agree(qstore)


def test_search_on_qdrant_matches_search_in_the_graph(qdrant_settings, qstore, corpus, embedder, tmp_path) -> None:
    """Vector, filtered and hybrid search, the bridge and expansion, and community search give the same results
    on either store (Qdrant's local mode is exact; the graph's HNSW is exact at this size).

    The in-graph copy is project `qg` (Neo4j has one database for both stores), so ids are compared by path."""
    graph_settings = qdrant_settings.model_copy(
        update={"vector_store": "graph", "graph_path": tmp_path / "g.db", "data_dir": tmp_path / "g"}
    )
    (tmp_path / "g").mkdir()
    run_index(qdrant_settings, qstore, embedder, [corpus], project=PROJECT)
    with open_store(graph_settings) as gstore:
        run_index(graph_settings, gstore, embedder, [corpus], project="qg")
        results = []
        for settings, store, project in ((qdrant_settings, qstore, PROJECT), (graph_settings, gstore, "qg")):
            ctx = Context(settings, store, embedder, None, project)
            doc = _doc_id(store, "corpus/su.txt", project)
            paths = {_doc_id(store, f"corpus/{name}", project): name for name in ("su.txt", "gates.txt", "murati.txt")}

            def same(node_id: str, paths: dict[str, str] = paths, project: str = project) -> str:
                head, _, n = node_id.partition(":")
                return f"{paths[head]}:{n}" if head in paths else node_id.removeprefix(f"{project}:")

            runs = []
            for search_type, filters in (("vector", {}), ("hybrid", {}), ("vector", {"document_id": doc})):
                params = QueryParams.from_settings(settings, search_type=search_type, top_k=3, filters=filters)
                runs.append([same(h.id) for h in search_chunks(ctx, "Who makes chips for AMD?", params)])
            found = retrieve(ctx, "Who makes chips for AMD?", QueryParams.from_settings(settings, top_k=3), walk=True)
            runs.append([same(h.id) for h in found.chunks] + sorted(same(e.id) for e in found.expansion.entities))
            vector = embedder.embed_query("chip makers")
            # A community repeated at two levels (same members, same report) ties: order ties by title.
            runs.append(sorted((-round(h.score, 4), h.metadata["title"]) for h in search_communities(ctx, vector, 3)))
            results.append(runs)
        assert results[0] == results[1]
        assert results[0][2] and all(i.startswith("su.txt:") for i in results[0][2])
        assert len(results[0][3]) > 3 and results[0][4]


def test_a_graph_indexed_with_its_vectors_in_the_graph_asks_for_a_reindex(settings, corpus, embedder, tmp_path) -> None:
    """Switching DRIFTLENS_VECTOR_STORE on an existing graph: one clear message, not an empty answer."""
    with open_store(settings) as store:
        run_index(settings, store, embedder, [corpus], project=PROJECT)
    qdrant = settings.model_copy(update={"vector_store": "qdrant", "qdrant_path": tmp_path / "fresh"})
    reindex = "re-index the project with DRIFTLENS_VECTOR_STORE=qdrant"
    with open_store(qdrant) as store, pytest.raises(IndexMissing, match=reindex):
        missing_data(Context(qdrant, store, embedder, None, PROJECT))


def test_cli_indexes_and_answers_with_qdrant(corpus, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # no .env from the repository
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "NEO4J_URI", "REDIS_URL", "QDRANT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DRIFTLENS_VECTOR_STORE", "qdrant")
    monkeypatch.setenv("DRIFTLENS_DATA_DIR", str(tmp_path / "state"))
    where = ["--graph", str(tmp_path / "cli.db"), "--project", PROJECT]
    assert main(["index", str(corpus), *where]) == 0
    assert {p.name for p in (tmp_path / "state" / "qdrant" / "collection").iterdir()} == {
        "driftlens_chunk",
        "driftlens_entity",
        "driftlens_community",
    }
    capsys.readouterr()
    assert main(["search", "Who runs AMD?", "--json", "--top-k", "2", *where]) == 0
    assert json.loads(capsys.readouterr().out)[0]["document"] == "su"
    # The expansion knobs are accepted (the budget itself is tested where a walk can spend it).
    assert (
        main(["ask", "Who runs AMD?", "--json", "--trace", "--drift-budget", "0.5", "--direction", "out", *where]) == 0
    )
    answer = json.loads(capsys.readouterr().out)
    details = next(step for step in answer["trace"] if step["id"] == "search")["details"]
    assert "Lisa Su" in details["seed_entities"] and details["budget_exhausted"] is False
    assert any(fact["citations"] and "AMD" in fact["fact"] for fact in answer["key_facts"])


def _doc_id(store: GraphStore, path: str, project: str = PROJECT) -> str:
    rows = store.read(
        "MATCH (d:__Document__ {path: $p, projectId: $project}) RETURN d.id AS id", {"p": path, "project": project}
    )
    return str(rows[0]["id"])

"""Importers on the real fixtures (tests/fixtures, in the repository so that any clone runs these tests; their
READMEs say where they come from), the real embedded FalkorDB and the real ONNX embedder: counts match the source
files, a second import duplicates nothing, and the imported graphs are searchable (vector, fulltext, communities)
like native ones."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from retrieval.cli import main
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder, make_embedder
from retrieval.errors import DriftLensError, EmbeddingMismatch
from retrieval.indexing import graph_stats
from retrieval.indexing.importers.common import ImportReport
from retrieval.indexing.importers.graphrag import import_graphrag
from retrieval.indexing.importers.neo4j_kg import import_kg
from retrieval.indexing.model import slug
from retrieval.models import QueryParams
from retrieval.search.communities import community_levels, search_communities
from retrieval.search.evidence import sentences
from retrieval.search.hybrid import search_chunks
from retrieval.store import GraphStore, open_store
from tests.backends import Occupant
from tests.conftest import backend_env, make_settings

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GRAPHRAG = FIXTURES / "graphrag-operation-dulce"
KG = FIXTURES / "neo4j-genai-workshop-kg"
KG_FILES = sorted(KG.glob("*.json"))
#: Chunks per document kept from the neo4j-graphrag fixture: the small filing whole (5), the large one cut (27 -> 8).
KG_LIMIT = 8

SHARED_GRAPHS = ("dulce", "sec")
Imported = tuple[Settings, GraphStore, Embedder, ImportReport, ImportReport]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return make_embedder(make_settings(Path("/nonexistent")))


def shape(store: GraphStore) -> tuple[Counter[str], Counter[str]]:
    """Nodes per label and relationships per type: what a duplicating import would change."""
    nodes = Counter({r["l"]: r["n"] for r in store.read("MATCH (n) RETURN labels(n)[0] AS l, count(n) AS n")})
    rels = Counter({r["t"]: r["n"] for r in store.read("MATCH ()-[r]->() RETURN type(r) AS t, count(r) AS n")})
    return nodes, rels


def imported(tmp: Path, backend: str, project: str, embedder: Embedder, run: Any) -> Iterator[Imported]:
    """Import twice into a fresh graph; yield both reports (the second must change nothing)."""
    settings = make_settings(tmp, backend, project=project)
    reports: list[Any] = []

    def build(store: GraphStore) -> None:
        reports[:] = [run(settings, store, embedder)]
        before = shape(store)
        reports.append(run(settings, store, embedder))
        assert shape(store) == before

    with open_store(settings) as store:
        Occupant.own(store, build)
        yield settings, store, embedder, reports[0], reports[1]
        Occupant.release(store)


@pytest.fixture(scope="module")
def dulce(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, backend: str) -> Iterator[Imported]:
    yield from imported(
        tmp_path_factory.mktemp("dulce"), backend, "dulce", embedder, lambda s, g, e: import_graphrag(s, g, e, GRAPHRAG)
    )


@pytest.fixture(scope="module")
def sec(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, backend: str) -> Iterator[Imported]:
    yield from imported(
        tmp_path_factory.mktemp("sec"),
        backend,
        "sec",
        embedder,
        lambda s, g, e: import_kg(s, g, e, KG_FILES, limit=KG_LIMIT),
    )


def context(graph: Imported) -> Context:
    settings, store, embedder, _first, _second = graph
    return Context(settings, store, embedder, None, settings.project)


def chunks(store: GraphStore, project: str) -> dict[str, dict[str, Any]]:
    rows = store.read(
        "MATCH (d:__Document__)-[:HAS_CHUNK]->(c:__Chunk__ {projectId: $p}) "
        "RETURN c.id AS id, c.text AS text, c.n AS n, c.start AS start, c.end AS end, c.document_id AS doc, "
        "d.id AS parent, d.projectId AS doc_project",
        {"p": project},
    )
    return {row["id"]: row for row in rows}


def probe(text: str) -> str:
    """A sentence of `text` clear of the overlap with its neighbours and inside the 256 tokens the embedder reads."""
    return next(s for s in sentences(text) if 600 <= text.index(s) <= 1000 and len(s.split()) >= 8)


def assert_found(ctx: Context, chunk_id: str, text: str) -> None:
    query = probe(text)
    for search_type in ("vector", "fulltext"):
        hits = search_chunks(ctx, query, QueryParams.from_settings(ctx.settings, search_type=search_type, top_k=3))
        assert hits and hits[0].id == chunk_id, (search_type, query, [h.id for h in hits])


# --- Microsoft GraphRAG ----------------------------------------------------------------------------------


def test_graphrag_counts_match_the_parquet_files(dulce: Imported) -> None:
    settings, store, embedder, first, _second = dulce
    entities = pd.read_parquet(GRAPHRAG / "entities.parquet")
    relationships = pd.read_parquet(GRAPHRAG / "relationships.parquet")
    known = set(entities["title"])
    linked = relationships[relationships["source"].isin(known) & relationships["target"].isin(known)]
    stats = graph_stats(store, settings, "dulce")
    assert stats["documents"] == len(pd.read_parquet(GRAPHRAG / "documents.parquet"))
    assert stats["chunks"] == len(pd.read_parquet(GRAPHRAG / "text_units.parquet"))
    assert stats["entities"] == len(entities)
    assert stats["relationships"] == len(linked) < len(relationships)
    assert sum(stats["communities"].values()) == len(pd.read_parquet(GRAPHRAG / "communities.parquet"))
    assert first.read["relationships"] == len(linked)
    assert "ELEVATOR" in first.notes[0]
    mentions = store.read("MATCH (:__Chunk__)-[r:HAS_ENTITY]->(:__Entity__) RETURN count(r) AS n")[0]["n"]
    assert mentions == sum(len(units) for units in entities["text_unit_ids"])
    project = store.read("MATCH (p:__Project__ {id: 'dulce'}) RETURN p.name AS name, p.embedder AS e, p.dim AS dim")
    assert project == [{"name": "dulce", "e": embedder.name, "dim": embedder.dim}]
    unscoped = store.read("MATCH (n) WHERE n.projectId IS NULL OR n.projectId <> 'dulce' RETURN count(n) AS n")
    assert unscoped[0]["n"] == 0


def test_graphrag_keeps_descriptions_and_reports_with_our_vectors(dulce: Imported) -> None:
    _settings, store, embedder, _first, _second = dulce
    entity = pd.read_parquet(GRAPHRAG / "entities.parquet").iloc[0]
    row = store.read(
        "MATCH (e:__Entity__ {title: $t}) RETURN e.type AS type, e.description AS d, e.embedding AS v",
        {"t": entity["title"]},
    )[0]
    assert (row["type"], row["d"]) == (entity["type"], entity["description"])
    assert len(row["v"]) == embedder.dim
    reports = pd.read_parquet(GRAPHRAG / "community_reports.parquet")
    stored = store.read("MATCH (k:__Community__) RETURN k.title AS t, k.summary AS s, k.rank AS r, k.full_content AS f")
    assert sorted((r["t"], r["s"], r["r"], r["f"]) for r in stored) == sorted(
        zip(reports["title"], reports["summary"], reports["rank"], reports["full_content"], strict=True)
    )
    pd_text = pd.read_parquet(GRAPHRAG / "documents.parquet")["text"][0]
    for chunk in chunks(store, "dulce").values():
        assert pd_text[chunk["start"] : chunk["end"]] == chunk["text"]


def test_graphrag_vectors_are_our_embedders_rows_bit_for_bit(dulce: Imported) -> None:
    """Chunks, entities and communities hold the embedder's float32 row of the text each was embedded from, to the
    bit, as the indexer's own (tests/test_vector_writers.py)."""
    _settings, store, embedder, _first, _second = dulce
    texts: dict[str, Callable[[dict[str, Any]], str]] = {
        "__Chunk__": lambda n: n["text"],
        "__Entity__": lambda n: f"{n['title']} ({n['type']}): {n['description']}",
        "__Community__": lambda n: f"{n['title']}\n{n['summary']}",
    }
    for label, text in texts.items():
        rows = store.read(f"MATCH (n:{label} {{projectId: 'dulce'}}) RETURN n {{.*}} AS n")
        assert rows, label
        stored = np.array([row["n"]["embedding"] for row in rows], dtype=np.float32)
        expected = np.vstack([embedder.embed([text(row["n"])]) for row in rows])
        assert np.array_equal(stored.view(np.uint32), expected.view(np.uint32)), label


def test_graphrag_community_hierarchy_is_leaf_first(dulce: Imported) -> None:
    """GraphRAG's root level becomes our top: level 0 holds every leaf, parents sit above their children."""
    ctx = context(dulce)
    table = pd.read_parquet(GRAPHRAG / "communities.parquet")
    reports = pd.read_parquet(GRAPHRAG / "community_reports.parquet").set_index("community")
    parents = table[table["children"].map(len) > 0]
    assert community_levels(ctx) == [0, 1]
    edges = ctx.store.read(
        "MATCH (c:__Community__)-[:IN_COMMUNITY]->(p:__Community__) RETURN c.level AS cl, p.level AS pl, p.title AS t"
    )
    assert len(edges) == sum(len(children) for children in parents["children"])
    assert {(e["cl"], e["pl"]) for e in edges} == {(0, 1)}
    assert {e["t"] for e in edges} == {reports.loc[c, "title"] for c in parents["community"]}
    homes = ctx.store.read(
        "MATCH (e:__Entity__) OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(k:__Community__) "
        "RETURN e.title AS e, collect(k.level) AS levels"
    )
    assert all(row["levels"] == [0] for row in homes)  # every fixture entity is in exactly one leaf
    chunk_links = ctx.store.read("MATCH (:__Chunk__)-[:IN_COMMUNITY]->(k:__Community__) RETURN DISTINCT k.level AS l")
    assert chunk_links == [{"l": 0}]
    top_level = [r["id"] for r in ctx.store.read("MATCH (k:__Community__ {level: 1}) RETURN k.id AS id")]
    found = search_communities(ctx, ctx.embedder.embed_query("Paranormal Military Squad at Dulce"), 3, level=1)
    assert [hit.id for hit in found] == top_level


def test_graphrag_chunk_is_found_by_vector_and_fulltext(dulce: Imported) -> None:
    ctx = context(dulce)
    stored = chunks(ctx.store, "dulce")
    chunk = next(c for c in stored.values() if c["n"] == 2)
    assert_found(ctx, chunk["id"], chunk["text"])


def test_graphrag_reimport_writes_the_same_graph(dulce: Imported) -> None:
    _settings, _store, _embedder, first, second = dulce
    assert first.read == second.read  # and `imported` checked node and relationship counts did not move


def test_graphrag_bad_folder_is_one_clear_error(tmp_path: Path, store: GraphStore, embedder: Embedder) -> None:
    folder = tmp_path / "output"
    folder.mkdir()
    with pytest.raises(DriftLensError, match=r"documents\.parquet is missing"):
        import_graphrag(store.settings, store, embedder, folder)
    pd.DataFrame({"id": ["d"], "title": ["t"]}).to_parquet(folder / "documents.parquet")
    with pytest.raises(DriftLensError, match="lacks the columns text"):
        import_graphrag(store.settings, store, embedder, folder)


# --- neo4j-graphrag SimpleKGPipeline -------------------------------------------------------------------------


def kg_source(limit: int) -> tuple[int, set[str], int]:
    """From the JSON alone: chunks kept, entity names in them (resolved like ours), and their FROM_CHUNK mentions."""
    kept_chunks, names, mentions = 0, set(), set()
    for path in KG_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        nodes = {n["id"]: n for n in data["nodes"]}
        kept = {n["id"] for n in data["nodes"] if n["label"] == "Chunk" and n["properties"]["index"] < limit}
        kept_chunks += len(kept)
        for r in data["relationships"]:
            if r["type"] == "FROM_CHUNK" and r["end_node_id"] in kept:
                name = slug(nodes[r["start_node_id"]]["properties"]["name"])
                if name:
                    names.add(name)
                    mentions.add((r["end_node_id"], name))
    return kept_chunks, names, len(mentions)


def test_kg_counts_match_the_json_files(sec: Imported) -> None:
    settings, store, _embedder, first, _second = sec
    kept, names, mentions = kg_source(KG_LIMIT)
    stats = graph_stats(store, settings, "sec")
    assert stats["documents"] == len(KG_FILES) == first.read["documents"]
    assert stats["chunks"] == kept == first.read["chunks_imported"] == 5 + KG_LIMIT
    assert first.read["chunks"] == 32
    assert stats["entities"] == len(names)
    assert store.read("MATCH (:__Chunk__)-[r:HAS_ENTITY]->() RETURN count(r) AS n")[0]["n"] == mentions
    types = {r["t"] for r in store.read("MATCH (e:__Entity__) RETURN DISTINCT e.type AS t")}
    assert {"Company", "RiskFactor", "FinancialMetric"} <= types
    apple = store.read("MATCH (e:__Entity__ {id: 'sec:apple-inc'}) RETURN e.mentions AS n, e.type AS t")
    assert apple == [{"n": KG_LIMIT, "t": "Company"}]  # one resolved entity for the per-chunk APPLE INC nodes
    related = [r["d"] for r in store.read("MATCH (:__Entity__)-[r:RELATED]->(:__Entity__) RETURN r.description AS d")]
    assert related and any("FACES_RISK" in d for d in related) and any("HAS_METRIC" in d for d in related)


def test_kg_gets_our_communities_and_offsets(sec: Imported) -> None:
    settings, store, _embedder, first, second = sec
    stats = graph_stats(store, settings, "sec")
    assert stats["communities"] and not stats["unfinished"]
    assert first.reconcile is not None and first.reconcile.written["communities"] == sum(stats["communities"].values())
    assert second.reconcile is not None and not any(second.reconcile.written.values())
    summaries = store.read("MATCH (k:__Community__) RETURN k.summary AS s, k.embedding IS NOT NULL AS v")
    assert all(row["v"] for row in summaries) and any(row["s"] for row in summaries)
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for chunk in chunks(store, "sec").values():
        by_doc.setdefault(chunk["doc"], []).append(chunk)
    for doc in by_doc.values():
        ordered = sorted(doc, key=lambda c: c["n"])
        assert ordered[0]["start"] == 0
        for before, after in itertools.pairwise(ordered):
            overlap = before["end"] - after["start"]
            assert 0 < overlap < 400 and before["text"].endswith(after["text"][:overlap])


def test_kg_chunk_is_found_by_vector_and_fulltext(sec: Imported) -> None:
    ctx = context(sec)
    chunk = next(c for c in chunks(ctx.store, "sec").values() if c["n"] == 3 and len(c["text"]) > 3000)
    assert_found(ctx, chunk["id"], chunk["text"])


def test_kg_limit_must_be_positive(store: GraphStore, embedder: Embedder) -> None:
    with pytest.raises(DriftLensError, match="at least 1"):
        import_kg(store.settings, store, embedder, KG_FILES, limit=0)


def test_import_refuses_a_graph_built_with_another_embedder(store: GraphStore, embedder: Embedder) -> None:
    store.query("CREATE (:__Project__ {id: 'demo', name: 'demo', embedder: 'other-model', dim: 1536})")
    with pytest.raises(EmbeddingMismatch):
        import_kg(store.settings, store, embedder, KG_FILES[-1:], limit=1)
    assert store.read("MATCH (c:__Chunk__) RETURN count(c) AS n")[0]["n"] == 0


def test_cli_import_kg_json(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in backend_env(settings).items():
        monkeypatch.setenv(name, value)
    graph = str(settings.embedded_graph_path)
    small = min(KG_FILES, key=lambda p: p.stat().st_size)
    args = ["import-kg", str(small), "--limit", "3", "--graph", graph, "--project", "cli", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["project"] == "cli" and out["read"]["chunks_imported"] == 3
    assert out["stats"]["chunks"] == 3 and out["stats"]["entities"] > 0
    assert main(["import-graphrag", str(tmp_path), "--graph", graph, "--json"]) == 2
    assert "documents.parquet is missing" in capsys.readouterr().err

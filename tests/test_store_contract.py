"""One contract for every GraphStore adapter: embedded FalkorDB and Neo4j (the `backend` fixture)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from retrieval.config import Settings
from retrieval.errors import IndexMissing, ReadOnlyViolation
from retrieval.store import GraphStore, open_store
from retrieval.store.neo4j import HYBRID_POOL
from tests.backends import Occupant
from tests.conftest import count_reads, make_settings

DIM = 16
SHARED_GRAPHS = ("loaded",)
N = 300
SPECIAL_QUERIES = ['"(*?:~^[', 'what\'s "C++"?', "AND OR NOT", "-:/\\!{}", "a" * 20_000, "   "]


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[GraphStore]:
    with open_store(make_settings(tmp_path_factory.mktemp(backend), backend)) as store:
        Occupant.own(store, fresh_schema=True)  # the contract's own vectors: 16 dimensions
        yield store
        Occupant.release(store)


@pytest.fixture(scope="module")
def corpus() -> np.ndarray:
    """Clustered unit vectors: 10 clusters, so nearest neighbours are meaningful and filters bite."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(10, DIM))
    vectors = centres[np.arange(N) % 10] + 0.3 * rng.normal(size=(N, DIM))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def loaded(graph: GraphStore, corpus: np.ndarray) -> GraphStore:
    Occupant.own(graph, lambda g: _load(g, corpus), fresh_schema=True)
    return graph


def _load(graph: GraphStore, corpus: np.ndarray) -> None:
    s = graph.settings
    graph.ensure_schema(DIM)
    rows = [
        {
            "id": f"c{i}",
            "text": f"passage {i} about {'quantum computing' if i % 10 == 0 else 'cooking pasta'} team{i % 3}",
            "group": f"g{i % 3}",
            "n": i,
            "v": corpus[i].tolist(),
        }
        for i in range(N)
    ]
    graph.write_batch(
        f"UNWIND $rows AS row MERGE (c:`{s.chunk_label}` {{id: row.id}}) "
        f"SET c.text = row.text, c.group = row.group, c.n = row.n, c.embedding = {graph.vec('row.v')}",
        [{**r} for r in rows],
        batch_size=64,
    )


def test_batched_writes_are_all_there_and_idempotent(loaded: GraphStore) -> None:
    label = loaded.settings.chunk_label
    assert loaded.counts([label]) == {label: N}
    loaded.write_batch(f"UNWIND $rows AS row MERGE (c:`{label}` {{id: row.id}})", [{"id": "c1"}, {"id": "c2"}])
    assert loaded.counts([label]) == {label: N}


def test_read_refuses_writes_and_changes_nothing(loaded: GraphStore) -> None:
    label = loaded.settings.chunk_label
    for cypher in [
        "CREATE (:Intruder {id: 'x'})",
        f"MATCH (c:`{label}`) DETACH DELETE c",
        "MERGE (n:X {id: 1}) RETURN n",
    ]:
        with pytest.raises(ReadOnlyViolation):
            loaded.read(cypher)
    assert loaded.read("MATCH (n:Intruder) RETURN count(n) AS c") == [{"c": 0}]
    assert loaded.counts([label]) == {label: N}


def test_vector_search_returns_similarity_matching_exact_cosine(loaded: GraphStore, corpus: np.ndarray) -> None:
    label = loaded.settings.chunk_label
    query = corpus[42]
    hits = loaded.vector_search(label, query.tolist(), 10)
    exact = corpus @ query
    best = np.argsort(-exact)[:10]
    assert hits[0].id == "c42"
    assert hits[0].score == pytest.approx(1.0, abs=1e-3)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for hit in hits:
        assert hit.score == pytest.approx(float(exact[int(hit.id[1:])]), abs=1e-3)
    recall = len({h.id for h in hits} & {f"c{i}" for i in best}) / 10
    assert recall >= 0.9
    assert "embedding" not in hits[0].props and hits[0].props["text"].startswith("passage 42")


def test_vector_search_reads_only_the_properties_asked_for(loaded: GraphStore, corpus: np.ndarray) -> None:
    """A vector-only search shows a few properties of each hit; the rest need not be read (on Neo4j they were
    most of its reply). Same hits and scores, filtered or not."""
    label, query = loaded.settings.chunk_label, corpus[42].tolist()
    for filters in (None, {"group": "g0"}):
        every = loaded.vector_search(label, query, 10, filters=filters)
        few = loaded.vector_search(label, query, 10, filters=filters, props=["group", "n"])
        assert [(h.id, round(h.score, 6)) for h in few] == [(h.id, round(h.score, 6)) for h in every]
        assert all(h.props == {"group": e.props["group"], "n": e.props["n"]} for h, e in zip(few, every, strict=True))


def test_exact_vector_search_ranks_an_id_set_by_exact_cosine(loaded: GraphStore, corpus: np.ndarray) -> None:
    label = loaded.settings.chunk_label
    ids = [f"c{i}" for i in range(5, 300, 7)]
    query = corpus[12]
    hits = loaded.exact_vector_search(label, query.tolist(), 10, filters={"id": ids})
    exact = {f"c{i}": float(corpus[i] @ query) for i in range(5, 300, 7)}
    best = sorted(exact, key=lambda i: -exact[i])[:10]
    assert [h.id for h in hits] == best
    assert all(h.score == pytest.approx(exact[h.id], abs=1e-4) for h in hits)
    assert "embedding" not in hits[0].props and hits[0].props["text"].startswith(f"passage {hits[0].id[1:]} ")
    # The default (vectors ranked in Python) and an adapter's override agree.
    default = GraphStore.exact_vector_search(loaded, label, query.tolist(), 10, filters={"id": ids})
    assert [(h.id, round(h.score, 4)) for h in default] == [(h.id, round(h.score, 4)) for h in hits]
    assert loaded.exact_vector_search(label, query.tolist(), 3, filters={"id": ["nope"]}) == []


def test_filtered_vector_search_still_fills_top_k(loaded: GraphStore, corpus: np.ndarray) -> None:
    label = loaded.settings.chunk_label
    # Cluster 0 vectors are c0, c10, ...; their group cycles g0,g1,g2, so a filter drops 2/3 of the nearest.
    hits = loaded.vector_search(label, corpus[0].tolist(), 20, filters={"group": "g1"})
    assert len(hits) == 20
    assert all(h.props["group"] == "g1" for h in hits)
    in_list = loaded.vector_search(label, corpus[0].tolist(), 5, filters={"group": ["g1", "g2"], "n": {"gte": 100}})
    assert len(in_list) == 5 and all(h.props["n"] >= 100 and h.props["group"] != "g0" for h in in_list)
    assert loaded.vector_search(label, corpus[0].tolist(), 5, filters={"group": "nope"}) == []


def test_fulltext_finds_terms_and_filters(loaded: GraphStore) -> None:
    label = loaded.settings.chunk_label
    hits = loaded.fulltext_search(label, "Quantum computing?", 50)
    assert len(hits) == N // 10
    assert all("quantum" in h.props["text"] for h in hits)
    filtered = loaded.fulltext_search(label, "quantum", 50, filters={"group": "g2"})
    assert filtered and all(h.props["group"] == "g2" and "quantum" in h.props["text"] for h in filtered)


@pytest.mark.parametrize("text", SPECIAL_QUERIES)
def test_fulltext_survives_special_characters(loaded: GraphStore, text: str) -> None:
    hits = loaded.fulltext_search(loaded.settings.chunk_label, text, 5)
    assert isinstance(hits, list) and len(hits) <= 5


def test_fulltext_with_operators_as_words_matches_literally(loaded: GraphStore) -> None:
    hits = loaded.fulltext_search(loaded.settings.chunk_label, 'pasta AND NOT "quantum" (team1)', 400)
    assert hits and any("pasta" in h.props["text"] for h in hits)


def test_schema_is_idempotent_and_reports_dimension(loaded: GraphStore) -> None:
    s = loaded.settings
    before = loaded.index_states()
    loaded.ensure_schema(DIM)
    after = loaded.index_states()
    assert sorted((i.kind, i.label, i.properties) for i in before) == sorted(
        (i.kind, i.label, i.properties) for i in after
    )
    assert loaded.vector_dimension(s.chunk_label) == DIM
    names = {i.name for i in after}
    assert {s.chunk_vector_index, s.chunk_fulltext_index} <= names


def test_health_counts_labels(loaded: GraphStore) -> None:
    health = loaded.health()
    assert health.ok and not health.empty
    assert health.counts[loaded.settings.chunk_label] == N
    assert any(i.kind == "vector" for i in health.indexes)


def test_missing_indexes_are_named(settings: Settings) -> None:
    with open_store(settings) as bare:
        bare.query("CREATE (:`__Chunk__` {id: 'x', text: 'hello'})")
        with pytest.raises(IndexMissing, match="fulltext index on __Chunk__"):
            bare.fulltext_search("__Chunk__", "hello", 3)
        with pytest.raises(IndexMissing, match="vector index"):
            bare.vector_search("__Chunk__", [0.1] * DIM, 3)


def test_fulltext_prefers_passages_holding_every_common_term(loaded: GraphStore) -> None:
    """Neither 'cooking' nor 'team1' is rare, yet the passages holding both must fill a small top k."""
    hits = loaded.fulltext_search(loaded.settings.chunk_label, "cooking team1", 10)
    assert len(hits) == 10
    assert all("cooking" in h.props["text"] and "team1" in h.props["text"] for h in hits)


def test_fulltext_ranks_rare_terms_above_common_ones(loaded: GraphStore) -> None:
    """'quantum' is in 1 passage of 10, 'pasta' in the rest: a passage with the rare term must lead."""
    hits = loaded.fulltext_search(loaded.settings.chunk_label, "pasta quantum", 40)
    assert "quantum" in hits[0].props["text"]
    leading = [h for h in hits if "quantum" in h.props["text"]]
    assert hits[: len(leading)] == leading  # every rare-term passage before any common-only one
    assert hits[0].score > hits[-1].score


def test_fulltext_text_only_returns_the_indexed_text_and_the_same_ranking(loaded: GraphStore) -> None:
    label = loaded.settings.chunk_label
    full = loaded.fulltext_search(label, "pasta quantum team2", 30)
    slim = loaded.fulltext_search(label, "pasta quantum team2", 30, text_only=True)
    assert [(h.id, h.score) for h in slim] == [(h.id, h.score) for h in full]
    assert all(set(h.props) == {"id", "text"} for h in slim)
    assert {"group", "n"} <= set(full[0].props)


def test_fulltext_rescore_scores_known_hits_as_a_restricted_search_does(loaded: GraphStore, corpus: np.ndarray) -> None:
    """The vector arm's hits, scored by keywords without a search, equal the search restricted to their ids."""
    label = loaded.settings.chunk_label
    known = loaded.vector_search(label, corpus[0].tolist(), 25, filters={"group": "g1"})
    ids = [h.id for h in known]
    searched = loaded.fulltext_search(label, "quantum team1", len(ids), filters={"group": "g1", "id": ids})
    rescored = loaded.fulltext_rescore(label, "quantum team1", known, filters={"group": "g1"})
    assert searched and {h.id for h in rescored} <= set(ids)
    assert sorted((h.id, round(h.score, 9)) for h in rescored) == sorted((h.id, round(h.score, 9)) for h in searched)
    assert loaded.fulltext_rescore(label, "quantum", []) == []


def test_properties_reads_every_property_but_the_vector(loaded: GraphStore) -> None:
    s = loaded.settings
    found = loaded.properties(s.chunk_label, ["c1", "c2", "absent"])
    assert set(found) == {"c1", "c2"}
    assert found["c1"]["text"].startswith("passage 1 ") and found["c1"]["group"] == "g1"
    assert s.embedding_property not in found["c1"]
    assert loaded.properties(s.chunk_label, []) == {}


def test_hybrid_arms_complete_the_vector_arm_with_exact_cosines_in_one_read(
    loaded: GraphStore, corpus: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j's hybrid statement returns, beside the vector index's hits, the exact cosine and what a hit shows of
    each pool candidate the vector arm lacks (here the 'quantum' passages of cluster 0, far from a cluster-5 query):
    the kept ones complete the vector arm, with no second read, and every hit carries the text and the props asked."""
    s = loaded.settings
    query, text = corpus[5].tolist(), "quantum computing"
    loaded.hybrid_arms(s.chunk_label, query, text, 20, index=s.chunk_fulltext_index)  # label statistics, read once
    reads = count_reads(loaded, monkeypatch)
    found = loaded.hybrid_arms(s.chunk_label, query, text, 20, index=s.chunk_fulltext_index, props=["group"])
    if loaded.backend != "neo4j":
        assert found is None  # the embedded store runs the arms step by step (search/hybrid.py)
        return
    assert found is not None and len(reads) == 1, reads
    vector, keyword = found
    completed = {h.id for h in vector} & {h.id for h in keyword}
    assert completed == {h.id for h in keyword} and all(int(i[1:]) % 10 == 0 for i in completed)
    assert len(vector) - len(completed) == 20  # the index's own hits, then the completed ones
    assert len(completed) == round(HYBRID_POOL * 20) < N // 10  # Lucene's pool, not every one of its 30 matches
    exact = corpus @ corpus[5]
    for hit in vector:
        assert hit.score == pytest.approx(float(exact[int(hit.id[1:])]), abs=1e-3)
    assert all(h.props["text"].startswith("passage ") and h.props["group"] for h in [*vector, *keyword])


@pytest.mark.parametrize("floor", [1, 100])
def test_a_filtered_search_keeps_its_own_top_hits_whatever_the_vector_floor(
    loaded: GraphStore, corpus: np.ndarray, monkeypatch: pytest.MonkeyPatch, floor: int
) -> None:
    """A project's search must not lose its own top hits to other projects' rows, however few candidates a Neo4j
    vector index call is asked for at least (`neo4j_vector_min_k`, the floor): here the filter keeps a third of the
    rows (`group` stands for the project), two thirds of the query's nearest belong to the others, and both the
    vector-only and the hybrid search return the kept rows' exact top k (the index is exact at this size)."""
    s = loaded.settings
    monkeypatch.setattr(loaded, "settings", s.model_copy(update={"neo4j_vector_min_k": floor}))
    query = corpus[0]
    own = sorted((i for i in range(N) if i % 3 == 1), key=lambda i: -float(corpus[i] @ query))
    for k in (5, 20, 40):
        want = [f"c{i}" for i in own[:k]]
        hits = loaded.vector_search(s.chunk_label, query.tolist(), k, filters={"group": "g1"})
        assert [h.id for h in hits] == want
        arms = loaded.hybrid_arms(
            s.chunk_label,
            query.tolist(),
            "cooking pasta",
            k,
            index=str(s.chunk_fulltext_index),
            filters={"group": "g1"},
        )
        if arms is not None:  # None: the caller's step-by-step search (the vector_search above) takes over
            assert [h.id for h in arms[0][:k]] == want


def test_a_filter_every_node_passes_asks_the_vector_index_for_k(
    loaded: GraphStore, corpus: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One project in the graph (the usual case): its filter drops nothing, so a vector-only search need not
    over-fetch for it. On Neo4j the k asked is the index's own work: with no floor, it asks for k, and finds the
    same hits as without the filter."""
    s = loaded.settings
    monkeypatch.setattr(loaded, "settings", s.model_copy(update={"neo4j_vector_min_k": 1}))
    every = {"group": ["g0", "g1", "g2"]}
    loaded.vector_search(s.chunk_label, corpus[3].tolist(), 10, filters=every)  # the filter's check, read once
    asked: list[int] = []
    read = loaded.read

    def spied(cypher: str, params: dict[str, object] | None = None, **kwargs: object) -> object:
        if "db.index.vector.queryNodes" in cypher and params:
            asked.append(int(params["fetch"]))  # type: ignore[call-overload]
        return read(cypher, params, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loaded, "read", spied)
    hits = loaded.vector_search(s.chunk_label, corpus[3].tolist(), 10, filters=every)
    assert [h.id for h in hits] == [h.id for h in loaded.vector_search(s.chunk_label, corpus[3].tolist(), 10)]
    if loaded.backend == "neo4j":
        assert asked == [10, 10]

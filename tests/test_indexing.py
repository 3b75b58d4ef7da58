"""Incremental indexing on the real embedded FalkorDB with the real ONNX embedder: skip, edit, delete,
remove, kill-and-resume, embedder mismatch, and the LLM extraction path against the scripted server."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)

from __future__ import annotations

import json
import threading
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from retrieval.embed import LocalMiniLMEmbedder
from retrieval.errors import EmbeddingMismatch
from retrieval.indexing import StageProgress, derived, graph_stats, pipeline, remove_document, run_index
from retrieval.llm.client import make_chat_model
from retrieval.store import GraphStore, neo4j_rebuild, open_store
from tests.backends import Occupant
from tests.conftest import make_settings
from tests.indexing_runs import DOCS, KilledError, RecordingEmbedder, assert_same_graph, corpus, dump, graph, ids  # noqa: F401 (fixtures)
from tests.scripted_openai import scripted_openai  # noqa: F401 (fixture)


class WriteSpy:
    """Records every Cypher statement that could write, to prove an unchanged run writes nothing."""

    WRITES = ("MERGE", "SET ", "DELETE", "CREATE")

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.writes: list[str] = []
        self._query = store.query

    def __enter__(self) -> WriteSpy:
        def query(cypher: str, params: Any = None, **kwargs: Any) -> Any:
            if any(word in cypher.upper() for word in self.WRITES):
                self.writes.append(cypher)
            return self._query(cypher, params, **kwargs)

        self.store.query = query  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.store.query = self._query  # type: ignore[method-assign]


def assert_counts_stored(store: GraphStore) -> None:
    """Entities carry their RELATED degree and mention count (search reads them instead of counting hubs)."""
    rows = store.query(
        "MATCH (e:__Entity__) RETURN e.degree AS degree, size([(e)-[:RELATED]-() | 1]) AS related, "
        "e.mentions AS mentions, size([(e)<-[:HAS_ENTITY]-() | 1]) AS chunks"
    )
    assert rows and all(r["degree"] == r["related"] and r["mentions"] == r["chunks"] for r in rows)
    assert any(r["degree"] > 0 for r in rows)


def test_first_run_builds_the_graph_model(graph, corpus, embedder) -> None:
    settings, store = graph
    report = run_index(settings, store, embedder, [corpus], project="p")
    assert sorted(report.added) == ["corpus/gates.txt", "corpus/murati.txt", "corpus/su.txt"]
    stats = graph_stats(store, settings, "p")
    assert stats["documents"] == 3 and stats["chunks"] >= 3 and stats["entities"] > 10
    assert stats["relationships"] > 0 and "0" in stats["communities"]
    assert max(stats["community_sizes"]["0"]) <= settings.max_community_size
    chunk = store.query(
        "MATCH (d:__Document__)-[:HAS_CHUNK]->(c:__Chunk__) WHERE d.path = 'corpus/gates.txt' "
        "RETURN c.text AS text, c.start AS start, c.end AS end, c.document_name AS name ORDER BY c.n LIMIT 1"
    )[0]
    assert DOCS["gates.txt"][chunk["start"] : chunk["end"]] == chunk["text"] and chunk["name"] == "gates"
    gates = store.query(
        "MATCH (e:__Entity__ {id: 'p:bill-gates'}) RETURN e.title AS t, e.type AS ty, e.source_chunks AS s"
    )
    assert gates and gates[0]["t"] == "Bill Gates" and gates[0]["ty"] == "PERSON" and gates[0]["s"]
    # "Gates" alone in gates.txt is resolved to Bill Gates, not a separate entity
    assert not store.query("MATCH (e:__Entity__ {id: 'p:gates'}) RETURN e.id AS id")
    missing = store.query("MATCH (n) WHERE n.projectId IS NULL RETURN labels(n) AS l, n.id AS id")
    assert missing == []
    hits = store.vector_search("__Chunk__", embedder.embed_query("Who runs AMD?"), 1)
    assert hits and hits[0].id.startswith(report_doc_id(store, "corpus/su.txt"))


def report_doc_id(store: GraphStore, path: str) -> str:
    return store.query("MATCH (d:__Document__ {path: $p}) RETURN d.id AS id", {"p": path})[0]["id"]


def test_unchanged_rerun_writes_nothing(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    before = dump(store)[:2]
    with WriteSpy(store) as spy:
        report = run_index(settings, store, embedder, [corpus], project="p")
    assert sorted(report.unchanged) == sorted(["corpus/gates.txt", "corpus/murati.txt", "corpus/su.txt"])
    assert not report.changed and report.written == {}
    assert [w for w in spy.writes if "vecf32" in w or "DELETE" in w or "SET " in w] == []
    assert dump(store)[:2] == before


def test_a_bulk_first_run_rebuilds_the_vector_indexes_it_filled(graph, corpus, embedder, monkeypatch) -> None:
    """On Neo4j the first run's chunk, entity and community indexes are rebuilt in one pass (`neo4j_rebuild`);
    the embedded store's grow in place. An unchanged re-run writes nothing, so it rebuilds nothing."""
    settings, store = graph
    monkeypatch.setattr(neo4j_rebuild, "MIN_VECTORS", 1)
    report = run_index(settings, store, embedder, [corpus], project="p")
    assert report.written["vector_indexes_rebuilt"] == (3 if store.backend == "neo4j" else 0)
    assert "vector indexes" in report.seconds
    hits = store.vector_search("__Chunk__", embedder.embed_query("Who runs AMD?"), 1)
    assert hits and hits[0].id.startswith(report_doc_id(store, "corpus/su.txt"))
    assert "vector_indexes_rebuilt" not in run_index(settings, store, embedder, [corpus], project="p").written


def test_edit_replaces_chunks_and_orphans(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    (corpus / "murati.txt").write_text(
        "Mira Murati founded Thinking Machines Lab after leaving OpenAI. She grew up in Albania.", encoding="utf-8"
    )
    report = run_index(settings, store, embedder, [corpus], project="p")
    assert report.updated == ["corpus/murati.txt"] and len(report.unchanged) == 2
    texts = [
        r["t"]
        for r in store.query("MATCH (d:__Document__ {path: 'corpus/murati.txt'})-[:HAS_CHUNK]->(c) RETURN c.text AS t")
    ]
    assert len(texts) == 1 and "Thinking Machines" in texts[0]
    entities = ids(store, "__Entity__")
    assert "p:tesla" not in entities and "p:dartmouth-college" not in entities  # only the old text had them
    assert "p:mira-murati" in entities
    assert len(entities) == len(set(entities))
    assert_counts_stored(store)


def communities_by_id(store: GraphStore) -> dict[str, str]:
    rows = store.query("MATCH (k:__Community__) RETURN k.id AS id, properties(k) AS props")
    return {
        r["id"]: json.dumps({k: v for k, v in r["props"].items() if k != "embedding"}, sort_keys=True) for r in rows
    }


def level0_members(store: GraphStore) -> dict[str, set[str]]:
    rows = store.query("MATCH (e:__Entity__)-[:IN_COMMUNITY]->(k:__Community__ {level: 0}) RETURN k.id AS k, e.id AS e")
    members: dict[str, set[str]] = {}
    for r in rows:
        members.setdefault(r["k"], set()).add(r["e"])
    return members


def mentioned_in(store: GraphStore, path: str) -> set[str]:
    rows = store.query(
        "MATCH (c:__Chunk__ {path: $path})-[:HAS_ENTITY]->(e:__Entity__) RETURN e.id AS e", {"path": path}
    )
    return {r["e"] for r in rows}


def chunk_texts(store: GraphStore, path: str | None = None) -> set[str]:
    rows = store.query("MATCH (c:__Chunk__) RETURN c.path AS path, c.text AS text")
    return {r["text"] for r in rows if path is None or r["path"] == path}


def test_the_title_step_reads_the_runs_chunk_vectors_instead_of_embedding_its_passages_again(
    graph, corpus, embedder, monkeypatch
) -> None:
    """Community titles may weigh phrases against their passages' vectors: the chunks of this run answer from the
    vectors the run stored (the very same), so no chunk text is embedded twice; other texts still are embedded."""
    settings, store = graph
    seen: dict[str, np.ndarray] = {}
    community_titles = derived.titles.community_titles

    def titles_embedding_every_chunk(tree, wanted, mentions, texts, embed, **rest):  # type: ignore[no-untyped-def]
        asked = [*sorted(set(texts.values())), "a phrase no chunk says"]
        seen.update(zip(asked, embed(asked), strict=True))
        return community_titles(tree, wanted, mentions, texts, embed, **rest)

    monkeypatch.setattr(derived.titles, "community_titles", titles_embedding_every_chunk)
    recorder = RecordingEmbedder(embedder)
    run_index(settings, store, recorder, [corpus], project="p")
    stored = chunk_texts(store)
    assert stored and stored <= seen.keys()
    assert all(recorder.texts.count(text) == 1 for text in stored)  # each chunk embedded once, by the embed stage
    assert "a phrase no chunk says" in recorder.texts
    texts = sorted(seen)
    # the same vectors the model gives these texts in one call of its own (no memo: batched otherwise than the run)
    assert np.array_equal(np.stack([seen[t] for t in texts]), LocalMiniLMEmbedder().embed(texts))


def test_a_stage_embeds_its_distinct_texts_shortest_first_and_answers_each_in_its_place(tmp_path) -> None:
    """The entity and community stages sort their texts by length before the embedder's calls (each pads a batch
    to its longest text and sorts only the texts of one call): same vectors, each where its text was."""
    recorder = RecordingEmbedder(LocalMiniLMEmbedder())
    no_store: Any = SimpleNamespace(vectors=None)
    run = pipeline._Run(make_settings(tmp_path), no_store, recorder, "p", on_progress=None, chat_model=None)
    texts = [f"entity {i} (CONCEPT): " + "words " * (97 * i % 40) for i in range(150)]
    texts += texts[:5]  # repeats are embedded once
    vectors = run.embed(texts, "entity embeddings")
    assert sorted(recorder.texts) == sorted(set(texts))  # each distinct text once...
    assert [len(t) for t in recorder.texts] == sorted(len(t) for t in set(texts))  # ...shortest first
    assert np.array_equal(vectors, LocalMiniLMEmbedder().embed(texts))


def test_edit_embeds_only_that_document_and_rewrites_only_changed_communities(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    before = communities_by_id(store)
    level0_before = level0_members(store)
    murati = mentioned_in(store, "corpus/murati.txt")
    others = chunk_texts(store) - chunk_texts(store, "corpus/murati.txt")
    text = (corpus / "murati.txt").read_text(encoding="utf-8")
    (corpus / "murati.txt").write_text(text + " Mira Murati later visited Tirana with Greg Brockman.", encoding="utf-8")
    recorder = RecordingEmbedder(embedder)
    report = run_index(settings, store, recorder, [corpus], project="p")
    after = communities_by_id(store)
    edited = chunk_texts(store, "corpus/murati.txt")
    sent = set(recorder.texts)
    assert edited and edited <= sent  # every chunk of the edited document, re-embedded
    new, gone, kept = set(after) - set(before), set(before) - set(after), set(after) & set(before)
    assert new and kept  # the edit moved some communities and left others alone
    assert report.written["communities"] == len(new) and report.written["communities_deleted"] == len(gone)
    assert all(before[k] == after[k] for k in kept)  # a kept community is not rewritten
    elsewhere = [k for k, members in level0_before.items() if not members & murati]
    assert elsewhere and set(elsewhere) <= kept  # communities of the untouched documents stay as they were
    props = {k: json.loads(v) for k, v in after.items()}
    passages = {r["id"]: r["text"] for r in store.query("MATCH (c:__Chunk__) RETURN c.id AS id, c.text AS text")}

    def embedded_as(p: dict) -> str:  # a level-0 community retold from one passage is embedded as its chunk
        one = p["level"] == 0 and len(p["source_chunks"]) == 1
        return passages[p["source_chunks"][0]] if one else f"{p['title']}\n{p['summary']}"

    assert all(embedded_as(props[k]) in sent for k in new)  # every new community embedded...
    assert {k for k, p in props.items() if f"{p['title']}\n{p['summary']}" in sent} <= new  # ...no kept one
    retold = {embedded_as(props[k]) for k in new} & others
    assert not (others - retold) & sent  # no chunk of the other documents, but a new community's one passage


def test_embedding_overlaps_extraction_but_reports_on_the_callers_thread(graph, corpus) -> None:
    """Chunks are embedded on a worker thread; progress still arrives on the thread that started the run."""
    settings, store = graph
    embedder = LocalMiniLMEmbedder()  # not the suite's memoised one (tests/model_memo.py): the stage is timed
    events: list[tuple[StageProgress, int]] = []
    report = run_index(
        settings,
        store,
        embedder,
        [corpus],
        project="p",
        on_progress=lambda e: events.append((e, threading.get_ident())),
    )
    assert {thread for _e, thread in events} == {threading.get_ident()}
    embed = [e for e, _t in events if e.stage == "embed"]
    assert embed[0].done == 0 and embed[-1].done == embed[-1].total == report.written["chunks"] > 0
    assert report.seconds["embed"] > 0 and report.seconds["extract"] > 0
    stored = store.query("MATCH (c:__Chunk__) RETURN c.text AS text, c.embedding AS v")
    for row in stored:  # each chunk's vector is its own text's, in order
        assert np.allclose(row["v"], embedder.embed([row["text"]])[0], atol=2e-3)


def test_delete_from_folder_and_remove_command(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    (corpus / "su.txt").unlink()
    report = run_index(settings, store, embedder, [corpus], project="p")
    assert report.deleted == ["corpus/su.txt"]
    assert not store.query("MATCH (c:__Chunk__) WHERE c.document_name = 'su' RETURN c.id AS id")
    assert "p:amd" not in ids(store, "__Entity__")
    removed = remove_document(settings, store, embedder, "corpus/murati.txt", project="p")
    assert removed.deleted == ["corpus/murati.txt"]
    stats = graph_stats(store, settings, "p")
    assert stats["documents"] == 1 and "p:openai" not in ids(store, "__Entity__")
    assert stats["last_run"] == {"added": 0, "updated": 0, "unchanged": 0, "deleted": 1}
    dangling = store.query("MATCH (e:__Entity__) WHERE NOT (e)<-[:HAS_ENTITY]-() RETURN e.id AS id")
    assert dangling == []
    assert_counts_stored(store)


@pytest.mark.parametrize(("stage", "at"), [("write", 1), ("relate", 0), ("summaries", 1)])
def test_kill_and_resume_matches_uninterrupted_run(graph, corpus, embedder, stage, at, monkeypatch) -> None:  # noqa: PLR0917
    """An uninterrupted run, then (in the same graph, emptied: Neo4j has one) a killed one resumed.

    Documents are written in batches and the write stage ticks per batch: one document per batch here, so the
    kill lands between two written documents."""
    settings, store = graph
    monkeypatch.setattr(pipeline, "WRITE_BATCH_CHUNKS", 1)

    def kill(event: StageProgress) -> None:
        if event.stage == stage and event.done == at:
            raise KilledError(stage)

    run_index(settings, store, embedder, [corpus], project="p")
    uninterrupted = dump(store)
    store.clear()
    with pytest.raises(KilledError):
        run_index(settings, store, embedder, [corpus], project="p", on_progress=kill)
    assert dump(store)[:2] != uninterrupted[:2]
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(uninterrupted, dump(store))


def test_refuses_a_graph_built_with_another_embedder(graph, corpus, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    store.query("MATCH (p:__Project__ {id: 'p'}) SET p.embedder = 'openai:text-embedding-3-small', p.dim = 1536")
    with pytest.raises(EmbeddingMismatch, match="text-embedding-3-small"):
        run_index(settings, store, embedder, [corpus], project="p")


def test_llm_extraction_and_reports(tmp_path, corpus, embedder, scripted_openai, backend) -> None:
    def route(body: dict[str, Any]) -> Any:
        schema = body["response_format"]["json_schema"]["name"]
        text = " ".join(str(m.get("content")) for m in body["messages"])
        if schema == "community_report":
            return {"title": "Founders", "summary": "People who founded companies.", "findings": [], "rating": 7}
        if "Lisa Su" in text:
            return "{not json"  # unusable twice: this chunk keeps its offline extraction
        return {
            "entities": [
                {"name": "Bill Gates", "type": "person", "description": "Co-founder of Microsoft."},
                {"name": "Microsoft", "type": "organization", "description": "Software company."},
            ],
            "relationships": [
                {"source": "Bill Gates", "target": "Microsoft", "description": "Gates co-founded it.", "strength": 9},
                {"source": "Paul Allen", "target": "Microsoft", "description": "Allen co-founded it.", "strength": 8},
            ],
        }

    scripted_openai.script(router=route)
    settings = make_settings(tmp_path / "db", backend, openai_base_url=scripted_openai.base_url, max_community_size=4)
    (tmp_path / "db").mkdir()
    with open_store(settings) as store:
        Occupant.own(store)
        report = run_index(settings, store, embedder, [corpus], project="p", chat_model=make_chat_model(settings))
        edge = store.query(
            "MATCH (a:__Entity__ {id: 'p:bill-gates'})-[r:RELATED]->(b:__Entity__ {id: 'p:microsoft'}) "
            "RETURN r.weight AS w, r.description AS d"
        )
        assert edge and "Gates co-founded it." in edge[0]["d"] and edge[0]["w"] >= 9
        # The model's direction is kept (p:paul-allen sorts after p:microsoft, so it is not the id order).
        allen = store.query("MATCH (a:__Entity__)-[r:RELATED]->(b:__Entity__ {id: 'p:microsoft'}) RETURN a.id AS a")
        assert {"a": "p:paul-allen"} in allen
        assert store.query("MATCH (:__Entity__ {id: 'p:paul-allen'})-[r:RELATED]-() RETURN r.directed AS d") == [
            {"d": True}
        ]
        assert store.query("MATCH (e:__Entity__ {id: 'p:amd'}) RETURN e.type AS t")[0]["t"] == "ORG"
        titles = {r["t"] for r in store.query("MATCH (k:__Community__) RETURN k.title AS t")}
        assert titles == {"Founders"}
    assert any("su.txt" in note and "malformed JSON" in note for note in report.notes)
    assert report.usage.llm_calls > 0

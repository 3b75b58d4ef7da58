"""Each chunk's BM25 profile stored at index time (`bm25.stored`) and read by the ranking's statements on Neo4j
(`neo4j_terms`): written right through rewrites and removals, scored bitwise as the texts are, and a graph without
the profiles (written before them, or by another tool) searched from its texts as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search import bridge
from retrieval.search.hybrid import search_chunks
from retrieval.search.ranking import Retrieval, retrieve
from retrieval.store import GraphStore, bm25
from retrieval.store.neo4j import Neo4jStore
from tests.curie_corpus import DOCUMENTS, PROJECT, QUESTION, assert_same, written


def _index(settings: Settings, store: GraphStore, embedder: Embedder, folder: Path) -> None:
    run_index(settings, store, embedder, [folder], project=PROJECT)


def _stored(store: GraphStore, settings: Settings) -> list[dict[str, object]]:
    return store.read(
        f"MATCH (c:{settings.chunk_label} {{projectId: $p}}) "
        f"RETURN c.{settings.text_property} AS text, c.{bm25.TERMS} AS terms, c.{bm25.LENGTH} AS length",
        {"p": PROJECT},
    )


def test_each_chunk_and_entity_keeps_its_profile_through_rewrites_and_removals(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path
) -> None:
    """Neo4j's chunks and entities carry what `bm25._profile` builds from their indexed text, after a first run and
    after a run that rewrote one document and removed another; the embedded store's carry none (no read of it uses
    them)."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    changed = {**DOCUMENTS, "warsaw.txt": "Warsaw, on the Vistula, is Poland's largest city."}
    del changed["bread.txt"]
    _index(settings, store, embedder, written(tmp_path, changed))
    rows = _stored(store, settings)
    assert {str(r["text"]) for r in rows} >= {"Warsaw, on the Vistula, is Poland's largest city."}
    assert not any("sourdough" in str(r["text"]) or "rebuilt" in str(r["text"]) for r in rows)
    names = (bm25.TERMS, bm25.LENGTH, bm25.SIZE)
    for label, fields in bm25.profiled_fields(settings).items():
        nodes = store.read(
            f"MATCH (n:{label} {{projectId: $p}}) RETURN n {{.*, {settings.embedding_property}: null}} AS props",
            {"p": PROJECT},
        )
        assert nodes
        for node in nodes:
            props = node["props"]
            want = bm25.stored(props, fields) if store.stores_term_counts else dict.fromkeys(names)
            assert {name: props.get(name) for name in names} == want, props


def _ranking(ctx: Context, params: QueryParams, walk: bool) -> tuple[Retrieval, set[str]]:
    """A retrieval and the texts BM25 built a profile of (tokenised) for it, from a cold profile cache."""
    profile = bm25._profile
    profiled: list[str] = []

    def counted(document: str) -> object:
        profiled.append(document)
        return profile(document)

    profile.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25, "_profile", counted)
        found = retrieve(ctx, QUESTION, params, walk=walk)
    return found, set(profiled)


@pytest.mark.parametrize("walk", [False, True])
@pytest.mark.parametrize("top_k", [1, 3])
def test_the_ranking_scores_the_stored_counts_as_the_texts(  # noqa: PLR0917 - fixtures and parameters
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    top_k: int,
    walk: bool,
) -> None:
    """On Neo4j the ranking reads the candidates' counts and tokenises no chunk text (`bridge._residual` reads the
    direct hits' counts from the hybrid statement's reply, `Folded.terms`, and the reached chunks' from the
    spread's exact part); its chunks,
    scores, sources, seeds and walk are bitwise those of the texts' path (the store told not to read the profiles),
    and of a graph where three chunks have none (written before the profiles were stored): that graph is searched
    as it was. On the embedded store nothing changes."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=top_k, max_hops=2)
    chunk_texts = {str(r["text"]) for r in _stored(store, settings)}
    retrieve(ctx, QUESTION, params, walk=walk)  # index names, label statistics and word counts are read once
    stored, from_stored = _ranking(ctx, params, walk)
    assert stored.chunks and stored.seeds
    with monkeypatch.context() as patch:
        if isinstance(store, Neo4jStore):
            patch.setattr(Neo4jStore, "_counted", lambda *_args: False)
        texts, from_texts = _ranking(ctx, params, walk)
    assert_same(stored, texts)
    if not store.stores_term_counts:
        assert from_stored & chunk_texts == from_texts & chunk_texts
        return
    direct = {h.text for h in search_chunks(ctx, QUESTION, params)}
    assert not from_stored & chunk_texts, from_stored
    assert direct < from_texts & chunk_texts, (direct, from_texts)
    assert from_texts - chunk_texts  # the entities' texts, tokenised on that path only
    # Two chunks without profiles (written before them), and one whose text a writer that knows nothing of them
    # changed (its profile is then stale: its size tells).
    s = settings
    store.query(
        f"MATCH (c:{s.chunk_label} {{projectId: $p}}) WITH c ORDER BY c.id SKIP 1 LIMIT 2 "
        f"REMOVE c.{bm25.TERMS}, c.{bm25.LENGTH}",
        {"p": PROJECT},
    )
    store.query(
        f"MATCH (c:{s.chunk_label} {{projectId: $p}}) WHERE c.{s.text_property} STARTS WITH 'Warsaw' "
        f"SET c.{s.text_property} = c.{s.text_property} + ' The Vistula river flows through Warsaw.'",
        {"p": PROJECT},
    )
    mixed, from_mixed = _ranking(ctx, params, walk)
    with monkeypatch.context() as patch:
        patch.setattr(Neo4jStore, "_counted", lambda *_args: False)
        mixed_texts, _ = _ranking(ctx, params, walk)
    assert_same(mixed, mixed_texts)
    assert any(t.endswith("flows through Warsaw.") for t in from_mixed), from_mixed


def test_a_texts_uncovered_words_from_its_counts_are_those_of_its_text() -> None:
    """`bridge._uncovered` answers from a text's term counts (its stored profile's) what it answers from the text,
    stemmed variants included; counts that do not cover every word are not used (the text is read)."""
    text = "Marie Curie discovered polonium; the Curies studied radiation in Paris laboratories."
    wanted = ["curie", "polonium", "laboratory", "warsaw", "studi", "river"]
    profile = bm25._profile(text)
    counts = bm25.counted(wanted, [profile.frequency.get(w, 0) for w in wanted], profile.length)
    from_text = bridge._uncovered(wanted, text)
    assert from_text == ["laboratory", "warsaw", "river"]
    assert bridge._uncovered(wanted, text, counts) == from_text
    partial = bm25.counted(wanted[:2], [0, 0], profile.length)  # wrong counts, but for too few words: unused
    assert bridge._uncovered(wanted, text, partial) == from_text

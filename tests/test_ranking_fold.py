"""The default ranking in one statement on Neo4j (issue #26, `retrieval/store/neo4j_fold.py`, `bridge.fold`): the
hybrid statement ranks both searches on the server from the stored BM25 counts and continues into the spread, so a
search is one statement, not two; its chunks, scores, per-arm scores, seeds and hit entities are bitwise those of
the two statements; and where the server cannot rank (no stored profiles) or its best hits are not Python's (a
tie's other order, a last bit), the second statement is read as before. With the walk (branch wt224), the same
statement reads the walk's seed rows too, from the server's five best question entities: a statement less, the
expansion bitwise the same, and the statements apart where those are not Python's seeds. The embedded store keeps
its path."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search import bridge
from retrieval.search.ranking import Retrieval, retrieve
from retrieval.store import GraphStore, bm25
from retrieval.store.records import Folded
from tests.conftest import count_reads
from tests.curie_corpus import DOCUMENTS, PROJECT, QUESTION, assert_same, written


def _context(settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path) -> Context:
    run_index(settings, store, embedder, [written(tmp_path, DOCUMENTS)], project=PROJECT)
    return Context(settings, store, embedder, None, PROJECT)


def _both(
    ctx: Context, params: QueryParams, monkeypatch: pytest.MonkeyPatch, walk: bool = False
) -> tuple[Retrieval, list[str], Retrieval, list[str]]:
    """The ranking (with `walk`, and the walk) as the store folds it, and with the fold turned off (`bridge.fold`
    None: a statement more), each with the statements it sent; index names, label statistics and word counts read
    once before."""
    retrieve(ctx, QUESTION, params, walk=walk)
    reads = count_reads(ctx.store, monkeypatch)
    folded = retrieve(ctx, QUESTION, params, walk=walk)
    sent = list(reads)
    reads.clear()
    with monkeypatch.context() as patch:
        patch.setattr(bridge, "fold", lambda *_args, **_kwargs: None)
        apart = retrieve(ctx, QUESTION, params, walk=walk)
    return folded, sent, apart, list(reads)


@pytest.mark.parametrize("top_k", [1, 3])
def test_the_ranking_is_one_statement_and_ranks_bitwise_as_two(  # noqa: PLR0917 - fixtures and a parameter
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    top_k: int,
) -> None:
    """On Neo4j one statement a search (two with the fold off), the server's fused scores of its best hits (the
    direct hybrid hits, before the bridge) equal to Python's to the last bit; the same ranking on both backends
    (the embedded store has no fold)."""
    ctx = _context(settings, store, embedder, tmp_path)
    params = QueryParams.from_settings(settings, top_k=top_k, max_hops=2)
    replies: list[Folded | None] = []
    then = type(store).hybrid_arms_then

    def kept(self: GraphStore, *args: object) -> Folded | None:
        found = then(self, *args)  # type: ignore[arg-type]
        if args[-1] is not None:  # continued (`hybrid_arms_together` is this without a continuation)
            replies.append(found)
        return found

    monkeypatch.setattr(type(store), "hybrid_arms_then", kept)
    folded, sent, apart, reads = _both(ctx, params, monkeypatch)
    assert_same(folded, apart)
    assert folded.chunks and folded.seeds and folded.hit_entities
    if store.backend != "neo4j":
        assert len(sent) == len(reads) and not any(replies)
        return
    assert (len(sent), len(reads)) == (1, 2), (sent, reads)
    server = replies[-1]
    assert server is not None
    chunks, entities = server.fused
    direct = retrieve(ctx, QUESTION, params.model_copy(update={"max_hops": 0}), walk=False).chunks
    assert chunks == [(h.id, h.score) for h in direct]
    assert entities == [(e.id, e.score) for e in apart.seeds[: bridge.QUESTION_ENTITIES]]


def test_without_stored_profiles_the_spread_is_read_as_before(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph whose chunks and entities have no stored profiles (written before them, or by another tool): the
    server declines to rank, the spread is the second statement, and the ranking is the same."""
    ctx = _context(settings, store, embedder, tmp_path)
    params = QueryParams.from_settings(settings, top_k=2, max_hops=2)
    store.query(f"MATCH (n) WHERE n.{bm25.TERMS} IS NOT NULL REMOVE n.{bm25.TERMS}, n.{bm25.LENGTH}")
    folded, sent, apart, reads = _both(ctx, params, monkeypatch)
    assert_same(folded, apart)
    assert folded.chunks and len(sent) == len(reads), (sent, reads)


def test_where_the_servers_best_hits_differ_the_spread_is_read_as_before(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's best hits in another order than Python's (what a tie or a last-bit difference gives, forced
    here by reordering its reply): the continuation's rows are not used, the spread is the second statement, and
    the ranking is the same."""
    ctx = _context(settings, store, embedder, tmp_path)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    then = type(store).hybrid_arms_then

    def reordered(self: GraphStore, *args: object) -> Folded | None:
        found = then(self, *args)  # type: ignore[arg-type]
        return replace(found, fused=[hits[::-1] for hits in found.fused]) if found else None

    monkeypatch.setattr(type(store), "hybrid_arms_then", reordered)
    folded, sent, apart, reads = _both(ctx, params, monkeypatch)
    assert_same(folded, apart)
    assert folded.chunks and len(sent) == len(reads), (sent, reads)
    if store.backend == "neo4j":
        assert len(sent) == 2, sent


@pytest.mark.parametrize("top_k", [1, 3])
def test_with_the_walk_the_seed_rows_ride_in_the_one_statement(  # noqa: PLR0917 - fixtures and a parameter
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    top_k: int,
) -> None:
    """With the walk (local mode, the service's search), the hybrid statement continued into the spread reads the
    walk's seed rows too: a statement less on Neo4j, and the chunks, scores, per-arm scores, seeds, hit entities
    and the expansion bitwise those of the statements apart. The server keeps the walk's five question entities."""
    ctx = _context(settings, store, embedder, tmp_path)
    params = QueryParams.from_settings(settings, top_k=top_k, max_hops=2)
    replies: list[Folded | None] = []
    then = type(store).hybrid_arms_then

    def kept(self: GraphStore, *args: object) -> Folded | None:
        found = then(self, *args)  # type: ignore[arg-type]
        if args[-1] is not None:
            replies.append(found)
        return found

    monkeypatch.setattr(type(store), "hybrid_arms_then", kept)
    folded, sent, apart, reads = _both(ctx, params, monkeypatch, walk=True)
    assert_same(folded, apart)
    assert folded.chunks and folded.seeds and folded.hit_entities and folded.expansion.entities
    if store.backend != "neo4j":
        assert len(sent) == len(reads) and not any(replies)
        return
    assert len(sent) == len(reads) - 1, (sent, reads)
    server = replies[-1]
    assert server is not None and "rows" in server.row
    assert [hit_id for hit_id, _ in server.fused[1]] == [e.id for e in apart.seeds]


def test_with_the_walk_a_mismatch_or_no_profiles_reads_as_before(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the walk, where the server's question entities are not Python's seeds in order (forced by reordering
    them past the three the spread weighs: only the walk's seeds differ), and on a graph without stored profiles,
    the spread and the seeds are read as before: the same statements, the same ranking and expansion."""
    ctx = _context(settings, store, embedder, tmp_path)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    then = type(store).hybrid_arms_then

    def reordered(self: GraphStore, *args: object) -> Folded | None:
        found = then(self, *args)  # type: ignore[arg-type]
        if not found or len(found.fused) < 2:
            return found
        chunks, entities = found.fused
        return replace(found, fused=[chunks, entities[: bridge.QUESTION_ENTITIES] + entities[:2:-1]])

    with monkeypatch.context() as patch:
        patch.setattr(type(store), "hybrid_arms_then", reordered)
        folded, sent, apart, reads = _both(ctx, params, monkeypatch, walk=True)
    assert_same(folded, apart)
    assert len(apart.seeds) > bridge.QUESTION_ENTITIES + 1
    assert folded.expansion.entities and len(sent) == len(reads), (sent, reads)
    store.query(f"MATCH (n) WHERE n.{bm25.TERMS} IS NOT NULL REMOVE n.{bm25.TERMS}, n.{bm25.LENGTH}")
    folded, sent, apart, reads = _both(ctx, params, monkeypatch, walk=True)
    assert_same(folded, apart)
    assert folded.expansion.entities and len(sent) == len(reads), (sent, reads)

"""Each label's document counts read with its sample (`doc_freq`), not one fulltext call per new word: BM25's own
count through adds, rewrites and removals, no count call in a search, and the same ranking as the counted path
wherever the two counts agree, on both backends."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, bm25, doc_freq
from tests.conftest import count_reads
from tests.curie_corpus import DOCUMENTS, PROJECT, assert_same, written

#: Questions without stop words (the indexes drop those: they counted 0 there) whose words both counts agree on.
AGREEING = ("Marie Curie polonium radium Paris", "Pierre Curie crystals magnetism", "Warsaw Vistula capital")


def _index(settings: Settings, store: GraphStore, embedder: Embedder, folder: Path) -> None:
    run_index(settings, store, embedder, [folder], project=PROJECT)


def _expected(store: GraphStore, label: str, fields: list[str]) -> Counter[str]:
    """BM25's count, from each node's current text: how many texts' profiles hold each term."""
    rows = store.read(f"MATCH (n:{label}) RETURN {bm25.text_of('n', fields)} AS text")
    return Counter(term for row in rows for term in bm25.profile_keys(str(row["text"])))


def _assert_tables(store: GraphStore, settings: Settings) -> None:
    for label, fields in bm25.profiled_fields(settings).items():
        expected = _expected(store, label, fields)
        assert expected
        assert doc_freq.table(store, label, fields) == expected
        words = ["vistula", "curie", "sourdough", "the"]
        _, corpus = store._bm25_basis(label, None, words)
        stats = bm25.LabelStats.read(store, label, fields)  # a count of min(BM25's, cap), estimated at the cap
        assert {w: corpus.doc_freq[w] for w in words} == {
            w: stats._estimated(w, min(expected[w], stats.cap)) for w in words
        }


def test_the_table_is_bm25s_count_through_adds_rewrites_and_removals(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path
) -> None:
    """The table is each term's count of texts whose BM25 profile holds it (stems included); after a run that
    rewrote one document and removed another, after a writer that knows nothing of profiles changed a text, and after
    a node was deleted, the store's next search reads the new counts (its statistics are read again after any
    write)."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    _assert_tables(store, settings)
    changed = {**DOCUMENTS, "warsaw.txt": "Warsaw, on the Vistula, is Poland's largest city. The Vistula floods."}
    del changed["bread.txt"]
    _index(settings, store, embedder, written(tmp_path, changed))
    _assert_tables(store, settings)
    s = settings
    store.query(
        f"MATCH (c:{s.chunk_label}) WHERE c.{s.text_property} STARTS WITH 'Marie Curie won' "
        f"SET c.{s.text_property} = c.{s.text_property} + ' The Vistula again.'"
    )
    _assert_tables(store, settings)
    store.query(f"MATCH (c:{s.chunk_label}) WHERE c.{s.text_property} STARTS WITH 'Warsaw' DETACH DELETE c")
    _assert_tables(store, settings)


def test_a_search_counts_no_word_with_the_fulltext_index(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question of words no search asked before sends no fulltext count (before: one per new word and label, in
    the hybrid statement on Neo4j, a read each on the embedded store); the label's table answers them."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    retrieve(ctx, "Where was Marie Curie born?", params, walk=True)  # index names and label statistics read once
    reads = count_reads(store, monkeypatch)
    found = retrieve(ctx, "Which crystals did Jacques study with his brother?", params, walk=True)
    assert found.chunks
    assert reads
    assert not [r for r in reads if "count(node)" in r], reads


def test_the_ranking_is_the_counted_paths_where_the_counts_agree(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the table, a question whose every word the fulltext index counts as BM25 does (up to the cap) ranks
    bitwise as it did when the index counted them (the table turned off: `TABLE_MAX` below the label's size)."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    for label, fields in bm25.profiled_fields(settings).items():
        stats = bm25.LabelStats.read(store, label, fields)
        count = bm25.match_counter(store, *store._keyword_procedure(label, None))
        table = _expected(store, label, fields)
        for question in AGREEING:
            for word in bm25.tokens(question):
                assert count(word, stats.cap) == min(table[word], stats.cap), (label, word)
    for question in AGREEING:
        with_table = retrieve(ctx, question, params, walk=True)
        with monkeypatch.context() as patch:
            patch.setattr(doc_freq, "TABLE_MAX", -1)
            store.query("RETURN 1")  # a write: the statistics are read again, without the table
            counted = retrieve(ctx, question, params, walk=True)
        store.query("RETURN 1")
        assert with_table.chunks
        assert_same(with_table, counted)

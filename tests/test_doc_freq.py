"""A Neo4j label's document counts from its texts analysed as Lucene's EnglishAnalyzer analyses them (`doc_freq`,
`lucene_english`): every word's count equals the fulltext index's own, a search sends no count for a word the
table answers, and every ranking is the counted path's bit for bit; FalkorDB keeps its count calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, bm25, doc_freq, lucene_english
from retrieval.store.text_query import lucene_query, terms
from tests.conftest import NEO4J, count_reads
from tests.curie_corpus import assert_same, written

PROJECT = "lucene"
#: Possessives, "U.S.", numbers, hyphens, apostrophes (straight and curly), accents, stop words, Porter's own
#: departures from the 1980 paper ("technology", "possibly") and words of two letters.
DOCUMENTS = {
    "india.txt": "India's National Physical Laboratory is in New Delhi. The U.S. and India's scientists met in "
    "the 1990s; it's a well-known, long-running partnership of the two countries' laboratories.",
    "cafe.txt": "The café’s owner, José Núñez, opened it in 1987 at 12 Rue de l'Église. Naïve visitors don't "
    "tip; the owners' children are running the place now. Ça va?",
    "tech.txt": "Technology possibly changes assembly lines: technological assemblies run 24/7, and a U.S.-made "
    "robot costs $3.5 million. Is it as good as us? Not by far, says the e-mail of O'Neill & Sons.",
    "stop.txt": "To be or not to be: that is the question, and there will be no answer if they are in it.",
    "river.txt": "The Vistula flows through Warsaw, Kraków and Gdańsk; its basin's area is 194,424 km² "
    "(75,068 sq mi). The river's delta — Żuławy — was drained by Mennonites.",
}
QUESTIONS = (
    "Which India's laboratory did the U.S. scientists visit in the 1990s?",
    "Who owns the café on Rue de l'Église?",
    "Does technology possibly change assembly lines as it is said?",
    "What is the area of the Vistula basin in km?",
)


def test_the_analysis_is_lucenes() -> None:
    """Terms as Lucene 9.11.1's EnglishAnalyzer gives them (its output, recorded): "U.S." one token stemmed to
    "u.", a possessive dropped, "don't" whole, "İ" lower-cased to "i", stop words gone, Porter's own stemmer
    ("technolog", "possibl"), two-letter words unstemmed."""
    text = "India's U.S. economy, naïve café's 1990s well-known don't İstanbul running the"
    assert lucene_english.analysed(text) == [
        "india", "u.", "economi", "naïv", "café", "1990", "well", "known", "don't", "istanbul", "run",
    ]  # fmt: skip
    assert lucene_english.analysed("technology possibly assembly us as ostensibly") == [
        "technolog", "possibl", "assembl", "us", "ostens",
    ]  # fmt: skip
    assert lucene_english.query_term("the") == ""
    assert lucene_english.query_term("running") == "run"
    assert lucene_english.query_term("café") is None  # not trusted: the index counts it


def _index(settings: Settings, store: GraphStore, embedder: Embedder, folder: Path) -> None:
    run_index(settings, store, embedder, [folder], project=PROJECT)


def _fulltext_count(store: GraphStore, index: str, word: str) -> int:
    """The index's own count of `word`'s matches, uncapped (as the statement counts a new word, without its cap)."""
    q = lucene_query(word)
    if not q:
        return 0
    rows = store.read(
        "CALL db.index.fulltext.queryNodes($index, $q) YIELD node RETURN count(node) AS n", {"index": index, "q": q}
    )
    return int(rows[0]["n"])


def test_every_words_count_is_the_indexs(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    *,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
) -> None:
    """On Neo4j, for every word of the corpus (each a query word could be) and both labels, the table's count is
    `db.index.fulltext.queryNodes`' count; words outside ASCII letters and digits are left to the index. On
    FalkorDB there is no table: each new word is counted with the index (a read each), as before."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    for label, fields in bm25.profiled_fields(settings).items():
        if backend != NEO4J:
            reads = count_reads(store, monkeypatch)
            store._corpus(label, fields, ["india", "technology"])  # type: ignore[attr-defined]
            monkeypatch.undo()
            assert sum("count(node)" in r for r in reads) == 2, reads
            continue
        index = store._index_name("fulltext", label, None)  # type: ignore[attr-defined]
        stats = store._label_stats(label, index, fields)  # type: ignore[attr-defined]
        assert stats.known is not None
        rows = store.read(f"MATCH (n:{label}) RETURN [{', '.join(f'n.{f}' for f in fields)}] AS values")
        words = {w for r in rows for value in r["values"] if isinstance(value, str) for w in terms(value, 10_000)}
        answered = {w: stats.known(w) for w in words}
        assert {w for w, n in answered.items() if n is None} == {w for w in words if not w.isascii()}
        counts = {w: n for w, n in answered.items() if n is not None}
        assert counts == {w: _fulltext_count(store, index, w) for w in counts}, label
        if label == settings.chunk_label:
            assert {"india", "s", "u", "1990s", "don", "t", "the", "well", "known", "technology"} <= words
            assert counts["the"] == 0 and counts["india"] == 1 and counts["technology"] == 1


def test_a_search_counts_only_untrusted_words_and_ranks_as_the_counted_path(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    *,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    backend: str,
) -> None:
    """On Neo4j a question's new words go to the index only where the table cannot answer them ("café", "église"),
    none otherwise; on FalkorDB every new word is counted as before. Either way each question ranks bitwise as
    with every word counted by the index (the table turned off: `TABLE_MAX` below the label's size)."""
    _index(settings, store, embedder, written(tmp_path, DOCUMENTS))
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    retrieve(ctx, "Where is Warsaw?", params, walk=True)  # index names and label statistics read once
    for question in QUESTIONS:
        reads = count_reads(store, monkeypatch)
        counted_words = _counted_words(store, monkeypatch)
        with_table = retrieve(ctx, question, params, walk=True)
        monkeypatch.undo()
        assert reads
        if backend == NEO4J:
            assert set(counted_words) <= {"café", "église"}, question
        else:
            assert any("fulltext" in r and "count(node)" in r for r in reads), question
        with monkeypatch.context() as patch:
            patch.setattr(doc_freq, "TABLE_MAX", -1)
            store.query("RETURN 1")  # a write: the statistics are read again, without the table
            counted = retrieve(ctx, question, params, walk=True)
        store.query("RETURN 1")
        assert with_table.chunks
        assert_same(with_table, counted)


def _counted_words(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The new words the store's hybrid statements ask the index to count from now on (Neo4j's `h{i}_words`)."""
    found: list[str] = []
    if not hasattr(store, "_hybrid_plan"):
        return found
    from retrieval.store import neo4j_hybrid

    parameters = neo4j_hybrid.parameters

    def watched(*args: object, **kwargs: object) -> object:
        params = parameters(*args, **kwargs)  # type: ignore[arg-type]
        found.extend(w["word"] for key, value in params.items() if key.endswith("_words") for w in value if w["word"])
        return params

    monkeypatch.setattr(neo4j_hybrid, "parameters", watched)
    return found

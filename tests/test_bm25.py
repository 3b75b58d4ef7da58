"""BM25 re-scoring: the cached, sorted-words profile scores exactly as the plain definition does."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from retrieval.store import bm25

VOCABULARY = ["comput", "computer", "computers", "computing", "computation", "cat", "cats", "cattle", "run", "runs"]
VOCABULARY += ["running", "the", "a", "élan", "élans", "w12", "w123", "w1234", "w12345", "w1234567", "x", "ÉLANS"]


def _reference(document: str, terms: list[str], corpus: bm25.Corpus) -> float:
    """Okapi BM25 written out term by term, a word counting for a term it extends by at most STEM_SLACK."""
    counts = Counter(bm25.tokens(document))
    length = sum(counts.values()) or 1
    norm = bm25.K1 * (1 - bm25.B + bm25.B * length / max(corpus.mean_length, 1.0))
    total = 0.0
    for term in terms:
        tf = counts.get(term, 0)
        if len(term) >= bm25.MIN_STEM:
            tf += sum(n for w, n in counts.items() if w.startswith(term) and 0 < len(w) - len(term) <= bm25.STEM_SLACK)
        if tf:
            df = max(1, corpus.doc_freq.get(term, 1))
            idf = math.log(1 + (corpus.documents - df + 0.5) / (df + 0.5))
            total += idf * tf * (bm25.K1 + 1) / (tf + norm)
    return total


@pytest.mark.parametrize("seed", range(5))
def test_score_matches_the_definition(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        document = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(0, 60)))
        terms = list(dict.fromkeys(rng.choice(VOCABULARY).lower() for _ in range(rng.randint(1, 6))))
        corpus = bm25.Corpus(1000, 30.0, {t: rng.randint(1, 900) for t in terms})
        expected = _reference(document, terms, corpus)
        assert bm25.score(document, terms, corpus) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert bm25.score(document, terms, corpus) == pytest.approx(expected, rel=1e-12, abs=1e-12)  # cached


def test_stem_slack_and_minimum_length() -> None:
    corpus = bm25.Corpus(100, 3.0, {"comput": 5, "cat": 5})
    assert bm25.score("computers computational", ["comput"], corpus) > 0  # "computers" extends it by 3
    assert bm25.score("computational", ["comput"], corpus) == 0  # ...by 7: another word
    assert bm25.score("cats cattle", ["cat"], corpus) == 0  # a 3-letter term matches itself only


@pytest.mark.parametrize("fields", [["text"], ["title", "text"]])
def test_ranked_scores_the_fields_joined(fields: list[str]) -> None:
    """A candidate's score is that of its fields' values joined by spaces (a missing or empty one as ""), whether
    the index covers one property (read as the value itself) or several."""
    corpus = bm25.Corpus(100, 6.0, {"computers": 3, "cats": 40})
    rows = [
        {"id": "a", "props": {"title": "Computers", "text": "cats and computers"}},
        {"id": "b", "props": {"title": "", "text": "cats"}},
        {"id": "c", "props": {"title": "Computers"}},
        {"id": "d", "props": {"text": "dogs"}},
    ]
    found = bm25.ranked(rows, fields, ["computers", "cats"], corpus, 10)
    expected = {
        r["id"]: bm25.score(" ".join(str(r["props"].get(f) or "") for f in fields), ["computers", "cats"], corpus)
        for r in rows
    }
    assert [(h.id, h.score) for h in found] == sorted(
        ((i, s) for i, s in expected.items() if s > 0), key=lambda pair: -pair[1]
    )
    assert {h.id for h in found} == ({"a", "b", "c"} if len(fields) == 2 else {"a", "b"})


@pytest.mark.parametrize("seed", range(3))
def test_a_common_words_estimate_is_its_share_of_the_sample(seed: int) -> None:
    """A word counted up to the cap gets its document count from the sample: the share of the sample's texts
    holding it (counted once per label's statistics, `sample_holding`), as a scan of the sample counts it; below
    the cap, its own count; with no sample, the count."""
    rng = random.Random(seed)
    sample = [set(rng.sample(VOCABULARY, rng.randint(0, 8))) for _ in range(rng.randint(1, 40))]
    stats = bm25.LabelStats(size=rng.randint(50, 5000), mean_length=20.0, sample=sample, freq={})
    for word in [*VOCABULARY, "absent"]:
        estimate = max(stats.cap, round(sum(1 for held in sample if word in held) / len(sample) * stats.size))
        assert stats._estimated(word, stats.cap) == estimate
        assert stats._estimated(word, stats.cap - 1) == stats.cap - 1
        assert stats.idf_of(word) == (-1.0, bm25.idf(stats.size, estimate))
    empty = bm25.LabelStats(size=100, mean_length=20.0, sample=[], freq={})
    assert empty._estimated("cat", empty.cap) == empty.cap


def test_known_counts_answer_as_a_count_up_to_the_cap_would() -> None:
    """Words `known` (Neo4j's table of the index's terms) are left uncounted, and each one's document count and idf
    are those of a fulltext count that found min(known, cap) matches: its own below the cap, the sample's estimate
    at it; a word known as None (not trusted) is counted as before."""
    sample = [{"cat", "the"}, {"the"}, {"dog"}, {"the", "dog"}]
    table = {"cat": 2, "the": 400, "dog": 30, "absent": 0}
    known = bm25.LabelStats(size=1000, mean_length=5.0, sample=sample, freq={}, known=table.get)
    counted = bm25.LabelStats(size=1000, mean_length=5.0, sample=sample, freq={})
    words = ["cat", "the", "dog", "absent", "café"]
    assert known.uncounted(words) == ["café"]
    assert counted.uncounted([*words, "cat"]) == words
    expected = {w: known.idf_of(w) for w in words}
    asked: list[str] = []

    def count(word: str, cap: int) -> int:
        asked.append(word)
        return min(table.get(word, 0), cap)

    corpus = known.corpus(words, count)
    assert asked == ["café"]
    assert corpus.doc_freq == counted.corpus(words, count).doc_freq
    assert corpus.doc_freq["the"] == round(3 / 4 * 1000) and corpus.doc_freq["cat"] == 2
    assert expected == {
        **{w: (bm25.idf(1000, max(1, corpus.doc_freq[w])), 0.0) for w in words if w != "café"},
        "café": (-1.0, bm25.idf(1000, max(1, known._estimated("café", known.cap)))),
    }

"""The hybrid statement ranked on the server too, and continued there from that ranking (issue #26).

Why: a default search on Neo4j was two statements, the hybrid one (`neo4j_hybrid`: both searches' candidates),
then the bridge's spread, which depends on the first only through the best fused hits (two chunks, three
entities). With each candidate's BM25 counts read from its stored profile (`neo4j_terms`), the server can score
BM25 and the linear fusion itself (+ * / on doubles: the same in Java and Python when the terms are summed in the
same order), rank each search and go on into the spread in the same statement: one round trip, not two.
What the server does not do is a logarithm: each word's idf comes as a parameter, computed by Python as BM25
computes it (`bm25.LabelStats.idf_of`; for a word not counted yet, its value at the cap and the values of the
counts below it, which the server picks by the count the statement finds). Nor does it tokenise: a candidate
without a (current) stored profile makes the server decline (its ranking is then empty), and the caller reads the
spread as before. The server's ranking is a proposal: Python ranks the same candidates from the same reply as it
always did (`neo4j_hybrid.arms`), and the caller uses the continuation only when its own best hits are the
server's (a tie's order or a last bit may differ).
It assumes that Lucene's pool is no larger than the hits each arm keeps (`neo4j.HYBRID_POOL` < 1): then the
keyword arm is every candidate BM25 scores above 0, as the server ranks it; were it larger, the server's ranking
could differ, and the caller would read the spread as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from retrieval.store import bm25, neo4j_hybrid
from retrieval.store.records import Arms, Folded, HybridSearch, Row, ThenRead
from retrieval.store.text_query import terms

#: Per search: its plan and its label's statistics (what `Neo4jStore._hybrid_plan` returns).
type Planned = tuple[neo4j_hybrid.HybridPlan, bm25.LabelStats]


def applies(plans: Sequence[neo4j_hybrid.HybridPlan], then: ThenRead) -> bool:
    """Whether the server can rank every search: each reads its candidates' stored counts (`HybridPlan.counted`),
    and `then` says how many hits of each to keep."""
    return len(then.keep) == len(plans) and all(plan.counted for plan in plans)


def statement(planned: Sequence[Planned], words: Sequence[str], then: ThenRead) -> tuple[str, Row, list[str]]:
    """The subqueries that follow the hybrid statement's (`neo4j_hybrid.statement`): `fused{i}` per search, then
    `then`'s continuation; their parameters (prefixed `u{i}_`, and `then.params`); the columns they add.

    Each candidate (the vector arm's, then the pool's the vector arm lacks) is `[id, cosine, counts, in vector]`;
    BM25 sums `idf * tf * (k1 + 1) / (tf + norm)` over the words in their order, from 0.0, as `bm25._scored` does
    (a word absent adds 0.0, which changes no sum); the keyword arm is every candidate scoring above 0, the vector
    arm the vector candidates and the keyword hits with a vector, each normalised as `fusion` does."""
    parts: list[str] = []
    params: Row = {**then.params, "u_k1": bm25.K1, "u_k1_1": bm25.K1 + 1.0, "u_b": bm25.B}
    params.update(u_alpha=then.alpha, u_beta=1.0 - then.alpha, u_reference=then.reference)
    for i, ((plan, stats), keep) in enumerate(zip(planned, then.keep, strict=True)):
        p = f"$u{i}_"
        at = 2 + len(plan.returned)  # the counts column (`neo4j_terms.column`) of a candidate
        cosine = "CASE WHEN c[1] IS NULL THEN null ELSE 2.0 * c[1] - 1.0 END"
        parts.append(
            f"CALL {{ WITH vector{i}, pool{i}, counts{i} "
            f"WITH [c IN vector{i} | [c[0], 2.0 * c[1] - 1.0, c[{at}], true]] "
            f"+ [c IN pool{i} WHERE size(c) > 1 | [c[0], {cosine}, c[{at}], false]] AS found, "
            f"[j IN range(0, size({p}words) - 1) | CASE WHEN {p}idf[j] >= 0.0 THEN {p}idf[j] ELSE [n IN "
            f"[coalesce(head([w IN counts{i} WHERE w[0] = {p}words[j] | w[1]]), 0)] | CASE WHEN n >= {p}cap "
            f"THEN {p}capped[j] ELSE {p}below[n] END][0] END] AS idf "
            "UNWIND CASE WHEN any(c IN found WHERE c[2] IS NULL) THEN [] ELSE found END AS c "
            "WITH c, idf, c[2][1] AS tf, CASE c[2][0] WHEN 0 THEN 1 ELSE c[2][0] END AS length "
            f"WITH c, idf, tf, $u_k1 * (1.0 - $u_b + $u_b * length / {p}mean) AS norm "
            "WITH c, reduce(s = 0.0, j IN range(0, size(tf) - 1) | s + CASE WHEN tf[j] > 0 "
            "THEN idf[j] * tf[j] * $u_k1_1 / (tf[j] + norm) ELSE 0.0 END) AS keyword WHERE c[3] OR keyword > 0 "
            "WITH c[0] AS id, CASE WHEN c[3] OR c[1] IS NOT NULL THEN "
            "CASE WHEN c[1] > 1.0 THEN 1.0 WHEN c[1] < 0.0 THEN 0.0 ELSE c[1] END ELSE 0.0 END AS vector, "
            "CASE WHEN keyword > 0 THEN keyword / (keyword + $u_reference) ELSE 0.0 END AS keyword "
            f"WITH id, $u_alpha * vector + $u_beta * keyword AS score ORDER BY score DESC LIMIT {p}keep "
            f"RETURN collect([id, score]) AS fused{i} }}"
        )
        # Lists of floats only (a sentinel, not null, for a new word's idf): Neo4j's plan cache keys on the
        # parameters' types, and planning this statement took 0.7-1.0 s at load ~19 (a search that pays it stalls).
        known, capped = zip(*(stats.idf_of(word) for word in words), strict=True) if words else ((), ())
        params.update(
            {
                f"u{i}_idf": list(known),
                f"u{i}_capped": list(capped),
                f"u{i}_below": stats.idf_below_cap,
                f"u{i}_cap": stats.cap,
                f"u{i}_words": list(words),
                f"u{i}_mean": max(stats.mean_length, 1.0),
                f"u{i}_keep": int(keep),
            }
        )
    return " ".join([*parts, then.cypher]), params, [*(f"fused{i}" for i in range(len(planned))), *then.columns]


def folded(
    row: Mapping[str, Any],
    searches: Sequence[HybridSearch],
    planned: Sequence[Planned],
    text: str,
    then: ThenRead | None,
) -> Folded:
    """Each search's arms from the reply (`neo4j_hybrid.arms`; None where the filter left its vector arm short while
    the index holds more: its caller then over-fetches round by round), the first search's candidates' term counts
    (`Folded.terms`: the bridge's residual scores the chunk hits from them), and with `then` the server's ranking
    and the continuation's columns."""
    words = terms(text)
    found: list[Arms | None] = []
    for i, (search, (plan, stats)) in enumerate(zip(searches, planned, strict=True)):
        part = neo4j_hybrid.columns(row, i)
        if search.filters and len(part["vector"]) < search.fetch and plan.vector_fetch < stats.size:
            found.append(None)
            continue
        arms = neo4j_hybrid.arms(part, plan, text, corpus=_corpus(stats, words))
        found.append((arms.vector, arms.keyword))
    first = found[0] if found else None
    counts = {hit.id: hit.terms for arm in first or () for hit in arm if hit.terms is not None}
    if then is None:
        return Folded(found, [], {}, counts)
    fused = [[(str(hit[0]), float(hit[1])) for hit in row[f"fused{i}"]] for i in range(len(searches))]
    return Folded(found, fused, {column: row[column] for column in then.columns}, counts)


def _corpus(stats: bm25.LabelStats, words: Sequence[str]) -> Callable[[Mapping[str, int]], bm25.Corpus]:
    """BM25's corpus for the text's words, the new words counted by the statement (`counts{i}`)."""

    def corpus(counts: Mapping[str, int]) -> bm25.Corpus:
        return stats.corpus(words, lambda word, _cap: counts.get(word, 0))

    return corpus

"""The chunks the bridge's spread reaches best, with their exact cosines, read in the spread's own statement.

Why: the bridge scores the `bridge.CANDIDATES` chunks the spread reaches best by hybrid search restricted to them,
whose vector arm is each one's exact cosine. That read was a statement of its own after the spread, on the bridge's
branch of the default search (docs/benchmarks.md, "Neo4j search next to its peers"). The server can add up the
spread's scores as `bridge._spread` does (the same sums in another order: equal up to rounding) and pick the best
`CANDIDATES + SLACK` of them; their cosines come with the spread's reply, computed as the store's
`exact_vector_search` computes them (`GraphStore.exact_scoring`). The server's pick only saves the read: Python
still picks the candidates from its own spread scores, and uses what was read only when every one of them is among
the server's pick (all but a tie wider than the slack at the cut); otherwise the restricted search reads as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from retrieval.context import Context
from retrieval.models import QueryParams
from retrieval.store.records import ExactScoring, Row, StoreHit, filter_clause, ident

#: Chunks the server picks past the candidates Python keeps: room for rounding and ties at the cut.
SLACK = 10


@dataclass(frozen=True)
class Ask:
    """What the spread's statement needs to read the reached chunks' cosines: how the store scores, and under
    which filters the restricted search would read them."""

    scoring: ExactScoring
    filters: Mapping[str, object]


@dataclass(frozen=True)
class Reach:
    """The server's pick (every id it picked) and the exact hits among them (those with a vector under the
    filters), best first as `exact_vector_search` orders them."""

    picked: frozenset[str]
    exact: list[StoreHit]

    def covering(self, reached: Sequence[str]) -> list[StoreHit] | None:
        """The exact hits of `reached` when the pick holds every one of them; None when it does not."""
        wanted = set(reached)
        if not wanted <= self.picked:
            return None
        return [hit for hit in self.exact if hit.id in wanted]


def ask(ctx: Context, params: QueryParams, query_vector: Sequence[float] | None) -> Ask | None:
    """The read to fold into the spread when the bridge's restricted search would rank by exact cosine on the
    graph's server; None when it would not (keyword search only, vectors in Qdrant, cosine on the client)."""
    vector_arm = params.search_type == "vector" or (params.search_type != "fulltext" and params.alpha > 0)
    if query_vector is None or not vector_arm or not ctx.vectors.in_graph:
        return None
    scoring = ctx.store.exact_scoring(ctx.settings.chunk_label, query_vector)
    return Ask(scoring, {**ctx.project_filter, **params.filters}) if scoring else None


def fragment(ctx: Context, reach: Ask) -> tuple[str, Row]:
    """`CALL { WITH parts ... RETURN picked, exact }` over the spread's packed link rows (`bridge._LINKS`), and
    its parameters but the weights (`parameters`).

    The spread's arithmetic: a link (who lends, its id, the entity) of at most `$reach_mentions` chunks lends its
    weight times each other chunk's mention count (0 or none counts 1) over the other chunks' number squared."""
    s = ctx.settings
    condition, params = filter_clause("n", reach.filters, prefix="reach_f_")
    where = f"{condition} AND " if condition else ""
    scoring = reach.scoring
    cypher = (
        "CALL { WITH parts UNWIND reduce(acc = [], part IN parts | acc + part) AS l "
        "WITH l[0] AS kind, l[1] AS source, l[2] AS entity, collect([l[3], l[4]]) AS chunks "
        "WHERE size(chunks) <= $reach_mentions "
        "WITH kind, source, [c IN chunks WHERE c[0] <> source] AS others "
        "WITH [w IN $reach_weights WHERE w[0] = kind AND w[1] = source | w[2]][0] AS weight, others "
        "UNWIND others AS c "
        "WITH c[0] AS chunk, weight * (CASE WHEN c[1] IS NULL OR c[1] = 0 THEN 1.0 ELSE toFloat(c[1]) END) "
        "/ (toFloat(size(others)) ^ $reach_power) AS part WHERE NOT chunk IN $reach_hits "
        "WITH chunk, sum(part) AS score ORDER BY score DESC LIMIT $reach_limit "
        "WITH collect(chunk) AS picked "
        f"CALL {{ WITH picked UNWIND picked AS id MATCH (n:{ident(s.chunk_label)} {{id: id}}) "
        f"WHERE {where}n.{ident(s.embedding_property)} IS NOT NULL "
        f"WITH n, {scoring.score} AS score ORDER BY score {scoring.order} "
        f"RETURN collect([n.id, score, n {{{scoring.props}}}]) AS exact }} "
        "RETURN picked, exact }"
    )
    return cypher, {**params, **scoring.params}


def parameters(
    sources: Mapping[str, float], question: Mapping[str, float], hits: Sequence[str], shape: Mapping[str, float]
) -> Row:
    """The weights of who lends (`bridge._spread`'s), the hits (never candidates), and the spread's `shape`: its
    `candidates`, `mentions` (the most a link may have) and `power` (of the other chunks' number)."""
    weights = [["hit", source, w] for source, w in sources.items()]
    weights += [["question", entity, w] for entity, w in question.items()]
    return {
        "reach_weights": weights,
        "reach_hits": list(hits),
        "reach_limit": int(shape["candidates"]) + SLACK,
        "reach_mentions": int(shape["mentions"]),
        "reach_power": float(shape["power"]),
    }


def read(reach: Ask, row: Mapping[str, object]) -> Reach:
    """The reply's `picked` and `exact` columns as a `Reach` (hits ordered as `exact_vector_search` orders them)."""
    found = [reach.scoring.hit(r) for r in row["exact"]]  # type: ignore[attr-defined]
    return Reach(frozenset(str(i) for i in row["picked"]), sorted(found, key=lambda hit: -hit.score))  # type: ignore[attr-defined]

"""Multi-hop re-ranking through shared entity mentions: how a second-hop ("bridge") passage is found.

Why this shape: a multi-hop question names its first passage, and the second one is reached through
an entity that the first passage mentions ("the author of Brand" -> Henrik Ibsen -> Ibsen's country).
The second passage rarely shares the question's words, so it ranks low on both hybrid arms. Three
signals pull it up, each measured on the dev sets (benchmarks/eval_retrieval.py, docs/benchmarks.md):
- **spread**: each of the best hits lends its relevance to the other chunks mentioning its entities,
  split by how many chunks mention each entity, squared. A rare name ties two passages; a country
  mentioned by thirty passages ties none. Entities matching the question lend too, at a lower weight.
- **residual words**: the bridge passage answers the part of the question its source did not cover
  ("kind of university" once "Alexander and the Terrible..." is matched), so reached chunks are scored
  by keywords on the question's words that the source hit lacks.
- the chunk's own hybrid score, computed exactly for every reached chunk.
The best direct hit keeps the first place: the passages it leads to rank after it.
Walking RELATED edges instead (the drift-scored expansion) measured worse for ranking: offline
relations are co-occurrences, which connect a passage to everything near it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from retrieval.context import Context
from retrieval.models import Hit, QueryParams
from retrieval.search.expand import SEED_COLUMNS, hop_parameters, seed_rows
from retrieval.search.fusion import keyword_norm, keyword_reference
from retrieval.search.hybrid import search_chunks, shown
from retrieval.search.keywords import content_terms, keyword_query
from retrieval.search.patterns import mention
from retrieval.store import bm25
from retrieval.store.base import ExactPart
from retrieval.store.records import Folded, Row, StoreHit, TermCounts, ThenRead, ident, packed, unpacked
from retrieval.store.text_query import terms

#: Best hits whose entities lend relevance (more dilutes it with the hits that merely look alike).
SOURCE_HITS = 2
#: Entities matching the question that lend relevance, and their weight next to a source hit's.
QUESTION_ENTITIES = 3
QUESTION_WEIGHT = 0.35
#: Exponent of the mention count that divides what an entity lends: 2 keeps only near-unique ties.
SPECIFICITY_POWER = 2.0
#: An entity mentioned by more chunks lends at most 1/MAX_MENTIONS² of a hit: skipped, so hubs cost nothing.
MAX_MENTIONS = 25
#: Weights of the spread and of the residual-word score, in units of the best hit's fused score.
SPREAD_WEIGHT = 0.8
RESIDUAL_WEIGHT = 0.2
#: Reached chunks scored exactly, best spread first (the rest could not overtake the hits).
CANDIDATES = 30
#: The spread read's columns: who lends ('hit' or 'question'), its id, the entity, a chunk mentioning it, how often.
_LINKS = ("kind", "source", "entity", "chunk", "count")
#: The fold's variables `_PICK` carries through its steps (`fold`).
_FOLD_KEPT = ", fold_lenders, fold_question, fold_hit_ids"
#: A float sum's share by which the server's pick may differ from `_spread`'s (the same terms in another order).
_TIE = 1e-9


def _pick(lender: str, asked: str, hit_ids: str, kept: str = "") -> str:
    """`_PICK` with the weight of a lending source hit and of a question entity (Cypher expressions of `source`),
    the hits' ids, and the variables `kept` (`, a, b`) carried through its steps (the fold's are variables)."""
    return (
        "UNWIND parts AS part UNWIND part AS link "
        f"WITH link[0] AS kind, link[1] AS source, link[2] AS entity, collect(link) AS chunks{kept} "
        "WHERE size(chunks) <= $max_mentions AND none(c IN chunks WHERE c[3] IS NULL) "
        f"WITH kind, source, [c IN chunks WHERE c[3] <> source] AS others{kept} UNWIND others AS other "
        f"WITH other[3] AS chunk, sum(CASE kind WHEN 'hit' THEN {lender} ELSE {asked} END "
        "* CASE WHEN other[4] IS NULL OR other[4] = 0 THEN 1.0 ELSE toFloat(other[4]) END "
        f"/ size(others) ^ $power) AS score{kept} WHERE NOT chunk IN {hit_ids} "
        "WITH chunk, score ORDER BY score DESC WITH collect([chunk, score]) AS ranked "
        "RETURN [x IN ranked WHERE size(ranked) <= $candidates OR x[1] >= ranked[$candidates - 1][1] * $tie "
        "| x[0]] AS picked"
    )


#: The spread's pick on the server (`Spread.exact_of`): each reached chunk's spread score summed as `_spread` sums
#: it (the links of a hub skipped, the source itself not reached), the hits left out, best first, and every chunk
#: within `_TIE` of the CANDIDATES-th kept: a tie's order is the rows' order, so all of it is kept. A link with a
#: hub's row (no chunk: see `_spread`) lends nothing, nor one whose rows add up past the cap (an entity the source
#: mentions twice is two subquery rows of one link, as in `_spread`).
_PICK = _pick("$lenders[source]", "$question[source]", "$hit_ids")


@dataclass
class Spread:
    """Spread score per reached chunk, which source hit reached which chunks, and the entities the best hits
    mention (id -> the hit's score: where the neighbourhood walk starts)."""

    score: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    reached_from: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    hit_entities: dict[str, float] = field(default_factory=dict)
    #: The walk's seeds (the hit entities and the question's entities) as `expand.seed_rows` reads them, when
    #: asked for: the walk then starts without a round trip of its own.
    seed_rows: list[Row] | None = None
    #: The chunks the spread's statement picked by spread score (`_PICK`), when it scored them too, and their exact
    #: vector hits (`GraphStore.exact_part`): `rerank` then reads no scores of its own.
    picked: frozenset[str] | None = None
    exact: list[StoreHit] = field(default_factory=list)
    #: The direct hits' term counts of the question's keywords, read by the hybrid statement (`Folded.terms`):
    #: `_residual` then tokenises no hit's text (the exact hits carry their own).
    terms: Mapping[str, TermCounts] = field(default_factory=dict)

    def exact_of(self, ids: Sequence[str]) -> list[StoreHit] | None:
        """The exact vector hits of `ids` read with the spread, best first; None unless the statement picked every
        one of them (a float sum in another order could differ at the cut: then `rerank` reads them as before)."""
        if self.picked is None or not self.picked.issuperset(ids):
            return None
        wanted = set(ids)
        return [hit for hit in self.exact if hit.id in wanted]


@dataclass
class Bridged:
    chunks: list[Hit]
    #: Entities the best hits mention, with the hit's score: where the neighbourhood walk starts.
    hit_entities: dict[str, float]


def spread(
    ctx: Context,
    hits: Sequence[Hit],
    entity_hits: Sequence[Hit],
    walk: QueryParams | None = None,
    *,
    scoring: tuple[QueryParams, list[float] | None, str] | None = None,
    fold: Fold | None = None,
    folded: Folded | None = None,
) -> Spread:
    """One round trip: what the best hits and the question's entities lend to the chunks sharing their entities;
    with `walk` (the walk's parameters), the walk's seeds with their first hop as well (`Spread.seed_rows`);
    given `scoring` (the search's parameters, query vector and question), the exact vector hits of the reached chunks
    `rerank` will score, where the store computes them in a read (`Spread.exact`): with the walk or without, so
    that the search showing the walk (local mode, the service's) has no round trip of its own for those scores.

    Apart from `rerank` so that a caller may start the walk from `hit_entities` while the reached chunks are
    scored (`retrieval/search/ranking.py`). Why the seeds here: they are the entities this read finds (and the
    question's), so reading them in the same statement saves the walk's first round trip, on the search's
    longest path.

    With `fold` and `folded` (the hybrid statement continued by `fold`, `GraphStore.hybrid_arms_then`), the
    spread's rows are that statement's where the server's best hits are these (`_replied`): no round trip here.
    `fold` is built from `scoring`, so its exact part stands for `scoring`'s where the spread is read after all."""
    if not hits:
        return Spread()
    unit = hits[0].score or 1.0
    lenders = {h.id: h.score / unit for h in hits[:SOURCE_HITS]}
    best_entity = max((e.score for e in entity_hits), default=0.0) or 1.0
    question = {e.id: QUESTION_WEIGHT * e.score / best_entity for e in entity_hits[:QUESTION_ENTITIES]}
    reply = _replied(fold, folded, list(lenders), [e.id for e in entity_hits], walk is not None)
    if reply is not None:
        found = _scored(reply, lenders, question)
    else:
        # The fold's exact part is this read's (built from the same scoring), so a fallback builds it once.
        exact = fold.exact if fold is not None else _exact_part(ctx, scoring) if scoring else None
        found = _spread(ctx, lenders, question, [e.id for e in entity_hits], walk, exact=exact, hits=hits)
    found.hit_entities = {e: unit * w for e, w in found.hit_entities.items()}
    if folded is not None and not ctx.settings.retrieval_query:  # an enriched hit's text is not the one counted
        found.terms = folded.terms
    return found


@dataclass(frozen=True)
class _Exact:
    """The store's exact-score subquery for the reached chunks, and the query vector it scores them against."""

    part: ExactPart
    vector: list[float]


def _exact_part(ctx: Context, scoring: tuple[QueryParams, list[float] | None, str]) -> _Exact | None:
    """Where the search has a vector arm and a query vector and the vectors are in the graph (a vector store
    elsewhere scores them in `rerank`), and the store computes cosines in a read. The hits carry their term counts
    of the question's keywords where the store keeps them: `rerank`'s BM25 and `_residual` then read no texts."""
    params, vector, query = scoring
    if vector is None or params.search_type == "fulltext" or not ctx.vectors.in_graph:
        return None
    s = ctx.settings
    where = {**ctx.project_filter, **params.filters}
    part = ctx.store.exact_part(
        s.chunk_label,
        "picked",
        index=s.chunk_fulltext_index,
        filters=where,
        props=shown(ctx, "chunk"),
        words=terms(keyword_query(query)),
    )
    return _Exact(part, [float(x) for x in vector]) if part else None


@dataclass(frozen=True)
class Fold:
    """The spread's statement as the continuation of the ranking's hybrid statement (`GraphStore.hybrid_arms_then`),
    from the server's own best hits: `read` is what the store runs, `exact` decodes its exact part."""

    read: ThenRead
    exact: _Exact
    #: Whether it reads the walk's seed rows (`fold`'s `seeds`).
    walked: bool = False


def fold(
    ctx: Context, params: QueryParams, query_vector: list[float] | None, query: str, seeds: int = 0
) -> Fold | None:
    """The spread read (links, the server's pick and the exact part, as `_read` builds it) to run in the hybrid
    statement, from its fused hits (`fused0`: the chunks, best `params.top_k`; `fused1`: the question's entities,
    best QUESTION_ENTITIES, or `seeds`); with `seeds` (the question's entities the walk starts from, `params` its
    parameters), the walk's seed rows as `_read` reads them with the walk. None where the server cannot fuse as the
    search does (`fusion.linear` of both arms only) or does not score the reached chunks in the read (`_exact_part`:
    where the hybrid statement applies, it does). Why: the spread depends on the first statement only through those
    hits, and the walk's seeds are theirs; one statement is one round trip. `spread` uses its rows only where
    Python's own best hits (and seeds) are the server's."""
    if params.search_type != "hybrid" or params.fusion != "linear" or query_vector is None:
        return None
    exact = _exact_part(ctx, (params, query_vector, query))
    if exact is None:
        return None
    links = _links(ctx, "fold_hits", "fold_entities")
    # The weights as `spread` computes them (`_PICK`'s sums need not match Python's bitwise: `Spread.exact_of`).
    weight = "head([w IN {} WHERE w[0] = source | w[1]])"
    cypher = (
        "CALL { WITH fused0, fused1 WITH [x IN fused0[..$fold_sources] | x[0]] AS fold_hits, "
        f"[x IN fused1[..$fold_asked] | x[0]] AS fold_entities CALL {{ {links} }} RETURN collect(rows) AS parts }} "
        f"{_fold_seeds(ctx) if seeds else ''}"
        "CALL { WITH parts, fused0, fused1 WITH parts, fused0, fused1, [x IN fused0 | x[0]] AS fold_hit_ids, "
        "CASE WHEN fused0[0][1] = 0.0 THEN 1.0 ELSE fused0[0][1] END AS unit, "
        "CASE WHEN fused1[0][1] = 0.0 THEN 1.0 ELSE fused1[0][1] END AS best "
        "WITH parts, fold_hit_ids, [x IN fused0[..$fold_sources] | [x[0], x[1] / unit]] AS fold_lenders, "
        "[x IN fused1[..$fold_asked] | [x[0], $fold_weight * x[1] / best]] AS fold_question "
        f"{_pick(weight.format('fold_lenders'), weight.format('fold_question'), 'fold_hit_ids', _FOLD_KEPT)} }} "
        f"{exact.part.cypher} "
    )
    values: dict[str, object] = {
        **exact.part.params,
        "limit": MAX_MENTIONS + 1,
        "max_mentions": MAX_MENTIONS,
        "project": ctx.project,
        "fold_sources": SOURCE_HITS,
        "fold_asked": QUESTION_ENTITIES,
        "fold_weight": QUESTION_WEIGHT,
        "power": SPECIFICITY_POWER,
        "candidates": CANDIDATES,
        "tie": 1.0 - _TIE,
        **(hop_parameters(params) if seeds else {}),
    }
    keep = (params.top_k, max(QUESTION_ENTITIES, seeds))
    reference = keyword_reference(len(content_terms(query)))
    columns = ["parts", *(["rows"] if seeds else []), "picked", "exact"]
    return Fold(ThenRead(cypher, values, columns, keep, params.alpha, reference), exact, bool(seeds))


def _fold_seeds(ctx: Context) -> str:
    """The walk's seed rows in the fold (`rows`), as `_read` reads them: every hit entity (the 'hit' links'), then
    the server's best question entities, each once; its hop parameters are `hop_parameters`."""
    return (
        "CALL { WITH parts, fused1 WITH [link IN reduce(acc = [], part IN parts | acc + part) WHERE link[0] = 'hit' "
        f"| link[2]] + [x IN fused1 | x[0]] AS ids UNWIND ids AS id WITH DISTINCT id {seed_rows(ctx, True)} "
        f"{packed(SEED_COLUMNS)} }} "
    )


def _replied(
    fold: Fold | None, folded: Folded | None, sources: list[str], seeds: list[str], walk: bool
) -> _Reply | None:
    """The folded statement's spread rows (with `walk`, and the walk's seed rows), where the server's best hits were
    `sources` (the source hits) and its best entities the first of `seeds` (the question's entities, all of them
    with the walk: they are its seeds), in this order (the rows' order is the sums' order); else None."""
    if fold is None or folded is None or len(folded.fused) != len(fold.read.keep) or fold.walked != walk:
        return None
    chunks, entities = ([hit_id for hit_id, _ in hits] for hits in folded.fused)
    if chunks[:SOURCE_HITS] != sources or entities != seeds[: fold.read.keep[1]]:
        return None
    row = folded.row
    return _Reply(
        [{"rows": part} for part in row["parts"]],
        unpacked([row], SEED_COLUMNS) if walk else None,
        frozenset(str(c) for c in row["picked"]),
        fold.exact.part.hits(row["exact"]),
    )


def rerank(
    ctx: Context,
    query: str,
    params: QueryParams,
    *,
    query_vector: list[float] | None,
    hits: list[Hit],
    spread: Spread,
) -> Bridged:
    """`hits` plus the chunks their entities reach (`spread`, of these hits), re-ranked; best `params.top_k`."""
    if not hits:
        return Bridged(hits, {})
    unit = hits[0].score or 1.0
    by_id = {h.id: h for h in hits}
    reached = sorted((c for c in spread.score if c not in by_id), key=lambda c: -spread.score[c])[:CANDIDATES]
    if reached:
        scoped = params.model_copy(update={"top_k": len(reached)})
        known = spread.exact_of(reached)
        for hit in search_chunks(ctx, query, scoped, query_vector=query_vector, restrict_ids=reached, known=known):
            by_id[hit.id] = hit
    residual = _residual(ctx, query, params, by_id, spread) if params.search_type != "vector" else {}
    ranked = []
    for hit_id, hit in by_id.items():
        graph, words = spread.score.get(hit_id, 0.0), residual.get(hit_id, 0.0)
        if not (graph or words):
            ranked.append(hit)
            continue
        bonus = unit * (SPREAD_WEIGHT * graph + RESIDUAL_WEIGHT * words)
        sources = {**hit.sources, "graph": graph, **({"residual": words} if words else {})}
        ranked.append(hit.model_copy(update={"score": hit.score + bonus, "sources": sources}))
    # The best direct match stays first: bridges complete it, and ranking one above it cost MRR 0.85 -> 0.74.
    anchor = ranked[0]
    return Bridged([anchor, *sorted(ranked[1:], key=lambda h: -h.score)][: params.top_k], spread.hit_entities)


def _spread(
    ctx: Context,
    sources: Mapping[str, float],
    question: Mapping[str, float],
    seeds: Sequence[str],
    walk: QueryParams | None,
    *,
    exact: _Exact | None,
    hits: Sequence[Hit],
) -> Spread:
    """One round trip: the chunks sharing an entity with each source hit, and those mentioning question entities;
    with `walk`, the rows of every hit entity and of `seeds` (`expand.seed_rows`); with `exact`, the reached chunks
    the server picks by spread score (of those not in `hits`), scored exactly (`Spread.exact`)."""
    params: dict[str, object] = {
        "limit": MAX_MENTIONS + 1,
        "max_mentions": MAX_MENTIONS,
        "project": ctx.project,
        "hits": list(sources),
        "entities": list(question),
    }
    walked = (seeds, walk) if walk is not None else None
    links = _links(ctx, "$hits", "$entities")
    reply = _read(ctx, links, params, walk=walked, exact=exact, weights=(sources, question), hits=hits)
    return _scored(reply, sources, question)


def _links(ctx: Context, hits: str, entities: str) -> str:
    """The spread's rows (`_LINKS`, packed, one part per UNION branch) of the source hits `hits` (a list of chunk
    ids) and the question's entities `entities`: two parameters, or two variables the statement holds (`fold`)."""
    s = ctx.settings
    # The far chunk carries no label (the mention implies it); the LIMIT stops a hub's walk one past the cap. A hub
    # (more than MAX_MENTIONS chunks) is one row without a chunk: it lends nothing, but a hit's hub is still a hit
    # entity (a walk's seed), and its MAX_MENTIONS + 1 rows crossed the wire only to be skipped.
    mentions = (
        f"CALL {{ WITH e MATCH {mention(s, '(c)', '(e)', 'r')} WITH c, r LIMIT $limit "
        "RETURN collect([c.id, r.count]) AS found } "
        "UNWIND CASE WHEN size(found) > $max_mentions THEN [[null, null]] ELSE found END AS found_link "
        f"WITH kind, source, e.id AS entity, found_link[0] AS chunk, found_link[1] AS count {packed(_LINKS)}"
    )
    hits_in, entities_in = ("" if h.startswith("$") else f"WITH {h} " for h in (hits, entities))
    return (
        f"{hits_in}UNWIND {hits} AS source MATCH {mention(s, f'(:{ident(s.chunk_label)} {{id: source}})', '(e)')} "
        f"WITH 'hit' AS kind, source, e {mentions} UNION ALL "
        f"{entities_in}UNWIND {entities} AS source MATCH (e:{ident(s.entity_label)} {{id: source}}) "
        f"WHERE {ctx.in_scope('e')} WITH 'question' AS kind, source, e {mentions}"
    )


def _scored(reply: _Reply, sources: Mapping[str, float], question: Mapping[str, float]) -> Spread:
    """The spread of the links' rows, each source weighted as given (`sources`: the hits, `question`: entities)."""
    by_link: dict[tuple[str, str, str], list[tuple[str, float]]] = defaultdict(list)
    hubs: set[tuple[str, str, str]] = set()
    for row in unpacked(reply.parts, _LINKS):
        link = (str(row["kind"]), str(row["source"]), str(row["entity"]))
        if row["chunk"] is None:
            hubs.add(link)
        by_link[link].append((str(row["chunk"]), float(row["count"] or 1)))
    spread = Spread()
    for link, chunks in by_link.items():
        kind, source, entity = link
        from_hit = kind == "hit"
        if from_hit:
            spread.hit_entities[entity] = max(spread.hit_entities.get(entity, 0.0), sources[source])
        # Rows past the cap: an entity the source mentions twice (two relationships) is two subqueries' rows.
        if link in hubs or len(chunks) > MAX_MENTIONS:
            continue
        weight = sources[source] if from_hit else question[source]
        others = [(c, n) for c, n in chunks if c != source]
        for chunk_id, count in others:
            spread.score[chunk_id] += weight * count / len(others) ** SPECIFICITY_POWER
            if from_hit:
                spread.reached_from[source].add(chunk_id)
    spread.seed_rows, spread.picked, spread.exact = reply.seed_rows, reply.picked, reply.exact
    return spread


@dataclass(frozen=True)
class _Reply:
    """The spread statement's reply: the links' rows (packed, one part per UNION branch), the walk's seed rows
    when asked for, the chunks the server picked (`_PICK`) and their exact vector hits when asked for."""

    parts: list[Row]
    seed_rows: list[Row] | None = None
    picked: frozenset[str] | None = None
    exact: list[StoreHit] = field(default_factory=list)


def _read(
    ctx: Context,
    links: str,
    params: dict[str, object],
    *,
    walk: tuple[Sequence[str], QueryParams] | None,
    exact: _Exact | None,
    weights: tuple[Mapping[str, float], Mapping[str, float]],
    hits: Sequence[Hit],
) -> _Reply:
    """The spread's rows; with `walk` (the seeds beyond the hit entities, the walk's parameters) the walk's seed rows
    (every hit entity's and those seeds', `expand.seed_rows`), with `exact` the picked chunks' exact hits: one
    statement in every case, each part a subquery of the links' rows."""
    if walk is None and exact is None:
        return _Reply(ctx.store.read(links, params))
    cypher, values, returned = f"CALL {{ {links} }} WITH collect(rows) AS parts ", dict(params), ["parts"]
    if walk is not None:
        seeds, hop = walk
        # The hit entities are the 'hit' links' entities (column 2); each seed's row is read once.
        cypher += (
            "CALL { WITH parts WITH [link IN reduce(acc = [], part IN parts | acc + part) WHERE link[0] = 'hit' "
            f"| link[2]] + $seeds AS ids UNWIND ids AS id WITH DISTINCT id {seed_rows(ctx, True)} "
            f"{packed(SEED_COLUMNS)} }} "
        )
        values.update(hop_parameters(hop), seeds=list(seeds))
        returned.append("rows AS seeds")
    if exact is not None:
        lenders, question = weights
        cypher += f"CALL {{ WITH parts {_PICK} }} {exact.part.cypher} "
        values.update(
            exact.part.params,
            q=exact.vector,
            power=SPECIFICITY_POWER,
            lenders=dict(lenders),
            question=dict(question),
            hit_ids=[h.id for h in hits],
            candidates=CANDIDATES,
            tie=1.0 - _TIE,
        )
        returned += ["picked", "exact"]
    row = ctx.store.read(cypher + "RETURN " + ", ".join(returned), values)[0]
    return _Reply(
        [{"rows": part} for part in row["parts"]],
        unpacked([{"rows": row["seeds"]}], SEED_COLUMNS) if walk is not None else None,
        frozenset(str(c) for c in row["picked"]) if exact is not None else None,
        exact.part.hits(row["exact"]) if exact is not None else [],
    )


def _residual(
    ctx: Context, query: str, params: QueryParams, by_id: Mapping[str, Hit], spread: Spread
) -> dict[str, float]:
    """Keyword score of each reached chunk on the question words its source hit lacks (best over sources).

    Scored from the reached chunks' texts already read (`fulltext_rescore`, BM25 against the index's corpus),
    not by one fulltext search per source: the same scores, without a round trip per source hit; from their term
    counts where the spread's statement read them (`Spread.exact`), without tokenising the texts."""
    s = ctx.settings
    if s.chunk_fulltext_index is None:
        return {}
    wanted = content_terms(query)
    where = {**ctx.project_filter, **params.filters}
    best: dict[str, float] = {}
    counts = {**spread.terms, **{hit.id: hit.terms for hit in spread.exact if hit.terms is not None}}
    for source, reached in spread.reached_from.items():
        ids = [c for c in reached if c in by_id]
        missing = _uncovered(wanted, by_id[source].text if source in by_id else "", counts.get(source))
        if not ids or not missing:
            continue
        texts = [StoreHit(c, 0.0, {s.text_property: by_id[c].text}, counts.get(c)) for c in ids]
        found = ctx.store.fulltext_rescore(
            s.chunk_label, " ".join(missing), texts, index=s.chunk_fulltext_index, filters=where
        )
        for hit in found:
            best[hit.id] = max(best.get(hit.id, 0.0), keyword_norm(hit.score, len(missing)))
    return best


def _uncovered(wanted: Sequence[str], text: str, counts: TermCounts | None = None) -> list[str]:
    """Query terms the text does not contain, counting the stemmed variants BM25 counts (plural, -ed, -ing); from
    its term counts where they cover every term (its profile's frequencies: the same answer, no tokenising)."""
    if counts is not None and counts.words.issuperset(wanted):
        return [t for t in wanted if not counts.frequency.get(t, 0)]
    return [t for t in wanted if not bm25.contains(text, t)]

"""Vector, fulltext and hybrid search over chunks and entities, returning `Hit`s ranked best first.

Why both arms: embeddings find paraphrases, keywords find the rare names and numbers embeddings
blur. Each arm over-fetches candidates so fusion has something to re-rank, filters are applied
so that top-k is still filled (the store over-fetches filtered vector searches), and `restrict_ids`
scores a given set of chunks exactly (DRIFT follow-ups search inside their communities).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from retrieval.context import Context
from retrieval.models import Hit, Lines, QueryParams
from retrieval.search import fusion
from retrieval.search.enrich import enrich
from retrieval.search.keywords import content_terms, keyword_query
from retrieval.store.records import Arms, Folded, HybridSearch, StoreHit, ThenRead

Kind = Literal["chunk", "entity"]
#: Each arm fetches top_k candidates, but at least this many, for fusion to choose from (as the peers' arms do).
MIN_CANDIDATES = 20
#: Up to this many restricted ids are scored exactly in Python; beyond, a filtered index search is cheaper.
EXACT_RESTRICT_LIMIT = 5000


def search_chunks(
    ctx: Context,
    query: str,
    params: QueryParams,
    *,
    query_vector: list[float] | None = None,
    filters: dict[str, Any] | None = None,
    restrict_ids: list[str] | None = None,
    known: Sequence[StoreHit] | None = None,
) -> list[Hit]:
    """Top `params.top_k` chunks for `query`; enriched by `settings.retrieval_query` when one is configured.

    `known`, with `restrict_ids`: the exact vector hits of those ids, read already (`GraphStore.exact_part`, by
    the bridge's spread), which the vector arm then takes instead of reading them."""
    if restrict_ids is not None and not restrict_ids:
        return []
    plan = _plan(
        ctx, "chunk", query, params, k=params.top_k, query_vector=query_vector, filters=filters, ids=restrict_ids
    )
    if known is not None:
        plan = replace(plan, known=known)
    hits = _search(ctx, plan, query, params)
    return enrich(ctx, hits) if ctx.settings.retrieval_query else hits


def search_entities(
    ctx: Context, query: str, params: QueryParams, *, query_vector: list[float] | None = None, k: int | None = None
) -> list[Hit]:
    """Entities matching `query` by name/description (the seeds of graph expansion)."""
    plan = _plan(ctx, "entity", query, params, k=k or params.top_k, query_vector=query_vector, filters=None, ids=None)
    return _search(ctx, plan, query, params)


def search_chunks_and_entities(
    ctx: Context,
    query: str,
    params: QueryParams,
    *,
    query_vector: list[float] | None,
    k: int,
    then: ThenRead | None = None,
) -> tuple[list[Hit], list[Hit], Folded | None] | None:
    """`search_chunks` and `search_entities(k=k)` of one question in one statement where the store folds hybrid
    searches (`GraphStore.hybrid_arms_together`: Neo4j); None where it does not apply (the caller then runs the
    two searches). Why: they are the ranking's first step, and one round trip is shorter than two on two threads
    (the driver's work for both then runs on one thread, but it was one process's CPU either way). The same
    hits: each search is ranked from its arms exactly as alone, and one the fold left short runs its steps.
    With `then`, the same statement continued by it where the store can (`GraphStore.hybrid_arms_then`): its
    reply is the third item (None where it did not run, or a search ran its steps: the server's ranking then is
    not of the hits returned)."""
    chunk = _plan(ctx, "chunk", query, params, k=params.top_k, query_vector=query_vector, filters=None, ids=None)
    entity = _plan(ctx, "entity", query, params, k=k, query_vector=query_vector, filters=None, ids=None)
    if not (chunk.one_statement and entity.one_statement):
        return None
    searches = [chunk.search, entity.search]
    folded = ctx.store.hybrid_arms_then(chunk.vector, chunk.keywords, searches, then) if then else None
    found = folded.arms if folded else ctx.store.hybrid_arms_together(chunk.vector, chunk.keywords, searches)
    if found is None:
        return None
    chunks, entities = (
        _ranked(ctx, plan, query, arms, params) for plan, arms in zip((chunk, entity), found, strict=True)
    )
    if any(arms is None for arms in found):
        folded = None
    return (enrich(ctx, chunks) if ctx.settings.retrieval_query else chunks), entities, folded


@dataclass(frozen=True)
class _Plan:
    """One search's settled inputs: what `_search` and `search_chunks_and_entities` share."""

    kind: Kind
    label: str
    fulltext_index: str | None
    where: dict[str, Any]
    k: int
    fetch: int
    arms: tuple[bool, bool]  # (vector, keyword) used
    keywords: str
    vector: list[float]
    restrict_ids: Sequence[str] | None
    shown: Sequence[str]  # what a hit shows (`shown`)
    #: Both arms in one store statement (`GraphStore.hybrid_arms`) may apply.
    one_statement: bool
    known: Sequence[StoreHit] | None = None  # a restricted search's exact vector hits, read already

    @property
    def search(self) -> HybridSearch:
        """The one statement's search for this plan."""
        return HybridSearch(self.label, str(self.fulltext_index), self.fetch, self.where, self.shown)


def _plan(
    ctx: Context,
    kind: Kind,
    query: str,
    params: QueryParams,
    *,
    k: int,
    query_vector: list[float] | None,
    filters: Mapping[str, Any] | None,
    ids: Sequence[str] | None,
) -> _Plan:
    s = ctx.settings
    label = s.chunk_label if kind == "chunk" else s.entity_label
    fulltext_index = s.chunk_fulltext_index if kind == "chunk" else s.entity_fulltext_index
    where = {**ctx.project_filter, **params.filters, **(filters or {})}
    if ids:
        where["id"] = list(dict.fromkeys(ids))
    use_vector = params.search_type != "fulltext" and (params.search_type == "vector" or params.alpha > 0)
    use_keyword = params.search_type != "vector" and fulltext_index is not None
    use_keyword = use_keyword and (params.search_type == "fulltext" or params.alpha < 1)
    vector = (query_vector if query_vector is not None else ctx.embedder.embed_query(query)) if use_vector else []
    both = use_vector and use_keyword and ids is None and ctx.vectors.in_graph and fulltext_index is not None
    return _Plan(
        kind=kind,
        label=label,
        fulltext_index=fulltext_index,
        where=where,
        k=k,
        fetch=max(k, MIN_CANDIDATES),
        arms=(use_vector, use_keyword),
        keywords=keyword_query(query),
        vector=list(vector),
        restrict_ids=ids,
        shown=shown(ctx, kind),
        one_statement=both,
    )


def _search(ctx: Context, plan: _Plan, query: str, params: QueryParams) -> list[Hit]:
    arms = None
    if plan.one_statement:
        one = plan.search
        arms = ctx.store.hybrid_arms(
            one.label, plan.vector, plan.keywords, one.fetch, index=one.index, filters=one.filters, props=one.props
        )
    return _ranked(ctx, plan, query, arms, params)


def _ranked(ctx: Context, plan: _Plan, query: str, arms: Arms | None, params: QueryParams) -> list[Hit]:
    """The plan's hits from its arms; `arms` None where no one statement gave them: the same arms step by step."""
    shown = arms is not None  # the one statement's hits carry what a hit shows; the steps' keyword hits may not
    if arms is None:  # the store has no one-statement search (or it did not apply): the same hits step by step
        arms = _arms(ctx, plan)
    vector_hits, keyword_hits = arms
    fused = _fuse(params, vector_hits, keyword_hits, len(content_terms(query)), plan.k)
    if shown:
        props = {h.id: h.props for h in [*keyword_hits, *vector_hits]}
    else:
        props = _properties(ctx, plan.label, [f.id for f in fused], vector_hits, keyword_hits)
    return [_hit(ctx, plan.kind, f, props[f.id]) for f in fused]


def _arms(ctx: Context, plan: _Plan) -> Arms:
    """Each arm's candidates, then each completed with the other's (one store call per step). A vector-only
    search reads only what a hit shows (`shown`) of its candidates; a hybrid one reads every property, the
    indexed ones its keyword arm scores among them."""
    label, vector, keywords, fetch, where = plan.label, plan.vector, plan.keywords, plan.fetch, plan.where
    fulltext_index, restrict_ids, shown = plan.fulltext_index, plan.restrict_ids, plan.shown
    use_vector, use_keyword = plan.arms
    vector_hits: list[StoreHit] = []
    keyword_hits: list[StoreHit] = []
    # Both arms already scored every id of a restricted search that fetches them all; completing would
    # re-query ids an arm left out because they score nothing there (no keyword match, no embedding).
    exhaustive = restrict_ids is not None and fetch >= len(where["id"])
    if use_vector and plan.known is not None:
        vector_hits = list(plan.known)
    elif use_vector:
        vector_hits = _vector_arm(ctx, label, vector, fetch, where, props=None if use_keyword else shown)
    if use_keyword:
        known = vector_hits if exhaustive else []
        keyword_hits = _keyword_arm(
            ctx, label, keywords, fetch=fetch, fulltext_index=fulltext_index, where=where, known=known
        )
    if use_vector and use_keyword and not exhaustive:
        vector_hits, keyword_hits = _complete_arms(
            ctx,
            label=label,
            vector=vector,
            keywords=keywords,
            fulltext_index=fulltext_index,
            where=where,
            vector_hits=vector_hits,
            keyword_hits=keyword_hits,
        )
    return vector_hits, keyword_hits


def _keyword_arm(
    ctx: Context,
    label: str,
    keywords: str,
    *,
    fetch: int,
    fulltext_index: str | None,
    where: Mapping[str, Any],
    known: Sequence[StoreHit],
) -> list[StoreHit]:
    """Keyword candidates with their indexed text only. A restricted search whose vector arm already read
    every id (`known`) scores those from what was read; only ids it lacks (no embedding) are searched."""
    if not known:
        return ctx.store.fulltext_search(label, keywords, fetch, index=fulltext_index, filters=where, text_only=True)
    hits = ctx.store.fulltext_rescore(label, keywords, known, index=fulltext_index, filters=where)
    read = {h.id for h in known}
    unread = [i for i in where["id"] if i not in read]
    if unread:
        hits += ctx.store.fulltext_search(
            label, keywords, len(unread), index=fulltext_index, filters={**where, "id": unread}, text_only=True
        )
        hits.sort(key=lambda hit: -hit.score)
    return hits


def _properties(
    ctx: Context, label: str, ids: Sequence[str], vector_hits: Sequence[StoreHit], keyword_hits: Sequence[StoreHit]
) -> dict[str, dict[str, Any]]:
    """Every property of the kept hits: a vector hit has them; a keyword-only hit (no embedding, or a fulltext
    search) has its indexed text only, so the few such hits are read in one round trip."""
    props = {h.id: h.props for h in keyword_hits}
    full = {h.id: h.props for h in vector_hits}
    props.update(full)
    props.update(ctx.store.properties(label, [i for i in ids if i not in full]))
    return props


def _complete_arms(
    ctx: Context,
    *,
    label: str,
    vector: Sequence[float],
    keywords: str,
    fulltext_index: str | None,
    where: Mapping[str, Any],
    vector_hits: list[StoreHit],
    keyword_hits: list[StoreHit],
) -> tuple[list[StoreHit], list[StoreHit]]:
    """Score every candidate on both arms, so fusion compares like with like.

    A passage the vector arm found but the keyword arm's candidate pool missed would otherwise count
    as keyword score 0 even when it contains every query word, and fusion would then rank it below
    passages that are weaker on both arms.
    """
    vector_ids = {h.id for h in vector_hits}
    keyword_ids = {h.id for h in keyword_hits}
    only_vector = [h.id for h in vector_hits if h.id not in keyword_ids]
    only_keyword = [h.id for h in keyword_hits if h.id not in vector_ids]
    if only_vector and keywords:
        scored_here = [h for h in vector_hits if h.id not in keyword_ids]  # their props are read already
        keyword_hits = keyword_hits + ctx.store.fulltext_rescore(
            label, keywords, scored_here, index=fulltext_index, filters=where
        )
    if only_keyword:
        vector_hits = vector_hits + _exact(ctx, label, vector, len(only_keyword), {**where, "id": only_keyword})
    by_score = lambda hit: -hit.score  # noqa: E731 - ranks must follow scores once arms are completed
    return sorted(vector_hits, key=by_score), sorted(keyword_hits, key=by_score)


def _fuse(
    params: QueryParams, vector_hits: list[StoreHit], keyword_hits: list[StoreHit], n_terms: int, k: int
) -> list[fusion.Fused]:
    """The best `k` ids; `sources` always holds the normalised per-arm scores, whatever fused them (set for the
    kept ones only: a hybrid search fuses about a hundred candidates to keep twenty)."""
    vector = {h.id: fusion.vector_norm(h.score) for h in vector_hits}
    keyword = {h.id: fusion.keyword_norm(h.score, n_terms) for h in keyword_hits}
    if params.search_type == "vector":
        fused = [fusion.Fused(h.id, h.score) for h in vector_hits]
    elif params.search_type == "fulltext":
        fused = [fusion.Fused(h.id, h.score) for h in keyword_hits]
    elif params.fusion == "rrf":
        rankings = {"vector": [h.id for h in vector_hits], "fulltext": [h.id for h in keyword_hits]}
        # alpha 0.5 is plain RRF; 0 and 1 silence one arm, as in linear fusion.
        fused = fusion.rrf(rankings, params.rrf_k, {"vector": 2 * params.alpha, "fulltext": 2 * (1 - params.alpha)})
    else:
        return fusion.linear(vector, keyword, params.alpha, k)
    fused = fused[:k]
    for item in fused:
        item.sources = fusion.sources(item.id, vector, keyword)
    return fused


def _vector_arm(
    ctx: Context, label: str, vector: Sequence[float], k: int, where: Mapping[str, Any], *, props: Sequence[str] | None
) -> list[StoreHit]:
    ids = where.get("id")
    if isinstance(ids, list) and len(ids) <= EXACT_RESTRICT_LIMIT:
        return _exact(ctx, label, vector, k, where)
    return ctx.vectors.search(label, vector, k, filters=where, props=props)


def _exact(ctx: Context, label: str, vector: Sequence[float], k: int, where: Mapping[str, Any]) -> list[StoreHit]:
    """Exact cosine over a small id set: an approximate index search filtered afterwards could miss them all."""
    return ctx.vectors.exact_search(label, vector, k, filters=where)


def shown(ctx: Context, kind: Kind) -> list[str]:
    """The properties `_hit` reads: all a search needs of a candidate besides its indexed text."""
    s = ctx.settings
    if kind == "entity":
        return [s.entity_name_property, "description", "type"]
    return [s.text_property, "document_id", "document_name", "path", "line_start", "line_end"]


def _hit(ctx: Context, kind: Kind, fused: fusion.Fused, props: dict[str, Any]) -> Hit:
    s = ctx.settings
    if kind == "entity":
        title = str(props.get(s.entity_name_property) or fused.id)
        description = str(props.get("description") or "")
        text = f"{title}: {description}" if description else title
        metadata = {"title": title, "type": props.get("type")}
        return Hit(id=fused.id, kind="entity", text=text, score=fused.score, metadata=metadata, sources=fused.sources)
    return Hit(
        id=fused.id,
        kind="chunk",
        text=str(props.get(s.text_property) or ""),
        score=fused.score,
        document_id=props.get("document_id"),
        document_name=props.get("document_name"),
        lines=Lines.of(props),
        sources=fused.sources,
    )

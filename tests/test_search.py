"""Search primitives on a small, exactly known graph: fusion, filters, restriction, enrichment, expansion, evidence."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.errors import ConfigError, DriftLensError, IndexMissing
from retrieval.models import Citation, Hit, KeyFact, QueryParams
from retrieval.search import expand as expand_module
from retrieval.search import fusion
from retrieval.search.citations import locate, validate_citations
from retrieval.search.communities import community_levels, search_communities
from retrieval.search.enrich import check_retrieval_query
from retrieval.search.evidence import extractive_facts, near_duplicate, sentences
from retrieval.search.expand import expand
from retrieval.search.hybrid import search_chunks, search_entities
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, open_store
from tests.conftest import SEARCH_CHUNKS, SEARCH_PROJECT, count_reads


@pytest.fixture(scope="module")
def ctx(search_store: GraphStore) -> Context:
    s = search_store.settings
    return Context(s, search_store, make_embedder(s), None, SEARCH_PROJECT)


def params(ctx: Context, **overrides: object) -> QueryParams:
    return QueryParams.from_settings(ctx.settings, **overrides)


def with_settings(ctx: Context, **overrides: object) -> Context:
    settings = ctx.settings.model_copy(update=overrides)
    return Context(settings, ctx.store, ctx.embedder, None, ctx.project)


# --- fusion -----------------------------------------------------------------------------------------


def test_linear_fusion_alpha_extremes_follow_one_arm() -> None:
    vector = {"a": 0.9, "b": 0.2}
    keyword = {"b": 0.8, "c": 0.5}
    assert [f.id for f in fusion.linear(vector, keyword, 1.0)][:2] == ["a", "b"]
    assert [f.id for f in fusion.linear(vector, keyword, 0.0)][:2] == ["b", "c"]
    assert fusion.linear(vector, keyword, 0.0)[-1].score == 0.0


def test_weak_keyword_arm_stays_weak() -> None:
    """The best of a poor keyword arm is not promoted to 1.0 (no per-arm max normalisation)."""
    weak = fusion.keyword_norm(0.3, n_terms=6)
    strong = fusion.keyword_norm(30.0, n_terms=6)
    assert weak < 0.1
    assert 0.8 < strong < 1.0
    fused = fusion.linear({"v": 0.7}, {"k": weak}, 0.5)
    assert fused[0].id == "v"


def test_rrf_rewards_agreement_and_weights_silence_an_arm() -> None:
    rankings = {"vector": ["a", "b"], "fulltext": ["b", "c"]}
    assert fusion.rrf(rankings, 60)[0].id == "b"
    assert fusion.rrf(rankings, 60, {"vector": 0.0, "fulltext": 1.0})[0].id == "b"
    assert fusion.rrf(rankings, 60, {"vector": 1.0, "fulltext": 0.0})[0].id == "a"


# --- chunk and entity search ------------------------------------------------------------------------


@pytest.mark.parametrize("search_type", ["vector", "fulltext", "hybrid"])
def test_each_search_type_finds_the_polonium_chunk(ctx: Context, search_type: str) -> None:
    hits = search_chunks(ctx, "Who discovered polonium?", params(ctx, search_type=search_type))
    assert hits and "c1" in [h.id for h in hits[:2]]
    assert all(h.kind == "chunk" and h.document_name for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@pytest.mark.parametrize(("fusion_method", "alpha"), [("linear", 0.0), ("linear", 1.0), ("rrf", 0.0), ("rrf", 1.0)])
def test_alpha_zero_and_one_are_pure_arms(ctx: Context, fusion_method: str, alpha: float) -> None:
    hits = search_chunks(ctx, "piezoelectricity crystals", params(ctx, fusion=fusion_method, alpha=alpha))
    arm = "vector" if alpha == 1.0 else "fulltext"
    pure = search_chunks(ctx, "piezoelectricity crystals", params(ctx, search_type=arm))
    assert [h.id for h in hits][: len(pure)] == [h.id for h in pure]


def test_search_is_scoped_to_the_project(ctx: Context) -> None:
    ids = {h.id for h in search_chunks(ctx, "Marie Curie discovered polonium", params(ctx, top_k=10))}
    assert "c5" not in ids
    other = Context(ctx.settings, ctx.store, ctx.embedder, None, "other")
    assert [h.id for h in search_chunks(other, "Marie Curie", params(ctx))] == ["c5"]


def test_filters_still_fill_top_k(ctx: Context) -> None:
    hits = search_chunks(ctx, "bread", params(ctx, top_k=2), filters={"document_name": "Marie Curie"})
    assert [h.id for h in hits] and {h.id for h in hits} == {"c1", "c2"}


def test_restrict_ids_scores_only_those_chunks(ctx: Context) -> None:
    hits = search_chunks(ctx, "polonium", params(ctx), restrict_ids=["c3", "c4"])
    assert {h.id for h in hits} <= {"c3", "c4"} and hits
    assert search_chunks(ctx, "polonium", params(ctx), restrict_ids=[]) == []


@pytest.mark.parametrize("query", ["Who discovered polonium?", "piezoelectricity crystals", "Marie Curie bread"])
def test_one_statement_hybrid_search_finds_what_the_steps_find(
    ctx: Context, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the store answers both arms in one statement (Neo4j), hits, scores and sources are the step-by-step
    search's; elsewhere both are the same path."""
    chunks, entities = search_chunks(ctx, query, params(ctx)), search_entities(ctx, query, params(ctx))
    monkeypatch.setattr(ctx.store, "hybrid_arms", lambda *_args, **_kwargs: None)

    def shown(hits: list[Hit]) -> list[tuple[object, ...]]:
        def sources(h: Hit) -> dict[str, float]:
            return {k: round(v, 5) for k, v in h.sources.items()}

        return [(h.id, h.text, h.document_id, h.document_name, h.lines, h.metadata, sources(h)) for h in hits]

    assert chunks and shown(chunks) == shown(search_chunks(ctx, query, params(ctx)))
    assert entities and shown(entities) == shown(search_entities(ctx, query, params(ctx)))


def test_a_hybrid_search_is_one_graph_read_where_the_store_can(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """On Neo4j both arms, the counts BM25 needs for new words and the completion of each arm, the cosines of the
    keyword hits the vector arm lacks among them, are one statement (a search's cost there was its round trips;
    test_store_contract has a search that completes its vector arm); the embedded store runs the steps against its
    local server."""
    search_chunks(ctx, "Who discovered polonium?", params(ctx))  # index names and label statistics, read once
    reads = count_reads(ctx.store, monkeypatch)
    hits = search_chunks(ctx, "Which element did Pierre Curie find in pitchblende?", params(ctx))
    assert hits
    if ctx.store.backend == "neo4j":
        assert len(reads) == 1, reads
    else:
        assert ctx.store.hybrid_arms("x", [0.0], "x", 1, index="x") is None and len(reads) > 1


def test_default_search_round_trips(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hybrid + graph on Neo4j: chunks and entities in one statement (no read for the kept hits' properties),
    the bridge's spread with its reached chunks' scores and the walk's seeds with their first hop in one more, the
    residual words scored from texts already read, then the reached nodes' properties: three statements, never one
    per hit."""
    question, p = "Which radioactive element did Marie discover?", params(ctx, top_k=2, max_hops=1)
    warm = retrieve(ctx, question, p, walk=True)  # index names, label statistics and word counts are read once
    reads = count_reads(ctx.store, monkeypatch)
    found = retrieve(ctx, question, p, walk=True)
    assert [h.id for h in found.chunks] == [h.id for h in warm.chunks] and found.expansion.entities
    if ctx.store.backend == "neo4j":  # this small graph stores no degrees: the walk counts them in one more read
        assert len([r for r in reads if "size([" not in r]) == 3, "\n".join(r[:90] for r in reads)


def test_parallel_reads_change_nothing_but_the_wait(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the store runs reads in parallel (Neo4j), the walk runs beside the bridge's scoring (and the entities
    are searched beside the chunks where the store does not fold both searches into one statement); both orders
    give the same chunks, seeds and expansion, and the same laps."""
    question, p = "Which radioactive element did Marie discover?", params(ctx, top_k=3, max_hops=2)

    def run(parallel: bool) -> tuple[object, ...]:
        monkeypatch.setattr(ctx.store, "parallel_reads", parallel, raising=False)
        found = retrieve(ctx, question, p, walk=True)
        chunks = [(h.id, round(h.score, 9), h.sources) for h in found.chunks]
        entities = [(e.id, round(e.score, 9), e.metadata) for e in found.expansion.entities]
        return chunks, [h.id for h in found.seeds], found.hit_entities, entities, sorted(found.timings_ms)

    together, one_by_one = run(True), run(False)
    assert together == one_by_one and together[3]
    assert together[4] == sorted(["embed", "chunks", "entities", "bridge", "expand"])


def test_walk_and_spread_replies_are_one_row(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hop (with the properties it brings), the walk's properties and the bridge's spread come as one row of lists
    (the Neo4j driver pays per record received, ~50 us each), whatever the number of neighbours, properties and
    links."""
    replies: list[tuple[str, int]] = []
    read = ctx.store.read

    def counted(cypher: str, *args: object, **kwargs: object) -> object:
        rows = read(cypher, *args, **kwargs)  # type: ignore[arg-type]
        replies.append((cypher, len(rows)))
        return rows

    monkeypatch.setattr(ctx.store, "read", counted)
    p = params(ctx, top_k=2, max_hops=2, max_nodes=100)
    found = retrieve(ctx, "Which radioactive element did Marie discover?", p, walk=True)
    assert len(found.expansion.entities) > 3  # several neighbours, several properties read
    packed = [(cypher, n) for cypher, n in replies if "collect([" in cypher]
    hops = [n for cypher, n in packed if "LIMIT $per" in cypher]
    assert hops and all(n == 1 for n in hops)  # one row however many neighbours
    properties = [n for cypher, n in packed if "ingested_at" in cypher and "UNION ALL" not in cypher]
    assert properties and all(n == 1 for n in properties)
    # On Neo4j the hybrid statement carries the fold's continuation (`bridge.fold`); this graph is written without
    # stored BM25 profiles, so the server declines it and the spread comes in a statement of its own.
    spread = [n for cypher, n in packed if "UNION ALL" in cypher and "queryNodes" not in cypher]
    assert spread == [1]  # both sides of the union and the walk's seeds, one row


def test_a_hop_brings_the_properties_the_walk_shows(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second hop's read brings the properties of its frontier (the first hop's nodes, which came with the
    seeds without them) and of the nodes the walk likely keeps: a two-hop walk reads none after it, and shows what
    a walk reading them after its hops shows (`LIKELY_FACTOR` 0: the hop's read brings none of the reached)."""
    p = params(ctx, max_hops=2, max_nodes=100)

    def walk(likely: int) -> tuple[list[tuple[str, float, str, object]], list[str]]:
        monkeypatch.setattr(expand_module, "LIKELY_FACTOR", likely)
        reads = count_reads(ctx.store, monkeypatch)
        found = expand(ctx, ["marie"], p)
        entities = [(e.id, round(e.score, 9), e.text, e.metadata) for e in found.entities]
        # the properties' read: the seeds' and the hops' reads carry properties too, with neighbours (`$per`)
        return entities, [r for r in reads if "ingested_at" in r and "$per" not in r]

    shown, read_after = walk(expand_module.LIKELY_FACTOR)
    alone, read_alone = walk(0)
    assert shown == alone and any(e[3]["hop"] == 2 for e in shown)  # type: ignore[index]
    assert read_after == [] and len(read_alone) == 1


@pytest.mark.parametrize("max_nodes", [100, 3])
def test_seeds_read_with_the_spread_walk_as_read_alone(ctx: Context, max_nodes: int) -> None:
    """The walk starting from the seed rows the spread read (for every hit entity and question entity) reaches
    what it reaches reading its seeds itself: the same nodes, scores, hops and order, also when the cap cuts the
    seeds (the rows are kept in the seeds' order, then cut)."""
    p = params(ctx, top_k=3, max_hops=2, max_nodes=max_nodes)
    found = retrieve(ctx, "Which radioactive element did Marie discover?", p, walk=True)
    seeds = dict(found.hit_entities)
    for hit in found.seeds:
        seeds[hit.id] = max(seeds.get(hit.id, 0.0), hit.score)
    alone = expand(ctx, list(seeds), p, seed_scores=seeds, chunk_limit=0)

    def walked(entities: list[Hit]) -> list[tuple[str, float, object]]:
        return [(e.id, round(e.score, 9), e.metadata) for e in entities]

    assert len(seeds) > 3 and walked(found.expansion.entities) == walked(alone.entities)
    assert found.expansion.truncated == alone.truncated


@pytest.mark.parametrize("query", ['"(*?:~^[', "", "   ", "x" * 20_000])
def test_awkward_queries_answer_without_error(ctx: Context, query: str) -> None:
    assert search_chunks(ctx, query, params(ctx, search_type="fulltext")) == [] or len(query) > 100
    hits = search_chunks(ctx, query, params(ctx))
    assert all(h.kind == "chunk" for h in hits)


def test_entity_search_finds_people_by_name(ctx: Context) -> None:
    hits = search_entities(ctx, "Pierre Curie", params(ctx), k=3)
    assert hits[0].id == "pierre" and hits[0].kind == "entity" and hits[0].metadata["type"] == "PERSON"


@pytest.mark.fresh_schema
def test_graph_without_indexes_raises_a_typed_error(settings: Settings) -> None:
    with open_store(settings) as store:
        store.query(f"CREATE (:`{settings.chunk_label}` {{id: 'x', text: 'hello world', projectId: 'demo'}})")
        ctx = Context(settings, store, make_embedder(settings), None, "demo")
        with pytest.raises(IndexMissing, match="index"):
            search_chunks(ctx, "hello", QueryParams.from_settings(settings))


# --- enrichment ---------------------------------------------------------------------------------------


def test_retrieval_query_enriches_text_and_metadata(ctx: Context) -> None:
    query = "RETURN node.text AS text, score * 2 AS score, node.document_name AS source"
    enriched = with_settings(ctx, retrieval_query=query)
    plain = search_chunks(ctx, "polonium", params(ctx, top_k=2))
    hits = search_chunks(enriched, "polonium", params(ctx, top_k=2))
    assert hits[0].metadata["source"] == "Marie Curie"
    assert hits[0].text.endswith("[source: Marie Curie]")
    assert hits[0].score == pytest.approx(2 * plain[0].score)


def test_retrieval_query_that_writes_is_refused_and_changes_nothing(ctx: Context) -> None:
    enriched = with_settings(ctx, retrieval_query="SET node.hacked = true RETURN node.text AS text, score")
    with pytest.raises(DriftLensError):
        search_chunks(enriched, "polonium", params(ctx, top_k=1))
    with pytest.raises(ConfigError):
        check_retrieval_query(enriched)
    assert ctx.store.read("MATCH (c) WHERE c.hacked = true RETURN count(c) AS n")[0]["n"] == 0


def test_retrieval_query_missing_text_column_is_a_config_error(ctx: Context) -> None:
    enriched = with_settings(ctx, retrieval_query="RETURN node.id AS id, score")
    with pytest.raises(ConfigError, match="text"):
        check_retrieval_query(enriched)


# --- communities ------------------------------------------------------------------------------------


def test_community_search_by_level(ctx: Context) -> None:
    vector = ctx.embedder.embed_query("baking bread")
    assert search_communities(ctx, vector, 1)[0].id == "k2"
    level1 = search_communities(ctx, vector, 3, level=1)
    assert [h.id for h in level1] == ["k1"] and level1[0].metadata["title"] == "Physics and chemistry"
    assert community_levels(ctx) == [0, 1]


# --- expansion --------------------------------------------------------------------------------------


def test_expansion_walks_hops_with_unique_nodes_and_penalises_hubs(ctx: Context) -> None:
    one = expand(ctx, ["marie"], params(ctx, max_hops=1, max_nodes=100, degree_penalty=0.5))
    ids = [e.id for e in one.entities]
    assert ids[0] == "marie" and len(ids) == len(set(ids))
    assert {"pierre", "polonium", "science"} <= set(ids) and "paris" not in ids
    score = {e.id: e.score for e in one.entities}
    assert score["science"] < score["polonium"]  # same edge weight, but science is a hub
    two = expand(ctx, ["marie"], params(ctx, max_hops=2, max_nodes=100), relations=True)
    assert "paris" in {e.id for e in two.entities}
    assert {r["target"] for r in two.relations} >= {"pierre", "paris"}
    assert len(two.relations) == len(two.entities) - 1  # one edge per reached node: the one that reached it
    assert all(r["description"] for r in two.relations)


def test_expansion_cap_truncates(ctx: Context) -> None:
    capped = expand(ctx, ["marie", "bread"], params(ctx, max_hops=2, max_nodes=6))
    assert len(capped.entities) == 6 and capped.truncated
    assert not expand(ctx, ["bread"], params(ctx, max_hops=0)).truncated


def test_expansion_attaches_evidence_chunks(ctx: Context) -> None:
    found = expand(ctx, ["pierre"], params(ctx, max_hops=0))
    assert {c.id for c in found.chunks} == {"c1", "c3"}
    assert all(c.text == SEARCH_CHUNKS[c.id][2] for c in found.chunks)
    assert expand(ctx, [], params(ctx)).entities == []


def test_recency_boosts_newer_nodes(ctx: Context) -> None:
    """pierre (2024-06) and polonium (2020) are reached alike from marie; recency decides their order."""
    plain = {e.id: e.score for e in expand(ctx, ["marie"], params(ctx, max_hops=1, recency_weight=0.0)).entities}
    boosted = {e.id: e.score for e in expand(ctx, ["marie"], params(ctx, max_hops=1, recency_weight=1.0)).entities}
    assert boosted["pierre"] / plain["pierre"] > boosted["polonium"] / plain["polonium"]


def test_retrieve_adds_bridge_chunk_through_entities(ctx: Context) -> None:
    """c3 shares no word with the question but mentions Pierre Curie, whom the best hit mentions."""
    question = "Which radioactive element did Marie discover?"
    plain = retrieve(ctx, question, params(ctx, top_k=3, max_hops=0), walk=False)
    expanded = retrieve(ctx, question, params(ctx, top_k=3, max_hops=1), walk=True)
    assert expanded.chunks[0].id == "c1"
    assert "graph" in {k for h in expanded.chunks for k in h.sources}
    assert "pierre" in {e.id for e in expanded.expansion.entities}
    assert plain.chunks and len(expanded.chunks) <= 3


# --- evidence ---------------------------------------------------------------------------------------


def test_sentences_are_verbatim_and_skip_fragments() -> None:
    text = "Short one. This sentence has enough words to count!\nKEVIN SCOTT: and a speaker line here"
    found = sentences(text)
    assert found == ["This sentence has enough words to count!", "KEVIN SCOTT: and a speaker line here"]
    assert all(s in text for s in found)


def test_a_period_inside_a_word_or_after_an_initial_ends_no_sentence() -> None:
    text = (
        "The U.S. Army paid $3.5 million for the rifles. He was shot by Charles J. Guiteau in the station. "
        "We learned Pascal and then C. After that came the others. She helped develop the Tesla Model X. She "
        "joined OpenAI later on. The court decided Craig v. Boren in 1976 by seven votes."
    )
    assert sentences(text) == [
        "The U.S. Army paid $3.5 million for the rifles.",
        "He was shot by Charles J. Guiteau in the station.",
        "We learned Pascal and then C.",
        "After that came the others.",
        "She helped develop the Tesla Model X.",
        "She joined OpenAI later on.",
        "The court decided Craig v. Boren in 1976 by seven votes.",
    ]


def test_sentences_that_differ_in_a_number_are_two_facts() -> None:
    season = "The {} UCF Knights football team represented the University of Central Florida in the {} season."
    assert not near_duplicate(season.format(2010, 2010), season.format(2015, 2015))
    whole = season.format(2010, 2010)
    assert near_duplicate(whole, whole[: whole.index("in the") + 10])  # cut at a chunk edge: "in the 20"
    assert near_duplicate(whole, "So " + whole.replace("in the", "then in the"))  # a variant with the same numbers


def test_extractive_facts_cite_verbatim_spans_without_duplicates(ctx: Context) -> None:
    hits = search_chunks(ctx, "Nobel Prize", params(ctx, top_k=3))
    duplicate = hits[0].model_copy(update={"id": "copy"})
    facts = extractive_facts("Which Nobel Prizes did she win?", None, [*hits, duplicate], ctx.embedder, 4)
    assert facts
    by_id = {h.id: h for h in [*hits, duplicate]}
    spans = [f.citations[0].span for f in facts]
    assert len(spans) == len(set(spans))
    for fact in facts:
        citation = fact.citations[0]
        assert citation.span in by_id[citation.chunk_id].text and citation.document_name
    assert "Nobel" in facts[0].fact


def test_validate_citations_drops_unknown_ids_and_clears_invented_spans(caplog: pytest.LogCaptureFixture) -> None:
    """A span the chunk does not hold used to drop its citation; now the citation stays as its bare chunk id (the
    service design's plain-id citation), and each check is a named event."""
    retrieved = {"c1": Hit(id="c1", text="Marie   Curie discovered polonium.", document_name="Marie Curie")}
    facts = [
        KeyFact(fact="ok", citations=[Citation(chunk_id="c1", span="marie curie discovered")]),
        KeyFact(fact="invented", citations=[Citation(chunk_id="c1", span="Curie discovered gold")]),
        KeyFact(fact="unknown", citations=[Citation(chunk_id="c9", span="x")]),
        KeyFact(fact="mixed", citations=[Citation(chunk_id="c1"), Citation(chunk_id="c9")]),
        KeyFact(fact="uncited"),
    ]
    with caplog.at_level(logging.DEBUG, logger="retrieval.search.citations"):
        kept, check = validate_citations(facts, retrieved)
    assert (check.checked, check.matched, check.fallback, check.dropped) == (5, 1, 2, 2)
    assert [f.fact for f in kept] == ["ok", "invented", "mixed", "uncited"]
    assert kept[0].citations[0].span == "Marie   Curie discovered"
    assert kept[0].citations[0].document_name == "Marie Curie"
    assert [c.span for c in kept[1].citations] == [""] and [c.chunk_id for c in kept[2].citations] == ["c1"]
    events = [(r.getMessage(), getattr(r, "chunk_id", None)) for r in caplog.records]
    assert events == [
        ("citation_matched", "c1"),
        ("citation_fallback", "c1"),
        ("citation_dropped", "c9"),
        ("citation_fallback", "c1"),
        ("citation_dropped", "c9"),
    ]
    assert locate("absent words", "some text") is None and locate("", "text") == ""


@pytest.fixture
def empty_ctx(settings: Settings) -> Iterator[Context]:
    with open_store(settings) as store:
        yield Context(settings, store, make_embedder(settings), None, "demo")


def test_expansion_and_entity_search_on_an_empty_indexed_graph(empty_ctx: Context) -> None:
    empty_ctx.store.ensure_schema(empty_ctx.embedder.dim)
    assert search_chunks(empty_ctx, "anything", QueryParams()) == []
    assert expand(empty_ctx, ["nobody"], QueryParams()).entities == []


def test_chunks_without_an_embedding_keep_their_keyword_score_and_properties(empty_ctx: Context) -> None:
    """Keyword candidates arrive with their text only, and a restricted search scores what its vector arm read;
    a chunk the vector arm cannot see (no embedding) must still be scored and shown with its document."""
    ctx = empty_ctx
    s = ctx.settings
    ctx.store.ensure_schema(ctx.embedder.dim)
    texts = {"seen": "Polonium was discovered in 1898.", "unseen": "Polonium glows faintly blue in the dark."}
    vector = ctx.embedder.embed_query(texts["seen"])
    ctx.store.query(
        f"CREATE (:`{s.chunk_label}` {{id: 'seen', projectId: 'demo', text: $seen, document_name: 'Curie', "
        f"embedding: {ctx.store.vec('v')}}}), "
        f"(:`{s.chunk_label}` {{id: 'unseen', projectId: 'demo', text: $unseen, document_name: 'Curie'}})",
        {**texts, "v": vector},
    )
    for restrict in (None, ["seen", "unseen"]):
        hits = search_chunks(ctx, "polonium", params(ctx), restrict_ids=restrict)
        assert {h.id for h in hits} == {"seen", "unseen"}
        unseen = next(h for h in hits if h.id == "unseen")
        assert unseen.document_name == "Curie" and unseen.sources.get("fulltext", 0) > 0

"""Bridge re-ranking: a multi-hop question's second passage is found through the entities the first mentions."""

from __future__ import annotations

import pytest

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.models import QueryParams
from retrieval.search.bridge import MAX_MENTIONS, _uncovered
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore

PROJECT = "demo"
QUESTION = "Which university did the author of Alexander and the Terrible Day attend?"
#: id -> text. `book` answers the first hop; `viorst` the second, but shares only "university" and "attend" with the
#: question, while the `look*` distractors repeat the question's words: plain hybrid search ranks them around `book`.
CHUNKS = {
    "book": "Alexander and the Terrible Day is a children's book written by Judith Viorst in 1972.",
    "viorst": "Judith Viorst attended Rutgers University in Newark, New Jersey, graduating in 1952.",
    "look1": "The author Alexander attended the terrible day of the university fair.",
    "look2": "The fair of Alexandria was held on a terrible day.",
    "gossip": "Judith Viorst lives in Washington.",
    **{f"hub{i}": f"Travel note {i}: the United States has many cities." for i in range(MAX_MENTIONS + 2)},
}
ENTITIES = {"alexander": "Alexander and the Terrible Day", "viorst": "Judith Viorst", "usa": "United States"}
MENTIONS = [
    ("book", "alexander"),
    ("book", "viorst"),
    ("book", "usa"),
    ("viorst", "viorst"),
    ("gossip", "viorst"),
    *((f"hub{i}", "usa") for i in range(MAX_MENTIONS + 2)),
]


@pytest.fixture(scope="module")
def ctx(module_store: GraphStore, embedder: Embedder) -> Context:
    store = module_store
    store.clear()
    s = store.settings
    store.ensure_schema(embedder.dim)
    vectors = embedder.embed(list(CHUNKS.values())).tolist()
    store.write_batch(
        f"UNWIND $rows AS row CREATE (c:`{s.chunk_label}` {{id: row.id, text: row.text, projectId: '{PROJECT}', "
        f"document_id: row.id, document_name: row.id}}) SET c.embedding = {store.vec('row.v')}",
        [{"id": cid, "text": text, "v": v} for (cid, text), v in zip(CHUNKS.items(), vectors, strict=True)],
    )
    entity_vectors = embedder.embed(list(ENTITIES.values())).tolist()
    store.write_batch(
        f"UNWIND $rows AS row CREATE (e:`{s.entity_label}` {{id: row.id, title: row.title, description: row.title, "
        f"type: 'CONCEPT', projectId: '{PROJECT}'}}) SET e.embedding = {store.vec('row.v')}",
        [{"id": eid, "title": t, "v": v} for (eid, t), v in zip(ENTITIES.items(), entity_vectors, strict=True)],
    )
    store.write_batch(
        f"UNWIND $rows AS row MATCH (c:`{s.chunk_label}` {{id: row.c}}), (e:`{s.entity_label}` {{id: row.e}}) "
        "CREATE (c)-[:HAS_ENTITY {count: 1}]->(e)",
        [{"c": c, "e": e} for c, e in MENTIONS],
    )
    return Context(s, store, embedder, None, PROJECT)


def params(ctx: Context, **overrides: object) -> QueryParams:
    return QueryParams.from_settings(ctx.settings, **{"top_k": 3, "alpha": 0.6, **overrides})


def test_plain_hybrid_misses_the_second_hop(ctx: Context) -> None:
    """The premise of the next test: without the graph the look-alikes fill the top 3."""
    assert "viorst" not in [h.id for h in retrieve(ctx, QUESTION, params(ctx, max_hops=0), walk=False).chunks]


def test_bridge_passage_is_ranked_after_the_direct_hit(ctx: Context) -> None:
    ranked = retrieve(ctx, QUESTION, params(ctx, max_hops=1), walk=False).chunks
    ids = [h.id for h in ranked]
    plain = retrieve(ctx, QUESTION, params(ctx, max_hops=0), walk=False).chunks
    assert ids[0] == plain[0].id  # the best direct match keeps the first place
    assert "viorst" in ids
    bridge = ranked[ids.index("viorst")]
    assert bridge.sources["graph"] > 0 and bridge.sources["residual"] > 0


def test_the_residual_words_pick_the_answering_neighbour(ctx: Context) -> None:
    """`viorst` and `gossip` are tied to `book` alike; only `viorst` says what the question still asks (university)."""
    ranked = retrieve(ctx, QUESTION, params(ctx, max_hops=1, top_k=len(CHUNKS)), walk=False).chunks
    ids = [h.id for h in ranked]
    assert ids.index("viorst") < ids.index("gossip")
    assert ranked[ids.index("gossip")].sources.get("residual", 0.0) == 0.0


def test_a_hub_entity_lends_nothing(ctx: Context) -> None:
    """`usa` is mentioned by more than MAX_MENTIONS chunks: the travel notes get no graph score through it."""
    ranked = retrieve(ctx, QUESTION, params(ctx, max_hops=1, top_k=len(CHUNKS)), walk=False).chunks
    assert not [h.id for h in ranked if h.id.startswith("hub") and "graph" in h.sources]


def test_uncovered_terms_allow_short_extensions() -> None:
    assert _uncovered(["university", "attend", "author"], "The author attended a college.") == ["university"]
    assert _uncovered(["cat"], "cats and dogs") == ["cat"]  # too short to trust a prefix
    assert _uncovered([], "anything") == []

"""Drift scoring as specified: entities and edges dated by their documents (so recency ranks), the drift
budget, and directed RELATED edges followed out, in or both ways."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.modes.local import answer
from retrieval.search.expand import expand
from retrieval.search.explore import neighbourhood
from retrieval.store import GraphStore
from tests.conftest import SEARCH_PROJECT

PROJECT = "dated"


def params(settings: Settings, **overrides: object) -> QueryParams:
    return QueryParams.from_settings(settings, **overrides)


def test_a_more_recent_neighbour_outranks_an_older_one_of_equal_degree(
    settings: Settings, store: GraphStore, embedder: Embedder, tmp_path: Path
) -> None:
    """Babbage and Faraday are each linked to Lovelace once, by one passage each; Faraday's document is newer."""
    folder = tmp_path / "letters"
    folder.mkdir()
    (folder / "babbage.txt").write_text("Ada Lovelace wrote to Charles Babbage.", encoding="utf-8")
    run_index(settings, store, embedder, [folder], project=PROJECT)
    time.sleep(1.1)  # timestamps have one-second resolution
    (folder / "faraday.txt").write_text("Ada Lovelace wrote to Michael Faraday.", encoding="utf-8")
    run_index(settings, store, embedder, [folder], project=PROJECT)

    rows = store.read(
        "MATCH (d:__Document__)-[:HAS_CHUNK]->()-[:HAS_ENTITY]->(e:__Entity__) WHERE d.projectId = $p "
        "RETURN e.id AS id, e.degree AS degree, e.updated_at AS e_updated, d.updated_at AS d_updated, "
        "e.ingested_at AS e_ingested, d.ingested_at AS d_ingested",
        {"p": PROJECT},
    )
    by_id = {r["id"]: r for r in rows}
    babbage, faraday = by_id[f"{PROJECT}:charles-babbage"], by_id[f"{PROJECT}:michael-faraday"]
    for row in (babbage, faraday):  # dated by the one document that mentions each
        assert (row["e_updated"], row["e_ingested"]) == (row["d_updated"], row["d_ingested"]) != (None, None)
    assert faraday["e_updated"] > babbage["e_updated"] and babbage["degree"] == faraday["degree"] == 1
    lovelace = by_id[f"{PROJECT}:ada-lovelace"]
    assert lovelace["e_updated"] == faraday["e_updated"] and lovelace["e_ingested"] == babbage["e_ingested"]
    edges = store.read(
        "MATCH (a:__Entity__)-[r:RELATED]-(b:__Entity__ {id: $id}) RETURN r.updated_at AS u",
        {"id": f"{PROJECT}:michael-faraday"},
    )
    assert [e["u"] for e in edges] == [faraday["d_updated"]]

    ctx = Context(settings, store, embedder, None, PROJECT)
    seed = [f"{PROJECT}:ada-lovelace"]

    def scores(recency: float) -> dict[str, float]:
        found = expand(ctx, seed, params(settings, max_hops=1, recency_weight=recency))
        return {e.id: e.score for e in found.entities}

    plain, boosted = scores(0.0), scores(1.0)
    assert plain[babbage["id"]] == pytest.approx(plain[faraday["id"]])
    assert boosted[faraday["id"]] > boosted[babbage["id"]]


@pytest.fixture(scope="module")
def science(search_store: GraphStore, embedder: Embedder) -> Context:
    return Context(search_store.settings, search_store, embedder, None, SEARCH_PROJECT)


def test_drift_budget_stops_expansion_early_and_says_so(science: Context) -> None:
    s = science.settings
    free = expand(science, ["marie", "bread"], params(s, max_hops=3))
    assert not free.budget_exhausted and len(free.entities) > 3
    first_hop = sorted((e.score for e in free.entities if e.metadata["hop"] == 1), reverse=True)
    budget = first_hop[0] * 0.5  # the best neighbour alone spends it
    tight = expand(science, ["marie", "bread"], params(s, max_hops=3, drift_budget=budget))
    assert tight.budget_exhausted and not tight.truncated
    assert [e.metadata["hop"] for e in tight.entities] == [0, 0, 1]
    # Through a mode, the trace reports it beside expansion_truncated.
    result = answer(science, "Who discovered polonium with Marie Curie?", params(s, drift_budget=budget), None)
    details = next(step.details for step in result.trace if step.id == "search")
    assert details["budget_exhausted"] is True and "expansion_truncated" in details
    result = answer(science, "Who discovered polonium with Marie Curie?", params(s), None)
    assert next(step.details for step in result.trace if step.id == "search")["budget_exhausted"] is False


def test_expansion_follows_directed_edges_out_in_or_both(store: GraphStore, embedder: Embedder) -> None:
    """hub->out (directed), in->hub (directed), hub-plain (co-occurrence, no direction)."""
    store.query(
        "CREATE (h:__Entity__ {id: 'hub', title: 'Hub', projectId: 'dir', degree: 3}), "
        "(o:__Entity__ {id: 'out', title: 'Out', projectId: 'dir', degree: 1}), "
        "(i:__Entity__ {id: 'in', title: 'In', projectId: 'dir', degree: 1}), "
        "(p:__Entity__ {id: 'plain', title: 'Plain', projectId: 'dir', degree: 1}), "
        "(h)-[:RELATED {weight: 1.0, directed: true}]->(o), (i)-[:RELATED {weight: 1.0, directed: true}]->(h), "
        "(p)-[:RELATED {weight: 1.0, directed: false}]->(h)"
    )
    ctx = Context(store.settings, store, embedder, None, "dir")

    def reached(direction: str) -> set[str]:
        found = expand(ctx, ["hub"], params(store.settings, max_hops=2, expansion_direction=direction))
        return {e.id for e in found.entities} - {"hub"}

    assert reached("both") == {"out", "in", "plain"}
    assert reached("out") == {"out", "plain"}
    assert reached("in") == {"in", "plain"}
    relations = expand(ctx, ["hub"], params(store.settings, max_hops=1), relations=True).relations
    edges = {(r["source"], r["target"], r["directed"]) for r in relations}
    assert edges == {("hub", "out", True), ("in", "hub", True), ("plain", "hub", False)}
    outward = expand(ctx, ["hub"], params(store.settings, max_hops=1, expansion_direction="out"), relations=True)
    assert {(r["source"], r["target"], r["directed"]) for r in outward.relations} == {
        ("hub", "out", True),
        ("plain", "hub", False),
    }
    # The explorer gets the same flag on its edges (it draws an arrow on directed ones only).
    view = neighbourhood(ctx, ["hub"], params(store.settings, max_hops=1), cap=10)
    assert {(e.source, e.target, e.directed) for e in view.edges} == edges

"""Global search on a real indexed graph: offline map/reduce, and map/reduce through the scripted server."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.models import Citation, Hit, KeyFact, QueryParams
from retrieval.modes import global_mode, global_reduce, global_themes
from retrieval.modes.global_themes import theme_question
from retrieval.store import GraphStore
from tests.conftest import CAROL_PROJECT, CarolGraph, make_settings
from tests.interview_chunks import EARLIER, LATER
from tests.scripted_model import ids_in, schema_name
from tests.scripted_openai import ScriptedOpenAI, Step, json_reply

QUESTION = "What are the main themes of the story: greed, ghosts and redemption?"


def summaries(graph: CarolGraph) -> dict[str, str]:
    rows = graph[1].read(
        "MATCH (k:__Community__ {projectId: $p}) RETURN k.id AS id, k.summary AS s", {"p": CAROL_PROJECT}
    )
    return {row["id"]: row["s"] for row in rows}


def chunk_texts(graph: CarolGraph) -> dict[str, str]:
    rows = graph[1].read("MATCH (c:__Chunk__ {projectId: $p}) RETURN c.id AS id, c.text AS t", {"p": CAROL_PROJECT})
    return {row["id"]: row["t"] for row in rows}


def test_offline_global_maps_the_passages_beneath_the_selected_communities_and_quotes_them(
    carol_graph: CarolGraph,
) -> None:
    """Offline, each map batch searches the passages beneath its communities, and the facts quote those passages
    verbatim (a summary's leading sentences were mostly introductions); the passages are the question's search."""
    settings, store, embedder = carol_graph
    ctx = Context(settings.model_copy(update={"global_map_batch": 2}), store, embedder, None, CAROL_PROJECT)

    answer = global_mode.answer(ctx, QUESTION, QueryParams.from_settings(settings), None)

    select, *maps, search, reduce = answer.trace
    assert select.kind == "select" and search.kind == "search" and reduce.kind == "aggregate"
    assert select.details["level"] == 0 and 0 < select.details["selected"] <= select.details["communities_at_level"]
    assert len(maps) == math.ceil(select.details["selected"] / 2) == select.details["map_batches"]
    assert all(m.kind == "map" and len(m.communities) <= 2 for m in maps)
    assert answer.answered_by == "extractive" and answer.key_facts
    beneath = global_mode.community_chunk_ids(ctx, select.communities)
    under = {chunk for chunks in beneath.values() for chunk in chunks}
    texts = chunk_texts(carol_graph)
    assert search.chunk_ids and set(search.chunk_ids) <= under
    for citation in answer.citations():
        assert citation.kind == "chunk" and citation.chunk_id in search.chunk_ids
        assert citation.span and citation.span in texts[citation.chunk_id]
    scores = [float(m) for m in re.findall(r"^\((\d+(?:\.\d+)?)\)", "\n".join(m.answer for m in maps), flags=re.M)]
    assert scores and all(0 < s <= 100 for s in scores)


def _fact(document: str, score: float) -> KeyFact:
    return KeyFact(
        fact=f"{document} {score}",
        citations=[Citation(chunk_id=f"{document}:{score}", score=score, document_name=document)],
    )


def test_facts_near_the_best_come_one_document_at_a_time_and_weak_ones_last() -> None:
    """A corpus question is answered by several documents: a second fact of one waits for the first of every other
    near the best; a weak fact of another document does not jump ahead of a strong one."""
    facts = [_fact("a", 1.0), _fact("a", 0.97), _fact("b", 0.95), _fact("a", 0.93), _fact("c", 0.5), _fact("b", 0.92)]
    order = [(f.citations[0].document_name, f.citations[0].score) for f in global_reduce.across_documents(facts)]
    assert order == [("a", 1.0), ("b", 0.95), ("a", 0.97), ("b", 0.92), ("a", 0.93), ("c", 0.5)]
    assert global_reduce.across_documents(facts, near=1.01) == facts
    assert global_reduce.across_documents([]) == []


def test_scripted_global_drops_zero_points_and_unmapped_citations(
    carol_graph: CarolGraph, scripted_openai: ScriptedOpenAI, tmp_path: Path
) -> None:
    def route(request: dict[str, Any]) -> Step:
        if schema_name(request) == "global_map":
            first = ids_in(request, "community")[0]
            points = [
                {"description": f"Useful point from {first}.", "score": 80, "communities": [first]},
                {"description": "Irrelevant.", "score": 0, "communities": [first]},
                {"description": "Cites a community outside the batch.", "score": 90, "communities": ["elsewhere"]},
            ]
            return json_reply({"points": points})
        cited = re.findall(r"communities: ([^)]+)\)", request["messages"][-1]["content"])[0]
        facts = [{"fact": "Greed is redeemed.", "communities": [cited, "never-mapped"]}]
        return json_reply({"final_answer": "Redemption.", "key_facts": facts, "residual_uncertainty": "Little."})

    scripted_openai.script(router=route)
    llm_settings = make_settings(
        tmp_path, project=CAROL_PROJECT, openai_base_url=scripted_openai.base_url, global_map_batch=2
    )
    _settings, store, embedder = carol_graph
    ctx = Context(llm_settings, store, embedder, ChatModel(llm_settings), CAROL_PROJECT)

    answer = global_mode.answer(ctx, QUESTION, QueryParams.from_settings(llm_settings), None)

    select = answer.trace[0]
    assert (
        answer.usage.phases["map"].calls == select.details["map_batches"] == math.ceil(select.details["selected"] / 2)
    )
    assert answer.usage.phases["reduce"].calls == 1
    maps = [s for s in answer.trace if s.kind == "map"]
    assert all(s.details["points"] == 1 and s.answer.startswith("(80) Useful point") for s in maps)
    [fact] = answer.key_facts
    assert [c.chunk_id for c in fact.citations] == [select.communities[0]]
    assert fact.citations[0].span in summaries(carol_graph)[select.communities[0]]
    assert any("never-mapped" in note for note in answer.notes)


def test_a_theme_question_is_answered_by_the_largest_communities_cited(carol_graph: CarolGraph) -> None:
    """ "What are the main themes?" has no content word to match a report by: the answer lists the communities
    with the most evidence at the coarsest level that has several, each cited by its own summary, and the
    judge takes the listing as the answer (not "Not in these documents")."""
    settings, store, embedder = carol_graph
    engine = Engine(settings, store=store, embedder=embedder, llm=None)

    answer = engine.ask("What are the main themes?", "global")

    select, *_maps, reduce = answer.trace
    assert reduce.details["themes"] is True
    counts = global_themes.level_counts(Context(settings, store, embedder, None, CAROL_PROJECT))
    assert select.details["level"] == global_themes.theme_level(sorted(counts), counts)
    ranks = {
        row["id"]: row["rank"]
        for row in store.read(
            "MATCH (k:__Community__ {projectId: $p, level: $l}) RETURN k.id AS id, k.rank AS rank",
            {"p": CAROL_PROJECT, "l": select.details["level"]},
        )
    }
    assert select.communities[0] in {k for k, r in ranks.items() if r == max(ranks.values())}
    assert answer.outcome == "answered", answer.final_answer
    assert answer.final_answer.startswith("The ") and "main theme(s)" in answer.final_answer
    texts = summaries(carol_graph)
    titles = {c.document_name for c in answer.citations()}
    assert len(titles) >= 2 and all(f"**{t}**" in answer.final_answer for t in titles)
    for citation in answer.citations():
        assert citation.kind == "community" and citation.span and citation.span in texts[citation.chunk_id]
    assert re.search(r"from \d+ document\(s\)", answer.final_answer)


def test_a_question_about_something_named_is_not_a_theme_question() -> None:
    assert theme_question("What are the main themes?") and theme_question("What is this collection about?")
    assert theme_question("Which topics do these episodes cover?")
    assert not theme_question("What are the main themes of the story: greed, ghosts and redemption?")
    assert not theme_question("What is the capital of Australia?")
    assert not theme_question("What themes does Lisa Su discuss?")


def test_offline_global_facts_name_the_speaker_of_a_passage_that_opens_mid_turn(
    store: GraphStore, embedder: Embedder
) -> None:
    """A passage cut mid-turn carries no label: the reduce reads who speaks from the chunks before it, as local's
    pool does, so the guest's answer is hers and the fact says so."""
    s = store.settings
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{s.chunk_label}` {{id: row.id, text: row.text, projectId: 'p', n: row.n}})",
        [{"id": "doc:0", "text": EARLIER, "n": 0}, {"id": "doc:1", "text": LATER, "n": 1}],
    )
    ctx = Context(s, store, embedder, None, "p")
    question = "Why did Daphne Koller move into biology and medicine?"
    passage = Hit(id="doc:1", text=LATER, score=1.0, document_id="doc", document_name="doc")

    facts, _final, _uncertainty = global_reduce.passage_answer(
        ctx,
        question,
        embedder.embed([question])[0],
        passages={"doc:1": passage},
        passage_community={},
        reports={},
        mapped=1,
    )

    assert facts
    assert facts[0].fact.startswith("Daphne Koller: ") and facts[0].citations[0].chunk_id == "doc:1"

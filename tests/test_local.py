"""Local mode end to end: extractive and LLM answers, validated citations, bad input, and the CLI commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.cli import main
from retrieval.config import Settings
from retrieval.embed import make_embedder
from retrieval.engine import Engine
from retrieval.errors import IndexMissing
from retrieval.llm.client import ChatModel
from retrieval.search import bridge, ranking
from retrieval.search.expand import expand
from retrieval.search.hybrid import search_chunks, search_entities
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, open_store
from retrieval.store.records import unpacked
from retrieval.text.readable import NOTHING_TO_SEARCH
from tests.conftest import SEARCH_CHUNKS, SEARCH_PROJECT, backend_env, count_reads
from tests.scripted_model import CHECKED_CITATIONS
from tests.scripted_openai import ScriptedOpenAI, json_reply, reply


@pytest.fixture(scope="module")
def engine(search_store: GraphStore) -> Engine:
    s = search_store.settings
    return Engine(s, store=search_store, embedder=make_embedder(s), llm=None)


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedOpenAI]:
    running = ScriptedOpenAI().start()
    yield running
    running.stop()


@pytest.fixture
def llm_engine(search_store: GraphStore, server: ScriptedOpenAI) -> Engine:
    s = search_store.settings.model_copy(
        update={"openai_base_url": server.base_url, "retry_max_attempts": 1, "llm_timeout_sec": 5.0}
    )
    return Engine(s, store=search_store, embedder=make_embedder(s), llm=ChatModel(s))


def test_extractive_answer_cites_verbatim_evidence(engine: Engine) -> None:
    answer = engine.ask("Who discovered polonium?", "local")
    assert answer.answered_by == "extractive" and not answer.no_data_found
    assert "polonium" in answer.key_facts[0].fact
    for citation in answer.citations():
        assert citation.span in SEARCH_CHUNKS[citation.chunk_id][2]
        assert citation.document_name == SEARCH_CHUNKS[citation.chunk_id][1]
    assert "Bake" not in answer.final_answer  # off-topic sentences are not evidence
    assert answer.trace[0].kind == "search" and answer.trace[0].chunk_ids


def test_llm_answer_keeps_valid_citations_counts_drops_and_fallbacks(
    llm_engine: Engine, server: ScriptedOpenAI
) -> None:
    server.script(json_reply(CHECKED_CITATIONS))
    answer = llm_engine.ask("Who discovered polonium?", "local")
    assert answer.answered_by == "llm" and answer.final_answer.startswith("Marie Curie")
    # The invented id is dropped; the misquote keeps its real chunk by id alone (it used to be dropped too).
    assert [f.fact for f in answer.key_facts] == ["Marie Curie discovered polonium.", "Misquoted."]
    assert answer.key_facts[0].citations[0].chunk_id == "c1"
    assert answer.key_facts[0].citations[0].document_name == "Marie Curie"
    assert [(c.chunk_id, c.span) for c in answer.key_facts[1].citations] == [("c1", "")]
    assert any("1 citation(s) the model gave were not in the retrieved text" in note for note in answer.notes)
    assert any("1 citation(s) quote words not in the cited chunk" in note for note in answer.notes)
    assert answer.trace[-1].details["citations_dropped"] == 1
    assert answer.trace[-1].details["citations_fallback"] == 1
    assert answer.usage.llm_calls == 1
    prompt = server.chat_requests()[-1].json["messages"][1]["content"]
    assert "[1] (id: c1" in prompt and "Who discovered polonium?" in prompt


def test_malformed_llm_reply_degrades_to_extractive(llm_engine: Engine, server: ScriptedOpenAI) -> None:
    server.script(reply("{not json"), reply("still [not json"))
    answer = llm_engine.ask("Who discovered polonium?", "local")
    assert answer.answered_by == "extractive" and answer.key_facts
    assert any("malformed JSON" in note for note in answer.notes)
    assert answer.usage.llm_calls == 2 and server.pending == 0


@pytest.mark.parametrize(
    ("question", "note"),
    [
        ('"(*?:~^[', "no words"),
        ("zxqv wprt", "Nothing in the graph is relevant"),
    ],
)
def test_unanswerable_input_is_no_data(engine: Engine, question: str, note: str) -> None:
    answer = engine.ask(question, "local")
    assert answer.no_data_found and note in " ".join(answer.notes)


def test_huge_question_is_searched_by_its_start(engine: Engine) -> None:
    answer = engine.ask("Who discovered polonium? " + "padding " * 2500, "local")
    assert any("longer than" in note for note in answer.notes)
    assert "c1" in answer.trace[0].chunk_ids


def test_unknown_project_names_the_known_ones(engine: Engine) -> None:
    answer = engine.ask("Who discovered polonium?", "local", project="nope")
    assert answer.no_data_found and "'nope'" in answer.notes[0] and "science" in answer.notes[0]


@pytest.mark.fresh_schema
def test_graph_without_indexes_is_a_typed_error(settings: Settings) -> None:
    with open_store(settings) as store:
        store.query(f"CREATE (:`{settings.chunk_label}` {{id: 'x', text: 'hello world', projectId: 'demo'}})")
        engine = Engine(settings, store=store, embedder=make_embedder(settings), llm=None)
        with pytest.raises(IndexMissing):
            engine.ask("hello world", "local")
        assert engine.ask("hello world", "local", project="empty").no_data_found


# --- the walk, paid only where it is read ------------------------------------------------------------


def test_a_search_that_shows_no_neighbours_runs_no_walk(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """`walk=False` (the command line's `search`, which prints chunks only): the same chunks, scores and per-arm
    scores, fewer statements, and none for the walk (the spread reads no seed rows, no hop, no properties)."""
    question, p = "Which radioactive element did Marie discover?", engine.params(top_k=3, max_hops=2)
    engine.search(question, p)  # index names, label statistics and word counts are read once
    reads = count_reads(engine.store, monkeypatch)
    shown = engine.search(question, p)
    walked = list(reads)
    reads.clear()
    ranked = engine.search(question, p, walk=False)
    assert [(h.id, h.score, h.sources) for h in ranked.chunks] == [(h.id, h.score, h.sources) for h in shown.chunks]
    assert shown.neighbours and not ranked.neighbours and ranked.seeds
    assert len(reads) < len(walked), (reads, walked)
    assert not [r for r in reads if "AS next" in r or "$per" in r or "ingested_at" in r], reads


def test_the_walk_shown_is_the_walk_from_the_ranking_seeds(engine: Engine) -> None:
    """Where the neighbours are shown (the service's search, local mode) the walk is the one its seeds give when
    walked alone: the ranking without it leaves it whole."""
    question, p = "Which radioactive element did Marie discover?", engine.params(top_k=3, max_hops=2, max_nodes=100)
    ctx = engine.context(None)
    ranked = retrieve(ctx, question, p, walk=False)
    seeds = dict(ranked.hit_entities)
    for hit in ranked.seeds:
        seeds[hit.id] = max(seeds.get(hit.id, 0.0), hit.score)
    alone = expand(ctx, list(seeds), p, seed_scores=seeds, chunk_limit=0)
    shown = engine.search(question, p)
    entities = [(e.id, round(e.score, 9), e.metadata) for e in [*shown.seeds, *shown.neighbours]]
    assert shown.neighbours and entities == [(e.id, round(e.score, 9), e.metadata) for e in alone.entities]
    answer = engine.ask(question, "local", p)
    details = next(s.details for s in answer.trace if "expanded_entities" in s.details)
    assert details["expanded_entities"] == len(alone.entities)


@pytest.mark.parametrize("walk", [False, True])
@pytest.mark.parametrize("top_k", [1, 3])
def test_the_ranking_sends_two_statements_and_ranks_as_before(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, top_k: int, walk: bool
) -> None:
    """Where the store folds them (Neo4j), the ranking's chunk and entity searches are one statement, and the
    spread's statement also scores the reached chunks it picks (`bridge._PICK`, `GraphStore.exact_part`): two
    statements, where apart (each search its own statement, the reached chunks' scores their own) it sends up to
    four. With the walk (local mode, the service's search) the same statement carries the walk's seed rows too, so
    the walk's path saves the same round trips.
    The ranking, its seeds, hit entities and walk are those of the path apart, on both backends."""
    question, p = "Which radioactive element did Marie discover?", engine.params(top_k=top_k, max_hops=2)
    ctx = engine.context(None)
    retrieve(ctx, question, p, walk=walk)  # index names, label statistics and word counts are read once
    reads = count_reads(engine.store, monkeypatch)
    folded = retrieve(ctx, question, p, walk=walk)
    sent = list(reads)
    reads.clear()
    monkeypatch.setattr(ranking, "search_chunks_and_entities", lambda *_args, **_kwargs: None)
    monkeypatch.setattr(bridge, "_exact_part", lambda *_args, **_kwargs: None)
    apart = retrieve(ctx, question, p, walk=walk)
    assert [(h.id, h.score, h.sources, h.text) for h in folded.chunks] == [
        (h.id, h.score, h.sources, h.text) for h in apart.chunks
    ]
    assert [(h.id, h.score, h.text) for h in folded.seeds] == [(h.id, h.score, h.text) for h in apart.seeds]
    assert folded.chunks and folded.seeds and folded.hit_entities == apart.hit_entities
    assert folded.expansion == apart.expansion and bool(folded.expansion.entities) == walk
    # This graph is written without stored BM25 profiles, so the server does not rank it and the spread is a
    # statement of its own (`bridge.fold`: tests/test_ranking_fold.py has the one statement of an indexed graph).
    if engine.store.backend == "neo4j":  # a top 3 of this graph reaches no chunk past its hits: no scores to read
        saved = 2 if top_k == 1 else 1
        assert len(reads) - len(sent) == saved and (walk or len(sent) == 2), (sent, reads)


def test_a_hub_is_one_row_of_the_spread_and_lends_nothing(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entity mentioned by more than `bridge.MAX_MENTIONS` chunks (a hub, here any of more than one) comes back
    as one row without a chunk, not as the cap's rows Python then skipped: it is still a hit entity (where the walk
    starts) and lends nothing, on the server's pick as in Python, on both backends."""
    question, p = "Which radioactive element did Marie discover?", engine.params(top_k=1, max_hops=2)
    ctx = engine.context(None)
    monkeypatch.setattr(bridge, "MAX_MENTIONS", 1)
    vector = ctx.embedder.embed_query(question)
    hits = search_chunks(ctx, question, p, query_vector=vector)
    entity_hits = search_entities(ctx, question, p, query_vector=vector, k=ranking.QUESTION_SEEDS)
    replies: list[list[dict[str, object]]] = []
    read = engine.store.read

    def kept(cypher: str, *args: object, **kwargs: object) -> list[dict[str, object]]:
        replies.append(read(cypher, *args, **kwargs))  # type: ignore[arg-type]
        return replies[-1]

    monkeypatch.setattr(engine.store, "read", kept)
    found = bridge.spread(ctx, hits, entity_hits)
    rows = [(r["kind"], r["source"], r["entity"], r["chunk"]) for r in unpacked(replies[0], bridge._LINKS)]
    hubs = {row[:3] for row in rows if row[3] is None}
    assert hubs and all(sum(row[:3] == hub for row in rows) == 1 for hub in hubs), rows
    assert {hub[2] for hub in hubs if hub[0] == "hit"} <= set(found.hit_entities)
    lending = {row[3] for row in rows if row[3] is not None and row[3] != row[1]}
    assert set(found.score) == lending, (found.score, rows)


# --- command line -----------------------------------------------------------------------------------


@pytest.fixture
def cli_env(search_store: GraphStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    monkeypatch.chdir(tmp_path)  # no .env from the repository
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "NEO4J_URI", "REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in backend_env(search_store.settings).items():
        monkeypatch.setenv(name, value)
    return ["--graph", str(search_store.settings.embedded_graph_path), "--project", SEARCH_PROJECT]


def test_cli_search_prints_ranked_chunks(cli_env: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "Who discovered polonium?", "--top-k", "3", "--alpha", "0.5", "--json", *cli_env]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["chunk_id"] == "c1" and rows[0]["document"] == "Marie Curie" and len(rows) <= 3
    assert set(rows[0]) >= {"chunk_id", "document", "score", "text"}
    assert main(["search", "polonium", "--fusion", "rrf", "--hops", "0", *cli_env]) == 0
    assert "Marie Curie" in capsys.readouterr().out


def test_cli_search_prints_chunks_without_walking(
    cli_env: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line's `search` prints chunks only: the neighbours' walk, which does not change them, is not
    run (it is refused here)."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the walk ran for a search that shows no neighbours")

    monkeypatch.setattr("retrieval.search.ranking.expand", refused)
    assert main(["search", "Who discovered polonium with Pierre?", "--hops", "2", "--json", *cli_env]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and rows[0]["chunk_id"] == "c1"


@pytest.mark.parametrize(
    ("query", "project", "message"),
    [
        ('"(*?:~^[', SEARCH_PROJECT, "no words to search for"),
        ("   ", SEARCH_PROJECT, "no words to search for"),
        ("polonium", "nosuchproject", "Project 'nosuchproject' has no indexed documents"),
    ],
)
def test_cli_search_says_why_nothing_came_back(
    cli_env: list[str], capsys: pytest.CaptureFixture[str], query: str, project: str, message: str
) -> None:
    assert main(["search", query, "--json", *cli_env, "--project", project]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == [] and message in out.err


def test_cli_search_and_ask_agree_a_query_of_common_words_has_nothing_to_search(
    cli_env: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`search "the of and"` used to print ranked hits while `ask` said there was nothing to search for."""
    assert main(["search", "the of and", "--json", *cli_env]) == 0
    searched = capsys.readouterr()
    assert json.loads(searched.out) == [] and NOTHING_TO_SEARCH in " ".join(searched.err.split())
    assert main(["ask", "the of and", *cli_env]) == 0
    assert NOTHING_TO_SEARCH in " ".join(capsys.readouterr().out.split())


def test_cli_ask_prints_answer_json(cli_env: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "Who discovered polonium?", "--mode", "local", "--json", "--trace", *cli_env]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["mode"] == "local" and payload["key_facts"] and payload["trace"]
    assert main(["ask", "Who discovered polonium?", *cli_env]) == 0
    assert "local answer" in capsys.readouterr().out


def test_cli_bad_settings_are_one_line_errors(cli_env: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "polonium", "--alpha", "3", *cli_env]) == 2
    assert "alpha" in capsys.readouterr().err

"""DRIFT end to end on a real indexed graph: offline, and through the real openai client (scripted server)."""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from retrieval.context import Context
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.models import Answer, Hit, QueryParams
from retrieval.modes import drift
from retrieval.modes.drift_offline import primer_answer
from retrieval.search.community_context import CommunityReport
from retrieval.search.evidence import extractive_facts
from retrieval.store import GraphStore, open_store
from retrieval.telemetry.events import ProgressBus, ProgressEvent
from tests.conftest import CAROL_PROJECT, CarolGraph, make_settings
from tests.scripted_model import ids_in, schema_name
from tests.scripted_openai import ScriptedOpenAI, Step, json_reply, reply

QUESTION = "Why does Marley's ghost visit Scrooge, and what does he warn him about?"
PHASE_ORDER = [
    "initializing",
    "expanding_query",
    "retrieving_communities",
    "executing_followup",
    "aggregating_results",
    "completed",
]
BOGUS_CHUNK = "never-retrieved:999"


def llm_context(graph: CarolGraph, server: ScriptedOpenAI, tmp_path: Path, **overrides: Any) -> Context:
    _settings, store, embedder = graph
    llm_settings = make_settings(
        tmp_path,
        project=CAROL_PROJECT,
        openai_base_url=server.base_url,
        openai_api_key="sk-test",
        retry_backoff_base_sec=0.01,
        retry_backoff_max_sec=0.05,
        **overrides,
    )
    return Context(llm_settings, store, embedder, ChatModel(llm_settings), CAROL_PROJECT)


def chunk_texts(store: GraphStore) -> dict[str, str]:
    rows = store.read("MATCH (c:__Chunk__ {projectId: $p}) RETURN c.id AS id, c.text AS text", {"p": CAROL_PROJECT})
    return {row["id"]: row["text"] for row in rows}


def section(request: dict[str, Any], title: str) -> str:
    text = request["messages"][-1]["content"]
    match = re.search(rf"## {re.escape(title)}\n(.*?)(?:\n\n## |\Z)", text, flags=re.S)
    return match.group(1).strip() if match else ""


def run_drift(ctx: Context, params: QueryParams, events: list[ProgressEvent] | None = None) -> Answer:
    progress = ProgressBus(ctx.settings).retrieval(ctx.project, callbacks=[events.append] if events is not None else [])
    return drift.answer(ctx, QUESTION, params, progress)


def assert_citations_verified(answer: Answer, texts: dict[str, str]) -> None:
    retrieved = {h.id for h in answer.evidence}
    steps = [c for s in answer.trace for c in s.details.get("citations", [])]
    for citation in [*(c.model_dump() for c in answer.citations()), *steps]:
        assert citation["chunk_id"] in retrieved, citation
        assert citation["span"], citation
        assert citation["span"] in texts[citation["chunk_id"]], citation
        assert citation["document_name"] in {"marleys-ghost", "the-end-of-it"}, citation


# --- offline --------------------------------------------------------------------------------------
def test_offline_drift_builds_a_real_tree_with_verified_citations(carol_graph: CarolGraph) -> None:
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    params = QueryParams.from_settings(settings, drift_rounds=2, drift_followups_per_round=2)

    answer = run_drift(ctx, params)

    assert answer.answered_by == "extractive" and not answer.no_data_found
    kinds = [s.kind for s in answer.trace]
    assert kinds[0] == "primer" and kinds[-1] == "aggregate"
    followups = [s for s in answer.trace if s.kind == "followup"]
    assert [s.round for s in followups] == [1, 1, 2, 2]
    ids = {s.id for s in answer.trace}
    assert all(s.parent_id in ids for s in followups)
    communities = {
        r["id"] for r in store.read("MATCH (k:__Community__ {projectId: $p}) RETURN k.id AS id", {"p": CAROL_PROJECT})
    }
    for step in followups:
        assert step.communities and set(step.communities) <= communities
        assert step.question.endswith("?") and "in relation to" not in step.question
        assert step.answer and step.details["citations"]
    assert len(answer.key_facts) >= 3
    assert_citations_verified(answer, chunk_texts(store))
    assert "extractively" in answer.residual_uncertainty
    assert answer.usage.llm_calls == 0 and {"hyde", "primer", "followup", "aggregate"} <= set(answer.usage.phases)


WHOLE = "Marley was dead to begin with, and Scrooge signed the register of his burial."
#: Overlapping chunks: the second repeats the first's sentence cut at its edge, hard-wrapped.
OVERLAPPING = [
    Hit(id="c1", text=f"{WHOLE} Scrooge knew he was dead, of course he did.", score=0.9, document_name="stave-1"),
    Hit(
        id="c2",
        text="and Scrooge signed the\nregister of his burial. Scrooge never painted out old Marley's name.",
        score=0.8,
        document_name="stave-1",
    ),
]


def test_extractive_answers_say_each_sentence_once(carol_graph: CarolGraph) -> None:
    _settings, _store, embedder = carol_graph
    facts = extractive_facts("Who signed the register of Marley's burial?", None, OVERLAPPING, embedder, 5)

    spans = [f.citations[0].span for f in facts]
    assert WHOLE in spans and not any(s.startswith("and Scrooge signed") for s in spans)
    for fact in facts:
        citation = fact.citations[0]
        assert citation.span in {h.id: h.text for h in OVERLAPPING}[citation.chunk_id]
        assert fact.fact == " ".join(citation.span.split())


def test_primer_answer_skips_variants_of_a_sentence_already_said() -> None:
    summary = f"and Scrooge signed the register of his burial. {WHOLE} Scrooge said  Mr. Fezziwig\nwas kind to all."
    reports = [
        CommunityReport(id="k1", level=1, title="Marley", summary=summary, rank=1.0),
        CommunityReport(id="k0", level=0, title="Burial", summary=WHOLE, rank=1.0),
        CommunityReport(id="k2", level=0, title="Fezziwig", summary=summary, rank=1.0),
    ]

    text = primer_answer("Who signed the register of the burial?", reports)

    assert text == f"[Marley] {WHOLE} [Fezziwig] Scrooge said Mr. Fezziwig was kind to all."


def test_progress_reports_every_phase_in_order_with_each_finished_step(carol_graph: CarolGraph) -> None:
    settings, store, embedder = carol_graph
    engine = Engine(settings, store=store, embedder=embedder, llm=None)
    events: list[ProgressEvent] = []

    answer = engine.ask(
        QUESTION, "drift", engine.params(drift_rounds=1), project=CAROL_PROJECT, on_progress=events.append
    )

    phases = [e.phase for e in events]
    assert [p for p in PHASE_ORDER if p in phases] == PHASE_ORDER
    assert [PHASE_ORDER.index(p) for p in phases] == sorted(PHASE_ORDER.index(p) for p in phases)
    pcts = [e.progress_pct for e in events]
    assert pcts == sorted(pcts) and pcts[0] == 0 and pcts[-1] == 100
    streamed = [e.step for e in events if e.step]
    assert streamed[0]["id"] == "primer" and streamed[-1]["id"] == "aggregate"
    assert sorted(streamed, key=lambda s: s["id"]) == sorted(
        (s.model_dump() for s in answer.trace), key=lambda s: s["id"]
    )
    followup_events = [e for e in events if e.phase == "executing_followup"]
    assert all(e.step and e.step["kind"] == "followup" for e in followup_events)
    assert all(re.match(r'- \[[^\]]+\] ".+"', line) for e in followup_events for line in e.details_md.splitlines())
    aggregate = next(e for e in events if e.step and e.step["kind"] == "aggregate")
    names = list(dict.fromkeys(c.document_name for c in answer.citations()))
    assert aggregate.details_md == ", ".join(names)  # `doc1, doc2`, as the DRIFT design's examples show
    assert events[-1].phase == "completed" and events[-1].details_md == ", ".join(f"[{n}]" for n in names)


def test_empty_graph_is_no_data_found_not_an_error(tmp_path: Path, carol_graph: CarolGraph) -> None:
    settings = make_settings(tmp_path, carol_graph[0].backend, project="nothing")
    with open_store(settings) as store:
        store.ensure_schema(carol_graph[2].dim)
        ctx = Context(settings, store, carol_graph[2], None, "nothing")
        answer = drift.answer(ctx, QUESTION, QueryParams.from_settings(settings), None)
    assert answer.no_data_found
    assert (answer.final_answer, answer.key_facts, answer.trace) == ("", [], [])


# --- through the real openai client ----------------------------------------------------------------
def scripted_tree(delay: float = 0.0, primer: Any = None) -> Any:
    """Router: primer asks 4 ranked follow-ups; only the top one continues; aggregation cites one bogus id."""
    priorities = {"P10": 10, "P90": 90, "P50": 50, "P70": 70}

    def route(request: dict[str, Any]) -> Step:
        name = schema_name(request)
        if name == "hyde":
            return reply("Marley's ghost warns Scrooge that his chains were forged in life.", delay=delay)
        communities = ids_in(request, "community")
        chunks = ids_in(request, "chunk")
        if name == "drift_primer":
            if primer is not None:
                return primer
            ups = [
                {"question": f"{q}?", "target_communities": communities[:1], "priority": p}
                for q, p in priorities.items()
            ]
            return json_reply({"answer": "Initial.", "confidence": 0.4, "follow_ups": ups}, delay=delay)
        if name == "drift_followup":
            question = section(request, "Follow-up question")
            go_on = question == "P90?"
            children = [{"question": "C95?", "target_communities": communities[:1], "priority": 95}] if go_on else []
            body = {
                "answer": f"Answer to {question}",
                "citations": chunks[:1],
                "confidence": 0.8,
                "should_continue": go_on,
                "follow_ups": children,
            }
            return json_reply(body, delay=delay)
        excerpt = section(request, "Excerpts")
        first_id = chunks[0]
        first_text = excerpt.split("\n", 2)[1]
        facts = [
            {"fact": "Supported.", "citations": [{"chunk_id": first_id, "span": " ".join(first_text.split()[:8])}]},
            {"fact": "Invented.", "citations": [{"chunk_id": BOGUS_CHUNK, "span": "nothing"}]},
        ]
        return json_reply({"final_answer": "Final.", "key_facts": facts, "residual_uncertainty": "Some."}, delay=delay)

    return route


def test_scripted_drift_ranks_followups_and_validates_citations(
    carol_graph: CarolGraph, scripted_openai: ScriptedOpenAI, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_openai.script(router=scripted_tree())
    ctx = llm_context(carol_graph, scripted_openai, tmp_path)
    params = QueryParams.from_settings(ctx.settings, drift_rounds=2, drift_followups_per_round=2)

    with caplog.at_level(logging.WARNING, logger="retrieval.search.citations"):
        answer = run_drift(ctx, params)

    assert answer.answered_by == "llm"
    followups = [s for s in answer.trace if s.kind == "followup"]
    by_round = {r: [s.question for s in followups if s.round == r] for r in (1, 2)}
    assert by_round == {1: ["P90?", "P70?"], 2: ["C95?", "P50?"]}  # ranked by priority, the child jumps the queue
    parent = {s.question: s.parent_id for s in followups}
    assert parent["C95?"] == next(s.id for s in followups if s.question == "P90?")
    assert parent["P50?"] == "primer"
    aggregate = answer.trace[-1]
    assert aggregate.details["open_follow_ups"] == ["P10?"]
    assert "P10?" in answer.residual_uncertainty
    assert [f.fact for f in answer.key_facts] == ["Supported."]
    assert any(BOGUS_CHUNK in note for note in answer.notes)
    dropped = [getattr(r, "chunk_id", None) for r in caplog.records if r.getMessage() == "citation_dropped"]
    assert BOGUS_CHUNK in dropped
    assert_citations_verified(answer, chunk_texts(carol_graph[1]))
    calls = {phase: u.calls for phase, u in answer.usage.phases.items() if u.calls}
    assert calls == {"hyde": 1, "primer": 1, "followup": 4, "aggregate": 1}
    assert answer.usage.prompt_tokens > 0 and answer.usage.cost_usd > 0
    sent = [json.dumps(r.json) for r in scripted_openai.chat_requests()]
    assert sum("drift_followup" in s for s in sent) == 4


def test_malformed_primer_json_degrades_to_the_extractive_primer_with_a_note(
    carol_graph: CarolGraph, scripted_openai: ScriptedOpenAI, tmp_path: Path
) -> None:
    scripted_openai.script(router=scripted_tree(primer=reply('{"answer": "cut off', delay=0.0)))
    ctx = llm_context(carol_graph, scripted_openai, tmp_path)
    params = QueryParams.from_settings(ctx.settings, drift_rounds=1, drift_followups_per_round=2)

    answer = run_drift(ctx, params)

    primer = answer.trace[0]
    assert primer.details["answered_by"] == "extractive" and primer.answer.startswith("[")
    assert any("malformed JSON twice for primer" in n for n in primer.details["notes"])
    assert any("malformed JSON twice for primer" in n for n in answer.notes)
    followups = [s for s in answer.trace if s.kind == "followup"]
    assert len(followups) == 2 and all(
        s.question.endswith("?") and "in relation to" not in s.question for s in followups
    )
    assert all(s.details["answered_by"] == "llm" for s in followups)
    assert answer.usage.phases["primer"].calls == 2  # asked, then re-asked once


def test_followups_of_a_round_run_in_parallel(
    carol_graph: CarolGraph, scripted_openai: ScriptedOpenAI, tmp_path: Path
) -> None:
    """Each round's three follow-ups are in flight together: the scripted server holds every follow-up reply until
    all three of its round have arrived. Sent one after another, the first would wait for the other two in vain
    (the barrier breaks after its timeout). No clock is read: a busy machine delays the calls, not the verdict."""
    rounds = [threading.Barrier(3, timeout=30), threading.Barrier(3, timeout=30)]
    arrived: list[str] = []
    together: list[bool] = []
    lock = threading.Lock()

    def route(request: dict[str, Any]) -> Step:
        name = schema_name(request)
        communities = ids_in(request, "community")[:1]
        if name == "drift_primer":
            ups = [{"question": f"Q{i}?", "target_communities": communities, "priority": 50 + i} for i in range(3)]
            return json_reply({"answer": "A.", "confidence": 0.5, "follow_ups": ups})
        if name == "drift_followup":
            question = section(request, "Follow-up question")
            with lock:
                barrier = rounds[min(len(arrived) // 3, len(rounds) - 1)]
                arrived.append(question)
            try:
                barrier.wait()
                together.append(True)
            except threading.BrokenBarrierError:
                together.append(False)
            child = [{"question": f"{question} more?", "target_communities": communities, "priority": 60}]
            body = {"answer": "B.", "citations": [], "confidence": 0.5, "should_continue": True, "follow_ups": child}
            return json_reply(body)
        if name == "drift_aggregate":
            return json_reply({"final_answer": "C.", "key_facts": [], "residual_uncertainty": ""})
        return reply("Hypothetical.")

    scripted_openai.script(router=route)
    ctx = llm_context(carol_graph, scripted_openai, tmp_path, llm_concurrency=4)
    params = QueryParams.from_settings(ctx.settings, drift_rounds=2, drift_followups_per_round=3)

    answer = run_drift(ctx, params)

    assert answer.usage.llm_calls == 9  # hyde, primer, 3 + 3 follow-ups, aggregate
    assert len(arrived) == 6 and all(together), f"follow-ups not in flight together: {together}"


def test_a_passage_found_for_the_question_keeps_the_question_s_scores(carol_graph: CarolGraph) -> None:
    """A follow-up's copy of a passage is scored against the follow-up: it never replaces the copy the question's
    own search found (the confidence reads that one as the evidence's similarity to the question); a passage only
    follow-ups found keeps its best-scored copy."""
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    state = drift.DriftRun(ctx, QUESTION, QueryParams.from_settings(settings), None)
    state.remember([Hit(id="c1", score=0.3, sources={"vector": 0.3})], own=True)
    state.remember([Hit(id="c1", score=0.9, sources={"vector": 0.9}), Hit(id="c2", score=0.2)])
    state.remember([Hit(id="c2", score=0.8)])
    assert state.retrieved["c1"].sources == {"vector": 0.3} and state.retrieved["c2"].score == 0.8

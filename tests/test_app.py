"""AppTest checks of the app's pages and shell against a small real graph (fast: no browser), on both backends
(the `demo` fixture); the checks of start-up settings and of the embedded server's own failures run once.

Graphs are plotly charts: their figures can be read here, but a click on a node needs a browser
(tests/e2e). Each test starts a fresh AppTest session on a fresh Engine cache.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from components.network import SELECTED_RING
from components.sidebar import TUNING_PANEL
from retrieval.config import Settings
from retrieval.conversation.thread import REWRITE_PROMPT
from retrieval.judge.answerability import LABELS
from tests.app_session import asked, opened, shown_text, started
from tests.conftest import DemoGraph, backend_env, close_app
from tests.e2e.graph import app_env
from tests.scripted_openai import ScriptedOpenAI, Step, json_reply, reply


@pytest.fixture(autouse=True)
def _app_closed() -> Iterator[None]:
    """The app a test started closes its graph with the test (the app itself closes it only at exit)."""
    yield
    close_app()


@pytest.fixture
def app(demo: DemoGraph, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    return started(monkeypatch, demo.env)


def _figure(app: AppTest, key: str) -> dict:
    """The plotly figure drawn by the chart with widget key `key` (its element id ends with the key)."""
    charts = [c for c in app.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert len(charts) == 1, [c.proto.id for c in app.get("plotly_chart")]
    return dict(json.loads(charts[0].proto.spec))


def _nodes(figure: dict) -> dict[str, dict]:
    """Node id -> its drawn text and ring colour, from the traces that carry node ids."""
    out = {}
    for trace in figure["data"]:
        for i, node_id in enumerate(trace.get("customdata") or []):
            out[node_id] = {"text": trace["text"][i], "ring": trace["marker"]["line"]["color"][i]}
    return out


# --- shell and home -------------------------------------------------------------------------
def test_home_shows_backend_counts_and_extractive_state(app: AppTest, demo: DemoGraph) -> None:
    assert not app.exception
    text = shown_text(app)
    assert demo.where in text and "healthy" in text
    assert "Searches read project 'demo'." in text  # a graph with projects is read one project at a time
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Chunks"].replace(",", "")) > 0 and int(metrics["Entities"].replace(",", "")) > 0
    assert metrics["Documents"] == "1"  # the selected project's counts
    whole = re.search(r"The whole graph: .*Memory (\d+)", text)
    assert whole and int(whole.group(1)) >= 3  # the seeded three, plus conversations other tests stored
    assert "No LLM configured" in text and "extractive" in text and "agent mode needs an LLM" in text


def test_opening_the_graph_shows_each_step_then_how_long_it_took(app: AppTest, demo: DemoGraph) -> None:
    """A large embedded graph rebuilds its indexes for minutes on open: the page says so instead of staying blank."""
    [status] = app.status
    assert status.label.startswith("Graph opened in ") and status.label.endswith(" s")
    steps = [m.value for m in status.markdown]
    if demo.env.get("NEO4J_URI"):
        assert steps[0] == "Connecting to Neo4j", steps
    else:  # the server is started unless another test's app left it running; its indexes are waited for
        assert steps[0].startswith(("Starting the graph server", "Graph indexes ready: ")), steps
        assert any(step.startswith("Graph indexes ready: ") for step in steps), steps
    assert steps[-2:] == ["Loading the embedder", "Checking the graph"]
    assert not opened(app, "home").status, "shown while the graph opens, not on every page after"


def test_invalid_settings_are_one_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = started(monkeypatch, {**app_env(tmp_path / "graph.db"), "DRIFTLENS_TOP_K": "0"})
    assert not app.exception
    assert len(app.error) == 1
    assert "DriftLens cannot start" in app.error[0].value and "top_k" in app.error[0].value


def test_unreachable_backend_names_its_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = started(
        monkeypatch, {**app_env(tmp_path / "graph.db"), "NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_PASSWORD": "x"}
    )
    assert not app.exception
    assert len(app.error) == 1
    assert "Backend down" in app.error[0].value and "bolt://127.0.0.1:9" in app.error[0].value


def test_banner_while_the_embedded_server_is_down_clears_when_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = tmp_path / "graph.db"
    app = started(monkeypatch, {**app_env(graph), "DRIFTLENS_DATA_DIR": str(tmp_path)})
    assert not app.error
    data = graph.with_name(graph.name + ".data")
    pid = int(json.loads((data / "server.lock").read_text())["server_pid"])
    os.kill(pid, signal.SIGKILL)
    (data / "redis.sock").unlink(missing_ok=True)
    (data / "redis.sock").mkdir()  # the socket's place is taken: the server cannot start again for now
    app.run()
    assert not app.exception
    assert len(app.error) == 1 and "Backend down" in app.error[0].value and str(graph) in app.error[0].value
    (data / "redis.sock").rmdir()
    app.button[0].click().run()  # "Retry now"
    assert not app.exception
    assert not app.error, "the banner clears once the server runs again, without restarting the app"
    assert "graph is empty" in shown_text(app)


def test_empty_graph_says_how_to_build_one(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    app = started(monkeypatch, {**app_env(settings.embedded_graph_path), **backend_env(settings)})
    assert not app.exception
    assert "graph is empty" in shown_text(app) and "Index" in shown_text(app)
    opened(app, "ask")
    assert "graph is empty" in shown_text(app) and not app.chat_input
    opened(app, "graph_explorer")
    assert "graph is empty" in shown_text(app)


def test_sliders_persist_across_pages_and_reset_to_defaults(app: AppTest) -> None:
    default_top_k = app.slider(key="tune_top_k").value
    app.slider(key="tune_top_k").set_value(default_top_k + 7).run()
    app.selectbox(key="tune_fusion").set_value("rrf").run()
    opened(app, "graph_explorer")
    opened(app, "ask")
    assert app.slider(key="tune_top_k").value == default_top_k + 7
    assert app.selectbox(key="tune_fusion").value == "rrf"
    app.button[[b.label for b in app.button].index("Reset to defaults")].click().run()
    assert app.slider(key="tune_top_k").value == default_top_k
    assert app.selectbox(key="tune_fusion").value == "linear"


def test_closed_tuning_panel_draws_no_knobs_and_keeps_their_values(app: AppTest) -> None:
    default_top_k = app.slider(key="tune_top_k").value
    app.slider(key="tune_top_k").set_value(default_top_k + 3).run()
    app.session_state[TUNING_PANEL] = False
    app.run()
    assert not app.sidebar.slider
    opened(app, "documents")
    opened(app, "ask")
    assert app.session_state["tune_top_k"] == default_top_k + 3
    app.session_state[TUNING_PANEL] = True
    app.run()
    assert app.slider(key="tune_top_k").value == default_top_k + 3


def test_drift_knobs_in_the_sidebar_reach_the_answer(app: AppTest) -> None:
    opened(app, "ask")
    app.slider(key="tune_drift_budget").set_value(0.05).run()
    app.slider(key="tune_degree_penalty").set_value(1.5).run()
    app.selectbox(key="tune_direction").set_value("out").run()
    assert app.selectbox(key="tune_global_level").disabled  # local mode never reads the global level
    app.chat_input[0].set_value("Who was Marley?").run()
    assert not app.exception
    answer = app.session_state["conversation"].turns()[-1].answers[0]
    details = next(step.details for step in answer.trace if step.id == "search")
    assert details["budget_exhausted"] is True and details["expansion_truncated"] is False
    app.button[[b.label for b in app.button].index("Reset to defaults")].click().run()
    assert app.slider(key="tune_drift_budget").value == 0.0 and app.selectbox(key="tune_global_level").value == "auto"


# --- Ask ------------------------------------------------------------------------------------
def test_ask_answers_with_label_citations_usage_and_export(app: AppTest) -> None:
    opened(app, "ask")
    suggestions = [b.label for b in app.button if b.key and b.key.startswith("suggest-")]
    assert len(suggestions) == 4 and suggestions[0].endswith("?")
    app.chat_input[0].set_value("Who was Marley?").run()
    assert not app.exception
    text = shown_text(app)
    assert "mode: Local" in text and "answered by: extractive" in text
    citations = [e.label for e in app.expander if e.label.startswith("[1]")]
    assert citations and "score" in citations[0]
    assert any("found by meaning" in c.value for c in app.caption)  # each citation says how it was retrieved
    assert any("<mark>" in h.proto.body for h in app.get("html"))
    assert {"Export Markdown", "Export JSON"} <= {d.proto.label for d in app.get("download_button")}
    assert "LLM calls" in [m.label for m in app.metric]
    assert len(app.session_state["conversation"].turns()) == 1


def test_compare_modes_answers_side_by_side(app: AppTest) -> None:
    opened(app, "ask")
    app.toggle(key="ask_compare").set_value(True).run()
    app.chat_input[0].set_value("What does Scrooge think of Christmas?").run()
    assert not app.exception
    text = shown_text(app)
    for label in ("mode: Local", "mode: Global", "mode: DRIFT"):
        assert label in text
    turn = app.session_state["conversation"].turns()[0]
    assert [a.mode for a in turn.answers] == ["local", "global", "drift"]
    assert len(app.session_state["drift_runs"]) == 1


def test_a_follow_up_uses_the_first_turn_and_the_thread_can_be_left_and_reopened(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Marley?")
    asked(app, "What did he wear?")
    chat = app.session_state["conversation"]
    turns = chat.turns()
    assert [t.question for t in turns] == ["Who was Marley?", "What did he wear?"]
    assert any("Marley" in term for term in turns[1].meta.context_terms)
    captions = [c.value for c in app.caption]
    assert "Follow-up read as: What did Marley wear\\?" in captions  # shown as typed: Markdown escaped
    assert app.query_params["thread"] == chat.thread_id

    app.button(key="conv_new").click().run()
    assert not app.exception
    assert app.session_state["conversation"].turns() == [] and "thread" not in app.query_params
    assert any(b.key and b.key.startswith("suggest-") for b in app.button)

    app.button(key=f"conv_open_{chat.thread_id}").click().run()
    assert not app.exception
    assert [t.question for t in app.session_state["conversation"].turns()] == ["Who was Marley?", "What did he wear?"]
    assert app.button(key=f"conv_open_{chat.thread_id}").proto.type == "primary"


def test_a_thread_and_a_drift_run_reopen_by_url_in_a_new_session(
    app: AppTest, demo: DemoGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened(app, "ask")
    app.selectbox(key="mode").set_value("drift").run()
    asked(app, "How does Scrooge treat his clerk?")
    chat = app.session_state["conversation"]
    run_id = chat.turns()[0].id
    assert any(f"run={run_id}" in str(p.proto) for p in app.get("page_link"))

    fresh = started(monkeypatch, demo.env)  # a reload: a new session, nothing in session state
    fresh.query_params["thread"] = chat.thread_id
    opened(fresh, "ask")
    assert [t.question for t in fresh.session_state["conversation"].turns()] == ["How does Scrooge treat his clerk?"]
    assert "mode: DRIFT" in shown_text(fresh)

    reloaded = started(monkeypatch, demo.env)
    reloaded.query_params["run"] = run_id
    opened(reloaded, "drift_trace")
    assert "No DRIFT run yet" not in shown_text(reloaded)
    pick = reloaded.selectbox(key="drift_pick")
    assert pick.value == 0 and "How does Scrooge treat his clerk?" in pick.format_func(pick.value)
    assert any("primer" in s for s in reloaded.selectbox(key="drift_step_0").options)


def test_an_unknown_run_in_the_url_is_one_message(app: AppTest) -> None:
    app.query_params["run"] = "![x](http://203.0.113.9/a.png)"
    opened(app, "drift_trace")
    warning = next(w.value for w in app.warning if "No DRIFT run" in w.value)
    assert "!\\[x\\]" in warning  # shown as typed, never as an image
    assert "No DRIFT run yet" in shown_text(app)


def test_every_answer_shows_its_confidence_and_the_toggle_shows_its_parts(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Marley?")
    answer = app.session_state["conversation"].turns()[0].answers[0]
    assert answer.confidence is not None
    assert f"-badge[confidence {answer.confidence.score:.0%}]" in shown_text(app)
    assert "support by the cited passages: **" not in shown_text(app)
    assert any("quote match" in e.label for e in app.expander)  # each citation says how well the shown quote matched
    app.toggle(key="show_confidence").set_value(True).run()
    for part in (LABELS["support"], LABELS["coverage"], "similarity of the"):
        assert f"- {part}" in shown_text(app), part
    opened(app, "home")
    opened(app, "ask")
    assert app.toggle(key="show_confidence").value  # remembered for the session
    assert f"- {LABELS['coverage']}: **" in shown_text(app)


def test_a_weak_answer_states_its_limitation(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Did the clerk own a violin factory in Peru?")
    answer = app.session_state["conversation"].turns()[0].answers[0]
    assert answer.confidence is not None and answer.confidence.score < 0.7
    assert [w.value for w in app.warning] == [answer.confidence.limitation]


def test_asking_the_same_question_twice_keeps_both_turns_and_their_exports(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Marley?")
    asked(app, "Who was Marley?")
    turns = app.session_state["conversation"].turns()
    assert len(turns) == 2
    keys = {d.proto.id for d in app.get("download_button")}
    assert len(keys) == len(app.get("download_button")) == 2 * 2 + 2  # two per answer, two for the conversation
    labels = [d.proto.label for d in app.get("download_button")]
    assert labels.count("Export Markdown") == 2 and "Export conversation (Markdown)" in labels


def test_knobs_say_which_modes_they_affect_and_the_answer_shows_their_effect(app: AppTest) -> None:
    opened(app, "ask")
    assert "Affects: Local, DRIFT" in app.slider(key="tune_top_k").help
    assert not app.slider(key="tune_top_k").proto.disabled
    asked(app, "Who was Marley?")
    effect = next(c.value for c in app.caption if c.value.startswith("Knobs' effect:"))
    assert "evidence items" in effect and "entities expanded" in effect
    app.slider(key="tune_max_nodes").set_value(10).run()
    asked(app, "Who was Marley?")
    moved = [c.value for c in app.caption if c.value.startswith("Since the previous local answer:")]
    assert moved and "max nodes 100 → 10" in moved[0]

    app.selectbox(key="mode").set_value("global").run()
    for key in ("tune_top_k", "tune_alpha", "tune_max_hops", "tune_max_nodes", "tune_drift_rounds"):
        assert app.slider(key=key).proto.disabled, key
    app.selectbox(key="mode").set_value("drift").run()
    assert not app.slider(key="tune_drift_rounds").proto.disabled


def test_agent_mode_without_a_model_says_so_when_chosen_and_offers_the_modes_that_work(app: AppTest) -> None:
    app.selectbox(key="mode").set_value("agent").run()
    assert any("Agent mode needs a language model" in w.value for w in app.sidebar.warning)
    assert {"use_local", "use_global", "use_drift"} <= {b.key for b in app.sidebar.button}
    opened(app, "ask")
    asked(app, "Who was Marley?")
    facts = app.session_state["conversation"].turns()[0].answers[0].key_facts
    assert facts and all(f.fact.rstrip("\"'").endswith((".", "!", "?")) for f in facts), facts  # no text cut mid-word
    app.button(key="use_local").click().run()
    assert app.selectbox(key="mode").value == "local"
    assert not any("Agent mode needs" in w.value for w in app.sidebar.warning)


def test_compare_marks_the_citations_the_modes_share(app: AppTest) -> None:
    opened(app, "ask")
    app.toggle(key="ask_compare").set_value(True).run()
    asked(app, "Who was Marley?")
    answers = app.session_state["conversation"].turns()[0].answers
    cited = {a.mode: {c.chunk_id for c in a.citations()} for a in answers}
    assert cited["local"] & cited["drift"], "the demo question is one both modes answer from the same chunks"
    shared = [e.label.split("also cited by ", 1)[1].split(", ") for e in app.expander if "also cited by" in e.label]
    assert any("DRIFT" in modes for modes in shared)  # global may share the chunk too, since it cites passages
    assert any("Local" in modes for modes in shared)


def test_with_a_model_the_follow_up_rewrite_is_shown_and_compare_includes_agent(
    demo: DemoGraph, monkeypatch: pytest.MonkeyPatch, scripted_openai: ScriptedOpenAI
) -> None:
    def route(request: dict[str, Any]) -> Step:
        system = request["messages"][0]["content"]
        if system == REWRITE_PROMPT:
            return reply("What did Marley wear?")
        return json_reply({"answer": "Marley was Scrooge's partner.", "confidence": 0.9, "key_facts": []})

    scripted_openai.script(router=route)
    llm = {"OPENAI_BASE_URL": scripted_openai.base_url, "OPENAI_API_KEY": "sk-apptest", "RETRY_MAX_ATTEMPTS": "1"}
    app = started(monkeypatch, {**demo.env, **llm, "DRIFTLENS_USER": "model-user"})
    opened(app, "ask")
    assert "Agent" in app.toggle(key="ask_compare").label
    asked(app, "Who was Marley?")
    asked(app, "What did he wear?")
    assert any(c.value == "Rewritten by the model as: What did Marley wear\\?" for c in app.caption)
    rewrites = [r for r in scripted_openai.chat_requests() if r.json["messages"][0]["content"] == REWRITE_PROMPT]
    assert len(rewrites) == 1 and rewrites[0].json["messages"][-1]["content"] == "What did he wear?"
    assert app.session_state["conversation"].user == "model-user"


# --- DRIFT trace ----------------------------------------------------------------------------
def test_drift_trace_runs_and_lists_steps(app: AppTest) -> None:
    opened(app, "drift_trace")
    assert "No DRIFT run yet" in shown_text(app)
    app.text_input(key="drift_question").set_value("How does Scrooge treat his clerk?")
    app.button[0].click().run()
    assert not app.exception
    steps = app.selectbox(key="drift_step_0").options
    assert any("primer" in s for s in steps) and any("followup" in s for s in steps)
    assert "Target communities" in shown_text(app)
    tree = _nodes(_figure(app, "drift_tree_0"))
    assert set(tree) == {s.id for s in app.session_state["drift_runs"][0]["answer"].trace if s.question}
    assert tree["primer"]["ring"] == SELECTED_RING and all(n["text"] for n in tree.values())
    followup = next(i for i in tree if i.startswith("f"))
    app.selectbox(key="drift_step_0").set_value(followup).run()
    assert _nodes(_figure(app, "drift_tree_0"))[followup]["ring"] == SELECTED_RING
    communities = _figure(app, "drift_communities_0")
    assert "touched" in [t.get("name") for t in communities["data"]]
    assert len(app.get("plotly_chart")) == 4  # tree, sunburst, community network, phase timeline


# --- Graph explorer -------------------------------------------------------------------------
def test_explorer_neighbourhood_respects_the_cap(app: AppTest) -> None:
    opened(app, "graph_explorer")
    app.text_input(key="ex_query").set_value("Scrooge").run()
    assert not app.exception
    assert app.session_state["ex_seeds"] == [app.selectbox(key="ex_pick").value]
    app.slider(key="ex_cap").set_value(10).run()
    caption = next(c.value for c in app.caption if "relations" in c.value)
    # the first view takes half the cap, strongest neighbours first: room for clicks to add theirs
    assert caption.startswith("5 nodes") and "more within reach" in caption and "reached" not in caption
    assert len(_nodes(_figure(app, "ex_graph"))) == 5
    assert any("Scrooge" in m.value for m in app.markdown)  # the side panel shows the picked entity


def test_explorer_graph_has_a_legend_and_find_in_graph_selects_a_node(app: AppTest) -> None:
    opened(app, "graph_explorer")
    app.text_input(key="ex_query").set_value("Scrooge").run()
    figure = _figure(app, "ex_graph")
    legend = [t["name"] for t in figure["data"] if t.get("showlegend") is not False and t.get("name")]
    assert "person" in legend and len(legend) == len(set(legend)) >= 2
    nodes = _nodes(figure)
    seed = app.session_state["ex_seeds"][0]
    assert nodes[seed]["ring"] == SELECTED_RING and nodes[seed]["text"]
    labelled = sum(1 for n in nodes.values() if n["text"])
    assert f"Names shown for {labelled} of {len(nodes)} nodes" in shown_text(app)

    target = next(i for i in nodes if i != seed)
    app.selectbox(key="ex_find").set_value(target).run()
    assert not app.exception
    assert app.session_state["ex_selected"] == target and app.selectbox(key="ex_find").value is None
    found = _nodes(_figure(app, "ex_graph"))
    assert found[target]["ring"] == SELECTED_RING and found[target]["text"], "the found node is ringed and named"
    assert app.session_state["ex_seeds"] == [seed], "finding selects without expanding"


def test_explorer_community_network_beside_the_hierarchy(app: AppTest) -> None:
    opened(app, "graph_explorer")
    communities = _nodes(_figure(app, "ex_communities"))
    listed = app.selectbox(key="ex_community").options
    assert len(communities) == len(listed) > 0
    assert sum(1 for n in communities.values() if n["ring"] == SELECTED_RING) == 1


def test_explorer_cypher_box_is_read_only(app: AppTest) -> None:
    opened(app, "graph_explorer")
    app.text_area(key="ex_cypher").set_value("CREATE (n:Intruder {id: 'x'}) RETURN n")
    app.button(key="ex_run").click().run()
    assert any("only read queries" in e.value for e in app.error)
    app.text_area(key="ex_cypher").set_value("MATCH (e:__Entity__) RETURN e.title AS title LIMIT 3")
    app.button(key="ex_run").click().run()
    assert len(app.dataframe[-1].value) == 3


# --- Memory and Index -----------------------------------------------------------------------
def test_memory_delete_asks_first_takes_the_whole_turn_and_invalidate_is_the_primary_action(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Bob Cratchit?")
    opened(app, "memory")
    app.selectbox(key="mem_application_id").set_value("driftlens").run()
    before = len(app.dataframe[0].value)
    app.session_state["mem_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    app.run()
    assert app.button(key="mem_invalidate").proto.type == "primary"
    assert app.button(key="mem_delete").proto.type == "secondary"
    app.button(key="mem_delete").click().run()
    assert len(app.dataframe[0].value) == before, "nothing is deleted before it is confirmed"
    [warning] = [w.value for w in app.warning]
    assert "Delete 2 memories" in warning and "1 more stored with them: a turn's question" in warning
    assert "cannot be undone" in warning
    app.button(key="mem_delete_confirm").click().run()
    assert not app.exception
    assert app.session_state["conversation"].turns() == []  # the answer picked and its question: the whole turn


def test_memory_page_lists_the_conversations(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Marley?")
    thread = app.session_state["conversation"].thread_id
    opened(app, "memory")
    links = [str(p.proto) for p in app.get("page_link")]
    assert any(f"thread={thread}" in link and "Who was Marley" in link for link in links), links


def test_invalidating_a_turn_on_the_memory_page_changes_the_next_follow_up(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "Who was Marley?")
    thread = app.session_state["conversation"].thread_id
    opened(app, "memory")
    app.selectbox(key="mem_thread_id").set_value(thread).run()
    question = next(i for i, role in enumerate(app.dataframe[0].value["role"]) if role == "user")
    app.session_state["mem_table"] = {"selection": {"rows": [question], "columns": [], "cells": []}}
    app.run()
    app.text_input(key="mem_reason").set_value("wrong character")
    app.button(key="mem_invalidate").click().run()
    assert not app.exception

    opened(app, "ask")
    assert any(c.value.startswith("Invalidated on the Memory page") for c in app.caption)
    asked(app, "What did he wear?")
    turn = app.session_state["conversation"].turns()[-1]
    assert turn.meta.context_terms == [] and turn.meta.searched_as == "What did he wear?"
    assert not any(c.value.startswith(("Searched with words", "Follow-up read as")) for c in app.caption)


def test_memory_page_lists_scoped_memories(app: AppTest) -> None:
    opened(app, "memory")
    app.selectbox(key="mem_application_id").set_value("driftlens-tests").run()
    assert "Scope: application_id=driftlens-tests" in shown_text(app)
    assert len(app.dataframe[0].value) == 3
    app.text_input(key="mem_query").set_value("business partner").run()
    assert app.dataframe[0].value.iloc[0]["text"].startswith("Marley was")


def test_index_page_indexes_a_folder_into_a_new_project(app: AppTest, demo: DemoGraph, tmp_path: Path) -> None:
    opened(app, "index")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("Not for the app: outside the index roots.\n")
    app.text_input(key="index_project").set_value("notes")
    app.text_input(key="index_folder").set_value(str(outside))
    app.button(key="index_run").click().run()
    assert any("outside the folders you can index from" in e.value for e in app.error)
    assert not app.success

    folder = demo.data_dir / "notes"  # inside the data dir, one of the default index roots
    folder.mkdir(exist_ok=True)
    (folder / "note.txt").write_text("Ada Lovelace wrote about the Analytical Engine of Charles Babbage.\n" * 3)
    app.text_input(key="index_folder").set_value(str(folder))
    app.button(key="index_run").click().run()
    assert not app.exception
    assert any("1 added" in s.value for s in app.success)
    assert "notes" in app.selectbox(key="project").options


def test_labels_from_an_answer_feed_the_tuning_grid_and_its_best_setting_applies(app: AppTest) -> None:
    opened(app, "ask")
    app.chat_input[0].set_value("Who was Marley?").run()
    assert not app.exception, app.exception
    thumbs = [f for f in app.feedback if f.key and "-thumb-" in f.key]
    assert len(thumbs) >= 2
    thumbs[0].set_value(1)
    thumbs[1].set_value(0)
    app.text_input(key=thumbs[0].key.split("-thumb-")[0] + "-set").set_value("carol-labels")
    app.button(key=thumbs[0].key.split("-thumb-")[0] + "-save").click().run()
    assert "Saved 2 labels (1 relevant) to 'carol-labels'" in shown_text(app)
    opened(app, "tuning")
    assert app.selectbox(key="tune_set").value == "carol-labels"
    app.multiselect(key="tune_grid_alpha").set_value([0.2, 0.8])
    app.multiselect(key="tune_grid_max_hops").set_value([0, 1])
    app.multiselect(key="tune_grid_top_k").set_value([5])
    app.button(key="tune_run").click().run()
    assert not app.exception, app.exception
    text = shown_text(app)
    assert "Best on the train part" in text and not app.error
    table = app.dataframe[0].value  # the settings table (the per-question one follows)
    assert len(table) == 5 and set(table["recall"]) <= {0.0, 1.0}  # 4 settings + current; one question
    best = table[table["best"]].iloc[0]
    app.button(key="tune_apply").click().run()
    assert app.slider(key="tune_alpha").value == best["alpha"]
    assert app.slider(key="tune_max_hops").value == best["max_hops"]
    assert app.slider(key="tune_top_k").value == best["top_k"]

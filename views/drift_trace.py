"""DRIFT trace: the reasoning tree of a DRIFT run (live while it runs), each step's evidence,
the communities it touched in the hierarchy, and a timeline of its phases."""

from __future__ import annotations

from functools import partial

import streamlit as st

from components import answer as answer_view
from components import charts, conversation, graph_view, live, session, status, trace_tree
from components.layout import Canvas
from components.untrusted import inert, plain
from retrieval.conversation.thread import find_run
from retrieval.errors import DriftLensError
from retrieval.models import TraceStep
from retrieval.search import explore
from retrieval.telemetry.events import ProgressEvent

COMMUNITY_CANVAS = Canvas(560, 440)
ctx = session.context()
st.title("DRIFT trace")
if status.empty_graph(st.session_state["health"]):
    st.stop()

with st.form("drift_form", border=False):
    question = st.text_input("Question", key="drift_question", placeholder="Ask a broad question to trace")
    submitted = st.form_submit_button("Run DRIFT")

if submitted and question.strip():
    live_tree = st.empty()
    steps: list[TraceStep] = []

    def grow(event: ProgressEvent) -> None:
        """Redraw the tree each time a step finishes."""
        if event.step:
            steps.append(TraceStep(**event.step))
            live_tree.plotly_chart(trace_tree.drawing(steps).figure, width="stretch")

    params, project = session.params(), session.project()
    chat = conversation.current()  # a run here is a turn of the open conversation, so `?run=` reopens it
    try:
        turn = chat.begin(question, ["drift"])
        result, events = live.run(
            lambda callback: chat.answer(turn, "drift", params, project=project, on_progress=callback),
            "DRIFT search",
            on_event=grow,
        )
    except DriftLensError as exc:
        session.show_error(exc)
    else:
        session.drift_runs().append({"answer": result, "events": events, "run_id": turn.id})
        st.query_params["run"] = turn.id
        if turn.unkept is None:
            st.rerun()
        session.show_error(turn.unkept)  # the run is shown below, but the thread does not hold it

runs = session.drift_runs()
wanted = st.query_params.get("run")
if wanted and all(r.get("run_id") != wanted for r in runs):  # a run kept with a thread, opened by URL
    try:
        found = find_run(session.engine(), wanted)
    except DriftLensError as exc:
        session.show_error(exc)
        found = None
    if found is None:
        st.warning(f"No DRIFT run “{plain(wanted)}” is kept for user {plain(session.settings().user)}.")
    else:
        runs.append({"answer": found[1], "events": [], "run_id": wanted, "thread_id": found[0]})
if not runs:
    st.info("No DRIFT run yet in this session: run one above, or ask in DRIFT mode on the Ask page.")
    st.stop()

newest = next((i for i, r in enumerate(runs) if wanted and r.get("run_id") == wanted), len(runs) - 1)
if st.session_state.get("drift_seen") != (len(runs), wanted):  # a new run (here, on Ask, by URL) is shown first
    st.session_state["drift_seen"] = (len(runs), wanted)
    st.session_state["drift_pick"] = newest
pick = st.selectbox(
    "Run",
    list(range(len(runs))),
    format_func=lambda i: f"#{i + 1}: {runs[i]['answer'].question}",
    key="drift_pick",
)
run = runs[pick]
if run.get("run_id"):
    st.query_params["run"] = run["run_id"]
answer = run["answer"]
trace = trace_tree.shown_steps(answer.trace)
step_key = f"drift_step_{pick}"


def _set(state_key: str, value: str) -> None:
    """A click on the tree (or the hierarchy) picks what the widget beside it shows."""
    st.session_state[state_key] = value


tree_col, step_col = st.columns([3, 2])
with step_col:
    chosen = st.selectbox(
        "Step",
        [s.id for s in trace],
        format_func=lambda i: next(f"{s.kind} r{s.round}: {trace_tree.step_label(s, 60)}" for s in trace if s.id == i),
        key=step_key,
    )
    step = next((s for s in trace if s.id == chosen), None)
    if step is not None:
        st.markdown(f"**Question** {inert(step.question)}")
        st.markdown(f"**Answer** {inert(step.answer) or '—'}")
        st.caption(f"confidence {step.confidence:.2f}" if step.confidence is not None else "no confidence reported")
        st.caption(f"{step.duration_ms:.0f} ms · round {step.round}")
        tree_titles = {c.id: c.title for c in explore.community_tree(ctx)}
        if step.communities:
            st.markdown("**Target communities**")
            st.markdown("\n".join(f"- {inert(tree_titles.get(c, c))}" for c in step.communities))
        chunks = explore.chunks(ctx, step.chunk_ids)
        st.markdown(f"**Evidence** ({len(step.chunk_ids)} chunks)")
        for chunk_id in step.chunk_ids[:8]:
            hit = chunks.get(chunk_id)
            with st.expander(f"{inert(hit.document_name or '') if hit else ''} · {chunk_id.rsplit(':', 1)[-1]}"):
                st.markdown(inert(hit.text if hit else chunk_id))
with tree_col:
    st.caption("Click a step to read it · hover for its question in full")
    graph_view.show(
        trace_tree.drawing(trace, selected=chosen), key=f"drift_tree_{pick}", on_pick=partial(_set, step_key)
    )

with st.expander("Final answer", expanded=False):
    answer_view.render(answer, ctx, key=f"drift-{pick}")

st.subheader("Communities touched")
tree = explore.community_tree(ctx)
touched = {c for s in answer.trace for c in s.communities}
st.caption(f"{len(touched)} of {len(tree)} communities (orange)")
if tree:
    sunburst_col, network_col = st.columns(2)
    sunburst_col.plotly_chart(charts.community_hierarchy(tree, touched=touched, kind="sunburst"), width="stretch")
    community_key = f"drift_community_{pick}"
    with network_col:
        picked = st.session_state.get(community_key)
        graph_view.show(
            charts.community_network(tree, COMMUNITY_CANVAS, touched=touched, selected=picked),
            key=f"drift_communities_{pick}",
            on_pick=partial(_set, community_key),
        )
        community = next((c for c in tree if c.id == picked), None)
        if community is None:
            st.caption("Click a community to see which steps targeted it.")
        else:
            targeted = [s for s in trace if community.id in s.communities]
            st.markdown(f"**{inert(community.title)}** · level {community.level} · {community.size} members")
            st.caption(
                "targeted by: " + ", ".join(f"{s.kind} r{s.round}" for s in targeted) if targeted else "not targeted"
            )
st.subheader("Phases")
if run["events"]:
    st.plotly_chart(charts.phase_timeline(run["events"]), width="stretch")
else:
    st.plotly_chart(charts.phase_durations({k: v.wall_ms for k, v in answer.usage.phases.items()}), width="stretch")

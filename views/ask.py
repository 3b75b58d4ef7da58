"""Ask: a conversation with the graph in the sidebar's mode (or several modes side by side), kept as a thread."""

from __future__ import annotations

import csv
from pathlib import Path

import streamlit as st

from components import answer as answer_view
from components import conversation, live, session, status
from components.export import mode_name
from components.untrusted import plain
from retrieval.conversation.question_kind import fitting_mode
from retrieval.conversation.thread import Conversation, Turn
from retrieval.errors import DriftLensError
from retrieval.models import Answer, Mode

SUGGESTIONS = Path(__file__).resolve().parent.parent / "data" / "demo" / "behind-the-tech" / "global_questions.csv"
COMPARE: tuple[Mode, ...] = ("local", "global", "drift")
N_SUGGESTIONS = 4


@st.cache_data(show_spinner=False)
def suggestions(path: Path = SUGGESTIONS, n: int = N_SUGGESTIONS) -> list[str]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return [row["question_text"].strip() for row in csv.DictReader(handle) if row.get("question_text")][:n]


def ask(chat: Conversation, turn: Turn, mode: Mode, shown: live.Shown) -> Answer | None:
    """One mode's answer to the turn with live progress in its status box (drawn before the turn was saved);
    a product error becomes one message and no answer."""
    params, project = session.params(), session.project()
    try:
        result, events = live.run(
            lambda callback: chat.answer(turn, mode, params, project=project, on_progress=callback),
            shown.label,
            shown=shown,
        )
    except DriftLensError as exc:
        session.show_error(exc)
        return None
    if mode == "drift":
        session.drift_runs().append({"answer": result, "events": events, "run_id": turn.id})
    return result


st.title("Ask")
if status.empty_graph(st.session_state["health"]):
    st.stop()
engine = session.engine()
if engine.llm is None:
    st.caption("No LLM configured: answers are extractive (ranked evidence sentences with citations).")
compare_modes = (*COMPARE, "agent") if engine.llm is not None else COMPARE
compare = st.toggle(f"Compare modes ({', '.join(mode_name(m) for m in compare_modes)} side by side)", key="ask_compare")
# The thread is drawn into this slot later: a submitted question's status boxes go on screen before the graph
# is read (the thread, its history, saving the question), so its progress shows at once.
thread = st.container()
typed = st.chat_input("Ask the graph…")
pending, pending_mode = st.session_state.pop("ask_pending", None), st.session_state.pop("ask_pending_mode", None)
question = typed or pending
# A suggested question runs in the mode that fits it (a corpus-wide one in global), not the sidebar's.
suggested: tuple[Mode, ...] = (pending_mode,) if pending_mode and not typed else ()
modes = compare_modes if compare else suggested or (session.mode(),)
if question:
    asked = st.empty()
    with asked.container(), st.chat_message("user"):
        st.markdown(plain(question))
    with st.chat_message("assistant"):
        columns = st.columns(len(modes)) if len(modes) > 1 else [st.container()]
        boxes = []
        for column, mode in zip(columns, modes, strict=True):
            with column:
                boxes.append((live.show(f"{mode_name(mode)} search"), st.container()))

with thread:
    chat = conversation.current()
    try:
        conversation.sidebar(chat)
        turns = chat.turns()
    except DriftLensError as exc:  # the thread cannot be read: say so, and still let a question be asked
        session.show_error(exc)
        turns = []
    if turns:
        st.query_params["thread"] = chat.thread_id
    previous = conversation.show(turns)
    conversation.downloads(turns, chat.thread_id)
    if not turns and not question:
        st.markdown("**Try one of these**")
        for i, text in enumerate(suggestions()):
            fits = fitting_mode(text)
            if st.button(text, key=f"suggest-{i}", help=f"Runs in {mode_name(fits)} mode, the one that fits it."):
                st.session_state["ask_pending"] = text
                st.session_state["ask_pending_mode"] = fits
                st.rerun()

if question:
    try:
        turn = chat.begin(question, modes)
    except DriftLensError as exc:
        asked.empty()
        for shown, _ in boxes:
            shown.box.update(label=f"{shown.label}: not started", state="error", expanded=False)
        session.show_error(exc)
        st.stop()
    with asked.container():
        conversation.question(turn, scroll=True)
    failed = False
    for mode, (shown, below) in zip(modes, boxes, strict=True):
        with below:
            result = ask(chat, turn, mode, shown)
            failed = failed or result is None
            if result is not None:
                answer_view.render(
                    result,
                    session.context(),
                    key=f"t{turn.id}-{mode}",
                    show_graph=True,
                    previous=previous.get(mode),
                    beside=len(modes) > 1,
                )
    if turn.unkept is not None:  # the answers stay on screen with why the thread does not hold them
        session.show_error(turn.unkept)
    elif turn.kept:
        st.query_params["thread"] = chat.thread_id
        if not failed:  # a failed mode's message stays on screen until the next question
            st.rerun()  # redraw the thread from the store: shared citations marked, the new turn in the list

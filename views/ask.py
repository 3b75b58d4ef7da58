"""Ask: a conversation with the graph in the sidebar's mode (or several modes side by side), kept as a thread."""

from __future__ import annotations

import csv
from pathlib import Path

import streamlit as st

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
# The earlier turns are drawn into `thread` after a submitted question is answered: its status boxes go on screen
# before the graph is read, and the time to its answer does not grow with the conversation above it. The newest
# turn is always in `latest`, laid out the same while it is answered and after, so its widgets keep their state.
thread, latest = st.container(), st.container()
typed = st.chat_input("Ask the graph…")
pending, pending_mode = st.session_state.pop("ask_pending", None), st.session_state.pop("ask_pending_mode", None)
question = typed or pending
# A suggested question runs in the mode that fits it (a corpus-wide one in global), not the sidebar's.
suggested: tuple[Mode, ...] = (pending_mode,) if pending_mode and not typed else ()
modes = compare_modes if compare else suggested or (session.mode(),)
if question:
    with latest:
        asked = conversation.question_slot()
        with asked.container(), st.chat_message("user"):
            st.markdown(plain(question))
        boxes = []
        for mode, (status, below) in zip(modes, conversation.answer_slots(len(modes)), strict=True):
            with status.container():
                boxes.append((live.show(f"{mode_name(mode)} search"), below))

chat = conversation.current()
try:
    turns = chat.turns()
except DriftLensError as exc:  # the thread cannot be read: say so, and still let a question be asked
    with thread:
        session.show_error(exc)
    turns = []

turn: Turn | None = None
if question:
    try:
        turn = chat.begin(question, modes)
    except DriftLensError as exc:  # nothing asked: the message, and the thread as it was
        asked.empty()
        for shown, _ in boxes:
            shown.box.update(label=f"{shown.label}: not started", state="error", expanded=False)
        session.show_error(exc)
answered: list[Turn] = []
if turn is not None:
    with asked.container():
        conversation.question(turn, scroll=True)
    previous = conversation.latest_answers(turns)
    failed = False
    for mode, (shown, below) in zip(modes, boxes, strict=True):
        with below:
            result = ask(chat, turn, mode, shown)
            failed = failed or result is None
            if result is not None:
                beside = len(modes) > 1
                conversation.answer(turn, result, session.context(), graph=True, previous=previous, beside=beside)
    if turn.unkept is not None:  # the answers stay on screen with why the thread does not hold them
        session.show_error(turn.unkept)
    elif turn.kept:
        answered = [turn]
        st.query_params["thread"] = chat.thread_id
        if len(modes) > 1 and not failed:  # which passages the modes share is known once all have answered
            st.rerun()

with thread:
    conversation.show(turns if question else turns[:-1])
    if not turns and not question:
        st.markdown("**Try one of these**")
        for i, text in enumerate(suggestions()):
            fits = fitting_mode(text)
            if st.button(text, key=f"suggest-{i}", help=f"Runs in {mode_name(fits)} mode, the one that fits it."):
                st.session_state["ask_pending"] = text
                st.session_state["ask_pending_mode"] = fits
                st.rerun()
if turns and not question:
    with latest:
        conversation.newest(turns[-1], conversation.latest_answers(turns[:-1]))
try:
    conversation.sidebar(chat)  # after the answer: a new thread is in the list
except DriftLensError as exc:
    session.show_error(exc)
if turns:
    st.query_params["thread"] = chat.thread_id
conversation.downloads([*turns, *answered], chat.thread_id)

"""Ask: chat with the graph in the sidebar's mode (or compare local, global and DRIFT side by side)."""

from __future__ import annotations

import csv
from pathlib import Path

import streamlit as st

from components import answer as answer_view
from components import live, session, status
from components.export import mode_name
from components.untrusted import plain
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


def ask(question: str, mode: Mode) -> tuple[Answer | None, list]:
    """One answer with live progress; a product error becomes one message and no answer."""
    engine, params, project = session.engine(), session.params(), session.project()
    try:
        return live.run(
            lambda callback: engine.ask(question, mode, params, project=project, on_progress=callback),
            f"{mode_name(mode)} search",
        )
    except DriftLensError as exc:
        session.show_error(exc)
        return None, []


def show_turn(turn: dict, index: int, latest: bool) -> None:
    ctx = session.context()
    with st.chat_message("user"):
        st.markdown(plain(turn["question"]))
    with st.chat_message("assistant"):
        answers: list[Answer] = turn["answers"]
        columns = st.columns(len(answers)) if len(answers) > 1 else [st.container()]
        for column, result in zip(columns, answers, strict=True):
            with column:
                answer_view.render(result, ctx, key=f"turn{index}-{result.mode}", show_graph=latest)


ctx = session.context()
st.title("Ask")
if status.empty_graph(st.session_state["health"]):
    st.stop()
if session.engine().llm is None:
    st.caption("No LLM configured: answers are extractive (ranked evidence sentences with citations).")
history: list[dict] = st.session_state.setdefault("chat", [])
compare = st.toggle("Compare modes (local, global and DRIFT side by side)", key="ask_compare")

for i, turn in enumerate(history):
    show_turn(turn, i, latest=i == len(history) - 1)

suggested = st.empty()
if not history:
    with suggested.container():
        st.markdown("**Try one of these**")
        for i, text in enumerate(suggestions()):
            if st.button(text, key=f"suggest-{i}"):
                st.session_state["ask_pending"] = text
                st.rerun()

question = st.chat_input("Ask the graph…") or st.session_state.pop("ask_pending", None)
if question:
    suggested.empty()
    modes = COMPARE if compare else (session.mode(),)
    with st.chat_message("user"):
        st.markdown(plain(question))
    with st.chat_message("assistant"):
        columns = st.columns(len(modes)) if len(modes) > 1 else [st.container()]
        answers: list[Answer] = []
        for column, mode in zip(columns, modes, strict=True):
            with column:
                result, events = ask(question, mode)
                if result is not None:
                    answer_view.render(result, ctx, key=f"turn{len(history)}-{mode}", show_graph=True)
                    answers.append(result)
                    if mode == "drift":
                        session.drift_runs().append({"answer": result, "events": events})
    if answers:
        history.append({"question": question, "answers": answers})

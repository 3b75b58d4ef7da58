"""The Ask page's conversation: which thread is open, the sidebar's thread list, turns as chat messages.

Why the thread is in the URL: `?thread=<id>` reopens a stored conversation after a reload or in another
tab, and can be shared; the session keeps the open thread while the reader visits other pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components import answer as answer_view
from components import export, session
from components.untrusted import inert, plain
from retrieval.context import Context
from retrieval.conversation.thread import Conversation, Turn, dumps_turns, threads
from retrieval.models import Answer, Mode

#: Past threads listed in the sidebar.
SIDEBAR_THREADS = 8
TITLE_CHARS = 48


def current() -> Conversation:
    """The open conversation: the URL's `?thread=` when given, else the session's, else a new one."""
    engine = session.engine()
    wanted = st.query_params.get("thread")
    open_now: Conversation | None = st.session_state.get("conversation")
    if open_now is None or open_now.engine is not engine or (wanted and wanted != open_now.thread_id):
        open_now = Conversation(engine, thread_id=wanted or None)
        st.session_state["conversation"] = open_now
    return open_now


def _open(thread_id: str | None) -> None:
    """Widget callback: switch to a thread (None: a new one) and put it in the URL."""
    st.session_state["conversation"] = Conversation(session.engine(), thread_id=thread_id)
    if thread_id:
        st.query_params["thread"] = thread_id
    else:
        st.query_params.pop("thread", None)


def sidebar(open_now: Conversation) -> None:
    """ "New conversation" and the user's past threads, the open one highlighted."""
    sb = st.sidebar
    sb.markdown("**Conversations**")
    sb.button("New conversation", key="conv_new", on_click=_open, args=(None,), width="stretch")
    for thread in threads(session.engine(), limit=SIDEBAR_THREADS):
        title = thread.title if len(thread.title) <= TITLE_CHARS else thread.title[: TITLE_CHARS - 1] + "…"
        sb.button(
            f"{plain(title)} ({thread.turns})",
            key=f"conv_open_{thread.thread_id}",
            on_click=_open,
            args=(thread.thread_id,),
            type="primary" if thread.thread_id == open_now.thread_id else "secondary",
            width="stretch",
        )


def shared_citations(answers: Sequence[Answer]) -> dict[str, dict[str, str]]:
    """Per mode, the chunk ids it cites that other modes of the same turn cite too, with those modes' names."""
    cited = {a.mode: {c.chunk_id for c in a.citations()} for a in answers}
    return {
        a.mode: {
            chunk: ", ".join(export.mode_name(m) for m, ids in cited.items() if m != a.mode and chunk in ids)
            for chunk in cited[a.mode]
            if any(m != a.mode and chunk in ids for m, ids in cited.items())
        }
        for a in answers
    }


def question(turn: Turn, *, scroll: bool = False) -> None:
    """The question as typed (never Markdown), how it was searched, and what was recalled from earlier."""
    with st.chat_message("user"):
        st.markdown(plain(turn.question) if turn.question else "*(question deleted)*")
        if not turn.valid:
            st.caption("Invalidated on the Memory page: later answers no longer use this turn.")
        meta = turn.meta
        if meta.searched_as and meta.searched_as != turn.question:
            how = (
                "Searched with words from earlier turns"
                if not meta.rewritten
                else "Follow-up read as"  # offline: its referring words replaced by the entities they stand for
                if meta.context_terms
                else "Rewritten by the model as"
            )
            st.caption(f"{how}: {plain(meta.searched_as)}")
        if meta.earlier:
            with st.expander(f"From earlier ({len(meta.earlier)})"):
                for i, memory in enumerate(meta.earlier, start=1):
                    score = f" · similarity {memory.score:.2f}" if memory.score is not None else ""
                    st.markdown(f"**[E{i}]** {memory.role} · {memory.timestamp[:16]}{score}")
                    st.markdown(inert(memory.text))
        if scroll:  # the new turn comes into view even when the reader had scrolled up (last: see `answer_slots`)
            st.html(
                f'<div id="turn-{turn.id}"></div><script>'
                f"(() => {{ const at = document.getElementById('turn-{turn.id}');"
                "(at.closest('[data-testid=\"stChatMessage\"]') || at).scrollIntoView({block: 'start'}); })();"
                "</script>",
                unsafe_allow_javascript=True,
            )


def answers(turn: Turn, places: Sequence[DeltaGenerator], *, previous: Mapping[Mode, Answer], graph: bool) -> None:
    """A turn's answers, each in its place (compare: columns side by side); evidence graphs only with `graph`."""
    ctx, shared = session.context(), shared_citations(turn.answers)
    beside = len(turn.answers) > 1
    for place, result in zip(places, turn.answers, strict=False):
        with place:
            answer(turn, result, ctx, graph=graph, shared=shared.get(result.mode), previous=previous, beside=beside)


def answer(
    turn: Turn,
    result: Answer,
    ctx: Context,
    *,
    graph: bool,
    previous: Mapping[Mode, Answer],
    beside: bool,
    shared: Mapping[str, str] | None = None,
) -> None:
    """One mode's answer in its turn, as it is made or read back: keys come from the turn, never from its content."""
    answer_view.render(
        result,
        ctx,
        key=f"t{turn.id}-{result.mode}",
        show_graph=graph,
        shared=shared,
        previous=previous.get(result.mode),
        beside=beside,
    )
    if result.mode == "drift" and turn.timestamp:  # stored: the trace page can reopen it by URL
        st.page_link("views/drift_trace.py", label="Open this run in DRIFT trace", query_params={"run": turn.id})


def latest_answers(turns: Sequence[Turn]) -> dict[Mode, Answer]:
    """Each mode's latest answer in the thread: what the next answer's knobs are compared with."""
    return {a.mode: a for turn in turns for a in turn.answers}


def show(turns: Sequence[Turn]) -> None:
    """The stored turns before the newest (which `newest` draws, with its evidence graph)."""
    previous: dict[Mode, Answer] = {}
    for turn in turns:
        question(turn)
        with st.chat_message("assistant"):
            if turn.damaged:  # the reason is the app's own text, not untrusted
                st.warning(f"This turn is damaged: {turn.damaged}. Later answers no longer use it.")
            if turn.answers:
                answers(turn, _side_by_side(len(turn.answers)), previous=previous, graph=False)
        previous.update({a.mode: a for a in turn.answers})


def question_slot() -> DeltaGenerator:
    """Where the newest turn's question goes (see `answer_slots`)."""
    return st.empty()


def answer_slots(n: int) -> list[tuple[DeltaGenerator, DeltaGenerator]]:
    """The newest turn's assistant message: per answer, a slot for its search's status box and one for the answer.

    Why slots: the Ask page draws the newest turn in these while it is answered and again, read back, on every
    later run, with the same elements at the same places; so the rerun that the analyst's first click on the
    answer makes finds its widgets where they were, and an opened panel stays open.
    """
    with st.chat_message("assistant"):
        columns = _side_by_side(n)
        return [(column.empty(), column.container()) for column in columns]


def newest(turn: Turn, previous: Mapping[Mode, Answer]) -> None:
    """The newest stored turn, laid out as it was while it was being answered (`question_slot`, `answer_slots`)."""
    with question_slot().container():
        question(turn)
    slots = answer_slots(max(len(turn.answers), 1))
    if turn.damaged:  # the reason is the app's own text, not untrusted
        slots[0][0].warning(f"This turn is damaged: {turn.damaged}. Later answers no longer use it.")
    answers(turn, [below for _status, below in slots], previous=previous, graph=True)


def downloads(turns: Sequence[Turn], thread_id: str) -> None:
    """The whole conversation as Markdown and JSON."""
    if not turns:
        return
    stem = export.file_stem(turns[0].question, "conversation")
    left, right = st.columns(2)
    left.download_button(
        "Export conversation (Markdown)",
        export.conversation_markdown(turns),
        file_name=f"{stem}.md",
        mime="text/markdown",
        key=f"conv-{thread_id}-md",
    )
    right.download_button(
        "Export conversation (JSON)",
        dumps_turns(turns),
        file_name=f"{stem}.json",
        mime="application/json",
        key=f"conv-{thread_id}-json",
    )


def _side_by_side(n: int) -> list[DeltaGenerator]:
    """A column per answer when a turn compares modes; the whole width for one."""
    return list(st.columns(n)) if n > 1 else [st.container()]

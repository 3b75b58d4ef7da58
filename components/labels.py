"""Relevance labels on an answer's evidence: thumbs per chunk, saved into a named question set for the Tuning page."""

from __future__ import annotations

import re
from collections.abc import Sequence

import streamlit as st

from components import session
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.models import Answer, Hit
from retrieval.tuning.question_sets import Passage
from retrieval.tuning.set_store import Owner, QuestionSetStore

DEFAULT_SET = "my-questions"


def labelled_chunks(answer: Answer, texts: dict[str, Hit]) -> list[Hit]:
    """The cited chunks first, then the rest of the evidence: what an analyst can judge, each once."""
    cited = [texts[c.chunk_id] for c in answer.citations() if c.kind == "chunk" and c.chunk_id in texts]
    rest = [h for h in answer.evidence if h.kind == "chunk"]
    return list({h.id: h for h in [*cited, *rest] if h.text}.values())


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9]{4,}")
#: Characters of context shown on each side of the matched sentence.
CONTEXT_CHARS = 90


def preview(text: str, question: str, spans: Sequence[str] = ()) -> tuple[str, str, str]:
    """(before, sentence, after): the chunk's sentence that holds a cited span, else the one sharing most words
    with the question, with a little of the text around it; a preview cut at a fixed length missed it."""
    flat = " ".join(text.split())
    sentences = [s for s in _SENTENCE.split(flat) if s]
    if not sentences:
        return "", "", ""
    words = set(_WORD.findall(question.lower()))

    def score(sentence: str) -> tuple[int, int]:
        lowered = sentence.lower()
        return (
            sum(1 for span in spans if " ".join(span.split()).lower() in lowered),
            len(words & set(_WORD.findall(lowered))),
        )

    best = max(range(len(sentences)), key=lambda i: score(sentences[i]))
    before = " ".join(sentences[:best])
    after = " ".join(sentences[best + 1 :])
    before = (
        ("…" + before[-CONTEXT_CHARS:].lstrip() + " ")
        if len(before) > CONTEXT_CHARS
        else (before + " " if before else "")
    )
    after = (
        (" " + after[:CONTEXT_CHARS].rstrip() + "…") if len(after) > CONTEXT_CHARS else (" " + after if after else "")
    )
    return before, sentences[best], after


def panel(answer: Answer, texts: dict[str, Hit], key: str) -> None:
    chunks = labelled_chunks(answer, texts)
    if not chunks or not answer.question:
        return
    spans: dict[str, list[str]] = {}
    for citation in answer.citations():
        if citation.span:
            spans.setdefault(citation.chunk_id, []).append(citation.span)
    with st.expander("Label evidence for tuning"):
        st.caption("Thumbs up: this chunk answers the question. Saved sets are measured on the Tuning page.")
        for hit in chunks:
            left, right = st.columns([5, 1])
            before, matched, after = preview(hit.text, answer.question, spans.get(hit.id, ()))
            left.markdown(
                f"**{inert(hit.document_name or hit.id)}** — {inert(before)}**{inert(matched)}**{inert(after)}"
            )
            with right:
                st.feedback("thumbs", key=f"{key}-thumb-{hit.id}")
        name = st.text_input("Question set", value=DEFAULT_SET, key=f"{key}-set")
        if st.button("Save labels to the set", key=f"{key}-save"):
            save(answer.question, name, chunks, key)


def save(question: str, name: str, chunks: list[Hit], key: str) -> None:
    labels = [
        (Passage(hit.document_name or hit.document_id or hit.id, hit.text), bool(thumb))
        for hit in chunks
        if (thumb := st.session_state.get(f"{key}-thumb-{hit.id}")) is not None
    ]
    if not labels:
        st.warning("Mark at least one chunk with a thumb first.")
        return
    engine = session.engine()
    try:
        QuestionSetStore(engine.store).label(Owner(session.project(), engine.settings.user), name, question, labels)
    except DriftLensError as exc:
        session.show_error(exc)
        return
    relevant = sum(1 for _p, up in labels if up)
    st.success(f"Saved {len(labels)} labels ({relevant} relevant) to {name!r}.")

"""Render an Answer: label, text, key facts with expandable citations, evidence graph, usage, export."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

import pandas as pd
import streamlit as st

from components import export, graph_view, labels
from components.untrusted import inert
from retrieval.context import Context
from retrieval.judge.confidence import THRESHOLD
from retrieval.models import Answer, Citation, Hit
from retrieval.modes import knobs
from retrieval.search import explore


def highlight(text: str, span: str) -> str:
    """HTML of `text` with the first occurrence of `span` in <mark>; whitespace and case may differ."""
    words = span.split()
    match = None
    if words:
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(pattern, text) or re.search(pattern, text, flags=re.IGNORECASE)
    if match is None:
        return html.escape(text)
    return (
        html.escape(text[: match.start()])
        + "<mark>"
        + html.escape(text[match.start() : match.end()])
        + "</mark>"
        + html.escape(text[match.end() :])
    )


def chunk_texts(ctx: Context, answer: Answer) -> dict[str, Hit]:
    """Cited chunks' texts: from the answer's evidence, the rest from the graph."""
    have = {h.id: h for h in answer.evidence}
    missing = [c.chunk_id for c in answer.citations() if c.kind == "chunk" and c.chunk_id not in have]
    return {**have, **explore.chunks(ctx, missing)} if missing else have


def label(answer: Answer) -> None:
    colour = "blue" if answer.answered_by == "llm" else "gray"
    st.markdown(
        f":violet-badge[mode: {export.mode_name(answer.mode)}] "
        f":{colour}-badge[answered by: {export.answered_by(answer)}]" + confidence_badge(answer)
    )


def confidence_badge(answer: Answer) -> str:
    """` :green-badge[confidence 82%]`: green from 0.7 (the limitation threshold), orange from 0.4, else red;
    an answer the documents do not give reads ` :red-badge[not in these documents]` first."""
    outcome = " :red-badge[not in these documents]" if answer.outcome == "not_in_documents" else ""
    if answer.confidence is None or answer.no_data_found:
        return outcome
    score = answer.confidence.score
    colour = "green" if score >= THRESHOLD else ("orange" if score >= 0.4 else "red")
    return f"{outcome} :{colour}-badge[confidence {score:.0%}]"


def confidence(answer: Answer) -> None:
    """The limitation sentence of a weak answer (always), and the parts (when the sidebar toggle is on)."""
    judged = answer.confidence
    if judged is None or answer.no_data_found:
        return
    if judged.limitation:
        st.warning(judged.limitation, icon=None)
    if st.session_state.get("show_confidence", False):
        st.markdown(
            "\n".join(
                f"- {p.label}: **{'n/a' if p.value is None else f'{p.value:.0%}'}** (weight {p.weight:g}) — {p.detail}"
                for p in judged.parts
            )
        )


#: How each score in `Hit.sources` found the chunk, in an analyst's words.
_FOUND_BY = {
    "vector": "meaning",
    "fulltext": "keywords",
    "graph": "entities shared with the best hits",
    "residual": "the question's remaining words",
}


def found_by(hit: Hit | None) -> str:
    """Why a chunk was retrieved: its per-signal scores (empty for evidence that carries none)."""
    if hit is None or not hit.sources:
        return ""
    return "found by " + " · ".join(f"{_FOUND_BY.get(k, k)} {v:.2f}" for k, v in hit.sources.items())


def citation(n: int, cite: Citation, chunk: Hit | None, shared: str = "", *, quoted: bool = False) -> None:
    """One citation, expandable to its chunk; `quoted`: the fact shows the cited words (an extractive answer), so
    the match is of the words shown, else of the span the model quoted."""
    score = f" · score {cite.score:.3f}" if cite.score is not None else ""
    match = f" · {'quote' if quoted else 'span'} match {cite.match:.0%}" if cite.match is not None else ""
    also = f" · also cited by {shared}" if shared else ""
    with st.expander(f"[{n}] {inert(cite.source)}{score}{match}{also}"):
        why = found_by(chunk)
        st.caption(f"{cite.kind} `{cite.chunk_id}`" + (f" — {why}" if why else ""))
        body = highlight(chunk.text, cite.span) if chunk else html.escape(cite.span)
        st.html(f'<div class="driftlens-chunk" style="white-space: pre-wrap; font-size: 0.9rem">{body}</div>')


def render(
    answer: Answer,
    ctx: Context,
    key: str,
    *,
    show_graph: bool = False,
    shared: Mapping[str, str] | None = None,
    previous: Answer | None = None,
    beside: bool = False,
) -> None:
    """Everything about one answer; `key` (from the turn) makes its widget keys unique on the page.

    `shared` maps chunk ids to the other modes citing them (compare); `previous` is the last answer of the same
    mode, so the knobs' effect since then can be shown; `beside`: drawn in a column next to other answers.
    """
    label(answer)
    confidence(answer)
    if answer.no_data_found:
        st.info(inert(" ".join(answer.notes)) or "No data found for this question.")
    if answer.final_answer:
        st.markdown(inert(answer.final_answer))
    texts = chunk_texts(ctx, answer)
    n = 0
    nearest = answer.outcome == "not_in_documents"
    if answer.key_facts:
        st.markdown("**Nearest material (not an answer)**" if nearest else "**Key facts**")
    for i, fact in enumerate(answer.key_facts, start=1):
        refs = " ".join(f"[{n + j}]" for j in range(1, len(fact.citations) + 1))
        st.markdown(f"{i}. {inert(fact.fact)} {refs}")
        for cite in fact.citations:
            n += 1
            quoted = answer.answered_by == "extractive" and cite.kind == "chunk"
            citation(n, cite, texts.get(cite.chunk_id), (shared or {}).get(cite.chunk_id, ""), quoted=quoted)
    if answer.residual_uncertainty:
        st.caption(f"Residual uncertainty: {inert(answer.residual_uncertainty)}")
    for note in answer.notes if not answer.no_data_found else []:
        st.caption(inert(note))
    if not answer.no_data_found:
        st.caption(f"Knobs' effect: {knobs.describe(answer)}")
        moved = knobs.changes(previous, answer) if previous is not None else ""
        if moved:
            st.caption(moved)
    cited = [c.chunk_id for c in answer.citations() if c.kind == "chunk"]
    if cited and st.toggle("Evidence graph", value=show_graph, key=f"{key}-graph"):
        evidence(ctx, cited, key=f"{key}-evidence", beside=beside)
    with st.expander("Usage"):
        usage(answer)
    labels.panel(answer, texts, key)
    left, right = st.columns(2)
    name = export.file_stem(answer.question, answer.mode)
    left.download_button(
        "Export Markdown", export.to_markdown(answer), file_name=f"{name}.md", mime="text/markdown", key=f"{key}-md"
    )
    right.download_button(
        "Export JSON", export.to_json(answer), file_name=f"{name}.json", mime="application/json", key=f"{key}-json"
    )


def evidence(ctx: Context, chunk_ids: list[str], key: str, *, beside: bool = False) -> None:
    """The cited chunks' graph; keyed per answer, since two answers citing the same chunks draw the same graph."""
    graph = explore.evidence_graph(ctx, chunk_ids)
    if graph.cut:
        st.caption(f"{graph.cut} less-mentioned entities not shown")
    graph_view.evidence(ctx, graph, chunk_ids, key=key, beside=beside)


def usage(answer: Answer) -> None:
    u = answer.usage
    a, b, c, d = st.columns(4)
    a.metric("LLM calls", u.llm_calls)
    b.metric("Tokens", f"{u.prompt_tokens + u.completion_tokens:,}")
    c.metric("Cost", f"${u.cost_usd:.4f}")
    d.metric("Time", f"{u.wall_ms / 1000:.2f} s")
    if u.phases:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "phase": name,
                        "calls": p.calls,
                        "prompt tokens": p.prompt_tokens,
                        "completion tokens": p.completion_tokens,
                        "cost $": round(p.cost_usd, 5),
                        "ms": round(p.wall_ms, 1),
                    }
                    for name, p in u.phases.items()
                ]
            ),
            hide_index=True,
        )

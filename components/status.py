"""Clear states shared by pages: empty graph, no LLM configured."""

from __future__ import annotations

import streamlit as st

from retrieval.context import Context
from retrieval.engine import Engine
from retrieval.indexing.stats import core_counts
from retrieval.store import Health

INDEX_PAGE = "views/index.py"
BUILD_HELP = (
    "Build one from the **Index** page (pick a folder or upload files), or from a shell: "
    "`make demo` (the bundled demo corpus) or `python -m retrieval index PATH`."
)


def empty_graph(health: Health) -> bool:
    """Say how to build a graph when there is none; returns True when the page should stop there."""
    if not health.empty:
        return False
    st.info("The graph is empty: there is nothing to search yet. " + BUILD_HELP)
    st.page_link(INDEX_PAGE, label="Go to the Index page")
    return True


def scope(ctx: Context) -> None:
    """Say which data a search reads: one project, or the whole of a graph another tool built (it has none)."""
    st.caption(f"Searches read {ctx.scope_description}.")


def project_counts(engine: Engine, project: str) -> dict[str, int]:
    """What one project holds, as Home shows it: documents, chunks, entities, relationships."""
    counts = core_counts(engine.store, engine.settings, project)
    return {key.capitalize(): n for key, n in counts.items()}


def llm_state(engine: Engine) -> None:
    described = engine.llm_description
    if described:
        st.success(f"LLM configured: {described}. Every mode writes answers with the model; agent mode is available.")
        return
    st.warning(
        "No LLM configured. Local, global and DRIFT still work: their answers are **extractive** — ranked "
        "evidence sentences from the graph, each with its citation. The agent mode needs an LLM. "
        "To add one, set `OPENAI_API_KEY` (or `OPENAI_BASE_URL` for a compatible server) or "
        "`AZURE_OPENAI_ENDPOINT` + `AZURE_OPENAI_API_KEY` + `OAI_MODEL`, then restart the app."
    )

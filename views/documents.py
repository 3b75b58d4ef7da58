"""Documents: what a project holds (source, size, chunks, entities, when indexed, content hash, status), with
search and sort; remove or re-index the selected one, its status filling in while the run goes."""

from __future__ import annotations

import streamlit as st

from components import documents, session
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.indexing import remove_document
from retrieval.indexing.documents import UNKNOWN, UPLOAD, reindex_document

engine = session.engine()
project = session.project()
st.title("Documents")

try:
    stored = engine.documents(project)
except DriftLensError as exc:
    session.show_error(exc)
    st.stop()

search_col, sort_col, order_col = st.columns([3, 2, 1])
query = search_col.text_input("Search documents", key="docs_query", placeholder="words of a title or path")
sort = sort_col.selectbox("Sort by", list(documents.SORTS), key="docs_sort")
descending = order_col.toggle("Descending", key="docs_desc")
frame = documents.search_sort(documents.table(stored, documents.last_run(project)), query, sort, descending)
st.caption(
    f"{len(frame)} of {len(stored)} documents in project '{inert(project)}'. Select a row to remove or re-index it."
)
# A new key after each removal or re-index: the old selection pointed at a row that has moved.
picked = documents.show(frame, key=f"docs_table_{st.session_state.get('docs_runs', 0)}")
rows = picked.selection.rows if hasattr(picked, "selection") else []  # type: ignore[attr-defined]
by_id = {d.id: d for d in stored}
chosen = by_id.get(str(frame.iloc[rows[0]]["id"])) if rows and rows[0] < len(frame) else None

if chosen is not None:
    st.subheader(inert(chosen.title))
    st.caption(inert(f"{chosen.path} · from {chosen.source or 'an unknown source'} · {chosen.chunks} chunks"))
    live = documents.Live(stored, project)
    reindex_col, remove_col = st.columns(2)
    can_reindex = chosen.source not in (UPLOAD, UNKNOWN)
    if reindex_col.button(
        "Re-index",
        key="docs_reindex",
        disabled=not can_reindex,
        help="Read it again from its source and write it anew"
        if can_reindex
        else "Uploaded (or indexed before sources were recorded): upload it again on the Index page",
    ):
        with st.status(f"Re-indexing {chosen.path}…", expanded=True) as box:
            try:
                report = reindex_document(
                    engine.settings, engine.store, engine.embedder, chosen, on_document=live, chat_model=engine.llm
                )
            except DriftLensError as exc:
                box.update(label="Re-index failed", state="error")
                session.show_error(exc)
                st.stop()
            live.draw()
        documents.remember(report)
        st.session_state["docs_runs"] = st.session_state.get("docs_runs", 0) + 1
        st.rerun()
    confirm = remove_col.checkbox("Remove its chunks and update entities and communities", key="docs_confirm")
    if remove_col.button("Remove", key="docs_remove", disabled=not confirm):
        with st.status(f"Removing {chosen.path}…", expanded=True):
            try:
                report = remove_document(
                    engine.settings, engine.store, engine.embedder, chosen.id, project=project, chat_model=engine.llm
                )
            except DriftLensError as exc:
                session.show_error(exc)
                st.stop()
        documents.remember(report)
        st.session_state["docs_runs"] = st.session_state.get("docs_runs", 0) + 1
        st.rerun()

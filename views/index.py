"""Index: build or update a project's graph from a folder or uploaded files, see what it holds, delete a document."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components import charts, session
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.indexing import IndexReport, StageProgress, graph_stats, remove_document, run_index
from retrieval.indexing.graph import IndexGraph
from retrieval.indexing.roots import PathNotAllowed, allowed_source

DEFAULT_FOLDER = "data/demo/a-christmas-carol"
engine = session.engine()
project = session.project()
st.title("Index")
state = st.session_state


def stage_bars() -> Callable[[StageProgress], None]:
    """Per-stage progress bars in the current container, created as stages start; returns their callback."""
    bars: dict[str, DeltaGenerator] = {}

    def tick(p: StageProgress) -> None:
        bar = bars.get(p.stage) or bars.setdefault(p.stage, st.progress(0, text=p.stage))
        pct = 100 if p.total <= 0 else round(100 * min(p.done, p.total) / p.total)
        bar.progress(pct, text=f"{p.stage}: {p.done}/{p.total} {p.message}".rstrip())

    return tick


def index(paths: list[Path], target: str) -> None:
    with st.status(f"Indexing into project '{target}'…", expanded=True) as box:
        tick = stage_bars()
        try:
            report = run_index(
                engine.settings,
                engine.store,
                engine.embedder,
                paths,
                project=target,
                on_progress=tick,
                chat_model=engine.llm,
            )
        except DriftLensError as exc:
            box.update(label="Indexing failed", state="error")
            session.show_error(exc)
            return
        box.update(label=f"Indexed into '{target}'", state="complete", expanded=False)
    state.index_report = report
    state.index_paths = [str(p) for p in paths]
    st.rerun()


def show_report(report: IndexReport) -> None:
    counts = {k: len(getattr(report, k)) for k in ("added", "updated", "unchanged", "deleted")}
    st.success("Last run: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    for issue in report.issues:
        st.warning(inert(f"{issue.path}: {issue.message}"))
    for note in report.notes[:20]:
        st.caption(note)
    if report.seconds:
        st.dataframe(
            pd.DataFrame([{"stage": k, "seconds": v} for k, v in report.seconds.items()]), hide_index=True, height=200
        )


source_col, run_col = st.columns([3, 2])
with source_col:
    target = st.text_input("Project", value=project, key="index_project")
    source = st.radio("Source", ["Folder on this machine", "Upload files"], horizontal=True, key="index_source")
    if source == "Folder on this machine":
        folder = st.text_input("Folder (or file, or .zip)", value=DEFAULT_FOLDER, key="index_folder")
        uploads = []
    else:
        folder = ""
        uploads = st.file_uploader(
            "Files", type=["txt", "md", "markdown", "pdf", "zip"], accept_multiple_files=True, key="index_uploads"
        )
with run_col:
    st.caption("Indexing is incremental: unchanged documents are skipped; a folder run removes documents gone from it.")
    if st.button("Index", type="primary", key="index_run"):
        if uploads:
            upload_dir = Path(tempfile.mkdtemp(prefix="driftlens-upload-"))
            paths = []
            for upload in uploads:
                target_path = upload_dir / Path(upload.name).name
                target_path.write_bytes(upload.getvalue())
                paths.append(target_path)
            index(paths, target)
        elif folder:
            try:
                chosen = allowed_source(engine.settings, folder)  # only folders under the configured roots
            except PathNotAllowed as exc:
                session.show_error(exc)
            else:
                index([chosen], target)
        else:
            st.error("Pick files to upload first.")
    if state.get("index_paths") and st.button("Re-index last source", key="index_again"):
        index([Path(p) for p in state.index_paths], target)

if state.get("index_report"):
    show_report(state.index_report)

st.divider()
try:
    stats = graph_stats(engine.store, engine.settings, project)
except DriftLensError as exc:
    session.show_error(exc)
    st.stop()
st.subheader(f"Project '{project}'")
cols = st.columns(4)
for col, key in zip(cols, ("documents", "chunks", "entities", "relationships"), strict=True):
    col.metric(key.capitalize(), f"{stats[key]:,}")
if stats["community_sizes"]:
    st.markdown("**Community sizes per level**")
    st.caption(", ".join(f"level {lvl}: {n} communities" for lvl, n in stats["communities"].items()))
    st.plotly_chart(charts.community_sizes(stats["community_sizes"]), width="stretch")

documents = IndexGraph(engine.store, engine.settings, project).documents()
if documents:
    st.subheader("Delete a document")
    doc_path = st.selectbox("Document", sorted(documents), key="index_delete_pick")
    confirm = st.checkbox("I understand this removes its chunks and updates entities and communities", key="index_ok")
    if st.button("Delete document", disabled=not confirm, key="index_delete"):
        with st.status(f"Removing {doc_path}…", expanded=True) as box:
            tick = stage_bars()
            try:
                state.index_report = remove_document(
                    engine.settings,
                    engine.store,
                    engine.embedder,
                    doc_path,
                    project=project,
                    on_progress=tick,
                    chat_model=engine.llm,
                )
            except DriftLensError as exc:
                box.update(state="error")
                session.show_error(exc)
                st.stop()
        st.rerun()

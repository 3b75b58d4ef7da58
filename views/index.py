"""Index: build or update a project's graph from a folder or uploaded files, each document's status filling in as
the run goes, and what the project holds (the Documents page lists, removes and re-indexes its documents)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components import charts, documents, session
from components.untrusted import inert
from retrieval.errors import DriftLensError
from retrieval.indexing import IndexReport, StageProgress, graph_stats, run_index
from retrieval.indexing.documents import UPLOAD
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


def index(paths: list[Path], target: str, origin: str | None = None) -> None:
    with st.status(f"Indexing into project '{target}'…", expanded=True) as box:
        tick = stage_bars()
        live = documents.Live(engine.documents(target), target)  # each document's status as the run goes
        try:
            report = run_index(
                engine.settings,
                engine.store,
                engine.embedder,
                paths,
                project=target,
                on_progress=tick,
                chat_model=engine.llm,
                on_document=live,
                origin=origin,
            )
        except DriftLensError as exc:
            box.update(label="Indexing failed", state="error")
            session.show_error(exc)
            return
        live.draw()
        box.update(label=f"Indexed into '{target}'", state="complete", expanded=False)
    state.index_report = report
    state.index_paths = [str(p) for p in paths]
    state.index_origin = origin
    documents.remember(report)
    state.project_next = target  # the sidebar, Home and this page's statistics follow the project just indexed
    st.rerun()


def show_report(report: IndexReport) -> None:
    counts = {k: len(getattr(report, k)) for k in ("added", "updated", "unchanged", "deleted")}
    st.success("Last run: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    for issue in report.issues:
        st.warning(inert(f"{issue.path}: {issue.message}"))
    for note in report.notes[:20]:
        st.caption(note)
    statuses = report.statuses()
    with st.expander(f"Documents of the last run ({len(statuses)})", expanded=len(statuses) <= 20):
        run_docs = documents.table(engine.documents(report.project), statuses)
        documents.show(run_docs[run_docs["path"].isin(statuses)])
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
            index(paths, target, origin=UPLOAD)
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
        index([Path(p) for p in state.index_paths], target, origin=state.get("index_origin"))

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

st.page_link(
    "views/documents.py", label=f"List, remove or re-index the documents of '{project}'", icon=":material/description:"
)

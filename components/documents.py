"""A project's documents as a table: stored facts with the statuses of this session's last run on top, search and
sort, and a live copy that fills in while a run goes (the Index and Documents pages draw it).

Why the overlay: the graph records what the last *write* did to each document; "unchanged" and a file skipped
before it was ever stored are facts of a run, which the session keeps (`remember`) until the next one.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from retrieval.indexing import DocumentEvent, IndexReport
from retrieval.indexing.documents import DocumentInfo

#: Sort choices: label -> table column.
SORTS = {
    "Path": "path",
    "Title": "title",
    "Size": "size",
    "Chunks": "chunks",
    "Entities": "entities",
    "Indexed at": "indexed at",
    "Status": "status",
}
COLUMNS = ["title", "status", "chunks", "entities", "size", "indexed at", "path", "reason", "content hash", "source"]
COLUMN_CONFIG = {
    "size": st.column_config.NumberColumn("size (bytes)", format="%d"),
    "content hash": st.column_config.TextColumn("content hash", help="sha256 of the normalised text (first 12)"),
    "reason": st.column_config.TextColumn("reason", width="large"),
}
#: Fewest seconds between two redraws of the live table (a run over 1,000 files sends thousands of events).
REDRAW_S = 0.3
_KEY = "doc_statuses"


def remember(report: IndexReport) -> None:
    """Keep what `report`'s run did to each document it saw for the tables of its project (over earlier runs)."""
    st.session_state.setdefault(_KEY, {}).setdefault(report.project, {}).update(report.statuses())


def last_run(project: str) -> dict[str, DocumentEvent]:
    statuses: dict[str, DocumentEvent] = st.session_state.get(_KEY, {}).get(project, {})
    return statuses


def table(docs: Iterable[DocumentInfo], overlay: dict[str, DocumentEvent]) -> pd.DataFrame:
    """One row per stored document, the run's status (and reason) over the stored one; a file the run saw but
    the graph does not hold (skipped, failed, removed) gets a row of its own."""
    rows = []
    seen = set()
    for d in docs:
        seen.add(d.path)
        event = overlay.get(d.path)
        rows.append(
            {
                "id": d.id,
                "title": d.title,
                "path": d.path,
                "source": d.source or "unknown",
                "size": d.size,
                "chunks": d.chunks,
                "entities": d.entities,
                "indexed at": d.indexed_at.replace("T", " ").removesuffix("+00:00"),
                "content hash": d.content_hash[:12],
                "status": event.status if event and event.status != "removed" else d.status,
                "reason": event.reason if event and event.status != "removed" else d.reason,
            }
        )
    rows.extend(
        {"id": "", "title": path.rsplit("/", 1)[-1], "path": path, "status": e.status, "reason": e.reason}
        for path, e in overlay.items()
        if path not in seen and e.status != "removed"
    )
    return pd.DataFrame(rows, columns=["id", *COLUMNS])


def search_sort(frame: pd.DataFrame, query: str, sort: str, descending: bool) -> pd.DataFrame:
    """Rows whose title or path contains `query` (any case), sorted by the column `SORTS[sort]`."""
    words = query.strip().lower()
    if words:
        hay = frame["title"].fillna("").str.lower() + "\n" + frame["path"].fillna("").str.lower()
        frame = frame[hay.str.contains(words, regex=False)]
    column = SORTS.get(sort, "path")
    return frame.sort_values(column, ascending=not descending, na_position="last", kind="stable").reset_index(drop=True)


def show(frame: pd.DataFrame, *, key: str | None = None) -> object:
    """The table; with `key` a row can be selected (the returned event says which)."""
    if key is None:
        return st.dataframe(frame[COLUMNS], hide_index=True, width="stretch", column_config=COLUMN_CONFIG)
    return st.dataframe(
        frame[COLUMNS],
        hide_index=True,
        width="stretch",
        column_config=COLUMN_CONFIG,
        on_select="rerun",
        selection_mode="single-row",
        key=key,
    )


class Live:
    """The documents of a run as it goes: each event updates its row and the table is redrawn (at most every
    REDRAW_S, and once more by `done`)."""

    def __init__(self, docs: Iterable[DocumentInfo], project: str) -> None:
        self.docs = list(docs)
        self.project = project
        self.events: dict[str, DocumentEvent] = {}
        self.slot: DeltaGenerator = st.empty()
        self.drawn = 0.0

    def __call__(self, event: DocumentEvent) -> None:
        self.events[event.path] = event
        if time.monotonic() - self.drawn >= REDRAW_S:
            self.draw()

    def draw(self) -> None:
        frame = table(self.docs, self.events)
        touched = frame[frame["path"].isin(self.events)]
        with self.slot.container():
            st.caption(f"{len(self.events)} documents so far in '{self.project}'")
            show(touched)
        self.drawn = time.monotonic()

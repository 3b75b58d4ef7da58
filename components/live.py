"""Live progress: run a retrieval in a worker thread and show its progress events phase by phase.

Why a thread: Streamlit elements can only be written from the script thread, while modes emit
progress from wherever they run (DRIFT follow-ups run in a pool). The worker only computes; events
travel through a queue and the script thread draws them as they arrive, so the first progress is on
screen as soon as the question is submitted.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.elements.lib.mutable_status_container import StatusContainer

from components.untrusted import inert
from retrieval.telemetry.events import ProgressEvent

Callback = Callable[[ProgressEvent], None]

PHASE_LABELS = {
    "initializing": "Starting",
    "expanding_query": "Expanding the question",
    "retrieving_communities": "Reading community summaries",
    "executing_followup": "Following up",
    "aggregating_results": "Aggregating the evidence",
    "completed": "Done",
    "error": "Failed",
}
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Shown:
    """A status box with its progress bar, drawn before the work starts."""

    label: str
    box: StatusContainer
    bar: DeltaGenerator


def show(label: str, *, expanded: bool = True) -> Shown:
    """The status box of a search about to run, on screen now: a page draws it before any graph work (reading
    the thread, saving the question), so a submitted question shows progress at once; `run` then fills it."""
    box = st.status(label, expanded=expanded)
    with box:
        bar = st.progress(0, text="submitted")
    return Shown(label, box, bar)


def run[T](
    work: Callable[[Callback], T],
    label: str,
    *,
    on_event: Callback | None = None,
    expanded: bool = True,
    shown: Shown | None = None,
) -> tuple[T, list[ProgressEvent]]:
    """Run `work(callback)` with an st.status that lists each phase; returns its result and the events.

    `shown` is a box `show` drew earlier (else one is drawn now). `on_event` runs in the script thread for every
    event (e.g. to redraw a DRIFT tree). Exceptions from `work` are re-raised here after the status box is
    marked as failed.
    """
    inbox: queue.Queue[ProgressEvent] = queue.Queue()
    events: list[ProgressEvent] = []
    shown = shown or show(label, expanded=expanded)
    box = shown.box
    with box:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="driftlens-ask") as pool:
            future = pool.submit(work, inbox.put)
            while not (future.done() and inbox.empty()):
                try:
                    event = inbox.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    continue
                events.append(event)
                _show(event, shown, new_phase=len(events) == 1 or events[-2].phase != event.phase)
                if on_event is not None:
                    on_event(event)
            try:
                result = future.result()
            except Exception:
                box.update(label=f"{label}: failed", state="error", expanded=False)
                raise
        box.update(label=f"{label}: done", state="complete", expanded=False)
    return result, events


def _show(event: ProgressEvent, shown: Shown, new_phase: bool) -> None:
    phase = PHASE_LABELS.get(event.phase, event.phase)
    shown.bar.progress(event.progress_pct, text=f"{phase} · {event.progress_pct}%")
    # The search's name stays in the label: side by side (compare), each box says which mode it runs.
    shown.box.update(label=f"{shown.label}: {phase.lower()}…")
    if new_phase:
        st.markdown(f"**{phase}** — {inert(event.thought_summary)}")
    elif event.thought_summary:
        st.caption(inert(event.thought_summary))
    if event.details_md:
        st.markdown(inert(event.details_md))

"""The app's shared handles: one cached Engine per process, per-session knobs in st.session_state.

Why here: every page needs the same engine, project, mode and tuning values; reading them in one
place keeps pages thin and makes "the sidebar's sliders apply everywhere" true by construction.
"""

from __future__ import annotations

import atexit
from typing import Any

import streamlit as st

from retrieval.config import Settings, load_settings
from retrieval.context import Context
from retrieval.engine import Engine
from retrieval.errors import DriftLensError
from retrieval.models import Mode, QueryParams
from retrieval.redact import redact
from retrieval.store import project_knobs

#: Sidebar tuning knobs: session key -> QueryParams field. Their defaults come from Settings.
TUNING: dict[str, str] = {
    "tune_fusion": "fusion",
    "tune_alpha": "alpha",
    "tune_top_k": "top_k",
    "tune_max_hops": "max_hops",
    "tune_max_nodes": "max_nodes",
    "tune_drift_rounds": "drift_rounds",
    "tune_drift_followups": "drift_followups_per_round",
}
MODES: tuple[Mode, ...] = ("local", "global", "drift", "agent")


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    """Settings once per process; a ConfigError propagates (and is not cached) so app.py can show it."""
    return load_settings()


@st.cache_resource(show_spinner="Opening the graph and loading the embedder…")
def engine() -> Engine:
    """One Engine per process: the store connection and the ONNX embedder are expensive to open.

    Closed at exit, so the embedded graph server is saved and stopped with the app instead of outliving it.
    """
    opened = Engine(settings())
    atexit.register(opened.close)
    return opened


def defaults() -> dict[str, Any]:
    """Settings' knobs, overridden by the ones the project saved from the Tuning page (read once per session)."""
    saved: dict[str, dict[str, Any]] = st.session_state.setdefault("project_knobs", {})
    if project() not in saved:
        engine_ = engine()
        saved[project()] = project_knobs.load(engine_.store, engine_.settings, project())
    base = QueryParams.from_settings(settings(), **saved[project()])
    return {key: getattr(base, field) for key, field in TUNING.items()}


def reset_tuning() -> None:
    """Back to Settings' defaults (a widget callback, so it runs before the sliders are drawn)."""
    st.session_state.update(defaults())


def ensure_defaults() -> None:
    for key, value in defaults().items():
        st.session_state.setdefault(key, value)


def params(**overrides: Any) -> QueryParams:
    """QueryParams from the sidebar's current values (plus page-level overrides)."""
    ensure_defaults()
    values = {field: st.session_state[key] for key, field in TUNING.items()}
    return engine().params(**{**values, **overrides})


def project() -> str:
    return str(st.session_state.get("project") or settings().project)


def mode() -> Mode:
    value = st.session_state.get("mode", "local")
    return value if value in MODES else "local"


def context() -> Context:
    return engine().context(project())


def show_error(exc: DriftLensError) -> None:
    """Every product error is one readable message; the message itself says what to do (secrets masked)."""
    st.error(redact(str(exc)), icon=None)


def drift_runs() -> list[dict[str, Any]]:
    """This session's DRIFT runs ({answer, events}), oldest first: the DRIFT trace page lists them."""
    runs: list[dict[str, Any]] = st.session_state.setdefault("drift_runs", [])
    return runs


#: Page widgets whose values should survive visiting another page (Streamlit drops the state of widgets
#: that a run does not draw); re-assigning them on every run marks them as the session's own values.
PAGE_STATE = (
    "ex_query",
    "ex_pick",
    "ex_hops",
    "ex_cap",
    "ex_colour",
    "ex_level",
    "ex_chart",
    "ask_compare",
    "drift_question",
    "mem_query",
)


def keep_page_state() -> None:
    for key in PAGE_STATE:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]

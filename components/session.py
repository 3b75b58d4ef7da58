"""The app's shared handles: one cached Engine per process, per-session knobs in st.session_state.

Why here: every page needs the same engine, project, mode and tuning values; reading them in one
place keeps pages thin and makes "the sidebar's sliders apply everywhere" true by construction.
"""

from __future__ import annotations

import atexit
import json
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import streamlit as st

from retrieval.config import Settings, load_settings
from retrieval.context import Context
from retrieval.engine import Engine
from retrieval.errors import DriftLensError
from retrieval.models import Mode, QueryParams
from retrieval.store import project_knobs
from retrieval.text.redact import redact

#: Sidebar tuning knobs: session key -> QueryParams field. Their defaults come from Settings.
TUNING: dict[str, str] = {
    "tune_fusion": "fusion",
    "tune_alpha": "alpha",
    "tune_top_k": "top_k",
    "tune_max_hops": "max_hops",
    "tune_max_nodes": "max_nodes",
    "tune_drift_rounds": "drift_rounds",
    "tune_drift_followups": "drift_followups_per_round",
    "tune_degree_penalty": "degree_penalty",
    "tune_recency_weight": "recency_weight",
    "tune_drift_budget": "drift_budget",
    "tune_direction": "expansion_direction",
    "tune_global_level": "global_level",
}
MODES: tuple[Mode, ...] = ("local", "global", "drift", "agent")
#: The global level's "chosen per question" value in the sidebar (QueryParams spells it None).
AUTO = "auto"


@st.cache_resource(show_spinner=False)
def settings() -> Settings:
    """Settings once per process; a ConfigError propagates (and is not cached) so app.py can show it."""
    return load_settings()


class _Slot:
    """Where the process's one Engine goes once open; the lock makes a second session wait for the first open."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.engine: Engine | None = None


@st.cache_resource(show_spinner=False)
def _slot() -> _Slot:
    return _Slot()


def engine_open() -> bool:
    return _slot().engine is not None


def engine(opening: Callable[[str], None] | None = None) -> Engine:
    """One Engine per process: the store connection and the ONNX embedder are expensive to open.

    Why not cache the Engine itself: a cached function's page elements are recorded and replayed, so the steps of
    a slow open (an embedded graph rebuilding its indexes takes minutes at 100k chunks) could not be shown live;
    `opening` hears them (app.py draws them). Closed at exit, so the embedded graph server is saved and stopped
    with the app instead of outliving it (unless DRIFTLENS_GRAPH_KEEP_SERVER keeps it for the next start).
    """
    slot = _slot()
    with slot.lock:
        if slot.engine is None:
            slot.engine = Engine(settings(), opening=opening)
            atexit.register(slot.engine.close)
        return slot.engine


def defaults() -> dict[str, Any]:
    """Settings' knobs, overridden by the ones the project saved from the Tuning page (read once per session)."""
    saved: dict[str, dict[str, Any]] = st.session_state.setdefault("project_knobs", {})
    if project() not in saved:
        engine_ = engine()
        saved[project()] = project_knobs.load(engine_.store, engine_.settings, project())
    base = QueryParams.from_settings(settings(), **saved[project()])
    values = {key: getattr(base, field) for key, field in TUNING.items()}
    values.update(
        {k: v for k, v in own_defaults().items() if k in TUNING}
    )  # the analyst's own, saved from the sidebar, over the project's
    if values["tune_global_level"] is None:  # a select box shows None as "no choice"; the choice is "auto"
        values["tune_global_level"] = AUTO
    return values


def own_defaults_file() -> Path:
    """Where the analyst's own defaults are saved (the sidebar's "Save as my defaults")."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", settings().user).strip(".-") or "analyst"
    return settings().data_dir / "defaults" / f"{name}.json"


def own_defaults() -> dict[str, Any]:
    """The analyst's saved knobs and mode (by session key); nothing when none were saved or the file is damaged."""
    try:
        values = json.loads(own_defaults_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in values.items() if k in TUNING or k == "mode"} if isinstance(values, dict) else {}


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
    if values["global_level"] == AUTO:
        values["global_level"] = None
    chosen = engine().params(**{**values, **overrides})
    # `params` drops None overrides (unset means "the setting"), but a global level of None is a choice: "auto".
    return chosen if "global_level" in overrides else chosen.model_copy(update={"global_level": values["global_level"]})


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


def keep_state(keys: Iterable[str] = PAGE_STATE) -> None:
    """Mark the values of these widget keys as the session's own, so they outlive a run that does not draw them."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]

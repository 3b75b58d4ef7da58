"""The shared sidebar: where the graph lives and whether it is healthy, project, mode, tuning knobs.

Drawn by app.py on every run, before the page, so its widgets exist on every page and their values
persist for the whole session (Streamlit forgets the state of widgets that are not drawn). The tuning knobs are
the exception: drawn only while their panel is open (TUNING_PANEL), their values are kept by hand meanwhile.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components import knob_scope, session, url_state
from retrieval.engine import Engine
from retrieval.store import Health

MODE_HELP = {
    "local": "Hybrid search + graph neighbourhood: specific questions",
    "global": "Map-reduce over community summaries: whole-corpus themes",
    "drift": "Community primer, then follow-up questions: broad and deep",
    "agent": "LLM tool loop over the graph (needs an LLM)",
}


#: The tuning sliders: session key -> (label, lowest, highest, step, what it does). The URL's values are kept
#: within these ends (`url_state`).
SLIDERS: dict[str, tuple[str, Any, Any, Any, str]] = {
    "tune_alpha": ("Alpha (vector vs keyword)", 0.0, 1.0, 0.05, ""),
    "tune_top_k": ("Top-k", 1, 50, 1, ""),
    "tune_max_hops": ("Max hops", 0, 5, 1, ""),
    "tune_max_nodes": ("Max nodes", 10, 500, 10, ""),
    "tune_drift_rounds": ("DRIFT rounds", 0, 5, 1, ""),
    "tune_drift_followups": ("Follow-ups per round", 1, 10, 1, ""),
    "tune_degree_penalty": ("Degree penalty", 0.0, 2.0, 0.05, "Hubs spread less."),
    "tune_recency_weight": ("Recency weight", 0.0, 1.0, 0.05, "Boost for newer entities."),
    "tune_drift_budget": ("Drift budget", 0.0, 5.0, 0.05, "Expansion stops here; 0: off."),
}

#: The Tuning panel's session key. Its knobs are drawn only while it is open (Streamlit reruns the app when it opens
#: or closes): mounting its fourteen widgets in the browser took about 0.3 s of every page switch, which rebuilds
#: the sidebar from scratch, on every page and also where no knob applies (Index, Documents).
TUNING_PANEL = "sidebar_tuning"

#: What agent mode does when no model is configured, said where the mode is chosen.
AGENT_OFFLINE = "agent mode only lists the search results, with no answer"


def mode_label(mode: str, *, has_model: bool) -> str:
    """The mode's name in the mode box; agent says up front what it does without a model."""
    if mode == "drift":
        return "DRIFT"
    if mode == "agent" and not has_model:
        return "Agent (no model: lists search results)"
    return mode.capitalize()


def render(engine: Engine, health: Health) -> None:
    url_state.restore(engine, SLIDERS)
    sb = st.sidebar
    badge = (
        ":green-badge[healthy]"
        if health.ok and not health.empty
        else (":orange-badge[empty graph]" if health.ok else ":red-badge[down]")
    )
    sb.markdown(f"**Backend** {badge}")
    sb.caption(engine.settings.backend_display)
    llm = engine.llm_description
    sb.caption(f"LLM: {llm}" if llm else "LLM: none — answers are extractive")
    projects = engine.projects() or [engine.settings.project]
    if "project_next" in st.session_state:  # a page indexed into another project: show that one from now on
        st.session_state["project"] = st.session_state.pop("project_next")
    if st.session_state.get("project") not in projects:
        st.session_state["project"] = engine.settings.project if engine.settings.project in projects else projects[0]
    # Each box is given its session value as its default too (as the knobs are, `knob_scope.knob`): opening the
    # Tuning panel reruns the app, and a rerun that interrupted a new session's first run left the box showing its
    # first option (the URL's mode=drift read back, "Local" shown).
    sb.selectbox("Project", projects, index=projects.index(st.session_state["project"]), key="project")
    st.session_state.setdefault("mode", "local")
    sb.selectbox(
        "Answer mode",
        session.MODES,
        index=session.MODES.index(session.mode()),
        key="mode",
        format_func=lambda m: mode_label(m, has_model=engine.llm is not None),
        help="\n\n".join(f"**{m}**: {text}" for m, text in MODE_HELP.items())
        + ("" if engine.llm else f"\n\nNo model is configured: {AGENT_OFFLINE}."),
    )
    knob_scope.needs_model(engine)
    sb.toggle("Show confidence breakdown", key="show_confidence", help="The parts each answer's confidence is made of")
    session.ensure_defaults()
    panel = sb.expander("Tuning", key=TUNING_PANEL, on_change="rerun")
    if panel.open:
        with panel:
            _tuning(engine)
    else:
        session.keep_state(session.TUNING)  # the knobs keep their values while their widgets are not drawn
    url_state.sync()


def _tuning(engine: Engine) -> None:
    """The tuning knobs, drawn only while their panel is open (see TUNING_PANEL)."""
    fusions = ["linear", "rrf"]
    st.selectbox(
        "Fusion",
        fusions,
        index=fusions.index(st.session_state["tune_fusion"]),
        **knob_scope.scope("tune_fusion", "Linear: weighted, per-arm normalised; RRF: ranks."),
    )
    for key, (label, low, high, step, what) in SLIDERS.items():
        st.slider(label, low, high, step=step, **knob_scope.knob(key, what))
    directions = ["both", "out", "in"]
    st.selectbox(
        "Edge direction",
        directions,
        index=directions.index(st.session_state["tune_direction"]),
        **knob_scope.scope("tune_direction", "Directed RELATED to follow."),
    )
    levels: list[str | int] = [
        session.AUTO,
        *range(max(engine.settings.community_levels, (engine.settings.global_level or 0) + 1)),
    ]
    st.selectbox(
        "Global level",
        levels,
        index=levels.index(st.session_state["tune_global_level"])
        if st.session_state["tune_global_level"] in levels
        else 0,
        format_func=lambda v: str(v) if v == session.AUTO else f"level {v}",
        **knob_scope.scope("tune_global_level"),
    )
    st.button("Reset to defaults", on_click=session.reset_tuning, width="stretch")
    url_state.save_buttons()

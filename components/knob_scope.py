"""Which modes a sidebar knob and the chosen mode can work with, said where the choice is made.

Why: a knob the chosen mode never reads looks broken when moving it changes nothing, and agent mode
without a model used to fall back silently; both are now stated (and the knob disabled) at once.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components import session
from retrieval.engine import Engine
from retrieval.modes import knobs

#: Modes that answer without a model, offered when agent mode is chosen without one.
OFFLINE_MODES = ("local", "global", "drift")


def knob(key: str, what: str = "") -> dict[str, Any]:
    """Widget keyword arguments for the tuning knob `key`: its session value, help naming the modes it affects,
    disabled for the others.

    Why the value is passed although the session holds it: a widget's proto carries a `default` (its `value`
    argument, else the slider's minimum), and a browser that draws the collapsed Tuning panel without its state
    reported that default, so every answer ran with top-k 1, hops 0 and alpha 0 (the sliders' minimums).
    """
    return {**scope(key, what), "value": st.session_state[key]}


def scope(key: str, what: str = "") -> dict[str, Any]:
    """Key, help naming the modes the knob affects, and disabled for the other modes (any widget kind)."""
    field = session.TUNING[key]
    return {
        "key": key,
        "help": f"{what} {knobs.modes_text(field)}.".strip(),
        "disabled": not knobs.affects(field, session.mode()),
    }


def _use(mode: str) -> None:
    st.session_state["mode"] = mode


def needs_model(engine: Engine) -> None:
    """Agent mode with no model: say so under the mode box and offer the modes that work offline."""
    if session.mode() != "agent" or engine.llm is not None:
        return
    sb = st.sidebar
    sb.warning(
        "Agent mode needs a language model (set OPENAI_API_KEY, OPENAI_BASE_URL or the Azure settings). "
        "Without one it only lists search results. These modes answer without a model:"
    )
    columns = sb.columns(len(OFFLINE_MODES))
    for column, mode in zip(columns, OFFLINE_MODES, strict=True):
        column.button(
            "DRIFT" if mode == "drift" else mode.capitalize(),
            key=f"use_{mode}",
            on_click=_use,
            args=(mode,),
        )

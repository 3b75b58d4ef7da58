"""The sidebar's settings in the page's URL, so a shared link reproduces the view, and an analyst's own defaults.

Why the URL: Streamlit keeps widget values per browser session, so a reload or a new tab started from scratch.
Every run writes the settings that differ from the defaults into the query string (`?mode=drift&top_k=20`); a
new session reads them back once, before the sidebar draws. Other pages' own parameters (`thread`, `run`) are
left alone. Saved defaults are a small JSON file per analyst in the data folder (`defaults/<user>.json`).
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from components import session
from retrieval.engine import Engine
from retrieval.models import QueryParams

_RESTORED = "_url_restored"
#: Settings that are not knobs, with their defaults.
PLAIN = {"project": None, "mode": "local"}


def _save() -> None:
    state = st.session_state
    values = {key: state[key] for key in session.TUNING if key in state} | {"mode": state.get("mode", "local")}
    path = session.own_defaults_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values, indent=1), encoding="utf-8")
    state.pop("project_knobs", None)  # defaults are read again with these
    state["_defaults_said"] = "Saved: new sessions start with these settings."


def _forget() -> None:
    session.own_defaults_file().unlink(missing_ok=True)
    st.session_state.pop("project_knobs", None)
    st.session_state["_defaults_said"] = "Forgot your defaults: new sessions start with the project's."


def save_buttons() -> None:
    save_col, forget_col = st.columns(2)
    save_col.button("Save as my defaults", on_click=_save, help="New sessions (and Reset) start with these")
    forget_col.button("Forget my defaults", on_click=_forget, disabled=not session.own_defaults_file().exists())
    said = st.session_state.pop("_defaults_said", None)
    if said:
        st.caption(said)


def _parse(raw: str, default: Any, low: Any = None, high: Any = None) -> Any:
    """`raw` as the type of `default` (within low..high); None when it does not read as one."""
    try:
        if isinstance(default, bool):
            return raw.lower() in ("1", "true", "yes")
        if isinstance(default, int) and not isinstance(default, bool):
            value: Any = int(raw)
        elif isinstance(default, float):
            value = float(raw)
        else:
            return raw
    except ValueError:
        return None
    if low is not None and high is not None:
        value = min(max(value, low), high)
    return value


def restore(engine: Engine, ranges: dict[str, tuple[str, Any, Any, Any, str]]) -> None:
    """Once per session, before the sidebar draws: the URL's settings into the session (a value that does not
    read, or that QueryParams refuses, is ignored; slider values are kept within the slider's ends)."""
    state = st.session_state
    if state.get(_RESTORED):
        return
    state[_RESTORED] = True
    url = st.query_params
    if url.get("project"):
        state["project"] = url["project"]
    mode = url.get("mode") or session.own_defaults().get("mode")
    if mode in session.MODES:
        state["mode"] = mode
    base = session.defaults()
    for key, field in session.TUNING.items():
        raw = url.get(field)
        if raw is None:
            continue
        if key == "tune_global_level" and raw == session.AUTO:
            state[key] = session.AUTO
            continue
        _label, low, high, _step, _what = ranges.get(key, ("", None, None, None, ""))
        value = _parse(raw, base[key] if base[key] != session.AUTO else 0, low, high)
        try:
            QueryParams.model_validate({**engine.params().model_dump(), field: value})
        except ValueError:
            continue
        state[key] = value


def sync() -> None:
    """Write the settings that differ from their defaults into the URL; drop the ones back at their default."""
    state, url = st.session_state, st.query_params
    base = session.defaults()
    wanted = {field: state.get(key) for key, field in session.TUNING.items() if state.get(key) != base[key]}
    if state.get("project") and state["project"] != session.settings().project:
        wanted["project"] = state["project"]
    if state.get("mode", "local") != PLAIN["mode"]:
        wanted["mode"] = state["mode"]
    for name in [*session.TUNING.values(), *PLAIN]:
        if name in wanted:
            text = str(wanted[name])
            if url.get(name) != text:
                url[name] = text
        elif name in url:
            del url[name]

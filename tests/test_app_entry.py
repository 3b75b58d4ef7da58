"""app.py opens the graph only when Streamlit runs it, never when a process the app spawned imports it again."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from components import session

APP = Path(__file__).resolve().parents[1] / "app.py"


def test_a_spawned_process_importing_the_app_opens_no_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """multiprocessing's spawn imports the parent's main script as `__mp_main__` in the child (the extraction
    process of an Index run): the app used to open the graph there, leaving a graph server behind."""

    def no_graph(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the app opened the graph in a spawned process")

    monkeypatch.setattr(session, "engine", no_graph)
    monkeypatch.setattr(session, "engine_open", lambda: False)
    namespace = runpy.run_path(str(APP), run_name="__mp_main__")
    assert callable(namespace["main"]) and namespace["PAGES"]

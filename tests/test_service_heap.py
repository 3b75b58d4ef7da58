"""The service freezes what its start left on the heap, so full collections stop pausing every request."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from retrieval.cli import main
from retrieval.cli.serve import HOST_VARIABLE, app_from_environment
from retrieval.service.heap import freeze_startup_objects


@pytest.fixture
def thawed() -> Iterator[None]:
    """Each test starts and ends with nothing frozen: the test process must keep collecting its garbage."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_serve_freezes_the_startup_objects_before_it_listens(
    thawed: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **_: seen.update(frozen=gc.get_freeze_count(), app=app))
    assert main(["serve", "--graph", str(tmp_path / "graph.db"), "--port", "0"]) == 0
    assert seen["frozen"] > 10_000, seen  # the imported libraries alone are ~200,000 objects


def test_each_worker_freezes_its_own_startup_objects(
    thawed: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DRIFTLENS_GRAPH_PATH", str(tmp_path / "graph.db"))
    monkeypatch.setenv(HOST_VARIABLE, "127.0.0.1")
    app_from_environment()
    assert gc.get_freeze_count() > 10_000


def test_what_is_made_after_the_freeze_is_still_collected(thawed: None) -> None:
    freeze_startup_objects()

    class Cycle:
        def __init__(self) -> None:
            self.itself = self

    cycle = Cycle()
    gone = weakref.ref(cycle)
    del cycle
    gc.collect()
    assert gone() is None

